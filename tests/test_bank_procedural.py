"""The procedural bank, checked by running every procedure again with this file's own code.

The solvers here are written independently of mirror_hf.bank.procedural: sorting passes via
`sorted` and a carry-the-maximum formulation, containers via collections.deque, shortest plans by
Dijkstra's algorithm (heapq) instead of breadth-first search, rule tables via the operator module,
dependency closure by recursion. Each item's answer must equal the re-derived value and no other
choice may.
"""

from __future__ import annotations

import heapq
import operator
import random
import re
from collections import Counter, defaultdict, deque
from fractions import Fraction
from statistics import mean

import pytest

from mirror_hf.bank import procedural
from mirror_hf.bank._core import generate_domain, normalise_text
from mirror_hf.records import DIFFICULTIES, canonical_json

SEEDS = (0, 1)
N = 625


@pytest.fixture(scope="module")
def banks():
    return {seed: list(generate_domain(procedural.DOMAIN, seed, N)) for seed in SEEDS}


def _all(banks):
    for seed in SEEDS:
        yield from banks[seed]


def as_list(values) -> str:
    return "[" + ", ".join(map(str, values)) + "]"


def as_number(x) -> str:
    x = Fraction(x)
    if x.denominator == 1:
        return str(x.numerator)
    return format(float(x), "f").rstrip("0").rstrip(".")


# ---------------------------------------------------------------------------------------------
# Independent solvers
# ---------------------------------------------------------------------------------------------


def bubble(values, passes):
    """Each pass carries the running maximum to the right."""
    out = list(values)
    for _ in range(passes):
        carry, rebuilt = out[0], []
        for x in out[1:]:
            rebuilt.append(min(carry, x))
            carry = max(carry, x)
        out = rebuilt + [carry]
    return out


def selection(values, passes):
    out = list(values)
    for i in range(passes):
        j = out.index(min(out[i:]), i)
        out[i], out[j] = out[j], out[i]
    return out


def insertion(values, inserted):
    """After k insertions the first k+1 elements are sorted and the rest untouched."""
    return sorted(values[: inserted + 1]) + list(values[inserted + 1 :])


def container(ops, structure):
    d = deque()
    removed = []
    for op in ops:
        if op[0] == "add":
            d.append(op[1])
        else:
            removed.append(d.pop() if structure == "stack" else d.popleft())
    return removed, d


LOOP_RULES = {
    "collatz": lambda x, i, r: 3 * x + 1 if x % 2 else x // 2,
    "add_mod": lambda x, i, r: (x + r[1]) % r[2],
    "double_cap": lambda x, i, r: 2 * x - r[1] if 2 * x > r[1] else 2 * x,
    "digit_sum_add": lambda x, i, r: x + sum(map(int, str(x))),
    "alt": lambda x, i, r: x + r[1] if i % 2 else x - r[2],
}


def loop(rule, start, steps):
    x = start
    for i in range(1, steps + 1):
        x = LOOP_RULES[rule[0]](x, i, rule)
    return x


def probes(values, target, lo=0, hi=None):
    hi = len(values) - 1 if hi is None else hi
    if lo > hi:
        return []
    mid = (lo + hi) // 2
    if values[mid] == target:
        return [values[mid]]
    if values[mid] < target:
        return [values[mid]] + probes(values, target, mid + 1, hi)
    return [values[mid]] + probes(values, target, lo, mid - 1)


def bowls(steps):
    a_b = [Fraction(0), Fraction(0)]
    index = {"A": 0, "B": 1}
    for op, *args in steps:
        if op == "add":
            a_b[index[args[0]]] += args[1]
        elif op == "remove":
            a_b[index[args[0]]] -= args[1]
        elif op == "half":
            half = a_b[index[args[0]]] / 2
            a_b[index[args[0]]] -= half
            a_b[index[args[1]]] += half
        else:
            a_b[index[args[1]]] += a_b[index[args[0]]]
            a_b[index[args[0]]] = Fraction(0)
    return dict(zip("AB", a_b))


def oven(trays, capacity, bake, gap, preheat):
    clock, left = preheat, trays
    while left > 0:
        clock += bake
        left -= capacity
        if left > 0:
            clock += gap
    return clock


OPS = {">": operator.gt, ">=": operator.ge, "<": operator.lt, "<=": operator.le, "==": operator.eq}


