"""`mirror-hf push` merges, never overwrites: two folders push two models to one repo on the fake Hub,
one after the other and at the same time (the fake Hub refuses a commit whose parent is no longer the
head, as the Hub does); afterwards both splits load from the Hub with `datasets`, and the card, the
Croissant file (loaded with mlcroissant) and the run manifests list both. A split pushed again with
different content is refused in one line unless --replace."""

from __future__ import annotations

import json
import os
import shutil
import subprocess

import pytest
import yaml
from fakes.servers import fake_hub, openai_server
from runner_fixtures import MIRROR_HF, REPO, cli, read_split
from test_hub_push import _hub_env, _python, _run_model, _scan_for_secrets

MODELS = {"acme/first": "acme_first", "acme/second": "acme_second"}


@pytest.fixture(scope="module")
def two_runs(built_folder, tmp_path_factory):
    """Two copies of one build, each with one model's Exp1 trials (8 items x 2 channels), run once
    for the module."""
    root = tmp_path_factory.mktemp("two_runs")
    first, other = root / "first" / "mirror", root / "other" / "mirror"
    for folder in (first, other):
        shutil.copytree(built_folder, folder)
    with openai_server() as url:
        _run_model(first, url, "acme/first", "--api-key-env", "MY_PROVIDER_KEY")
        _run_model(other, url, "acme/second", "--api-key-env", "MY_PROVIDER_KEY")
    return first, other


@pytest.fixture
def two_folders(two_runs, tmp_path):
    """A private copy of the two folders for one test (tests push, replace and rerun in them)."""
    copies = (tmp_path / "mirror", tmp_path / "other" / "mirror")
    for source, target in zip(two_runs, copies, strict=True):
        shutil.copytree(source, target)
    return copies


def _card_yaml(repo) -> dict:
    text = (repo / "README.md").read_text()
    return yaml.safe_load(text.split("---\n")[1])


def _assert_both_listed(repo, env, folders) -> None:
    # datasets loads both splits from the Hub (and checks their sizes against dataset_info)
    out = _python(
        "from datasets import load_dataset\n"
        + "".join(f"print(load_dataset('org/mirror', 'trials_exp1', split='{s}').num_rows)\n" for s in MODELS.values()), env)
    expected = [read_split(f, "trials_exp1", s).height for f, s in zip(folders, MODELS.values(), strict=True)]
    assert [int(x) for x in out.split()] == expected
    card = _card_yaml(repo)
    trials = next(c for c in card["configs"] if c["config_name"] == "trials_exp1")
    assert sorted(d["split"] for d in trials["data_files"]) == sorted(MODELS.values())
    info = next(i for i in card["dataset_info"] if i["config_name"] == "trials_exp1")
    assert {s["name"]: s["num_examples"] for s in info["splits"]} == dict(zip(MODELS.values(), expected, strict=True))
    body = (repo / "README.md").read_text()
    for model, split in MODELS.items():
        assert f"| `trials_exp1` | `{split}` | {model} |" in body  # the card's runs table
        manifest = json.loads((repo / "runs" / "trials_exp1" / f"{split}.json").read_text())
        assert manifest["model"] == model and manifest["generation"]["temperature"] == 0.0
        assert manifest["settings"]["matcher"] == "strict" and manifest["dataset"]["build_hash"]
        assert manifest["started"] <= manifest["finished"] and manifest["endpoint"].startswith("http://127.0.0.1:")
        assert f"| {manifest['started']} | {manifest['finished']} | `runs/trials_exp1/{split}.json` |" in body
    # the Croissant file names both files and mlcroissant reads every record of both splits from the repo
    import mlcroissant as mlc

    croissant = json.loads((repo / "croissant.json").read_text())
    assert croissant["url"] == "https://huggingface.co/datasets/org/mirror"
    names = {d["name"] for d in croissant["distribution"]}
    for split in MODELS.values():
        assert any(n.startswith(f"data/trials_exp1/{split}-") for n in names)
    records = list(mlc.Dataset(jsonld=str(repo / "croissant.json")).records("trials_exp1"))
    assert len(records) == sum(expected)
    assert {r["trials_exp1/split"].decode() for r in records} == set(MODELS.values())


