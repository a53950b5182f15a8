"""The crash-safe record of a run: one JSON line per finished request, appended and fsynced in
batches, read back on `--resume`.

A line is only ever appended whole and a batch is fsynced before the run counts it as done, so after
`kill -9` the file holds every finished request plus, at worst, one torn last line. Loading drops that
line and truncates it away before appending again (otherwise it would end up in the middle of the
file). A bad line anywhere else is corruption, reported with its line number.
"""

from __future__ import annotations

import asyncio
import collections
import json
import os
from array import array
from bisect import bisect_left
from collections.abc import Iterable
from pathlib import Path

from mirror_hf.errors import MirrorValueError
from mirror_hf.runner.request import Outcome


class StoreError(MirrorValueError):
    """The results file is unreadable (names the file and line)."""


def load_outcomes(path: Path) -> tuple[dict[str, Outcome], int]:
    """key -> outcome (a success beats a failure; the later of two of the same kind wins), and the
    byte length of the file's whole lines (where appending must resume)."""
    outcomes: dict[str, Outcome] = {}
    if path.is_dir():
        raise StoreError(f"{path} is a folder where the run's results file belongs; move it away, or pass --restart")
    if not path.exists():
        return outcomes, 0
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise StoreError(f"{path}: cannot be read ({exc.strerror or exc})") from None
    good_end = 0
    lines = data.split(b"\n")
    for number, line in enumerate(lines, start=1):
        is_last = number == len(lines)
        if is_last:  # after the final newline: empty, or a torn line that never got its newline
            break
        if not line.strip():
            good_end += len(line) + 1
            continue
        try:
            record = json.loads(line)
            key = record["k"]
        except (json.JSONDecodeError, KeyError, TypeError, UnicodeDecodeError):
            raise StoreError(f"{path} line {number}: not a result record ({line[:80]!r}); the file is damaged") from None
        outcome = Outcome.from_json(record)
        previous = outcomes.get(key)
        if previous is None or outcome.ok or not previous.ok:
            outcomes[key] = outcome
        good_end += len(line) + 1
    return outcomes, good_end


class LineIndex:
    """Where each line this session wrote is, by its key's hash: offset and length in flat arrays,
    20 bytes a line (a dict of key str -> (offset, length) took ~210 bytes a line, a dict of
    int -> packed int ~125, by tracemalloc). The newest RECENT lines sit in a dict; a full dict
    becomes a sorted level, and a level merges into the one before it while that one is at most
    twice its size, so a lookup bisects about log2(lines / RECENT) levels and a line is copied about
    as many times over the run. A hash written again: the newest line wins."""

    RECENT = 4096

    def __init__(self) -> None:
        self._recent: dict[int, tuple[int, int]] = {}
        self._levels: list[tuple[array, array, array]] = []  # (hashes sorted, offsets, lengths), oldest first

    def put(self, digest: int, offset: int, length: int) -> None:
        self._recent[digest] = (offset, length)
        if len(self._recent) >= self.RECENT:
            items = sorted(self._recent.items())
            self._recent = {}
            self._levels.append((array("q", [h for h, _ in items]), array("Q", [o for _, (o, _) in items]),
                                 array("I", [n for _, (_, n) in items])))
            while len(self._levels) > 1 and len(self._levels[-2][0]) <= 2 * len(self._levels[-1][0]):
                newer = self._levels.pop()
                self._levels[-1] = _merge(self._levels[-1], newer)

    def get(self, digest: int) -> tuple[int, int] | None:
        """(offset, length) of the newest line written under this hash, or None."""
        found = self._recent.get(digest)
        if found is not None:
            return found
        for hashes, offsets, lengths in reversed(self._levels):
            i = bisect_left(hashes, digest)
            if i < len(hashes) and hashes[i] == digest:
                return offsets[i], lengths[i]
        return None

    def __contains__(self, digest: int) -> bool:
        return self.get(digest) is not None


def _merge(older: tuple[array, array, array], newer: tuple[array, array, array]) -> tuple[array, array, array]:
    """Two sorted levels as one; on a hash in both, the newer line."""
    out = (array("q"), array("Q"), array("I"))
    i = j = 0
    old, new = older[0], newer[0]
    while i < len(old) and j < len(new):
        if old[i] < new[j]:
            source, k = older, i
            i += 1
        else:
            i += old[i] == new[j]  # the same hash: the older line is dropped
            source, k = newer, j
            j += 1
        for column, values in zip(out, source, strict=True):
            column.append(values[k])
    for source, k in ((older, i), (newer, j)):
        for column, values in zip(out, source, strict=True):
            column.extend(values[k:])
    return out


