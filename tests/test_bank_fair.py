"""`fair_pick` against planted leaky pools: errors that each sit one slip from the gold make the
first three named errors give the gold away; drawn by `fair_pick` from pools that also hold two
slips in one working, they do not. The
strategies are the leak test's independently written ones (character bigrams, Fraction numbers)."""

from __future__ import annotations

import collections
import random

import pytest
from test_bank_leaks import BOUND, _pick, strategies

from mirror_hf.bank._core import normalise_text
from mirror_hf.bank._fair import fair_pick

N = 150


def _pools(seed: int):
    """(gold, pool) pairs shaped like the bank's: one-step slips either side of the gold first, then
    two slips in one working (what lets another choice be as typical as the gold)."""
    rng = random.Random(seed)
    for _ in range(N):
        gold = rng.randint(120, 980)
        singles = [gold + 1, gold - 1, gold + 10, gold - 10]
        yield str(gold), [str(s) for s in singles + [gold + 11, gold - 9, gold + 9, gold - 11, gold * 10]]
    for _ in range(N):
        steps = sorted(rng.sample(range(1, 10), rng.randint(2, 4)))
        gold = ", ".join(map(str, steps))
        missing = [k for k in range(1, 10) if k not in steps]
        added = [sorted(set(steps) | {k}) for k in missing[:2]]
        dropped = [[s for s in steps if s != k] for k in steps[:2]]
        both = [sorted((set(steps) - {d}) | {a}) for d in steps[:2] for a in missing[:2]]
        yield gold, [", ".join(map(str, x)) for x in added[:1] + dropped[:1] + added[1:] + dropped[1:] + both]


def _shares(choose):
    credit = collections.defaultdict(float)
    n = 0
    for i, (gold, pool) in enumerate(_pools(0)):
        wrong = choose(random.Random(i), gold, pool)
        choices = [gold, *wrong]
        random.Random(-i).shuffle(choices)
        n += 1
        for name, scores in strategies("Which is right?", tuple(choices)).items():
            credit[name] += _pick(scores, choices.index(gold))
    return {k: v / n for k, v in credit.items()}


def test_first_three_errors_leak_and_fair_pick_does_not():
    naive = _shares(lambda rng, gold, pool: pool[:3])
    fair = _shares(lambda rng, gold, pool: fair_pick(rng, gold, pool, "Which is right?"))
    print(f"\n{'strategy':24s} first three  fair_pick")
    for k in naive:
        print(f"{k:24s} {naive[k]:10.3f} {fair[k]:10.3f}")
    assert max(naive.values()) > 0.45  # the planted leak is there to be removed
    assert max(fair.values()) <= BOUND, fair


def test_fair_pick_returns_three_distinct_errors_of_the_pool():
    for i, (gold, pool) in enumerate(_pools(1)):
        wrong = fair_pick(random.Random(i), gold, pool)
        assert len(set(map(normalise_text, wrong))) == 3 and set(wrong) <= set(pool) and gold not in wrong
        assert fair_pick(random.Random(i), gold, pool) == wrong  # the item's own stream decides
    with pytest.raises(ValueError, match="fewer than three"):
        fair_pick(random.Random(0), "7", ["7", "8", "8"])
