"""`score`: every metric a dataset folder's trial splits support, as one JSON file."""

from __future__ import annotations

import json
from pathlib import Path

import typer

from mirror_hf.cli._app import UsageError, app


def read_tables(folder: Path) -> dict:
    """The folder's trial tables, one per registered experiment (all splits of its config
    concatenated), and the authors' per-model CFR aggregate if one was imported."""
    import polars as pl

    from mirror_hf.folder import split_files

    files = split_files(folder)

    def read(config: str) -> pl.DataFrame | None:
        parts = [_read_trials(f.path, folder, config) for f in files.get(config, [])]
        parts = [p for p in parts if p.height]
        return pl.concat(parts, how="diagonal_relaxed") if parts else None

    from mirror_hf.experiments import trial_configs

    tables = {name: read(config) for name, config in trial_configs().items()}
    tables["upstream_cfr"] = _upstream_cfr(files, read)
    if tables.get("exp2") is not None and "source_domain" not in tables["exp2"].columns:
        tables["exp2"] = _attach_source_domain(tables["exp2"], files, read)
    return tables


def _read_trials(path: Path, folder: Path, config: str):
    """One split file; a damaged file, or a trials file without a column that identifies its trials
    (model, item, the experiment's de-duplication keys) or its grade, is a one-line error naming the file and
    the column."""
    import polars as pl

    from mirror_hf.experiments import EXPERIMENTS

    rel = path.relative_to(folder.absolute()) if path.is_relative_to(folder.absolute()) else path
    try:
        frame = pl.read_parquet(path)
    except Exception as exc:  # noqa: BLE001  polars/arrow raise several types for a damaged file
        raise UsageError(f"{rel}: not a readable parquet file ({type(exc).__name__})") from None
    spec = next((s for s in EXPERIMENTS.values() if s.trial_config == config), None)
    needed = ()
    if spec is not None:
        graded = ("correct",) if "correct" in spec.trial_features else ()
        needed = ("model", *dict.fromkeys((*spec.dedup_key, *graded)))
    missing = [c for c in needed if c not in frame.columns]
    if missing:
        raise UsageError(f"{rel}: field {missing[0]!r} missing (a trials file needs {', '.join(needed)})")
    return frame


def _upstream_cfr(files: dict, read):
    """An imported aggregate of per-model CFR: any `upstream_exp9*` config with model, condition and
    a CFR column (normalised to columns model / condition / cfr, condition as C1..C4)."""
    import polars as pl

    for config in sorted(c for c in files if c.startswith("upstream_exp9")):
        table = read(config)
        if table is None or not {"model", "condition"} <= set(table.columns):
            continue
        value = next((c for c in ("cfr", "value", "confident_failure_rate") if c in table.columns), None)
        if value is None:
            continue
        condition = pl.col("condition").cast(pl.String)
        condition = pl.when(condition.str.starts_with("C")).then(condition).otherwise(pl.lit("C") + condition)
        return table.select(pl.col("model").cast(pl.String), condition.alias("condition"), pl.col(value).cast(pl.Float64).alias("cfr"))
    return None


def _attach_source_domain(exp2, files: dict, read):
    import polars as pl

    for config in ("exp2_transfer", "upstream_exp2_transfer", "upstream_transfer_tasks"):
        tasks = read(config)
        if tasks is not None and {"task_id", "source_domain"} <= set(tasks.columns):
            return exp2.join(tasks.select(pl.col("task_id").alias("item_id"), "source_domain"), on="item_id", how="left")
    return exp2.with_columns(pl.lit(None, dtype=pl.String).alias("source_domain"))


def _write_atomically(path: Path, text: str, replace: bool = False) -> None:
    """Write beside the target and rename (`writes.atomic_write`); on failure nothing is left behind.
    An existing file of other content is replaced only with --replace (the write rule)."""
    from mirror_hf.writes import atomic_write, disk_error, refuse_replacing

    if path.is_dir():
        raise UsageError(f"--json {path} is a folder; name a file (e.g. {path / 'scores.json'})")
    if path.is_file() and not replace:
        try:
            same = path.read_text(encoding="utf-8") == text
        except (OSError, UnicodeDecodeError):
            same = False
        if not same:
            raise refuse_replacing(f"--json {path}", path.parent, "a file")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise disk_error(exc, path.parent) from None
    atomic_write(path, text)  # a disk error: one line naming the file (`writes.WriteError`)


