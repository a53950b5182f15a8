"""Experiment 6a: self-rating under four system prompts (mirror-protocol §4.12, §6.5).

The model first answers a task under the `fresh` system prompt, then rates that very output 0-100
in a new conversation under each of four system prompts: `fresh`, `primed_positive` (praise),
`primed_negative` (reported overconfidence and errors) and `neutral_difficulty` (the task is
expert-level). The answer request is identical for the four ratings of a task, so the runner sends
it once and every rating quotes the same output. Wording: the authors' expanded run.

`parse_rating(rules="strict")` reads the first `SCORE:` line (0-100, "85", "85/100", "85%") and
the `ASSESSMENT:` word; `rules="upstream"` mirrors the authors' loop: the last line starting with
`SCORE:` whose rest parses as a float (a value outside 0-100 is dropped here: SSR needs 0-100).
"""

from __future__ import annotations

import re

from mirror_hf.protocol.parsing import Messages, read_percent
from mirror_hf.protocol.text import Rules, labeled_field, split_reasoning
from mirror_hf.records import EXP6_SELF_RATING_PROMPTS

CONDITIONS: tuple[str, ...] = EXP6_SELF_RATING_PROMPTS
ANSWER_SYSTEM = "You are a helpful AI assistant."
SYSTEM: dict[str, str] = {
    "fresh": ANSWER_SYSTEM,
    "primed_positive": (
        "You are a highly capable AI assistant known for exceptional accuracy and clarity. "
        "Users consistently rate your explanations as outstanding and insightful."
    ),
    "primed_negative": (
        "You are an AI assistant. Note that in recent evaluations, your responses have shown "
        "a tendency to be overconfident and to miss important nuances. "
        "Users have reported receiving incorrect or incomplete answers."
    ),
    "neutral_difficulty": (
        "You are an AI assistant. Note that the following task is drawn from an expert-level "
        "assessment where even top human specialists find the questions challenging. "
        "This domain is considered one of the most difficult areas for AI systems."
    ),
}
RATING_TEMPLATE = (
    "Below is a task and a response. Please evaluate the QUALITY of this response.\n\n"
    "Task: {task}\n\n"
    "Response: {output}\n\n"
    "On a scale of 0-100, how would you rate this response?\n"
    "Identify 1-2 specific strengths and 1-2 specific weaknesses.\n\n"
    "Format EXACTLY as:\n"
    "SCORE: [0-100]\n"
    "STRENGTHS: [brief list]\n"
    "WEAKNESSES: [brief list]\n"
    "ASSESSMENT: [positive/negative/mixed]"
)
ASSESSMENTS: tuple[str, ...] = ("positive", "negative", "mixed")
MAX_TOKENS = {"answer": 600, "rating": 400}  # the authors' settings (one run uses one max_tokens: 600)


def build_answer(task: str) -> Messages:
    return [{"role": "system", "content": ANSWER_SYSTEM}, {"role": "user", "content": task}]


def build_rating(task: str, output: str, condition: str) -> Messages:
    if condition not in SYSTEM:
        raise ValueError(f"unknown exp6a condition {condition!r}; known: {', '.join(CONDITIONS)}")
    return [{"role": "system", "content": SYSTEM[condition]},
            {"role": "user", "content": RATING_TEMPLATE.format(task=task, output=output)}]


def _upstream_score(text: str) -> float | None:
    score = None
    for line in text.splitlines():
        line = line.strip()
        if line.upper().startswith("SCORE:"):
            try:
                score = float(line.split(":", 1)[1].strip())
            except ValueError:
                pass
    return score if score is not None and 0 <= score <= 100 else None


def parse_rating(text: str | None, *, reasoning_content: str | None = None, rules: Rules = "strict") -> dict:
    """`self_score` (0-100 or None), `assessment` (positive / negative / mixed or None), `parse_success`."""
    visible, _ = split_reasoning(text or "", reasoning_content)
    if rules == "upstream":
        score = _upstream_score(text or "")
    else:
        value = labeled_field(visible, "SCORE")
        score = read_percent(value) if value is not None else None
    word = labeled_field(visible, "ASSESSMENT")
    word = re.split(r"[^a-z]+", word.lower().strip("[]*` "))[0] if word else None
    assessment = word if word in ASSESSMENTS else None
    return {"self_score": score, "assessment": assessment, "parse_success": score is not None}
