"""Runner benchmark: 5,000 Exp1 requests at concurrency 64 against a local instant-response
OpenAI-compatible server, `mirror-hf run` end to end (interpreter start, imports, plan, requests,
parsing and grading, the results file, the split, the card and Croissant) against a bare
`AsyncOpenAI` + aiohttp loop sending the same 5,000 requests, both measured in the same run, each
in its own fresh process, interleaved.

    python benchmarks/runner.py [--requests 5000] [--concurrency 64] [--repeat 3]

Printed: requests/s end to end (5,000 / process wall) and in the request phase (5,000 / time from
the first to the last request the server saw), the ratio runner / bare, peak RSS of each process,
and the runner's own phase timings. The runner sends through `AsyncOpenAI.post` (same transport
and error classes as `chat.completions.create`, without its per-call transform and pydantic
models), so a second bare loop making that same call is measured too: runner / bare_post is the
runner's own overhead (start-up, plan, resume file, parsing, split, card, Croissant). Targets (issue 6): ratio >= 0.8, runner peak <= 300 MB.
Reference (spec/peer-throughput.md, same machine kind): the bare loop ~700 req/s end to end,
lm-evaluation-harness 350 req/s at 317 MB, inspect_ai 57-96 req/s.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "tests"))

CHANNELS = ("wagering", "opt_out", "tool_delegation", "natural", "layer2")  # one request each (the stub calls no tool)
MAX_TOKENS = 16
TARGET_RATIO = 0.8
TARGET_MB = 300.0

BARE = r'''
import asyncio, json, sys
import openai

async def main(path, url, concurrency, max_tokens):
    with open(path) as f:
        prompts = json.load(f)
    client = openai.AsyncOpenAI(base_url=url, api_key="x", max_retries=1, http_client=openai.DefaultAioHttpClient())
    gate = asyncio.Semaphore(concurrency)

    async def one(messages):
        async with gate:
            if MODE == "create":
                r = await client.chat.completions.create(model="bench", messages=messages, max_tokens=max_tokens, temperature=0.0, seed=0)
                return r.choices[0].message.content
            body = {"model": "bench", "messages": messages, "max_tokens": max_tokens, "temperature": 0.0, "seed": 0}
            r = await client.post("/chat/completions", body=body, cast_to=dict)
            return r["choices"][0]["message"]["content"]

    out = await asyncio.gather(*(one(m) for m in prompts))
    await client.close()
    assert all(out), "empty answer"

MODE = sys.argv[5]
asyncio.run(main(sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])))
'''


def measure(args: list[str]) -> tuple[float, float, str]:
    """(wall seconds, peak RSS MB, stdout) of one fresh process."""
    start = time.perf_counter()
    proc = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=REPO)
    out = proc.stdout.read().decode()
    err = proc.stderr.read().decode()
    _, status, usage = os.wait4(proc.pid, 0)  # this child's own rusage
    wall = time.perf_counter() - start
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"{' '.join(args[:4])} failed:\n{out}\n{err[-3000:]}")
    return wall, usage.ru_maxrss / 1024, out


def prepare(root: Path, requests: int) -> tuple[Path, int, Path]:
    """A dataset folder with enough questions, and the plan's prompts for the bare loop."""
    from mirror_hf.bank import available_domains
    from mirror_hf.build import BuildRequest, build
    from mirror_hf.experiments import get
    from mirror_hf.runner.plan import PlanOptions, build_plan

    items = math.ceil(requests / len(CHANNELS))
    per_domain = math.ceil(items / len(available_domains()))
    folder = root / "mirror"
    build(BuildRequest(out=folder, seed=0, per_domain=per_domain))
    plan = build_plan(folder, PlanOptions(limit=items, channels=CHANNELS), get("exp1"))
    jobs = plan.jobs[:requests]
    if len(jobs) < requests:
        raise SystemExit(f"the bank gave only {len(jobs)} requests")
    prompts = root / "prompts.json"
    prompts.write_text(json.dumps([job.messages for job in jobs]))
    return folder, items, prompts


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=5000)
    parser.add_argument("--concurrency", type=int, default=64)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--prepare", type=Path, help=argparse.SUPPRESS)  # internal: build the folder in a child
    args = parser.parse_args()
    if args.prepare:
        folder, items, prompts = prepare(args.prepare, args.requests)
        print(json.dumps({"folder": str(folder), "items": items, "prompts": str(prompts)}))
        return
    # This process stays small (no mirror_hf / datasets imports): Linux counts a child's peak RSS
    # from before its exec, so a large parent would inflate every measurement.
    from fakes.servers import openai_server, server_stats

    # "bare": the loop the issue names (chat.completions.create). "bare_post": the same loop through
    # AsyncOpenAI.post, the call the runner makes, shown so the runner's own overhead is visible too.
    results: dict[str, list] = {"bare": [], "bare_post": [], "runner": []}
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        _, _, out = measure([sys.executable, __file__, "--prepare", str(root), "--requests", str(args.requests)])
        prepared = json.loads(out.strip().splitlines()[-1])
        folder, items, prompts = Path(prepared["folder"]), prepared["items"], Path(prepared["prompts"])
        requests = items * len(CHANNELS)
        def bare_cmd(url: str, mode: str) -> list[str]:
            return [sys.executable, "-c", BARE, str(prompts), url, str(args.concurrency), str(MAX_TOKENS), mode]
        for rep in range(args.repeat):
            order = ("bare", "bare_post", "runner")
            for name in order if rep % 2 == 0 else order[::-1]:
                with openai_server() as url:
                    if name.startswith("bare"):
                        wall, peak, out = measure(bare_cmd(url, "create" if name == "bare" else "post"))
                        n = args.requests
                    else:
                        copy = root / f"run{rep}"
                        shutil.copytree(folder, copy)
                        wall, peak, out = measure([
                            sys.executable, "-m", "mirror_hf.cli", "run", "--dataset", str(copy), "--model", "bench",
                            "--base-url", url, "--limit", str(items), "--channels", ",".join(CHANNELS),
                            "--concurrency", str(args.concurrency), "--max-tokens", str(MAX_TOKENS), "--no-progress",
                        ])
                        n = requests
                        shutil.rmtree(copy)
                    stats = server_stats(url)
                assert stats["requests"] == n, (name, stats["requests"], n)
                phase = n / (stats["last_at"] - stats["first_at"])
                results[name].append({"wall": wall, "peak": peak, "rate": n / wall, "phase": phase, "out": out})
                print(f"  rep {rep} {name:9s}: {n / wall:6.0f} req/s end to end, {phase:6.0f} req/s request phase, "
                      f"{wall:5.2f} s, {peak:5.0f} MB", flush=True)

    def med(name, key):
        return statistics.median(r[key] for r in results[name])

    ratio = med("runner", "rate") / med("bare", "rate")
    timings = [line.rsplit("(", 1)[-1].rstrip(")") for r in results["runner"] for line in r["out"].splitlines() if " trials (" in line]
    summary = {
        "requests": args.requests,
        "concurrency": args.concurrency,
        "bare_req_per_s": round(med("bare", "rate"), 1),
        "runner_req_per_s": round(med("runner", "rate"), 1),
        "ratio": round(ratio, 3),
        "bare_request_phase_req_per_s": round(med("bare", "phase"), 1),
        "runner_request_phase_req_per_s": round(med("runner", "phase"), 1),
        "bare_post_req_per_s": round(med("bare_post", "rate"), 1),
        "ratio_to_bare_post": round(med("runner", "rate") / med("bare_post", "rate"), 3),
        "bare_peak_mb": round(max(r["peak"] for r in results["bare"]), 1),
        "runner_peak_mb": round(max(r["peak"] for r in results["runner"]), 1),
        "runner_phases": timings,
        "meets_targets": ratio >= TARGET_RATIO and max(r["peak"] for r in results["runner"]) <= TARGET_MB,
    }
    print(json.dumps(summary, indent=2))
    print(
        f"mirror-hf run: {summary['runner_req_per_s']:.0f} req/s end to end vs bare AsyncOpenAI+aiohttp "
        f"{summary['bare_req_per_s']:.0f} req/s -> ratio {ratio:.2f} (target >= {TARGET_RATIO}); "
        f"peak {summary['runner_peak_mb']:.0f} MB (target <= {TARGET_MB:.0f}; bare {summary['bare_peak_mb']:.0f} MB)"
    )
    print(
        f"the same bare loop through AsyncOpenAI.post (the runner's call): {summary['bare_post_req_per_s']:.0f} req/s "
        f"-> runner / bare_post {summary['ratio_to_bare_post']:.2f}"
    )


if __name__ == "__main__":
    main()
