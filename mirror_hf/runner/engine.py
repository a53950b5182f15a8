"""Executing a plan: a fixed pool of workers pulls jobs, sends each job's turns (reusing anything the
results file already holds), and records every finished request before counting it done.

A job is one trial: usually one request, two for a tool-delegation trial whose model called the
calculator, a whole conversation for a multi-turn recipe (Exp4: each turn sent once its previous
reply is in, so a resumed conversation re-sends only the turns not yet recorded). Two jobs that
send the very same request (Exp9 C1 and C4 share a prompt) share one response: the second waits
for the first instead of paying twice.
"""

from __future__ import annotations

import asyncio
import collections
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from typing import Protocol

from mirror_hf.runner.plan import Job, Messages, MultiTurnRecipe, NextRequest, Plan, Recipe, Turns
from mirror_hf.runner.request import ChatRequest, Generation, Outcome

OFF_LOOP_CHARS = 16_384  # responses longer than this are parsed off the event loop

#: the engine's rule for a job's next turn: messages (a reply turn), a further sample, or None (done)
NextTurn = Callable[[Job, Turns], Messages | NextRequest | None]
#: `constrain(job, turn)`: body fields one request adds (`run --format-grammar`: its grammar), or None
Constrain = Callable[[Job, int], dict[str, object] | None]


class Store(Protocol):
    """Where the engine finds and keeps finished requests (`store.ResultStore`: the run's results
    file; `_Recorded`: one read back for a replay)."""

    outcomes: dict[str, Outcome]  # every outcome in memory (loaded on --resume, or added this session)
    failed: OSError | None  # the disk refused a write: nothing more may be sent

    def get(self, key: str) -> Outcome | None: ...

    def add(self, key: str, outcome: Outcome) -> None: ...

    def release(self, keys: Iterable[str]) -> None: ...  # an item is done: its outcomes may leave memory

    def start(self) -> None: ...  # inside the event loop, before the first request

    async def close(self) -> None: ...  # whatever finished is on disk

    def disk_error(self) -> Exception: ...  # the one line for `failed`


class Client(Protocol):
    """What sends one request (`client.ChatClient`: retries, rate limits; a replay's refuses)."""

    async def send(self, request: ChatRequest) -> Outcome: ...


def turn_rule(recipe: Recipe) -> NextTurn:
    """A recipe's next-turn rule, chosen once: a multi-turn recipe's own `next_turn` (a
    conversation, further samples), else the single-turn rule (its one optional `followup`
    after the first turn)."""
    if isinstance(recipe, MultiTurnRecipe):
        return recipe.next_turn

    def single(job: Job, turns: Turns) -> Messages | None:
        return recipe.followup(job, turns[0][1]) if len(turns) == 1 else None

    return single


class BudgetExhausted(Exception):
    """Internal: the next request's estimate does not fit under `max_cost`."""


@dataclass
class Budget:
    """`max_cost` (USD; prices per million tokens) as a reservation: each request reserves its
    estimated cost (prompt estimate + max_tokens) before it is sent and is charged its real usage
    after, so requests in flight can never together overshoot the cap."""

    price_in: float = 0.0
    price_out: float = 0.0
    max_cost: float | None = None
    spent: float = 0.0
    reserved: float = 0.0
    refused: bool = False  # a request was held back: the cap is reached

    def cost(self, prompt_tokens: int, completion_tokens: int) -> float:
        return (prompt_tokens * self.price_in + completion_tokens * self.price_out) / 1e6

    def reserve(self, request: ChatRequest) -> float:
        if self.max_cost is None:
            return 0.0
        estimate = self.cost(request.estimated_prompt_tokens(), request.generation.max_tokens)
        if self.refused or self.spent + self.reserved + estimate > self.max_cost:
            self.refused = True
            raise BudgetExhausted
        self.reserved += estimate
        return estimate

    def charge(self, outcome: Outcome, reserved: float = 0.0) -> None:
        self.reserved -= reserved
        self.spent += self.cost(outcome.prompt_tokens or 0, outcome.completion_tokens or 0)

    @property
    def exhausted(self) -> bool:
        return self.refused


@dataclass
class Progress:
    """Counters the progress display reads."""

    done: int = 0
    failed: int = 0
    sent: int = 0
    reused: int = 0
    on_update: Callable[[Progress], None] | None = None


