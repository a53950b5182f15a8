"""`score`: every metric a dataset folder's trial splits support, as one JSON file."""

from __future__ import annotations

import json
import os
from pathlib import Path

import typer

from mirror_hf.cli._app import UsageError, app

def read_tables(folder: Path) -> dict:
    """The folder's trial tables, one per registered experiment (all splits of its config
    concatenated), and the authors' per-model CFR aggregate if one was imported."""
    import polars as pl

    from mirror_hf.experiments import read_trial_tables
    from mirror_hf.folder import split_files

    files = split_files(folder)

    def read(config: str) -> pl.DataFrame | None:
        parts = [_read_trials(f.path, folder, config) for f in files.get(config, [])]
        parts = [p for p in parts if p.height]
        return pl.concat(parts, how="diagonal_relaxed") if parts else None

    tables = read_trial_tables(folder)
    tables["upstream_cfr"] = _upstream_cfr(files, read)
    if tables.get("exp2") is not None and "source_domain" not in tables["exp2"].columns:
        tables["exp2"] = _attach_source_domain(tables["exp2"], files, read)
    return tables


def _read_trials(path: Path, folder: Path, config: str):
    """One split file; a damaged file, or a trials file without one of its schema's columns, is
    a one-line error naming the file (and the column)."""
    import polars as pl

    from mirror_hf.experiments import EXPERIMENTS

    TRIAL_FEATURES = {name: spec.trial_features for name, spec in EXPERIMENTS.items()}  # noqa: N806

    rel = path.relative_to(folder.absolute()) if path.is_relative_to(folder.absolute()) else path
    try:
        frame = pl.read_parquet(path)
    except Exception as exc:  # noqa: BLE001  polars/arrow raise several types for a damaged file
        raise UsageError(f"{rel}: not a readable parquet file ({type(exc).__name__})") from None
    kind = config.removeprefix("trials_")
    missing = [c for c in TRIAL_FEATURES.get(kind, {}) if c not in frame.columns] if config.startswith("trials_") else []
    if missing:
        raise UsageError(f"{rel}: field {missing[0]!r} missing ({len(missing)} of the trial schema's columns are absent)")
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


def _write_atomically(path: Path, text: str) -> None:
    """Write beside the target and rename; on failure nothing is left behind (no temp file)."""
    if path.is_dir():
        raise UsageError(f"--json {path} is a folder; name a file (e.g. {path / 'scores.json'})")
    tmp = path.with_name(f".{path.name}.tmp-{os.getpid()}")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp.write_text(text)
        os.replace(tmp, path)
    except OSError as exc:
        tmp.unlink(missing_ok=True)
        raise UsageError(f"cannot write --json {path}: {exc.strerror or exc}") from None


@app.command()
def score(
    dataset: Path = typer.Option(..., "--dataset", help="A dataset folder holding trials_* splits."),
    variant: str = typer.Option("paper", "--variant", help="paper (equations as printed) or upstream (the authors' code, for parity)."),
    json_out: Path = typer.Option(None, "--json", help="Write the results here (default: print to stdout)."),
    weak_policy: str = typer.Option(
        "auto", "--weak-policy", help="Exp9 weak domains: auto (paper: median_or_bottom_k; upstream: recorded labels), recorded, median_or_bottom_k, threshold, bottom_k, absolute."
    ),
    missing: str = typer.Option("complete_case", "--missing", help="Exp9 missing components: complete_case or missing_incorrect."),
    resamples: int = typer.Option(10_000, "--resamples", help="BCa bootstrap resamples per CI (0: point estimates only)."),
    seed: int = typer.Option(42, "--seed", help="Bootstrap seed."),
) -> None:
    """Score every trial split in a dataset folder: per model and experiment, plus the escalation curve."""
    from mirror_hf.experiments import EXPERIMENTS, trial_configs
    from mirror_hf.scoring import MISSING_RULES, WEAK_POLICIES, Bootstrap, SuiteOptions, score_tables

    if variant not in ("paper", "upstream"):
        raise UsageError(f"--variant must be paper or upstream, got {variant!r}")
    if weak_policy not in ("auto", "recorded", *WEAK_POLICIES):
        raise UsageError(f"--weak-policy must be one of auto, recorded, {', '.join(WEAK_POLICIES)}; got {weak_policy!r}")
    if missing not in MISSING_RULES:
        raise UsageError(f"--missing must be one of {', '.join(MISSING_RULES)}; got {missing!r}")
    if resamples < 0:
        raise UsageError(f"--resamples must be >= 0, got {resamples}")
    if not (dataset / "data").is_dir():
        raise UsageError(f"{dataset} is not a dataset folder (no data/ directory)")
    if json_out is not None and json_out.is_dir():
        raise UsageError(f"--json {json_out} is a folder; name a file (e.g. {json_out / 'scores.json'})")
    from mirror_hf.integrity import check_folder

    check_folder(dataset)
    tables = read_tables(dataset)
    configs = trial_configs()
    if all(tables[k] is None for k in configs) and tables["upstream_cfr"] is None:
        raise UsageError(f"{dataset} holds no trials ({', '.join(configs.values())}) and no upstream_exp9 aggregate")
    options = SuiteOptions(
        variant=variant,
        weak_policy=None if weak_policy == "recorded" else weak_policy,
        missing=missing,
        ci=Bootstrap(n_resamples=resamples, seed=seed) if resamples else False,
    )
    scorers = {name: spec.scorer for name, spec in EXPERIMENTS.items() if spec.scorer is not None}
    result = score_tables(
        tables={k: tables[k] for k in configs}, scorers=scorers, upstream_cfr=tables["upstream_cfr"], options=options
    )
    result["settings"] = {
        "dataset": str(dataset),
        "variant": variant,
        "weak_policy": weak_policy,
        "missing": missing,
        "resamples": resamples,
        "seed": seed,
        "ci": "BCa, 95%",
    }
    text = json.dumps(result, indent=2, sort_keys=False, allow_nan=False) + "\n"
    if json_out is None:
        typer.echo(text, nl=False)
    else:
        _write_atomically(json_out, text)
