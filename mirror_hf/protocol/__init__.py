"""The Mirror protocol as pure functions (mirror-protocol.md §1-§3, §5): prompt builders
`(record, channel | condition | paradigm) -> messages`, parsers `(response text) -> parsed fields`
and graders, with no model in the loop.

Parsers take `rules="strict" | "upstream"` and graders `matcher="strict" | "upstream"`; the
upstream pair reproduces the authors' own parsing and answer matching, so their published numbers
can be recomputed from their raw responses. `protocol_sha()` fingerprints every template and
parser, for the runner's manifest.
"""

from __future__ import annotations

import hashlib
from functools import cache
from importlib import resources

from mirror_hf.protocol import exp3, exp9
from mirror_hf.protocol import internal as _internal  # noqa: F401  registers the internal signals (consistency, logprob)
from mirror_hf.protocol.calculator import CalculatorError, calculate, evaluate
from mirror_hf.protocol.exp1 import (
    BEHAVIOURAL_CHANNELS,
    CHANNELS,
    TOOLS,
    Channel,
    build_tool_followup,
    channel,
    grade,
    needs_followup,
    parse,
    parse_tool_followup,
    question_text,
    run_tools,
)
from mirror_hf.protocol.exp9 import CONDITIONS, PARADIGMS, RouteRule, build_exp9, cells, grade_exp9, parse_exp9
from mirror_hf.protocol.matching import MATCHERS, extract_final_answer, match, match_strict, match_upstream
from mirror_hf.protocol.pairing import DifficultyPair, difficulty_pairs, pair_for_each_question
from mirror_hf.protocol.parsing import Messages
from mirror_hf.protocol.text import RULES, is_refusal, is_refusal_upstream, split_reasoning

_MODULES = ("text", "calculator", "matching", "parsing", "exp1", "pairing", "exp3", "exp4", "exp5", "exp6b", "exp9", "formats")


@cache
def protocol_sha() -> str:
    """sha256 over the source of every protocol module (templates, parsers, matchers): a prompt or
    parsing change changes it, so trials made under different protocols are never mixed silently."""
    digest = hashlib.sha256()
    package = resources.files(__name__)
    for name in _MODULES:
        digest.update(name.encode() + b"\0")
        digest.update((package / f"{name}.py").read_bytes())
    return digest.hexdigest()


def prompt_sha(messages: Messages) -> str:
    """sha256 of the exact messages sent (canonical JSON), stored in each trial's `prompt_sha`."""
    from mirror_hf.records import canonical_json

    return hashlib.sha256(canonical_json(messages).encode()).hexdigest()


__all__ = [
    "BEHAVIOURAL_CHANNELS",
    "CHANNELS",
    "CONDITIONS",
    "CalculatorError",
    "Channel",
    "DifficultyPair",
    "MATCHERS",
    "Messages",
    "PARADIGMS",
    "RULES",
    "RouteRule",
    "TOOLS",
    "build_exp9",
    "build_tool_followup",
    "calculate",
    "cells",
    "channel",
    "difficulty_pairs",
    "evaluate",
    "exp3",
    "exp9",
    "extract_final_answer",
    "grade",
    "grade_exp9",
    "is_refusal",
    "is_refusal_upstream",
    "match",
    "match_strict",
    "match_upstream",
    "needs_followup",
    "pair_for_each_question",
    "parse",
    "parse_exp9",
    "parse_tool_followup",
    "prompt_sha",
    "protocol_sha",
    "question_text",
    "run_tools",
    "split_reasoning",
]
