"""Temporal: reasoning about clock times, durations, dates, time zones and schedules.

Generators compute with `datetime` (a fixed offset per city, stated in the question, so DST
never makes an answer ambiguous) or with plain minute arithmetic, and build wrong answers from the
errors people make: AM/PM flips, counting both ends, 30 vs 31 days, forgetting 29 February,
applying an offset in the wrong direction, ignoring one person's calendar. Weekday facts given in
a question are the real calendar's, so nothing in a question contradicts the world.
"""

from __future__ import annotations

import random
from datetime import date, datetime, timedelta

from mirror_hf.bank._core import Domain, Item
from mirror_hf.bank._fair import fair_pick
from mirror_hf.bank._wording import NAMES, count_word, fmt_num, numeric_family, pick_distractors, pick_names, spread_around

DOMAIN = Domain(
    "temporal",
    "1.0.0",
    "Reasoning about time: ordering events from stated times and offsets, durations, time-zone "
    "conversion, scheduling, and weekday/calendar arithmetic.",
)

WEEKDAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")
MONTHS = ("January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
          "November", "December")
DAY = 1440  # minutes

# --------------------------------------------------------------------------------------------
# formatting: one canonical spelling per style, the other style as an alias
# --------------------------------------------------------------------------------------------


def clock(minute: int, style: str) -> str:
    """'07:05' (24h) or '7:05 AM' (12h); 12h writes 00:00 and 12:00 as 'midnight' and 'noon'."""
    minute %= DAY
    h, m = divmod(minute, 60)
    if style == "24h":
        return f"{h:02d}:{m:02d}"
    if minute == 0:
        return "midnight"
    if minute == 720:
        return "noon"
    return f"{(h % 12) or 12}:{m:02d} {'AM' if h < 12 else 'PM'}"


def clock_aliases(minute: int, style: str) -> tuple[str, ...]:
    other = clock(minute, "12h" if style == "24h" else "24h")
    out = [other]
    twelve = clock(minute, "12h")
    if twelve.endswith("M"):
        out.append(twelve.replace(" ", ""))  # 7:05AM
    if minute % DAY in (0, 720):
        out.append(f"12:00 {'AM' if minute % DAY == 0 else 'PM'}")
    return tuple(a for a in dict.fromkeys(out) if a != clock(minute, style))


def duration(minutes: int) -> str:
    """Canonical duration: '7 h 35 min', '56 h', '45 min'."""
    h, m = divmod(minutes, 60)
    return f"{h} h {m} min" if h and m else (f"{h} h" if h else f"{m} min")


def duration_words(minutes: int) -> str:
    h, m = divmod(minutes, 60)
    parts = ([f"{h} hour{'s' * (h != 1)}"] if h else []) + ([f"{m} minute{'s' * (m != 1)}"] if m else [])
    return " ".join(parts) or "0 minutes"


def duration_aliases(minutes: int) -> tuple[str, ...]:
    h, m = divmod(minutes, 60)
    out = [duration_words(minutes), f"{minutes} minutes"]
    if h:
        out.append(f"{h}:{m:02d}")
    return tuple(a for a in dict.fromkeys(out) if a not in (duration(minutes),))


def day_date(d: date, style: str) -> str:
    """'4 November 2025' (dmy), 'November 4, 2025' (mdy) or '2025-11-04' (iso)."""
    if style == "iso":
        return d.isoformat()
    if style == "mdy":
        return f"{MONTHS[d.month - 1]} {d.day}, {d.year}"
    return f"{d.day} {MONTHS[d.month - 1]} {d.year}"


def date_aliases(d: date, style: str) -> tuple[str, ...]:
    return tuple(day_date(d, s) for s in ("dmy", "mdy", "iso") if s != style)


def weekday_aliases(name: str) -> tuple[str, ...]:
    return (name[:3],)


def _minutes_phrase(m: int, varied: bool, rng: random.Random) -> str:
    """How a person states an offset: '25 minutes', '1 hour 10 minutes', 'an hour and a half'."""
    idioms = {15: "a quarter of an hour", 30: "half an hour", 45: "three quarters of an hour", 60: "an hour",
              90: "an hour and a half", 75: "an hour and a quarter", 120: "two hours"}
    if varied and m in idioms and rng.random() < 0.7:
        return idioms[m]
    if varied and 60 < m < 200 and rng.random() < 0.3:
        return f"{m} minutes"
    return duration_words(m)


def _days_phrase(d: int, varied: bool, rng: random.Random) -> str:
    weeks = {7: "a week", 14: "two weeks", 21: "three weeks", 28: "four weeks"}
    if varied and d in weeks and rng.random() < 0.7:
        return weeks[d]
    return "a day" if d == 1 else f"{d} days"


def _cap(text: str) -> str:
    return text[:1].upper() + text[1:]


# ============================================================================================
# event_ordering
# ============================================================================================

_TRAIN_TOWNS = ("Leeds", "York", "Bristol", "Oxford", "Cardiff", "Bath", "Derby", "Exeter", "Norwich", "Durham",
                "Carlisle", "Preston", "Hull", "Chester")
_PARCEL_FROM = ("Lyon", "Porto", "Gdansk", "Turin", "Ghent", "Bergen", "Seville", "Graz", "Malmo", "Brno",
                "Utrecht", "Bilbao")
_CROPS = ("the tomatoes", "the beans", "the peas", "the carrots", "the lettuce", "the radishes", "the squash",
          "the basil", "the spinach", "the beetroot", "the chard", "the leeks")
_BRANCH_TOWNS = ("Porto", "Leipzig", "Nantes", "Verona", "Galway", "Tampere", "Aarhus", "Cork", "Bruges",
                 "Salzburg", "Krakow", "Lille", "Bologna")
_COMPANIES = ("Northwind Books", "Bluebird Bakery", "Atlas Gyms", "Harbour Opticians", "Juniper Florists")

# kind, setting, entity pool, verb, ask templates ({pos} = first/last/second/third), window
_SCENES = (
    ("clock", "Guests arrived at {host}'s birthday party one evening.", "people", "arrived",
     ("Who arrived {pos}?", "Which guest was the {pos} to arrive?"), (18 * 60, 23 * 60 + 30)),
    ("clock", "A few friends ran the same 10K race, all starting together.", "people", "finished",
     ("Who finished {pos}?", "Which runner crossed the line {pos}?"), (9 * 60 + 40, 11 * 60 + 30)),
    ("clock", "Several trains left {town} Central one morning.", "trains", "left",
     ("Which train left {pos}?", "Which train was the {pos} to depart?"), (5 * 60 + 30, 11 * 60)),
    ("clock", "Parcels were delivered to {host}'s office on Monday.", "parcels", "was delivered",
     ("Which parcel was delivered {pos}?", "Which parcel arrived {pos}?"), (8 * 60, 17 * 60 + 30)),
    ("clock", "Researchers signed in at the lab on Tuesday.", "people", "signed in",
     ("Who signed in {pos}?", "Which researcher was the {pos} to sign in?"), (6 * 60 + 30, 11 * 60 + 30)),
    ("date", "{company} opened several new branches.", "branches", "opened",
     ("Which branch opened {pos}?", "Which was the {pos} branch to open?"), None),
    ("date", "{host} sowed a vegetable bed and noted the day each crop sprouted.", "crops", "sprouted",
     ("Which crop sprouted {pos}?", "Which crop was the {pos} to come up?"), None),
    ("date", "Several friends moved house.", "people", "moved house",
     ("Who moved house {pos}?", "Which friend was the {pos} to move?"), None),
    ("date", "Members of a book club each finished the same novel.", "people", "finished the novel",
     ("Who finished the novel {pos}?", "Which member was the {pos} to finish it?"), None),
)


def _entities(rng: random.Random, pool: str, n: int) -> list[str]:
    if pool == "people":
        return pick_names(rng, n)
    if pool == "trains":
        return [f"the {t} train" for t in rng.sample(_TRAIN_TOWNS, n)]
    if pool == "parcels":
        return [f"the parcel from {t}" for t in rng.sample(_PARCEL_FROM, n)]
    if pool == "branches":
        return [f"the {t} branch" for t in rng.sample(_BRANCH_TOWNS, n)]
    return rng.sample(_CROPS, n)


