"""The one error base of the package.

Every error a user can cause (bad input, a refused request, a damaged file) derives from
`MirrorError`, so the CLI catches it once and prints one line with exit code 2. Subclasses that
describe bad values also derive from `ValueError`, so library callers can catch either.
"""

from __future__ import annotations

__all__ = ["MirrorError", "MirrorValueError"]


class MirrorError(Exception):
    """A problem the user can fix: its message is one line naming the file, row or field."""


class MirrorValueError(MirrorError, ValueError):
    """A `MirrorError` that is also a `ValueError` (bad values in input, options or files)."""
