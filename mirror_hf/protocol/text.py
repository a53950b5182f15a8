"""Text utilities every parser shares: splitting reasoning off a response, reading `LABEL:` fields,
detecting refusals, counting hedges and caveats.

Two rule sets live side by side (mirror-protocol.md §2, §3):
- `upstream` reproduces the authors' parsers exactly, lenient quirks included, so their published
  numbers can be recomputed from their raw responses;
- `strict` is ours: labels must start a line, refusals must actually decline the task, phrase
  counts respect word boundaries.
"""

from __future__ import annotations

import re
from typing import Iterator

from mirror_hf.vocabulary import MATCHERS, Matcher

Rules = Matcher  # a parser's rules are the matcher's words (mirror_hf.vocabulary)
RULES: tuple[Rules, ...] = MATCHERS


def check_rules(rules: str) -> str:
    if rules not in RULES:
        raise ValueError(f"rules must be one of {RULES}, got {rules!r}")
    return rules


# --------------------------------------------------------------------------------------------
# Reasoning
# --------------------------------------------------------------------------------------------

_THINK_BLOCK = re.compile(r"<think>(.*?)</think>", re.DOTALL | re.IGNORECASE)
_THINK_OPEN = re.compile(r"<think>", re.IGNORECASE)


def split_reasoning(text: str | None, reasoning_content: str | None = None) -> tuple[str, str | None]:
    """(visible text, reasoning). Every `<think>…</think>` block is removed from the text and kept;
    an unclosed `<think>` (a response cut off while thinking) makes everything after it reasoning,
    so a half-finished chain of thought is never parsed as the answer. `reasoning_content` (the
    field some OpenAI-compatible servers use) comes first in the kept reasoning."""
    parts: list[str] = []
    if reasoning_content and reasoning_content.strip():
        parts.append(reasoning_content.strip())
    if text is None:
        return "", ("\n\n".join(parts) or None)
    parts.extend(p.strip() for p in _THINK_BLOCK.findall(text))
    visible = _THINK_BLOCK.sub("", text)
    opened = _THINK_OPEN.search(visible)
    if opened:
        parts.append(visible[opened.end() :].strip())
        visible = visible[: opened.start()]
    # A lone closing tag (server stripped the opening one): what precedes it is reasoning.
    close = visible.lower().rfind("</think>")
    if close >= 0:
        parts.append(visible[:close].strip())
        visible = visible[close + len("</think>") :]
    reasoning = "\n\n".join(p for p in parts if p) or None
    return visible.strip(), reasoning


def split_reasoning_upstream(text: str | None) -> tuple[str, str | None]:
    """The authors' version: closed `<think>` blocks only (an unclosed one stays in the text)."""
    if text is None:
        return "", None
    found = _THINK_BLOCK.findall(text)
    return _THINK_BLOCK.sub("", text).strip(), ("\n\n".join(p.strip() for p in found) if found else None)


# --------------------------------------------------------------------------------------------
# Labeled fields
# --------------------------------------------------------------------------------------------


def _strip_brackets(content: str) -> str:
    content = content.strip()
    if content.startswith("[") and content.endswith("]"):
        content = content[1:-1].strip()
    return content


def labeled_field_upstream(text: str | None, label: str) -> str | None:
    """The authors' extractor: text after the first `LABEL:` (anywhere, any case) up to the next line
    that starts with a 2+-letter `WORD:` label or the end; one pair of [...] removed; if that is
    empty, the rest of the line after the label; else None."""
    if not text:
        return None
    block = re.search(rf"{re.escape(label)}\s*:\s*(.+?)(?=\n[A-Z_]{{2,}}\s*:|$)", text, re.IGNORECASE | re.DOTALL)
    if block:
        content = _strip_brackets(block.group(1))
        if content:
            return content
    line = re.search(rf"{re.escape(label)}\s*:\s*(.+)", text, re.IGNORECASE)
    if line:
        content = _strip_brackets(line.group(1))
        if content:
            return content
    return None


