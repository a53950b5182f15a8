"""Column coercion with clear errors: every scoring function accepts lists, numpy arrays or polars
Series, with None/null where a value is missing, and turns them into numpy arrays once, here.

Outcomes (`correct`) become float arrays with 1.0 / 0.0 / NaN (NaN = ungraded, never guessed), so the
metrics can use NaN-aware arithmetic instead of masks of masks.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence, Sized
from typing import Any, Literal

import numpy as np
import polars as pl

from mirror_hf.errors import MirrorValueError

ArrayLike = Sequence[Any] | np.ndarray | pl.Series
Keep = Literal["first", "last", "any", "none"]  # polars' `unique(keep=...)` choices


class ScoringInputError(MirrorValueError):
    """An input column has the wrong type, length or vocabulary (the message names field and row)."""


def _series(values: ArrayLike, name: str) -> pl.Series:
    if isinstance(values, pl.Series):
        return values.alias(name)
    if isinstance(values, np.ndarray):
        if values.ndim != 1:
            raise ScoringInputError(f"{name}: expected a 1-d column, got shape {values.shape}")
        if values.dtype != object:
            return pl.Series(name, values)
        values = values.tolist()
    if isinstance(values, (str, bytes)) or not hasattr(values, "__len__"):
        raise ScoringInputError(f"{name}: expected a column (list, array or Series), got {type(values).__name__}")
    try:
        return pl.Series(name, list(values), strict=False)
    except (TypeError, ValueError, pl.exceptions.PolarsError) as exc:
        raise ScoringInputError(f"{name}: cannot read as a column ({exc})") from None


def _first_bad(values: ArrayLike, ok: Callable[[Any], bool]) -> tuple[int, Any]:
    """The first non-null value `ok` rejects, read from the caller's own values (polars may have
    already turned a mixed list into strings)."""
    if isinstance(values, pl.Series):
        values = values.to_list()
    for i, value in enumerate(values):
        if value is not None and not ok(value):
            return i, value
    return -1, None


def as_outcome(values: ArrayLike, name: str = "correct") -> np.ndarray:
    """true/false/null -> 1.0/0.0/NaN. Numbers 0/1 are accepted; anything else is an error."""
    s = _series(values, name)
    if s.dtype == pl.Boolean:
        return s.cast(pl.Float64).to_numpy().astype(np.float64, copy=False)
    if s.dtype.is_numeric():
        out = s.cast(pl.Float64).to_numpy().astype(np.float64, copy=True)
        bad = ~np.isnan(out) & (out != 0.0) & (out != 1.0)
        if bad.any():
            i = int(np.flatnonzero(bad)[0])
            raise ScoringInputError(f"{name}: row {i} is {float(out[i])!r}; expected true/false (or 1/0) or null")
        return out
    if s.dtype == pl.Null:
        return np.full(len(s), np.nan)
    i, value = _first_bad(values, lambda v: isinstance(v, (bool, np.bool_)))
    raise ScoringInputError(
        f"{name}: row {max(i, 0)} is {value!r} ({type(value).__name__}); expected true/false or null"
    )


def as_float(values: ArrayLike, name: str) -> np.ndarray:
    """Numbers (null -> NaN). Booleans are refused: a bool where a number belongs is a wiring error."""
    s = _series(values, name)
    if s.dtype == pl.Null:
        return np.full(len(s), np.nan)
    if not s.dtype.is_numeric():
        i, value = _first_bad(values, lambda v: isinstance(v, (int, float, np.number)) and not isinstance(v, bool))
        raise ScoringInputError(f"{name}: row {max(i, 0)} is {value!r}; expected a number or null")
    return s.cast(pl.Float64).to_numpy().astype(np.float64, copy=True)


def as_text(values: ArrayLike, name: str) -> pl.Series:
    """Strings (null stays null) as a polars String Series."""
    s = _series(values, name)
    if s.dtype == pl.Null:
        return s.cast(pl.String)
    if s.dtype not in (pl.String, pl.Categorical, pl.Enum):
        i, value = _first_bad(values, lambda v: isinstance(v, str))
        raise ScoringInputError(f"{name}: row {max(i, 0)} is {value!r}; expected a string or null")
    return s.cast(pl.String)


def codes(values: pl.Series) -> tuple[np.ndarray, list[str]]:
    """Integer codes for a text column: (codes with -1 for null, sorted levels)."""
    frame = values.to_frame("v")  # each step below is one query (a Series method is one each)
    levels = frame.select(pl.col("v").drop_nulls().unique().sort()).to_series().to_list()
    if not levels:
        return np.full(len(values), -1, dtype=np.int64), []
    # Enum codes follow the sorted levels
    physical = frame.select(pl.col("v").cast(pl.Enum(levels)).to_physical().cast(pl.Int64).fill_null(-1)).to_series()
    return physical.to_numpy().astype(np.int64, copy=False), levels


def unique_rows(frame: pl.DataFrame, keys: list[str], keep: Keep) -> pl.DataFrame:
    """`frame.unique(keys, keep=keep, maintain_order=True)`, answered by the frame itself when no key
    repeats (checking for a repeat costs half of the de-duplication, and most frames have none)."""
    if keys and not frame.select(pl.struct(keys).is_duplicated().any()).item():
        return frame
    return frame.unique(keys, keep=keep, maintain_order=True)


def same_length(**columns: Sized) -> int:
    """The common length of the columns (arrays or Series); an error naming every length when they differ."""
    lengths = {name: len(col) for name, col in columns.items()}
    if len(set(lengths.values())) > 1:
        raise ScoringInputError(f"columns differ in length: {lengths}")
    return next(iter(lengths.values()), 0)
