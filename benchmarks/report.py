"""Report benchmark: `mirror-hf report` on 16 models x 25,000 Exp1 trials (issue 15: < 60 s on two
cores), end to end from the parquet files: read, score (10,000-resample BCa CIs), figures, trial
browser chunks, page. Also measures how long the browser's first page takes to load in a real
headless Chromium (target < 3 s for a 25,000-trial split), when Chromium is installed.

    python benchmarks/report.py [--models 16] [--trials 25000] [--resamples 10000]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import polars as pl

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent / "tests"))

from scoring import synthetic_exp1  # noqa: E402  (benchmarks/scoring.py: the same synthetic trials)

LIMIT = 60.0
LIMIT_PAGE = 3.0


def write_folder(root: Path, models: int, trials: int) -> None:
    """Synthetic trials with realistic text sizes (prompt ~700 chars, response ~250) as one split per model."""
    frame = synthetic_exp1(models, models * trials)
    rng = np.random.default_rng(7)
    filler = "Consider the following question carefully and answer in the requested format. " * 8
    n = frame.height
    frame = frame.with_columns(
        pl.concat_str([pl.lit('[{"role":"user","content":"' + filler + " Question "), pl.col("item_id"),
                       pl.lit(" ("), pl.col("channel"), pl.lit(')"}]')]).alias("prompt"),
        pl.format("I think the answer is {}. ANSWER: {}\nBET: {}", pl.lit("x" * 180),
                  pl.col("item_id"), pl.col("bet").fill_null(5)).alias("raw_response"),
        pl.Series("parse_success", rng.random(n) > 0.06), pl.Series("truncated", rng.random(n) < 0.02),
        pl.lit("exp1").alias("experiment"), pl.lit("bench").alias("run_id"),
    )
    folder = root / "data" / "trials_exp1"
    folder.mkdir(parents=True)
    for (model,), part in frame.partition_by("model", as_dict=True).items():
        tmp = folder / "tmp.parquet"
        part.write_parquet(tmp)
        digest = hashlib.sha256(tmp.read_bytes()).hexdigest()[:12]
        os.replace(tmp, folder / f"{model.replace('-', '_')}-{digest}.parquet")


def page_seconds(index: Path) -> float | None:
    from cdp import Browser, find_chromium

    executable = find_chromium()
    if executable is None:
        return None
    browser = Browser(executable)
    try:
        start = time.perf_counter()
        browser.open(index)
        browser.wait_for("document.querySelectorAll('#trials .trial').length === 50", timeout=60)
        seconds = time.perf_counter() - start
        assert not browser.errors, browser.errors
        return seconds
    finally:
        browser.close()


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--models", type=int, default=16)
    parser.add_argument("--trials", type=int, default=25_000, help="Exp1 trials per model")
    parser.add_argument("--resamples", type=int, default=10_000)
    args = parser.parse_args()

    from mirror_hf.cli.score_cmd import read_folder, suite_options
    from mirror_hf.report import build_report

    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "mirror"
        write_folder(root, args.models, args.trials)
        t0, cpu0 = time.perf_counter(), time.process_time()
        tables = read_folder(root)
        t1 = time.perf_counter()
        result = build_report(root, tables, Path(tmp) / "report",
                              options=suite_options("paper", "auto", "complete_case", args.resamples, 42))
        t2, cpu = time.perf_counter(), time.process_time() - cpu0
        total = t2 - t0
        size = sum(p.stat().st_size for p in result.out.rglob("*") if p.is_file()) / 1e6
        print(f"report on {args.models} models x {args.trials:,} Exp1 trials ({tables['exp1'].height:,} trials), "
              f"{args.resamples:,}-resample BCa CIs: {total:.1f} s (read {t1 - t0:.1f} s, score + write {t2 - t1:.1f} s); "
              f"limit {LIMIT:.0f} s -> {'OK' if total < LIMIT else 'OVER'} ({total / LIMIT:.2f} of the limit)")
        load = os.getloadavg()[0]
        print(f"  CPU time {cpu:.1f} s (all threads); machine load average {load:.1f} on {os.cpu_count()} cores "
              f"(wall-clock is only comparable to the limit on an otherwise idle machine)")
        print(f"  {len(result.figures)} figures, {len(result.datasets)} browser splits, {size:.0f} MB written")
        seconds = page_seconds(result.index)
        if seconds is None:
            print("  page load: skipped (no Chromium; apt-get install -y chromium)")
        else:
            print(f"  page load to the first 50 trials of a {args.trials:,}-trial split in headless Chromium: {seconds:.2f} s "
                  f"(limit {LIMIT_PAGE:.0f} s -> {'OK' if seconds < LIMIT_PAGE else 'OVER'})")
        print(json.dumps({"seconds": round(total, 2), "cpu_seconds": round(cpu, 2),
                          "page_seconds": None if seconds is None else round(seconds, 2)}))


if __name__ == "__main__":
    main()
