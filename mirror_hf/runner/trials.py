"""From executed jobs to trial records, and from records to the model's split.

Every record carries the request facts (raw text, finish reason, usage, latency, attempts, the
provider's `system_fingerprint`, temperature and seed) beside the protocol's parsed and graded
fields. A request that finally failed is still a record: `api_error` says why, the parsed fields
stay null and `correct` is null (ungraded), never a guessed False.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from mirror_hf.runner.plan import Job, Plan, Recipe, Turns

if TYPE_CHECKING:
    import pyarrow as pa
    from datasets import Features

    from mirror_hf.folder import SplitWriter

MANIFEST_KEY = b"mirror_hf.run_manifest"
CHUNK = 1000  # records per arrow chunk, and per row group of the split


@dataclass(frozen=True)
class RunIdentity:
    run_id: str
    model: str
    experiment: str
    temperature: float
    seed: int | None


def trial_row(identity: RunIdentity, job: Job, turns: Turns, recipe: Recipe) -> dict[str, Any]:
    """One trial's record: the request facts, the job's fields, then the recipe's parsed fields (the
    parser's own raw_response/reasoning/truncated win: it splits `<think>` blocks off). Every key
    goes to the table as it is: one the trial schema lacks is refused there (`records.conform_row`,
    the one rule for undeclared fields), never dropped here."""
    first_request = turns[0][0]
    last_request, last = turns[-1]
    prompt = last_request.prompt_json()
    failed = next((o for _, o in turns if not o.ok), None)
    row: dict[str, Any] = {
        "run_id": identity.run_id,
        "model": identity.model,
        "experiment": identity.experiment,
        "item_id": job.item_id,
        "request_key": first_request.key,
        "prompt": prompt,
        "prompt_sha": hashlib.sha256(prompt.encode()).hexdigest(),
        "raw_response": last.text,
        "reasoning": last.reasoning,
        "finish_reason": last.finish_reason,
        "truncated": last.truncated if last.ok else None,
        "api_error": failed.error if failed else None,
        "attempts": sum(o.attempts for _, o in turns),
        "latency_ms": _total(o.latency_ms for _, o in turns),
        "prompt_tokens": _total(o.prompt_tokens for _, o in turns),
        "completion_tokens": _total(o.completion_tokens for _, o in turns),
        "temperature": last_request.generation.temperature,
        "seed": identity.seed,
        "system_fingerprint": last.system_fingerprint,
        "correct": None,
        **job.fields,
    }
    row.update(recipe.parsed_fields(job, turns, failed.error if failed else None))
    if failed is not None:
        row["api_error"] = failed.error
    return row


def _total(values: Iterable[float | int | None]) -> float | int | None:
    present = [v for v in values if v is not None]
    return sum(present) if present else None


@dataclass
class TrialCounts:
    trials: int = 0
    failed: int = 0
    truncated: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0


class TrialChunks:
    """A run's records tabled in plan order CHUNK at a time, each arrow chunk handed to `out` as soon
    as it is complete (the records worker's out writes it to the split at once), with the run's
    counts. Records may arrive in any order: those ahead of a gap wait as dicts until it fills (jobs
    finish in about plan order, so few do)."""

    def __init__(self, identity: RunIdentity, plan: Plan, features: Features, out: Callable[[pa.Table], object]):
        self.identity, self.plan, self.features, self.out = identity, plan, features, out
        self.counts = TrialCounts()
        self.first_error: str | None = None
        self.done = 0  # records before this index went to `out`
        self._ready = 0  # every index from `done` up to this one has its record
        self._rows: dict[int, dict[str, Any]] = {}

    @property
    def waiting(self) -> int:
        return len(self._rows)

    def add(self, index: int, turns: Turns) -> None:
        self._rows[index] = trial_row(self.identity, self.plan.jobs[index], turns, self.plan.recipe)
        while self._ready in self._rows:
            self._ready += 1
        while self._ready - self.done >= CHUNK:
            self._table(self.done + CHUNK)

    def close(self) -> None:
        """The last, shorter chunk."""
        if self._ready > self.done:
            self._table(self._ready)

    def _table(self, end: int) -> None:
        from mirror_hf.folder import rows_to_table

        part = [self._rows.pop(i) for i in range(self.done, end)]
        counts = self.counts
        for row in part:
            counts.trials += 1
            counts.failed += row["api_error"] is not None
            counts.truncated += bool(row["truncated"])
            counts.prompt_tokens += row["prompt_tokens"] or 0
            counts.completion_tokens += row["completion_tokens"] or 0
            if self.first_error is None and row["api_error"] is not None:
                self.first_error = row["api_error"]
        where = f"trials_{self.identity.experiment} records {self.done}-{end - 1}"
        self.out(rows_to_table(part, self.features, where=where))
        self.done = end


def trial_table(identity: RunIdentity, plan: Plan, turns_by_job: dict[int, Turns],
                features: Features) -> tuple[pa.Table, TrialCounts]:
    """The split as an arrow table of CHUNK-record chunks (a run's records never all sit in memory as
    dicts), with its counts. Consumes `turns_by_job`."""
    import pyarrow as pa

    from mirror_hf.folder import rows_to_table

    tables: list[pa.Table] = []
    records = TrialChunks(identity, plan, features, tables.append)
    for i in range(len(plan.jobs)):
        records.add(i, turns_by_job.pop(i))
    records.close()
    table = pa.concat_tables(tables) if tables else rows_to_table([], features, where=f"trials_{identity.experiment}")
    return table, records.counts


def trials_writer(root: Path, experiment: str, split: str, features: Features, *, replace: bool = False) -> SplitWriter:
    """The model's split of `trials_<experiment>`, written a chunk at a time (`folder.SplitWriter`;
    `replace`: an existing split of other content may go, `mirror_hf.writes`)."""
    from mirror_hf.folder import SplitWriter

    return SplitWriter(root, f"trials_{experiment}", split, features.arrow_schema, replace=replace)


def finish_trials(writer: SplitWriter, manifest: dict[str, Any]) -> Path:
    """Put the split in place with its manifest in the parquet schema metadata, so it travels with the
    file to the Hub. The card and Croissant are regenerated by the caller (`run(on_written=...)`)."""
    return writer.finish({MANIFEST_KEY: json.dumps(manifest, sort_keys=True).encode()})


def write_trials(root: Path, experiment: str, split: str, table: pa.Table, manifest: dict[str, Any], features: Features, *,
                 replace: bool = False) -> Path:
    """Write a whole table as the split, one row group per CHUNK records: the same file the records
    worker writes a chunk at a time for the same records."""
    with trials_writer(root, experiment, split, features, replace=replace) as writer:
        for start in range(0, table.num_rows, CHUNK):
            writer.write(table.slice(start, CHUNK))
        return finish_trials(writer, manifest)


def read_manifest(path: Path) -> dict[str, Any] | None:
    """The run manifest stored in a trials parquet file, if any."""
    import pyarrow.parquet as pq

    raw = (pq.read_schema(path).metadata or {}).get(MANIFEST_KEY)
    manifest: dict[str, Any] | None = json.loads(raw) if raw else None
    return manifest
