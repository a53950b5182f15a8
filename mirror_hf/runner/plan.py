"""The plan: what one run sends, and how each trial's responses become its parsed, graded fields.

The runner knows no experiment. It is handed an experiment spec (`ExperimentSpec`: the registered
`mirror_hf.experiments.Experiment` satisfies it) whose planner reads the dataset folder and returns
the jobs with a `Recipe` that routes responses to `mirror_hf.protocol`'s parsers and graders. This
module holds what every planner shares: reading a config, the stratified item order, option checks.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, TypeVar, runtime_checkable

from mirror_hf.errors import MirrorValueError
from mirror_hf.vocabulary import (
    ANSWER_FORMATS,
    ATTACK_WORDINGS,
    DECISION_RULES,
    MATCHERS,
    ROUTE_RULES,
    AnswerFormat,
    AttackWording,
    DecisionRules,
    Matcher,
    Resolver,
    RouteRuleKind,
    VocabularyError,
    one_of,
    parse_resolver,
)

if TYPE_CHECKING:
    from datasets import Features

    from mirror_hf.runner.request import ChatRequest, Outcome

_Item = TypeVar("_Item")
Messages = list[dict[str, Any]]  # one request's chat messages
Turns = list[tuple["ChatRequest", "Outcome"]]  # a job's requests so far, each with its outcome


class PlanError(MirrorValueError):
    """The plan cannot be built from this folder and these options (one line, says what to do)."""


@dataclass
class Job:
    """One trial: the first turn's messages, the fields copied into its record (channel, domain,
    condition, ...), and what the recipe needs to parse and grade it."""

    item_id: str
    fields: dict[str, Any]
    messages: Messages
    context: Any = None
    state: dict[str, Any] = field(default_factory=dict)  # recipe's per-job scratch (e.g. first-turn parse)
    temperature: float | None = None  # this job's own temperature (Exp2 channel 5), else the run's
    body: tuple[tuple[str, object], ...] = ()  # body fields its channel sets on its first request (`n`, `logprobs`)


@dataclass(frozen=True)
class NextRequest:
    """A further request of one job that is not a reply turn: the same or other messages with body
    fields of its own (`body`) and the run's seed moved by `seed_offset` (the k-th sample of a
    channel sampled k times where the endpoint ignores `n`)."""

    messages: Messages
    body: tuple[tuple[str, object], ...] = ()
    seed_offset: int = 0


class Recipe(Protocol):
    """How a plan's responses become records: the contract between a planner and the engine.

    A single-turn recipe: the engine sends each job's first turn, asks `followup` once (a tool
    result, Exp6a's self-rating), and hands every turn to `parsed_fields`. Recipes declare it by
    subclassing (`class ExpNRecipe(Recipe)`), which also gives them the estimate's defaults below;
    the abstract members are the ones each recipe writes itself."""

    experiment: str
    default_max_tokens: int

    def may_follow_up(self, job: Job) -> bool:
        """Whether this job can get a second turn at all (for the dry-run estimate)."""
        ...

    def followup(self, job: Job, outcome: Outcome) -> Messages | None:
        """Messages of a second turn after the first turn's `outcome`, or None."""
        ...

    def parsed_fields(self, job: Job, turns: Turns, error: str | None = None) -> dict[str, Any]:
        """The record's parsed and graded fields from its turns; `error` is set when a turn finally
        failed (then most recipes parse nothing: the trial is ungraded). Every key must be a field of
        the experiment's trial schema (`records.conform_row`: an undeclared one is an error)."""
        ...

    def planned_followup(self, job: Job, max_tokens: int) -> Messages | None:
        """The second turn every trial sends, as it looks after a longest first answer (the dry-run
        estimate: Exp6a's self-rating), or None: no planned second turn."""
        return None

    def requests_if_n_ignored(self, job: Job) -> int:
        """Requests beyond the first this job sends when the endpoint ignores `n` (the estimate)."""
        return 0


@runtime_checkable
class MultiTurnRecipe(Recipe, Protocol):
    """A recipe whose jobs may send any number of turns: the engine asks `next_turn` after every
    finished turn (instead of `followup` once). Runtime-checkable: the engine and the estimate pick
    their rule by `isinstance`, once per recipe (`engine.turn_rule`)."""

    def next_turn(self, job: Job, turns: Turns) -> Messages | NextRequest | None:
        """The next turn's messages (a reply turn), a `NextRequest` (a further sample of the first
        turn) or None: the job is done."""
        ...

    def planned_turns(self, job: Job) -> list[Messages] | None:
        """Every turn's messages with empty assistant replies, when a conversation's turns are fixed
        in advance (Exp4; the estimate), else None (the estimate counts first turns and follow-ups)."""
        return None


