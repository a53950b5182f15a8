"""Headline values read from a score result: `score`, `profile`, `quickstart`, `export-eval-results`
and the report all read them through `headlines_of` (the experiments' `headline()` computes and reads),
so the same folder always shows the same numbers. Which numbers are headlines is each experiment's
own declaration (`Experiment.headlines`).

- Frames: Exp9 CFR C1..C4 pool P1+P2 over fixed and tailored tasks (the paper's escalation curve,
  `CFR_FRAME`); the Table-1 CFR under C1 pools all paradigms on fixed tasks (`CFR_TABLE_FRAME`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from mirror_hf.headlines import Headline


@dataclass(frozen=True)
class HeadlineValue:
    headline: Headline
    value: float | None  # None: undefined for this model (JSON null)
    n: int | None
    ci: tuple[float, float] | None = None


def _pick(entry: Mapping, path: tuple[str, ...]) -> Mapping | None:
    node = entry
    for part in path:
        if not isinstance(node, Mapping) or part not in node:
            return None
        node = node[part]
    return node if isinstance(node, Mapping) and "value" in node else None


def headlines_of(scores: Mapping, headlines: Sequence[Headline]) -> dict[str, list[HeadlineValue]]:
    """model -> its values of `headlines` (the registered experiments': `experiments.all_headlines()`),
    read from a `score_tables` result (no recomputation)."""
    out: dict[str, list[HeadlineValue]] = {}
    for model, entry in scores.get("models", {}).items():
        values = []
        for h in headlines:
            found = _pick(entry, h.path)
            if found is not None:
                ci = found.get("ci")
                values.append(HeadlineValue(h, found["value"], found.get("n"), (ci[0], ci[1]) if ci else None))
        out[model] = values
    return out
