"""`run`, `profile` and `quickstart`: evaluate a model into trial splits, and build its Exp1 profile."""

from __future__ import annotations

import json
from pathlib import Path

import typer

from mirror_hf.cli._app import UsageError, app


def _experiments_help() -> str:
    """The --experiment help, from the registry (so a new experiment shows up by itself)."""
    from mirror_hf.experiments import EXPERIMENTS

    return "; ".join(spec.help() for spec in EXPERIMENTS.values()) + "."


def _refresh():
    from mirror_hf.metadata import refresh_metadata

    return refresh_metadata


def _experiment(name: str):
    from mirror_hf.experiments import get
    from mirror_hf.registry import UnknownName

    try:
        return get(name)
    except UnknownName as exc:
        raise UsageError(f"--experiment: {exc}") from None


def _plan_options(*, limit, channels: str, conditions: str, paradigms: str, matcher: str, route_rule: str,
                  decisions: str | None, false_score_control: bool, resolver_accuracy: str, answer_format: str, samples: int,
                  sample_temperature: float, attack_wording: str, bank: str | None, min_strong_accuracy: float | None):
    """The planner's options from the flags' text: every word parsed into its typed vocabulary here
    (`mirror_hf.vocabulary`), the resolver into "oracle" or a number; a bad word is one line naming its flag."""
    from mirror_hf.runner.plan import PlanOptions
    from mirror_hf.vocabulary import (
        ANSWER_FORMATS,
        ATTACK_WORDINGS,
        DECISION_RULES,
        MATCHERS,
        ROUTE_RULES,
        VocabularyError,
        one_of,
        parse_resolver,
    )

    try:
        return PlanOptions(
            limit=limit, channels=_csv(channels), conditions=_csv(conditions), paradigms=_csv(paradigms),
            matcher=one_of("--matcher", matcher, MATCHERS), route_rule=one_of("--route-rule", route_rule, ROUTE_RULES),
            decisions=None if decisions is None else one_of("--decisions", decisions, DECISION_RULES),
            false_score_control=false_score_control, resolver=parse_resolver(resolver_accuracy),
            answer_format=one_of("--answer-format", answer_format, ANSWER_FORMATS), samples=samples,
            sample_temperature=sample_temperature, attack_wording=one_of("--attack-wording", attack_wording, ATTACK_WORDINGS),
            bank=bank, min_strong_accuracy=min_strong_accuracy,
        )
    except VocabularyError as exc:
        raise UsageError(str(exc)) from None


def _csv(text: str) -> tuple[str, ...] | None:
    items = tuple(part.strip() for part in text.split(",") if part.strip())
    return items or None


def _parse_seed(text: str) -> int | None:
    if text.lower() in ("none", "off", ""):
        return None
    try:
        return int(text)
    except ValueError:
        raise UsageError(f"--seed must be an integer or 'none', got {text!r}") from None


