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
    replace: bool = typer.Option(False, "--replace",
                                 help="Replace a split that exists with other content (else refused, nothing written)."),
) -> None:
    """Turn Inspect logs into trial splits, parsed and graded exactly as `mirror-hf run` does."""
    from mirror_hf.folder import require_writable
    from mirror_hf.inspect_import import import_log
    from mirror_hf.integrity import check_folder
    from mirror_hf.metadata import refresh_metadata

    check_folder(dataset)  # a broken folder is refused before anything is added to it
    require_writable(dataset, "the imported trials are written there")
    reports = []
    try:
        for path in logs:
            reports.append(import_log(path, dataset, split=split, model=model, replace=replace))
    finally:
        if reports:  # the card and Croissant list every split written, even when a later log is refused
            refresh_metadata(dataset)
    for r in reports:
        typer.echo(f"{r.log.name}: {r.trials} {r.experiment} trial(s) -> trials_{r.experiment}/{r.split}")