_LEAD_MARKUP = re.compile(r"^(?:[*_`#>~\s]+|[-+•]\s+)+")
_TRAIL_MARKUP = re.compile(r"[*_`~\s]+$")
_LEAD_CHARS = "*_`#>~-+•"  # a stripped text loses something only if it starts or ends with one of these
_TRAIL_CHARS = "*_`~]"  # (the `]` of a bracketed value)


def clean_markup(text: str) -> str:
    """Drop markdown emphasis, headings and list bullets around a short value: '**42**' -> '42',
    '- Paris' -> 'Paris'; a sign that belongs to a number stays ('-5')."""
    text = text.strip()
    if not text or (text[0] not in _LEAD_CHARS and text[-1] not in _TRAIL_CHARS):
        return text  # nothing to drop: skips two regex passes per label of a long response
    previous = None
    while previous != text:
        previous = text
        text = _TRAIL_MARKUP.sub("", _LEAD_MARKUP.sub("", text))
        if text.startswith("[") and text.endswith("]"):
            text = text[1:-1].strip()
    return text


def _label_line(label: str) -> re.Pattern:
    # The label starts a line, possibly wrapped in markdown (`**ANSWER:**`, `### Answer:`),
    # possibly as "Final answer"; the value is the rest of that line.
    # The leading markup is possessive (`*+`): a label starts with a letter, so giving markup back can
    # never help, and backtracking through a line of 500,000 "**" cost 0.2 s per label. An empty line
    # cannot hold a label: the lookahead turns it away at once (10x faster over runs of blank lines).
    return re.compile(
        rf"^(?=[^\n])[ \t>*_#\-]*+(?:final[ \t]+)?{label}[ \t]*[*_]*[ \t]*[:：][ \t]*[*_]*(?P<value>[^\n]*)$",
        re.IGNORECASE | re.MULTILINE,
    )


_LABEL_PATTERNS: dict[str, re.Pattern] = {}


def labeled_fields(text: str | None, label: str) -> list[tuple[str, bool]]:
    """Every `LABEL: value` line (strict rules), in order, as (value, ends_text). The value is the
    rest of the line, or the next non-empty line when the label stands alone; `ends_text` is true
    when the value runs to the very end of the text (it may have been cut off)."""
    return list(_labeled_values(text, label))


def _labeled_values(text: str | None, label: str) -> Iterator[tuple[str, bool]]:
    if not text:
        return
    pattern = _LABEL_PATTERNS.setdefault(label, _label_line(label))
    content_end = len(text.rstrip())  # past it only whitespace: computed once, not sliced per label (quadratic)
    for m in pattern.finditer(text):
        value = clean_markup(m.group("value"))
        end = m.end()
        if not value:
            nxt = _NEXT_LINE.match(text, m.end())
            if nxt:
                value = clean_markup(nxt.group(1))
                end = nxt.end()
        if value:
            yield value, end >= content_end


_NEXT_LINE = re.compile(r"\s*\n([^\n]*)")


def labeled_field(text: str | None, label: str) -> str | None:
    """The first strict `LABEL:` value, or None (the scan stops there)."""
    return next((value for value, _ in _labeled_values(text, label)), None)


# --------------------------------------------------------------------------------------------
# Refusals
# --------------------------------------------------------------------------------------------

UPSTREAM_REFUSAL_PHRASES: tuple[str, ...] = (
    "i cannot",
    "i can't",
    "i am unable",
    "i'm unable",
    "i must decline",
    "i apologize",
    "i won't",
    "i will not",
    "not able to",
    "cannot assist",
    "cannot help",
    "inappropriate",
    "against my",
    "not appropriate",
)


def is_refusal_upstream(text: str | None, *, matcher: bool = False) -> bool:
    """The authors' detector: any listed phrase anywhere (the matcher's copy adds "i refuse").
    Very broad: "the list is not able to hold 5 items" counts as a refusal."""
    if not text:
        return False
    lower = text.lower()
    phrases = UPSTREAM_REFUSAL_PHRASES + (("i refuse",) if matcher else ())
    return any(p in lower for p in phrases)


