"""The headline values a reference respondent (respondent.py) is built to produce, derived
analytically from its profile and the design of the run (which items were asked in which domain,
which Exp9 components are weak and which C4 routed), never from its responses.

Each formula is the metric's definition applied to the respondent's probabilities:
- natural / wagering accuracy: the macro mean over domains of P(correct) under that prompt;
- Mirror gap: the mean over domains of |P_wager - P_natural|;
- ECE: wager confidence bet/10 binned in tenths (bets 9 and 10 share the top bin), per bin
  |expected accuracy - mean confidence| weighted by the bin's share of records;
- Brier: the expected (confidence - outcome)^2 per record, q (1 - c)^2 + (1 - q) c^2;
- CFR under condition c: over the weak components of the frame, the expected share that proceed and
  fail, P(proceed | c, domain) * (1 - P(correct | domain)), 0 for components C4 routes away.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping

from respondent import Profile


def _macro(values: Mapping[str, float]) -> float:
    return sum(values.values()) / len(values)


def exp1_values(profile: Profile, natural_domains: Iterable[str], wager_records: Iterable[tuple[str, str]]) -> dict[str, float]:
    """`natural_domains`: the domain of each natural-channel item; `wager_records`: (item id, domain)
    of each wagering item (malformed answers, which carry no grade, are left out here as in scoring)."""
    natural = {d: profile.p_natural(d) for d in set(natural_domains)}
    wager = [(i, d) for i, d in wager_records if not profile.is_malformed(i, "wagering")]
    wagering = {d: profile.p_wagering(d) for d in {d for _, d in wager}}
    both = set(natural) & set(wagering)
    counts = Counter(d for _, d in wager)
    total = sum(counts.values())
    bins: dict[int, list[tuple[int, float, float]]] = defaultdict(list)
    brier = 0.0
    for domain, n in counts.items():
        c, q = profile.bet_for(domain) / 10, profile.p_wagering(domain)
        bins[min(int(c * 10), 9)].append((n, q, c))
        brier += n / total * (q * (1 - c) ** 2 + (1 - q) * c**2)
    ece = 0.0
    for members in bins.values():
        size = sum(n for n, _, _ in members)
        acc = sum(n * q for n, q, _ in members) / size
        conf = sum(n * c for n, _, c in members) / size
        ece += size / total * abs(acc - conf)
    return {
        "natural_accuracy": _macro(natural),
        "wagering_accuracy": _macro(wagering),
        "mirror_gap": sum(abs(wagering[d] - natural[d]) for d in both) / len(both),
        "ece": ece,
        "brier": brier,
    }


def cfr_values(profile: Profile, components: Iterable[Mapping]) -> dict[str, float]:
    """Per condition, the planted CFR over weak components. Each component: condition, paradigm,
    domain, strength (the pipeline's label), routed (C4 took it away). Only the components of the
    frame being checked should be passed (the escalation frame pools P1 and P2)."""
    sums: dict[str, float] = defaultdict(float)
    counts: dict[str, int] = defaultdict(int)
    for comp in components:
        if comp["strength"] != "weak":
            continue
        condition = comp["condition"]
        counts[condition] += 1
        if comp["routed"]:
            continue
        seen = "C1" if condition == "C4" else condition  # a C4 prompt reads as C1: routing happens outside the model
        proceed = 1.0 if comp["paradigm"] == "P3" else profile.exp9_policy(comp["domain"], seen)["proceed"]
        sums[condition] += proceed * (1 - profile.p_natural(comp["domain"]))
    return {c: sums[c] / counts[c] for c in sorted(counts)}
