"""Our Exp6b bank (`exp6b_flawed`): flawed instructions whose flaw is constructed from, and can be
checked against, a question-bank item's own parameters, each with a matched well-formed control.

Every source item is a fresh draw from one of six bank generators (change from a purchase, fence
posts, "neither" of two overlapping groups, the straight-line distance of a right-angled two-leg
route, the end time of an activity, the weekday N days on). Each item yields one instruction per
category, the flawed one and its control differing only in the stated approach, premise or steps:

- wrong_approach: "solve it this way: <method>", a method that provably gives another answer than
  the item's gold (the control states a method that gives the gold);
- flawed_premise: "note: <fact>", a derived fact of the item stated with a false value (the
  control states it truly);
- missing_real_goal: numbered steps whose last step reports an intermediate quantity, not what was
  asked (the control's steps finish the job).

`params` of each row holds the source item (generator, params, gold), the construction's name and
the value the prompt states, so a test can recompute from the item alone that each flawed
approach / premise / goal really fails and each control's really works.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from decimal import Decimal

from mirror_hf.bank import load_domain
from mirror_hf.bank._core import Item, item_rng
from mirror_hf.records import DIFFICULTIES, canonical_json

CATEGORIES: tuple[str, ...] = ("wrong_approach", "flawed_premise", "missing_real_goal")
ITEMS_PER_KIND = 7  # 6 kinds x 7 items x 3 categories = 126 flawed + 126 controls (the paper: 110 + 110)
MAX_DRAWS = 2000
WEEKDAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")
AXIS = {"north": (0, 1), "south": (0, -1), "east": (1, 0), "west": (-1, 0)}


@dataclass(frozen=True)
class Variant:
    """One category's flawed and control wording, with what each states."""

    flawed: str
    control: str
    stated_flawed: object
    stated_control: object
    specific_flaw: str
    expected_behavior: str


@dataclass(frozen=True)
class Kind:
    domain: str
    subcategory: str
    tag: str  # the generator's template / kind / form
    usable: Callable[[dict], bool]  # the item admits all three constructions
    variants: Callable[[dict, str], dict[str, Variant]]  # (params, gold) -> category -> wording


def _money(x: Decimal) -> str:
    return f"${x:.2f}"


def _clock(minutes: int) -> str:
    return f"{(minutes // 60) % 24:02d}:{minutes % 60:02d}"


def _hm(text: str) -> int:
    h, m = text.split(":")
    return int(h) * 60 + int(m)


# ------------------------------------------------------------------ change from a purchase


def _change_usable(p: dict) -> bool:
    total = p["count"] * Decimal(p["price"])
    return p["count"] >= 2 and Decimal(p["paid"]) != 2 * total


def _change(p: dict, gold: str) -> dict[str, Variant]:
    n, price, paid = p["count"], Decimal(p["price"]), Decimal(p["paid"])
    total = n * price
    return {
        "wrong_approach": Variant(
            f"Solve it this way: subtract the price of one item ({_money(price)}) from the {_money(paid)} paid.",
            f"Solve it this way: subtract the total cost ({n} x {_money(price)}) from the {_money(paid)} paid.",
            str(paid - price), str(paid - n * price),
            f"subtracting one item's price ignores that {n} items were bought",
            f"point out that the total cost is {n} x {_money(price)}, not {_money(price)}",
        ),
        "flawed_premise": Variant(
            f"Note: the {n} items come to {_money(total + price)} in total.",
            f"Note: the {n} items come to {_money(total)} in total.",
            str(total + price), str(total),
            f"{n} x {_money(price)} is {_money(total)}, not {_money(total + price)}",
            "point out that the stated total contradicts the prices given",
        ),
        "missing_real_goal": Variant(
            f"Steps: 1) multiply {n} by {_money(price)} to get the total cost; 2) report that total as the answer.",
            f"Steps: 1) multiply {n} by {_money(price)} to get the total cost; 2) subtract it from {_money(paid)} "
            "and report the result as the answer.",
            str(total), str(paid - total),
            "the steps stop at the total cost; the question asks for the change",
            "point out that the change still has to be computed from the amount paid",
        ),
    }


