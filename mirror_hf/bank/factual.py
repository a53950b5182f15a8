"""Factual domain: questions read from structured facts that well-kept packages carry.

Every gold answer is a lookup in a named source (never typed in here), and every question asserts
only what that source records, saying so where the fact is a convention of the source ("according
to CLDR", "ISO 3166", "CODATA 2022"). The sources:

* `periodictable` — element symbols, names, atomic numbers, standard atomic weights;
* `scipy.constants` — the CODATA 2022 recommended values of physical constants;
* `pycountry` — ISO 3166-1 country codes, ISO 3166-2 subdivisions, ISO 3166-3 withdrawn codes,
  ISO 639 language codes;
* `babel` — the Unicode CLDR: English display names, currencies in use per territory and their
  dates, official languages, likely scripts, month and weekday names, first day of the week;
* `tzdata` (read with the standard library's `zoneinfo`) — the IANA time zone database.

Each item's `params` names its `source` (package and version) and the keys looked up, so a test can
look the answer up again without this module. Difficulty is set by how well known the entity is
(stated lists or atomic-number bands below), how close the distractors are, and the number of
look-ups chained together (one hop vs two).
"""

from __future__ import annotations

import dataclasses
import functools
import importlib.metadata
import importlib.resources
import json
import math
import random
import re
import sys
from collections import Counter
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from zoneinfo import ZoneInfo

import babel
import periodictable
import scipy
import scipy.constants
from babel import Locale
from babel.core import get_global
from babel.numbers import get_currency_name

from mirror_hf.bank._core import Domain, Item, normalise_text, reads_as_letter
from mirror_hf.bank._fair import fair_pick
from mirror_hf.bank._wording import numeric_distractors, pick_distractors

_LAST_YEAR = 2025  # no distractor year lies in the future of the sources

# ---------------------------------------------------------------------------------------------
# Sources (named in the card and in every item's params)
# ---------------------------------------------------------------------------------------------

SRC_ELEMENTS = f"periodictable {importlib.metadata.version('periodictable')}"
SRC_CODATA = f"scipy.constants {scipy.__version__} (CODATA 2022)"
SRC_ISO = f"pycountry {importlib.metadata.version('pycountry')}"
SRC_CLDR = f"babel {babel.__version__} (CLDR)"
# CLDR data that lives in per-locale files (month and weekday names, language names in each
# language, first day of the week) is read once from babel into a snapshot shipped beside this
# module: loading ~100 babel locales would cost seconds per build. `python -m
# mirror_hf.bank.factual` refreshes it; the tests compare it with babel itself.
CLDR_SNAPSHOT = Path(__file__).with_name("data") / "cldr_locales.json"
SRC_TZ = f"tzdata {importlib.metadata.version('tzdata')} (IANA tz database)"

DOMAIN = Domain(
    "factual",
    version="1.0.0",
    description=(
        "Facts looked up in structured data that maintained packages ship (no runtime downloads): "
        f"{SRC_ELEMENTS} for elements (symbols, names, atomic numbers, standard atomic weights); "
        f"{SRC_CODATA} for physical constants; {SRC_ISO} for ISO 3166-1/-2/-3 country, subdivision "
        f"and withdrawn codes and ISO 639 language codes; {SRC_CLDR} for English names, currencies in "
        "use per territory with their start and end dates, official languages, likely scripts, month "
        "and weekday names and the first day of the week (the per-locale part as a snapshot taken from "
        f"babel, shipped with the package); {SRC_TZ}, read with the standard library's "
        "zoneinfo, for time zones and UTC offsets. Each question asserts only what its source records "
        "and names the source where the fact is one of the source's conventions; each item's params "
        "record the source and the keys looked up."
    ),
)

_EN = Locale("en")

# ---------------------------------------------------------------------------------------------
# Stated lists that set difficulty (membership decides easy/medium/hard; no fact is asserted)
# ---------------------------------------------------------------------------------------------

# Widely known countries: the G20 members plus other large or often-discussed states.
WELL_KNOWN_COUNTRIES = frozenset(
    "AR AU BR CA CN FR DE IN ID IT JP KR MX RU SA ZA TR GB US ES PT NL BE CH AT SE NO DK FI PL GR "
    "IE EG NG KE ET MA IR IQ PK BD TH VN PH NZ CL CO PE CU IL UA".split()
)
# ISO 3166-1 entries that are not UN member states (dependencies, Antarctica, observers, ...).
NON_SOVEREIGN = frozenset(
    "AS AI AQ AW AX BL BM BQ BV CC CK CW CX EH FK FO GF GG GI GL GP GS GU HK HM IM IO JE KY MF MO "
    "MP MQ MS NC NF NU PF PM PN PR PS RE SH SJ SX TC TF TK TW UM VA VG VI WF YT".split()
)
# ISO 3166-1 entries left out of every question: names whose status is disputed.
EXCLUDED_TERRITORIES = frozenset({"EH", "PS", "TW", "XK"})

# Languages most readers have heard of (ISO 639-1 codes).
MAJOR_LANGUAGES = tuple(
    "en fr de es it pt ru zh ja ar hi ko nl sv pl tr el he fi da no cs hu ro uk th vi id fa".split()
)
# Languages with a CLDR locale that are less familiar but not obscure.
MEDIUM_LANGUAGES = tuple(
    "bg hr sr sk sl lt lv et is ga cy eu ca gl sq mk bs ms tl sw am bn ta te ur mn ka hy az kk uz "
    "ne si km lo my af zu ha yo".split()
)

ELEMENT_BANDS = {"easy": (1, 20), "medium": (21, 56), "hard": (57, 118)}
BRITISH_SPELLINGS = {"aluminum": "aluminium", "cesium": "caesium", "sulfur": "sulphur"}

# CODATA constants by familiarity (scipy.constants.physical_constants keys).
FAMOUS_CONSTANTS = (
    "speed of light in vacuum",
    "Planck constant",
    "reduced Planck constant",
    "Boltzmann constant",
    "Avogadro constant",
    "elementary charge",
    "Newtonian constant of gravitation",
    "electron mass",
    "proton mass",
    "neutron mass",
    "standard acceleration of gravity",
    "molar gas constant",
    "Faraday constant",
    "Stefan-Boltzmann constant",
    "fine-structure constant",
    "Bohr radius",
    "Rydberg constant",
    "vacuum electric permittivity",
    "vacuum mag. permeability",
    "standard atmosphere",
)
OBSCURE_CONSTANTS = (
    "muon mass",
    "tau mass",
    "deuteron mass",
    "alpha particle mass",
    "helion mass",
    "triton mass",
    "Hartree energy",
    "Josephson constant",
    "von Klitzing constant",
    "mag. flux quantum",
    "conductance quantum",
    "Bohr magneton",
    "nuclear magneton",
    "classical electron radius",
    "Thomson cross section",
    "Compton wavelength",
    "Wien wavelength displacement law constant",
    "Wien frequency displacement law constant",
    "first radiation constant",
    "second radiation constant",
    "Planck length",
    "Planck time",
    "Planck mass",
    "Planck temperature",
    "characteristic impedance of vacuum",
    "proton-electron mass ratio",
    "Loschmidt constant (273.15 K, 101.325 kPa)",
    "molar volume of ideal gas (273.15 K, 101.325 kPa)",
    "electron g factor",
    "electron volt",
    "atomic mass constant",
)


def _article(word: str) -> str:
    return "an" if word[:1].lower() in "aeiou" else "a"


def _cap(text: str) -> str:
    return text[:1].upper() + text[1:]


# ---------------------------------------------------------------------------------------------
# Options first, answer second (answers drawn from a small vocabulary)
# ---------------------------------------------------------------------------------------------
#
# Where the answers come from a small vocabulary that the facts themselves skew (most languages are
# written in Latin script, the euro replaced a dozen currencies in 1999-2002, most zones sit at a
# few offsets), drawing the entity first makes the common value the answer whenever it is offered and
# leaves a rare or merely nearby value never the answer. These kinds draw the four options first,
# as values close to one another, keep the set only if each of the four is the answer for some entity
# of the tier while the other three are wrong for it, and only then draw which one is the answer and
# an entity with that answer. Within every offered set each option is then the answer a quarter of the
# time, so no option can be picked or struck off for what it says.


def _weighted_sample(rng: random.Random, values: list, weights: list[float], k: int) -> list:
    """k distinct values, each drawn in proportion to its weight among those not yet drawn."""
    values, weights = list(values), list(weights)
    out = []
    for _ in range(k):
        i = rng.choices(range(len(values)), weights)[0]
        out.append(values.pop(i))
        weights.pop(i)
    return out


def _near_values(rng: random.Random, values: list, spread: float, count: dict | None = None) -> list:
    """Four values of a numeric vocabulary close together: one drawn at random and the three others
    nearest it, each distance blurred by up to `spread` so the set is not always the same window.
    With `count` (how many entities have each value), the first is drawn in proportion to it and the
    distances are divided by it: a form asks each entity at most once, so a value that many entities
    share can be the answer more often in a form than a value one entity has, and is offered more
    often to match."""
    n = count or {}
    anchor = rng.choices(values, [n.get(v, 1) for v in values])[0]
    blurred = {v: (abs(v - anchor) + spread * rng.random()) / n.get(v, 1) for v in values if v != anchor}
    return [anchor, *sorted(blurred, key=blurred.__getitem__)[:3]]


def _options_first(rng: random.Random, draw_options, hosts, tries: int = 200) -> tuple:
    """(answer, entity, the three wrong values): `draw_options()` gives four candidate values (or
    fewer, to refuse the draw);
    `hosts(value, others)` lists (in a fixed order) the entities for which `value` is the answer and
    each of `others` is wrong. A set is kept only when every value has an entity; the answer is then
    drawn uniformly from the set."""
    for _ in range(tries):
        options = list(draw_options())
        if len(set(options)) != 4:  # the draw may refuse a set by returning fewer
            continue
        found = [hosts(v, [o for o in options if o != v]) for v in options]
        if all(found):
            i = rng.randrange(4)
            return options[i], rng.choice(found[i]), options[:i] + options[i + 1:]
    raise ValueError("no set of four options in which each can be the answer")


def _alike(rng: random.Random, values: list, closeness, close: int = 3) -> list:
    """Four values of a vocabulary that look alike: one drawn at random, the `close` others that
    `closeness(anchor, value)` ranks nearest (ties in random order), the rest of the four at random."""
    anchor = rng.choice(values)
    order = {v: (closeness(anchor, v), rng.random()) for v in values if v != anchor}
    near = sorted(order, key=order.__getitem__)
    picked = near[:close]
    return [anchor, *picked, *rng.sample(near[close:], 3 - close)]


# ---------------------------------------------------------------------------------------------
# Source tables (loaded once, lazily)
# ---------------------------------------------------------------------------------------------


@functools.cache
def elements() -> dict[int, dict]:
    """Z -> {symbol, name, mass} from periodictable (names as the package spells them)."""
    out = {}
    for el in periodictable.elements:
        if el.number >= 1:
            out[el.number] = {"symbol": el.symbol, "name": el.name, "mass": float(el.mass)}
    return out


def element_name(z: int) -> str:
    return _cap(elements()[z]["name"])


def element_aliases(z: int) -> tuple[str, ...]:
    british = BRITISH_SPELLINGS.get(elements()[z]["name"])
    return (_cap(british),) if british else ()


def _constant(key: str) -> tuple[float, str]:
    value, unit, _ = scipy.constants.physical_constants[key]
    return float(value), unit


def constant_label(key: str) -> str:
    return key.replace("mag.", "magnetic")


