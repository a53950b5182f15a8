"""`exp9_fixed` and `exp9_tailored` (issue 4): two-part work tasks from fresh bank items, every pair
covered in both orders, and tailored tasks that follow a named weak-domain policy."""

from __future__ import annotations

import collections
import json
import re
from itertools import combinations
from pathlib import Path

import pytest

from mirror_hf.bank import available_domains
from mirror_hf.bank._core import normalise_text
from mirror_hf.records import CHOICE_LETTERS, DOMAINS, EXP9_TASK_FEATURES, PROFILE_FEATURES
from mirror_hf.tasks.exp9 import PartDrawer, fixed_tasks, tailored_tasks
from mirror_hf.tasks.tailor import ProfileInputError, WeakPolicySpec, read_accuracies

DOMAINS_HERE = available_domains()
ALL_EIGHT = pytest.mark.skipif(
    len(DOMAINS_HERE) < 8, reason=f"only {len(DOMAINS_HERE)} of 8 domain generators exist yet ({', '.join(DOMAINS_HERE)})"
)
pytestmark = pytest.mark.skipif(len(DOMAINS_HERE) < 2, reason="Exp9 parts need at least two domain generators")


def _check_tasks(rows: list[dict], domains: list[str]) -> None:
    """Properties every fixed-task set must have, whatever its size."""
    assert all(set(r) == set(EXP9_TASK_FEATURES) for r in rows)
    assert len({(r["part1_text"], r["part2_text"]) for r in rows}) == len(rows)
    parts = [r["part1_text"] for r in rows] + [r["part2_text"] for r in rows]
    assert len(set(parts)) == len(parts), "a part repeats"
    ids = [r[f"question_id_{s}"] for r in rows for s in "ab"]
    assert len(set(ids)) == len(ids)
    for r in rows:
        assert r["domain_a"] != r["domain_b"] and {r["domain_a"], r["domain_b"]} <= set(domains)
        for slot, text in (("a", r["part1_text"]), ("b", r["part2_text"])):
            choices = r[f"choices_{slot}"]
            assert len(choices) == 4 and r[f"correct_answer_{slot}"] in choices
            for letter, choice in zip(CHOICE_LETTERS, choices):
                assert f"\n{letter}) {choice}" in text
            assert isinstance(json.loads(r[f"params_{slot}"]), dict)
            assert r[f"generator_{slot}"].startswith(f"{r[f'domain_{slot}']}.{r[f'subcategory_{slot}']}@")
        assert "{" not in r["task_text"] and len(r["task_text"]) > 80


@pytest.fixture(scope="module")
def fixed() -> list[dict]:
    if len(DOMAINS_HERE) < 8:
        pytest.skip(f"only {len(DOMAINS_HERE)} of 8 domain generators exist yet")
    return fixed_tasks(0, DOMAINS_HERE)


@ALL_EIGHT
def test_fixed_297_tasks_cover_all_28_pairs_evenly_in_both_orders(fixed):
    assert len(fixed) == 297
    _check_tasks(fixed, list(DOMAINS))
    assert all(r["task_type"] == "fixed" and r["circularity_free"] is True and r["target_model"] is None for r in fixed)
    unordered = collections.Counter(frozenset((r["domain_a"], r["domain_b"])) for r in fixed)
    assert len(unordered) == 28
    assert max(unordered.values()) - min(unordered.values()) <= 1
    ordered = collections.Counter((r["domain_a"], r["domain_b"]) for r in fixed)
    for a, b in combinations(DOMAINS, 2):
        assert ordered[(a, b)] >= 1 and ordered[(b, a)] >= 1, (a, b)
    per_domain = collections.Counter(d for r in fixed for d in (r["domain_a"], r["domain_b"]))
    assert max(per_domain.values()) - min(per_domain.values()) <= 2, per_domain
    assert len({r["task_text"] for r in fixed}) >= 0.9 * len(fixed)


@ALL_EIGHT
def test_fixed_parts_cover_every_subcategory_and_difficulty(fixed):
    cells = collections.Counter((r[f"domain_{s}"], r[f"subcategory_{s}"], r[f"difficulty_{s}"]) for r in fixed for s in "ab")
    from mirror_hf.bank import load_domain

    for domain in DOMAINS:
        for sub in load_domain(domain).subcategories:
            for diff in ("easy", "medium", "hard"):
                assert cells[(domain, sub, diff)] >= 3, (domain, sub, diff)
    letters = collections.Counter(r[f"choices_{s}"].index(r[f"correct_answer_{s}"]) for r in fixed for s in "ab")
    assert max(letters.values()) - min(letters.values()) <= 4


def test_reduced_fixed_set_on_the_domains_present():
    domains = DOMAINS_HERE[:3]
    rows = fixed_tasks(5, domains, total=31)
    assert len(rows) == 31
    _check_tasks(rows, domains)
    counts = collections.Counter(frozenset((r["domain_a"], r["domain_b"])) for r in rows)
    assert len(counts) == 3 and max(counts.values()) - min(counts.values()) <= 1
    assert fixed_tasks(5, domains, total=31) == rows  # deterministic per seed
    assert fixed_tasks(6, domains, total=31) != rows


