"""`build`, `summary` and `sample`: make a dataset folder and look inside it."""

from __future__ import annotations

from pathlib import Path

import typer

from mirror_hf.cli._app import UsageError, app


def parse_seed(text: str) -> int:
    """Seeds are non-negative 64-bit integers (they are stored in int64 columns); anything else is a
    one-line error, not a click usage box."""
    from mirror_hf.runner.validate import INT64_MAX

    try:
        seed = int(text, 10)
    except ValueError:
        raise UsageError(f"--seed must be a non-negative integer, got {text[:40]!r}") from None
    if not 0 <= seed <= INT64_MAX:
        raise UsageError(f"--seed must be a non-negative integer below 2**63, got {seed}")
    return seed


@app.command()
def build(
    out: Path = typer.Option(Path("mirror"), "--out", help="Folder to write (a Hub dataset repo as is)."),
    seed: str = typer.Option("0", "--seed", help="Seed of the parallel form (non-negative integer)."),
    configs: str = typer.Option("", "--configs", help="Comma-separated configs to build (default: all)."),
    per_domain: int = typer.Option(625, "--per-domain", help="Questions per domain (625 gives the 5,000-item bank)."),
    force: bool = typer.Option(False, "--force", help="Replace a folder that is not a previous build, or discard run data."),
    quiet: bool = typer.Option(False, "--quiet", help="Do not print the summary table."),
) -> None:
    """Generate the question bank and task banks into a dataset folder (parquet + card + Croissant)."""
    from mirror_hf.build import BuildError, BuildRequest
    from mirror_hf.build import build as run_build

    if per_domain < 1:
        raise UsageError(f"--per-domain must be at least 1, got {per_domain}")
    request = BuildRequest(
        out=out,
        seed=parse_seed(seed),
        per_domain=per_domain,
        configs=tuple(c.strip() for c in configs.split(",") if c.strip()) or None,
        force=force,
    )
    try:
        folder = run_build(request)
    except BuildError as exc:
        raise UsageError(str(exc)) from None
    except OSError as exc:  # e.g. a read-only or full file system under --out
        raise UsageError(f"cannot write --out {out}: {exc.strerror or exc}") from None
    if not quiet:
        print_summary(folder)


@app.command()
def summary(dataset: Path = typer.Argument(Path("mirror"), help="A dataset folder.")) -> None:
    """Print what a dataset folder holds: rows per config and split, the bank by domain and difficulty."""
    from mirror_hf.integrity import check_folder

    if not (dataset / "README.md").is_file():
        raise UsageError(f"{dataset} is not a dataset folder (no README.md)")
    check_folder(dataset)
    print_summary(dataset)


@app.command()
def sample(
    dataset: Path = typer.Option(None, "--dataset", help="A dataset folder (default: the installed version's)."),
    per_subcategory: int = typer.Option(5, "--n", help="Items to show per subcategory."),
    seed: str = typer.Option("0", "--seed", help="Seed of the random pick."),
    domain: str = typer.Option("", "--domain", help="Only this domain."),
    blind: bool = typer.Option(False, "--blind", help="For a blind read: the question alone, then its choices, "
                               "then the gold, one keypress at a time (q stops)."),
) -> None:
    """Show random questions per subcategory with their choices and gold answer, for reading."""
    import random

    import polars as pl

    from mirror_hf import dataset_dir
    from mirror_hf.folder import split_files

    if per_subcategory < 1:
        raise UsageError(f"--n must be at least 1, got {per_subcategory}")
    rng = random.Random(parse_seed(seed))
    folder = dataset or dataset_dir()
    if dataset is not None and (dataset / "data").is_dir():
        from mirror_hf.integrity import check_folder

        check_folder(dataset)
    files = split_files(folder).get("questions")
    if not files:
        raise UsageError(f"{folder} has no questions config")
    frame = pl.read_parquet([f.path for f in files])
    if domain:
        known = sorted(set(frame["domain"].to_list()))
        if domain not in known:
            raise UsageError(f"--domain {domain!r} is not in {folder}; domains there: {', '.join(known)}")
        frame = frame.filter(pl.col("domain") == domain)
    for (dom, sub), group in sorted(frame.group_by(["domain", "subcategory"]), key=lambda g: g[0]):
        rows = group.rows(named=True)
        for row in rng.sample(rows, min(per_subcategory, len(rows))):
            if blind:
                if not _blind_read(dom, sub, row):
                    return
                continue
            typer.echo(f"[{dom}/{sub}/{row['difficulty']}] {row['id']}\n  {row['question']}")
            for letter, choice in zip("ABCD", row["choices"]):
                mark = "*" if choice == row["answer"] else " "
                typer.echo(f"   {mark}{letter}) {choice}")
        typer.echo("")