def fmt_sci(value: float, unit: str) -> str:
    """Four significant figures, scientific notation outside 0.01-100000: '6.626 × 10^-34 J Hz^-1'."""
    if 0.01 <= abs(value) < 1e5:
        magnitude = math.floor(math.log10(abs(value)))
        places = max(0, 3 - magnitude)
        text = f"{round(value, 3 - magnitude):.{places}f}"
    else:
        mantissa, exponent = f"{value:.3e}".split("e")
        text = f"{mantissa} × 10^{int(exponent)}"
    return f"{text} {unit}".strip()


@functools.cache
def iso_table(standard: str) -> tuple[dict, ...]:
    """One of pycountry's ISO databases ('3166-1', '3166-2', '3166-3', '639-3'), read from the JSON
    files the package ships (its object API takes most of a second to index the subdivisions)."""
    path = importlib.resources.files("pycountry").joinpath("databases", f"iso{standard}.json")
    return tuple(json.loads(path.read_text(encoding="utf-8"))[standard])


# CLDR's English short names, made to read as prose ("Congo - Kinshasa" is a menu label).
_DISPLAY_FIXES = {"CD": "Democratic Republic of the Congo", "CG": "Republic of the Congo"}


@functools.cache
def countries() -> dict[str, dict]:
    """alpha-2 -> ISO 3166-1 codes (pycountry) and the CLDR English display name (babel)."""
    out = {}
    for c in iso_table("3166-1"):
        code = c["alpha_2"]
        if code in EXCLUDED_TERRITORIES:
            continue
        iso_names = [c.get("common_name"), c["name"], c.get("official_name")]
        display = _DISPLAY_FIXES.get(code) or _EN.territories.get(code) or iso_names[0] or c["name"]
        display = display.replace(" & ", " and ")
        tier = "easy" if code in WELL_KNOWN_COUNTRIES else "hard" if code in NON_SOVEREIGN else "medium"
        out[code] = {
            "alpha_2": code,
            "alpha_3": c["alpha_3"],
            "numeric": c["numeric"],
            "name": display,
            "aliases": tuple(dict.fromkeys(n for n in iso_names if n and n != display)),
            "tier": tier,
            "compact": re.sub(r"[^a-z]", "", normalise_text(display)),
        }
    return out


def country_name(code: str) -> str:
    return countries()[code]["name"]


_PLURAL_OR_TITLE = re.compile(r"\b(Republic|Kingdom|States|Islands|Emirates|Netherlands|Philippines|Bahamas|Gambia|Maldives|Comoros|Seychelles|Territor\w+|Federation|Union|Isle|Holy See)\b")


def in_text(code: str) -> str:
    """The name as it reads mid-sentence: 'the United Kingdom', 'the Bahamas', 'France'."""
    name = country_name(code)
    return f"the {name}" if _PLURAL_OR_TITLE.search(name) and not name.startswith(("Isle of", "St.")) else name


def countries_up_to(difficulty: str) -> list[str]:
    """Entities of this tier or an easier one (distractor pools)."""
    order = {"easy": 0, "medium": 1, "hard": 2}
    return [a2 for a2, c in countries().items() if order[c["tier"]] <= order[difficulty]]


def countries_in(difficulty: str) -> list[str]:
    return [a2 for a2, c in countries().items() if c["tier"] == difficulty]


@functools.cache
def zone_table() -> dict[str, str]:
    """IANA zone -> alpha-2, from tzdata's zone.tab."""
    text = importlib.resources.files("tzdata.zoneinfo").joinpath("zone.tab").read_text(encoding="utf-8")
    out = {}
    for line in text.splitlines():
        if line.startswith("#") or not line.strip():
            continue
        code, _coords, zone = line.split("\t")[:3]
        if code in countries() and code != "AQ":  # research stations keep their own clocks
            out[zone] = code
    return out


@functools.cache
def country_area() -> dict[str, str]:
    """alpha-2 -> the IANA area ('Europe', 'Africa', ...) most of its zones are filed under."""
    areas: dict[str, Counter] = {}
    for zone, code in zone_table().items():
        areas.setdefault(code, Counter())[zone.split("/")[0]] += 1
    return {code: sorted(c.items(), key=lambda kv: (-kv[1], kv[0]))[0][0] for code, c in areas.items()}


def tz_file(zone: str) -> ZoneInfo:
    """The zone read from the tzdata package itself, so every machine gets the same answer."""
    parts = zone.split("/")
    resource = importlib.resources.files("tzdata.zoneinfo").joinpath(*parts)
    with resource.open("rb") as fh:
        return ZoneInfo.from_file(fh, key=zone)


def fmt_offset(minutes: int) -> str:
    sign = "+" if minutes >= 0 else "-"
    h, m = divmod(abs(minutes), 60)
    return f"UTC{sign}{h:02d}:{m:02d}"


@functools.cache
def currency_history() -> dict[str, list[tuple[str, tuple, tuple | None]]]:
    """territory -> [(currency, start, end)] of legal-tender currencies, per CLDR."""
    out = {}
    for territory, rows in get_global("territory_currencies").items():
        if territory not in countries():
            continue
        out[territory] = [(code, start, end) for code, start, end, tender in rows if tender]
    return out


@functools.cache
def currency_name(code: str) -> str:
    return get_currency_name(code, locale="en")


_YEAR_IN_NAME = re.compile(r"\d{4}")


def current_currency(territory: str) -> str | None:
    """The single legal-tender currency CLDR lists without an end date, or None."""
    current = [code for code, _s, end in currency_history().get(territory, []) if end is None]
    return current[0] if len(current) == 1 else None


@functools.cache
def subdivisions() -> list[dict]:
    """Top-level ISO 3166-2 subdivisions whose name is unique and is not itself a country name."""
    country_words = set()
    for c in countries().values():
        for n in (c["name"], *c["aliases"]):
            country_words.add(normalise_text(n).split(" ")[0])
    rows = [s for s in iso_table("3166-2") if "parent" not in s and s["code"].split("-")[0] in countries()]
    counts = Counter(normalise_text(s["name"]) for s in rows)
    out = []
    for s in rows:
        key = normalise_text(s["name"])
        country = s["code"].split("-")[0]
        if counts[key] != 1 or key.split(" ")[0] in country_words or country in NON_SOVEREIGN:
            continue
        out.append({"code": s["code"], "name": s["name"], "type": s["type"], "country": country})
    return out


@functools.cache
def cldr_locales() -> dict:
    """The per-locale CLDR snapshot (see CLDR_SNAPSHOT)."""
    return json.loads(CLDR_SNAPSHOT.read_text(encoding="utf-8"))


def language_name(code: str) -> str:
    return _cap(_EN.languages[code])


def likely_script(lang: str) -> str | None:
    tag = get_global("likely_subtags").get(lang)
    if not tag:
        return None
    parts = tag.split("_")
    return parts[1] if len(parts) > 2 else None


# ---------------------------------------------------------------------------------------------
# science: elements (periodictable) and physical constants (scipy.constants, CODATA 2022)
# ---------------------------------------------------------------------------------------------


def _band(difficulty: str) -> range:
    lo, hi = ELEMENT_BANDS[difficulty]
    return range(lo, hi + 1)


def _neighbour_zs(z: int, spread: int = 3) -> list[int]:
    out = []
    for d in range(1, spread + 1):
        for cand in (z + d, z - d):
            if 1 <= cand <= 118:
                out.append(cand)
    return out


def _element_item(question: str, z: int, confusions: list[int], params: dict) -> Item:
    confusions = [c for c in confusions if c != z]
    return Item(
        question,
        element_name(z),
        "short_text",
        pick_distractors(element_name(z), [element_name(c) for c in confusions], [element_name(c) for c in _neighbour_zs(z, 6)]),
        {"source": SRC_ELEMENTS, **params, "atomic_number": z},
        element_aliases(z),
    )


def _science_element_from_symbol(rng: random.Random, difficulty: str) -> Item:
    z = rng.choice(_band(difficulty))
    sym = elements()[z]["symbol"]
    # Elements whose name starts like the symbol (K -> krypton) are the classic confusion.
    lookalikes = [c for c in elements() if c != z and elements()[c]["name"].startswith(sym[0].lower())]
    rng.shuffle(lookalikes)
    near = _neighbour_zs(z)
    rng.shuffle(near)
    confusions = lookalikes[:2] + near
    q = rng.choice(
        [
            f"Which element has the chemical symbol {sym}?",
            f"The chemical symbol {sym} stands for which element?",
            f"On the periodic table, which element is written with the symbol {sym}?",
            f"A label on a sample reads simply '{sym}'. Which chemical element is that the symbol of?",
        ]
    )
    return _element_item(q, z, confusions, {"kind": "element_from_symbol", "symbol": sym})


def _science_symbol_from_element(rng: random.Random, difficulty: str) -> Item:
    z = rng.choice(_band(difficulty))
    while reads_as_letter(elements()[z]["symbol"]):  # boron and carbon: "B"/"C" would read as a letter
        z = rng.choice(_band(difficulty))
    name = elements()[z]["name"]
    sym = elements()[z]["symbol"]
    # Symbols people build from the name's letters, then real symbols of neighbouring elements.
    guesses = [name[0].upper(), name[:2].capitalize(), (name[0] + name[2]).capitalize(), (name[0] + name[-1]).capitalize()]
    rng.shuffle(guesses)
    near = [elements()[c]["symbol"] for c in _neighbour_zs(z)]
    q = rng.choice(
        [
            f"What is the chemical symbol for {name}?",
            f"Which symbol represents {name} on the periodic table?",
            f"How is {name} abbreviated as a chemical symbol?",
        ]
    )
    # Symbols differ only by case from letter guesses; keep candidates whose normalised form differs.
    return Item(
        q,
        sym,
        "short_text",
        pick_distractors(sym, guesses, near),
        {"source": SRC_ELEMENTS, "kind": "symbol_from_element", "atomic_number": z},
    )


def _science_number_from_element(rng: random.Random, difficulty: str) -> Item:
    z = rng.choice(_band(difficulty))
    name = elements()[z]["name"]
    wrong = [z + 8 if z + 8 <= 118 else z - 8, z + 1]  # the element below it in the table; its neighbour
    q = rng.choice(
        [
            f"What is the atomic number of {name}?",
            f"How many protons does an atom of {name} have in its nucleus?",
            f"{_cap(name)} sits at which atomic number in the periodic table?",
        ]
    )
    return Item(
        q,
        str(z),
        "exact_numeric",
        numeric_distractors(rng, z, wrong, lo=1, hi=118),
        {"source": SRC_ELEMENTS, "kind": "number_from_element", "element": name, "atomic_number": z},
    )


def _science_element_from_number(rng: random.Random, difficulty: str) -> Item:
    z = rng.choice(_band(difficulty))
    near = _neighbour_zs(z)
    q = rng.choice(
        [
            f"Which element has atomic number {z}?",
            f"An atom has {z} protons in its nucleus. Which element is it?",
            f"Which chemical element is number {z} in the periodic table?",
        ]
    )
    return _element_item(q, z, near, {"kind": "element_from_number"})


def _has_standard_weight(z: int) -> bool:
    """periodictable gives a whole mass number (of the longest-lived isotope) for elements that have
    no standard atomic weight; only the others can be asked about."""
    mass = elements()[z]["mass"]
    return mass != round(mass)


