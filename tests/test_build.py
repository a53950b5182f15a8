"""The dataset build (issue 2): a folder that `load_dataset` and `mlcroissant` read offline, built
deterministically and atomically, refusing bad input with one clear line."""

from __future__ import annotations

import collections
import json
import subprocess
import sys
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from mirror_hf.bank import available_domains
from mirror_hf.build import BuildError, BuildRequest, build
from mirror_hf.folder import split_files
from mirror_hf.records import QUESTION_FEATURES

PER_DOMAIN = 30  # small but enough for every (subcategory, difficulty) block to have items

pytestmark = pytest.mark.skipif(not available_domains(), reason="no question generators registered yet")


def _build(tmp: Path, seed: int = 0, name: str = "mirror", **kw) -> Path:
    out = tmp / name
    tmp.mkdir(parents=True, exist_ok=True)
    return build(BuildRequest(out=out, seed=seed, per_domain=kw.pop("per_domain", PER_DOMAIN), **kw))


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> Path:
    return _build(tmp_path_factory.mktemp("built"))


def _questions(folder: Path) -> list[dict]:
    return pq.read_table(split_files(folder)["questions"][0].path).to_pylist()


def test_load_dataset_by_name_from_parent_folder_offline(built, monkeypatch):
    from datasets import load_dataset

    monkeypatch.chdir(built.parent)
    ds = load_dataset("mirror", "questions", split="test")
    assert ds.features == QUESTION_FEATURES
    assert len(ds) == PER_DOMAIN * len(available_domains())
    for name in QUESTION_FEATURES:
        column = ds[name]
        assert all(v is not None for v in column), f"column {name} has nulls"
    for name in ("id", "question", "answer", "params", "generator"):
        assert all(ds[name]), f"column {name} has empty values"
    assert all(len(c) == 4 for c in ds["choices"])
    assert all(a in c for a, c in zip(ds["answer"], ds["choices"]))
    assert all(isinstance(json.loads(p), dict) for p in ds["params"])


def test_croissant_validates_carries_required_fields_and_counts_match(built):
    import mlcroissant as mlc

    path = built / "croissant.json"
    doc = json.loads(path.read_text())
    for key in ("name", "description", "url", "license", "creator", "datePublished", "version", "citeAs", "conformsTo"):
        assert doc.get(key), f"croissant.json lacks {key}"
    for key in ("rai:dataCollection", "rai:dataBiases", "rai:dataLimitations", "rai:dataUseCases", "rai:personalSensitiveInformation"):
        assert doc.get(key), f"croissant.json lacks {key}"
    dataset = mlc.Dataset(jsonld=str(path))  # raises ValidationError on any error
    assert not dataset.metadata.issues.errors
    for config, files in split_files(built).items():
        on_disk = sum(pq.read_metadata(f.path).num_rows for f in files)
        assert sum(1 for _ in dataset.records(config)) == on_disk, config
    hashes = {d["contentUrl"]: d["sha256"] for d in doc["distribution"] if d.get("@type") == "cr:FileObject"}
    import hashlib

    for files in split_files(built).values():
        for f in files:
            assert hashes[f.relative(built)] == hashlib.sha256(f.path.read_bytes()).hexdigest()


def test_card_yaml_declares_every_config_and_split_on_disk(built):
    from huggingface_hub import DatasetCard

    card = DatasetCard((built / "README.md").read_text())
    declared = {c["config_name"]: {d["split"]: d["path"] for d in c["data_files"]} for c in card.data.configs}
    on_disk = {c: {f.split: f.relative(built) for f in files} for c, files in split_files(built).items()}
    assert declared == on_disk
    infos = {i["config_name"]: i["features"] for i in card.data.dataset_info}
    assert infos["questions"] == QUESTION_FEATURES._to_yaml_list()
    body = card.text
    for section in ("Motivation", "Composition", "Collection process", "Uses", "Limitations", "Maintenance"):
        assert f"### {section}" in body
    from mirror_hf.bank import load_domain

    for name in available_domains():  # every subcategory's difficulty notes are documented
        domain = load_domain(name)
        for sub in domain.subcategories.values():
            assert f"| {name} | `{sub.name}` | `{domain.generator_tag(sub.name)}` | {sub.difficulty['easy']} |" in body


