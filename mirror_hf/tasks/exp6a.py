"""Our Exp6a tasks (`exp6a_tasks`): bank questions the model answers and then rates its answer to.

Like the authors' base set (10 tasks per domain), 10 per domain, spread round-robin over the
domain's subcategories in a fixed pseudo-random order, asked open (no options) with a request to
show the working. Items whose answer only makes sense among options (typed multiple_choice) are
left out. SSR needs no gold; the bank answer rides along as `ref_answer`.
"""

from __future__ import annotations

import hashlib

from mirror_hf.records import Question

PER_DOMAIN = 10
SUFFIX = "\n\nShow your working, then state your final answer."


def _order(q: Question) -> str:
    return hashlib.sha256(f"exp6a|{q.id}".encode()).hexdigest()


def exp6a_tasks(questions: list[Question], per_domain: int = PER_DOMAIN) -> list[dict]:
    by_domain: dict[str, dict[str, list[Question]]] = {}
    for q in questions:
        if q.answer_type != "multiple_choice":
            by_domain.setdefault(q.domain, {}).setdefault(q.subcategory, []).append(q)
    rows = []
    for domain in sorted(by_domain):
        lanes = [sorted(qs, key=_order) for _, qs in sorted(by_domain[domain].items())]
        picked = [lane[i] for i in range(max(map(len, lanes))) for lane in lanes if i < len(lane)][:per_domain]
        for q in picked:
            rows.append({
                "task_id": f"exp6a.{q.id}",
                "domain": q.domain,
                "task_type": q.subcategory,
                "difficulty": q.difficulty,
                "task": q.question + SUFFIX,
                "ref_answer": q.answer,
                "source_question": q.id,
                "generator": q.generator,
            })
    return rows
