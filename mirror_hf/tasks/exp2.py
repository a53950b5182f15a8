"""Exp2 transfer tasks (spec §6.1): framed in a surface domain, silently dependent on another.

The surface domain's consumer step supplies the story and the question; the number it needs is not
given but named by a phrase whose value takes the hidden source domain's skill to work out ("a
meeting lasts a number of minutes equal to the atomic number of iron"). Nothing in the task names the
source domain. The gold is the consumer's answer computed from the producer's value.

Per source domain: `per_source` tasks (25 by default, 200 in all) spread over the seven other
surface domains and balanced over difficulty (the producer and consumer share it).
"""

from __future__ import annotations

from mirror_hf.bank._core import item_rng, normalise_text, reads_as_letter
from mirror_hf.records import DIFFICULTIES, canonical_json
from mirror_hf.tasks.chain import VERSION, Ref, chained_choices
from mirror_hf.tasks.consumers import CONSUMERS
from mirror_hf.tasks.pairs import balanced_positions
from mirror_hf.tasks.producers import PRODUCERS

DEFAULT_PER_SOURCE = 25
GENERATOR = f"tasks.exp2@{VERSION}"
MAX_ATTEMPTS = 50


def transfer_tasks(seed: int, domains: list[str], per_source: int = DEFAULT_PER_SOURCE) -> list[dict]:
    """Rows of the `exp2_transfer` config (EXP2_TASK_FEATURES)."""
    if len(domains) < 2:
        raise ValueError(f"transfer tasks need at least two domains, got {domains}")
    positions = iter(balanced_positions(len(domains) * per_source, item_rng(seed, "exp2", "positions")))
    rows, seen = [], set()
    for s, source in enumerate(domains):
        surfaces = [d for d in domains if d != source]
        for t in range(per_source):
            surface = surfaces[(t + s) % len(surfaces)]
            difficulty = DIFFICULTIES[(t + s) % len(DIFFICULTIES)]
            task_id = f"exp2.{source}.{surface}.{t:02d}.s{seed}"
            rows.append(_draw_transfer(seed, task_id, source, surface, difficulty, seen, next(positions)))
    return rows


def _draw_transfer(seed, task_id, source, surface, difficulty, seen, position) -> dict:
    producer, consumer = PRODUCERS[source], CONSUMERS[surface]
    for attempt in range(MAX_ATTEMPTS):
        rng = item_rng(seed, task_id, attempt)
        prod = producer.draw(rng, difficulty)
        params = consumer.draw(rng, difficulty)
        text = consumer.text(params, Ref.phrase(prod.phrase))
        if normalise_text(text) not in seen and not reads_as_letter(consumer.solve(params, prod.value)):
            break
    else:
        raise RuntimeError(f"{task_id}: no new transfer task after {MAX_ATTEMPTS} draws")
    seen.add(normalise_text(text))
    answer, distractors = chained_choices(consumer, params, prod)
    choices = list(distractors)
    rng.shuffle(choices)
    choices.insert(position, answer)
    return {
        "task_id": task_id,
        "surface_domain": surface,
        "source_domain": source,
        "hidden_dependency": producer.skill,
        "difficulty": difficulty,
        "task_text": text,
        "choices": choices,
        "answer": answer,
        "answer_type": consumer.answer_type,
        "aliases": list(consumer.aliases(params, prod.value)),
        "generator": GENERATOR,
        "seed": seed,
        "params": canonical_json({
            "source": {"kind": producer.kind, "subcategory": producer.subcategory, **prod.params, "value": prod.value,
                       "phrase": prod.phrase},
            "surface": {"kind": consumer.kind, "subcategory": consumer.subcategory, **params, "input": prod.value},
            "attempt": attempt,
        }),
    }
