"""Spreading tasks over domain pairs: near-equal counts per unordered pair, both orders, and
near-equal use of every domain.

When the total is not a multiple of the number of pairs, the extra tasks go to whole rounds of a
round-robin schedule (each round is a perfect matching: every domain in exactly one pair), so the
extras land on every domain equally before any domain gets a second one.
"""

from __future__ import annotations

from itertools import combinations


def unordered_pairs(domains: list[str]) -> list[tuple[str, str]]:
    """Every unordered pair, in the order the domains are given (28 for the paper's 8 domains)."""
    return list(combinations(domains, 2))


def round_robin(domains: list[str]) -> list[list[tuple[str, str]]]:
    """Rounds of the circle method; with an odd count one domain sits out each round."""
    players: list[str | None] = list(domains) + ([None] if len(domains) % 2 else [])
    n = len(players)
    order = {d: i for i, d in enumerate(domains)}
    rounds = []
    for r in range(n - 1):
        rotated = [players[0]] + [players[1 + (k + r) % (n - 1)] for k in range(n - 1)]
        matching = []
        for k in range(n // 2):
            a, b = rotated[k], rotated[n - 1 - k]
            if a is not None and b is not None:
                matching.append(tuple(sorted((a, b), key=order.__getitem__)))
        rounds.append(matching)
    return rounds


def pair_counts(total: int, domains: list[str]) -> dict[tuple[str, str], int]:
    """How many tasks each unordered pair gets: floor(total / pairs) each, plus one for the pairs
    of the first round-robin rounds until the remainder is used. Counts differ by at most one."""
    pairs = unordered_pairs(domains)
    if not pairs:
        raise ValueError(f"need at least two domains to pair, got {domains}")
    base, extra = divmod(total, len(pairs))
    counts = {p: base for p in pairs}
    for matching in round_robin(domains):
        for pair in matching:
            if extra == 0:
                return counts
            counts[pair] += 1
            extra -= 1
    return counts


def balanced_positions(n: int, rng) -> list[int]:
    """Answer positions 0-3 for `n` items: each used n/4 times (+-1), in a seeded order."""
    positions = [k % 4 for k in range(n + (-n) % 4)]
    rng.shuffle(positions)
    return positions[:n]
