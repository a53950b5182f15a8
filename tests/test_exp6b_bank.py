"""Our Exp6b bank (`exp6b_flawed`): counts, pairing, determinism, and — over every row — that each
flawed instruction's stated approach, premise or steps really fails on its item and each control's
really works. The check reads the numbers off the prompt text (what the model sees) and recomputes
the item's answer from its own parameters with arithmetic written here, never the generator's."""

from __future__ import annotations

import json
import math
import re
from collections import Counter
from decimal import Decimal

import periodictable
import pytest
from runner_fixtures import read_split

from mirror_hf.records import DOMAINS
from mirror_hf.tasks.exp6b import exp6b_tasks

DAYS = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]
STEP = {"north": (0, 1), "south": (0, -1), "east": (1, 0), "west": (-1, 0)}


@pytest.fixture(scope="module")
def rows() -> list[dict]:
    return exp6b_tasks(7)


def _tail(row) -> str:
    """The added instruction: what follows the item's question."""
    question = json.loads(row["params"])["source"]["question"]
    assert row["prompt"].startswith(question + "\n\n")
    return row["prompt"][len(question) + 2:]


def _nums(text: str) -> list[Decimal]:
    return [Decimal(x.replace(",", "")) for x in re.findall(r"\d[\d,]*(?:\.\d+)?", text)]


def _minutes(clock: str) -> int:
    """'14:05', '4:10 PM', '12:25 AM' -> minutes after midnight."""
    m = re.fullmatch(r"(\d{1,2}):(\d{2})(?:\s*([AP]M))?", clock.strip())
    h, mi = int(m.group(1)), int(m.group(2))
    if m.group(3):
        h = h % 12 + (12 if m.group(3) == "PM" else 0)
    return (h * 60 + mi) % 1440