def rule_table(rules, case, default):
    for rule in rules:
        if all(OPS[op](case[field], value) for field, op, value in rule["when"]):
            return rule["action"]
    return default


def dijkstra(start, is_goal, moves):
    best = {start: 0}
    heap = [(0, 0, start)]
    tie = 0
    while heap:
        cost, _, state = heapq.heappop(heap)
        if is_goal(state):
            return cost
        if cost > best.get(state, cost):
            continue
        for nxt in moves(state):
            if cost + 1 < best.get(nxt, 10**9):
                best[nxt] = cost + 1
                tie += 1
                heapq.heappush(heap, (cost + 1, tie, nxt))
    return None


def jug_next(state, caps):
    out = set()
    n = len(caps)
    for i in range(n):
        out.add(state[:i] + (caps[i],) + state[i + 1 :])
        out.add(state[:i] + (0,) + state[i + 1 :])
        for j in range(n):
            if i == j:
                continue
            move = min(state[i], caps[j] - state[j])
            s = list(state)
            s[i], s[j] = s[i] - move, s[j] + move
            out.add(tuple(s))
    return out


def grid_next(grid, cell):
    r, c = cell
    for nr, nc in ((r - 1, c), (r + 1, c), (r, c - 1), (r, c + 1)):
        if 0 <= nr < len(grid) and 0 <= nc < len(grid[nr]) and grid[nr][nc] != "#":
            yield nr, nc


def locate(grid, ch):
    return next((r, row.index(ch)) for r, row in enumerate(grid) if ch in row)


def button_next(x, buttons):
    for op, k in buttons:
        y = {"+": x + k, "*": x * k, "-": x - k}[op]
        if 0 <= y <= 2000:
            yield y


def knight_next(sq):
    f, r = sq
    for df in (-2, -1, 1, 2):
        for dr in (-2, -1, 1, 2):
            if abs(df) != abs(dr) and 0 <= f + df < 8 and 0 <= r + dr < 8:
                yield f + df, r + dr


def square(text):
    return "abcdefgh".index(text[0]), int(text[1]) - 1


def must_redo(deps, faulty, done):
    parents = {int(k): v for k, v in deps.items()}

    def tainted(step):
        return step == faulty or any(tainted(p) for p in parents.get(step, []))

    return [s for s in range(1, done + 1) if tainted(s)]


def resume_step(checkpoints, failed, corrupted):
    usable = [c for c in checkpoints if c < failed and c != corrupted]
    return max(usable) + 1 if usable else 1


def retry_action(log, max_timeouts, wait):
    seen = Counter()
    for event in log:
        seen[event] += 1
    last = log[-1]
    if last == "timeout":
        return "Retry the request now" if seen["timeout"] <= max_timeouts else "Stop retrying and escalate to the on-call engineer"
    if last == "auth_expired":
        return "Refresh the access token, then retry" if seen["auth_expired"] == 1 else "Abort and report the failure"
    if last == "not_found":
        return "Abort and report the failure"
    return f"Wait {wait * 2 ** (seen['rate_limited'] - 1)} seconds, then retry"


# ---------------------------------------------------------------------------------------------
# Re-derivation per kind
# ---------------------------------------------------------------------------------------------