# ------------------------------------------------------------------ fence posts


def _posts_usable(p: dict) -> bool:
    return p["length"] % p["gap"] == 0 and p["length"] // p["gap"] >= 2


def _posts(p: dict, gold: str) -> dict[str, Variant]:
    length, gap = p["length"], p["gap"]
    gaps = length // gap
    return {
        "wrong_approach": Variant(
            f"Solve it this way: divide the length by the spacing ({length} / {gap}) and subtract 1, because the "
            "posts at the two ends are shared.",
            f"Solve it this way: divide the length by the spacing ({length} / {gap}) and add 1 for the post at the start.",
            gaps - 1, gaps + 1,
            "length / spacing - 1 counts only the inner posts; with a post at each end it is length / spacing + 1",
            "point out the off-by-one: the count of posts is the count of gaps plus one",
        ),
        "flawed_premise": Variant(
            f"Note: the posts divide the line into {gaps + 1} equal gaps.",
            f"Note: the posts divide the line into {gaps} equal gaps.",
            gaps + 1, gaps,
            f"a spacing of {gap} along {length} gives {gaps} gaps, not {gaps + 1}",
            "point out that the stated number of gaps contradicts the length and spacing",
        ),
        "missing_real_goal": Variant(
            f"Steps: 1) divide {length} by {gap} to get the number of gaps between neighbouring posts; "
            "2) report that number as the answer.",
            f"Steps: 1) divide {length} by {gap} to get the number of gaps between neighbouring posts; "
            "2) add 1 and report the result as the answer.",
            gaps, gaps + 1,
            "the steps report the number of gaps; the question asks for the number of posts",
            "point out that the posts outnumber the gaps by one",
        ),
    }


# ------------------------------------------------------------------ two overlapping groups: neither


def _sets_usable(p: dict) -> bool:
    g = p.get("given", {})
    if p.get("asked") != "neither" or not {"total", "A", "B", "both"} <= set(g):
        return False
    union = g["A"] + g["B"] - g["both"]
    return g["both"] > 0 and g["total"] != 2 * union


def _sets(p: dict, gold: str) -> dict[str, Variant]:
    g = p["given"]
    total, a, b, both = g["total"], g["A"], g["B"], g["both"]
    union = a + b - both
    return {
        "wrong_approach": Variant(
            f"Solve it this way: subtract both group sizes from the total ({total} - {a} - {b}).",
            f"Solve it this way: subtract both group sizes from the total and add back the overlap "
            f"({total} - {a} - {b} + {both}).",
            total - a - b, total - a - b + both,
            "subtracting both groups removes the overlap twice",
            "point out inclusion-exclusion: the overlap must be added back",
        ),
        "flawed_premise": Variant(
            "Note: nobody belongs to both groups.",
            f"Note: {both} belong to both groups.",
            0, both,
            f"the question says {both} belong to both groups",
            "point out that the note contradicts the overlap given in the question",
        ),
        "missing_real_goal": Variant(
            f"Steps: 1) compute {a} + {b} - {both}, the number in at least one group; 2) report that number as the answer.",
            f"Steps: 1) compute {a} + {b} - {both}, the number in at least one group; 2) subtract it from {total} "
            "and report the result as the answer.",
            union, total - union,
            "the steps report how many are in at least one group; the question asks how many are in neither",
            "point out that the count must still be subtracted from the total",
        ),
    }


# ------------------------------------------------------------------ straight-line distance of two legs


def _legs(p: dict):
    (d1, x), (d2, y) = p["legs"]
    return d1, x, d2, y


def _route_usable(p: dict) -> bool:
    if p.get("n_legs") != 2 or p.get("relative_turns") or len(p["legs"]) != 2:
        return False
    d1, _, d2, _ = _legs(p)
    u, v = AXIS.get(d1), AXIS.get(d2)
    return u is not None and v is not None and u[0] * v[0] + u[1] * v[1] == 0


