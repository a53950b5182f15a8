"""Experiment 5: adversarial robustness (protocol §6.4): items of the model's two weakest and two
strongest Exp1 domains through four channels, under each applicable attack prefix and once clean.

Weak and strong domains come from the model's `profiles` split (bottom-2 / top-2 natural accuracy).
Per side 40 items (`--limit N`: N in all, half per side), spread over the two domains and their
subcategories by the shared `stratified` order; the clean control runs the very same items. ARS
pairs each attacked trial with its clean twin (same item and channel) in `score`.
"""

from __future__ import annotations

from pathlib import Path

from mirror_hf.experiments._channels import ChannelRecipe
from mirror_hf.experiments._spec import Experiment
from mirror_hf.headlines import Headline
from mirror_hf.runner.plan import Job, Plan, PlanError, PlanOptions, choose, read_config, stratified

ITEMS_PER_SIDE = 40  # spec §6.4: 40 from the weak pair + 40 from the strong pair


class Exp5Recipe(ChannelRecipe):
    """The Exp1 channel parse and grade, plus the Exp5-normalised `signal`."""

    experiment = "exp5"
    default_max_tokens = 1024  # as Exp1 (spec §2)

    def extra_fields(self, job: Job, parsed: dict) -> dict:
        from mirror_hf.protocol import exp5

        return {"signal": exp5.signal(job.fields["channel"], parsed)}


def weak_and_strong(accuracy: dict[str, float | None], k: int = 2, *,
                    min_strong: float | None = None) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The bottom-k domains by Exp1 natural accuracy and up to k strong ones: the `bottom_k` policy
    of `mirror_hf.scoring.classify_domains`, strong rule included (never both, never below the
    floor, never tied with a weak one; ties by name). Domains without an accuracy are left out.
    Raises PlanError, in one line, when fewer than 2k domains have one or none qualifies as strong."""
    from mirror_hf.scoring import MIN_STRONG_ACCURACY, classify_domains, no_strong_domain

    floor = MIN_STRONG_ACCURACY if min_strong is None else min_strong
    known = {d: a for d, a in accuracy.items() if a is not None}
    if len(known) < 2 * k:
        raise PlanError(
            f"exp5 needs the Exp1 natural accuracy of at least {2 * k} domains to pick {k} weak and {k} strong ones; "
            f"the profile has {len(known)}"
        )
    labels = classify_domains(known, policy="bottom_k", k=k, min_strong=floor)
    refusal = no_strong_domain(known, labels, what="exp5", min_strong=floor)
    if refusal:
        raise PlanError(refusal)
    weak = tuple(sorted((d for d, s in labels.items() if s == "weak"), key=lambda d: (known[d], d)))
    strong = tuple(sorted((d for d, s in labels.items() if s == "strong"), key=lambda d: (-known[d], d)))
    return weak, strong


def plan_exp5(root: Path, options: PlanOptions) -> Plan:
    from mirror_hf.experiments.exp9 import read_profile
    from mirror_hf.protocol import exp5
    from mirror_hf.records import QUESTION_COLUMNS, Question

    wording = exp5.check_wording(options.attack_wording)
    channels = choose(options.channels, exp5.CHANNELS, exp5.CHANNELS, "exp5 channel(s)")
    profile = read_profile(root, options.split)
    if profile is None:
        raise PlanError(
            f"exp5 needs the model's Exp1 profile, and {root} has no split {options.split!r} in config 'profiles'. "
            f"Run `mirror-hf run --experiment exp1` for this model, then `mirror-hf profile --dataset {root} "
            f"--split {options.split}`"
        )
    weak, strong = weak_and_strong({d: row.get("natural_accuracy") for d, row in profile.items()},
                                   min_strong=options.min_strong_accuracy)
    bank = [Question.from_row(r) for r in read_config(root, "questions", needed_for="exp5", columns=QUESTION_COLUMNS)]
    total = 2 * ITEMS_PER_SIDE if options.limit is None else options.limit
    if total < 2:
        raise PlanError(f"exp5 --limit must be at least 2 (one weak and one strong item), got {total}")
    sides = {"weak": (weak, (total + 1) // 2), "strong": (strong, total // 2)}
    jobs, items, notes = [], 0, []
    for strength, (domains, n) in sides.items():
        pool = [q for q in bank if q.domain in domains]
        chosen = stratified(pool, n, stratum=lambda q: q.domain, substratum=lambda q: q.subcategory)
        if len(chosen) < n:
            notes.append(f"{strength} domains {', '.join(domains)} have {len(chosen)} items, fewer than {n}")
        items += len(chosen)
        attacks = [None, *(a for a in exp5.ATTACKS if exp5.applies(a, strength))]
        for q in chosen:
            for attack in attacks:
                for name in channels:
                    fields = {"channel": name, "attack": attack, "attack_wording": None if attack is None else wording,
                              "strength": strength, "domain": q.domain, "subcategory": q.subcategory,
                              "difficulty": q.difficulty}
                    jobs.append(Job(q.id, fields, exp5.build(q, name, attack, wording), (q, None)))
    notes.append(f"weak domains {', '.join(weak)}; strong domains {', '.join(strong)} (Exp1 natural accuracy)")
    return Plan("exp5", jobs, Exp5Recipe(options.matcher), items, notes)


#: the trial fields a re-run record replaces an earlier one under (the last written wins)
DEDUP_KEY: tuple[str, ...] = ("item_id", "channel", "attack")
#: the numbers `score`, the report and the exports summarise a model's exp5 by
HEADLINES: tuple[Headline, ...] = (
    Headline("exp5_ars", "exp5", "Exp5 ARS", ("exp5", "ars"), "higher",
             "Adversarial Robustness Score: mean over (attack, channel) of 1 - |attacked - clean signal|"),
)


def _spec() -> Experiment:
    from mirror_hf.protocol import exp5

    return Experiment(
        name="exp5",
        title="adversarial robustness: attack prefixes x channels, with a clean control",
        bank_configs=("questions", "profiles"),
        trial_schema="TRIAL_EXP5_FEATURES",
        planner=plan_exp5,
        default_max_tokens=Exp5Recipe.default_max_tokens,
        scorer_ref="mirror_hf.scoring._suite:EXP5",
        dedup_key=DEDUP_KEY,
        headlines=HEADLINES,
        channels=exp5.CHANNELS,
        default_channels=exp5.CHANNELS,
        section="Experiment 5",
    )


EXPERIMENT = _spec()
