"""The task-bank configs in a built folder (issue 4): `load_dataset` reads them by name, the card and
Croissant describe them (Croissant validates, record counts match), and `mirror-hf tasks tailor`
adds a model's tailored split."""

from __future__ import annotations

import collections
import json
import shutil
from itertools import combinations
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from runner_fixtures import cli_inproc

from mirror_hf.bank import available_domains
from mirror_hf.bank._core import normalise_text
from mirror_hf.build import BuildRequest, build
from mirror_hf.folder import split_files
from mirror_hf.records import DOMAINS, EXP2_TASK_FEATURES, EXP3_TASK_FEATURES, EXP9_TASK_FEATURES

TASK_CONFIGS = {"exp2_transfer": 200, "exp3_composite": 112, "exp9_fixed": 297}
EIGHT = len(available_domains()) == 8
pytestmark = pytest.mark.skipif(len(available_domains()) < 2, reason="Exp9 parts need at least two domain generators")


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> Path:
    return build(BuildRequest(out=tmp_path_factory.mktemp("tasks") / "mirror", seed=0, per_domain=30))


def test_load_dataset_by_name_gives_the_task_configs(built, monkeypatch):
    from datasets import load_dataset

    monkeypatch.chdir(built.parent)
    fixed = load_dataset("mirror", "exp9_fixed", split="test")
    assert fixed.features == EXP9_TASK_FEATURES and len(fixed) == 297
    assert len(set(zip(fixed["part1_text"], fixed["part2_text"]))) == 297
    if EIGHT:
        pairs = collections.Counter(frozenset(p) for p in zip(fixed["domain_a"], fixed["domain_b"]))
        assert len(pairs) == 28 and max(pairs.values()) - min(pairs.values()) <= 2
        ordered = set(zip(fixed["domain_a"], fixed["domain_b"]))
        assert all((a, b) in ordered and (b, a) in ordered for a, b in combinations(DOMAINS, 2))
    composite = load_dataset("mirror", "exp3_composite", split="test")
    assert composite.features == EXP3_TASK_FEATURES and len(composite) == 112
    assert composite[0]["component_a"]["domain"] == composite[0]["domain_a"]
    transfer = load_dataset("mirror", "exp2_transfer", split="test")
    assert transfer.features == EXP2_TASK_FEATURES and len(transfer) == 200


@pytest.mark.skipif(not EIGHT, reason=f"only {len(available_domains())} of 8 domain generators exist yet")
def test_fixed_acceptance_all_28_pairs(built):
    rows = pq.read_table(split_files(built)["exp9_fixed"][0].path).to_pylist()
    pairs = collections.Counter(frozenset((r["domain_a"], r["domain_b"])) for r in rows)
    assert len(pairs) == 28 and max(pairs.values()) - min(pairs.values()) <= 2


def test_fixed_parts_are_not_bank_questions(built):
    files = split_files(built)
    bank = {normalise_text(t) for t in pq.read_table(files["questions"][0].path, columns=["question"]).column(0).to_pylist()}
    bank_ids = set(pq.read_table(files["questions"][0].path, columns=["id"]).column(0).to_pylist())
    rows = pq.read_table(files["exp9_fixed"][0].path).to_pylist()
    for r in rows:
        for slot, column in (("a", "part1_text"), ("b", "part2_text")):
            assert normalise_text(r[column].split("\nA) ")[0]) not in bank
            assert r[f"question_id_{slot}"] not in bank_ids


def test_croissant_validates_with_the_task_record_sets(built):
    import mlcroissant as mlc

    doc = json.loads((built / "croissant.json").read_text())
    record_sets = {rs["@id"]: rs for rs in doc["recordSet"]}
    assert set(TASK_CONFIGS) <= set(record_sets)
    component = next(f for f in record_sets["exp3_composite"]["field"] if f["name"] == "component_a")
    assert {sf["name"] for sf in component["subField"]} >= {"id", "question", "choices", "answer", "params"}
    dataset = mlc.Dataset(jsonld=str(built / "croissant.json"))
    assert not dataset.metadata.issues.errors
    for config, expected in TASK_CONFIGS.items():
        assert sum(1 for _ in dataset.records(config)) == expected, config


def test_card_lists_the_task_configs_with_their_features(built):
    from huggingface_hub import DatasetCard

    card = DatasetCard((built / "README.md").read_text())
    infos = {i["config_name"]: i["features"] for i in card.data.dataset_info}
    assert infos["exp9_fixed"] == EXP9_TASK_FEATURES._to_yaml_list()
    assert infos["exp3_composite"] == EXP3_TASK_FEATURES._to_yaml_list()
    assert infos["exp2_transfer"] == EXP2_TASK_FEATURES._to_yaml_list()
    for config, n in TASK_CONFIGS.items():
        assert f"| `{config}` | test: {n} |" in card.text


# --------------------------------------------------------------------------------------------
# mirror-hf tasks tailor
# --------------------------------------------------------------------------------------------


