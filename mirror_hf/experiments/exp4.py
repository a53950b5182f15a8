"""Experiment 4: burn-and-test (protocol §6.3): one four-turn conversation per template and
feedback condition: Phase A (easy burn-domain item, every format), Phase B (hard item, approach
menu), the failure feedback + "Would you like to try again?", Phase C (related + unrelated item,
every format). Condition `true` sends the template's true feedback, `false` the fabricated one.

Bank: `exp4_templates` (built from the question bank) by default, `upstream_exp4` (the authors'
templates, `mirror-hf import-upstream`) with `--bank upstream_exp4` or when the folder has
only that one. `--limit N`: N
templates spread over burn domains; `--conditions true,false` (default both).

Each turn is its own request, sent once the previous reply is in; the results file holds every
finished request, so a resumed run replays a finished conversation from it without sending
anything, continues a broken one from its last recorded turn, and records a conversation only
once all four turns are in.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from mirror_hf.experiments._spec import Experiment
from mirror_hf.headlines import Headline
from mirror_hf.runner.plan import Job, Messages, MultiTurnRecipe, Plan, PlanError, PlanOptions, Turns, choose, read_config, stratified
from mirror_hf.runner.request import Outcome
from mirror_hf.vocabulary import Matcher

BANKS: tuple[str, ...] = ("exp4_templates", "upstream_exp4")


class Exp4Recipe(MultiTurnRecipe):
    """A four-turn conversation per job, its turns fixed in advance (`planned_turns`)."""

    experiment = "exp4"
    default_max_tokens = 1536  # the combined prompts ask for four formats (two tasks in Phase C)

    def __init__(self, matcher: Matcher):
        self.matcher = matcher

    def may_follow_up(self, job: Job) -> bool:
        return False  # no tool turn: the conversation's turns are `next_turn`'s

    def followup(self, job: Job, outcome: Outcome) -> Messages | None:
        return None

    @staticmethod
    def _user_turns(job: Job) -> list[str]:
        from mirror_hf.protocol import exp4

        t = job.context
        feedback = t["phase_b_feedback"] if job.fields["feedback"] == "true" else t["phase_b_false_feedback"]
        return [job.messages[0]["content"], exp4.build_phase_b(t["questions"]["phase_b"]), exp4.build_feedback(feedback),
                exp4.build_pair(t["questions"]["phase_c_related"], t["questions"]["phase_c_unrelated"])]

    def next_turn(self, job: Job, turns: Turns) -> Messages | None:
        users = self._user_turns(job)
        if len(turns) >= len(users):
            return None
        return [*turns[-1][0].messages, {"role": "assistant", "content": turns[-1][1].text or ""},
                {"role": "user", "content": users[len(turns)]}]

    def planned_turns(self, job: Job) -> list[Messages]:
        messages: Messages = []
        out: list[Messages] = []
        for i, content in enumerate(self._user_turns(job)):
            if i:
                messages.append({"role": "assistant", "content": ""})
            messages.append({"role": "user", "content": content})
            out.append(list(messages))
        return out

    def parsed_fields(self, job: Job, turns: Turns, error: str | None = None) -> dict[str, Any]:
        from mirror_hf.protocol import exp4

        out: dict[str, Any] = {"turns": len(turns), "conversation": json.dumps([o.text for _, o in turns], ensure_ascii=False)}
        if error is not None or len(turns) < exp4.TURNS:
            return out  # an incomplete conversation is ungraded
        qs = job.context["questions"]
        replies = [o.text for _, o in turns]
        phase_a = exp4.read_formats(replies[0], qs["phase_a"], self.matcher)
        phase_b = exp4.read_phase_b(replies[1], qs["phase_b"], self.matcher)
        sections = exp4.task_sections(replies[3] or "", 2)
        related = exp4.read_formats(sections.get(1, ""), qs["phase_c_related"], self.matcher)
        unrelated = exp4.read_formats(sections.get(2, ""), qs["phase_c_unrelated"], self.matcher)
        channels = list(exp4.CHANNELS)
        out.update(
            channels=channels,
            signal_a=[phase_a[c].get("confidence") for c in channels],
            signal_related=[related[c].get("confidence") for c in channels],
            signal_unrelated=[unrelated[c].get("confidence") for c in channels],
            correct_a=[phase_a[c].get("correct") for c in channels],
            correct_related=[related[c].get("correct") for c in channels],
            correct_unrelated=[unrelated[c].get("correct") for c in channels],
            bet_a=phase_a["wagering"].get("bet"), bet_related=related["wagering"].get("bet"),
            bet_unrelated=unrelated["wagering"].get("bet"),
            phase_b_answer=phase_b["answer"], phase_b_correct=phase_b["correct"], phase_b_approach=phase_b["approach"],
            retry_reply=replies[2],
            parse_success=all(v is not None for v in (related["wagering"].get("bet"), unrelated["wagering"].get("bet"))),
        )
        return out


def _bank(root: Path, wanted: str | None) -> tuple[str, list[dict]]:
    from mirror_hf.folder import split_files

    if wanted is not None:  # plan_for has refused a bank not in BANKS
        return wanted, read_config(root, wanted, needed_for=f"exp4 --bank {wanted}")
    present = split_files(root)
    for name in BANKS:
        if name in present:
            return name, read_config(root, name, needed_for="exp4")
    raise PlanError(f"{root} has neither {' nor '.join(BANKS)}, which exp4 needs: rebuild the folder with "
                    "`mirror-hf build`, or import the authors' templates with `mirror-hf import-upstream`")


def plan_exp4(root: Path, options: PlanOptions) -> Plan:
    from mirror_hf.protocol import exp4
    from mirror_hf.tasks.exp4 import PHASES, phase_question

    conditions = choose(options.conditions, exp4.CONDITIONS, exp4.CONDITIONS, "exp4 condition(s) (feedback)")
    bank, rows = _bank(root, options.bank)
    chosen = stratified([{**r, "id": r["trial_id"]} for r in rows], options.limit, stratum=lambda r: r["burn_domain"])
    jobs = []
    for row in chosen:
        questions = {p: phase_question(row, p) for p in PHASES}
        context = {**row, "questions": questions}
        for condition in conditions:
            fields = {"feedback": condition, "domain": row["burn_domain"], "control_domain": row["control_domain"],
                      "bank": bank, "difficulty": questions["phase_b"].difficulty}
            jobs.append(Job(row["trial_id"], fields, exp4.first_turn(questions["phase_a"]), context))
    return Plan("exp4", jobs, Exp4Recipe(options.matcher), len(chosen), [f"exp4 templates from {bank}"])


#: the trial fields a re-run record replaces an earlier one under (the last written wins)
DEDUP_KEY: tuple[str, ...] = ("item_id", "feedback", "bank")
#: the numbers `score`, the report and the exports summarise a model's exp4 by
HEADLINES: tuple[Headline, ...] = (
    Headline("exp4_ai", "exp4", "Exp4 AI", ("exp4", "ai"), "lower",
             "Adaptation Index on the wager channel: mean related - unrelated bet after true failure feedback "
             "(negative = lowered bets where burned), macro mean over burn domains"),
    Headline("exp4_sar", "exp4", "Exp4 SAR", ("exp4", "sar"), "lower",
             "Sycophancy Adaptation Ratio: AI under fabricated feedback / AI under true feedback (wager channel)"),
)


def _spec() -> Experiment:

    return Experiment(
        name="exp4",
        title="burn-and-test: a four-turn conversation per template and feedback condition",
        bank_configs=BANKS,
        trial_schema="TRIAL_EXP4_FEATURES",
        planner=plan_exp4,
        default_max_tokens=Exp4Recipe.default_max_tokens,
        scorer_ref="mirror_hf.scoring._suite:EXP4",
        dedup_key=DEDUP_KEY,
        headlines=HEADLINES,
        section="Experiment 4",
    )


EXPERIMENT = _spec()
