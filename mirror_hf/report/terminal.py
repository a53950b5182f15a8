"""What the terminal says beside the numbers (issue 29): per model and experiment, the share of
trials that could not be parsed or whose request failed, with a warning line above
`UNUSABLE_WARNING_SHARE`; and, for every value printed as "-" (or printed without its interval),
the reason, as a footnote. `run`, `score` and `quickstart` print these lines; counts only, no metric
is computed here (the values and their notes come from the score result)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import polars as pl

#: Above this share of unparsed or failed trials a model's numbers for an experiment get a warning.
UNUSABLE_WARNING_SHARE = 0.20

# Why a number is "-": the words the footnotes use.
NO_TRIALS = "no trials"
CHANNEL_NOT_RUN = "channel not run"
NO_GRADED = "no graded trials (every trial unparsed, failed or ungraded)"
UNDEFINED = "undefined on these trials (see score --json)"

#: The Exp1 channels a headline number is computed from (the others need no particular channel).
HEADLINE_CHANNELS: dict[str, tuple[str, ...]] = {
    "exp1_natural_accuracy": ("natural",),
    "exp1_wagering_accuracy": ("wagering",),
    "exp1_mirror_gap": ("natural", "wagering"),
}


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


def dash_reason(tables: Mapping[str, pl.DataFrame | None], model: str, headline_key: str, experiment: str) -> str:
    """Why a model's headline number is undefined: the experiment or channel was not run for it, or
    none of its trials there was graded; otherwise the metric is undefined on what there is."""
    frame = tables.get(experiment)
    if not isinstance(frame, pl.DataFrame) or "model" not in frame.columns:
        return NO_TRIALS
    mine = frame.filter(pl.col("model") == model)
    if mine.height == 0:
        return NO_TRIALS
    channels = HEADLINE_CHANNELS.get(headline_key, ())
    if channels and "channel" in mine.columns:
        present = set(mine["channel"].drop_nulls().to_list())
        if any(c not in present for c in channels):
            return CHANNEL_NOT_RUN
        mine = mine.filter(pl.col("channel").is_in(list(channels)))
    graded = [c for c in mine.columns if c == "correct" or (c.startswith("component_") and c.endswith("_correct"))]
    if graded and all(mine[c].is_null().all() for c in graded):
        return NO_GRADED
    return UNDEFINED


class Footnotes:
    """Numbered reasons: `mark(reason)` gives the marker to print beside a value, `lines()` the notes."""

    def __init__(self) -> None:
        self._reasons: list[str] = []

    def mark(self, reason: str) -> str:
        if reason not in self._reasons:
            self._reasons.append(reason)
        return f"({self._reasons.index(reason) + 1})"

    def lines(self) -> list[str]:
        return [f"({i}) {reason}" for i, reason in enumerate(self._reasons, 1)]