def _distinct_points(rng: random.Random, n: int, lo: int, hi: int, step: int, gap: int) -> list[int]:
    """n distinct grid points in [lo, hi], pairwise at least `gap` apart."""
    while True:
        points = sorted(rng.randrange(lo, hi + 1, step) for _ in range(n))
        if all(b - a >= gap for a, b in zip(points, points[1:])):
            return points


@DOMAIN.subcategory(
    "event_ordering",
    difficulty={
        "easy": "4 events, each with its own stated clock time or date in mixed formats (12h/24h, "
                "day-month/month-day/ISO); which came first or last",
        "medium": "4 events: one stated time, three given as offsets from events already mentioned "
                  "(chain depth up to 2); first, last or second",
        "hard": "5 events, statements in scrambled order, offsets chained up to 4 deep in mixed units "
                "('an hour and a half', 'two weeks'); which came second, third, first or last",
    },
)
def event_ordering(rng: random.Random, difficulty: str) -> Item:
    kind, setting, pool, verb, asks, window = rng.choice(_SCENES)
    n = 5 if difficulty == "hard" else 4
    names = _entities(rng, pool, n)
    host = rng.choice([x for x in NAMES if x not in names])
    if kind == "clock":
        lo, hi = window
        points = _distinct_points(rng, n, lo, hi, 5, 10)
        year = None
    else:
        year = rng.randint(2019, 2031)
        start = date(year, rng.randint(1, 12), rng.randint(1, 28))
        span = {"easy": 40, "medium": 70, "hard": 110}[difficulty]
        base = start.toordinal()
        points = [p + base for p in _distinct_points(rng, n, 0, span, 1, 2)]
    order = list(range(n))
    rng.shuffle(order)  # order[k] = index (into the time-sorted points) of the k-th named entity
    when = {names[k]: points[order[k]] for k in range(n)}

    def stamp(value: int, style: str) -> str:
        return clock(value, style) if kind == "clock" else day_date(date.fromordinal(value), style)

    def iso(value: int) -> str:
        return clock(value, "24h") if kind == "clock" else date.fromordinal(value).isoformat()

    styles = ("12h", "24h") if kind == "clock" else ("dmy", "mdy", "iso")
    lead = setting.format(host=host, town=rng.choice(_TRAIN_TOWNS), company=rng.choice(_COMPANIES))
    at = "at" if kind == "clock" else "on"
    params: dict = {"kind": kind}
    if difficulty == "easy":
        statements = [f"{_cap(x)} {verb} {at} {stamp(when[x], rng.choice(styles))}." for x in names]
        params["events"] = {x: iso(when[x]) for x in names}
        depth = 0
    else:
        anchor = names[0]
        relations = []  # (entity, reference, signed offset)
        depth_of = {anchor: 0}
        for i in range(1, n):
            x = names[i]
            earlier = names[:i]
            if difficulty == "medium":
                candidates = [e for e in earlier if depth_of[e] < 2]
                ref = rng.choice(candidates)
            else:
                ref = names[i - 1] if rng.random() < 0.6 else rng.choice(earlier)
            depth_of[x] = depth_of[ref] + 1
            relations.append((x, ref, when[x] - when[ref]))
        varied = difficulty == "hard"
        phrase = _minutes_phrase if kind == "clock" else _days_phrase
        statements = [f"{_cap(anchor)} {verb} {at} {stamp(when[anchor], rng.choice(styles))}."]
        for x, ref, delta in relations:
            statements.append(f"{_cap(x)} {verb} {phrase(abs(delta), varied, rng)} "
                              f"{'after' if delta > 0 else 'before'} {ref}.")
        if difficulty == "hard":
            rng.shuffle(statements)
        params["anchor"] = [anchor, iso(when[anchor])]
        params["relations"] = [[x, ref, delta] for x, ref, delta in relations]
        depth = max(depth_of.values())
    positions = {"easy": ("first", "last"), "medium": ("first", "last", "second"),
                 "hard": ("second", "third", "first", "last", "third")}[difficulty]
    pos = rng.choice(positions)
    ranked = sorted(names, key=lambda x: when[x])
    answer = ranked[{"first": 0, "second": 1, "third": 2, "last": -1}[pos]]
    others = [x for x in names if x != answer]
    others.sort(key=lambda x: abs(when[x] - when[answer]))  # the most confusable ones
    ask = rng.choice(asks).format(pos=pos)
    params.update({"ask": pos, "steps": n - 1 + depth})
    text = " ".join([lead, *statements, ask])
    return Item(text, answer, "short_text", pick_distractors(answer, others[:3]), params)


# ============================================================================================
# durations
# ============================================================================================

_MEETINGS = ("A meeting", "The workshop", "A job interview", "The exam", "A rehearsal", "The guided tour",
             "A training session", "The board meeting")
_SHOWS = ("A film", "The concert", "A football match", "The play", "An online lecture", "A cooking class",
          "The podcast recording")
_TRIPS = (("ferry", "crossing"), ("sleeper train", "journey"), ("coach", "trip"), ("cargo ship", "voyage"),
          ("long-haul flight", "flight"), ("overland bus", "journey"))


def _hhmm_number(minute: int, style: str) -> int:
    """The clock face read as a decimal number (10:50 -> 1050): the 'subtract like decimals' error."""
    h, m = divmod(minute % DAY, 60)
    if style == "12h":
        h = (h % 12) or 12
    return h * 100 + m


def _decimal_difference(a: int, b: int, style: str) -> int | None:
    """Minutes someone gets by subtracting 9:45 from 11:20 as 1120 - 945 = 175 (read as minutes)."""
    diff = _hhmm_number(b, style) - _hhmm_number(a, style)
    return diff if diff > 0 else None


def _duration_choices(rng, answer: int, named: list) -> tuple[str, str, str]:
    near = [answer + k for k in (60, -60, 30, -30, 10, -10, 120, -120, 5, -5)]
    wrong = spread_around(rng, answer, [w for w in named if w and w > 0], [w for w in near if w > 0])
    return pick_distractors(duration(answer), [duration(w) for w in wrong])


def _end_time_choices(rng, answer: int, named: list, style: str) -> tuple[str, str, str]:
    fallback = [answer + k for k in (60, -60, 10, -10, 30, -30, 120)]
    return pick_distractors(clock(answer, style), [clock(w, style) for w in named + fallback
                                                  if w is not None and (w - answer) % DAY])


def _durations_easy(rng: random.Random, name: str):
    style = rng.choice(("12h", "24h"))
    if rng.random() < 0.5:  # minutes between two times of the same half-day, with a borrow
        while True:
            a = rng.randrange(7 * 60, 17 * 60, 5)
            b = a + rng.randrange(35, 5 * 60, 5)
            same_half = style == "24h" or (a < 720) == (b < 720) and b % 720 != 0
            if b % 60 < a % 60 and same_half and b < 20 * 60 and a % 720 and b % 720:
                break
        what = rng.choice(_MEETINGS)
        text = rng.choice((
            f"{what} ran from {clock(a, style)} to {clock(b, style)}. How many minutes did it last?",
            f"{name} started work at {clock(a, style)} and stopped at {clock(b, style)} the same day. For how "
            f"many minutes did {name} work?",
            f"How many minutes are there between {clock(a, style)} and {clock(b, style)} on the same day?",
        ))
        answer = b - a
        named = [_decimal_difference(a, b, style), answer - 60, answer + 60, answer - 40]
        wrong = spread_around(rng, answer, [w for w in named if w and w > 0],
                              [answer + k for k in (10, -10, 20, -20, 30, -30) if answer + k > 0])
        return (text, fmt_num(answer), "exact_numeric", pick_distractors(fmt_num(answer), map(fmt_num, wrong)),
                {"form": "minutes_between", "start": clock(a, "24h"), "end": clock(b, "24h"), "steps": 2}, ())
    while True:  # end time = start + duration, with a minute carry
        a = rng.randrange(8 * 60, 16 * 60, 5)
        d = rng.randrange(35, 4 * 60, 5)
        end = a + d
        if a % 60 + d % 60 >= 60 and (style == "24h" or (a < 720) == (end < 720)) and end % 720 and a % 720:
            break
    what = rng.choice(_SHOWS)
    text = rng.choice((
        f"{what} starts at {clock(a, style)} and lasts {duration_words(d)}. At what time does it end?",
        f"{name} puts a loaf in the oven at {clock(a, style)}. It needs {duration_words(d)}. When should it come out?",
        f"A train journey that takes {duration_words(d)} leaves at {clock(a, style)}. What time does it arrive?",
    ))
    named = [end - 60, end + 60, end - 40]  # carry dropped, carried twice, 100-minute hour
    return (text, clock(end, style), "short_text", _end_time_choices(rng, end, named, style),
            {"form": "end_time", "start": clock(a, "24h"), "minutes": d, "steps": 2}, clock_aliases(end, style))


