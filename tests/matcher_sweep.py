"""The grader invariant over every item of every bank (tests only; issue: "readings you can trust").

`bank_items(seed)` flattens each built bank into `Gradable`s: the Exp1 questions, the Exp2 transfer
tasks, the Exp3 composites and both their components, the Exp9 fixed parts and tailored parts. For
each, `violations(item)` lists every way the strict grader disagrees with the item's own key:

- through `match` (matcher="strict"): the gold, each alias, the gold's letter and "<letter>) <gold>"
  must grade correct; every distractor and its letter must grade wrong;
- through the parser and grader of each channel the item is asked on: a response "ANSWER: <gold>"
  (in the channel's own format) and the gold stated inside natural-channel prose must grade correct.

The responses are written here from the channels' instructions, not taken from the parsers.
"""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import dataclass, replace
from functools import cache
from typing import Callable, Iterable

from mirror_hf.protocol import exp1, exp3, exp9
from mirror_hf.protocol.matching import match
from mirror_hf.protocol.pairing import DifficultyPair
from mirror_hf.records import CHOICE_LETTERS, DOMAINS, Question

SEEDS = (0, 1)

# How a person states a final answer in prose (the natural channel, Exp3's answer call, Exp9 P1).
PROSE: tuple[Callable[[str], str], ...] = (
    lambda g: f"Let me work through this carefully.\n\nSo the answer is {g}",
    lambda g: f"Having checked each step, I am fairly sure the answer is: {g}",
    lambda g: f"**{g}**\n\nThat is what the question's conditions leave, once each one is applied in turn.",
    lambda g: g,  # the answer repeated verbatim, nothing else
)


@dataclass(frozen=True)
class Gradable:
    """One gradeable unit of a bank, with what the grader needs and how it is asked."""

    bank: str  # questions / exp2_transfer / exp3_composite / exp3_component_a / ... / exp9_fixed.a ...
    id: str
    subcategory: str
    answer: str
    answer_type: str
    aliases: tuple[str, ...]
    choices: tuple[str, ...]
    channels: Callable[["Gradable", str], Iterable[tuple[str, bool | None]]]  # response -> verdicts
    source: object = None  # the record it came from (question, task dict)


# ------------------------------------------------------------------------------------------
# Items
# ------------------------------------------------------------------------------------------


@cache
def built(seed: int, per_domain: int | None = None) -> dict:
    """Every bank of one form, as `mirror-hf build` draws them (per_domain None = the default)."""
    from forms import form

    from mirror_hf.bank import DEFAULT_PER_DOMAIN, generate_bank
    from mirror_hf.bank._core import normalise_text
    from mirror_hf.tasks.exp2 import transfer_tasks
    from mirror_hf.tasks.exp3 import composite_tasks
    from mirror_hf.tasks.exp9 import fixed_tasks, tailored_tasks

    questions = form(seed) if per_domain in (None, DEFAULT_PER_DOMAIN) else generate_bank(seed, per_domain)
    domains = list(DOMAINS)
    avoid = {normalise_text(q.question) for q in questions}
    fixed = fixed_tasks(seed, domains, avoid=set(avoid))
    used = avoid | {normalise_text(t[f"part{i}_text"].rsplit("\nA) ", 1)[0]) for t in fixed for i in (1, 2)}
    labels = {d: ("strong" if i % 2 == 0 else "weak") for i, d in enumerate(domains)}
    tailored = tailored_tasks("sweep-model", "sweep_model", labels, "sweep", seed=seed, avoid=used)
    return {
        "questions": questions,
        "exp2_transfer": transfer_tasks(seed, domains),
        "exp3_composite": composite_tasks(seed, domains),
        "exp9_fixed": fixed,
        "exp9_tailored": tailored,
    }


def _exp1_question(q: Question) -> Question:
    return q


def _exp2_question(task: dict) -> Question:
    return Question(
        id=task["task_id"], domain=task["surface_domain"], subcategory=f"exp2.{task['source_domain']}",
        difficulty=task["difficulty"], question=task["task_text"], choices=tuple(task["choices"]),
        answer=task["answer"], answer_type=task["answer_type"], aliases=tuple(task["aliases"]),
        generator=task["generator"], seed=task["seed"],
    )


