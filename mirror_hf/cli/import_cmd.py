"""`import-upstream`: the authors' released files -> a dataset folder (trials_* and upstream_* configs)."""

from __future__ import annotations

from pathlib import Path

import typer

from mirror_hf.cli._app import UsageError, app


@app.command("import-upstream")
def import_upstream(
    files: list[Path] = typer.Argument(..., help="The authors' files: question/task banks, result files, the CFR table (format detected from content)."),
    out: Path = typer.Option(Path("mirror"), "--out", help="Dataset folder to create or update."),
    regrade: str = typer.Option(None, "--regrade", help="Re-parse raw responses with our parsers and grade with this matcher: upstream or strict. Default: keep the authors' grade."),
    quiet: bool = typer.Option(False, "--quiet", help="Do not print the per-file cleaning report."),
    replace: bool = typer.Option(False, "--replace", help="Replace splits that exist in --out with other content (else refused; trials of other runs always stay)."),
) -> None:
    """Import the authors' banks into upstream_* configs and their results into trials_exp1/3/9 (one split per model)."""
    from mirror_hf.folder import FolderError
    from mirror_hf.upstream import UpstreamError
    from mirror_hf.upstream import import_upstream as run_import

    if regrade is not None and regrade not in ("upstream", "strict"):
        raise UsageError(f"--regrade must be upstream or strict, got {regrade!r}")
    try:
        result = run_import(files, out, regrade, replace=replace)
    except (UpstreamError, FolderError) as exc:
        raise UsageError(str(exc)) from None
    except OSError as exc:
        raise UsageError(f"cannot write --out {out}: {exc.strerror or exc}") from None
    if not quiet:
        for line in result.lines():
            typer.echo(line)
