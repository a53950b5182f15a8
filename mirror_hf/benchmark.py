"""Mirror as a Hub benchmark: the headline tasks (one place: id, what it measures, the dataset config
the model answers, direction), the `eval.yaml` the dataset root carries for them (the Hub's
benchmark format, based on Inspect), and each model's headline numbers for `.eval_results/`.

Task ids here are the ones `.eval_results` entries name, so a result always points at a task the
benchmark defines. `eval.yaml` has no field for a metric's direction; each task states it in its
`description` and in `higher_is_better` (extra keys are kept by the Hub's YAML).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path

from mirror_hf.errors import MirrorValueError

EVAL_YAML = "eval.yaml"
NAME = "Mirror"
DESCRIPTION = (
    "Mirror (arXiv 2604.19809): does a language model know what it knows, and act on it? Calibration in "
    "eight domains through behavioural channels (Exp1), compositional self-prediction (Exp3, CCE) and the "
    "knowing-doing gap on two-part agentic tasks under conditions C1-C4 (Exp9, CFR and KDI)."
)


@dataclass(frozen=True)
class HeadlineTask:
    id: str
    title: str
    experiment: str  # exp1 / exp3 / exp9: whose trials it is computed from
    config: str  # the config the model answers
    input: str
    target: str
    higher_is_better: bool
    inspect_task: str  # the @task in mirror_hf.inspect_tasks that runs it
    choices: str | None = None

    @property
    def direction(self) -> str:
        return "higher is better" if self.higher_is_better else "lower is better"


_Q = {"config": "questions", "input": "question", "target": "answer", "choices": "choices"}
_CONFIGS = {
    "exp1": _Q,
    "exp3": {"config": "exp3_composite", "input": "task_text", "target": "answer"},
    "exp9": {"config": "exp9_fixed", "input": "task_text", "target": "correct_answer_a"},
}
_INSPECT_TASK = {"exp1_natural_accuracy": "exp1_natural", "exp1_wagering_accuracy": "exp1_wagering"}


def _tasks() -> tuple[HeadlineTask, ...]:
    """The benchmark's tasks: the headline numbers the experiments declare (ids, descriptions,
    directions) for the experiments an Inspect task runs."""
    from mirror_hf.experiments import headlines_by_experiment

    declared = headlines_by_experiment()

    return tuple(
        HeadlineTask(h.key, h.description, h.experiment, **_CONFIGS[h.experiment], higher_is_better=h.direction == "higher",
                     inspect_task=_INSPECT_TASK.get(h.key, h.experiment))
        for experiment in _CONFIGS for h in declared.get(experiment, ())
    )


HEADLINE_TASKS: tuple[HeadlineTask, ...] = _tasks()
TASK_IDS = tuple(t.id for t in HEADLINE_TASKS)


def eval_yaml() -> dict:
    """The benchmark definition for the dataset root (`eval.yaml`)."""
    tasks = []
    for t in HEADLINE_TASKS:
        field_spec = {"input": t.input, "target": t.target, **({"choices": t.choices} if t.choices else {})}
        tasks.append({
            "id": t.id,
            "config": t.config,
            "split": "test",
            "description": f"{t.title} ({t.direction}).",
            "higher_is_better": t.higher_is_better,
            "field_spec": field_spec,
            **inspect_spec(t),
        })
    return {"name": NAME, "description": DESCRIPTION, "evaluation_framework": "inspect-ai", "tasks": tasks}


# What each headline task's Inspect run is: the experiment and the task arguments of mirror_hf.inspect_tasks.
_INSPECT_RUNS = {
    "exp1_natural": ("exp1", {"channels": "natural"}),
    "exp1_wagering": ("exp1", {"channels": "wagering"}),
    "exp1": ("exp1", {"channels": "natural,wagering"}),
    "exp3": ("exp3", {}),
    "exp9": ("exp9", {}),
}


def inspect_spec(t: HeadlineTask) -> dict:
    """eval.yaml's `solvers`/`scorers` for a task: the registered solver and scorer of
    `mirror_hf.inspect_tasks` with the arguments `inspect eval mirror_hf/<task>` passes them."""
    experiment, args = _INSPECT_RUNS[t.inspect_task]
    options = {"experiment": experiment, "args": args}
    solvers = [{"name": "mirror_hf/exp9_routing", "args": {"args": args}}] if experiment == "exp9" else []
    return {"solvers": [*solvers, {"name": "mirror_hf/mirror_solve", "args": options}],
            "scorers": [{"name": "mirror_hf/mirror_grade", "args": options}]}


def eval_yaml_text() -> str:
    import yaml

    return yaml.safe_dump(eval_yaml(), sort_keys=False, allow_unicode=True, width=100)


def write_eval_yaml(root: Path) -> Path:
    from mirror_hf.writes import atomic_write

    return atomic_write(root / EVAL_YAML, eval_yaml_text())


def headline_values(folder: Path, split: str) -> dict[str, tuple[float, int]]:
    """task id -> (value, n) for the model whose trials are split `split`, from
    `mirror_hf.experiments.headline` (the numbers `mirror-hf score` reports); tasks its splits do not
    support are left out."""
    import polars as pl

    from mirror_hf.experiments import headline, trial_configs
    from mirror_hf.folder import split_files

    files = split_files(folder)
    tables = {}
    for exp, config in trial_configs().items():
        parts = [pl.read_parquet(f.path) for f in files.get(config, []) if f.split == split]
        tables[exp] = pl.concat(parts, how="diagonal_relaxed") if parts else None
    if all(t is None for t in tables.values()):
        raise MirrorValueError(
            f"{folder} has no trial split {split!r} (looked in {', '.join(trial_configs().values())}): no headline number to export"
        )
    values = headline(tables)
    if len(values) != 1:
        raise MirrorValueError(f"split {split!r} of {folder} holds {len(values)} models ({', '.join(sorted(values))}); expected one")
    out = {}
    for v in next(iter(values.values())):
        if v.value is not None and not math.isnan(v.value):
            out[v.headline.key] = (float(v.value), v.n)
    return out