def expected(q) -> str:
    p = q.params
    kind = p["kind"]
    if kind == "sort_passes":
        assert as_list(p["values"]) in q.question and f"{p['passes']} pass" in q.question
        run = {"bubble": bubble, "selection": selection, "insertion": insertion}[p["algorithm"]]
        assert p["algorithm"] in q.question
        return as_list(run(p["values"], p["passes"]))
    if kind == "stack_queue":
        assert p["structure"] in q.question
        removed, left = container(p["ops"], p["structure"])
        if p["ask"] == "last_removed":
            return str(removed[-1])
        return str(left[-1] if p["structure"] == "stack" else left[0])
    if kind == "loop":
        assert f"= {p['start']}" in q.question and f"{p['steps']} times" in q.question
        return str(loop(p["rule"], p["start"], p["steps"]))
    if kind == "binary_search":
        assert as_list(p["values"]) in q.question and f"for {p['target']} " in q.question
        seq = probes(p["values"], p["target"])
        return str(len(seq)) if p["ask"] == "count" else ", ".join(map(str, seq))
    if kind == "scale":
        for ingredient, amount in p["recipe"].items():
            assert f"{amount} " in q.question and ingredient in q.question
        value = Fraction(p["recipe"][p["ingredient"]]) * p["target_servings"] / p["base_servings"] - p["already_have"]
        return as_number(value)
    if kind == "bowls":
        for step in p["steps"]:
            if step[0] in ("add", "remove"):
                assert f"{step[2]} g" in q.question
        return as_number(bowls(p["steps"])[p["ask"]])
    if kind == "oven":
        assert f"{p['trays']} trays" in q.question and f"{p['bake']} minutes" in q.question
        return str(oven(p["trays"], p["capacity"], p["bake"], p["gap"], p["preheat"]))
    if kind == "rule_table":
        assert q.question.count("Rule ") == len(p["rules"])
        return rule_table(p["rules"], p["case"], p["default"])
    if kind == "jugs":
        caps = tuple(p["capacities"])
        unit = "litre" if p["target"] == 1 else "litres"
        assert all(f"{c}" in q.question for c in caps) and f"exactly {p['target']} {unit}" in q.question
        return str(dijkstra(tuple(0 for _ in caps), lambda s: p["target"] in s, lambda s: jug_next(s, caps)))
    if kind == "grid":
        grid = p["grid"]
        assert " / ".join(row.replace(".", "_") for row in grid) in q.question
        goal = locate(grid, "G")
        return str(dijkstra(locate(grid, "S"), lambda c: c == goal, lambda c: grid_next(grid, c)))
    if kind == "buttons":
        assert f"{p['start']}" in q.question and f"{p['target']}" in q.question
        return str(dijkstra(p["start"], lambda x: x == p["target"], lambda x: button_next(x, p["buttons"])))
    if kind == "knight":
        goal = square(p["to"])
        assert p["from"] in q.question and p["to"] in q.question
        return str(dijkstra(square(p["from"]), lambda s: s == goal, knight_next))
    if kind == "redo":
        assert f"step {p['faulty']} (" in q.question and f"Steps 1 to {p['done']}" in q.question
        redo = must_redo(p["deps"], p["faulty"], p["done"])
        return str(len(redo)) if p["ask"] == "count" else ", ".join(map(str, redo))
    if kind == "checkpoint":
        assert f"Step {p['failed']} " in q.question
        gold = resume_step(p["checkpoints"], p["failed"], p["corrupted"])
        # read from the wording too: a checkpoint saved after step k restarts at k + 1, one saved
        # before step k restarts at k; usable if saved before the failing step began
        restart = {int(k) + (w == "after") for w, k in re.findall(r"\b(after|before) step (\d+)", q.question)}
        bad = re.search(r"saved (after|before) step (\d+) turns out to be corrupted", q.question)
        if bad:
            restart.discard(int(bad.group(2)) + (bad.group(1) == "after"))
        assert gold == max([r for r in restart if r <= p["failed"]], default=1), q.question
        return str(gold)
    if kind == "retry":
        assert q.question.count("Attempt ") == len(p["log"])
        return retry_action(p["log"], p["max_timeouts"], p["wait"])
    raise AssertionError(f"unknown kind {kind}")


def difficulty_measure(q) -> float:
    """A size the difficulty notes promise to raise: work to do or length of the optimum."""
    p = q.params
    kind = p["kind"]
    if kind == "sort_passes":
        return len(p["values"]) * p["passes"]
    if kind == "stack_queue":
        return len(p["ops"])
    if kind == "loop":
        return p["steps"]
    if kind == "binary_search":
        return len(p["values"])
    if kind == "scale":
        low, high = sorted((p["base_servings"], p["target_servings"]))
        return 1 + (p["already_have"] > 0) + (high % low != 0)  # a fractional factor, up or down
    if kind == "bowls":
        return len(p["steps"])
    if kind == "oven":
        return p["trays"] + (p["gap"] > 0) + (p["preheat"] > 0)
    if kind == "rule_table":
        return sum(len(r["when"]) for r in p["rules"])
    if kind in ("jugs", "grid", "buttons", "knight"):
        return int(q.answer)
    if kind == "redo":
        return len(p["deps"]) + 1
    if kind == "checkpoint":
        return p["steps"]
    if kind == "retry":
        return len(p["log"])
    raise AssertionError(kind)


# ---------------------------------------------------------------------------------------------
# Tests
# ---------------------------------------------------------------------------------------------