def test_same_seed_gives_byte_identical_folders(tmp_path):
    a = _build(tmp_path / "a")
    b = _build(tmp_path / "b")
    files_a = sorted(p.relative_to(a) for p in a.rglob("*") if p.is_file())
    files_b = sorted(p.relative_to(b) for p in b.rglob("*") if p.is_file())
    assert files_a == files_b
    for rel in files_a:
        assert (a / rel).read_bytes() == (b / rel).read_bytes(), rel


def test_other_seed_gives_new_items_with_same_design(tmp_path, built):
    other = _build(tmp_path, seed=7)
    q0, q7 = _questions(built), _questions(other)

    def design(rows):
        return collections.Counter((r["domain"], r["subcategory"], r["difficulty"]) for r in rows)

    assert design(q0) == design(q7)
    texts0 = {r["question"] for r in q0}
    overlap = sum(r["question"] in texts0 for r in q7)
    assert overlap <= len(q7) * 0.02, f"{overlap} of {len(q7)} questions repeat across seeds"
    assert {r["seed"] for r in q7} == {7}


def test_rebuild_over_previous_build_is_allowed_and_foreign_folder_refused(tmp_path):
    out = _build(tmp_path)
    build(BuildRequest(out=out, seed=1, per_domain=PER_DOMAIN))  # a previous build may be replaced
    foreign = tmp_path / "foreign"
    foreign.mkdir()
    (foreign / "notes.txt").write_text("mine")
    with pytest.raises(BuildError, match="not a previous mirror-hf build"):
        build(BuildRequest(out=foreign, per_domain=PER_DOMAIN))
    assert (foreign / "notes.txt").read_text() == "mine"
    build(BuildRequest(out=foreign, per_domain=PER_DOMAIN, force=True))
    assert not (foreign / "notes.txt").exists()


def test_failed_build_leaves_previous_folder_untouched_and_no_debris(tmp_path, monkeypatch):
    from mirror_hf.dataset_builders import registry

    out = _build(tmp_path)
    before = {p: p.read_bytes() for p in out.rglob("*") if p.is_file()}
    builder = registry()["questions"]

    def explode(ctx):
        raise RuntimeError("generator crashed half way")

    monkeypatch.setitem(registry(), "questions", type(builder)(builder.name, builder.features, builder.description, explode))
    with pytest.raises(RuntimeError, match="half way"):
        build(BuildRequest(out=out, seed=3, per_domain=PER_DOMAIN))
    assert {p: p.read_bytes() for p in out.rglob("*") if p.is_file()} == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["mirror"]


def test_killed_build_leaves_no_folder_and_next_build_cleans_up(tmp_path):
    """SIGKILL in the middle of a build: --out never appears half-written."""
    script = (
        "import os, signal\n"
        "from pathlib import Path\n"
        "import mirror_hf.build as b\n"
        "real = b.refresh_metadata\n"
        "def die(root):\n"
        "    real(root); os.kill(os.getpid(), signal.SIGKILL)\n"
        "b.refresh_metadata = die\n"
        f"b.build(b.BuildRequest(out=Path({str(tmp_path / 'mirror')!r}), per_domain={PER_DOMAIN}))\n"
    )
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True)
    assert proc.returncode == -9
    assert not (tmp_path / "mirror").exists()
    _build(tmp_path)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["mirror"]


def _cli(*args, cwd=None):
    return subprocess.run([sys.executable, "-m", "mirror_hf.cli.__main__", *args], capture_output=True, text=True, cwd=cwd)


