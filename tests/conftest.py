"""Shared fixtures. Every test runs offline with a private HF_HOME; the authors' files are read from
../shared/upstream and tests needing them skip with a reason when it is absent."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
UPSTREAM = REPO.parent / "shared" / "upstream"


@pytest.fixture(autouse=True)
def _offline_private_hub(tmp_path_factory, monkeypatch):
    """No test may reach the internet or share a datasets/evaluate cache with the user or another test."""
    home = tmp_path_factory.mktemp("hf_home")
    monkeypatch.setenv("HF_HOME", str(home))
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("HF_DATASETS_OFFLINE", "1")
    monkeypatch.setenv("HF_EVALUATE_OFFLINE", "1")
    monkeypatch.setenv("HF_HUB_DISABLE_TELEMETRY", "1")
    monkeypatch.setenv("MIRROR_HF_CACHE", str(home / "mirror_hf"))
    yield


@pytest.fixture(scope="session")
def upstream_dir() -> Path:
    """The authors' released files (MIT), never copied into the project."""
    if not UPSTREAM.is_dir():
        pytest.skip(f"the authors' files are not at {UPSTREAM} (../shared/upstream); parity checks skipped")
    return UPSTREAM


def pytest_collection_modifyitems(config, items):
    for item in items:
        if "upstream_dir" in getattr(item, "fixturenames", ()):
            item.add_marker(pytest.mark.upstream)