SUBCATEGORIES = ["algorithm_execution", "recipe_following", "protocol_compliance", "multistep_planning", "error_recovery"]


def test_five_subcategories_with_difficulty_notes():
    assert list(procedural.DOMAIN.subcategories) == SUBCATEGORIES
    for sub in procedural.DOMAIN.subcategories.values():
        assert set(sub.difficulty) == set(DIFFICULTIES) and all(len(t) > 40 for t in sub.difficulty.values())


@pytest.mark.parametrize("subcategory", SUBCATEGORIES)
def test_every_answer_recomputed_independently(banks, subcategory):
    kinds = Counter()
    for q in _all(banks):
        if q.subcategory != subcategory:
            continue
        gold = expected(q)
        assert q.answer == gold, (q.id, q.answer, gold)
        # Exactly one defensible choice: no distractor is the re-derived value.
        assert sum(normalise_text(c) == normalise_text(gold) for c in q.choices) == 1, q.id
        kinds[q.params["kind"]] += 1
    assert sum(kinds.values()) == 2 * N // 5
    assert len(kinds) >= (1 if subcategory == "protocol_compliance" else 3), kinds


def test_shape_of_every_item(banks):
    for q in _all(banks):
        assert q.answer in q.choices and len(q.choices) == 4
        assert len({normalise_text(c) for c in q.choices}) == 4, q.id
        assert q.answer_type in ("short_text", "exact_numeric", "multiple_choice")
        if q.answer_type == "exact_numeric":
            assert re.fullmatch(r"-?\d+(\.\d+)?", q.answer), q.id
            assert all(re.fullmatch(r"-?\d+(\.\d+)?", c) for c in q.choices), q.id
        canonical_json(q.params)
    for seed in SEEDS:
        counts = Counter((q.subcategory, q.difficulty) for q in banks[seed])
        assert set(counts) == {(s, d) for s in SUBCATEGORIES for d in DIFFICULTIES}
        assert len({normalise_text(q.question) for q in banks[seed]}) == N


def test_difficulty_raises_the_work(banks):
    by = defaultdict(list)
    for q in _all(banks):
        by[(q.subcategory, q.params["kind"], q.difficulty)].append(difficulty_measure(q))
    for (sub, kind, diff), values in sorted(by.items()):
        if diff == "easy" and (sub, kind, "hard") in by:
            easy, hard = mean(values), mean(by[(sub, kind, "hard")])
            medium = mean(by.get((sub, kind, "medium"), [easy]))
            assert easy < hard and easy <= medium <= hard, (sub, kind, easy, medium, hard)


def test_wording_varies(banks):
    openings = defaultdict(set)
    for q in banks[0]:
        openings[q.subcategory].add(" ".join(q.question.split()[:3]))
    for sub, found in openings.items():
        assert len(found) >= 4, (sub, found)


def test_rule_tables_need_their_order(banks):
    """Medium and hard tables mostly have a later rule that also matches (reading order matters)."""
    later = Counter()
    for q in _all(banks):
        if q.subcategory == "protocol_compliance" and q.difficulty != "easy":
            p = q.params
            matching = [r for r in p["rules"] if all(OPS[op](p["case"][f], v) for f, op, v in r["when"])]
            later[len(matching) >= 2] += 1
    assert later[True] > later[False]


def test_seed_determines_the_bank():
    first = [q.to_row() for q in generate_domain(procedural.DOMAIN, 3, 100)]
    assert first == [q.to_row() for q in generate_domain(procedural.DOMAIN, 3, 100)]
    other = {q["question"] for q in (q.to_row() for q in generate_domain(procedural.DOMAIN, 4, 100))}
    assert len({row["question"] for row in first} & other) < 5


def test_banks_do_not_depend_on_the_hash_seed():
    """Set and frozenset iteration order changes with PYTHONHASHSEED; the bank must not. One child
    process with a fixed hash seed must draw what this process (random hash seed) draws. This covers
    the factual bank too, whose stated lists are frozensets."""
    import hashlib
    import os
    import subprocess
    import sys

    from mirror_hf.bank import factual

    script = (
        "import hashlib; from mirror_hf.bank._core import generate_domain;"
        "from mirror_hf.bank import factual, procedural; from mirror_hf.records import canonical_json;"
        "h = hashlib.sha256();"
        "[h.update(canonical_json(q.to_row()).encode()) for d in (factual, procedural) for q in generate_domain(d.DOMAIN, 5, 150)];"
        "print(h.hexdigest())"
    )
    here = hashlib.sha256()
    for domain in (factual, procedural):
        for q in generate_domain(domain.DOMAIN, 5, 150):
            here.update(canonical_json(q.to_row()).encode())
    env = {**os.environ, "PYTHONHASHSEED": "12345"}
    child = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, check=True)
    assert child.stdout.strip() == here.hexdigest()


