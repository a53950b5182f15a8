"""What the runner sends and what it keeps: a frozen chat request that doubles as its own cache key
(HELM's `Request` idea), and the outcome of sending it.

The key hashes (model, base_url, messages, generation settings) and nothing else: never the API key,
so a key can be written to disk and shared, and rotating a key does not invalidate finished work.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field

# Body fields the protocol sets: `--extra-body` may not override them (the split would record and
# grade a request that was never sent). temperature/seed/max_tokens have their own options.
PROTOCOL_FIELDS = frozenset({
    "model", "messages", "max_tokens", "max_completion_tokens", "n", "stream", "stream_options", "tools", "tool_choice",
    "functions", "function_call", "parallel_tool_calls", "temperature", "seed", "prompt", "echo", "best_of",
})


def _canonical(value: object) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


@dataclass(frozen=True, slots=True)
class Generation:
    """Generation settings sent with every request and recorded in every trial."""

    temperature: float = 0.0
    seed: int | None = 0
    max_tokens: int = 1024
    extra: tuple[tuple[str, object], ...] = ()  # provider-specific body fields (e.g. reasoning effort), sorted
    # body fields a channel's protocol sets on its own requests (`n`, `logprobs`, `top_logprobs`, a
    # sample's `seed`), applied last: part of the key, so k samples are k distinct requests
    protocol: tuple[tuple[str, object], ...] = ()

    def body(self) -> dict:
        out = {k: v for k, v in self.extra if k not in PROTOCOL_FIELDS}  # the protocol's own fields always win
        out.update(temperature=self.temperature, max_tokens=self.max_tokens)
        if self.seed is not None:
            out["seed"] = self.seed
        out.update(self.protocol)
        return out


@dataclass(frozen=True, slots=True)
class ChatRequest:
    model: str
    base_url: str
    messages: tuple[dict, ...]
    generation: Generation
    key: str = field(init=False, compare=False)

    def __post_init__(self) -> None:
        payload = _canonical(
            {"model": self.model, "base_url": self.base_url.rstrip("/"), "messages": list(self.messages),
             "generation": self.generation.body()}
        )
        object.__setattr__(self, "key", hashlib.sha256(payload.encode()).hexdigest()[:32])

    def prompt_json(self) -> str:
        return _canonical(list(self.messages))

    def estimated_prompt_tokens(self) -> int:
        """~4 characters per token plus a few per message: a planning estimate, not a tokenizer."""
        return sum(len(str(m.get("content", ""))) for m in self.messages) // 4 + 4 * len(self.messages)


@dataclass(slots=True)
class Outcome:
    """The final result of one request after retries. `error` set means it finally failed."""

    text: str | None = None
    reasoning: str | None = None
    finish_reason: str | None = None
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    latency_ms: float | None = None
    attempts: int = 0
    system_fingerprint: str | None = None
    error: str | None = None
    error_kind: str | None = None  # transient (retries exhausted) / permanent
    # every choice's content when the response had more than one (a request with `n` honoured)
    samples: list[str] | None = None
    # choice 0's token log-probabilities when the response had them: [token, logprob, [[alt, logprob], ...]]
    logprobs: list | None = None

    @property
    def ok(self) -> bool:
        return self.error is None

    @property
    def truncated(self) -> bool:
        return self.finish_reason == "length"

    def to_json(self, key: str) -> str:
        extra = {}  # written only when present: the lines of runs that never ask for them stay as they were
        if self.samples is not None:
            extra["n"] = self.samples
        if self.logprobs is not None:
            extra["lp"] = self.logprobs
        return _canonical(
            {
                **extra,
                "k": key,
                "t": self.text,
                "r": self.reasoning,
                "f": self.finish_reason,
                "p": self.prompt_tokens,
                "c": self.completion_tokens,
                "l": self.latency_ms,
                "a": self.attempts,
                "s": self.system_fingerprint,
                "e": self.error,
                "ek": self.error_kind,
            }
        )

    @classmethod
    def from_json(cls, data: dict) -> Outcome:
        return cls(
            text=data.get("t"),
            reasoning=data.get("r"),
            finish_reason=data.get("f"),
            prompt_tokens=data.get("p"),
            completion_tokens=data.get("c"),
            latency_ms=data.get("l"),
            attempts=data.get("a", 0),
            system_fingerprint=data.get("s"),
            error=data.get("e"),
            error_kind=data.get("ek"),
            samples=data.get("n"),
            logprobs=data.get("lp"),
        )
