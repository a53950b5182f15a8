"""Choices that do not give the answer away: test-wise strategies that read only the question and
the choices, computed here independently of the build's gate (mirror_hf/bank/_leaks.py), pooled
over three parallel forms (about 375 items per subcategory), must stay at or below 33% (25% is
chance) in every subcategory; pooled over eight forms (about 1,000 items, the slow set) at or below
30%. The answer priors (the string most often the gold in the form's other items, the option most
often the gold when offered there) are among them, and each strategy that reads the item alone is
also turned round (`avoid_<name>`: strike its pick off and choose among the rest).

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


def _struck(values: list, gold: int) -> float:
    """Fractional credit of striking off the largest value(s) and choosing among the rest."""
    if values is None:
        return 0.25
    top = max(values)
    rest = [i for i, v in enumerate(values) if v != top]
    return (gold in rest) / len(rest) if rest else 0.25


def _both(name: str, values: list, gold: int):
    """The strategy's credit and its turned-round twin's (`avoid_<name>`)."""
    return (name, _pick(values, gold)), (f"avoid_{name}", _struck(values, gold))


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


def _log_closeness(choices):
    nums = [_num(c) for c in choices]
    if None in nums or min(nums) <= 0:
        return None
    logs = [math.log(v) for v in nums]
    return [-sum(abs(a - b) for b in logs) for a in logs]


def strategies(question: str, choices: tuple[str, ...]) -> dict[str, list | None]:
    centre = _centrality(choices)
    qwords = _words(question)
    digits = [sum(ch in "0123456789" for ch in c) for c in choices]
    words = [_words(c) for c in choices]
    return {
        "longest": [len(c) for c in choices],
        "shortest": [-len(c) for c in choices],
        "most_digits": digits,
        "fewest_digits": [-d for d in digits],
        "most_similar": centre,
        "odd_one_out": [-x for x in centre],
        "most_shared_words": [sum(len(w & v) for j, v in enumerate(words) if j != i) for i, w in enumerate(words)],
        "shares_question_words": [len(w & qwords) for w in words],
        "smallest": _ranked(choices, {0}),
        "second_smallest": _ranked(choices, {1}),
        "median": _ranked(choices, {1, 2}),
        "second_largest": _ranked(choices, {2}),
        "largest": _ranked(choices, {3}),
        "numeric_centre": _log_closeness(choices),
    }


def _key(text: str) -> str:
    return " ".join(re.findall(r"[a-z0-9]+", text.lower()))


def prior_credit(questions) -> dict[tuple[str, str], float]:
    """The answer priors, learnt as a respondent would from the form's other items of the
    subcategory: the string most often the gold there, and the option most often the gold when
    offered there (one pseudo-offer at chance). Summed credit per (subcategory, prior)."""
    gold, offered = collections.Counter(), collections.Counter()
    for q in questions:
        sub = (q.seed, q.domain, q.subcategory)
        gold[sub, _key(q.answer)] += 1
        for k in {_key(c) for c in q.choices}:
            offered[sub, k] += 1
    out = collections.defaultdict(float)
    for q in questions:
        sub = (q.seed, q.domain, q.subcategory)
        own = _key(q.answer)
        keys = [_key(c) for c in q.choices]
        g = [gold[sub, k] - (k == own) for k in keys]
        rate = [(x + 0.25) / (offered[sub, k]) for x, k in zip(g, keys)]  # offered less its own offer, plus one
        name = f"{q.domain}.{q.subcategory}"
        out[name, "gold_prior"] += _pick(g, keys.index(own))
        out[name, "offered_prior"] += _pick(rate, keys.index(own))
    return out


def pooled_table(questions):
    """Strategy accuracy per subcategory, priors included, computed here; and the gate's own."""
    credit = collections.defaultdict(float)
    count = collections.Counter()
    for q in questions:
        sub = f"{q.domain}.{q.subcategory}"
        gold = q.choices.index(q.answer)
        count[sub] += 1
        for name, scores in strategies(q.question, q.choices).items():
            for strategy, value in _both(name, scores, gold):
                credit[sub, strategy] += value
    credit.update(prior_credit(questions))
    gate = collections.defaultdict(dict)
    for cell in _leaks.strategy_table(questions):
        gate[cell.subcategory][cell.strategy] = cell.accuracy
    table = {sub: {name: credit[sub, name] / n for name in _leaks.ALL_STRATEGIES} for sub, n in count.items()}
    return table, count, gate


@pytest.fixture(scope="module")
def pooled(three_forms):
    """Strategy accuracy per subcategory, pooled over three forms."""
    return pooled_table([q for seed in SEEDS for q in three_forms[seed]])


EXACT = ("longest", "shortest", "most_digits", "fewest_digits", "smallest", "second_smallest", "median",
         "second_largest", "largest", "numeric_centre", "gold_prior", "offered_prior")
EXACT = (*EXACT, *(f"avoid_{name}" for name in EXACT if not name.endswith("_prior")))