def test_triage_tables_stay_clinically_plausible(banks):
    """Issue 30: a triage rule tests for a warning sign (chest pain or difficulty breathing present,
    a temperature of at least 37.5 °C, a heart rate of at least 100, an age of at least 65), never a
    normal value; and a patient with an alarm sign (fever of 39 °C or more, heart rate of 120 or
    more, chest pain, difficulty breathing) is never sent to the routine queue or the pharmacy."""
    floors = {"temperature": 37.5, "heart_rate": 100, "age": 65}
    calm = {"Routine queue", "Refer to pharmacy"}
    n = 0
    for q in _all(banks):
        p = q.params
        if q.subcategory != "protocol_compliance" or p["protocol"] != "triage":
            continue
        n += 1
        for rule in p["rules"]:
            assert rule["action"] not in calm, (q.id, rule)
            for field, op, value in rule["when"]:
                if field in floors:
                    assert op in (">", ">=") and value >= floors[field], (q.id, field, op, value)
                else:
                    assert value is True, (q.id, field, op, value)
        case = p["case"]
        if case["chest_pain"] or case["breathing_difficulty"] or case["temperature"] >= 39 or case["heart_rate"] >= 120:
            assert q.answer not in calm, (q.id, case, q.answer)
    assert n >= 30, n


def _tests(rule, field, *, value=None, above=None):
    """Whether a rule has a condition on `field`: that it equals `value`, or a lower bound at or above `above`."""
    for f, op, v in rule["when"]:
        if f != field:
            continue
        if above is not None and op in (">", ">=") and v >= above:
            return True
        if value is not None and op == "==" and v == value:
            return True
    return False


# What a reader with common sense expects of each rule, written from how such desks work (a triage
# nurse's, a shop's, an IT desk's, a warehouse's), not from the generator's tables: a rule that broke
# one would invite world knowledge to overrule it.
SENSIBLE = {
    # only a threat to life goes to resuscitation: difficulty breathing, chest pain, a racing heart
    "Resuscitation bay now": lambda r: (_tests(r, "breathing_difficulty", value=True) or _tests(r, "chest_pain", value=True)
                                        or _tests(r, "heart_rate", above=130)),
    # infection testing follows a fever or breathing trouble, not chest pain, age or pulse alone
    "Isolate and test for infection": lambda r: (_tests(r, "temperature", above=37.8)
                                                 or _tests(r, "breathing_difficulty", value=True)),
    # chest pain and difficulty breathing need a doctor, not a nurse
    "See a nurse within 1 hour": lambda r: not (_tests(r, "chest_pain", value=True)
                                                or _tests(r, "breathing_difficulty", value=True)),
    "Return for a receipt": lambda r: _tests(r, "has_receipt", value=False),
    "Approve automatically": lambda r: not _tests(r, "has_receipt", value=False) and not _tests(r, "amount", above=0),
    "Full refund": lambda r: not _tests(r, "has_receipt", value=False) and not _tests(r, "days_since_purchase", above=0),
    "Offer a repair": lambda r: all(f in ("item_type", "opened") and (f != "item_type" or v == "electronics")
                                    for f, _, v in r["when"]),
    "Require MFA setup first": lambda r: _tests(r, "mfa_enabled", value=False),
    "Grant immediately": lambda r: not any(_tests(r, "data_class", value=c) for c in ("confidential", "restricted"))
                                   and not _tests(r, "mfa_enabled", value=False),
    "Hold for inspection": lambda r: _tests(r, "hazardous", value=True),
    "Send by air courier": lambda r: not _tests(r, "hazardous", value=True),
    "Send by standard post": lambda r: not _tests(r, "express", value=True),
}


