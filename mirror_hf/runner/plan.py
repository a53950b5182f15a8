"""The plan: what one run sends, built from the dataset folder by the protocol's prompt builders, and
how each trial's responses become its parsed, graded fields (the protocol's parsers and graders).

The runner owns no prompt text and no parsing rule: a `Recipe` per experiment only routes records to
`mirror_hf.protocol` and back. That keeps the request keys (hashes of the exact messages) a function
of the protocol version alone.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from mirror_hf.errors import MirrorValueError

EXPERIMENTS: tuple[str, ...] = ("exp1", "exp3", "exp9")


class PlanError(MirrorValueError):
    """The plan cannot be built from this folder and these options (one line, says what to do)."""


@dataclass
class Job:
    """One trial: the first turn's messages, the fields copied into its record (channel, domain,
    condition, ...), and what the recipe needs to parse and grade it."""

    item_id: str
    fields: dict
    messages: list[dict]
    context: Any = None
    state: dict = field(default_factory=dict)  # recipe's per-job scratch (e.g. first-turn parse)


class Recipe(Protocol):
    experiment: str
    default_max_tokens: int

    def followup(self, job: Job, outcome) -> list[dict] | None:
        """Messages of a second turn, or None."""

    def parsed_fields(self, job: Job, turns: list, error: str | None = None) -> dict:
        """The record's parsed and graded fields from its turns [(ChatRequest, Outcome)]; `error`
        is set when a turn finally failed (then most recipes parse nothing: the trial is ungraded)."""


@dataclass
class Plan:
    experiment: str
    jobs: list[Job]
    recipe: Recipe
    items: int  # distinct items (questions or tasks) selected
    notes: list[str] = field(default_factory=list)  # e.g. items without a difficulty pair


@dataclass(frozen=True)
class PlanOptions:
    experiment: str = "exp1"
    limit: int | None = None
    channels: tuple[str, ...] | None = None
    conditions: tuple[str, ...] | None = None
    paradigms: tuple[str, ...] | None = None
    matcher: str = "strict"
    split: str = ""  # the model's split name (Exp9 C2-C4 read its profile)
    route_rule: str = "weak_set"  # Exp9 C4: weak_set (paper) or accuracy_below (authors' runner, < 0.50)
    decisions: str | None = None  # Exp9 decision rules: paper / tags / upstream (None: paper, upstream under --matcher upstream)
    false_score_control: bool = False  # Exp9 Control 2: also run C2 with inverted scores on the first 150 fixed tasks
    resolver: str = "oracle"  # Exp9 C4 resolver: oracle, or its accuracy q in [0, 1] as text
    answer_format: str = "choices"  # choices (the paper's datasheet) or open (see protocol.formats)


# --------------------------------------------------------------------------------------------
# Reading the folder
# --------------------------------------------------------------------------------------------


def read_config(root: Path, config: str, split: str | None = None, *, needed_for: str) -> list[dict]:
    """Rows of one config (one split, or all) straight from its parquet files: no `datasets` cache,
    so a folder edited in place is always read as it is now."""
    import pyarrow.parquet as pq

    from mirror_hf.folder import split_files

    files = [f for f in split_files(root).get(config, []) if split is None or f.split == split]
    if not files:
        where = f"split {split!r} of config {config!r}" if split else f"config {config!r}"
        raise PlanError(f"{root} has no {where}, which {needed_for} needs")
    rows: list[dict] = []
    for f in files:
        rows.extend(pq.read_table(f.path).to_pylist())
    return rows


def stable_order(item_id: str) -> str:
    """A fixed pseudo-random order of items, independent of --limit and of the bank's file order."""
    return hashlib.sha256(item_id.encode()).hexdigest()


def stratified(items: list, limit: int | None, *, stratum, substratum=None) -> list:
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


def _id(item) -> str:
    for name in ("id", "task_id"):
        value = getattr(item, name, None) if not isinstance(item, dict) else item.get(name)
        if value is not None:
            return value
    raise TypeError(f"item without an id: {item!r}")


def _choose(requested: tuple[str, ...] | None, known: tuple[str, ...], default: tuple[str, ...], what: str) -> tuple[str, ...]:
    if not requested:
        return default
    unknown = [r for r in requested if r not in known]
    if unknown:
        raise PlanError(f"unknown {what} {', '.join(unknown)}; known: {', '.join(known)}")
    return tuple(dict.fromkeys(requested))


