"""Parsing, grading and tabling a run's records on the other core, while its requests are still in flight.

The request phase is CPU-bound in the HTTP client on one core, so turning finished jobs into trial
records afterwards (the recipe's parsers and graders, then arrow) was pure tail latency. A child
forked once the plan is built inherits the plan and every imported module, receives each finished
job's turns over a pipe as the engine completes it, and builds that job's record at once with
`trials.TrialChunks` (the same code the in-process path runs, so the records are identical).
Each chunk of CHUNK records in plan order goes to the split's temp file as a row group at once, so
the child's memory stays flat over a long run. When the requests are done the parent asks for the
counts, then hands over the manifest, and the child puts the split in place (the same bytes
`write_trials` writes in-process); told to quit instead (a budget stop, too many failures), it
removes the temp file.

The child runs at a lower priority (nice +10), so it takes a spare core and never competes with the
request loop for a busy one. The worker only accelerates: every finished request is in the results
file, so if the child cannot be started, dies, or reports an error, the parent replays the turns
from it, `trial_table` runs in the parent and the run goes on. Only
where `os.fork` exists, and only when asked for (the CLI does; a notebook or a threaded host
process calling `run()` keeps the in-process path).
"""

from __future__ import annotations

import os
import queue
import sys
import threading
import traceback
from collections.abc import Sequence
from multiprocessing.connection import Connection, Pipe
from pathlib import Path
from typing import Any

from mirror_hf.runner.plan import Plan, Turns
from mirror_hf.runner.request import ChatRequest, Generation, Outcome
from mirror_hf.runner.trials import RunIdentity, TrialChunks, TrialCounts, finish_trials, trials_writer


class WorkerFailed(Exception):
    """The child is gone or reported an error: the caller builds the records in-process."""


BATCH = 100  # finished jobs per message to the child


#: one turn as it goes down the pipe: the request, or (model, base_url, generation) for a job's first
Packed = list[tuple[ChatRequest | tuple[str, str, Generation], Outcome]]


def _pack(plan: Plan, index: int, turns: Turns) -> Packed:
    """One job's turns as they go down the pipe: a request whose messages are the job's own (its
    first turn) travels as (model, base_url, generation) alone, and the child, which has the plan,
    rebuilds it. Pickling the plan's prompts instead cost CPU, and made every non-ASCII prompt keep
    a UTF-8 copy of itself in the parent for the rest of the run (~170 bytes a request)."""
    own = plan.jobs[index].messages
    return [((r.model, r.base_url, r.generation) if _same(r.messages, own) else r, o) for r, o in turns]


def _same(messages: Sequence[object], own: Sequence[object]) -> bool:
    return len(messages) == len(own) and all(a is b for a, b in zip(messages, own, strict=True))


def _unpack(plan: Plan, index: int, packed: Packed) -> Turns:
    return [(ChatRequest(r[0], r[1], tuple(plan.jobs[index].messages), r[2]) if isinstance(r, tuple) else r, o)
            for r, o in packed]


def _child(conn: Connection, identity: RunIdentity, plan: Plan, root: Path, split: str, replace: bool = False) -> None:
    features = plan.features
    # The split's temp file is open from the start: each CHUNK of records in plan order is a row
    # group on disk as soon as it is complete, so the child holds a chunk or two, never the split.
    with trials_writer(root, identity.experiment, split, features, replace=replace) as writer:
        records = TrialChunks(identity, plan, features, writer.write)
        while True:
            message = conn.recv()
            if message[0] == "jobs":
                for index, packed in message[1]:
                    records.add(index, _unpack(plan, index, packed))
            elif message[0] == "finish":
                break
            else:  # "quit": the run stopped before a split (budget, failures); the writer discards it
                return
        records.close()
        conn.send(("counts", records.counts, records.first_error, records.done, records.waiting))
        message = conn.recv()
        if message[0] != "write":
            return
        conn.send(("written", finish_trials(writer, message[1])))


