"""Both answer formats well-posed: asked open (`run --answer-format open`), an item that is not
typed multiple_choice is shown without its options, so its prompt must not lean on them ("which of
these", "all four of these", "the options below"); and an open item with several right answers
carries every one of them as an alias (an official language of Belgium is Dutch, French or German).

The check reads the prompt exactly as the runner sends it (protocol.formats + exp1.question_text),
for every item of three parallel forms.
"""

from __future__ import annotations

import random
import re

import pytest

from mirror_hf.protocol import exp1
from mirror_hf.protocol.formats import question_as_asked

SEEDS = (0, 1, 2)

# wording that points at a list of answers to choose from
_OPTION_WORDS = re.compile(
    r"\b(which|who|whose|what)\b[^.?!\n]{0,40}?\bof (these|those|the following)\b"
    r"|\ball (four|three) of (these|them)\b"
    r"|\b(the|these|those) (options|choices|alternatives|answers)\b"
    r"|\b(listed|given|shown) (below|above)\b(?! the)"
    r"|\bnone of (these|the above)\b"
    r"|\bthe (answers?|choices?|options?) (below|above)\b",
    re.I,
)
_SHOWN_LIST = re.compile(r"\n\s*(-|\d+[.)])\s+\S")  # a list the prompt itself shows (the people at the party)


def refers_to_options_it_does_not_show(text: str) -> str | None:
    """The phrase that refers to options, unless the prompt shows the list it refers to."""
    m = _OPTION_WORDS.search(text)
    if not m:
        return None
    if re.search(r"(these|those|the following|them)\b", m.group(0), re.I) and _SHOWN_LIST.search(text[: m.start()]):
        return None
    return m.group(0)


def test_the_check_on_hand_cases():
    assert refers_to_options_it_does_not_show("Which of these is the noun formed from 'govern'?")
    assert refers_to_options_it_does_not_show("ISO 3166 withdrew the codes of all four of these. Whose was first?")
    assert refers_to_options_it_does_not_show("According to CLDR, which of the following is an official language of Italy?")
    assert not refers_to_options_it_does_not_show("Repeat the following 4 times: add 3 to v. What is v?")
    assert not refers_to_options_it_does_not_show("How much time passes between 8:05 PM and the following 7:00 AM?")
    assert not refers_to_options_it_does_not_show(
        "Four people did the following.\n- Kai sang.\n- Ben ate.\n\nOnly one of these people did wrong. Who?")
    assert refers_to_options_it_does_not_show("Which of the options below is right?")


def test_open_prompt_of_every_item_never_refers_to_options_it_does_not_show(three_forms):
    bad = []
    n_open = 0
    for seed in SEEDS:
        for q in three_forms[seed]:
            asked = question_as_asked(q, "open")
            if asked.choices:
                continue
            n_open += 1
            phrase = refers_to_options_it_does_not_show(exp1.question_text(asked))
            if phrase:
                bad.append((q.id, phrase))
    assert n_open > 3 * 2500, n_open
    assert not bad, f"{len(bad)} open prompts refer to options they do not show, e.g. {bad[:8]}"


# Countries with several national official languages, typed from their constitutions and language
# laws (not read from CLDR or the generator): asked open, each of them must grade right.
OFFICIAL_LANGUAGES = {
    "TL": ("Tetum", "Portuguese"),
    "BE": ("Dutch", "French", "German"),
    "CH": ("German", "French", "Italian", "Romansh"),
    "CA": ("English", "French"),
    "FI": ("Finnish", "Swedish"),
    "IE": ("Irish", "English"),
    "LU": ("Luxembourgish", "French", "German"),
    "MT": ("Maltese", "English"),
    "CY": ("Greek", "Turkish"),
    "SG": ("English", "Malay", "Tamil"),
    "LK": ("Sinhala", "Tamil"),
    "PY": ("Spanish", "Guarani"),
    "KE": ("Swahili", "English"),
    "TZ": ("Swahili", "English"),
    "CM": ("French", "English"),
    "BY": ("Belarusian", "Russian"),
    "KG": ("Kyrgyz", "Russian"),
    "MG": ("Malagasy", "French"),
    "WS": ("Samoan", "English"),
    "VU": ("Bislama", "English", "French"),
    "IN": ("Hindi", "English"),
    "PK": ("Urdu", "English"),
}
# official in none of the countries above
NOT_OFFICIAL_THERE = ("Japanese", "Icelandic")


def _official_items(code: str) -> list:
    """The culture bank's official-language item of `code`, once with each language it can key as gold."""
    from mirror_hf.bank.factual import _official, countries, official_language_item
    from mirror_hf.records import Question

    tier = countries()[code]["tier"]
    out = []
    for lang in _official(code):
        item = official_language_item(random.Random(f"{code}/{lang}"), code, lang)
        out.append(Question(id=f"t.{code}.{lang}", domain="factual", subcategory="culture", difficulty=tier,
                            question=item.question, choices=(item.answer, *item.distractors), answer=item.answer,
                            answer_type=item.answer_type, aliases=item.aliases, generator="t", seed=0))
    return out


def test_official_language_list_covers_enough_countries():
    assert len(OFFICIAL_LANGUAGES) >= 12 and all(len(v) >= 2 for v in OFFICIAL_LANGUAGES.values())


@pytest.mark.parametrize("code", sorted(OFFICIAL_LANGUAGES))
def test_every_official_language_grades_right_open(code):
    """Asked open, whichever official language the item keys as gold, every official language of the
    country (this file's list) grades right with the package's grader, and none is offered as a
    distractor when asked with choices; a language official in none of them grades wrong."""
    items = _official_items(code)
    assert items, f"{code}: the bank has no official-language item for it"
    for q in items:
        asked = question_as_asked(q, "open")
        assert asked.choices == ()
        assert refers_to_options_it_does_not_show(exp1.question_text(asked)) is None, q.question
        for lang in OFFICIAL_LANGUAGES[code]:
            got = exp1.grade(exp1.parse("natural", f"ANSWER: {lang}"), asked)["correct"]
            assert got is True, (code, q.answer, lang, q.aliases)
        assert not set(OFFICIAL_LANGUAGES[code]) & set(q.choices[1:]), (code, q.choices)
        for lang in NOT_OFFICIAL_THERE:
            assert exp1.grade(exp1.parse("natural", f"ANSWER: {lang}"), asked)["correct"] is False, (code, lang)
