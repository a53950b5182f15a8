"""Nothing a user has is ever lost (issue 28): the battery of hostile and faulty cases as CLI tests.

Every case runs the real `main()` (in this interpreter, `cli_inproc`, or its own process where the
Hub's endpoint must be set before import) and checks: the exit code, one line `error: ...` naming
the problem, no traceback (an exception escaping `main()` fails the case), and the folder
byte-identical (refusals) or exactly as intended (--replace, repairs). `test_battery_size` counts
the cases; the random-order property test runs the writing commands against one folder and checks,
after every step, that `verify` passes, every card config loads and no earlier trial is gone unless
`--replace` named its split.
"""

from __future__ import annotations

import errno
import hashlib
import json
import os
import random
import shutil
import subprocess
import sys
from pathlib import Path

import pyarrow.parquet as pq
import pytest
from fakes.servers import fake_hub, openai_server, server_stats
from runner_fixtures import REPO, cli_inproc

EVIL = "evil</script><img src=x onerror=alert(1)>"


# ---------------------------------------------------------------- helpers


def _cli(*args, cwd: Path | None = None, env: dict | None = None) -> subprocess.CompletedProcess:
    """`mirror-hf ARGS` through `main()`; any exception other than SystemExit is a traceback: a failure."""
    old = os.getcwd()
    if cwd is not None:
        os.chdir(cwd)
    try:
        return cli_inproc(*map(str, args), check=False, env=env)
    except BaseException as exc:  # noqa: BLE001
        pytest.fail(f"traceback from mirror-hf {' '.join(map(str, args))}: {type(exc).__name__}: {exc}")
    finally:
        os.chdir(old)


def _snapshot(root: Path) -> dict[str, str]:
    out = {}
    for path in sorted(root.rglob("*")):
        rel = path.relative_to(root).as_posix()
        if path.is_symlink():
            out[rel] = "link:" + os.readlink(path)
        elif path.is_file():
            out[rel] = hashlib.sha256(path.read_bytes()).hexdigest()
        else:
            out[rel] = "dir"
    return out


def _refused(proc, *named: str, listing: bool = False) -> str:
    """Exit 2, one line `error: ...` naming each of `named`, no traceback (`listing`: `verify`, which
    lists every problem on its own line first, then names them in the last; `named` is in the listing)."""
    lines = [line for line in proc.stderr.splitlines() if line.strip()]
    assert proc.returncode == 2, f"exit {proc.returncode}\nstdout: {proc.stdout[-1500:]}\nstderr: {proc.stderr[-2000:]}"
    assert "Traceback" not in proc.stderr, proc.stderr
    assert (len(lines) >= 1 if listing else len(lines) == 1) and lines[-1].startswith("error: "), proc.stderr
    for name in named:
        assert name in (proc.stderr if listing else lines[-1]), f"{name!r} not in {lines[-1]!r}"
    return lines[-1]


def _ok(proc) -> subprocess.CompletedProcess:
    assert proc.returncode == 0, f"exit {proc.returncode}\nstdout: {proc.stdout[-1500:]}\nstderr: {proc.stderr[-2000:]}"
    assert "Traceback" not in proc.stderr
    return proc


def _verify_clean(ds: Path) -> None:
    from mirror_hf.integrity import problems

    found, _ = problems(ds)
    assert not found, [str(p) for p in found]


def _card_configs_load(ds: Path, configs: set[str] | None = None) -> dict[str, int]:
    """Every (or the named) card config loads with `datasets.load_dataset`, as a user loads it."""
    from datasets import load_dataset

    from mirror_hf.integrity import card_files, card_front_matter

    doc, why = card_front_matter(ds)
    assert why is None, why
    listed, bad = card_files(doc)
    assert not bad, bad
    names = sorted({c for c, _ in listed.values()} if configs is None else configs)
    rows = {}
    for name in names:
        loaded = load_dataset(str(ds), name, cache_dir=str(ds.parent / ".hf_cache"))
        rows[name] = sum(split.num_rows for split in loaded.values())
    return rows


def _split_file(ds: Path, config: str, split: str) -> Path:
    files = [p for p in (ds / "data" / config).glob(f"{split}-*.parquet")]
    assert len(files) == 1, files
    return files[0]


def _trial_keys(ds: Path) -> dict[tuple[str, str], set[tuple]]:
    """(config, split) -> the trials it holds, each as (run_id, item_id, channel or condition/paradigm)."""
    from mirror_hf.folder import split_files

    out = {}
    for config, files in split_files(ds).items():
        if not config.startswith("trials_"):
            continue
        for f in files:
            table = pq.read_table(f.path)
            cols = [c for c in ("run_id", "item_id", "channel", "condition", "paradigm") if c in table.column_names]
            rows = table.select(cols).to_pylist()
            out[(config, f.split)] = {tuple(r.get(c) for c in cols) for r in rows}
    return out