@dataclass(repr=False)
class Execution:
    turns: dict[int, list[tuple[ChatRequest, Outcome]]] = field(default_factory=dict)  # job index -> turns (if kept)
    stopped_by_budget: bool = False
    recorded: int = 0  # jobs finished and recorded (kept in `turns` or not)
    # requests that asked for token log-probabilities / for n choices, and what came back (the
    # channels that need them say once when the endpoint does not give them)
    asked_logprobs: int = 0
    got_logprobs: int = 0
    asked_n: int = 0
    got_n: int = 0

    def __repr__(self) -> str:
        # Short on purpose: asyncio.run's exit on CPython 3.11 formats the main task's result
        # (signal.getsignal's enum lookup reprs its SIGINT handler, the task inside it) twice; the
        # dataclass repr of every turn took ~1 s per 5,000 requests and a string as big as the run.
        return f"Execution({self.recorded} jobs, stopped_by_budget={self.stopped_by_budget})"


class Engine:
    def __init__(self, plan: Plan, *, model: str, base_url: str, generation: Generation, client: Client, store: Store,
                 concurrency: int, retry_failed: bool = True, budget: Budget | None = None, progress: Progress | None = None,
                 on_done: Callable[[int, Turns], None] | None = None, keep_turns: bool = True,
                 order: Sequence[int] | None = None, constrain: Constrain | None = None):
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
        self._inflight: dict[str, asyncio.Future[Outcome]] = {}
        self._left = collections.Counter(job.item_id for job in plan.jobs)  # jobs of each item not yet recorded
        self._item_keys: dict[str, list[str]] = {}  # request keys of an item's recorded jobs, until the item is done
        self.execution = Execution()
        self.on_done = on_done  # called with (job index, turns) as each job is recorded (the records worker)
        # False: `on_done` alone gets the turns and nothing grows with the run here; whoever needs
        # them again replays the results file (`replay`).
        self.keep_turns = keep_turns
        self.order = order  # job indices in the order they are sent (None: plan order); records keep plan order
        self.constrain = constrain
        self.next_turn = turn_rule(plan.recipe)

    def request(self, messages: Messages, temperature: float | None = None, body: tuple[tuple[str, object], ...] = (),
                seed_offset: int = 0, job: Job | None = None, turn: int = 0) -> ChatRequest:
        generation = self.generation if temperature is None else replace(self.generation, temperature=temperature)
        if body or seed_offset:
            seed = generation.seed if not seed_offset else (generation.seed or 0) + seed_offset
            generation = replace(generation, protocol=tuple(body), seed=seed)
        if self.constrain is not None and job is not None:
            generation = constrained(generation, self.constrain(job, turn))
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
        if self.store.failed is not None:  # the disk is full: nothing more is sent (it could not be kept)
            raise self.store.disk_error()
        reserved = self.budget.reserve(request)  # raises BudgetExhausted before anything is sent
        future: asyncio.Future[Outcome] = asyncio.get_running_loop().create_future()
        self._inflight[key] = future
        try:
            outcome = await self.client.send(request)
        except BaseException as exc:
            self.budget.reserved -= reserved
            future.set_exception(exc)
            future.exception()  # retrieved: a sharer may not exist
            raise
        finally:
            del self._inflight[key]
        self._stale.discard(key)
        self.store.add(key, outcome)
        self.progress.sent += 1
        self.budget.charge(outcome, reserved)
        future.set_result(outcome)
        return outcome

    async def _followup(self, job: Job, turns: Turns) -> Messages | NextRequest | None:
        """The recipe's next turn (`turn_rule`); a long response is parsed in a thread so the loop keeps serving."""
        if len(turns[-1][1].text or "") > OFF_LOOP_CHARS:
            return await asyncio.to_thread(self.next_turn, job, turns)
        return self.next_turn(job, turns)

    async def run_job(self, index: int, job: Job) -> None:
        """All turns of one job; a job stopped by the budget is not recorded at all (a conversation
        is recorded whole or not), its finished requests stay in the store for a resume."""
        request = self.request(job.messages, job.temperature, job.body, job=job)
        try:
            outcome = await self.fetch(request)
            turns = [(request, outcome)]
            while turns[-1][1].ok:
                follow = await self._followup(job, turns)
                if follow is None:
                    break
                if isinstance(follow, NextRequest):  # a further sample of the first turn, not a reply turn
                    following = self.request(follow.messages, job.temperature, follow.body, follow.seed_offset, job=job)
                else:
                    following = self.request(follow, job.temperature, job=job, turn=len(turns))
                turns.append((following, await self.fetch(following)))
        except BudgetExhausted:
            self.execution.stopped_by_budget = True
            return
        self.execution.recorded += 1
        self._count_protocol(turns)
        job = self.plan.jobs[index]
        keys = self._item_keys.setdefault(job.item_id, [])
        keys.extend(request.key for request, _ in turns)
        self._left[job.item_id] -= 1
        if not self._left[job.item_id]:
            del self._left[job.item_id]
            self.store.release(self._item_keys.pop(job.item_id))
        if self.keep_turns:
            self.execution.turns[index] = turns
        else:
            job.state.clear()  # the recipe's parse cache: whoever builds the record again recomputes it
        if self.on_done is not None:
            self.on_done(index, turns)
        progress = self.progress
        progress.done += 1
        if not turns[-1][1].ok:
            progress.failed += 1
        if progress.on_update is not None:
            progress.on_update(progress)

    def _count_protocol(self, turns: Turns) -> None:
        execution = self.execution
        for request, outcome in turns:
            protocol = dict(request.generation.protocol)
            if not outcome.ok:
                continue
            if protocol.get("logprobs"):
                execution.asked_logprobs += 1
                execution.got_logprobs += outcome.logprobs is not None
            n = protocol.get("n")
            if isinstance(n, int) and n > 1:  # the channel's own body field (`n`: an int, never text)
                execution.asked_n += 1
                execution.got_n += len(outcome.samples or ()) >= n

    async def run(self) -> Execution:
        order = range(len(self.plan.jobs)) if self.order is None else self.order
        jobs = iter([(i, self.plan.jobs[i]) for i in order])
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

    async def _worker(self, jobs: Iterator[tuple[int, Job]]) -> None:
        for index, job in jobs:
            if self.budget.exhausted:
                self.execution.stopped_by_budget = True
                return
            await self.run_job(index, job)