def _durations_medium(rng: random.Random, name: str):
    kind = rng.randrange(3)
    if kind == 0:  # across midnight or noon, answer in hours and minutes
        while True:
            a = rng.randrange(19 * 60, 23 * 60 + 55, 5) if rng.random() < 0.6 else rng.randrange(8 * 60, 11 * 60 + 55, 5)
            d = rng.randrange(3 * 60 + 5, 11 * 60, 5)
            b = (a + d) % DAY
            if d % 60 and a % 720 and b % 720:
                break
        style = "12h"
        context = rng.choice((
            f"{name} fell asleep at {clock(a, style)} and woke up at {clock(b, style)}. How long did {name} sleep?",
            f"A night shift starts at {clock(a, style)} and ends at {clock(b, style)} the next day. How long is "
            "the shift?" if a + d >= DAY else
            f"A shift starts at {clock(a, style)} and ends at {clock(b, style)} the same day. How long is it?",
            f"How much time passes between {clock(a, style)} and the following {clock(b, style)}?",
        ))
        wrong_way = abs(a % 720 - b % 720)  # subtracted the clock faces, ignoring AM/PM
        return (context, duration(d), "short_text",
                _duration_choices(rng, d, [wrong_way, d + 720 if d < 720 else d - 720, d - 60, d + 60]),
                {"form": "hours_between", "start": clock(a, "24h"), "end": clock(b, "24h"), "steps": 3},
                duration_aliases(d))
    if kind == 1:  # days between two dates (no February), exclusive or inclusive
        while True:
            year = rng.randint(2020, 2031)
            first = date(year, rng.choice((3, 4, 5, 6, 7, 8, 9, 10, 11)), rng.randint(1, 28))
            last = first + timedelta(days=rng.randint(12, 75))
            if last.month != 2 and last.year == year:
                break
        style = rng.choice(("dmy", "mdy"))
        inclusive = rng.random() < 0.4
        gap = (last - first).days
        answer = gap + inclusive
        if inclusive:
            text = rng.choice((
                f"A festival runs from {day_date(first, style)} to {day_date(last, style)}, both days included. "
                "On how many days is it open?",
                f"{name} is away from {day_date(first, style)} to {day_date(last, style)} inclusive. How many "
                "days is that, counting both the first and the last day?",
            ))
        else:
            text = rng.choice((
                f"How many days after {day_date(first, style)} is {day_date(last, style)}?",
                f"{name} posted a letter on {day_date(first, style)} and it arrived on {day_date(last, style)}. "
                "How many days did it take?",
            ))
        month_slip = answer + (1 if _month_len(first) == 31 else -1) if first.month != last.month else answer + 2
        named = [gap + (not inclusive), month_slip, answer - 1 if inclusive else answer + 2, answer - 2]
        wrong = spread_around(rng, answer, [w for w in named if w > 0], [answer + k for k in (3, -3, 4, -4)])
        return (text, fmt_num(answer), "exact_numeric", pick_distractors(fmt_num(answer), map(fmt_num, wrong)),
                {"form": "days_between", "start": first.isoformat(), "end": last.isoformat(),
                 "inclusive": inclusive, "steps": 3}, ())
    while True:  # end time across noon or midnight in 12-hour style
        a = rng.randrange(9 * 60, 23 * 60 + 55, 5)
        d = rng.randrange(65, 5 * 60, 5)
        end = a + d
        if a % 720 and end % 720 and (a < 720) != (end % DAY < 720) and a % 60 + d % 60 >= 60:
            break
    text = rng.choice((
        f"{rng.choice(_SHOWS)} starts at {clock(a, '12h')} and runs for {duration_words(d)}. When does it finish?",
        f"{name} sets off at {clock(a, '12h')} on a drive that takes {duration_words(d)}. At what time does "
        f"{name} arrive?",
    ))
    named = [end + 720, end - 60, end + 720 - 60]  # AM/PM not switched, carry dropped, both
    return (text, clock(end, "12h"), "short_text", _end_time_choices(rng, end, named, "12h"),
            {"form": "end_time", "start": clock(a, "24h"), "minutes": d, "steps": 3}, clock_aliases(end, "12h"))


def _month_len(d: date) -> int:
    nxt = date(d.year + (d.month == 12), d.month % 12 + 1, 1)
    return (nxt - date(d.year, d.month, 1)).days


def _durations_hard(rng: random.Random, name: str):
    kind = rng.randrange(3)
    if kind == 0:  # a trip spanning several days, across a month end (often February)
        while True:
            year = rng.randint(2020, 2031)
            month = rng.choice((2, 2, 4, 6, 9, 11, 1, 3))
            dep_day = date(year, month, 1) + timedelta(days=_month_len(date(year, month, 1)) - rng.randint(1, 3))
            dep = datetime(year, dep_day.month, dep_day.day, rng.randrange(5, 24), rng.randrange(0, 60, 5))
            total = rng.randrange(26 * 60, 80 * 60, 5)
            arr = dep + timedelta(minutes=total)
            if total % 60 and arr.month != dep.month:
                break
        vehicle, noun = rng.choice(_TRIPS)
        style = rng.choice(("dmy", "mdy"))
        text = rng.choice((
            f"A {vehicle} departs at {clock(dep.hour * 60 + dep.minute, '24h')} on {day_date(dep.date(), style)} and "
            f"arrives at {clock(arr.hour * 60 + arr.minute, '24h')} on {day_date(arr.date(), style)} (same time "
            f"zone). How long is the {noun}, in hours and minutes?",
            f"{name}'s {vehicle} left on {day_date(dep.date(), style)} at {clock(dep.hour * 60 + dep.minute, '24h')} "
            f"and reached its destination on {day_date(arr.date(), style)} at "
            f"{clock(arr.hour * 60 + arr.minute, '24h')}, local time being the same at both ends. How long did "
            f"the {noun} take?",
        ))
        # month length off by one either way, an hour miscounted, AM/PM-style 12-hour slip
        named = [total + DAY, total - DAY, total - 60, total + 60, total - 720]
        return (text, duration(total), "short_text", _duration_choices(rng, total, named),
                {"form": "trip_length", "depart": dep.isoformat(timespec="minutes"),
                 "arrive": arr.isoformat(timespec="minutes"), "steps": 4}, duration_aliases(total))
    if kind == 1:  # days between dates spanning February, often inclusive
        while True:
            year = rng.randint(2019, 2031)
            first = date(year, rng.choice((1, 2, 12)), rng.randint(1, 28))
            last = first + timedelta(days=rng.randint(40, 160))
            if date(first.year + (first.month == 12), 3, 1) <= last:
                break
        style = rng.choice(("dmy", "mdy"))
        inclusive = rng.random() < 0.5
        gap = (last - first).days
        answer = gap + inclusive
        text = rng.choice((
            f"How many days are there from {day_date(first, style)} to {day_date(last, style)}"
            + (", counting both dates?" if inclusive else ", not counting the first day?"),
            f"A loan runs from {day_date(first, style)} until {day_date(last, style)}. "
            + ("Counting both the first and last day, how many days is that?" if inclusive else
               "How many days after the start does it end?"),
        ))
        feb = date(first.year + (first.month == 12), 3, 1) - date(first.year + (first.month == 12), 2, 1)
        leap_slip = answer + (1 if feb.days == 28 else -1)  # 29 February forgotten or invented
        named = [leap_slip, gap + (not inclusive), answer + 2 if inclusive else answer - 2, answer - 3]
        wrong = spread_around(rng, answer, [w for w in named if w > 0], [answer + k for k in (3, -4, 4, 5, -5)])
        return (text, fmt_num(answer), "exact_numeric", pick_distractors(fmt_num(answer), map(fmt_num, wrong)),
                {"form": "days_between", "start": first.isoformat(), "end": last.isoformat(),
                 "inclusive": inclusive, "steps": 4}, ())
    while True:  # back-to-back tasks with breaks
        style = rng.choice(("12h", "24h"))
        start = rng.randrange(7 * 60, 10 * 60, 5)
        tasks = [rng.randrange(25, 170, 5) for _ in range(rng.randint(3, 4))]
        brk = rng.choice((10, 15, 20))
        end = start + sum(tasks) + brk * (len(tasks) - 1)
        if end % 720 and sum(t % 60 for t in tasks) >= 60:
            break
    listing = ", ".join(duration_words(t) for t in tasks[:-1]) + f" and {duration_words(tasks[-1])}"
    text = rng.choice((
        f"{name} has {count_word(len(tasks))} jobs that take {listing}, done one after another with a {brk}-minute "
        f"break between consecutive jobs. Starting at {clock(start, style)}, when does {name} finish?",
        f"A lab runs {count_word(len(tasks))} tests back to back: they last {listing}, and the machine needs {brk} "
        f"minutes of cleaning between one test and the next. If the first test starts at {clock(start, style)}, "
        "when does the last one end?",
    ))
    named = [end - brk * (len(tasks) - 1), end + brk, end - brk]  # breaks forgotten, one too many, one too few
    return (text, clock(end, style), "short_text", _end_time_choices(rng, end, named, style),
            {"form": "task_chain", "start": clock(start, "24h"), "tasks": tasks, "break": brk, "steps": 5},
            clock_aliases(end, style))