@app.command()
def run(
    experiment: str = typer.Option("exp1", "--experiment", help=_experiments_help()),
    model: str = typer.Option(None, "--model", help="Model name sent to the endpoint; its slug names the split. Default with the embedded "
                                                    "model: smollm2."),
    base_url: str = typer.Option(None, "--base-url", help="OpenAI-compatible endpoint (e.g. http://localhost:8000/v1). Omit to start the "
                                                          "embedded local model."),
    dataset: Path = typer.Option(Path("mirror"), "--dataset", help="The dataset folder (from `mirror-hf build`)."),
    split: str = typer.Option(None, "--split", help="Split name (\\w+); default: the model's slug."),
    api_key_env: str = typer.Option("OPENAI_API_KEY", "--api-key-env", help="Environment variable holding the API key (never written "
                                                                            "anywhere)."),
    limit: int = typer.Option(None, "--limit", help="Items to run, spread evenly over domains (and subcategories within them)."),
    channels: str = typer.Option("", "--channels", help="Comma-separated channels of the experiment (see --experiment for each one's list "
                                                        "and defaults)."),
    conditions: str = typer.Option("", "--conditions", help="Exp9 conditions, e.g. C1,C2 (C2-C4 need the model's profile)."),
    paradigms: str = typer.Option("", "--paradigms", help="Exp9 paradigms, e.g. P1,P2."),
    matcher: str = typer.Option("strict", "--matcher", help="Parsing and answer matching: strict (ours) or upstream (the authors')."),
    samples: int = typer.Option(5, "--samples", help="Exp1 channel consistency: samples per item (k), in one request with n where the "
                                                     "endpoint honours it, else k requests."),
    sample_temperature: float = typer.Option(0.7, "--sample-temperature", help="Exp1 channel consistency: the samples' temperature."),
    answer_format: str = typer.Option("choices", "--answer-format", help="choices (four options, the paper's datasheet) or open (no "
                                                                         "options, as the authors' bank; items typed multiple_choice keep "
                                                                         "theirs)."),
    route_rule: str = typer.Option("weak_set", "--route-rule", help="Exp9 C4 routing: weak_set (the paper) or accuracy_below (the "
                                                                    "authors' runner, < 0.50)."),
    decisions: str = typer.Option(None, "--decisions", help="Exp9 decision rules: paper (the paper's stated rules; default), tags "
                                                            "(bracketed tags only) or upstream (the authors' runner; default with "
                                                            "--matcher upstream)."),
    false_score_control: bool = typer.Option(False, "--false-score-control", help="Exp9 Control 2: also run C2 with inverted scores (1 - "
                                                                                  "accuracy) on the first 150 fixed tasks, all paradigms."),
    resolver_accuracy: str = typer.Option("oracle", "--resolver-accuracy", help="Exp9 C4: the external resolver of routed components, "
                                                                                "oracle (always right, the paper) or its accuracy q in "
                                                                                "[0, 1]."),
    attack_wording: str = typer.Option("upstream", "--attack-wording", help="Exp5 attack prefixes: upstream (the authors' code) or paper "
                                                                            "(the paper's descriptions)."),
    min_strong_accuracy: float = typer.Option(None, "--min-strong-accuracy", help="Exp5: lowest Exp1 accuracy a strong domain may have "
                                                                                  "(default 0.25, chance among four choices)."),
    bank: str = typer.Option(None, "--bank", help="Task bank config of Exp4 and Exp6a/6b/6c: ours (default: exp4_templates, exp6a_tasks, "
                                                  "exp6b_flawed, exp6c_pairs) or the authors' imported one (upstream_exp4, "
                                                  "upstream_exp6a, upstream_exp6b, upstream_exp6c)."),
    temperature: float = typer.Option(0.0, "--temperature"),
    seed: str = typer.Option("0", "--seed", help="Generation seed sent to the provider ('none' to omit); recorded in every trial."),
    max_tokens: int = typer.Option(None, "--max-tokens", help="Per request; default: the experiment's (exp1 1024)."),
    extra_body: str = typer.Option("", "--extra-body", help="JSON object of provider-specific request fields (part of the request key)."),
    format_grammar: bool = typer.Option(False, "--format-grammar", help="Send each request its prompt's answer-format grammar (GBNF, "
                                                                        "field `grammar`: llama.cpp's llama-server and llama-cpp-python's "
                                                                        "server) so the model can write only the stated format; the "
                                                                        "prompts are unchanged. Exp1, Exp2, Exp3, Exp9; recorded in the "
                                                                        "manifest. Off by default."),
    concurrency: int = typer.Option(16, "--concurrency", help="Requests in flight at most (halved on 429s, then grows back)."),
    rpm: float = typer.Option(None, "--rpm", help="Requests-per-minute budget."),
    tpm: float = typer.Option(None, "--tpm", help="Tokens-per-minute budget (estimated before, corrected from usage after)."),
    timeout: float = typer.Option(120.0, "--timeout", help="Seconds per attempt."),
    max_attempts: int = typer.Option(6, "--max-attempts", help="Attempts per request for transient errors (429, 5xx, timeouts, resets)."),
    backoff_base: float = typer.Option(1.0, "--backoff-base", help="Seconds; retry n waits a random time up to base * 2^(n-1) (capped at "
                                                                   "60 s), or Retry-After."),
    max_retry_wait: float = typer.Option(120.0, "--max-retry-wait", help="Longest Retry-After honoured, seconds; a longer one fails that "
                                                                         "attempt."),
    max_failure_rate: float = typer.Option(0.5, "--max-failure-rate", help="If more than this share of trials failed (or all did): no "
                                                                           "split, exit code 2 (the results stay for --resume)."),
    resume: bool = typer.Option(False, "--resume", help="Continue a previous run: finished requests are not sent again."),
    restart: bool = typer.Option(False, "--restart", help="Discard a previous run's results file and start over."),
    replace: bool = typer.Option(False, "--replace", help="Replace the model's split if one exists that this run's journal (.runs/) did "
                                                          "not write (else refused before any request)."),
    keep_failed: bool = typer.Option(False, "--keep-failed", help="On --resume, keep recorded failures instead of trying them again."),
    dry_run: bool = typer.Option(False, "--dry-run", help="Print the number of calls, a token estimate and (with prices) a cost estimate, "
                                                          "then exit."),
    price_in: float = typer.Option(None, "--price-in", help="USD per million prompt tokens (for --dry-run and --max-cost)."),
    price_out: float = typer.Option(None, "--price-out", help="USD per million completion tokens."),
    max_cost: float = typer.Option(None, "--max-cost", help="Stop sending once the run has spent this many USD, earlier --resume sessions "
                                                            "included (needs prices)."),
    no_progress: bool = typer.Option(False, "--no-progress", help="No live progress bar."),
) -> None:
    """Run an experiment against an OpenAI-compatible endpoint (or the embedded model) into a new split."""
    from mirror_hf.runner import RunError, RunOptions
    from mirror_hf.runner import run as run_experiment

    try:
        extra = json.loads(extra_body) if extra_body else {}
    except (json.JSONDecodeError, RecursionError) as exc:
        raise UsageError(f"--extra-body is not JSON: {getattr(exc, 'msg', 'nested too deeply')}") from None
    plan = _plan_options(
        limit=limit, channels=channels, conditions=conditions, paradigms=paradigms, matcher=matcher, route_rule=route_rule,
        decisions=decisions, false_score_control=false_score_control, resolver_accuracy=resolver_accuracy,
        answer_format=answer_format, samples=samples, sample_temperature=sample_temperature, attack_wording=attack_wording,
        bank=bank, min_strong_accuracy=min_strong_accuracy,
    )
    options = RunOptions(
        dataset=dataset, model=model, base_url=base_url, experiment=_experiment(experiment), split=split, api_key_env=api_key_env,
        plan=plan, temperature=temperature, seed=_parse_seed(seed), max_tokens=max_tokens, extra_body=extra,
        format_grammar=format_grammar, concurrency=concurrency, rpm=rpm, tpm=tpm, timeout=timeout, max_attempts=max_attempts,
        backoff_base=backoff_base,
        max_retry_wait=max_retry_wait, max_failure_rate=max_failure_rate,
        resume=resume, restart=restart, replace=replace, retry_failed=not keep_failed, dry_run=dry_run,
        price_in=price_in, price_out=price_out, max_cost=max_cost, progress=not no_progress,
    )
    from mirror_hf.metadata import MetadataWorker

    try:
        if dry_run:
            report = run_experiment(options, on_written=_refresh())
        else:
            with MetadataWorker() as refresh:  # the card and Croissant: imported beside the run, not in it
                report = run_experiment(options, on_written=refresh, records_worker=True)
    except RunError as exc:
        raise UsageError(str(exc)) from None
    except KeyboardInterrupt:
        typer.echo(
            f"\ninterrupted: every finished request is kept under {dataset.absolute() / '.runs'}; "
            "rerun the same command with --resume to continue", err=True,
        )
        raise SystemExit(130) from None
    except Exception as exc:  # the embedded model's errors carry their install hint
        from mirror_hf.embedded import EmbeddedUnavailable

        if isinstance(exc, EmbeddedUnavailable):
            raise UsageError(str(exc)) from None
        raise
    print_report(report)


