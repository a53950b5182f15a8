"""The experiments as registered specs (`Experiment`): one module per experiment, each defining
`EXPERIMENT`. Everything that needs to know what an experiment is — the runner (handed a spec), the
trial configs, `score` (scorers, de-duplication keys, headline numbers, the scores schema), the card,
the CLI help — reads this registry; the tables they need are derived from the specs here, never kept
by hand. `get("exp2")` raises a did-you-mean error for an unknown name.

Adding an experiment: one module defining `EXPERIMENT` — in this package (it is found by name), or in
any installed distribution that names it under the `mirror_hf.experiments` entry-point group
(docs/architecture.md, "Adding an experiment", has the worked example).
"""

from __future__ import annotations

import importlib
import importlib.metadata
import pkgutil
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from mirror_hf.experiments._channels import ChannelRecipe
from mirror_hf.experiments._spec import Experiment, ExperimentSpecError, SingleRequestRecipe
from mirror_hf.headlines import Headline
from mirror_hf.registry import Registry

if TYPE_CHECKING:
    import polars as pl

    from mirror_hf.scoring import HeadlineValue, ModelInfo, ResultView, SuiteOptions

#: the entry-point group through which an installed distribution registers an experiment module
ENTRY_POINT_GROUP = "mirror_hf.experiments"


def _paper_order(name: str) -> tuple[int, str]:
    digits = "".join(c for c in name if c.isdigit())
    return (int(digits) if digits else 10**6, name)


#: the package's own experiment modules, in the paper's order (every public `expN` module here)
MODULES: tuple[str, ...] = tuple(sorted(
    (m.name for m in pkgutil.iter_modules(__path__) if not m.name.startswith("_")), key=_paper_order,
))

EXPERIMENTS: Registry[Experiment] = Registry("experiment")


def register(spec: Experiment) -> Experiment:
    """Add `spec` to the registry; refused in one line when its name or a headline key is taken."""
    if not isinstance(spec, Experiment):
        raise ExperimentSpecError(f"experiment module gave a {type(spec).__name__} as EXPERIMENT, not an Experiment")
    if spec.name in EXPERIMENTS:
        raise ExperimentSpecError(f"experiment {spec.name}: name is already registered")
    taken = {h.key: other.name for other in EXPERIMENTS.values() for h in other.headlines or ()}
    for h in spec.headlines or ():
        if h.key in taken:
            raise ExperimentSpecError(f"experiment {spec.name}: headline {h.key} is already {taken[h.key]}'s")
    return EXPERIMENTS.register(spec.name, spec)


def _load(module: str) -> None:
    spec = getattr(importlib.import_module(module), "EXPERIMENT", None)
    if spec is None:
        raise ExperimentSpecError(f"experiment module {module}: defines no EXPERIMENT")
    register(spec)


for _name in MODULES:
    _load(f"{__name__}.{_name}")
for _entry in importlib.metadata.entry_points(group=ENTRY_POINT_GROUP):
    _load(_entry.value)
del _name


def get(name: str) -> Experiment:
    """The registered experiment `name` (a did-you-mean `UnknownName` error otherwise)."""
    return EXPERIMENTS.get(name)


def names() -> tuple[str, ...]:
    return EXPERIMENTS.names()


def trial_configs() -> dict[str, str]:
    """experiment -> its trial config name."""
    return {name: spec.trial_config for name, spec in EXPERIMENTS.items()}


def units() -> tuple[Experiment, ...]:
    """The registered experiments as `score_tables` units (each owns its scorer and key)."""
    return tuple(EXPERIMENTS.values())


def dedup_keys() -> dict[str, tuple[str, ...]]:
    """experiment -> the key a re-run record replaces an earlier one under."""
    return {name: spec.dedup_key for name, spec in EXPERIMENTS.items()}


def all_headlines() -> tuple[Headline, ...]:
    """Every registered experiment's headline numbers, in registration (paper) order."""
    return tuple(h for spec in EXPERIMENTS.values() for h in spec.headlines or ())


def headlines_by_experiment() -> dict[str, tuple[Headline, ...]]:
    return {name: tuple(spec.headlines or ()) for name, spec in EXPERIMENTS.items()}


def headline_by_key(key: str) -> Headline:
    """The registered headline `key` (one line naming it when no experiment declares it)."""
    for h in all_headlines():
        if h.key == key:
            return h
    raise ExperimentSpecError(f"headline {key}: no registered experiment declares it (known: {', '.join(h.key for h in all_headlines())})")


