"""Answer matching (mirror-protocol.md §3): is a parsed answer the gold answer?

`match(pred, gold, answer_type, aliases, choices, matcher=...)` returns True, False, or None when
the item cannot be graded (no answer, or a gold answer that cannot be read as its declared type).

- `matcher="strict"` (default) is typed: numbers compare by value with a tolerance that depends on
  the precision written (see `numbers_match`), choice answers by letter or by the choice's text,
  booleans by their leading yes/no/true/false word, tuples ("(12, 4)") by their numbers in order,
  other short text by normalised equality with the gold or an alias, where the sign of a number and
  grouping parentheses count. There is no substring matching: "no" never matches "not", "know" or
  "no idea". A response that is, as a whole, one of the item's texts is compared as that text; a
  longer free-text answer (the natural channel) is first reduced to its final answer by
  `extract_final_answer`; if none can be found the whole text is compared (and is, in practice,
  wrong, not ungraded). tests/test_matcher_invariant.py holds this to every item of every bank.
- `matcher="upstream"` reproduces the authors' `match_answer_robust` rule for rule (lenient answer
  extraction, first-number parsing, substring matching for short text, refusal phrases => False),
  so their published numbers can be recomputed. Unknown answer types fall through the same
  numeric -> letter -> boolean -> text chain as theirs.
"""

from __future__ import annotations

import math
import re
import unicodedata
from decimal import Decimal
from functools import lru_cache
from typing import Callable, Sequence

from mirror_hf.protocol.text import clean_markup, is_refusal_upstream, labeled_field, labeled_field_upstream
from mirror_hf.vocabulary import MATCHERS as MATCHERS  # re-exported: the graders' vocabulary
from mirror_hf.vocabulary import Matcher as Matcher

LETTERS = ("A", "B", "C", "D")


def check_matcher(matcher: str) -> str:
    if matcher not in MATCHERS:
        raise ValueError(f"matcher must be one of {MATCHERS}, got {matcher!r}")
    return matcher


def match(
    pred: str | None,
    gold: str | None,
    answer_type: str | None,
    aliases: Sequence[str] = (),
    choices: Sequence[str] = (),
    matcher: Matcher = "strict",
) -> bool | None:
    """Grade one answer. None = ungradable (no answer, or no usable gold)."""
    check_matcher(matcher)
    if pred is None or gold is None or not str(pred).strip():
        return None
    if matcher == "upstream":
        # The authors' bank had no choices; on ours, a bare letter names the choice it stands for
        # before their rules compare values (otherwise "B" could never match a text gold).
        chosen = resolve_choice(str(pred), choices) if choices and len(str(pred).strip()) <= 3 else None
        return match_upstream(chosen or str(pred), str(gold), answer_type, aliases)
    return match_strict(str(pred), str(gold), answer_type, aliases, choices)


# ============================================================================================
# Upstream (the authors' rules)
# ============================================================================================

_UP_UNIT_PHRASE = re.compile(
    r"\b([\d,.\-\+/]+)\s*(?:years?\s+old|feet|foot|meters?|miles?|kg|pounds?|lbs?|"
    r"dollars?|cents?|hours?|days?|weeks?|months?|inches?|cm)\b[^a-zA-Z0-9]*$",
    re.IGNORECASE,
)
_UP_APPROX = re.compile(r"approximately\s+([\d,.\-\+/]+)", re.IGNORECASE)
_UP_UNITS = re.compile(
    r"\b(feet|foot|meters?|kilometres?|kilometers?|km|miles?|kilograms?|kg|grams?|gr?|pounds?|lbs?|"
    r"ounces?|oz|inches?|centimeters?|cm|millimeters?|mm|hours?|minutes?|seconds?|days?|weeks?|"
    r"months?|years?|dollars?|cents?|euros?|degrees?|radians?|units?|percent|pct)\b",
    re.IGNORECASE,
)


