"""`mirror-hf study` against the planted respondent (tests/fakes/respondent.py) over HTTP, through the
real CLI: the smoke preset writes every registered experiment's trial split, a profile, tailored
tasks, the scores and the report (read back with `load_dataset`); the plan's request counts are
what the server then receives, per experiment; a study killed with SIGKILL inside Exp1, between the
profile and the tailoring, and inside Exp9 ends, once rerun, with the records of an uninterrupted
study and the server saw nothing twice; `--models` runs three endpoints of which one always answers
503; a bad models file is one line and exit 2 before any request; `tasks tailor --profile mirror`
works from the folder's parent and from elsewhere.

The server logs every request it answers (`--log`), and `POST /control {"hold_after": N}` makes it
answer 429 after N more answers: a client is stopped at a known request, then killed.
"""

from __future__ import annotations

import collections
import json
import os
import signal
import subprocess
import sys
import threading
import time
import urllib.request
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import polars as pl
import pytest

from tests.fakes.servers import fake_hub
from tests.runner_fixtures import MIRROR_HF, REPO, cli, cli_inproc

HERE = Path(__file__).resolve().parent
MODEL = "planted"
KILL_EXPERIMENTS = "exp1,exp9"  # the experiments the kill points are in (and the profile and tailoring between them)


def _profile() -> dict:
    sys.path.insert(0, str(HERE / "fakes"))
    from tests.test_recovery import PROFILE

    return PROFILE


