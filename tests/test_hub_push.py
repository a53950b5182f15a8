"""`mirror-hf push` and `export-eval-results` against a fake Hub on 127.0.0.1, then `load_dataset` of
the pushed repo back from it; and no secret in anything a run or a push writes or prints."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
import yaml
from fakes.servers import fake_hub, openai_server
from runner_fixtures import REPO, cli, cli_inproc, read_split

HF_TOKEN = "hf_fakeTOKEN_4f2b9c1d7e"
API_KEY = "sk-fakeKEY-8a7b6c5d4e3f"
URL_SECRET = "urlKEY-3c9d1e7f5a"  # a key some providers take in the base URL's query


def _hub_env(endpoint: str, tmp_path) -> dict:
    return {
        "HF_ENDPOINT": endpoint, "HF_HUB_DISABLE_XET": "1", "HF_TOKEN": HF_TOKEN, "HF_HUB_OFFLINE": "0",
        "HF_DATASETS_OFFLINE": "0", "HF_HOME": str(tmp_path / "hf_home_client"), "HF_HUB_DISABLE_PROGRESS_BARS": "1",
    }


def _python(code: str, env: dict) -> str:
    proc = subprocess.run([sys.executable, "-c", code], check=False, capture_output=True, text=True, env={**os.environ, **env}, cwd=REPO, timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return proc.stdout


def _run_model(dataset, url, model, *extra):
    cli_inproc("run", "--dataset", str(dataset), "--model", model, "--base-url", f"{url}?api_key={URL_SECRET}", "--no-progress",
               "--limit", "8", "--channels", "natural,wagering", *extra, env={"MY_PROVIDER_KEY": API_KEY})


def _scan_for_secrets(roots, texts) -> None:
    for root in roots:
        for path in root.rglob("*"):
            if path.is_file() and path.name != "auth.log":
                data = path.read_bytes()
                assert HF_TOKEN.encode() not in data and API_KEY.encode() not in data and URL_SECRET.encode() not in data, path
    for text in texts:
        assert HF_TOKEN not in text and API_KEY not in text and URL_SECRET not in text


def _push_and_load_back(dataset, url, tmp_path, endpoint):
    env = _hub_env(endpoint, tmp_path)
    _run_model(dataset, url, "acme/first", "--api-key-env", "MY_PROVIDER_KEY")
    pushed = cli("push", "--dataset", str(dataset), "--repo", "org/mirror", env=env)
    assert "pushed" in pushed.stdout
    repo = tmp_path / "hub" / "datasets" / "org" / "mirror"
    assert (repo / "README.md").is_file() and (repo / "croissant.json").is_file()
    assert not (repo / ".runs").exists()  # the results cache stays local
    out = _python(
        "from datasets import load_dataset\n"
        "t = load_dataset('org/mirror', 'trials_exp1', split='acme_first')\n"
        "q = load_dataset('org/mirror', 'questions', split='test')\n"
        "print(t.num_rows, q.num_rows, sorted(set(t['channel'])))\n", env)
    n_questions = read_split(dataset, "questions", "test").height
    assert out.split() == ["16", str(n_questions), "['natural',", "'wagering']"]
    return env, repo, pushed


def test_push_then_load_back_with_no_secret_written(dataset, tmp_path):
    with openai_server() as url, fake_hub(tmp_path / "hub") as endpoint:
        _, _, pushed = _push_and_load_back(dataset, url, tmp_path, endpoint)
    # the token did travel (so the scan below can fail), and nothing wrote it or the API key down
    assert f"Bearer {HF_TOKEN}" in (tmp_path / "hub" / "auth.log").read_text()
    _scan_for_secrets([dataset, tmp_path / "hub"], [pushed.stdout, pushed.stderr])


@pytest.mark.slow
def test_push_only_new_trials_and_replaced_splits(dataset, tmp_path):
    with openai_server() as url, fake_hub(tmp_path / "hub") as endpoint:
        env, repo, pushed = _push_and_load_back(dataset, url, tmp_path, endpoint)
        # a second model, then only its new split goes up (plus the card and Croissant)
        _run_model(dataset, url, "acme/second", "--api-key-env", "MY_PROVIDER_KEY")
        before = {p.relative_to(repo).as_posix() for p in repo.rglob("*") if p.is_file()}
        only = cli("push", "--dataset", str(dataset), "--repo", "org/mirror", "--only-trials", env=env)
        after = {p.relative_to(repo).as_posix() for p in repo.rglob("*") if p.is_file()}
        new = sorted(after - before)
        assert len(new) == 2 and new[0].startswith("data/trials_exp1/acme_second-"), new
        assert new[1] == "runs/trials_exp1/acme_second.json"
        again = cli("push", "--dataset", str(dataset), "--repo", "org/mirror", "--only-trials", env=env)
        assert "nothing to push" in again.stdout
        out = _python("from datasets import load_dataset\n"
                      "print(load_dataset('org/mirror', 'trials_exp1', split='acme_second').num_rows)\n", env)
        assert out.strip() == "16"

        # a rerun of the first model replaces its split with --replace: the old file goes away on the Hub too
        _run_model(dataset, url, "acme/first", "--api-key-env", "MY_PROVIDER_KEY", "--restart", "--temperature", "0.2")
        cli("push", "--dataset", str(dataset), "--repo", "org/mirror", "--only-trials", "--replace", env=env)
        firsts = sorted(p.name for p in (repo / "data" / "trials_exp1").glob("acme_first-*.parquet"))
        local = sorted(p.name for p in (dataset / "data" / "trials_exp1").glob("acme_first-*.parquet"))
        assert firsts == local and len(firsts) == 1
    _scan_for_secrets([dataset, tmp_path / "hub"], [pushed.stdout, pushed.stderr, only.stdout, only.stderr])


def test_only_trials_needs_the_repo_first(dataset, tmp_path):
    with fake_hub(tmp_path / "hub") as endpoint:
        proc = cli("push", "--dataset", str(dataset), "--repo", "org/absent", "--only-trials", env=_hub_env(endpoint, tmp_path), check=False)
    assert proc.returncode == 2 and "push the whole folder first" in proc.stderr


def test_export_eval_results_writes_and_uploads_yaml(dataset, tmp_path):
    with openai_server() as url:
        _run_model(dataset, url, "acme/first")
    out = tmp_path / "eval_results"
    with fake_hub(tmp_path / "hub") as endpoint:
        env = _hub_env(endpoint, tmp_path)
        _python("from huggingface_hub import HfApi\nHfApi().create_repo('acme/first', repo_type='model')\n", env)
        proc = cli("export-eval-results", "--dataset", str(dataset), "--model", "acme/first", "--dataset-repo", "org/mirror",
                   "--revision", "0" * 40, "--out", str(out), "--model-repo", "acme/first", "--no-pr", env=env)
        uploaded = tmp_path / "hub" / "models" / "acme" / "first" / ".eval_results" / "mirror.yaml"
        assert uploaded.is_file(), proc.stdout
    entries = yaml.safe_load((out / "mirror.yaml").read_text())
    assert uploaded.read_text() == (out / "mirror.yaml").read_text()
    by_task = {e["dataset"]["task_id"]: e for e in entries}
    from mirror_hf.experiments import get

    assert {"exp1_natural_accuracy", "exp1_wagering_accuracy", "exp1_mirror_gap"} <= set(by_task)
    assert set(by_task) <= {h.key for h in get("exp1").headlines}
    assert all(e["dataset"]["id"] == "org/mirror" for e in entries)
    trials = read_split(dataset, "trials_exp1", "acme_first")
    # macro accuracy recomputed here: mean over domains of each domain's share correct among graded
    natural = trials.filter(trials["channel"] == "natural").drop_nulls("correct")
    accs = [g["correct"].cast(float).mean() for _, g in natural.group_by("domain")]
    assert by_task["exp1_natural_accuracy"]["value"] == pytest.approx(sum(accs) / len(accs), abs=1e-4)
    assert json.loads(json.dumps(entries))  # plain YAML types only
