"""The whole bank (issue 3): 5,000 items, 625 per domain, 40 subcategories of at least 100 items with
every difficulty, unique ids and texts, answer positions near 25% each; and the gates stop a bad
generator with the item and the reason."""

from __future__ import annotations

import collections
import dataclasses
import random

import pytest

from mirror_hf.bank import GateError, Item, generate_bank, normalise_text
from mirror_hf.bank._core import Domain, check_bank, generate_domain
from mirror_hf.records import CHOICE_LETTERS, DIFFICULTIES, DOMAINS


@pytest.fixture(scope="module", params=[0, 1], ids=["seed0", "seed1"])
def bank(request, three_forms):
    return three_forms[request.param]  # the forms the leak and option-kind tests pool, made once per run


def test_bank_shape(bank):
    assert len(bank) == 5000
    per_domain = collections.Counter(q.domain for q in bank)
    assert per_domain == {d: 625 for d in DOMAINS}
    per_sub = collections.Counter((q.domain, q.subcategory) for q in bank)
    assert len(per_sub) == 40
    assert all(n >= 100 for n in per_sub.values()), per_sub
    assert {d: sum(1 for (dom, _) in per_sub if dom == d) for d in DOMAINS} == {d: 5 for d in DOMAINS}
    cells = collections.Counter((q.domain, q.subcategory, q.difficulty) for q in bank)
    for domain, sub in per_sub:
        for difficulty in DIFFICULTIES:
            assert cells[(domain, sub, difficulty)] >= 30, (domain, sub, difficulty)


def test_ids_and_normalised_texts_unique(bank):
    assert len({q.id for q in bank}) == len(bank)
    assert len({normalise_text(q.question) for q in bank}) == len(bank)
    assert all(q.generator.startswith(f"{q.domain}.{q.subcategory}@") for q in bank)


def test_answer_positions_balanced(bank):
    shares = collections.Counter(q.answer_letter for q in bank)
    printed = {letter: round(shares[letter] / len(bank), 4) for letter in CHOICE_LETTERS}
    print(f"answer positions: {printed}")
    for letter in CHOICE_LETTERS:
        assert abs(shares[letter] / len(bank) - 0.25) <= 0.05, printed


def _domain_with(generate) -> Domain:
    domain = Domain("testdomain", "0.0.0")
    domain.subcategory("only", difficulty={d: d for d in DIFFICULTIES})(generate)
    return domain


def test_gate_stops_on_a_distractor_equal_to_the_answer():
    def bad(rng: random.Random, difficulty: str) -> Item:
        n = rng.randint(1, 10**9)
        return Item(f"What is {n} plus zero, exactly?", str(n), "exact_numeric", (str(n), str(n + 1), str(n + 2)), {"n": n})

    with pytest.raises(GateError, match=r"testdomain\.only\.easy\[0\]: a distractor equals the answer"):
        list(generate_domain(_domain_with(bad), 0, 6))


def test_gate_stops_on_duplicate_texts_and_bad_lengths():
    def same(rng: random.Random, difficulty: str) -> Item:
        return Item("What is two plus two, exactly?", "4", "exact_numeric", ("3", "5", "22"), {})

    with pytest.raises(GateError, match=r"no new item \(text, parameters or fact\) after 60 draws"):
        list(generate_domain(_domain_with(same), 0, 6))

    def same_params(rng: random.Random, difficulty: str) -> Item:  # new wording, same item
        return Item(f"What is two plus two, exactly? (draw {rng.random():.6f})", "4", "exact_numeric", ("3", "5", "22"), {"a": 2})

    with pytest.raises(GateError, match="parameters or fact"):
        list(generate_domain(_domain_with(same_params), 0, 6))

    def same_fact(rng: random.Random, difficulty: str) -> Item:
        n = rng.randrange(10**6)
        return Item(f"What is two plus two, exactly? (draw {n})", "4", "exact_numeric", ("3", "5", "22"), {"n": n},
                    facts=("two plus two",))

    with pytest.raises(GateError, match="parameters or fact"):
        list(generate_domain(_domain_with(same_fact), 0, 6))

    def short(rng: random.Random, difficulty: str) -> Item:
        return Item("2+2?", "4", "exact_numeric", ("3", "5", "22"), {})

    with pytest.raises(GateError, match="question length 4"):
        list(generate_domain(_domain_with(short), 0, 3))


def test_gate_stops_on_skewed_answer_positions():
    bank = generate_bank(0, per_domain=40)
    skewed = []
    for q in bank:  # move every answer to position A
        choices = (q.answer, *[c for c in q.choices if c != q.answer])
        skewed.append(dataclasses.replace(q, choices=choices))
    with pytest.raises(GateError, match="answer position A holds 100.0%"):
        check_bank(skewed)