class Server:
    """The respondent as a subprocess, with its request log and hold control."""

    def __init__(self, folder: Path, tmp: Path):
        profile = tmp / "profile.json"
        profile.write_text(json.dumps(_profile()))
        self.log = tmp / "requests.jsonl"
        self.proc = subprocess.Popen(
            [sys.executable, str(HERE / "fakes" / "respondent.py"), "--dataset", str(folder), "--profile", str(profile),
             "--log", str(self.log)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        line = self.proc.stdout.readline()
        if not line.startswith("PORT "):
            self.proc.kill()
            raise RuntimeError(f"respondent did not start: {line!r} {self.proc.stderr.read()[-2000:]}")
        self.root = f"http://127.0.0.1:{int(line.split()[1])}"
        self.url = f"{self.root}/v1"

    def requests(self) -> list[dict]:
        return [json.loads(line) for line in self.log.read_text().splitlines()] if self.log.exists() else []

    def hold_after(self, n: int | None) -> None:
        body = json.dumps({"hold_after": n}).encode()
        urllib.request.urlopen(urllib.request.Request(f"{self.root}/control", data=body, method="POST"), timeout=10).read()

    def stop(self) -> None:
        self.proc.terminate()
        self.proc.wait(timeout=10)


@pytest.fixture(scope="module")
def server(built_folder, tmp_path_factory):
    s = Server(built_folder, tmp_path_factory.mktemp("respondent"))
    yield s
    s.stop()


def study_args(folder: Path, server: Server, *extra: str) -> list[str]:
    return ["study", "--model", MODEL, "--base-url", server.url, "--dataset", str(folder), "--preset", "smoke",
            "--report-out", str(folder.parent / "report"), "--resamples", "0", "--no-progress", *extra]


ENV = {"OPENAI_API_KEY": "local-test-key"}


@pytest.fixture(scope="module")
def smoke(built_folder, server, tmp_path_factory):
    """One uninterrupted smoke study: its folder, the requests the server answered, the plan, the output."""
    import shutil

    folder = tmp_path_factory.mktemp("smoke") / "mirror"
    shutil.copytree(built_folder, folder)
    before = len(server.requests())
    plan = folder.parent / "plan.json"
    proc = cli(*study_args(folder, server, "--plan-json", str(plan)), env=ENV, timeout=600)
    return {"folder": folder, "requests": server.requests()[before:], "plan": json.loads(plan.read_text()),
            "stdout": proc.stdout}


def request_key(row: dict, base_url: str) -> str:
    from mirror_hf.runner.request import ChatRequest, Generation

    return ChatRequest(row["model"], base_url, tuple(row["messages"]),
                       Generation(row["temperature"], row["seed"], row["max_tokens"])).key


def results_keys(folder: Path) -> dict[str, set[str]]:
    """experiment -> the request keys of its results file (one line per finished request)."""
    out = {}
    for path in sorted((folder / ".runs" / MODEL).glob("*.jsonl")):
        out[path.stem] = {json.loads(line)["k"] for line in path.read_text().splitlines() if line.strip()}
    return out


def test_smoke_study_writes_every_split(smoke):
    from datasets import load_dataset

    from mirror_hf.experiments import EXPERIMENTS

    folder, plan = smoke["folder"], smoke["plan"]
    assert set(plan["experiments"]) == set(EXPERIMENTS.names())
    for name, spec in EXPERIMENTS.items():
        rows = load_dataset(str(folder), spec.trial_config, split=MODEL)
        assert len(rows) == plan["experiments"][name]["trials"] > 0, name
        assert set(rows["model"]) == {MODEL}
    assert len(load_dataset(str(folder), "profiles", split=MODEL)) == 8
    tailored = load_dataset(str(folder), "exp9_tailored", split=MODEL)
    assert len(tailored) == 8 and set(tailored["target_model"]) == {MODEL}
    scores = json.loads((folder.parent / "report" / "scores.json").read_text())
    assert MODEL in scores["models"]
    from test_headline import _check

    from mirror_hf.scoring import ScoreResult

    scored = set(scores["models"][MODEL])
    _check(scores, ScoreResult, "scores.json")  # the typed schema holds for every experiment's part
    import jsonschema

    from mirror_hf.experiments import scores_json_schema

    jsonschema.validate(scores, scores_json_schema())  # and so does the JSON Schema generated from the specs
    assert set(EXPERIMENTS.names()) - scored == set(), sorted(scored)  # every experiment's trials were scored
    assert (folder.parent / "report" / "index.html").is_file()
    assert "Nat.Acc" in smoke["stdout"] and str(folder.parent / "report" / "index.html") in smoke["stdout"]


def test_plan_counts_are_the_requests_the_server_receives(smoke, server):
    """Per experiment: the plan's requests == the distinct requests of its results file, and the
    server answered each of them exactly as often as experiments hold it (Exp5's clean control asks
    Exp1's very prompts: one request of each, per experiment)."""
    folder, plan = smoke["folder"], smoke["plan"]
    keys = results_keys(folder)
    seen = collections.Counter(request_key(r, server.url) for r in smoke["requests"])
    holders = collections.Counter(k for ks in keys.values() for k in ks)
    assert seen == holders  # every request the server answered is in a results file, once per experiment holding it
    counts = {name: len(ks) for name, ks in keys.items()}
    assert counts == {name: p["requests"] for name, p in plan["experiments"].items()}, (counts, plan["experiments"])
    assert sum(seen.values()) == plan["total"]["requests"]
    print(f"\nplan == server: {counts} (total {plan['total']['requests']})")


def _prompt_tokens(row: dict) -> float:
    """The test's own token measure of a request the server received: 4 characters a token, 4 a message."""
    return sum(len(str(m.get("content", ""))) for m in row["messages"]) / 4 + 4 * len(row["messages"])


def test_plan_tokens_are_within_15_percent(smoke, server, built_folder):
    """Prompt tokens per experiment within 15% of what the server received; Exp4 and Exp6a replay
    the model's replies in later turns, so their figure needs the reply length: the plan is
    made again (on the folder as it was before the study) with --reply-tokens set to the mean reply
    the server gave, and then the completion tokens must agree within 15% in total too."""
    folder = smoke["folder"]
    by_key = {request_key(r, server.url): r for r in smoke["requests"]}
    keys = results_keys(folder)
    measured = {name: sum(_prompt_tokens(by_key[k]) for k in ks) for name, ks in keys.items()}
    completion = sum(r["reply_chars"] / 4 for r in smoke["requests"])
    reply = round(completion / len(smoke["requests"]))
    fresh = built_folder
    replan = folder.parent / "replan.json"
    cli_inproc(*study_args(fresh, server, "--dry-run", "--plan-json", str(replan), "--reply-tokens", str(reply)), env=ENV)
    ratios = {}
    for name, p in smoke["plan"]["experiments"].items():
        expected = json.loads(replan.read_text())["experiments"][name] if name in ("exp4", "exp6a") else p
        ratios[name] = expected["prompt_tokens"] / measured[name]
    print(f"\nprompt tokens, plan / server: {ratios}; reply {reply} tokens")
    assert all(0.85 <= r <= 1.15 for r in ratios.values()), ratios
    total = json.loads(replan.read_text())["total"]["completion_tokens"]
    assert 0.85 <= total / completion <= 1.15, (total, completion)


# --------------------------------------------------------------------------------------------
# Killed and rerun
# --------------------------------------------------------------------------------------------

VOLATILE = ("run_id", "latency_ms")  # a new run id per study, and the clock


def records(folder: Path, config: str) -> list[dict]:
    from mirror_hf.folder import split_files

    files = [f.path for f in split_files(folder).get(config, []) if f.split == MODEL]
    assert len(files) == 1, (config, files)
    frame = pl.read_parquet(files[0])
    return frame.drop([c for c in VOLATILE if c in frame.columns]).to_dicts()


def _lines(path: Path) -> int:
    return len(path.read_text().splitlines()) if path.exists() else 0


def _wait(predicate, timeout: float = 120.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return
        time.sleep(0.05)
    raise AssertionError("timed out")


def _env() -> dict:
    return {**os.environ, **ENV, "PYTHONPATH": os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")])}


KILL_AT_PROFILE = """
import os, signal, sys
from pathlib import Path
from mirror_hf.study import ModelEntry, StudyOptions, preset, run_study

def hook(model, step, event):
    if (step, event) == ("profile", "done"):
        os.kill(os.getpid(), signal.SIGKILL)

folder, url = Path(sys.argv[1]), sys.argv[2]
run_study(StudyOptions(dataset=folder, models=(ModelEntry("planted", url),), preset=preset("smoke"),
                       experiments=("exp1", "exp9"), resamples=0, progress=False, on_step=hook))
"""


def _kill(point: str, folder: Path, server: Server, plan: dict) -> None:
    """Start the study and SIGKILL it at `point`."""
    args = study_args(folder, server, "--experiments", KILL_EXPERIMENTS)
    if point == "between_profile_and_tailoring":
        proc = subprocess.run([sys.executable, "-c", KILL_AT_PROFILE, str(folder), server.url], env=_env(),
                              capture_output=True, text=True, timeout=600)
        assert proc.returncode == -signal.SIGKILL, proc.stderr[-2000:]
        assert [f for f in (folder / "data" / "profiles").glob(f"{MODEL}-*")]
        assert not (folder / "data" / "exp9_tailored").exists() or not list((folder / "data" / "exp9_tailored").glob(f"{MODEL}-*"))
        return
    experiment = {"inside_exp1": "exp1", "inside_exp9": "exp9"}[point]
    before = plan["experiments"]["exp1"]["requests"] if experiment == "exp9" else 0
    inside = plan["experiments"][experiment]["requests"] // 2
    server.hold_after(before + inside)
    results = folder / ".runs" / MODEL / f"{experiment}.jsonl"
    proc = subprocess.Popen([*MIRROR_HF, *args], env=_env(), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, cwd=REPO)
    try:
        _wait(lambda: _lines(results) >= inside or proc.poll() is not None)
        assert proc.poll() is None, proc.stderr.read()[-2000:]
        time.sleep(0.3)  # the held requests are waiting on their Retry-After: nothing else is recorded meanwhile
        assert _lines(results) == inside
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
        server.hold_after(None)


KILL_POINTS = [
    pytest.param("inside_exp9"),
    pytest.param("inside_exp1", marks=pytest.mark.slow),
    pytest.param("between_profile_and_tailoring", marks=pytest.mark.slow),
]


@pytest.mark.parametrize("point", KILL_POINTS)
def test_killed_study_resumes_to_the_same_records(point, smoke, server, built_folder, tmp_path):
    import shutil

    folder = tmp_path / "mirror"
    shutil.copytree(built_folder, folder)
    start = len(server.requests())
    _kill(point, folder, server, smoke["plan"])
    with fake_hub(tmp_path / "hub") as endpoint:  # the rerun ends with the push
        hub = {"HF_ENDPOINT": endpoint, "HF_HUB_DISABLE_XET": "1", "HF_TOKEN": "hf_fake", "HF_HUB_OFFLINE": "0",
               "HF_HOME": str(tmp_path / "hf_home"), "HF_HUB_DISABLE_PROGRESS_BARS": "1"}
        rerun = cli(*study_args(folder, server, "--experiments", KILL_EXPERIMENTS, "--push", "org/mirror"), env={**ENV, **hub},
                    timeout=600)
    assert "pushed to org/mirror" in rerun.stdout
    pushed = tmp_path / "hub" / "datasets" / "org" / "mirror" / "data"
    assert list((pushed / "trials_exp9").glob(f"{MODEL}-*.parquet")) and list((pushed / "exp9_tailored").glob(f"{MODEL}-*"))
    for config in ("trials_exp1", "profiles", "exp9_tailored", "trials_exp9"):
        assert records(folder, config) == records(smoke["folder"], config), config
    # the killed and the resumed study together asked the server what the uninterrupted one did for
    # these experiments, each request as often (nothing sent twice)
    mine = collections.Counter(request_key(r, server.url) for r in server.requests()[start:])
    reference = results_keys(smoke["folder"])
    wanted = collections.Counter(k for name in KILL_EXPERIMENTS.split(",") for k in reference[name])
    assert mine == wanted
    print(f"\n{point}: {sum(mine.values())} requests over kill + rerun, none twice; records equal")


# --------------------------------------------------------------------------------------------
# Several models; a bad models file
# --------------------------------------------------------------------------------------------


class _Always503(BaseHTTPRequestHandler):
    def do_POST(self):  # noqa: N802  http.server's name
        self.rfile.read(int(self.headers.get("content-length", 0)))
        body = b'{"error": {"message": "service unavailable", "type": "overloaded"}}'
        self.send_response(503)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


@pytest.fixture
def unavailable():
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), _Always503)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}/v1"
    httpd.shutdown()


def test_models_file_one_failing_endpoint(dataset, server, unavailable, tmp_path):
    models = tmp_path / "models.yaml"
    models.write_text(f"""models:
  - name: planted-small
    base_url: {server.url}
    concurrency: 8
    family: planted
    parameters: 1B
  - name: planted-large
    base_url: {server.url}
    family: planted
    parameters: 8B
  - name: down
    base_url: {unavailable}
""")
    proc = cli("study", "--models", str(models), "--dataset", str(dataset), "--preset", "smoke", "--experiments", "exp1,exp3",
               "--report-out", str(tmp_path / "report"), "--resamples", "0", "--max-attempts", "1", "--no-progress",
               "--push", "org/mirror",
               env=ENV, check=False, timeout=600)
    out = proc.stdout + proc.stderr
    assert proc.returncode == 1, out[-3000:]
    assert "Traceback" not in out
    assert "[down] step exp1 failed" in out
    assert f"resume with: mirror-hf study --models {models}" in out and "--only down" in out
    scores = json.loads((tmp_path / "report" / "scores.json").read_text())
    assert {"planted-small", "planted-large"} <= set(scores["models"]) and "down" not in scores["models"]
    from mirror_hf.folder import split_files

    written = {(f.config, f.split) for fs in split_files(dataset).values() for f in fs}
    for split in ("planted_small", "planted_large"):
        assert {("trials_exp1", split), ("trials_exp3", split)} <= written
    assert not any(s == "down" for _, s in written)
    assert "scaling" in scores["aggregate"]  # Exp8 from the models file's family/parameters
    assert "not pushed to org/mirror: a step failed" in out


BAD_FILES = {
    "unknown key": ("models:\n  - name: a\n    base_url: {url}\n    prices: 1\n", "entry 1 (a): unknown key 'prices'"),
    "missing base_url": ("models:\n  - name: a\n    base_url: {url}\n  - name: b\n", "entry 2 (b): missing base_url"),
    "duplicate name": ("models:\n  - name: a\n    base_url: {url}\n  - name: a\n    base_url: {url}\n",
                       "entry 2 (a) field 'name': 'a' is listed twice (first in entry 1)"),
    "unset key variable": ("models:\n  - name: a\n    base_url: {url}\n    api_key_env: MIRROR_TEST_UNSET_KEY\n",
                           "entry 1 (a) field 'api_key_env': the variable MIRROR_TEST_UNSET_KEY is not set"),
}


@pytest.mark.parametrize("case", sorted(BAD_FILES))
def test_bad_models_file_is_one_line_before_any_request(case, dataset, server, tmp_path):
    text, expected = BAD_FILES[case]
    models = tmp_path / "models.yaml"
    models.write_text(text.format(url=server.url))
    before = len(server.requests())
    proc = cli_inproc("study", "--models", str(models), "--dataset", str(dataset), "--preset", "smoke",
                      env={**ENV, "MIRROR_TEST_UNSET_KEY": ""}, check=False)
    assert proc.returncode == 2
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"error: {models} {expected}"), proc.stderr
    assert len(server.requests()) == before
    assert not (dataset / ".runs").exists()