@pytest.mark.parametrize(
    "args, message",
    [
        (["--configs", "nonsense"], "config 'nonsense' is unknown"),
        (["--configs", "trials_exp1"], "is filled by runs or imports"),
        (["--seed", "-3"], "--seed must be a non-negative integer"),
        (["--seed", "1.5"], "--seed must be a non-negative integer"),
        (["--seed", "abc"], "--seed must be a non-negative integer"),
    ],
)
def test_bad_input_is_one_line_nonzero_and_leaves_nothing(tmp_path, args, message):
    proc = _cli("build", "--out", str(tmp_path / "mirror"), "--per-domain", "3", *args)
    assert proc.returncode != 0
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and message in lines[0], proc.stderr
    assert list(tmp_path.iterdir()) == []


def test_unwritable_or_foreign_out_is_refused(tmp_path):
    foreign = tmp_path / "taken"
    foreign.mkdir()
    (foreign / "x").write_text("x")
    proc = _cli("build", "--out", str(foreign), "--per-domain", "3")
    assert proc.returncode != 0 and "not a previous mirror-hf build" in proc.stderr
    assert [p.name for p in foreign.iterdir()] == ["x"]
    # /proc refuses new directories even to root, which a chmod-based test cannot show
    proc = _cli("build", "--out", "/proc/mirror-test-out", "--per-domain", "3")
    assert proc.returncode != 0
    assert len(proc.stderr.strip().splitlines()) == 1 and "/proc/mirror-test-out" in proc.stderr
    proc = _cli("build", "--out", str(tmp_path / "missing" / "mirror"), "--per-domain", "3")
    assert proc.returncode != 0 and "does not exist" in proc.stderr


def test_cli_build_prints_summary(tmp_path):
    proc = _cli("build", "--out", str(tmp_path / "mirror"), "--per-domain", "6")
    assert proc.returncode == 0, proc.stderr
    assert "questions" in proc.stdout and "by domain and difficulty" in proc.stdout


def test_dataset_dir_loads_from_any_directory(tmp_path, monkeypatch):
    import mirror_hf
    from datasets import load_dataset

    monkeypatch.setenv("MIRROR_HF_CACHE", str(tmp_path / "cache"))
    monkeypatch.chdir(tmp_path)
    folder = mirror_hf.dataset_dir()
    assert folder.is_dir() and folder.is_absolute()
    ds = load_dataset(str(folder), "questions", split="test")
    assert len(ds) == 625 * len(available_domains())
    assert mirror_hf.dataset_dir() == folder  # built once, reused


def test_rebuild_keeps_run_data_of_the_same_form_and_refuses_another_form(tmp_path):
    from mirror_hf.folder import write_split
    from mirror_hf.records import TRIAL_EXP1_FEATURES, empty_row

    out = _build(tmp_path)
    row = {**empty_row(TRIAL_EXP1_FEATURES), "model": "m", "item_id": "q1", "channel": "natural"}
    trial_file = write_split(out, "trials_exp1", "m", [row], TRIAL_EXP1_FEATURES)
    (out / ".runs" / "m").mkdir(parents=True)
    (out / ".runs" / "m" / "exp1.jsonl").write_text('{"k": 1}\n')
    trial_bytes = trial_file.read_bytes()

    build(BuildRequest(out=out, seed=0, per_domain=PER_DOMAIN))  # same version, seed and size
    assert trial_file.read_bytes() == trial_bytes  # same content-hashed name, same bytes
    assert (out / ".runs" / "m" / "exp1.jsonl").read_text() == '{"k": 1}\n'
    assert "trials_exp1" in (out / "README.md").read_text()

    with pytest.raises(BuildError, match="holds run data"):
        build(BuildRequest(out=out, seed=5, per_domain=PER_DOMAIN))
    assert (out / ".runs" / "m" / "exp1.jsonl").exists()
    build(BuildRequest(out=out, seed=5, per_domain=PER_DOMAIN, force=True))
    assert "trials_exp1" not in split_files(out) and not (out / ".runs").exists()