def _rehash(path: Path) -> Path:
    digest = hashlib.sha256(path.read_bytes()).hexdigest()[:12]
    target = path.with_name(f"{path.name.rsplit('-', 1)[0]}-{digest}.parquet")
    path.rename(target)
    return target


# ---------------------------------------------------------------- the world


@pytest.fixture(scope="module")
def server():
    with openai_server() as url:
        yield url


def _run(ds: Path, url: str, model: str = "alpha", *extra, cwd=None, limit: int = 4):
    return _cli("run", "--dataset", ds, "--model", model, "--base-url", url, "--no-progress", "--limit", str(limit),
                "--channels", "natural,wagering", "--concurrency", "4", *extra, cwd=cwd)


@pytest.fixture(scope="module")
def world(built_folder, server, tmp_path_factory) -> dict:
    """A dataset folder with a model's trials (split `alpha`, 8 trials) and its profile, made once."""
    root = tmp_path_factory.mktemp("no_loss")
    ds = root / "ds"
    shutil.copytree(built_folder, ds)
    _ok(_run(ds, server))
    _ok(_cli("profile", "--dataset", ds, "--model", "alpha"))
    (root / "profile.json").write_text(json.dumps({"arithmetic": 0.9, "linguistic": 0.2, "factual": 0.8, "spatial": 0.3}))
    return {"root": root, "ds": ds, "url": server}


@pytest.fixture
def copy(world, tmp_path) -> Path:
    """A private copy of the world's folder (for cases that change it)."""
    target = tmp_path / "ds"
    shutil.copytree(world["ds"], target, symlinks=True)
    return target


def _fill(argv, **values):
    return [str(a).format(**{k: str(v) for k, v in values.items()}) for a in argv]


# ---------------------------------------------------------------- 1. report --out


REPORT_OUT = [
    ("onto-the-dataset", "{ds}", "holds the dataset folder"),
    ("onto-a-folder-with-other-files", "{root}/mydocs", "holding other files"),
    ("onto-the-parent-of-the-dataset", "{root}", "holds the dataset folder"),
    ("onto-a-file", "{root}/afile", "is a file"),
    ("inside-the-dataset", "{ds}/report", "inside the dataset folder"),
    ("into-data", "{ds}/data", "inside the dataset folder"),
]


@pytest.mark.parametrize("name, out, named", REPORT_OUT, ids=[c[0] for c in REPORT_OUT])
def test_report_out_never_deletes_anything(world, name, out, named):
    root = world["root"]
    (root / "mydocs").mkdir(exist_ok=True)
    (root / "mydocs" / "thesis.txt").write_text("four years of work\n")
    (root / "afile").write_text("a file\n")
    before = _snapshot(root)
    proc = _cli("report", "--dataset", world["ds"], "--out", _fill([out], **world)[0], "--resamples", "0")
    _refused(proc, named, "nothing was written")
    assert _snapshot(root) == before


def test_report_out_replaces_only_its_own_previous_report(world, tmp_path):
    out = tmp_path / "rep"
    _ok(_cli("report", "--dataset", world["ds"], "--out", out, "--resamples", "0"))
    assert (out / ".mirror_report").is_file() and (out / "index.html").is_file()
    (out / "stale.txt").write_text("from the first report\n")
    _ok(_cli("report", "--dataset", world["ds"], "--out", out, "--resamples", "0"))  # a previous report: replaced whole
    assert not (out / "stale.txt").exists() and (out / "report.md").is_file()
    empty = tmp_path / "empty"
    empty.mkdir()
    _ok(_cli("report", "--dataset", world["ds"], "--out", empty, "--resamples", "0"))
    _verify_clean(world["ds"])


# ---------------------------------------------------------------- 1. --replace: run, tasks tailor, profile, score --json


def test_run_over_a_split_without_its_journal_is_refused(copy, server):
    shutil.rmtree(copy / ".runs")  # a fresh clone of a pushed folder, a cleaned cache
    before = _snapshot(copy)
    sent = server_stats(server)["requests"]
    _refused(_run(copy, server), "split 'alpha'", "trials_exp1", "--replace", "nothing was written")
    assert _snapshot(copy) == before and server_stats(server)["requests"] == sent  # nothing paid either
    keys = _trial_keys(copy)[("trials_exp1", "alpha")]
    _ok(_run(copy, server, "alpha", "--replace", limit=2))  # named: replaced
    assert len(_trial_keys(copy)[("trials_exp1", "alpha")]) == 4 != len(keys)
    _verify_clean(copy)