def upstream_extract(text: str | None, answer_type: str | None = None, channel: int | str | None = None) -> str | None:
    """The authors' answer extractor (first rule that fires wins); see §3."""
    if not text or not text.strip():
        return None
    labeled = labeled_field_upstream(text, "ANSWER")
    if labeled:
        return labeled
    if channel in (2, "opt_out") and re.search(r"\bSKIP\b", text, re.IGNORECASE):
        return "SKIP"
    m = re.search(r"(?:the\s+answer\s+is|answer\s*[:=])\s*([^\n.]+)", text, re.IGNORECASE)
    if m:
        return m.group(1).strip()
    m = re.search(
        r"(?:therefore|so|thus|hence)[,\s]+(?:the\s+\w+\s+(?:is|are|was|were)\s+)?([^\n.]{1,80})", text, re.IGNORECASE
    )
    if m and len(m.group(1).strip()) <= 60:
        return m.group(1).strip()
    last_line = next((ln.strip() for ln in reversed(text.strip().splitlines()) if ln.strip()), None)
    if last_line:
        m = re.search(r"=\s*([^\n=]{1,50})$", last_line)
        if m:
            return m.group(1).strip()
    m = _UP_UNIT_PHRASE.search(text)
    if m:
        return m.group(1).strip()
    m = _UP_APPROX.search(text)
    if m:
        return m.group(1).strip()
    if answer_type == "multiple_choice":
        m = re.search(r"\b([A-D])\b", text)
        if m:
            return m.group(1).upper()
    if answer_type in ("exact_numeric", None):
        numbers = re.findall(r"(?<![.\d])-?\d[\d,]*(?:\.\d+)?(?![.\d])", text)
        if numbers:
            return numbers[-1].replace(",", "")
    return text.strip()[:200]


def _up_number(text: str) -> float | None:
    if not text:
        return None
    text = text.strip().replace("$", "")
    m = _UP_APPROX.search(text)
    if m:
        text = m.group(1)
    text = _UP_UNITS.sub(" ", text).strip()
    text = text.replace(",", "").replace("%", "").replace("$", "").strip()
    m = re.match(r"^(-?\d+)\s*/\s*(-?\d+)$", text)
    if m:
        denominator = int(m.group(2))
        return None if denominator == 0 else int(m.group(1)) / denominator
    m = re.search(r"[-+]?\d*\.?\d+", text)
    return float(m.group()) if m else None


def _up_letter(text: str) -> str | None:
    for pattern in (r"^\s*([A-D])\s*$", r"^\s*\(([A-D])\)", r"^\s*([A-D])[.)\s]", r"\bTHE ANSWER IS ([A-D])\b", r"\bANSWER[: ]+([A-D])\b"):
        m = re.search(pattern, text, re.IGNORECASE)
        if m:
            return m.group(1).upper()
    m = re.search(r"\b([A-D])\b", text)
    return m.group(1).upper() if m else None


_UP_TRUE = {"true", "yes", "correct", "t", "y", "1", "right"}
_UP_FALSE = {"false", "no", "incorrect", "f", "n", "0", "wrong"}


def _up_bool_words(text: str) -> bool | None:
    words = set(re.sub(r"[^\w]", " ", text.lower()).split())
    if words & _UP_TRUE:
        return True
    if words & _UP_FALSE:
        return False
    return None


def _up_bool_substring(text: str) -> bool | None:
    # The older base matcher's boolean reading, used by the unknown-type chain: raw substrings.
    text = text.lower().strip()
    if any(v in text for v in ("true", "yes", "correct", "t", "y", "1")):
        return True
    if any(v in text for v in ("false", "no", "incorrect", "f", "n", "0")):
        return False
    return None


def _up_text(pred: str, gold: str, aliases: Sequence[str]) -> bool:
    p, g = pred.lower().strip(), gold.lower().strip()
    if p == g or any(a.lower().strip() == p for a in aliases):
        return True
    return bool(p) and (p in g or g in p)


def _up_numeric(pred: str, gold: str) -> bool:
    p, g = _up_number(pred), _up_number(gold)
    if p is None or g is None:
        return False
    if abs(g) >= 1000 and g == int(g):
        return abs(p - g) <= 1
    return abs(p - g) <= 0.01


