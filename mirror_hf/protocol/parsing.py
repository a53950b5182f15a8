"""Building blocks the experiment parsers share: the common Trial fields of a response, complete
`ANSWER:` values, integer and percentage readings, the chat-message shape."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import TypeVar

from mirror_hf.protocol.matching import normalise_answer
from mirror_hf.protocol.text import check_rules, labeled_fields, split_reasoning, split_reasoning_upstream

_Number = TypeVar("_Number", int, float)

Messages = list[dict[str, str]]


def user(content: str) -> Messages:
    """One user turn, no system prompt (the protocol's default)."""
    return [{"role": "user", "content": content}]


def base_fields(channel: str, text: str | None, reasoning_content: str | None, finish_reason: str | None, rules: str) -> tuple[str, dict]:
    check_rules(rules)
    if rules == "upstream":
        visible, reasoning = split_reasoning_upstream(text)
        if reasoning_content:
            reasoning = "\n\n".join(p for p in (reasoning_content.strip(), reasoning) if p)
    else:
        visible, reasoning = split_reasoning(text, reasoning_content)
    truncated = finish_reason == "length"
    out = {
        "channel": channel,
        "raw_response": text,
        "reasoning": reasoning,
        "finish_reason": finish_reason,
        "truncated": truncated,
        "answer": None,
        "answer_candidates": None,
        "parse_success": False,
        "refused": False,
        "confidence": None,
    }
    return visible, out


def complete_answers(visible: str, truncated: bool, label: str = "ANSWER") -> list[str]:
    """Every complete `ANSWER:` value; in a cut-off response the one running to the end is dropped
    (it may be missing its last characters)."""
    return [value for value, at_end in labeled_fields(visible, label) if not (truncated and at_end)]


def set_answers(out: dict, answers: list[str]) -> None:
    if answers:
        out["answer"] = answers[0]
        distinct = {normalise_answer(a) for a in answers}
        if len(distinct) > 1:
            out["answer_candidates"] = list(answers)


def read_int(value: str, low: int, high: int) -> int | None:
    """An integer in [low, high] stated as "7", "7/10", "7 points"; decimals and ranges are not."""
    m = re.match(r"^(\d{1,3})(?:\s*/\s*\d+|\s*(?:points?|pts?)\b)?[\s.!]*$", value.strip(), re.IGNORECASE)
    if not m:
        return None
    n = int(m.group(1))
    return n if low <= n <= high else None


def agreed(values: Sequence[_Number | None]) -> _Number | None:
    """The one value every reading agrees on, else None (none, a missing one, or two different)."""
    present = [v for v in values]
    if not present or any(v is None for v in present) or len(set(present)) > 1:
        return None
    return present[0]


def read_percent(value: str) -> float | None:
    m = re.match(r"^(\d{1,3}(?:\.\d+)?)\s*(?:%|/\s*100|percent)?[\s.!]*$", value.strip(), re.IGNORECASE)
    if not m:
        return None
    v = float(m.group(1))
    return v if 0 <= v <= 100 else None


