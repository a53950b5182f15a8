"""Default-size parallel forms, generated once per test process. Several test files pool the same
forms (bank shape, test-wise leaks, option kinds, wording) and one form takes several seconds, so
each seed is made once; the items are frozen, and callers get their own list."""

from __future__ import annotations

import functools

from mirror_hf.records import Question


@functools.cache
def _form(seed: int) -> tuple[Question, ...]:
    from mirror_hf.bank import generate_bank

    return tuple(generate_bank(seed))


def form(seed: int) -> list[Question]:
    """The default-size form of `seed` (gates applied), as a fresh list."""
    return list(_form(seed))