class ResultStore:
    """Append-only JSONL writer. `add` is synchronous and cheap; a background task writes and fsyncs
    whatever has accumulated, so one fsync covers a batch of results.

    Memory stays flat over a long run: once the engine `release`s the keys of a finished item, the
    outcomes this session wrote leave memory and only where their line is in the file stays
    (`LineIndex`: 20 bytes a request, where the outcome itself took ~460); `get` reads such an
    outcome back from the file if another job asks for it after all, and checks the line's key, so
    two keys of one hash cost at worst a request sent again, never a wrong answer. Outcomes loaded
    on --resume stay in memory."""

    def __init__(self, path: Path, *, resume: bool, batch_window: float = 0.02):
        self.path = path
        self.batch_window = batch_window  # seconds a finished request may wait for its fsync
        self.failed: OSError | None = None  # the disk refused a write: no new request may be sent
        if path.is_dir():
            raise StoreError(f"{path} is a folder where the run's results file belongs; move it away, or pass --restart")
        path.parent.mkdir(parents=True, exist_ok=True)
        if resume:
            self.outcomes, good_end = load_outcomes(path)
        else:
            self.outcomes, good_end = {}, 0
        self._fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
        os.ftruncate(self._fd, good_end)
        os.lseek(self._fd, good_end, os.SEEK_SET)
        self._end = good_end
        # Deques, drained with popleft from the flushing thread: append and popleft are atomic, so a
        # line added while a batch is being written is never lost (a swapped list could be).
        self._pending: collections.deque[tuple[str, str]] = collections.deque()
        self._released: collections.deque[str] = collections.deque()
        self._written = LineIndex()  # hash(key) -> (offset, length) of its line written this session
        self._wakeup: asyncio.Event | None = None
        self._task: asyncio.Task | None = None
        self._closing = False
        self.written = 0

    def get(self, key: str) -> Outcome | None:
        outcome = self.outcomes.get(key)
        if outcome is None and (where := self._written.get(hash(key))) is not None:  # released: read its line back
            record = json.loads(os.pread(self._fd, where[1], where[0]))
            if record["k"] == key:  # else another key of the same hash wrote last: not known after all
                outcome = Outcome.from_json(record)
        return outcome

    def add(self, key: str, outcome: Outcome) -> None:
        self.outcomes[key] = outcome
        self._pending.append((key, outcome.to_json(key)))
        if self._wakeup is not None:
            self._wakeup.set()

    def release(self, keys: Iterable[str]) -> None:
        """These keys' outcomes need not stay in memory (their item is recorded): the writer drops
        each once its line is on disk."""
        self._released.extend(keys)

    def start(self) -> None:
        self._wakeup = asyncio.Event()
        self._task = asyncio.get_running_loop().create_task(self._writer())

    async def _writer(self) -> None:
        loop = asyncio.get_running_loop()
        wakeup = self._wakeup
        assert wakeup is not None  # set by `start`, which starts this task
        while not self._closing:
            await wakeup.wait()
            if self.batch_window and not self._closing:
                # Let a batch gather: one write + fsync per window instead of per request keeps the
                # writer thread from contending for the GIL with the request loop.
                await asyncio.sleep(self.batch_window)
            wakeup.clear()
            if self._pending:
                await loop.run_in_executor(None, self._flush_pending)

    def _flush_pending(self) -> None:
        # Counted first: a key released before this point was added before it, so its line is in
        # this batch or an earlier one.
        released = len(self._released)
        pending = self._pending
        batch = [pending.popleft() for _ in range(len(pending))]
        if batch and self.failed is None:
            lines = [(line + "\n").encode() for _, line in batch]
            data = b"".join(lines)
            view = memoryview(data)
            try:
                while view:
                    written = os.write(self._fd, view)
                    view = view[written:]
                os.fsync(self._fd)
            except OSError as exc:  # a full disk: cut the torn tail, keep the batch for one last try, stop sending
                self.failed = exc
                try:
                    os.ftruncate(self._fd, self._end)
                    os.lseek(self._fd, self._end, os.SEEK_SET)
                except OSError:
                    pass
                pending.extendleft(reversed(batch))
                return
            self.written += len(batch)
            offset = self._end
            for (key, _), line in zip(batch, lines, strict=True):
                self._written.put(hash(key), offset, len(line))
                offset += len(line)
            self._end = offset
        for _ in range(released):
            key = self._released.popleft()
            if hash(key) in self._written:  # written this session (a loaded outcome stays)
                self.outcomes.pop(key, None)

    async def close(self) -> None:
        if self._task is not None:
            self._closing = True
            if self._wakeup is not None:
                self._wakeup.set()
            await self._task  # lets a flush in progress finish: one writer at a time
            self._task = None
        failed, self.failed = self.failed, None
        self._flush_pending()  # one last try (space may have been freed meanwhile)
        os.close(self._fd)
        if self.failed is not None or failed is not None and self._pending:
            raise self.disk_error(self.failed or failed)

    def disk_error(self, exc: OSError | None = None) -> Exception:
        """The one line for a results file the disk stopped taking (the run stopped sending at once)."""
        from mirror_hf.writes import WriteError

        exc = exc or self.failed
        return WriteError(f"cannot write {self.path}: {getattr(exc, 'strerror', None) or exc}; the run stopped sending "
                          f"at once, {self.written} finished request(s) are kept there: free space and rerun with --resume")
