"""`report`: the results report (main table, figures, narrative, trial browser) for a dataset folder."""

from __future__ import annotations

from pathlib import Path

import typer

from mirror_hf.cli._app import app
from mirror_hf.cli.score_cmd import HUMAN_WEAK_POLICY, MISSING, MODELS, RESAMPLES, SEED, VARIANT, WEAK_POLICY, K


@app.command()
def report(
    dataset: Path = typer.Option(..., "--dataset",
                                 help="A dataset folder holding trials_* splits (own runs, imported upstream data, or both)."),
    out: Path = typer.Option(Path("mirror-report"), "--out",
                             help="Output folder: index.html, report.md, figures/, trials/. "
                                  "Must be new, empty or a previous report (replaced as a whole); never the dataset folder."),
    variant: str = VARIANT,
    weak_policy: str = WEAK_POLICY,
    k: int = K,
    missing: str = MISSING,
    resamples: int = RESAMPLES,
    seed: int = SEED,
    models: Path = MODELS,
    human_weak_policy: str = HUMAN_WEAK_POLICY,
) -> None:
    """Write a static report (open OUT/index.html from disk; no server) and OUT/report.md."""
    from mirror_hf.cli.score_cmd import read_folder, suite_options
    from mirror_hf.report import build_report

    options = suite_options(variant, weak_policy, missing, resamples, seed, k, human_weak_policy)
    model_table = None
    if models is not None:
        from mirror_hf.model_table import read_model_table

        model_table = read_model_table(models)  # checked before any scoring: a bad row is one line, exit 2
    tables = read_folder(dataset)
    settings = {"variant": variant, "weak_policy": weak_policy, "k": k, "missing": missing, "resamples": resamples, "seed": seed}
    if human_weak_policy != HUMAN_WEAK_POLICY.default:
        settings["human_weak_policy"] = human_weak_policy
    if models is not None:
        settings["models"] = str(models)
    result = build_report(dataset.absolute(), tables, out, options=options, settings=settings, model_table=model_table)
    typer.echo(f"{len(result.table.models)} model(s), {len(result.figures)} figures, "
               f"{sum(d.trials for d in result.datasets)} trials in the browser")
    typer.echo(f"wrote {result.index} (open it in a browser) and {result.markdown}")


def quick_report(dataset: Path, out: Path, resamples: int = 2_000) -> Path:
    """The report at the end of `quickstart` (fewer resamples: it is a smoke run)."""
    from mirror_hf.cli.score_cmd import read_folder, suite_options
    from mirror_hf.report import build_report

    options = suite_options("paper", "auto", "complete_case", resamples, 42)
    result = build_report(dataset, read_folder(dataset), out, options=options, settings={"resamples": resamples})
    typer.echo(f"report: {result.index} (open it in a browser; {len(result.figures)} figures, trial browser) and {result.markdown}")
    return result.index


def next_steps(dataset: Path) -> None:
    d = str(dataset)
    typer.echo(f"""
next steps — the whole study for a real model in one command (docs/study.md): the plan first, then
Exp1, its profile, tailored tasks, Exp9 and every other experiment, the scores and the report; a rerun
after a kill or a failure continues where it stopped:
  a model on your own server (README "Local server": vLLM http://localhost:8000/v1, llama.cpp's llama-server
  http://localhost:8080/v1, Ollama http://localhost:11434/v1), e.g. vLLM's:
    mirror-hf study --dataset {d} --model Qwen/Qwen2.5-7B-Instruct --base-url http://localhost:8000/v1 --preset smoke
    mirror-hf study --dataset {d} --model Qwen/Qwen2.5-7B-Instruct --base-url http://localhost:8000/v1
  a hosted provider (the key is read from the variable you name, never written anywhere; --dry-run prints only the plan):
    mirror-hf study --dataset {d} --model gpt-4o-mini --base-url https://api.openai.com/v1 --api-key-env OPENAI_API_KEY \
--price-in 0.15 --price-out 0.6 --dry-run
  several models at once, compared in one report: mirror-hf study --dataset {d} --models models.yaml
  one experiment at a time instead: mirror-hf run --dataset {d} --experiment exp1 --model M --base-url URL, then score and report:
    mirror-hf score --dataset {d}
    mirror-hf report --dataset {d} --out {d}-report
  and share: mirror-hf push --dataset {d} --repo YOUR_ORG/mirror-results   (token from HF_TOKEN; or study --push ORG/NAME)""")