def match_upstream(pred: str, gold: str, answer_type: str | None, aliases: Sequence[str] = ()) -> bool:
    """The authors' `match_answer_robust`, reproduced rule for rule."""
    pred, gold = str(pred).strip(), str(gold).strip()
    if is_refusal_upstream(pred, matcher=True):
        return False
    if len(pred) > 30:
        extracted = upstream_extract(pred, answer_type)
        if extracted and len(extracted) < len(pred):
            pred = extracted.strip()
    if answer_type == "exact_numeric":
        return _up_numeric(pred, gold)
    if answer_type == "multiple_choice":
        p, g = _up_letter(pred.upper().strip()), _up_letter(gold.upper().strip())
        return bool(p and g) and p == g
    if answer_type == "boolean":
        pb, gb = _up_bool_words(pred), _up_bool_words(gold)
        return pb is not None and gb is not None and pb == gb
    if answer_type == "short_text":
        return _up_text(pred, gold, aliases)
    # Unknown type: numeric (±0.01) -> letter (only for a single-letter gold) -> boolean -> text.
    pn, gn = _up_number(pred), _up_number(gold)
    if pn is not None and gn is not None:
        return abs(pn - gn) <= 0.01
    if re.match(r"^[A-D]$", gold.upper()):
        letter = _up_letter(pred.upper())
        if letter:
            return letter == gold.upper()
    pb, gb = _up_bool_substring(pred), _up_bool_substring(gold)
    if pb is not None and gb is not None:
        return pb == gb
    return _up_text(pred, gold, aliases)


# ============================================================================================
# Strict (ours)
# ============================================================================================

_ARTICLES = re.compile(r"^(?:the|a|an)\s+")
_MINUS = str.maketrans({"\u2212": "-", "\u2012": "-", "\ufe63": "-", "\uff0d": "-"})  # minus signs as "-"
# A word, a parenthesis, or a number with its sign: "-" or "+" before a digit is a sign unless a
# digit or a decimal point precedes it ("2-3" is a range, "UTC-5" and "(-18, 30)" carry signs).
_TOKEN = re.compile(r"(?:(?<![\d.])[-+](?=\d))?\w+|[()]")


@lru_cache(maxsize=1 << 16)  # pure, and called for every option of every answer graded
def normalise_answer(text: str) -> str:
    """Case, accent-form, markdown, punctuation and spacing-insensitive form of a short answer; a
    leading article is dropped ("The Pacific Ocean" == "pacific ocean"). Two marks carry meaning
    and are kept: the sign of a number ("-5" and "−5" are not "5", "UTC-5" is not "UTC+5") and
    parentheses, which group ("(Q implies S) implies R" is not "Q implies (S implies R)")."""
    text = unicodedata.normalize("NFKC", clean_markup(text)).lower().translate(_MINUS)
    return _ARTICLES.sub("", " ".join(_TOKEN.findall(text)))


_NUMBER = re.compile(
    r"(?P<num>(?:(?<![\d.])[-+]|(?<![\w.]))(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?(?:[eE][-+]?\d+)?|(?<![\w.])[-+]?\.\d+)"
    r"(?:\s*/\s*(?P<den>\d+)(?![\d.]))?(?![\w.]*\d)"
)


def read_number(text: str | None) -> tuple[float, int] | None:
    """(value, decimals written) of the single number a short answer states, else None.

    Currency and percent signs, thousands separators, unit words and qualifiers ("approximately")
    are ignored; "a/b" is a fraction; in "x = 42" the value after the last "=" counts; the sign
    counts wherever it is written ("-5", "−5", "UTC-5"). Two different numbers ("between 5 and 7",
    "2 hours 30 minutes"), a tuple ("(4, 4)") or an expression ("3 × 4") -> None."""
    if text is None:
        return None
    t = unicodedata.normalize("NFKC", clean_markup(str(text))).translate(_MINUS).replace("\u2009", "")
    t = re.sub(r"[$€£¥]|\\[()\[\]]|\\,", "", t)
    if "=" in t:
        t = t.rsplit("=", 1)[1]
    if re.search(r"[×*^÷]|\s[-+]\s", t) or read_tuple(t) is not None:
        return None  # an expression or a tuple, not a value
    values: list[tuple[float, int]] = []
    for m in _NUMBER.finditer(t):
        raw = m.group("num").replace(",", "")
        try:
            value = float(raw)
        except ValueError:
            continue
        decimals = len(raw.split(".", 1)[1]) if "." in raw and "e" not in raw.lower() else 0
        if m.group("den"):
            den = int(m.group("den"))
            if den == 0:
                return None
            value, decimals = value / den, EXACT_DECIMALS
        values.append((value, decimals))
    if not values:
        return None
    distinct = {v for v, _ in values}
    if len(distinct) > 1:
        return None
    return max(values, key=lambda vd: vd[1])


