"""`report`: the results report (main table, figures, narrative, trial browser) for a dataset folder."""

from __future__ import annotations

from pathlib import Path

import typer

from mirror_hf.cli._app import app


@app.command()
def report(
    dataset: Path = typer.Option(..., "--dataset", help="A dataset folder holding trials_* splits (own runs, imported upstream data, or both)."),
    out: Path = typer.Option(Path("mirror-report"), "--out", help="Output folder: index.html, report.md, figures/, trials/ (replaced as a whole)."),
    variant: str = typer.Option("paper", "--variant", help="paper or upstream (as for `score`)."),
    weak_policy: str = typer.Option("auto", "--weak-policy", help="As for `score`."),
    missing: str = typer.Option("complete_case", "--missing", help="As for `score`."),
    resamples: int = typer.Option(10_000, "--resamples", help="BCa bootstrap resamples per CI (0: point estimates only)."),
    seed: int = typer.Option(42, "--seed", help="Bootstrap seed."),
) -> None:
    """Write a static report (open OUT/index.html from disk; no server) and OUT/report.md."""
    from mirror_hf.cli.score_cmd import read_folder, suite_options
    from mirror_hf.report import build_report

    options = suite_options(variant, weak_policy, missing, resamples, seed)
    tables = read_folder(dataset)
    settings = {"variant": variant, "weak_policy": weak_policy, "missing": missing, "resamples": resamples, "seed": seed}
    result = build_report(dataset.absolute(), tables, out, options=options, settings=settings)
    typer.echo(f"{len(result.table.models)} model(s), {len(result.figures)} figures, {sum(d.trials for d in result.datasets)} trials in the browser")
    typer.echo(f"wrote {result.index} (open it in a browser) and {result.markdown}")
