"""`study`: the whole of Mirror for one model (or several from a models file) in one command."""

from __future__ import annotations

import shlex
import sys
from pathlib import Path

import typer

from mirror_hf.cli._app import UsageError, app


def _presets_help() -> str:
    from mirror_hf.study.presets import help_text

    return "Sizes: " + help_text()


@app.command()
def study(
    model: str = typer.Option(None, "--model", help="Model name sent to the endpoint (its slug names the splits)."),
    base_url: str = typer.Option(None, "--base-url", help="OpenAI-compatible endpoint, e.g. http://localhost:8000/v1."),
    models: Path = typer.Option(None, "--models", help="A models file (YAML, `models:` list of name, base_url and optionally "
                                "api_key_env, rpm, tpm, concurrency, price_in, price_out, family, parameters, generation): "
                                "the models run concurrently, the report compares them, Exp8 reads family/parameters."),
    only: str = typer.Option("", "--only", help="With --models: run only these entries (comma-separated names)."),
    dataset: Path = typer.Option(Path("mirror"), "--dataset", help="The dataset folder (from `mirror-hf build`)."),
    preset: str = typer.Option("full", "--preset", help=_presets_help()),
    experiments: str = typer.Option("", "--experiments", help="Comma-separated experiments: narrows the preset."),
    api_key_env: str = typer.Option(None, "--api-key-env",
                                    help="Environment variable holding the API key (default OPENAI_API_KEY; never written)."),
    report_out: Path = typer.Option(Path("mirror-report"), "--report-out",
                                    help="Report folder; the scores go beside it as DIR/scores.json."),
    push: str = typer.Option(None, "--push", help="Push the folder to this Hub dataset repo (ORG/NAME) at the end."),
    dry_run: bool = typer.Option(False, "--dry-run", help="Print the plan (requests, tokens, cost, time per experiment) and exit."),
    plan_json: Path = typer.Option(None, "--plan-json", help="Also write the plan as JSON here."),
    price_in: float = typer.Option(None, "--price-in", help="USD per million prompt tokens."),
    price_out: float = typer.Option(None, "--price-out", help="USD per million completion tokens."),
    max_cost: float = typer.Option(None, "--max-cost", help="USD for the whole study (several models: shared equally); needs prices."),
    rpm: float = typer.Option(None, "--rpm", help="Requests-per-minute budget (also the plan's time)."),
    tpm: float = typer.Option(None, "--tpm", help="Tokens-per-minute budget."),
    concurrency: int = typer.Option(None, "--concurrency", help="Requests in flight at most (default: the runner's 16)."),
    reply_tokens: int = typer.Option(None, "--reply-tokens", help="Expected completion tokens per call, for the plan's token "
                                     "and cost figures (default: each experiment's max_tokens, an upper bound)."),
    resamples: int = typer.Option(10_000, "--resamples", help="BCa bootstrap resamples per CI in the score and report."),
    max_attempts: int = typer.Option(6, "--max-attempts", help="Attempts per request for transient errors."),
    backoff_base: float = typer.Option(1.0, "--backoff-base", help="Seconds; retry n waits up to base * 2^(n-1)."),
    no_progress: bool = typer.Option(False, "--no-progress", help="Plain lines only, no live bar."),
) -> None:
    """Evaluate a model on the whole of Mirror: Exp1 -> profile -> tailored tasks -> Exp9 and every
    other experiment -> score -> report (-> push). Prints the plan first; a rerun continues where a
    killed or failed study stopped, and nothing finished is sent again."""
    from mirror_hf.errors import MirrorValueError
    from mirror_hf.study import ModelEntry, StudyError, StudyOptions, read_models_file, run_study
    from mirror_hf.study import preset as get_preset

    if (models is None) == (model is None):
        raise UsageError("pass --model NAME --base-url URL, or --models FILE")
    try:
        chosen = get_preset(preset)
        if models is not None:
            if base_url or api_key_env:
                raise UsageError("--base-url and --api-key-env belong in the models file with --models")
            entries = read_models_file(models)
            if only:
                wanted = [n.strip() for n in only.split(",") if n.strip()]
                unknown = [n for n in wanted if n not in {e.name for e in entries}]
                if unknown:
                    raise UsageError(f"--only: {', '.join(unknown)} not in {models}")
                entries = [e for e in entries if e.name in wanted]
            if any(v is not None for v in (price_in, price_out, rpm, tpm, concurrency)):
                raise UsageError("with --models, prices, rpm, tpm and concurrency are set per model in the models file")
        else:
            if not base_url:
                raise UsageError("--base-url is required (the study evaluates a model behind an OpenAI-compatible endpoint)")
            if only:
                raise UsageError("--only goes with --models")
            entries = [ModelEntry(model, base_url, api_key_env, rpm, tpm, concurrency, price_in, price_out)]
        for flag, value in (("--max-cost", max_cost), ("--reply-tokens", reply_tokens), ("--concurrency", concurrency),
                            ("--rpm", rpm), ("--tpm", tpm)):
            if value is not None and value <= 0:
                raise UsageError(f"{flag} must be positive, got {value}")
        if max_cost is not None and not any(e.price_in or e.price_out for e in entries):
            raise UsageError("--max-cost needs prices (--price-in/--price-out, or price_in/price_out in the models file)")
        if resamples < 0:
            raise UsageError(f"--resamples must be >= 0, got {resamples}")
        argv = [a for a in sys.argv[1:] if a != "--dry-run"]
        options = StudyOptions(
            dataset=dataset, models=tuple(entries), preset=chosen,
            experiments=tuple(p.strip() for p in experiments.split(",") if p.strip()) or None,
            report_out=report_out, push=push, dry_run=dry_run, plan_json=plan_json, max_cost=max_cost,
            reply_tokens=reply_tokens, resamples=resamples, max_attempts=max_attempts, backoff_base=backoff_base,
            resume_command=shlex.join(["mirror-hf", *argv]), models_file=models is not None,
            progress=False if no_progress else None,
        )
        result = run_study(options, echo=typer.echo)
    except StudyError as exc:
        raise UsageError(str(exc)) from None
    except MirrorValueError as exc:
        raise UsageError(str(exc)) from None
    except KeyboardInterrupt:
        typer.echo(f"\ninterrupted: every finished request is kept under {dataset.absolute() / '.runs'}; "
                   f"rerun the same command to continue: {shlex.join(['mirror-hf', *sys.argv[1:]])}", err=True)
        raise SystemExit(130) from None
    if dry_run:
        return
    if result.failed:
        typer.echo(f"study incomplete: {'; '.join(result.failed)} failed (see the resume command above)", err=True)
        raise SystemExit(1)
