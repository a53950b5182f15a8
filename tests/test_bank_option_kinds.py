"""No option kind gives the answer away: within a subcategory, a template family of choices ("It
cannot be determined ...", "None of the ...", "Sarcastic: ... is pleased ...") that is offered in at
least ten items is the gold in some of them and a distractor in others. A kind that is never the
gold can be struck off unread; one that is always the gold can be picked unread.

A choice's kind is read here from its text alone: its words, less the names it shares with the
question (so "Sarcastic: Omar is pleased about the train" and "Sarcastic: Lina is pleased about the
cake" are one kind) and less its numbers, cut to the first three. Choices of fewer than three such
words (single words, numbers, names) are no template and have no kind. In an item where every
choice has the same kind the kind says nothing, so that item does not count for it.

Pooled over three parallel forms. A kind whose text carries an item's own slot words ("All dog
owners are ...", "Q or not P") is offered in few items, and with four choices a fair kind is the gold
about a quarter of the time, so "never the gold in 10 offers" also happens by chance (0.75^10 = 6%,
and there are hundreds of such kinds). A kind is therefore flagged only when a fair kind, gold at the
subcategory's own pooled rate, would be never (or always) the gold in that many offers with chance
below ALPHA: "It cannot be determined" at 0 of 71 is flagged, "All dog owners are" at 0 of 10 is not.
Subcategories of domains other than linguistic and social that still have such a kind are listed in
KNOWN, and subcategories the leak gate lists as under repair are printed rather than failed; the test
fails on any other finding and prints the listed ones that no longer occur.
"""

from __future__ import annotations

import collections
import re

import pytest

from mirror_hf.bank._leaks import UNDER_REPAIR

SEEDS = (0, 1, 2)
MIN_ITEMS = 10
WORDS = 3
ALPHA = 0.001  # chance that a fair kind is never (or always) the gold in its offers

# (subcategory, kind) still found by this test; empty since the syllogism moods, the commuted
# propositional answers and the register drafts were repaired
KNOWN: frozenset[tuple[str, str]] = frozenset()


def kind(choice: str, question: str) -> str | None:
    names = set(re.findall(r"(?<=[a-z,] )[A-Z][a-z]+", question))  # capitalised mid-sentence: a name
    words = [w.lower() for w in re.findall(r"[A-Za-z]+(?:'[a-z]+)?", choice) if w not in names]
    return " ".join(words[:WORDS]) if len(words) >= WORDS else None


def test_kind_reading_on_hand_cases():
    q = "Omar saw the train arrive late and said: \"Oh, fantastic.\" How does Omar feel about the train?"
    assert kind("Sarcastic: Omar is pleased about the train", q) == "sarcastic is pleased"
    assert kind("Sincere: Omar is unhappy about the train", q) == "sincere is unhappy"
    assert kind("None of the guests have arrived.", "Did all of the guests arrive?") == "none of the"
    assert kind("It cannot be determined from the sentence", q) == "it cannot be"
    assert kind("the suitcase", q) is None and kind("42", q) is None and kind("Omar", q) is None


@pytest.fixture(scope="module")
def findings(three_forms):
    offered = collections.Counter()  # (subcategory, kind) -> items where some but not all choices have it
    gold = collections.Counter()  # ... and the gold is one of them
    for q in (q for seed in SEEDS for q in three_forms[seed]):
        kinds = [kind(c, q.question) for c in q.choices]
        sub = f"{q.domain}.{q.subcategory}"
        for k in set(kinds) - {None}:
            if kinds.count(k) == len(kinds):
                continue
            offered[sub, k] += 1
            gold[sub, k] += kinds[q.choices.index(q.answer)] == k
    rate = collections.Counter()  # subcategory -> (gold, offered) pooled over its kinds
    for (sub, _), n in offered.items():
        rate[sub, "gold"] += gold[sub, _]
        rate[sub, "offered"] += n
    return {key: (gold[key], n, rate[key[0], "gold"] / rate[key[0], "offered"])
            for key, n in offered.items() if n >= MIN_ITEMS}


def chance_of(g: int, n: int, p: float) -> float:
    """How likely a kind that is the gold at rate p is the gold in none (g = 0) or all (g = n) of n offers."""
    return (1 - p) ** n if g == 0 else p ** n if g == n else 1.0


def test_chance_bound_on_hand_cases():
    assert chance_of(0, 71, 0.25) < ALPHA and chance_of(0, 125, 0.25) < ALPHA  # the two kinds
    assert chance_of(0, 10, 0.25) > ALPHA and chance_of(3, 10, 0.25) == 1.0
    assert chance_of(10, 10, 0.25) < ALPHA  # always the gold


def test_no_option_kind_is_never_or_always_the_gold(findings):
    seen = {key: v for key, v in findings.items() if v[0] in (0, v[1])}
    bad = {key: v for key, v in seen.items() if chance_of(*v) < ALPHA}
    print(f"\n{'subcategory':36s} {'kind':28s} gold/offered  chance")
    for (sub, k), (g, n, p) in sorted(seen.items()):
        note = ("  (known)" if (sub, k) in KNOWN else "  (under repair)" if sub in UNDER_REPAIR else
                "  FLAGGED" if (sub, k) in bad else "")
        print(f"{sub:36s} {k:28s} {g}/{n}  {chance_of(g, n, p):.4f}{note}")
    stale = sorted(KNOWN - set(bad))
    if stale:
        print("no longer found, take off KNOWN:", stale)
    # a subcategory already declared leaking (UNDER_REPAIR) is printed, not failed, until it is repaired
    new = sorted(key for key in set(bad) - KNOWN if key[0] not in UNDER_REPAIR)
    assert not new, f"option kinds that are never or always the gold: {[(s, k, bad[s, k][:2]) for s, k in new]}"
    assert findings, "no option kind offered in ten items: the kind reading is broken"