_COORD = r"[-+]?\d+(?:\.\d+)?"
_TUPLE = re.compile(rf"^\(\s*{_COORD}(?:\s*[,;]\s*{_COORD})+\s*\)$|^{_COORD}(?:\s*[,;]\s+{_COORD})+$")


def read_tuple(text: str | None) -> tuple[float, ...] | None:
    """The numbers of a tuple or list answer, in order: "(12, 4)", "(12,4)", "12, 4", "[8, 9, 17]";
    None for anything else. A bare "1,234" is a thousands separator, not a pair."""
    if not text:
        return None
    t = unicodedata.normalize("NFKC", clean_markup(str(text))).translate(_MINUS).strip().rstrip(".").strip()
    if not _TUPLE.match(t):
        return None
    return tuple(float(x) for x in re.findall(_COORD, t))


RELATIVE_TOLERANCE = 0.05
#: The precision of a fraction ("1/3"): exact, so as many decimals as a float holds; any answer that
#: rounds it right at two decimals or more matches it.
EXACT_DECIMALS = 17


def _float_noise(p: float, g: float) -> float:
    """A bound on the float error of `p - g` for two numbers parsed from decimal text (each within
    half an ulp of its decimal, the subtraction within another): relative, so it holds at any size."""
    return 4.0 * math.ulp(max(abs(p), abs(g)))


def _as_written(x: float, decimals: int) -> Decimal | None:
    """The decimal as written with `decimals` places, recovered exactly from its float when the float's
    spacing is finer than the last written place (else None: the float cannot tell, and the noise rule
    decides)."""
    if decimals >= EXACT_DECIMALS or not math.isfinite(x) or math.ulp(x) >= 10.0**-decimals:
        return None
    written = Decimal(x).quantize(Decimal(1).scaleb(-decimals))
    return written if abs(float(written) - x) <= math.ulp(x) else None  # "1e-3" counts 0 decimals: not as written


def _exactly_match(p: float, pd: int, g: float, gd: int) -> bool | None:
    """`numbers_match`'s rule in exact decimal arithmetic on the numbers as written, or None when a side
    cannot be recovered from its float: a float slack let 249999868.7133501 match 249999868.7133,
    0.0000501 from it where half a unit is 0.00005."""
    pw, gw = _as_written(p, pd), _as_written(g, gd)
    if pw is None or gw is None:
        return None
    diff = abs(pw - gw)
    if diff == 0:
        return True
    if gd == 0:
        return False
    if pd > gd:
        close = diff <= Decimal(5).scaleb(-gd - 1)
    elif pd < gd:
        close = pd >= 2 and diff <= Decimal(5).scaleb(-pd - 1)
    else:
        close = False
    return close and diff <= Decimal(str(RELATIVE_TOLERANCE)) * abs(gw)


def numbers_match(pred: tuple[float, int], gold: tuple[float, int]) -> bool:
    """Tolerance by magnitude and written precision. Equal up to float noise always matches. An
    integer gold written without decimals (a count) must be hit exactly. Otherwise the more precise
    side, rounded to the other side's decimals, must give the other side: 3.14159 matches a gold of
    3.14, and 3.14 matches a gold of 3.14159 (a model may round to 2+ decimals), but 3.1 does not
    match 3.14159 and 42 does not match 42.4; and the difference must stay within 5% of the gold."""
    p, pd = pred
    g, gd = gold
    exact = _exactly_match(p, pd, g, gd)
    if exact is not None:
        return exact
    noise = _float_noise(p, g)
    if abs(p - g) <= noise:
        return True
    if gd == 0 and g == int(g):
        return False
    if pd > gd:
        close = abs(p - g) <= 0.5 * 10**-gd + noise
    elif pd < gd:
        close = pd >= 2 and abs(p - g) <= 0.5 * 10**-pd + noise
    else:
        close = False
    return close and abs(p - g) <= RELATIVE_TOLERANCE * abs(g) + noise  # exactly 5% is within, whatever the float rounding


