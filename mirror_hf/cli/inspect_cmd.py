"""`import-inspect`: Inspect logs of the mirror_hf tasks as trial splits (extra mirror-hf[inspect])."""

from __future__ import annotations

from pathlib import Path

import typer

from mirror_hf.cli._app import app


@app.command("import-inspect")
def import_inspect(
    logs: list[Path] = typer.Argument(..., help="Inspect .eval logs of mirror_hf/exp1, exp3 or exp9 tasks."),
    dataset: Path = typer.Option(Path("mirror"), "--dataset", help="The dataset folder the logs were made on (the split goes here)."),
    split: str = typer.Option(None, "--split", help="Split name (default: the model's slug)."),
    model: str = typer.Option(None, "--model", help="Model name for the records (default: from the log, provider prefix dropped)."),
) -> None:
    """Turn Inspect logs into trial splits, parsed and graded exactly as `mirror-hf run` does."""
    from mirror_hf.inspect_import import import_log

    reports = [import_log(path, dataset, split=split, model=model) for path in logs]
    for r in reports:
        typer.echo(f"{r.log.name}: {r.trials} {r.experiment} trial(s) -> trials_{r.experiment}/{r.split}")
