"""Sending one chat request: a JSON POST to `<base URL>/chat/completions` over one aiohttp session,
an explicit error taxonomy (transient vs permanent), and bounded retries with jittered backoff.

The request is the OpenAI chat-completions wire format, sent directly rather than through the
`openai` SDK: on the runner benchmark the SDK's `AsyncOpenAI.post` (its request building, the httpx
layer over aiohttp, response processing) cost about 1 ms of CPU per request, 3-4 times the HTTP
exchange itself, and that CPU is the request phase's limit (benchmarks/runner.py measures both).
What the SDK did for a raw `post` is done here: the bearer key header, the base URL's query, a
per-attempt timeout, proxies from the environment, certifi's trust store, and the status and
connection errors below. The runner retries itself so that every attempt
goes through the rate limiter, a `Retry-After` up to `max_retry_wait` pauses everyone (not just the
request that got the 429) while a longer one fails that attempt and pauses no one, and the attempt
count lands in the trial record.

Permanent errors (4xx other than 408/409/429, a refused connection, an unknown host, a non-http
URL) are never retried; `fail_fast` of them in a row from the connection itself stop the whole run
(`EndpointDown`), since every further request would fail the same way.
"""

from __future__ import annotations

import asyncio
import email.utils
import json
import random
import sys
import time
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any
from urllib.parse import urlencode

import aiohttp

from mirror_hf._version import __version__
from mirror_hf.errors import MirrorError
from mirror_hf.runner.limiter import RateLimiter
from mirror_hf.runner.request import ChatRequest, Outcome
from mirror_hf.runner.secrets import redact
from mirror_hf.runner.validate import env_proxy

if TYPE_CHECKING:
    from ssl import SSLContext

PERMANENT_STATUS = frozenset({400, 401, 403, 404, 405, 413, 422})
FAIL_FAST = 5  # permanent connection errors in a row that stop the run


class EndpointDown(MirrorError):
    """The endpoint cannot be reached at all (refused, unknown host, wrong scheme): the run stops."""


def _permanent_connection(error: BaseException) -> bool:
    """A connection error that retrying cannot fix: refused, unknown host, not an http(s) URL."""
    import socket

    seen = set()
    exc: BaseException | None = error
    while exc is not None and id(exc) not in seen:
        seen.add(id(exc))
        if isinstance(exc, (ConnectionRefusedError, socket.gaierror)):
            return True
        if isinstance(exc, (aiohttp.InvalidURL, aiohttp.NonHttpUrlClientError)):  # InvalidUrlClientError is an InvalidURL
            return True
        exc = exc.__cause__ or exc.__context__
    return False


@dataclass(frozen=True)
class RetryPolicy:
    """Bounded retries: `max_attempts` in all, full-jitter exponential backoff between them
    (delay drawn from [0, min(cap, base * 2**n)]), never shorter than a server's Retry-After."""

    max_attempts: int = 6
    backoff_base: float = 1.0
    backoff_cap: float = 60.0
    timeout: float = 120.0  # per attempt, seconds
    max_retry_wait: float = 120.0  # longest Retry-After honoured; a longer one fails the attempt

    def delay(self, attempt: int, rng: random.Random) -> float:
        return rng.uniform(0, min(self.backoff_cap, self.backoff_base * 2 ** (attempt - 1)))


class AttemptError(Exception):
    """One failed attempt, classified."""

    def __init__(self, message: str, *, transient: bool, rate_limited: bool = False, retry_after: float | None = None,
                 unreachable: bool = False):
        super().__init__(message)
        self.transient = transient
        self.rate_limited = rate_limited
        self.retry_after = retry_after
        self.unreachable = unreachable  # a permanent connection error (counts towards fail-fast)


def parse_retry_after(headers: Mapping[str, str] | None) -> float | None:
    """Seconds to wait from `retry-after-ms`, or `Retry-After` as seconds or an HTTP date."""
    if headers is None:
        return None
    value = headers.get("retry-after-ms")
    if value:
        try:
            return max(0.0, float(value) / 1000)
        except ValueError:
            pass
    value = headers.get("retry-after")
    if not value:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        parsed = email.utils.parsedate_to_datetime(value)
        return max(0.0, parsed.timestamp() - time.time())
    except (TypeError, ValueError, IndexError, OverflowError, AttributeError):
        _warn_once(f"warning: ignored a malformed Retry-After header {str(value)[:40]!r} (treated as absent: the usual backoff applies)")
        return None


_WARNED: set[str] = set()


def _warn_once(text: str) -> None:
    """A server's oddity is said once per run, on stderr, and never stops it."""
    if text not in _WARNED:
        _WARNED.add(text)
        print(text, file=sys.stderr)