def _science_element_from_weight(rng: random.Random, difficulty: str) -> Item:
    z = rng.choice([c for c in _band(difficulty) if _has_standard_weight(c)])
    mass = elements()[z]["mass"]
    near = [c for c in _neighbour_zs(z) if f"{elements()[c]['mass']:.2f}" != f"{mass:.2f}"]
    q = rng.choice(
        [
            f"Which element has a standard atomic weight of {mass:.2f} (rounded to two decimals)?",
            f"An element's standard atomic weight, rounded to two decimal places, is {mass:.2f}. Which element is it?",
        ]
    )
    return _element_item(q, z, near, {"kind": "element_from_weight", "weight_2dp": f"{mass:.2f}"})


def _science_element_sum(rng: random.Random, difficulty: str) -> Item:
    """Two hops: look up two atomic numbers, add them, look the element up again."""
    while True:
        a, b = rng.sample(range(1, 57), 2)
        if 57 <= a + b <= 118:
            break
    z = a + b
    na, nb = elements()[a]["name"], elements()[b]["name"]
    # Common slips: off by one, or subtracting instead of adding.
    confusions = [z + 1, z - 1, abs(a - b), z + 2, z - 2]
    confusions = [c for c in confusions if 1 <= c <= 118]
    q = rng.choice(
        [
            f"Which element's atomic number equals the sum of the atomic numbers of {na} and {nb}?",
            f"Add the atomic number of {na} to that of {nb}. Which element has the resulting atomic number?",
        ]
    )
    return _element_item(q, z, confusions, {"kind": "element_sum", "addends": [a, b]})


def _science_element_offset(rng: random.Random, difficulty: str) -> Item:
    """Two hops: find an element's place, count on k places."""
    k = rng.randint(2, 5)
    base = rng.randint(57 - k, 118 - k)
    z = base + k
    name = elements()[base]["name"]
    confusions = [base + k - 1, base + k + 1, base - k, base + k + 2]
    confusions = [c for c in confusions if 1 <= c <= 118 and c != base]
    q = rng.choice(
        [
            f"Which element comes {k} places after {name} in order of atomic number?",
            f"Counting up the periodic table by atomic number, which element is {k} places after {name}?",
        ]
    )
    return _element_item(q, z, confusions, {"kind": "element_offset", "start": base, "offset": k})


@functools.cache
def _same_unit_constants(unit: str) -> tuple[str, ...]:
    """Every CODATA constant in this unit, except unit-conversion 'relationships' and duplicates."""
    current = set(scipy.constants.find())  # CODATA 2022 only, not superseded names
    return tuple(
        k
        for k, (_v, u, _e) in sorted(scipy.constants.physical_constants.items())
        if k in current and u == unit and u and "relationship" not in k and "in " not in k and "atomic unit" not in k and "natural unit" not in k
    )


def _constant_pool(difficulty: str) -> tuple[str, ...]:
    return FAMOUS_CONSTANTS if difficulty == "easy" else FAMOUS_CONSTANTS + OBSCURE_CONSTANTS


def _science_constant_value(rng: random.Random, difficulty: str) -> Item:
    key = rng.choice(FAMOUS_CONSTANTS if difficulty == "easy" else OBSCURE_CONSTANTS)
    value, unit = _constant(key)
    answer = fmt_sci(value, unit)
    # Slips: a power of ten off, or the value of a constant people mix it up with (same unit first).
    same_unit = [k for k in _constant_pool("hard") if k != key and _constant(k)[1] == unit]
    rng.shuffle(same_unit)
    others = [fmt_sci(_constant(k)[0], unit) for k in same_unit]
    shifted = [fmt_sci(value * 10, unit), fmt_sci(value / 10, unit), fmt_sci(value * 100, unit)]
    rng.shuffle(shifted)
    groups = (others[:1] + shifted) if difficulty != "hard" else (others[:2] + shifted)
    label = constant_label(key)
    q = rng.choice(
        [
            f"What is the CODATA 2022 value of the {label}, to four significant figures?",
            f"To four significant figures, what value does CODATA 2022 give for the {label}?",
            f"Which of these is the {label} (CODATA 2022), rounded to four significant figures?",
        ]
    )
    # a value to four significant figures in a stated notation is only comparable among listed
    # options, so the item keeps its choices even when asked open
    return Item(
        q,
        answer,
        "multiple_choice",
        pick_distractors(answer, groups),
        {"source": SRC_CODATA, "kind": "constant_value", "constant": key},
    )


def _science_constant_from_value(rng: random.Random, difficulty: str) -> Item:
    pool = FAMOUS_CONSTANTS if difficulty == "medium" else OBSCURE_CONSTANTS
    key = rng.choice(pool)
    value, unit = _constant(key)
    shown = fmt_sci(value, unit)
    candidates = [k for k in FAMOUS_CONSTANTS + OBSCURE_CONSTANTS if k != key and fmt_sci(*_constant(k)) != shown]
    same_unit = [k for k in _same_unit_constants(unit) if k != key and fmt_sci(*_constant(k)) != shown]
    rng.shuffle(same_unit)
    rest = [k for k in candidates if k in pool]
    rng.shuffle(rest)
    q = rng.choice(
        [
            f"Which physical constant has the CODATA 2022 value {shown} (four significant figures)?",
            f"CODATA 2022 lists a constant as {shown}, to four significant figures. Which constant is it?",
        ]
    )
    # CODATA's names ("Loschmidt constant (273.15 K, 101.325 kPa)", "Wien frequency displacement law
    # constant") are only answerable as written when listed
    return Item(
        q,
        _cap(constant_label(key)),
        "multiple_choice",
        pick_distractors(_cap(constant_label(key)), [_cap(constant_label(k)) for k in same_unit + rest]),
        {"source": SRC_CODATA, "kind": "constant_from_value", "constant": key, "shown": shown},
    )


_SCIENCE_KINDS = {
    "easy": [
        _science_element_from_symbol,
        _science_symbol_from_element,
        _science_number_from_element,
        _science_element_from_number,
        _science_constant_value,
    ],
    "medium": [
        _science_element_from_symbol,
        _science_symbol_from_element,
        _science_number_from_element,
        _science_element_from_number,
        _science_element_from_weight,
        _science_constant_from_value,
    ],
    "hard": [
        _science_element_from_symbol,
        _science_symbol_from_element,
        _science_element_from_weight,
        _science_element_sum,
        _science_element_offset,
        _science_constant_value,
        _science_constant_from_value,
    ],
}


@DOMAIN.subcategory(
    "science",
    difficulty={
        "easy": "elements with atomic number 1-20 (symbol, name, atomic number) or the value of a "
        "famous CODATA constant; distractors are neighbouring elements, look-alike symbols, or the "
        "value a power of ten off",
        "medium": "elements 21-56, including identification from the standard atomic weight to two "
        "decimals; a famous constant identified from its value among constants of the same unit",
        "hard": "elements 57-118, or two look-ups chained (the element whose atomic number is the sum "
        "of two others', or k places after one); values and identities of less familiar CODATA constants",
    },
)
def science(rng: random.Random, difficulty: str) -> Item:
    return rng.choice(_SCIENCE_KINDS[difficulty])(rng, difficulty)


# ---------------------------------------------------------------------------------------------
# geography: ISO 3166 (pycountry), CLDR names and currencies (babel), IANA zones (tzdata)
# ---------------------------------------------------------------------------------------------


def _country_options_item(question: str, code: str, wrong: list[str], params: dict, source: str = SRC_ISO) -> Item:
    return Item(
        question,
        country_name(code),
        "short_text",
        tuple(country_name(c) for c in wrong),
        {"source": f"{source}; names: {SRC_CLDR}", **params, "alpha_2": code},
        countries()[code]["aliases"],
    )


def _code_alike(field: str):
    """How confusable two entities are by a code: one's name begins with the other's code letters
    ('CH' and Chile, China, Chad), then names or codes with the same first letter, then the same
    IANA area, then any."""
    def closeness(a: str, b: str) -> int:
        ca, cb = countries()[a][field].lower(), countries()[b][field].lower()
        na, nb = countries()[a]["compact"], countries()[b]["compact"]
        if nb.startswith(ca[:2]) or na.startswith(cb[:2]):
            return 0
        if na[:1] == nb[:1] or ca[:1] == cb[:1]:
            return 1
        return 2 if country_area().get(a) == country_area().get(b) else 3
    return closeness


def _country_options(rng: random.Random, difficulty: str, vocabulary: list[str], closeness, hosts=None) -> tuple:
    """Options first for a question whose answer is an entity of the tier: four of `vocabulary`
    alike by `closeness` (on easy items one look-alike and two others from anywhere in the tier),
    then the answer among them. `hosts(code, others)` lists what the question can then be about
    (default: the entity itself). Drawn entity first, the widely known countries were offered in
    every tier's items and the answer in one (Cuba the answer in 1 of 30 items that offered it)."""
    close = 1 if difficulty == "easy" else 3
    found = hosts or (lambda code, _others: [code])
    return _options_first(rng, lambda: _alike(rng, vocabulary, closeness, close), found)


def _lookalike_countries(rng: random.Random, code: str, letters: str, pool: list[str]) -> list[str]:
    """Countries a person could confuse with a code: names starting with its letters first, then
    names starting with its first letter, then the same IANA area."""
    def starts(c: str, n: int) -> bool:
        return countries()[c]["compact"].startswith(letters[:n].lower())

    tiers = [[c for c in pool if c != code and starts(c, n)] for n in (3, 2, 1)]
    area = country_area().get(code)
    tiers.append([c for c in pool if c != code and country_area().get(c) == area])
    tiers.append([c for c in pool if c != code])
    out: list[str] = []
    for tier in tiers:
        tier = [c for c in tier if c not in out]
        rng.shuffle(tier)
        out.extend(tier)
    return out


def _entity(difficulty: str) -> str:
    return "country" if difficulty != "hard" else "country or territory"


def _geo_country_from_alpha2(rng: random.Random, difficulty: str) -> Item:
    code, _, wrong = _country_options(rng, difficulty, countries_in(difficulty), _code_alike("alpha_2"))
    what = _entity(difficulty)
    q = rng.choice(
        [
            f"Which {what} has the ISO 3166-1 alpha-2 code '{code}'?",
            f"The two-letter ISO 3166-1 code {code} belongs to which {what}?",
            f"A parcel's address ends with the ISO country code '{code}'. Which {what} is that?",
        ]
    )
    return _country_options_item(q, code, wrong, {"kind": "country_from_alpha2", "code": code})


def _geo_country_from_alpha3(rng: random.Random, difficulty: str) -> Item:
    code, _, wrong = _country_options(rng, difficulty, countries_in(difficulty), _code_alike("alpha_3"))
    a3 = countries()[code]["alpha_3"]
    what = _entity(difficulty)
    q = rng.choice(
        [
            f"Which {what} has the ISO 3166 alpha-3 code '{a3}'?",
            f"The three-letter ISO 3166-1 code {a3} stands for which {what}?",
            f"On a results table, a team is listed under the ISO code {a3}. Which {what} is that?",
        ]
    )
    return _country_options_item(q, code, wrong, {"kind": "country_from_alpha3", "code": a3})


