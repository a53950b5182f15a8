"""Build benchmark: wall time and peak memory of `mirror-hf build` at the default size (5,000
questions once all eight domains exist), measured in fresh processes, against a baseline measured in
the same run: drawing the same bank in memory without writing anything (so the ratio shows what the
parquet, card, Croissant and metric copying cost on top of generation).

    python benchmarks/build.py [--per-domain 625] [--repeat 3]

Limits from issue 2/3: under 30 s wall and 1 GB peak on two cores.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

LIMIT_SECONDS = 30.0
LIMIT_MB = 1024.0

BUILD = "from pathlib import Path; from mirror_hf.build import build, BuildRequest; build(BuildRequest(out=Path({out!r}), per_domain={n}))"
GENERATE = "from mirror_hf.bank import generate_bank; import sys; print(len(generate_bank(0, {n})), file=sys.stderr)"


def measure(code: str) -> tuple[float, float]:
    """(wall seconds, peak RSS MB) of one fresh Python process running `code`."""
    start = time.perf_counter()
    proc = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(proc.pid, 0)  # this child's own rusage, not the max over all children
    wall = time.perf_counter() - start
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode != 0:
        raise SystemExit(proc.stderr.read().decode())
    return wall, usage.ru_maxrss / 1024


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--per-domain", type=int, default=625)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    from mirror_hf.bank import available_domains

    n_domains = len(available_domains())
    gen_times, build_times, peaks = [], [], []
    with tempfile.TemporaryDirectory() as tmp:
        for rep in range(args.repeat):
            wall, _ = measure(GENERATE.format(n=args.per_domain))
            gen_times.append(wall)
            wall, peak = measure(BUILD.format(out=str(Path(tmp) / f"mirror{rep}"), n=args.per_domain))
            build_times.append(wall)
            peaks.append(peak)
    build_s, gen_s = statistics.median(build_times), statistics.median(gen_times)
    result = {
        "questions": args.per_domain * n_domains,
        "domains": n_domains,
        "build_wall_s": round(build_s, 2),
        "generate_only_wall_s": round(gen_s, 2),
        "ratio_build_to_generate": round(build_s / gen_s, 2),
        "peak_rss_mb": round(max(peaks), 1),
        "within_limits": build_s < LIMIT_SECONDS and max(peaks) < LIMIT_MB,
    }
    print(json.dumps(result, indent=2))
    print(
        f"build of {result['questions']:,} questions ({n_domains} domains): {build_s:.2f} s wall (limit {LIMIT_SECONDS:.0f} s), "
        f"peak {max(peaks):.0f} MB (limit {LIMIT_MB:.0f} MB); generation alone {gen_s:.2f} s, ratio {build_s / gen_s:.2f}x"
    )


if __name__ == "__main__":
    main()
