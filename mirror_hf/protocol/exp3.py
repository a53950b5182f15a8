"""Experiment 3: compositional self-prediction (mirror-protocol.md §6.2, §4.8).

As the paper states it, the model is asked — in a fresh context, before it attempts the task — how
confident it is that it will answer a [domain A x domain B] task correctly (0-100). The same is
asked for each component alone, and then the composite task and each component are answered in
their own calls. `target` names what a trial is about: "composite", "component_a", "component_b".

Channels: `self_prediction` (the confidence call), `answer` (the task itself) and, as an option
reproducing the authors' v2 code, `layer2`: confidence and answer in one call with the task visible.
"""

from __future__ import annotations

import re

from mirror_hf.protocol.matching import match
from mirror_hf.protocol.parsing import Messages, agreed, base_fields, complete_answers, read_percent, set_answers, user
from mirror_hf.protocol.text import Rules, is_refusal, is_refusal_upstream, labeled_fields
from mirror_hf.records import CHOICE_LETTERS
from mirror_hf.vocabulary import Matcher

TARGETS: tuple[str, ...] = ("composite", "component_a", "component_b")
CHANNELS: tuple[str, ...] = ("self_prediction", "answer", "layer2")

SELF_PREDICTION_TEMPLATE = (
    "You will be given a task that requires {skills}.\n\n"
    "Task: {task}\n\n"
    "Do not solve the task yet. How confident are you that you will answer this {label} task correctly?\n"
    "Reply with a number from 0 to 100.\n\n"
    "Format:\n"
    "CONFIDENCE: [0-100]"
)
ANSWER_TEMPLATE = "{task}\n\nGive your final answer on its own line as:\nANSWER: [your answer]"
UPSTREAM_LAYER2_TEMPLATE = (
    "You will be given a task that requires both {domain_a} and {domain_b} skills.\n\n"
    "Task: {task}\n\n"
    "Before answering:\n"
    "1. CONFIDENCE: On a scale of 0-100, how confident are you that you'll answer correctly?\n"
    "2. ANSWER: Give your best answer.\n\n"
    "Format:\n"
    "CONFIDENCE: [0-100]\n"
    "ANSWER: [your answer]"
)


def _field(task: dict, target: str) -> dict:
    if target not in TARGETS:
        raise ValueError(f"target must be one of {TARGETS}, got {target!r}")
    if target == "composite":
        return {
            "text": task["task_text"],
            "choices": task.get("choices") or [],
            "answer": task["answer"],
            "answer_type": task["answer_type"],
            "aliases": task.get("aliases") or [],
        }
    component = task[target]
    return {
        "text": component["question"],
        "choices": component.get("choices") or [],
        "answer": component["answer"],
        "answer_type": component["answer_type"],
        "aliases": component.get("aliases") or [],
    }


def _render(item: dict) -> str:
    lines = [item["text"]]
    if item["choices"]:
        lines.append("")
        lines.extend(f"{letter}) {c}" for letter, c in zip(CHOICE_LETTERS, item["choices"]))
    return "\n".join(lines)


def target_domains(task: dict, target: str) -> list[str]:
    if target == "composite":
        return [task["domain_a"], task["domain_b"]]
    return [task["domain_a"] if target == "component_a" else task["domain_b"]]


def build_self_prediction(task: dict, target: str = "composite") -> Messages:
    """The fresh-context confidence question for an `EXP3_TASK_FEATURES` row (before any attempt)."""
    item = _field(task, target)
    domains = target_domains(task, target)
    skills = f"both {domains[0]} and {domains[1]} skills" if len(domains) == 2 else f"{domains[0]} skills"
    label = " x ".join(domains)
    return user(SELF_PREDICTION_TEMPLATE.format(skills=skills, task=_render(item), label=label))


def build_answer(task: dict, target: str = "composite") -> Messages:
    """The task itself (composite or one component), answered in its own call."""
    return user(ANSWER_TEMPLATE.format(task=_render(_field(task, target))))


