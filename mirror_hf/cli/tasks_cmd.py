"""`tasks`: task banks built per model (`mirror-hf tasks tailor`)."""

from __future__ import annotations

from pathlib import Path

import typer

from mirror_hf.cli._app import UsageError, app

tasks_app = typer.Typer(help="Task banks built for one model (Exp9 tailored tasks).", no_args_is_help=True)
app.add_typer(tasks_app, name="tasks")


@tasks_app.command()
def tailor(
    profile: Path = typer.Option(..., "--profile", help="The model's Exp1 profile: a dataset folder with its `profiles` "
                                 "split, or a .parquet/.json/.jsonl file of per-domain natural accuracies."),
    model: str = typer.Option(..., "--model", help="The model the tasks are for; its slug names the split."),
    dataset: Path = typer.Option(None, "--dataset", help="The dataset folder to write into (default: --profile if it "
                                 "is a folder, else ./mirror)."),
    split: str = typer.Option(None, "--split", help="Split name (\\w+); default: the model's slug."),
    weak_policy: str = typer.Option("median_or_bottom_k", "--weak-policy",
                                    help="median_or_bottom_k (default, the paper's), threshold (the authors' runner: "
                                    "weak <= 0.40, strong >= 0.60), bottom_k or absolute."),
    k: int = typer.Option(2, "--k", help="k of median_or_bottom_k / bottom_k."),
    weak_threshold: float = typer.Option(0.40, "--weak-threshold", help="threshold policy: weak at or below this."),
    strong_threshold: float = typer.Option(0.60, "--strong-threshold", help="threshold policy: strong at or above this."),
    tau: float = typer.Option(0.40, "--tau", help="absolute policy: weak below this."),
    min_strong_accuracy: float = typer.Option(None, "--min-strong-accuracy",
                                              help="Lowest accuracy a strong domain may have (default 0.25, chance among four choices)."),
    n: int = typer.Option(300, "--n", help="How many tasks."),
    seed: str = typer.Option(None, "--seed", help="Seed (default: the folder's build seed)."),
    replace: bool = typer.Option(False, "--replace",
                                 help="Replace the model's tailored split if one exists with other content (else refused)."),
) -> None:
    """Build Exp9 tasks for one model from its Exp1 profile: a strong domain in slot A, a weak one in slot B."""
    from mirror_hf.cli.build_cmd import parse_seed
    from mirror_hf.folder import read_marker, require_writable, write_split
    from mirror_hf.metadata import refresh_metadata
    from mirror_hf.records import EXP9_TASK_FEATURES
    from mirror_hf.runner.session import RunError, check_split, model_slug
    from mirror_hf.tasks.tailor import ProfileInputError, WeakPolicySpec, tailor as build_tailored

    folder = (dataset or (profile if profile.is_dir() else Path("mirror"))).absolute()
    if not folder.is_dir() or not (folder / "README.md").is_file():
        raise UsageError(f"{folder} is not a dataset folder (build one with `mirror-hf build --out {folder}`)")
    from mirror_hf.integrity import check_folder

    check_folder(folder)  # a broken folder is refused (naming the problem and its repair)
    require_writable(folder, "the tailored tasks are written there")
    if n < 1:
        raise UsageError(f"--n must be at least 1, got {n}")
    if k < 1:
        raise UsageError(f"--k must be at least 1, got {k}")
    try:
        name = check_split(split) if split else model_slug(model)
    except RunError as exc:
        raise UsageError(str(exc)) from None
    chosen_seed = parse_seed(seed) if seed is not None else int((read_marker(folder) or {}).get("seed", 0))
    policy = WeakPolicySpec(weak_policy, k=k, weak_threshold=weak_threshold, strong_threshold=strong_threshold, tau=tau,
                            min_strong=min_strong_accuracy)
    try:
        rows, labels = build_tailored(profile=profile, model=model, split=name, dataset=folder, policy=policy,
                                      seed=chosen_seed, total=n)
    except ProfileInputError as exc:
        raise UsageError(str(exc)) from None
    path = write_split(folder, "exp9_tailored", name, rows, EXP9_TASK_FEATURES, replace=replace)
    refresh_metadata(folder)
    strong = ", ".join(d for d, s in labels.items() if s == "strong")
    weak = ", ".join(d for d, s in labels.items() if s == "weak")
    typer.echo(f"{policy.name}: strong = {strong}; weak = {weak}")
    typer.echo(f"wrote {len(rows)} tasks to split '{name}' of config 'exp9_tailored': {path}")