def suite_options(variant: str, weak_policy: str, missing: str, resamples: int, seed: int, k: int = 2,
                  human_weak_policy: str = "median_or_bottom_k"):
    """Validated scoring options from the command line (shared by `score` and `report`)."""
    from mirror_hf.scoring import MISSING_RULES, WEAK_POLICIES, Bootstrap, SuiteOptions

    if human_weak_policy not in WEAK_POLICIES:
        raise UsageError(f"--human-weak-policy must be one of {', '.join(WEAK_POLICIES)}; got {human_weak_policy!r}")

    if variant not in ("paper", "upstream"):
        raise UsageError(f"--variant must be paper or upstream, got {variant!r}")
    if weak_policy not in ("auto", "recorded", *WEAK_POLICIES):
        raise UsageError(f"--weak-policy must be one of auto, recorded, {', '.join(WEAK_POLICIES)}; got {weak_policy!r}")
    if missing not in MISSING_RULES:
        raise UsageError(f"--missing must be one of {', '.join(MISSING_RULES)}; got {missing!r}")
    if k < 1:
        raise UsageError(f"--k must be at least 1, got {k}")
    if resamples < 0:
        raise UsageError(f"--resamples must be >= 0, got {resamples}")
    return SuiteOptions(
        variant=variant,
        weak_policy=None if weak_policy == "recorded" else weak_policy,
        missing=missing,
        k=k,
        ci=Bootstrap(n_resamples=resamples, seed=seed) if resamples else False,
        human_weak_policy=human_weak_policy,
    )


def read_folder(dataset: Path) -> dict:
    """The folder's trial tables, or a one-line error when it is not a dataset folder or holds none."""
    from mirror_hf.experiments import trial_configs
    from mirror_hf.integrity import check_folder

    if not (dataset / "data").is_dir():
        raise UsageError(f"{dataset} is not a dataset folder (no data/ directory)")
    check_folder(dataset)
    tables = read_tables(dataset)
    configs = trial_configs()
    if all(tables.get(k) is None for k in configs) and tables["upstream_cfr"] is None:
        raise UsageError(f"{dataset} holds no trials ({', '.join(configs.values())}) and no upstream_exp9 aggregate")
    return tables


# The scoring options, defined once for `score` and `report` (same flags, defaults and help).
VARIANT = typer.Option("paper", "--variant", help="paper (equations as printed) or upstream (the authors' code, for parity).")
WEAK_POLICY = typer.Option(
    "auto", "--weak-policy", help="Exp9 weak domains: auto (paper: median_or_bottom_k; upstream: recorded labels), recorded, median_or_bottom_k, threshold, bottom_k, absolute."
)
HUMAN_WEAK_POLICY = typer.Option(
    "median_or_bottom_k", "--human-weak-policy",
    help="Human participants' weak domains: median_or_bottom_k (the paper's rule: people at ceiling get its bottom-k fallback), threshold, bottom_k, absolute.",
)
K = typer.Option(2, "--k", help="k of the median_or_bottom_k / bottom_k weak-domain policies (e.g. 3 for the paper's bottom-3 sensitivity).")
MISSING = typer.Option("complete_case", "--missing", help="Exp9 missing components: complete_case or missing_incorrect.")
RESAMPLES = typer.Option(10_000, "--resamples", help="BCa bootstrap resamples per CI (0: point estimates only).")
SEED = typer.Option(42, "--seed", help="Bootstrap seed.")
MODELS = typer.Option(None, "--models", help="Exp8: a model table (CSV or YAML: model, family, parameters, generation) for the scaling fits.")


