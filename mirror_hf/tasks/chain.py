"""Chain links: the one-number interface that lets any two domains be composed.

A **producer** is a small generator whose gold answer is a whole number (the atomic number of an
element, the minutes between two clock times, the number of letters in an irregular plural). A
**consumer** is a generator that takes such a number as an input (a meeting that lasts that many
minutes, the element with that atomic number). Every producer's values lie in `VALUE_RANGE` and
every consumer accepts any number in it, so every ordered pair of domains composes: the producer of
domain A feeds the consumer of domain B. Exp3 asks the two steps explicitly (and each step alone);
Exp2 hides the producer inside the consumer's story as a noun phrase.

Both kinds compute their gold answers and name their wrong answers from the errors people make,
like the bank's subcategory generators, and become full `Question` records of their domain.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Callable

from mirror_hf.bank._core import Item, to_question  # noqa: F401  (to_question re-exported for the task modules)
from mirror_hf.bank._wording import pick_distractors

VERSION = "1.0.0"
VALUE_RANGE = (2, 99)  # every producer value, and every value a consumer must accept


def in_range(n: int) -> bool:
    return VALUE_RANGE[0] <= n <= VALUE_RANGE[1]


@dataclass(frozen=True)
class Ref:
    """How a consumer's input number appears in its text: a literal ("47"), the composite task's
    variable ("X"), or a noun phrase that names it ("the atomic number of iron")."""

    text: str
    is_phrase: bool = False

    @classmethod
    def literal(cls, n: int) -> "Ref":
        return cls(str(n))

    @classmethod
    def variable(cls, name: str = "X") -> "Ref":
        return cls(name)

    @classmethod
    def phrase(cls, words: str) -> "Ref":
        return cls(words, is_phrase=True)

    def number(self) -> str:
        """The number as a noun phrase: "47", "X", "the atomic number of iron"."""
        return self.text

    def count(self, noun: str) -> str:
        """A quantity: "47 minutes", "X minutes", "a number of minutes equal to the atomic number of iron"."""
        return f"a number of {noun} equal to {self.text}" if self.is_phrase else f"{self.text} {noun}"


@dataclass(frozen=True)
class Produced:
    """One producer draw: the step asked alone, the same number as a noun phrase, and wrong values."""

    question: str
    phrase: str
    value: int
    wrong: tuple[int, ...]
    params: dict


@dataclass(frozen=True)
class Producer:
    domain: str
    subcategory: str
    kind: str  # e.g. "factual.atomic_number": names the generator and its solver
    skill: str  # the hidden dependency, in words (Exp2's `hidden_dependency`)
    draw: Callable[[random.Random, str], Produced]

    @property
    def generator(self) -> str:
        return f"tasks.{self.kind}@{VERSION}"


@dataclass(frozen=True)
class Consumer:
    """`draw` fixes everything but the input; `text`, `solve` and `mistakes` are pure functions of
    (params, input), so the same draw renders the stand-alone step, the chained step and the
    hidden-dependency task, and answers each of them."""

    domain: str
    subcategory: str
    kind: str
    answer_type: str
    draw: Callable[[random.Random, str], dict]
    text: Callable[[dict, Ref], str]
    solve: Callable[[dict, int], str]
    mistakes: Callable[[dict, int], list[str]]
    aliases: Callable[[dict, int], tuple[str, ...]] = field(default=lambda params, n: ())

    @property
    def generator(self) -> str:
        return f"tasks.{self.kind}@{VERSION}"


def wrong_values(value: int, named: list[int], *, step: int = 1) -> tuple[int, ...]:
    """Three distinct wrong values in VALUE_RANGE: the named errors first, then value +- k*step."""
    fallback = [value + sign * k * step for k in range(1, 40) for sign in (1, -1)]
    out: list[int] = []
    for w in [*named, *fallback]:
        if isinstance(w, int) and in_range(w) and w != value and w not in out:
            out.append(w)
            if len(out) == 3:
                return tuple(out)
    raise ValueError(f"no three wrong values in range for {value}")


def produced_item(prod: Produced, producer: Producer) -> Item:
    answer = str(prod.value)
    return Item(
        question=prod.question,
        answer=answer,
        answer_type="exact_numeric",
        distractors=pick_distractors(answer, [str(w) for w in prod.wrong]),
        params={"kind": producer.kind, **prod.params, "value": prod.value},
    )


def consumed_item(consumer: Consumer, params: dict, n: int, ref: Ref) -> Item:
    """The consumer's step with input `n` (shown as `ref`)."""
    answer = consumer.solve(params, n)
    return Item(
        question=consumer.text(params, ref),
        answer=answer,
        answer_type=consumer.answer_type,
        distractors=pick_distractors(answer, consumer.mistakes(params, n), _generic_wrong(consumer, params, n)),
        params={"kind": consumer.kind, **params, "input": n},
        aliases=consumer.aliases(params, n),
    )


def chained_choices(consumer: Consumer, params: dict, prod: Produced) -> tuple[str, tuple[str, str, str]]:
    """Gold and three wrong answers of a chained task. An error in the first step propagates (the
    consumer solved with the producer's wrong values) and is listed first; the consumer's own
    errors with the right input follow."""
    answer = consumer.solve(params, prod.value)
    propagated = [consumer.solve(params, w) for w in prod.wrong]
    own = consumer.mistakes(params, prod.value)
    return answer, pick_distractors(answer, propagated, own, _generic_wrong(consumer, params, prod.value))


def _generic_wrong(consumer: Consumer, params: dict, n: int) -> list[str]:
    """Last-resort wrong answers: the consumer's answer for nearby inputs."""
    return [consumer.solve(params, m) for k in range(1, 12) for m in (n + k, n - k) if in_range(m)]