# --------------------------------------------------------------------------------------------
# Experiment 1: questions x channels
# --------------------------------------------------------------------------------------------


class Exp1Recipe:
    experiment = "exp1"
    default_max_tokens = 1024  # spec §2 (layer 2 used 1536 upstream)

    def __init__(self, matcher: str):
        self.matcher = matcher

    def _first_tool_parse(self, job: Job, outcome) -> tuple[dict, list | None]:
        from mirror_hf.protocol import exp1

        if "first" not in job.state:
            parsed = exp1.parse_tool_delegation(
                outcome.text, reasoning_content=outcome.reasoning, finish_reason=outcome.finish_reason, rules=self.matcher
            )
            job.state["first"] = parsed
            job.state["results"] = exp1.run_tools(parsed) if exp1.needs_followup(parsed) else None
        return job.state["first"], job.state["results"]

    def followup(self, job: Job, outcome) -> list[dict] | None:
        if job.fields["channel"] != "tool_delegation":
            return None
        from mirror_hf.protocol import exp1

        _, results = self._first_tool_parse(job, outcome)
        if results is None:
            return None
        return exp1.build_tool_followup(job.messages, outcome.text, results)

    def parsed_fields(self, job: Job, turns: list, error: str | None = None) -> dict:
        if error is not None:
            return {}
        from mirror_hf.protocol import exp1

        question, pair = job.context
        channel = job.fields["channel"]
        last = turns[-1][1]
        if channel == "tool_delegation" and len(turns) == 2:
            first, results = self._first_tool_parse(job, turns[0][1])
            parsed = exp1.parse_tool_followup(
                last.text, first, results, reasoning_content=last.reasoning, finish_reason=last.finish_reason, rules=self.matcher
            )
        else:
            parsed = exp1.parse(channel, last.text, reasoning_content=last.reasoning, finish_reason=last.finish_reason, rules=self.matcher)
        return exp1.grade(parsed, question, self.matcher, pair=pair)


def plan_exp1(root: Path, options: PlanOptions) -> Plan:
    from dataclasses import replace

    from mirror_hf.protocol import exp1
    from mirror_hf.protocol.formats import question_as_asked
    from mirror_hf.protocol.pairing import difficulty_pairs, pair_for_each_question
    from mirror_hf.records import Question

    channels = _choose(options.channels, tuple(exp1.CHANNELS), exp1.BEHAVIOURAL_CHANNELS, "channel(s)")
    bank = [Question.from_row(r) for r in read_config(root, "questions", needed_for="exp1")]
    chosen = stratified(bank, options.limit, stratum=lambda q: q.domain, substratum=lambda q: q.subcategory)
    pairs = pair_for_each_question(difficulty_pairs(bank)) if "difficulty_selection" in channels else {}
    jobs, unpaired = [], 0
    fmt = options.answer_format
    for q in (question_as_asked(q, fmt) for q in chosen):
        for name in channels:
            pair = pairs.get(q.id)
            if pair is not None:
                pair = replace(pair, easy=question_as_asked(pair.easy, fmt), hard=question_as_asked(pair.hard, fmt))
            if name == "difficulty_selection":
                if pair is None:
                    unpaired += 1
                    continue
                messages = exp1.build_difficulty_selection(q, pair=pair)
            else:
                messages = exp1.channel(name).build(q)
            fields = {"channel": name, "domain": q.domain, "subcategory": q.subcategory, "difficulty": q.difficulty,
                      "answer_format": fmt}
            jobs.append(Job(q.id, fields, messages, (q, pair)))
    notes = []
    if unpaired:
        notes.append(f"{unpaired} item(s) have no difficulty-selection pair (medium items, or a domain without "
                     "easy and hard items) and get no difficulty_selection trial")
    return Plan("exp1", jobs, Exp1Recipe(options.matcher), len(chosen), notes)


# --------------------------------------------------------------------------------------------
# Experiment 3: composite tasks x targets (composite, component_a, component_b) x channels
# --------------------------------------------------------------------------------------------

EXP3_DEFAULT_CHANNELS = ("self_prediction", "answer")


