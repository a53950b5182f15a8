"""The machinery every domain shares: registering subcategory generators, turning what they draw
into Questions (ids, seeded choice order, balanced answer positions), and the build-time gates.

A subcategory generator is a small function `(rng, difficulty) -> Item` that *computes* its gold
answer and returns three plausible wrong answers built from the errors a person would make. It
never sees ids, seeds or choice order: those are the bank's job, so every domain gets them right
the same way.
"""

from __future__ import annotations

import random
from typing import Iterator

from mirror_hf.bank._balance import DRAWS, TOLERANCE, CueBalance
from mirror_hf.bank._items import (  # noqa: F401  (re-exported: the generators and tasks import them from here)
    CHOICE_CHARS,
    MAX_ATTEMPTS,
    QUESTION_CHARS,
    Domain,
    GateError,
    Item,
    Subcategory,
    item_rng,
    normalise_text,
    reads_as_letter,
    scenario_counts,
    scenario_key,
)
from mirror_hf.records import CHOICE_LETTERS, DIFFICULTIES, Question, canonical_json


def split_evenly(total: int, parts: int, rotate: int = 0) -> list[int]:
    """`total` split into `parts` near-equal counts; the larger shares start at offset `rotate`."""
    base, extra = divmod(total, parts)
    counts = [base] * parts
    for k in range(extra):
        counts[(rotate + k) % parts] += 1
    return counts


def block_counts(n_items: int, subcategories: list[str]) -> dict[tuple[str, str], int]:
    """How many items each (subcategory, difficulty) block gets, balanced both ways."""
    out: dict[tuple[str, str], int] = {}
    per_sub = split_evenly(n_items, len(subcategories))
    for s, (sub, n_sub) in enumerate(zip(subcategories, per_sub)):
        for diff, n in zip(DIFFICULTIES, split_evenly(n_sub, len(DIFFICULTIES), rotate=s)):
            out[(sub, diff)] = n
    return out


def check_item(item: Item, where: str) -> None:
    """Gates that look at one item alone."""
    if not (QUESTION_CHARS[0] <= len(item.question) <= QUESTION_CHARS[1]):
        raise GateError(f"{where}: question length {len(item.question)} outside {QUESTION_CHARS}")
    if len(item.distractors) != 3:
        raise GateError(f"{where}: needs exactly 3 distractors, got {len(item.distractors)}")
    choices = (item.answer, *item.distractors)
    for c in choices:
        if not isinstance(c, str) or not (CHOICE_CHARS[0] <= len(c) <= CHOICE_CHARS[1]):
            raise GateError(f"{where}: choice {c!r} is not a string of length {CHOICE_CHARS}")
    answer_norm = normalise_text(item.answer)
    if any(normalise_text(d) == answer_norm for d in item.distractors):
        raise GateError(f"{where}: a distractor equals the answer {item.answer!r}")
    if len({normalise_text(c) for c in choices}) != 4:
        raise GateError(f"{where}: choices are not distinct: {choices}")
    if any(normalise_text(a) in {normalise_text(d) for d in item.distractors} for a in item.aliases):
        raise GateError(f"{where}: an alias of the answer is also a distractor")


def generate_domain(domain: Domain, seed: int, n_items: int) -> Iterator[Question]:
    """Yield `n_items` Questions of one domain, balanced over subcategories and difficulties.

    Each block's answer positions are a seeded shuffle of A-D repeated, so positions are balanced to
    within one item per block while their order stays unpredictable.
    """
    subs = list(domain.subcategories)
    seen: set[str] = set()
    seen_params: set[tuple[str, str]] = set()  # items whose generator parameters coincide are one item
    seen_facts: set[str] = set()
    balance = {sub: CueBalance() for sub in subs}
    for (sub, diff), n in block_counts(n_items, subs).items():
        spec = domain.subcategories[sub]
        positions = [k % 4 for k in range(n + (-n) % 4)]
        item_rng(seed, domain.name, sub, diff, "positions").shuffle(positions)
        for i in range(n):
            where = f"{domain.name}.{sub}.{diff}[{i}]"
            # the first new draw that keeps the form's test-wise cues at chance (see bank/_balance.py),
            # else the new draw among the first DRAWS that tips them least
            best = None
            unique = 0
            for attempt in range(MAX_ATTEMPTS):
                rng = item_rng(seed, domain.name, sub, diff, i, attempt)
                item = spec.generate(rng, diff)
                check_item(item, where)
                key = normalise_text(item.question)
                pkey = (sub, canonical_json(item.params))
                if key not in seen and pkey not in seen_params and seen_facts.isdisjoint(item.facts):
                    unique += 1
                    cost, credits = balance[sub].cost(item)
                    if best is None or cost < best[0]:
                        best = (cost, item, rng, key, pkey, credits)
                    if cost <= TOLERANCE or unique >= DRAWS:
                        break
            if best is None:
                raise GateError(f"{where}: no new item (text, parameters or fact) after {MAX_ATTEMPTS} draws (duplicates)")
            _, item, rng, key, pkey, credits = best
            balance[sub].add(item, credits)
            seen.add(key)
            seen_params.add(pkey)
            seen_facts.update(item.facts)
            yield to_question(
                item,
                domain=domain.name,
                subcategory=sub,
                difficulty=diff,
                generator=domain.generator_tag(sub),
                qid=f"{domain.name}.{sub}.{diff}.{i:03d}.s{seed}",
                seed=seed,
                position=positions[i],
                rng=rng,
            )


def to_question(item: Item, *, domain: str, subcategory: str, difficulty: str, generator: str,
                qid: str, seed: int, position: int, rng: random.Random) -> Question:
    """A full Question from a generator's Item: gates checked, the distractors shuffled with the
    item's own stream, the answer placed at `position` among the choices."""
    check_item(item, qid)
    distractors = list(item.distractors)
    rng.shuffle(distractors)
    choices = distractors[:]
    choices.insert(position, item.answer)
    return Question(
        id=qid,
        domain=domain,
        subcategory=subcategory,
        difficulty=difficulty,
        question=item.question,
        choices=tuple(choices),
        answer=item.answer,
        answer_type=item.answer_type,
        aliases=tuple(item.aliases),
        generator=generator,
        seed=seed,
        params=item.params,
    )


def check_bank(questions: list[Question], max_position_skew: float = 0.05) -> None:
    """Gates that look at the whole bank: unique ids and texts, answer positions near 25% each."""
    ids: set[str] = set()
    texts: dict[str, str] = {}
    for q in questions:
        if q.id in ids:
            raise GateError(f"{q.id}: duplicate id")
        ids.add(q.id)
        key = normalise_text(q.question)
        if key in texts:
            raise GateError(f"{q.id}: same normalised text as {texts[key]}")
        texts[key] = q.id
    if len(questions) >= 200:
        counts = {letter: 0 for letter in CHOICE_LETTERS}
        for q in questions:
            counts[q.answer_letter] += 1
        for letter, c in counts.items():
            share = c / len(questions)
            if abs(share - 0.25) > max_position_skew:
                raise GateError(f"answer position {letter} holds {share:.1%} of the bank (limit 25% ± 5 points)")
