"""Difficulty-selection pairs from the bank's difficulty labels."""

from __future__ import annotations

from mirror_hf.protocol.pairing import difficulty_pairs, pair_for_each_question
from mirror_hf.records import Question


def item(domain, difficulty, i):
    return Question(
        id=f"{domain}.{difficulty}.{i}", domain=domain, subcategory="s", difficulty=difficulty, question=f"{domain} {difficulty} {i}?",
        choices=("a", "b", "c", "d"), answer="a", answer_type="short_text", aliases=(), generator="t@1", seed=0,
    )


BANK = [item(d, diff, i) for d in ("arithmetic", "logical") for diff, n in (("easy", 3), ("medium", 2), ("hard", 5)) for i in range(n)]


def test_pairs_are_easy_and_hard_of_one_domain_and_cover_both_pools():
    pairs = difficulty_pairs(BANK)
    assert len(pairs) == 2 * 5  # max(|easy|, |hard|) per domain
    for p in pairs:
        assert p.easy.domain == p.hard.domain == p.domain
        assert (p.easy.difficulty, p.hard.difficulty) == ("easy", "hard")
    covered = {q.id for p in pairs for q in (p.easy, p.hard)}
    assert covered == {q.id for q in BANK if q.difficulty != "medium"}


def test_pairs_are_deterministic_and_seeded():
    ids = lambda pairs: [(p.easy.id, p.hard.id) for p in pairs]  # noqa: E731
    assert ids(difficulty_pairs(BANK)) == ids(difficulty_pairs(list(reversed(BANK))))  # input order does not matter
    assert ids(difficulty_pairs(BANK, seed=1)) != ids(difficulty_pairs(BANK, seed=2))


def test_each_question_uses_its_first_pair_in_its_own_role():
    pairs = difficulty_pairs(BANK)
    lookup = pair_for_each_question(pairs)
    for q in BANK:
        if q.difficulty == "medium":
            assert q.id not in lookup
            continue
        pair = lookup[q.id]
        assert pair.role_of(q.id) == ("A" if q.difficulty == "hard" else "B")
        assert pair is next(p for p in pairs if q.id in (p.easy.id, p.hard.id))


def test_medium_stands_in_for_hard_and_unlabelled_banks_give_no_pairs():
    bank = [item("spatial", "easy", 0), item("spatial", "medium", 0)]
    assert [(p.easy.id, p.hard.id) for p in difficulty_pairs(bank)] == [("spatial.easy.0", "spatial.medium.0")]
    from dataclasses import replace

    unlabelled = [replace(item("factual", d, i), difficulty=None) for d in ("easy", "hard") for i in range(3)]
    assert difficulty_pairs(unlabelled) == []  # the authors' bank: channel 3 cannot run
    no_hard = [item("social", "easy", 0), item("social", "easy", 1)]
    assert difficulty_pairs(no_hard) == []