def scores_schema() -> dict[str, type]:
    """experiment -> the TypedDict of its part of a model's scores (`ModelScores`), from the specs."""
    return {name: spec.scorer.schema for name, spec in EXPERIMENTS.items()}


def result_view(result: Mapping[str, Any]) -> ResultView:
    """A score result read by attribute (`mirror_hf.scoring.ResultView`), its model parts the
    registered experiments' (the same TypedDicts that give `scores_json_schema`)."""
    from mirror_hf.scoring import ResultView

    return ResultView(result, scores_schema())


def scores_json_schema() -> dict[str, Any]:
    """The JSON Schema of `mirror-hf score --json`'s file, generated from the registered specs' parts."""
    from mirror_hf.scoring._schema import result_json_schema

    return result_json_schema(scores_schema())


def headline(tables: Mapping[str, pl.DataFrame | None], *, options: SuiteOptions | None = None,
             models: tuple[str, ...] | None = None, upstream_cfr: pl.DataFrame | None = None) -> dict[str, list[HeadlineValue]]:
    """Every headline number of every model in `tables` (experiment -> trial table over all splits),
    computed by the same suite `mirror-hf score` runs (point estimates unless `options.ci`)."""
    import polars as pl

    from mirror_hf.scoring import SuiteOptions, headlines_of, score_tables

    options = options or SuiteOptions(ci=False)
    if models is not None:
        tables = {k: (t.filter(pl.col("model").is_in(list(models))) if t is not None and "model" in t.columns else t)
                  for k, t in tables.items()}
    scores = score_tables(units=units(), tables=tables, upstream_cfr=upstream_cfr, options=options)
    result = headlines_of(scores, all_headlines())
    return {m: v for m, v in result.items() if models is None or m in models}


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


def score_folder(tables: dict, options: SuiteOptions, model_table: list[ModelInfo] | None = None) -> dict:
    """`score_tables` over every registered experiment's trial table with its scorer: what
    `mirror-hf score` and `mirror-hf report` show. `tables`: experiment -> trial table, plus
    `upstream_cfr` (the authors' per-model aggregate, or None). `model_table` (rows of
    `mirror_hf.model_table.read_model_table`): adds Exp8, the scaling fits, as `aggregate.scaling`."""
    from mirror_hf.scoring import score_tables

    groups = split_by_participant_kind({k: tables.get(k) for k in trial_configs()})
    result: Any = score_tables(units=units(), tables=groups.pop(None), upstream_cfr=tables.get("upstream_cfr"), options=options)
    if model_table is not None:
        from mirror_hf.model_table import align
        from mirror_hf.scoring import scaling_report

        result["aggregate"]["scaling"] = scaling_report(result, align(model_table, result["models"]), all_headlines(), ci=options.ci)
    for kind, people in groups.items():
        _add_participants(result, kind, people, options)
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


def _add_participants(result: dict, kind: str, tables: dict, options: SuiteOptions) -> None:
    """Score one kind of participant like models (under the people's weak-domain policy), add each as
    a row, their mean row with CIs over participants, and `participants` saying who is what."""
    from dataclasses import replace

    from mirror_hf.participants import LABEL, MEAN_ROW, SIMULATED, SIMULATED_WARNING
    from mirror_hf.scoring import participant_mean, score_tables, weak_rule

    people_options = replace(options, weak_policy=options.human_weak_policy)
    scored: Any = score_tables(units=units(), tables=tables, options=people_options)
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
    result["models"][mean] = participant_mean(scored["models"], names, all_headlines(), ci=options.ci)
    participants[mean] = {"kind": kind, "label": LABEL[kind], "mean_over": names,
                          "weak_policy": options.human_weak_policy}
    if kind == SIMULATED:
        participants[mean]["warning"] = SIMULATED_WARNING


__all__ = [
    "ENTRY_POINT_GROUP", "EXPERIMENTS", "MODULES", "ChannelRecipe", "Experiment", "ExperimentSpecError", "SingleRequestRecipe",
    "all_headlines", "dedup_keys", "get", "headline", "headline_by_key", "headlines_by_experiment", "names",
    "read_trial_tables", "register", "score_folder", "scores_json_schema", "scores_schema", "split_by_participant_kind",
    "trial_configs", "units",
]