class RecordsWorker:
    """The forked child and its end of the pipe (see the module docstring)."""

    def __init__(self, identity: RunIdentity, plan: Plan, root: Path, split: str, replace: bool = False) -> None:
        self.pid: int | None = None
        self.failed: str | None = None
        parent_end, child_end = Pipe()
        sys.stdout.flush()
        sys.stderr.flush()
        pid = os.fork()
        if pid == 0:  # the child: never returns into the caller's code
            status = 0
            try:
                parent_end.close()
                # Keep only the pipe (and stdio): an inherited descriptor must not outlive the parent,
                # above all the split's run lock (an flock, held while any copy of it is open).
                keep = child_end.fileno()
                os.closerange(3, keep)
                os.closerange(keep + 1, os.sysconf("SC_OPEN_MAX"))
                # Its imports (pyarrow, datasets for the trial Features) first, at the run's own
                # priority: at nice +10 on a loaded machine they took minutes that the run then waited on.
                import pyarrow  # noqa: F401

                plan.features  # noqa: B018
                # Then spare CPU only: on a busy machine the requests (and the server, if local) come
                # first; whatever the child has not done by the last response it finishes then.
                os.nice(10)
                _child(child_end, identity, plan, root, split, replace)
            except BaseException:
                status = 1
                try:
                    child_end.send(("error", traceback.format_exc(limit=3)))
                except BaseException:
                    pass
            finally:
                os._exit(status)
        child_end.close()
        self.pid = pid
        self._conn = parent_end
        # The event loop only queues: a pipe write blocks when the child lags behind, and a blocked
        # loop would stall every request in flight (their timeouts would fire on requests not yet sent).
        self._queue: queue.SimpleQueue = queue.SimpleQueue()
        self._plan = plan
        self._batch: list = []  # (index, packed turns) not yet handed to the pump
        self._pump = threading.Thread(target=self._send_queued, name="records-worker-pipe", daemon=True)
        self._pump.start()

    def add(self, index: int, turns: Turns) -> None:
        """Called on the event loop as each job is recorded: never blocks. Jobs go to the pump in
        batches: one wake-up of the pump thread (and one pickle, one pipe write) per BATCH jobs
        instead of per job keeps it from taking the GIL from the request loop thousands of times."""
        if self.failed is None:
            self._batch.append((index, _pack(self._plan, index, turns)))
            if len(self._batch) >= BATCH:
                self._queue.put(("jobs", self._batch))
                self._batch = []

    def _send_queued(self) -> None:
        while (message := self._queue.get()) is not None:
            try:
                self._conn.send(message)
            except (OSError, ValueError) as exc:  # the child is gone: the parent builds the records
                self.failed = f"records worker gone ({type(exc).__name__}: {exc})"
                return

    def _drain(self) -> None:
        """Wait until every queued job is in the pipe (or the pump has stopped on a failure)."""
        if self._batch:
            self._queue.put(("jobs", self._batch))
            self._batch = []
        if self._pump.is_alive():
            self._queue.put(None)
            self._pump.join()

    def _reply(self, expected: str) -> tuple[Any, ...]:
        try:
            message = self._conn.recv()
        except (EOFError, OSError) as exc:
            raise WorkerFailed(f"records worker gone ({type(exc).__name__})") from None
        if message[0] != expected:
            raise WorkerFailed(f"records worker: {message[1] if len(message) > 1 else message[0]}")
        return message[1:]

    def counts(self, jobs: int) -> tuple[TrialCounts, str | None]:
        """(TrialCounts, first api_error) of every job, in plan order."""
        self._drain()
        if self.failed is not None:
            raise WorkerFailed(self.failed)
        try:
            self._conn.send(("finish",))
        except (OSError, ValueError) as exc:
            raise WorkerFailed(f"records worker gone ({type(exc).__name__})") from None
        counts, first_error, tabled, stray = self._reply("counts")
        if tabled != jobs or stray:  # a job the parent recorded never reached the child
            raise WorkerFailed(f"records worker holds {tabled} of {jobs} records in order ({stray} more)")
        return counts, first_error

    def write(self, manifest: dict[str, Any]) -> Path:
        """The child writes the split (`trials.write_trials`); its path."""
        try:
            self._conn.send(("write", manifest))
        except (OSError, ValueError) as exc:
            raise WorkerFailed(f"records worker gone ({type(exc).__name__})") from None
        path: Path = self._reply("written")[0]
        return path

    def close(self) -> None:
        """Tell the child to stop (if it still waits) and reap it."""
        if self.pid is None:
            return
        self._drain()
        try:
            self._conn.send(("quit",))
        except (OSError, ValueError):
            pass
        self._conn.close()
        try:
            os.waitpid(self.pid, 0)
        except ChildProcessError:
            pass
        self.pid = None
