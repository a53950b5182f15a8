"""Promises the repository makes about itself: CI runs the README's test command, the wheel ships
every subpackage, and nothing from the authors' release is copied into the project."""

from __future__ import annotations

import hashlib
import re
import subprocess
import tomllib

import pytest
from conftest import REPO, UPSTREAM, upstream_missing


def _readme_command(marker: str) -> str:
    text = (REPO / "README.md").read_text()
    m = re.search(rf"<!-- {marker} -->\s*```bash\n(.+?)\n```", text, re.S)
    assert m, f"README has no command after <!-- {marker} -->"
    return m.group(1).strip()


def test_ci_runs_the_readme_test_command_verbatim():
    command = _readme_command("tests")
    ci = (REPO / ".ci" / "run").read_text()
    assert command in ci.splitlines(), "the README's test command and .ci/run differ"
    assert "set -euo pipefail" in ci


def test_readme_has_exactly_two_setup_commands():
    main_job = _readme_command("main-job")
    tests = _readme_command("tests")
    assert main_job.startswith("python3 -m venv") and tests.startswith("python3 -m venv")
    assert "pytest" in tests and "pytest" not in main_job


def test_every_subpackage_is_listed_for_the_wheel():
    config = tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["setuptools"]
    listed = set(config["packages"])
    mapped = {pkg: path for pkg, path in config["package-dir"].items()}
    found = set()
    for pkg, path in mapped.items():
        root = REPO / path
        for init in root.rglob("__init__.py"):
            rel = init.parent.relative_to(root)
            if "__pycache__" in rel.parts:
                continue
            found.add(".".join([pkg, *rel.parts]) if rel.parts else pkg)
    assert found <= listed, f"packages missing from pyproject: {sorted(found - listed)}"


def test_no_upstream_file_is_committed():
    if not UPSTREAM.is_dir():
        pytest.skip(upstream_missing("nothing to compare against"))
    tracked = subprocess.run(["git", "ls-files", "-z"], cwd=REPO, capture_output=True, check=True).stdout.split(b"\0")
    ours = {hashlib.sha1((REPO / p.decode()).read_bytes()).hexdigest() for p in tracked if p and (REPO / p.decode()).is_file()}
    for f in UPSTREAM.rglob("*"):
        if f.is_file() and f.suffix in (".jsonl", ".json"):
            assert hashlib.sha1(f.read_bytes()).hexdigest() not in ours, f"{f.name} is committed in the project"
