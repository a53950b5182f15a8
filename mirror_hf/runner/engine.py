"""Executing a plan: a fixed pool of workers pulls jobs, sends each job's turns (reusing anything the
results file already holds), and records every finished request before counting it done.

A job is one trial: usually one request, two for a tool-delegation trial whose model called the
calculator. Two jobs that send the very same request (Exp9 C1 and C4 share a prompt) share one
response: the second waits for the first instead of paying twice.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass, field, replace

from mirror_hf.runner.plan import Job, Plan
from mirror_hf.runner.request import ChatRequest, Generation, Outcome
from mirror_hf.runner.store import ResultStore


@dataclass
class Budget:
    """Stops new work once the estimated spend reaches `max_cost` (USD; prices per million tokens)."""

    price_in: float = 0.0
    price_out: float = 0.0
    max_cost: float | None = None
    spent: float = 0.0

    def charge(self, outcome: Outcome) -> None:
        self.spent += ((outcome.prompt_tokens or 0) * self.price_in + (outcome.completion_tokens or 0) * self.price_out) / 1e6

    @property
    def exhausted(self) -> bool:
        return self.max_cost is not None and self.spent >= self.max_cost


@dataclass
class Progress:
    """Counters the progress display reads."""

    done: int = 0
    failed: int = 0
    sent: int = 0
    reused: int = 0
    on_update: Callable[[Progress], None] | None = None


@dataclass
class Execution:
    turns: dict[int, list[tuple[ChatRequest, Outcome]]] = field(default_factory=dict)  # job index -> turns
    stopped_by_budget: bool = False


class Engine:
    def __init__(self, plan: Plan, *, model: str, base_url: str, generation: Generation, client, store: ResultStore,
                 concurrency: int, retry_failed: bool = True, budget: Budget | None = None, progress: Progress | None = None):
        self.plan = plan
        self.model = model
        self.base_url = base_url
        self.generation = generation
        self.client = client
        self.store = store
        self.concurrency = concurrency
        self.budget = budget or Budget()
        self.progress = progress or Progress()
        # Failures read back from a previous session are tried again once in this one.
        self._stale = {k for k, o in store.outcomes.items() if not o.ok} if retry_failed else set()
        self._inflight: dict[str, asyncio.Future] = {}
        self.execution = Execution()

    def request(self, messages: list[dict], temperature: float | None = None) -> ChatRequest:
        generation = self.generation if temperature is None else replace(self.generation, temperature=temperature)
        return ChatRequest(self.model, self.base_url, tuple(messages), generation)

    async def fetch(self, request: ChatRequest) -> Outcome:
        key = request.key
        known = self.store.get(key)
        if known is not None and (known.ok or key not in self._stale):
            self.progress.reused += 1
            return known
        pending = self._inflight.get(key)
        if pending is not None:
            self.progress.reused += 1
            return await pending
        future = asyncio.get_running_loop().create_future()
        self._inflight[key] = future
        try:
            outcome = await self.client.send(request)
        except BaseException as exc:
            future.set_exception(exc)
            future.exception()  # retrieved: a sharer may not exist
            raise
        finally:
            del self._inflight[key]
        self._stale.discard(key)
        self.store.add(key, outcome)
        self.progress.sent += 1
        self.budget.charge(outcome)
        future.set_result(outcome)
        return outcome

    async def run_job(self, index: int, job: Job) -> None:
        request = self.request(job.messages, job.temperature)
        outcome = await self.fetch(request)
        turns = [(request, outcome)]
        if outcome.ok:
            follow = self.plan.recipe.followup(job, outcome)
            if follow is not None:
                second = self.request(follow, job.temperature)
                turns.append((second, await self.fetch(second)))
        self.execution.turns[index] = turns
        progress = self.progress
        progress.done += 1
        if not turns[-1][1].ok:
            progress.failed += 1
        if progress.on_update is not None:
            progress.on_update(progress)

    async def run(self) -> Execution:
        jobs = iter(enumerate(self.plan.jobs))
        self.store.start()
        workers = [asyncio.create_task(self._worker(jobs)) for _ in range(min(self.concurrency, max(1, len(self.plan.jobs))))]
        try:
            await asyncio.gather(*workers)
        except BaseException:
            for worker in workers:
                worker.cancel()
            await asyncio.gather(*workers, return_exceptions=True)
            raise
        finally:
            await self.store.close()  # whatever finished is on disk before we leave
        return self.execution

    async def _worker(self, jobs) -> None:
        for index, job in jobs:
            if self.budget.exhausted:
                self.execution.stopped_by_budget = True
                return
            await self.run_job(index, job)
