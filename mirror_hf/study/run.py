"""The study's orchestration: per model Exp1 -> profile -> tailored tasks -> Exp9 -> the other
experiments, then (once, over every model) score -> report -> push.

Each step is the existing code path, in this process: `runner.run` (always with resume, so a rerun
after a kill sends only what its results file lacks), `runner.profile.build_profile` +
`write_profile`, the `tasks tailor` command, `score`'s and `report`'s functions, `hub.push`. A step
whose split is complete (the runner's own dry run finds nothing left to send and the split holds
every planned trial) is skipped. A failed step stops its model's later steps (they may read it),
names itself and prints the command that resumes the study; other models go on.
"""

from __future__ import annotations

import json
import sys
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from mirror_hf.errors import MirrorError, MirrorValueError
from mirror_hf.study.models_file import ModelEntry, model_table
from mirror_hf.study.plan import (
    STAND_IN_ROTATIONS,
    ExperimentPlan,
    ModelPlan,
    format_plan,
    mean_plan,
    plan_experiment,
    scratch_folder,
)
from mirror_hf.study.presets import Preset, experiments_of

#: experiments whose planner reads the model's Exp1 profile (Exp5: weak/strong domains; Exp9: C2-C4)
PROFILE_READERS = ("exp5", "exp9")


class StudyError(MirrorValueError):
    """The study cannot start (bad input; nothing has been sent)."""


@dataclass(frozen=True)
class StudyOptions:
    dataset: Path
    models: tuple[ModelEntry, ...]
    preset: Preset
    experiments: tuple[str, ...] | None = None  # --experiments: narrows the preset
    report_out: Path = Path("mirror-report")
    push: str | None = None
    dry_run: bool = False
    plan_json: Path | None = None
    max_cost: float | None = None
    reply_tokens: int | None = None
    resamples: int = 10_000
    max_attempts: int = 6
    backoff_base: float = 1.0
    timeout: float = 120.0
    max_failure_rate: float = 0.5
    resume_command: str = "mirror-hf study ..."
    models_file: bool = False  # the models came from --models (the resume command adds --only NAME)
    progress: bool | None = None  # live bars (None: when stderr is a terminal and there is one model)
    on_step: Callable[[str, str, str], None] | None = None  # (model, step, "start" | "done"): progress hook


@dataclass
class ModelOutcome:
    model: str
    steps_done: list[str] = field(default_factory=list)
    failed_step: str | None = None
    error: str | None = None


@dataclass
class StudyResult:
    plans: list[ModelPlan]
    outcomes: dict[str, ModelOutcome] = field(default_factory=dict)
    scores: Path | None = None
    report: Path | None = None
    pushed: str | None = None
    failed: list[str] = field(default_factory=list)  # "model: step" or "score", "report", "push"


class _Printer:
    """Plain lines, one writer at a time (several models' threads share the terminal)."""

    def __init__(self, echo: Callable[[str], None]):
        self.echo, self.lock = echo, threading.Lock()

    def __call__(self, text: str) -> None:
        with self.lock:
            self.echo(text)


_REFRESH = threading.RLock()


def _refresh(root: Path) -> None:
    """The card and Croissant after a write, one thread at a time (every folder reader refuses a split
    the card does not list, so each step's write is listed before the model's next step checks)."""
    from mirror_hf.metadata import refresh_metadata

    with _REFRESH:
        refresh_metadata(root)


def _write_and_refresh(root: Path, write: Callable[[], object]):
    """A study write and the refresh that lists it, as one step no other study thread's write or
    refresh falls between."""
    with _REFRESH:  # re-entrant: `_refresh` takes it again
        out = write()
        _refresh(root)
    return out


def _elsewhere(options: StudyOptions, model: str) -> frozenset[tuple[str, str]]:
    """The splits the study's other models write while this one runs: its folder checks leave them
    out (a split is renamed into place a moment before its refresh lists it)."""
    from mirror_hf.experiments import trial_configs
    from mirror_hf.runner.session import model_slug

    configs = (*trial_configs().values(), "profiles", "exp9_tailored")
    mine = model_slug(model)
    return frozenset((c, model_slug(e.name)) for e in options.models if model_slug(e.name) != mine for c in configs)


