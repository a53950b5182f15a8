"""Choices that do not give the answer away: test-wise strategies that read only the question and
the choices, computed here independently of the build's gate (mirror_hf/bank/_leaks.py), pooled
over three parallel forms (about 375 items per subcategory), must stay at or below 33% (25% is
chance) in every subcategory.

The strategies here are written separately from the gate: similarity is the Jaccard overlap of raw
character bigrams (the gate uses the Dice overlap of normalised trigrams), numbers are read with Fraction. The gate's own code is checked
against brute force on hand-made cases below.
"""

from __future__ import annotations

import collections
import itertools
import math
import re
from fractions import Fraction

import pytest
from scipy import stats

from mirror_hf.bank import _leaks

SEEDS = (0, 1, 2)
BOUND = 0.33


def _num(text: str):
    m = re.fullmatch(r"\s*(-?)[$€£]?\s*(\d[\d,]*(?:\.\d+)?)\s*(%|[A-Za-z°][\w°/ ]*)?\s*", text.replace("\u2212", "-"))
    return Fraction(m.group(1) + m.group(2).replace(",", "")) if m else None


def _words(text: str) -> set[str]:
    return set(re.findall(r"[a-z0-9]+", text.lower()))


def _pick(values: list, gold: int) -> float:
    """Fractional credit of picking the largest value."""
    if values is None:
        return 0.25
    top = max(values)
    winners = [i for i, v in enumerate(values) if v == top]
    return (gold in winners) / len(winners)


def _bigrams(text: str) -> set[str]:
    t = text.lower()
    return {t[i : i + 2] for i in range(len(t) - 1)} or {t}


def _centrality(choices):
    """Summed Jaccard overlap of character bigrams with the other three choices."""
    grams = [_bigrams(c) for c in choices]
    return [sum(len(g & h) / len(g | h) for j, h in enumerate(grams) if j != i) for i, g in enumerate(grams)]


def _ranked(choices, ranks):
    nums = [_num(c) for c in choices]
    if None in nums or len(set(nums)) < 4:
        return None
    order = sorted(nums)
    return [1 if order.index(v) in ranks else 0 for v in nums]


def strategies(question: str, choices: tuple[str, ...]) -> dict[str, list | None]:
    centre = _centrality(choices)
    qwords = _words(question)
    return {
        "longest": [len(c) for c in choices],
        "shortest": [-len(c) for c in choices],
        "most_similar": centre,
        "odd_one_out": [-x for x in centre],
        "shares_question_words": [len(_words(c) & qwords) for c in choices],
        "second_smallest": _ranked(choices, {1}),
        "median": _ranked(choices, {1, 2}),
    }


@pytest.fixture(scope="module")
def pooled(three_forms):
    """Strategy accuracy per subcategory, pooled over three forms."""
    credit = collections.defaultdict(float)
    count = collections.Counter()
    questions = [q for seed in SEEDS for q in three_forms[seed]]
    for q in questions:
        sub = f"{q.domain}.{q.subcategory}"
        gold = q.choices.index(q.answer)
        count[sub] += 1
        for name, scores in strategies(q.question, q.choices).items():
            credit[sub, name] += _pick(scores, gold)
    gate = collections.defaultdict(dict)
    for cell in _leaks.strategy_table(questions):
        gate[cell.subcategory][cell.strategy] = cell.accuracy
    return {sub: {name: credit[sub, name] / n for name in _leaks.STRATEGIES} for sub, n in count.items()}, count, gate


def test_every_subcategory_best_strategy_within_bound(pooled):
    table, count, gate = pooled
    print(f"\n{'subcategory':42s} {'n':>4s} best strategy            share")
    over, fixed = [], []
    for sub, row in sorted(table.items()):
        best = max(row, key=row.get)
        print(f"{sub:42s} {count[sub]:4d} {best:24s} {row[best]:.3f}{'  (under repair)' if sub in _leaks.UNDER_REPAIR else ''}")
        if row[best] > BOUND and sub not in _leaks.UNDER_REPAIR:
            over.append((sub, best, round(row[best], 3)))
        if sub in _leaks.UNDER_REPAIR and row[best] <= BOUND and max(gate[sub].values()) <= BOUND:
            fixed.append(sub)
    assert count and min(count.values()) >= 350, count
    assert not over, f"test-wise strategies beat {BOUND:.0%}: {over}"
    assert not fixed, f"no longer leaking, take them off UNDER_REPAIR: {fixed}"


# ---- the gate's code against brute force -----------------------------------------------------------


def test_gate_credit_splits_ties():
    assert _leaks.credit([3.0, 1.0, 3.0, 0.0], 0) == 0.5
    assert _leaks.credit([3.0, 1.0, 3.0, 0.0], 1) == 0.0
    assert _leaks.credit([1.0, 1.0, 1.0, 1.0], 2) == 0.25
    assert _leaks.credit(None, 3) == 0.25