def bank_items(seed: int, per_domain: int | None = None) -> list[Gradable]:
    banks = built(seed, per_domain)
    out: list[Gradable] = []
    for q in banks["questions"]:
        out.append(_from_question("questions", q, q.subcategory))
    for task in banks["exp2_transfer"]:
        q = _exp2_question(task)
        out.append(_from_question("exp2_transfer", q, f"{task['source_domain']}>{task['surface_domain']}"))
    for task in banks["exp3_composite"]:
        for target in exp3.TARGETS:
            field = exp3._field(task, target)
            sub = task["stratum"] if target == "composite" else task[target]["subcategory"]
            out.append(Gradable(
                f"exp3_{target}", f"{task['task_id']}:{target}", sub, field["answer"], field["answer_type"],
                tuple(field["aliases"]), tuple(field["choices"]), _exp3_channels, (task, target),
            ))
    for config in ("exp9_fixed", "exp9_tailored"):
        for task in banks[config]:
            for slot in "ab":
                out.append(Gradable(
                    f"{config}.{slot}", f"{task['task_id']}:{slot}", task[f"subcategory_{slot}"],
                    task[f"correct_answer_{slot}"], task[f"answer_type_{slot}"], tuple(task[f"aliases_{slot}"]),
                    tuple(task[f"choices_{slot}"]), _exp9_channels, (task, slot),
                ))
    return out


def _from_question(bank: str, q: Question, subcategory: str) -> Gradable:
    return Gradable(bank, q.id, subcategory, q.answer, q.answer_type, q.aliases, q.choices, _exp1_channels, q)


def stratified_sample(items: list[Gradable], per_cell: int, seed: int = 0) -> list[Gradable]:
    """`per_cell` items of every (bank, subcategory, answer type) cell, drawn at random."""
    cells: dict[tuple, list[Gradable]] = {}
    for it in items:
        cells.setdefault((it.bank, it.subcategory, it.answer_type), []).append(it)
    rng = random.Random(seed)
    return [it for key in sorted(cells) for it in rng.sample(cells[key], min(per_cell, len(cells[key])))]


# ------------------------------------------------------------------------------------------
# Channels: responses written in each channel's format, graded by its own parser and grader
# ------------------------------------------------------------------------------------------


def _exp1_channels(item: Gradable, gold: str):
    q: Question = item.source
    other = replace(q, id=q.id + ".other", question="Another task.")
    pair = DifficultyPair("sweep.pair", q.domain, easy=other, hard=q)
    responses = {
        "wagering": f"ANSWER: {gold}\nBET: 7",
        "opt_out": f"ANSWER: {gold}",
        "difficulty_selection": f"CHOICE: A\nANSWER: {gold}",
        "tool_delegation": f"ANSWER: {gold}",
        "layer2": f"CONFIDENCE: 70\nSUB_SKILLS: reading\nWEAKEST_SKILL: reading\nVERIFY: no\nAPPROACH: direct-solve\n\nANSWER: {gold}",
        "structured_control": f"ANSWER: {gold}\nCONFIDENCE: 7",
        "natural": f"ANSWER: {gold}",
    }
    for name, text in responses.items():
        parsed = exp1.parse(name, text)
        yield f"{name} ANSWER:", exp1.grade(parsed, q, "strict", pair=pair)["correct"]
    for i, prose in enumerate(PROSE):
        parsed = exp1.parse("natural", prose(gold))
        yield f"natural prose {i}", exp1.grade(parsed, q, "strict")["correct"]


def _exp3_channels(item: Gradable, gold: str):
    task, target = item.source
    parsed = exp3.parse_answer(f"ANSWER: {gold}")
    yield "exp3 answer ANSWER:", exp3.grade(parsed, task, target)["correct"]
    if target == "composite":
        parsed = exp3.parse_upstream_layer2(f"CONFIDENCE: 60\nANSWER: {gold}")
        yield "exp3 layer2 ANSWER:", exp3.grade(parsed, task, target)["correct"]
    for i, prose in enumerate(PROSE):
        parsed = exp3.parse_answer(prose(gold))
        yield f"exp3 answer prose {i}", exp3.grade(parsed, task, target)["correct"]


