"""`human-packet` and `import-human`: a questionnaire people take in a browser, scored like a model."""

from __future__ import annotations

from pathlib import Path

import typer

from mirror_hf.cli._app import UsageError, app


@app.command("human-packet")
def human_packet(
    dataset: Path = typer.Option(..., "--dataset", help="The dataset folder whose banks the items come from."),
    out: Path = typer.Option(..., "--out", help="Folder for index.html (the questionnaire) and packet.json."),
    exp1_per_domain: int = typer.Option(10, "--exp1-per-domain", help="Exp1 questions per domain (stratified as run --limit)."),
    exp9_per_pair: int = typer.Option(2, "--exp9-per-pair", help="Exp9 fixed tasks per domain pair."),
    seed: int = typer.Option(None, "--seed", help="Draw another set of items (default: the runner's own order)."),
) -> None:
    """Write a self-contained questionnaire (no server, no network) from the folder's banks; no gold inside."""
    from mirror_hf.human.packet import PacketSettings, steps, write_packet

    if not (dataset / "data").is_dir():
        raise UsageError(f"{dataset} is not a dataset folder (no data/ directory)")
    index, packet = write_packet(dataset, out, PacketSettings(exp1_per_domain, exp9_per_pair, seed))
    counts = {e: sum(1 for i in packet["items"] if i["experiment"] == e) for e in ("exp1", "exp9")}
    typer.echo(f"wrote {index} and {out / 'packet.json'}: {counts['exp1']} Exp1 items, {counts['exp9']} Exp9 tasks, "
               f"{len(steps(packet))} steps; packet_hash {packet['packet_hash']}")


@app.command("import-human")
def import_human(
    files: list[Path] = typer.Argument(..., help="Response files exported by the questionnaire (one per participant)."),
    dataset: Path = typer.Option(..., "--dataset", help="The dataset folder the packet was made from."),
    packet: Path = typer.Option(None, "--packet", help="The study's packet.json (default: the packet of the first file)."),
) -> None:
    """Import response files as trials_exp1 / trials_exp9 splits (split = participant id, marked human)."""
    from mirror_hf.human.importer import import_human as run_import

    for result in run_import(files, dataset, packet):
        typer.echo(result.line())