def print_report(report) -> None:
    for note in report.notes:
        typer.echo(f"note: {note}")
    if report.estimate is not None:
        e = report.estimate
        typer.echo(f"dry run: {e.trials} trials of {report.experiment}; {e.requests} calls to send ({e.already_done} already done)")
        if e.requests_if_n_ignored:
            typer.echo(f"  that is if the endpoint honours n (the consistency channel's k samples in one request per item); "
                       f"{e.requests + e.requests_if_n_ignored} calls if it ignores n")
        if e.planned_followups:
            typer.echo(f"  plus {e.planned_followups} second-turn calls, one per trial after its first answer (in the token figures)")
        if e.tool_followups_possible:
            typer.echo(f"  plus up to {e.tool_followups_possible} tool follow-up calls (only when the model calls the calculator)")
        typer.echo(f"  prompt tokens ~{e.prompt_tokens:,} (4 chars/token); "
                   f"completion tokens <= {e.max_completion_tokens:,} (max_tokens x calls)")
        if e.cost is not None:
            typer.echo(f"  cost <= ${e.cost:,.4f} (at the upper bound of completion tokens)")
        return
    if report.stopped_by_budget:
        typer.echo(
            f"stopped: --max-cost reached (${report.cost:.4f} spent) after {report.trials} trials; "
            f"every finished request is kept in {report.results_file}. Rerun with --resume and a higher --max-cost to finish."
        )
        return
    typer.echo(
        f"{report.trials} trials ({report.failed} failed, {report.truncated} truncated); "
        f"{report.sent} requests sent, {report.reused} reused; {report.prompt_tokens:,} prompt + "
        f"{report.completion_tokens:,} completion tokens" + (f"; ${report.cost:.4f}" if report.cost is not None else "")
        + f"; {report.seconds:.1f} s ("
        + ", ".join(f"{k} {v:.1f} s" for k, v in report.timings.items()) + ")"
    )
    typer.echo(f"wrote split '{report.split}' of config 'trials_{report.experiment}': {report.split_path}")
    typer.echo(f"load it: load_dataset({str(report.dataset)!r}, 'trials_{report.experiment}', split={report.split!r})")
    if report.split_path is not None:
        import polars as pl

        from mirror_hf.unusable import unusable_lines, unusable_shares

        for line in unusable_lines(unusable_shares({report.experiment: pl.read_parquet(report.split_path)})):
            typer.echo(line)


