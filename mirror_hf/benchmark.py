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
INSPECT_TASKS = "mirror_hf/inspect_tasks.py"  # the Inspect tasks that run each experiment (extra mirror-hf[inspect])


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
_E3 = {"experiment": "exp3", "config": "exp3_composite", "input": "task_text", "target": "answer", "inspect_task": "exp3"}
_E9 = {"experiment": "exp9", "config": "exp9_fixed", "input": "task_text", "target": "correct_answer_a", "inspect_task": "exp9"}

HEADLINE_TASKS: tuple[HeadlineTask, ...] = (
    HeadlineTask("exp1_natural_accuracy", "Exp1 natural-channel accuracy, macro mean over domains", "exp1", **_Q,
                 higher_is_better=True, inspect_task="exp1_natural"),
    HeadlineTask("exp1_wagering_accuracy", "Exp1 wagering-channel accuracy, macro mean over domains", "exp1", **_Q,
                 higher_is_better=True, inspect_task="exp1_wagering"),
    HeadlineTask("exp1_mirror_gap", "Mirror gap: mean over domains of |wagering - natural accuracy|", "exp1", **_Q,
                 higher_is_better=False, inspect_task="exp1"),
    HeadlineTask("exp3_cce", "Compositional Calibration Error on two-domain composite tasks", **_E3, higher_is_better=False),
    *(HeadlineTask(f"exp9_cfr_{c.lower()}", f"Confident Failure Rate under {c} (weak components proceeded on and failed; "
                   "P1+P2, fixed and tailored tasks)", **_E9, higher_is_better=False) for c in ("C1", "C2", "C3", "C4")),
    HeadlineTask("exp9_kdi", "Knowing-Doing Index: Mirror gap - (1 - CFR under C1, all paradigms, fixed tasks); "
                 "negative = the model acts better than its gap suggests", **_E9, higher_is_better=False),
)
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
            "solvers": [{"name": f"mirror_hf/{t.inspect_task}"}],
            "scorers": [{"name": "mirror_hf/mirror_grade"}],
        })
    return {"name": NAME, "description": DESCRIPTION, "evaluation_framework": "inspect-ai", "tasks": tasks}


def write_eval_yaml(root: Path) -> Path:
    import yaml

    path = root / EVAL_YAML
    path.write_text(yaml.safe_dump(eval_yaml(), sort_keys=False, allow_unicode=True, width=100))
    return path


def headline_values(folder: Path, split: str) -> dict[str, tuple[float, int]]:
    """task id -> (value, n) for the model whose trials are split `split`; tasks its splits do not
    support are left out. The one place these numbers are decided here (to be `scoring.headline()`)."""
    import polars as pl

    from mirror_hf.folder import split_files
    from mirror_hf.scoring import SuiteOptions, score_tables

    files = split_files(folder)
    tables = {}
    for exp in ("exp1", "exp3", "exp9"):
        parts = [pl.read_parquet(f.path) for f in files.get(f"trials_{exp}", []) if f.split == split]
        tables[exp] = parts[0] if parts else None
    if all(t is None for t in tables.values()):
        raise MirrorValueError(f"{folder} has no trial split {split!r} (looked in trials_exp1, trials_exp3, trials_exp9)")
    scores = score_tables(**tables, options=SuiteOptions(ci=False))["models"]
    if len(scores) != 1:
        raise MirrorValueError(f"split {split!r} of {folder} holds {len(scores)} models ({', '.join(sorted(scores))}); expected one")
    model = next(iter(scores.values()))
    picked = {
        "exp1_natural_accuracy": model.get("exp1", {}).get("natural_accuracy"),
        "exp1_wagering_accuracy": model.get("exp1", {}).get("wagering_accuracy"),
        "exp1_mirror_gap": model.get("exp1", {}).get("mirror_gap"),
        "exp3_cce": model.get("exp3", {}).get("cce"),
        **{f"exp9_cfr_{c.lower()}": model.get("exp9", {}).get("cfr", {}).get(c) for c in ("C1", "C2", "C3", "C4")},
        "exp9_kdi": model.get("exp9", {}).get("kdi"),
    }
    out = {}
    for task_id, estimate in picked.items():
        if estimate and estimate.get("value") is not None and not math.isnan(estimate["value"]):
            out[task_id] = (float(estimate["value"]), estimate.get("n"))
    return out
