"""Parser benchmark: every protocol parser on adversarial responses (unclosed tool calls, long blank
runs, open think blocks, repeated labels...) at 64 KB and 1 MB, measured in the same run as CPU
seconds of this process (wall time on a shared machine measures the neighbours). A linear
parser's 1 MB / 64 KB time ratio is about 16; a quadratic one's about 250.

    python benchmarks/parsers.py [--big 1000000] [--small 64000]

Printed: per input kind, the slowest parser's seconds at both sizes and their ratio, then the
slowest (parser, input kind) pairs at 1 MB. Target: every ratio below 40 and every 1 MB parse under
a second (the hardening issue's finding 8: `_TOOL_CALL` took 2.9 s on 60 KB before).
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from test_hardening import ADVERSARIAL, _every_parser  # noqa: E402  (the inputs the tests use)

TARGET_RATIO = 40.0
TARGET_SECONDS = 1.0
NOISE_FLOOR_S = 0.05


def _scaled(text: str, size: int) -> str:
    reps = max(1, size // len(text) + 1)
    return (text * reps)[:size] if len(text) < size else text[:size]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--big", type=int, default=1_000_000)
    parser.add_argument("--small", type=int, default=64_000)
    parser.add_argument("--worst", type=int, default=5, help="how many of the slowest (parser, input) pairs to list")
    parser.add_argument("--only", default="", help="a substring: measure only the parsers whose name holds it")
    args = parser.parse_args()
    parsers = [(name, fn) for name, fn in _every_parser() if args.only in name]
    worst_ratio, worst_big = 0.0, 0.0
    pairs = []
    print(f"{'input':24} {'slowest parser':34} {'64 KB s':>9} {'1 MB s':>9} {'ratio':>6}")
    for kind, text in sorted(ADVERSARIAL.items()):
        rows = []
        for name, fn in parsers:
            timings = []
            for size in (args.small, args.big):
                sample = _scaled(text, size)
                t0 = time.process_time()
                fn(sample)
                timings.append(time.process_time() - t0)
            rows.append((timings[1], timings[0], name))
            pairs.append((timings[1], timings[0], name, kind))
        big, small, name = max(rows)
        ratio = big / max(small, 1e-6)
        # below 50 ms the ratio is timer and cache noise, not growth: it is printed, not judged
        worst_ratio = max(worst_ratio, ratio if big >= NOISE_FLOOR_S else 0.0)
        worst_big = max(worst_big, big)
        print(f"{kind:24} {name:34} {small:9.4f} {big:9.4f} {ratio:6.1f}")
    print(f"\nslowest {args.worst} (parser, input) pairs at {args.big:,} characters:")
    for big, small, name, kind in sorted(pairs, reverse=True)[: args.worst]:
        print(f"  {name:34} {kind:24} {big:7.3f} s  (64 KB {small:.4f} s, ratio {big / max(small, 1e-6):.1f})")
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    ok = worst_ratio < TARGET_RATIO and worst_big < TARGET_SECONDS
    print(f"worst ratio {worst_ratio:.1f} (target < {TARGET_RATIO:g}), slowest 1 MB parse {worst_big:.3f} s "
          f"(target < {TARGET_SECONDS:g} s): {'ok' if ok else 'MISSED'}")


if __name__ == "__main__":
    main()
