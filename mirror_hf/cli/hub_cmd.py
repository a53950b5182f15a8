"""`push` and `export-eval-results`: publish a dataset folder, and a model's headline numbers."""

from __future__ import annotations

from pathlib import Path

import typer

from mirror_hf.cli._app import UsageError, app

_NETWORK_MODULES = ("huggingface_hub", "httpx", "httpcore", "requests", "urllib3", "aiohttp")


def hub_failure(exc: Exception, what: str, token_env: str) -> UsageError | None:
    """A Hub or network failure (offline, 401, missing repo, refused connection) as one line, with
    the token and any URL credentials blanked; None for anything else (a bug: let it show)."""
    import os

    from mirror_hf.runner.secrets import redact

    if not (type(exc).__module__.startswith(_NETWORK_MODULES) or isinstance(exc, (OSError, ConnectionError))):
        return None
    first = (str(exc).strip().splitlines() or [""])[0][:300]
    return UsageError(f"{what} failed: {type(exc).__name__}: {redact(first, [os.environ.get(token_env, '')])}")


@app.command()
def push(
    dataset: Path = typer.Option(Path("mirror"), "--dataset", help="The dataset folder to upload."),
    repo: str = typer.Option(..., "--repo", help="Dataset repo on the Hub, ORG/NAME (created if missing)."),
    only_trials: bool = typer.Option(False, "--only-trials", help="Upload only trial/profile splits the repo lacks (plus the card, Croissant, run manifests and metric modules); the repo must already hold the rest of this folder."),
    replace: bool = typer.Option(False, "--replace", help="Overwrite splits the repo already has with different content (refused otherwise)."),
    private: bool = typer.Option(None, "--private/--public", help="Visibility when the repo is created."),
    create_pr: bool = typer.Option(False, "--create-pr", help="Open a pull request instead of committing to main."),
    token_env: str = typer.Option("HF_TOKEN", "--token-env", help="Environment variable holding the Hub token (never written)."),
    message: str = typer.Option(None, "--message", help="Commit message."),
) -> None:
    """Merge the dataset folder (or only its new trial splits) into a Hub dataset repo: nothing already
    there is lost, and card and Croissant describe the merged repo."""
    from mirror_hf.hub import HubError
    from mirror_hf.hub import push as push_folder

    try:
        report = push_folder(dataset, repo, only_trials=only_trials, replace=replace, private=private,
                             create_pr=create_pr, token_env=token_env, message=message)
    except HubError as exc:
        raise UsageError(str(exc)) from None
    except Exception as exc:  # noqa: BLE001  Hub and network errors come in many types
        failure = hub_failure(exc, f"push to {repo}", token_env)
        if failure is None:
            raise
        raise failure from None
    if report.skipped:
        typer.echo(f"skipped {len(report.skipped)} symlink(s) or special file(s), never uploaded: "
                   + ", ".join(report.skipped[:5]) + (", ..." if len(report.skipped) > 5 else ""))
    if report.commit_url is None:
        typer.echo(f"nothing to push: {repo} already has every trial split of {dataset}")
        return
    typer.echo(f"pushed {len(report.added)} file(s) to {repo}" + (f", replaced {len(report.deleted)}" if report.deleted else "")
               + (f" (after {report.attempts - 1} concurrent commit(s) by others)" if report.attempts > 1 else ""))
    typer.echo(f"commit: {report.commit_url}")
    for name in report.splits:
        config, split = name.split("/")
        typer.echo(f"load it: load_dataset({repo!r}, {config!r}, split={split!r})")


@app.command("export-eval-results")
def export_eval_results(
    dataset: Path = typer.Option(Path("mirror"), "--dataset", help="The dataset folder holding the model's splits."),
    model: str = typer.Option(None, "--model", help="The model (its slug names its splits)."),
    split: str = typer.Option(None, "--split", help="The split name, if not the model's slug."),
    dataset_repo: str = typer.Option(..., "--dataset-repo", help="The benchmark dataset's Hub id the results refer to (ORG/NAME)."),
    revision: str = typer.Option(None, "--revision", help="The dataset repo's commit sha the trials were run on (default: its current head, read from the Hub)."),
    source_url: str = typer.Option(None, "--source-url", help="Where the per-item trials can be seen (e.g. the dataset repo URL)."),
    out: Path = typer.Option(Path(".eval_results"), "--out", help="Folder to write <name>.yaml into."),
    model_repo: str = typer.Option(None, "--model-repo", help="Also upload to this model repo's .eval_results/ (as a PR unless --no-pr)."),
    pr: bool = typer.Option(True, "--pr/--no-pr", help="Upload as a pull request (the usual way on someone else's model)."),
    token_env: str = typer.Option("HF_TOKEN", "--token-env"),
) -> None:
    """Write the `.eval_results/mirror.yaml` entries for a model repo from the model's splits."""
    from mirror_hf.hub import (
        REPO_ID,
        HubError,
        dataset_revision,
        eval_result_entries,
        upload_eval_results,
        write_eval_results,
    )
    from mirror_hf.runner import RunError, model_slug

    if not model and not split:
        raise UsageError("pass --model NAME (or --split NAME)")
    if not REPO_ID.match(dataset_repo):
        raise UsageError(f"--dataset-repo {dataset_repo!r} must look like ORG/NAME")
    if (dataset / "data").is_dir():
        from mirror_hf.integrity import check_folder

        check_folder(dataset)  # a broken folder is refused (naming the problem and its repair)
    try:
        name = split or model_slug(model)
        entries = eval_result_entries(dataset, name, dataset_repo, dataset_revision=revision, source_url=source_url)
        if entries and revision is None:  # ask the Hub only once there is something to export
            from dataclasses import replace

            head = dataset_revision(dataset_repo, token_env)
            entries = [replace(e, dataset_revision=head) for e in entries]
        path = write_eval_results(entries, out)
        typer.echo(f"wrote {len(entries)} result(s) to {path}")
        if model_repo:
            url = upload_eval_results(path, model_repo, create_pr=pr, token_env=token_env)
            typer.echo(f"uploaded to {model_repo}: {url}")
    except (HubError, RunError) as exc:
        raise UsageError(str(exc)) from None
    except Exception as exc:  # noqa: BLE001
        failure = hub_failure(exc, f"upload to {model_repo}", token_env)
        if failure is None:
            raise
        raise failure from None