def run_study(options: StudyOptions, echo: Callable[[str], None] = print) -> StudyResult:
    say = _Printer(echo)
    root = options.dataset.absolute()
    if not (root / "data").is_dir():
        raise StudyError(f"{root} is not a dataset folder (no data/); build one with `mirror-hf build --out {options.dataset}`")
    experiments = experiments_of(options.preset, options.experiments)
    profile_needed = any(e in PROFILE_READERS for e in experiments)
    for entry in options.models:
        _check_endpoint(entry)
    if profile_needed and "exp1" not in experiments:
        from mirror_hf.folder import model_split, split_files

        have = {f.split for f in split_files(root).get("profiles", [])}
        for entry in options.models:
            if model_split(entry.name) not in have:
                raise StudyError(f"--experiments {','.join(experiments)} needs the Exp1 profile of {entry.name}, which "
                                 f"{root} lacks; add exp1 to --experiments")
    plans = [plan_model(root, entry, options, experiments) for entry in options.models]
    for line in format_plan(plans):
        say(line)
    if options.plan_json is not None:
        _write_plan_json(options.plan_json, plans)
        say(f"wrote the plan to {options.plan_json}")
    result = StudyResult(plans)
    if options.dry_run:
        return result
    total_cost = [p.total["cost"] for p in plans]
    if options.max_cost is not None and all(c is not None for c in total_cost) and sum(total_cost) > options.max_cost:
        say(f"note: the plan's cost ${sum(total_cost):,.2f} is above --max-cost ${options.max_cost:,.2f}; "
            "the study stops once that is spent")

    live = options.progress if options.progress is not None else (len(options.models) == 1 and sys.stderr.isatty())
    budget = None if options.max_cost is None else options.max_cost / len(options.models)
    started = time.monotonic()
    if len(options.models) == 1:
        entry = options.models[0]
        result.outcomes[entry.name] = _run_model(root, entry, plans[0], options, experiments, say, live, budget, started)
    else:
        with ThreadPoolExecutor(len(options.models), thread_name_prefix="study") as pool:
            futures = {e.name: pool.submit(_run_model, root, e, p, options, experiments, say, False, budget, started)
                       for e, p in zip(options.models, plans)}
            try:
                for name, future in futures.items():
                    result.outcomes[name] = future.result()
            finally:
                pool.shutdown(wait=True)
                _refresh(root)
    for name, outcome in result.outcomes.items():
        if outcome.failed_step is not None:
            result.failed.append(f"{name}: {outcome.failed_step}")
    if any(o.steps_done for o in result.outcomes.values()):
        _score_and_report(root, options, result, say)
    if options.push and not result.failed:
        _push(root, options, result, say)
    elif options.push:
        say(f"not pushed to {options.push}: a step failed (rerun the study; it pushes once every step is done)")
    return result


def _check_endpoint(entry: ModelEntry) -> None:
    """A model's URL and key, checked before anything is sent (the runner's own checks)."""
    from mirror_hf.runner.session import RunOptions, api_key
    from mirror_hf.runner.validate import check_base_url

    if entry.base_url is None:
        return
    try:
        check_base_url(entry.base_url)
        api_key(RunOptions(dataset=Path("."), api_key_env=entry.api_key_env or "OPENAI_API_KEY"), entry.base_url)
    except MirrorValueError as exc:
        raise StudyError(f"model {entry.name}: {exc}") from None


def step_options(root: Path, entry: ModelEntry, options: StudyOptions, experiment: str, *, max_cost: float | None = None,
                 progress: bool = False):
    """The `RunOptions` of one experiment step: what the step runs with and what it is planned with."""
    from mirror_hf.experiments import get
    from mirror_hf.runner.plan import PlanOptions
    from mirror_hf.runner.session import RunOptions

    extra = {k: v for k, v in (("rpm", entry.rpm), ("tpm", entry.tpm), ("concurrency", entry.concurrency)) if v is not None}
    return RunOptions(
        dataset=root, model=entry.name, base_url=entry.base_url, experiment=get(experiment),
        api_key_env=entry.api_key_env or "OPENAI_API_KEY", plan=PlanOptions(limit=options.preset.limit(experiment)),
        price_in=entry.price_in, price_out=entry.price_out, max_cost=max_cost, resume=True, progress=progress,
        max_attempts=options.max_attempts, backoff_base=options.backoff_base, timeout=options.timeout,
        max_failure_rate=options.max_failure_rate, **extra,
    )


