"""Every headline number some model has, as the experiments declare them (`Experiment.headlines`): the
main table shows the paper's Table 4 columns; this list shows all of them, an experiment added in one
module included. Values are read from the score result (`headlines_of`), never computed here."""

from __future__ import annotations

from dataclasses import dataclass

from mirror_hf.experiments import all_headlines
from mirror_hf.headlines import Headline
from mirror_hf.report.table import DASH, fmt
from mirror_hf.scoring import headlines_of

ARROW = {"higher": "↑", "lower": "↓"}
HEADERS = ("headline number", "experiment")


@dataclass(frozen=True)
class HeadlineRow:
    headline: Headline
    values: dict[str, str]  # model -> "value [low, high] (n)" or DASH

    @property
    def label(self) -> str:
        return f"{self.headline.label} {ARROW.get(self.headline.direction, '')}".strip()


def _text(value: float | None, ci: tuple[float, float] | None, n: int | None) -> str:
    text = fmt(value)
    if ci and None not in ci:
        text += f" [{fmt(ci[0])}, {fmt(ci[1])}]"
    return text + (f" (n {n})" if n is not None and text != DASH else "")


def headline_rows(result: dict, models: list[str]) -> list[HeadlineRow]:
    """One row per declared headline number that at least one of `models` has, in declaration order."""
    values = {m: {v.headline.key: v for v in vs} for m, vs in headlines_of(result, all_headlines()).items()}
    rows = []
    for h in all_headlines():
        cells = {m: _text(v.value, v.ci, v.n) if (v := values.get(m, {}).get(h.key)) else DASH for m in models}
        if any(c != DASH for c in cells.values()):
            rows.append(HeadlineRow(h, cells))
    return rows
