"""The metric folders work wherever `evaluate` runs: each carries requirements.txt and the app.py its
card's front matter names; without the package, evaluate's message names the real distribution
(`pip install mirror-hf`); and after a push, the pushed card's own usage snippet loads the metric
from the (fake) Hub and computes the same value as the local module."""

from __future__ import annotations

import json
import os
import re
import runpy
import subprocess
import sys

import numpy as np
import pytest
import yaml
from fakes.servers import fake_hub
from runner_fixtures import cli
from test_hub_push import _hub_env
from test_metrics_modules import random_components

from mirror_hf.build import copy_metric_modules


@pytest.fixture(scope="module")
def metric_folders(tmp_path_factory):
    root = tmp_path_factory.mktemp("metrics")
    return {name: root / name for name in copy_metric_modules(root)}


def _front_matter(path):
    return yaml.safe_load(path.read_text().split("---\n")[1])


def test_every_metric_folder_matches_its_front_matter(metric_folders):
    assert len(metric_folders) >= 12
    for name, folder in metric_folders.items():
        meta = _front_matter(folder / "README.md")
        assert (folder / f"{name}.py").is_file(), name
        if meta.get("sdk") or meta.get("app_file"):
            assert meta["sdk"] == "gradio" and (folder / meta["app_file"]).is_file(), name
        requirements = (folder / "requirements.txt").read_text().split()
        assert any(r.startswith("mirror-hf") for r in requirements) and any(r.startswith("evaluate") for r in requirements), name


def test_app_py_loads_its_own_module(metric_folders, monkeypatch):
    import evaluate.utils

    for name in ("cfr", "cce"):
        seen = []
        monkeypatch.setattr(evaluate.utils, "launch_gradio_widget", seen.append)
        runpy.run_path(str(metric_folders[name] / "app.py"))
        assert len(seen) == 1 and seen[0].name == name


def test_missing_package_message_names_the_distribution(metric_folders, monkeypatch):
    """With `mirror_hf` unimportable, evaluate refuses every module with `pip install mirror-hf`."""
    import evaluate

    monkeypatch.setitem(sys.modules, "mirror_hf", None)  # import mirror_hf now raises ImportError
    for name, folder in metric_folders.items():
        with pytest.raises(ImportError) as info:
            evaluate.load(str(folder))
        message = str(info.value)
        assert "using 'pip install mirror-hf'" in message, (name, message)
        assert re.search(r"pip install [^']*mirror_hf", message) is None, (name, message)


def test_pushed_metric_loads_from_the_hub_with_the_cards_snippet(dataset, tmp_path, metric_folders):
    import evaluate

    comps = json.loads(json.dumps(random_components(np.random.default_rng(7), 120), default=lambda v: v.item()))
    local = evaluate.load(str(metric_folders["cfr"])).compute(**comps, frame="table")
    with fake_hub(tmp_path / "hub") as endpoint:
        env = _hub_env(endpoint, tmp_path)
        cli("push", "--dataset", str(dataset), "--repo", "org/mirror", env=env)
        card = (tmp_path / "hub" / "datasets" / "org" / "mirror" / "README.md").read_text()
        snippet = re.search(r"```python\n(.*?)```", card, re.S)[1]
        assert 'evaluate.load("org/mirror/cfr")' in snippet
        workdir = tmp_path / "elsewhere"
        workdir.mkdir()
        code = snippet + f"\nimport json\nprint(json.dumps(cfr.compute(**{comps!r}, frame='table')))\n"
        proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=workdir, timeout=300,
                              env={**os.environ, **env})
    assert proc.returncode == 0, proc.stderr[-3000:]
    remote = json.loads(proc.stdout.strip().splitlines()[-1])
    assert remote["cfr"] == pytest.approx(local["cfr"], abs=1e-12) and remote["n"] == local["n"] > 0
    assert {c: v["cfr"] for c, v in remote["by_condition"].items()} == pytest.approx(
        {c: v["cfr"] for c, v in local["by_condition"].items()}, abs=1e-12)
