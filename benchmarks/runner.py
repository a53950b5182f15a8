"""Runner benchmark: 5,000 Exp1 requests at concurrency 64 against a local instant-response
OpenAI-compatible server, `mirror-hf run` end to end (interpreter start, imports, plan, requests,
parsing and grading, the results file, the split, the card and Croissant) side by side with bare
`AsyncOpenAI` loops, a bare aiohttp loop, lm-evaluation-harness (`local-chat-completions`) and inspect_ai's
OpenAI-compatible provider sending the same 5,000 prompts; all in one run, each client in its own
fresh process against a fresh server, interleaved (the order reverses every repetition).

    pip install -e '.[bench]'   # the peers; without them they are reported as not measured
    python benchmarks/runner.py [--requests 5000] [--concurrency 64] [--repeat 3]

Printed: requests/s end to end (5,000 / process wall) and in the request phase (5,000 / time from
the first to the last request the server saw), peak RSS of each process, runner / each client,
the runner's own phase timings and the load average (the machine is shared: compare ratios from
one run, never figures from different runs). The issue's baselines are the bare `AsyncOpenAI` loops:
"bare" (`chat.completions.create`) and "bare_post" (`AsyncOpenAI.post`, the call the runner made until
it dropped the SDK). The runner now posts the chat-completions JSON with aiohttp itself (the SDK's
`post` cost ~1 ms of CPU per request, the request phase's limit), so a third bare loop making that
same aiohttp call is measured too: runner / bare_aiohttp is the runner's own overhead (start-up,
plan, resume file, parsing, split, card, Croissant) over the same transport, reported without a target.
Targets (issue 17): runner / bare_post >= 0.9, runner / lm_eval >= 2, runner peak <= 300 MB; (issue 12)
runner / bare >= 0.8. The runner's peak is the largest of its process and its children (the
card/Croissant worker, the forked records worker): the rusage of a reaped process covers them.
The peers: lm-eval reads a generated task YAML (json dataset of the same prompts, generate_until,
a regex filter and exact_match); inspect runs a generated Task (MemoryDataset, generate(), a
pattern scorer) with its default logging, from the task's folder (it refuses absolute task paths).
A peer that is not installed or fails here is named in one line and the others are still printed.
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
TARGET_RATIO = 0.9  # runner / bare_post, end to end
TARGET_BARE = 0.8  # runner / bare (chat.completions.create), end to end (issue 12)
TARGET_PEER = 2.0  # runner / lm-evaluation-harness, end to end
TARGET_MB = 300.0
CLIENTS = ("bare", "bare_post", "bare_aiohttp", "runner", "lm_eval", "inspect")

BARE = r'''
import asyncio, json, sys

async def openai_loop(prompts, url, concurrency, max_tokens):
    import openai

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
    return out

async def aiohttp_loop(prompts, url, concurrency, max_tokens):
    import aiohttp

    headers = {"Authorization": "Bearer x", "Content-Type": "application/json"}
    async with aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=concurrency), headers=headers) as session:
        async def one(messages):
            body = {"model": "bench", "messages": messages, "max_tokens": max_tokens, "temperature": 0.0, "seed": 0}
            async with session.post(url + "/chat/completions", data=json.dumps(body).encode()) as r:
                r.raise_for_status()
                return json.loads(await r.read())["choices"][0]["message"]["content"]

        return await asyncio.gather(*(one(m) for m in prompts))

async def main(path, url, concurrency, max_tokens):
    with open(path) as f:
        prompts = json.load(f)
    loop = aiohttp_loop if MODE == "aiohttp" else openai_loop
    out = await loop(prompts, url, concurrency, max_tokens)
    assert all(out), "empty answer"

MODE = sys.argv[5]
asyncio.run(main(sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])))
'''


LMEVAL_TASK = """task: mirror_peerbench
dataset_path: json
dataset_kwargs:
  data_files:
    test: {docs}
test_split: test
output_type: generate_until
doc_to_text: "{{{{text}}}}"
doc_to_target: "{{{{answer}}}}"
generation_kwargs:
  until: []
  max_gen_toks: {max_tokens}
  do_sample: false
  temperature: 0.0
filter_list:
  - name: get-answer
    filter:
      - function: regex
        regex_pattern: "ANSWER: ([A-D])"
      - function: take_first
metric_list:
  - metric: exact_match
"""

INSPECT_TASK = """import json

from inspect_ai import Task, task
from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.model import GenerateConfig
from inspect_ai.scorer import pattern
from inspect_ai.solver import generate


@task
def peerbench():
    with open({prompts!r}) as f:
        prompts = json.load(f)
    samples = [Sample(id=i, input=m[0]["content"], target="A") for i, m in enumerate(prompts)]
    return Task(dataset=MemoryDataset(samples), solver=generate(), scorer=pattern(r"ANSWER: ([A-D])"),
                config=GenerateConfig(max_tokens={max_tokens}, temperature=0.0))
