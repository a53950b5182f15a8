"""What counts as an unusable trial, and how many a split holds: per model and experiment, the
trials whose response could not be parsed or whose request failed, with a warning above
`UNUSABLE_WARNING_SHARE`. A light module (polars only) so `run` can print its line without
importing the report or scoring (which cost ~1.7 s of start-up a run)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import polars as pl

#: Above this share of unparsed or failed trials a model's numbers for an experiment get a warning.
UNUSABLE_WARNING_SHARE = 0.20


@dataclass(frozen=True)
class Unusable:
    """One model's trials of one experiment, and how many could not be parsed or failed."""

    model: str
    experiment: str
    trials: int
    unusable: int

    @property
    def share(self) -> float:
        return self.unusable / self.trials if self.trials else 0.0

    def line(self) -> str:
        return (f"{self.model} {self.experiment}: {self.unusable} of {self.trials} trials unparsed or failed "
                f"({self.share:.0%})")

    @property
    def warn(self) -> bool:
        return self.share > UNUSABLE_WARNING_SHARE


def _unusable_expr(frame: pl.DataFrame) -> pl.Expr:
    """A trial is unusable when its response could not be parsed or its request failed."""
    expr = pl.lit(False)
    if "parse_success" in frame.columns:
        expr = expr | (pl.col("parse_success") == False).fill_null(False)  # noqa: E712
    if "api_error" in frame.columns:
        expr = expr | pl.col("api_error").is_not_null()
    if "api_success" in frame.columns:
        expr = expr | (pl.col("api_success") == False).fill_null(False)  # noqa: E712
    return expr


def unusable_shares(tables: Mapping[str, pl.DataFrame | None], models: tuple[str, ...] | None = None) -> list[Unusable]:
    """Per model and experiment (in experiment order), trials and unusable trials; imported trials
    without parse fields count as parsed."""
    out = []
    for experiment, frame in tables.items():
        if frame is None or not isinstance(frame, pl.DataFrame) or frame.height == 0 or "model" not in frame.columns:
            continue
        counts = (frame.group_by("model", maintain_order=True)
                  .agg(pl.len().alias("trials"), _unusable_expr(frame).sum().alias("unusable")).sort("model"))
        for row in counts.iter_rows(named=True):
            if row["model"] is not None and (models is None or row["model"] in models):
                out.append(Unusable(row["model"], experiment, int(row["trials"]), int(row["unusable"])))
    return out


def unusable_lines(rows: list[Unusable]) -> list[str]:
    """One line per model and experiment, each followed by a WARNING line when above the share."""
    lines = []
    for row in rows:
        lines.append(row.line())
        if row.warn:
            lines.append(f"WARNING: {row.model} {row.experiment}: {row.share:.0%} of its trials could not be parsed or "
                         f"failed (more than {UNUSABLE_WARNING_SHARE:.0%}); its numbers describe the rest only")
    return lines