@app.command()
def profile(
    dataset: Path = typer.Option(Path("mirror"), "--dataset", help="The dataset folder."),
    model: str = typer.Option(None, "--model", help="The model whose trials_exp1 split to profile (its slug names the split)."),
    split: str = typer.Option(None, "--split", help="The split name, if not the model's slug."),
    weak_policy: str = typer.Option("median_or_bottom_k", "--weak-policy", help="median_or_bottom_k, threshold, bottom_k or absolute."),
    k: int = typer.Option(2, "--k", help="k of median_or_bottom_k / bottom_k."),
    replace: bool = typer.Option(False, "--replace", help="Replace the model's profile if one exists with other content (else refused)."),
    min_strong_accuracy: float = typer.Option(None, "--min-strong-accuracy", help="Lowest accuracy a strong domain may have (default "
                                                                                  "0.25, chance among four choices)."),
) -> None:
    """Build a model's Exp1 profile (the `profiles` split Exp9 conditions C2-C4 read)."""
    from rich.console import Console
    from rich.table import Table

    from mirror_hf.runner import RunError, model_slug
    from mirror_hf.runner.profile import ProfileError, build_profile, write_profile

    if not model and not split:
        raise UsageError("pass --model NAME (or --split NAME)")
    if k < 1:
        raise UsageError(f"--k must be at least 1, got {k}")
    from mirror_hf.integrity import check_folder

    if (dataset / "data").is_dir():
        check_folder(dataset)  # a broken folder is refused (naming the problem and its repair)
    try:
        name = split or model_slug(model)
        rows = build_profile(dataset.absolute(), name, dedup_key=_exp1_key(), weak_policy=weak_policy, k=k, min_strong=min_strong_accuracy)
    except (ProfileError, RunError) as exc:
        raise UsageError(str(exc)) from None
    path = write_profile(dataset.absolute(), name, rows, replace=replace)
    _refresh()(dataset.absolute())
    table = Table(title=f"profile of {name} ({weak_policy})")
    for col in ("domain", "natural", "wagering", "gap", "n nat", "n wag", "strength"):
        table.add_column(col, justify="left" if col in ("domain", "strength") else "right")
    fmt = lambda v: "-" if v is None else f"{v:.2f}"
    for r in rows:
        table.add_row(r["domain"], fmt(r["natural_accuracy"]), fmt(r["wagering_accuracy"]), fmt(r["mirror_gap"]),
                      str(r["n_natural"]), str(r["n_wagering"]), r["strength"])
    Console().print(table)
    from mirror_hf.scoring import MIN_STRONG_ACCURACY, no_strong_domain

    floor = MIN_STRONG_ACCURACY if min_strong_accuracy is None else min_strong_accuracy
    none_strong = no_strong_domain({r["domain"]: r["natural_accuracy"] for r in rows}, {r["domain"]: r["strength"] for r in rows},
                                   what=f"profile of {name}", min_strong=floor)
    if none_strong:
        typer.echo(none_strong + " (Exp5 and `tasks tailor` refuse this profile)")
    typer.echo(f"wrote split '{name}' of config 'profiles': {path}")