# --------------------------------------------------------------------------------------------
# Relative folders (issue item 5): the README's own commands from another working directory
# --------------------------------------------------------------------------------------------


def test_tasks_tailor_relative_profile_from_parent_and_elsewhere(dataset, monkeypatch):
    """The README's `mirror-hf tasks tailor --profile mirror --model M` from the folder's parent, and
    `--profile ../mirror` from a sibling folder (the CLI's main() in this process, in that working
    directory); `summary ../mirror` too."""
    from mirror_hf.folder import split_files
    from mirror_hf.metadata import refresh_metadata
    from mirror_hf.runner.profile import write_profile

    accuracy = dict(zip(("arithmetic", "spatial", "temporal", "linguistic", "logical", "social", "factual", "procedural"),
                        (0.9, 0.2, 0.8, 0.85, 0.3, 0.7, 0.9, 0.25)))
    for split in ("rel_a", "rel_b"):
        write_profile(dataset, split, [
            {"model": split, "domain": d, "natural_accuracy": a, "wagering_accuracy": a, "mirror_gap": 0.0, "n_natural": 10,
             "n_wagering": 10, "strength": "unknown", "weak_policy": "median_or_bottom_k", "run_id": "r"}
            for d, a in accuracy.items()])
    refresh_metadata(dataset)  # the card lists the profiles (every folder reader checks it)
    elsewhere = dataset.parent / "elsewhere"
    elsewhere.mkdir()
    for cwd, profile, split in ((dataset.parent, "mirror", "rel_a"), (elsewhere, "../mirror", "rel_b")):
        monkeypatch.chdir(cwd)
        proc = cli_inproc("tasks", "tailor", "--profile", profile, "--model", split, "--n", "12", check=False)
        assert proc.returncode == 0 and "Traceback" not in proc.stderr, proc.stderr[-2000:]
        assert any(f.split == split for f in split_files(dataset).get("exp9_tailored", []))
    proc = cli_inproc("summary", "../mirror", check=False)
    assert proc.returncode == 0 and "exp9_tailored" in proc.stdout, proc.stderr[-2000:]


