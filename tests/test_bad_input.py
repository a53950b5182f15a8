"""Bad input through the real CLI, as a careless or hostile user types it: every case runs
`mirror-hf ...` in its own process and must end with exit code 2, one line on stderr that names the
offending flag, file, row or field, no traceback, and no file created, changed or removed.

The cases cover every finding of the hardening issue that is a matter of input (ranges, URLs,
`--extra-body`, damaged and tampered files, folders where files belong, Hub failures)."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import socket
import subprocess
import sys
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from runner_fixtures import REPO

ENV = {"HF_HUB_OFFLINE": "0", "HF_DATASETS_OFFLINE": "0", "HF_HUB_DISABLE_XET": "1", "HF_TOKEN": "hf_badinputTOKEN123",
       "OPENAI_API_KEY": ""}


def _dead_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _rehash(path: Path) -> Path:
    """Rename a data file to the content hash of its (new) bytes, as a forger would."""
    digest = hashlib.sha256(path.read_bytes()).hexdigest()[:12]
    target = path.with_name(f"{path.name.rsplit('-', 1)[0]}-{digest}.parquet")
    path.rename(target)
    return target


def _questions(folder: Path) -> Path:
    return next((folder / "data" / "questions").glob("*.parquet"))


@pytest.fixture(scope="module")
def world(built_folder, tmp_path_factory) -> dict:
    """Folders and files the cases point at, made once: a clean dataset folder, tampered ones, a
    trials file without a column, a truncated trials file, a damaged run identity, bad JSON files."""
    from mirror_hf.metadata import refresh_metadata

    root = tmp_path_factory.mktemp("bad_input")
    ds = root / "ds"
    shutil.copytree(built_folder, ds)

    cut = root / "cut"  # the questions file cut to 100 rows under its old name
    shutil.copytree(built_folder, cut)
    q = _questions(cut)
    pq.write_table(pq.read_table(q).slice(0, 100), q)

    forged = root / "forged"  # gold answers edited and the file renamed to its new hash: croissant.json still knows
    shutil.copytree(built_folder, forged)
    q = _questions(forged)
    table = pq.read_table(q)
    answers = table.column("answer").to_pylist()
    table = table.set_column(table.schema.get_field_index("answer"), "answer", pa.array(["x"] + answers[1:]))
    pq.write_table(table, q)
    _rehash(q)

    nocol = root / "nocol"  # a trials split lacking a column (a valid, correctly named parquet file)
    shutil.copytree(built_folder, nocol)
    (nocol / "data" / "trials_exp1").mkdir()
    bad = nocol / "data" / "trials_exp1" / "acme-000000000000.parquet"
    pq.write_table(pa.table({"model": ["m"], "item_id": ["q1"], "channel": ["natural"]}), bad)
    _rehash(bad)
    refresh_metadata(nocol)

    torn = root / "torn"  # a trials file cut mid-way, named after its bytes (so only reading can tell)
    shutil.copytree(built_folder, torn)
    (torn / "data" / "trials_exp1").mkdir()
    t = torn / "data" / "trials_exp1" / "acme-000000000000.parquet"
    pq.write_table(pa.table({"model": ["m"] * 50, "item_id": [f"q{i}" for i in range(50)]}), t)
    t.write_bytes(t.read_bytes()[:300])
    _rehash(t)

    runs = root / "runs"  # a damaged run identity beside a results file
    shutil.copytree(built_folder, runs)
    (runs / ".runs" / "m").mkdir(parents=True)
    (runs / ".runs" / "m" / "exp1.jsonl").write_text("")
    (runs / ".runs" / "m" / "exp1.run.json").write_text('{"model": "m", "run_')

    store = root / "store"  # a results file damaged in the middle
    shutil.copytree(built_folder, store)
    (store / ".runs" / "m").mkdir(parents=True)
    (store / ".runs" / "m" / "exp1.jsonl").write_text('{"k": "a"}\nGARBAGE\n{"k": "b"}\n')

    files = root / "files"
    files.mkdir()
    (files / "deep.json").write_text("[" * 100_000 + "]" * 100_000)
    (files / "binary.json").write_bytes(bytes(range(256)) * 4)
    (files / "profile_dir").mkdir()
    (files / "profile_dir" / "profile.json").write_text(json.dumps({"arithmetic": 0.5}))
    (files / "zero.json").write_text(json.dumps(dict.fromkeys(("arithmetic", "spatial", "temporal", "linguistic", "logical",
                                                                "social", "factual", "procedural"), 0.0)))
    (files / "dir_arg").mkdir()
    (files / "notes.txt").write_text("hello\n")
    return {"root": root, "ds": ds, "cut": cut, "forged": forged, "nocol": nocol, "torn": torn, "runs": runs,
            "store": store, "files": files, "url": f"http://127.0.0.1:{_dead_port()}/v1", "hub": f"http://127.0.0.1:{_dead_port()}"}


R = ["run", "--dataset", "{ds}", "--model", "m", "--base-url", "{url}", "--no-progress"]

# (id, argv template, text the one-line message must contain)
CASES = [
    # run: numbers out of range (finding 4, 9, 10, 11)
    ("run-timeout-0", R + ["--timeout", "0"], "--timeout"),
    ("run-timeout-negative", R + ["--timeout", "-5"], "--timeout"),
    ("run-max-tokens-0", R + ["--max-tokens", "0"], "--max-tokens"),
    ("run-max-tokens-negative", R + ["--max-tokens", "-3"], "--max-tokens"),
    ("run-rpm-0", R + ["--rpm", "0"], "--rpm"),
    ("run-tpm-0", R + ["--tpm", "0"], "--tpm"),
    ("run-rpm-inf", R + ["--rpm", "inf"], "--rpm"),
    ("run-temperature-nan", R + ["--temperature", "nan"], "--temperature"),
    ("run-temperature-negative", R + ["--temperature", "-1"], "--temperature"),
    ("run-concurrency-0", R + ["--concurrency", "0"], "--concurrency"),
    ("run-max-attempts-0", R + ["--max-attempts", "0"], "--max-attempts"),
    ("run-backoff-negative", R + ["--backoff-base", "-1"], "--backoff-base"),
    ("run-retry-wait-negative", R + ["--max-retry-wait", "-1"], "--max-retry-wait"),
    ("run-failure-rate-above-1", R + ["--max-failure-rate", "1.5"], "--max-failure-rate"),
    ("run-seed-beyond-int64", R + ["--seed", str(2**63)], "--seed"),
    ("run-seed-not-a-number", R + ["--seed", "abc"], "--seed"),
    ("run-concurrency-not-a-number", R + ["--concurrency", "many"], "--concurrency"),
    ("run-unknown-option", R + ["--temprature", "0.5"], "--temprature"),
    ("sample-n-not-a-number", ["sample", "--dataset", "{ds}", "--n", "abc"], "--n"),
    ("run-url-empty-port", ["run", "--dataset", "{ds}", "--model", "m", "--base-url", "http://127.0.0.1:/v1", "--no-progress"],
     "--base-url"),
    ("run-limit-0", R + ["--limit", "0"], "--limit"),
    ("run-price-negative", R + ["--price-in", "-1", "--max-cost", "1"], "--price-in"),
    ("run-max-cost-without-prices", R + ["--max-cost", "1"], "--max-cost"),
    ("run-max-cost-0", R + ["--max-cost", "0", "--price-in", "1"], "--max-cost"),
    # run: --extra-body (finding 5)
    ("run-extra-body-protocol", R + ["--extra-body", '{"messages": [], "model": "other", "max_tokens": -5}'],
     "max_tokens, messages, model"),
    ("run-extra-body-stream", R + ["--extra-body", '{"stream": true}'], "stream"),
    ("run-extra-body-not-object", R + ["--extra-body", "[1, 2]"], "--extra-body"),
    ("run-extra-body-not-json", R + ["--extra-body", "{nope"], "--extra-body"),
    ("run-extra-body-deep", R + ["--extra-body", "[" * 20_000 + "]" * 20_000], "--extra-body"),
    # run: base URLs (finding 3, 4, 11)
    ("run-url-not-a-url", ["run", "--dataset", "{ds}", "--model", "m", "--base-url", "not a url"], "not an http(s) URL"),
    ("run-url-ftp", ["run", "--dataset", "{ds}", "--model", "m", "--base-url", "ftp://user:s3cretpw@127.0.0.1/v1"], "not an http(s) URL"),
    ("run-url-userinfo", ["run", "--dataset", "{ds}", "--model", "m", "--base-url", "http://user:s3cretpw@127.0.0.1:9/v1"],
     "carries credentials"),
    ("run-url-bad-port", ["run", "--dataset", "{ds}", "--model", "m", "--base-url", "http://127.0.0.1:99999999/v1"], "--base-url"),
    ("run-remote-without-key", ["run", "--dataset", "{ds}", "--model", "m", "--base-url", "https://api.example.invalid/v1"],
     "OPENAI_API_KEY"),
    # run: names and choices
    ("run-split-name", R + ["--split", "dev-small"], "--split"),
    ("run-channel", R + ["--channels", "telepathy"], "telepathy"),
    ("run-experiment", R + ["--experiment", "exp7"], "--experiment"),
    ("run-matcher", R + ["--matcher", "fuzzy"], "--matcher"),
    ("run-route-rule", R + ["--experiment", "exp9", "--route-rule", "nearest"], "--route-rule must be weak_set or accuracy_below"),
    ("run-resolver-range", R + ["--experiment", "exp9", "--resolver-accuracy", "1.5"], "--resolver-accuracy must be 'oracle' or a number"),
    ("run-resolver-text", R + ["--experiment", "exp9", "--resolver-accuracy", "sometimes"], "--resolver-accuracy"),
    ("run-answer-format", R + ["--answer-format", "essay"], "--answer-format must be choices or open"),
    ("run-resume-and-restart", R + ["--resume", "--restart"], "--restart"),
    ("run-no-folder", ["run", "--dataset", "{root}/absent", "--model", "m", "--base-url", "{url}"], "absent"),
    # run: damaged and tampered files (findings 2, 7, 10)
    ("run-damaged-run-json", ["run", "--dataset", "{runs}", "--model", "m", "--base-url", "{url}", "--resume", "--no-progress"],
     "exp1.run.json"),
    ("run-damaged-results", ["run", "--dataset", "{store}", "--model", "m", "--base-url", "{url}", "--resume", "--no-progress"],
     "exp1.jsonl line 2"),
    ("run-questions-cut", ["run", "--dataset", "{cut}", "--model", "m", "--base-url", "{url}", "--no-progress"], "data/questions/"),
    ("run-questions-forged", ["run", "--dataset", "{forged}", "--model", "m", "--base-url", "{url}", "--no-progress"], "croissant.json"),
    # score (findings 7, 10)
    ("score-json-is-a-folder", ["score", "--dataset", "{nocol}", "--json", "{files}/dir_arg", "--resamples", "0"], "dir_arg"),
    ("score-missing-column", ["score", "--dataset", "{nocol}", "--resamples", "0"], "acme-"),
    ("score-torn-parquet", ["score", "--dataset", "{torn}", "--resamples", "0"], "acme-"),
    ("score-questions-cut", ["score", "--dataset", "{cut}", "--resamples", "0"], "data/questions/"),
    ("score-variant", ["score", "--dataset", "{ds}", "--variant", "nope"], "--variant"),
    ("score-resamples-negative", ["score", "--dataset", "{ds}", "--resamples", "-1"], "--resamples"),
    # summary, verify, sample, build (findings 7, 10, 11)
    ("summary-questions-cut", ["summary", "{cut}"], "data/questions/"),
    ("summary-not-a-folder", ["summary", "{files}/dir_arg"], "dir_arg"),
    ("verify-forged", ["verify", "{forged}"], "do not match"),
    ("sample-n-negative", ["sample", "--dataset", "{ds}", "--n", "-1"], "--n"),
    ("sample-unknown-domain", ["sample", "--dataset", "{ds}", "--domain", "nope"], "--domain"),
    ("sample-seed-beyond-int64", ["sample", "--dataset", "{ds}", "--seed", str(2**64)], "--seed"),
    ("build-seed-beyond-int64", ["build", "--out", "{root}/new_build", "--seed", str(2**63)], "--seed"),
    ("build-seed-negative", ["build", "--out", "{root}/new_build", "--seed", "-1"], "--seed"),
    ("build-per-domain-0", ["build", "--out", "{root}/new_build", "--per-domain", "0"], "--per-domain"),
    ("build-unknown-config", ["build", "--out", "{root}/new_build", "--configs", "nope"], "nope"),
    ("build-out-is-a-file", ["build", "--out", "{files}/notes.txt"], "notes.txt"),
    ("build-configs-subset-other-form", ["build", "--out", "{ds}", "--configs", "questions", "--per-domain", "50", "--seed", "1"],
     "--configs"),
    # profile, tasks tailor (findings 10, 11)
    ("profile-k-0", ["profile", "--dataset", "{ds}", "--model", "m", "--k", "0"], "--k"),
    ("profile-k-negative", ["profile", "--dataset", "{ds}", "--model", "m", "--k", "-3"], "--k"),
    ("profile-no-trials", ["profile", "--dataset", "{ds}", "--model", "m"], "trials_exp1"),
    ("tailor-k-0", ["tasks", "tailor", "--profile", "{files}/profile_dir/profile.json", "--model", "m", "--dataset", "{ds}", "--k", "0"],
     "--k"),
    ("tailor-profile-folder", ["tasks", "tailor", "--profile", "{files}/profile_dir", "--model", "m", "--dataset", "{ds}"], "profile_dir"),
    ("tailor-binary-json", ["tasks", "tailor", "--profile", "{files}/binary.json", "--model", "m", "--dataset", "{ds}"], "binary.json"),
    ("tailor-deep-json", ["tasks", "tailor", "--profile", "{files}/deep.json", "--model", "m", "--dataset", "{ds}"], "deep.json"),
    ("tailor-every-domain-at-zero", ["tasks", "tailor", "--profile", "{files}/zero.json", "--model", "m", "--dataset", "{ds}"],
     "--min-strong-accuracy"),
    ("tailor-n-0", ["tasks", "tailor", "--profile", "{files}/profile_dir/profile.json", "--model", "m", "--dataset", "{ds}", "--n", "0"],
     "--n"),
    # import-upstream (finding 10, 11)
    ("import-a-folder", ["import-upstream", "{files}/dir_arg", "--out", "{root}/imported"], "dir_arg"),
    ("import-deep-json", ["import-upstream", "{files}/deep.json", "--out", "{root}/imported"], "deep.json"),
    ("import-binary-json", ["import-upstream", "{files}/binary.json", "--out", "{root}/imported"], "binary.json"),
    ("import-missing-file", ["import-upstream", "{files}/absent.jsonl", "--out", "{root}/imported"], "absent.jsonl"),
    # Hub (finding 10, 11): nothing listens at {hub}
    ("push-hub-unreachable", ["push", "--dataset", "{ds}", "--repo", "org/mirror"], "org/mirror"),
    ("push-bad-repo", ["push", "--dataset", "{ds}", "--repo", "not a repo"], "--repo"),
    ("export-bad-dataset-repo", ["export-eval-results", "--dataset", "{ds}", "--model", "m", "--dataset-repo", "x", "--out", "{root}/ev"],
     "--dataset-repo"),
    ("export-no-trials", ["export-eval-results", "--dataset", "{ds}", "--model", "m", "--dataset-repo", "org/mirror", "--out", "{root}/ev"],
     "headline"),
    # quickstart names its own flags (finding 11)
    ("quickstart-per-domain-0", ["quickstart", "--dataset", "{root}/qs", "--per-domain", "0"], "--per-domain"),
    ("quickstart-max-tokens-0", ["quickstart", "--dataset", "{root}/qs", "--max-tokens", "0"], "--max-tokens"),
    ("quickstart-exp9-tasks-negative", ["quickstart", "--dataset", "{root}/qs", "--exp9-tasks", "-1"], "--exp9-tasks"),
]


def _snapshot(root: Path) -> dict[str, str]:
    out = {}
    for path in sorted(root.rglob("*")):
        rel = path.relative_to(root).as_posix()
        out[rel] = hashlib.sha256(path.read_bytes()).hexdigest() if path.is_file() else "dir"
    return out


def _run(argv: list[str], world: dict) -> subprocess.CompletedProcess:
    args = []
    for arg in argv:
        for key, value in world.items():
            arg = arg.replace("{" + key + "}", str(value))
        args.append(arg)
    env = {**os.environ, **ENV, "HF_ENDPOINT": world["hub"]}
    env.pop("OPENAI_API_KEY")
    return subprocess.run([sys.executable, "-m", "mirror_hf.cli", *args], capture_output=True, text=True, env=env,
                          timeout=300, cwd=REPO, check=False)


def test_there_are_at_least_forty_distinct_cases():
    assert len({c[0] for c in CASES}) == len(CASES) >= 40
    assert DEFAULT <= {c[0] for c in CASES}
    assert len({json.dumps(c[1]) for c in CASES}) == len(CASES)


# The default run takes one case per area (each is a fresh interpreter); `-m slow` runs them all.
DEFAULT = {"run-timeout-0", "run-concurrency-not-a-number", "run-extra-body-protocol", "run-url-userinfo",
           "run-damaged-results", "run-questions-forged",
           "score-missing-column", "sample-n-negative", "build-seed-beyond-int64", "tailor-profile-folder",
           "import-deep-json", "push-hub-unreachable", "quickstart-per-domain-0"}


@pytest.mark.parametrize("name, argv, named", [
    pytest.param(*c, id=c[0], marks=() if c[0] in DEFAULT else pytest.mark.slow) for c in CASES
])
def test_bad_input_is_one_line_exit_2_and_writes_nothing(world, name, argv, named):
    before = _snapshot(world["root"])
    proc = _run(argv, world)
    after = _snapshot(world["root"])
    lines = [line for line in proc.stderr.splitlines() if line.strip()]
    assert proc.returncode == 2, f"exit {proc.returncode}\nstdout: {proc.stdout[-1500:]}\nstderr: {proc.stderr[-3000:]}"
    assert "Traceback" not in proc.stderr, proc.stderr[-3000:]
    assert len(lines) == 1 or name == "verify-forged", proc.stderr
    assert lines[-1].startswith("error: "), proc.stderr
    assert named in lines[-1], f"{named!r} not in {lines[-1]!r}"
    assert "s3cretpw" not in proc.stderr + proc.stdout and "hf_badinputTOKEN123" not in proc.stderr + proc.stdout
    assert after == before, f"files changed: {sorted(set(after.items()) ^ set(before.items()))[:5]}"


# ---------------------------------------------------------------- read-only folders (finding 10)
#
# Root ignores permission bits, so as root each case runs with CAP_DAC_OVERRIDE and
# CAP_DAC_READ_SEARCH dropped from the capability bounding set (prctl in the child before exec):
# the child is then held to the mode bits like any user. As another user the bits apply anyway.

_PR_CAPBSET_DROP, _CAP_DAC_OVERRIDE, _CAP_DAC_READ_SEARCH = 24, 1, 2


def _held_to_mode_bits():
    """A preexec_fn that makes a root child obey file modes (None when not root)."""
    if os.geteuid() != 0:
        return None
    import ctypes

    libc = ctypes.CDLL(None, use_errno=True)

    def drop() -> None:
        for cap in (_CAP_DAC_OVERRIDE, _CAP_DAC_READ_SEARCH):
            if libc.prctl(_PR_CAPBSET_DROP, cap, 0, 0, 0) != 0:
                raise OSError(ctypes.get_errno(), "prctl(PR_CAPBSET_DROP)")

    return drop


def _can_hold_to_mode_bits(tmp: Path) -> bool:
    probe = tmp / "probe"
    probe.mkdir(mode=0o555)
    proc = subprocess.run([sys.executable, "-c", f"open({str(probe / 'x')!r}, 'w')"], capture_output=True,
                          preexec_fn=_held_to_mode_bits(), check=False)
    probe.chmod(0o755)
    return proc.returncode != 0


@pytest.fixture(scope="module")
def read_only(built_folder, tmp_path_factory) -> dict:
    root = tmp_path_factory.mktemp("read_only")
    if not _can_hold_to_mode_bits(root):
        pytest.skip("cannot make a child process obey file modes here (root without prctl capability drop)")
    ds = root / "ds"  # a dataset folder whose every folder is read-only
    shutil.copytree(built_folder, ds)
    from fakes.servers import openai_server
    from runner_fixtures import cli_inproc

    with openai_server() as url:  # a few trials, so `score` has something to score
        cli_inproc("run", "--dataset", str(ds), "--model", "m", "--base-url", url, "--limit", "2", "--channels",
                   "natural", "--no-progress")
    locked = root / "locked"  # a read-only parent for --out / --json targets
    locked.mkdir()
    (root / "profile.json").write_text(json.dumps({"arithmetic": 0.9, "linguistic": 0.2}))
    folders = [p for p in ds.rglob("*") if p.is_dir()] + [ds, locked]
    for folder in folders:
        folder.chmod(0o555)
    yield {"root": root, "ds": ds, "locked": locked}
    for folder in folders:
        folder.chmod(0o755)


RO_CASES = [
    ("run-into-read-only-folder", ["run", "--dataset", "{ds}", "--model", "n", "--base-url", "{url}", "--limit", "2",
                                   "--channels", "natural", "--no-progress"], "{ds}"),
    ("build-under-read-only-parent", ["build", "--out", "{locked}/new"], "{locked}"),
    ("import-under-read-only-parent", ["import-upstream", "{root}/profile.json", "--out", "{locked}/imported"], "{locked}"),
    ("score-json-in-read-only-folder", ["score", "--dataset", "{ds}", "--json", "{locked}/s.json", "--resamples", "0"], "{locked}"),
    ("tailor-into-read-only-folder", ["tasks", "tailor", "--profile", "{root}/profile.json", "--model", "m",
                                      "--dataset", "{ds}"], "{ds}"),
]


@pytest.mark.parametrize("name, argv, named", RO_CASES, ids=[c[0] for c in RO_CASES])
def test_a_read_only_folder_is_one_line_exit_2_and_costs_nothing(read_only, name, argv, named):
    from fakes.servers import openai_server, server_stats

    with openai_server() as url:
        world = {**read_only, "url": url}
        fill = lambda s: s.format(**{k: str(v) for k, v in world.items()})  # noqa: E731
        before = _snapshot(read_only["root"])
        env = {**os.environ, **ENV, "HF_ENDPOINT": f"http://127.0.0.1:{_dead_port()}"}
        env.pop("OPENAI_API_KEY")
        proc = subprocess.run([sys.executable, "-m", "mirror_hf.cli", *map(fill, argv)], capture_output=True, text=True,
                              env=env, timeout=300, cwd=REPO, check=False, preexec_fn=_held_to_mode_bits())
        requests = server_stats(url)["requests"]
    lines = [line for line in proc.stderr.splitlines() if line.strip()]
    assert proc.returncode == 2, f"exit {proc.returncode}\nstdout: {proc.stdout[-1500:]}\nstderr: {proc.stderr[-3000:]}"
    assert "Traceback" not in proc.stderr and len(lines) == 1 and lines[0].startswith("error: "), proc.stderr
    assert fill(named) in lines[0] and "permission denied" in lines[0].lower(), lines[0]
    assert requests == 0, f"{requests} requests sent before the folder was found read-only"
    assert _snapshot(read_only["root"]) == before