def _exp9_channels(item: Gradable, gold: str):
    task, slot = item.source
    other = task[f"correct_answer_{'b' if slot == 'a' else 'a'}"]
    a, b = (gold, other) if slot == "a" else (other, gold)
    responses = {
        "P1 ANSWER:": f"PART 1:\nI worked it out.\nANSWER: {a}\n\nPART 2:\nI worked it out.\nANSWER: {b}",
        "P2": (f"STEP 1\nYOUR DECISION: PROCEED\nYOUR WORK: done\nYOUR ANSWER: {a}\n\n"
               f"STEP 2\nYOUR DECISION: PROCEED\nYOUR WORK: done\nYOUR ANSWER: {b}"),
        "P3": f"REASONING 1: done\nANSWER 1: {a}\n\nREASONING 2: done\nANSWER 2: {b}",
    }
    for i, prose in enumerate(PROSE[:3]):
        responses[f"P1 prose {i}"] = f"PART 1\n{prose(a)}\n\nPART 2\n{prose(b)}"
    for name, text in responses.items():
        paradigm = name[:2]
        parsed = exp9.parse_exp9(text, paradigm, task)
        yield f"exp9 {name}", exp9.grade_exp9(parsed, task)[f"component_{slot}_correct"]


# ------------------------------------------------------------------------------------------
# The invariant
# ------------------------------------------------------------------------------------------


def violations(item: Gradable) -> list[str]:
    """Every disagreement between the strict grader and the item's key (empty: the item is sound)."""
    out = []

    def grade(pred: str) -> bool | None:
        return match(pred, item.answer, item.answer_type, item.aliases, item.choices, matcher="strict")

    must_accept = [("gold", item.answer)] + [(f"alias {a!r}", a) for a in item.aliases]
    must_reject = []
    if item.choices:
        gold_letter = CHOICE_LETTERS[item.choices.index(item.answer)]
        must_accept += [("gold letter", gold_letter), ("letter) gold", f"{gold_letter}) {item.answer}")]
        for letter, choice in zip(CHOICE_LETTERS, item.choices):
            if choice != item.answer:
                must_reject += [(f"distractor {choice!r}", choice), (f"distractor letter {letter}", letter)]
    for what, pred in must_accept:
        if grade(pred) is not True:
            out.append(f"match rejects the {what}")
    for what, pred in must_reject:
        if grade(pred) is not False:
            out.append(f"match accepts the {what}")
    for where, verdict in item.channels(item, item.answer):
        if verdict is not True:
            out.append(f"{where} grades the gold {verdict}")
    return out


def upstream_distractor_acceptance(items: Iterable[Gradable]) -> tuple[int, int, Counter]:
    """(accepted, distractors, accepted per bank) under the authors' lenient matcher."""
    accepted = total = 0
    per_bank: Counter = Counter()
    for item in items:
        for choice in item.choices:
            if choice == item.answer:
                continue
            total += 1
            if match(choice, item.answer, item.answer_type, item.aliases, item.choices, matcher="upstream") is True:
                accepted += 1
                per_bank[item.bank] += 1
    return accepted, total, per_bank


# ------------------------------------------------------------------------------------------
# Two answers in one response (issue 29): correct only when both are
# ------------------------------------------------------------------------------------------

# (name, response of a distractor d and the gold g): the five forms, and "either d or g".
TWO_ANSWER_FORMS: tuple[tuple[str, Callable[[str, str], str]], ...] = (
    ("A) d\\nB) g", lambda d, g: f"A) {d}\nB) {g}"),
    ("g\\nd", lambda d, g: f"{g}\n{d}"),
    ("d\\ng", lambda d, g: f"{d}\n{g}"),
    ("d or g", lambda d, g: f"{d} or {g}"),
    ("g or d", lambda d, g: f"{g} or {d}"),
    ("either g or d", lambda d, g: f"Either {g} or {d}."),
)
SINGLE_LINE_FORMS = ("d or g", "g or d", "either g or d")  # the forms an `ANSWER:` line can hold


