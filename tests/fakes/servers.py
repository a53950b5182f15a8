"""Start the fake servers as subprocesses and stop them by PID (used by fixtures and benchmarks)."""

from __future__ import annotations

import json
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

HERE = Path(__file__).resolve().parent


def _start(script: str, args: list[str]) -> tuple[subprocess.Popen, int]:
    proc = subprocess.Popen(
        [sys.executable, str(HERE / script), *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    line = proc.stdout.readline()
    if not line.startswith("PORT "):
        proc.kill()
        raise RuntimeError(f"{script} did not start: {line!r} {proc.stderr.read()[-2000:]}")
    return proc, int(line.split()[1])


def _stop(proc: subprocess.Popen) -> None:
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


@contextmanager
def openai_server(faults: dict | None = None, **options) -> Iterator[str]:
    """Yields the base URL (`http://127.0.0.1:<port>/v1`) of a scripted chat server."""
    args = ["--faults", json.dumps(faults or {})]
    for name, value in options.items():
        args += [f"--{name.replace('_', '-')}", str(value)]
    proc, port = _start("openai_server.py", args)
    try:
        yield f"http://127.0.0.1:{port}/v1"
    finally:
        _stop(proc)


def server_stats(base_url: str, detail: bool = False) -> dict:
    root = base_url.rsplit("/v1", 1)[0]
    with urllib.request.urlopen(f"{root}/stats{'?detail=1' if detail else ''}", timeout=10) as reply:
        return json.loads(reply.read())


def allowed_share(accepted: list[list[float]], window: float, windows: int, budget: float, *, tokens: bool) -> float:
    """From a rate-limited server's `accepted` (its stats with detail): the 200s (or their tokens)
    in the `windows` windows from the first 200, over windows * budget (the most a sliding window allows)."""
    start = accepted[0][0]
    end = start + windows * window
    if accepted[-1][0] < end:
        raise ValueError("the run ended before the measured windows did: plan more requests")
    inside = [tok if tokens else 1 for at, tok in accepted if at < end]
    return sum(inside) / (windows * budget)


@contextmanager
def fake_hub(storage: Path, hold_commits: int = 0) -> Iterator[str]:
    """Yields the endpoint URL of a fake Hub keeping its repos under `storage` (`hold_commits`: the
    first N commits wait for each other, so concurrent pushes race on the same parent)."""
    proc, port = _start("fake_hub.py", ["--storage", str(storage), "--hold-commits", str(hold_commits)])
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        _stop(proc)


def wait_until(predicate, timeout: float = 10.0, interval: float = 0.05) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(interval)
    return False
