"""Experiment 2: cross-domain transfer (protocol §6.1): every transfer task through the five
behavioural channels and the Layer-2 self-report, one fresh call each. Channel 3 pairs the task with
its placebo copy; channel 5 runs at temperature 0.7 (the authors' setting); graded like Exp1."""

from __future__ import annotations

from pathlib import Path

from mirror_hf.experiments._channels import ChannelRecipe
from mirror_hf.experiments._spec import Experiment
from mirror_hf.headlines import Headline
from mirror_hf.runner.plan import Job, Plan, PlanError, PlanOptions, choose, read_config, stratified


class Exp2Recipe(ChannelRecipe):
    experiment = "exp2"
    default_max_tokens = 600  # spec §6.1

    def extra_fields(self, job: Job, parsed: dict) -> dict:
        if job.fields["channel"] != "layer2":
            return {}
        from mirror_hf.protocol import exp2

        return exp2.verbal_flags(parsed, job.fields["source_domain"])


def default_channels() -> tuple[str, ...]:
    from mirror_hf.protocol import exp1

    return (*exp1.behavioural_channels(), "layer2")


def text_channels() -> tuple[str, ...]:
    """The Exp1 channels read from one response's text (not the internal signals, which Exp1 runs)."""
    from mirror_hf.protocol import exp1

    return tuple(name for name, spec in exp1.CHANNELS.items() if spec.reads is None)


def plan_exp2(root: Path, options: PlanOptions) -> Plan:
    from mirror_hf.protocol import exp1, exp2

    channels = choose(options.channels, text_channels(), default_channels(), "exp2 channel(s)")
    tasks = read_config(root, "exp2_transfer", needed_for="exp2")
    chosen = stratified(tasks, options.limit, stratum=lambda t: t["source_domain"], substratum=lambda t: t["surface_domain"])
    temperature = EXPERIMENT.generation
    jobs = []
    for task in chosen:
        question = exp2.task_question(task)
        pair = exp2.placebo_pair(task)
        for name in channels:
            if name == "difficulty_selection":
                messages = exp1.build_difficulty_selection(question, pair=pair)
            else:
                build = exp1.channel(name).build
                if build is None:  # a parse-only channel: no prompt of its own
                    raise PlanError(f"channel {name} has no prompt builder; it cannot be asked in exp2")
                messages = build(question)
            fields = {
                "channel": name, "domain": task["surface_domain"], "subcategory": None, "difficulty": task.get("difficulty"),
                "surface_domain": task["surface_domain"], "source_domain": task["source_domain"],
                "hidden_dependency": task.get("hidden_dependency"),
            }
            override = temperature.get(name, {}).get("temperature")
            jobs.append(Job(task["task_id"], fields, messages, (question, pair), temperature=override))
    return Plan("exp2", jobs, Exp2Recipe(options.matcher), len(chosen))


#: the trial fields a re-run record replaces an earlier one under (the last written wins)
DEDUP_KEY: tuple[str, ...] = ("item_id", "channel")
#: the numbers `score`, the report and the exports summarise a model's exp2 by
HEADLINES: tuple[Headline, ...] = (
    Headline("exp2_tii", "exp2", "Exp2 TII", ("exp2", "tii"), "higher",
             "Transfer Influence Index: mean over channels of rho(source-domain accuracy, channel signal)"),
    Headline("exp2_verbal_transfer", "exp2", "Exp2 verbal transfer", ("exp2", "verbal_transfer"), "higher",
             "Share of Layer-2 self-reports whose sub-skills and weakest skill name the hidden source domain"),
)


def _spec() -> Experiment:
    from mirror_hf.protocol import exp2

    return Experiment(
        name="exp2",
        title="cross-domain transfer",
        bank_configs=("exp2_transfer",),
        trial_schema="TRIAL_EXP2_FEATURES",
        planner=plan_exp2,
        default_max_tokens=Exp2Recipe.default_max_tokens,
        scorer_ref="mirror_hf.scoring._suite:EXP2",
        dedup_key=DEDUP_KEY,
        headlines=HEADLINES,
        channels=text_channels(),
        default_channels=default_channels(),
        generation={"natural": {"temperature": exp2.NATURAL_TEMPERATURE}},
        section="Experiment 2",
    )


EXPERIMENT = _spec()
