"""Experiment 9: the knowing-doing gap (protocol §5): two-component agentic tasks under conditions
C1-C4 and paradigms P1-P3; C2-C4 read the model's Exp1 profile."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from mirror_hf.experiments._spec import Experiment, SingleRequestRecipe
from mirror_hf.headlines import CFR_FRAME, CFR_TABLE_FRAME, Headline
from mirror_hf.runner.plan import Job, Plan, PlanError, PlanOptions, Turns, choose, read_config, stratified
from mirror_hf.vocabulary import DecisionRules, Matcher, Resolver

if TYPE_CHECKING:  # the protocol is imported when a plan is built, not by the registry
    from mirror_hf.protocol.exp9 import RouteRule


class Exp9Recipe(SingleRequestRecipe):
    experiment = "exp9"
    default_max_tokens = 4000  # spec §5.4

    def __init__(self, matcher: Matcher, route_rule: RouteRule, resolver: Resolver = "oracle", seed: int = 0,
                 decisions: DecisionRules | None = None):
        self.matcher = matcher
        self.decisions = decisions
        self.route_rule = route_rule
        self.resolver = resolver
        self.seed = seed

    def parsed_fields(self, job: Job, turns: Turns, error: str | None = None) -> dict[str, Any]:
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

    conditions = choose(options.conditions, exp9.CONDITIONS, exp9.CONDITIONS, "condition(s)")
    paradigms = choose(options.paradigms, exp9.PARADIGMS, exp9.PARADIGMS, "paradigm(s)")
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
            raise PlanError(f"--false-score-control needs the model's Exp1 profile (split {options.split!r} of config "
                            f"'profiles' in {root})")
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
    recipe = Exp9Recipe(options.matcher, exp9.RouteRule(options.route_rule), resolver=options.resolver, decisions=options.decisions)
    return Plan("exp9", jobs, recipe, len(chosen), notes)


#: the trial fields a re-run record replaces an earlier one under (the last written wins)
DEDUP_KEY: tuple[str, ...] = ("item_id", "condition", "paradigm", "is_false_score_control", "temperature")
#: the numbers `score`, the report and the exports summarise a model's exp9 by
HEADLINES: tuple[Headline, ...] = tuple(
    Headline(f"exp9_cfr_{c.lower()}", "exp9", f"Exp9 CFR {c}", ("exp9", "cfr", c), "lower",
             f"Exp9 confident failure rate under {c}: weak components that proceeded and were wrong "
             "(P1+P2, fixed and tailored tasks)", CFR_FRAME)
    for c in ("C1", "C2", "C3", "C4")
) + (
    Headline("exp9_cfr_table_c1", "exp9", "Exp9 CFR C1 (Table 1)", ("exp9", "cfr_table_c1"), "lower",
             "Exp9 confident failure rate under C1, fixed tasks, all paradigms (the paper's Table 1)", CFR_TABLE_FRAME),
    Headline("exp9_kdi", "exp9", "Exp9 KDI", ("exp9", "kdi"), "lower", "Knowing-doing index: Mirror gap - (1 - CFR C1)"),
)


def _spec() -> Experiment:

    return Experiment(
        name="exp9",
        title="agentic tasks x conditions x paradigms",
        bank_configs=("exp9_fixed", "exp9_tailored"),
        trial_schema="TRIAL_EXP9_FEATURES",
        planner=plan_exp9,
        default_max_tokens=Exp9Recipe.default_max_tokens,
        scorer_ref="mirror_hf.scoring._suite:EXP9",
        dedup_key=DEDUP_KEY,
        headlines=HEADLINES,
        section="Experiment 9",
    )


EXPERIMENT = _spec()