_TRUE = {"yes", "true", "correct"}
_FALSE = {"no", "false", "incorrect"}


def read_boolean(text: str | None) -> bool | None:
    """The truth value a short answer leads with: "Yes, because..." -> True; "No." -> False."""
    if not text:
        return None
    words = normalise_answer(text).split()
    if not words:
        return None
    if words[0] in _TRUE:
        return True
    if words[0] in _FALSE:
        return False
    return None


_LETTER = re.compile(
    r"^(?:(?i:option|choice|answer)\s*)?(?:\((?P<a>[A-Da-d])\)|(?P<b>[A-D]))(?:\s*[.):\-]\s*(?P<rest>.*)|\s*)$",
    re.DOTALL,
)


def read_letter(text: str) -> tuple[str, str] | None:
    """(letter, rest) when a short answer names a choice letter: "B", "(B)", "B) Paris", "Option B"."""
    t = clean_markup(text)
    if re.fullmatch(r"[a-d]", t):
        return t.upper(), ""
    m = _LETTER.match(t)
    if not m:
        return None
    return (m.group("a") or m.group("b")).upper(), (m.group("rest") or "").strip()


def resolve_choice(pred: str, choices: Sequence[str]) -> str | None:
    """The choice text a short answer designates, by value or by letter; "" when the letter and the
    text written after it disagree ("B) Paris" when B is Rome); None when it names no choice."""
    if not choices:
        return None
    norm = normalise_answer(pred)
    for choice in choices:
        if normalise_answer(choice) == norm:
            return choice
    letter = read_letter(pred)
    if letter is None:
        return None
    index = LETTERS.index(letter[0])
    if index >= len(choices):
        return ""
    rest = normalise_answer(letter[1])  # "B)." or "B) ," : punctuation alone after the letter is no text
    if rest and rest != normalise_answer(choices[index]):
        return ""
    return choices[index]


# --------------------------------------------------------------------------------------------
# Finding the final answer in free text
# --------------------------------------------------------------------------------------------

# A sentence ends at . ! ? followed by a space or the end, except after an abbreviation that takes a
# period ("St. Martin", "Dr. Okafor", "U.S. Virgin Islands", "e.g. this").
_NOT_ABBREVIATION = "".join(
    rf"(?<!\b{a})" for a in ("St", "Mt", "Ft", "Dr", "Mr", "Ms", "Mrs", "Jr", "Sr", "Prof", "vs")
) + r"(?<![A-Za-z]\.[A-Za-z])"
# The lookahead first: the eleven lookbehinds are then tried only at a punctuation mark, not at every
# position (0.73 s of a 1 MB parse before); what matches is unchanged.
_SENTENCE_END = re.compile(r"(?=[.!?])" + _NOT_ABBREVIATION + r"[.!?]+(?=\s|$)")


def _is_long(text: str) -> bool:
    """Free text rather than a short answer: several lines or sentences, bold, or over 12 words."""
    text = text.strip()
    return "\n" in text or len(text.split()) > 12 or "**" in text or any(m.end() < len(text) for m in _SENTENCE_END.finditer(text))


def _known(forms: Sequence[str]) -> set[str]:
    return {n for n in (normalise_answer(f) for f in forms) if n}


def _leading_statement(text: str, forms: Sequence[str] = ()) -> str:
    """The answer a run of text opens with: the longest run up to a sentence end that is one of the
    item's known answer texts (its options, gold and aliases, which may hold several sentences:
    "Dear Professor Okafor, ... Yours sincerely, V. Marsh"), else the first sentence. The known
    texts only say where a stated answer ends; whether it is right is the grader's question."""
    text = text.strip()
    cuts = [m.end() for m in _SENTENCE_END.finditer(text)]
    known = _known(forms)
    for cut in sorted({*cuts, len(text)}, reverse=True):
        if normalise_answer(text[:cut]) in known:
            return clean_markup(text[:cut])
    first = text[: cuts[0]] if cuts else text
    return clean_markup(first.rstrip(".!?").rstrip())