def plan_model(root: Path, entry: ModelEntry, options: StudyOptions, experiments: tuple[str, ...]) -> ModelPlan:
    """Every step's plan for one model (profile readers on the stand-in folder while the model has
    no profile, or no tailored tasks where the preset tailors them)."""
    from mirror_hf.folder import split_files
    from mirror_hf.runner.session import model_slug

    split = model_slug(entry.name)
    files = split_files(root)
    has_profile = any(f.split == split for f in files.get("profiles", []))
    tailoring = _tailors(options.preset, experiments)
    has_tailored = any(f.split == split for f in files.get("exp9_tailored", []))
    out = ModelPlan(entry.name, split)
    direct = [e for e in experiments if e not in PROFILE_READERS or (has_profile and (e != "exp9" or not tailoring or has_tailored))]
    for experiment in experiments:
        if experiment in direct:
            out.experiments[experiment] = plan_experiment(root, step_options(root, entry, options, experiment), split,
                                                          entry.name, reply_tokens=options.reply_tokens)
    stand_in = [e for e in experiments if e not in direct]
    if stand_in:
        rotations: dict[str, list[ExperimentPlan]] = {e: [] for e in stand_in}
        for rotation in (STAND_IN_ROTATIONS if not has_profile else (0,)):
            with scratch_folder(root, split, profile=not has_profile, tailored=options.preset.tailored if tailoring else None,
                                tailor_step=lambda folder: _tailored_tasks(folder, entry, options.preset),
                                rotation=rotation) as scratch:
                for experiment in stand_in:
                    rotations[experiment].append(plan_experiment(
                        scratch, step_options(scratch, entry, options, experiment), split, entry.name,
                        reply_tokens=options.reply_tokens, done_root=root, stand_in=True))
        for experiment, plans in rotations.items():
            out.experiments[experiment] = mean_plan(plans)
    out.experiments = {e: out.experiments[e] for e in experiments}
    return out


def _tailors(preset: Preset, experiments: tuple[str, ...]) -> bool:
    return bool(preset.tailored) and "exp9" in experiments


def _write_plan_json(path: Path, plans: list[ModelPlan]) -> None:
    """`{"experiments": {...}, "total": {...}}` for one model; `{"models": {name: that}, "total": {...}}` for several."""
    from mirror_hf.cli.score_cmd import _write_atomically

    if len(plans) == 1:
        content = plans[0].json()
    else:
        totals = [p.total for p in plans]
        total = {k: (None if any(t[k] is None for t in totals) else sum(t[k] for t in totals)) for k in totals[0]}
        content = {"models": {p.model: p.json() for p in plans}, "total": total}
    _write_atomically(path, json.dumps(content, indent=2) + "\n")


# --------------------------------------------------------------------------------------------
# One model's steps
# --------------------------------------------------------------------------------------------


def _run_model(root: Path, entry: ModelEntry, plan: ModelPlan, options: StudyOptions, experiments: tuple[str, ...],
               say, live: bool, budget: float | None, started: float) -> ModelOutcome:
    # every write is listed by the refresh right after it (`_write_and_refresh`, `run`'s on_written)
    return _model_steps(root, entry, plan, options, experiments, say, live, budget, started)


