"""No option string gives the answer away: within a subcategory, every choice text that is offered
often enough is the gold in about a quarter of the items that offer it.

The leak gate's answer priors (`gold_prior`, `offered_prior`) are summed over a subcategory, where a
few lopsided strings hide among hundreds of fair ones: "un-" as the gold in 30 of the 32 morphology
items that offered it, "1" in all 43 truth-table counts that offered it, "noon" never the gold in
52 scheduling items. A respondent who has seen a few items picks the one and strikes off the other,
and the subcategory's aggregate still sits under 30%. This test looks at each string.

A string's choices are compared as the bank compares them (case, accents, punctuation and spacing
ignored). For every (subcategory, string) offered in at least MIN_OFFERS items of the pooled forms,
an exact two-sided binomial test of its gold count against a fair share of 1/4; Benjamini-Hochberg
over all of them; a string is flagged at q < Q. Both sides count: a string that is never the gold can
be struck off unread, which is a shortcut as much as one that is always the gold.

The counting and the test are written here, not taken from the gate (scipy's binomtest, this file's
own normalisation of the choice texts).
"""

from __future__ import annotations

import collections
import re
import unicodedata

import pytest
from scipy import stats

MIN_OFFERS = 20  # over eight forms (the slow check)
MIN_OFFERS_THREE = 10  # over three forms (the default suite: fewer offers per string, so a lower floor)
Q = 0.01


def _key(text: str) -> str:
    text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode().lower()
    return " ".join(re.findall(r"(?<![a-z0-9])-\d[a-z0-9]*|[a-z0-9]+", text))


def _bh(pvalues: list[float]) -> list[float]:
    """Benjamini-Hochberg adjusted p-values, written out (step-up, monotone from the largest)."""
    m = len(pvalues)
    order = sorted(range(m), key=pvalues.__getitem__)
    out = [0.0] * m
    running = 1.0
    for rank in range(m, 0, -1):
        i = order[rank - 1]
        running = min(running, pvalues[i] * m / rank)
        out[i] = running
    return out


def lopsided_strings(questions, min_offers: int = MIN_OFFERS, q_level: float = Q) -> tuple[int, list[tuple]]:
    """(strings tested, flagged rows (q, subcategory, string, gold, offered)), most significant first."""
    offered: collections.Counter = collections.Counter()
    gold: collections.Counter = collections.Counter()
    for q in questions:
        if len(q.choices) != 4:
            continue
        sub = f"{q.domain}.{q.subcategory}"
        for key in {_key(c) for c in q.choices}:
            offered[sub, key] += 1
        gold[sub, _key(q.answer)] += 1
    cells = [(sub, key, gold[sub, key], n) for (sub, key), n in offered.items() if n >= min_offers]
    qvalues = _bh([stats.binomtest(g, n, 0.25).pvalue for _, _, g, n in cells])
    flagged = sorted((qv, *cell) for qv, cell in zip(qvalues, cells) if qv < q_level)
    return len(cells), flagged


def _report(tested: int, flagged: list[tuple]) -> str:
    rows = [f"  {sub:36s} {key[:40]!r:42s} gold {g:3d} of {n:3d} offers ({g / n:.0%}), q={qv:.1g}" for qv, sub, key, g, n in flagged]
    head = f"{len(flagged)} of {tested} option strings are the gold far from a quarter of the time they are offered:"
    return "\n".join([head, *rows[:40]])


def test_counting_on_hand_cases():
    """Planted: a string gold in every item that offers it and one never gold are flagged; strings
    gold in a fair share are not."""
    from mirror_hf.records import Question

    def q(i, choices, gold):
        return Question(id=f"x.{i}", domain="procedural", subcategory="error_recovery", difficulty="easy",
                        question="What should the client do next here?", choices=tuple(choices), answer=gold,
                        answer_type="short_text", aliases=(), generator="t", seed=0)

    fair = [q(i, [f"w{i % 8}", f"x{i % 8}", f"y{i % 8}", f"z{i % 8}"], f"{'wxyz'[i // 8 % 4]}{i % 8}") for i in range(320)]
    assert lopsided_strings(fair) == (32, [])
    leaky = fair + [q(1000 + i, ["Retry the request now", "Give up", f"a{i}", f"b{i}"], "Retry the request now")
                    for i in range(30)]
    tested, flagged = lopsided_strings(leaky)
    assert tested == 34 and {row[2] for row in flagged} == {"retry the request now", "give up"}, flagged
    assert _key("  Noon. ") == "noon" and _key("-5 °C") == "-5 c" and _key("9:30 a.m.") == "9 30 a m"


def test_bh_against_scipy():
    ps = [0.001, 0.04, 0.03, 0.5, 0.0001, 0.2, 0.04]
    assert all(abs(a - b) < 1e-12 for a, b in zip(_bh(ps), stats.false_discovery_control(ps, method="bh")))


def test_no_option_string_is_the_gold_far_from_its_share_three_forms(three_forms):
    """Three parallel forms pooled (the default suite)."""
    tested, flagged = lopsided_strings([q for seed in (0, 1, 2) for q in three_forms[seed]], MIN_OFFERS_THREE)
    print(f"\n{tested} option strings offered at least {MIN_OFFERS_THREE} times over three forms")
    assert tested > 800 and not flagged, _report(tested, flagged)


@pytest.mark.slow
def test_no_option_string_is_the_gold_far_from_its_share_eight_forms():
    """Eight parallel forms pooled (the leak test's eight, about 1,000 items per subcategory)."""
    from forms import form

    tested, flagged = lopsided_strings([q for seed in range(8) for q in form(seed)])
    print(f"\n{tested} option strings offered at least {MIN_OFFERS} times over eight forms")
    assert tested > 1000 and not flagged, _report(tested, flagged)
