"""`run --format-grammar`: each request carries its prompt's answer-format grammar in the body (what
llama.cpp's servers read as `grammar`), the natural channel none; it is off by default, recorded in
the manifest, and refused with one line for an experiment whose prompts state no single format.
A recording OpenAI-compatible server on 127.0.0.1 keeps every body it is sent."""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from runner_fixtures import cli_inproc, read_split

from mirror_hf.protocol import exp1, grammars


class _Recorder(BaseHTTPRequestHandler):
    bodies: list[dict] = []
    reply = "ANSWER: 4\nBET: 5"

    def log_message(self, *args) -> None:
        pass

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        type(self).bodies.append(body)
        content = type(self).reply
        out = json.dumps({"id": "x", "object": "chat.completion", "model": body["model"], "created": 0,
                          "choices": [{"index": 0, "message": {"role": "assistant", "content": content}, "finish_reason": "stop"}],
                          "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15}}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(out)))
        self.end_headers()
        self.wfile.write(out)


@pytest.fixture
def recorder():
    _Recorder.bodies = []
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Recorder)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}/v1", _Recorder.bodies
    server.shutdown()
    server.server_close()


def _channel_of(body: dict) -> str:
    """Which channel a request belongs to, from its prompt (each channel's instructions are its own)."""
    text = body["messages"][0]["content"]
    marks = {"wagering": exp1.WAGERING_INSTRUCTIONS, "opt_out": exp1.OPT_OUT_INSTRUCTIONS,
             "tool_delegation": exp1.TOOL_INSTRUCTIONS, "difficulty_selection": "Choose one task to attempt:"}
    found = [name for name, mark in marks.items() if mark in text]
    return found[0] if found else "natural"


def _run(dataset, base_url, *extra):
    return cli_inproc("run", "--dataset", str(dataset), "--base-url", base_url, "--model", "m", "--limit", "4",
                      "--concurrency", "2", "--no-progress", *extra)


def test_each_request_carries_its_channels_grammar(dataset, recorder):
    base_url, bodies = recorder
    _run(dataset, base_url, "--format-grammar")
    assert bodies
    seen = set()
    for body in bodies:
        channel = _channel_of(body)
        seen.add(channel)
        assert body.get("grammar") == grammars.format_grammar("exp1", {"channel": channel}), channel
    assert seen == set(exp1.BEHAVIOURAL_CHANNELS)
    assert all("grammar" not in b for b in bodies if _channel_of(b) == "natural")
    manifest = json.loads((dataset / ".runs" / "m" / "exp1.manifest.json").read_text())
    assert manifest["settings"]["format_grammar"] is True
    trials = read_split(dataset, "trials_exp1", "m")
    assert trials.filter(trials["channel"] == "wagering")["parse_success"].all()


def test_off_by_default_and_the_tool_followup_has_its_own(dataset, recorder):
    base_url, bodies = recorder
    _Recorder.reply = "[USE_TOOL: calculator | 2+2]\nANSWER: 4"
    try:
        _run(dataset, base_url, "--channels", "tool_delegation")
        assert bodies and all("grammar" not in b for b in bodies)
        manifest = json.loads((dataset / ".runs" / "m" / "exp1.manifest.json").read_text())
        assert manifest["settings"]["format_grammar"] is False
        bodies.clear()
        _run(dataset, base_url, "--channels", "tool_delegation", "--format-grammar", "--split", "g")
    finally:
        _Recorder.reply = "ANSWER: 4\nBET: 5"
    first = [b for b in bodies if len(b["messages"]) == 1]
    second = [b for b in bodies if len(b["messages"]) == 3]
    assert first and second  # every trial called the calculator, so every trial has a second turn
    assert all(b["grammar"] == grammars.format_grammar("exp1", {"channel": "tool_delegation"}) for b in first)
    assert all(b["grammar"] == grammars.gbnf(grammars.TOOL_FOLLOWUP) for b in second)


def test_refused_for_an_experiment_without_formats(dataset):
    proc = cli_inproc("run", "--dataset", str(dataset), "--experiment", "exp4", "--base-url", "http://127.0.0.1:9/v1",
                      "--model", "m", "--format-grammar", "--dry-run", check=False)
    assert proc.returncode == 2
    lines = [ln for ln in proc.stderr.splitlines() if ln.strip()]
    assert len(lines) == 1 and "--format-grammar" in lines[0] and "exp4" in lines[0], proc.stderr
    assert not (dataset / ".runs").exists()
