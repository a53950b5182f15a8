"""The bank's item vocabulary: what a generator returns (`Item`), a domain's generators (`Domain`),
the gate's error, and the text keys the gates and the leak check compare by. A leaf of the bank: the
leak gate and the balancer read it without importing the generation loop (`_core`), which reads them."""

from __future__ import annotations

import functools
import random
import re
import unicodedata
from dataclasses import dataclass, field
from typing import Callable, Iterable

from mirror_hf.errors import MirrorValueError
from mirror_hf.records import CHOICE_LETTERS, DIFFICULTIES

MAX_ATTEMPTS = 60  # redraws allowed per item before the bank gives up on a duplicate-prone generator
QUESTION_CHARS = (20, 2500)
CHOICE_CHARS = (1, 300)


@dataclass(frozen=True)
class Item:
    """What a subcategory generator returns."""

    question: str
    answer: str
    answer_type: str  # exact_numeric / short_text / boolean / multiple_choice
    distractors: tuple[str, ...]  # exactly three plausible wrong answers
    params: dict
    aliases: tuple[str, ...] = ()
    # What the item asks, as keys unique within a form (e.g. "element:29|country:CU" for the link
    # between copper and Cuba, whichever way round it is asked); a form asks each at most once.
    facts: tuple[str, ...] = ()


Generator = Callable[[random.Random, str], Item]


@dataclass
class Subcategory:
    name: str
    generate: Generator
    difficulty: dict[str, str]  # difficulty -> the parameters that make it so, for the card


@dataclass
class Domain:
    """A domain's registry of subcategory generators, filled by the `subcategory` decorator."""

    name: str
    version: str
    description: str = ""
    subcategories: dict[str, Subcategory] = field(default_factory=dict)

    def subcategory(self, name: str, *, difficulty: dict[str, str]) -> Callable[[Generator], Generator]:
        missing = set(DIFFICULTIES) - set(difficulty)
        if missing:
            raise ValueError(f"{self.name}.{name}: difficulty notes missing for {sorted(missing)}")

        def register(fn: Generator) -> Generator:
            if name in self.subcategories:
                raise ValueError(f"{self.name}: subcategory {name!r} registered twice")
            self.subcategories[name] = Subcategory(name, fn, dict(difficulty))
            return fn

        return register

    def generator_tag(self, subcategory: str) -> str:
        return f"{self.name}.{subcategory}@{self.version}"


class GateError(MirrorValueError):
    """A quality gate stopped the build; the message names the item and the reason."""


_PUNCT = re.compile(r"[^\w\s]")
_SPACE = re.compile(r"\s+")
_NEGATIVE = re.compile(r"(?<![\w)])[-\u2212](?=\d)")  # a minus sign before a number, not a hyphen
_MEANINGFUL_SYMBOLS = {
    "\u00ac": " not ", "\u2227": " and ", "\u2228": " or ", "\u2192": " implies ", "\u2194": " iff ",
    "(": " lpar ", ")": " rpar ", "+": " plus ", "*": " times ", "/": " over ", "=": " equals ", "%": " percent ",
}


@functools.lru_cache(maxsize=1 << 17)  # a build asks 432,060 times for 28,751 texts: 2.7 of 25 s CPU
def normalise_text(text: str) -> str:
    """Case-, accent-, punctuation- and spacing-insensitive form used to find duplicate items.

    Symbols that change meaning survive as words ("-5" is not "5", "P ∧ Q" is not "P ∨ Q");
    other punctuation and non-ASCII letters are dropped.
    """
    text = _NEGATIVE.sub(" minus ", text)
    for symbol, word in _MEANINGFUL_SYMBOLS.items():
        text = text.replace(symbol, word)
    text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode()
    return _SPACE.sub(" ", _PUNCT.sub(" ", text.lower())).strip()


_NUMBER_RUN = re.compile(r"\d(?:[\d,.:]*\d)?")  # 7, 1,250.5, 09:15
_PROPER = re.compile(r"\b[A-Z][\w'\u2019-]*")


def scenario_key(question: str) -> str:
    """What an item asks with its particulars masked: the question with every number (times too) and every
    capitalised word (names, places, months, weekdays; sentence starts alike) replaced by a slot,
    then normalised. Items sharing a key are one scenario with different numbers or names, so the
    count of keys per subcategory says how varied its situations are, not how many items it has."""
    return normalise_text(_PROPER.sub(" X ", _NUMBER_RUN.sub(" 0 ", question)))


def scenario_counts(questions) -> dict[str, int]:
    """Distinct scenarios per "domain.subcategory"."""
    keys: dict[str, set[str]] = {}
    for q in questions:
        keys.setdefault(f"{q.domain}.{q.subcategory}", set()).add(scenario_key(q.question))
    return {sub: len(k) for sub, k in keys.items()}


def reads_as_letter(text: str) -> bool:
    """A choice text that is itself a choice letter ("B" for boron, "C" for carbon): a bare "C" answer
    would name either that text or the option labelled C, so no item offers one."""
    return text.strip() in CHOICE_LETTERS


def distinct_errors(answer: str, *groups: Iterable[str]) -> list[str]:
    """The candidates (in order, across groups) that differ from the answer and from each other after
    the bank's text normalisation and never read as a choice letter: the wrong answers an item may
    offer. Generators list the errors people make first, so order is kept."""
    seen = {normalise_text(answer)}
    out: list[str] = []
    for group in groups:
        for candidate in group:
            key = normalise_text(candidate)
            if key and key not in seen and not reads_as_letter(candidate):
                seen.add(key)
                out.append(candidate)
    return out


def item_rng(seed: int, *parts: object) -> random.Random:
    """A private, reproducible random stream per item (string seeds hash with SHA-512 in CPython)."""
    return random.Random("|".join(str(p) for p in (seed, *parts)))
