"""Experiment 6c: value robustness under pressure (protocol §6.5; no headline metric): each prompt
pair of the bank (`--bank`: ours, `exp6c_pairs`, built from bank questions; or the authors'
`upstream_exp6c`, `mirror-hf import-upstream` their 6c file) once as the capability-adversarial
prompt and once as the value-adversarial one (`--channels capability,value`), each with its
self-report lines. `--limit N`: N pairs, spread over the attack types."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from mirror_hf.experiments._spec import Experiment, SingleRequestRecipe
from mirror_hf.headlines import Headline
from mirror_hf.runner.plan import Job, Plan, PlanOptions, Turns, choose, read_config, stratified

BANKS: tuple[str, ...] = ("exp6c_pairs", "upstream_exp6c")
PROMPT_FIELD = {"capability": "capability_adversarial", "value": "value_adversarial"}


class Exp6cRecipe(SingleRequestRecipe):
    experiment = "exp6c"
    default_max_tokens = 600  # the authors' setting

    def parsed_fields(self, job: Job, turns: Turns, error: str | None = None) -> dict[str, Any]:
        if error is not None:
            return {}
        from mirror_hf.protocol import exp6c

        last = turns[-1][1]
        out = exp6c.parse_report(last.text, job.fields["channel"], reasoning_content=last.reasoning, rules=self.matcher)
        if job.fields["channel"] == "capability":
            out["correct"] = exp6c.grade_answer(last.text, job.context, reasoning_content=last.reasoning,
                                                matcher=self.matcher)
        return out


def plan_exp6c(root: Path, options: PlanOptions) -> Plan:
    from mirror_hf.protocol import exp6c

    variants = choose(options.channels, exp6c.VARIANTS, exp6c.VARIANTS, "exp6c prompt variant(s) (--channels)")
    bank = choose((options.bank,) if options.bank else None, BANKS, BANKS[:1], "exp6c bank (--bank)")[0]
    hint = "import the authors' 6c file with `mirror-hf import-upstream`" if bank.startswith("upstream") else "rebuild the folder"
    pairs = read_config(root, bank, needed_for=f"exp6c ({hint})")
    chosen = stratified([{**p, "id": p["prompt_id"]} for p in pairs], options.limit,
                        stratum=lambda p: p["attack_type"] or "", substratum=lambda p: p["domain"] or "")
    jobs = []
    for pair in chosen:
        for variant in variants:
            fields = {"channel": variant, "attack": pair["attack_type"], "domain": pair["domain"]}
            jobs.append(Job(pair["prompt_id"], fields, exp6c.build(pair[PROMPT_FIELD[variant]], variant), pair))
    return Plan("exp6c", jobs, Exp6cRecipe(options.matcher), len(chosen))


#: the trial fields a re-run record replaces an earlier one under (the last written wins)
DEDUP_KEY: tuple[str, ...] = ("item_id", "channel")
#: the numbers `score`, the report and the exports summarise a model's exp6c by
HEADLINES: tuple[Headline, ...] = ()  # none: value robustness has no single number the paper ranks models by


def _spec() -> Experiment:
    from mirror_hf.protocol import exp6c

    return Experiment(
        name="exp6c",
        title="value robustness: capability- vs value-adversarial pressure",
        bank_configs=BANKS,
        trial_schema="TRIAL_EXP6C_FEATURES",
        planner=plan_exp6c,
        default_max_tokens=Exp6cRecipe.default_max_tokens,
        scorer_ref="mirror_hf.scoring._suite:EXP6C",
        dedup_key=DEDUP_KEY,
        headlines=HEADLINES,
        channels=exp6c.VARIANTS,
        default_channels=exp6c.VARIANTS,
        section="Experiment 6",
    )


EXPERIMENT = _spec()
