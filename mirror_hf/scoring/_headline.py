"""Headline numbers: the one place that decides which numbers a model is summarised by, in which
pooling frame, and how re-run records are de-duplicated.

`score`, `profile`, `quickstart`, `export-eval-results` and the report all call `headline()` (or, for
the de-duplication alone, `latest_records`), so the same folder always shows the same numbers.

- De-duplication: a model's records are pooled over all its splits; of several records for the same
  key (Exp1/Exp2: item x channel; Exp3: item x channel x target; Exp9: task x condition x paradigm x
  false-score control) the last written wins, as in the authors' analysis scripts.
- Frames: Exp9 CFR C1..C4 pool P1+P2 over fixed and tailored tasks (the paper's escalation curve,
  `CFR_FRAME`); the Table-1 CFR under C1 pools all paradigms on fixed tasks (`CFR_TABLE_FRAME`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import polars as pl

from mirror_hf.headlines import HEADLINES, Headline
from mirror_hf.scoring._columns import unique_rows

#: the key a re-run record replaces an earlier one under, per experiment
DEDUP_KEYS: dict[str, tuple[str, ...]] = {
    "exp1": ("item_id", "channel"),
    "exp2": ("item_id", "channel"),
    "exp3": ("item_id", "channel", "target"),
    "exp4": ("item_id", "feedback", "bank"),
    "exp5": ("item_id", "channel", "attack"),
    "exp6a": ("item_id", "channel"),
    "exp6b": ("item_id", "channel"),
    "exp6c": ("item_id", "channel"),
    "exp9": ("item_id", "condition", "paradigm", "is_false_score_control", "temperature"),  # a temperature replication is its own run
}


def latest_records(frame: pl.DataFrame, experiment: str) -> pl.DataFrame:
    """One record per de-duplication key (per model), the last written winning. An experiment
    without a key is an error, never `item_id` alone (that would collapse its channels)."""
    if experiment not in DEDUP_KEYS:
        raise KeyError(f"experiment {experiment!r} has no de-duplication key in mirror_hf.scoring.DEDUP_KEYS")
    keys = [k for k in ("model", *DEDUP_KEYS[experiment]) if k in frame.columns]
    return unique_rows(frame, keys, keep="last")


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


def headlines_of(scores: Mapping, experiments: tuple[str, ...] | None = None) -> dict[str, list[HeadlineValue]]:
    """model -> its headline values, read from a `score_tables` result (no recomputation)."""
    out: dict[str, list[HeadlineValue]] = {}
    wanted = experiments or tuple(HEADLINES)
    for model, entry in scores.get("models", {}).items():
        values = []
        for experiment in wanted:
            for h in HEADLINES.get(experiment, ()):
                found = _pick(entry, h.path)
                if found is not None:
                    ci = found.get("ci")
                    values.append(HeadlineValue(h, found["value"], found.get("n"), tuple(ci) if ci else None))
        out[model] = values
    return out


def headline(tables: Mapping[str, pl.DataFrame | None], *, options=None, models: tuple[str, ...] | None = None,
             upstream_cfr: pl.DataFrame | None = None) -> dict[str, list[HeadlineValue]]:
    """Every headline number of every model in `tables` (experiment -> trial table over all splits),
    computed by the same suite `mirror-hf score` runs (point estimates unless `options.ci`)."""
    from mirror_hf.scoring._suite import SuiteOptions, score_tables

    options = options or SuiteOptions(ci=False)
    if models is not None:
        tables = {k: (t.filter(pl.col("model").is_in(list(models))) if t is not None and "model" in t.columns else t)
                  for k, t in tables.items()}
    scores = score_tables(tables=tables, upstream_cfr=upstream_cfr, options=options)
    result = headlines_of(scores)
    return {m: v for m, v in result.items() if models is None or m in models}