MAX_LEAD_WORDS = 6
MAX_LEAD_LINES = 2
MAX_BOLD_CHARS = 400
_ANSWER_IS = re.compile(
    r"\b(?:final\s+|correct\s+)?answer\s+(?:is|would\s+be|=)\s*:?\s*(?P<value>[^\n]+)",
    re.IGNORECASE,
)
_BOLD = re.compile(rf"\*\*(?P<value>[^*\n]{{1,{MAX_BOLD_CHARS}}}?)\*\*")


def extract_final_answer(text: str, answer_type: str | None = None, forms: Sequence[str] = ()) -> str | None:
    """The final answer stated in a free-text response, or None (strict rules).

    In order: an `ANSWER:` line; "the (final) answer is X" (last one); the first bold span that is
    not a heading and reads as the item's type (answers are stated first, explanations follow);
    a yes/no leading one of the first two lines (booleans); the value after "=" or the single number
    on the last line that has digits (numbers); otherwise the opening of the text when it is one of
    the item's known answer texts (`forms`), or a first sentence of at most six words ("Sarcastic.
    The statement ..."). Nothing else is guessed. Where a stated answer ends is decided by
    `_leading_statement`: a sentence end, or the end of a known answer text that spans sentences."""
    labeled = labeled_field(text, "ANSWER")
    if labeled:
        return labeled
    found = list(_ANSWER_IS.finditer(text))
    if found:
        return _leading_statement(found[-1].group("value"), forms)
    bold = [clean_markup(m.group("value")) for m in _BOLD.finditer(text)]
    bold = [b for b in bold if b and not b.endswith(":")]
    if answer_type == "exact_numeric":
        bold = [b for b in bold if read_number(b) is not None]
    elif answer_type == "boolean":
        bold = [b for b in bold if read_boolean(b) is not None]
    if bold:
        return bold[0]
    if answer_type == "boolean":
        # "Yes, ..." on the first line, or on the line after a lead-in ("Based on the rules:\n\nNo, ...").
        for line in [ln for ln in text.strip().splitlines() if ln.strip()][:MAX_LEAD_LINES]:
            said = read_boolean(line[:40])
            if said is not None:
                return "yes" if said else "no"
    if answer_type == "exact_numeric":
        for line in reversed([ln for ln in text.splitlines() if re.search(r"\d", ln)]):
            number = read_number(line)
            return None if number is None else line.rsplit("=", 1)[-1].strip()
        return None
    first_line = text.strip().split("\n", 1)[0]
    lead = _leading_statement(first_line, forms)
    if normalise_answer(lead) in _known(forms) or len(lead.split()) <= MAX_LEAD_WORDS:
        return lead.rstrip("!")
    return None


MAX_QUANTITY_WORDS = 4  # "About 60 miles per hour" is a quantity; a sentence with a number in it is not
_UNIT_WORDS = re.compile(r"^(?:about|approximately|around|roughly|nearly|almost|exactly|only|just|some)$")


def _same_words(pred: str, gold: str) -> bool:
    """The words beside the number do not contradict each other: every word the answer adds must
    also be in the gold, qualifiers aside ("96" and "96 books" match "About 96 books"; "96 pages"
    does not); a bare-number gold takes any unit."""
    words = lambda t: {w for w in normalise_answer(re.sub(r"[-+]?[\d.,/]+", " ", t)).split() if not _UNIT_WORDS.match(w)}  # noqa: E731
    gold_words = words(gold)
    if not gold_words:
        return True  # a bare number: the unit the answer adds ("100°C" for "100") is its own
    return len(gold_words) <= MAX_QUANTITY_WORDS and words(pred) <= gold_words


# --------------------------------------------------------------------------------------------
# Responses that list several answers
# --------------------------------------------------------------------------------------------

#: At most this many pieces (lines, or parts between "or") are tried as a list of answers.
MAX_LISTED = 12
#: A piece of an open short-text answer (no choices to resolve it against) counts as one listed
#: answer only when it is this short: "Paris\nLyon" lists two answers, a line of prose does not.
MAX_LISTED_WORDS = 3
_OR = re.compile(r"\s*,?\s+or\s+", re.IGNORECASE)
_EITHER = re.compile(r"^(?:either|it\s+is\s+either|the\s+answer\s+is\s+either)\s+", re.IGNORECASE)
_BULLET = re.compile(r"^\s*(?:[-*\u2022]\s+|\d{1,2}[.)]\s+)")


