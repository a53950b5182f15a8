"""Difficulty-selection pairs (mirror-protocol.md §2 Ch3): an easy and a hard item of one domain.

Pairs come from the bank's own difficulty labels. Per domain the easy pool is the "easy" items and
the hard pool the "hard" ones (the authors also count "adversarial"; "medium" only when a domain
has no hard item). Each pool is put in id order and shuffled with a seeded generator, and pair i is
(easy[i mod |E|], hard[i mod |H|]) for i < max(|E|, |H|), so every easy and every hard item is in
at least one pair. An item's trial uses the first pair that contains it, in its own role (a hard
item is Task A, an easy one Task B). Medium items get no difficulty-selection trial.

The authors' bank has no difficulty labels, so it yields no pairs: channel 3 never ran upstream.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Iterable

from mirror_hf.records import Question

HARD_LABELS: tuple[str, ...] = ("hard", "adversarial")


@dataclass(frozen=True)
class DifficultyPair:
    pair_id: str
    domain: str
    easy: Question
    hard: Question

    def role_of(self, question_id: str) -> str:
        """"A" if the item is this pair's hard task, "B" if it is the easy one."""
        if question_id == self.hard.id:
            return "A"
        if question_id == self.easy.id:
            return "B"
        raise KeyError(f"{question_id} is not in pair {self.pair_id}")


def difficulty_pairs(questions: Iterable[Question], seed: int = 42) -> list[DifficultyPair]:
    """Every pair, domains in name order; a function of the bank's content and the seed only."""
    by_domain: dict[str, list[Question]] = {}
    for q in questions:
        by_domain.setdefault(q.domain, []).append(q)
    pairs: list[DifficultyPair] = []
    for domain, items in sorted(by_domain.items()):
        easy = sorted((q for q in items if q.difficulty == "easy"), key=lambda q: q.id)
        hard = sorted((q for q in items if q.difficulty in HARD_LABELS), key=lambda q: q.id)
        if not hard:
            hard = sorted((q for q in items if q.difficulty == "medium"), key=lambda q: q.id)
        if not easy or not hard:
            continue
        rng = random.Random(f"{seed}|{domain}|difficulty_pairs")
        rng.shuffle(easy)
        rng.shuffle(hard)
        for i in range(max(len(easy), len(hard))):
            e, h = easy[i % len(easy)], hard[i % len(hard)]
            if e.id == h.id:
                continue
            pairs.append(DifficultyPair(f"{domain}.pair{i:04d}", domain, e, h))
    return pairs


def pair_for_each_question(pairs: Iterable[DifficultyPair]) -> dict[str, DifficultyPair]:
    """question id -> the first pair that contains it (the pair its channel-3 trial uses)."""
    out: dict[str, DifficultyPair] = {}
    for pair in pairs:
        out.setdefault(pair.easy.id, pair)
        out.setdefault(pair.hard.id, pair)
    return out