@dataclass
class Plan:
    experiment: str
    jobs: list[Job]
    recipe: Recipe
    items: int  # distinct items (questions or tasks) selected
    notes: list[str] = field(default_factory=list)  # e.g. items without a difficulty pair
    manifest: dict[str, Any] = field(default_factory=dict)  # settings a channel adds to the run manifest (k, temperature)
    spec: Any = field(default=None, repr=False)  # the ExperimentSpec planned from (set by `build_plan`)

    @property
    def features(self) -> Features:
        """The trial config's `datasets.Features`, read from the spec when first asked for: the
        request loop never needs them, and importing `datasets` costs seconds of start-up."""
        return self.spec.trial_features


@dataclass(frozen=True)
class PlanOptions:
    """What a planner reads besides the folder: which items, channels and conditions, and the
    protocol's variants. Typed words (`mirror_hf.vocabulary`); `build_plan` checks them again for
    library callers that pass anything. `RunOptions.plan` holds one (its `split` is set by the run)."""

    limit: int | None = None
    channels: tuple[str, ...] | None = None
    conditions: tuple[str, ...] | None = None
    paradigms: tuple[str, ...] | None = None
    matcher: Matcher = "strict"
    split: str = ""  # the model's split name (Exp9 C2-C4 read its profile)
    route_rule: RouteRuleKind = "weak_set"  # Exp9 C4: weak_set (paper) or accuracy_below (authors' runner, < 0.50)
    decisions: DecisionRules | None = None  # Exp9 decision rules: paper / tags / upstream (None: paper, upstream under --matcher upstream)
    false_score_control: bool = False  # Exp9 Control 2: also run C2 with inverted scores on the first 150 fixed tasks
    resolver: Resolver = "oracle"  # Exp9 C4 resolver: oracle, or its accuracy q in [0, 1] (a number, not text)
    samples: int = 5  # Exp1 consistency channel: samples per item (k)
    sample_temperature: float = 0.7  # ... and their temperature
    answer_format: AnswerFormat = "choices"  # choices (the paper's datasheet) or open (see protocol.formats)
    attack_wording: AttackWording = "upstream"  # Exp5 attack prefixes: upstream (the authors' code) or paper
    bank: str | None = None  # the task bank config of experiments that have several (Exp4, Exp6: ours or the authors')
    min_strong_accuracy: float | None = None  # Exp5: the strong-domain floor (None: scoring.MIN_STRONG_ACCURACY, chance)


class ExperimentSpec(Protocol):
    """What the runner needs of an experiment (`mirror_hf.experiments.Experiment` provides it; read-only)."""

    @property
    def name(self) -> str: ...

    @property
    def bank_configs(self) -> tuple[str, ...]: ...  # the configs its planner reads (`--bank` picks among them)

    @property
    def trial_config(self) -> str: ...  # the config its trials are written to

    @property
    def trial_features(self) -> Features: ...

    @property
    def default_max_tokens(self) -> int: ...

    def plan(self, root: Path, options: PlanOptions) -> Plan: ...


# --------------------------------------------------------------------------------------------
# Reading the folder
# --------------------------------------------------------------------------------------------


def read_config(root: Path, config: str, split: str | None = None, *, needed_for: str,
                columns: tuple[str, ...] = ()) -> list[dict]:
    """Rows of one config (one split, or all) straight from its parquet files: no `datasets` cache,
    so a folder edited in place is always read as it is now. A file lacking a column the reader
    needs (`columns`) or its own schema declares (the datasets Features it was written with) is one
    line naming the file and the column."""
    import json

    import pyarrow.parquet as pq

    from mirror_hf.folder import split_files

    files = [f for f in split_files(root).get(config, []) if split is None or f.split == split]
    if not files:
        where = f"split {split!r} of config {config!r}" if split else f"config {config!r}"
        raise PlanError(f"{root} has no {where}, which {needed_for} needs")
    rows: list[dict] = []
    for f in files:
        # ParquetFile, not read_table: read_table goes through pyarrow.dataset, which imports pandas (~1 s)
        try:
            table = pq.ParquetFile(f.path).read()
        except (OSError, ValueError) as exc:
            raise PlanError(f"{f.path}: not a readable parquet file ({type(exc).__name__}); rebuild the folder") from None
        declared: list[str] = []
        try:
            info = json.loads((table.schema.metadata or {}).get(b"huggingface", b"{}"))
            declared = list((info.get("info") or {}).get("features") or {})
        except (ValueError, AttributeError):
            pass
        missing = [c for c in dict.fromkeys([*columns, *declared]) if c not in table.column_names]
        if missing:
            raise PlanError(f"{f.path}: column {missing[0]!r} is missing" + (f" (and {missing[1:]})" if missing[1:] else "")
                            + f"; {needed_for} needs it: rebuild the folder or restore the file")
        rows.extend(table.to_pylist())
    return rows