def test_two_folders_push_one_after_the_other(two_folders, tmp_path):
    first, second = two_folders
    repo = tmp_path / "hub" / "datasets" / "org" / "mirror"
    with fake_hub(tmp_path / "hub") as endpoint:
        env = _hub_env(endpoint, tmp_path)
        a = cli("push", "--dataset", str(first), "--repo", "org/mirror", env=env)
        b = cli("push", "--dataset", str(second), "--repo", "org/mirror", "--only-trials", env=env)
        assert "load it: load_dataset('org/mirror', 'trials_exp1', split='acme_second')" in b.stdout
        _assert_both_listed(repo, env, [first, second])

        # the same split again from the first folder, different content: refused in one line, nothing changed
        with openai_server() as url:
            _run_model(second, url, "acme/first", "--api-key-env", "MY_PROVIDER_KEY", "--temperature", "0.3")
        before = sorted(p.relative_to(repo).as_posix() for p in repo.rglob("*") if p.is_file())
        refused = cli("push", "--dataset", str(second), "--repo", "org/mirror", "--only-trials", env=env, check=False)
        assert refused.returncode == 2 and refused.stdout == ""
        assert len(refused.stderr.strip().splitlines()) == 1 and "trials_exp1/acme_first" in refused.stderr
        assert "--replace" in refused.stderr and "Traceback" not in refused.stderr
        assert sorted(p.relative_to(repo).as_posix() for p in repo.rglob("*") if p.is_file()) == before

        # with --replace it goes up; the old file goes away, the other model's split stays
        cli("push", "--dataset", str(second), "--repo", "org/mirror", "--only-trials", "--replace", env=env)
        on_hub = sorted(p.name for p in (repo / "data" / "trials_exp1").glob("acme_first-*.parquet"))
        assert on_hub == sorted(p.name for p in (second / "data" / "trials_exp1").glob("acme_first-*.parquet"))
        assert len(list((repo / "data" / "trials_exp1").glob("acme_second-*.parquet"))) == 1
        manifest = json.loads((repo / "runs" / "trials_exp1" / "acme_first.json").read_text())
        assert manifest["generation"]["temperature"] == 0.3
    _scan_for_secrets([first, second, tmp_path / "hub"], [a.stdout, a.stderr, b.stdout, b.stderr, refused.stderr])


