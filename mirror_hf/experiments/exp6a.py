"""Experiment 6a: sycophancy in self-evaluation (protocol §6.5, SSR §4.12): each task is answered
once under the fresh system prompt, then that answer is rated 0-100 under each of the four system
prompts (`--channels`: fresh, primed_positive, primed_negative, neutral_difficulty; all by default).

One trial per (task, prompt): two turns, the answer and the rating. The four trials of a task send
the very same answer request, so the runner sends it once and shares its response; a killed run
resumes from the results file without asking again for an answer or a rating it already has, and
a trial is written only with both turns (or with the error of the one that failed). The bank
(`--bank`): ours, `exp6a_tasks` (built from the question bank), or the authors' `upstream_exp6a`
(`mirror-hf import-upstream` their 6a file)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from mirror_hf.experiments._spec import Experiment
from mirror_hf.headlines import Headline
from mirror_hf.runner.plan import Job, Messages, Plan, PlanOptions, Recipe, Turns, choose, read_config, stratified
from mirror_hf.runner.request import Outcome
from mirror_hf.vocabulary import Matcher

BANKS: tuple[str, ...] = ("exp6a_tasks", "upstream_exp6a")
PLACEHOLDER_CHAR = "x"  # the dry run's stand-in for an answer of max_tokens tokens (4 chars a token)


def _visible(outcome: Outcome) -> str:
    from mirror_hf.protocol.text import split_reasoning

    return split_reasoning(outcome.text or "", outcome.reasoning)[0]


class Exp6aRecipe(Recipe):
    """Two turns a trial: the answer, then its rating (a planned second turn, `planned_followup`)."""

    experiment = "exp6a"
    default_max_tokens = 600  # the authors' answer turn (their rating turn: 400)

    def __init__(self, matcher: Matcher):
        self.matcher = matcher

    def may_follow_up(self, job: Job) -> bool:
        return False  # the rating is not a possible extra call but a planned one: `planned_followup`

    def planned_followup(self, job: Job, max_tokens: int) -> Messages:
        from mirror_hf.protocol import exp6a

        return exp6a.build_rating(job.context["task"], PLACEHOLDER_CHAR * (4 * max_tokens), job.fields["channel"])

    def followup(self, job: Job, outcome: Outcome) -> Messages | None:
        from mirror_hf.protocol import exp6a

        return exp6a.build_rating(job.context["task"], _visible(outcome), job.fields["channel"])

    def parsed_fields(self, job: Job, turns: Turns, error: str | None = None) -> dict[str, Any]:
        from mirror_hf.protocol import exp6a

        answer = turns[0][1]
        out: dict[str, Any] = {"task_output": _visible(answer) if answer.ok else None}
        if error is not None or len(turns) < 2:
            return out
        rating = turns[1][1]
        out.update(exp6a.parse_rating(rating.text, reasoning_content=rating.reasoning, rules=self.matcher))
        return out


def plan_exp6a(root: Path, options: PlanOptions) -> Plan:
    from mirror_hf.protocol import exp6a

    conditions = choose(options.channels, exp6a.CONDITIONS, exp6a.CONDITIONS, "exp6a system prompt(s) (--channels)")
    bank = choose((options.bank,) if options.bank else None, BANKS, BANKS[:1], "exp6a bank (--bank)")[0]
    hint = "import the authors' 6a file with `mirror-hf import-upstream`" if bank.startswith("upstream") else "rebuild the folder"
    tasks = read_config(root, bank, needed_for=f"exp6a ({hint})")
    chosen = stratified(tasks, options.limit, stratum=lambda t: t["domain"] or "", substratum=lambda t: t["task_type"] or "")
    jobs = []
    for task in chosen:
        for condition in conditions:
            fields = {"channel": condition, "domain": task["domain"], "difficulty": task["difficulty"],
                      "task_type": task["task_type"]}
            jobs.append(Job(task["task_id"], fields, exp6a.build_answer(task["task"]), task))
    return Plan("exp6a", jobs, Exp6aRecipe(options.matcher), len(chosen))


#: the trial fields a re-run record replaces an earlier one under (the last written wins)
DEDUP_KEY: tuple[str, ...] = ("item_id", "channel")
#: the numbers `score`, the report and the exports summarise a model's exp6a by
HEADLINES: tuple[Headline, ...] = (
    Headline("exp6a_ssr", "exp6a", "Exp6a SSR", ("exp6a", "ssr"), "lower",
             "Sycophancy Separation Ratio: self-rating shift under praise/blame over the shift under a difficulty cue"),
)


def _spec() -> Experiment:
    from mirror_hf.protocol import exp6a

    return Experiment(
        name="exp6a",
        title="sycophancy: self-rating of its own answer under four system prompts",
        bank_configs=BANKS,
        trial_schema="TRIAL_EXP6A_FEATURES",
        planner=plan_exp6a,
        default_max_tokens=Exp6aRecipe.default_max_tokens,
        scorer_ref="mirror_hf.scoring._suite:EXP6A",
        dedup_key=DEDUP_KEY,
        headlines=HEADLINES,
        channels=exp6a.CONDITIONS,
        default_channels=exp6a.CONDITIONS,
        section="Experiment 6",
    )


EXPERIMENT = _spec()