def _route(p: dict, gold: str) -> dict[str, Variant]:
    d1, x, d2, y = _legs(p)
    unit = p["unit"]
    return {
        "wrong_approach": Variant(
            f"Solve it this way: add the two distances ({x} + {y} {unit}).",
            f"Solve it this way: the legs are at right angles, so take the square root of {x}^2 + {y}^2.",
            x + y, round((x * x + y * y) ** 0.5, 6),
            "adding the legs gives the distance travelled, not the straight-line distance",
            "point out that the legs are perpendicular, so Pythagoras applies",
        ),
        "flawed_premise": Variant(
            f"Note: the second leg ({d2}) points straight back along the first ({d1}).",
            f"Note: the second leg ({d2}) is at a right angle to the first ({d1}).",
            "opposite", "perpendicular",
            f"{d1} and {d2} are at right angles, not opposite",
            "point out that the two directions are perpendicular",
        ),
        "missing_real_goal": Variant(
            f"Steps: 1) note the first leg, {x} {unit} {d1}; 2) report that distance as the answer.",
            f"Steps: 1) note the legs, {x} {unit} {d1} and {y} {unit} {d2}; 2) report the square root of "
            f"{x}^2 + {y}^2 as the answer.",
            x, round((x * x + y * y) ** 0.5, 6),
            "the steps report one leg; the question asks for the straight-line distance",
            "point out that both legs determine the distance",
        ),
    }


# ------------------------------------------------------------------ the end time of an activity


def _end_usable(p: dict) -> bool:
    return p["minutes"] % 60 != 0 and p["minutes"] >= 30


def _end(p: dict, gold: str) -> dict[str, Variant]:
    start, minutes = _hm(p["start"]), p["minutes"]
    h, m = divmod(minutes, 60)
    decimal_minutes = round(float(f"{h}.{m:02d}") * 60)
    return {
        "wrong_approach": Variant(
            f"Solve it this way: write the duration as {h}.{m:02d} hours, multiply by 60 to get "
            f"{decimal_minutes} minutes, and add that to {p['start']}.",
            f"Solve it this way: convert the duration to {h} x 60 + {m} = {minutes} minutes and add that to {p['start']}.",
            _clock(start + decimal_minutes), _clock(start + minutes),
            f"{h} hours {m} minutes is not {h}.{m:02d} hours",
            "point out that minutes are not hundredths of an hour",
        ),
        "flawed_premise": Variant(
            f"Note: the duration is {minutes + 60} minutes in all.",
            f"Note: the duration is {minutes} minutes in all.",
            minutes + 60, minutes,
            f"the duration given is {minutes} minutes, not {minutes + 60}",
            "point out that the note contradicts the duration in the question",
        ),
        "missing_real_goal": Variant(
            f"Steps: 1) convert the duration to minutes ({minutes}); 2) report that number of minutes as the answer.",
            f"Steps: 1) convert the duration to minutes ({minutes}); 2) add them to {p['start']} and report the "
            "clock time as the answer.",
            minutes, _clock(start + minutes),
            "the steps report a duration; the question asks for a clock time",
            "point out that the minutes still have to be added to the start time",
        ),
    }


# ------------------------------------------------------------------ the weekday N days on


