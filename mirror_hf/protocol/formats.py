"""Answer format (`run --answer-format`): whether an item is asked with its four choices or open.

`choices` (the default) is the paper's datasheet: every item shows its options. `open` is the
authors' released bank, which has none: an item whose answer can be graded without options is asked
and graded without them (the typed answer is matched against the gold and aliases); an item typed
`multiple_choice` only makes sense among its listed options, so it always shows them. The item as
asked is the item as graded: an open item is graded with no choices, so a bare letter means nothing.
"""

from __future__ import annotations

from dataclasses import replace

from mirror_hf.records import Question
from mirror_hf.vocabulary import ANSWER_FORMATS as ANSWER_FORMATS  # re-exported
from mirror_hf.vocabulary import AnswerFormat

DEFAULT_ANSWER_FORMAT: AnswerFormat = "choices"


def check_answer_format(answer_format: str) -> str:
    if answer_format not in ANSWER_FORMATS:
        raise ValueError(f"answer format must be one of {', '.join(ANSWER_FORMATS)}, got {answer_format!r}")
    return answer_format


def shows_choices(answer_type: str | None, answer_format: str) -> bool:
    """Whether an item of this answer type is asked with its choices under this format."""
    return check_answer_format(answer_format) == "choices" or answer_type == "multiple_choice"


def question_as_asked(question: Question, answer_format: str) -> Question:
    """The Exp1 question as sent and graded."""
    return question if shows_choices(question.answer_type, answer_format) else replace(question, choices=())


def exp3_task_as_asked(task: dict, answer_format: str) -> dict:
    """An `exp3_composite` row as sent and graded: the composite and each component on their own type."""
    out = dict(task)
    if not shows_choices(task["answer_type"], answer_format):
        out["choices"] = []
    for target in ("component_a", "component_b"):
        component = task[target]
        if not shows_choices(component["answer_type"], answer_format):
            out[target] = {**component, "choices": []}
    return out


def exp9_task_as_asked(task: dict, answer_format: str) -> dict:
    """An Exp9 task row as sent and graded: a part asked open loses its inline "A) ..." lines too."""
    out = dict(task)
    for slot, part in (("a", "part1_text"), ("b", "part2_text")):
        if task.get(f"choices_{slot}") and not shows_choices(task.get(f"answer_type_{slot}"), answer_format):
            out[f"choices_{slot}"] = []
            out[part] = task[part].rsplit("\nA) ", 1)[0]
    return out
