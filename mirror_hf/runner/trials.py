"""From executed jobs to trial records, and from records to the model's split.

Every record carries the request facts (raw text, finish reason, usage, latency, attempts, the
provider's `system_fingerprint`, temperature and seed) beside the protocol's parsed and graded
fields. A request that finally failed is still a record: `api_error` says why, the parsed fields
stay null and `correct` is null (ungraded), never a guessed False.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from pathlib import Path

from mirror_hf.runner.plan import Plan
from mirror_hf.runner.request import ChatRequest, Outcome

MANIFEST_KEY = b"mirror_hf.run_manifest"


@dataclass(frozen=True)
class RunIdentity:
    run_id: str
    model: str
    experiment: str
    temperature: float
    seed: int | None


def trial_row(identity: RunIdentity, job, turns: list[tuple[ChatRequest, Outcome]], recipe, fields: frozenset[str],
              dropped: set[str] | None = None) -> dict:
    first_request = turns[0][0]
    last_request, last = turns[-1]
    prompt = last_request.prompt_json()
    failed = next((o for _, o in turns if not o.ok), None)
    row = {
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
    parsed = recipe.parsed_fields(job, turns, failed.error if failed else None)
    # The parser's own raw_response/reasoning/truncated win (it splits `<think>` blocks off).
    # A key the trial schema does not declare is reported (never silently lost), not written.
    for k, v in parsed.items():
        if k in fields:
            row[k] = v
        elif dropped is not None:
            dropped.add(k)
    if failed is not None:
        row["api_error"] = failed.error
    return row


def _total(values) -> float | int | None:
    present = [v for v in values if v is not None]
    return sum(present) if present else None


@dataclass
class TrialCounts:
    trials: int = 0
    failed: int = 0
    truncated: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0


def trial_table(identity: RunIdentity, plan: Plan, turns_by_job: dict, features, *, chunk: int = 1000):
    """The split as an arrow table, built a chunk of records at a time (a run's records never all
    sit in memory as dicts), with its counts and any parsed keys the schema lacks (for a warning).
    Consumes `turns_by_job`."""
    import pyarrow as pa

    from mirror_hf.folder import rows_to_table

    fields = frozenset(features)
    dropped: set[str] = set()
    counts = TrialCounts()
    tables = []
    where = f"trials_{identity.experiment}"
    for start in range(0, len(plan.jobs), chunk):
        rows = []
        for i in range(start, min(start + chunk, len(plan.jobs))):
            row = trial_row(identity, plan.jobs[i], turns_by_job.pop(i), plan.recipe, fields, dropped)
            counts.trials += 1
            counts.failed += row["api_error"] is not None
            counts.truncated += bool(row["truncated"])
            counts.prompt_tokens += row["prompt_tokens"] or 0
            counts.completion_tokens += row["completion_tokens"] or 0
            rows.append(row)
        tables.append(rows_to_table(rows, features, where=f"{where} records {start}-{start + len(rows) - 1}"))
        del rows
    table = pa.concat_tables(tables) if tables else rows_to_table([], features, where=where)
    return table, counts, dropped


def write_trials(root: Path, experiment: str, split: str, table, manifest: dict, features) -> Path:
    """Write the split (the manifest rides in the parquet schema metadata, so it travels with the
    file to the Hub) and regenerate the folder's card and Croissant."""
    from mirror_hf.folder import refresh_metadata, write_split

    config = f"trials_{experiment}"
    metadata = dict(table.schema.metadata or {})
    metadata[MANIFEST_KEY] = json.dumps(manifest, sort_keys=True).encode()
    table = table.replace_schema_metadata(metadata)
    path = write_split(root, config, split, table, features)
    refresh_metadata(root)
    return path


def read_manifest(path: Path) -> dict | None:
    """The run manifest stored in a trials parquet file, if any."""
    import pyarrow.parquet as pq

    raw = (pq.read_schema(path).metadata or {}).get(MANIFEST_KEY)
    return json.loads(raw) if raw else None