def _weekday_usable(p: dict) -> bool:
    days = p["days"]
    return days % 7 != 0 and (days // 7) % 7 != days % 7 and days >= 8


def _weekday(p: dict, gold: str) -> dict[str, Variant]:
    start, days = WEEKDAYS.index(p["start_weekday"]), p["days"]
    weeks, rest = divmod(days, 7)
    return {
        "wrong_approach": Variant(
            f"Solve it this way: divide {days} by 7 and move forward by the number of whole weeks ({weeks} days).",
            f"Solve it this way: divide {days} by 7 and move forward by the remainder ({rest} days).",
            WEEKDAYS[(start + weeks) % 7], WEEKDAYS[(start + rest) % 7],
            "moving by the number of weeks instead of the remainder lands on the wrong weekday",
            "point out that whole weeks leave the weekday unchanged, only the remainder moves it",
        ),
        "flawed_premise": Variant(
            f"Note: {days} days is exactly {weeks} whole weeks.",
            f"Note: {days} days is {weeks} whole weeks and {rest} days.",
            7 * weeks, 7 * weeks + rest,
            f"{weeks} weeks is {7 * weeks} days, not {days}",
            "point out that the stated number of weeks does not add up to the days given",
        ),
        "missing_real_goal": Variant(
            f"Steps: 1) find the remainder of {days} divided by 7; 2) report that remainder as the answer.",
            f"Steps: 1) find the remainder of {days} divided by 7; 2) move that many days forward from "
            f"{p['start_weekday']} and report the weekday as the answer.",
            rest, WEEKDAYS[(start + rest) % 7],
            "the steps report a number of days; the question asks for a weekday",
            "point out that the remainder still has to be counted forward from the start day",
        ),
    }


KINDS: dict[str, Kind] = {
    "change": Kind("arithmetic", "word_problems", "change", _change_usable, _change),
    "fence_posts": Kind("arithmetic", "numerical_reasoning", "fence_posts", _posts_usable, _posts),
    "two_sets": Kind("logical", "set_relations", "two_sets", _sets_usable, _sets),
    "straight": Kind("spatial", "distance_direction", "straight", _route_usable, _route),
    "end_time": Kind("temporal", "durations", "end_time", _end_usable, _end),
    "weekday_after_days": Kind("temporal", "calendar_reasoning", "weekday_after_days", _weekday_usable, _weekday),
}


def _tag(params: dict) -> str | None:
    return params.get("template") or params.get("kind") or params.get("form")


def _draw(kind_name: str, seed: int, n: int) -> list[tuple[str, str, Item]]:
    """`n` distinct usable items of one kind (draws cycle through the difficulties)."""
    kind = KINDS[kind_name]
    domain = load_domain(kind.domain)
    spec = domain.subcategories[kind.subcategory]
    out, seen = [], set()
    for draw in range(MAX_DRAWS):
        if len(out) == n:
            break
        difficulty = DIFFICULTIES[draw % len(DIFFICULTIES)]
        item = spec.generate(item_rng(seed, "exp6b", kind_name, difficulty, draw), difficulty)
        if _tag(item.params) != kind.tag or not kind.usable(item.params):
            continue
        key = canonical_json(item.params)
        if key in seen:
            continue
        seen.add(key)
        out.append((domain.generator_tag(kind.subcategory), difficulty, item))
    if len(out) < n:
        raise RuntimeError(f"exp6b: only {len(out)} usable {kind_name} items in {MAX_DRAWS} draws")
    return out


def exp6b_tasks(seed: int, per_kind: int = ITEMS_PER_KIND) -> list[dict]:
    """The bank: per kind `per_kind` source items x 3 categories x (flawed, control)."""
    rows = []
    for kind_name, kind in KINDS.items():
        for index, (generator, difficulty, item) in enumerate(_draw(kind_name, seed, per_kind)):
            source_id = f"{kind_name}.{index:02d}.s{seed}"
            for category, v in KINDS[kind_name].variants(item.params, item.answer).items():
                flaw_id = f"exp6b.{source_id}.{category}"
                for flawed in (True, False):
                    extra = v.flawed if flawed else v.control
                    rows.append({
                        "task_id": flaw_id if flawed else f"{flaw_id}.control",
                        "is_flawed": flawed,
                        "category": category,
                        "domain": kind.domain,
                        "prompt": f"{item.question}\n\n{extra}",
                        "specific_flaw": v.specific_flaw if flawed else None,
                        "expected_behavior": v.expected_behavior if flawed else None,
                        "matched_flaw_id": flaw_id,
                        "generator": generator,
                        "params": canonical_json({
                            "kind": kind_name, "construction": f"{kind_name}.{category}",
                            "stated": v.stated_flawed if flawed else v.stated_control,
                            "source": {"id": source_id, "difficulty": difficulty, "question": item.question,
                                       "answer": item.answer, "params": item.params},
                        }),
                    })
    return rows