class Exp3Recipe:
    experiment = "exp3"
    default_max_tokens = 350  # spec §6.2 (v2)

    def __init__(self, matcher: str):
        self.matcher = matcher

    def followup(self, job: Job, outcome) -> list[dict] | None:
        return None

    def parsed_fields(self, job: Job, turns: list, error: str | None = None) -> dict:
        if error is not None:
            return {}
        from mirror_hf.protocol import exp3

        last = turns[-1][1]
        parsed = exp3.PARSERS[job.fields["channel"]](
            last.text, reasoning_content=last.reasoning, finish_reason=last.finish_reason, rules=self.matcher
        )
        return exp3.grade(parsed, job.context, job.fields["target"], self.matcher)


def plan_exp3(root: Path, options: PlanOptions) -> Plan:
    from mirror_hf.protocol import exp3
    from mirror_hf.protocol.formats import exp3_task_as_asked

    channels = _choose(options.channels, exp3.CHANNELS, EXP3_DEFAULT_CHANNELS, "exp3 channel(s)")
    tasks = [exp3_task_as_asked(t, options.answer_format) for t in read_config(root, "exp3_composite", needed_for="exp3")]
    chosen = stratified(tasks, options.limit, stratum=lambda t: f"{t['domain_a']}|{t['domain_b']}")
    jobs = []
    for task in chosen:
        for name in channels:
            # The authors' single call (layer2) is about the composite task only.
            for target in ("composite",) if name == "layer2" else exp3.TARGETS:
                if name == "self_prediction":
                    messages = exp3.build_self_prediction(task, target)
                elif name == "answer":
                    messages = exp3.build_answer(task, target)
                else:
                    messages = exp3.build_upstream_layer2(task)
                component = task[target] if target != "composite" else None
                fields = {
                    "channel": name,
                    "target": target,
                    "domain_a": task["domain_a"],
                    "domain_b": task["domain_b"],
                    "domain": component["domain"] if component else None,
                    "subcategory": component["subcategory"] if component else None,
                    "difficulty": component["difficulty"] if component else task.get("stratum"),
                    "answer_format": options.answer_format,
                }
                jobs.append(Job(task["task_id"], fields, messages, task))
    return Plan("exp3", jobs, Exp3Recipe(options.matcher), len(chosen))


# --------------------------------------------------------------------------------------------
# Experiment 9: agentic tasks x conditions x paradigms
# --------------------------------------------------------------------------------------------


class Exp9Recipe:
    experiment = "exp9"
    default_max_tokens = 4000  # spec §5.4

    def __init__(self, matcher: str, route_rule, resolver: str = "oracle", seed: int = 0, decisions: str | None = None):
        self.matcher = matcher
        self.decisions = decisions
        self.route_rule = route_rule
        self.resolver = resolver
        self.seed = seed

    def followup(self, job: Job, outcome) -> list[dict] | None:
        return None

    def parsed_fields(self, job: Job, turns: list, error: str | None = None) -> dict:
        from mirror_hf.protocol import exp9

        task, profile = job.context
        last = turns[-1][1]
        parsed = exp9.parse_exp9(
            None if error else last.text, job.fields["paradigm"], task,
            reasoning_content=None if error else last.reasoning,
            finish_reason=None if error else last.finish_reason,
            api_error=error, rules=self.matcher, decisions=self.decisions,
        )
        if error is not None:  # a failed request is ungraded under either matcher, never "proceed, wrong"
            graded = {k: v for k, v in parsed.items() if k in ("api_success", "paradigm", "decision_rules")}
        else:
            graded = exp9.grade_exp9(parsed, task, self.matcher)
        if job.fields["condition"] == "C4":
            routed = exp9.routed_slots(task, self.route_rule, profile)
            graded = exp9.apply_routing(graded, task, routed, self.resolver, self.seed)
        return graded


def read_profile(root: Path, split: str) -> dict[str, dict] | None:
    """domain -> the model's `profiles` row, or None when the folder has no profile for it."""
    from mirror_hf.folder import split_files

    if not any(f.split == split for f in split_files(root).get("profiles", [])):
        return None
    return {row["domain"]: row for row in read_config(root, "profiles", split, needed_for="exp9")}


