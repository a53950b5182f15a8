"""Data quality per model: how many trials each channel (Exp1/Exp3) or condition x paradigm (Exp9)
has, and how many of them failed to parse, were truncated, failed at the API or stayed ungraded;
plus the run settings from each split's manifest. Counts only: no metric is computed here."""

from __future__ import annotations

from dataclasses import dataclass

import polars as pl

EXPERIMENTS = ("exp1", "exp2", "exp3", "exp9")


@dataclass(frozen=True)
class QualityRow:
    experiment: str
    group: str  # channel, or condition x paradigm
    trials: int
    parse_failures: int
    truncated: int
    failed_requests: int
    ungraded: int


def group_column(frame: pl.DataFrame) -> pl.Expr:
    """The label a trial is grouped and filtered by: its channel (Exp3: channel · target), or `C1 x P1` for Exp9."""
    if "condition" in frame.columns and "channel" not in frame.columns:
        return (pl.col("condition").fill_null("?") + pl.lit(" x ") + pl.col("paradigm").fill_null("?"))
    if "channel" in frame.columns and "target" in frame.columns:  # Exp3: what was asked of which item
        return pl.col("channel").fill_null("?") + pl.lit(" · ") + pl.col("target").fill_null("composite")
    if "channel" in frame.columns:
        return pl.col("channel").fill_null("?")
    return pl.lit("all")


def quality_rows(frame: pl.DataFrame, experiment: str) -> list[QualityRow]:
    def flag(column: str, expr) -> pl.Expr:
        return expr if column in frame.columns else pl.lit(False)

    parse_fail = flag("parse_success", pl.col("parse_success") == False).fill_null(False)  # noqa: E712
    truncated = flag("truncated", pl.col("truncated")).fill_null(False)
    failed = flag("api_error", pl.col("api_error").is_not_null())
    if "api_success" in frame.columns:
        failed = failed | (pl.col("api_success") == False).fill_null(False)  # noqa: E712
    ungraded = flag("correct", pl.col("correct").is_null()) if "correct" in frame.columns else pl.lit(True)
    if experiment == "exp9":
        ungraded = pl.col("component_a_correct").is_null() & pl.col("component_b_correct").is_null() if {
            "component_a_correct", "component_b_correct"} <= set(frame.columns) else ungraded
    grouped = (
        frame.with_columns(group_column(frame).alias("_group"))
        .group_by("_group", maintain_order=True)
        .agg(
            pl.len().alias("trials"),
            parse_fail.sum().alias("parse_failures"),
            truncated.sum().alias("truncated"),
            failed.sum().alias("failed_requests"),
            ungraded.sum().alias("ungraded"),
        )
        .sort("_group")
    )
    counts = ("trials", "parse_failures", "truncated", "failed_requests", "ungraded")
    return [QualityRow(experiment, r["_group"], *(int(r[k]) for k in counts)) for r in grouped.iter_rows(named=True)]


def quality_by_model(tables: dict) -> dict[str, list[QualityRow]]:
    out: dict[str, list[QualityRow]] = {}
    for experiment in EXPERIMENTS:
        frame = tables.get(experiment)
        if frame is None or frame.height == 0:
            continue
        for (model,), part in frame.partition_by("model", as_dict=True, maintain_order=True).items():
            if model is not None:
                out.setdefault(model, []).extend(quality_rows(part, experiment))
    return out


def run_settings(manifest: dict | None, run_ids: list[str]) -> dict[str, str]:
    """What a reader needs to judge the numbers: generation settings, matcher, endpoint (no secrets:
    the manifest never holds one). Imported splits have no manifest: their source file is named."""
    from mirror_hf.participants import HUMAN, SIMULATED, SIMULATED_WARNING, kind_of_runs

    kind = (manifest or {}).get("source") if (manifest or {}).get("source") in (HUMAN, SIMULATED) else kind_of_runs(run_ids)
    if kind == SIMULATED:
        return {"source": f"WARNING: {SIMULATED_WARNING}", **({"file": manifest.get("response_file")} if manifest else {})}
    if kind == HUMAN and manifest:
        counts = manifest.get("counts") or {}
        return {"source": f"human participant {manifest.get('participant')} (import-human of {manifest.get('response_file')})",
                "packet": str(manifest.get("packet_hash", ""))[:12], "matcher": str((manifest.get("settings") or {}).get("matcher")),
                "finished": str(counts.get("finished")), "missing steps": str(counts.get("missing_steps")),
                "exported": str(manifest.get("finished"))}
    if not manifest:
        sources = sorted({r.split(":")[1] for r in run_ids if r and r.startswith("upstream:") and r.count(":") >= 2})
        return {"source": "imported from the authors' files (" + ", ".join(sources) + ")"} if sources else {"source": "no run manifest"}
    generation = manifest.get("generation") or {}
    settings = manifest.get("settings") or {}
    out = {
        "max_tokens": generation.get("max_tokens"),
        "temperature": generation.get("temperature"),
        "seed": generation.get("seed"),
        "matcher": settings.get("matcher"),
        "format_grammar": "on (each prompt's answer format enforced)" if settings.get("format_grammar") else None,
        "route_rule": settings.get("route_rule") if manifest.get("experiment") == "exp9" else None,
        "channels": ",".join(settings["channels"]) if settings.get("channels") else None,
        "endpoint": manifest.get("endpoint"),
        "mirror-hf": manifest.get("version"),
        "finished": manifest.get("finished"),
    }
    return {k: str(v) for k, v in out.items() if v is not None}
