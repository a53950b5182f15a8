"""The project documents itself: README, docs/ and the metric cards never send a reader to the
developers' shared notes, and every name the docs tell a reader to use exists."""

from __future__ import annotations

import re
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
USER_FACING = [REPO / "README.md", *sorted((REPO / "docs").glob("*.md")), *sorted((REPO / "metrics").glob("*/README.md")),
               REPO / "cards" / "dataset_card.md"]


def test_user_facing_docs_do_not_point_into_the_shared_notes():
    for path in USER_FACING:
        text = path.read_text()
        for pattern in (r"DESIGN\.md", r"\bspec/", r"\.\./shared", r"shared design notes"):
            assert not re.search(pattern, text), f"{path.relative_to(REPO)} mentions {pattern}"


def test_docs_exist_and_are_linked_from_the_readme():
    readme = (REPO / "README.md").read_text()
    for doc in ("docs/architecture.md", "docs/protocol.md"):
        assert (REPO / doc).is_file() and doc in readme


def test_names_the_docs_use_exist():
    from mirror_hf import experiments, scoring
    from mirror_hf.protocol import exp1, exp2

    text = (REPO / "docs" / "architecture.md").read_text() + (REPO / "docs" / "protocol.md").read_text()
    for channel in exp1.CHANNELS:
        assert f"`{channel}`" in text, channel
    for name in experiments.names():
        assert f"Experiment {name[3:]}" in text, name
    for attr in ("headline", "all_headlines", "units", "scores_schema"):
        assert hasattr(experiments, attr), attr
    assert hasattr(scoring, "score_tables")
    assert exp2.PLACEBO_SUFFIX.strip("[]") in text and str(exp2.NATURAL_TEMPERATURE) in text
    for ref in re.findall(r"`mirror_hf\.([a-z_.]+)`", text):
        module, _, attr = ref.rpartition(".")
        import importlib

        try:
            importlib.import_module(f"mirror_hf.{ref}")
        except ImportError:
            assert hasattr(importlib.import_module(f"mirror_hf.{module}"), attr), ref
