"""`mirror-hf import-inspect LOG... --dataset DIR`: Inspect logs of `mirror_hf.inspect_tasks` as trial
splits, scored exactly as `mirror-hf run` scores them.

The log's scorer options name the experiment and task arguments; the runner's plan is rebuilt from
them on DIR (which must hold the items the log was made from: every sample's prompt is checked
against its job), each sample's recorded turns become the runner's (request, outcome) pairs, and the
split is written by the runner's own record builder (`trial_table`, `write_trials`), with a run
manifest saying it came from Inspect.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from pathlib import Path

from mirror_hf.errors import MirrorValueError


class InspectImportError(MirrorValueError):
    """A log that cannot be imported (one line: which file, which sample, what to do)."""


@dataclass
class ImportReport:
    log: Path
    experiment: str
    split: str
    trials: int
    path: Path


def model_name(inspect_model: str) -> str:
    """`openai-api/<provider>/<model>` -> `<model>`; `<provider>/<model>` -> `<model>`."""
    parts = inspect_model.split("/")
    return "/".join(parts[2:] if parts[0] == "openai-api" and len(parts) > 2 else parts[1:] or parts)


def _read(path: Path):
    try:
        from inspect_ai.log import read_eval_log
    except ImportError:
        raise InspectImportError("import-inspect needs the inspect extra: pip install 'mirror-hf[inspect]'") from None
    if not path.is_file():
        raise InspectImportError(f"{path}: no such log file")
    try:
        return read_eval_log(str(path))
    except Exception as exc:  # noqa: BLE001  inspect raises many kinds for a bad file
        raise InspectImportError(f"{path}: not a readable Inspect log ({type(exc).__name__})") from None


def import_log(path: Path, dataset: Path, *, split: str | None = None, model: str | None = None,
               replace: bool = False) -> ImportReport:
    from mirror_hf import __version__
    from mirror_hf.folder import read_marker
    from mirror_hf.provenance import redact_endpoint
    from mirror_hf.runner.plan import Plan
    from mirror_hf.runner.request import ChatRequest, Generation
    from mirror_hf.runner.session import check_split, model_slug
    from mirror_hf.runner.trials import RunIdentity, trial_table, write_trials

    log = _read(path)  # first: it says to install the extra when inspect_ai is missing
    from mirror_hf.inspect_tasks import TURNS_KEY, outcome_of, plan_args, plan_for

    scorer = next((s for s in log.eval.scorers or [] if s.name.split("/")[-1] == "mirror_grade"), None)
    if scorer is None:
        raise InspectImportError(f"{path}: not a log of a mirror_hf Inspect task (no mirror_grade scorer)")
    experiment, args = scorer.options["experiment"], dict(scorer.options["args"])
    args["dataset"] = str(dataset.absolute())
    plan = plan_for(*plan_args(experiment, args))
    recipe_max = plan.recipe.default_max_tokens
    generation = Generation(float(args.get("temperature", 0.0)), args.get("seed"), int(args.get("max_tokens") or recipe_max))
    provider = log.eval.model.rsplit("/", 1)[0] if "/" in log.eval.model else log.eval.model
    endpoint = redact_endpoint(log.eval.model_base_url) or f"inspect:{provider}"  # the URL came from the environment
    name = model or model_name(log.eval.model)
    jobs, turns_by_job = [], {}
    for sample in sorted(log.samples or [], key=lambda s: s.metadata.get("job", -1)):
        index = sample.metadata.get("job")
        turns = sample.store.get(TURNS_KEY)
        if index is None or not isinstance(index, int) or not 0 <= index < len(plan.jobs) or not turns:
            raise InspectImportError(f"{path}: sample {sample.id} has no Mirror job or turns; was it made by mirror_hf.inspect_tasks?")
        job = plan.jobs[index]
        if job.item_id != sample.metadata.get("item_id") or list(turns[0]["messages"]) != list(job.messages):
            raise InspectImportError(f"{path}: sample {sample.id} (item {sample.metadata.get('item_id')}) was built from "
                                     f"another dataset folder than {dataset}; pass the folder the log was made on")
        turns_by_job[len(jobs)] = [(ChatRequest(name, endpoint, tuple(t["messages"]), generation), outcome_of(t)) for t in turns]
        jobs.append(job)
    if not jobs:
        raise InspectImportError(f"{path}: the log has no samples")
    split = check_split(split) if split else model_slug(name)
    sub = Plan(plan.experiment, jobs, plan.recipe, len({j.item_id for j in jobs}), plan.notes)
    run_id = f"inspect-{log.eval.run_id or log.eval.eval_id}"
    identity = RunIdentity(run_id, name, experiment, generation.temperature, generation.seed)
    table, counts = trial_table(identity, sub, turns_by_job, plan.features)
    marker = read_marker(dataset.absolute()) or {}
    stats = log.stats
    manifest = {
        "run_id": run_id, "package": "mirror-hf", "version": __version__, "experiment": experiment, "model": name,
        "endpoint": endpoint, "embedded": False, "source": "inspect", "inspect_log": path.name,
        "inspect_model": log.eval.model, "inspect_task": log.eval.task,
        "started": getattr(stats, "started_at", None) or None,
        "finished": getattr(stats, "completed_at", None) or dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
        "dataset": {k: marker.get(k) for k in ("version", "seed", "per_domain", "build_hash")},
        "generation": generation.body(),
        "settings": {k: v for k, v in args.items() if k != "dataset"} | {"matcher": args.get("matcher", "strict")},
        "counts": {"trials": counts.trials, "failed": counts.failed, "truncated": counts.truncated,
                   "prompt_tokens": counts.prompt_tokens, "completion_tokens": counts.completion_tokens},
        "libraries": {"inspect_ai": (log.eval.packages or {}).get("inspect_ai")},
    }
    written = write_trials(dataset.absolute(), experiment, split, table, manifest, plan.features, replace=replace)
    return ImportReport(path, experiment, split, counts.trials, written)