def test_run_over_a_split_whose_journal_is_another_runs_is_refused(copy, server):
    identity = copy / ".runs" / "alpha" / "exp1.run.json"
    stored = json.loads(identity.read_text())
    identity.write_text(json.dumps({**stored, "run_id": "someone-else"}))
    before = _snapshot(copy)
    _refused(_run(copy, server, "alpha", "--resume"), "split 'alpha'", "--replace")
    assert _snapshot(copy) == before


def test_run_resume_with_its_journal_rewrites_its_own_split(copy, server):
    keys = _trial_keys(copy)[("trials_exp1", "alpha")]
    _ok(_run(copy, server, "alpha", "--resume", limit=8))
    assert keys <= _trial_keys(copy)[("trials_exp1", "alpha")]  # grown, nothing gone
    _verify_clean(copy)


def test_tasks_tailor_again_with_other_n_is_refused_then_replaced(copy, world):
    # the world's own profile has no strong domain (every answer wrong), which tailoring refuses
    args = ["tasks", "tailor", "--profile", world["root"] / "profile.json", "--model", "alpha", "--dataset", copy]
    _ok(_cli(*args, "--n", "30"))
    _ok(_cli(*args, "--n", "30"))  # the same content again: nothing to refuse
    before = _snapshot(copy)
    _refused(_cli(*args, "--n", "10"), "split 'alpha'", "exp9_tailored", "--replace")
    assert _snapshot(copy) == before
    _ok(_cli(*args, "--n", "10", "--replace"))
    assert pq.read_metadata(_split_file(copy, "exp9_tailored", "alpha")).num_rows == 10
    _verify_clean(copy)


def test_profile_of_other_content_is_refused_then_replaced(copy):
    before = _snapshot(copy)
    _ok(_cli("profile", "--dataset", copy, "--model", "alpha"))  # same trials, same profile: no change
    assert _snapshot(copy) == before
    _refused(_cli("profile", "--dataset", copy, "--model", "alpha", "--weak-policy", "bottom_k", "--k", "3"),
             "split 'alpha'", "profiles", "--replace")
    assert _snapshot(copy) == before
    _ok(_cli("profile", "--dataset", copy, "--model", "alpha", "--weak-policy", "bottom_k", "--k", "3", "--replace"))
    _verify_clean(copy)


def test_score_json_onto_another_file_is_refused(world, tmp_path):
    target = tmp_path / "scores.json"
    target.write_text('{"mine": true}\n')
    _refused(_cli("score", "--dataset", world["ds"], "--json", target, "--resamples", "0"), str(target), "--replace")
    assert target.read_text() == '{"mine": true}\n'
    _ok(_cli("score", "--dataset", world["ds"], "--json", target, "--resamples", "0", "--replace"))
    _ok(_cli("score", "--dataset", world["ds"], "--json", target, "--resamples", "0"))  # the same scores again
    assert "models" in json.loads(target.read_text())


# ---------------------------------------------------------------- 1. import-inspect


