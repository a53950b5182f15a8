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

import pytest
from runner_fixtures import read_split

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


def test_every_flaw_fails_and_every_control_works(rows):
    seen = Counter()
    for row in rows:
        meta = json.loads(row["params"])
        kind, source = meta["kind"], meta["source"]
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
