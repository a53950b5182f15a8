"""Exp9 two-part work tasks (spec §5.1): fixed (the same for every model) and tailored (one model's
strong domain in slot A, a weak one in slot B).

Each part is a fresh item drawn from the question bank's own subcategory generators, under its own
id and random stream, never one of the Exp1 items: a model's Exp1 profile is measured on the bank,
and the Exp9 parts must be new items of the same domains, or the profile would already have seen
them. No part text repeats within a config or equals a bank question of the same build (a draw that
would is redrawn), so the tasks are fixed per form: the same version, seed and bank scale give the
same tasks for every model.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from mirror_hf.bank import load_domain
from mirror_hf.bank._core import MAX_ATTEMPTS, GateError, check_item, item_rng, normalise_text
from mirror_hf.records import CHOICE_LETTERS, DIFFICULTIES, Question, canonical_json
from mirror_hf.tasks.pairs import balanced_positions, pair_counts
from mirror_hf.tasks.scenarios import work_request

DEFAULT_FIXED = 297
DEFAULT_TAILORED = 300


@dataclass
class PartDrawer:
    """Draws fresh bank items for task parts: per domain it cycles through every (subcategory,
    difficulty) cell, and it refuses any text already used or listed in `avoid`."""

    seed: int
    namespace: str  # "exp9f" or "exp9t.<model>": keeps ids and random streams apart
    avoid: set[str] = field(default_factory=set)
    _used: Counter = field(default_factory=Counter)

    def draw(self, domain_name: str, position: int) -> Question:
        domain = load_domain(domain_name)
        subs = list(domain.subcategories)
        k = self._used[domain_name]
        self._used[domain_name] += 1
        sub, difficulty = subs[k % len(subs)], DIFFICULTIES[k % len(DIFFICULTIES)]
        qid = f"{self.namespace}.{domain_name}.{sub}.{difficulty}.{k:03d}.s{self.seed}"
        for attempt in range(MAX_ATTEMPTS):
            rng = item_rng(self.seed, self.namespace, domain_name, k, attempt)
            item = domain.subcategories[sub].generate(rng, difficulty)
            check_item(item, qid)
            key = normalise_text(item.question)
            if key not in self.avoid:
                break
        else:
            raise GateError(f"{qid}: no new question text after {MAX_ATTEMPTS} draws")
        self.avoid.add(key)
        distractors = list(item.distractors)
        rng.shuffle(distractors)
        distractors.insert(position, item.answer)
        return Question(
            id=qid, domain=domain_name, subcategory=sub, difficulty=difficulty, question=item.question,
            choices=tuple(distractors), answer=item.answer, answer_type=item.answer_type,
            aliases=tuple(item.aliases), generator=domain.generator_tag(sub), seed=self.seed, params=item.params,
        )


def part_text(q: Question) -> str:
    """The part as the model sees it: the question, then its options as "A) ..." lines."""
    options = "\n".join(f"{letter}) {choice}" for letter, choice in zip(CHOICE_LETTERS, q.choices))
    return f"{q.question}\n{options}"


def task_row(task_id: str, scenario: str, qa: Question, qb: Question, *, seed: int, task_type: str,
             target_model: str | None = None, strengths: tuple[str | None, str | None] = (None, None),
             weak_policy: str | None = None) -> dict:
    """One EXP9_TASK_FEATURES row from the two parts."""
    row = {
        "task_id": task_id,
        "task_type": task_type,
        "circularity_free": task_type == "fixed",
        "target_model": target_model,
        "task_text": scenario,
        "part1_text": part_text(qa),
        "part2_text": part_text(qb),
        "strength_a": strengths[0],
        "strength_b": strengths[1],
        "weak_policy": weak_policy,
        "seed": seed,
    }
    for slot, q in (("a", qa), ("b", qb)):
        row |= {
            f"domain_{slot}": q.domain,
            f"subcategory_{slot}": q.subcategory,
            f"difficulty_{slot}": q.difficulty,
            f"correct_answer_{slot}": q.answer,
            f"answer_type_{slot}": q.answer_type,
            f"aliases_{slot}": list(q.aliases),
            f"question_id_{slot}": q.id,
            f"choices_{slot}": list(q.choices),
            f"generator_{slot}": q.generator,
            f"params_{slot}": canonical_json(q.params),
        }
    return row


def _slot_positions(total: int, seed: int, namespace: str) -> list[tuple[int, int]]:
    """Answer positions for (part 1, part 2) of each task, balanced within each slot."""
    return list(zip(*(balanced_positions(total, item_rng(seed, namespace, "positions", slot)) for slot in "ab")))


def fixed_tasks(seed: int, domains: list[str], total: int = DEFAULT_FIXED, avoid: set[str] | None = None) -> list[dict]:
    """Rows of `exp9_fixed`: every unordered pair with near-equal counts (at most one apart), the
    two orders alternating within each pair, every part a distinct fresh item."""
    counts = pair_counts(total, domains)
    drawer = PartDrawer(seed, "exp9f", set(avoid or ()))
    positions = _slot_positions(total, seed, "exp9f")
    rows = []
    for p, (pair, count) in enumerate(counts.items()):
        for t in range(count):
            a, b = pair if (p + t) % 2 == 0 else pair[::-1]
            task_id = f"exp9.fixed.{a}.{b}.{t:02d}.s{seed}"
            pos_a, pos_b = positions[len(rows)]
            qa, qb = drawer.draw(a, pos_a), drawer.draw(b, pos_b)
            scenario = work_request(item_rng(seed, task_id, "scenario"), a, b)
            rows.append(task_row(task_id, scenario, qa, qb, seed=seed, task_type="fixed"))
    return rows


def tailored_tasks(model: str, split: str, labels: dict[str, str], weak_policy: str, *, seed: int,
                   total: int = DEFAULT_TAILORED, avoid: set[str] | None = None) -> list[dict]:
    """Rows of `exp9_tailored` for one model: slot A a strong domain, slot B a weak one, spread
    evenly over every (strong, weak) combination the profile's labels allow."""
    strong = [d for d, s in labels.items() if s == "strong"]
    weak = [d for d, s in labels.items() if s == "weak"]
    if not strong or not weak:
        raise ValueError(
            f"the profile of {model!r} has {len(strong)} strong and {len(weak)} weak domain(s) under {weak_policy}; "
            "tailored tasks need at least one of each"
        )
    combos = [(s, w) for s in strong for w in weak]
    base, extra = divmod(total, len(combos))
    namespace = f"exp9t.{split}"
    drawer = PartDrawer(seed, namespace, set(avoid or ()))
    positions = _slot_positions(total, seed, namespace)
    rows = []
    for c, (a, b) in enumerate(combos):
        for t in range(base + (1 if c < extra else 0)):
            task_id = f"exp9.tailored.{split}.{a}.{b}.{t:02d}.s{seed}"
            pos_a, pos_b = positions[len(rows)]
            qa, qb = drawer.draw(a, pos_a), drawer.draw(b, pos_b)
            scenario = work_request(item_rng(seed, task_id, "scenario"), a, b)
            rows.append(task_row(task_id, scenario, qa, qb, seed=seed, task_type="tailored", target_model=model,
                                 strengths=("strong", "weak"), weak_policy=weak_policy))
    return rows