def _check_table(table, count, gate, bound, min_n, repair=_leaks.UNDER_REPAIR):
    print(f"\n{'subcategory':42s} {'n':>4s} best strategy            share")
    over, fixed = [], []
    for sub, row in sorted(table.items()):
        best = max(row, key=row.get)
        print(f"{sub:42s} {count[sub]:4d} {best:24s} {row[best]:.3f}{'  (under repair)' if sub in repair else ''}")
        if row[best] > bound and sub not in repair:
            over.append((sub, best, round(row[best], 3)))
        if sub in repair and row[best] <= bound and max(gate[sub].values()) <= bound:
            fixed.append(sub)
        # where this file and the gate define a strategy alike (other code), their figures agree;
        # likeness and word overlap are read differently on purpose (bigram Jaccard vs trigram Dice)
        for name in EXACT:
            assert abs(row[name] - gate[sub][name]) < 0.02, (sub, name, row[name], gate[sub][name])
    assert count and min(count.values()) >= min_n, count
    assert not over, f"test-wise strategies beat {bound:.0%}: {over}"
    assert not fixed, f"no longer leaking, take them off UNDER_REPAIR: {fixed}"


def test_every_subcategory_best_strategy_within_bound(pooled):
    _check_table(*pooled, BOUND, 350)


EIGHT_SEEDS = tuple(range(8))


@pytest.mark.slow
def test_eight_pooled_forms_best_strategy_within_pooled_bound():
    """The issue's bar: eight forms pooled (about 1,000 items per subcategory), every
    subcategory's best choice-only strategy, the answer priors included, at most 30%."""
    from forms import form

    questions = [q for seed in EIGHT_SEEDS for q in form(seed)]
    _check_table(*pooled_table(questions), _leaks.POOLED_BOUND, 950)
    _leaks.check_pooled(questions)


def test_planted_digit_edit_generator_fails_the_gate():
    """A generator whose distractors are digit edits of its gold (624 -> 524, 634, 625) leaves the
    gold the choice most like the others: one form of it is refused by the build's gate, naming
    the subcategory, the strategy and its rate, and so is the pooled check."""
    import random

    from mirror_hf.bank import GateError, Item
    from mirror_hf.bank._core import Domain, generate_domain

    domain = Domain("arithmetic", "test")

    @domain.subcategory("unit_conversion", difficulty={"easy": "-", "medium": "-", "hard": "-"})
    def leaky(rng: random.Random, difficulty: str) -> Item:
        gold = str(rng.randrange(100, 1000))
        edits = set()
        while len(edits) < 3:
            pos = rng.randrange(3)
            digit = str(rng.choice([d for d in "0123456789" if d != gold[pos] and (pos or d != "0")]))
            edits.add(gold[:pos] + digit + gold[pos + 1:])
        return Item(f"How many grams are in {gold} of something ({rng.random():.6f})?", gold, "exact_numeric",
                    tuple(sorted(edits)), {"gold": gold, "r": rng.random()})

    questions = list(generate_domain(domain, 0, 125))
    with pytest.raises(GateError, match=r"arithmetic\.unit_conversion most_similar \d+\.\d%"):
        _leaks.check_leaks(questions)
    with pytest.raises(GateError, match=r"arithmetic\.unit_conversion most_similar"):
        _leaks.check_pooled(questions)


def test_gate_priors_on_hand_cases():
    """The answer priors read the form's other items: a string that is the gold wherever it is
    offered is picked; an item's own gold is left out, so strings seen nowhere else tie."""
    from mirror_hf.records import Question

    def q(i, choices, gold, seed=0):
        return Question(id=f"x.{i}.{seed}", domain="procedural", subcategory="error_recovery", difficulty="easy",
                        question="What should the client do next here?", choices=tuple(choices), answer=gold,
                        answer_type="short_text", aliases=(), generator="t", seed=seed)

    leaky = [q(i, ["Retry the request now", f"a{i}", f"b{i}", f"c{i}"], "Retry the request now") for i in range(40)]
    cells = {c.strategy: c.accuracy for c in _leaks.strategy_table(leaky)}
    assert cells["gold_prior"] == 1.0 and cells["offered_prior"] == 1.0
    unique = [q(i, [f"w{i}", f"x{i}", f"y{i}", f"z{i}"], f"w{i}") for i in range(40)]
    cells = {c.strategy: c.accuracy for c in _leaks.strategy_table(unique)}
    assert cells["gold_prior"] == 0.25 and cells["offered_prior"] == 0.25
    # learnt within a form: the same item on another seed teaches nothing
    twice = [q(i, [f"w{i}", f"x{i}", f"y{i}", f"z{i}"], f"w{i}", seed) for i in range(40) for seed in (0, 1)]
    assert {c.strategy: c.accuracy for c in _leaks.strategy_table(twice)}["gold_prior"] == 0.25


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


