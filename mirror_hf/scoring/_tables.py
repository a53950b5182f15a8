"""The suite over trial tables (what `mirror-hf score` writes), still without I/O: the caller hands in
the experiments (`ScoringUnit`s) and their trial tables.

Per model: each experiment's trials are de-duplicated once, with its own key; phase-1 scorers run
first and leave the profile, phase-2 scorers read it (`mirror_hf.scoring._units`). Then each
experiment's cross-model step runs over all models.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import nullcontext
from typing import Any

import numpy as np
import polars as pl
from threadpoolctl import threadpool_limits

from mirror_hf.scoring._dedup import latest_records
from mirror_hf.scoring._estimate import Estimate
from mirror_hf.scoring._options import SuiteOptions
from mirror_hf.scoring._schema import ScoreResult
from mirror_hf.scoring._units import PROFILE_PHASE, READER_PHASE, AggregateInput, ModelContext, Profile, ScoringUnit

OPEN_SUFFIX = " [open]"  # trials asked with --answer-format open are scored as their own entry


def to_json(value: Any) -> Any:
    """Estimates (at any depth of dicts) as their JSON form."""
    if isinstance(value, Estimate):
        return value.to_json()
    if isinstance(value, dict):
        return {k: to_json(v) for k, v in value.items()}
    return value


def by_model(frame: pl.DataFrame | None) -> dict[str, pl.DataFrame]:
    """Trials per scored entry: the model, and "<model> [open]" for its open-format trials (the two
    formats measure different things and are never pooled; choices is the default and the paper's)."""
    if frame is None or frame.height == 0:
        return {}
    if "answer_format" in frame.columns:
        model = pl.col("model")
        frame = frame.with_columns(pl.when(pl.col("answer_format") == "open").then(model + OPEN_SUFFIX).otherwise(model).alias("model"))
    runs = frame["model"].rle()
    values = runs.struct.field("value")
    if values.n_unique() == len(values):
        # each model's trials are contiguous (as written, one split per model): zero-copy slices give
        # the same frames as partition_by, without copying every column
        starts = np.concatenate([[0], np.cumsum(runs.struct.field("len").to_numpy())[:-1]])
        lengths = runs.struct.field("len").to_list()
        return {m: frame.slice(int(o), n) for m, o, n in zip(values.to_list(), starts, lengths) if m is not None}
    return {key[0]: part for key, part in frame.partition_by("model", as_dict=True, maintain_order=True).items() if key[0] is not None}


class _ModelResult:
    __slots__ = ("entry", "notes", "profile", "states")

    def __init__(self) -> None:
        self.entry: dict[str, Any] = {}
        self.notes: dict[str, str] = {}
        self.profile = Profile()
        self.states: dict[str, Any] = {}


def _score_model(model: str, units: Sequence[ScoringUnit], trials: Mapping[str, Mapping[str, pl.DataFrame]],
                 options: SuiteOptions) -> _ModelResult:
    out = _ModelResult()
    for phase in (PROFILE_PHASE, READER_PHASE):
        ctx = ModelContext(options, out.profile)
        for unit in units:
            scorer = unit.scorer
            frame = trials[unit.name].get(model)
            if scorer.phase != phase or frame is None:
                continue
            scored = scorer.score(latest_records(frame, unit.dedup_key), ctx)
            if scored is None:
                continue
            out.notes.update(scored.notes)
            if scored.profile is not None:
                if phase != PROFILE_PHASE:
                    raise TypeError(f"experiment {unit.name}: a phase-{READER_PHASE} scorer returned a profile")
                out.profile = out.profile.merged(scored.profile)
            if scored.state is not None:
                out.states[unit.name] = scored.state
            if scored.scores:
                out.entry[unit.name] = scored.scores
    return out


def score_tables(
    *,
    units: Sequence[ScoringUnit],
    tables: Mapping[str, pl.DataFrame | None],
    upstream_cfr: pl.DataFrame | None = None,
    options: SuiteOptions = SuiteOptions(),
    workers: int = 2,
) -> ScoreResult:
    """Every metric the tables support, per model, plus each experiment's cross-model statistics.

    `units`: the experiments to score (`mirror_hf.experiments.units()`); `tables`: experiment ->
    trial table (all splits). `upstream_cfr`: per-model CFR already aggregated by the authors
    (columns model, condition, cfr), for models without Exp9 trials here."""
    trials = {unit.name: by_model(tables.get(unit.name)) for unit in units}
    names = sorted(set().union(*(set(t) for t in trials.values())) if trials else set())
    # Models are independent and numpy releases the GIL in the resampling, so two threads use both
    # cores; every metric seeds its own generator, so results do not depend on the scheduling.
    workers = max(1, workers) if options.ci else 1  # point estimates alone are faster in one thread
    # The model threads fill the cores, so BLAS threads inside them only oversubscribe (OpenBLAS's
    # idle threads spin: the CI run took ~10-15% more CPU seconds with them); one BLAS thread each.
    blas = threadpool_limits(1, user_api="blas") if workers > 1 else nullcontext()
    with blas, ThreadPoolExecutor(max_workers=workers) as pool:
        results = dict(zip(names, pool.map(lambda m: _score_model(m, units, trials, options), names)))
    models: dict[str, Any] = {m: to_json(r.entry) for m, r in results.items()}
    skipped = {m: r.notes for m, r in results.items() if r.notes}
    profiles = {m: r.profile for m, r in results.items()}
    aggregate: dict[str, Any] = {}
    for unit in units:
        step = unit.scorer.aggregate
        if step is None:
            continue
        done = step(AggregateInput(
            models=models, states={m: r.states[unit.name] for m, r in results.items() if unit.name in r.states},
            trials=trials[unit.name], profiles=profiles, tables=tables, upstream_cfr=upstream_cfr, options=options,
        ))
        aggregate.update(done.aggregate)
        for model, part in done.models.items():
            models.setdefault(model, {}).setdefault(unit.name, {}).update(part)
    out: dict[str, Any] = {"models": models, "aggregate": aggregate}
    if skipped:
        out["skipped"] = skipped
    return out  # type: ignore[return-value]  # ScoreResult is the documented shape of this dict