@DOMAIN.subcategory(
    "durations",
    difficulty={
        "easy": "two steps within one half-day: minutes between two times (with a borrow) or an end time "
                "(with a carry)",
        "medium": "three steps: crossing noon or midnight in 12-hour time, or days between two dates "
                  "(exclusive or inclusive) across a 30/31-day month end",
        "hard": "four to five steps: multi-day trips across month ends and 29 February, day counts spanning "
                "February, chains of 3-4 tasks with breaks",
    },
)
def durations(rng: random.Random, difficulty: str) -> Item:
    name = pick_names(rng, 1)[0]
    text, answer, answer_type, distractors, params, aliases = {
        "easy": _durations_easy, "medium": _durations_medium, "hard": _durations_hard}[difficulty](rng, name)
    return Item(text, answer, answer_type, distractors, params, aliases)


# ============================================================================================
# timezone_arithmetic
# ============================================================================================

# city, IANA zone, UTC offset in minutes in mid-January and in mid-July (checked against zoneinfo in
# the tests). Zones whose rules changed recently (Cairo, Tehran, Mexico City, Santiago) are left out.
_CITIES = (
    ("London", "Europe/London", 0, 60), ("Lisbon", "Europe/Lisbon", 0, 60),
    ("Reykjavik", "Atlantic/Reykjavik", 0, 0), ("Accra", "Africa/Accra", 0, 0),
    ("Paris", "Europe/Paris", 60, 120), ("Berlin", "Europe/Berlin", 60, 120), ("Madrid", "Europe/Madrid", 60, 120),
    ("Rome", "Europe/Rome", 60, 120), ("Lagos", "Africa/Lagos", 60, 60),
    ("Athens", "Europe/Athens", 120, 180), ("Helsinki", "Europe/Helsinki", 120, 180),
    ("Johannesburg", "Africa/Johannesburg", 120, 120), ("Nairobi", "Africa/Nairobi", 180, 180),
    ("Istanbul", "Europe/Istanbul", 180, 180), ("Moscow", "Europe/Moscow", 180, 180),
    ("Dubai", "Asia/Dubai", 240, 240), ("Karachi", "Asia/Karachi", 300, 300),
    ("Mumbai", "Asia/Kolkata", 330, 330), ("Kathmandu", "Asia/Kathmandu", 345, 345),
    ("Dhaka", "Asia/Dhaka", 360, 360), ("Yangon", "Asia/Yangon", 390, 390),
    ("Bangkok", "Asia/Bangkok", 420, 420), ("Jakarta", "Asia/Jakarta", 420, 420),
    ("Singapore", "Asia/Singapore", 480, 480), ("Shanghai", "Asia/Shanghai", 480, 480),
    ("Perth", "Australia/Perth", 480, 480), ("Tokyo", "Asia/Tokyo", 540, 540), ("Seoul", "Asia/Seoul", 540, 540),
    ("Adelaide", "Australia/Adelaide", 630, 570), ("Brisbane", "Australia/Brisbane", 600, 600),
    ("Sydney", "Australia/Sydney", 660, 600), ("Auckland", "Pacific/Auckland", 780, 720),
    ("Honolulu", "Pacific/Honolulu", -600, -600), ("Anchorage", "America/Anchorage", -540, -480),
    ("Los Angeles", "America/Los_Angeles", -480, -420), ("Vancouver", "America/Vancouver", -480, -420),
    ("Phoenix", "America/Phoenix", -420, -420), ("Denver", "America/Denver", -420, -360),
    ("Chicago", "America/Chicago", -360, -300), ("New York", "America/New_York", -300, -240),
    ("Toronto", "America/Toronto", -300, -240), ("Bogota", "America/Bogota", -300, -300),
    ("Lima", "America/Lima", -300, -300), ("Caracas", "America/Caracas", -240, -240),
    ("Buenos Aires", "America/Argentina/Buenos_Aires", -180, -180), ("Sao Paulo", "America/Sao_Paulo", -180, -180),
    ("St. John's", "America/St_Johns", -210, -150),
)


def utc_label(offset: int) -> str:
    """'UTC+5:30', 'UTC-4', 'UTC+0'."""
    sign = "-" if offset < 0 else "+"
    h, m = divmod(abs(offset), 60)
    return f"UTC{sign}{h}" + (f":{m:02d}" if m else "")


def _tz_date(rng: random.Random) -> date:
    """Mid-January or mid-July: far from every DST switch, so the table's offsets hold."""
    return date(rng.randint(2025, 2028), rng.choice((1, 7)), rng.randint(8, 24))


def _offset(city: tuple, when: date) -> int:
    return city[2] if when.month == 1 else city[3]


def _day_clock(moment: datetime, style: str) -> str:
    return f"{WEEKDAYS[moment.weekday()]} {clock(moment.hour * 60 + moment.minute, style)}"


def _day_clock_aliases(moment: datetime, style: str) -> tuple[str, ...]:
    minute = moment.hour * 60 + moment.minute
    day = WEEKDAYS[moment.weekday()]
    other = "12h" if style == "24h" else "24h"
    return (f"{day} {clock(minute, other)}", f"{clock(minute, style)} on {day}", f"{day[:3]} {clock(minute, style)}")


def _two_cities(rng: random.Random, when: date, *, whole_hours: bool, min_gap: int = 120):
    while True:
        a, b = rng.sample(_CITIES, 2)
        oa, ob = _offset(a, when), _offset(b, when)
        if abs(oa - ob) < min_gap:
            continue
        if whole_hours == (oa % 60 == 0 and ob % 60 == 0):
            return a, b, oa, ob


