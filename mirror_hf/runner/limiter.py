"""Pacing requests: an in-flight window that adapts to 429s, optional requests-per-minute and
tokens-per-minute budgets, and a shared pause when a server says `Retry-After`.

- Window: at most `window` requests in flight. A 429 halves it (at most once per `cooldown`
  seconds, so one burst of 429s counts once); each success grows it by 1/window, back up to the
  configured concurrency (additive increase, multiplicative decrease, as TCP does).
- Budgets: GCRA ("virtual scheduling") per budget: each request moves a theoretical arrival time
  forward by its cost (60/rpm seconds; tokens*60/tpm seconds), with one second of burst. Tokens are
  estimated before sending (prompt characters / 4 + max_tokens) and corrected from `usage` after.
- Retry-After: every request waits until the pause ends, not just the one that got the 429; the
  client passes only waits up to its --max-retry-wait (a longer one fails that attempt and pauses no one).

With no budgets and no 429 so far, `acquire` returns without awaiting anything (the hot path).
"""

from __future__ import annotations

import asyncio
import collections
import time
from collections.abc import Callable


class RateLimiter:
    def __init__(
        self,
        concurrency: int,
        *,
        rpm: float | None = None,
        tpm: float | None = None,
        adaptive: bool = True,
        min_window: int = 1,
        cooldown: float = 1.0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        if concurrency < 1:
            raise ValueError(f"concurrency must be at least 1, got {concurrency}")
        for name, value in (("rpm", rpm), ("tpm", tpm)):
            if value is not None and value <= 0:
                raise ValueError(f"--{name} must be positive, got {value}")
        self.max_window = concurrency
        self.window = float(concurrency)
        self.min_window = min_window
        self.adaptive = adaptive
        self.cooldown = cooldown
        self.clock = clock
        self.in_flight = 0
        self.pause_until = 0.0
        self.rate_limited = 0  # 429s seen
        self._last_decrease = -1e9
        self._waiters: collections.deque[asyncio.Future] = collections.deque()
        self._req_interval = 60.0 / rpm if rpm else None
        self._req_tolerance = max(0.0, 1.0 - 60.0 / rpm) if rpm else 0.0
        self._tok_interval = 60.0 / tpm if tpm else None
        self._req_tat = 0.0
        self._tok_tat = 0.0
        self.counts_tokens = tpm is not None  # callers skip the token estimate otherwise (it is read by no one)

    async def acquire(self, tokens: int) -> None:
        while True:
            if self.pause_until:
                delay = self.pause_until - self.clock()
                if delay > 0:
                    await asyncio.sleep(delay)
                    continue
                self.pause_until = 0.0
            if self.in_flight >= int(self.window):
                waiter = asyncio.get_running_loop().create_future()
                self._waiters.append(waiter)
                try:
                    await waiter
                except asyncio.CancelledError:
                    if waiter in self._waiters:
                        self._waiters.remove(waiter)
                    raise
                continue
            delay = self._budget_delay(tokens)
            if delay > 0:
                await asyncio.sleep(delay)
                continue
            self.in_flight += 1
            return

    def _budget_delay(self, tokens: int) -> float:
        """0 and the budgets charged, or how long to wait before trying again."""
        if self._req_interval is None and self._tok_interval is None:
            return 0.0
        now = self.clock()
        req_tat = max(self._req_tat, now)
        tok_tat = max(self._tok_tat, now)
        delay = 0.0
        if self._req_interval is not None and req_tat - now > self._req_tolerance:
            delay = req_tat - now - self._req_tolerance
        if self._tok_interval is not None and tok_tat - now > 1.0:
            delay = max(delay, tok_tat - now - 1.0)
        if delay > 0:
            return delay
        if self._req_interval is not None:
            self._req_tat = req_tat + self._req_interval
        if self._tok_interval is not None:
            self._tok_tat = tok_tat + tokens * self._tok_interval
        return 0.0

    def release(self, estimated_tokens: int, used_tokens: int | None, *, rate_limited: bool = False,
                retry_after: float | None = None) -> None:
        """After an attempt: free its slot, correct the token budget, adapt to a 429."""
        self.in_flight -= 1
        if self._tok_interval is not None:
            # A failed attempt is refunded; a finished one is charged what it really used.
            self._tok_tat += ((used_tokens or 0) - estimated_tokens) * self._tok_interval
        now = self.clock()
        if rate_limited:
            self.rate_limited += 1
            if retry_after:
                self.pause_until = max(self.pause_until, now + retry_after)
            if self.adaptive and now - self._last_decrease >= self.cooldown:
                self.window = max(float(self.min_window), self.window / 2)
                self._last_decrease = now
        elif used_tokens is not None and self.window < self.max_window:
            self.window = min(float(self.max_window), self.window + 1.0 / self.window)
        free = int(self.window) - self.in_flight
        while free > 0 and self._waiters:
            waiter = self._waiters.popleft()
            if not waiter.done():
                waiter.set_result(None)  # the woken request re-checks everything before it goes
                free -= 1
