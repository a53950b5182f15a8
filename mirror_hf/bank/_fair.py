"""Three distractors chosen from a pool of plausible errors so that no surface cue points at the gold.

The item writer's rule: the options are alike, and the right one is no more often the longest, the
most typical or the middle value than any other. Errors people make are each one slip from the
gold, so the first three named errors leave the gold at the centre (a list with one step added and
one dropped, weekdays one either side, coordinates one off). Generators therefore name more errors
than they need; `fair_pick` draws, per item, a target rank of the gold under each cue the leak gate
measures (length, likeness to the other choices, numeric value, words shared with the question) and
keeps the three errors whose choice set comes nearest to those ranks. Over a bank the gold's rank
under every cue is then near uniform, so each test-wise strategy earns chance.

The pool has to allow it: when every error is one slip from the gold and from nothing else, the
gold is the hub whichever three are shown. Pools therefore also hold two slips made in one working
(a wrong factor applied to a mis-copied value, a step added and another dropped), so that a wrong
choice can be as typical as the gold.
"""

from __future__ import annotations

import itertools
import random
from typing import Callable, Iterable, Sequence, TypeVar

from mirror_hf.bank._items import distinct_errors
from mirror_hf.bank._leaks import STRATEGIES, _similarity, _trigrams, as_number, credit

T = TypeVar("T")
POOL = 9  # errors considered per item (84 triples): enough freedom, cheap at build time
_SLACK = 0.1  # weight of the likeness ranks, which only break ties between equally fair triples


def _jaccard(n: int):
    def grams(text: str) -> set[str]:
        t = text.lower()
        return {t[i:i + n] for i in range(max(len(t) - n + 1, 1))}
    return lambda a, b: len(grams(a) & grams(b)) / len(grams(a) | grams(b))


# Likeness as the gate reckons it (its trigram Dice overlap, the `most_similar` strategy) and as
# coarser readings of the same idea would (Jaccard overlap of character bigrams and of characters):
# a respondent's sense of "the typical choice" is no one formula, so the gold's rank is balanced
# under several.
_LIKENESS = (lambda a, b: _similarity(_trigrams(a), _trigrams(b)), _jaccard(2), _jaccard(1))


def _rank(scores: Sequence[float]) -> float:
    """The gold's (choice 0's) rank among the scores, 0 = highest, ties counted half."""
    return sum(1.0 if s > scores[0] else 0.5 if s == scores[0] else 0.0 for s in scores[1:])


def cheapest(rng: random.Random, candidates: Iterable[T], cost: Callable[[T], float]) -> T:
    """One of the candidates of least cost, drawn at random among those tied with it (within 1e-9):
    each picker scores its choice sets by how far they leave the gold from its drawn ranks, and the
    draw among equally fair sets keeps it from always showing the same three errors."""
    best: list[T] = []
    best_cost = float("inf")
    for candidate in candidates:
        k = cost(candidate)
        if k < best_cost - 1e-9:
            best, best_cost = [candidate], k
        elif abs(k - best_cost) <= 1e-9:
            best.append(candidate)
    return rng.choice(best)


def fair_pick(rng: random.Random, answer: str, pool: Sequence[str], question: str = "") -> tuple[str, str, str]:
    """Three of `pool` (plausible wrong answers, most plausible first) such that the credit each
    test-wise strategy gives the gold matches a fresh uniform draw of its rank as nearly as the pool allows."""
    errors = distinct_errors(answer, pool)[:POOL]
    if len(errors) < 3:
        raise ValueError(f"fewer than three distinct wrong answers for {answer!r}: {errors}")
    texts = [answer, *errors]
    # per-choice and pairwise scores, computed once per item (the gate's own definitions)
    length = [float(len(t)) for t in texts]
    shared = STRATEGIES["shares_question_words"](question, texts)
    like = [[[f(a, b) if i != j else 0.0 for j, b in enumerate(texts)] for i, a in enumerate(texts)]
            for f in _LIKENESS]
    numeric = all(as_number(t) is not None for t in texts)
    # the gold's drawn rank per cue (0 = the cue's top pick); the strategies that read each cue
    length_rank, like_rank, words_rank, value_rank = (rng.randrange(4) for _ in range(4))
    wanted = {"longest": length_rank == 0, "shortest": length_rank == 3, "most_similar": like_rank == 0,
              "odd_one_out": like_rank == 3, "shares_question_words": words_rank == 0}

    def cost_of(triple: tuple[int, ...]) -> float:
        idx = (0, *triple)
        centre = [[sum(m[a][b] for b in idx) for a in idx] for m in like]
        scores = {"longest": [length[a] for a in idx], "shortest": [-length[a] for a in idx],
                  "most_similar": centre[0], "odd_one_out": [-c for c in centre[0]],
                  "shares_question_words": [shared[a] for a in idx]}
        cost = sum(abs(credit(scores[name], 0) - want) for name, want in wanted.items())
        if numeric:
            choices = [texts[a] for a in idx]
            cost += abs(credit(STRATEGIES["second_smallest"](question, choices), 0) - (value_rank == 1))
            cost += abs(credit(STRATEGIES["median"](question, choices), 0) - 0.5 * (value_rank in (1, 2)))
        return cost + _SLACK * sum(abs(_rank(c) - like_rank) for c in centre)

    a, b, c = (texts[i] for i in cheapest(rng, itertools.combinations(range(1, len(texts)), 3), cost_of))
    return a, b, c