def _place(city: tuple, offset: int) -> str:
    return f"{city[0]} ({utc_label(offset)})"


def _tz_easy(rng: random.Random, name: str):
    style = rng.choice(("12h", "24h"))
    when = _tz_date(rng)
    while True:
        a, b, oa, ob = _two_cities(rng, when, whole_hours=True)
        t = rng.randrange(6 * 60, 22 * 60, 15)
        u = t - oa + ob
        if 60 <= u <= 23 * 60 and t % 720 and u % 720:
            break
    text = rng.choice((
        f"When it is {clock(t, style)} in {_place(a, oa)}, what time is it in {_place(b, ob)}?",
        f"{name} in {_place(a, oa)} calls a friend in {_place(b, ob)} at {clock(t, style)} {a[0]} time. What time is "
        f"it for the friend?",
        f"A webinar starts at {clock(t, style)} in {_place(a, oa)}. What is the local start time in {_place(b, ob)}?",
        f"A shop in {_place(a, oa)} opens at {clock(t, style)} local time. What time is that in {_place(b, ob)}?",
        f"Convert {clock(t, style)} in {_place(a, oa)} to the local time in {_place(b, ob)}.",
    ))
    other_season = t - (a[3] if when.month == 1 else a[2]) + (b[3] if when.month == 1 else b[2])
    # offset applied the wrong way, AM/PM flipped, the other season's (DST) offsets, an hour off
    named = [t + oa - ob, u + 720, other_season if other_season != u else None, u + 60, u - 60]
    params = {"form": "convert", "from_city": a[0], "from_zone": a[1], "from_offset": oa, "to_city": b[0],
              "to_zone": b[1], "to_offset": ob, "local": f"{when.isoformat()}T{clock(t, '24h')}", "steps": 2}
    return text, u, named, params, style


def _tz_medium(rng: random.Random, name: str):
    style = rng.choice(("12h", "24h"))
    when = _tz_date(rng)
    half = rng.random() < 0.5
    while True:
        a, b, oa, ob = _two_cities(rng, when, whole_hours=not half, min_gap=180)
        t = rng.randrange(0, DAY, 15)
        start = datetime(when.year, when.month, when.day) + timedelta(minutes=t)
        end = start + timedelta(minutes=ob - oa)
        if end.date() != start.date() and t % 720 and (end.hour * 60 + end.minute) % 720:
            break
    day = WEEKDAYS[start.weekday()]
    text = rng.choice((
        f"It is {clock(t, style)} on {day} in {_place(a, oa)}. What day and time is it in {_place(b, ob)}?",
        f"{name} sends a message from {_place(a, oa)} at {clock(t, style)} on {day}, local time. What are the "
        f"day and time for the recipient in {_place(b, ob)}?",
        f"A server in {_place(a, oa)} logs an error at {clock(t, style)} on a {day}. Which day and local time "
        f"is that for the on-call engineer in {_place(b, ob)}?",
        f"A football match kicks off at {clock(t, style)} on {day} in {_place(a, oa)}. On which day and at what "
        f"local time can fans in {_place(b, ob)} watch it live?",
    ))
    wrong_way = start - timedelta(minutes=ob - oa)

    def whole_hours(offset: int) -> int:  # UTC+5:30 read as UTC+5
        return int(offset / 60) * 60

    no_fraction = start + timedelta(minutes=whole_hours(ob) - whole_hours(oa)) if half else None
    same_day = end - timedelta(days=1 if end > start else -1)  # the date change forgotten
    named = [same_day, wrong_way, no_fraction, end + timedelta(hours=1), end - timedelta(hours=1)]
    params = {"form": "convert_day", "from_city": a[0], "from_zone": a[1], "from_offset": oa, "to_city": b[0],
              "to_zone": b[1], "to_offset": ob, "local": start.isoformat(timespec="minutes"), "steps": 3}
    return text, end, named, params, style


