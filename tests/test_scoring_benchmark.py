"""The scoring benchmark at a toy size: it runs, and its straightforward per-record Python
implementation (written independently of mirror_hf.scoring) agrees with the suite on every point
estimate it computes (the benchmark itself fails when they differ by more than 1e-9)."""

from __future__ import annotations

import importlib.util
from pathlib import Path

BENCH = Path(__file__).resolve().parents[1] / "benchmarks" / "scoring.py"


def test_benchmark_small_run_agrees_with_naive_implementation(capsys):
    spec = importlib.util.spec_from_file_location("scoring_benchmark", BENCH)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    code = module.main(["--models", "3", "--exp1", "6000", "--exp9", "1500", "--resamples", "200", "--skip-scipy"])
    out = capsys.readouterr().out
    assert "largest |suite - naive|" in out
    assert code == 0, out