def test_every_rule_is_one_a_desk_would_write(banks):
    """Issue 30: protocol-compliance rules are sensible as well as in range, so following the table
    never means going against what the desk would plainly do (a 37.9 °C fever sent to the
    resuscitation bay, chest pain to infection testing, a sealed food return offered a repair)."""
    checked = Counter()
    for q in _all(banks):
        if q.subcategory != "protocol_compliance":
            continue
        for rule in q.params["rules"]:
            sensible = SENSIBLE.get(rule["action"])
            if sensible is not None:
                checked[rule["action"]] += 1
                assert sensible(rule), (q.id, rule)
    assert set(checked) == set(SENSIBLE) and min(checked.values()) >= 20, checked


# ---------------------------------------------------------------------------------------------
# Choice-only cues (issue 30): the items themselves, drawn straight from the generators
# ---------------------------------------------------------------------------------------------


def _draw(generator, n):
    """n items of one subcategory generator, difficulties in turn, each from its own seeded stream."""
    import random

    return [generator(random.Random(i), DIFFICULTIES[i % 3]) for i in range(n)]


def _top_credit(scores, gold):
    """Credit of picking the highest score: 1/k when the gold is among k tied at the top."""
    top = max(scores)
    winners = [i for i, s in enumerate(scores) if s == top]
    return (gold in winners) / len(winners)


def _grams(text, n):
    t = text.lower()
    return {t[i : i + n] for i in range(max(len(t) - n + 1, 1))}


LIKENESS = {
    "characters": lambda a, b: len(set(a) & set(b)) / len(set(a) | set(b)),
    "bigrams": lambda a, b: len(_grams(a, 2) & _grams(b, 2)) / len(_grams(a, 2) | _grams(b, 2)),
    "trigrams": lambda a, b: 2 * len(_grams(a, 3) & _grams(b, 3)) / (len(_grams(a, 3)) + len(_grams(b, 3))),
}


def test_traced_lists_do_not_make_the_gold_the_typical_choice():
    """Sorting passes and binary-search probe sequences: the wrong lists are slips of the gold (a
    pass too many, a swap missed, a probe dropped), and when each is one edit of the gold the gold
    is the list most like the other three. Picking the choice with the highest summed likeness to
    the others, read as shared characters, character pairs or character triples, must stay near
    chance (1/4); so must picking the longest or the shortest sequence."""
    items = [q for q in _draw(procedural.algorithm_execution, 1600) if q.answer_type == "short_text"]
    assert {q.params["kind"] for q in items} == {"sort_passes", "binary_search"}
    assert len(items) > 500
    credit = Counter()
    for q in items:
        choices = [q.answer, *q.distractors]
        for name, like in LIKENESS.items():
            centre = [sum(like(a, b) for b in choices if b is not a) for a in choices]
            credit[name] += _top_credit(centre, 0)
        credit["longest"] += _top_credit([len(c) for c in choices], 0)
        credit["shortest"] += _top_credit([-len(c) for c in choices], 0)
    rates = {name: c / len(items) for name, c in credit.items()}
    assert max(rates.values()) <= 0.29, rates


def _value_priors(items):
    """Per offered string: how often it was the gold and how often it was offered; and the credit of
    the answer prior a respondent learns from the other items (pick the option most often right
    when offered, leaving the item itself out, one pseudo-offer at chance as in the leak test)."""
    gold, offered = Counter(), Counter()
    for q in items:
        gold[q.answer] += 1
        offered.update({q.answer, *q.distractors})
    credit = 0.0
    for q in items:
        choices = [q.answer, *q.distractors]
        rate = [(gold[c] - (c == q.answer) + 0.25) / offered[c] for c in choices]
        credit += _top_credit(rate, 0)
    return gold, offered, credit / len(items)


@pytest.mark.parametrize(
    "generator, kinds",
    [(procedural.multistep_planning, None), (procedural.algorithm_execution, ("binary_search",))],
)
def test_move_and_probe_counts_carry_no_answer_prior(generator, kinds):
    """Counted answers (fewest moves, number of probes): each count offered is the gold in about a
    quarter of the items that offer it (a count often right, or never right, would be an answer
    prior a respondent learns from the other items), and the gold is the smallest, second, third or
    largest of the four counts about equally often."""
    items = [q for q in _draw(generator, 1200) if kinds is None or (q.params["kind"] in kinds and q.answer_type == "exact_numeric")]
    assert len(items) > 120
    gold, offered, prior = _value_priors(items)
    assert prior <= 0.29, prior
    for value, n in offered.items():
        if n >= 100:
            assert 0.15 <= gold[value] / n <= 0.35, (value, gold[value], n)
    ranks = Counter(sorted(int(c) for c in (q.answer, *q.distractors)).index(int(q.answer)) for q in items)
    slack = 3.5 * (3 / 16 / len(items)) ** 0.5  # 3.5 standard errors of a share of 1/4
    assert all(abs(ranks[r] / len(items) - 0.25) <= slack for r in range(4)), ranks