@pytest.fixture(scope="module")
def inspect_log(world, server, tmp_path_factory) -> Path:
    pytest.importorskip("inspect_ai", reason="the inspect extra is not installed")
    logs = tmp_path_factory.mktemp("logs")
    inspect = Path(sys.executable).with_name("inspect")
    env = {**os.environ, "LOCAL_BASE_URL": server, "LOCAL_API_KEY": "sk-x", "INSPECT_LOG_DIR": str(logs)}
    proc = subprocess.run([str(inspect), "eval", "mirror_hf/exp1", "--model", "openai-api/local/alpha", "--display", "none",
                           "--log-dir", str(logs), "-T", f"dataset={world['ds']}", "-T", "limit=2", "-T", "channels=natural"],
                          check=False, capture_output=True, text=True, env=env, timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return next(logs.glob("*.eval"))


def test_import_inspect_over_an_existing_split(copy, inspect_log):
    before = _snapshot(copy)
    _refused(_cli("import-inspect", inspect_log, "--dataset", copy), "split 'alpha'", "--replace")
    assert _snapshot(copy) == before
    _ok(_cli("import-inspect", inspect_log, "--dataset", copy, "--replace"))
    _verify_clean(copy)
    assert _card_configs_load(copy, {"trials_exp1"})["trials_exp1"] == 2  # alpha now holds the log's 2 trials


def test_import_inspect_under_a_new_split_is_listed(copy, inspect_log):
    _ok(_cli("import-inspect", inspect_log, "--dataset", copy, "--split", "fromlog"))
    _verify_clean(copy)
    new = _split_file(copy, "trials_exp1", "fromlog").relative_to(copy).as_posix()
    assert new in (copy / "README.md").read_text() and new in (copy / "croissant.json").read_text()
    assert _card_configs_load(copy, {"trials_exp1"})["trials_exp1"] == 8 + 2


# ---------------------------------------------------------------- 2. verify and every folder-reading command


def _break_yaml(ds):
    text = (ds / "README.md").read_text()
    (ds / "README.md").write_text(text.replace("configs:", "configs: [unclosed\n  - :", 1))


def _folder_is_a_file(ds):
    shutil.rmtree(ds / "data" / "profiles")
    (ds / "data" / "profiles").write_text("not a folder\n")


def _delete_listed(ds):
    _split_file(ds, "profiles", "alpha").unlink()


def _croissant_ghost(ds):
    doc = json.loads((ds / "croissant.json").read_text())
    doc["distribution"].append({"@type": "cr:FileObject", "@id": "ghost", "contentUrl": "data/questions/ghost-000000000000.parquet",
                                "sha256": "0" * 64, "encodingFormat": "application/x-parquet"})
    (ds / "croissant.json").write_text(json.dumps(doc))


def _unlisted(ds):
    source = _split_file(ds, "profiles", "alpha")
    shutil.copyfile(source, source.with_name(source.name.replace("alpha-", "beta-")))


def _two_files(ds):
    source = _split_file(ds, "profiles", "alpha")
    table = pq.read_table(source).slice(0, 2)
    other = source.with_name("alpha-000000000000.parquet")
    pq.write_table(table, other)
    _rehash(other)


def _cut(ds):
    q = next((ds / "data" / "questions").glob("*.parquet"))
    pq.write_table(pq.read_table(q).slice(0, 50), q)


def _replaced_before_refresh(ds):
    """A split rewritten and the process stopped before the card and Croissant were (a full disk then)."""
    from mirror_hf.folder import write_split
    from mirror_hf.records import PROFILE_FEATURES

    rows = pq.read_table(_split_file(ds, "profiles", "alpha")).to_pylist()[:2]
    write_split(ds, "profiles", "alpha", rows, PROFILE_FEATURES, replace=True)


def _croissant_not_json(ds):
    (ds / "croissant.json").write_text('{"distribution": [')


def _card_missing_config_folder(ds):
    shutil.rmtree(ds / "data" / "profiles")


def _no_front_matter(ds):
    text = (ds / "README.md").read_text()
    (ds / "README.md").write_text(text.split("\n---\n", 1)[1])


BROKEN = {  # kind -> (how, what the one line names, repairable from the data files)
    "card-yaml-does-not-parse": (_break_yaml, "YAML does not parse", True),
    "config-folder-is-a-file": (_folder_is_a_file, "data/profiles is a file", True),
    "listed-parquet-deleted": (_delete_listed, "which is missing", True),
    "croissant-lists-a-missing-file": (_croissant_ghost, "croissant.json lists data/questions/ghost", True),
    "file-on-disk-not-listed": (_unlisted, "not listed in the card", True),
    "two-files-for-one-split": (_two_files, "profiles/alpha", True),
    "config-folder-deleted": (_card_missing_config_folder, "which is missing", True),
    "card-without-front-matter": (_no_front_matter, "no YAML front matter", True),
    "croissant-not-json": (_croissant_not_json, "croissant.json is damaged", True),
    "data-file-cut": (_cut, "content changed", False),
    "split-replaced-before-refresh": (_replaced_before_refresh, "a file was replaced", True),
}

READERS = {  # command -> argv (`{ds}` the broken folder)
    "verify": ["verify", "{ds}"],
    "summary": ["summary", "{ds}"],
    "score": ["score", "--dataset", "{ds}", "--resamples", "0"],
    "report": ["report", "--dataset", "{ds}", "--out", "{out}", "--resamples", "0"],
    "profile": ["profile", "--dataset", "{ds}", "--split", "alpha", "--replace"],
    "run": ["run", "--dataset", "{ds}", "--model", "gamma", "--base-url", "{url}", "--limit", "2", "--channels", "natural",
            "--no-progress"],
    "tasks-tailor": ["tasks", "tailor", "--profile", "{profile}", "--model", "gamma", "--dataset", "{ds}"],
    "sample": ["sample", "--dataset", "{ds}", "--n", "1"],
    "export-eval-results": ["export-eval-results", "--dataset", "{ds}", "--model", "alpha", "--dataset-repo", "org/mirror",
                            "--revision", "abc123", "--out", "{out}"],
}


@pytest.fixture(scope="module")
def broken(world, tmp_path_factory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("broken")
    out = {}
    for kind, (how, _, _) in BROKEN.items():
        ds = root / kind / "ds"
        shutil.copytree(world["ds"], ds)
        how(ds)
        out[kind] = ds
    return out


@pytest.mark.parametrize("command", sorted(READERS))
@pytest.mark.parametrize("kind", sorted(BROKEN))
def test_a_broken_folder_is_refused_naming_the_problem_and_repair(broken, world, kind, command, tmp_path):
    ds = broken[kind]
    _, named, repairable = BROKEN[kind]
    before = _snapshot(ds.parent)
    argv = _fill(READERS[command], ds=ds, out=tmp_path / "out", url=world["url"], profile=world["root"] / "profile.json")
    line = _refused(_cli(*argv), named, listing=command == "verify")
    assert ("verify --repair" in line) == repairable, line
    assert _snapshot(ds.parent) == before and not (tmp_path / "out").exists()


@pytest.mark.parametrize("kind", sorted(BROKEN))
def test_verify_repair_regenerates_card_and_croissant_from_intact_data(broken, kind, tmp_path):
    ds = tmp_path / "ds"
    shutil.copytree(broken[kind], ds)
    _, named, repairable = BROKEN[kind]
    if not repairable:
        before = _snapshot(ds)
        lines = _cli("verify", ds, "--repair")
        assert lines.returncode == 2 and "cannot repair" in lines.stderr.splitlines()[-1] and "Traceback" not in lines.stderr
        assert _snapshot(ds) == before
        return
    if kind == "two-files-for-one-split":  # two files of one split: load_dataset would read both; the user picks one
        files = sorted((ds / "data" / "profiles").glob("alpha-*.parquet"))
        listed = (ds / "croissant.json").read_text()
        stray = [p for p in files if p.name not in listed]
        assert len(files) == 2 and len(stray) == 1
        stray[0].unlink()
    proc = _ok(_cli("verify", ds, "--repair"))
    assert "repaired" in proc.stdout
    _ok(_cli("verify", ds))
    _verify_clean(ds)
    _card_configs_load(ds, {"questions"} | ({"profiles"} if any((ds / "data" / "profiles").glob("*.parquet")) else set()))


def test_verify_passes_a_clean_folder_and_every_config_loads(world):
    proc = _ok(_cli("verify", world["ds"]))
    assert proc.stdout.startswith("ok: ")
    rows = _card_configs_load(world["ds"])
    assert rows["trials_exp1"] == 8 and rows["profiles"] >= 1 and rows["questions"] > 0


# ---------------------------------------------------------------- 3. paths from another working directory


PATH_COMMANDS = {
    "summary": ["summary", "{ds}"],
    "verify": ["verify", "{ds}"],
    "score": ["score", "--dataset", "{ds}", "--resamples", "0"],
    "report": ["report", "--dataset", "{ds}", "--out", "{rep}", "--resamples", "0"],
    "profile": ["profile", "--dataset", "{ds}", "--model", "alpha"],
    "run": ["run", "--dataset", "{ds}", "--model", "rel", "--base-url", "{url}", "--limit", "2", "--channels", "natural",
            "--no-progress"],
    "tasks-tailor": ["tasks", "tailor", "--profile", "{ds}/../profile.json", "--model", "alpha", "--dataset", "{ds}", "--n", "20"],
    "sample": ["sample", "--dataset", "{ds}", "--n", "1"],
    "score-json": ["score", "--dataset", "{ds}", "--resamples", "0", "--json", "{rep}.json"],
}


@pytest.mark.parametrize("style", ["parent", "relative", "dot"])
@pytest.mark.parametrize("command", sorted(PATH_COMMANDS))
def test_every_command_takes_relative_and_parent_paths(copy, world, command, style):
    work = copy.parent / "elsewhere"
    work.mkdir()
    cwd, ds = {"parent": (work, "../ds"), "relative": (copy.parent, "ds"), "dot": (copy, ".")}[style]
    rep = {"parent": "../rep", "relative": "rep", "dot": "../rep"}[style]
    shutil.copy(world["root"] / "profile.json", copy.parent / "profile.json")  # one with a strong domain
    _ok(_cli(*_fill(PATH_COMMANDS[command], ds=ds, rep=rep, url=world["url"]), cwd=cwd))
    _verify_clean(copy)


# ---------------------------------------------------------------- 4. inputs and servers


def test_a_malformed_retry_after_is_treated_as_absent_with_a_warning(copy):
    # every request is refused once (faults are a function of the messages, so a rate below 1 could
    # leave a given bank's few requests all unrefused), then answered
    with openai_server({"429": 1.0}, retry_after="soon", max_transient=1) as url:
        proc = _ok(_run(copy, url, "soon", "--backoff-base", "0.01", limit=4))
    assert "malformed Retry-After" in proc.stderr and "'soon'" in proc.stderr
    assert "wrote split 'soon'" in proc.stdout


@pytest.mark.parametrize("value", ["soon", "Mon, 99 Foo 2026", "1e999999", "-", "\u00e9t\u00e9", "12 s"])
def test_parse_retry_after_never_raises(value):
    from mirror_hf.runner.client import parse_retry_after

    got = parse_retry_after({"retry-after": value})
    assert got is None or got >= 0


def test_a_results_path_that_is_a_folder_is_one_line(copy, server):
    results = copy / ".runs" / "alpha" / "exp1.jsonl"
    results.unlink()
    results.mkdir()
    before = _snapshot(copy)
    _refused(_run(copy, server, "alpha", "--resume"), "exp1.jsonl", "is a folder")
    assert _snapshot(copy) == before


def test_a_bank_with_a_missing_column_names_file_and_column(copy, server):
    q = next((copy / "data" / "questions").glob("*.parquet"))
    pq.write_table(pq.read_table(q).drop_columns(["subcategory"]), q)
    q = _rehash(q)
    from mirror_hf.metadata import refresh_metadata

    refresh_metadata(copy)  # as a forger would: the folder is consistent, the column is what is wrong
    before = _snapshot(copy)
    _refused(_run(copy, server, "beta"), q.name, "'subcategory'")
    assert _snapshot(copy) == before


def test_a_full_disk_stops_sending_at_once(copy, monkeypatch):
    """The results file's writes fail with ENOSPC after a few: one line, exit 2, and the resume pays
    again at most the requests that were in flight."""
    import mirror_hf.runner.store as store

    real, calls = os.write, {"n": 0}

    def write(fd, data):
        calls["n"] += 1
        if calls["n"] > 3 and os.readlink(f"/proc/self/fd/{fd}").endswith("exp1.jsonl"):
            raise OSError(errno.ENOSPC, "No space left on device")
        return real(fd, data)

    concurrency = 4
    with openai_server(delay_s=0.02) as url:
        monkeypatch.setattr(store.os, "write", write)
        proc = _cli("run", "--dataset", copy, "--model", "full", "--base-url", url, "--no-progress", "--limit", "200",
                    "--channels", "natural", "--concurrency", str(concurrency))
        monkeypatch.setattr(store.os, "write", real)
        _refused(proc, "No space left on device", "--resume")
        first = server_stats(url)["requests"]
        kept = len((copy / ".runs" / "full" / "exp1.jsonl").read_text().splitlines())
        # stopped at once: beyond what was kept, only the requests in flight and the batch the disk refused
        assert kept <= first <= kept + 3 * concurrency, (first, kept)
        _ok(_cli("run", "--dataset", copy, "--model", "full", "--base-url", url, "--no-progress", "--limit", "200",
                 "--channels", "natural", "--concurrency", str(concurrency), "--resume"))
        stats = server_stats(url)
    paid_twice = stats["requests"] - stats["distinct"]
    print(f"full disk: first session sent {first} of 200, kept {kept}; {paid_twice} paid twice on resume")
    assert paid_twice == first - kept <= 3 * concurrency  # nothing kept is paid again
    _verify_clean(copy)


def test_a_read_only_report_parent_is_one_line(world, tmp_path, monkeypatch):
    locked = tmp_path / "locked"
    locked.mkdir()
    monkeypatch.setattr(os, "access", lambda path, mode, **kw: Path(path) != locked)
    _refused(_cli("report", "--dataset", world["ds"], "--out", locked / "rep", "--resamples", "0"), str(locked), "ermission denied")
    assert list(locked.iterdir()) == []


def _hub_env(endpoint: str, tmp_path) -> dict:
    return {**os.environ, "HF_ENDPOINT": endpoint, "HF_HUB_DISABLE_XET": "1", "HF_TOKEN": "hf_noLOSS", "HF_HUB_OFFLINE": "0",
            "HF_DATASETS_OFFLINE": "0", "HF_HOME": str(tmp_path / "hf_home_client"), "HF_HUB_DISABLE_PROGRESS_BARS": "1"}


def _push(ds, env):
    return subprocess.run([sys.executable, "-m", "mirror_hf.cli", "push", "--dataset", str(ds), "--repo", "org/mirror"],
                          capture_output=True, text=True, env=env, timeout=300, cwd=REPO, check=False)


def test_a_broken_hub_card_is_one_line_and_a_symlink_out_is_never_uploaded(copy, tmp_path):
    secret = tmp_path / "outside.txt"
    secret.write_text("private notes outside the folder\n")
    (copy / "notes.txt").symlink_to(secret)
    with fake_hub(tmp_path / "hub") as endpoint:
        env = _hub_env(endpoint, tmp_path)
        pushed = _push(copy, env)
        assert pushed.returncode == 0, pushed.stderr[-2000:]
        assert "skipped 1 symlink" in pushed.stdout and "notes.txt" in pushed.stdout
        repo = tmp_path / "hub" / "datasets" / "org" / "mirror"
        assert not any("private notes" in p.read_text(errors="replace") for p in repo.rglob("*") if p.is_file())
        card = repo / "README.md"
        card.write_text(card.read_text().replace("configs:", "configs: [unclosed\n  - :", 1))
        again = _push(copy, env)
    lines = [line for line in again.stderr.splitlines() if line.strip()]
    assert again.returncode == 2 and "Traceback" not in again.stderr and len(lines) == 1, again.stderr[-2000:]
    assert "org/mirror" in lines[0] and "does not parse" in lines[0]


# ---------------------------------------------------------------- 5. names escaped


def test_a_hostile_model_name_is_inert_in_the_card_and_the_report(copy, server, tmp_path):
    _ok(_cli("run", "--dataset", copy, "--model", EVIL, "--split", "evil", "--base-url", server, "--no-progress",
             "--limit", "2", "--channels", "natural"))
    _ok(_cli("report", "--dataset", copy, "--out", tmp_path / "rep", "--resamples", "0"))
    card = (copy / "README.md").read_text()
    report = (tmp_path / "rep" / "report.md").read_text()
    page = (tmp_path / "rep" / "index.html").read_text()
    data = page.split("<script type='application/json' id='datasets'>", 1)[1].split("</script>", 1)[0]
    assert "</script" not in data  # the trial browser's data: JSON in a data block that cannot close it
    page = page.replace(data, "")
    for text in (card, report, page):
        assert "<img src=x" not in text and "</script><img" not in text
    assert "evil&lt;/script&gt;&lt;img" in card and "evil&lt;/script&gt;&lt;img" in report


@pytest.mark.parametrize("name", [EVIL, "a|b", "[x](javascript:alert(1))", "`code`", "line\nbreak", "<b>bold</b>"])
def test_markdown_text_is_inert(name):
    from mirror_hf.writes import markdown_text

    text = markdown_text(name)
    assert "<" not in text and "\n" not in text
    assert all(text.count(ch) == text.count("\\" + ch) for ch in "|[]`")


# ---------------------------------------------------------------- 1. atomic writes


def test_a_full_disk_during_the_metadata_refresh_leaves_all_three_files(copy, monkeypatch):
    from mirror_hf.metadata import refresh_metadata
    from mirror_hf.writes import WriteError

    before = _snapshot(copy)
    real = os.fsync
    calls = {"n": 0}

    def fsync(fd):
        calls["n"] += 1
        if calls["n"] == 2:
            raise OSError(errno.ENOSPC, "No space left on device")
        return real(fd)

    monkeypatch.setattr(os, "fsync", fsync)
    with pytest.raises(WriteError, match="No space left"):
        refresh_metadata(copy)
    monkeypatch.setattr(os, "fsync", real)
    assert _snapshot(copy) == before  # README.md, croissant.json, eval.yaml as they were; no temp file


def test_a_full_disk_while_writing_a_split_leaves_the_folder(copy, monkeypatch):
    import pyarrow as pa

    from mirror_hf.folder import SplitWriter

    before = _snapshot(copy)
    writer = SplitWriter(copy, "profiles", "alpha", pa.schema([("x", pa.int64())]), replace=True)

    def full(*a, **k):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(writer._writer, "write_table", full)
    from mirror_hf.writes import WriteError

    with pytest.raises(WriteError, match="No space left"):
        writer.write(pa.table({"x": [1]}))
    assert _snapshot(copy) == before


# ---------------------------------------------------------------- 6. the random-order property test


def _steps(rng: random.Random, n: int):
    kinds = ["run-new", "run-resume", "run-no-journal", "run-no-journal-replace", "tailor", "tailor-replace",
             "profile", "profile-replace", "score-json", "report", "report-onto-dataset", "verify"]
    return [rng.choice(kinds) for _ in range(n)]


def _property(ds: Path, url: str, tmp: Path, steps: int, seed: int) -> dict:
    rng = random.Random(seed)
    models = ["m0", "m1", "m2"]
    ledger = _trial_keys(ds)
    tally = {"ok": 0, "refused": 0}
    for step, kind in enumerate(_steps(rng, steps)):
        model = rng.choice(models)
        limit = rng.choice([2, 3, 4])
        named: set[tuple[str, str]] = set()
        exists = (ds / "data" / "trials_exp1").is_dir() and any((ds / "data" / "trials_exp1").glob(f"{model}-*.parquet"))
        if kind == "run-new":
            proc = _run(ds, url, model, "--resume", limit=limit) if (ds / ".runs" / model).exists() else _run(ds, url, model, limit=limit)
        elif kind == "run-resume":
            proc = _run(ds, url, model, "--resume", limit=limit)
        elif kind.startswith("run-no-journal"):
            shutil.rmtree(ds / ".runs" / model, ignore_errors=True)
            replace = kind.endswith("replace")
            proc = _run(ds, url, model, *(["--replace"] if replace else []), limit=limit)
            if replace:
                named.add(("trials_exp1", model))
            elif exists:
                assert proc.returncode == 2, (step, kind, proc.stderr)
        elif kind.startswith("tailor"):
            replace = kind.endswith("replace")
            profile = ds if any((ds / "data" / "profiles").glob(f"{model}-*.parquet")) else tmp / "profile.json"
            proc = _cli("tasks", "tailor", "--profile", profile, "--model", model, "--dataset", ds, "--n", str(rng.choice([10, 20])),
                        *(["--replace"] if replace else []))
        elif kind.startswith("profile"):
            proc = _cli("profile", "--dataset", ds, "--model", model, "--k", str(rng.choice([1, 2])),
                        *(["--replace"] if kind.endswith("replace") else []))
        elif kind == "score-json":
            proc = _cli("score", "--dataset", ds, "--resamples", "0", "--json", tmp / "scores.json", "--replace")
        elif kind == "report":
            proc = _cli("report", "--dataset", ds, "--out", tmp / "report", "--resamples", "0")
        elif kind == "report-onto-dataset":
            proc = _cli("report", "--dataset", ds, "--out", rng.choice([ds, ds.parent, ds / "data"]), "--resamples", "0")
            assert proc.returncode == 2, (step, kind)
        else:
            proc = _cli("verify", ds)
        assert "Traceback" not in proc.stderr, (step, kind, proc.stderr)
        if proc.returncode != 0:
            lines = [line for line in proc.stderr.splitlines() if line.strip()]
            assert proc.returncode == 2 and len(lines) == 1 and lines[0].startswith("error: "), (step, kind, proc.stderr)
            tally["refused"] += 1
        else:
            tally["ok"] += 1
        # after every step: verify passes, the configs load, no earlier trial gone unless --replace named it
        _verify_clean(ds)
        changed = {"trials_exp1", "profiles", "exp9_tailored"} & {p.name for p in (ds / "data").iterdir()}
        if step % 10 == 0 or step == steps - 1:
            _card_configs_load(ds, changed)
        now = _trial_keys(ds)
        for key, trials in ledger.items():
            if key not in named:
                assert trials <= now.get(key, set()), f"step {step} {kind}: trials of {key} lost"
        ledger = now
    return tally


def test_writing_commands_in_random_order_lose_nothing(copy, server, world):
    shutil.copy(world["root"] / "profile.json", copy.parent / "profile.json")
    tally = _property(copy, server, copy.parent, steps=14, seed=28)
    assert tally["ok"] and tally["refused"], tally


@pytest.mark.slow
@pytest.mark.timeout(3600)
def test_writing_commands_in_random_order_lose_nothing_200_steps(copy, server, world):
    shutil.copy(world["root"] / "profile.json", copy.parent / "profile.json")
    tally = _property(copy, server, copy.parent, steps=200, seed=2026)
    print(f"200 steps: {tally}")
    assert tally["ok"] + tally["refused"] == 200


# ---------------------------------------------------------------- the count


def test_battery_size():
    """The issue's battery was 149 cases: this file alone holds at least that many."""
    import inspect

    module = sys.modules[__name__]
    count = 0
    for name, fn in inspect.getmembers(module, inspect.isfunction):
        if not name.startswith("test_") or name == "test_battery_size":
            continue
        n = 1
        for mark in getattr(fn, "pytestmark", []):
            if mark.name == "parametrize":
                n *= len(mark.args[1])
        count += n
    print(f"battery: {count} cases")
    assert count >= 149, count
