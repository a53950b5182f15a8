"""The authors' question and task banks -> our bank records (`upstream_*` configs).

Rows keep the authors' content; what changes is made explicit and counted:
- question ids: the bank reuses `question_id` across variants (528 ids for 5,000 rows). The first row
  in file order keeps the id (that is the row the authors' runs used), later rows get `<id>.v<k>`;
- gold answers of mixed type (str / int / float) become text;
- Exp3 v2 `answer_type` / `correct_answer` values polluted with "... DOMAIN_A_SKILL: ..." text are cut
  back to the value;
- nothing is invented: no choices, no difficulty where the authors have none, no seeds.
"""

from __future__ import annotations

import re
from collections import Counter

from mirror_hf.records import canonical_json
from mirror_hf.upstream.read import SourceFile
from mirror_hf.upstream.report import CleanReport

GENERATOR = "upstream-v40"  # the authors' release snapshot (commit 8ea87be)
_POLLUTION = re.compile(r"\s+(?:ANSWER_TYPE|DOMAIN_A_SKILL|DOMAIN_B_SKILL)\s*:.*$", re.DOTALL)
ANSWER_TYPES = ("short_text", "exact_numeric", "multiple_choice", "boolean")


def text_value(value, what: str, report: CleanReport) -> str | None:
    """Text form of a gold answer; non-text values are coerced and counted."""
    if value is None or isinstance(value, str):
        return value
    report.coerced[f"{what} {type(value).__name__} -> str"] += 1
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def clean_gold(value: str | None, what: str, report: CleanReport) -> str | None:
    if value is None:
        return None
    cleaned = _POLLUTION.sub("", value).strip()
    if cleaned != value.strip():
        report.coerced[f"{what}: trailing skill/type text removed"] += 1
    return cleaned


def clean_answer_type(value: str | None, what: str, report: CleanReport) -> str | None:
    if value is None:
        return None
    head = value.strip().split()[0] if value.strip() else value
    if head != value:
        report.coerced[f"{what}: polluted answer_type cut to {head!r}"] += 1
    return head


def _required(row: dict, fields: tuple[str, ...], report: CleanReport) -> bool:
    missing = [f for f in fields if row.get(f) in (None, "")]
    if missing:
        report.unusable[f"missing {', '.join(missing)}"] += 1
        return False
    return True


def questions_rows(source: SourceFile, report: CleanReport) -> list[dict]:
    """`data/questions.jsonl` -> QUESTION_FEATURES rows."""
    rows, seen = [], Counter()
    texts: dict[str, set[str]] = {}
    for raw in source.records:
        if not _required(raw, ("question_id", "question_text", "correct_answer", "domain"), report):
            continue
        qid = str(raw["question_id"])
        seen[qid] += 1
        minted = qid if seen[qid] == 1 else f"{qid}.v{seen[qid] - 1}"
        answer = text_value(raw["correct_answer"], "correct_answer", report)
        metadata = raw.get("metadata") or {}
        rows.append(
            {
                "id": minted,
                "domain": raw["domain"],
                "subcategory": raw.get("subcategory"),
                "difficulty": raw.get("difficulty"),
                "question": raw["question_text"],
                "choices": [],
                "answer": answer,
                "answer_type": raw.get("answer_type"),
                "aliases": [str(a) for a in metadata.get("aliases") or []],
                "generator": GENERATOR,
                "seed": None,
                "params": canonical_json(
                    {
                        "question_id": qid,
                        "source_id": raw.get("source_id"),
                        "transformation": raw.get("transformation"),
                        "parent_id": raw.get("parent_id"),
                        "seed_tier": raw.get("seed_tier"),
                        "source": raw.get("source"),
                        "metadata": metadata,
                    }
                ),
            }
        )
        texts.setdefault(" ".join(raw["question_text"].lower().split()), set()).add(str(answer).strip().lower())
    reused = sum(n - 1 for n in seen.values() if n > 1)
    if reused:
        report.coerced["question_id reused by variants -> later rows get <id>.v<k>"] += reused
    conflicting = sum(1 for golds in texts.values() if len(golds) > 1)
    if conflicting:
        report.notes.append(f"{conflicting} groups of identical question text carry different gold answers (kept as is)")
    if all(r["difficulty"] is None for r in rows):
        report.notes.append("no difficulty labels: difficulty selection (channel 3) cannot pair these questions")
    return rows