def test_readme_using_it_and_quickstart_next_steps_start_with_the_study(capsys):
    """Issue item 6: the first command under "Using it" that evaluates a model is `mirror-hf study`,
    and the quickstart's next steps point to it first."""
    import re

    from mirror_hf.cli.report_cmd import next_steps

    readme = (REPO / "README.md").read_text()
    using = readme.split("## Using it", 1)[1].split("\n## ", 1)[0]
    commands = [line.split("#")[0].strip() for block in re.findall(r"```bash\n(.*?)```", using, re.S) for line in block.splitlines()]
    evaluating = [c for c in commands if c.startswith("mirror-hf ") and not c.startswith("mirror-hf build")]
    assert evaluating and evaluating[0].startswith("mirror-hf study "), evaluating[:2]
    assert "docs/study.md" in using
    next_steps(Path("mirror"))
    lines = [line.strip() for line in capsys.readouterr().out.splitlines() if line.strip().startswith("mirror-hf ")]
    assert lines[0].startswith("mirror-hf study "), lines[:2]


@pytest.mark.slow
def test_max_cost_caps_the_study(dataset, server):
    """--max-cost: at $1,000 per million completion tokens an Exp1 request reserves $1.024 (1,024
    tokens) while in flight and costs its usage (the respondent's replies: a few tokens) once
    answered, so a $1.50 cap stops inside Exp1: the step names itself, the resume command is
    printed, exit 1; the server answered fewer requests than the plan, and they cost at most the cap."""
    before = len(server.requests())
    proc = cli("study", "--model", MODEL, "--base-url", server.url, "--dataset", str(dataset), "--preset", "smoke",
               "--experiments", "exp1,exp3", "--price-in", "0", "--price-out", "1000", "--max-cost", "1.5", "--no-progress",
               "--report-out", str(dataset.parent / "report"), "--resamples", "0", env=ENV, check=False, timeout=600)
    out = proc.stdout + proc.stderr
    assert proc.returncode == 1 and "Traceback" not in out, out[-3000:]
    assert "step exp1 failed: --max-cost reached" in out and "resume with: mirror-hf study" in out, out[-3000:]
    answered = server.requests()[before:]
    cost = sum(max(1, r["reply_chars"] // 4) for r in answered) * 1000 / 1e6  # the respondent's usage
    assert 0 < len(answered) < 71 and cost <= 1.5, (len(answered), cost)