def _geo_alpha3_from_country(rng: random.Random, difficulty: str) -> Item:
    code = rng.choice(countries_in(difficulty))
    a3 = countries()[code]["alpha_3"]
    name = in_text(code)
    letters = re.sub(r"[^A-Z]", "", normalise_text(country_name(code)).upper())
    # Codes built the obvious way from the name, then real codes of look-alike countries.
    guesses = [letters[:3], letters[:2] + letters[-1:], code + letters[2:3], code + letters[-1:]]
    guesses = [g for g in guesses if len(g) == 3]
    rng.shuffle(guesses)
    similar = [countries()[c]["alpha_3"] for c in _lookalike_countries(rng, code, letters, countries_up_to(difficulty))]
    # The gold mixes the two-letter code and the name's letters, so the guesses built from one or the
    # other sat around it (the most typical choice was the gold in a third of the items): prefixes of
    # the name, the two-letter code and the gold cross the name's further letters, and `fair_pick`
    # keeps three whose set leaves the gold no more typical than a wrong code.
    prefixes = list(dict.fromkeys([letters[:2], code, a3[:2]]))
    endings = list(dict.fromkeys([letters[2:3], letters[-1:], a3[2], *letters[3:]]))[:6]
    grid = [p + e for p in prefixes for e in endings]
    rng.shuffle(grid)
    q = rng.choice(
        [
            f"What is the ISO 3166-1 alpha-3 code of {name}?",
            f"Which three-letter ISO 3166-1 code is assigned to {name}?",
        ]
    )
    pool = [g for g in dict.fromkeys(guesses[:2] + similar[:2] + grid + similar[2:]) if len(g) == 3 and g != a3]
    return Item(
        q,
        a3,
        "short_text",
        fair_pick(rng, a3, pool, q),
        {"source": f"{SRC_ISO}; names: {SRC_CLDR}", "kind": "alpha3_from_country", "alpha_2": code},
    )


def _geo_country_from_numeric(rng: random.Random, difficulty: str) -> Item:
    # Options: entries of the tier with the nearest numeric codes.
    code, _, wrong = _country_options(rng, difficulty, countries_in(difficulty), lambda a, b: abs(int(countries()[a]["numeric"]) - int(countries()[b]["numeric"])))
    num = countries()[code]["numeric"]
    what = _entity(difficulty)
    q = rng.choice(
        [
            f"Which {what} has the ISO 3166-1 numeric code {num}?",
            f"In ISO 3166-1, the numeric code {num} identifies which {what}?",
        ]
    )
    return _country_options_item(q, code, wrong, {"kind": "country_from_numeric", "code": num})


def _geo_country_from_subdivision(rng: random.Random, difficulty: str) -> Item:
    rows: dict[str, list[dict]] = {}
    for sub in subdivisions():
        if (sub["country"] in WELL_KNOWN_COUNTRIES) == (difficulty == "medium"):
            rows.setdefault(sub["country"], []).append(sub)
    types = {c: {r["type"] for r in rs} for c, rs in rows.items()}
    # Options: countries with subdivisions of the same type ("Land", "Voivodship"), then of the
    # same IANA area; medium items keep every choice among the widely known countries. The
    # subdivision is drawn once the answer is: a country with many subdivisions is then no more
    # often the answer than one with few.
    def closeness(a: str, b: str) -> int:
        return 0 if types[a] & types[b] else 1 if country_area().get(a) == country_area().get(b) else 2

    code, sub, wrong = _options_first(rng, lambda: _alike(rng, sorted(rows), closeness), lambda c, _others: rows[c])
    kind_word = sub["type"].lower()
    q = rng.choice(
        [
            f"ISO 3166-2 lists \"{sub['name']}\" as {_article(kind_word)} {kind_word}. Which country is it in?",
            f"Which country has a top-level ISO 3166-2 subdivision called \"{sub['name']}\" ({kind_word})?",
            f"In which country would you find the {kind_word} \"{sub['name']}\", as ISO 3166-2 lists it?",
        ]
    )
    return _country_options_item(q, code, wrong, {"kind": "country_from_subdivision", "subdivision": sub["code"]})


def _zone_words(zone: str) -> set[str]:
    return set(normalise_text(zone.replace("/", " ").replace("_", " ")).split())


def _zone_spells(zone: str, name: str, aliases: tuple[str, ...] = ()) -> bool:
    """Whether a zone's identifier spells the country: a word of it is a word of the name shown
    (Australia/Perth, Africa/Johannesburg for South Africa), or a place in it is, or begins like, a
    word of the name or of another name for the country (Africa/Tunis for Tunisia, Asia/Macau for
    Macao). America/Juneau does not spell the United States of America: the area names a continent."""
    if _zone_words(zone) & set(normalise_text(name).split()):
        return True
    words = {w for n in (name, *aliases) for w in normalise_text(n).split()}
    places = _zone_words(zone.split("/", 1)[1])
    return bool(places & words) or any(len(a) >= 4 and len(b) >= 4 and a[:4] == b[:4] for a in places for b in words)


@functools.cache
def quiet_zones() -> dict[str, list[str]]:
    """alpha-2 -> its zones whose identifier does not spell the country's name (Asia/Singapore,
    America/Argentina/Salta, Australia/Perth would give the answer away)."""
    out: dict[str, list[str]] = {}
    for zone, code in sorted(zone_table().items()):
        if not _zone_spells(zone, country_name(code), tuple(countries()[code]["aliases"])):
            out.setdefault(code, []).append(zone)
    return out


def _geo_country_from_zone(rng: random.Random, difficulty: str) -> Item:
    # Options first: four entities of the zone's tier with zones whose identifiers do not spell them,
    # those of one IANA area first; then the answer among them and one of its zones (so a country
    # with thirty zones is not the answer thirty times as often as one with a single zone, and each
    # entity is the answer a quarter of the times it is offered).
    peers = sorted(c for c in quiet_zones() if countries()[c]["tier"] == difficulty)
    areas = {c: {z.split("/")[0] for z in quiet_zones()[c]} for c in peers}
    code, zone, wrong = _options_first(
        rng, lambda: _alike(rng, peers, lambda a, b: not areas[a] & areas[b]), lambda c, _others: quiet_zones()[c]
    )
    what = _entity(difficulty)
    q = rng.choice(
        [
            f"The IANA time zone '{zone}' is listed for which {what}?",
            f"Which {what} does the tz database zone {zone} belong to?",
            f"A server's clock is set to the time zone '{zone}'. According to the IANA tz database, which {what} is that zone in?",
        ]
    )
    return _country_options_item(q, code, wrong, {"kind": "country_from_zone", "zone": zone}, source=SRC_TZ)


_OFFSET_MOMENTS = ((2025, 1, 15), (2025, 7, 15), (2024, 1, 15), (2024, 7, 15))