@pytest.mark.parametrize(
    "generator",
    [procedural.recipe_following, procedural.error_recovery, procedural.algorithm_execution],
)
def test_every_offered_answer_is_the_gold_a_quarter_of_the_time(generator):
    """Per offered string (issue 30): a choice text that is the gold in most of the items that offer
    it can be picked unread, one that is (almost) never the gold struck off unread. The scaled
    amounts once offered slips such as 400 + 8 g next to a round gold (480 was the gold in 16 of its
    22 offers), bowl weights made the gold the smallest a third of the time, the steps to redo
    offered contiguous runs the rule never gives, loop traces offered values below zero that no
    loop reaches. Over 2,400 items drawn straight from the generator, each string offered at least
    30 times is compared with a fair share of 1/4 of its offers: the squared standardised gaps,
    summed over the strings, stay under the 0.999 quantile of a chi-square with one degree of
    freedom per string, and no single string is more than 4.5 standard errors off. Where the four
    choices are numbers, the gold is the smallest, second, third or largest about equally often."""
    from scipy import stats

    items = _draw(generator, 2400)
    gold, offered = Counter(), Counter()
    ranks = Counter()
    for q in items:
        choices = [q.answer, *q.distractors]
        gold[q.answer] += 1
        offered.update(set(choices))
        if all(re.fullmatch(r"-?\d+(\.\d+)?", c) for c in choices):
            values = sorted(float(c) for c in choices)
            ranks[values.index(float(q.answer))] += 1
    z = {s: (gold[s] - n / 4) / (n * 3 / 16) ** 0.5 for s, n in offered.items() if n >= 30}
    assert len(z) >= 20, len(z)
    statistic = sum(v * v for v in z.values())
    assert statistic <= stats.chi2.ppf(0.999, len(z)), (statistic, len(z), sorted(z.items(), key=lambda kv: -abs(kv[1]))[:5])
    assert max(abs(v) for v in z.values()) <= 4.5, sorted(z.items(), key=lambda kv: -abs(kv[1]))[:5]
    n = sum(ranks.values())
    assert n >= 300, n
    slack = 3.5 * (3 / 16 / n) ** 0.5
    assert all(abs(ranks[r] / n - 0.25) <= slack for r in range(4)), ranks


def test_checkpoint_restart_step_is_named_in_the_question_at_chance():
    """Checkpoint items (restart after a failure): the options are four consecutive step numbers,
    and the question names step numbers (the checkpoints, the failing step, step 1 of the rule). If
    the gold were seldom one of the numbers named, as when every checkpoint was worded as saved
    after its step (the restart step right after it was never named while that checkpoint's step
    was offered), striking off the named options would win: it took 41% of these items over eight
    forms. Picking the named option(s), and striking them off and choosing among the rest, must
    both stay near chance (1/4), pooled and at each difficulty."""
    items = [(DIFFICULTIES[i % 3], procedural._recovery_checkpoint(random.Random(i), DIFFICULTIES[i % 3])) for i in range(2400)]
    credit = defaultdict(float)
    for difficulty, q in items:
        named = set(re.findall(r"\d+", q.question))
        choices = [q.answer, *q.distractors]
        hit = [c in named for c in choices]
        k = sum(hit)
        pick = hit[0] / k if 0 < k < 4 else 0.25
        strike = (not hit[0]) / (4 - k) if 0 < k < 4 else 0.25
        for key in ("all", difficulty):
            credit[key, "pick"] += pick
            credit[key, "strike"] += strike
    rates = {key: c / (len(items) if key[0] == "all" else len(items) / 3) for key, c in credit.items()}
    for (group, name), rate in rates.items():
        assert 0.21 <= rate <= (0.285 if group == "all" else 0.31), (group, name, rate, rates)
