"""Scale benchmark: one 50,000-request `mirror-hf run` against a local instant-response server,
its memory reported every 10,000 requests, to show that it stays flat (the runner streams results
to its resume file instead of holding them).

    python benchmarks/scale.py [--requests 50000] [--every 10000] [--concurrency 64]

At each mark: requests the server has seen, seconds since start, the run's resident memory (VmRSS)
and its peak so far (VmHWM), read from /proc of the run's process, and the same for each of its
child processes (the card/Croissant worker; the forked records worker, which shares the run's pages
at the fork and holds the records built so far). Then its final peak (after
parsing, the split, the card) and the growth of the peak from the first mark to the last request.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent / "tests"))

from runner import CHANNELS, MAX_TOKENS, REPO, prepare  # noqa: E402  (the same bank and prompts as the runner benchmark)


def memory(pid: int) -> tuple[float, float]:
    """(VmRSS, VmHWM) of a live process, MB."""
    fields = {}
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        key, _, value = line.partition(":")
        if key in ("VmRSS", "VmHWM"):
            fields[key] = int(value.split()[0]) / 1024
    return fields.get("VmRSS", 0.0), fields.get("VmHWM", 0.0)


def children(pid: int) -> list[int]:
    """The run's child processes (the card/Croissant worker, the forked records worker)."""
    try:
        return [int(c) for c in Path(f"/proc/{pid}/task/{pid}/children").read_text().split()]
    except (FileNotFoundError, ProcessLookupError):
        return []


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=50_000)
    parser.add_argument("--every", type=int, default=10_000)
    parser.add_argument("--concurrency", type=int, default=64)
    parser.add_argument("--channels", default=",".join(CHANNELS),
                        help="Exp1 channels per item (the bank holds ~900 items per domain: 50,000 requests need 7)")
    parser.add_argument("--per-domain", type=int,
                        help="Reuse the folder of an earlier run under --keep (built with this many items per domain)")
    parser.add_argument("--keep", type=Path, help="Build the folder here (and keep it) instead of in a temporary directory")
    args = parser.parse_args()
    channels = tuple(args.channels.split(","))
    from fakes.servers import openai_server, server_stats

    with tempfile.TemporaryDirectory() as tmp:
        root = args.keep or Path(tmp)
        if args.keep and (root / "mirror" / "data").is_dir():
            folder, items = root / "mirror", math.ceil(args.requests / len(channels))
        else:
            root.mkdir(parents=True, exist_ok=True)
            folder, items, _ = prepare(root, args.requests, channels)
        requests = args.requests  # the plan may hold fewer (items without a difficulty pair): the server's count decides
        marks = []
        with openai_server() as url:
            start = time.perf_counter()
            proc = subprocess.Popen([
                sys.executable, "-m", "mirror_hf.cli", "run", "--dataset", str(folder), "--model", "bench", "--base-url", url,
                "--limit", str(items), "--channels", ",".join(channels), "--concurrency", str(args.concurrency),
                "--max-tokens", str(MAX_TOKENS), "--no-progress"], cwd=REPO, stdout=subprocess.DEVNULL)
            nxt, after_requests = args.every, None
            while True:
                pid, status, usage = os.wait4(proc.pid, os.WNOHANG)  # this child's own rusage once it ends
                if pid:
                    break
                time.sleep(0.25)
                seen = server_stats(url)["requests"]
                try:
                    rss, hwm = memory(proc.pid)
                except FileNotFoundError:
                    continue
                if seen >= nxt:
                    seconds = round(time.perf_counter() - start, 1)
                    kids = {}
                    for child in children(proc.pid):
                        try:
                            kids[child] = memory(child)
                        except FileNotFoundError:
                            pass
                    marks.append({"requests": seen, "seconds": seconds, "rss_mb": round(rss, 1), "peak_mb": round(hwm, 1),
                                  "children_rss_mb": [round(r, 1) for r, _ in kids.values()],
                                  "children_peak_mb": [round(h, 1) for _, h in kids.values()]})
                    print(json.dumps(marks[-1]), flush=True)
                    while nxt <= seen:
                        nxt += args.every
                if seen >= requests and after_requests is None:
                    after_requests = hwm
            if os.waitstatus_to_exitcode(status) != 0:
                raise SystemExit(f"mirror-hf run exited {os.waitstatus_to_exitcode(status)}")
            requests = server_stats(url)["requests"]
    growth = marks[-1]["peak_mb"] - marks[0]["peak_mb"] if len(marks) > 1 else 0.0
    print(json.dumps({"requests": requests, "peak_growth_first_to_last_mark_mb": round(growth, 1),
                      "peak_at_last_request_mb": after_requests, "final_peak_mb": round(usage.ru_maxrss / 1024, 1),  # max of run, children
                      "load_average": os.getloadavg()}))


if __name__ == "__main__":
    main()
