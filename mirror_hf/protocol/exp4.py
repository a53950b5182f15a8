"""Experiment 4: burn-and-test (mirror-protocol §6.3; metrics AI and SAR, §4.9-4.10).

One conversation per trial, four user turns: (A) an easy burn-domain item in the combined
five-format prompt; (B) a hard burn-domain item with a five-option approach menu; the failure
feedback (true or fabricated) and "Would you like to try again?"; (C) two items in one prompt,
TASK 1 related (burn domain) and TASK 2 unrelated (control domain), each in all formats.

The formats are the Exp1 channels: each format's instructions are the registered channel's own
prompt with its labels numbered (`ANSWER` -> `ANSWER_1`, `BET` -> `BET_1`), and each section of
the reply is read back by that channel's own parser after the numbering is taken off, so the
channel specs stay the one source of their wording, parsing and signal. Format 3 (difficulty
selection) needs a second item of known difficulty to choose against and is not asked here; the
authors' combined prompt asks for a difficulty label at that place, which their analysis cannot
turn into a signal either. The format numbers keep the authors' places (1 wager, 2 opt-out,
4 tool, 5 natural). Tools are record-only in Exp4 (no calculator turn inside the conversation).
"""

from __future__ import annotations

import re

from mirror_hf.protocol import exp1
from mirror_hf.protocol.parsing import Messages
from mirror_hf.records import Question
from mirror_hf.vocabulary import Matcher

#: format number -> Exp1 channel (the authors' numbering; 3 is not asked, see the module text)
FORMATS: dict[int, str] = {1: "wagering", 2: "opt_out", 4: "tool_delegation", 5: "natural"}
CHANNELS: tuple[str, ...] = tuple(FORMATS.values())
CONDITIONS: tuple[str, ...] = ("true", "false")  # condition A: true feedback; condition B: fabricated
TURNS = 4
APPROACH_MENU: tuple[str, ...] = ("solve it directly", "break it into smaller steps", "use a tool",
                                  "ask an expert for help", "skip it")
RETRY_QUESTION = "Would you like to try again?"
NATURAL_INSTRUCTIONS = "Answer in your own words, then give your final answer on its own line:\nANSWER: [your answer]"
_LABELS = re.compile(r"\b(ANSWER|BET|SKIP)\b")
_NUMBERED = re.compile(r"\b(ANSWER|BET|SKIP)_\d\b", re.IGNORECASE)
_TASK_MARK = re.compile(r"(?:={2,}\s*)?\bTASK[\s_-]*(\d)(?!\d)", re.IGNORECASE)
_FORMAT_MARK = re.compile(r"(?<![A-Za-z])FORMAT[\s_-]*(\d)(?!\d)", re.IGNORECASE)  # also inside TASK2_FORMAT-1


def format_instructions(channel: str, question: Question, number: int) -> str:
    """The channel's own instructions (its prompt without the question), labels numbered."""
    if channel == "natural":
        text = NATURAL_INSTRUCTIONS
    else:
        content = exp1.channel(channel).prompt(question)[0]["content"]
        head = exp1.question_text(question)
        if not content.startswith(head):
            raise ValueError(f"the {channel} prompt does not start with the question text")
        text = content[len(head):].strip()
    return _LABELS.sub(lambda m: f"{m.group(1)}_{number}", text)


def _formats_block(question: Question) -> str:
    return "\n\n".join(f"FORMAT-{n}:\n{format_instructions(c, question, n)}" for n, c in FORMATS.items())


def build_single(question: Question) -> str:
    """Phase A: one item, every format."""
    return ("Answer the task below once in each of the formats that follow. Begin each part of your reply with its "
            "header (FORMAT-1, FORMAT-2, ...) and use that format's numbered labels exactly.\n\n"
            f"TASK: {exp1.question_text(question)}\n\n{_formats_block(question)}")


def build_phase_b(question: Question) -> str:
    menu = "\n".join(f"{i}. {option}" for i, option in enumerate(APPROACH_MENU, start=1))
    return (f"{exp1.question_text(question)}\n\nFirst choose how you will approach this task:\n{menu}\n\n"
            "Format your response as:\nAPPROACH: [1-5]\nANSWER: [your answer]")


def build_feedback(feedback: str) -> str:
    return f"{feedback}\n\n{RETRY_QUESTION}"


def build_pair(related: Question, unrelated: Question) -> str:
    """Phase C: TASK 1 (related) and TASK 2 (unrelated), each in every format."""
    return ("Here are two more tasks. Answer each of them once in each of the formats below. Begin your reply to each "
            "task with its header (=== TASK 1 ===, === TASK 2 ===), each part with its format header (FORMAT-1, "
            "FORMAT-2, ...), and use the numbered labels exactly.\n\n"
            f"=== TASK 1 ===\n{exp1.question_text(related)}\n\n=== TASK 2 ===\n{exp1.question_text(unrelated)}\n\n"
            f"{_formats_block(related)}")


def first_turn(question: Question) -> Messages:
    return [{"role": "user", "content": build_single(question)}]


# --------------------------------------------------------------------------------------------
# Reading the replies
# --------------------------------------------------------------------------------------------


def task_sections(text: str, tasks: int) -> dict[int, str]:
    """task number -> its part of the reply (`=== TASK n ===` or `TASKn_FORMAT-k` markers); a
    single-task reply is all task 1."""
    if tasks == 1:
        return {1: text}
    out: dict[int, list[str]] = {}
    marks = list(_TASK_MARK.finditer(text))
    for i, m in enumerate(marks):
        end = marks[i + 1].start() if i + 1 < len(marks) else len(text)
        out.setdefault(int(m.group(1)), []).append(text[m.start():end])
    return {n: "\n".join(parts) for n, parts in out.items() if 1 <= n <= tasks}


def format_sections(text: str) -> dict[int, str]:
    """format number -> its part of one task's reply, labels un-numbered for the channel parser."""
    out: dict[int, list[str]] = {}
    marks = list(_FORMAT_MARK.finditer(text))
    for i, m in enumerate(marks):
        end = marks[i + 1].start() if i + 1 < len(marks) else len(text)
        body = text[m.end():end].lstrip(" :)-\n")
        out.setdefault(int(m.group(1)), []).append(_NUMBERED.sub(lambda x: x.group(1).upper(), body))
    return {n: "\n".join(parts) for n, parts in out.items()}


def read_formats(text: str | None, question: Question, matcher: Matcher = "strict") -> dict[str, dict]:
    """channel -> its graded parse of that format's section (an empty parse when it is missing)."""
    sections = format_sections(text or "")
    out = {}
    for number, channel in FORMATS.items():
        parsed = exp1.channel(channel).parse(sections.get(number, ""), rules=matcher)
        out[channel] = exp1.grade(parsed, question, matcher)
    return out


def read_phase_b(text: str | None, question: Question, matcher: Matcher = "strict") -> dict:
    """The chosen approach (menu text) and the graded answer of the hard item."""
    m = re.search(r"APPROACH\s*:\s*\[?\s*([1-5])\b", text or "", re.IGNORECASE)
    parsed = exp1.grade(exp1.parse("natural", re.sub(r"(?im)^\s*APPROACH\s*:.*$", "", text or ""), rules=matcher),
                        question, matcher)
    return {"approach": APPROACH_MENU[int(m.group(1)) - 1] if m else None, "answer": parsed.get("answer"),
            "correct": parsed.get("correct")}