def _model_steps(root: Path, entry: ModelEntry, plan: ModelPlan, options: StudyOptions, experiments: tuple[str, ...],
                 say, live: bool, budget: float | None, started: float) -> ModelOutcome:
    from mirror_hf.runner.profile import ProfileError
    from mirror_hf.runner.session import RunError

    outcome = ModelOutcome(entry.name)
    steps = _steps(options.preset, experiments)
    planned_total = max(1, plan.total["requests"])
    done_requests = 0  # sent in this session (for the ETA)
    spent = 0.0
    changed = False  # Exp1 trials (then the profile, then the tailored tasks) written in this session
    tag = f"[{entry.name}]"
    for number, step in enumerate(steps, start=1):
        _hook(options, entry.name, step, "start")
        elapsed = time.monotonic() - started
        eta = "" if not done_requests else f", ETA {_clock(elapsed / done_requests * max(0, planned_total - done_requests))}"
        try:
            if step in ("profile", "tailor"):
                # built again only from new Exp1 trials (or when missing): the same trials give the same rows
                config = "profiles" if step == "profile" else "exp9_tailored"
                what = "profile" if step == "profile" else f"tailor ({options.preset.tailored} Exp9 tasks)"
                if not changed and _split_rows(root, config, plan.split) is not None:
                    say(f"{tag} step {number}/{len(steps)} {what}: written already from these Exp1 trials")
                else:
                    say(f"{tag} step {number}/{len(steps)} {what}")
                    _profile(root, entry) if step == "profile" else _tailor(root, entry, options.preset, say)
                    changed = True
            else:
                left = None if budget is None else max(0.0, budget - spent)
                run_options = step_options(root, entry, options, step, max_cost=left, progress=live)
                fresh = plan_experiment(root, run_options, plan.split, entry.name, reply_tokens=options.reply_tokens)
                say(f"{tag} step {number}/{len(steps)} {step}: {fresh.requests:,} requests to send, {fresh.already_done:,} "
                    f"already recorded; elapsed {_clock(elapsed)}{eta}")
                report = _run_step(root, run_options, plan.split, fresh, say, tag, options)
                if report is not None:
                    changed = changed or step == "exp1"
                    done_requests += report.sent
                    spent += report.cost or 0.0
                    if report.stopped_by_budget:
                        raise RunError(f"--max-cost reached (${spent:,.4f} spent by {entry.name}); rerun with a higher --max-cost")
        except (MirrorError, ProfileError, RunError) as exc:
            outcome.failed_step, outcome.error = step, str(exc)
            command = options.resume_command + (f" --only {_quote(entry.name)}" if options.models_file else "")
            say(f"{tag} step {step} failed: {exc}")
            say(f"{tag} every finished request is kept under {root / '.runs'}; resume with: {command}")
            return outcome
        outcome.steps_done.append(step)
        _hook(options, entry.name, step, "done")
    say(f"{tag} all {len(steps)} steps done")
    return outcome


def _steps(preset: Preset, experiments: tuple[str, ...]) -> list[str]:
    steps: list[str] = []
    for experiment in experiments:
        steps.append(experiment)
        if experiment == "exp1" and any(e in PROFILE_READERS for e in experiments):
            steps.append("profile")
            if _tailors(preset, experiments):
                steps.append("tailor")
    return steps


def _hook(options: StudyOptions, model: str, step: str, event: str) -> None:
    if options.on_step is not None:
        options.on_step(model, step, event)


def _run_step(root: Path, run_options, split: str, fresh: ExperimentPlan, say, tag: str, options: StudyOptions):
    """`runner.run` with resume; None when the split already holds every planned trial and nothing is left to send."""
    from mirror_hf.runner import run

    if fresh.requests == 0 and _split_rows(root, run_options.experiment.trial_config, split) == fresh.trials:
        say(f"{tag}   {run_options.experiment.name}: complete already ({fresh.trials:,} trials), nothing sent")
        return None
    # the card lists the split before the model's next step; the other models' splits may be mid-write
    report = run(run_options, on_written=_refresh, writing_elsewhere=_elsewhere(options, run_options.model))
    say(f"{tag}   {report.experiment}: {report.trials:,} trials ({report.failed} failed, {report.truncated} truncated); "
        f"{report.sent:,} requests sent, {report.reused:,} reused; {report.seconds:.1f} s -> trials_{report.experiment}/{split}")
    return report


def _split_rows(root: Path, config: str, split: str) -> int | None:
    import pyarrow.parquet as pq

    from mirror_hf.folder import split_files

    files = [f for f in split_files(root).get(config, []) if f.split == split]
    return pq.ParquetFile(files[0].path).metadata.num_rows if files else None


def _profile(root: Path, entry: ModelEntry) -> None:
    """`mirror-hf profile`: build the model's Exp1 profile and write it (runner.profile)."""
    from mirror_hf.runner.profile import build_profile, write_profile
    from mirror_hf.runner.session import model_slug

    split = model_slug(entry.name)
    profile = build_profile(root, split, dedup_key=_exp1_key())
    _write_and_refresh(root, lambda: write_profile(root, split, profile))


def _tailor(root: Path, entry: ModelEntry, preset: Preset, say=print) -> None:
    """`mirror-hf tasks tailor --profile DIR --model M` with its defaults: the same builder and
    `write_split`, then the refresh that lists the split (`_write_and_refresh`)."""
    path, rows = _write_and_refresh(root, lambda: _tailored_tasks(root, entry, preset))
    say(f"[{entry.name}]   wrote {rows} tailored tasks to split '{path.name.rsplit('-', 1)[0]}' of config 'exp9_tailored': {path}")