def _is_one_answer(piece: str, answer_type: str | None, choices: Sequence[str], forms: set[str]) -> bool:
    """Whether a piece of a response reads as one answer to the item on its own: it names a choice
    (by text or letter), is the gold or an alias, a lettered option, a number (numeric items), a
    yes/no (booleans), or, for an open short-text item, a few words."""
    piece = piece.strip().rstrip(".;,").strip()
    if not piece:
        return False
    if choices and resolve_choice(piece, choices) is not None:
        return True
    norm = normalise_answer(piece)
    if norm in forms:
        return True
    letter = read_letter(piece)
    if letter is not None and (letter[1] or answer_type == "multiple_choice"):
        return True
    if answer_type == "exact_numeric":
        return read_number(piece) is not None and len(piece.split()) <= MAX_QUANTITY_WORDS
    if answer_type == "boolean":
        return read_boolean(piece) is not None and len(piece.split()) == 1
    if choices:
        return False  # an item with options: a piece that names none of them is prose, not an answer
    return bool(norm) and len(piece.split()) <= MAX_LISTED_WORDS and not _SENTENCE_END.search(piece[:-1] if piece[-1:] in ".!?" else piece)


def _segment(pieces: list[str], joiner: str, is_answer: Callable[[str], bool]) -> list[str] | None:
    """The first split of `pieces` into two or more consecutive runs, each one answer (runs joined
    back with `joiner`, so an option that itself holds the separator stays whole); fewer runs first."""
    n = len(pieces)

    @lru_cache(maxsize=None)
    def runs_from(start: int, runs: int) -> tuple[str, ...] | None:
        if runs == 1:
            text = joiner.join(pieces[start:])
            return (text,) if is_answer(text) else None
        for stop in range(start + 1, n - runs + 2):
            head = joiner.join(pieces[start:stop])
            if is_answer(head):
                rest = runs_from(stop, runs - 1)
                if rest is not None:
                    return (head, *rest)
        return None

    for runs in range(2, n + 1):
        found = runs_from(0, runs)
        if found is not None:
            return list(found)
    return None


def listed_answers(
    text: str, answer_type: str | None, choices: Sequence[str] = (), forms: Sequence[str] = ()
) -> list[str] | None:
    """The answers a response lists when, as a whole, it is a list of two or more of them: one per
    line ("A) Rome\nB) Paris", "132\n72", bullets allowed), or "X or Y", "either X or Y"; else None.
    Each piece must read as an answer on its own (`_is_one_answer`), so prose around an answer is
    never taken for a list. The strict grader counts such a response correct only when every
    listed answer is (protocol.md: two different answers are correct only if both are)."""
    known = _known(forms)
    is_answer = lambda piece: _is_one_answer(piece, answer_type, choices, known)  # noqa: E731
    lines = [_BULLET.sub("", ln).strip() for ln in text.strip().splitlines() if ln.strip()]
    if 2 <= len(lines) <= MAX_LISTED:
        found = _segment(lines, "\n", is_answer)
        if found:
            return found
    if len(lines) == 1:
        line = lines[0].strip()
        line = line[:-1] if line.endswith(".") else line
        for body in dict.fromkeys((line, _EITHER.sub("", line))):  # "Either reading is equally likely" may be an option
            pieces = _OR.split(body)
            if 2 <= len(pieces) <= MAX_LISTED:
                found = _segment(pieces, " or ", is_answer)
                if found:
                    return found
    return None


def _all_listed(listed: list[str], gold: str, answer_type: str | None, aliases: Sequence[str], choices: Sequence[str]) -> bool | None:
    verdicts = [match_strict(piece, gold, answer_type, aliases, choices) for piece in listed]
    return None if any(v is None for v in verdicts) else all(verdicts)