def exp9_task_rows(source: SourceFile, report: CleanReport) -> list[dict]:
    """`data/exp9_tasks.jsonl` -> EXP9_TASK_FEATURES rows. Tailored tasks are A = strong, B = weak by
    construction; fixed tasks get their strengths from each model's profile at scoring time."""
    rows, contents = [], {"fixed": set(), "tailored": set()}
    for raw in source.records:
        if not _required(raw, ("task_id", "domain_a", "domain_b", "part1_text", "part2_text"), report):
            continue
        tailored = raw.get("task_type") == "tailored"
        rows.append(
            {
                "task_id": raw["task_id"],
                "task_type": raw.get("task_type"),
                "circularity_free": raw.get("circularity_free"),
                "target_model": raw.get("target_model"),
                "domain_a": raw["domain_a"],
                "domain_b": raw["domain_b"],
                "subcategory_a": raw.get("subcategory_a"),
                "subcategory_b": raw.get("subcategory_b"),
                "difficulty_a": raw.get("difficulty_a"),
                "difficulty_b": raw.get("difficulty_b"),
                "correct_answer_a": text_value(raw.get("correct_answer_a"), "correct_answer_a", report),
                "correct_answer_b": text_value(raw.get("correct_answer_b"), "correct_answer_b", report),
                "answer_type_a": raw.get("answer_type_a"),
                "answer_type_b": raw.get("answer_type_b"),
                "aliases_a": [],
                "aliases_b": [],
                "task_text": raw.get("task_text"),
                "part1_text": raw["part1_text"],
                "part2_text": raw["part2_text"],
                "question_id_a": None,
                "question_id_b": None,
                "strength_a": "strong" if tailored else None,
                "strength_b": "weak" if tailored else None,
                "weak_policy": "upstream_tailored" if tailored else None,
                "seed": None,
            }
        )
        if raw.get("task_type") in contents:
            contents[raw["task_type"]].add((raw.get("task_text"), raw["part1_text"], raw["part2_text"]))
    for kind, distinct in contents.items():
        n = sum(1 for r in rows if r["task_type"] == kind)
        if n and len(distinct) < n:
            report.notes.append(f"{kind}: {n} tasks but only {len(distinct)} distinct contents (kept; report both n)")
    return rows


def _component(task_id: str, slot: str, raw: dict, report: CleanReport) -> dict:
    answer = clean_gold(text_value(raw.get("correct_answer"), f"component_{slot}.correct_answer", report), f"component_{slot}.correct_answer", report)
    return {
        "id": f"{task_id}.{slot}",
        "domain": raw.get("domain"),
        "subcategory": None,
        "difficulty": raw.get("difficulty"),
        "question": raw.get("text"),
        "choices": [],
        "answer": answer,
        "answer_type": clean_answer_type(raw.get("answer_type"), f"component_{slot}.answer_type", report),
        "aliases": [],
        "generator": GENERATOR,
        "seed": None,
        "params": "{}",
    }


def exp3_task_rows(source: SourceFile, report: CleanReport) -> list[dict]:
    """`data/exp3/intersection_tasks_v2.jsonl` -> EXP3_TASK_FEATURES rows (composite answer = component
    A's, as the authors graded; in v2 both components carry the same text and gold)."""
    rows = []
    for raw in source.records:
        if not _required(raw, ("task_id", "domain_a", "domain_b", "task_text"), report):
            continue
        if not isinstance(raw.get("component_a"), dict) or not isinstance(raw.get("component_b"), dict):
            report.unusable["component_a/component_b not objects"] += 1
            continue
        a = _component(raw["task_id"], "a", raw["component_a"], report)
        b = _component(raw["task_id"], "b", raw["component_b"], report)
        params = {k: raw.get(k) for k in ("tier", "scenario", "requires_both", "verified_answer_correct", "verified_requires_both", "domain_a_skill", "domain_b_skill") if k in raw}
        rows.append(
            {
                "task_id": raw["task_id"],
                "domain_a": raw["domain_a"],
                "domain_b": raw["domain_b"],
                "stratum": None,
                "task_text": raw["task_text"],
                "answer": a["answer"],
                "answer_type": a["answer_type"],
                "aliases": [],
                "component_a": a,
                "component_b": b,
                "generator": GENERATOR,
                "seed": None,
                "params": canonical_json(params),
            }
        )
    unverified = sum(1 for raw in source.records if raw.get("verified_answer_correct") is False)
    if unverified:
        report.notes.append(f"{unverified} tasks have verified_answer_correct = false in the authors' own check (kept; see params)")
    return rows


def transfer_task_rows(source: SourceFile, report: CleanReport) -> list[dict]:
    """`data/transfer_tasks.jsonl` -> EXP2_TASK_FEATURES rows (graded as short text, as the authors did)."""
    rows = []
    for raw in source.records:
        if not _required(raw, ("task_id", "source_domain", "task_text", "correct_answer"), report):
            continue
        params = {k: raw.get(k) for k in ("requires_from_source", "is_adversarial_disguise", "generated_by") if k in raw}
        rows.append(
            {
                "task_id": raw["task_id"],
                "surface_domain": raw.get("surface_domain"),
                "source_domain": raw["source_domain"],
                "hidden_dependency": raw.get("hidden_dependency"),
                "difficulty": raw.get("difficulty"),
                "task_text": raw["task_text"],
                "choices": [],
                "answer": text_value(raw["correct_answer"], "correct_answer", report),
                "answer_type": "short_text",
                "aliases": [],
                "generator": GENERATOR,
                "seed": None,
                "params": canonical_json(params),
            }
        )
    return rows


