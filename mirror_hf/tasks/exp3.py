"""Exp3 composite tasks (spec §6.2): two domains chained so the composite needs both skills.

Component A is a producer step of domain a; its computed answer is the input of component B, a
consumer step of domain b. Both components are full Questions with their own gold, and component B
is stated with A's *true* answer as a literal, so single-domain calibration can be measured on
exactly the two steps the composite chains. The composite's gold is B's answer when fed A's answer
(`params["chain"]` records the link).

Per unordered domain pair (28 for the paper's domains) the tasks alternate direction and cover the
difficulty strata easy+easy, medium+medium, hard+hard and one mixed stratum that rotates over the six
mixed combinations from pair to pair.
"""

from __future__ import annotations

from mirror_hf.bank._core import item_rng, normalise_text, reads_as_letter
from mirror_hf.records import canonical_json
from mirror_hf.tasks.chain import VERSION, Ref, chained_choices, consumed_item, produced_item, to_question
from mirror_hf.tasks.consumers import CONSUMERS
from mirror_hf.tasks.pairs import balanced_positions, unordered_pairs
from mirror_hf.tasks.producers import PRODUCERS

DEFAULT_PER_PAIR = 4
GENERATOR = f"tasks.exp3@{VERSION}"
SAME_STRATA = (("easy", "easy"), ("medium", "medium"), ("hard", "hard"))
MIXED_STRATA = (("easy", "medium"), ("medium", "easy"), ("easy", "hard"), ("hard", "easy"), ("medium", "hard"), ("hard", "medium"))
MAX_ATTEMPTS = 50


def stratum(pair_index: int, t: int) -> tuple[str, str]:
    """Difficulty of (component A, component B) for the t-th task of a pair."""
    cycle, slot = divmod(t, 4)
    if slot < 3:
        return SAME_STRATA[slot]
    return MIXED_STRATA[(pair_index + cycle) % len(MIXED_STRATA)]


def composite_text(question_a: str, question_b_with_x: str) -> str:
    return (
        "This task has two steps; the second uses the result of the first.\n"
        f"Step 1: {question_a}\n"
        f"Step 2: Let X be the answer to step 1. {question_b_with_x}\n"
        "Give the answer to step 2."
    )


def composite_tasks(seed: int, domains: list[str], per_pair: int = DEFAULT_PER_PAIR) -> list[dict]:
    """Rows of the `exp3_composite` config (EXP3_TASK_FEATURES)."""
    pairs = unordered_pairs(domains)
    n = len(pairs) * per_pair
    # answer positions balanced separately for component A, component B and the composite
    positions = list(zip(*(balanced_positions(n, item_rng(seed, "exp3", "positions", role)) for role in "abc")))
    rows, seen = [], set()
    for p, pair in enumerate(pairs):
        for t in range(per_pair):
            a, b = pair if (p + t) % 2 == 0 else pair[::-1]
            diff_a, diff_b = stratum(p, t)
            task_id = f"exp3.{a}.{b}.{t:02d}.s{seed}"
            rows.append(_draw_composite(seed, task_id, a, b, diff_a, diff_b, seen, positions[len(rows)]))
    return rows


def _draw_composite(seed, task_id, a, b, diff_a, diff_b, seen, positions) -> dict:
    producer, consumer = PRODUCERS[a], CONSUMERS[b]
    for attempt in range(MAX_ATTEMPTS):
        rng = item_rng(seed, task_id, attempt)
        prod = producer.draw(rng, diff_a)
        params_b = consumer.draw(rng, diff_b)
        text = composite_text(prod.question, consumer.text(params_b, Ref.variable("X")))
        if normalise_text(text) not in seen and not reads_as_letter(consumer.solve(params_b, prod.value)):
            break
    else:
        raise RuntimeError(f"{task_id}: no new composite after {MAX_ATTEMPTS} draws")
    seen.add(normalise_text(text))
    component_a = to_question(
        produced_item(prod, producer), domain=a, subcategory=producer.subcategory, difficulty=diff_a,
        generator=producer.generator, qid=f"{task_id}.a", seed=seed, position=positions[0], rng=rng,
    )
    component_b = to_question(
        consumed_item(consumer, params_b, prod.value, Ref.literal(prod.value)), domain=b,
        subcategory=consumer.subcategory, difficulty=diff_b, generator=consumer.generator, qid=f"{task_id}.b",
        seed=seed, position=positions[1], rng=rng,
    )
    answer, distractors = chained_choices(consumer, params_b, prod)
    choices = list(distractors)
    rng.shuffle(choices)
    choices.insert(positions[2], answer)
    return {
        "task_id": task_id,
        "domain_a": a,
        "domain_b": b,
        "stratum": f"{diff_a}+{diff_b}",
        "task_text": text,
        "answer": answer,
        "answer_type": consumer.answer_type,
        "aliases": list(consumer.aliases(params_b, prod.value)),
        "component_a": component_a.to_row(),
        "component_b": component_b.to_row(),
        "generator": GENERATOR,
        "seed": seed,
        "params": canonical_json({
            "chain": {"from": "component_a.answer", "to": "component_b.params.input",
                      "producer": producer.kind, "consumer": consumer.kind},
            "value": prod.value,
            "attempt": attempt,
        }),
        "choices": choices,
    }