def stable_order(item_id: str) -> str:
    """A fixed pseudo-random order of items, independent of --limit and of the bank's file order."""
    return hashlib.sha256(item_id.encode()).hexdigest()


def stratified(items: list[_Item], limit: int | None, *, stratum: Callable[[_Item], str],
               substratum: Callable[[_Item], str] | None = None) -> list[_Item]:
    """`limit` items spread evenly over strata (domains; the first strata in sorted order get the
    remainder, and strata with spare items fill in for short ones). Within a stratum items are taken
    round-robin over substrata (subcategories) in a fixed pseudo-random order, so a small limit still
    covers each domain's subcategories. No limit: every item, in that same order."""
    if limit is not None and limit < 1:
        raise PlanError(f"--limit must be at least 1, got {limit}")
    groups: dict[str, list] = {}
    for item in items:
        groups.setdefault(stratum(item), []).append(item)
    ordered: dict[str, list] = {}
    for key in sorted(groups):
        members = sorted(groups[key], key=lambda it: stable_order(_id(it)))
        if substratum is not None:
            subs: dict[str, list] = {}
            for it in members:
                subs.setdefault(substratum(it), []).append(it)
            lanes = [subs[k] for k in sorted(subs)]
            members = [lane[i] for i in range(max(map(len, lanes))) for lane in lanes if i < len(lane)]
        ordered[key] = members
    if limit is None or limit >= len(items):
        return [it for members in ordered.values() for it in members]
    quota = {key: 0 for key in ordered}
    remaining = limit
    while remaining:
        open_strata = [k for k in ordered if quota[k] < len(ordered[k])]
        share, extra = divmod(remaining, len(open_strata))
        for i, key in enumerate(open_strata):
            take = min(share + (1 if i < extra else 0), len(ordered[key]) - quota[key])
            quota[key] += take
            remaining -= take
    return [it for key, members in ordered.items() for it in members[: quota[key]]]


def _id(item: object) -> str:
    for name in ("id", "task_id"):
        value = getattr(item, name, None) if not isinstance(item, dict) else item.get(name)
        if value is not None:
            return value
    raise TypeError(f"item without an id: {item!r}")


def choose(requested: tuple[str, ...] | None, known: tuple[str, ...], default: tuple[str, ...], what: str) -> tuple[str, ...]:
    if not requested:
        return default
    unknown = [r for r in requested if r not in known]
    if unknown:
        raise PlanError(f"unknown {what} {', '.join(unknown)}; known: {', '.join(known)}")
    return tuple(dict.fromkeys(requested))


# --------------------------------------------------------------------------------------------
# Dispatch
# --------------------------------------------------------------------------------------------


def check_words(options: PlanOptions) -> None:
    """Every word option in its vocabulary (the CLI parses them so; a library caller may pass
    anything): one line naming the flag. The resolver must be typed: "0.8" as text is refused."""
    try:
        one_of("--matcher", options.matcher, MATCHERS)
        one_of("--answer-format", options.answer_format, ANSWER_FORMATS)
        one_of("--route-rule", options.route_rule, ROUTE_RULES)
        one_of("--attack-wording", options.attack_wording, ATTACK_WORDINGS)
        if options.decisions is not None:
            one_of("--decisions", options.decisions, DECISION_RULES)
        if options.resolver != "oracle" and (isinstance(options.resolver, (str, bool))
                                             or parse_resolver(options.resolver) != options.resolver):
            raise VocabularyError(f"--resolver-accuracy must be 'oracle' or a number in [0, 1], got {options.resolver!r}")
    except VocabularyError as exc:
        raise PlanError(str(exc)) from None


def build_plan(root: Path, options: PlanOptions, spec: ExperimentSpec) -> Plan:
    """The spec's plan for this folder, after the option checks every experiment shares."""
    check_words(options)
    if options.samples < 2:
        raise PlanError(f"--samples must be at least 2 (the consistency channel compares samples), got {options.samples}")
    if not 0 < options.sample_temperature <= 2:
        raise PlanError(f"--sample-temperature must be in (0, 2], got {options.sample_temperature:g}")
    banks = spec.bank_configs
    if options.bank is not None and options.bank not in banks:
        raise PlanError(f"--bank {options.bank!r}: {spec.name} reads {', '.join(banks) or 'no bank'}")
    plan = spec.plan(root, options)
    plan.spec = spec
    return plan