@app.command()
def score(
    dataset: Path = typer.Option(..., "--dataset", help="A dataset folder holding trials_* splits."),
    variant: str = VARIANT,
    json_out: Path = typer.Option(None, "--json", help="Write the full results as JSON here (default: print a table)."),
    weak_policy: str = WEAK_POLICY,
    k: int = K,
    missing: str = MISSING,
    resamples: int = RESAMPLES,
    seed: int = SEED,
    models: Path = MODELS,
    human_weak_policy: str = HUMAN_WEAK_POLICY,
    replace: bool = typer.Option(False, "--replace", help="Replace an existing --json file of other content (else refused)."),
) -> None:
    """Score every trial split in a dataset folder: per model and experiment, plus the escalation curve."""
    options = suite_options(variant, weak_policy, missing, resamples, seed, k, human_weak_policy)
    if json_out is not None and json_out.is_dir():
        raise UsageError(f"--json {json_out} is a folder; name a file (e.g. {json_out / 'scores.json'})")
    table = None
    if models is not None:
        from mirror_hf.model_table import read_model_table

        table = read_model_table(models)  # checked before any scoring: a bad row is one line, exit 2
    tables = read_folder(dataset)
    from mirror_hf.experiments import score_folder

    result = score_folder(tables, options, model_table=table)
    result["settings"] = {
        "dataset": str(dataset),
        "variant": variant,
        "weak_policy": weak_policy,
        "k": k,
        "human_weak_policy": human_weak_policy,
        "missing": missing,
        "resamples": resamples,
        "seed": seed,
        "ci": "BCa, 95%",
    }
    if json_out is None:
        print_table(result, tables)
    else:
        text = json.dumps(result, indent=2, sort_keys=False, allow_nan=False) + "\n"
        _write_atomically(json_out, text, replace)
        typer.echo(f"wrote {json_out}")


def print_table(result: dict, tables: dict | None = None) -> None:
    """The main table (the report's columns) as a rich table: value, 95% CI and n per cell; every "-"
    and every value without its interval carries a numbered reason; then, per model and experiment,
    the share of unparsed or failed trials (with a warning above 20%)."""
    from rich.console import Console
    from rich.table import Table

    from mirror_hf.experiments import result_view
    from mirror_hf.report.table import fmt, fmt_cell, main_table
    from mirror_hf.report.terminal import Footnotes, dash_reason
    from mirror_hf.unusable import unusable_lines, unusable_shares

    scores = result_view(result)  # read by attribute: a field the score schema lacks is an error
    table = main_table(scores)
    notes = Footnotes()
    variant = scores.settings.variant if scores.settings is not None else "paper"
    view = Table(title=f"Mirror scores ({variant} variant; value [95% BCa CI] / n; best in bold)")
    view.add_column("model", no_wrap=True)
    for column in table.columns:
        view.add_column(f"{column.label} {column.arrow}".strip(), justify="right")
    for model in table.models:
        row = [table.label(model)]
        for column in table.columns:
            cell = table.cells[model][column.key]
            text = fmt_cell(cell, ci=False) if cell else fmt(None)
            if cell is None:
                text += " " + notes.mark(dash_reason(tables or {}, model, column.headline or column.key, column.path[0]))
            if cell and cell.ci:
                text += f"\n[{fmt(cell.ci[0])}, {fmt(cell.ci[1])}]"
            elif cell and cell.note:
                text += "\nno CI " + notes.mark(cell.note)
            if cell and cell.n is not None:
                text += f"\nn {cell.n}"
            row.append(f"[bold]{text}[/bold]" if model in table.best.get(column.key, ()) else text)
        view.add_row(*row)
    console = Console(width=max(120, 16 + 18 * len(table.columns)))
    console.print(view)
    for line in notes.lines():
        console.print(line, markup=False)
    for line in unusable_lines(unusable_shares(tables or {}, tuple(table.models))):
        console.print(line, markup=False)
    curve = scores.aggregate.escalation if scores.aggregate is not None else None
    if curve:
        parts = [f"{c} {fmt(curve[c]['value'])}" + (f" [{fmt(curve[c]['ci'][0])}, {fmt(curve[c]['ci'][1])}]" if curve[c].get("ci") else "")
                 for c in ("C1", "C2", "C3", "C4") if c in curve]
        console.print(f"escalation curve (mean CFR over {curve[next(iter(curve))]['n']} models): " + "; ".join(parts))
    from mirror_hf.report.table import participants_note

    for line in participants_note(table):
        console.print(line)
    if table.absent:
        console.print("not in this folder: " + ", ".join(c.label for c in table.absent))
    reasons: dict[tuple[str, str], list[str]] = {}
    for model, notes in (scores.skipped or {}).items():
        for metric, why in notes.items():
            reasons.setdefault((metric, why), []).append(model)
    for (metric, why), models in reasons.items():
        console.print(f"{metric} not scored for {', '.join(models)}: {why}")
    console.print("the full result (every metric, per-domain values): --json OUT")