@pytest.fixture
def folder(built, tmp_path) -> Path:
    copy = tmp_path / "mirror"
    shutil.copytree(built, copy)
    return copy


def test_tasks_tailor_writes_a_model_split_the_card_and_croissant_describe(folder, tmp_path):
    from datasets import load_dataset

    domains = available_domains()
    accuracy = {d: 0.9 - 0.1 * i for i, d in enumerate(domains)}
    profile = tmp_path / "profile.json"
    profile.write_text(json.dumps(accuracy))
    proc = cli_inproc("tasks", "tailor", "--profile", str(profile), "--model", "org/Model-7B", "--dataset", str(folder))
    assert "wrote 300 tasks to split 'org_model_7b' of config 'exp9_tailored'" in proc.stdout
    rows = load_dataset(str(folder), "exp9_tailored", split="org_model_7b")
    assert len(rows) == 300
    ranked = sorted(accuracy, key=accuracy.get)
    weak = set(ranked[: len(ranked) // 2])  # distinct accuracies: below the median = the lower half
    assert set(rows["domain_b"]) <= weak and not set(rows["domain_a"]) & weak
    assert set(rows["strength_a"]) == {"strong"} and set(rows["strength_b"]) == {"weak"}
    assert set(rows["target_model"]) == {"org/Model-7B"} and set(rows["weak_policy"]) == {"median_or_bottom_k"}
    assert len(set(zip(rows["part1_text"], rows["part2_text"]))) == 300
    fixed_parts = {t for r in pq.read_table(split_files(folder)["exp9_fixed"][0].path).to_pylist() for t in (r["part1_text"], r["part2_text"])}
    assert not fixed_parts & (set(rows["part1_text"]) | set(rows["part2_text"]))

    import mlcroissant as mlc

    dataset = mlc.Dataset(jsonld=str(folder / "croissant.json"))
    assert sum(1 for _ in dataset.records("exp9_tailored")) == 300
    assert "exp9_tailored" in (folder / "README.md").read_text()


@pytest.mark.slow
def test_rebuilding_the_same_form_keeps_tailored_splits(folder, tmp_path):
    profile = tmp_path / "profile.json"
    profile.write_text(json.dumps({d: 0.9 - 0.1 * i for i, d in enumerate(available_domains())}))
    cli_inproc("tasks", "tailor", "--profile", str(profile), "--model", "m", "--dataset", str(folder), "--n", "20")
    rebuilt = build(BuildRequest(out=folder, seed=0, per_domain=30))
    assert {f.split for f in split_files(rebuilt)["exp9_tailored"]} == {"m"}


def test_tasks_tailor_threshold_policy_and_bad_profiles(folder, tmp_path):
    domains = available_domains()
    profile = tmp_path / "p.json"
    profile.write_text(json.dumps({d: a for d, a in zip(domains, (0.8, 0.3, 0.5, 0.7, 0.2, 0.45, 0.65, 0.55))}))
    cli_inproc("tasks", "tailor", "--profile", str(profile), "--model", "m", "--dataset", str(folder),
               "--weak-policy", "threshold", "--n", "40")
    written = next(f.path for f in split_files(folder)["exp9_tailored"] if f.split == "m")
    rows = pq.read_table(written).to_pylist()
    cli_inproc("tasks", "tailor", "--profile", str(profile), "--model", "m", "--dataset", str(folder),
               "--weak-policy", "threshold", "--n", "40")
    assert next(f.path for f in split_files(folder)["exp9_tailored"] if f.split == "m") == written  # deterministic
    accuracy = json.loads(profile.read_text())
    assert len(rows) == 40
    assert all(accuracy[r["domain_a"]] >= 0.60 and accuracy[r["domain_b"]] <= 0.40 for r in rows)
    assert {r["weak_policy"] for r in rows} == {"threshold"}

    one = tmp_path / "one.json"
    one.write_text(json.dumps({"arithmetic": 0.7}))
    proc = cli_inproc("tasks", "tailor", "--profile", str(one), "--model", "x", "--dataset", str(folder), check=False)
    assert proc.returncode == 2 and str(one) in proc.stderr and "at least two" in proc.stderr
    assert proc.stderr.count("\n") == 1 and "Traceback" not in proc.stderr
    flat = tmp_path / "flat.json"
    flat.write_text(json.dumps({d: 0.5 for d in domains[:3]} | {domains[3]: 0.45} if len(domains) > 3 else {}))
    proc = cli_inproc("tasks", "tailor", "--profile", str(flat), "--model", "y", "--dataset", str(folder),
                      "--weak-policy", "threshold", check=False)
    assert proc.returncode == 2 and "has no strong domain" in proc.stderr
    assert {f.split for f in split_files(folder)["exp9_tailored"]} == {"m"}  # failed runs wrote nothing
    proc = cli_inproc("tasks", "tailor", "--profile", str(profile), "--model", "z", "--dataset", str(tmp_path / "nope"), check=False)
    assert proc.returncode == 2 and "is not a dataset folder" in proc.stderr