def _keypress(prompt: str) -> bool:
    """Wait for one key (a line when stdin is not a terminal); False when it is q or input ends."""
    import sys

    typer.echo(prompt, nl=False)
    if sys.stdin.isatty():
        key = typer.getchar()
    else:
        key = sys.stdin.read(1)
        if key and key != "\n":
            sys.stdin.readline()
    typer.echo("")
    return bool(key) and key.lower() != "q"


def _blind_read(dom: str, sub: str, row: dict) -> bool:
    """One item in three steps, so the reader solves it from the question before seeing any choice,
    then picks among the choices before seeing the gold (the subcategory is shown, the id is not:
    it names the difficulty). False when the reader stops."""
    typer.echo(f"[{dom}/{sub}]\n  {row['question']}")
    typer.echo(f"  (asked open it is graded as {row['answer_type']})")
    if not _keypress("  [key: choices, q: stop] "):
        return False
    for letter, choice in zip("ABCD", row["choices"]):
        typer.echo(f"    {letter}) {choice}")
    if not _keypress("  [key: gold, q: stop] "):
        return False
    letter = "ABCD"[list(row["choices"]).index(row["answer"])]
    aliases = f"  (also accepted: {', '.join(row['aliases'])})" if row.get("aliases") else ""
    typer.echo(f"  gold: {letter}) {row['answer']}{aliases}   [{row['difficulty']}, {row['id']}]")
    return _keypress("  [key: next item, q: stop] ")


def print_summary(folder: Path) -> None:
    import polars as pl
    import pyarrow.parquet as pq
    from rich.console import Console
    from rich.table import Table

    from mirror_hf.folder import read_marker, split_files

    console = Console()
    marker = read_marker(folder) or {}
    files = split_files(folder)
    table = Table(title=f"{folder}  (mirror-hf {marker.get('version', '?')}, seed {marker.get('seed', '?')})")
    table.add_column("config")
    table.add_column("split")
    table.add_column("rows", justify="right")
    for config, split_list in files.items():
        for f in split_list:
            table.add_row(config, f.split, f"{pq.read_metadata(f.path).num_rows:,}")
    console.print(table)
    if "questions" in files:
        frame = pl.read_parquet([f.path for f in files["questions"]], columns=["domain", "subcategory", "difficulty"])
        counts = frame.group_by("domain", "difficulty").len().pivot(on="difficulty", index="domain", values="len")
        subs = frame.group_by("domain").agg(pl.col("subcategory").n_unique().alias("subcategories"))
        counts = counts.join(subs, on="domain")
        bank = Table(title="questions by domain and difficulty")
        bank.add_column("domain")
        for col in ("subcategories", "easy", "medium", "hard"):
            bank.add_column(col, justify="right")
        bank.add_column("total", justify="right")
        for row in counts.sort("domain").iter_rows(named=True):
            values = [row.get(c) or 0 for c in ("subcategories", "easy", "medium", "hard")]
            bank.add_row(row["domain"], *map(str, values), str(sum(values[1:])))
        console.print(bank)


@app.command()
def verify(
    dataset: Path = typer.Argument(Path("mirror"), help="A dataset folder."),
    repair: bool = typer.Option(False, "--repair", help="Regenerate the card and Croissant from the data files on disk "
                                "(only when every data file still matches its content hash)."),
) -> None:
    """Check what load_dataset needs: the card's YAML parses, every config/split/file it lists exists,
    every data file on disk is listed in the card and Croissant, and matches its content hash."""
    from mirror_hf.integrity import problems, repair_hint

    if not (dataset / "data").is_dir():
        raise UsageError(f"{dataset} is not a dataset folder (no data/ directory)")
    found, checked = problems(dataset)
    if repair and found:
        data = [p for p in found if p.data and not p.replaced]  # a replaced file is kept: the user asked
        if data:
            for p in data:
                typer.echo(f"changed: {p}", err=True)
            raise UsageError(f"cannot repair {dataset}: {len(data)} data file(s) do not match their content hash; "
                             "rebuild the folder or re-download it")
        from mirror_hf.folder import require_writable
        from mirror_hf.metadata import refresh_metadata

        require_writable(dataset, "the repair rewrites the card and Croissant")
        for p in found:
            typer.echo(f"repairing: {p}")
        refresh_metadata(dataset)
        found, checked = problems(dataset)
    for p in found:
        typer.echo(f"{'changed' if p.data else 'broken'}: {p}", err=True)
    if found:
        what = ("do not match their content hash" if any(p.data for p in found)
                else "are not what the card and Croissant list")
        raise UsageError(f"{len(found)} problem(s) in {dataset}: data file(s) {what}; {repair_hint(dataset, found)}")
    typer.echo(f"ok: {checked} data file(s) in {dataset} match their content hashes, the card and Croissant"
               + (" (repaired)" if repair else ""))