def test_gate_strategies_on_hand_cases():
    s = _leaks.STRATEGIES
    cs = ("7", "12", "3", "40")
    assert s["second_smallest"]("", cs) == [1, 0, 0, 0]
    assert s["median"]("", cs) == [1, 1, 0, 0]
    assert s["longest"]("", ("ab", "abcd", "a", "abc")).index(4) == 1
    assert s["second_smallest"]("", ("red", "2", "3", "4")) is None
    assert s["shares_question_words"]("Which fruit is red?", ("a red fruit", "blue", "fruit", "no"))[:3] == [2, 0, 1]
    centre = s["most_similar"]("", ("2125", "2135", "2115", "9999"))
    assert max(range(4), key=centre.__getitem__) in (0, 1, 2) and min(range(4), key=centre.__getitem__) == 3
    assert _leaks.as_number("$1,250.50") == 1250.5 and _leaks.as_number("-3 km") == -3 and _leaks.as_number("(3, 4)") is None


def test_gate_binomial_and_bh_against_brute_force():
    for n, k in [(125, 40), (125, 31), (10, 0), (10, 10), (375, 130)]:
        assert math.isclose(_leaks._binomial_sf(k, n, 0.25), stats.binom.sf(k - 1, n, 0.25), rel_tol=1e-9, abs_tol=1e-300)
    ps = [0.001, 0.04, 0.03, 0.5, 0.0001, 0.2]
    m = len(ps)
    brute = [min(min(ps[j] * m / (sorted(ps).index(ps[j]) + 1) for j in range(m) if ps[j] >= ps[i]), 1.0) for i in range(m)]
    assert all(math.isclose(a, b) for a, b in zip(_leaks.bh_qvalues(ps), brute))
    assert list(itertools.accumulate(sorted(_leaks.bh_qvalues(ps)), max)) == sorted(_leaks.bh_qvalues(ps))


def test_gate_refuses_a_planted_leak():
    """A form whose gold is always the longest choice is refused; the same form with the gold
    placed fairly is not."""
    from mirror_hf.bank import GateError
    from mirror_hf.records import Question

    def q(i, leaky):
        gold = "the right answer, stated at length" if leaky else f"option {i % 4}"
        others = [f"wrong {j}" for j in range(3)] if leaky else [f"option {(i + j) % 4}" for j in (1, 2, 3)]
        choices = tuple(others[: i % 4] + [gold] + others[i % 4:])
        return Question(id=f"x.{i}", domain="linguistic", subcategory="syntax_parsing", difficulty="easy",
                        question="Pick one of these options please.", choices=choices, answer=gold,
                        answer_type="short_text", aliases=(), generator="t", seed=0)

    with pytest.raises(GateError, match="syntax_parsing longest"):
        _leaks.check_leaks([q(i, True) for i in range(125)])
    assert _leaks.check_leaks([q(i, False) for i in range(125)])


def test_card_table_shows_the_built_forms_figures(tmp_path):
    """The card's leak table is this form's: the length and rank columns, recomputed here from the
    questions on disk, match the printed percentages in every subcategory."""
    import pyarrow.parquet as pq

    from mirror_hf.build import BuildRequest, build
    from mirror_hf.folder import split_files

    out = build(BuildRequest(out=tmp_path / "form", seed=4, per_domain=60))
    rows = pq.read_table(split_files(out)["questions"][0].path).to_pylist()
    mine = collections.defaultdict(lambda: collections.defaultdict(float))
    count = collections.Counter()
    for r in rows:
        sub = f"{r['domain']}.{r['subcategory']}"
        count[sub] += 1
        gold = r["choices"].index(r["answer"])
        for name, scores in strategies(r["question"], tuple(r["choices"])).items():
            mine[sub][name] += _pick(scores, gold)
    card = (out / "README.md").read_text()
    header = next(line for line in card.splitlines() if line.startswith("| subcategory | n |"))
    columns = [c.strip().replace(" ", "_") for c in header.strip("|").split("|")]
    printed = {}
    for line in card.split(header, 1)[1].splitlines():
        m = re.match(r"\| `([\w.]+)`( †)? \|", line)
        if m:
            printed[m.group(1)] = dict(zip(columns, [c.strip() for c in line.strip("|").split("|")]))
    assert set(printed) == set(count), set(count) ^ set(printed)
    for sub, cells in printed.items():
        assert int(cells["n"]) == count[sub]
        for name in ("longest", "shortest", "second_smallest", "median"):
            assert cells[name] == f"{100 * mine[sub][name] / count[sub]:.0f}%", (sub, name, cells[name])
