"""Reading the authors' released files and telling what each one is from its content.

Files are JSON Lines (one record a line) or one JSON document (a list of records, or the per-model
CFR table). The kind is decided from the first record's keys, never from the file name; a record
that does not fit the file's kind is reported as unusable by the converter, not guessed at.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from pathlib import Path

from mirror_hf.errors import MirrorValueError


class UpstreamError(MirrorValueError):
    """Bad input: one line naming the file (and line) and what is wrong."""


@dataclass
class SourceFile:
    path: Path
    kind: str
    records: list[dict]
    line_numbers: list[int]  # 1-based line of each record (JSONL) or 0 (one JSON document)
    sha256: str

    @property
    def run_id(self) -> str:
        """Marks every imported trial with the file it came from (name + content hash)."""
        return f"upstream:{self.path.name}:{self.sha256[:12]}"

    def where(self, index: int) -> str:
        line = self.line_numbers[index]
        return f"{self.path}:{line}" if line else f"{self.path} record {index}"


BANK_KINDS = ("questions", "exp9_tasks", "exp3_tasks", "transfer_tasks", "exp6b_flawed", "exp6b_controls", "exp6a_tasks",
              "exp6c_prompts", "exp4_templates")
RESULT_KINDS = ("exp1_results", "exp3_results", "exp9_results", "exp9_cfr")


def classify(record: dict) -> str | None:
    """The kind of one record, by its keys; None if it matches no known kind."""
    if not isinstance(record, dict):
        return None
    keys = set(record)
    if "per_model" in keys and isinstance(record["per_model"], dict):
        return "exp9_cfr"
    if {"question_id", "question_text", "correct_answer", "answer_type", "domain"} <= keys:
        return "questions"
    if {"task_id", "part1_text", "part2_text", "correct_answer_a", "correct_answer_b"} <= keys:
        return "exp9_tasks"
    if {"task_id", "component_a", "component_b", "task_text"} <= keys:
        return "exp3_tasks"
    if {"trial_id", "burn_domain", "control_domain", "phase_b_feedback", "phase_c_related"} <= keys:
        return "exp4_templates"
    if {"id", "category", "flawed_prompt"} <= keys:
        return "exp6b_flawed"
    if {"id", "control_prompt", "matched_flaw_id"} <= keys:
        return "exp6b_controls"
    if {"id", "capability_adversarial", "value_adversarial", "attack_type"} <= keys:
        return "exp6c_prompts"
    if {"id", "domain", "task", "ref_answer"} <= keys:
        return "exp6a_tasks"
    if {"task_id", "source_domain", "surface_domain", "task_text", "correct_answer"} <= keys:
        return "transfer_tasks"
    if {"model", "task_id", "condition"} <= keys and ({"component_a_decision", "component_b_decision"} & keys):
        return "exp9_results"
    if {"model", "task_id", "channel", "answer_correct", "domain_a", "domain_b"} <= keys:
        return "exp3_results"
    if {"model", "question_id", "answer_correct"} <= keys and ({"channel", "channel_name"} & keys):
        return "exp1_results"
    if {"model", "domain", "channel", "answer_correct"} <= keys and "task_id" not in keys:
        return "exp1_results"  # the temperature-ablation rows: no question id, bet as bet_size
    return None


def _parse_lines(path: Path, text: str) -> tuple[list[dict], list[int]]:
    records, lines = [], []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            records.append(json.loads(line))
        except RecursionError:
            raise UpstreamError(f"{path}:{number}: JSON nested too deeply to be a record") from None
        except json.JSONDecodeError as exc:
            raise UpstreamError(f"{path}:{number}: not a valid JSON line ({exc.msg} at column {exc.colno})") from None
        lines.append(number)
    return records, lines


def read_source(path: Path) -> SourceFile:
    """Read one file and detect its kind; UpstreamError (naming file and line) on bad input."""
    path = Path(path)
    if path.is_dir():
        raise UpstreamError(f"{path}: is a folder; pass the files in it (e.g. {path}/*.jsonl)")
    if not path.is_file():
        raise UpstreamError(f"{path}: no such file")
    raw = path.read_bytes()
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise UpstreamError(f"{path}: not UTF-8 text (byte {exc.start})") from None
    stripped = text.lstrip()
    records: list[dict]
    if stripped.startswith("["):
        try:
            document = json.loads(text)
        except json.JSONDecodeError as exc:
            raise UpstreamError(f"{path}:{exc.lineno}: not valid JSON ({exc.msg})") from None
        except RecursionError:
            raise UpstreamError(f"{path}: JSON nested too deeply to be a result or bank file") from None
        records, lines = list(document), [0] * len(document)
    elif stripped.startswith("{") and "\n" in stripped.rstrip() and _is_single_document(text):
        document = json.loads(text)
        records, lines = [document], [0]
    else:
        records, lines = _parse_lines(path, text)
    if not records:
        raise UpstreamError(f"{path}: no records")
    kind = classify(records[0])
    if kind is None:
        first = records[0]
        keys = ", ".join(sorted(first)[:12]) if isinstance(first, dict) else type(first).__name__
        raise UpstreamError(f"{path}:{lines[0] or 1}: unknown format (first record has keys: {keys})")
    return SourceFile(path, kind, records, lines, hashlib.sha256(raw).hexdigest())


def _is_single_document(text: str) -> bool:
    """A pretty-printed JSON object (the CFR table) rather than JSON Lines."""
    try:
        json.loads(text)
    except (json.JSONDecodeError, RecursionError):
        return False
    return True
