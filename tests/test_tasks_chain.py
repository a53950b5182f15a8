"""Chain links (issue 4): every producer and consumer computes its gold, as an independent solver
recomputes it, for every difficulty and every input a producer can hand over."""

from __future__ import annotations

import json
import random

import pytest

import lemminflect
from tasks_oracles import consumer_answer, element_name, producer_value, spell, spell_ordinal
from tasks_oracles import plural as inflect_plural

from mirror_hf.bank._core import check_item, normalise_text
from mirror_hf.records import DIFFICULTIES, DOMAINS
from mirror_hf.tasks import elements, numwords
from mirror_hf.tasks.chain import VALUE_RANGE, Ref, consumed_item, produced_item
from mirror_hf.tasks.consumers import CONSUMERS
from mirror_hf.tasks.producers import IRREGULAR_PARTICIPLES, IRREGULAR_PLURALS, PRODUCERS, REGULAR_PLURALS


def test_every_domain_has_a_producer_and_a_consumer():
    assert set(PRODUCERS) == set(DOMAINS) == set(CONSUMERS)
    for domain in DOMAINS:
        assert PRODUCERS[domain].domain == CONSUMERS[domain].domain == domain


@pytest.mark.parametrize("domain", DOMAINS)
@pytest.mark.parametrize("difficulty", DIFFICULTIES)
def test_producer_values_are_in_range_and_recomputed_from_the_text(domain, difficulty):
    producer = PRODUCERS[domain]
    values = set()
    for i in range(60):
        prod = producer.draw(random.Random(f"{domain}/{difficulty}/{i}"), difficulty)
        item = produced_item(prod, producer)
        check_item(item, f"{domain}[{i}]")
        params = json.loads(json.dumps(item.params))  # as stored
        assert VALUE_RANGE[0] <= prod.value <= VALUE_RANGE[1]
        assert producer_value(params, prod.question) == prod.value, prod.question
        assert producer_value(params, prod.phrase) == prod.value, prod.phrase
        assert prod.value not in prod.wrong and len(set(prod.wrong)) == 3
        assert all(VALUE_RANGE[0] <= w <= VALUE_RANGE[1] for w in prod.wrong)
        values.add(prod.value)
    assert len(values) >= 4, f"{domain}/{difficulty} draws too few distinct values: {sorted(values)}"


@pytest.mark.parametrize("domain", DOMAINS)
@pytest.mark.parametrize("difficulty", DIFFICULTIES)
def test_consumers_accept_every_input_and_their_gold_is_recomputed(domain, difficulty):
    consumer = CONSUMERS[domain]
    for i in range(6):
        params = consumer.draw(random.Random(f"{domain}/{difficulty}/{i}"), difficulty)
        for n in range(VALUE_RANGE[0], VALUE_RANGE[1] + 1):
            item = consumed_item(consumer, params, n, Ref.literal(n))
            check_item(item, f"{domain}[{i}] n={n}")
            stored = json.loads(json.dumps(item.params))
            assert stored["input"] == n
            assert item.answer == consumer_answer(stored, n, item.question), (item.question, item.answer)
            assert str(n) in item.question


@pytest.mark.parametrize("domain", DOMAINS)
def test_consumer_text_shows_the_input_as_variable_or_phrase(domain):
    consumer = CONSUMERS[domain]
    for difficulty in DIFFICULTIES:
        params = consumer.draw(random.Random(difficulty), difficulty)
        with_x = consumer.text(params, Ref.variable("X"))
        assert " X" in with_x and "{" not in with_x
        hidden = consumer.text(params, Ref.phrase("the atomic number of iron"))
        assert "the atomic number of iron" in hidden and " X " not in hidden