def test_two_folders_push_at_the_same_time(two_folders, tmp_path):
    """Both pushes plan on the same head (the fake Hub holds the first two commits until both have
    arrived); one commit is refused with 412, and that push plans again on the new head."""
    first, second = two_folders
    repo = tmp_path / "hub" / "datasets" / "org" / "mirror"
    with fake_hub(tmp_path / "hub", hold_commits=2) as endpoint:
        env = {**os.environ, **_hub_env(endpoint, tmp_path)}
        procs = [subprocess.Popen([*MIRROR_HF, "push", "--dataset", str(f), "--repo", "org/mirror"], env=env, cwd=REPO,
                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for f in (first, second)]
        outputs = [p.communicate(timeout=300) for p in procs]
        assert [p.returncode for p in procs] == [0, 0], outputs
        log = (tmp_path / "hub" / "commits.log").read_text().splitlines()
        assert [line.split()[0] for line in log].count("412") == 1, log  # they did race
        assert [line.split()[0] for line in log].count("200") == 2, log
        assert sum("concurrent commit" in out for out, _ in outputs) == 1
        _assert_both_listed(repo, _hub_env(endpoint, tmp_path), [first, second])
    _scan_for_secrets([first, second, tmp_path / "hub"], [text for pair in outputs for text in pair])


def test_conflicting_question_bank_refused_for_only_trials(two_folders, tmp_path):
    """Trials run on another build may not be pushed into a repo holding a different bank."""
    first, second = two_folders
    with fake_hub(tmp_path / "hub") as endpoint:
        env = _hub_env(endpoint, tmp_path)
        cli("push", "--dataset", str(first), "--repo", "org/mirror", env=env)
        from mirror_hf.folder import split_files, write_split
        from mirror_hf.records import QUESTION_FEATURES

        q = next(f for f in split_files(second)["questions"])
        rows = read_split(second, "questions", "test").head(5).to_dicts()
        q.path.unlink()
        write_split(second, "questions", "test", rows, QUESTION_FEATURES)
        from mirror_hf.metadata import refresh_metadata

        refresh_metadata(second)  # a consistent folder of another build (push refuses a stale card first)
        proc = cli("push", "--dataset", str(second), "--repo", "org/mirror", "--only-trials", env=env, check=False)
    assert proc.returncode == 2 and len(proc.stderr.strip().splitlines()) == 1
    assert "questions/test" in proc.stderr and "another build" in proc.stderr


def test_plan_merge_is_a_union():
    from mirror_hf.hub import HubError, plan_merge

    remote = ["README.md", "data/questions/test-aaaaaaaaaaaa.parquet", "data/trials_exp1/m1-bbbbbbbbbbbb.parquet"]
    local = ["README.md", "data/questions/test-aaaaaaaaaaaa.parquet", "data/trials_exp1/m2-cccccccccccc.parquet"]
    plan = plan_merge(local, remote, "o/r", replace=False, only_trials=False)
    assert plan.upload == ("data/trials_exp1/m2-cccccccccccc.parquet",) and plan.delete == ()
    assert sorted(plan.merged.values()) == sorted(set(remote[1:] + local[1:]))
    clash = ["data/trials_exp1/m1-dddddddddddd.parquet"]
    with pytest.raises(HubError, match="trials_exp1/m1 with different content"):
        plan_merge(clash, remote, "o/r", replace=False, only_trials=True)
    plan = plan_merge(clash, remote, "o/r", replace=True, only_trials=True)
    assert plan.delete == ("data/trials_exp1/m1-bbbbbbbbbbbb.parquet",) and plan.merged[("trials_exp1", "m1")] == clash[0]


def _bounds(label: str) -> tuple[float, float]:
    """'1K<n<10K' -> (1000, 10000); 'n<1K' -> (0, 1000); 'n>1B' -> (1e9, inf)."""
    scale = {"K": 1e3, "M": 1e6, "B": 1e9, "T": 1e12}

    def num(text):
        return float(text[:-1]) * scale[text[-1]] if text[-1] in scale else float(text)

    if label.startswith("n<"):
        return 0, num(label[2:])
    if label.startswith("n>"):
        return num(label[2:]), float("inf")
    low, high = label.split("<n<")
    return num(low), num(high)


def test_card_sizes_are_computed_from_the_data(two_folders):
    import pyarrow.parquet as pq

    from mirror_hf.folder import split_files

    folder = two_folders[0]
    card = _card_yaml(folder)
    files = split_files(folder)
    rows = {(c, f.split): pq.read_metadata(f.path).num_rows for c, fs in files.items() for f in fs}
    low, high = _bounds(card["size_categories"][0])
    assert low <= sum(rows.values()) < high
    for info in card["dataset_info"]:
        config = info["config_name"]
        assert {s["name"]: s["num_examples"] for s in info["splits"]} == {s: n for (c, s), n in rows.items() if c == config}
        assert info["download_size"] == sum(f.path.stat().st_size for f in files[config])
    # a local folder has no Hub URL: its Croissant points at the project, its snippet at the folder
    assert json.loads((folder / "croissant.json").read_text())["url"].startswith("https://github.com/")
    assert 'load_dataset("mirror", "questions"' in (folder / "README.md").read_text()
