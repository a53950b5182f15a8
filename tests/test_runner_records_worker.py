"""The records worker (a forked child that parses and tables finished jobs during the request phase)
writes exactly the split the in-process path writes, and a worker that fails changes nothing but
where the records are built."""

from __future__ import annotations

import json
import os
import random
import shutil

import pyarrow.parquet as pq
import pytest
from fakes.servers import openai_server, server_stats
from runner_fixtures import read_split

from mirror_hf.experiments import get
from mirror_hf.runner import RunOptions, run
from mirror_hf.runner import records_worker as records_worker_module
from mirror_hf.runner import trials as trials_module
from mirror_hf.runner.plan import PlanOptions, build_plan
from mirror_hf.runner.request import ChatRequest, Generation, Outcome
from mirror_hf.runner.trials import RunIdentity, read_manifest, trial_table, write_trials

pytestmark = pytest.mark.skipif(not hasattr(os, "fork"), reason="the records worker needs os.fork")

CHANNELS5 = ("wagering", "opt_out", "tool_delegation", "natural", "layer2")
# What differs between two runs of the same requests: the run's id and the measured latencies.
PER_RUN = ("run_id", "latency_ms")


def _run(folder, url, *, worker: bool, experiment="exp1", limit=None, channels=None, **extra):
    options = RunOptions(dataset=folder, model="acme/fake-1", base_url=url, experiment=get(experiment), progress=False,
                         plan=PlanOptions(limit=limit, channels=channels), backoff_base=0.01, max_attempts=2, concurrency=8,
                         **extra)
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
    monkeypatch.setattr(trials_module, "CHUNK", 7)  # several arrow chunks, jobs finishing out of order
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
    # both written a chunk of 7 records at a time: one row group each, in plan order
    for report in (inproc, forked):
        meta = pq.read_metadata(report.split_path)
        assert [meta.row_group(i).num_rows for i in range(meta.num_row_groups)] == \
               [7] * (report.trials // 7) + ([report.trials % 7] if report.trials % 7 else [])
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
    # the worker had its temp file open from the start: it is gone, and the folder it made with it
    assert not (dataset / "data" / "trials_exp1").exists()
    assert len(started) == 1
    with pytest.raises(ChildProcessError):  # the worker was told to stop and reaped
        os.waitpid(started[0], os.WNOHANG)


def test_too_many_failures_leave_no_file_and_no_temp_file(dataset, monkeypatch):
    from mirror_hf.runner.session import RunError

    monkeypatch.setattr(trials_module, "CHUNK", 5)  # chunks already on disk in the temp file when the run stops
    with openai_server({"400": 1.0}) as url, pytest.raises(RunError, match="no split written"):
        _run(dataset, url, worker=True, limit=12, channels=("natural", "wagering"))
    assert not (dataset / "data" / "trials_exp1").exists()


@pytest.mark.parametrize("worker", [False, True])
def test_an_undeclared_parsed_field_stops_either_path_with_one_message(dataset, monkeypatch, worker):
    """The one rule for a parsed field the trial schema lacks (`records.conform_row`): the run stops
    with one line naming the field, in-process and in the records worker alike; nothing is dropped
    with a note (as `trials.trial_row` did), no split is written, the requests stay for --resume."""
    from mirror_hf.experiments.exp1 import Exp1Recipe
    from mirror_hf.runner.session import RunError

    monkeypatch.setattr(Exp1Recipe, "extra_fields", lambda self, job, parsed: {"surprise_field": 1})
    with openai_server() as url, pytest.raises(RunError) as caught:
        _run(dataset, url, worker=worker, limit=4, channels=("natural",))
    message = str(caught.value)
    assert "undeclared field(s) ['surprise_field']" in message and "no split written" in message and "--resume" in message
    assert "\n" not in message
    assert not (dataset / "data" / "trials_exp1").exists()


def test_trial_rows_and_tables_refuse_an_undeclared_field_alike(dataset):
    """`trial_table` (a run's records) and `folder.rows_to_table` (every other writer) apply the same
    rule to the same row: `UndeclaredFields`, naming the field."""
    from mirror_hf.folder import rows_to_table
    from mirror_hf.records import UndeclaredFields
    from mirror_hf.runner.trials import trial_row

    plan = build_plan(dataset, PlanOptions(limit=1, channels=("natural",)), get("exp1"))
    identity = RunIdentity("run-fixed", "acme/fake-1", "exp1", 0.0, 0)
    turns = _turns(plan, random.Random(1))
    row = {**trial_row(identity, plan.jobs[0], turns[0], plan.recipe), "surprise_field": 1}
    with pytest.raises(UndeclaredFields, match=r"undeclared field\(s\) \['surprise_field'\]"):
        rows_to_table([row], plan.features, where="rows")
    plan.jobs[0].fields["surprise_field"] = 1  # the same key reaching the record through the job instead
    with pytest.raises(UndeclaredFields, match=r"undeclared field\(s\) \['surprise_field'\]"):
        trial_table(identity, plan, turns, plan.features)


def _turns(plan, rng):
    """Made-up turns for every job (answers, empty texts, failures, truncations): the same records
    whichever path builds them, with no server and no timing in them."""
    generation = Generation()
    out = {}
    for i, job in enumerate(plan.jobs):
        request = ChatRequest("acme/fake-1", "http://fake", tuple(job.messages), generation)
        kind = rng.random()
        if kind < 0.15:
            outcome = Outcome(error="HTTP 400: planted", error_kind="permanent", attempts=1)
        else:
            outcome = Outcome(text=rng.choice(["I'm 70% sure: B", "A", "", "<think>hm</think> C, 40%"]),
                              finish_reason="length" if kind > 0.9 else "stop", prompt_tokens=rng.randint(5, 90),
                              completion_tokens=rng.randint(1, 16), latency_ms=float(i), attempts=1)
        out[i] = [(request, outcome)]
    return out


def test_worker_and_in_process_paths_write_the_same_bytes(dataset, tmp_path, monkeypatch):
    """Driven with one identity and the same turns (the worker's fed out of plan order), both files
    have the same content hash, so the same name; the manifest is readable from the worker's."""
    monkeypatch.setattr(trials_module, "CHUNK", 6)
    plan = build_plan(dataset, PlanOptions(limit=9, channels=CHANNELS5), get("exp1"))
    identity = RunIdentity("run-fixed", "acme/fake-1", "exp1", 0.0, 0)
    turns = _turns(plan, random.Random(7))
    manifest = {"run_id": "run-fixed", "counts": {"trials": len(plan.jobs)}}
    twin = tmp_path / "twin"
    shutil.copytree(dataset, twin)

    worker = records_worker_module.RecordsWorker(identity, plan, twin, "acme_fake_1")
    try:
        order = list(turns)
        random.Random(3).shuffle(order)
        for index in order:
            worker.add(index, turns[index])
        counts, _ = worker.counts(len(plan.jobs))
        forked = worker.write(manifest)
    finally:
        worker.close()
    table, in_counts = trial_table(identity, plan, dict(turns), plan.features)
    inproc = write_trials(dataset, "exp1", "acme_fake_1", table, manifest, plan.features)

    assert len(plan.jobs) == 45 and counts == in_counts and 0 < counts.failed < counts.trials
    assert forked.name == inproc.name and forked.read_bytes() == inproc.read_bytes()
    assert read_manifest(forked) == manifest
    meta = pq.read_metadata(forked)
    assert [meta.row_group(i).num_rows for i in range(meta.num_row_groups)] == [6] * 7 + [3]
    rows = pq.read_table(forked).to_pylist()
    assert [r["item_id"] for r in rows] == [job.item_id for job in plan.jobs]  # plan order
    assert [r["request_key"] for r in rows] == [turns[i][0][0].key for i in range(len(plan.jobs))]
    assert json.loads(pq.read_schema(forked).metadata[b"huggingface"])  # datasets' features still there
    assert not [f for f in forked.parent.iterdir() if f.name.startswith(".")]