def constrained(generation: Generation, fields: dict[str, object] | None) -> Generation:
    """The generation settings with one request's own body fields added (they join its cache key)."""
    if not fields:
        return generation
    return replace(generation, extra=tuple(sorted({**dict(generation.extra), **fields}.items())))


def shared_prefix_order(plan: Plan) -> list[int]:
    """Job indices sorted by their first turn's text, so that consecutive requests share the longest
    prefix (instructions first, then the item). The order of a run with one request in flight (the
    embedded model's): a server keeps the previous prompt's state and evaluates only what differs
    from it (llama.cpp's prefix reuse, vLLM's prefix cache);
    on the quickstart's slices this order shares 37% of Exp1's prompt characters with the previous
    request instead of 28%, and 26% of Exp9's instead of 6%."""
    def text(index: int) -> str:
        return "\x00".join(f"{m['role']}\x01{m['content']}" for m in plan.jobs[index].messages)

    return sorted(range(len(plan.jobs)), key=text)


class _Recorded(Store):
    """A results file read back, as the engine's store: every request of the run is in it."""

    def __init__(self, outcomes: dict[str, Outcome]):
        self.outcomes = outcomes
        self.failed = None

    def get(self, key: str) -> Outcome | None:
        return self.outcomes.get(key)

    def add(self, key: str, outcome: Outcome) -> None:
        raise RuntimeError(f"replay: request {key} was sent, though a replay sends nothing")

    def release(self, keys: Iterable[str]) -> None:
        pass

    def disk_error(self) -> Exception:
        raise AssertionError("a replay writes nothing")

    def start(self) -> None:
        pass

    async def close(self) -> None:
        pass


class _NoClient(Client):
    async def send(self, request: ChatRequest) -> Outcome:
        raise RuntimeError(f"replay: request {request.key} is not in the results file")


def replay(plan: Plan, outcomes: dict[str, Outcome], *, model: str, base_url: str, generation: Generation,
           constrain: Constrain | None = None) -> Execution:
    """Every job's turns rebuilt from the run's recorded outcomes (`store.load_outcomes`), by the
    engine itself (so turns follow the same follow-up rules), sending nothing: the records worker's
    fallback when the parent did not keep the turns. Recorded failures stay failures."""
    engine = Engine(plan, model=model, base_url=base_url, generation=generation, client=_NoClient(),
                    store=_Recorded(outcomes), concurrency=1, retry_failed=False, constrain=constrain)
    return asyncio.run(engine.run())
