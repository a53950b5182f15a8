"""The results report: the paper's main table, figures, a per-model narrative and a trial browser,
written as `report.md` and a static `index.html` that opens from disk (DESIGN.md: report reads the
scoring result and the trial splits; nothing here computes a metric).

    build_report(folder, tables, out, options=SuiteOptions())
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from mirror_hf.errors import MirrorValueError
from mirror_hf.report import _numbers
from mirror_hf.report.browser import Dataset, write_browser
from mirror_hf.report.figures import FigureFile, write_figures
from mirror_hf.report.narrative import narrative
from mirror_hf.report.quality import quality_by_model, run_settings
from mirror_hf.report.scaling import scaling_rows
from mirror_hf.report.site import html_page, markdown
from mirror_hf.report.table import COLUMNS, MainTable, main_table
from mirror_hf.scoring import SuiteOptions

__all__ = ["COLUMNS", "ReportError", "ReportResult", "build_report", "main_table"]


class ReportError(MirrorValueError):
    """Nothing to report on (or a folder that is not a dataset folder)."""


@dataclass
class ReportResult:
    out: Path
    index: Path
    markdown: Path
    table: MainTable
    scores: dict
    figures: list[FigureFile] = field(default_factory=list)
    not_drawn: list[str] = field(default_factory=list)
    datasets: list[Dataset] = field(default_factory=list)


def _manifests(root: Path) -> dict[str, list[tuple[str, dict]]]:
    """model -> [(experiment/split, run settings)] for every trials split of the folder."""
    import polars as pl

    from mirror_hf.folder import split_files
    from mirror_hf.runner.trials import read_manifest

    out: dict[str, list[tuple[str, dict]]] = {}
    for config, files in split_files(root).items():
        if not config.startswith("trials_"):
            continue
        for f in files:
            manifest = read_manifest(f.path)
            frame = pl.read_parquet(f.path, columns=["model", "run_id"])
            for model in frame["model"].drop_nulls().unique().sort().to_list():
                run_ids = frame.filter(pl.col("model") == model)["run_id"].unique().to_list()
                out.setdefault(model, []).append((f"{config.removeprefix('trials_')}/{f.split}", run_settings(manifest, run_ids)))
    return out


def build_report(root: Path, tables: dict, out: Path, *, options: SuiteOptions = SuiteOptions(), settings: dict | None = None,
                 model_table: list | None = None) -> ReportResult:
    """Score the tables (through `_numbers.scores`), then write the report into `out` (replaced as a
    whole: a failure leaves the previous report, never half of a new one). `model_table` (rows of
    `read_model_table`, as for `score --models`) adds the Exp8 scaling section."""
    from mirror_hf.experiments import trial_configs

    configs = trial_configs()  # every registered experiment (Exp5, Exp6b too), as `score` reads them
    if all(tables.get(k) is None for k in configs) and tables.get("upstream_cfr") is None:
        raise ReportError(f"{root} holds no trials ({', '.join(configs.values())}) and no upstream_exp9 aggregate: nothing to report")
    from mirror_hf.writes import REPORT_MARKER, atomic_write, check_output_folder, disk_error

    out = out.absolute()
    if not out.parent.is_dir():
        raise ReportError(f"parent folder {out.parent} of --out does not exist")
    check_output_folder(out, protect=(root,))  # empty, new, or a previous report; never the dataset
    if not os.access(out.parent, os.W_OK | os.X_OK):
        raise disk_error(PermissionError(13, "Permission denied"), out.parent)
    result = _numbers.scores(tables, options, model_table=model_table)
    from mirror_hf.experiments import result_view

    view = result_view(result)
    table = main_table(view)
    from mirror_hf.report.terminal import dash_reason

    table.reasons = {
        m: {c.key: dash_reason(tables, m, c.headline or c.key, c.path[0]) for c in table.columns if table.cells[m][c.key] is None}
        for m in table.models
    }
    sizes = _numbers.parameters(model_table, result) if model_table is not None else {}
    people = view.participants or {}
    weak = {m: frozenset(people[m].weak_domains["weak_domains"]) if m in people and people[m].weak_domains  # people's own rule
            else _numbers.weak_set(view.models[m], options) for m in table.models}
    try:
        staging = Path(tempfile.mkdtemp(prefix=f".{out.name}.new-", dir=out.parent))
    except OSError as exc:
        raise disk_error(exc, out.parent) from None
    try:
        figures, not_drawn = write_figures(result, table, weak, staging / "figures", sizes=sizes)
        datasets = write_browser(root, tables, staging)
        narratives = {m: narrative(table, m) for m in table.models}
        quality = quality_by_model(tables)
        runs = _manifests(root)
        shown = {"dataset": str(root), **(settings or {})}
        title = f"Mirror report: {len(table.models)} model(s)"
        args = (title, shown, table, narratives, quality, runs, figures, not_drawn)
        scaling = scaling_rows(result)
        (staging / "report.md").write_text(markdown(*args, result.get("skipped", {}), scaling, result=result), encoding="utf-8")
        (staging / "index.html").write_text(html_page(*args, datasets, result.get("skipped", {}), scaling, result=result), encoding="utf-8")
        (staging / "scores.json").write_text(json.dumps(result, indent=1, allow_nan=False) + "\n")
        atomic_write(staging / REPORT_MARKER, json.dumps({"report": "mirror-hf", "dataset": str(root)}) + "\n")
    except OSError as exc:
        shutil.rmtree(staging, ignore_errors=True)
        raise disk_error(exc, out) from None
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    from mirror_hf.folder import swap_into_place

    try:
        swap_into_place(staging, out)
    except OSError as exc:
        shutil.rmtree(staging, ignore_errors=True)
        raise disk_error(exc, out) from None
    moved = [FigureFile(f.name, f.title, f.caption, out / "figures" / f.png.name, out / "figures" / f.svg.name) for f in figures]
    return ReportResult(out, out / "index.html", out / "report.md", table, result, moved, not_drawn, datasets)
