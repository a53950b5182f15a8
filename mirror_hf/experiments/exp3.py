"""Experiment 3: compositional self-prediction (protocol §6.2): each composite task and its two
components, asked for a confidence and answered in separate fresh calls (or, as the authors' v2
did, in one `layer2` call)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from mirror_hf.experiments._spec import Experiment, SingleRequestRecipe
from mirror_hf.headlines import Headline
from mirror_hf.runner.plan import Job, Plan, PlanOptions, Turns, choose, read_config, stratified

EXP3_DEFAULT_CHANNELS = ("self_prediction", "answer")


class Exp3Recipe(SingleRequestRecipe):
    experiment = "exp3"
    default_max_tokens = 350  # spec §6.2 (v2)

    def parsed_fields(self, job: Job, turns: Turns, error: str | None = None) -> dict[str, Any]:
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

    channels = choose(options.channels, exp3.CHANNELS, EXP3_DEFAULT_CHANNELS, "exp3 channel(s)")
    from mirror_hf.protocol.formats import exp3_task_as_asked

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
                }
                jobs.append(Job(task["task_id"], fields, messages, task))
    return Plan("exp3", jobs, Exp3Recipe(options.matcher), len(chosen))


#: the trial fields a re-run record replaces an earlier one under (the last written wins)
DEDUP_KEY: tuple[str, ...] = ("item_id", "channel", "target")
#: the numbers `score`, the report and the exports summarise a model's exp3 by
HEADLINES: tuple[Headline, ...] = (
    Headline("exp3_cce", "exp3", "Exp3 CCE", ("exp3", "cce"), "lower", "Compositional Calibration Error (variant as scored)"),
)


def _spec() -> Experiment:
    from mirror_hf.protocol import exp3

    return Experiment(
        name="exp3",
        title="composite self-prediction",
        bank_configs=("exp3_composite",),
        trial_schema="TRIAL_EXP3_FEATURES",
        planner=plan_exp3,
        default_max_tokens=Exp3Recipe.default_max_tokens,
        scorer_ref="mirror_hf.scoring._suite:EXP3",
        dedup_key=DEDUP_KEY,
        headlines=HEADLINES,
        channels=exp3.CHANNELS,
        default_channels=EXP3_DEFAULT_CHANNELS,
        section="Experiment 3",
    )


EXPERIMENT = _spec()