def distractor(item: Gradable) -> str | None:
    """A choice the key says is wrong on its own (the first one), or None for an item without choices."""
    for choice in item.choices:
        if choice != item.answer and match(choice, item.answer, item.answer_type, item.aliases, item.choices) is False:
            return choice
    return None


def _channel_verdicts(item: Gradable, text: str, single_line: bool):
    """(where, verdict) of one response through `match` and every channel's parser and grader: the
    natural channel and Exp3's answer call take it as the whole response, the labelled channels as
    their `ANSWER:` value (single-line forms), Exp9 as a part's prose."""
    yield "match", match(text, item.answer, item.answer_type, item.aliases, item.choices, matcher="strict")
    if item.channels is _exp1_channels:
        q: Question = item.source
        yield "natural", exp1.grade(exp1.parse("natural", text), q, "strict")["correct"]
        if single_line:
            for name, response in (("wagering", f"ANSWER: {text}\nBET: 7"), ("opt_out", f"ANSWER: {text}"),
                                   ("structured_control", f"ANSWER: {text}\nCONFIDENCE: 7")):
                yield name, exp1.grade(exp1.parse(name, response), q, "strict")["correct"]
    elif item.channels is _exp3_channels:
        task, target = item.source
        yield "exp3 answer", exp3.grade(exp3.parse_answer(text), task, target)["correct"]
        if single_line:
            yield "exp3 answer ANSWER:", exp3.grade(exp3.parse_answer(f"ANSWER: {text}"), task, target)["correct"]
    else:
        task, slot = item.source
        other = task[f"correct_answer_{'b' if slot == 'a' else 'a'}"]
        a, b = (text, other) if slot == "a" else (other, text)
        parsed = exp9.parse_exp9(f"PART 1\n{a}\n\nPART 2\n{b}", "P1", task)
        yield "exp9 P1", exp9.grade_exp9(parsed, task)[f"component_{slot}_correct"]
        if single_line:
            parsed = exp9.parse_exp9(f"REASONING 1: done\nANSWER 1: {a}\n\nREASONING 2: done\nANSWER 2: {b}", "P3", task)
            yield "exp9 P3 ANSWER:", exp9.grade_exp9(parsed, task)[f"component_{slot}_correct"]


def two_answer_verdicts(item: Gradable):
    """(form, where, verdict) for each two-answer form of a distractor and the gold, everywhere."""
    d = distractor(item)
    if d is None:
        return
    for name, form in TWO_ANSWER_FORMS:
        for where, verdict in _channel_verdicts(item, form(d, item.answer), name in SINGLE_LINE_FORMS):
            yield name, where, verdict


def gold_twice_forms(item: Gradable) -> list[tuple[str, str, bool]]:
    """(name, response, single line) of responses that state the gold twice, or the gold and an
    alias: they list one answer, and grade right."""
    g = item.answer
    out = [("g\\ng", f"{g}\n{g}", False), ("g or g", f"{g} or {g}", True)]
    if item.choices:
        letter = CHOICE_LETTERS[item.choices.index(g)]
        out.append(("L) g\\ng", f"{letter}) {g}\n{g}", False))
    out += [(f"g\\nalias {a!r}", f"{g}\n{a}", False) for a in item.aliases if "\n" not in a]
    return out


def two_answer_violations(item: Gradable) -> list[str]:
    """Every place a two-answer response of a distractor and the gold grades other than wrong, or a
    response stating the gold twice (or with an alias) grades other than right."""
    out = [f"{where} grades {form!r} {verdict}" for form, where, verdict in two_answer_verdicts(item) if verdict is not False]
    for name, text, single in gold_twice_forms(item):
        out += [f"{where} grades {name!r} {verdict}" for where, verdict in _channel_verdicts(item, text, single) if verdict is not True]
    return out
