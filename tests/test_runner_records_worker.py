"""The records worker (a forked child that parses and tables finished jobs during the request phase)
writes exactly the split the in-process path writes, and a worker that fails changes nothing but
where the records are built."""

from __future__ import annotations

import os
import shutil

import pytest
from fakes.servers import openai_server, server_stats
from runner_fixtures import read_split

from mirror_hf.experiments import get
from mirror_hf.runner import RunOptions, run
from mirror_hf.runner import records_worker as records_worker_module
from mirror_hf.runner.trials import read_manifest

pytestmark = pytest.mark.skipif(not hasattr(os, "fork"), reason="the records worker needs os.fork")

CHANNELS5 = ("wagering", "opt_out", "tool_delegation", "natural", "layer2")
# What differs between two runs of the same requests: the run's id and the measured latencies.
PER_RUN = ("run_id", "latency_ms")


def _run(folder, url, *, worker: bool, experiment="exp1", **extra):
    options = RunOptions(dataset=folder, model="acme/fake-1", base_url=url, experiment=get(experiment), progress=False,
                         backoff_base=0.01, max_attempts=2, concurrency=8, **extra)
    return run(options, records_worker=worker)


def _records(folder, config="trials_exp1"):
    return read_split(folder, config, "acme_fake_1").drop(PER_RUN)


def _manifest(report) -> dict:
    manifest = read_manifest(report.split_path)
    for key in ("run_id", "started", "finished"):
        manifest.pop(key)
    return manifest


@pytest.mark.parametrize("experiment,extra", [
    ("exp1", {"limit": 40, "channels": CHANNELS5}),  # tool calls (two turns), <think> blocks, failures below
    ("exp3", {"limit": 8}),
])
def test_the_worker_writes_the_same_split_as_the_in_process_path(dataset, tmp_path, monkeypatch, experiment, extra):
    monkeypatch.setattr(records_worker_module, "CHUNK", 7)  # several arrow chunks, jobs finishing out of order
    twin = tmp_path / "twin"
    shutil.copytree(dataset, twin)
    # 400s are permanent (one attempt), so both runs see the same failures for the same requests
    with openai_server({"400": 0.2}, tool_rate=0.5, think_rate=0.3) as url:
        inproc = _run(dataset, url, worker=False, experiment=experiment, **extra)
        forked = _run(twin, url, worker=True, experiment=experiment, **extra)
        stats = server_stats(url)
    config = f"trials_{experiment}"
    a, b = _records(dataset, config), _records(twin, config)
    assert a.height == inproc.trials > 0 and stats["400"] > 0 and a["api_error"].is_not_null().any()
    assert a.columns == b.columns and a.equals(b), "the worker's records differ from the in-process ones"
    assert _manifest(inproc) == _manifest(forked)
    assert (inproc.trials, inproc.failed, inproc.truncated, inproc.prompt_tokens, inproc.completion_tokens) == \
           (forked.trials, forked.failed, forked.truncated, forked.prompt_tokens, forked.completion_tokens)


def test_a_failing_worker_falls_back_to_the_in_process_path(dataset, tmp_path, monkeypatch):
    twin = tmp_path / "twin"
    shutil.copytree(dataset, twin)

    def broken(conn, *args):  # runs in the forked child: it dies after the first job
        conn.recv()
        raise RuntimeError("planted failure in the records worker")

    # The parent keeps no turns while a worker runs: it replays them from the results file, recorded
    # failures (permanent 400s: the same requests in both runs) and second turns included.
    with openai_server({"400": 0.2}, tool_rate=0.5, think_rate=0.3) as url:
        _run(dataset, url, worker=False, limit=16, channels=CHANNELS5)
        monkeypatch.setattr(records_worker_module, "_child", broken)
        report = _run(twin, url, worker=True, limit=16, channels=CHANNELS5)
        stats = server_stats(url)
    assert report.trials == 80 and report.failed > 0 and stats["400"] > 0
    assert _records(dataset).equals(_records(twin))
    assert not [f for f in (twin / "data" / "trials_exp1").iterdir() if f.name.startswith(".")]  # no temp file left


def test_a_budget_stop_ends_the_worker_without_a_split(dataset, monkeypatch):
    started = []
    real_init = records_worker_module.RecordsWorker.__init__

    def init(self, *args):
        real_init(self, *args)
        started.append(self.pid)

    monkeypatch.setattr(records_worker_module.RecordsWorker, "__init__", init)
    with openai_server() as url:
        report = _run(dataset, url, worker=True, limit=40, channels=("natural",), price_in=1000.0, price_out=1000.0,
                      max_cost=0.5)
    assert report.stopped_by_budget and report.split_path is None
    assert not list((dataset / "data").glob("trials_exp1/acme_fake_1*"))
    assert len(started) == 1
    with pytest.raises(ChildProcessError):  # the worker was told to stop and reaped
        os.waitpid(started[0], os.WNOHANG)