def test_parts_are_fresh_items_that_avoid_the_bank():
    domain = DOMAINS_HERE[0]
    first = PartDrawer(0, "exp9f").draw(domain, 0)
    again = PartDrawer(0, "exp9f").draw(domain, 0)
    assert first == again  # reproducible from (seed, namespace, domain, index)
    avoiding = PartDrawer(0, "exp9f", {normalise_text(first.question)}).draw(domain, 0)
    assert avoiding.question != first.question and avoiding.id == first.id
    assert not first.id.startswith(f"{domain}.")  # its own id, never an Exp1 bank id
    assert first.answer in first.choices and first.choices[0] == first.answer


# --------------------------------------------------------------------------------------------
# tailored
# --------------------------------------------------------------------------------------------


def _profile(domains: list[str]) -> dict[str, float]:
    return {d: round(0.2 + 0.6 * i / max(1, len(domains) - 1), 3) for i, d in enumerate(domains)}


def test_tailored_tasks_put_a_strong_domain_in_slot_a_and_a_weak_one_in_slot_b(tmp_path):
    accuracy = _profile(DOMAINS_HERE)
    policy = WeakPolicySpec()
    labels = policy.labels(accuracy)
    rows = tailored_tasks("org/model-7b", "org_model_7b", labels, policy.name, seed=0, total=60)
    assert len(rows) == 60
    weak = {d for d, s in labels.items() if s == "weak"}
    strong = {d for d, s in labels.items() if s == "strong"}
    # the median rule, recomputed here: weak = strictly below the median accuracy
    values = sorted(accuracy.values())
    mid = len(values) // 2
    median = values[mid] if len(values) % 2 else (values[mid - 1] + values[mid]) / 2
    assert weak == {d for d, a in accuracy.items() if a < median}
    for r in rows:
        assert r["domain_a"] in strong and r["domain_b"] in weak
        assert (r["strength_a"], r["strength_b"]) == ("strong", "weak")
        assert r["task_type"] == "tailored" and r["circularity_free"] is False
        assert r["target_model"] == "org/model-7b" and r["weak_policy"] == "median_or_bottom_k"
    _check_tasks(rows, DOMAINS_HERE)
    combos = collections.Counter((r["domain_a"], r["domain_b"]) for r in rows)
    assert set(combos) == {(s, w) for s in strong for w in weak}
    assert max(combos.values()) - min(combos.values()) <= 1


def test_threshold_policy_uses_the_upstream_cutoffs():
    accuracy = {d: a for d, a in zip(DOMAINS_HERE, (0.35, 0.65, 0.50, 0.40, 0.60, 0.45, 0.70, 0.30))}
    labels = WeakPolicySpec("threshold").labels(accuracy)
    expected = {d: "weak" if a <= 0.40 else "strong" if a >= 0.60 else "medium" for d, a in accuracy.items()}
    assert labels == expected
    assert WeakPolicySpec("threshold", weak_threshold=0.3).name == "threshold:weak=0.3,strong=0.6"
    assert WeakPolicySpec(k=3).name == "median_or_bottom_k:k=3"


def _write_json(path: Path, data) -> Path:
    path.write_text(json.dumps(data))
    return path


def test_profile_formats(tmp_path):
    accuracy = {"arithmetic": 0.8, "social": 0.3, "factual": 0.55}
    as_object = _write_json(tmp_path / "a.json", accuracy)
    as_rows = _write_json(tmp_path / "b.json", [{"model": "m", "domain": d, "natural_accuracy": a} for d, a in accuracy.items()]
                          + [{"model": "other", "domain": "logical", "natural_accuracy": 0.1}])
    by_model = _write_json(tmp_path / "c.json", {"m": {"domain_accuracy": accuracy}, "n": {"domain_accuracy": {}}})
    jsonl = tmp_path / "d.jsonl"
    jsonl.write_text("\n".join(json.dumps({"domain": d, "natural_accuracy": a}) for d, a in accuracy.items()) + "\n")
    import pyarrow as pa
    import pyarrow.parquet as pq

    parquet = tmp_path / "e.parquet"
    pq.write_table(pa.Table.from_pylist([{"model": "m", "domain": d, "natural_accuracy": a} for d, a in accuracy.items()]), parquet)
    expected = {d: accuracy[d] for d in DOMAINS if d in accuracy}
    for source in (as_object, as_rows, by_model, jsonl, parquet):
        got = read_accuracies(source, "m", "m")
        assert got == expected and list(got) == list(expected), source


