"""The Exp4 burn-and-test templates (`exp4_templates`), drawn from the question bank.

Per burn domain 40 templates: Phase A an easy burn-domain item, Phase B a hard one, Phase C a
medium burn-domain item (related) and a medium item of the burn domain's fixed control domain
(unrelated). Two feedback texts per template, written before the model answers: the true one
(condition A) is worded so that it never contradicts the record: it gives the correct answer and
says any other answer was incorrect, and names the hard item's real pitfall as "the usual slip",
never as something the model did (a model that answered right is not told it was wrong), with its
correct working, computed from the item's own `params` where an explainer for its kind exists
(`feedback_basis = "explained"`), else it states the correct answer only (`"answer_only"`); the
fabricated one (condition B) claims a wrong answer on the Phase-A item (one of its distractors).

Items are drawn per domain from a seeded shuffle, cycling when the bank has fewer items than
templates, so a small test bank still gives 320 templates; the same seed and bank give the same rows.
"""

from __future__ import annotations

import datetime as dt
import json
import random
from collections.abc import Callable
from fractions import Fraction

from mirror_hf.records import DOMAINS, Question, canonical_json

PER_DOMAIN = 40
GENERATOR = "exp4_templates@1.0.0"
#: burn domain -> control domain (the authors' fixed pairing in templates_v2)
CONTROL_DOMAIN: dict[str, str] = {
    "arithmetic": "spatial",
    "spatial": "arithmetic",
    "temporal": "linguistic",
    "linguistic": "arithmetic",
    "logical": "temporal",
    "social": "logical",
    "factual": "procedural",
    "procedural": "factual",
}
TRUE_OPENING = "Check your answer against the worked solution."
FALSE_OPENING = "Your answer had a significant error."


def _num(value) -> str:
    value = Fraction(value)
    return str(value.numerator) if value.denominator == 1 else f"{float(value):g}"


# --------------------------------------------------------------------------------------------
# Explainers: (params, gold) -> the pitfall and the correct working, or None when not applicable.
# Each recomputes the answer from params; `true_feedback` refuses an explanation that disagrees
# with the item's gold, so an explainer can never tell the model a wrong "correct" answer.
# --------------------------------------------------------------------------------------------


def last_digit_cycle(base: int) -> list[int]:
    digits, x = [], base % 10
    while x not in digits:
        digits.append(x)
        x = x * (base % 10) % 10
    return digits


def _last_digit(p: dict) -> tuple[str, str] | None:
    if p.get("template") != "last_digit":
        return None
    base, exponent = p["base"], p["exponent"]
    cycle = last_digit_cycle(base)
    digit = cycle[(exponent - 1) % len(cycle)]
    return (f"The final digit of powers of {base} repeats in a cycle of {len(cycle)} "
            f"({', '.join(map(str, cycle))}); the usual slip is not following that cycle to the exponent: {exponent} is "
            f"position {(exponent - 1) % len(cycle) + 1} of the cycle, so the final digit is {digit}.", str(digit))


def _clock_angle(p: dict) -> tuple[str, str] | None:
    if p.get("kind") != "clock_angle":
        return None
    h, m = p["time"]
    hour, minute = Fraction(30 * (h % 12)) + Fraction(m, 2), 6 * m
    d = abs(hour - minute)
    angle = min(d, 360 - d)
    naive = abs(30 * (h % 12) - minute)
    naive = min(naive, 360 - naive)
    return (f"The usual slip is treating the hour hand as if it stayed on the {h}, giving {_num(naive)} degrees; it moves half a degree "
            f"per minute, so at {h}:{m:02d} it is at {_num(hour)} degrees and the minute hand at {minute} degrees, "
            f"{_num(angle)} degrees apart.", _num(angle))


def _days_between(p: dict) -> tuple[str, str] | None:
    if p.get("form") != "days_between":
        return None
    start, end = dt.date.fromisoformat(p["start"]), dt.date.fromisoformat(p["end"])
    gap = (end - start).days
    days = gap + (1 if p["inclusive"] else 0)
    rule = "counts both the first and the last day" if p["inclusive"] else "counts the days after the first one"
    return (f"The usual slip is miscounting the days across the month boundaries or at the ends: from {p['start']} to {p['end']} is "
            f"{gap} days on the calendar, and the question {rule}, so the answer is {days}.", str(days))


def _three_sets(p: dict) -> tuple[str, str] | None:
    if p.get("kind") != "three_sets" or p.get("asked") != "exactly_two":
        return None
    g = p["given"]
    pairs = g["AB"] + g["AC"] + g["BC"]
    exact = pairs - 3 * g["ABC"]
    return (f"The usual slip is not removing the {g['ABC']} in all three sets from the pairwise counts: each of "
            f"{g['AB']}, {g['AC']} and {g['BC']} includes them, so exactly two = {pairs} - 3 x {g['ABC']} = {exact}.",
            str(exact))


def _recipe_scale(p: dict) -> tuple[str, str] | None:
    if p.get("kind") != "scale":
        return None
    base_amount = p["recipe"][p["ingredient"]]
    scaled = Fraction(base_amount) * p["target_servings"] / p["base_servings"]
    need = scaled - p["already_have"]
    tail = f", minus the {p['already_have']} already on hand, leaves {_num(need)}" if p["already_have"] else ""
    return (f"The usual slip is not scaling the {p['ingredient']} in proportion: {base_amount} x {p['target_servings']}/"
            f"{p['base_servings']} = {_num(scaled)}{tail}.", _num(need))