"""


class PeerUnavailable(Exception):
    """A peer that is not installed, or failed to run here: reported in one line, the others go on."""


def peer_commands(root: Path, prompts: Path, concurrency: int) -> dict[str, object]:
    """name -> function(url, rep) giving (argv, cwd, env) for the peers installed next to this
    interpreter (the `bench` extra), or the one-line reason a peer cannot run."""
    bindir = Path(sys.executable).parent
    docs = root / "peer_docs.jsonl"
    with docs.open("w") as f:
        for messages in json.loads(prompts.read_text()):
            f.write(json.dumps({"text": messages[0]["content"], "answer": "A"}) + "\n")
    peers: dict[str, object] = {}
    if (bindir / "lm_eval").exists():
        tasks = root / "lmeval_tasks"
        tasks.mkdir()
        (tasks / "peerbench.yaml").write_text(LMEVAL_TASK.format(docs=docs, max_tokens=MAX_TOKENS))

        def lm_eval(url: str, rep: int):
            args = f"model=bench,base_url={url}/chat/completions,num_concurrent={concurrency},max_retries=1,tokenized_requests=False"
            return ([str(bindir / "lm_eval"), "--model", "local-chat-completions", "--model_args", args, "--tasks", "mirror_peerbench",
                     "--include_path", str(tasks), "--apply_chat_template", "--output_path", str(root / f"lmeval_out{rep}")],
                    root, {"HF_DATASETS_OFFLINE": "1", "HF_HOME": str(root / f"hf_lmeval{rep}")})
        peers["lm_eval"] = lm_eval
    else:
        peers["lm_eval"] = "lm-evaluation-harness is not installed here (pip install -e '.[bench]')"
    if (bindir / "inspect").exists():
        (root / "inspect_task.py").write_text(INSPECT_TASK.format(prompts=str(prompts), max_tokens=MAX_TOKENS))

        def inspect(url: str, rep: int):
            # inspect 0.3.285 refuses an absolute task path: run it from the task's folder.
            return ([str(bindir / "inspect"), "eval", "inspect_task.py", "--model", "openai-api/stub/bench",
                     "--max-connections", str(concurrency), "--max-retries", "1", "--log-dir", str(root / f"inspect_out{rep}")],
                    root, {"STUB_BASE_URL": url, "STUB_API_KEY": "x"})
        peers["inspect"] = inspect
    else:
        peers["inspect"] = "inspect_ai is not installed here (pip install -e '.[bench]')"
    return peers


def measure(args: list[str], cwd: Path = REPO, env: dict | None = None, *, peer: bool = False) -> tuple[float, float, str]:
    """(wall seconds, peak RSS MB, stdout) of one fresh process."""
    start = time.perf_counter()
    proc = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=cwd, env={**os.environ, **(env or {})})
    out = proc.stdout.read().decode()
    err = proc.stderr.read().decode()
    _, status, usage = os.wait4(proc.pid, 0)  # this child's own rusage
    wall = time.perf_counter() - start
    if os.waitstatus_to_exitcode(status) != 0:
        if peer:
            raise PeerUnavailable(f"exited {os.waitstatus_to_exitcode(status)}: {(err.strip().splitlines() or [''])[-1][:200]}")
        raise SystemExit(f"{' '.join(args[:4])} failed:\n{out}\n{err[-3000:]}")
    return wall, usage.ru_maxrss / 1024, out


def prepare(root: Path, requests: int, channels: tuple[str, ...] = CHANNELS) -> tuple[Path, int, Path]:
    """A dataset folder with enough questions, and the plan's prompts for the bare loop."""
    from mirror_hf.bank import available_domains
    from mirror_hf.build import BuildRequest, build
    from mirror_hf.experiments import get
    from mirror_hf.runner.plan import PlanOptions, build_plan

    items = math.ceil(requests / len(channels))
    per_domain = math.ceil(items / len(available_domains()))
    folder = root / "mirror"
    build(BuildRequest(out=folder, seed=0, per_domain=per_domain))
    plan = build_plan(folder, PlanOptions(limit=items, channels=channels), get("exp1"))
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
    parser.add_argument("--clients", default=",".join(CLIENTS),
                        help="Comma-separated subset to measure (bare_post, bare_aiohttp and runner always are), e.g. to leave out a slow peer")
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
    # AsyncOpenAI.post (the target baseline). "bare_aiohttp": the runner's own HTTP call, so
    # the runner's own overhead is visible too.
    # "lm_eval", "inspect": the peers, driven as spec'd in their own docs (see PEER_NOTES).
    results: dict[str, list] = {name: [] for name in CLIENTS}
    unavailable: dict[str, str] = {}
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        _, _, out = measure([sys.executable, __file__, "--prepare", str(root), "--requests", str(args.requests)])
        prepared = json.loads(out.strip().splitlines()[-1])
        folder, items, prompts = Path(prepared["folder"]), prepared["items"], Path(prepared["prompts"])
        requests = items * len(CHANNELS)
        peers = peer_commands(root, prompts, args.concurrency)
        chosen = set(args.clients.split(",")) | {"bare_post", "bare_aiohttp", "runner"}
        for name in CLIENTS:
            if name not in chosen:
                unavailable[name] = "left out (--clients)"
        for name, cmd in peers.items():
            if name in unavailable:
                continue
            if isinstance(cmd, str):
                unavailable[name] = cmd
                print(f"  {name}: not measured: {cmd}", flush=True)

        def bare_cmd(url: str, mode: str) -> list[str]:
            return [sys.executable, "-c", BARE, str(prompts), url, str(args.concurrency), str(MAX_TOKENS), mode]

        for rep in range(args.repeat):
            order = [name for name in CLIENTS if name not in unavailable]
            for name in order if rep % 2 == 0 else order[::-1]:
                if name in unavailable:
                    continue  # failed in an earlier repetition
                with openai_server() as url:
                    n = args.requests
                    if name.startswith("bare"):
                        wall, peak, out = measure(bare_cmd(url, {"bare": "create", "bare_post": "post", "bare_aiohttp": "aiohttp"}[name]))
                    elif name == "runner":
                        copy = root / f"run{rep}"
                        shutil.copytree(folder, copy)
                        wall, peak, out = measure([
                            sys.executable, "-m", "mirror_hf.cli", "run", "--dataset", str(copy), "--model", "bench",
                            "--base-url", url, "--limit", str(items), "--channels", ",".join(CHANNELS),
                            "--concurrency", str(args.concurrency), "--max-tokens", str(MAX_TOKENS), "--no-progress",
                        ])
                        n = requests
                        shutil.rmtree(copy)
                    else:
                        argv, cwd, env = peers[name](url, rep)
                        try:
                            wall, peak, out = measure(argv, cwd, env, peer=True)
                        except PeerUnavailable as exc:
                            unavailable[name] = f"failed here: {exc}"
                            print(f"  {name}: not measured: {unavailable[name]}", flush=True)
                            continue
                    stats = server_stats(url)
                if stats["requests"] != n:
                    raise SystemExit(f"{name}: the server saw {stats['requests']} requests, expected {n}")
                phase = n / (stats["last_at"] - stats["first_at"])
                results[name].append({"wall": wall, "peak": peak, "rate": n / wall, "phase": phase, "out": out})
                print(f"  rep {rep} {name:9s}: {n / wall:6.0f} req/s end to end, {phase:6.0f} req/s request phase, "
                      f"{wall:5.2f} s, {peak:5.0f} MB", flush=True)

    measured = [name for name in CLIENTS if results[name]]

    def med(name, key):
        return statistics.median(r[key] for r in results[name])

    runner = med("runner", "rate")
    timings = [line.rsplit("(", 1)[-1].rstrip(")") for r in results["runner"] for line in r["out"].splitlines() if " trials (" in line]
    peak = max(r["peak"] for r in results["runner"])
    checks = {"runner / bare_post": (runner / med("bare_post", "rate"), TARGET_RATIO)}
    if results["bare_aiohttp"]:
        checks["runner / bare_aiohttp"] = (runner / med("bare_aiohttp", "rate"), None)
    if results["bare"]:
        checks["runner / bare"] = (runner / med("bare", "rate"), TARGET_BARE)
    if results["lm_eval"]:
        checks["runner / lm_eval"] = (runner / med("lm_eval", "rate"), TARGET_PEER)
    summary = {
        "requests": args.requests,
        "concurrency": args.concurrency,
        "repeat": args.repeat,
        "load_average": os.getloadavg(),
        "clients": {name: {
            "end_to_end_req_per_s": round(med(name, "rate"), 1),
            "request_phase_req_per_s": round(med(name, "phase"), 1),
            "peak_mb": round(max(r["peak"] for r in results[name]), 1),
            "runner_over_this": round(runner / med(name, "rate"), 3),
        } for name in measured},
        "not_measured": unavailable,
        "runner_phases": timings,
        "meets_targets": all(value >= target for value, target in checks.values() if target is not None) and peak <= TARGET_MB,
    }
    print(json.dumps(summary, indent=2))
    print(f"{'client':10s} {'end-to-end req/s':>17s} {'request phase':>14s} {'peak MB':>8s} {'runner / it':>12s}")
    for name in measured:
        c = summary["clients"][name]
        print(f"{name:10s} {c['end_to_end_req_per_s']:17.0f} {c['request_phase_req_per_s']:14.0f} {c['peak_mb']:8.0f} {c['runner_over_this']:12.2f}")
    for name, reason in unavailable.items():
        print(f"{name:10s} not measured: {reason}")
    for label, (value, target) in checks.items():
        print(f"{label}: {value:.2f} ({f'target >= {target}' if target is not None else 'no target: the same HTTP call as the runner'})")
    print(f"runner peak {peak:.0f} MB (target <= {TARGET_MB:.0f}); load average {' '.join(f'{x:.1f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
