"""Experiment 1: every bank question through the five behavioural channels (and, on request, the
layer-2 self-report and the format-matched control), one fresh call each (protocol §2)."""

from __future__ import annotations

from pathlib import Path

from mirror_hf.experiments._channels import ChannelRecipe
from mirror_hf.experiments._spec import Experiment
from mirror_hf.headlines import Headline
from mirror_hf.runner.plan import Job, Plan, PlanError, PlanOptions, choose, read_config, stratified


class Exp1Recipe(ChannelRecipe):
    """Each channel's response to its parser and grader; the tool channel may add a turn."""

    experiment = "exp1"
    default_max_tokens = 1024  # spec §2 (layer 2 used 1536 upstream)


def plan_exp1(root: Path, options: PlanOptions) -> Plan:
    from dataclasses import replace

    from mirror_hf.protocol import exp1
    from mirror_hf.protocol.formats import question_as_asked
    from mirror_hf.protocol.internal import TOP_LOGPROBS, job_settings
    from mirror_hf.protocol.pairing import difficulty_pairs, pair_for_each_question
    from mirror_hf.records import QUESTION_COLUMNS, Question

    channels = choose(options.channels, tuple(exp1.CHANNELS), exp1.behavioural_channels(), "channel(s)")
    bank = [Question.from_row(r) for r in read_config(root, "questions", needed_for="exp1", columns=QUESTION_COLUMNS)]
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
                build = exp1.channel(name).build
                if build is None:  # a parse-only channel: no prompt of its own
                    raise PlanError(f"channel {name} has no prompt builder; it cannot be asked in exp1")
                messages = build(q)
            fields = {"channel": name, "domain": q.domain, "subcategory": q.subcategory, "difficulty": q.difficulty,
                      "answer_format": fmt}
            body, temperature = job_settings(name, options.samples, options.sample_temperature)
            jobs.append(Job(q.id, fields, messages, (q, pair), temperature=temperature, body=body))
    notes = []
    if unpaired:
        notes.append(f"{unpaired} item(s) have no difficulty-selection pair (medium items, or a domain without "
                     "easy and hard items) and get no difficulty_selection trial")
    manifest = {}
    if "consistency" in channels:
        manifest["consistency"] = {"samples": options.samples, "temperature": options.sample_temperature}
    if "logprob" in channels:
        manifest["logprob"] = {"top_logprobs": TOP_LOGPROBS}
    return Plan("exp1", jobs, Exp1Recipe(options.matcher), len(chosen), notes, manifest=manifest)


#: the trial fields a re-run record replaces an earlier one under (the last written wins)
DEDUP_KEY: tuple[str, ...] = ("item_id", "channel")
#: the numbers `score`, the report and the exports summarise a model's exp1 by
HEADLINES: tuple[Headline, ...] = (
    Headline("exp1_natural_accuracy", "exp1", "Exp1 natural accuracy", ("exp1", "natural_accuracy"), "higher",
             "Exp1 natural-channel accuracy, macro mean over domains"),
    Headline("exp1_wagering_accuracy", "exp1", "Exp1 wagering accuracy", ("exp1", "wagering_accuracy"), "higher",
             "Exp1 wagering-channel accuracy, macro mean over domains"),
    Headline("exp1_mirror_gap", "exp1", "Mirror gap", ("exp1", "mirror_gap"), "lower",
             "Mirror gap: mean over domains of |wagering - natural accuracy|"),
    Headline("exp1_mci", "exp1", "MCI", ("exp1", "mci"), "higher",
             "Metacognitive Convergence Index: mean pairwise Spearman rho of the behavioural channels"),
)


def _spec() -> Experiment:
    from mirror_hf.protocol import exp1

    return Experiment(
        name="exp1",
        title="questions x behavioural channels",
        bank_configs=("questions",),
        trial_schema="TRIAL_EXP1_FEATURES",
        planner=plan_exp1,
        default_max_tokens=Exp1Recipe.default_max_tokens,
        scorer_ref="mirror_hf.scoring._suite:EXP1",
        dedup_key=DEDUP_KEY,
        headlines=HEADLINES,
        channels=tuple(exp1.CHANNELS),
        default_channels=exp1.behavioural_channels(),
        section="Experiment 1",
    )


EXPERIMENT = _spec()
