"""Wording a person would write, swept over every item of a built form: the Exp1 questions with
their choices, the Exp2 transfer tasks and the Exp9 parts (fixed and tailored).

Defect classes (issue "readings you can trust", wording):
- plurals the lexicon disagrees with: a word the lexicon does not know that is a known noun plus a
  naive "s" ("dishs" for dishes, "parenthesiss") or a plural with a second one ("knivess");
- mixed tense within a coordinated verb phrase in set_relations ("ordered dessert and order fish");
- the quoted preposition errors ("In the front desk", "in the shelf").

Choices of morphology items are exempt from the plural check: a misspelt plural people write
("citys", "sheeps") is the distractor there on purpose. Capitalised words are names ("the Afars").

The lexicon is lemminflect's, read here directly, not through the generators' helpers. The default
run sweeps the reduced forms the matcher invariant builds (same cache, so the build is shared); the
full default-size form is swept under `slow`.
"""

from __future__ import annotations

import re
from functools import cache

import lemminflect
import pytest
from matcher_sweep import built

# items about word forms, whose choices are misspellings on purpose
WORD_FORMS = {"morphology"}
WRONG_PREPOSITIONS = re.compile(
    r"\bin (?:the |a )(?:front |reception |hotel |check-in )?desk\b"
    r"|\bin (?:the |a )(?:top |bottom |middle |lowest |highest |second |third )?shel(?:f|ves)\b",
    re.IGNORECASE,
)


@cache
def _known(word: str) -> dict:
    return lemminflect.getAllLemmas(word)


def naive_plural(word: str) -> str | None:
    """The lexicon's plural when `word` is a noun with a plural ending it does not take, else None."""
    w = word.lower()
    if len(w) < 4 or not w.endswith("s") or _known(w):
        return None
    stem = w[:-1]
    nouns = _known(stem).get("NOUN", ())
    if not nouns:
        return None
    if stem not in nouns:  # "knivess": the stem is itself a plural of another lemma
        return stem
    right = lemminflect.getInflection(stem, "NNS")
    return right[0] if right and w not in right else None


def plural_defects(text: str) -> list[str]:
    out = []
    for word in re.findall(r"\b[a-z]+\b", text):  # lower case: capitalised words are names
        right = naive_plural(word)
        if right:
            out.append(f"{word!r} (lexicon: {right!r})")
    return out


def _verb_forms(word: str) -> set[str]:
    forms = set()
    for lemma in _known(word.lower()).get("VERB", ()):
        if word.lower() == lemma:
            forms.add("base")
        if word.lower() in lemminflect.getInflection(lemma, "VBD"):
            forms.add("past")
    return forms


def mixed_tense(text: str) -> list[str]:
    """Coordinated verb phrases ("X and Y") whose two head verbs are one past, one base form."""
    out = []
    for clause in re.split(r"[,.;:?!]| but ", text):
        parts = [p.split() for p in clause.split(" and ")]
        heads = []
        for words in parts:
            words = [w for w in words if not w.isdigit()]
            heads.append(words[0] if words else "")
        for a, b in zip(heads, heads[1:]):
            fa, fb = _verb_forms(a), _verb_forms(b)
            if len(fa) == 1 and len(fb) == 1 and fa != fb:
                out.append(f"{a!r} and {b!r} in {clause.strip()!r}")
    return out


def texts(banks: dict):
    """(where, subcategory, is a choice, text) for every text a respondent reads."""
    for q in banks["questions"]:
        yield f"questions {q.id}", q.subcategory, False, q.question
        for t in q.choices:
            yield f"questions {q.id}", q.subcategory, True, t
    for task in banks["exp2_transfer"]:
        yield f"exp2 {task['task_id']}", f"exp2.{task['source_domain']}", False, task["task_text"]
        for t in task["choices"]:
            yield f"exp2 {task['task_id']}", f"exp2.{task['source_domain']}", True, t
    for config in ("exp9_fixed", "exp9_tailored"):
        for task in banks[config]:
            where = f"{config} {task['task_id']}"
            yield where, "exp9", False, task["task_text"]
            for slot, part in (("a", "part1_text"), ("b", "part2_text")):
                # a part is its bank item's question, then its choices as "A) ..." lines: the choices are
                # read as choices of that item's subcategory (a morphology part offers misspelt plurals)
                choices = task[f"choices_{slot}"]
                lines = task[part].split("\n")
                assert [line.split(") ", 1)[1] for line in lines[-len(choices):]] == choices, where
                yield where, "exp9", False, "\n".join(lines[: -len(choices)])
                for t in choices:
                    yield where, task[f"subcategory_{slot}"], True, t


def defects(banks: dict) -> list[str]:
    found = []
    for where, sub, is_choice, text in texts(banks):
        if not (is_choice and sub in WORD_FORMS):
            found += [f"{where}: plural {d}" for d in plural_defects(text)]
        if sub == "set_relations":
            found += [f"{where}: tense {d}" for d in mixed_tense(text)]
        found += [f"{where}: preposition {m.group(0)!r}" for m in WRONG_PREPOSITIONS.finditer(text)]
    return found


def test_checks_on_hand_cases():
    assert naive_plural("dishs") == "dishes" and naive_plural("parenthesiss") == "parentheses"
    assert naive_plural("knivess") == "knives"
    assert naive_plural("dishes") is None and naive_plural("knives") is None and naive_plural("wugs") is None
    assert mixed_tense("Of 40 guests, 12 ordered dessert and order fish.")
    assert not mixed_tense("Of 40 guests, 12 ordered dessert and ordered fish, and 3 did both.")
    assert not mixed_tense("How many guests ordered fish but did not order dessert?")
    assert WRONG_PREPOSITIONS.search("In the front desk drawer") and WRONG_PREPOSITIONS.search("in the top shelf")
    assert not WRONG_PREPOSITIONS.search("at the front desk, on the shelf")
    assert plural_defects("How many different dishs are involved?") and not plural_defects("the Afars and dishes")


def _report(found: list[str]) -> None:
    for line in found[:40]:
        print(line)
    assert not found, f"{len(found)} wording defects, first: {found[:5]}"


def test_wording_on_reduced_forms():
    from test_matcher_invariant import SAMPLE_PER_DOMAIN

    _report(defects(built(0, SAMPLE_PER_DOMAIN)))


@pytest.mark.slow
def test_wording_on_every_item_of_the_default_form():
    _report(defects(built(0)))