def exp6b_rows(source: SourceFile, report: CleanReport) -> list[dict]:
    """`data/exp6/6b_flawed*.json` or `6b_controls*.json` -> EXP6B_TASK_FEATURES rows."""
    flawed = source.kind == "exp6b_flawed"
    field = "flawed_prompt" if flawed else "control_prompt"
    rows = []
    for raw in source.records:
        if not _required(raw, ("id", field) if flawed else ("id", field, "matched_flaw_id"), report):
            continue
        rows.append(
            {
                "task_id": str(raw["id"]),
                "is_flawed": flawed,
                "category": raw.get("category"),
                "domain": raw.get("domain"),
                "prompt": raw[field],
                "specific_flaw": raw.get("specific_flaw"),
                "expected_behavior": raw.get("expected_fdr_behavior"),
                "matched_flaw_id": str(raw["id"]) if flawed else str(raw["matched_flaw_id"]),
                "generator": GENERATOR,
            }
        )
    return rows


def exp6a_rows(source: SourceFile, report: CleanReport) -> list[dict]:
    """`data/exp6/6a_scenarios*.json` -> EXP6A_TASK_FEATURES rows."""
    rows = []
    for raw in source.records:
        if not _required(raw, ("id", "task"), report):
            continue
        rows.append({
            "task_id": str(raw["id"]), "domain": raw.get("domain"), "task_type": raw.get("task_type"),
            "difficulty": raw.get("difficulty"), "task": raw["task"], "ref_answer": raw.get("ref_answer") or None,
            "source_question": None, "generator": GENERATOR,
        })
    return rows


def exp6c_rows(source: SourceFile, report: CleanReport) -> list[dict]:
    """`data/exp6/6c_prompts*.json` -> EXP6C_PROMPT_FEATURES rows."""
    rows = []
    for raw in source.records:
        if not _required(raw, ("id", "capability_adversarial", "value_adversarial"), report):
            continue
        rows.append({
            "prompt_id": str(raw["id"]), "attack_type": raw.get("attack_type"), "domain": raw.get("domain"),
            "capability_adversarial": raw["capability_adversarial"], "value_adversarial": raw["value_adversarial"],
            "expected_capability_robust_response": raw.get("expected_capability_robust_response"),
            "expected_value_robust_response": raw.get("expected_value_robust_response"),
            "generator": GENERATOR,
            "question_id": None, "answer": None, "answer_type": None, "aliases": [],  # the authors' pairs carry no gold
        })
    return rows


def _exp4_phase(trial_id: str, phase: str, raw, report: CleanReport) -> str | None:
    """One phase task of an Exp4 template as Question-row JSON (no choices: the authors have none)."""
    if not isinstance(raw, dict) or not raw.get("task_text") or raw.get("correct_answer") in (None, ""):
        return None
    from mirror_hf.records import Question

    q = Question(id=f"{trial_id}.{phase}", domain=raw.get("domain"), subcategory="", difficulty=raw.get("difficulty"),
                 question=raw["task_text"], choices=(), answer=text_value(raw["correct_answer"], f"exp4 {phase}", report),
                 answer_type="short_text", aliases=(), generator=GENERATOR, seed=0)
    return canonical_json(q.to_row())


def exp4_template_rows(source: SourceFile, report: CleanReport) -> list[dict]:
    """`data/exp4/templates_v2.jsonl` -> EXP4_TEMPLATE_FEATURES rows (`upstream_exp4`)."""
    from mirror_hf.tasks.exp4 import PHASES

    rows = []
    for raw in source.records:
        if not _required(raw, ("trial_id", "burn_domain", "control_domain", "phase_b_feedback", "phase_b_false_feedback"),
                         report):
            continue
        phases = {p: _exp4_phase(str(raw["trial_id"]), p, raw.get(p), report) for p in PHASES}
        if None in phases.values():
            report.unusable["exp4 template with a phase lacking task_text or correct_answer"] += 1
            continue
        rows.append({"trial_id": str(raw["trial_id"]), "burn_domain": raw["burn_domain"],
                     "control_domain": raw["control_domain"], **phases,
                     "phase_b_feedback": raw["phase_b_feedback"], "phase_b_false_feedback": raw["phase_b_false_feedback"],
                     "feedback_basis": "upstream", "generator": GENERATOR, "seed": None})
    return rows


BANKS = {
    "exp4_templates": ("upstream_exp4", exp4_template_rows),
    "questions": ("upstream_questions", questions_rows),
    "exp9_tasks": ("upstream_exp9_tasks", exp9_task_rows),
    "exp3_tasks": ("upstream_exp3_tasks", exp3_task_rows),
    "transfer_tasks": ("upstream_transfer_tasks", transfer_task_rows),
    "exp6b_flawed": ("upstream_exp6b", exp6b_rows),  # flawed and control files share the config
    "exp6b_controls": ("upstream_exp6b", exp6b_rows),
    "exp6a_tasks": ("upstream_exp6a", exp6a_rows),
    "exp6c_prompts": ("upstream_exp6c", exp6c_rows),
}