@app.command()
def quickstart(
    dataset: Path = typer.Option(Path("mirror"), "--dataset", help="Dataset folder: reused if it exists, else built."),
    per_domain: int = typer.Option(1, "--per-domain", help="Exp1 items per domain (each through all five channels; about 5.5 requests per "
                                                           "item)."),
    exp3_tasks: int = typer.Option(3, "--exp3-tasks", help="Exp3 composite tasks in the slice (6 requests each)."),
    exp9_tasks: int = typer.Option(2, "--exp9-tasks", help="Exp9 fixed tasks in the slice, each under every condition x paradigm (about "
                                                           "10 requests of up to --exp9-max-tokens each, the slowest part of the "
                                                           "quickstart)."),
    max_tokens: int = typer.Option(64, "--max-tokens", help="Per Exp1 and Exp3 request (the embedded model is slow on CPU; 48 cut 2 of 22 "
                                                            "grammar-constrained Exp1 answers)."),
    exp9_max_tokens: int = typer.Option(128, "--exp9-max-tokens", help="Per Exp9 request: two parts, each with its decision and answer."),
    format_grammar: bool = typer.Option(True, "--format-grammar/--no-format-grammar", help="Constrain the embedded model to each prompt's "
                                                                                           "stated answer format (run --format-grammar; "
                                                                                           "the prompts are unchanged): without it "
                                                                                           "SmolLM2-135M leaves most trials unparsed."),
    no_progress: bool = typer.Option(False, "--no-progress"),
) -> None:
    """A small real evaluation on the embedded local model: Exp1 (all channels), an Exp3 slice and an
    Exp9 slice; prints where the trials went and a short score table."""
    import os
    import time

    started, load_before = time.monotonic(), os.getloadavg()[0] if hasattr(os, "getloadavg") else None
    from mirror_hf.build import BuildError, BuildRequest, build
    from mirror_hf.embedded import EmbeddedUnavailable, check_available, embedded_server
    from mirror_hf.folder import split_files
    from mirror_hf.runner import RunError, RunOptions
    from mirror_hf.runner import run as run_experiment
    from mirror_hf.runner.plan import PlanOptions
    from mirror_hf.runner.profile import ProfileError, build_profile, write_profile

    for flag, value in (("--per-domain", per_domain), ("--exp3-tasks", exp3_tasks), ("--exp9-tasks", exp9_tasks),
                        ("--max-tokens", max_tokens), ("--exp9-max-tokens", exp9_max_tokens)):
        if value < 1:
            raise UsageError(f"{flag} must be at least 1, got {value}")
    try:
        check_available()
    except EmbeddedUnavailable as exc:
        raise UsageError(str(exc)) from None
    folder = dataset.absolute()
    building = None
    if not (folder / "data").is_dir():
        from concurrent.futures import ThreadPoolExecutor

        typer.echo(f"building the dataset folder {folder} ...")
        # on a thread while the embedded server starts: the build keeps one core, the server's start the other
        pool = ThreadPoolExecutor(1)
        building = pool.submit(build, BuildRequest(out=folder))
        pool.shutdown(wait=False)
    common = {"dataset": folder, "progress": not no_progress, "resume": True, "format_grammar": format_grammar}
    refresh = _refresh()
    reports = []
    try:
        with embedded_server() as server:
            if building is not None:
                try:
                    building.result()
                except BuildError as exc:
                    raise UsageError(str(exc)) from None
            configs = split_files(folder)
            typer.echo(f"embedded model {server.model} ({server.model_path.name}) at {server.base_url}")
            reports.append(run_experiment(RunOptions(experiment=_experiment("exp1"), plan=PlanOptions(limit=per_domain * 8),
                                                     max_tokens=max_tokens, **common),
                                            server=server, on_written=refresh))
            print_report(reports[-1])
            if "exp3_composite" in configs:
                reports.append(run_experiment(RunOptions(experiment=_experiment("exp3"), plan=PlanOptions(limit=exp3_tasks),
                                                         max_tokens=max_tokens, **common),
                                            server=server, on_written=refresh))
                print_report(reports[-1])
            else:
                typer.echo("skipping the Exp3 slice: the folder has no exp3_composite config")
            if "exp9_fixed" in configs:
                rows = build_profile(folder, reports[0].split, dedup_key=_exp1_key())
                write_profile(folder, reports[0].split, rows, replace=True)  # derived from the trials just written
                refresh(folder)
                typer.echo(f"wrote the Exp1 profile of {reports[0].split} (config 'profiles')")
                reports.append(run_experiment(RunOptions(experiment=_experiment("exp9"), plan=PlanOptions(limit=exp9_tasks),
                                                         max_tokens=exp9_max_tokens,
                                                         **common),
                                            server=server, on_written=refresh))
                print_report(reports[-1])
            else:
                typer.echo("skipping the Exp9 slice: the folder has no exp9_fixed config")
    except (RunError, ProfileError, EmbeddedUnavailable) as exc:
        raise UsageError(str(exc)) from None
    typer.echo("")
    typer.echo("trials written:")
    for r in reports:
        typer.echo(f"  trials_{r.experiment}/{r.split}: {r.trials} records -> {r.split_path}")
    _score_table(folder, reports)
    typer.echo("(SmolLM2-135M is a tiny model: these numbers exercise the pipeline, they measure nothing.)")
    from mirror_hf.cli.report_cmd import next_steps, quick_report

    quick_report(folder, folder.parent / f"{folder.name}-report")
    next_steps(folder)
    _closing_note(folder, reports, format_grammar, time.monotonic() - started, load_before)


