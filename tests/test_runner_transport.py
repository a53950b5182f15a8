"""The runner's own HTTP transport (mirror_hf/runner/client.py posts the chat-completions JSON with
aiohttp, not through the openai SDK): what the SDK did for it must still happen — the bearer key,
the base URL's query, a proxy from the environment (and NO_PROXY), the OpenAI error body's message.
Against real sockets: a proxy and a server started here on 127.0.0.1."""

from __future__ import annotations

import asyncio
import json

import pytest

from mirror_hf.runner.client import ChatClient, RetryPolicy
from mirror_hf.runner.limiter import RateLimiter
from mirror_hf.runner.request import ChatRequest, Generation

REPLY = {"choices": [{"index": 0, "message": {"role": "assistant", "content": "ANSWER: B"}, "finish_reason": "stop"}],
         "usage": {"prompt_tokens": 7, "completion_tokens": 3}, "system_fingerprint": "fp_here"}


async def _http_server(answer):
    """A one-line-per-request HTTP/1.1 server; `answer(request_line, headers, body)` -> (status, body).
    Yields its port and the requests it saw."""
    seen = []

    async def handle(reader, writer):
        while True:
            line = await reader.readline()
            if not line:
                break
            headers = {}
            while (h := await reader.readline()) not in (b"\r\n", b""):
                name, _, value = h.decode().partition(":")
                headers[name.strip().lower()] = value.strip()
            body = await reader.readexactly(int(headers.get("content-length", 0)))
            seen.append((line.decode().strip(), headers, body))
            status, payload, *extra = answer(line.decode(), headers, body)
            data = json.dumps(payload).encode()
            more = "".join(f"{k}: {v}\r\n" for k, v in (extra[0] if extra else {}).items())
            head = f"HTTP/1.1 {status} X\r\nContent-Type: application/json\r\n{more}Content-Length: {len(data)}\r\n\r\n"
            writer.write(head.encode() + data)
            await writer.drain()
        writer.close()

    server = await asyncio.start_server(handle, "127.0.0.1", 0)
    return server, server.sockets[0].getsockname()[1], seen


def _client(base_url: str, key: str = "sk-test-key", **kw) -> ChatClient:
    return ChatClient(base_url, key, concurrency=2, policy=RetryPolicy(max_attempts=1, timeout=10), limiter=RateLimiter(2), **kw)


def _request(base_url: str) -> ChatRequest:
    return ChatRequest("m", base_url, ({"role": "user", "content": "Which? A or B"},), Generation(0.0, 0, 8, ()))


def test_the_request_is_the_chat_completions_wire_format_with_the_key_and_query(monkeypatch):
    for name in ("HTTP_PROXY", "http_proxy", "ALL_PROXY", "all_proxy"):
        monkeypatch.delenv(name, raising=False)

    async def go():
        server, port, seen = await _http_server(lambda *_: (200, REPLY))
        async with server:
            base = f"http://127.0.0.1:{port}/v1"
            client = _client(base, default_query={"api-version": "2024"})
            outcome = await client.send(_request(base))
            await client.close()
        return outcome, seen

    outcome, seen = asyncio.run(go())
    assert outcome.ok and outcome.text == "ANSWER: B" and outcome.prompt_tokens == 7 and outcome.system_fingerprint == "fp_here"
    line, headers, body = seen[0]
    assert line == "POST /v1/chat/completions?api-version=2024 HTTP/1.1"
    assert headers["authorization"] == "Bearer sk-test-key" and headers["content-type"] == "application/json"
    sent = json.loads(body)
    assert sent["model"] == "m" and sent["messages"] == [{"role": "user", "content": "Which? A or B"}]
    assert sent["max_tokens"] == 8 and sent["temperature"] == 0.0 and sent["seed"] == 0


@pytest.mark.parametrize("bypass", [False, True])
def test_a_proxy_from_the_environment_carries_the_request_unless_no_proxy_names_the_host(monkeypatch, bypass):
    async def go():
        proxy, proxy_port, via_proxy = await _http_server(lambda *_: (200, REPLY))
        direct, port, direct_seen = await _http_server(lambda *_: (200, REPLY))
        async with proxy, direct:
            monkeypatch.setenv("HTTP_PROXY", f"http://127.0.0.1:{proxy_port}")
            monkeypatch.setenv("NO_PROXY", "127.0.0.1" if bypass else "example.org")
            base = f"http://127.0.0.1:{port}/v1"
            client = _client(base)
            outcome = await client.send(_request(base))
            await client.close()
        return outcome, via_proxy, direct_seen, port

    outcome, via_proxy, direct_seen, port = asyncio.run(go())
    assert outcome.ok
    if bypass:
        assert via_proxy == [] and len(direct_seen) == 1
    else:
        # a forward proxy gets the absolute URL
        assert direct_seen == [] and via_proxy[0][0] == f"POST http://127.0.0.1:{port}/v1/chat/completions HTTP/1.1"


def test_a_refused_request_reports_the_error_bodys_message_and_never_the_key(monkeypatch):
    monkeypatch.delenv("HTTP_PROXY", raising=False)
    key = "sk-secret-123"
    error = {"error": {"message": f"Incorrect API key provided: {key}", "type": "invalid_request_error"}}

    async def go():
        server, port, _ = await _http_server(lambda *_: (401, error))
        async with server:
            base = f"http://127.0.0.1:{port}/v1"
            client = _client(base, key=key)
            outcome = await client.send(_request(base))
            await client.close()
        return outcome

    outcome = asyncio.run(go())
    assert not outcome.ok and outcome.error_kind == "permanent" and outcome.attempts == 1
    assert outcome.error.startswith("HTTP 401: Incorrect API key provided: ") and key not in outcome.error


def test_a_redirect_is_not_followed_and_fails_at_once(monkeypatch):
    monkeypatch.delenv("HTTP_PROXY", raising=False)

    async def go():
        server, port, seen = await _http_server(lambda *_: (307, {}, {"Location": "http://127.0.0.1:9/v1/chat/completions"}))
        async with server:
            base = f"http://127.0.0.1:{port}/v1"
            client = ChatClient(base, "k", concurrency=1, policy=RetryPolicy(max_attempts=3, timeout=10), limiter=RateLimiter(1))
            outcome = await client.send(_request(base))
            await client.close()
        return outcome, seen

    outcome, seen = asyncio.run(go())
    assert len(seen) == 1 and outcome.attempts == 1 and outcome.error_kind == "permanent"
    assert outcome.error.startswith("HTTP 307: redirected to 'http://127.0.0.1:9/v1/chat/completions'")


def test_a_proxy_the_runner_cannot_use_is_refused_before_anything_is_written(dataset):
    from fakes.servers import openai_server, server_stats
    from runner_fixtures import cli

    secret = "proxy-password-42"
    with openai_server() as url:
        proxy = f"socks5://user:{secret}@10.0.0.1:1080"  # (an empty lowercase variable would unset it for urllib)
        env = {"ALL_PROXY": proxy, "all_proxy": proxy, "NO_PROXY": "example.org", "no_proxy": "example.org"}
        proc = cli("run", "--dataset", str(dataset), "--model", "m", "--base-url", url, "--limit", "2", "--channels", "natural",
                   "--no-progress", env=env, check=False)
        seen = server_stats(url)["requests"]
    lines = proc.stderr.strip().splitlines()
    assert proc.returncode == 2 and len(lines) == 1, proc.stderr
    assert "ALL_PROXY" in lines[0] and "socks5 proxy" in lines[0] and secret not in proc.stderr + proc.stdout
    assert seen == 0 and not (dataset / ".runs").exists()
