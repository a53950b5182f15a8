"""What the terminal says beside the numbers (issue 29): for every value printed as "-" (or printed
without its interval), the reason, as a footnote (the share of unusable trials is
`mirror_hf.unusable`'s). `run`, `score` and `quickstart` print these lines; no metric is computed
here (the values and their notes come from the score result)."""

from __future__ import annotations

from collections.abc import Mapping

import polars as pl

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