def plan_exp9(root: Path, options: PlanOptions) -> Plan:
    from mirror_hf.folder import split_files
    from mirror_hf.protocol import exp9
    from mirror_hf.protocol.formats import exp9_task_as_asked

    conditions = _choose(options.conditions, exp9.CONDITIONS, exp9.CONDITIONS, "condition(s)")
    paradigms = _choose(options.paradigms, exp9.PARADIGMS, exp9.PARADIGMS, "paradigm(s)")
    profile = read_profile(root, options.split)
    needs_profile = [c for c in conditions if c != "C1"]
    if needs_profile and profile is None:
        raise PlanError(
            f"exp9 condition(s) {', '.join(needs_profile)} need the model's Exp1 profile, and {root} has no split "
            f"{options.split!r} in config 'profiles'. Run `mirror-hf run --experiment exp1` for this model, then "
            f"`mirror-hf profile --dataset {root} --split {options.split}`; or run only --conditions C1"
        )
    tasks = read_config(root, "exp9_fixed", needed_for="exp9")
    notes = []
    if any(f.split == options.split for f in split_files(root).get("exp9_tailored", [])):
        tailored = read_config(root, "exp9_tailored", options.split, needed_for="exp9")
        tasks = tasks + tailored
        notes.append(f"including {len(tailored)} tasks tailored to this model (exp9_tailored/{options.split})")
    chosen = stratified(tasks, options.limit, stratum=lambda t: f"{t['domain_a']}|{t['domain_b']}")
    control = set()
    if options.false_score_control:
        if profile is None:
            raise PlanError(f"--false-score-control needs the model's Exp1 profile (split {options.split!r} of config 'profiles' in {root})")
        control = exp9.false_score_tasks(tasks)
        notes.append(f"false-score control (C2, inverted scores): {len(control & {t['task_id'] for t in chosen})} fixed task(s)")
    chosen = [exp9_task_as_asked(t, options.answer_format) for t in chosen]
    profile = profile or {}
    accuracy = {d: row.get("natural_accuracy") for d, row in profile.items()}
    jobs = []
    for task in chosen:
        context = exp9.slot_context(task, profile)
        for condition in conditions:
            for paradigm in paradigms:
                if (condition, paradigm) not in exp9.cells():
                    continue
                messages = exp9.build_exp9(task, condition, paradigm, accuracy)
                fields = {"condition": condition, "paradigm": paradigm, "is_false_score_control": False,
                          "answer_format": options.answer_format, **context}
                jobs.append(Job(task["task_id"], fields, messages, (task, profile)))
        if task["task_id"] in control:
            for paradigm in paradigms:
                messages = exp9.build_exp9(task, "C2", paradigm, accuracy, false_scores=True)
                fields = {"condition": "C2", "paradigm": paradigm, "is_false_score_control": True,
                          "answer_format": options.answer_format, **context}
                jobs.append(Job(task["task_id"], fields, messages, (task, profile)))
    resolver = "oracle" if options.resolver == "oracle" else float(options.resolver)
    recipe = Exp9Recipe(options.matcher, exp9.RouteRule(options.route_rule), resolver=resolver, decisions=options.decisions)
    return Plan("exp9", jobs, recipe, len(chosen), notes)


# --------------------------------------------------------------------------------------------
# Dispatch
# --------------------------------------------------------------------------------------------


def build_plan(root: Path, options: PlanOptions) -> Plan:
    if options.experiment not in EXPERIMENTS:
        raise PlanError(f"--experiment must be one of {', '.join(EXPERIMENTS)}, got {options.experiment!r}")
    if options.matcher not in ("strict", "upstream"):
        raise PlanError(f"--matcher must be strict or upstream, got {options.matcher!r}")
    from mirror_hf.protocol.formats import ANSWER_FORMATS

    if options.answer_format not in ANSWER_FORMATS:
        raise PlanError(f"--answer-format must be one of {', '.join(ANSWER_FORMATS)}, got {options.answer_format!r}")
    if options.route_rule not in ("weak_set", "accuracy_below"):
        raise PlanError(f"--route-rule must be weak_set or accuracy_below, got {options.route_rule!r}")
    if options.decisions is not None and options.decisions not in ("paper", "tags", "upstream"):
        raise PlanError(f"--decisions must be paper, tags or upstream, got {options.decisions!r}")
    if options.resolver != "oracle":
        try:
            q = float(options.resolver)
        except ValueError:
            q = -1.0
        if not 0 <= q <= 1:
            raise PlanError(f"--resolver-accuracy must be 'oracle' or a number in [0, 1], got {options.resolver!r}")
    builders = {"exp1": plan_exp1, "exp3": plan_exp3, "exp9": plan_exp9}
    return builders[options.experiment](root, options)
