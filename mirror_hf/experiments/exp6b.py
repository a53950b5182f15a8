"""Experiment 6b: flawed-premise detection (protocol §6.5): each flawed instruction and each
well-formed control of the bank once per protocol: `label` (default: the model labels its own
response type on its first line) and `keyword` (the authors' original run, read by their phrase
heuristic). The bank (`--bank`) is ours, `exp6b_flawed` (built, flaws checkable from bank items),
or the authors' `upstream_exp6b` (`mirror-hf import-upstream` their 6b files)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from mirror_hf.experiments._spec import Experiment, SingleRequestRecipe
from mirror_hf.headlines import Headline
from mirror_hf.runner.plan import Job, Plan, PlanOptions, Turns, choose, read_config, stratified

BANKS: tuple[str, ...] = ("exp6b_flawed", "upstream_exp6b")


class Exp6bRecipe(SingleRequestRecipe):
    experiment = "exp6b"
    default_max_tokens = 700  # the authors' label run (their keyword run used 500)

    def parsed_fields(self, job: Job, turns: Turns, error: str | None = None) -> dict[str, Any]:
        if error is not None:
            return {}
        from mirror_hf.protocol import exp6b

        last = turns[-1][1]
        if job.fields["channel"] == "keyword":
            return exp6b.classify_keywords(last.text)
        return exp6b.parse_label(last.text, reasoning_content=last.reasoning, rules=self.matcher)


def plan_exp6b(root: Path, options: PlanOptions) -> Plan:
    from mirror_hf.protocol import exp6b

    protocols = choose(options.channels, exp6b.PROTOCOLS, ("label",), "exp6b protocol(s) (--channels)")
    bank = choose((options.bank,) if options.bank else None, BANKS, BANKS[:1], "exp6b bank (--bank)")[0]
    hint = "import the authors' 6b files with `mirror-hf import-upstream`" if bank.startswith("upstream") else "rebuild the folder"
    tasks = read_config(root, bank, needed_for=f"exp6b ({hint})")
    chosen = stratified(tasks, options.limit, stratum=lambda t: "flawed" if t["is_flawed"] else "control",
                        substratum=lambda t: t["category"] or "")
    jobs = []
    for task in chosen:
        for protocol in protocols:
            fields = {"channel": protocol, "is_flawed": task["is_flawed"], "category": task["category"],
                      "matched_flaw_id": task["matched_flaw_id"], "domain": task["domain"]}
            jobs.append(Job(task["task_id"], fields, exp6b.build(task["prompt"], protocol), task))
    return Plan("exp6b", jobs, Exp6bRecipe(options.matcher), len(chosen))


#: the trial fields a re-run record replaces an earlier one under (the last written wins)
DEDUP_KEY: tuple[str, ...] = ("item_id", "channel")
#: the numbers `score`, the report and the exports summarise a model's exp6b by
HEADLINES: tuple[Headline, ...] = (
    Headline("exp6b_fdr", "exp6b", "Exp6b FDR", ("exp6b", "fdr"), "higher",
             "Flaw Detection Rate: share of answered flawed instructions the model flagged (RESPONSE_TYPE label)"),
)


def _spec() -> Experiment:
    from mirror_hf.protocol import exp6b

    return Experiment(
        name="exp6b",
        title="flawed-premise detection",
        bank_configs=BANKS,
        trial_schema="TRIAL_EXP6B_FEATURES",
        planner=plan_exp6b,
        default_max_tokens=Exp6bRecipe.default_max_tokens,
        scorer_ref="mirror_hf.scoring._suite:EXP6B",
        dedup_key=DEDUP_KEY,
        headlines=HEADLINES,
        channels=exp6b.PROTOCOLS,
        default_channels=("label",),
        section="Experiment 6",
    )


EXPERIMENT = _spec()