_DECLINE = re.compile(
    r"""^\W*
    (?:(?:i'?m|i\s+am)\s+(?:really\s+|very\s+|so\s+)?sorry|sorry|apologies|i\s+apologi[sz]e|unfortunately)?
    [\s,.!:;-]*(?:but\s+)?
    (?:as\s+an?\s+[^,.\n]{1,60},\s*)?
    i(?:\s+|')(?:cannot|can\s*not|can't|can’t|won't|won’t|will\s+not|am\s+unable\s+to|m\s+unable\s+to|
        am\s+not\s+able\s+to|m\s+not\s+able\s+to|must\s+(?:decline|refuse)|refuse|decline|do\s+not\s+feel\s+comfortable)
    \b[^.!?\n,;]{0,40}?
    \b(?:help|assist|answer|provide|comply|complete|fulfil+|respond|engage|participate|do\s+(?:that|this)|
        give|share|generate|create|write|continue|discuss|with\s+(?:that|this))\b""",
    re.IGNORECASE | re.VERBOSE,
)


_LEADING_MARKUP = re.compile(r"[^\w\s]*")


def is_refusal(text: str | None) -> bool:
    """Strict detector: the response *opens* by declining the task ("I'm sorry, but I can't help
    with that"), and that sentence does not go on to answer ("I can't be certain, but ..." and
    answers that merely contain "not able to" are not refusals)."""
    if not text:
        return False
    # Only the opening sentence can decline. Leading markup is skipped and the sentence is read
    # from its first 1,000 characters: the pattern's backtracking over a 1 MB opening took 1 s.
    opening = text.strip()
    markup = _LEADING_MARKUP.match(opening)
    opening = opening[markup.end() if markup else 0 :][:1000]
    first = re.split(r"(?<=[.!?])\s|\n", opening, maxsplit=1)[0]
    decline = _DECLINE.search(first)
    if not decline:
        return False
    return not re.search(r",?\s+(?:but|however)\b", first[decline.end() :], re.IGNORECASE)


# --------------------------------------------------------------------------------------------
# Hedges, caveats, length (natural channel, §2 Ch5)
# --------------------------------------------------------------------------------------------

HEDGING_PHRASES: tuple[str, ...] = (
    "i think",
    "probably",
    "i'm not sure",
    "i am not sure",
    "i believe",
    "this might be",
    "it's possible",
    "its possible",
    "if i recall",
    "i'm not certain",
    "i am not certain",
    "perhaps",
    "likely",
    "arguably",
    "it seems",
)
CAVEAT_PHRASES: tuple[str, ...] = (
    "however",
    "but note that",
    "although",
    "it's worth noting",
    "its worth noting",
    "keep in mind",
    "caveat",
    "disclaimer",
    "i should note",
    "to be fair",
)


def _normalise_quotes(text: str) -> str:
    return text.replace("’", "'").replace("‘", "'")


def count_phrases(text: str | None, phrases: tuple[str, ...], rules: Rules = "strict") -> int:
    """Occurrences of the phrases. Upstream counts raw substrings (so "unlikely" holds "likely");
    strict counts whole words only and reads curly apostrophes as straight ones."""
    if not text:
        return 0
    lower = text.lower()
    if rules == "upstream":
        return sum(lower.count(p) for p in phrases)
    lower = _normalise_quotes(lower)
    return sum(_whole_word_count(lower, p) for p in phrases)


def _is_word_char(ch: str) -> bool:
    return ch.isalnum() or ch in "_'"


def _whole_word_count(text: str, phrase: str) -> int:
    r"""Non-overlapping occurrences of `phrase` not inside a word (the regex
    `(?<![\w'])phrase(?![\w'])`), found with `str.find`: one regex per phrase scanned every
    position of a 1 MB response in Python's engine (16 s over the hedging lists); find is C-speed."""
    count, start, size = 0, 0, len(phrase)
    while (hit := text.find(phrase, start)) != -1:
        end = hit + size
        if (hit == 0 or not _is_word_char(text[hit - 1])) and (end == len(text) or not _is_word_char(text[end])):
            count += 1
            start = end
        else:
            start = hit + 1
    return count


def word_count(text: str | None) -> int:
    return len(text.split()) if text else 0
