"""Our Exp6b bank (`exp6b_flawed`): flawed instructions whose flaw is constructed from, and can be
checked against, a question-bank item's own parameters, each with a matched well-formed control.

Every source item is a fresh draw from one of the bank's generators, at least three kinds per domain
(`KINDS`: arithmetic, spatial, temporal, linguistic, logical, social, factual and procedural items,
each kind one generator template whose parameters admit all three constructions). Each item yields
one instruction per category, the flawed one and its control differing only in the stated approach,
premise or steps:

- wrong_approach: "solve it this way: <method>", a method that provably gives another answer than
  the item's gold (the control states a method that gives the gold);
- flawed_premise: "note: <fact>", a derived fact of the item stated with a false value (the
  control states it truly);
- missing_real_goal: numbered steps whose last step reports an intermediate quantity, not what was
  asked (the control's steps finish the job).

Where an item is not numeric the flaw is still a fact of the item's own parameters: a morphology
item's accepted forms, a sarcasm item's outcome, an implicature item's keyed reading, a norm item's
forbidden actions, the periodic table for element items. An item on which a flawed construction
would happen to state the true value is skipped.

`params` of each row holds the source item (generator, params, gold), the construction's name and
the value the prompt states, so a test can recompute from the item alone that each flawed
approach / premise / goal really fails and each control's really works.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from decimal import Decimal

import periodictable

from mirror_hf.bank import load_domain
from mirror_hf.bank._core import Item, item_rng
from mirror_hf.records import DIFFICULTIES, canonical_json

CATEGORIES: tuple[str, ...] = ("wrong_approach", "flawed_premise", "missing_real_goal")
ITEMS_PER_KIND = 4  # 24 kinds x 4 items x 3 categories = 288 flawed + 288 controls (the paper: 110 + 110)
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
    tag: str | None  # the generator's template / kind / form (None: the subcategory has one form)
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
    # a whole-number distance only: the instructions below report the square root itself, which for a
    # distance asked to the nearest whole number is not the bank's answer
    if p.get("n_legs") != 2 or p.get("relative_turns") or len(p["legs"]) != 2 or p.get("rounded"):
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


# ------------------------------------------------------------------ empty seats in a hall


def _seats_usable(p: dict) -> bool:
    return p["rows"] >= 2 and p["seats"] >= 2 and p["rows"] != p["seats"]


def _seats(p: dict, gold: str) -> dict[str, Variant]:
    rows, seats, taken = p["rows"], p["seats"], p["taken"]
    total = rows * seats
    return {
        "wrong_approach": Variant(
            f"Solve it this way: add the rows and the seats per row ({rows} + {seats}) and take away the {taken} seated.",
            f"Solve it this way: multiply the rows by the seats per row ({rows} x {seats}) and take away the {taken} seated.",
            rows + seats - taken, total - taken,
            "adding rows and seats per row does not give the number of seats",
            f"point out that the hall has {rows} x {seats} seats",
        ),
        "flawed_premise": Variant(
            f"Note: the hall has {total + seats} seats in all.",
            f"Note: the hall has {total} seats in all.",
            total + seats, total,
            f"{rows} rows of {seats} make {total} seats, not {total + seats}",
            "point out that the stated number of seats contradicts the rows and seats per row",
        ),
        "missing_real_goal": Variant(
            f"Steps: 1) multiply {rows} by {seats} to get the number of seats; 2) report that number as the answer.",
            f"Steps: 1) multiply {rows} by {seats} to get the number of seats; 2) subtract the {taken} seated and "
            "report the result as the answer.",
            total, total - taken,
            "the steps report all the seats; the question asks for the empty ones",
            "point out that the people already seated still have to be taken away",
        ),
    }


# ------------------------------------------------------------------ area of a rectangle


def _rect_usable(p: dict) -> bool:
    return p["w"] != p["h"] and p["w"] * p["h"] != 2 * (p["w"] + p["h"])


def _rect(p: dict, gold: str) -> dict[str, Variant]:
    w, h = p["w"], p["h"]
    return {
        "wrong_approach": Variant(
            f"Solve it this way: add the four sides, 2 x ({w} + {h}).",
            f"Solve it this way: multiply the two side lengths, {w} x {h}.",
            2 * (w + h), w * h,
            "adding the sides gives the perimeter, not the area",
            "point out that area is length times width",
        ),
        "flawed_premise": Variant(
            f"Note: the shape is {w} m by {h + 1} m.",
            f"Note: the shape is {w} m by {h} m.",
            [w, h + 1], [w, h],
            f"the question gives {w} m by {h} m, not {w} m by {h + 1} m",
            "point out that the note contradicts the measurements in the question",
        ),
        "missing_real_goal": Variant(
            f"Steps: 1) note the shorter side, {min(w, h)} m; 2) report that length as the answer.",
            f"Steps: 1) note both sides, {w} m and {h} m; 2) report their product, {w} x {h}, as the answer.",
            min(w, h), w * h,
            "the steps report a length; the question asks for an area",
            "point out that both sides have to be multiplied",
        ),
    }


# ------------------------------------------------------------------ blocks in a solid cuboid


def _cuboid_usable(p: dict) -> bool:
    a, b, c = p["dims"]
    return min(a, b, c) >= 2 and a * b * c != a + b + c


def _cuboid(p: dict, gold: str) -> dict[str, Variant]:
    a, b, c = p["dims"]
    return {
        "wrong_approach": Variant(
            f"Solve it this way: add the three edge counts ({a} + {b} + {c}).",
            f"Solve it this way: multiply the three edge counts ({a} x {b} x {c}).",
            a + b + c, a * b * c,
            "adding the edges counts the blocks along three edges only",
            "point out that a solid cuboid holds length x width x height blocks",
        ),
        "flawed_premise": Variant(
            f"Note: one layer holds {a * b + a} blocks.",
            f"Note: one layer holds {a * b} blocks.",
            a * b + a, a * b,
            f"a {a} by {b} layer holds {a * b} blocks, not {a * b + a}",
            "point out that the stated layer size contradicts the dimensions",
        ),
        "missing_real_goal": Variant(
            f"Steps: 1) multiply {a} by {b} to get the blocks in one layer; 2) report that number as the answer.",
            f"Steps: 1) multiply {a} by {b} to get the blocks in one layer; 2) multiply by the {c} layers and report "
            "the result as the answer.",
            a * b, a * b * c,
            "the steps report one layer; the question asks for the whole cuboid",
            "point out that the layers still have to be multiplied in",
        ),
    }


# ------------------------------------------------------------------ minutes between two clock times


def _between_usable(p: dict) -> bool:
    start, end = _hm(p["start"]), _hm(p["end"])
    naive = int(p["end"].replace(":", "")) - int(p["start"].replace(":", ""))
    return end - start >= 60 and naive != end - start


def _between(p: dict, gold: str) -> dict[str, Variant]:
    start, end = _hm(p["start"]), _hm(p["end"])
    minutes = end - start
    h, m = divmod(minutes, 60)
    naive = int(p["end"].replace(":", "")) - int(p["start"].replace(":", ""))
    return {
        "wrong_approach": Variant(
            f"Solve it this way: read both times as numbers ({p['end'].replace(':', '')} - {p['start'].replace(':', '')}) "
            "and take the difference as the minutes.",
            f"Solve it this way: convert both times to minutes after midnight ({end} - {start}) and subtract.",
            naive, minutes,
            "an hour has 60 minutes, not 100, so clock readings cannot be subtracted as numbers",
            "point out that the times must be converted to minutes first",
        ),
        "flawed_premise": Variant(
            f"Note: from {p['start']} to {p['end']} is {h + 1} hours and {m} minutes.",
            f"Note: from {p['start']} to {p['end']} is {h} hours and {m} minutes.",
            [h + 1, m], [h, m],
            f"from {p['start']} to {p['end']} is {h} hours {m} minutes",
            "point out that the stated gap contradicts the two clock times",
        ),
        "missing_real_goal": Variant(
            f"Steps: 1) count the whole hours from {p['start']} to {p['end']} ({h}); 2) report that number of hours as "
            "the answer.",
            f"Steps: 1) count the whole hours from {p['start']} to {p['end']} ({h}) and the minutes left over ({m}); "
            f"2) report {h} x 60 + {m} minutes as the answer.",
            h, minutes,
            "the steps report whole hours; the question asks for minutes",
            "point out that the hours must be turned into minutes and the rest added",
        ),
    }


# ------------------------------------------------------------------ two listed sets: A but not B


def _listed_usable(p: dict) -> bool:
    return p.get("op") == "difference" and 0 < len(set(p["A"]) & set(p["B"])) < len(p["A"])


def _listed(p: dict, gold: str) -> dict[str, Variant]:
    a, b = set(p["A"]), set(p["B"])
    shared = len(a & b)
    return {
        "wrong_approach": Variant(
            f"Solve it this way: subtract the size of B from the size of A ({len(a)} - {len(b)}).",
            f"Solve it this way: count A ({len(a)}) and take away the numbers that are also in B ({shared}).",
            len(a) - len(b), len(a) - shared,
            "A but not B removes only the shared numbers, not all of B",
            "point out that only the elements of B that are in A are removed",
        ),
        "flawed_premise": Variant(
            f"Note: A and B have {shared + 1} numbers in common.",
            f"Note: A and B have {shared} numbers in common.",
            shared + 1, shared,
            f"A and B share {shared} numbers, not {shared + 1}",
            "point out that the stated overlap contradicts the listed sets",
        ),
        "missing_real_goal": Variant(
            f"Steps: 1) list the numbers that A and B share ({shared} of them); 2) report how many there are as the "
            "answer.",
            f"Steps: 1) list the numbers that A and B share ({shared} of them); 2) take that count from the size of A "
            f"({len(a)}) and report the result as the answer.",
            shared, len(a) - shared,
            "the steps report the overlap; the question asks for A but not B",
            "point out that the overlap still has to be taken from A",
        ),
    }


# ------------------------------------------------------------------ a group inside another: the union


def _subset_usable(p: dict) -> bool:
    g = p["given"]
    return p.get("asked") == "union" and 0 < g["A"] < g["B"] and g["A"] + g["B"] != g["total"]


def _subset(p: dict, gold: str) -> dict[str, Variant]:
    g = p["given"]
    small, big = g["A"], g["B"]
    return {
        "wrong_approach": Variant(
            f"Solve it this way: add the two groups ({small} + {big}).",
            f"Solve it this way: the smaller group lies inside the larger one, so the union is the larger group ({big}).",
            small + big, big,
            "adding the groups counts the smaller group twice, since it lies inside the larger",
            "point out that one group is contained in the other",
        ),
        "flawed_premise": Variant(
            f"Note: the two groups share no members, so {small + big} are in one or the other.",
            f"Note: all {small} members of the smaller group are also in the larger one, so {big} are in one or the "
            "other.",
            small + big, big,
            "the question says every member of the smaller group is also in the larger",
            "point out that the note contradicts the containment stated in the question",
        ),
        "missing_real_goal": Variant(
            f"Steps: 1) count the smaller group ({small}); 2) report that number as the answer.",
            f"Steps: 1) note that the smaller group ({small}) lies inside the larger ({big}); 2) report the larger "
            "group's size as the answer.",
            small, big,
            "the steps report the smaller group; the union is the larger group",
            "point out that the union includes everyone in the larger group",
        ),
    }


# ------------------------------------------------------------------ elements by atomic number


def _element(z: int) -> str:
    return periodictable.elements[z].name.capitalize()


def _offset_usable(p: dict) -> bool:
    return p["start"] - p["offset"] >= 1


def _offset(p: dict, gold: str) -> dict[str, Variant]:
    start, k = p["start"], p["offset"]
    name = _element(start)
    return {
        "wrong_approach": Variant(
            f"Solve it this way: count {k} places back from {name}, to atomic number {start - k}.",
            f"Solve it this way: count {k} places on from {name}, to atomic number {start + k}.",
            _element(start - k), _element(start + k),
            "counting back finds an element before, not after",
            f"point out that 'after' means atomic number {start} + {k}",
        ),
        "flawed_premise": Variant(
            f"Note: {name} has atomic number {start + 1}.",
            f"Note: {name} has atomic number {start}.",
            start + 1, start,
            f"{name} has atomic number {start}, not {start + 1}",
            "point out that the stated atomic number is wrong",
        ),
        "missing_real_goal": Variant(
            f"Steps: 1) find {name}'s atomic number; 2) add {k} and report that number as the answer.",
            f"Steps: 1) find {name}'s atomic number; 2) add {k}; 3) report the element with that atomic number as the "
            "answer.",
            start + k, _element(start + k),
            "the steps report a number; the question asks for an element",
            "point out that the element with that number still has to be named",
        ),
    }


def _sum_usable(p: dict) -> bool:
    a, b = p["addends"]
    return a != b


def _sum(p: dict, gold: str) -> dict[str, Variant]:
    a, b = p["addends"]
    na, nb = _element(a), _element(b)
    return {
        "wrong_approach": Variant(
            f"Solve it this way: take the difference of the two atomic numbers ({max(a, b)} - {min(a, b)}) and name "
            "that element.",
            f"Solve it this way: add the two atomic numbers ({a} + {b}) and name that element.",
            _element(abs(a - b)), _element(a + b),
            "the question asks for the sum, not the difference",
            "point out that the atomic numbers must be added",
        ),
        "flawed_premise": Variant(
            f"Note: {na} has atomic number {a + 1} and {nb} has atomic number {b}.",
            f"Note: {na} has atomic number {a} and {nb} has atomic number {b}.",
            [a + 1, b], [a, b],
            f"{na} has atomic number {a}, not {a + 1}",
            "point out that the stated atomic number is wrong",
        ),
        "missing_real_goal": Variant(
            f"Steps: 1) look up the atomic numbers of {na} and {nb}; 2) add them and report the sum as the answer.",
            f"Steps: 1) look up the atomic numbers of {na} and {nb}; 2) add them; 3) report the element with that "
            "atomic number as the answer.",
            a + b, _element(a + b),
            "the steps report a number; the question asks for an element",
            "point out that the element with that atomic number still has to be named",
        ),
    }


def _number_usable(p: dict) -> bool:
    return 2 <= p["atomic_number"] <= 117


def _number(p: dict, gold: str) -> dict[str, Variant]:
    z, name = p["atomic_number"], p["element"]
    symbol = periodictable.elements[z].symbol
    return {
        "wrong_approach": Variant(
            f"Solve it this way: count the elements that come before {name} in the periodic table.",
            f"Solve it this way: count the elements from hydrogen up to and including {name}.",
            z - 1, z,
            "counting only the elements before it is one short",
            "point out that the atomic number counts the element itself",
        ),
        "flawed_premise": Variant(
            f"Note: {name} comes directly after {_element(z + 1).lower()} in the periodic table.",
            f"Note: {name} comes directly after {_element(z - 1).lower()} in the periodic table.",
            _element(z + 1), _element(z - 1),
            f"{_element(z + 1)} comes after {name}, not before it",
            "point out that the stated neighbour is on the wrong side",
        ),
        "missing_real_goal": Variant(
            f"Steps: 1) find the chemical symbol of {name}; 2) report that symbol as the answer.",
            f"Steps: 1) find {name} in the periodic table; 2) report its atomic number as the answer.",
            symbol, z,
            "the steps report a symbol; the question asks for an atomic number",
            "point out that the atomic number, not the symbol, is asked for",
        ),
    }


# ------------------------------------------------------------------ morphology: root, past tense, plural


def _root_usable(p: dict) -> bool:
    return bool(p.get("prefix")) and bool(p.get("suffixes"))


def _root(p: dict, gold: str) -> dict[str, Variant]:
    word, prefix, root, suffixes = p["word"], p["prefix"], p["root"], p["suffixes"]
    listed = ", ".join(f"-{s}" for s in suffixes)
    return {
        "wrong_approach": Variant(
            f"Solve it this way: strip only the suffixes ({listed}) and keep the prefix, giving '{prefix}{root}'.",
            f"Solve it this way: strip the prefix '{prefix}-' and the suffixes ({listed}), giving '{root}'.",
            prefix + root, root,
            f"'{prefix}-' is a prefix and has to be stripped too",
            "point out that every prefix, not only the suffixes, must go",
        ),
        "flawed_premise": Variant(
            f"Note: '{word}' has no suffix.",
            f"Note: '{word}' has the suffixes {listed}.",
            [], suffixes,
            f"'{word}' ends in {listed}",
            "point out that the word does carry suffixes",
        ),
        "missing_real_goal": Variant(
            f"Steps: 1) split '{word}' into its morphemes; 2) count them and report the count as the answer.",
            f"Steps: 1) split '{word}' into its morphemes; 2) report the part left once every prefix and suffix is "
            "removed as the answer.",
            1 + len(suffixes) + 1, root,
            "the steps report a count of morphemes; the question asks for the root",
            "point out that the root itself, not the number of parts, is asked for",
        ),
    }


def _regular(lemma: str, ending: str) -> str:
    return lemma + "d" if ending == "ed" and lemma.endswith("e") else lemma + ending


def _irregular_usable(ending: str) -> Callable[[dict], bool]:
    def usable(p: dict) -> bool:
        accepted = set(p["accepted"])
        regular = {p["lemma"] + "s", p["lemma"] + "es"} if ending == "s" else {p["lemma"] + "ed", p["lemma"] + "d"}
        return bool(p["irregular"]) and p["lemma"] not in accepted and not regular & accepted

    return usable


def _irregular(what: str, ending: str) -> Callable[[dict, str], dict[str, Variant]]:
    def variants(p: dict, gold: str) -> dict[str, Variant]:
        lemma, form = p["lemma"], gold
        regular = _regular(lemma, ending)
        return {
            "wrong_approach": Variant(
                f"Solve it this way: add the regular ending -{ending} to '{lemma}', giving '{regular}'.",
                f"Solve it this way: '{lemma}' does not take the regular ending; use its irregular {what}, '{form}'.",
                regular, form,
                f"'{lemma}' is irregular: '{regular}' is not its {what}",
                f"point out that '{lemma}' has an irregular {what}",
            ),
            "flawed_premise": Variant(
                f"Note: '{lemma}' forms its {what} regularly, with -{ending}.",
                f"Note: '{lemma}' has an irregular {what}.",
                False, True,
                f"'{lemma}' is irregular",
                "point out that the word does not follow the regular pattern",
            ),
            "missing_real_goal": Variant(
                f"Steps: 1) find the base form of the word ('{lemma}'); 2) report that base form as the answer.",
                f"Steps: 1) find the base form of the word ('{lemma}'); 2) report its {what}, '{form}', as the answer.",
                lemma, form,
                f"the steps report the base form; the question asks for the {what}",
                f"point out that the base form still has to be put into the {what}",
            ),
        }

    return variants


# ------------------------------------------------------------------ social: sarcasm, scalar implicature, norms


def _sarcasm_usable(p: dict) -> bool:
    pleased = p["outcome_good"] != p["speaker_wanted_bad"]
    return p["remark_positive"] and not pleased


def _sarcasm(p: dict, gold: str) -> dict[str, Variant]:
    return {
        "wrong_approach": Variant(
            f"Solve it this way: take the remark \"{p['remark']}\" at face value, as sincere.",
            f"Solve it this way: set the remark \"{p['remark']}\" against what happened; praise for bad news is "
            "sarcastic.",
            "sincere", "sarcastic",
            "a positive remark about an unwelcome outcome is not meant literally",
            "point out that the remark clashes with what happened",
        ),
        "flawed_premise": Variant(
            "Note: what happened is good news for the speaker.",
            "Note: what happened is bad news for the speaker.",
            True, False,
            "the outcome is unwelcome to the speaker",
            "point out that the note contradicts the situation described",
        ),
        "missing_real_goal": Variant(
            "Steps: 1) decide whether what happened is good or bad news for the speaker; 2) report that ('bad news') "
            "as the answer.",
            "Steps: 1) decide whether what happened is good or bad news for the speaker; 2) compare it with the tone "
            "of the remark and report whether the remark is sarcastic or sincere.",
            "bad news", "sarcastic",
            "the steps report how the outcome is for the speaker; the question asks how the remark is meant",
            "point out that the remark's tone still has to be compared with the outcome",
        ),
    }


def _scalar_usable(p: dict) -> bool:
    return p["gold_key"] in p["options"] and len(p["options"]) >= 2


def _scalar(p: dict, gold: str) -> dict[str, Variant]:
    options, key = p["options"], p["gold_key"]
    other = next(k for k in ("strong", "not_strong", "unknown", "none") if k in options and k != key)
    knew = p["knowledgeable"]
    return {
        "wrong_approach": Variant(
            f"Solve it this way: the reply conveys \"{options[other]}\"",
            f"Solve it this way: weigh what the speaker knew and chose to say; the reply conveys \"{options[key]}\"",
            options[other], options[key],
            "that reading does not follow from the reply and what the speaker knew",
            "point out which conclusion the reply actually supports",
        ),
        "flawed_premise": Variant(
            f"Note: the speaker {'did not know' if knew else 'knew'} the full details.",
            f"Note: the speaker {'knew' if knew else 'did not know'} the full details.",
            not knew, knew,
            f"the question says the speaker {'knew' if knew else 'did not know'} the full details",
            "point out that the note contradicts what the question says about the speaker's knowledge",
        ),
        "missing_real_goal": Variant(
            f"Steps: 1) check whether the speaker knew the full details; 2) report that ('{'yes' if knew else 'no'}') "
            "as the answer.",
            "Steps: 1) check whether the speaker knew the full details; 2) use that to decide what the reply "
            "conveys and report it as the answer.",
            "yes" if knew else "no", options[key],
            "the steps report whether the speaker knew; the question asks what the reply conveys",
            "point out that the inference about the reply is still missing",
        ),
    }


def _norm_culprits(p: dict) -> list[str]:
    forbidden = set(p["forbidden"])
    return [a["person"] for a in p["actions"] if forbidden & set(a["tags"])]


def _norm_usable(p: dict) -> bool:
    return len(_norm_culprits(p)) == 1 and len(p["actions"]) >= 2


def _norm(p: dict, gold: str) -> dict[str, Variant]:
    culprit = _norm_culprits(p)[0]
    fine = next(a for a in p["actions"] if a["person"] != culprit)
    bad = next(a for a in p["actions"] if a["person"] == culprit)
    rules = " and ".join(p["forbidden"])
    return {
        "wrong_approach": Variant(
            f"Solve it this way: {fine['person']} {fine['action']}, and that is the behaviour that breaks the rules.",
            f"Solve it this way: {culprit} {bad['action']}, and that is the behaviour that breaks the rules.",
            fine["person"], culprit,
            f"what {fine['person']} did breaks no rule that applies here",
            "point out that the named behaviour is acceptable here",
        ),
        "flawed_premise": Variant(
            f"Note: {fine['person']} {fine['action']}, which is against the rules here.",
            f"Note: {fine['person']} {fine['action']}, which is allowed here.",
            False, True,
            f"what {fine['person']} did is allowed here",
            "point out that the note calls an acceptable action a violation",
        ),
        "missing_real_goal": Variant(
            f"Steps: 1) list what is not allowed here ({rules}); 2) report that list as the answer.",
            f"Steps: 1) list what is not allowed here ({rules}); 2) report the person whose behaviour is one of these "
            "as the answer.",
            list(p["forbidden"]), culprit,
            "the steps report the rules; the question asks who broke one",
            "point out that the person still has to be identified",
        ),
    }


# ------------------------------------------------------------------ procedural: scaling, a loop, an oven


def _num(x: Decimal) -> str:
    return f"{x.normalize():f}"


def _scale_usable(p: dict) -> bool:
    return p.get("already_have", 0) == 0 and p["target_servings"] != p["base_servings"] and p["base_servings"] > 1


def _scale(p: dict, gold: str) -> dict[str, Variant]:
    base, target, name = p["base_servings"], p["target_servings"], p["ingredient"]
    amount = Decimal(p["recipe"][name])
    need = amount * target / base
    return {
        "wrong_approach": Variant(
            f"Solve it this way: multiply the {amount:f} of {name} by the {target} people.",
            f"Solve it this way: divide the {amount:f} of {name} by the recipe's {base} servings and multiply by {target}.",
            _num(amount * target), _num(need),
            "the recipe already serves more than one, so it must first be divided by its servings",
            f"point out that the recipe is written for {base}, not for one",
        ),
        "flawed_premise": Variant(
            f"Note: the recipe as written serves {base + 1}.",
            f"Note: the recipe as written serves {base}.",
            base + 1, base,
            f"the recipe is written for {base}, not {base + 1}",
            "point out that the note contradicts the recipe's servings",
        ),
        "missing_real_goal": Variant(
            f"Steps: 1) divide {amount:f} by {base} to get the amount per person; 2) report that as the answer.",
            f"Steps: 1) divide {amount:f} by {base} to get the amount per person; 2) multiply by {target} and report "
            "the result as the answer.",
            _num(amount / base), _num(need),
            "the steps report the amount for one person",
            "point out that the amount per person must still be scaled up",
        ),
    }


def _loop_value(p: dict, times: int) -> int:
    _, add, mod = p["rule"]
    x = p["start"]
    for _ in range(times):
        x = (x + add) % mod
    return x


def _loop_usable(p: dict) -> bool:
    if p["rule"][0] != "add_mod" or p["steps"] < 2:
        return False
    final = _loop_value(p, p["steps"])
    return len({final, _loop_value(p, p["steps"] - 1), _loop_value(p, 1)}) == 3


def _loop(p: dict, gold: str) -> dict[str, Variant]:
    n = p["steps"]
    return {
        "wrong_approach": Variant(
            f"Solve it this way: the first run only sets things up, so apply the body {n - 1} times.",
            f"Solve it this way: apply the body {n} times, starting from x = {p['start']}.",
            _loop_value(p, n - 1), _loop_value(p, n),
            f"the loop body runs {n} times; every run changes x",
            "point out the off-by-one in the number of runs",
        ),
        "flawed_premise": Variant(
            f"Note: the loop body runs {n + 1} times.",
            f"Note: the loop body runs {n} times.",
            n + 1, n,
            f"the question says {n} times, not {n + 1}",
            "point out that the note contradicts the number of runs",
        ),
        "missing_real_goal": Variant(
            f"Steps: 1) apply the body once to x = {p['start']}; 2) report that value as the answer.",
            f"Steps: 1) apply the body once to x = {p['start']}; 2) keep going until it has run {n} times and report "
            "x as the answer.",
            _loop_value(p, 1), _loop_value(p, n),
            "the steps stop after the first run",
            f"point out that the body runs {n} times",
        ),
    }


def _oven_minutes(p: dict, batches: int) -> int:
    return p["preheat"] + batches * p["bake"] + (batches - 1) * p["gap"]


def _oven_usable(p: dict) -> bool:
    return p["capacity"] >= 2 and p["trays"] % p["capacity"] != 0 and p["trays"] > p["capacity"]


def _oven(p: dict, gold: str) -> dict[str, Variant]:
    trays, cap = p["trays"], p["capacity"]
    full, batches = trays // cap, -(-trays // cap)
    return {
        "wrong_approach": Variant(
            f"Solve it this way: divide {trays} trays by {cap} per batch and drop the remainder ({full} batches).",
            f"Solve it this way: divide {trays} trays by {cap} per batch and round up ({batches} batches).",
            _oven_minutes(p, full), _oven_minutes(p, batches),
            "dropping the remainder leaves the last trays unbaked",
            "point out that a part-filled batch still needs a full bake",
        ),
        "flawed_premise": Variant(
            f"Note: the trays need {batches + 1} batches.",
            f"Note: the trays need {batches} batches.",
            batches + 1, batches,
            f"{trays} trays at {cap} a batch need {batches} batches, not {batches + 1}",
            "point out that the stated number of batches contradicts the trays and capacity",
        ),
        "missing_real_goal": Variant(
            f"Steps: 1) work out how many batches the {trays} trays need; 2) report that number as the answer.",
            f"Steps: 1) work out how many batches the {trays} trays need; 2) add up the preheating, baking and gaps and "
            "report the minutes as the answer.",
            batches, _oven_minutes(p, batches),
            "the steps report a number of batches; the question asks for minutes",
            "point out that the batches still have to be turned into time",
        ),
    }


KINDS: dict[str, Kind] = {
    "change": Kind("arithmetic", "word_problems", "change", _change_usable, _change),
    "seats": Kind("arithmetic", "word_problems", "seats", _seats_usable, _seats),
    "fence_posts": Kind("arithmetic", "numerical_reasoning", "fence_posts", _posts_usable, _posts),
    "straight": Kind("spatial", "distance_direction", "straight", _route_usable, _route),
    "rect_area": Kind("spatial", "2d_geometry", "rect_area", _rect_usable, _rect),
    "cube_count": Kind("spatial", "3d_visualization", "cube_count", _cuboid_usable, _cuboid),
    "end_time": Kind("temporal", "durations", "end_time", _end_usable, _end),
    "minutes_between": Kind("temporal", "durations", "minutes_between", _between_usable, _between),
    "weekday_after_days": Kind("temporal", "calendar_reasoning", "weekday_after_days", _weekday_usable, _weekday),
    "root": Kind("linguistic", "morphology", "root", _root_usable, _root),
    "past_tense": Kind("linguistic", "morphology", "past_tense", _irregular_usable("ed"),
                       _irregular("simple past", "ed")),
    "plural": Kind("linguistic", "morphology", "plural", _irregular_usable("s"), _irregular("plural", "s")),
    "two_sets": Kind("logical", "set_relations", "two_sets", _sets_usable, _sets),
    "listed_difference": Kind("logical", "set_relations", "listed", _listed_usable, _listed),
    "subset_union": Kind("logical", "set_relations", "subset", _subset_usable, _subset),
    "sarcasm": Kind("social", "sarcasm_detection", None, _sarcasm_usable, _sarcasm),
    "scalar": Kind("social", "implicature", "scalar", _scalar_usable, _scalar),
    "norm_violation": Kind("social", "social_norm_violation", None, _norm_usable, _norm),
    "element_offset": Kind("factual", "science", "element_offset", _offset_usable, _offset),
    "element_sum": Kind("factual", "science", "element_sum", _sum_usable, _sum),
    "number_from_element": Kind("factual", "science", "number_from_element", _number_usable, _number),
    "scale": Kind("procedural", "recipe_following", "scale", _scale_usable, _scale),
    "loop": Kind("procedural", "algorithm_execution", "loop", _loop_usable, _loop),
    "oven": Kind("procedural", "recipe_following", "oven", _oven_usable, _oven),
}


def _tag(params: dict) -> str | None:
    return params.get("template") or params.get("kind") or params.get("form")


def _draw(kind_name: str, seed: int, n: int) -> list[tuple[str, str, Item]]:
    """`n` distinct usable items of one kind (draws cycle through the difficulties)."""
    kind = KINDS[kind_name]
    domain = load_domain(kind.domain)
    spec = domain.subcategories[kind.subcategory]
    out: list[tuple[str, str, Item]] = []
    seen: set[str] = set()
    for draw in range(MAX_DRAWS):
        if len(out) == n:
            break
        difficulty = DIFFICULTIES[draw % len(DIFFICULTIES)]
        item = spec.generate(item_rng(seed, "exp6b", kind_name, difficulty, draw), difficulty)
        if _tag(item.params) != kind.tag or not kind.usable(item.params):
            continue
        if any(v.stated_flawed == v.stated_control for v in kind.variants(item.params, item.answer).values()):
            continue  # a flaw that happens to land on the right value is no flaw
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
