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
from typing import Sequence

from mirror_hf.bank._core import normalise_text, reads_as_letter
from mirror_hf.bank._leaks import STRATEGIES, as_number, credit

POOL = 9  # errors considered per item (84 triples): enough freedom, cheap at build time
# cue -> (the strategy that picks its top, the one that picks its bottom); the numeric value is
# ranked from the smallest, where "second smallest" picks rank 1 and "median" ranks 1 and 2
_CUES = (("longest", "shortest"), ("most_similar", "odd_one_out"), ("shares_question_words", None))


def _wanted(rank: int, top: str, bottom: str | None) -> dict[str, float]:
    """The credit each strategy of a cue should give the gold when its rank is `rank` (0 = top)."""
    out = {top: float(rank == 0)}
    if bottom:
        out[bottom] = float(rank == 3)
    return out


def _miss(question: str, choices: Sequence[str], wanted: dict[str, float]) -> float:
    """How far the gold's credit under each strategy is from the wanted credit."""
    return sum(abs(credit(STRATEGIES[name](question, choices), 0) - want) for name, want in wanted.items())


_SLACK = 0.1


def _ngram_likeness(n: int):
    """Summed Jaccard overlap of each choice's raw character n-grams with the other choices'."""
    def score(choices: Sequence[str]) -> list[float]:
        grams = [{c.lower()[i:i + n] for i in range(max(len(c) - n + 1, 1))} for c in choices]
        return [sum(len(g & h) / len(g | h) for j, h in enumerate(grams) if j != i) for i, g in enumerate(grams)]
    return score


# likeness as the gate reckons it, and as coarser and finer readings of the same idea would: a
# respondent's sense of "the typical choice" is no one formula, so the gold's rank is balanced under several
_LIKENESS = (lambda cs: STRATEGIES["most_similar"]("", cs), _ngram_likeness(2), _ngram_likeness(1))


def _rank(scores: Sequence[float]) -> float:
    """The gold's (choice 0's) rank among the scores, 0 = highest, ties counted half."""
    return sum(1.0 if s > scores[0] else 0.5 if s == scores[0] else 0.0 for s in scores[1:])


def fair_pick(rng: random.Random, answer: str, pool: Sequence[str], question: str = "") -> tuple[str, str, str]:
    """Three of `pool` (plausible wrong answers, most plausible first) such that the gold's ranks
    under the test-wise cues match a fresh uniform draw as nearly as the pool allows."""
    seen = {normalise_text(answer)}
    errors: list[str] = []
    for candidate in pool:
        key = normalise_text(candidate)
        if key and key not in seen and not reads_as_letter(candidate):
            seen.add(key)
            errors.append(candidate)
    errors = errors[:POOL]
    if len(errors) < 3:
        raise ValueError(f"fewer than three distinct wrong answers for {answer!r}: {errors}")
    wanted: dict[str, float] = {}
    ranks = [rng.randrange(4) for _ in _CUES]
    for (top, bottom), rank in zip(_CUES, ranks):
        wanted |= _wanted(rank, top, bottom)
    numeric = as_number(answer) is not None and all(as_number(e) is not None for e in errors)
    if numeric:
        value_rank = rng.randrange(4)  # from the smallest
        wanted |= {"second_smallest": float(value_rank == 1), "median": 0.5 * (value_rank in (1, 2))}
    best: list[tuple[str, ...]] = []
    best_cost = float("inf")
    for triple in itertools.combinations(errors, 3):
        choices = (answer, *triple)
        # the credit the strategies give, then (to break ties robustly) how far the gold's
        # likeness to the others sits from its drawn rank
        cost = _miss(question, choices, wanted) + _SLACK * sum(
            abs(_rank(likeness(choices)) - ranks[1]) for likeness in _LIKENESS)
        if cost < best_cost - 1e-9:
            best, best_cost = [triple], cost
        elif abs(cost - best_cost) <= 1e-9:
            best.append(triple)
    a, b, c = rng.choice(best)
    return a, b, c