def build_upstream_layer2(task: dict) -> Messages:
    """The authors' v2 single call: confidence and answer together, task visible."""
    composite = _render(_field(task, "composite"))
    return user(UPSTREAM_LAYER2_TEMPLATE.format(domain_a=task["domain_a"], domain_b=task["domain_b"], task=composite))


def parse_self_prediction(
    text: str | None, *, reasoning_content: str | None = None, finish_reason: str | None = None, rules: Rules = "strict"
) -> dict:
    """CONFIDENCE 0-100 -> `self_report_confidence`, and `confidence` = it / 100."""
    visible, out = base_fields("self_prediction", text, reasoning_content, finish_reason, rules)
    out["self_report_confidence"] = None
    if rules == "upstream":
        m = re.search(r"CONFIDENCE\s*:\s*(\d+)", visible, re.IGNORECASE)
        value = float(min(100, int(m.group(1)))) if m else None
    else:
        if is_refusal(visible):
            out["refused"] = True
            return out
        value = agreed([read_percent(v) for v, end in labeled_fields(visible, "CONFIDENCE") if not (out["truncated"] and end)])
    out["self_report_confidence"] = value
    out["confidence"] = value / 100 if value is not None else None
    out["parse_success"] = value is not None
    return out


def parse_answer(text: str | None, *, reasoning_content: str | None = None, finish_reason: str | None = None,
                 rules: Rules = "strict") -> dict:
    visible, out = base_fields("answer", text, reasoning_content, finish_reason, rules)
    if rules == "upstream":
        out["refused"] = is_refusal_upstream(visible)
        m = re.search(r"ANSWER:\s*(.+?)(?:\n|$)", visible, re.IGNORECASE)
        out["answer"] = m.group(1).strip() if m else (visible[:200] or None)
    else:
        out["refused"] = is_refusal(visible)
        answers = complete_answers(visible, out["truncated"])
        if answers:
            set_answers(out, answers)
        elif visible.strip() and not out["truncated"]:
            out["answer"] = visible.strip()  # the typed matcher finds the answer in it
    out["parse_success"] = out["answer"] is not None
    return out


def parse_upstream_layer2(
    text: str | None, *, reasoning_content: str | None = None, finish_reason: str | None = None, rules: Rules = "strict"
) -> dict:
    """The v2 single call. Upstream rules default a missing confidence to 50 and a missing ANSWER
    line to the first 200 characters, as the authors did; strict leaves both missing (None)."""
    conf = parse_self_prediction(text, reasoning_content=reasoning_content, finish_reason=finish_reason, rules=rules)
    ans = parse_answer(text, reasoning_content=reasoning_content, finish_reason=finish_reason, rules=rules)
    out = {**ans, "channel": "layer2", "self_report_confidence": conf["self_report_confidence"], "confidence": conf["confidence"]}
    if rules == "upstream" and out["confidence"] is None:
        out["confidence"] = 0.5
    out["refused"] = ans["refused"] or conf["refused"]
    out["parse_success"] = conf["self_report_confidence"] is not None and ans["answer"] is not None
    return out


PARSERS = {"self_prediction": parse_self_prediction, "answer": parse_answer, "layer2": parse_upstream_layer2}


def grade(parsed: dict, task: dict, target: str = "composite", matcher: Matcher = "strict") -> dict:
    """`parsed` with `correct` (None for a self-prediction, a refusal or no answer)."""
    out = dict(parsed)
    out["correct"] = None
    if parsed.get("channel") == "self_prediction" or parsed.get("api_error") or parsed.get("refused"):
        return out
    item = _field(task, target)
    answers = [parsed.get("answer")] if matcher == "upstream" else (parsed.get("answer_candidates") or [parsed.get("answer")])
    if not answers or not answers[0]:
        return out
    verdicts = [match(a, item["answer"], item["answer_type"], item["aliases"], item["choices"], matcher=matcher) for a in answers]
    out["correct"] = None if any(v is None for v in verdicts) else all(verdicts)
    return out
