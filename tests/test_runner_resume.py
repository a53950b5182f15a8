"""Crash-safe resume: `kill -9` the runner at several points of a run against a deterministic local
server, finish with `--resume`, and compare with an uninterrupted run of the same plan."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

import pytest
from fakes.servers import openai_server, server_stats
from runner_fixtures import REPO, cli_inproc, messages_digest, read_split

CHANNELS = "natural,wagering,opt_out"
COMPARED = [  # everything but the run id and the timings
    "model", "experiment", "item_id", "request_key", "prompt", "prompt_sha", "raw_response", "reasoning", "finish_reason",
    "truncated", "api_error", "attempts", "prompt_tokens", "completion_tokens", "temperature", "seed", "system_fingerprint",
    "domain", "subcategory", "difficulty", "channel", "answer", "parse_success", "refused", "correct", "confidence", "bet",
    "skipped", "hedging_count", "caveat_count", "response_length",
]


def _args(dataset, url, split, limit):
    return ["run", "--dataset", str(dataset), "--model", "acme/fake-1", "--base-url", url, "--split", split,
            "--limit", str(limit), "--channels", CHANNELS, "--concurrency", "2", "--no-progress"]


def _lines(path) -> int:
    try:
        return path.read_bytes().count(b"\n")
    except FileNotFoundError:
        return 0


def _kill_at(dataset, url, split, limit, at_lines: int | None, resume: bool) -> dict:
    """Start the runner, SIGKILL it once the results file holds `at_lines` lines (None: right away,
    while it is still starting), and return what it had recorded."""
    results = dataset / ".runs" / split / "exp1.jsonl"
    args = [sys.executable, "-m", "mirror_hf.cli", *_args(dataset, url, split, limit), *(["--resume"] if resume else [])]
    proc = subprocess.Popen(args, cwd=REPO, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        deadline = time.monotonic() + 120
        if at_lines is None:
            time.sleep(0.2)
        else:
            while _lines(results) < at_lines and proc.poll() is None and time.monotonic() < deadline:
                time.sleep(0.002)
        finished_before_kill = proc.poll() is not None
        os.kill(proc.pid, signal.SIGKILL)
    finally:
        proc.wait()
    assert not finished_before_kill, f"the runner ended before the kill point: {proc.stderr.read().decode()[-2000:]}"
    return {"lines": _lines(results)}


def _check_resume(dataset, fractions):
    limit = 24
    total = limit * 3
    with openai_server(think_rate=0.3, delay_s=0.03) as url:
        kills, recorded_keys_at_kill = [], []
        for i, fraction in enumerate(fractions):
            at = None if fraction is None else max(1, int(total * fraction))
            kills.append(_kill_at(dataset, url, "killed", limit, at, resume=i > 0))
            results = dataset / ".runs" / "killed" / "exp1.jsonl"
            keys = {line.split('"k":"')[1].split('"')[0] for line in results.read_text().splitlines() if '"k":"' in line} if results.exists() else set()
            recorded_keys_at_kill.append((keys, server_stats(url)["requests"]))
        seen_before_final = dict(server_stats_detail(url))
        cli_inproc(*_args(dataset, url, "killed", limit), "--resume")
        seen_after = server_stats_detail(url)
        # the uninterrupted reference, same server (same base URL, so the same request keys)
        cli_inproc(*_args(dataset, url, "reference", limit))
    reference = read_split(dataset, "trials_exp1", "reference")
    assert reference.height == total

    killed = read_split(dataset, "trials_exp1", "killed")
    # nothing lost, nothing twice
    assert killed.height == total and killed.select("item_id", "channel").n_unique() == total
    # the same records as the uninterrupted run, field by field
    key = ["item_id", "channel"]
    a = reference.select(COMPARED).sort(key)
    b = killed.select(COMPARED).sort(key)
    assert a.equals(b), "resumed split differs from the uninterrupted one"
    assert set(killed["request_key"]) == set(reference["request_key"])
    # a request recorded before a kill was never sent again
    digest_of = {k: messages_digest(p) for k, p in zip(killed["request_key"], killed["prompt"])}
    recorded_any = set().union(*(keys for keys, _ in recorded_keys_at_kill))
    for k in recorded_any:
        assert seen_after[digest_of[k]] == seen_before_final.get(digest_of[k], 0), k
    assert all(seen_after[digest_of[k]] <= 1 + len(fractions) for k in digest_of)
    # the results file ends whole (a torn line would have been truncated away)
    assert (dataset / ".runs" / "killed" / "exp1.jsonl").read_bytes().endswith(b"\n")
    return kills


def server_stats_detail(url: str) -> dict:
    import json
    import urllib.request

    with urllib.request.urlopen(url.rsplit("/v1", 1)[0] + "/stats?detail=1", timeout=10) as reply:
        return json.loads(reply.read())["seen"]


def test_sigkill_during_start_and_mid_run_then_resume(dataset):
    kills = _check_resume(dataset, [None, 0.4])
    assert kills[1]["lines"] >= int(72 * 0.4)


@pytest.mark.slow
def test_sigkill_at_four_points_then_resume(dataset):
    """Before any request is recorded, early, late, and once every request is recorded (the runner
    is then writing the split)."""
    kills = _check_resume(dataset, [None, 0.1, 0.6, 1.0])
    assert kills[3]["lines"] == 72


def test_a_run_resumes_the_split_a_crash_left_between_its_rename_and_the_card(dataset):
    """A crash after a resumed run renamed the split's new file into place (the old one removed)
    and before it refreshed the card and croissant.json leaves the folder check problems about
    that split alone (the card lists a missing file, an unlisted file is on disk). The check skips
    the split the run rewrites, so the next `run --resume` finishes it and the folder ends clean.
    (The skip key was built from the spec object, `trials_Experiment(...)`, and never matched: the
    resume was refused with "a file was replaced".)"""
    from mirror_hf.integrity import problems

    with openai_server() as url:
        cli_inproc(*_args(dataset, url, "crashed", 4))
        card, croissant = (dataset / "README.md").read_bytes(), (dataset / "croissant.json").read_bytes()
        cli_inproc(*_args(dataset, url, "crashed", 8), "--resume")
        (dataset / "README.md").write_bytes(card)  # the metadata as it was before the rename
        (dataset / "croissant.json").write_bytes(croissant)
        found, _ = problems(dataset)
        assert found and all("crashed" in p.text for p in found), [p.text for p in found]
        proc = cli_inproc(*_args(dataset, url, "crashed", 8), "--resume", check=False)
    assert proc.returncode == 0, proc.stderr
    assert problems(dataset)[0] == []
    assert read_split(dataset, "trials_exp1", "crashed").height == 8 * 3