def match_strict(
    pred: str, gold: str, answer_type: str | None, aliases: Sequence[str] = (), choices: Sequence[str] = ()
) -> bool | None:
    """Typed comparison (see module docstring). None only when the gold itself is unreadable.

    A response that is, as a whole, one of the item's texts (an option, the gold, an alias) is
    compared as that text; one that lists several answers (`listed_answers`), or states such a list
    as its final answer, is correct only when each listed answer is; only otherwise is the final
    answer looked for inside it."""
    pred = pred.strip()
    if answer_type == "short_text" and normalise_answer(gold) in _TRUE | _FALSE:
        answer_type = "boolean"  # a bare "Yes"/"No" gold is a truth value, whatever its label
    forms = (*choices, gold, *aliases)
    letter = read_letter(pred)
    whole = normalise_answer(letter[1] if letter and letter[1] else pred) in _known(forms)  # "B) <option text>"
    if not whole:
        listed = listed_answers(pred, answer_type, choices, forms)
        if listed:
            return _all_listed(listed, gold, answer_type, aliases, choices)
        before = pred
        if _is_long(pred):
            pred = extract_final_answer(pred, answer_type, forms) or pred  # nothing found: the whole text is compared
        else:
            labeled = labeled_field(pred, "ANSWER")  # "Answer: Rome" as the whole response
            stated = list(_ANSWER_IS.finditer(pred))  # "The answer is (C)" inside a short answer
            if labeled:
                pred = labeled
            elif stated:
                pred = _leading_statement(stated[-1].group("value"), forms)
        if pred != before and normalise_answer(pred) not in _known(forms):
            listed = listed_answers(pred, answer_type, choices, forms)  # "The answer is Rome or Paris."
            if listed:
                return _all_listed(listed, gold, answer_type, aliases, choices)
    chosen = resolve_choice(pred, choices)
    if chosen == "":
        return False
    if chosen is not None:
        pred = chosen
    if answer_type == "multiple_choice" and not choices:
        # Upstream-style items: options are inline in the question and the gold is a letter; a
        # text gold shown without its options (open format) is compared as text.
        gold_letter = read_letter(gold)
        if gold_letter is not None:
            pred_letter = read_letter(pred)
            return pred_letter is not None and pred_letter[0] == gold_letter[0]
    if answer_type == "exact_numeric":
        g = read_number(gold)
        if g is None:
            return None
        p = read_number(pred)
        return p is not None and numbers_match(p, g)
    if answer_type == "boolean":
        gold_bool = read_boolean(gold)
        if gold_bool is None:
            return None
        pred_bool = read_boolean(pred)
        return pred_bool is not None and pred_bool == gold_bool
    return _short_text_match(pred, gold, aliases)


_TRAILING_PAREN = re.compile(r"\s*\([^()]*\)\s*\.?\s*$")


def _same_text(pred: str, form: str) -> bool:
    """Equal as tuples when the form is one ("(12, 4)" == "(12,4)" == "12, 4"), else as normalised text."""
    form_tuple = read_tuple(form)
    if form_tuple is not None:
        pred_tuple = read_tuple(pred)
        if pred_tuple is not None:
            return pred_tuple == form_tuple
    return normalise_answer(pred) == normalise_answer(form)


def _short_text_match(pred: str, gold: str, aliases: Sequence[str]) -> bool:
    """Equality with the gold or an alias (tuples by their numbers, other texts normalised). A
    trailing parenthetical in the answer is an aside ("first Apple computer (1976)") only when the
    gold text has none and it is not the whole answer: "(4, 12)" is an answer, and in "Loschmidt
    constant (273.15 K, 100 kPa)" the parenthetical is the answer's substance. Two typed readings of
    a short-text gold: a gold that is one quantity in a few words ("About 96 books") matches by
    value, and a gold that leads with yes/no ("No, the artist ...") matches a bare yes/no."""
    target = normalise_answer(pred)
    if not target:
        return False
    bare = _TRAILING_PAREN.sub("", pred)
    for form in (gold, *aliases):
        if _same_text(pred, form):
            return True
        if bare != pred and normalise_answer(bare) and not _TRAILING_PAREN.search(form) and _same_text(bare, form):
            return True
    if target in _TRUE | _FALSE and read_boolean(gold) is not None:
        return read_boolean(pred) == read_boolean(gold)
    if read_tuple(gold) is not None:
        return False  # a tuple is never one quantity
    g, p = read_number(gold), read_number(pred)
    return g is not None and p is not None and numbers_match(p, g) and _same_words(pred, gold)
