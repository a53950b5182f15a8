"""Mirror through Inspect and back: `inspect eval mirror_hf/<task>` (the real Inspect CLI, found
through the package's entry point) against the test suite's OpenAI-compatible server, then
`mirror-hf import-inspect` of its log; the imported trials equal a `mirror-hf run` of the same items
field by field (prompts, parsed fields, grades), except the fields that name the run itself.
Skipped with a reason where the `inspect` extra is not installed."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from fakes.servers import openai_server
from runner_fixtures import cli, cli_inproc, read_split
from test_hub_push import _scan_for_secrets

pytest.importorskip("inspect_ai", reason="the inspect extra is not installed (pip install -e '.[inspect]')")

KEY = "sk-fakeINSPECT-5e4d3c2b1a"
# Fields that describe the run rather than the trial: which run, its request key (hashes the base URL
# and client), timing, retries, and the provider's fingerprint.
RUN_FIELDS = {"run_id", "request_key", "latency_ms", "attempts", "system_fingerprint"}


def _inspect(task: str, url: str, logs: Path, *targs: str) -> Path:
    inspect = Path(sys.executable).with_name("inspect")
    env = {**os.environ, "LOCAL_BASE_URL": url, "LOCAL_API_KEY": KEY, "INSPECT_LOG_DIR": str(logs)}
    args = [str(inspect), "eval", f"mirror_hf/{task}", "--model", "openai-api/local/acme-first", "--display", "none",
            "--log-dir", str(logs)]
    for t in targs:
        args += ["-T", t]
    before = set(logs.glob("*.eval")) if logs.is_dir() else set()
    proc = subprocess.run(args, check=False, capture_output=True, text=True, env=env, timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:] + proc.stdout[-2000:]
    new = sorted(set(logs.glob("*.eval")) - before)
    assert len(new) == 1, (new, proc.stdout[-2000:])
    return new[0]


def _compare(dataset, experiment: str, keys: list[str]) -> int:
    ours = read_split(dataset, f"trials_{experiment}", "acme_first")
    theirs = read_split(dataset, f"trials_{experiment}", "via_inspect")
    columns = [c for c in ours.columns if c not in RUN_FIELDS]
    a = ours.select(columns).sort(keys)
    b = theirs.select(columns).sort(keys)
    assert a.height == b.height > 0
    for column in columns:
        assert a[column].to_list() == b[column].to_list(), column
    graded = [c for c in columns if "correct" in c and a[c].null_count() < a.height]
    assert graded, "nothing was graded"  # exp1: correct; exp9: the components' grades
    return a.height


def test_inspect_round_trip_matches_mirror_hf_run(dataset, tmp_path):
    logs = tmp_path / "logs"
    with openai_server() as url:
        base = ("--dataset", str(dataset), "--model", "acme-first", "--base-url", url, "--no-progress", "--api-key-env", "MY_KEY")
        cli_inproc("run", *base, "--limit", "8", "--channels", "natural,wagering,opt_out", env={"MY_KEY": KEY})
        cli_inproc("profile", "--dataset", str(dataset), "--model", "acme-first")
        cli_inproc("run", *base, "--experiment", "exp9", "--limit", "2", "--max-tokens", "200", env={"MY_KEY": KEY})
        exp1_log = _inspect("exp1", url, logs, f"dataset={dataset}", "limit=8", "channels=natural,wagering,opt_out")
        exp9_log = _inspect("exp9", url, logs, f"dataset={dataset}", "limit=2", "split=acme_first", "max_tokens=200")
    imported = cli("import-inspect", str(exp1_log), str(exp9_log), "--dataset", str(dataset), "--split", "via_inspect")
    assert "trials_exp1/via_inspect" in imported.stdout and "trials_exp9/via_inspect" in imported.stdout
    n1 = _compare(dataset, "exp1", ["item_id", "channel"])
    n9 = _compare(dataset, "exp9", ["item_id", "condition", "paradigm"])
    assert n1 == 8 * 3
    exp9 = read_split(dataset, "trials_exp9", "via_inspect")
    assert set(exp9["condition"]) == {"C1", "C2", "C3", "C4"} and n9 == exp9.height
    print(f"compared {n1} exp1 and {n9} exp9 trials field by field: identical")
    # provenance says where the split came from; no secret in the folder, the logs or the output
    from mirror_hf.runner.trials import read_manifest

    manifest = read_manifest(next((dataset / "data" / "trials_exp9").glob("via_inspect-*.parquet")))
    assert manifest["source"] == "inspect" and manifest["inspect_task"] == "mirror_hf/exp9"
    # Inspect took the base URL from LOCAL_BASE_URL, which its log does not record: the provider stands in
    assert manifest["endpoint"] == "inspect:openai-api/local" and manifest["started"] and manifest["finished"]
    for root in (dataset, logs):
        for path in root.rglob("*"):
            if path.is_file():
                assert KEY.encode() not in path.read_bytes(), path
    _scan_for_secrets([dataset], [imported.stdout, imported.stderr])
    _refuses_a_log_of_another_build(exp1_log, tmp_path, dataset)


def _refuses_a_log_of_another_build(log, tmp_path, dataset):
    other = tmp_path / "other" / "mirror"
    shutil.copytree(dataset, other)
    from mirror_hf.folder import split_files, write_split
    from mirror_hf.records import QUESTION_FEATURES

    rows = read_split(other, "questions", "test").to_dicts()
    for row in rows:
        row["question"] = row["question"] + " (reworded)"
    next(iter(split_files(other)["questions"])).path.unlink()
    write_split(other, "questions", "test", rows, QUESTION_FEATURES)
    from mirror_hf.metadata import refresh_metadata

    refresh_metadata(other)  # a consistent folder of another build (a stale card is refused before the log is read)
    proc = cli("import-inspect", str(log), "--dataset", str(other), check=False)
    assert proc.returncode == 2 and len(proc.stderr.strip().splitlines()) == 1
    assert "another dataset folder" in proc.stderr and "Traceback" not in proc.stderr
    missing = cli("import-inspect", str(tmp_path / "nope.eval"), "--dataset", str(dataset), check=False)
    assert missing.returncode == 2 and "no such log file" in missing.stderr




def test_eval_yaml_solvers_and_scorers_resolve_in_inspect(dataset):
    """Every solver and scorer eval.yaml names is registered by mirror_hf.inspect_tasks and accepts
    the arguments given there (Inspect's own registry creates them)."""
    import yaml
    from inspect_ai._util.entrypoints import ensure_entry_points
    from inspect_ai._util.registry import registry_info
    from inspect_ai.scorer._scorer import scorer_create
    from inspect_ai.solver._solver import solver_create

    ensure_entry_points("mirror_hf")

    def create(make, name, args):
        try:
            return make(name, **args)
        except LookupError:  # an editable install registers without the package prefix
            return make(name.split("/", 1)[1], **args)

    spec = yaml.safe_load((dataset / "eval.yaml").read_text())
    for task in spec["tasks"]:
        for entry in task["solvers"]:
            assert registry_info(create(solver_create, entry["name"], entry.get("args", {}))).name.endswith(entry["name"].split("/")[1])
        for entry in task["scorers"]:
            assert registry_info(create(scorer_create, entry["name"], entry.get("args", {}))).name.endswith("mirror_grade")
