"""Session fixtures made once per test run, also under pytest-xdist: the workers of one run share
the parent of their base temp folder (`pytest-N/`), so the first worker makes the thing there
under a file lock and the others wait and reuse it (a real build costs seconds per worker)."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import pytest


def made_once(tmp_path_factory: pytest.TempPathFactory, name: str, make: Callable[[Path], None]) -> Path:
    """A folder `make(folder)` filled, shared by every worker of this run; a failed `make` leaves
    nothing marked done, so each worker that needs it fails on its own (never a stale half)."""
    if not os.environ.get("PYTEST_XDIST_WORKER"):
        folder = tmp_path_factory.mktemp(name)
        make(folder)
        return folder
    from filelock import FileLock

    folder = tmp_path_factory.getbasetemp().parent / f"shared-{name}"
    with FileLock(f"{folder}.lock"):
        if not (folder / ".made").exists():
            folder.mkdir(exist_ok=True)
            make(folder)
            (folder / ".made").touch()
    return folder