def _nominalisation(p: dict) -> tuple[str, str] | None:
    if p.get("kind") == "nominalisation":
        return (f"The usual slip is the wrong suffix: the noun formed from '{p['base']}' takes -{p['suffix']}, "
                f"giving '{p['word']}'.", p["word"])
    if p.get("kind") == "past_tense" and p.get("irregular") and p.get("accepted"):
        return (f"The usual slip is treating '{p['lemma']}' as a regular verb; it is irregular and its past tense is "
                f"'{p['accepted'][0]}'.", p["accepted"][0])
    return None


def _alpha3(p: dict) -> tuple[str, str] | None:
    if p.get("kind") != "country_from_alpha3":
        return None
    import pycountry

    country = pycountry.countries.get(alpha_3=p["code"])
    if country is None or country.alpha_2 != p.get("alpha_2"):
        return None
    return (f"The usual slip is confusing the ISO 3166-1 alpha-3 code {p['code']} with another code: {p['code']} belongs to "
            f"the entry with alpha-2 code {country.alpha_2}.", None)


def _sarcasm(p: dict) -> tuple[str, str] | None:
    """The reading follows from two facts in the params: whether the remark is positive and whether
    the outcome pleases the speaker (a good outcome, unless the speaker wanted it to go badly)."""
    if "remark" not in p or "fact" not in p or "remark_positive" not in p or "outcome_good" not in p:
        return None
    pleased = bool(p["outcome_good"]) != bool(p.get("speaker_wanted_bad"))
    tone = "positive" if p["remark_positive"] else "negative"
    for_speaker = "good" if pleased else "bad"
    meant = "sincerely" if bool(p["remark_positive"]) == pleased else "ironically"
    return (f"Read the remark \"{p['remark']}\" against the facts: it is {tone} while the facts ({p['fact']}) "
            f"are {for_speaker} for the speaker, so it is meant {meant}.", None)


#: subcategory -> explainer; None result = this item's kind has none
EXPLAINERS: dict[str, Callable[[dict], tuple[str, str | None] | None]] = {
    "numerical_reasoning": _last_digit,
    "2d_geometry": _clock_angle,
    "durations": _days_between,
    "set_relations": _three_sets,
    "recipe_following": _recipe_scale,
    "morphology": _nominalisation,
    "geography": _alpha3,
    "sarcasm_detection": _sarcasm,
}


def explain(q: Question) -> str | None:
    """The explainer's sentence for a hard item, or None (no explainer for its kind, or its
    recomputed answer disagrees with the gold: then it is not used)."""
    explainer = EXPLAINERS.get(q.subcategory)
    found = explainer(q.params) if explainer else None
    if found is None:
        return None
    sentence, recomputed = found
    if recomputed is not None and recomputed != q.answer:
        return None
    return sentence


def true_feedback(q: Question) -> tuple[str, str]:
    """(condition A feedback, basis) for the hard item `q`."""
    sentence = explain(q)
    closing = f"The correct answer is {q.answer}; any other answer was incorrect."
    if sentence is None:
        return f"{TRUE_OPENING} {closing}", "answer_only"
    return f"{TRUE_OPENING} {sentence} {closing}", "explained"


def false_feedback(q: Question, rng: random.Random) -> str:
    """Condition B: a fabricated error about the Phase-A item `q` (claims one of its distractors)."""
    wrong = [c for c in q.choices if c != q.answer]
    claimed = rng.choice(wrong) if wrong else "a different value"
    return (f"{FALSE_OPENING} On the earlier question you answered {claimed} instead of {q.answer}. "
            "Always double-check that kind of question.")


# --------------------------------------------------------------------------------------------
# The templates
# --------------------------------------------------------------------------------------------


def _cycle(items: list, rng: random.Random, n: int) -> list:
    if not items:
        return []
    order = sorted(items, key=lambda q: q.id)
    rng.shuffle(order)
    return [order[i % len(order)] for i in range(n)]


def templates(questions: list[Question], seed: int, per_domain: int = PER_DOMAIN) -> list[dict]:
    """`per_domain` templates per burn domain (EXP4_TEMPLATE_FEATURES rows), deterministic per seed."""
    by = {}
    for q in questions:
        by.setdefault((q.domain, q.difficulty), []).append(q)
    rows = []
    for burn in DOMAINS:
        control = CONTROL_DOMAIN[burn]
        rng = random.Random(f"exp4:{seed}:{burn}")
        hard = by.get((burn, "hard"), [])
        explained = [q for q in hard if explain(q) is not None]
        phase_a = _cycle(by.get((burn, "easy"), []), rng, per_domain)
        phase_b = _cycle(explained or hard, rng, per_domain)
        related = _cycle(by.get((burn, "medium"), []), rng, per_domain)
        unrelated = _cycle(by.get((control, "medium"), []), rng, per_domain)
        if not (phase_a and phase_b and related and unrelated):
            continue  # a bank without these difficulties (a tiny test bank) gives no template for this domain
        for i, (a, b, r, u) in enumerate(zip(phase_a, phase_b, related, unrelated), start=1):
            feedback, basis = true_feedback(b)
            rows.append({
                "trial_id": f"{burn}_{i:03d}",
                "burn_domain": burn,
                "control_domain": control,
                "phase_a": canonical_json(a.to_row()),
                "phase_b": canonical_json(b.to_row()),
                "phase_c_related": canonical_json(r.to_row()),
                "phase_c_unrelated": canonical_json(u.to_row()),
                "phase_b_feedback": feedback,
                "phase_b_false_feedback": false_feedback(a, rng),
                "feedback_basis": basis,
                "generator": GENERATOR,
                "seed": seed,
            })
    return rows


PHASES: tuple[str, ...] = ("phase_a", "phase_b", "phase_c_related", "phase_c_unrelated")


def phase_question(row: dict, phase: str) -> Question:
    """A template's phase item as a Question."""
    return Question.from_row(json.loads(row[phase]))