def _flight_minutes(rng: random.Random, offset_a: int, offset_b: int) -> int:
    """A flight time that suits the distance the offsets imply: each hour of offset is some 15
    degrees of longitude, 1.5-2 hours in the air at mid latitudes (Athens to Istanbul is never 13 h 55 min)."""
    hours = abs(offset_a - offset_b) / 60
    hi = min(110 + 80 * hours, 17 * 60)
    lo = min(50 + 55 * hours, hi - 60)
    return rng.randrange(int(lo) // 5 * 5, int(hi) + 1, 5)


def _tz_hard(rng: random.Random, name: str):
    style = rng.choice(("12h", "24h"))
    when = _tz_date(rng)
    legs = 1 if rng.random() < 0.5 else 2
    while True:
        cities = rng.sample(_CITIES, 3)
        offsets = [_offset(c, when) for c in cities]
        if abs(offsets[0] - offsets[2]) < 180 or (legs == 2 and len(set(offsets)) < 3):
            continue
        if legs == 2 and not min(offsets[0], offsets[2]) < offsets[1] < max(offsets[0], offsets[2]):
            continue  # a stopover roughly on the way
        t = rng.randrange(0, DAY, 5)
        stops = [offsets[0], offsets[1], offsets[2]] if legs == 2 else [offsets[0], offsets[2]]
        flight = [_flight_minutes(rng, a, b) for a, b in zip(stops, stops[1:])]
        layover = rng.randrange(50, 4 * 60, 5) if legs == 2 else 0
        depart = datetime(when.year, when.month, when.day) + timedelta(minutes=t)
        total = sum(flight) + layover
        arrive = depart + timedelta(minutes=total + offsets[2] - offsets[0])
        if arrive.date() != depart.date() and t % 720 and (arrive.hour * 60 + arrive.minute) % 720:
            break
    origin, via, dest = cities
    dep_text = f"{clock(t, style)} on {WEEKDAYS[depart.weekday()]}, {day_date(depart.date(), 'dmy')}"
    if legs == 1:
        text = rng.choice((
            f"A flight leaves {_place(origin, offsets[0])} at {dep_text}, local time. The flight takes "
            f"{duration_words(flight[0])}. What are the local day and time when it lands in "
            f"{_place(dest, offsets[2])}?",
            f"{name} departs {_place(origin, offsets[0])} at {dep_text} (local time) on a non-stop flight to "
            f"{_place(dest, offsets[2])} lasting {duration_words(flight[0])}. On what day and at what local time "
            "does the plane land?",
        ))
    else:
        text = (f"{name} flies from {_place(origin, offsets[0])} to {_place(dest, offsets[2])} with a stop in "
                f"{_place(via, offsets[1])}. The first flight leaves at {dep_text}, local time, and takes "
                f"{duration_words(flight[0])}; after a {duration_words(layover)} connection, the second flight "
                f"takes {duration_words(flight[1])}. What are the local day and time of arrival in {dest[0]}?")
    at_origin = depart + timedelta(minutes=total)  # clock never changed
    wrong_way = depart + timedelta(minutes=total - offsets[2] + offsets[0])
    at_via = depart + timedelta(minutes=total + offsets[1] - offsets[0])  # converted at the stopover's offset
    no_layover = arrive - timedelta(minutes=layover) if layover else None
    day_slip = arrive - timedelta(days=1)
    named = [at_origin, at_via if legs == 2 else None, no_layover, wrong_way, day_slip]
    params = {"form": "flight", "from_city": origin[0], "from_zone": origin[1], "from_offset": offsets[0],
              "to_city": dest[0], "to_zone": dest[1], "to_offset": offsets[2], "local": depart.isoformat(
                  timespec="minutes"), "flight_minutes": flight, "layover_minutes": layover, "steps": 4 + legs}
    if legs == 2:
        params.update({"via_city": via[0], "via_zone": via[1], "via_offset": offsets[1]})
    return text, arrive, named, params, style


@DOMAIN.subcategory(
    "timezone_arithmetic",
    difficulty={
        "easy": "one conversion between whole-hour offsets (stated as UTC+n), same calendar day",
        "medium": "one conversion that crosses midnight, often with a half- or quarter-hour offset; "
                  "answer is day and time",
        "hard": "a flight: departure local time + duration (and a layover with a third, irrelevant offset) "
                "-> local arrival day and time",
    },
)
def timezone_arithmetic(rng: random.Random, difficulty: str) -> Item:
    name = pick_names(rng, 1)[0]
    text, target, named, params, style = {"easy": _tz_easy, "medium": _tz_medium, "hard": _tz_hard}[difficulty](
        rng, name)
    # The named errors span a 2 x 2 family around the gold (see `numeric_family`): a day slip and an hour
    # slip give four choices each one slip from two others, so no choice is the centre.
    if isinstance(target, int):  # a clock time on the same day
        answer, aliases = clock(target, style), clock_aliases(target, style)
        deltas = [w - target for w in named if w is not None]
        wrong = numeric_family(rng, 0, deltas, step=30, lo=-target, hi=DAY - 1 - target)
        shown = [clock(target + int(d), style) for d in wrong]
    else:  # a weekday and clock time
        answer, aliases = _day_clock(target, style), _day_clock_aliases(target, style)
        deltas = [(w - target) // timedelta(minutes=1) for w in named if w is not None]
        wrong = numeric_family(rng, 0, deltas, step=30, lo=None)
        shown = [_day_clock(target + timedelta(minutes=int(d)), style) for d in wrong]
    return Item(text, answer, "short_text", pick_distractors(answer, shown), params, aliases)


# ============================================================================================
# scheduling
# ============================================================================================


def _earliest(busy: list[tuple[int, int]], day: tuple[int, int], length: int) -> int | None:
    """Earliest start: sweep the merged busy blocks and take the first gap long enough."""
    t = day[0]
    for b0, b1 in sorted(busy):
        if b0 - t >= length:
            return t
        t = max(t, b1)
    return t if day[1] - t >= length else None


def _span(a: int, b: int, style: str) -> str:
    return f"{clock(a, style)}-{clock(b, style)}" if style == "24h" else f"{clock(a, style)} to {clock(b, style)}"


def _meeting_starts(day: tuple[int, int], length: int, grid: int) -> list[int]:
    """The starts the meeting may have on the item's grid: after the day's first minute (someone is always
    busy then), never noon (written as a word in 12-hour style), and ending before the day does (the slot
    that ends exactly at closing time was the gold in half of its offers: few errors land there)."""
    return [t for t in range(day[0] + grid, day[1] - length, grid) if t % 720]


def _calendars_for(rng: random.Random, names: list[str], answer: int, length: int, grid: int,
                   day: tuple[int, int], blocks: tuple[int, int]) -> dict | None:
    """Calendars whose earliest common free slot of `length` minutes starts at `answer`: a chain of busy
    blocks covers the day up to `answer` (free gaps between them, and before the first, all too short),
    the last of them ending at `answer`; the people's other blocks fall anywhere that leaves
    `answer`..`answer + length` free. None when the draw does not fit the people's block counts."""
    chain: list[tuple[int, int]] = []
    cursor = day[0] + rng.randrange(0, length, grid)  # a lead too short for the meeting
    if cursor >= answer:
        cursor = day[0]
    while True:
        end = cursor + rng.randrange(30, 151, grid)
        if end >= answer - 15:  # the last block ends at the answer, and lasts at least half an hour
            chain.append((max(day[0], min(cursor, answer - 30)), answer))
            break
        chain.append((cursor, end))
        cursor = end + rng.randrange(-60, length, grid)  # an overlap (another person's block) or a short gap
        cursor = max(cursor, chain[-1][0] + grid)
    counts = {who: rng.randint(*blocks) for who in names}
    if len(chain) > sum(counts.values()):
        return None
    calendars: dict[str, list[tuple[int, int]]] = {who: [] for who in names}
    for b0, b1 in chain:  # each block to someone with room for it who is free then (with a gap either side)
        free = [w for w in names if len(calendars[w]) < counts[w]
                and all(b1 < c0 or b0 > c1 for c0, c1 in calendars[w])]
        if not free:
            return None
        calendars[rng.choice(free)].append((b0, b1))
    for who in names:
        tries = 0
        while len(calendars[who]) < counts[who]:
            tries += 1
            if tries > 50:
                return None
            b0 = rng.randrange(day[0], day[1] - 30, grid)
            b1 = min(b0 + rng.randrange(30, 150, grid), day[1])
            if b1 <= answer or b0 >= answer + length:
                if all(b1 < c0 or b0 > c1 for c0, c1 in calendars[who]):
                    calendars[who].append((b0, b1))
    return {who: sorted(cal) for who, cal in calendars.items()}


def _calendar_meeting(rng: random.Random, difficulty: str):
    people, blocks, lengths, grid = {
        "easy": (2, (2, 2), (30,), 30), "medium": (3, (2, 2), (45, 60), 15), "hard": (4, (2, 3), (75, 90), 5)}[difficulty]
    style = rng.choice(("12h", "24h"))
    day = (9 * 60, 17 * 60 + 30 * (difficulty == "hard"))
    length = rng.choice(lengths)
    # the answer first, evenly over every start the day allows: drawn from random calendars, the earliest
    # slot crowds into mid-morning and the later free gaps shown beside it into the afternoon, so the time
    # of day alone told the gold from the distractors
    starts = _meeting_starts(day, length, grid)
    answer = rng.choice(starts)
    while True:
        names = pick_names(rng, people)
        calendars = _calendars_for(rng, names, answer, length, grid, day, blocks)
        if calendars is None:
            continue
        busy = [iv for cal in calendars.values() for iv in cal]
        if _earliest(busy, day, length) != answer:  # pragma: no cover - the construction guarantees it
            raise AssertionError("calendar construction missed its answer")
        ignore_one = [_earliest([iv for w, cal in calendars.items() if w != who for iv in cal], day, length)
                      for who in names]
        # later feasible starts where a person would look: the start of a later free gap
        gaps = _gap_starts(busy, day)
        later = [t for t in gaps if t > answer and _earliest(busy, (t, day[1]), length) == t]
        too_short = [t for t in gaps if t < answer]
        # one calendar left out, a free gap too short for the meeting, the next (or last) free gap, the end
        # of the free window the meeting fits in, the end or start of someone's busy block (one calendar read
        # alone, free and busy read the wrong way round): all times the calendars show, as the gold is, so
        # neither the words a choice shares with the question nor its likeness to the others mark the gold.
        # A grid step either side only to make up three; only starts the day allows (a time that can never
        # be the gold would be struck off unread).
        window_end = min((a for a, _ in busy if a >= answer + length), default=None)
        key = list(dict.fromkeys(ignore_one))[:2] + too_short[-1:] + later[:1] + [window_end]
        rest = sorted({t for iv in busy for t in iv} | set(too_short) | set(later), key=lambda t: (abs(t - answer), t))
        named = key + rest
        pool = [t for t in dict.fromkeys(named) if t in starts and t != answer]
        if len(pool) < 3:
            steps = [answer + k for k in (grid, -grid, 2 * grid, -2 * grid)]
            pool += [t for t in steps if t in starts and t not in pool]
        if len(pool) >= 3:
            break
    lines = [f"{who}: busy {', '.join(_span(a, b, style) for a, b in cal)}." for who, cal in calendars.items()]
    people_text = ", ".join(names[:-1]) + f" and {names[-1]}"
    text = rng.choice((
        f"{people_text} need a {length}-minute meeting between {clock(day[0], style)} and {clock(day[1], style)}. "
        f"Their calendars: {' '.join(lines)} What is the earliest time the meeting can start?",
        f"Find the earliest start time for a call of {duration_words(length)} with {people_text}, within the working "
        f"day ({clock(day[0], style)} to {clock(day[1], style)}). {' '.join(lines)}",
        f"{people_text} want to meet for {duration_words(length)} today, no earlier than {clock(day[0], style)} and "
        f"finishing by {clock(day[1], style)}. {' '.join(lines)} When is the earliest they can "
        f"{'both' if people == 2 else 'all'} start?",
    ))
    params = {"form": "common_slot", "day": [clock(day[0], "24h"), clock(day[1], "24h")], "length": length,
              "busy": {w: [[clock(a, "24h"), clock(b, "24h")] for a, b in cal] for w, cal in calendars.items()},
              "steps": sum(len(c) for c in calendars.values())}
    return text, answer, pool, params, style


def _gap_starts(busy: list[tuple[int, int]], day: tuple[int, int]) -> list[int]:
    """Start of every free gap (however short): the 'first gap I saw' error."""
    out, t = [], day[0]
    for b0, b1 in sorted(busy):
        if b0 > t:
            out.append(t)
        t = max(t, b1)
    return out


# (setting, six task names in label order, question)
_PROJECTS = (
    ("A team is renovating a room.", ("strip the old paint", "fix the wiring", "plaster the walls", "fit the lights",
                                      "paint the walls", "lay the carpet"), "At what time is everything finished?"),
    ("Friends are cooking a dinner together.", ("wash the vegetables", "marinate the fish", "make the sauce",
                                                 "bake the bread", "grill the fish", "set the table"),
     "When is the whole dinner ready?"),
    ("A small agency is preparing a product launch.", ("write the brief", "design the logo", "draft the copy",
                                                       "build the web page", "record the video", "send the emails"),
     "At what time can the launch go ahead, with every task done?"),
    ("A crew is setting up an outdoor concert.", ("unload the trucks", "build the stage", "rig the lights",
                                                   "set up the sound desk", "run the sound check", "open the bar"),
     "What time is it when the last task finishes?"),
)


def _task_graph(rng: random.Random, name: str):
    """Tasks with prerequisites, each done by its own person: finish = start + longest path."""
    style = rng.choice(("12h", "24h"))
    while True:
        n = rng.randint(5, 6)
        labels = [chr(ord("A") + i) for i in range(n)]
        minutes = {x: rng.randrange(15, 100, 5) for x in labels}
        needs: dict[str, list[str]] = {labels[0]: []}
        for i in range(1, n):
            k = 1 if i == 1 else rng.choice((1, 1, 2))
            needs[labels[i]] = sorted(rng.sample(labels[:i], min(k, i)))
        finish: dict[str, int] = {}
        for x in labels:  # labels are in dependency order
            finish[x] = max((finish[p] for p in needs[x]), default=0) + minutes[x]
        longest = max(finish.values())
        sequential = sum(minutes.values())
        start = rng.randrange(8 * 60, 10 * 60, 5)
        end = start + longest
        if sequential != longest and end % 720:
            break
    # a plausible shortcut: follow only each task's first prerequisite
    first_only: dict[str, int] = {}
    for x in labels:
        first_only[x] = (first_only[needs[x][0]] if needs[x] else 0) + minutes[x]
    shortcut = max(first_only.values())
    setting, jobs, ask = rng.choice(_PROJECTS)
    lines = []
    for x in labels:
        req = f" (after {' and '.join(needs[x])})" if needs[x] else " (can start straight away)"
        lines.append(f"{x}: {jobs[ord(x) - ord('A')]}, {duration_words(minutes[x])}{req}.")
    text = (f"{setting} Each task has its own person, and a task starts as soon as every task it depends on is "
            f"finished. Work begins at {clock(start, style)}. " + " ".join(lines) + f" {ask}")
    # every task in a row, each task's first prerequisite only, the last task left out, the finish of a
    # task that is not the last to end (a branch taken for the whole), a parallel task run in series after
    # the critical one, a quarter of an hour either side
    others = sorted({finish[x] for x in labels if finish[x] != longest}, reverse=True)
    side = sorted(minutes[x] for x in labels if minutes[x] < longest)
    named = [start + sequential, start + shortcut, start + longest - minutes[labels[-1]],
             *(start + f for f in others[:3]), *(start + longest + m for m in side[:2]),
             start + longest + 15, start + longest - 15]
    params = {"form": "critical_path", "start": clock(start, "24h"), "minutes": minutes, "needs": needs,
              "steps": n + sum(len(v) for v in needs.values())}
    return text, end, named, params, style


@DOMAIN.subcategory(
    "scheduling",
    difficulty={
        "easy": "2 calendars, 2 busy blocks each on a 30-minute grid, 30-minute meeting: earliest common start "
                "(anywhere in the day)",
        "medium": "3 calendars, 2 busy blocks each on a 15-minute grid, 45-60-minute meeting",
        "hard": "4 calendars with 2-3 blocks on a 5-minute grid and a 75-90-minute meeting, or 5-6 dependent "
                "tasks run in parallel (critical path)",
    },
)
def scheduling(rng: random.Random, difficulty: str) -> Item:
    name = pick_names(rng, 1)[0]
    if difficulty == "hard" and rng.random() < 0.5:
        text, answer, named, params, style = _task_graph(rng, name)
        pool = [w for w in dict.fromkeys(named + [answer + k for k in (30, -30, 60)]) if w != answer and w % 720]
        # six errors (twenty triples) keep the cues fair at a quarter of the cost of nine
        distractors = fair_pick(rng, clock(answer, style), [clock(w, style) for w in pool[:6]], text)
    else:
        text, answer, pool, params, style = _calendar_meeting(rng, difficulty)
        distractors = fair_pick(rng, clock(answer, style), [clock(w, style) for w in pool[:6]], text)
    return Item(text, clock(answer, style), "short_text", distractors, params, clock_aliases(answer, style))


# ============================================================================================
# calendar_reasoning
# ============================================================================================


def _weekday_item(rng, text: str, answer_day: int, named_shifts: list[int], params: dict) -> Item:
    """answer_day is 0..6 (Monday=0); named_shifts are the weekday slips of the errors people make."""
    answer = WEEKDAYS[answer_day]
    shifts = [s for s in dict.fromkeys(named_shifts) if s % 7] + [1, -1, 2, -2, 3, -3]
    wrong = [WEEKDAYS[(answer_day + s) % 7] for s in shifts]
    return Item(text, answer, "short_text", fair_pick(rng, answer, wrong, text), params, weekday_aliases(answer))


def _random_date(rng: random.Random, lo_year: int = 2019, hi_year: int = 2031) -> date:
    return date(rng.randint(lo_year, hi_year), 1, 1) + timedelta(days=rng.randrange(365))


def _calendar_easy(rng: random.Random, name: str) -> Item:
    if rng.random() < 0.5:  # same month, with the real weekday of the reference day given
        while True:
            ref = _random_date(rng)
            target = ref + timedelta(days=rng.randint(5, 27) * rng.choice((1, 1, -1)))
            if target.month == ref.month and target != ref:
                break
        style = rng.choice(("dmy", "mdy"))
        text = rng.choice((
            f"{day_date(ref, style)} is a {WEEKDAYS[ref.weekday()]}. What day of the week is {day_date(target, style)}?",
            f"If {day_date(ref, style)} falls on a {WEEKDAYS[ref.weekday()]}, on which day of the week does "
            f"{day_date(target, style)} fall?",
        ))
        delta = (target - ref).days
        return _weekday_item(rng, text, target.weekday(), [1 if delta > 0 else -1, -1 if delta > 0 else 1, 2],
                             {"form": "weekday_from_reference", "reference": ref.isoformat(),
                              "reference_weekday": WEEKDAYS[ref.weekday()], "target": target.isoformat(),
                              "steps": 2})
    today = rng.randrange(7)
    n = rng.randint(8, 60)
    while n % 7 == 0:
        n += 1
    text = rng.choice((
        f"Today is {WEEKDAYS[today]}. What day of the week will it be in {n} days?",
        f"{name}'s parcel was posted on a {WEEKDAYS[today]} and arrived {n} days later. On what day of the week "
        "did it arrive?",
        f"It is {WEEKDAYS[today]} today. Which weekday will it be {n} days from now?",
    ))
    return _weekday_item(rng, text, (today + n) % 7, [1, -1, 2],
                         {"form": "weekday_after_days", "start_weekday": WEEKDAYS[today], "days": n, "steps": 2})


def _calendar_medium(rng: random.Random, name: str) -> Item:
    style = rng.choice(("dmy", "mdy"))
    if rng.random() < 0.5:  # across one or two month ends, not through February
        while True:
            ref = _random_date(rng)
            target = ref + timedelta(days=rng.randint(15, 70))
            if ref.month != target.month and 3 <= ref.month <= 11 and target.month != 2 and ref.year == target.year:
                break
        text = rng.choice((
            f"{day_date(ref, style)} is a {WEEKDAYS[ref.weekday()]}. What day of the week is {day_date(target, style)}?",
            f"Given that {day_date(ref, style)} was a {WEEKDAYS[ref.weekday()]}, what weekday was "
            f"{day_date(target, style)}?",
        ))
        slip = 1 if _month_len(ref) == 30 else -1  # took a 30-day month as 31 (or the reverse)
        return _weekday_item(rng, text, target.weekday(), [slip, -slip, 2],
                             {"form": "weekday_from_reference", "reference": ref.isoformat(),
                              "reference_weekday": WEEKDAYS[ref.weekday()], "target": target.isoformat(),
                              "steps": 3})
    while True:  # date N days after/before a date
        ref = _random_date(rng)
        n = rng.randint(20, 80)
        forward = rng.random() < 0.7
        target = ref + timedelta(days=n if forward else -n)
        if all(d.month != 2 for d in (ref, target)) and ref.year == target.year and abs(
                target.month - ref.month) >= 1:
            break
    text = rng.choice((
        f"What date is {n} days {'after' if forward else 'before'} {day_date(ref, style)}?",
        f"A {n}-day {'warranty starts' if forward else 'countdown ended'} on {day_date(ref, style)}. "
        + (f"On what date does it run out, {n} days later?" if forward else f"On what date did it begin, {n} days "
           "earlier?"),
    ))
    sign = 1 if forward else -1
    named = [(_thirty_day_months(ref, n * sign) - target).days, sign]  # 30-day months; counting both ends
    offsets = [int(d) for d in dict.fromkeys([*named, -sign, 2 * sign, -2 * sign, 3, -3]) if d]
    answer = day_date(target, style)
    return Item(text, answer, "short_text",
                fair_pick(rng, answer, [day_date(target + timedelta(days=d), style) for d in offsets], text),
                {"form": "date_after_days", "reference": ref.isoformat(), "days": n * sign, "steps": 3},
                date_aliases(target, style))


def _thirty_day_months(ref: date, days: int) -> date:
    """Where someone lands who counts every month as 30 days."""
    day_index = ref.year * 360 + (ref.month - 1) * 30 + min(ref.day, 30) - 1 + days
    y, rest = divmod(day_index, 360)
    m, d = divmod(rest, 30)
    for dd in range(d + 1, 0, -1):
        try:
            return date(y, m + 1, dd)
        except ValueError:
            continue
    raise AssertionError("unreachable")


def _nth_weekday(year: int, month: int, weekday: int, nth: int) -> date:
    first = date(year, month, 1)
    return first + timedelta(days=(weekday - first.weekday()) % 7 + 7 * (nth - 1))


def _calendar_hard(rng: random.Random, name: str) -> Item:
    style = rng.choice(("dmy", "mdy"))
    kind = rng.randrange(3)
    if kind == 0:  # weekday across February and often a year end
        while True:
            ref = _random_date(rng, 2019, 2029)
            target = ref + timedelta(days=rng.randint(200, 700))
            if _leap_days_between(ref, target) or rng.random() < 0.3:
                break
        text = rng.choice((
            f"{day_date(ref, style)} is a {WEEKDAYS[ref.weekday()]}. What day of the week is {day_date(target, style)}?",
            f"Knowing that {day_date(ref, style)} fell on a {WEEKDAYS[ref.weekday()]}, work out the day of the "
            f"week of {day_date(target, style)}.",
        ))
        leap_days = _leap_days_between(ref, target)
        # 29 February forgotten (or invented), counting both ends, one more slip
        named = [-leap_days if leap_days else 1, 1 if leap_days else -1, -1, 2]
        return _weekday_item(rng, text, target.weekday(), named,
                             {"form": "weekday_from_reference", "reference": ref.isoformat(),
                              "reference_weekday": WEEKDAYS[ref.weekday()], "target": target.isoformat(),
                              "steps": 4 + leap_days})
    if kind == 1:  # the n-th weekday of a month
        year, month = rng.randint(2019, 2031), rng.randint(1, 12)
        weekday, nth = rng.randrange(7), rng.choice((2, 3, 4))
        answer_date = _nth_weekday(year, month, weekday, nth)
        nth_word = {2: "second", 3: "third", 4: "fourth"}[nth]
        month_name = MONTHS[month - 1]
        text = rng.choice((
            f"What is the date of the {nth_word} {WEEKDAYS[weekday]} of {month_name} {year}?",
            f"A club meets on the {nth_word} {WEEKDAYS[weekday]} of every month. On which date is the "
            f"{month_name} {year} meeting?",
        ))
        first = date(year, month, 1)
        naive = first + timedelta(days=7 * (nth - 1))  # took the 1st as the first such weekday
        wrong = [answer_date - timedelta(days=7), answer_date + timedelta(days=7), naive,
                 answer_date + timedelta(days=1), answer_date - timedelta(days=1)]
        wrong = [d for d in wrong if d.month == month]
        answer = day_date(answer_date, style)
        extra = [day_date(answer_date + timedelta(days=k), style) for k in (2, -2, 3, -3)]
        return Item(text, answer, "short_text", fair_pick(rng, answer, [day_date(d, style) for d in wrong] + extra, text),
                    {"form": "nth_weekday", "year": year, "month": month, "weekday": WEEKDAYS[weekday], "nth": nth,
                     "steps": 4}, date_aliases(answer_date, style))
    while True:  # N days after a date, through February
        ref = _random_date(rng)
        n = rng.randint(60, 200)
        target = ref + timedelta(days=n)
        feb_end = date(ref.year + (ref.month > 2), 3, 1)
        if ref < feb_end <= target:
            break
    text = rng.choice((
        f"What date is {n} days after {day_date(ref, style)}?",
        f"{name} starts a {n}-day training plan on {day_date(ref, style)}; day 0 is the start. What is the date on "
        f"day {n}?",
    ))
    leap = _is_leap(feb_end.year)
    wrong = [target + timedelta(days=1 if leap else -1), target + timedelta(days=1), target - timedelta(days=1),
             _thirty_day_months(ref, n)]
    answer = day_date(target, style)
    extra = [day_date(target + timedelta(days=k), style) for k in (2, -2, 3, -3)]
    return Item(text, answer, "short_text", fair_pick(rng, answer, [day_date(d, style) for d in wrong] + extra, text),
                {"form": "date_after_days", "reference": ref.isoformat(), "days": n, "steps": 4},
                date_aliases(target, style))


def _leap_days_between(first: date, last: date) -> int:
    """How many 29 Februaries fall after `first` and on or before `last`."""
    return sum(1 for y in range(first.year, last.year + 1) if _is_leap(y) and first < date(y, 2, 29) <= last)


def _is_leap(year: int) -> bool:
    return (date(year, 3, 1) - date(year, 2, 28)).days == 2


@DOMAIN.subcategory(
    "calendar_reasoning",
    difficulty={
        "easy": "weekday a few days to weeks away within one month, or 'N days from today' (8-60 days)",
        "medium": "weekday or date 15-80 days away across one or two 30/31-day month ends (February excluded)",
        "hard": "weekday 200-700 days away across 29 February and year ends, the n-th weekday of a month, or "
                "a date 60-200 days on through February",
    },
)
def calendar_reasoning(rng: random.Random, difficulty: str) -> Item:
    name = pick_names(rng, 1)[0]
    return {"easy": _calendar_easy, "medium": _calendar_medium, "hard": _calendar_hard}[difficulty](rng, name)