def _closing_note(folder: Path, reports, format_grammar: bool, seconds: float, load_before: float | None) -> None:
    """How many of the trials the numbers above rest on could be parsed, and how long it all took
    with how busy the machine was (the same counts as the report's data-quality block)."""
    import os

    import polars as pl

    from mirror_hf.report.quality import quality_rows

    parts, failed, total = [], 0, 0
    for r in reports:
        if r.split_path is None:
            continue
        rows = quality_rows(pl.read_parquet(r.split_path), r.experiment)
        f, n = sum(q.parse_failures for q in rows), sum(q.trials for q in rows)
        failed, total = failed + f, total + n
        parts.append(f"{r.experiment} {f}/{n}")
    minutes, secs = divmod(round(seconds), 60)
    load_after = os.getloadavg()[0] if hasattr(os, "getloadavg") else None
    load = "" if load_before is None else (f" (load average {load_before:.1f} at the start, {load_after:.1f} at the end, "
                                           f"on {os.cpu_count()} cores)")
    typer.echo("")
    if total:
        how = "with --format-grammar (each prompt's answer format enforced)" if format_grammar else "without --format-grammar"
        typer.echo(f"parse failures: {failed} of {total} trials ({failed / total:.0%}; {', '.join(parts)}), {how}")
    typer.echo(f"quickstart took {minutes} min {secs} s{load}")


def _score_table(folder: Path, reports) -> None:
    """The models' headline numbers (`mirror_hf.experiments.headline`: the same values `score` reports)."""
    import polars as pl
    from rich.console import Console
    from rich.table import Table

    from mirror_hf.experiments import headline, read_trial_tables

    written = [r.split_path for r in reports if r.split_path is not None]
    models = sorted({m for path in written for m in pl.read_parquet(path, columns=["model"])["model"].drop_nulls().to_list()})
    from mirror_hf.report.terminal import Footnotes, dash_reason
    from mirror_hf.unusable import unusable_lines, unusable_shares

    tables = read_trial_tables(folder)
    shares = unusable_shares(tables, tuple(models))
    for model, values in headline(tables, models=tuple(models)).items():
        notes = Footnotes()
        share = {s.experiment: s for s in shares if s.model == model}
        table = Table(title=f"headline numbers of {model} (point estimates)")
        for col, justify in (("metric", "left"), ("value", "right"), ("n", "right"), ("unparsed/failed", "right"), ("better", "left")):
            table.add_column(col, justify=justify)
        for v in values:
            value = (f"{v.value:.3f}" if v.value is not None
                     else "- " + notes.mark(dash_reason(tables, model, v.headline.key, v.headline.experiment)))
            bad = share.get(v.headline.experiment)
            table.add_row(v.headline.label, value, "-" if v.n is None else str(v.n),
                          f"{bad.share:.0%} of {bad.trials}" if bad else "-", v.headline.direction)
        console = Console()
        console.print(table)
        for line in notes.lines() + unusable_lines([s for s in shares if s.model == model]):
            console.print(line, markup=False)


def _exp1_key() -> tuple[str, ...]:
    """Exp1's de-duplication key (the profile pools re-runs as `score` does)."""
    from mirror_hf.experiments import get

    return get("exp1").dedup_key
