"""The embedded local model (SmolLM2-135M in llama.cpp's OpenAI-compatible server) through the real
runner path. The model is tiny and mostly wrong: these tests check plumbing, never accuracy."""

from __future__ import annotations

import importlib.util

import polars as pl
import pytest
from runner_fixtures import cli, cli_inproc, read_split

from mirror_hf import embedded

pytestmark = pytest.mark.embedded


def _require_embedded():
    try:
        embedded.check_available()
    except embedded.EmbeddedUnavailable as exc:
        pytest.skip(f"embedded model not installed: {exc}")


def _check_exp1(dataset, items: int, channels: list[str]):
    trials = read_split(dataset, "trials_exp1", "smollm2")
    assert trials.height == items * len(channels)
    assert trials.select("item_id", "channel").n_unique() == trials.height
    assert set(trials["channel"]) == set(channels)
    assert trials["api_error"].is_null().all()
    assert (trials["raw_response"].str.len_chars() > 0).all()
    assert (trials["prompt_tokens"] > 0).all() and (trials["completion_tokens"] > 0).all()
    assert trials["finish_reason"].is_in(["stop", "length"]).all()
    assert (trials["truncated"] == (trials["finish_reason"] == "length")).all()
    # graded or ungraded, never guessed: a wrong-format answer is null, not False
    assert trials["correct"].dtype == pl.Boolean


def test_embedded_exp1_small(dataset):
    _require_embedded()
    cli_inproc("run", "--dataset", str(dataset), "--limit", "4", "--channels", "natural,wagering", "--max-tokens", "16", "--no-progress")
    _check_exp1(dataset, 4, ["natural", "wagering"])
    from datasets import load_dataset

    loaded = load_dataset(str(dataset), "trials_exp1", split="smollm2")
    assert loaded.num_rows == 8 and all(loaded["raw_response"])


@pytest.mark.slow
def test_embedded_exp1_limit_16_all_channels(dataset):
    """The acceptance run: `mirror-hf run --experiment exp1 --limit 16` on the embedded model."""
    _require_embedded()
    cli("run", "--dataset", str(dataset), "--experiment", "exp1", "--limit", "16", "--max-tokens", "32", "--no-progress", timeout=1800)
    trials = read_split(dataset, "trials_exp1", "smollm2")
    paired = trials.filter(pl.col("channel") == "difficulty_selection")["item_id"].n_unique()
    assert trials.height == 16 * 4 + paired  # difficulty selection only for items that have a pair
    others = trials.filter(pl.col("channel") != "difficulty_selection")
    assert others.height == 64 and others.select("item_id", "channel").n_unique() == 64
    from datasets import load_dataset

    loaded = load_dataset(str(dataset), "trials_exp1", split="smollm2")
    assert loaded.num_rows == trials.height
    assert len(set(zip(loaded["item_id"], loaded["channel"]))) == loaded.num_rows
    assert all(loaded["raw_response"]) and all(n > 0 for n in loaded["prompt_tokens"]) and all(n > 0 for n in loaded["completion_tokens"])


def test_embedded_server_starts_answers_and_stops():
    _require_embedded()
    import json
    import os
    import urllib.request

    with embedded.embedded_server() as server:
        body = json.dumps({"model": server.model, "messages": [{"role": "user", "content": "Say hi."}], "max_tokens": 8,
                           "temperature": 0}).encode()
        request = urllib.request.Request(f"{server.base_url}/chat/completions", body, {"Content-Type": "application/json"})
        with urllib.request.urlopen(request, timeout=120) as reply:
            answer = json.loads(reply.read())
        pid = server.pid
    assert answer["choices"][0]["message"]["content"] and answer["usage"]["completion_tokens"] > 0
    with pytest.raises(ProcessLookupError):
        os.kill(pid, 0)  # stopped with the block


def test_missing_local_extra_names_the_install_command(monkeypatch, dataset):
    real = importlib.util.find_spec
    monkeypatch.setattr(embedded.importlib.util, "find_spec", lambda name, *a: None if name == "llama_cpp" else real(name, *a))
    proc = cli_inproc("run", "--dataset", str(dataset), "--limit", "1", "--no-progress", check=False)
    assert proc.returncode == 2
    assert "missing: llama_cpp" in proc.stderr and embedded.INSTALL_COMMAND in proc.stderr
    assert not (dataset / ".runs").exists()  # refused before creating anything


@pytest.mark.slow
def test_quickstart_runs_all_three_experiments_on_the_embedded_model(dataset):
    _require_embedded()
    proc = cli("quickstart", "--dataset", str(dataset), "--per-domain", "1", "--exp3-tasks", "1", "--exp9-tasks", "1",
               "--max-tokens", "16", "--no-progress", timeout=1800)
    assert "trials written:" in proc.stdout and "headline numbers" in proc.stdout
    for experiment in ("exp1", "exp3", "exp9"):
        assert f"trials_{experiment}/smollm2" in proc.stdout
        assert read_split(dataset, f"trials_{experiment}", "smollm2").height > 0
    assert read_split(dataset, "profiles", "smollm2").height > 0
    # a second quickstart resumes everything: no new request
    again = cli("quickstart", "--dataset", str(dataset), "--per-domain", "1", "--exp3-tasks", "1", "--exp9-tasks", "1",
                "--max-tokens", "16", "--no-progress", timeout=600)
    assert again.stdout.count("0 requests sent") == 3


def test_the_embedded_server_dies_with_the_process_that_started_it(tmp_path):
    """A run killed with SIGKILL cannot stop its server in a `finally`; the server must not live on
    as an orphan (it did, holding a core, after a test timeout)."""
    import os
    import signal
    import subprocess
    import sys
    import time

    _require_embedded()
    script = (
        "import sys, time\n"
        "from mirror_hf.embedded import embedded_server\n"
        "with embedded_server() as server:\n"
        "    print(server.pid, flush=True)\n"
        "    time.sleep(600)\n"
    )
    parent = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True)
    try:
        server_pid = int(parent.stdout.readline())
        os.kill(server_pid, 0)  # it is running
        parent.send_signal(signal.SIGKILL)
        parent.wait()
        deadline = time.monotonic() + 30  # a liveness bound, not a speed check
        while time.monotonic() < deadline:
            try:
                os.kill(server_pid, 0)
            except ProcessLookupError:
                break
            time.sleep(0.1)
        else:
            os.kill(server_pid, signal.SIGKILL)
            pytest.fail(f"the embedded server {server_pid} outlived its parent by 30 s")
    finally:
        if parent.poll() is None:
            parent.kill()