def _error_text(raw: bytes) -> str:
    """A failed request's reason: the OpenAI error body's `error.message` (or `message`), else the
    body's first 300 characters."""
    text = raw.decode("utf-8", "replace")
    try:
        body = json.loads(text)
    except ValueError:
        return text.strip()[:300] or "(empty body)"
    error = body.get("error") if isinstance(body, dict) else None
    message = error.get("message") if isinstance(error, dict) else (error if isinstance(error, str) else None)
    if message is None and isinstance(body, dict):
        message = body.get("message")
    return str(message)[:300] if message else text.strip()[:300]


def _root_cause(exc: BaseException) -> BaseException:
    seen = {id(exc)}
    while True:
        nxt = exc.__cause__ or exc.__context__
        if nxt is None or id(nxt) in seen:
            return exc
        seen.add(id(nxt))
        exc = nxt


class ChatClient:
    """One aiohttp session for the whole run (its connection pool is sized to the concurrency)."""

    def __init__(self, base_url: str, api_key: str, *, concurrency: int, policy: RetryPolicy, limiter: RateLimiter, seed: int = 0,
                 default_query: dict[str, str] | None = None, fail_fast: int = FAIL_FAST):
        # Never written: the key and the base URL's query values (some providers take a key there).
        self._secrets = (api_key, *(v for v in (default_query or {}).values()))
        query = f"?{urlencode(default_query)}" if default_query else ""
        self._url = f"{base_url.rstrip('/')}/chat/completions{query}"
        self._headers = {"Authorization": f"Bearer {api_key}", "Content-Type": "application/json",
                         "Accept": "application/json", "User-Agent": f"mirror-hf/{__version__}"}
        self._proxy = env_proxy(self._url)
        self._concurrency = concurrency
        self._session: aiohttp.ClientSession | None = None  # made on the first send: an aiohttp session belongs to the running loop
        self.policy = policy
        self.limiter = limiter
        self._rng = random.Random(seed)
        self.retries = 0  # attempts beyond the first, for progress display
        self.fail_fast = fail_fast
        self._unreachable_in_a_row = 0

    def _open(self) -> aiohttp.ClientSession:
        ssl: bool | SSLContext = True  # verify with the system's trust store, unless certifi's (the SDK's) is installed
        if self._url.startswith("https:"):
            try:
                import certifi
            except ImportError:
                pass
            else:
                import ssl as ssl_module

                ssl = ssl_module.create_default_context(cafile=certifi.where())
        connector = aiohttp.TCPConnector(limit=self._concurrency, ssl=ssl)
        session = aiohttp.ClientSession(connector=connector, headers=self._headers,
                                        timeout=aiohttp.ClientTimeout(total=self.policy.timeout))
        self._session = session
        return session

    async def close(self) -> None:
        if self._session is not None:
            await self._session.close()
            self._session = None

    async def send(self, request: ChatRequest) -> Outcome:
        """Send with retries; never raises for API trouble: a final failure is an Outcome with `error`."""
        policy = self.policy
        estimate = request.estimated_prompt_tokens() + request.generation.max_tokens if self.limiter.counts_tokens else 0
        attempt = 0
        started = time.perf_counter()
        while True:
            attempt += 1
            await self.limiter.acquire(estimate)
            try:
                outcome = await self._attempt(request)
            except AttemptError as exc:
                message = str(exc)
                too_long = exc.retry_after is not None and exc.retry_after > policy.max_retry_wait
                self.limiter.release(estimate, None, rate_limited=exc.rate_limited, retry_after=None if too_long else exc.retry_after)
                if too_long:
                    message += f" (Retry-After {exc.retry_after:g} s is longer than --max-retry-wait {policy.max_retry_wait:g} s)"
                self._count_unreachable(exc, message)
                if not exc.transient or too_long or attempt >= policy.max_attempts:
                    return Outcome(
                        attempts=attempt,
                        latency_ms=round((time.perf_counter() - started) * 1000, 3),
                        error=redact(message, self._secrets),
                        error_kind="transient" if exc.transient else "permanent",
                    )
                self.retries += 1
                await asyncio.sleep(max(policy.delay(attempt, self._rng), exc.retry_after or 0.0))
                continue
            self._unreachable_in_a_row = 0
            self.limiter.release(estimate, (outcome.prompt_tokens or 0) + (outcome.completion_tokens or 0))
            outcome.attempts = attempt
            return outcome

    def _count_unreachable(self, exc: AttemptError, message: str) -> None:
        if not exc.unreachable:
            self._unreachable_in_a_row = 0
            return
        self._unreachable_in_a_row += 1
        if self._unreachable_in_a_row >= self.fail_fast:
            raise EndpointDown(
                f"{self._unreachable_in_a_row} requests in a row could not reach the endpoint "
                f"({redact(message, self._secrets)}); stopped. Check --base-url and that the server is running; "
                "finished requests are kept for --resume"
            )

    async def _attempt(self, request: ChatRequest) -> Outcome:
        session = self._session or self._open()
        # The body is exactly what the request key hashes, serialised compactly (UTF-8, no NaN).
        body = {**request.generation.body(), "model": request.model, "messages": list(request.messages)}
        content = json.dumps(body, ensure_ascii=False, separators=(",", ":"), allow_nan=False).encode()
        t0 = time.perf_counter()
        try:
            async with session.post(self._url, data=content, proxy=self._proxy, allow_redirects=False) as response:
                status = response.status
                raw = await response.read()
                headers = response.headers
        except (asyncio.TimeoutError, TimeoutError):  # aiohttp's ServerTimeoutError and ConnectionTimeoutError are these
            raise AttemptError(f"timeout after {self.policy.timeout:g} s", transient=True) from None
        except aiohttp.ClientError as exc:
            root = _root_cause(exc)
            if _permanent_connection(exc):
                raise AttemptError(f"connection error: {type(root).__name__}: {root}", transient=False, unreachable=True) from None
            raise AttemptError(f"connection error: {type(root).__name__}: {root}", transient=True) from None
        if not 200 <= status < 300:
            retry_after = parse_retry_after(headers)
            if 300 <= status < 400:  # as the SDK, redirects are not followed: the base URL is wrong
                raise AttemptError(f"HTTP {status}: redirected to {headers.get('location')!r}; check --base-url", transient=False)
            message = f"HTTP {status}: {_error_text(raw)}"
            if status == 429:
                raise AttemptError(message, transient=True, rate_limited=True, retry_after=retry_after)
            raise AttemptError(message, transient=status not in PERMANENT_STATUS, retry_after=retry_after)
        try:
            data = json.loads(raw)
        except (json.JSONDecodeError, UnicodeDecodeError) as exc:
            raise AttemptError(f"malformed response: {exc}", transient=True) from None
        latency = (time.perf_counter() - t0) * 1000
        try:
            if not isinstance(data, dict):
                raise TypeError(f"the body is {type(data).__name__}")
            choice = data["choices"][0]
            message = choice["message"]
            content = message.get("content")
            if content is not None and not isinstance(content, str):
                raise TypeError(f"content is {type(content).__name__}")
        except (KeyError, IndexError, TypeError, AttributeError) as exc:
            raise AttemptError(f"malformed response: no choices[0].message ({exc})", transient=True) from None
        # vLLM / DeepSeek put a reasoning trace beside the content; `<think>` blocks inside the content
        # stay in the raw text and are split off by the protocol's parsers.
        reasoning = message.get("reasoning_content") or message.get("reasoning")
        usage = data.get("usage") or {}
        choices = data["choices"]
        samples = None
        if len(choices) > 1:  # a request with `n` the endpoint honoured: every choice's content
            samples = [c.get("message", {}).get("content") or "" for c in choices if isinstance(c, dict)]
        return Outcome(
            text=content or "",
            reasoning=reasoning if isinstance(reasoning, str) else None,
            finish_reason=choice.get("finish_reason"),
            prompt_tokens=usage.get("prompt_tokens"),
            completion_tokens=usage.get("completion_tokens"),
            latency_ms=round(latency, 3),
            system_fingerprint=data.get("system_fingerprint"),
            samples=samples,
            logprobs=compact_logprobs(choice.get("logprobs")),
        )


def compact_logprobs(value: object) -> list[Any] | None:
    """A choice's `logprobs.content` as [token, logprob, [[alternative, logprob], ...]] per token, or
    None when the response carried none (an endpoint that ignores `logprobs`)."""
    content = value.get("content") if isinstance(value, dict) else None
    if not isinstance(content, list) or not content:
        return None
    out = []
    for entry in content:
        if not isinstance(entry, dict) or not isinstance(entry.get("token"), str):
            return None
        top = [[t["token"], float(t["logprob"])] for t in entry.get("top_logprobs") or []
               if isinstance(t, dict) and isinstance(t.get("token"), str) and isinstance(t.get("logprob"), (int, float))]
        lp = entry.get("logprob")
        out.append([entry["token"], float(lp) if isinstance(lp, (int, float)) else None, top])
    return out
