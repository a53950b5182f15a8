"""Benchmark registration: the dataset root's `eval.yaml` defines every headline task (with its
direction), `export-eval-results` writes an `.eval_results` entry for every headline number the
model's splits support (CCE included) with task ids from eval.yaml, the dataset revision and the run
date, parsed back with huggingface_hub's own reader; errors are one line."""

from __future__ import annotations

import json

import pytest
import yaml
from fakes.servers import fake_hub, openai_server
from mirror_hf.dataset_builders import config_features
from runner_fixtures import cli, cli_inproc
from test_hub_push import _hub_env, _python, _scan_for_secrets

MODEL, SPLIT = "acme/first", "acme_first"


def _parse_eval_yaml(path) -> dict:
    """eval.yaml as the Hub documents it (huggingface_hub 2.4 has no reader for it): name, description,
    evaluation_framework, tasks[].id unique; with inspect-ai, each task has field_spec, solvers, scorers."""
    spec = yaml.safe_load(path.read_text())
    assert {"name", "description", "evaluation_framework", "tasks"} <= set(spec)
    ids = [t["id"] for t in spec["tasks"]]
    assert len(ids) == len(set(ids))
    if spec["evaluation_framework"] == "inspect-ai":
        for task in spec["tasks"]:
            assert {"field_spec", "solvers", "scorers"} <= set(task), task["id"]
    return spec


def test_eval_yaml_names_real_configs_and_fields(dataset):
    spec = _parse_eval_yaml(dataset / "eval.yaml")
    features = config_features(dataset)
    by_id = {t["id"]: t for t in spec["tasks"]}
    assert {"exp1_natural_accuracy", "exp1_wagering_accuracy", "exp1_mirror_gap", "exp1_mci", "exp3_cce", "exp9_kdi",
            "exp9_cfr_c1", "exp9_cfr_c2", "exp9_cfr_c3", "exp9_cfr_c4", "exp9_cfr_table_c1"} == set(by_id)
    for task in spec["tasks"]:
        assert task["config"] in features and task["split"] == "test", task["id"]
        for field in task["field_spec"].values():
            assert field in features[task["config"]], (task["id"], field)
    # direction: accuracies up, errors and failure rates down
    assert by_id["exp1_natural_accuracy"]["higher_is_better"] and by_id["exp1_wagering_accuracy"]["higher_is_better"]
    for down in ("exp1_mirror_gap", "exp3_cce", "exp9_cfr_c1", "exp9_cfr_c4"):
        assert by_id[down]["higher_is_better"] is False and "lower is better" in by_id[down]["description"]


def test_export_every_headline_number_with_revision_and_date(dataset, tmp_path):
    from huggingface_hub import parse_eval_result_entries

    with openai_server() as url:
        base = ("--dataset", str(dataset), "--model", MODEL, "--base-url", url, "--no-progress", "--api-key-env", "MY_PROVIDER_KEY")
        env = {"MY_PROVIDER_KEY": "sk-fakeKEY-8a7b6c5d4e3f"}
        cli_inproc("run", *base, "--limit", "40", "--channels", "natural,wagering", env=env)
        cli_inproc("profile", "--dataset", str(dataset), "--model", MODEL)
        cli_inproc("run", *base, "--experiment", "exp9", "--limit", "4", "--max-tokens", "200", env=env)
        cli_inproc("run", *base, "--experiment", "exp3", "--limit", "4", env=env)
    out = tmp_path / "eval_results"
    with fake_hub(tmp_path / "hub") as endpoint:
        hub = _hub_env(endpoint, tmp_path)
        cli("push", "--dataset", str(dataset), "--repo", "org/mirror", env=hub)
        head = _python("from huggingface_hub import HfApi\nprint(HfApi().repo_info('org/mirror', repo_type='dataset').sha)\n", hub).strip()
        proc = cli("export-eval-results", "--dataset", str(dataset), "--model", MODEL, "--dataset-repo", "org/mirror",
                   "--out", str(out), env=hub)
        # the pushed repo carries the same eval.yaml
        spec = _parse_eval_yaml(tmp_path / "hub" / "datasets" / "org" / "mirror" / "eval.yaml")
        missing = cli("export-eval-results", "--dataset", str(dataset), "--model", MODEL, "--dataset-repo", "org/mirror",
                      "--out", str(tmp_path / "again"), "--model-repo", "acme/absent", env=hub, check=False)
    entries = parse_eval_result_entries(yaml.safe_load((out / "mirror.yaml").read_text()))
    by_task = {e.task_id: e for e in entries}
    assert set(by_task) <= {t["id"] for t in spec["tasks"]}
    cli_inproc("score", "--dataset", str(dataset), "--resamples", "0", "--json", str(tmp_path / "s.json"))
    scores = json.loads((tmp_path / "s.json").read_text())["models"][MODEL]
    expected = {
        "exp1_natural_accuracy": scores["exp1"]["natural_accuracy"]["value"],
        "exp1_wagering_accuracy": scores["exp1"]["wagering_accuracy"]["value"],
        "exp1_mirror_gap": scores["exp1"]["mirror_gap"]["value"],
        "exp1_mci": scores["exp1"].get("mci", {}).get("value"),
        "exp9_cfr_table_c1": scores["exp9"]["cfr_table_c1"]["value"],
        "exp3_cce": scores["exp3"]["cce"]["value"],
        "exp9_kdi": scores["exp9"]["kdi"]["value"],
        **{f"exp9_cfr_{c.lower()}": v["value"] for c, v in scores["exp9"]["cfr"].items()},
    }
    expected = {k: v for k, v in expected.items() if v is not None}
    print("task | mirror-hf score | .eval_results")
    for task_id in sorted(expected):
        print(task_id, expected[task_id], by_task[task_id].value if task_id in by_task else None)
    assert "exp3_cce" in expected and "exp1_natural_accuracy" in expected
    assert set(by_task) == set(expected)
    for task_id, value in expected.items():
        assert by_task[task_id].value == pytest.approx(value, abs=5e-5), task_id
    for e in entries:
        assert e.dataset_id == "org/mirror" and e.dataset_revision == head and e.date and e.date.startswith("20")
    assert f"wrote {len(entries)} result(s)" in proc.stdout
    # a missing model repo: one line, exit 2, no traceback
    assert missing.returncode == 2 and len(missing.stderr.strip().splitlines()) == 1
    assert "acme/absent not found" in missing.stderr and "Traceback" not in missing.stderr
    _scan_for_secrets([dataset, out, tmp_path / "hub"], [proc.stdout, proc.stderr, missing.stderr])


def test_export_needs_a_revision_it_can_read(dataset, tmp_path):
    with openai_server() as url:  # a model with headline numbers: the revision is asked for only then
        cli_inproc("run", "--dataset", str(dataset), "--model", MODEL, "--base-url", url, "--no-progress", "--limit", "16",
                   "--channels", "natural,wagering", env={"OPENAI_API_KEY": "local-test-key"})
    with fake_hub(tmp_path / "hub") as endpoint:
        proc = cli("export-eval-results", "--dataset", str(dataset), "--model", MODEL, "--dataset-repo", "org/nothing",
                   "--out", str(tmp_path / "o"), env=_hub_env(endpoint, tmp_path), check=False)
    assert proc.returncode == 2 and len(proc.stderr.strip().splitlines()) == 1
    assert "org/nothing not found" in proc.stderr and "--revision" in proc.stderr