# ---- inside an item kind ---------------------------------------------------------------------------
#
# A subcategory mixes item kinds (a generator's params "kind" or "template": "which direction" and
# "which way back" walks, "equivalent formula" and "row count" items), and the question's wording tells
# a respondent which kind an item is. A strategy that wins inside one kind is a shortcut even when
# another kind cancels it in the subcategory's figure, so every strategy is also scored per kind:
# one-sided binomial test of its credit against 1/4 (credit rounded down), Benjamini-Hochberg over
# every (kind, strategy) cell with at least KIND_MIN_ITEMS items, flagged at q < KIND_Q.

KIND_MIN_ITEMS = 40
KIND_Q = 0.01


def item_kind(q) -> str:
    params = q.params or {}
    kind = params.get("kind") or params.get("template")
    return kind if isinstance(kind, str) else "-"


def kind_leaks(questions, min_items: int = KIND_MIN_ITEMS, q_level: float = KIND_Q) -> tuple[int, list[tuple]]:
    """(cells tested, flagged rows (q, subcategory, kind, strategy, share, n)), most significant first."""
    credit: collections.defaultdict = collections.defaultdict(float)
    count: collections.Counter = collections.Counter()
    for q in questions:
        key = (f"{q.domain}.{q.subcategory}", item_kind(q))
        count[key] += 1
        gold = q.choices.index(q.answer)
        for name, scores in strategies(q.question, q.choices).items():
            for strategy, value in _both(name, scores, gold):
                credit[key + (strategy,)] += value
    cells = [(key, c, count[key[:2]]) for key, c in credit.items() if count[key[:2]] >= min_items]
    if not cells:
        return 0, []
    pvalues = [stats.binomtest(math.floor(c + 1e-9), n, 0.25, alternative="greater").pvalue for _, c, n in cells]
    qvalues = stats.false_discovery_control(pvalues, method="bh")
    flagged = sorted((float(qv), *key, c / n, n) for qv, (key, c, n) in zip(qvalues, cells) if qv < q_level)
    return len(cells), flagged


def _kind_report(tested: int, flagged: list[tuple]) -> str:
    rows = [f"  {sub:36s} {kind[:28]:28s} {name:22s} {share:.1%} of {n}, q={qv:.1g}" for qv, sub, kind, name, share, n in flagged]
    return "\n".join([f"{len(flagged)} of {tested} (kind, strategy) cells beat chance:", *rows[:30]])


def test_kind_check_on_hand_cases():
    """A kind whose gold is always the longest choice is flagged, naming the kind, and so is the kind
    beside it whose gold is always the shortest, though the two pool to chance for "longest" in the
    subcategory; a kind whose choices give nothing away is not."""
    from mirror_hf.records import Question

    def q(i, kind):
        if kind == "leaky":
            gold, others = "the right answer, at length", ["wrong a", "wrong b", "wrong c"]
        elif kind == "counter":
            gold, others = "ok", ["wrong answer d", "wrong answer e", "wrong answer f"]
        else:  # four look-alike options, the gold among them in turn
            gold, others = f"option {i % 4}", [f"option {(i + j) % 4}" for j in (1, 2, 3)]
        choices = tuple(others[: i % 4] + [gold] + others[i % 4:])
        return Question(id=f"x.{kind}.{i}", domain="linguistic", subcategory="syntax_parsing", difficulty="easy",
                        question="Pick one of these options please.", choices=choices, answer=gold,
                        answer_type="short_text", aliases=(), generator="t", seed=0, params={"kind": kind})

    questions = [q(i, "leaky") for i in range(100)] + [q(i, "counter") for i in range(300)]
    pooled = sum(_pick(strategies(x.question, x.choices)["longest"], x.choices.index(x.answer)) for x in questions)
    assert pooled / len(questions) == 0.25  # the subcategory as a whole shows chance for "longest"
    tested, flagged = kind_leaks(questions + [q(i, "fair") for i in range(200)])
    assert tested == 3 * 2 * len(strategies("", ("a", "b", "c", "d"))), tested  # each strategy and its avoid_ twin
    named = {(row[2], row[3]) for row in flagged}
    assert {("leaky", "longest"), ("counter", "shortest")} <= named and "fair" not in {k for k, _ in named}, flagged


def test_no_strategy_beats_chance_inside_an_item_kind(three_forms):
    """Three parallel forms pooled (the default suite)."""
    tested, flagged = kind_leaks([q for seed in SEEDS for q in three_forms[seed]])
    print(f"\n{tested} (kind, strategy) cells of at least {KIND_MIN_ITEMS} items over three forms")
    assert tested > 1000 and not flagged, _kind_report(tested, flagged)


@pytest.mark.slow
def test_no_strategy_beats_chance_inside_an_item_kind_eight_forms():
    """Eight parallel forms pooled (the slow set)."""
    from forms import form

    tested, flagged = kind_leaks([q for seed in EIGHT_SEEDS for q in form(seed)])
    print(f"\n{tested} (kind, strategy) cells of at least {KIND_MIN_ITEMS} items over eight forms")
    assert tested > 1500 and not flagged, _kind_report(tested, flagged)