def test_profile_from_a_dataset_folder(tmp_path):
    from mirror_hf.folder import write_split

    rows = [{"model": "m", "domain": d, "natural_accuracy": a, "strength": "strong"}
            for d, a in (("logical", 0.9), ("temporal", 0.2))]
    write_split(tmp_path, "profiles", "m_1", rows, PROFILE_FEATURES)
    assert read_accuracies(tmp_path, "m-1", "m_1") == {"temporal": 0.2, "logical": 0.9}
    with pytest.raises(ProfileInputError, match=r"no split 'other' in config 'profiles' \(splits there: m_1\)"):
        read_accuracies(tmp_path, "other", "other")


@pytest.mark.parametrize(
    "data, message",
    [
        ({"arithmetic": 0.5}, r"has 1 domain\(s\) \(arithmetic\); tailoring needs at least two"),
        ({}, r"has 0 domain\(s\) \(none\)"),
        ([{"domain": "arithmetic", "natural_accuracy": 0.5}, {"domain": "social", "natural_accuracy": None}],
         r"row 1 field 'natural_accuracy': missing accuracy for domain 'social'"),
        ([{"domain": "arithmetic", "natural_accuracy": 0.5}, {"domain": "social"}], r"row 1: missing field 'natural_accuracy'"),
        ({"arithmetic": 0.5, "cooking": 0.2}, r"key 'cooking' field 'domain': 'cooking' is not one of"),
        ({"arithmetic": 0.5, "social": 1.5}, r"key 'social' field 'natural_accuracy': 1.5 is outside \[0, 1\]"),
        ({"arithmetic": 0.5, "social": "high"}, r"key 'social' field 'natural_accuracy': 'high' is not a number"),
        ({"m2": {"domain_accuracy": {"arithmetic": 0.5}}}, r"no entry for model 'm' \(models there: m2\)"),
    ],
)
def test_bad_profiles_get_one_clear_error_naming_file_row_and_field(tmp_path, data, message):
    path = _write_json(tmp_path / "profile.json", data)
    with pytest.raises(ProfileInputError, match=message) as info:
        read_accuracies(path, "m", "m")
    assert str(path) in str(info.value)


def test_unreadable_profile_files(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    with pytest.raises(ProfileInputError, match=r"bad.json: not valid JSON"):
        read_accuracies(bad, "m", "m")
    with pytest.raises(ProfileInputError, match=r"does not exist"):
        read_accuracies(tmp_path / "missing.json", "m", "m")
    with pytest.raises(ProfileInputError, match=r"expected a dataset folder, a .parquet, .json or .jsonl file"):
        read_accuracies(_write_json(tmp_path / "p.txt", {}), "m", "m")


def test_upstream_capability_profile_can_be_tailored(upstream_dir):
    from mirror_hf.tasks.tailor import WeakPolicySpec

    path = upstream_dir / "data" / "exp9" / "capability_profiles.json"
    accuracy = read_accuracies(path, "llama-3.1-8b", "llama_3_1_8b")
    assert len(accuracy) == 8 and all(0 <= a <= 1 for a in accuracy.values())
    labels = WeakPolicySpec("threshold").labels(accuracy)
    raw = json.loads(path.read_text())["llama-3.1-8b"]["domain_accuracy"]
    assert {d for d, s in labels.items() if s == "weak"} == {d for d, a in raw.items() if a <= 0.40}


def test_the_strict_grader_accepts_the_letter_or_the_value_of_a_part():
    from mirror_hf.protocol.matching import match

    rows = fixed_tasks(2, DOMAINS_HERE[:2], total=12)
    for r in rows:
        for slot in "ab":
            gold, kind, choices = r[f"correct_answer_{slot}"], r[f"answer_type_{slot}"], r[f"choices_{slot}"]
            aliases = r[f"aliases_{slot}"]
            right = CHOICE_LETTERS[choices.index(gold)]
            wrong = next(letter for letter, c in zip(CHOICE_LETTERS, choices) if c != gold)
            assert match(right, gold, kind, aliases, choices) is True
            assert match(gold, gold, kind, aliases, choices) is True
            assert match(f"{right}) {gold}", gold, kind, aliases, choices) is True
            assert match(wrong, gold, kind, aliases, choices) is False


def test_the_work_frame_motivates_both_parts(fixed):
    """The person asking does work that raises both parts' kinds of question: a site supervisor is
    not asked for a Pacific time zone. Every task names exactly one role, and that role's work covers
    both domains (or collects questions of every kind: an answer key, a quiz sheet, a practice sheet)."""
    from mirror_hf.tasks.scenarios import ROLES

    for t in fixed:
        named = [r for r in ROLES if re.search(rf"\b{re.escape(r[0])}\b", t["task_text"], re.IGNORECASE)
                 and r[1] in t["task_text"]]
        assert len(named) == 1, (t["task_id"], t["task_text"])
        domains = named[0][3]
        assert domains == "*" or {t["domain_a"], t["domain_b"]} <= set(domains.split()), (t["task_id"], named[0][:2])
    assert len({r[0] for r in ROLES if any(r[0] in t["task_text"] for t in fixed)}) >= 15