def _tailored_tasks(folder: Path, entry: ModelEntry, preset: Preset) -> tuple[Path, int]:
    """The model's tailored Exp9 tasks from its profile in `folder` (the real one, or the plan's scratch
    folder with the stand-in profile): `tasks tailor`'s builder (the folder's build seed, the paper's
    weak-domain policy) and `folder.write_split`."""
    from mirror_hf.folder import read_marker, require_writable, write_split
    from mirror_hf.records import EXP9_TASK_FEATURES
    from mirror_hf.runner.session import model_slug
    from mirror_hf.tasks.tailor import WeakPolicySpec, tailor

    require_writable(folder, "the tailored tasks are written there")
    split = model_slug(entry.name)
    seed = int((read_marker(folder) or {}).get("seed", 0))
    rows, _ = tailor(profile=folder, model=entry.name, split=split, dataset=folder, policy=WeakPolicySpec(), seed=seed,
                     total=preset.tailored)
    return write_split(folder, "exp9_tailored", split, rows, EXP9_TASK_FEATURES), len(rows)


# --------------------------------------------------------------------------------------------
# Score, report, push (once, over every model in the folder)
# --------------------------------------------------------------------------------------------


def _score_and_report(root: Path, options: StudyOptions, result: StudyResult, say) -> None:
    from mirror_hf.cli.score_cmd import _write_atomically, print_table, read_folder, suite_options
    from mirror_hf.report import build_report

    table = model_table(list(options.models))
    scoring = suite_options("paper", "auto", "complete_case", options.resamples, 42)
    settings = {"variant": "paper", "weak_policy": "auto", "k": 2, "human_weak_policy": scoring.human_weak_policy,
                "missing": "complete_case",
                "resamples": options.resamples, "seed": 42}
    try:
        tables = read_folder(root)
        out = options.report_out
        report = build_report(root, tables, out, options=scoring, settings=settings, model_table=table)
        result.report = report.index
        # the report's own scores (scored once), written as `score --json` writes them, settings included;
        # replace=True is licensed: build_report has just written this folder as a whole (it refuses any
        # --report-out that is not new, empty or a previous report), so its scores.json is the study's own
        scores = {**report.scores, "settings": {"dataset": str(options.dataset), **settings, "ci": "BCa, 95%"}}
        result.scores = report.out / "scores.json"
        _write_atomically(result.scores, json.dumps(scores, indent=2, allow_nan=False) + "\n", replace=True)
    except MirrorError as exc:
        result.failed.append("score/report")
        say(f"step score/report failed: {exc}")
        say(f"resume with: {options.resume_command}")
        return
    print_table(scores)
    say(f"wrote the report {result.report} (open it in a browser) and the scores {result.scores}")


def _push(root: Path, options: StudyOptions, result: StudyResult, say) -> None:
    from mirror_hf.cli.hub_cmd import hub_failure
    from mirror_hf.hub import HubError, push

    command = f"mirror-hf push --dataset {_quote(str(options.dataset))} --repo {options.push}"
    try:
        report = push(root, options.push)
    except HubError as exc:
        failure: Exception | None = exc
    except Exception as exc:  # noqa: BLE001  Hub and network errors come in many types
        failure = hub_failure(exc, f"push to {options.push}", "HF_TOKEN")
        if failure is None:
            raise
    else:
        result.pushed = report.commit_url or options.push
        say(f"pushed to {options.push}: {report.commit_url or 'nothing new'}")
        return
    result.failed.append("push")
    say(f"step push failed: {failure}")
    say(f"resume with: {command}")


def _clock(seconds: float) -> str:
    minutes, s = divmod(int(round(seconds)), 60)
    h, m = divmod(minutes, 60)
    return f"{h}:{m:02d}:{s:02d}"


def _quote(text: str) -> str:
    import shlex

    return shlex.quote(text)


__all__ = ["PROFILE_READERS", "StudyError", "StudyOptions", "StudyResult", "plan_model", "run_study", "step_options"]


def _exp1_key() -> tuple[str, ...]:
    """Exp1's de-duplication key (the profile pools re-runs as `score` does)."""
    from mirror_hf.experiments import get

    return get("exp1").dedup_key
