"""No near-duplicates in a form: the exact-text gate is not enough. Checked over every item of a
complete form, from the stored params (not through the generator's own keys)."""

from __future__ import annotations

import collections
import json
import re

import pytest

from mirror_hf.bank import generate_bank


@pytest.fixture(scope="module")
def form():
    return generate_bank(3)


def _by_sub(questions):
    out = collections.defaultdict(list)
    for q in questions:
        out[f"{q.domain}.{q.subcategory}"].append(q)
    return out


def test_items_with_the_same_parameters_are_one_item(form):
    repeats = {}
    for sub, qs in _by_sub(form).items():
        counts = collections.Counter(json.dumps(q.params, sort_keys=True) for q in qs)
        if max(counts.values()) > 1:
            repeats[sub] = sum(c - 1 for c in counts.values())
    assert not repeats, repeats


def test_each_cross_domain_fact_is_asked_once(form):
    """A fact is a subject and a relation: the kind of join asked (symbol read as a country code,
    country code read as a symbol, ...) and the entities it joins. Reworded, it is still the same fact."""
    links = collections.Counter()
    for q in form:
        if q.subcategory != "cross_domain_trivia":
            continue
        p = q.params
        entities = frozenset(f"{k}={p[k]}" for k in p if k in ("atomic_number", "alpha_2", "language", "currency"))
        assert len(entities) >= 1, q.params
        links[p["kind"], entities] += 1
    assert links and max(links.values()) == 1, [k for k, v in links.items() if v > 1]


def test_hard_norm_scenes_are_not_medium_scenes(form):
    scenes = collections.defaultdict(set)
    for q in form:
        if q.subcategory == "social_norm_violation":
            scenes[q.difficulty].add(q.params["setting"])
    assert scenes["medium"] and scenes["hard"] and not scenes["medium"] & scenes["hard"], scenes


def test_pragmatic_utterance_answer_pairs_rarely_repeat_and_easy_items_do_not_contain_the_answer(form):
    qs = [q for q in form if q.subcategory == "pragmatic_inference"]
    pairs = collections.Counter((q.params["utterance"], q.answer) for q in qs)
    print(f"\npragmatic_inference: {len(pairs)} distinct (utterance, answer) pairs in {len(qs)} items")
    assert max(pairs.values()) <= 2, pairs.most_common(3)

    def words(text):
        return " ".join(re.findall(r"[a-z']+", text.lower()))

    containing = [q.id for q in qs if q.difficulty == "easy" and words(q.answer) in words(q.question)]
    assert not containing, containing
