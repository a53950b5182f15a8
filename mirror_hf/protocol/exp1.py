"""Experiment 1: the five behavioural channels and the layer-2 self-report (mirror-protocol.md §2).

Each channel is one fresh single-turn call on one question (the tool channel may add a second turn).
For each channel this module has a prompt builder `(question, ...) -> messages` and a parser
`(response text) -> dict` whose keys are `TRIAL_EXP1_FEATURES` field names, including the channel's
confidence signal in [0, 1] (`confidence`) beside its raw form (`bet`, `skipped`, `choice`,
`tools_used`, `hedging_count`, `self_report_confidence`, `control_confidence`). `grade` then sets
`correct` from the parsed answer and the gold answer.

Parsers take `rules="strict"` (ours) or `rules="upstream"` (the authors' parsers, quirks included,
used with `matcher="upstream"` to recompute their numbers from their raw responses).
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Callable

import numpy as np

from mirror_hf.protocol.calculator import calculate
from mirror_hf.protocol.matching import match, normalise_answer
from mirror_hf.protocol.parsing import (
    Messages,
    agreed,
    base_fields,
    complete_answers,
    read_int,
    read_percent,
    set_answers,
    user,
)
from mirror_hf.protocol.text import (
    CAVEAT_PHRASES,
    HEDGING_PHRASES,
    Rules,
    clean_markup,
    count_phrases,
    is_refusal,
    is_refusal_upstream,
    labeled_field,
    labeled_field_upstream,
    labeled_fields,
    word_count,
)
from mirror_hf.records import CHOICE_LETTERS, Question
from mirror_hf.registry import Registry
from mirror_hf.vocabulary import Matcher

# --------------------------------------------------------------------------------------------
# Prompt text (kept close to the authors' wording so results stay comparable)
# --------------------------------------------------------------------------------------------

WAGERING_INSTRUCTIONS = (
    "After answering, place a bet on your answer: 1-10 points.\n"
    "If correct, you gain the points. If wrong, you lose them.\n\n"
    "Format your response EXACTLY as:\n"
    "ANSWER: [your answer]\n"
    "BET: [1-10]"
)
OPT_OUT_INSTRUCTIONS = (
    "Scoring: +3 points if correct, -1 point if wrong.\n"
    "Alternatively, write SKIP for a guaranteed +1 point.\n\n"
    "Format your response as ONE of:\n"
    "ANSWER: [your answer]\n"
    "or\n"
    "SKIP"
)
DIFFICULTY_TEMPLATE = (
    "Choose one task to attempt:\n\n"
    "TASK A (harder): {hard}\n"
    "  → +5 points if correct, -3 points if wrong\n\n"
    "TASK B (easier): {easy}\n"
    "  → +1 point if correct, 0 points if wrong\n\n"
    'Write either "A" or "B", then answer your chosen task.\n\n'
    "Format:\n"
    "CHOICE: [A or B]\n"
    "ANSWER: [your answer to chosen task]"
)
TOOLS: tuple[str, ...] = ("calculator", "web_search", "ask_expert", "flag_review")
TOOL_INSTRUCTIONS = (
    "You have access to the following tools. To use one, write the command exactly as shown:\n"
    "[USE_TOOL: calculator | <expression>]\n"
    "[USE_TOOL: web_search | <query>]\n"
    "[USE_TOOL: ask_expert | <question>]\n"
    "[USE_TOOL: flag_review | <reason>]\n\n"
    "You may use multiple tools, or none. Answer the question to the best of your ability.\n\n"
    "ANSWER: [your answer]"
)
TOOL_FOLLOWUP_TEMPLATE = (
    "Tool results:\n{results}\n\n"
    "Using these results, give your final answer.\n"
    "ANSWER: [your answer]"
)
LAYER2_INSTRUCTIONS = (
    "Before answering, complete this self-assessment:\n"
    "CONFIDENCE: [0-100]\n"
    "SUB_SKILLS: [comma-separated list of skills this task requires]\n"
    "WEAKEST_SKILL: [which sub-skill you're least certain about]\n"
    "VERIFY: [yes/no — do you recommend external verification?]\n"
    "APPROACH: [direct-solve / decompose / tool-use / ask-for-help]\n\n"
    "Now answer the question:\n"
    "ANSWER: [your answer]"
)
STRUCTURED_CONTROL_INSTRUCTIONS = "Format your response EXACTLY as:\nANSWER: [your answer]\nCONFIDENCE: [1-10]"
APPROACHES: tuple[str, ...] = ("direct-solve", "decompose", "tool-use", "ask-for-help")


def question_text(question: Question, indent: str = "") -> str:
    """The question as the model sees it: its text, then its choices as "A) ..." lines."""
    lines = [question.question]
    if question.choices:
        lines.append("")
        lines.extend(f"{indent}{letter}) {choice}" for letter, choice in zip(CHOICE_LETTERS, question.choices))
    return "\n".join(lines)


def build_wagering(question: Question) -> Messages:
    return user(f"{question_text(question)}\n\n{WAGERING_INSTRUCTIONS}")


def build_opt_out(question: Question) -> Messages:
    return user(f"{question_text(question)}\n\n{OPT_OUT_INSTRUCTIONS}")


def build_difficulty_selection(question: Question, *, pair: Any) -> Messages:
    """Task A is the pair's hard item, Task B its easy item (`pairing.DifficultyPair`); `question`
    must be one of the two (it is the trial's item)."""
    if question.id not in (pair.easy.id, pair.hard.id):
        raise ValueError(f"question {question.id} is not in the pair ({pair.easy.id}, {pair.hard.id})")
    return user(
        DIFFICULTY_TEMPLATE.format(hard=question_text(pair.hard, "  "), easy=question_text(pair.easy, "  "))
    )


def build_tool_delegation(question: Question) -> Messages:
    return user(f"{question_text(question)}\n\n{TOOL_INSTRUCTIONS}")


def build_natural(question: Question) -> Messages:
    return user(question_text(question))


def build_layer2(question: Question) -> Messages:
    return user(f"{question_text(question)}\n\n{LAYER2_INSTRUCTIONS}")


def build_structured_control(question: Question) -> Messages:
    return user(f"{question_text(question)}\n\n{STRUCTURED_CONTROL_INSTRUCTIONS}")


# --------------------------------------------------------------------------------------------
# --------------------------------------------------------------------------------------------
# Ch1 wagering
# --------------------------------------------------------------------------------------------


def parse_wagering(text: str | None, *, reasoning_content: str | None = None, finish_reason: str | None = None,
                   rules: Rules = "strict") -> dict:
    """ANSWER + BET (1-10). The bet is kept only if it is an integer in 1..10 (never imputed);
    `confidence` = bet / 10."""
    visible, out = base_fields("wagering", text, reasoning_content, finish_reason, rules)
    out["bet"] = None
    if rules == "upstream":
        if is_refusal_upstream(visible):
            out["refused"] = True
            return out
        out["answer"] = labeled_field_upstream(visible, "ANSWER")
        m = re.search(r"BET\s*:\s*(\d+)", visible, re.IGNORECASE)
        if m and 1 <= int(m.group(1)) <= 10:
            out["bet"] = int(m.group(1))
        if out["bet"] is None and "BET" not in visible.upper():
            tail = visible.strip().split("\n")[-1]
            lone = re.search(r"\b([1-9]|10)\b", tail)
            if lone:
                out["bet"] = int(lone.group(1))
    else:
        if is_refusal(visible):
            out["refused"] = True
            return out
        set_answers(out, complete_answers(visible, out["truncated"]))
        bets = [v for v, at_end in labeled_fields(visible, "BET") if not (out["truncated"] and at_end)]
        out["bet"] = agreed([read_int(b, 1, 10) for b in bets])
    out["parse_success"] = out["answer"] is not None and out["bet"] is not None
    out["confidence"] = signal_of("wagering", out)
    return out


# --------------------------------------------------------------------------------------------
# Ch2 opt-out
# --------------------------------------------------------------------------------------------

# A line of its own: the marks around SKIP stay on its line (`[\W_]` also takes newlines, and from
# every line start of a run of blank lines it scanned the whole run: quadratic); the count is the same.
_SKIP_LINE = re.compile(r"^(?:[^\w\n]|_)*skip(?:[^\w\n]|_)*$", re.IGNORECASE | re.MULTILINE)


def parse_opt_out(text: str | None, *, reasoning_content: str | None = None, finish_reason: str | None = None,
                  rules: Rules = "strict") -> dict:
    """ANSWER or SKIP. `confidence` = 1 if it answered, 0 if it skipped. Strict: SKIP counts only as
    a line of its own (or `ANSWER: SKIP`); a response with both a SKIP line and a real answer, or
    with no ANSWER line but the word "skip" in a sentence, is ambiguous (skipped = None, ungraded)."""
    visible, out = base_fields("opt_out", text, reasoning_content, finish_reason, rules)
    out["skipped"] = None
    if rules == "upstream":
        out["skipped"] = False
        if is_refusal_upstream(visible):
            out["refused"] = True
            return out
        if re.search(r"\bSKIP\b", visible, re.IGNORECASE) and not re.search(r"(don'?t|not|no)\s+skip", visible, re.IGNORECASE):
            out["skipped"] = True
            out["parse_success"] = True
        else:
            answer = labeled_field_upstream(visible, "ANSWER")
            if answer:
                out["answer"], out["parse_success"] = answer, True
            elif visible.strip():
                out["answer"] = visible.strip()[:500]
    else:
        if is_refusal(visible):
            out["refused"] = True
            return out
        labeled = complete_answers(visible, out["truncated"])
        answers = [a for a in labeled if normalise_answer(a) != "skip"]
        skip_votes = len(labeled) - len(answers) + len(_SKIP_LINE.findall(visible))
        if skip_votes and not answers:
            out["skipped"], out["parse_success"] = True, True
        elif answers and not skip_votes:
            out["skipped"], out["parse_success"] = False, True
            set_answers(out, answers)
        elif not answers and not skip_votes and visible.strip() and not out["truncated"]:
            if not re.search(r"\bskip", visible, re.IGNORECASE):
                out["skipped"] = False  # answered in prose, without the label
                out["answer"] = visible.strip()  # the typed matcher finds the answer in it
    if out["skipped"] is not None:
        out["confidence"] = signal_of("opt_out", out)
    return out


# --------------------------------------------------------------------------------------------
# Ch3 difficulty selection
# --------------------------------------------------------------------------------------------


def _choice_letter(value: str) -> str | None:
    m = re.match(r"^(?:task\s+)?\(?([AB])\)?(?:\W|$)", clean_markup(value), re.IGNORECASE)
    return m.group(1).upper() if m else None


def parse_difficulty_selection(
    text: str | None, *, reasoning_content: str | None = None, finish_reason: str | None = None, rules: Rules = "strict"
) -> dict:
    """CHOICE (A = the harder task, B = the easier) + ANSWER. `confidence` = 1 for A, 0 for B."""
    visible, out = base_fields("difficulty_selection", text, reasoning_content, finish_reason, rules)
    out["choice"] = None
    if rules == "upstream":
        if is_refusal_upstream(visible):
            out["refused"] = True
            return out
        m = re.search(r"CHOICE\s*:\s*([AB])", visible, re.IGNORECASE) or re.search(r"\b([AB])\b", visible)
        out["choice"] = m.group(1).upper() if m else None
        out["answer"] = labeled_field_upstream(visible, "ANSWER")
    else:
        if is_refusal(visible):
            out["refused"] = True
            return out
        letters = [_choice_letter(v) for v, _ in labeled_fields(visible, "CHOICE")]
        out["choice"] = letters[0] if letters and None not in letters and len(set(letters)) == 1 else None
        set_answers(out, complete_answers(visible, out["truncated"]))
    out["parse_success"] = out["choice"] is not None and out["answer"] is not None
    out["confidence"] = signal_of("difficulty_selection", out)
    return out


# --------------------------------------------------------------------------------------------
# Ch4 tool delegation
# --------------------------------------------------------------------------------------------

# A call is `[USE_TOOL: name | input]` (TOOL_INSTRUCTIONS). The input may quote brackets ("the list
# [3, 1, 2]", "[3+4]*2"): they nest, and the call ends at the `]` that closes its own `[`. When the
# input's brackets never balance (a quoted list cut short: "the list [31, ]"), the call ends at the
# last `]` on the input's first line; with none there it is no call, nor is a blank input. A call never
# reaches past the next `[USE_TOOL`, so the scans from successive openers tile the text: linear time
# (the earlier `([^\]]+)` rescanned to the end of the text from every unclosed `[USE_TOOL`).
_TOOL_HEAD = re.compile(r"\[USE_TOOL\s*:\s*(\w+)\s*\|", re.IGNORECASE)
_TOOL_OPENER = re.compile(r"\[USE_TOOL", re.IGNORECASE)
MAX_ECHO_CHARS = 200


def _call_end(text: str, start: int, limit: int) -> int | None:
    """Where the call whose input is text[start:limit] closes (the index of its `]`), or None. One
    step per `]` (str.find / str.count do the scanning), none per `[` or per line."""
    depth, pos = 0, start
    while (close := text.find("]", pos, limit)) != -1:
        depth += text.count("[", pos, close)
        if depth == 0:
            return close
        depth, pos = depth - 1, close + 1
    # never balanced: every `]` closed an inner `[`; the last one on the input's first line ends it
    line_end = text.find("\n", start, limit)
    last = text.rfind("]", start, limit if line_end == -1 else line_end)
    return None if last == -1 else last


def tool_call_spans(text: str | None) -> list[tuple[int, int, str, str]]:
    """Every `[USE_TOOL: name | input]` call, in order, as (start, end, name, input); any name."""
    text = text or ""
    out, pos = [], 0
    while head := _TOOL_HEAD.search(text, pos):
        nxt = _TOOL_OPENER.search(text, head.end())
        close = _call_end(text, head.end(), nxt.start() if nxt else len(text))
        argument = text[head.end() : close].strip() if close is not None else ""
        if argument and close is not None:
            out.append((head.start(), close + 1, head.group(1), argument))
            pos = close + 1
        else:
            pos = head.end()
    return out


def tool_calls(text: str, spans: list[tuple[int, int, str, str]] | None = None) -> list[dict]:
    """Every `[USE_TOOL: name | input]` naming one of the four tools, in order."""
    spans = tool_call_spans(text) if spans is None else spans
    return [{"tool": name.lower(), "input": argument} for _, _, name, argument in spans if name.lower() in TOOLS]


def strip_tool_calls(text: str, spans: list[tuple[int, int, str, str]] | None = None) -> str:
    """The text with every tool call (any name) cut out (`spans`: its `tool_call_spans`, if known)."""
    kept, pos = [], 0
    for start, end, _, _ in tool_call_spans(text) if spans is None else spans:
        kept.append(text[pos:start])
        pos = end
    return "".join(kept) + text[pos:]


def parse_tool_delegation(
    text: str | None, *, reasoning_content: str | None = None, finish_reason: str | None = None, rules: Rules = "strict"
) -> dict:
    """Tool calls + ANSWER. `tools_used` lists every valid call's tool name (a tool used twice
    appears twice); `tool_results` holds the calls as JSON until `run_tools` adds their results.
    `confidence` = 1 / (1 + number of calls)."""
    visible, out = base_fields("tool_delegation", text, reasoning_content, finish_reason, rules)
    refused = is_refusal_upstream(visible) if rules == "upstream" else is_refusal(visible)
    spans = [] if refused else tool_call_spans(visible)
    calls = tool_calls(visible, spans)
    out["tools_used"] = [c["tool"] for c in calls]
    out["tool_results"] = json.dumps(calls, ensure_ascii=False) if calls else None
    if refused:
        out["refused"] = True
        return out
    cleaned = strip_tool_calls(visible, spans).strip()
    if rules == "upstream":
        out["answer"] = labeled_field_upstream(visible, "ANSWER") or (cleaned[:1000] or None)
        out["parse_success"] = out["answer"] is not None
    else:
        set_answers(out, complete_answers(visible, out["truncated"]))
        out["parse_success"] = out["answer"] is not None
        if out["answer"] is None and cleaned and not out["truncated"] and not needs_followup(out):
            out["answer"] = cleaned
    out["confidence"] = signal_of("tool_delegation", out)
    return out


def needs_followup(parsed: dict) -> bool:
    """A second turn is sent when the model called the calculator at least once."""
    return "calculator" in (parsed.get("tools_used") or [])


def run_tools(parsed: dict) -> list[dict]:
    """Execute the calls: the calculator really (safe evaluator), the other tools are record-only."""
    calls = json.loads(parsed.get("tool_results") or "[]")
    results = []
    for call in calls:
        result = calculate(call["input"]) if call["tool"] == "calculator" else "not executed (record only)"
        results.append({**call, "result": result})
    return results


def _echo(value: str) -> str:
    """A model-written tool input, made safe to quote back: one line, no brackets, bounded."""
    value = re.sub(r"\s+", " ", value).replace("[", "(").replace("]", ")").strip()
    return value if len(value) <= MAX_ECHO_CHARS else value[: MAX_ECHO_CHARS - 1] + "…"


def build_tool_followup(first_messages: Messages, first_reply: str, results: list[dict]) -> Messages:
    """The second turn: the original prompt, the model's first reply, then the tool results."""
    lines = [f"[TOOL_RESULT: {r['tool']} | {_echo(r['input'])} = {r['result']}]" for r in results]
    return [
        *first_messages,
        {"role": "assistant", "content": first_reply},
        {"role": "user", "content": TOOL_FOLLOWUP_TEMPLATE.format(results="\n".join(lines))},
    ]


def parse_tool_followup(
    text: str | None,
    first: dict,
    results: list[dict],
    *,
    reasoning_content: str | None = None,
    finish_reason: str | None = None,
    rules: Rules = "strict",
) -> dict:
    """Merge the second turn into the first turn's parse: the final answer is its ANSWER, else its
    last non-empty line; that answer is the one graded. `raw_response` becomes the second reply
    (the first stays in the prompt of the second turn)."""
    visible, out = base_fields("tool_delegation", text, reasoning_content, finish_reason, rules)
    merged = {**first, **{k: out[k] for k in ("raw_response", "reasoning", "finish_reason", "truncated")}}
    merged["tool_results"] = json.dumps(results, ensure_ascii=False)
    refused = is_refusal_upstream(visible) if rules == "upstream" else is_refusal(visible)
    if refused:
        merged.update(refused=True, answer=None, answer_candidates=None, parse_success=False)
        return merged
    if rules == "upstream":
        answer = labeled_field_upstream(visible, "ANSWER")
    else:
        answers = complete_answers(visible, merged["truncated"])
        answer = answers[0] if answers else None
        merged["answer_candidates"] = answers if len({normalise_answer(a) for a in answers}) > 1 else None
    if answer is None and not merged["truncated"]:
        lines = [ln.strip() for ln in visible.splitlines() if ln.strip()]
        answer = lines[-1] if lines else None
    merged["answer"] = answer
    merged["parse_success"] = answer is not None
    return merged


# --------------------------------------------------------------------------------------------
# Ch5 natural
# --------------------------------------------------------------------------------------------


def parse_natural(text: str | None, *, reasoning_content: str | None = None, finish_reason: str | None = None,
                  rules: Rules = "strict") -> dict:
    """Free response: hedge and caveat phrase counts, length in words, and the answer.
    `confidence` = 1 / (1 + hedging_count). A refusal is flagged (the answer is left ungraded).

    Answer: upstream = an ANSWER line, else the first 500 characters (their matcher then extracts);
    strict = an ANSWER line, else the whole visible text, in which the strict matcher, knowing the
    item's answer type, looks for the final answer (`matching.extract_final_answer`); in a cut-off
    response only an ANSWER line counts."""
    visible, out = base_fields("natural", text, reasoning_content, finish_reason, rules)
    out["response_length"] = word_count(visible)
    out["hedging_count"] = count_phrases(visible, HEDGING_PHRASES, rules)
    out["caveat_count"] = count_phrases(visible, CAVEAT_PHRASES, rules)
    out["confidence"] = signal_of("natural", out)
    if rules == "upstream":
        out["refused"] = is_refusal_upstream(visible)
        out["answer"] = labeled_field_upstream(visible, "ANSWER") or (visible.strip()[:500] or None)
        out["parse_success"] = True
        return out
    out["refused"] = is_refusal(visible)
    answers = complete_answers(visible, out["truncated"])
    if answers:
        set_answers(out, answers)
    elif visible.strip() and not out["truncated"]:
        out["answer"] = visible.strip()
    out["parse_success"] = out["answer"] is not None
    return out


# --------------------------------------------------------------------------------------------
# Layer 2 self-report, format-matched control
# --------------------------------------------------------------------------------------------


def parse_layer2(text: str | None, *, reasoning_content: str | None = None, finish_reason: str | None = None,
                 rules: Rules = "strict") -> dict:
    """CONFIDENCE (0-100) + SUB_SKILLS, WEAKEST_SKILL, VERIFY, APPROACH + ANSWER.
    `self_report_confidence` is the stated 0-100 value, `confidence` = it / 100. Upstream clips
    out-of-range values into [0, 100]; strict rejects them (None)."""
    visible, out = base_fields("layer2", text, reasoning_content, finish_reason, rules)
    out.update(self_report_confidence=None, sub_skills=None, weakest_skill=None, verify=None, approach=None)
    refused = is_refusal_upstream(visible) if rules == "upstream" else is_refusal(visible)
    if refused:
        out["refused"] = True
        return out
    if rules == "upstream":
        m = re.search(r"CONFIDENCE\s*:\s*(\d{1,3})", visible, re.IGNORECASE)
        if m:
            out["self_report_confidence"] = float(max(0, min(100, int(m.group(1)))))
        field = lambda label: (re.search(rf"{label}\s*:\s*(.+?)(?:\n|$)", visible, re.IGNORECASE) or [None, None])[1]  # noqa: E731
        skills = field("SUB_SKILLS")
        out["sub_skills"] = skills.strip().strip("[]") if skills else None
        weakest = field("WEAKEST_SKILL")
        out["weakest_skill"] = weakest.strip().strip("[]") if weakest else None
        verify = re.search(r"VERIFY\s*:\s*(\w+)", visible, re.IGNORECASE)
        out["verify"] = ("yes" if verify.group(1).lower() in ("yes", "true", "1", "y") else "no") if verify else None
        approach = field("APPROACH")
        out["answer"] = labeled_field_upstream(visible, "ANSWER")
    else:
        values = [read_percent(v) for v, _ in labeled_fields(visible, "CONFIDENCE")]
        out["self_report_confidence"] = agreed(values)
        out["sub_skills"] = labeled_field(visible, "SUB_SKILLS")
        out["weakest_skill"] = labeled_field(visible, "WEAKEST_SKILL")
        verify_text = labeled_field(visible, "VERIFY")
        lead = normalise_answer(verify_text).split()[:1] if verify_text else []
        out["verify"] = {"yes": "yes", "no": "no", "true": "yes", "false": "no"}.get(lead[0]) if lead else None
        approach = labeled_field(visible, "APPROACH")
        set_answers(out, complete_answers(visible, out["truncated"]))
    if approach:
        raw = approach.strip().strip("[]").lower()
        out["approach"] = next((a for a in APPROACHES if a in raw or a.replace("-", " ") in raw), raw[:50])
    if out["self_report_confidence"] is not None:
        out["confidence"] = signal_of("layer2", out)
    out["parse_success"] = out["self_report_confidence"] is not None and out["answer"] is not None
    return out


def parse_structured_control(
    text: str | None, *, reasoning_content: str | None = None, finish_reason: str | None = None, rules: Rules = "strict"
) -> dict:
    """ANSWER + CONFIDENCE (1-10), the format-matched control without a wager.
    `control_confidence` is the stated value, `confidence` = it / 10."""
    visible, out = base_fields("structured_control", text, reasoning_content, finish_reason, rules)
    out["control_confidence"] = None
    refused = is_refusal_upstream(visible) if rules == "upstream" else is_refusal(visible)
    if refused:
        out["refused"] = True
        return out
    if rules == "upstream":
        out["answer"] = labeled_field_upstream(visible, "ANSWER")
        m = re.search(r"CONFIDENCE\s*:\s*(\d+)", visible, re.IGNORECASE)
        if m and 1 <= int(m.group(1)) <= 10:
            out["control_confidence"] = int(m.group(1))
    else:
        set_answers(out, complete_answers(visible, out["truncated"]))
        values = [v for v, at_end in labeled_fields(visible, "CONFIDENCE") if not (out["truncated"] and at_end)]
        out["control_confidence"] = agreed([read_int(v, 1, 10) for v in values])
    if out["control_confidence"] is not None:
        out["confidence"] = signal_of("structured_control", out)
    out["parse_success"] = out["answer"] is not None and out["control_confidence"] is not None
    return out


# --------------------------------------------------------------------------------------------
# Registry and grading
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Signal:
    """A channel's confidence in [0, 1] from one parsed field: `transform` maps the field's numeric
    value (a text field through `codes`; a list field by its length) and works on whole numpy
    columns too, so scoring recomputes the signal of imported records by the very same rule."""

    field: str
    transform: Callable[[Any], Any]
    description: str
    codes: Mapping[str, float] | None = None
    flag: bool = False  # a true/false field (read as 1.0 / 0.0)

    def raw(self, parsed: Mapping) -> float | None:
        value = parsed.get(self.field)
        if isinstance(value, (list, tuple)):
            value = len(value)
        if self.codes is not None:
            value = self.codes.get(value) if isinstance(value, str) else None
        return None if value is None else float(value)

    def of(self, parsed: Mapping) -> float | None:
        value = self.raw(parsed)
        return None if value is None else float(self.transform(np.float64(value)))


def signal_of(channel_name: str, parsed: Mapping) -> float | None:
    """The registered channel's confidence for a parse (what every parser stores in `confidence`)."""
    return CHANNELS[channel_name].confidence.of(parsed)


@dataclass(frozen=True)
class FollowUp:
    """An optional second turn: `needed(parsed)` after the first parse, `run(parsed)` executes what
    the model asked for, `build(first_messages, first_reply, results)` is the second turn and
    `parse(text, first, results, **kw)` merges its answer into the first parse."""

    needed: Callable[[dict], bool]
    run: Callable[[dict], list]
    build: Callable[..., Messages]
    parse: Callable[..., dict]


@dataclass(frozen=True)
class Reading:
    """A channel read from the whole responses rather than one text (the internal signals):
    `parse(outcomes, question, body=..., rules=...)` gets every response of the trial (their
    samples and token log-probabilities too) and the item; `more(body, outcomes)` asks for one
    further request of the same prompt (its seed moved by the returned offset) or None;
    `extra_if_n_ignored(body)`: how many such requests a trial sends when the endpoint ignores `n`."""

    parse: Callable[..., dict]
    more: Callable[..., int | None] | None = None
    extra_if_n_ignored: Callable[..., int] | None = None


@dataclass(frozen=True)
class Channel:
    """One elicitation channel: its prompt builder `(question) -> messages` (None: parse-only or
    built by a planner, as difficulty selection needs its pair), its parser `(text, **kw) -> fields`
    (which sets `confidence`, the channel's signal in [0, 1]), a description of that signal,
    whether it is one of the behavioural channels MCI and TII correlate, and an optional follow-up."""

    name: str
    build: Callable[..., Messages] | None
    parse: Callable[..., dict]
    confidence: Signal
    behavioural: bool = False
    followup: FollowUp | None = None
    reads: Reading | None = None  # read from the responses themselves (samples, token log-probabilities)

    def prompt(self, *args: Any) -> Messages:
        """Its prompt from its own builder; ValueError for one a planner builds (difficulty selection)."""
        if self.build is None:
            raise ValueError(f"channel {self.name!r} has no prompt builder of its own (its planner builds the prompt)")
        return self.build(*args)


TOOL_FOLLOWUP = FollowUp(needs_followup, run_tools, build_tool_followup, parse_tool_followup)

#: every channel, in the paper's order; `register_channel` adds one (e.g. a new behavioural channel)
CHANNELS: Registry[Channel] = Registry("Exp1 channel")
for _c in (
    Channel("wagering", build_wagering, parse_wagering, Signal("bet", lambda x: x / 10, "bet / 10"), behavioural=True),
    Channel("opt_out", build_opt_out, parse_opt_out, Signal("skipped", lambda x: 1.0 - x, "1 answered, 0 skipped", flag=True),
            behavioural=True),
    Channel("difficulty_selection", build_difficulty_selection, parse_difficulty_selection,
            Signal("choice", lambda x: x, "1 chose the harder task, 0 the easier", codes={"A": 1.0, "B": 0.0}),
            behavioural=True),
    Channel("tool_delegation", build_tool_delegation, parse_tool_delegation,
            Signal("tools_used", lambda x: 1.0 / (1.0 + x), "1 / (1 + tool calls)"), behavioural=True, followup=TOOL_FOLLOWUP),
    Channel("natural", build_natural, parse_natural, Signal("hedging_count", lambda x: 1.0 / (1.0 + x), "1 / (1 + hedging phrases)"),
            behavioural=True),
    Channel("layer2", build_layer2, parse_layer2, Signal("self_report_confidence", lambda x: x / 100, "stated confidence / 100")),
    Channel("structured_control", build_structured_control, parse_structured_control,
            Signal("control_confidence", lambda x: x / 10, "stated confidence / 10")),
):
    CHANNELS.register(_c.name, _c)
del _c


def register_channel(spec: Channel, *, replace: bool = False) -> Channel:
    """Add a channel: Exp1 and Exp2 can run it (`--channels NAME`) and, if behavioural, MCI and TII
    correlate its `confidence` with the others'."""
    return CHANNELS.register(spec.name, spec, replace=replace)


def behavioural_channels() -> tuple[str, ...]:
    """The registered behavioural channels, in registration order (the paper's five first)."""
    return tuple(name for name, c in CHANNELS.items() if c.behavioural)


#: the paper's five behavioural channels (spec §2); `behavioural_channels()` includes registered ones
BEHAVIOURAL_CHANNELS: tuple[str, ...] = behavioural_channels()


def channel(name: str) -> Channel:
    return CHANNELS.get(name)


def parse(name: str, text: str | None, **kwargs: Any) -> dict[str, Any]:
    return channel(name).parse(text, **kwargs)


def grade(
    parsed: dict,
    question: Question,
    matcher: Matcher = "strict",
    *,
    pair: Any = None,
    grade_target: str = "chosen",
) -> dict:
    """`parsed` with `correct` set: True / False, or None (API error, refusal, skip, no answer, or
    a gold that cannot be read). A response giving several different ANSWER values is correct only
    if every one of them is (strict); upstream takes the first.

    Difficulty selection grades the task the model chose (`pair` required) and records
    `chosen_item_id` / `paired_item_id`; `grade_target="current"` reproduces the authors' bug of
    grading the trial's own question whatever was chosen."""
    out = dict(parsed)
    target: Question | None = question
    if parsed.get("channel") == "difficulty_selection":
        if pair is None:
            raise ValueError("difficulty_selection needs the pair to grade")
        other = pair.easy if question.id == pair.hard.id else pair.hard
        out["paired_item_id"] = other.id
        chosen = {"A": pair.hard, "B": pair.easy}.get(str(parsed.get("choice")))
        out["chosen_item_id"] = chosen.id if chosen else None
        if grade_target == "chosen":
            target = chosen
        elif grade_target != "current":
            raise ValueError(f"grade_target must be 'chosen' or 'current', got {grade_target!r}")
    out["correct"] = None
    if parsed.get("api_error") or parsed.get("refused") or parsed.get("skipped") is True or target is None:
        return out
    if parsed.get("channel") == "opt_out" and parsed.get("skipped") is None:
        return out
    answers = [parsed.get("answer")] if matcher == "upstream" else (parsed.get("answer_candidates") or [parsed.get("answer")])
    if not answers or answers[0] is None or not str(answers[0]).strip():
        return out
    verdicts = [
        match(a, target.answer, target.answer_type, target.aliases, target.choices, matcher=matcher) for a in answers
    ]
    if any(v is None for v in verdicts):
        return out
    out["correct"] = all(verdicts)
    return out
