"""Small hand-written task banks for runner tests: exp3_composite and exp9_fixed rows in the records'
Features, written with `folder.write_split`, so Exp3/Exp9 plumbing is tested whatever the task-bank
builders currently produce."""

from __future__ import annotations

from pathlib import Path

from mirror_hf.folder import write_split
from mirror_hf.records import DOMAINS, EXP3_TASK_FEATURES, EXP9_TASK_FEATURES


def _question(qid: str, domain: str, text: str, answer: str) -> dict:
    return {
        "id": qid, "domain": domain, "subcategory": f"{domain}_sub", "difficulty": "easy", "question": text,
        "choices": [], "answer": answer, "answer_type": "exact_numeric", "aliases": [], "generator": "test@1",
        "seed": 0, "params": "{}",
    }


def exp3_rows(n: int) -> list[dict]:
    rows = []
    for i in range(n):
        a, b = DOMAINS[i % 8], DOMAINS[(i + 3) % 8]
        rows.append({
            "task_id": f"exp3.t{i:03d}", "domain_a": a, "domain_b": b, "stratum": "easy+easy",
            "task_text": f"Compute {i} + 2, then double it.", "answer": str((i + 2) * 2), "answer_type": "exact_numeric",
            "aliases": [], "component_a": _question(f"qa{i}", a, f"What is {i} + 2?", str(i + 2)),
            "component_b": _question(f"qb{i}", b, f"What is twice {i + 2}?", str((i + 2) * 2)),
            "generator": "test@1", "seed": 0, "params": "{}",
        })
    return rows


def exp9_rows(n: int) -> list[dict]:
    rows = []
    for i in range(n):
        a, b = DOMAINS[i % 8], DOMAINS[(i + 5) % 8]
        rows.append({
            "task_id": f"exp9.t{i:03d}", "task_type": "fixed", "circularity_free": True, "target_model": None,
            "domain_a": a, "domain_b": b, "subcategory_a": f"{a}_sub", "subcategory_b": f"{b}_sub",
            "difficulty_a": "easy", "difficulty_b": "easy", "correct_answer_a": str(i + 1), "correct_answer_b": "42",
            "answer_type_a": "exact_numeric", "answer_type_b": "exact_numeric", "aliases_a": [], "aliases_b": [],
            "task_text": f"A work task number {i}.", "part1_text": f"What is {i} + 1?", "part2_text": "What is 6 * 7?",
            "question_id_a": None, "question_id_b": None, "strength_a": None, "strength_b": None,
            "weak_policy": None, "seed": 0,
        })
    return rows


def add_task_banks(root: Path, n3: int = 8, n9: int = 8) -> None:
    write_split(root, "exp3_composite", "test", exp3_rows(n3), EXP3_TASK_FEATURES)
    write_split(root, "exp9_fixed", "test", exp9_rows(n9), EXP9_TASK_FEATURES)