def _gold(kind: str, p: dict):
    """The item's answer from its parameters (our own arithmetic)."""
    if kind == "change":
        return Decimal(p["paid"]) - p["count"] * Decimal(p["price"])
    if kind == "fence_posts":
        return Decimal(p["length"] // p["gap"] + 1)
    if kind == "two_sets":
        g = p["given"]
        return Decimal(g["total"] - (g["A"] + g["B"] - g["both"]))
    if kind == "straight":
        x = sum(STEP[d][0] * n for d, n in p["legs"])
        y = sum(STEP[d][1] * n for d, n in p["legs"])
        return Decimal(str(round(math.hypot(x, y), 6)))
    if kind == "end_time":
        return (_minutes(p["start"]) + p["minutes"]) % 1440
    if kind == "weekday_after_days":
        return DAYS[(DAYS.index(p["start_weekday"]) + p["days"]) % 7]
    raise AssertionError(kind)


def _same(kind: str, a, b) -> bool:
    if kind == "end_time" or kind == "weekday_after_days":
        return a == b
    return Decimal(str(a)).normalize() == Decimal(str(b)).normalize()


def _outcome(kind: str, category: str, tail: str, p: dict):
    """What following the instruction gives (approach, steps) or whether its premise is true,
    computed from the numbers and words the instruction states."""
    n = _nums(tail)
    if category == "flawed_premise":
        if kind == "change":  # "the N items come to $T in total"
            return n[1] == p["count"] * Decimal(p["price"])
        if kind == "fence_posts":  # "divide the line into G equal gaps"
            return n[0] * p["gap"] == p["length"]
        if kind == "two_sets":  # "nobody belongs to both" / "B belong to both"
            stated = 0 if tail.startswith("Note: nobody") else int(n[0])
            return stated == p["given"]["both"]
        if kind == "straight":  # "points straight back along" / "is at a right angle to"
            (d1, _), (d2, _) = p["legs"]
            dot = STEP[d1][0] * STEP[d2][0] + STEP[d1][1] * STEP[d2][1]
            return ("right angle" in tail) == (dot == 0) and ("straight back" in tail) == (dot < 0)
        if kind == "end_time":  # "the duration is M minutes"
            return n[0] == p["minutes"]
        if kind == "weekday_after_days":  # "D days is exactly W whole weeks" / "W whole weeks and R days"
            d, w, *r = n
            return d == p["days"] and 7 * w + (r[0] if r else 0) == p["days"]
    if kind == "change":
        paid = Decimal(p["paid"])
        if category == "wrong_approach":
            if "total cost" in tail:  # "subtract the total cost (N x $P) from the $X paid"
                return paid - n[0] * n[1]
            return paid - n[0]  # "subtract the price of one item ($P) from the $X paid"
        total = n[1] * n[2]  # "Steps: 1) multiply N by $P ..."
        return paid - total if "subtract it from" in tail else total
    if kind == "fence_posts":
        q = n[0] / n[1] if category == "wrong_approach" else n[1] / n[2]
        adjust = 1 if ("add 1" in tail) else -1 if ("subtract 1" in tail) else 0
        return q + adjust
    if kind == "two_sets":
        if category == "wrong_approach":  # "(T - A - B)" or "(T - A - B + X)"
            return n[0] - n[1] - n[2] + (n[3] if len(n) > 3 else 0)
        union = n[1] + n[2] - n[3]  # "1) compute A + B - X ..."
        return p["given"]["total"] - union if "subtract it from" in tail else union
    if kind == "straight":
        if "square root" in tail:
            x, y = n[-4], n[-2]  # "... square root of X^2 + Y^2"
            return Decimal(str(round(math.hypot(x, y), 6)))
        if category == "wrong_approach":
            return n[0] + n[1]
        return n[1]  # "1) note the first leg, X ..." -> reports X
    if kind == "end_time":
        start = _minutes(p["start"])
        if category == "wrong_approach":
            if "hours, multiply by 60" in tail:  # "write the duration as H.MM hours ... M2 minutes"
                return (start + int(Decimal(re.search(r"as (\d+\.\d+) hours", tail).group(1)) * 60)) % 1440
            return (start + int(re.search(r"= (\d+) minutes", tail).group(1))) % 1440
        minutes = int(re.search(r"minutes \((\d+)\)", tail).group(1))
        return (start + minutes) % 1440 if "add them to" in tail else ("minutes", minutes)
    if kind == "weekday_after_days":
        start = DAYS.index(p["start_weekday"])
        days = int(re.search(r"(\d+) (?:divided )?by 7", tail).group(1))
        if category == "wrong_approach":
            move = days // 7 if "whole weeks" in tail else days % 7
            return DAYS[(start + move) % 7]
        return DAYS[(start + days % 7) % 7] if "move that many days" in tail else ("remainder", days % 7)
    raise AssertionError((kind, category))


def test_counts_pairing_and_determinism(rows):
    flawed = [r for r in rows if r["is_flawed"]]
    controls = [r for r in rows if not r["is_flawed"]]
    per_category = Counter((r["category"], r["is_flawed"]) for r in rows)
    print(f"exp6b_flawed: {len(flawed)} flawed + {len(controls)} controls; {dict(per_category)}")
    assert len(flawed) >= 110 and len(controls) >= 110 and len(flawed) == len(controls)
    assert len({r["task_id"] for r in rows}) == len(rows)
    assert len({r["prompt"] for r in rows}) == len(rows)
    by_id = {r["task_id"]: r for r in flawed}
    for c in controls:  # each control is its flawed twin's item and category, one instruction changed
        twin = by_id[c["matched_flaw_id"]]
        assert (twin["category"], twin["domain"]) == (c["category"], c["domain"])
        assert json.loads(twin["params"])["source"] == json.loads(c["params"])["source"]
        assert _tail(twin) != _tail(c)
    assert {r["category"] for r in rows} == {"wrong_approach", "flawed_premise", "missing_real_goal"}
    assert exp6b_tasks(7) == rows and exp6b_tasks(8) != rows


@pytest.mark.parametrize("seed", [0, 7, 23])
def test_every_flaw_fails_and_every_control_works(seed):
    """The first six kinds, reread from the prompt text (the other kinds: `_check_new_kinds` below)."""
    seen = Counter()
    for row in exp6b_tasks(seed):
        meta = json.loads(row["params"])
        kind, source = meta["kind"], meta["source"]
        if kind in NEW_KINDS:
            continue
        p, category = source["params"], row["category"]
        gold = _gold(kind, p)
        # our recomputed gold is the bank item's own answer
        if kind == "end_time":
            assert _minutes(source["answer"]) == gold, row["task_id"]
        elif kind == "weekday_after_days":
            assert source["answer"] == gold, row["task_id"]
        else:
            assert _same(kind, source["answer"], gold), (row["task_id"], source["answer"], gold)
        outcome = _outcome(kind, category, _tail(row), p)
        works = outcome if category == "flawed_premise" else _same(kind, outcome, gold) if not isinstance(outcome, tuple) else False
        assert works is (not row["is_flawed"]), (row["task_id"], _tail(row), outcome, gold)
        seen[(category, row["is_flawed"])] += 1
    print("checked by recomputation:", dict(seen))
    assert len(seen) == 6


def test_built_folder_has_the_config(built_folder):
    bank = read_split(built_folder, "exp6b_flawed", "test")
    assert bank.height == len(exp6b_tasks(0))
    assert bank["is_flawed"].sum() == bank.height // 2


# ------------------------------------------------------------------ the kinds of every other domain
#
# For these kinds the check is on the value each instruction states (`params.stated`, also shown in
# the prompt): the truth is recomputed here from the item's parameters — arithmetic, the periodic
# table read from `periodictable` directly, the morphology item's own accepted forms, the social
# item's own facts — and a flawed instruction must state something other than the truth, its control
# exactly the truth.

ELEMENTS = periodictable.elements


def _name(z: int) -> str:
    return ELEMENTS[z].name.lower()


def _pleased(p: dict) -> bool:
    return p["outcome_good"] != p["speaker_wanted_bad"]


def _truths(kind: str, p: dict, answer: str, tail: str) -> tuple[object, object]:
    """(the item's answer recomputed here, the true value of the fact the premise states)."""
    if kind == "seats":
        return p["rows"] * p["seats"] - p["taken"], p["rows"] * p["seats"]
    if kind == "rect_area":
        return p["w"] * p["h"], [p["w"], p["h"]]
    if kind == "cube_count":
        a, b, c = p["dims"]
        return a * b * c, a * b
    if kind == "minutes_between":
        minutes = _minutes(p["end"]) - _minutes(p["start"])
        return minutes, list(divmod(minutes, 60))
    if kind == "listed_difference":
        return len(set(p["A"]) - set(p["B"])), len(set(p["A"]) & set(p["B"]))
    if kind == "subset_union":  # the question says the smaller group lies inside the larger: the union is the larger
        union = max(p["given"]["A"], p["given"]["B"])
        return union, union
    if kind == "element_offset":
        return _name(p["start"] + p["offset"]), p["start"]
    if kind == "element_sum":
        return _name(sum(p["addends"])), list(p["addends"])
    if kind == "number_from_element":
        z = ELEMENTS.name(p["element"].lower()).number
        return z, _name(z - 1)
    if kind == "root":
        assert p["word"].startswith(p["prefix"]) and p["root"][:2] in p["word"], p  # 'reusing': re + us(e) + ing
        return p["root"], list(p["suffixes"])
    if kind in ("past_tense", "plural"):
        lemma, accepted = p["lemma"], set(p["accepted"])
        endings = ("s", "es") if kind == "plural" else ("ed", "d")
        regular = any(lemma + e in accepted for e in endings)
        return accepted, not regular
    if kind == "sarcasm":
        sarcastic = p["remark_positive"] != _pleased(p)
        return ("sarcastic" if sarcastic else "sincere"), _pleased(p)
    if kind == "scalar":
        return p["options"][p["gold_key"]], p["knowledgeable"]
    if kind == "norm_violation":
        forbidden = set(p["forbidden"])
        culprits = [a["person"] for a in p["actions"] if forbidden & set(a["tags"])]
        assert len(culprits) == 1, p
        named = [a for a in p["actions"] if tail.startswith(f"Note: {a['person']} ")]  # premises only
        return culprits[0], bool(named) and not forbidden & set(named[0]["tags"])
    if kind == "scale":
        return Decimal(p["recipe"][p["ingredient"]]) * p["target_servings"] / p["base_servings"], p["base_servings"]
    if kind == "loop":
        _, add, mod = p["rule"]
        x = p["start"]
        for _ in range(p["steps"]):
            x = (x + add) % mod
        return x, p["steps"]
    if kind == "oven":
        batches = math.ceil(p["trays"] / p["capacity"])
        return p["preheat"] + batches * p["bake"] + (batches - 1) * p["gap"], batches
    raise AssertionError(kind)


def _agrees(stated, truth) -> bool:
    if isinstance(truth, set):
        return stated in truth
    if isinstance(truth, str):
        return isinstance(stated, str) and stated.lower() == truth.lower()
    if isinstance(truth, (bool, list)):
        return stated == truth
    try:
        return not isinstance(stated, (bool, list)) and Decimal(str(stated)) == Decimal(str(truth))
    except ArithmeticError:
        return False


def _answer_matches(kind: str, answer: str, gold) -> bool:
    if kind == "sarcasm":
        return answer.lower().startswith(gold + ":")
    return _agrees(answer, gold)


NEW_KINDS = {"seats", "rect_area", "cube_count", "minutes_between", "listed_difference", "subset_union",
             "element_offset", "element_sum", "number_from_element", "root", "past_tense", "plural", "sarcasm",
             "scalar", "norm_violation", "scale", "loop", "oven"}


def _check_new_kinds(rows: list[dict]) -> Counter:
    seen: Counter = Counter()
    for row in rows:
        meta = json.loads(row["params"])
        kind, source, stated = meta["kind"], meta["source"], meta["stated"]
        if kind not in NEW_KINDS:
            continue
        gold, fact = _truths(kind, source["params"], source["answer"], _tail(row))
        assert _answer_matches(kind, source["answer"], gold), (row["task_id"], source["answer"], gold)
        truth = fact if row["category"] == "flawed_premise" else gold
        assert _agrees(stated, truth) is (not row["is_flawed"]), (row["task_id"], _tail(row), stated, truth)
        if isinstance(stated, int) and not isinstance(stated, bool) and row["category"] == "flawed_premise":
            assert str(stated) in _tail(row), (row["task_id"], stated)  # the prompt says what params records
        seen[(kind, row["category"], row["is_flawed"])] += 1
    return seen


@pytest.mark.parametrize("seed", [0, 7, 23])
def test_every_domain_kind_flaw_fails_and_control_works(seed):
    rows = exp6b_tasks(seed)
    seen = _check_new_kinds(rows)
    print(f"seed {seed}: checked by recomputation {sum(seen.values())} rows of {len({k for k, _, _ in seen})} kinds")
    assert {k for k, _, _ in seen} == NEW_KINDS and len(seen) == 6 * len(NEW_KINDS)


def test_every_domain_has_three_kinds_and_equal_counts(rows):
    kinds_by_domain: dict[str, set] = {}
    for r in rows:
        kinds_by_domain.setdefault(r["domain"], set()).add(json.loads(r["params"])["kind"])
    per_domain = Counter(r["domain"] for r in rows if r["is_flawed"])
    print("exp6b_flawed flawed per domain:", dict(per_domain), {d: len(k) for d, k in kinds_by_domain.items()})
    assert set(kinds_by_domain) == set(DOMAINS)
    assert all(len(k) >= 3 for k in kinds_by_domain.values()), kinds_by_domain
    assert len(set(per_domain.values())) == 1


def test_a_planted_true_flaw_is_caught(rows):
    """The check can fail: a 'flawed' premise that states the truth, or a control off by one, is refused."""
    row = next(r for r in rows if json.loads(r["params"])["kind"] == "oven" and r["category"] == "flawed_premise"
               and r["is_flawed"])
    meta = json.loads(row["params"])
    planted = dict(row, params=json.dumps(dict(meta, stated=meta["stated"] - 1)))  # the true batch count
    with pytest.raises(AssertionError):
        _check_new_kinds([planted])
    control = next(r for r in rows if json.loads(r["params"])["kind"] == "plural" and not r["is_flawed"]
                   and r["category"] == "wrong_approach")
    meta = json.loads(control["params"])
    planted = dict(control, params=json.dumps(dict(meta, stated=meta["source"]["params"]["lemma"] + "s")))
    with pytest.raises(AssertionError):
        _check_new_kinds([planted])


def test_docs_count_table_is_the_bank(rows):
    """docs/exp6.md prints exp6b_flawed's size and its per-domain counts; they are this build's."""
    from pathlib import Path

    doc = (Path(__file__).resolve().parents[1] / "docs" / "exp6.md").read_text()
    flawed = Counter(r["domain"] for r in rows if r["is_flawed"])
    controls = Counter(r["domain"] for r in rows if not r["is_flawed"])
    table = {m.group(1): (int(m.group(2)), int(m.group(3)))
             for m in re.finditer(r"^\| (\w+) \| [^|]+ \| (\d+) \| (\d+) \|$", doc, re.M)}
    assert table == {d: (flawed[d], controls[d]) for d in DOMAINS}, table
    n = sum(flawed.values())
    assert f"`exp6b_flawed` ({n} + {n})" in doc and f"That gives {n} flawed instructions and {n} controls" in doc
