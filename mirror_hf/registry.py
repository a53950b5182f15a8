"""A generic name -> spec registry with did-you-mean errors (the shape of lm-evaluation-harness's
`api/registry.py`): experiments and channels are registered specs, looked up by name everywhere.

It sits at the bottom of the package (it imports only `errors`), so any room can hold a registry
of its own specs without importing a room above it.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterator, Mapping
from typing import TypeVar

from mirror_hf.errors import MirrorValueError

T = TypeVar("T")


class UnknownName(MirrorValueError, KeyError):
    """A name no spec was registered under; the message lists the close matches and all names."""

    def __str__(self) -> str:  # KeyError would quote the message
        return str(self.args[0]) if self.args else ""


class Registry(Mapping[str, T]):
    """Ordered, read-mostly `name -> spec` (a Mapping: iterating gives the names, in registration
    order). `kind` names what is registered, for error messages."""

    def __init__(self, kind: str):
        self.kind = kind
        self._specs: dict[str, T] = {}

    def register(self, name: str, spec: T, *, replace: bool = False) -> T:
        if not name or not name.replace("_", "").isalnum():
            raise MirrorValueError(f"{self.kind} name {name!r} must be letters, digits and _")
        if name in self._specs and not replace:
            raise MirrorValueError(f"{self.kind} {name!r} is already registered")
        self._specs[name] = spec
        return spec

    def unregister(self, name: str) -> None:
        self._specs.pop(name, None)

    def get(self, name: str) -> T:
        try:
            return self._specs[name]
        except KeyError:
            pass
        close = difflib.get_close_matches(str(name), list(self._specs), n=3, cutoff=0.6)
        hint = f"; did you mean {' or '.join(close)}?" if close else ""
        raise UnknownName(f"unknown {self.kind} {name!r}{hint} (known: {', '.join(self._specs)})")

    def names(self) -> tuple[str, ...]:
        return tuple(self._specs)

    def __getitem__(self, name: str) -> T:
        return self.get(name)

    def __contains__(self, name: object) -> bool:
        return name in self._specs

    def __iter__(self) -> Iterator[str]:
        return iter(list(self._specs))

    def __len__(self) -> int:
        return len(self._specs)
