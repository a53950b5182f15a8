"""The experiments as registered specs (`Experiment`): one module per experiment, each defining
`EXPERIMENT`, registered here in the paper's order. Everything that needs to know what an
experiment is — the runner (handed a spec), the trial configs, `score`, the card, the CLI help —
reads this registry; `get("exp2")` raises a did-you-mean error for an unknown name.

Adding an experiment: a module `expN.py` with its planner, recipe and `EXPERIMENT`, its name in
`MODULES`, and (for `score`) a scorer in `mirror_hf.scoring.SCORERS` (docs/architecture.md).
"""

from __future__ import annotations

import importlib
from pathlib import Path

from mirror_hf.experiments._spec import Experiment
from mirror_hf.registry import Registry

MODULES: tuple[str, ...] = ("exp1", "exp2", "exp3", "exp4", "exp5", "exp6a", "exp6b", "exp6c", "exp9")

EXPERIMENTS: Registry[Experiment] = Registry("experiment")
for _name in MODULES:
    _spec = importlib.import_module(f"{__name__}.{_name}").EXPERIMENT
    EXPERIMENTS.register(_spec.name, _spec)
del _name, _spec


def get(name: str) -> Experiment:
    """The registered experiment `name` (a did-you-mean `UnknownName` error otherwise)."""
    return EXPERIMENTS.get(name)


def names() -> tuple[str, ...]:
    return EXPERIMENTS.names()


def trial_configs() -> dict[str, str]:
    """experiment -> its trial config name."""
    return {name: spec.trial_config for name, spec in EXPERIMENTS.items()}


def read_trial_tables(folder: Path) -> dict:
    """Each experiment's trial table (all splits of its config concatenated, polars), keyed by
    experiment name (None when the folder has none), straight from the parquet files."""
    import polars as pl

    from mirror_hf.folder import split_files

    files = split_files(folder)
    out = {}
    for name, config in trial_configs().items():
        parts = [pl.read_parquet(f.path) for f in files.get(config, [])]
        parts = [p for p in parts if p.height]
        out[name] = pl.concat(parts, how="diagonal_relaxed") if parts else None
    return out


def score_folder(tables: dict, options, model_table=None) -> dict:
    """`score_tables` over every registered experiment's trial table with its scorer: what
    `mirror-hf score` and `mirror-hf report` show. `tables`: experiment -> trial table, plus
    `upstream_cfr` (the authors' per-model aggregate, or None). `model_table` (rows of
    `mirror_hf.model_table.read_model_table`): adds Exp8, the scaling fits, as `aggregate.scaling`."""
    from mirror_hf.scoring import score_tables

    scorers = {name: spec.scorer for name, spec in EXPERIMENTS.items() if spec.scorer is not None}
    groups = split_by_participant_kind({k: tables.get(k) for k in trial_configs()})
    result = score_tables(
        tables=groups.pop(None), scorers=scorers,
        upstream_cfr=tables.get("upstream_cfr"), options=options,
    )
    if model_table is not None:
        from mirror_hf.model_table import align
        from mirror_hf.scoring import scaling_report

        result["aggregate"]["scaling"] = scaling_report(result, align(model_table, result["models"]), ci=options.ci)
    for kind, people in groups.items():
        _add_participants(result, kind, people, scorers, options)
    return result


def split_by_participant_kind(tables: dict) -> dict:
    """{None: the models' trials, kind: that kind of participant's trials} (`mirror_hf.participants`,
    read from each trial's run_id); the None entry is always there, the others only when present."""
    import polars as pl

    from mirror_hf.participants import KINDS, RUN_PREFIX

    out: dict = {None: dict(tables)}
    for name, frame in tables.items():
        if frame is None or "run_id" not in frame.columns:
            continue
        kind_col = pl.lit(None, dtype=pl.String)
        for kind in KINDS:
            kind_col = pl.when(pl.col("run_id").str.starts_with(RUN_PREFIX[kind])).then(pl.lit(kind)).otherwise(kind_col)
        kinds = frame.select(kind_col.alias("_kind"))["_kind"]
        if kinds.null_count() == frame.height:
            continue
        for kind in KINDS:
            part = frame.filter(kinds == kind)
            if part.height:
                out.setdefault(kind, {})[name] = part
        rest = frame.filter(kinds.is_null())
        out[None][name] = rest if rest.height else None
    return out


def _add_participants(result: dict, kind: str, tables: dict, scorers: dict, options) -> None:
    """Score one kind of participant like models (under the people's weak-domain policy), add each as
    a row, their mean row with CIs over participants, and `participants` saying who is what."""
    from dataclasses import replace

    from mirror_hf.participants import LABEL, MEAN_ROW, SIMULATED, SIMULATED_WARNING
    from mirror_hf.scoring import participant_mean, score_tables, weak_rule

    people_options = replace(options, weak_policy=options.human_weak_policy)
    scored = score_tables(tables=tables, scorers=scorers, options=people_options)
    names = sorted(scored["models"])
    clash = [n for n in names if n in result["models"]]
    if clash:
        from mirror_hf.errors import MirrorValueError

        raise MirrorValueError(f"participant {clash[0]!r} has the name of a model in the folder; its trials cannot be told apart")
    result["models"].update(scored["models"])
    for model, notes in (scored.get("skipped") or {}).items():
        result.setdefault("skipped", {})[model] = notes
    participants = result.setdefault("participants", {})
    for name in names:
        participants[name] = {"kind": kind, "label": LABEL[kind],
                              "weak_domains": weak_rule(scored["models"], name, policy=options.human_weak_policy, k=options.k)}
        if kind == SIMULATED:
            participants[name]["warning"] = SIMULATED_WARNING
    mean = MEAN_ROW[kind]
    result["models"][mean] = participant_mean(scored["models"], names, ci=options.ci)
    participants[mean] = {"kind": kind, "label": LABEL[kind], "mean_over": names,
                          "weak_policy": options.human_weak_policy}
    if kind == SIMULATED:
        participants[mean]["warning"] = SIMULATED_WARNING


__all__ = ["EXPERIMENTS", "score_folder", "Experiment", "get", "names", "read_trial_tables", "trial_configs"]