@functools.cache
def _offsets_at(pool: str, moment: tuple[int, int, int]) -> dict[int, tuple[str, ...]]:
    """UTC offset in minutes at noon UTC of `moment` -> the zones of the pool showing it ('medium':
    every zone; 'hard': zones of countries outside the widely known list)."""
    when = datetime(*moment, 12, tzinfo=UTC)
    out: dict[int, list[str]] = {}
    for zone, code in sorted(zone_table().items()):
        if pool == "medium" or countries()[code]["tier"] != "easy":
            minutes = int(when.astimezone(tz_file(zone)).utcoffset().total_seconds() // 60)
            out.setdefault(minutes, []).append(zone)
    return {m: tuple(z) for m, z in out.items()}


def _geo_utc_offset(rng: random.Random, difficulty: str) -> Item:
    pool = "medium" if difficulty == "medium" else "hard"
    y, m, d = rng.choice(_OFFSET_MOMENTS)
    moment = datetime(y, m, d, 12, tzinfo=UTC)
    table = _offsets_at(pool, (y, m, d))
    # Options first: four offsets some zone shows that day, close to one another (an hour off, a
    # half-hour zone rounded, daylight saving forgotten), then the answer among them and a zone
    # showing it; a common offset is then no more often the answer when offered than a rare one.
    # (Never both UTC+01:00 and UTC-01:00: written without their signs they are one option.)
    def draw() -> list[int]:
        options = _near_values(rng, sorted(table), 60)
        return options if len({abs(v) for v in options}) == 4 else []

    minutes, zone, wrong = _options_first(rng, draw, lambda v, _others: table[v])
    answer = fmt_offset(minutes)
    date_text = moment.strftime("%d %B %Y").lstrip("0")
    q = rng.choice(
        [
            f"According to the IANA tz database, what was the UTC offset in the '{zone}' time zone at 12:00 UTC on {date_text}?",
            f"At noon UTC on {date_text}, what offset from UTC did clocks in the tz zone {zone} show?",
        ]
    )
    return Item(
        q,
        answer,
        "short_text",
        tuple(fmt_offset(w) for w in wrong),
        {"source": SRC_TZ, "kind": "utc_offset", "zone": zone, "moment_utc": moment.isoformat()},
    )


def _ever_tender(territory: str) -> set[str]:
    return {c for c, _s, _e in currency_history().get(territory, [])}


def _geo_currency(rng: random.Random, difficulty: str) -> Item:
    tier = [c for c in countries_in(difficulty) if current_currency(c)]
    currencies = sorted({current_currency(c) for c in tier})

    # Options first: four currencies in use in this tier's countries, alike: one country drawn at
    # random, its currency, then currencies of the same unit, of the same IANA area, any other. Then
    # the answer among the four and a country using it where none of the other three was ever legal
    # tender (one whose name the currency's does not echo, where there is one: the Central African
    # CFA franc is asked for Cameroon rather than the Central African Republic). Drawn country first,
    # the euro and the US dollar were the answer about half the times they were offered.
    def draw() -> list[str]:
        c0 = rng.choice(tier)
        cur0 = current_currency(c0)
        unit = currency_name(cur0).split()[-1]
        area = country_area().get(c0)
        groups = [
            [o for o in currencies if currency_name(o).split()[-1] == unit],
            sorted({current_currency(c) for c in tier if country_area().get(c) == area}),
            list(currencies),
        ]
        out = [cur0]
        for group in groups:
            rng.shuffle(group)
            out += [o for o in group[:2] if o not in out]
        return out[:4]

    def hosts(cur: str, others: list[str]) -> list[str]:
        found = [c for c in tier if current_currency(c) == cur and not _ever_tender(c) & set(others)]
        quiet = [c for c in found if not _echoes(in_text(c), currency_name(cur))]
        return quiet or found

    cur, code, wrong = _options_first(rng, draw, hosts)
    answer = currency_name(cur)
    if _echoes(in_text(code), answer):
        # The currency is named after the country (Solomon Islands Dollar, South Korean Won): named in
        # the stem, the country would give the answer away, so the stem gives its ISO 3166-1 code.
        what = "country" if difficulty != "hard" else "territory"
        q = rng.choice(
            [
                f"According to CLDR, what is the currency in use today in the {what} whose ISO 3166-1 alpha-2 code is '{code}'?",
                f"Which currency does CLDR list as the current legal tender of the {what} with ISO 3166-1 code {code}?",
            ]
        )
    else:
        name = in_text(code)
        q = rng.choice(
            [
                f"According to CLDR, what is the currency in use in {name} today?",
                f"Which currency does CLDR list as the current legal tender of {name}?",
                f"A traveller is heading to {name}. Which currency does CLDR list as legal tender there?",
            ]
        )
    return Item(
        q,
        answer,
        "short_text",
        tuple(currency_name(o) for o in wrong),
        {"source": SRC_CLDR, "kind": "current_currency", "alpha_2": code, "currency": cur},
        (cur,),
    )


_GEOGRAPHY_KINDS = {
    "easy": [_geo_country_from_alpha2, _geo_country_from_alpha3, _geo_alpha3_from_country, _geo_country_from_zone, _geo_currency],
    "medium": [
        _geo_country_from_alpha2,
        _geo_country_from_alpha3,
        _geo_alpha3_from_country,
        _geo_country_from_subdivision,
        _geo_country_from_zone,
        _geo_utc_offset,
        _geo_currency,
    ],
    "hard": [
        _geo_country_from_alpha2,
        _geo_country_from_alpha3,
        _geo_country_from_numeric,
        _geo_country_from_subdivision,
        _geo_country_from_zone,
        _geo_utc_offset,
        _geo_currency,
    ],
}


@DOMAIN.subcategory(
    "geography",
    difficulty={
        "easy": "a widely known country (stated list: the 19 G20 member states and 32 other large or "
        "often-discussed states): ISO 3166-1 codes, IANA zone (never one whose identifier spells the country, "
        "as Asia/Singapore or Australia/Perth do), current currency (the country given by its ISO code when "
        "the currency is named after it, as the South Korean won is); the four options, countries of the "
        "list (one a look-alike) or currencies in use in them, are drawn first and the answer among them",
        "medium": "other UN member states; adds ISO 3166-2 subdivisions of well-known countries and UTC "
        "offsets on a given date; options are entities of the same tier sharing the code's letters, the "
        "subdivision type or the IANA area, or offsets some zone shows that day, close to one another",
        "hard": "dependent territories and other non-UN-member entries, ISO numeric codes, subdivisions "
        "of less-known countries; options are entries of the same tier, the nearest look-alikes (nearest "
        "numeric code, same letters)",
    },
)
def geography(rng: random.Random, difficulty: str) -> Item:
    return rng.choice(_GEOGRAPHY_KINDS[difficulty])(rng, difficulty)


# ---------------------------------------------------------------------------------------------
# history: ISO 3166-3 withdrawn codes (pycountry), currency history (CLDR via babel)
# ---------------------------------------------------------------------------------------------

# Readable names for ISO 3166-3 entries, keyed by their alpha-4 code (each a re-ordering of the
# ISO name, adding nothing it does not say). Entries not listed fall back to the ISO name.
HISTORIC_NAMES = {
    "AIDJ": "the French Afars and Issas",
    "ANHH": "the Netherlands Antilles",
    "BQAQ": "the British Antarctic Territory",
    "BUMM": "Burma (the Socialist Republic of the Union of Burma)",
    "BYAA": "the Byelorussian Soviet Socialist Republic",
    "CSHH": "Czechoslovakia",
    "CSXX": "Serbia and Montenegro",
    "CTKI": "the Canton and Enderbury Islands",
    "DDDE": "the German Democratic Republic",
    "DYBJ": "Dahomey",
    "FQHH": "the French Southern and Antarctic Territories",
    "FXFR": "Metropolitan France",
    "GEHH": "the Gilbert and Ellice Islands",
    "HVBF": "the Republic of Upper Volta",
    "JTUM": "Johnston Island",
    "MIUM": "the Midway Islands",
    "NHVU": "the New Hebrides",
    "NQAQ": "Dronning Maud Land",
    "NTHH": "the Neutral Zone",
    "PCHH": "the Pacific Islands (trust territory)",
    "PUUM": "the US Miscellaneous Pacific Islands",
    "PZPA": "the Panama Canal Zone",
    "RHZW": "Southern Rhodesia",
    "SKIN": "Sikkim",
    "SUHH": "the USSR (Union of Soviet Socialist Republics)",
    "TPTL": "East Timor",
    "VDVN": "the Democratic Republic of Viet-Nam",
    "WKUM": "Wake Island",
    "YDYE": "the People's Democratic Republic of Yemen",
    "YUCS": "Yugoslavia",
    "ZRCD": "the Republic of Zaire",
}
WELL_KNOWN_HISTORIC = frozenset({"SUHH", "DDDE", "CSHH", "YUCS", "ZRCD", "BUMM", "CSXX", "TPTL", "RHZW", "ANHH"})
OBSCURE_HISTORIC = frozenset({"BQAQ", "CTKI", "FQHH", "JTUM", "MIUM", "NQAQ", "PUUM", "WKUM", "FXFR", "NTHH"})


@functools.cache
def historic() -> dict[str, dict]:
    out = {}
    for h in iso_table("3166-3"):
        if "withdrawal_date" not in h:
            continue
        a4 = h["alpha_4"]
        tier = "easy" if a4 in WELL_KNOWN_HISTORIC else "hard" if a4 in OBSCURE_HISTORIC else "medium"
        out[a4] = {
            "alpha_4": a4,
            "alpha_2": h["alpha_2"],
            "alpha_3": h["alpha_3"],
            "name": HISTORIC_NAMES.get(a4, h["name"]),
            "year": int(h["withdrawal_date"][:4]),
            "tier": tier,
        }
    return out


_FORM_WORDS = frozenset(["the", "of", "republic", "democratic", "people", "s", "socialist", "union", "federal", "state"])


def _bare(name: str) -> str:
    return name.removeprefix("the ")


def _hist_withdrawal_year(rng: random.Random, difficulty: str) -> Item:
    by_year: dict[int, list[str]] = {}
    for k, h in sorted(historic().items()):
        if h["tier"] == difficulty:
            by_year.setdefault(h["year"], []).append(k)
    # Options first: four years in which ISO 3166 withdrew codes of entities of this tier (each tier
    # has six to ten such years), each in proportion to how many entities it has, since a form asks
    # most of a tier's ten entities once; then the year asked and an entity withdrawn in it. (Drawn
    # entity first, 1986, when four US Pacific islands went at once, was the answer whenever offered,
    # and a year next to a withdrawal year, that no entity has, never was.)
    years = sorted(by_year)
    count = [len(by_year[y]) for y in years]
    year, key, wrong = _options_first(rng, lambda: _weighted_sample(rng, years, count, 4), lambda y, _others: by_year[y])
    h = historic()[key]
    q = rng.choice(
        [
            f"In which year was the ISO 3166 country code of {h['name']} withdrawn?",
            f"ISO 3166 once had a code for {h['name']}. In what year was it withdrawn?",
            f"When did ISO 3166 withdraw the code for {h['name']}? Give the year.",
        ]
    )
    return Item(
        q,
        str(year),
        "exact_numeric",
        tuple(str(w) for w in wrong),
        {"source": SRC_ISO, "kind": "withdrawal_year", "alpha_4": h["alpha_4"]},
    )


def _code_letters(name: str) -> str:
    """The letters of a historic name a code could be made from: its words before any gloss in
    parentheses, without the words that name the form of state ('Republic of', 'Socialist')."""
    words = re.findall(r"[a-z]+", name.split("(")[0].lower())
    return "".join(w for w in words if w not in _FORM_WORDS).upper()


def _hist_former_code(rng: random.Random, difficulty: str) -> Item:
    keys = sorted(k for k, h in historic().items() if h["tier"] == difficulty or (difficulty == "hard" and h["tier"] == "medium"))
    h = historic()[rng.choice(keys)]
    a3 = h["alpha_3"]
    successor = h["alpha_4"][2:]
    letters = _code_letters(h["name"])
    # Codes a person could form for the name, each a mix-up of how ISO made its codes: the
    # successor's code, the name's first three letters, the two-letter code or the name's first two
    # letters with a further letter of the name, the old code's first two letters with another.
    # The prefixes cross the endings, so a wrong code is as often like the others as the gold is.
    prefixes = list(dict.fromkeys([letters[:2], h["alpha_2"], a3[:2]]))
    endings = list(dict.fromkeys([letters[2:3], letters[-1:], a3[2], *letters[3:]]))[:6]
    # (The successor's code only where it succeeded this entity alone: UMI, which took over from
    # four US Pacific islands at once, was offered in their items four times as often as any other
    # successor's code, and is never the answer.)
    sole = sum(x["alpha_4"][2:] == successor for x in historic().values()) == 1
    guesses = [countries()[successor]["alpha_3"]] if successor in countries() and sole else []
    guesses += [letters[:3], h["alpha_2"] + letters[-1:], a3[:2] + letters[2:3]]
    grid = [p + e for p in prefixes for e in endings]
    rng.shuffle(grid)
    others = [x["alpha_3"] for x in historic().values() if x["alpha_3"] != a3]
    rng.shuffle(others)
    q = rng.choice(
        [
            f"What alpha-3 code did ISO 3166 assign to {h['name']} before the code was withdrawn in {h['year']}?",
            f"Which three-letter ISO 3166 code was used for {h['name']} until {h['year']}?",
        ]
    )
    pool = [g for g in dict.fromkeys(guesses + grid + others) if len(g) == 3 and g != a3]
    return Item(
        q,
        a3,
        "short_text",
        fair_pick(rng, a3, pool, q),
        {"source": SRC_ISO, "kind": "former_alpha3", "alpha_4": h["alpha_4"]},
    )


def _hist_earliest_withdrawal(rng: random.Random, difficulty: str) -> Item:
    keys = sorted(historic())
    while True:
        picked = rng.sample(keys, 4)
        years = [historic()[k]["year"] for k in picked]
        if len(set(years)) == 4:
            break
    latest = rng.random() < 0.5
    target = (max if latest else min)(picked, key=lambda k: historic()[k]["year"])
    names = [_cap(historic()[k]["name"]) for k in picked]
    answer = _cap(historic()[target]["name"])
    word = "most recently" if latest else "earliest"
    q = rng.choice(
        [
            f"Which of these had its ISO 3166 country code withdrawn {word}?",
            f"ISO 3166 withdrew the codes of all four of these. Whose code was withdrawn {word}?",
        ]
    )
    # the four territories are the question: asked without them it cannot be answered
    return Item(
        q,
        answer,
        "multiple_choice",
        pick_distractors(answer, names),
        {"source": SRC_ISO, "kind": "withdrawal_order", "order": "latest" if latest else "earliest", "alpha_4s": sorted(picked)},
    )


def _clean_currency(code: str) -> bool:
    """Currencies whose English name carries no years (which would give the answer away)."""
    return not _YEAR_IN_NAME.search(currency_name(code))


@functools.cache
def currency_successions() -> list[dict]:
    """(territory, predecessor, successor) where CLDR lists exactly one legal-tender currency that
    ended within a year of the successor's start, both without years in their names."""
    out = []
    for territory, rows in sorted(currency_history().items()):
        repeated = {code for code, n in Counter(code for code, _s, _e in rows).items() if n > 1}
        for code, start, end in rows:
            # A currency listed twice in one territory (Mali's CFA franc) has two start years.
            if start is None or not _clean_currency(code) or code in repeated:
                continue
            before = [
                (p, ps, pe)
                for p, ps, pe in rows
                if p != code and pe is not None and ps is not None and start[0] - 1 <= pe[0] <= (end or (9999,))[0]
                and ps < start and _still_tender_the_day_before(pe, start)
            ]
            if len(before) != 1 or not _clean_currency(before[0][0]) or before[0][0] in repeated:
                continue
            p, ps, pe = before[0]
            out.append(
                {
                    "territory": territory,
                    "currency": code,
                    "start": start[0],
                    "end": end[0] if end else None,
                    "predecessor": p,
                    "pred_start": ps[0],
                    "pred_end": pe[0],
                }
            )
    return out


def _still_tender_the_day_before(pred_end: tuple, start: tuple) -> bool:
    """A currency "replaced" only if it was still legal tender the day before its successor began:
    Pakistan's rupee of 1948 followed months without a listed currency, so it replaced nothing."""
    return date(*pred_end) >= date(*start) - timedelta(days=1)


def _successions(difficulty: str) -> list[dict]:
    return [s for s in currency_successions() if countries()[s["territory"]]["tier"] == difficulty or (difficulty == "hard" and countries()[s["territory"]]["tier"] == "medium")]


def _older_than(territory: str, start: int) -> set[str]:
    """The territory's own currencies given up more than a year before `start` (a change then made
    cannot have replaced them), whose names carry no years."""
    return {c for c, _st, e in currency_history()[territory] if e is not None and e[0] < start - 1 and _clean_currency(c)}


def _hist_predecessor(rng: random.Random, difficulty: str) -> Item:
    changes = _successions(difficulty)
    replaced = sorted({x["predecessor"] for x in changes})

    # Options first: four currencies replaced in this tier's territories, alike: one change drawn at
    # random, its currency, and (in this order) an older currency of the same territory, currencies the
    # same successor replaced elsewhere, currencies of the same unit, any other. Then the answer among
    # the four and a change that replaced it, in a territory where none of the other three was in use
    # (unless given up more than a year before the change). Drawn change first, the euro's many
    # predecessors were the answer about half the times they were offered and the currencies of a
    # single small change (Cypriot pound, Slovak koruna) almost never.
    def draw() -> list[str]:
        s0 = rng.choice(changes)
        unit = currency_name(s0["predecessor"]).split()[-1]
        groups = [
            sorted(_older_than(s0["territory"], s0["start"]) & set(replaced)),
            sorted({x["predecessor"] for x in changes if x["currency"] == s0["currency"]}),
            [c for c in replaced if currency_name(c).split()[-1] == unit],
            list(replaced),
        ]
        out = [s0["predecessor"]]
        for group in groups:
            rng.shuffle(group)
            out += [c for c in group if c not in out]
        return out[:4]

    def hosts(pred: str, others: list[str]) -> list[dict]:
        return [
            x for x in changes
            if x["predecessor"] == pred
            and all(o not in {c for c, _s, _e in currency_history()[x["territory"]]} or o in _older_than(x["territory"], x["start"]) for o in others)
        ]

    pred, s, wrong = _options_first(rng, draw, hosts)
    name = in_text(s["territory"])
    answer = currency_name(pred)
    cur = currency_name(s["currency"])
    if _echoes(cur, answer):
        # The new currency's name would echo the answer's (Chilean Peso / Chilean Escudo, Pakistani
        # Rupee / Indian Rupee): the stem then names only the year, which (territory, year) pins down.
        q = rng.choice(
            [
                f"{_cap(name)} introduced a new currency in {s['start']}. Which currency did the new one replace, according to CLDR?",
                f"According to CLDR's currency history, which currency did {name} replace when it introduced a new currency in {s['start']}?",
            ]
        )
    else:
        q = rng.choice(
            [
                f"According to CLDR's currency history, which currency was legal tender in {name} immediately before the {cur} (introduced in {s['start']})?",
                f"{_cap(name)} introduced the {cur} in {s['start']}. Which currency did it replace, according to CLDR?",
            ]
        )
    return Item(
        q,
        answer,
        "short_text",
        tuple(currency_name(c) for c in wrong),
        {"source": SRC_CLDR, "kind": "predecessor_currency", "alpha_2": s["territory"], "currency": s["currency"], "predecessor": pred},
        (pred,),
    )


def _hist_currency_year(rng: random.Random, difficulty: str) -> Item:
    ask_end = rng.random() < 0.5
    field = "pred_end" if ask_end else "start"
    by_year: dict[int, list[dict]] = {}
    for x in _successions(difficulty):
        by_year.setdefault(x[field], []).append(x)
    # Options first: four years in which a currency of this tier's territories started (or stopped)
    # being legal tender, close to one another; then the year asked and a change made in it. (Drawn
    # change first, the euro's 1999 and 2002 were the answer whenever offered.)
    count = {y: len(xs) for y, xs in by_year.items()}
    year, s, wrong = _options_first(rng, lambda: _near_values(rng, sorted(by_year), 4, count), lambda y, _others: by_year[y])
    name = in_text(s["territory"])
    if ask_end:
        cur = currency_name(s["predecessor"])
        q = rng.choice(
            [
                f"According to CLDR's currency history, in which year did the {cur} stop being legal tender in {name}?",
                f"Until which year was the {cur} legal tender in {name}, according to CLDR?",
            ]
        )
    else:
        cur = currency_name(s["currency"])
        q = rng.choice(
            [
                f"According to CLDR's currency history, in which year did the {cur} become legal tender in {name}?",
                f"In what year did {name} start using the {cur}, according to CLDR?",
            ]
        )
    return Item(
        q,
        str(year),
        "exact_numeric",
        tuple(str(w) for w in wrong),
        {
            "source": SRC_CLDR,
            "kind": "currency_end_year" if ask_end else "currency_start_year",
            "alpha_2": s["territory"],
            "currency": s["predecessor"] if ask_end else s["currency"],
        },
    )


def _hist_currency_span(rng: random.Random, difficulty: str) -> Item:
    """Two look-ups and a subtraction: how long a replaced currency was in use."""
    by_span: dict[int, list[dict]] = {}
    for x in currency_successions():
        if x["pred_end"] > x["pred_start"] and countries()[x["territory"]]["tier"] != "easy":
            by_span.setdefault(x["pred_end"] - x["pred_start"], []).append(x)
    # Options first: four spans some replaced currency lasted, close to one another; then the span
    # asked and a currency that lasted it (a decade slip or a fencepost count, the errors offered
    # before, made spans that no currency lasted: never the answer).
    count = {v: len(xs) for v, xs in by_span.items()}
    span, s, wrong = _options_first(rng, lambda: _near_values(rng, sorted(by_span), 3, count), lambda v, _others: by_span[v])
    name = in_text(s["territory"])
    cur = currency_name(s["predecessor"])
    q = rng.choice(
        [
            f"According to CLDR's currency history, how many years passed between the year the {cur} became legal tender in {name} and the year it stopped being legal tender there?",
            f"CLDR records the years in which the {cur} started and stopped being legal tender in {name}. What is the difference between those two years?",
        ]
    )
    return Item(
        q,
        str(span),
        "exact_numeric",
        tuple(str(w) for w in wrong),
        {"source": SRC_CLDR, "kind": "currency_span", "alpha_2": s["territory"], "currency": s["predecessor"]},
    )


_HISTORY_KINDS = {
    "easy": [_hist_withdrawal_year, _hist_former_code, _hist_predecessor, _hist_currency_year],
    "medium": [_hist_withdrawal_year, _hist_former_code, _hist_predecessor, _hist_currency_year],
    "hard": [_hist_withdrawal_year, _hist_former_code, _hist_earliest_withdrawal, _hist_predecessor, _hist_currency_year, _hist_currency_span],
}


@DOMAIN.subcategory(
    "history",
    difficulty={
        "easy": "withdrawn ISO 3166 codes of well-known states (stated list: USSR, GDR, Czechoslovakia, "
        "Yugoslavia, Zaire, Burma, Serbia and Montenegro, East Timor, Southern Rhodesia, Netherlands "
        "Antilles); currency changes in well-known countries per CLDR (a new currency named like the one it "
        "replaced is given by its year only; the country's own older currencies can be distractors); "
        "code distractors are codes formed from the name's letters; year options are four years close "
        "together in which entities of the tier lost their codes (or its currencies changed), the one "
        "asked drawn among them",
        "medium": "other withdrawn ISO 3166 codes and currency changes in other UN member states; the "
        "currency replaced is offered among currencies replaced in the tier's territories (by the same "
        "successor or of the same unit first)",
        "hard": "obscure withdrawn entries (stated list) and ordering four entries by withdrawal; "
        "the span between a currency's start and end year (two look-ups and a subtraction)",
    },
)
def history(rng: random.Random, difficulty: str) -> Item:
    return rng.choice(_HISTORY_KINDS[difficulty])(rng, difficulty)


# ---------------------------------------------------------------------------------------------
# culture: languages, scripts, calendars and customs in CLDR (babel), ISO 639 (pycountry)
# ---------------------------------------------------------------------------------------------


@functools.cache
def iso639_1() -> dict[str, str]:
    """ISO 639-1 code -> ISO name, for codes CLDR also names in English."""
    return {r["alpha_2"]: r["name"] for r in iso_table("639-3") if "alpha_2" in r and r["alpha_2"] in _EN.languages}


@functools.cache
def language_tier(difficulty: str) -> tuple[str, ...]:
    """ISO 639-1 languages by familiarity: two stated lists, then every other one CLDR names."""
    if difficulty == "easy":
        return MAJOR_LANGUAGES
    if difficulty == "medium":
        return MEDIUM_LANGUAGES
    known = set(MAJOR_LANGUAGES) | set(MEDIUM_LANGUAGES)
    return tuple(c for c in sorted(iso639_1()) if c not in known and likely_script(c))


def latin_languages(difficulty: str) -> list[str]:
    """Languages of a tier written in Latin script that the CLDR snapshot covers. (The bank compares
    choices in an ASCII-folded form, so words in other scripts could not be told apart.)"""
    snap = cldr_locales()["languages"]
    return [c for c in language_tier(difficulty) if c in snap and c != "en"]


def _echoes(name: str, answer: str) -> bool:
    """Whether a name put in the stem shares a word with the answer (after the bank's normalisation)."""
    return bool(set(normalise_text(name).split()) & set(normalise_text(answer).split()))


def _language_stem(rng: random.Random, lang: str, answer: str, *, by_code: tuple[str, ...], by_name: tuple[str, ...]) -> str:
    """A question about language `lang`: named in English, unless that name echoes the answer (its
    autonym or script is a form of it), where the stem would give the answer away and names the
    language by its ISO 639-1 code instead."""
    if _echoes(language_name(lang), answer):
        return rng.choice(by_code).format(code=lang)
    return rng.choice(by_name).format(name=language_name(lang))


def _cult_autonym(rng: random.Random, difficulty: str) -> Item:
    lang = rng.choice(latin_languages(difficulty))
    data = cldr_locales()["languages"][lang]
    answer = data["autonym"]
    # The likeliest slip: the language's own word for a related language (Finnish 'ruotsi').
    own_words = [name for other, name in sorted(data["names"].items()) if other != lang]
    rng.shuffle(own_words)
    others = [cldr_locales()["languages"][c]["autonym"] for c in latin_languages("easy") + latin_languages("medium") if c != lang]
    rng.shuffle(others)
    # Its own name can be (a form of) the English one, Wolof or norsk bokmål
    q = _language_stem(
        rng, lang, answer,
        by_code=("What does CLDR's locale for the ISO 639-1 language code '{code}' call that language itself?",
                 "How is the name of the language with ISO 639-1 code '{code}' written in that language (per CLDR)?"),
        by_name=("What do speakers of {name} call their language in {name} itself, as CLDR spells it?",
                 "How is the name of the {name} language written in {name} (per CLDR)?",
                 "In CLDR's {name} locale, what is {name} called?"),
    )
    return Item(
        q,
        answer,
        "short_text",
        pick_distractors(answer, own_words[:2], others, own_words[2:]),
        {"source": SRC_CLDR, "kind": "autonym", "language": lang},
    )


def _cult_language_from_code(rng: random.Random, difficulty: str) -> Item:
    # Options first: four languages of the tier whose codes look alike (same first letter, then same
    # second letter), then the answer among them. Drawn language first, with look-alikes from every
    # tier, well-known languages were the answer about half the times they were offered and rare
    # ones (Esperanto, 0 of 45) never.
    lang, _, wrong = _options_first(
        rng,
        lambda: _alike(rng, list(language_tier(difficulty)), lambda a, b: (a[0] != b[0], a[1] != b[1])),
        lambda c, _others: [c],
    )
    answer = language_name(lang)
    iso_name = iso639_1()[lang]
    q = rng.choice(
        [
            f"Which language has the ISO 639-1 code '{lang}'?",
            f"The two-letter ISO 639-1 language code '{lang}' stands for which language?",
            f"A website's language tag is '{lang}'. Which language does this ISO 639-1 code denote?",
        ]
    )
    return Item(
        q,
        answer,
        "short_text",
        tuple(language_name(c) for c in wrong),
        {"source": f"{SRC_ISO}; names: {SRC_CLDR}", "kind": "language_from_code", "language": lang},
        (iso_name,) if normalise_text(iso_name) != normalise_text(answer) else (),
    )


def _cult_script(rng: random.Random, difficulty: str) -> Item:
    by_script: dict[str, list[str]] = {}
    for c in language_tier(difficulty):
        by_script.setdefault(likely_script(c), []).append(c)
    scripts = sorted(by_script)
    # Options first: four scripts of this tier's languages, the commoner ones likelier (the square
    # root of how many of the tier's languages use them), then the answer among them and a language
    # written in it. Drawn language first, Latin was the answer in 30 of the 43 items that offered it.
    weights = [math.sqrt(len(by_script[sc])) for sc in scripts]
    script, lang, wrong = _options_first(rng, lambda: _weighted_sample(rng, scripts, weights, 4), lambda sc, _others: by_script[sc])
    answer = _EN.scripts[script]
    # a script can be named after the language (Greek, Khmer)
    q = _language_stem(
        rng, lang, answer,
        by_code=("According to CLDR's likely-subtags data, which script is the language with ISO 639-1 code '{code}' "
                 "usually written in?",
                 "Which writing system does CLDR give as the default script for the ISO 639-1 language code '{code}'?"),
        by_name=("According to CLDR's likely-subtags data, which script is {name} usually written in?",
                 "Which writing system does CLDR give as the default script for {name}?"),
    )
    return Item(
        q,
        answer,
        "short_text",
        tuple(_EN.scripts[sc] for sc in wrong),
        {"source": SRC_CLDR, "kind": "likely_script", "language": lang, "script": script},
    )


def _official(territory: str) -> list[str]:
    langs = get_global("territory_languages").get(territory, {})
    return sorted(lang for lang, info in langs.items() if info.get("official_status") == "official" and lang in _EN.languages)


@functools.cache
def _statused(territory: str) -> frozenset[str]:
    """Languages CLDR lists with an official status of any kind (official, regional, de facto) here."""
    return frozenset(l for l, info in get_global("territory_languages").get(territory, {}).items() if info.get("official_status"))


# Options first: four languages official in the tier's countries of one IANA area (those of the whole
# tier where the area has too few), then the answer among them and a country where it is official and
# none of the other three has status of any kind. Drawn country first, English, French and Spanish
# were the answer in about half the items that offered them.


def _official_tier(difficulty: str) -> list[str]:
    return [c for c in countries_in(difficulty) if _official(c)]


def _official_options(rng: random.Random, tier: list[str]) -> list[str]:
    area = country_area().get(rng.choice(tier))
    local = sorted({l for c in tier if country_area().get(c) == area for l in _official(c)})
    wide = sorted({l for c in tier for l in _official(c)})
    return rng.sample(local if len(local) >= 6 else wide, 4)


def _official_hosts(tier: list[str], lang: str, others: list[str]) -> list[str]:
    return [c for c in tier if lang in _official(c) and not _statused(c) & set(others)]


def _official_item(rng: random.Random, code: str, lang: str, wrong: list[str]) -> Item:
    statused = _statused(code)
    # worded so that it stands without its options; asked open, every language with official
    # status of any kind there is right (its aliases; the three wrong options have none there)
    q = rng.choice(
        [
            f"Name a language that has official status in {in_text(code)}, according to CLDR.",
            f"According to CLDR's territory data, what is an official language of {in_text(code)}?",
        ]
    )
    others = tuple(sorted({language_name(l) for l in statused if l != lang and l in _EN.languages} - {language_name(lang)}))
    return Item(
        q,
        language_name(lang),
        "short_text",
        tuple(language_name(l) for l in wrong),
        {"source": SRC_CLDR, "kind": "official_language", "alpha_2": code, "language": lang},
        aliases=others,
    )


def _cult_official_language(rng: random.Random, difficulty: str) -> Item:
    tier = _official_tier(difficulty)
    lang, code, wrong = _options_first(rng, lambda: _official_options(rng, tier), lambda l, others: _official_hosts(tier, l, others))
    return _official_item(rng, code, lang, wrong)


def official_language_item(rng: random.Random, code: str, lang: str) -> Item:
    """The official-language item about `code` with `lang` as the answer, its wrong options drawn as
    `_cult_official_language` draws them given that answer and country (for tests of one country)."""
    tier = _official_tier(countries()[code]["tier"])
    for _ in range(20000):
        options = _official_options(rng, tier)
        others = [o for o in options if o != lang]
        if len(others) == 3 and code in _official_hosts(tier, lang, others):
            return _official_item(rng, code, lang, others)
    raise ValueError(f"no option set offers {lang!r} for {code}")


_WEEKDAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")


def _cult_first_day(rng: random.Random, difficulty: str) -> Item:
    """Which of four countries starts its week on a given day. Asked the other way round (which day
    for this country) the options were always Monday, Sunday, Saturday and Friday, and the facts
    make Monday or Sunday the answer almost every time (Friday only for the Maldives)."""
    table = cldr_locales()["first_week_day"]
    by_day: dict[int, list[str]] = {}
    for c in countries_in(difficulty):
        if c in table:
            by_day.setdefault(table[c], []).append(c)
    # Days at least three of the tier's countries start on are asked (the Maldives' Friday is not).
    days = sorted(d for d, cs in by_day.items() if len(cs) >= 3)
    day = rng.choice(days)
    code = rng.choice(by_day[day])
    # Wrong options: countries starting on the other asked days, spread evenly over those days (a
    # country of a rare day is offered as often, for its count, as one of a common day; so each
    # country is the answer about a quarter of the times it is offered).
    other_days = [d for d in days if d != day]
    rng.shuffle(other_days)
    quota = Counter(other_days[i % len(other_days)] for i in range(3))
    wrong = [c for d, n in sorted(quota.items()) for c in rng.sample(by_day[d], n)]
    what = "countries"
    weekday = _WEEKDAYS[day]
    q = rng.choice(
        [
            f"According to CLDR, in which of these {what} does the calendar week start on {weekday}?",
            f"Wall calendars printed following CLDR's convention for the first day of the week start on {weekday} in which of these {what}?",
            f"For which of these {what} does CLDR give {weekday} as the first day of the week?",
        ]
    )
    # four countries are the question: asked without them it has many right answers
    return Item(
        q,
        country_name(code),
        "multiple_choice",
        tuple(country_name(c) for c in wrong),
        {"source": SRC_CLDR, "kind": "first_week_day", "alpha_2": code, "weekday": day},
        countries()[code]["aliases"],
    )


_MONTHS = ("January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December")


def _cult_calendar_word(rng: random.Random, difficulty: str) -> Item:
    lang = rng.choice(latin_languages(difficulty))
    data = cldr_locales()["languages"][lang]
    if rng.random() < 0.6:
        m = rng.randint(1, 12)
        answer = data["months"][m - 1]
        wrong = [data["months"][(m - 1 + d) % 12] for d in (1, -1, 2, -2, 3)]
        key = {"month": m}
        q = rng.choice(
            [
                f"What is the month of {_MONTHS[m - 1]} called in {language_name(lang)} (CLDR, stand-alone form)?",
                f"In {language_name(lang)}, what is the name of the month {_MONTHS[m - 1]}, as CLDR lists it?",
            ]
        )
    else:
        d = rng.randint(0, 6)
        answer = data["days"][d]
        wrong = [data["days"][(d + k) % 7] for k in (1, -1, 2, -2, 3)]
        key = {"weekday": d}
        q = rng.choice(
            [
                f"What is {_WEEKDAYS[d]} called in {language_name(lang)} (CLDR, stand-alone form)?",
                f"How does CLDR write the weekday {_WEEKDAYS[d]} in {language_name(lang)}?",
            ]
        )
    return Item(
        q,
        answer,
        "short_text",
        pick_distractors(answer, wrong),
        {"source": SRC_CLDR, "kind": "calendar_word", "language": lang, **key},
    )


_CULTURE_KINDS = {
    "easy": [_cult_autonym, _cult_language_from_code, _cult_script, _cult_official_language, _cult_first_day, _cult_calendar_word],
    "medium": [_cult_autonym, _cult_language_from_code, _cult_script, _cult_official_language, _cult_first_day, _cult_calendar_word],
    # not the first day of the week: CLDR starts the week of every dependent territory on Monday or
    # Sunday (Sunday: the US territories and China's SARs), too few days and places to ask fairly
    "hard": [_cult_autonym, _cult_language_from_code, _cult_script, _cult_official_language, _cult_calendar_word],
}


@DOMAIN.subcategory(
    "culture",
    difficulty={
        "easy": "major world languages (stated list of 29) and widely known countries: a language's own "
        "name, its ISO 639-1 code, its script, official languages, which of four countries starts its "
        "week on a given day (Monday, Sunday or Saturday; the other three start on other days), month and "
        "weekday names; script options are scripts of the tier's languages, the commoner ones likelier, "
        "the answer drawn among them; a language whose script or own name is named like it in English "
        "(Greek, Wolof) is given by its ISO 639-1 code, one look-up more",
        "medium": "a stated list of 40 less familiar languages and other UN member states",
        "hard": "every other ISO 639-1 language CLDR names (own names and month/weekday names only for "
        "languages with a Latin-script CLDR locale), and dependent territories (not asked for the first "
        "day of the week: CLDR starts all their weeks on Monday or Sunday); options are languages, "
        "scripts or codes of the same tier",
    },
)
def culture(rng: random.Random, difficulty: str) -> Item:
    return rng.choice(_CULTURE_KINDS[difficulty])(rng, difficulty)


# ---------------------------------------------------------------------------------------------
# cross_domain_trivia: joins across sources (element symbols x ISO codes, atomic numbers x ISO
# numeric codes, codes x currencies)
# ---------------------------------------------------------------------------------------------


@functools.cache
def symbol_country_pairs() -> list[tuple[int, str]]:
    """(Z, alpha-2) where the element's symbol and the country code are the same two letters."""
    by_code = {c.upper(): c for c in countries()}
    return sorted((z, by_code[e["symbol"].upper()]) for z, e in elements().items() if e["symbol"].upper() in by_code)


@functools.cache
def symbol_language_pairs() -> list[tuple[int, str]]:
    return sorted((z, e["symbol"].lower()) for z, e in elements().items() if e["symbol"].lower() in iso639_1())


@functools.cache
def numeric_country_pairs() -> list[tuple[int, str]]:
    """(Z, alpha-2) where the country's ISO numeric code, read as a number, is an atomic number."""
    return sorted((int(c["numeric"]), a2) for a2, c in countries().items() if 1 <= int(c["numeric"]) <= 118)


def _pair_tier(z: int, code: str, difficulty: str) -> bool:
    known = z <= 36 and countries()[code]["tier"] == "easy"
    return known if difficulty == "easy" else True


def _symbol_alike(a: int, b: int) -> tuple:
    """Elements whose symbols begin with the same letter first, then the nearer atomic number."""
    return (elements()[a]["symbol"][0] != elements()[b]["symbol"][0], abs(a - b))


def _pair_options(rng: random.Random, pairs: list[tuple[int, str]], side: int, closeness) -> tuple:
    """Options first for a join: four values of one side of the pairs (the answers every item of the
    kind and tier can have), alike by `closeness`, then the answer among them and its pair. Drawn pair
    first, the distractors were look-alikes outside the join (carbon, berkelium, English: never the
    answer) around answers the join repeats (beryllium is both Belgium's and Belarusian's code)."""
    by_value: dict = {}
    for pair in pairs:
        by_value.setdefault(pair[side], []).append(pair)
    value, pair, wrong = _options_first(rng, lambda: _alike(rng, sorted(by_value), closeness), lambda v, _others: by_value[v])
    return pair, wrong


def _cross_symbol_to_country(rng: random.Random, difficulty: str) -> Item:
    # Options: countries whose codes are symbols too, alike in their codes' letters.
    pairs = [p for p in symbol_country_pairs() if _pair_tier(*p, difficulty)]
    (z, code), wrong = _pair_options(rng, pairs, 1, lambda a, b: (a[0] != b[0], a[1] != b[1]))
    name = elements()[z]["name"]
    q = rng.choice(
        [
            f"Which country's ISO 3166-1 alpha-2 code is the same two letters as the chemical symbol of {name}?",
            f"Take the chemical symbol of {name} and read it as a two-letter ISO country code. Which country or territory is it?",
        ]
    )
    return Item(
        q,
        country_name(code),
        "short_text",
        tuple(country_name(c) for c in wrong),
        {"source": f"{SRC_ELEMENTS}; {SRC_ISO}; names: {SRC_CLDR}", "kind": "symbol_to_country", "atomic_number": z, "alpha_2": code},
        countries()[code]["aliases"],
    )


def _element_options_item(question: str, z: int, wrong: list[int], params: dict) -> Item:
    return Item(
        question,
        element_name(z),
        "short_text",
        tuple(element_name(c) for c in wrong),
        {"source": SRC_ELEMENTS, **params, "atomic_number": z},
        element_aliases(z),
    )


def _cross_country_to_element(rng: random.Random, difficulty: str) -> Item:
    # Options: elements whose symbols are country codes too, first letters alike.
    pairs = [p for p in symbol_country_pairs() if _pair_tier(*p, difficulty)]
    (z, code), wrong = _pair_options(rng, pairs, 0, _symbol_alike)
    q = rng.choice(
        [
            f"Which chemical element has a symbol that matches the ISO 3166-1 alpha-2 code of {in_text(code)}?",
            f"The two-letter ISO code of {in_text(code)} is also the symbol of a chemical element. Which element?",
        ]
    )
    return _element_options_item(q, z, wrong, {"kind": "country_to_element", "alpha_2": code, "source": f"{SRC_ELEMENTS}; {SRC_ISO}"})


def _language_pairs(difficulty: str) -> list[tuple[int, str]]:
    return [p for p in symbol_language_pairs() if difficulty != "easy" or lang_in_major(p[1])]


def _cross_language_to_element(rng: random.Random, difficulty: str) -> Item:
    # Options: elements whose symbols are language codes too, first letters alike.
    (z, lang), wrong = _pair_options(rng, _language_pairs(difficulty), 0, _symbol_alike)
    q = rng.choice(
        [
            f"Which chemical element's symbol is the same as the ISO 639-1 code of the {language_name(lang)} language?",
            f"The ISO 639-1 code for {language_name(lang)} happens to be an element symbol. Which element?",
        ]
    )
    return _element_options_item(q, z, wrong, {"kind": "language_to_element", "language": lang, "source": f"{SRC_ELEMENTS}; {SRC_ISO}"})


def _cross_element_to_language(rng: random.Random, difficulty: str) -> Item:
    """The language join the other way round: an element's symbol read as an ISO 639-1 code."""
    # Options: languages whose codes are symbols too, codes alike (same first letter, then second).
    (z, lang), wrong = _pair_options(rng, _language_pairs(difficulty), 1, lambda a, b: (a[0] != b[0], a[1] != b[1]))
    name = elements()[z]["name"]
    answer = language_name(lang)
    q = rng.choice(
        [
            f"Read the chemical symbol of {name} as a two-letter ISO 639-1 language code. Which language is it?",
            f"Which language's ISO 639-1 code is the same as the chemical symbol of {name}?",
        ]
    )
    return Item(
        q,
        answer,
        "short_text",
        tuple(language_name(c) for c in wrong),
        {"source": f"{SRC_ELEMENTS}; {SRC_ISO}; names: {SRC_CLDR}", "kind": "element_to_language", "atomic_number": z,
         "language": lang},
    )


def lang_in_major(code: str) -> bool:
    return code in MAJOR_LANGUAGES or code in MEDIUM_LANGUAGES


def _cross_element_number_to_country(rng: random.Random, difficulty: str) -> Item:
    """Two hops: element -> atomic number -> ISO 3166-1 numeric code -> country."""
    # Options: countries whose numeric codes are atomic numbers too, the nearest codes.
    number = {c: z for z, c in numeric_country_pairs()}
    (z, code), wrong = _pair_options(rng, numeric_country_pairs(), 1, lambda a, b: abs(number[a] - number[b]))
    name = elements()[z]["name"]
    q = rng.choice(
        [
            f"Read the atomic number of {name} as an ISO 3166-1 numeric country code. Which country or territory does it identify?",
            f"Which country's ISO 3166-1 numeric code equals the atomic number of {name}?",
        ]
    )
    return Item(
        q,
        country_name(code),
        "short_text",
        tuple(country_name(c) for c in wrong),
        {"source": f"{SRC_ELEMENTS}; {SRC_ISO}; names: {SRC_CLDR}", "kind": "element_number_to_country", "atomic_number": z, "alpha_2": code},
        countries()[code]["aliases"],
    )


def _cross_country_number_to_element(rng: random.Random, difficulty: str) -> Item:
    """Two hops: country -> ISO numeric code -> element with that atomic number."""
    # Options: elements whose atomic numbers are ISO numeric codes too, the nearest numbers.
    (z, code), wrong = _pair_options(rng, numeric_country_pairs(), 0, lambda a, b: abs(a - b))
    q = rng.choice(
        [
            f"Which element's atomic number equals the ISO 3166-1 numeric code of {in_text(code)}?",
            f"Take the ISO 3166-1 numeric code of {in_text(code)} as an atomic number. Which element is it?",
        ]
    )
    return _element_options_item(q, z, wrong, {"kind": "country_number_to_element", "alpha_2": code, "source": f"{SRC_ELEMENTS}; {SRC_ISO}"})


def _cross_symbol_country_currency(rng: random.Random, difficulty: str) -> Item:
    """Two hops: element -> symbol -> country code -> current currency."""
    pairs = [p for p in symbol_country_pairs() if current_currency(p[1])]

    # Options first: four currencies of the join's countries, those of the countries whose symbols
    # are nearest in atomic number first; then the answer among them and a pair whose country uses
    # it and never had any of the other three as legal tender.
    def draw() -> list[str]:
        z0, _ = rng.choice(pairs)
        near = sorted(pairs, key=lambda p: (abs(p[0] - z0), rng.random()))
        return list(dict.fromkeys(current_currency(c) for _z, c in near))[:4]

    def hosts(cur: str, others: list[str]) -> list[tuple[int, str]]:
        return [(z, c) for z, c in pairs if current_currency(c) == cur and not _ever_tender(c) & set(others)]

    cur, (z, code), wrong = _options_first(rng, draw, hosts)
    answer = currency_name(cur)
    q = rng.choice(
        [
            f"The chemical symbol of {elements()[z]['name']}, read as an ISO 3166-1 alpha-2 code, names a country or territory. What currency does CLDR list as legal tender there today?",
            f"Find the country whose ISO 3166-1 alpha-2 code matches the chemical symbol of {elements()[z]['name']}. Which currency does CLDR give as its current legal tender?",
        ]
    )
    return Item(
        q,
        answer,
        "short_text",
        tuple(currency_name(c) for c in wrong),
        {"source": f"{SRC_ELEMENTS}; {SRC_ISO}; {SRC_CLDR}", "kind": "symbol_country_currency", "atomic_number": z, "alpha_2": code, "currency": cur},
        (cur,),
    )


_CROSS_KINDS = {
    "easy": [_cross_symbol_to_country, _cross_country_to_element, _cross_language_to_element, _cross_element_to_language],
    "medium": [_cross_symbol_to_country, _cross_country_to_element, _cross_language_to_element, _cross_element_to_language],
    "hard": [_cross_element_number_to_country, _cross_country_number_to_element, _cross_symbol_country_currency],
}


@DOMAIN.subcategory(
    "cross_domain_trivia",
    difficulty={
        "easy": "one join between two sources with familiar entities: element symbols (Z <= 36) that are "
        "also ISO 3166-1 alpha-2 codes of widely known countries, or ISO 639-1 codes of listed languages; "
        "the options are four entities of the same join with look-alike symbols or codes",
        "medium": "the same single joins over every element, country, territory and ISO 639-1 language",
        "hard": "two joins chained: an atomic number read as an ISO 3166-1 numeric code (or back), or an "
        "element symbol read as a country code and then that country's CLDR currency; options are "
        "entities of the same join with the nearest numbers",
    },
)
def cross_domain_trivia(rng: random.Random, difficulty: str) -> Item:
    item = rng.choice(_CROSS_KINDS[difficulty])(rng, difficulty)
    return dataclasses.replace(item, facts=(_link_key(item.params),))


def _link_key(params: dict) -> str:
    """The fact an item asks: its relation (the kind of join) and the entities it joins, so a form asks
    "Cu read as a country code" once, whatever the wording."""
    return params["kind"] + "|" + "|".join(sorted(f"{k}:{params[k]}" for k in ("atomic_number", "alpha_2", "language", "numeric", "currency")
                                                 if k in params))


# ---------------------------------------------------------------------------------------------
# The CLDR snapshot (per-locale data), refreshed with `python -m mirror_hf.bank.factual`
# ---------------------------------------------------------------------------------------------


def build_cldr_snapshot() -> dict:
    """Read the per-locale CLDR data the culture questions use from babel (takes a few seconds)."""
    from babel.localedata import locale_identifiers

    pool = [c for c in MAJOR_LANGUAGES + MEDIUM_LANGUAGES if c in iso639_1()]
    pool += [c for c in sorted(iso639_1()) if c not in pool and likely_script(c)]
    ids = set(locale_identifiers())
    languages = {}
    for code in pool:
        if code not in ids or likely_script(code) != "Latn":
            continue
        loc = Locale.parse(code)
        if code not in loc.languages:
            continue
        months = [loc.months["stand-alone"]["wide"][m] for m in range(1, 13)]
        days = [loc.days["stand-alone"]["wide"][d] for d in range(7)]
        # Skip locales whose names are placeholders ("M01") or repeat after ASCII folding.
        folded = [normalise_text(w) for w in months + days]
        if len(set(folded)) != 19 or any(re.fullmatch(r"m\d+|\d+", w) for w in folded):
            continue
        languages[code] = {"autonym": loc.languages[code], "months": months, "days": days, "names": {}}
    for code, data in languages.items():
        loc = Locale.parse(code)
        data["names"] = {other: loc.languages[other] for other in languages if other in loc.languages}
    by_territory: dict[str, set] = {}
    for ident in sorted(ids):
        last = ident.split("_")[-1]
        if "_" in ident and len(last) == 2 and last.isupper():
            by_territory.setdefault(last, set()).add(Locale.parse(ident).first_week_day)
    first_day = {t: days.pop() for t, days in sorted(by_territory.items()) if len(days) == 1}
    return {"babel": babel.__version__, "languages": languages, "first_week_day": first_day}


if __name__ == "__main__":
    CLDR_SNAPSHOT.parent.mkdir(exist_ok=True)
    CLDR_SNAPSHOT.write_text(json.dumps(build_cldr_snapshot(), ensure_ascii=False, sort_keys=True, indent=0) + "\n", encoding="utf-8")
    print(f"wrote {CLDR_SNAPSHOT}", file=sys.stderr)
