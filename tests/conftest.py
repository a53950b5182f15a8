"""Shared fixtures. Every test runs offline with a private HF_HOME; the authors' files are read from
$MIRROR_HF_UPSTREAM (default ../shared/upstream beside the checkout), and the tests needing them
(marked `upstream`) skip with a reason naming where to get them when the folder is absent."""

from __future__ import annotations

import os
import pickle
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings
from once import made_once

REPO = Path(__file__).resolve().parents[1]
UPSTREAM = Path(os.environ.get("MIRROR_HF_UPSTREAM") or REPO.parent / "shared" / "upstream").absolute()
UPSTREAM_SOURCE = "https://github.com/Jason-Wang313/Mirror"  # the authors' public repository (MIT), release v40 = commit 8ea87be


def upstream_missing(what: str) -> str:
    """The skip reason of a test that needs the authors' files: where it looked, where they come from."""
    return (f"the authors' files are not at {UPSTREAM}; {what}. They come from {UPSTREAM_SOURCE} (release v40, commit "
            "8ea87be): lay them out as README 'The authors' files' says and set MIRROR_HF_UPSTREAM=DIR "
            "(default ../shared/upstream beside the checkout); `pytest -m upstream` runs the tests that need them")

# Set before any test module imports datasets/evaluate/huggingface_hub: they read these at import time.
# No test may reach the internet or share a cache with the user's own.
_PRIVATE_HOME = Path(tempfile.mkdtemp(prefix="mirror_hf_tests_"))
os.environ["HF_HOME"] = str(_PRIVATE_HOME / "hf_home")
os.environ["HF_HUB_OFFLINE"] = "1"
os.environ["HF_DATASETS_OFFLINE"] = "1"
os.environ["HF_EVALUATE_OFFLINE"] = "1"
os.environ["HF_HUB_DISABLE_TELEMETRY"] = "1"
os.environ["MIRROR_HF_CACHE"] = str(_PRIVATE_HOME / "mirror_hf_cache")
for _secret in ("HF_TOKEN", "OPENAI_API_KEY"):
    os.environ.pop(_secret, None)

# Property tests (hypothesis): no example database written into the repository, no per-example
# deadline (two shared cores); `--hypothesis-profile=mutation` (benchmarks/mutation.py) runs fewer,
# derandomised examples so every mutant meets the same inputs.
settings.register_profile("mirror", max_examples=100, deadline=None, database=None, suppress_health_check=[HealthCheck.too_slow])
settings.register_profile("mutation", max_examples=40, deadline=None, database=None, derandomize=True,
                          suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("mirror")


@pytest.fixture(scope="session")
def three_forms(tmp_path_factory) -> dict[int, list]:
    """The default-size bank on seeds 0, 1 and 2 (gates applied), made once per test run for every
    test that pools parallel forms (bank shape, test-wise leaks, option kinds): ~15,000 items take
    a while, so under pytest-xdist the first worker pickles them for the other (tests/once.py)."""
    folder = made_once(tmp_path_factory, "forms", _pickle_three_forms)
    return pickle.loads((folder / "forms.pickle").read_bytes())


def _pickle_three_forms(folder: Path) -> None:
    from forms import form

    (folder / "forms.pickle").write_bytes(pickle.dumps({seed: form(seed) for seed in (0, 1, 2)}))


@pytest.fixture(scope="session")
def upstream_dir() -> Path:
    """The authors' released files (MIT), never copied into the project."""
    if not UPSTREAM.is_dir():
        pytest.skip(upstream_missing("parity checks skipped"))
    return UPSTREAM


def pytest_collection_modifyitems(config, items):
    for item in items:
        if "upstream_dir" in getattr(item, "fixturenames", ()):
            item.add_marker(pytest.mark.upstream)


# Fixtures of the runner and Hub tests (a built folder per session, a private copy per test).
pytest_plugins = ["runner_fixtures"]