def test_element_table_against_known_values():
    # atomic number: (name, symbol), written here from the periodic table, not from the module
    known = {
        1: ("hydrogen", "H"), 2: ("helium", "He"), 6: ("carbon", "C"), 7: ("nitrogen", "N"), 8: ("oxygen", "O"),
        11: ("sodium", "Na"), 13: ("aluminium", "Al"), 17: ("chlorine", "Cl"), 19: ("potassium", "K"),
        24: ("chromium", "Cr"), 26: ("iron", "Fe"), 29: ("copper", "Cu"), 33: ("arsenic", "As"), 36: ("krypton", "Kr"),
        42: ("molybdenum", "Mo"), 47: ("silver", "Ag"), 50: ("tin", "Sn"), 51: ("antimony", "Sb"), 53: ("iodine", "I"),
        54: ("xenon", "Xe"), 55: ("caesium", "Cs"), 56: ("barium", "Ba"), 74: ("tungsten", "W"), 78: ("platinum", "Pt"),
        79: ("gold", "Au"), 80: ("mercury", "Hg"), 82: ("lead", "Pb"), 86: ("radon", "Rn"), 88: ("radium", "Ra"),
        92: ("uranium", "U"), 94: ("plutonium", "Pu"), 99: ("einsteinium", "Es"), 100: ("fermium", "Fm"),
    }
    for z, (name, symbol) in known.items():
        assert (elements.name(z), elements.symbol(z)) == (name, symbol), z
    names = [elements.name(z) for z in range(1, elements.MAX_Z + 1)]
    symbols = [elements.symbol(z) for z in range(1, elements.MAX_Z + 1)]
    assert len(set(names)) == len(set(symbols)) == elements.MAX_Z == 100
    # every period ends with a noble gas
    assert [elements.name(z) for z in (2, 10, 18, 36, 54, 86)] == ["helium", "neon", "argon", "krypton", "xenon", "radon"]
    assert [elements.period(z) for z in (1, 3, 11, 19, 37, 55, 87)] == [1, 2, 3, 4, 5, 6, 7]
    with pytest.raises(ValueError, match="outside the table"):
        elements.name(0)


def test_every_element_against_periodictable():
    # all 100, not a sample: a swapped pair (cobalt/nickel) is as wrong as a missing one
    import periodictable

    for z in range(1, elements.MAX_Z + 1):
        assert (elements.name(z), elements.symbol(z)) == (element_name(z), periodictable.elements[z].symbol), z
        assert elements.period(z) == 1 + sum(z > end for end in (2, 10, 18, 36, 54, 86)), z


@pytest.mark.parametrize("difficulty", DIFFICULTIES)
def test_element_consumer_for_every_element(difficulty):
    consumer = CONSUMERS["factual"]
    params = consumer.draw(random.Random(0), difficulty)
    asks = params["asks"]
    for z in range(VALUE_RANGE[0], min(VALUE_RANGE[1], elements.MAX_Z) + 1):
        item = consumed_item(consumer, params, z, Ref.literal(z))
        assert item.answer == consumer_answer(json.loads(json.dumps(item.params)), z, item.question), (asks, z)


def test_word_form_tables_against_inflect_and_lemminflect():
    # every entry of the tables the length questions are drawn from, not only those a draw hits
    for table in (REGULAR_PLURALS, IRREGULAR_PLURALS):
        for noun, form in table.items():
            assert form == inflect_plural(noun), noun
    for verb, (_, participle) in IRREGULAR_PARTICIPLES.items():
        assert participle == lemminflect.getInflection(verb, "VBN")[0], verb


def test_number_words_against_an_independent_speller():
    for n in range(0, 100):
        assert numwords.cardinal(n) == spell(n)
        if n:
            assert numwords.ordinal(n) == spell_ordinal(n)
    assert numwords.ordinal(12) == "twelfth" and numwords.ordinal(40) == "fortieth" and numwords.ordinal(21) == "twenty-first"
    assert numwords.cardinal(105) == "one hundred five"
    assert numwords.letter_count("forty-seven") == 10


def test_word_form_tables():
    def regular_plural(word: str) -> str:  # the spelling rules, written independently
        if word.endswith("z"):
            return word + "zes"
        if word.endswith(("s", "x", "ch", "sh")) or word in ("hero", "potato", "tomato"):
            return word + "es"
        if word.endswith("y") and word[-2] not in "aeiou":
            return word[:-1] + "ies"
        return word + "s"

    for word, plural in REGULAR_PLURALS.items():
        assert plural == regular_plural(word), word
    for word, plural in IRREGULAR_PLURALS.items():
        assert plural != word + "s", word
    for verb, (past, participle) in IRREGULAR_PARTICIPLES.items():
        assert participle != verb + "ed" and participle != verb + "d", verb
    spot = {"child": "children", "mouse": "mice", "criterion": "criteria", "knife": "knives"}
    assert {w: IRREGULAR_PLURALS[w] for w in spot} == spot
    assert IRREGULAR_PARTICIPLES["write"] == ("wrote", "written") and IRREGULAR_PARTICIPLES["forget"] == ("forgot", "forgotten")


def test_wrong_answers_never_normalise_to_the_gold():
    for domain, consumer in CONSUMERS.items():
        for difficulty in DIFFICULTIES:
            params = consumer.draw(random.Random(1), difficulty)
            for n in (2, 17, 64, 99):
                item = consumed_item(consumer, params, n, Ref.literal(n))
                gold = normalise_text(item.answer)
                assert all(normalise_text(d) != gold for d in item.distractors)
                assert all(normalise_text(a) not in {normalise_text(d) for d in item.distractors} for a in item.aliases)
