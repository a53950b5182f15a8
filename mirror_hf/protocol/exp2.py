"""Experiment 2: cross-domain transfer (protocol §6.1).

A transfer task is run through the Exp1 channels as if it were a bank question (its surface domain
as the domain). Channel 3 pairs the task (Task A, "harder") with a placebo copy of itself suffixed
`PLACEBO_SUFFIX` (Task B, "easier"): both have the same gold, so the choice measures only how hard
the model believes the task is. The Layer-2 self-report is read for verbal transfer: do its
SUB_SKILLS mention, and does its WEAKEST_SKILL name, the hidden source domain?
"""

from __future__ import annotations

import re
from dataclasses import replace

from mirror_hf.protocol.pairing import DifficultyPair
from mirror_hf.records import Question

PLACEBO_SUFFIX = "[Simplified: key values provided]"
NATURAL_TEMPERATURE = 0.7  # the authors ran channel 5 of Exp2 at 0.7 (every other call at 0)

#: words that name a domain's skill in a self-report (lower case, matched as whole words or prefixes)
DOMAIN_WORDS: dict[str, tuple[str, ...]] = {
    "arithmetic": ("arithmetic", "math", "calculat", "computation", "compute", "numer", "addition", "subtraction",
                   "multiplication", "division"),
    "spatial": ("spatial", "geometr", "direction", "orientation", "position", "map", "navigation", "distance"),
    "temporal": ("temporal", "time", "date", "calendar", "chronolog", "duration", "schedul"),
    "linguistic": ("linguistic", "language", "grammar", "word", "vocabular", "spelling", "letter", "syllable",
                   "morpholog", "etymolog"),
    "logical": ("logic", "deduct", "reasoning", "syllogism", "inference", "puzzle"),
    "social": ("social", "emotion", "theory of mind", "pragmatic", "sarcasm", "intention", "empath"),
    "factual": ("factual", "fact", "knowledge", "trivia", "recall", "history", "geograph", "science", "chemistry",
                "element", "atomic"),
    "procedural": ("procedur", "step", "algorithm", "instruction", "sequence", "process", "recipe"),
}


def task_question(task: dict) -> Question:
    """The task as the Exp1 channels see it: its text and choices, graded against its gold."""
    return Question(
        id=task["task_id"],
        domain=task["surface_domain"],
        subcategory=task.get("hidden_dependency") or task["source_domain"],
        difficulty=task.get("difficulty") or "",
        question=task["task_text"],
        choices=tuple(task.get("choices") or ()),
        answer=task["answer"],
        answer_type=task["answer_type"],
        aliases=tuple(task.get("aliases") or ()),
        generator=task.get("generator") or "",
        seed=task.get("seed") or 0,
    )


def placebo_pair(task: dict) -> DifficultyPair:
    """Task A = the task, Task B = the same task suffixed with the placebo line (same gold)."""
    hard = task_question(task)
    easy = replace(hard, id=f"{hard.id}:placebo", question=f"{hard.question}\n{PLACEBO_SUFFIX}")
    return DifficultyPair(f"{hard.id}:pair", hard.domain, easy, hard)


def names_domain(text: str | None, domain: str) -> bool | None:
    """Whether a self-report field names `domain`'s skill (None when the field is missing)."""
    if text is None or not str(text).strip():
        return None
    low = str(text).lower()
    return any(re.search(rf"\b{re.escape(word)}", low) for word in DOMAIN_WORDS.get(domain, (domain,)))


def verbal_flags(parsed: dict, source_domain: str) -> dict:
    """The Layer-2 parse's two verbal-transfer flags for the task's hidden source domain."""
    return {
        "source_in_sub_skills": names_domain(parsed.get("sub_skills"), source_domain),
        "source_is_weakest": names_domain(parsed.get("weakest_skill"), source_domain),
    }
