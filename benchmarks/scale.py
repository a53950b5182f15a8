"""Scale benchmark: one 50,000-request `mirror-hf run` against a local instant-response server,
its memory reported every 10,000 requests, to show that it stays flat (the runner streams results
to its resume file instead of holding them).

    python benchmarks/scale.py [--requests 50000] [--every 10000] [--concurrency 64]

The folder: one bank build cannot supply 50,000 Exp1 requests (about 560 questions per domain pass
its duplicate gate; 50,000 requests over six channels need ~1,040), so the questions come from
several builds with different seeds, each by the project's own builder and capped at SEED_ITEMS
per domain: the first build is the folder, every further seed's questions are written into it by
the project's writer (`folder.write_split`) as one more split of the `questions` config (ids
prefixed `s<seed>-`, questions whose text an earlier seed already has left out, so no two items
make the same request), and the card and Croissant are refreshed as every run refreshes them.
Exp1 reads every split of `questions`, so the run plans all of them. Channels: the six that send
one request per item and need no difficulty pair (difficulty_selection would skip unpaired items).

At each mark: requests the server has seen, seconds since start, the run's resident memory (VmRSS)
and its peak so far (VmHWM), read from /proc of the run's process, and the same for each of its
child processes: the forked records worker (same command line as the run; it shares the run's pages
at the fork and writes the split a chunk at a time) and the card/Croissant worker (`python -c`).
Then the final peak (after parsing, the split, the card), and for the run and the records worker
the VmRSS growth per 10,000 requests from the first mark to the last, with PASS/FAIL.

Flat means: each of the two grows by under FLAT_MB_PER_10K (1 MB) per 10,000 requests, 100 bytes a
request. What a run must keep per request this session is where its line is in the results file
(so a request asked for again is reused, not re-sent), a few ints; at that rate a 1,000,000-request
run would add under 100 MB to the ~260 MB a run starts at, where a run that kept its records or
its outcomes (~460 bytes a request for the outcomes alone) would not fit that bound. A relative
bound (a share of the first mark's RSS) would loosen as imports grow, so it is in bytes a request.
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

from runner import CHANNELS, MAX_TOKENS, REPO  # noqa: E402  (the same server settings as the runner benchmark)

SCALE_CHANNELS = (*CHANNELS, "structured_control")  # one request each; no difficulty pair needed
SEED_ITEMS = 500  # questions per domain from one build (below where its duplicate gate starts refusing)
FLAT_MB_PER_10K = 1.0  # the flatness criterion (module docstring)


def prepare_scale(root: Path, requests: int, channels: tuple[str, ...]) -> tuple[Path, int]:
    """A folder whose `questions` hold enough distinct items for `requests` (see the module
    docstring), and the --limit that plans them."""
    import pyarrow.parquet as pq
    from mirror_hf.dataset_builders import registry

    from mirror_hf.bank import available_domains
    from mirror_hf.build import BuildRequest, build
    from mirror_hf.folder import split_files, write_split
    from mirror_hf.metadata import refresh_metadata

    items = math.ceil(requests / len(channels))
    per_domain = math.ceil(items / len(available_domains()))
    seeds = math.ceil(per_domain / SEED_ITEMS)
    per_seed = math.ceil(per_domain / seeds) + 25  # a margin for questions an earlier seed already has
    folder = root / "mirror"
    build(BuildRequest(out=folder, seed=0, per_domain=per_seed, configs=("questions",)))
    features = registry()["questions"].features
    seen = {r["question"] for f in split_files(folder)["questions"] for r in pq.read_table(f.path).to_pylist()}
    for seed in range(1, seeds):
        other = build(BuildRequest(out=root / f"seed{seed}", seed=seed, per_domain=per_seed, configs=("questions",)))
        rows = []
        for f in split_files(other)["questions"]:
            for row in pq.read_table(f.path).to_pylist():
                if row["question"] not in seen:
                    seen.add(row["question"])
                    rows.append({**row, "id": f"s{seed}-{row['id']}"})
        write_split(folder, "questions", f"seed{seed}", rows, features)
    refresh_metadata(folder)
    if len(seen) < items:
        raise SystemExit(f"the builds gave only {len(seen)} distinct questions, {items} needed")
    return folder, items


def memory(pid: int) -> tuple[float, float]:
    """(VmRSS, VmHWM) of a live process, MB."""
    fields = {}
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        key, _, value = line.partition(":")
        if key in ("VmRSS", "VmHWM"):
            fields[key] = int(value.split()[0]) / 1024
    return fields.get("VmRSS", 0.0), fields.get("VmHWM", 0.0)


def children(pid: int) -> dict[str, int]:
    """The run's child processes by role: "records" (the forked records worker: the run's own
    command line) and "metadata" (the card/Croissant worker, a `python -c` child)."""
    try:
        own = Path(f"/proc/{pid}/cmdline").read_bytes()
        kids = [int(c) for c in Path(f"/proc/{pid}/task/{pid}/children").read_text().split()]
        return {("records" if Path(f"/proc/{kid}/cmdline").read_bytes() == own else "metadata"): kid for kid in kids}
    except (FileNotFoundError, ProcessLookupError):
        return {}


def growth_per_10k(marks: list[dict], key: str) -> float | None:
    """VmRSS growth (MB) per 10,000 requests from the first mark to the last."""
    if len(marks) < 2 or marks[0].get(key) is None or marks[-1].get(key) is None:
        return None
    return (marks[-1][key] - marks[0][key]) / (marks[-1]["requests"] - marks[0]["requests"]) * 10_000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=50_000)
    parser.add_argument("--every", type=int, default=10_000)
    parser.add_argument("--concurrency", type=int, default=64)
    parser.add_argument("--channels", default=",".join(SCALE_CHANNELS), help="Exp1 channels per item (one request each)")
    parser.add_argument("--keep", type=Path, help="Build the folder here (and keep it, reused next time) instead of in a temporary one")
    parser.add_argument("--prepare", type=Path, help=argparse.SUPPRESS)  # internal: build the folder in a child
    args = parser.parse_args()
    channels = tuple(args.channels.split(","))
    if args.prepare:
        folder, items = prepare_scale(args.prepare, args.requests, channels)
        print(json.dumps({"folder": str(folder), "items": items}))
        return
    from fakes.servers import openai_server, server_stats

    with tempfile.TemporaryDirectory() as tmp:
        root = args.keep or Path(tmp)
        if args.keep and (root / "mirror" / "data").is_dir():
            folder, items = root / "mirror", math.ceil(args.requests / len(channels))
        else:
            root.mkdir(parents=True, exist_ok=True)
            # In a child: Linux counts a child's peak RSS from before its exec, so a parent that built
            # the folder itself (~390 MB) would show as the run's final peak.
            built = subprocess.run([sys.executable, __file__, "--prepare", str(root), "--requests", str(args.requests),
                                    "--channels", ",".join(channels)], check=True, capture_output=True, text=True)
            prepared = json.loads(built.stdout.strip().splitlines()[-1])
            folder, items = Path(prepared["folder"]), prepared["items"]
        requests = args.requests  # the plan may hold fewer (items without a difficulty pair): the server's count decides
        marks = []
        with openai_server() as url:
            start = time.perf_counter()
            proc = subprocess.Popen([
                sys.executable, "-m", "mirror_hf.cli", "run", "--dataset", str(folder), "--model", "bench", "--base-url", url,
                "--limit", str(items), "--channels", ",".join(channels), "--concurrency", str(args.concurrency),
                "--max-tokens", str(MAX_TOKENS), "--no-progress", "--restart"], cwd=REPO, stdout=subprocess.DEVNULL)  # --keep: run afresh
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
                    mark = {"requests": seen, "seconds": seconds, "rss_mb": round(rss, 1), "peak_mb": round(hwm, 1)}
                    for role, child in sorted(children(proc.pid).items(), reverse=True):
                        try:
                            child_rss, child_hwm = memory(child)
                        except FileNotFoundError:
                            continue
                        mark[f"{role}_rss_mb"], mark[f"{role}_peak_mb"] = round(child_rss, 1), round(child_hwm, 1)
                    marks.append(mark)
                    print(json.dumps(marks[-1]), flush=True)
                    while nxt <= seen:
                        nxt += args.every
                if seen >= requests and after_requests is None:
                    after_requests = hwm
            if os.waitstatus_to_exitcode(status) != 0:
                raise SystemExit(f"mirror-hf run exited {os.waitstatus_to_exitcode(status)}")
            requests = server_stats(url)["requests"]
    growth = marks[-1]["peak_mb"] - marks[0]["peak_mb"] if len(marks) > 1 else 0.0
    per_10k = {who: growth_per_10k(marks, key) for who, key in (("run", "rss_mb"), ("records_worker", "records_rss_mb"))}
    flat = all(g is not None and g < FLAT_MB_PER_10K for g in per_10k.values())
    print(json.dumps({"requests": requests, "peak_growth_first_to_last_mark_mb": round(growth, 1),
                      "peak_at_last_request_mb": after_requests, "final_peak_mb": round(usage.ru_maxrss / 1024, 1),  # max of run, children
                      "load_average": os.getloadavg()}))
    span = f" from {marks[0]['requests']:,} to {marks[-1]['requests']:,}" if marks else ""
    for who, g in per_10k.items():
        print(f"{who}: VmRSS {'n/a (fewer than two marks)' if g is None else f'{g:+.2f} MB'} per 10,000 requests{span}")
    if len(marks) > 2:  # information only (the verdict reads the line above): the records worker's bounded caches
        # (the matcher's memoised texts) fill during the first marks
        later = {who: growth_per_10k(marks[1:], key) for who, key in (("run", "rss_mb"), ("records_worker", "records_rss_mb"))}
        print("from the second mark: " + ", ".join(f"{who} {g:+.2f} MB" for who, g in later.items() if g is not None)
              + f" per 10,000 requests (from {marks[1]['requests']:,})")
    print(f"{'PASS' if flat else 'FAIL'}: flat means under {FLAT_MB_PER_10K:g} MB per 10,000 requests for each (module docstring)")


if __name__ == "__main__":
    main()
