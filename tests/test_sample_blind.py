"""`mirror-hf sample --blind`: a reviewer sees the question alone, then its choices, then the gold,
one keypress at a time, and q stops (issue 30: the blind expert read)."""

from __future__ import annotations

import subprocess

from runner_fixtures import MIRROR_HF


def _run(folder, keys: str) -> str:
    proc = subprocess.run([*MIRROR_HF, "sample", "--dataset", str(folder), "--n", "1", "--domain", "factual", "--blind"],
                          input=keys, capture_output=True, text=True, timeout=300, check=True)
    return proc.stdout


def test_blind_shows_question_then_choices_then_gold(built_folder):
    out = _run(built_folder, "\n" * 60)
    items = [block for block in out.split("[factual/")[1:]]
    assert len(items) == 5, out  # one per factual subcategory
    for block in items:
        q_at, c_at, g_at = block.index("\n  "), block.index("    A) "), block.index("  gold: ")
        assert q_at < c_at < g_at, block
        # before the choices prompt nothing of the choices or the gold is shown
        head = block[: block.index("[key: choices")]
        assert "A) " not in head and "gold" not in head and "*" not in head, head


def test_blind_q_stops_after_the_question(built_folder):
    out = _run(built_folder, "q\n")
    assert out.count("[factual/") == 1 and "A) " not in out and "gold:" not in out, out
