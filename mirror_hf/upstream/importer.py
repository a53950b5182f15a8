"""`import_upstream(files, out, regrade)`: the authors' files -> a dataset folder, atomically.

Every file is read and checked before anything is written. The folder is assembled in a staging
sibling (a copy of `out` when it already is a dataset folder) and swapped into place only when every
split and the card/Croissant are written, so a failure leaves `out` as it was and no partial folder.
Re-importing a file replaces the rows it wrote before (same `run_id`); rows of our own runs in the
same split are kept.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

import pyarrow.parquet as pq

from mirror_hf.records import Question
from mirror_hf.upstream.banks import BANKS
from mirror_hf.upstream.read import SourceFile, UpstreamError, read_source
from mirror_hf.upstream.report import CleanReport
from mirror_hf.upstream.results import cfr_rows, exp1_rows, exp3_rows, exp9_rows

REGRADE = (None, "upstream", "strict")
_NEEDS_BANK = {"exp1_results": "questions", "exp3_results": "exp3_tasks"}


@dataclass
class ImportResult:
    out: Path
    reports: list[CleanReport] = field(default_factory=list)
    splits: dict[str, int] = field(default_factory=dict)  # "config/split" -> rows now in the folder

    def lines(self) -> list[str]:
        lines = [line for r in self.reports for line in r.lines()]
        lines.append(f"wrote {self.out}: " + ", ".join(f"{k} ({v} rows)" for k, v in sorted(self.splits.items())))
        return lines


def _question_lookup(rows: list[dict]) -> dict[str, Question]:
    """question_id -> Question, first row in file order (the row the authors' runs used)."""
    out: dict[str, Question] = {}
    for row in rows:
        qid = row["id"]
        if qid not in out:
            out[qid] = Question.from_row(row)
    return out


def _question_counts(rows: list[dict]) -> Counter:
    """The authors' question_id -> how many bank questions carry it (variants reuse their parent's id)."""
    return Counter(json.loads(row["params"]).get("question_id") or row["id"] for row in rows)


def _exp3_lookup(source: SourceFile, rows: list[dict]) -> dict[str, dict]:
    """task_id -> cleaned task + the raw component-A answer type the authors graded with."""
    raw_types = {r.get("task_id"): (r.get("component_a") or {}).get("answer_type") for r in source.records}
    out = {}
    for row in rows:
        out[row["task_id"]] = {**row, "raw_answer_type": raw_types.get(row["task_id"])}
    return out


def convert(files: list[Path], regrade: str | None = None) -> tuple[dict[tuple[str, str], list[dict]], list[CleanReport]]:
    """Read, detect and convert every file: {(config, split): rows}, plus one report per file.
    Raises UpstreamError before returning anything if any file is unreadable or unusable."""
    if regrade not in REGRADE:
        raise UpstreamError(f"--regrade must be 'upstream' or 'strict', got {regrade!r}")
    if not files:
        raise UpstreamError("no input files")
    from mirror_hf.upstream.human_packet import convert_packet, is_packet

    packets = [Path(f) for f in files if is_packet(Path(f))]
    files = [f for f in files if Path(f) not in packets]
    sources = [read_source(Path(f)) for f in files]
    kinds = {s.kind for s in sources}
    if regrade:
        for s in sources:
            needed = _NEEDS_BANK.get(s.kind)
            if s.kind == "exp1_results" and not any(r.get("raw_response") for r in s.records):
                needed = None  # nothing to parse again: the authors' grades are kept
            if needed and needed not in kinds:
                bank_file = {"questions": "data/questions.jsonl", "exp3_tasks": "data/exp3/intersection_tasks_v2.jsonl"}[needed]
                raise UpstreamError(f"{s.path}: --regrade needs the {needed.replace('_', ' ')} bank ({bank_file}) among the input files")

    tables: dict[tuple[str, str], list[dict]] = {}
    reports: list[CleanReport] = []
    questions: dict[str, Question] = {}
    question_counts: Counter = Counter()
    exp3_tasks: dict[str, dict] = {}

    def add(report: CleanReport, config: str, split: str, rows: list[dict]) -> None:
        tables.setdefault((config, split), []).extend(rows)
        report.written_to[f"{config}/{split}"] += len(rows)
        report.rows_written += len(rows)

    bank_kinds: set[str] = set()
    # Banks first: results are joined against them.
    for source in sorted(sources, key=lambda s: s.kind not in BANKS):
        report = CleanReport(str(source.path), source.kind, rows_read=len(source.records))
        reports.append(report)
        if source.kind in BANKS:
            config, convert_rows = BANKS[source.kind]
            rows = convert_rows(source, report)
            if source.kind in bank_kinds:
                raise UpstreamError(f"{source.path}: a second {source.kind.replace('_', ' ')} file among the inputs")
            bank_kinds.add(source.kind)
            add(report, config, "test", rows)
            if source.kind == "questions":
                questions = _question_lookup(rows)
                question_counts = _question_counts(rows)
            elif source.kind == "exp3_tasks":
                exp3_tasks = _exp3_lookup(source, rows)
        elif source.kind == "exp1_results":
            for split, rows in exp1_rows(source, report, questions, regrade, question_counts).items():
                add(report, "trials_exp1", split, rows)
        elif source.kind == "exp3_results":
            for split, rows in exp3_rows(source, report, exp3_tasks, regrade).items():
                add(report, "trials_exp3", split, rows)
        elif source.kind == "exp9_results":
            for split, rows in exp9_rows(source, report, regrade).items():
                add(report, "trials_exp9", split, rows)
        elif source.kind == "exp9_cfr":
            add(report, "upstream_exp9_cfr", "test", cfr_rows(source, report))
        if report.rows_written == 0:
            raise UpstreamError(f"{source.path}: no usable rows ({'; '.join(f'{k}: {v}' for k, v in report.unusable.items()) or 'empty'})")
    order = {str(Path(f)): i for i, f in enumerate(files)}
    reports.sort(key=lambda r: order.get(r.path, 0))
    for packet in packets:  # the authors' human-baseline packet folder: its cohort, flagged as its manifest says
        rows, report, manifests = convert_packet(packet, regrade)
        for key, part in rows.items():
            if key in tables:
                raise UpstreamError(f"{packet}: participant split {key[0]}/{key[1]} comes twice among the inputs")
            tables[key] = part
        report.manifests.update(manifests)
        reports.append(report)
    return tables, reports


def _existing_rows(root: Path, config: str, split: str, run_ids: set[str]) -> tuple[list[dict], list[dict]]:
    """Rows already in the folder's split: those kept (other runs), and those of the runs being
    imported again (the import replaces them: without --replace only by the very same rows)."""
    folder = root / "data" / config
    files = sorted(folder.glob(f"{split}-*.parquet")) if folder.is_dir() else []
    kept: list[dict] = []
    again: list[dict] = []
    for f in files:
        for r in pq.read_table(f).to_pylist():
            (again if r.get("run_id") in run_ids else kept).append(r)
    return kept, again


def _same_rows(old: list[dict], new: list[dict]) -> bool:
    """Every old row is among the new ones (an import of the same files again loses nothing)."""
    import json

    key = lambda r: json.dumps(r, sort_keys=True, default=str)  # noqa: E731
    fresh = {key(r) for r in new}
    return all(key(r) in fresh for r in old)


def _check_out(out: Path) -> None:
    if out.exists() and not out.is_dir():
        raise UpstreamError(f"--out {out} exists and is not a folder")
    if out.is_dir() and any(out.iterdir()) and not (out / "data").is_dir():
        raise UpstreamError(f"--out {out} is a non-empty folder that is not a dataset folder (no data/)")
    parent = out.parent
    if not parent.is_dir():
        raise UpstreamError(f"parent folder {parent} of --out does not exist")
    if not os.access(parent, os.W_OK | os.X_OK):
        raise UpstreamError(f"cannot write to {parent} (permission denied)")


def import_upstream(files: list[Path], out: Path, regrade: str | None = None, *, replace: bool = False) -> ImportResult:
    """Convert the authors' files into the dataset folder `out` (created or updated). A split that
    exists with other content is replaced only with `replace` (`--replace`); trials of other runs stay."""
    from mirror_hf.dataset_builders import registry
    from mirror_hf.folder import remove_folder_leftovers, swap_into_place, write_split
    from mirror_hf.metadata import refresh_metadata

    out = Path(out).absolute()
    _check_out(out)
    tables, reports = convert(files, regrade)
    run_ids = {r["run_id"] for rows in tables.values() for r in rows if r.get("run_id")}
    builders = registry()
    remove_folder_leftovers(out)  # what a killed import or build left beside it
    staging = Path(tempfile.mkdtemp(prefix=f".{out.name}.importing-{os.getpid()}-", dir=out.parent))
    staging.chmod(0o755)
    result = ImportResult(out, reports)
    try:
        if out.is_dir():
            shutil.copytree(out, staging, dirs_exist_ok=True, symlinks=True)
        manifests = {key: m for r in reports for key, m in r.manifests.items()}
        for (config, split), rows in sorted(tables.items()):
            merged, licence = rows, replace
            if config.startswith("trials_"):
                kept, again = _existing_rows(staging, config, split, run_ids)
                merged = kept + rows
                licence = replace or _same_rows(again, rows)  # other runs' trials stay; the same run's come again
            if (config, split) in manifests:  # a participant's split: its manifest says who answered (SplitWriter)
                from mirror_hf.folder import rows_to_table
                from mirror_hf.runner.trials import write_trials

                features = builders[config].features
                table = rows_to_table(merged, features, where=f"{config}/{split}")
                write_trials(staging, config.removeprefix("trials_"), split, table, manifests[(config, split)], features,
                             replace=licence)
            else:
                write_split(staging, config, split, merged, builders[config].features, replace=licence)
            result.splits[f"{config}/{split}"] = len(merged)
        refresh_metadata(staging)
        swap_into_place(staging, out)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    return result


__all__ = ["ImportResult", "UpstreamError", "convert", "import_upstream"]
