"""Small hand-written task banks for runner tests: exp3_composite and exp9_fixed rows in the records'
Features, written with `folder.write_split`, so Exp3/Exp9 plumbing is tested whatever the task-bank
builders currently produce."""

from __future__ import annotations

from pathlib import Path

from mirror_hf.folder import write_split
from mirror_hf.records import DOMAINS, EXP3_TASK_FEATURES, EXP9_TASK_FEATURES


def _question(qid: str, domain: str, text: str, answer: str) -> dict:
    return {
        "id": qid, "domain": domain, "subcategory": f"{domain}_sub", "difficulty": "easy", "question": text,
        "choices": [], "answer": answer, "answer_type": "exact_numeric", "aliases": [], "generator": "test@1",
        "seed": 0, "params": "{}",
    }


def exp3_rows(n: int) -> list[dict]:
    rows = []
    for i in range(n):
        a, b = DOMAINS[i % 8], DOMAINS[(i + 3) % 8]
        rows.append({
            "task_id": f"exp3.t{i:03d}", "domain_a": a, "domain_b": b, "stratum": "easy+easy",
            "task_text": f"Compute {i} + 2, then double it.", "answer": str((i + 2) * 2), "answer_type": "exact_numeric",
            "aliases": [], "component_a": _question(f"qa{i}", a, f"What is {i} + 2?", str(i + 2)),
            "component_b": _question(f"qb{i}", b, f"What is twice {i + 2}?", str((i + 2) * 2)),
            "generator": "test@1", "seed": 0, "params": "{}",
        })
    return rows


def exp9_rows(n: int) -> list[dict]:
    rows = []
    for i in range(n):
        a, b = DOMAINS[i % 8], DOMAINS[(i + 5) % 8]
        rows.append({
            "task_id": f"exp9.t{i:03d}", "task_type": "fixed", "circularity_free": True, "target_model": None,
            "domain_a": a, "domain_b": b, "subcategory_a": f"{a}_sub", "subcategory_b": f"{b}_sub",
            "difficulty_a": "easy", "difficulty_b": "easy", "correct_answer_a": str(i + 1), "correct_answer_b": "42",
            "answer_type_a": "exact_numeric", "answer_type_b": "exact_numeric", "aliases_a": [], "aliases_b": [],
            "task_text": f"A work task number {i}.", "part1_text": f"What is {i} + 1?", "part2_text": "What is 6 * 7?",
            "question_id_a": None, "question_id_b": None, "strength_a": None, "strength_b": None,
            "weak_policy": None, "seed": 0,
        })
    return rows


def add_task_banks(root: Path, n3: int = 8, n9: int = 8) -> None:
    """Replace the folder's Exp3/Exp9 task banks with the small hand-written ones (a deliberate
    replacement, so `replace=True` under the write rule), and list them in the card."""
    from mirror_hf.metadata import refresh_metadata

    write_split(root, "exp3_composite", "test", exp3_rows(n3), EXP3_TASK_FEATURES, replace=True)
    write_split(root, "exp9_fixed", "test", exp9_rows(n9), EXP9_TASK_FEATURES, replace=True)
    refresh_metadata(root)


# --------------------------------------------------------------------------------------------
# Shared pytest fixtures and helpers for tests/test_runner_*.py and tests/test_hub_*.py
# --------------------------------------------------------------------------------------------

import json
import os
import shutil
import subprocess
import sys

import pytest
from once import made_once

REPO = Path(__file__).resolve().parents[1]
MIRROR_HF = [sys.executable, "-m", "mirror_hf.cli"]  # the console script's module, same interpreter


@pytest.fixture(scope="session")
def built_folder(tmp_path_factory) -> Path:
    """One real build per test run (small bank), with the Exp3/Exp9 banks the builders produce, or
    hand-written ones if a builder is not there. A build that fails is an error, never a warning."""
    return made_once(tmp_path_factory, "built", _build_small) / "mirror"


def _build_small(folder: Path) -> None:
    from mirror_hf.build import BuildRequest, build
    from mirror_hf.folder import split_files
    from mirror_hf.metadata import refresh_metadata

    out = folder / "mirror"
    build(BuildRequest(out=out, seed=0, per_domain=50))  # a failing build fails the tests that need it
    configs = split_files(out)
    if "exp3_composite" not in configs:
        write_split(out, "exp3_composite", "test", exp3_rows(8), EXP3_TASK_FEATURES)
    if "exp9_fixed" not in configs:
        write_split(out, "exp9_fixed", "test", exp9_rows(8), EXP9_TASK_FEATURES)
    refresh_metadata(out)


@pytest.fixture
def dataset(built_folder, tmp_path) -> Path:
    """A private copy of the built folder for one test."""
    target = tmp_path / "mirror"
    shutil.copytree(built_folder, target)
    return target


def cli(*args: str, env: dict | None = None, timeout: float = 300, check: bool = True) -> subprocess.CompletedProcess:
    """Run `mirror-hf ARGS` in a subprocess (the real entry point, its own interpreter)."""
    full_env = {**os.environ, **(env or {})}
    proc = subprocess.run([*MIRROR_HF, *args], check=False, capture_output=True, text=True, env=full_env, timeout=timeout, cwd=REPO)
    if check and proc.returncode != 0:
        raise AssertionError(f"mirror-hf {' '.join(args)} exited {proc.returncode}\nstdout:\n{proc.stdout}\nstderr:\n{proc.stderr[-4000:]}")
    return proc


def read_split(root: Path, config: str, split: str):
    """The split as a polars frame, read from its parquet file (no datasets cache involved)."""
    import polars as pl

    from mirror_hf.folder import split_files

    files = [f.path for f in split_files(root).get(config, []) if f.split == split]
    assert len(files) == 1, f"{config}/{split}: expected one file, found {files}"
    return pl.read_parquet(files[0])


def messages_digest(prompt_json: str) -> str:
    """The fake server's digest of a request's messages (sha256 of json.dumps(sort_keys=True))."""
    import hashlib

    return hashlib.sha256(json.dumps(json.loads(prompt_json), sort_keys=True).encode()).hexdigest()


def cli_inproc(*args: str, env: dict | None = None, check: bool = True) -> subprocess.CompletedProcess:
    """Run `mirror-hf ARGS` in this interpreter (the same `main()` the console script calls), with
    stdout/stderr captured: much faster than a subprocess once the libraries are imported."""
    import contextlib
    import io

    from mirror_hf.cli import main

    saved_argv, saved_env = sys.argv, dict(os.environ)
    out, err = io.StringIO(), io.StringIO()
    code = 0
    try:
        sys.argv = ["mirror-hf", *args]
        os.environ.update(env or {})
        for key, value in (env or {}).items():
            if value == "":
                os.environ.pop(key, None)
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                main()
            except SystemExit as exc:
                code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
    finally:
        sys.argv = saved_argv
        os.environ.clear()
        os.environ.update(saved_env)
    proc = subprocess.CompletedProcess(list(args), code, out.getvalue(), err.getvalue())
    if check and code != 0:
        raise AssertionError(f"mirror-hf {' '.join(args)} exited {code}\nstdout:\n{proc.stdout}\nstderr:\n{proc.stderr[-4000:]}")
    return proc
