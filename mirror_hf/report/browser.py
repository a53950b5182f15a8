"""The trial browser's data: per model and experiment, a small index (filter codes for every trial)
and the trials themselves in chunks, each a `.js` file that calls `mirrorIndex(...)` /
`mirrorChunk(...)`. Script files, not JSON, because a page opened from file:// may not fetch();
the page loads the index of a split when it is selected and only the chunks of the visible page,
so a 25,000-trial split opens as fast as a small one."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import polars as pl

from mirror_hf.folder import split_files
from mirror_hf.participants import display, kind_of_runs
from mirror_hf.report.quality import group_column

CHUNK = 250
STATUSES = ("correct", "wrong", "ungraded", "failed")
TEXT_LIMIT = 20_000  # characters of one text field shown; the parquet keeps the full text
_META = {"run_id", "model", "experiment", "item_id", "request_key", "prompt", "prompt_sha", "raw_response", "reasoning",
         "domain", "subcategory", "difficulty", "channel", "condition", "paradigm", "latency_ms", "attempts",
         "prompt_tokens", "completion_tokens", "temperature", "seed", "system_fingerprint", "tool_results"}
BANKS = {  # experiment -> (config, id column, gold expression, question column), first present wins
    "exp1": [("questions", "id"), ("upstream_questions", "id")],
    "exp2": [("exp2_transfer", "task_id"), ("upstream_transfer_tasks", "task_id")],
    "exp3": [("exp3_composite", "task_id"), ("upstream_exp3_tasks", "task_id")],
    "exp9": [("exp9_fixed", "task_id"), ("exp9_tailored", "task_id"), ("upstream_exp9_tasks", "task_id")],
}


@dataclass(frozen=True)
class Dataset:
    key: str
    model: str
    experiment: str
    trials: int
    chunks: int

    def to_json(self) -> dict:
        return {"key": self.key, "model": self.model, "experiment": self.experiment, "trials": self.trials, "chunks": self.chunks}


def _bank(root: Path, experiment: str) -> pl.DataFrame | None:
    """item id -> gold answer, question text and subcategory, from the folder's task or question bank."""
    files = split_files(root)
    parts = []
    for config, id_col in BANKS.get(experiment, []):
        for f in files.get(config, []):
            frame = pl.read_parquet(f.path)
            if experiment == "exp9":
                gold = (pl.lit("A: ") + pl.col("correct_answer_a").fill_null("?")
                        + pl.lit(" | B: ") + pl.col("correct_answer_b").fill_null("?"))
                question = pl.concat_str([pl.col("task_text"), pl.col("part1_text"), pl.col("part2_text")], separator="\n",
                                         ignore_nulls=True)
                sub = pl.concat_str([pl.col("subcategory_a"), pl.col("subcategory_b")], separator=" + ", ignore_nulls=True)
            else:
                gold = pl.col("answer")
                question = pl.col("question") if "question" in frame.columns else pl.col("task_text")
                sub = pl.col("subcategory") if "subcategory" in frame.columns else pl.lit(None, dtype=pl.String)
            parts.append(frame.select(pl.col(id_col).alias("item_id"), gold.cast(pl.String).alias("_gold"),
                                      question.cast(pl.String).alias("_question"), sub.cast(pl.String).alias("_bank_sub")))
    if not parts:
        return None
    return pl.concat(parts).unique("item_id", keep="first")


def status_expr(frame: pl.DataFrame, experiment: str) -> pl.Expr:
    """failed (request error) / ungraded (no grade) / correct / wrong; Exp9: correct = both parts."""
    failed = pl.col("api_error").is_not_null() if "api_error" in frame.columns else pl.lit(False)
    if "api_success" in frame.columns:
        failed = failed | (pl.col("api_success") == False).fill_null(False)  # noqa: E712
    grade = pl.col("correct") if "correct" in frame.columns else pl.lit(None, dtype=pl.Boolean)
    if experiment == "exp9" and {"component_a_correct", "component_b_correct"} <= set(frame.columns):
        grade = pl.coalesce(grade, pl.col("component_a_correct") & pl.col("component_b_correct"))
    return (pl.when(failed).then(pl.lit(3)).when(grade.is_null()).then(pl.lit(2))
            .when(grade).then(pl.lit(0)).otherwise(pl.lit(1))).cast(pl.Int8)


def _codes(series: pl.Series) -> tuple[list[str], list[int]]:
    values = series.fill_null("(none)").cast(pl.String)
    vocab = sorted(values.unique().to_list())
    lookup = {v: i for i, v in enumerate(vocab)}
    return vocab, values.replace_strict(lookup, return_dtype=pl.Int32).to_list()


def write_browser(root: Path, tables: dict, out: Path) -> list[Dataset]:
    """Write `out/trials/<key>/index.js` and `c<N>.js` for every model x experiment; return the list."""
    datasets: list[Dataset] = []
    for experiment in ("exp1", "exp2", "exp3", "exp9"):
        frame = tables.get(experiment)
        if frame is None or frame.height == 0:
            continue
        bank = _bank(root, experiment)
        if bank is not None:
            frame = frame.join(bank, on="item_id", how="left", maintain_order="left")
        for (model,), part in sorted(frame.partition_by("model", as_dict=True, maintain_order=True).items(), key=lambda kv: str(kv[0][0])):
            if model is None:
                continue
            key = f"{experiment}__{''.join(ch if ch.isalnum() else '_' for ch in model)}"
            kind = kind_of_runs(part["run_id"].unique().to_list()) if "run_id" in part.columns else None
            datasets.append(_write_one(part, experiment, display(model, kind), key, out / "trials" / key))
    return datasets


def _write_one(part: pl.DataFrame, experiment: str, model: str, key: str, folder: Path) -> Dataset:
    folder.mkdir(parents=True, exist_ok=True)
    sub = pl.col("subcategory") if "subcategory" in part.columns else pl.lit(None, dtype=pl.String)
    if "_bank_sub" in part.columns:
        sub = pl.coalesce(sub, pl.col("_bank_sub"))
    domain = pl.col("domain") if "domain" in part.columns and part["domain"].null_count() < part.height else (
        pl.concat_str([pl.col("domain_a"), pl.col("domain_b")], separator=" + ", ignore_nulls=True) if "domain_a" in part.columns
        else pl.lit(None, dtype=pl.String))
    view = part.with_columns(
        domain.cast(pl.String).alias("_domain"), sub.cast(pl.String).alias("_sub"),
        group_column(part).alias("_group"), status_expr(part, experiment).alias("_status"),
    )
    index = {"key": key, "model": model, "experiment": experiment, "n": view.height, "chunk": CHUNK, "statuses": list(STATUSES)}
    for name, column in (("domain", "_domain"), ("subcategory", "_sub"), ("group", "_group")):
        vocab, codes = _codes(view[column])
        index[name] = {"values": vocab, "codes": codes}
    index["status"] = view["_status"].to_list()
    (folder / "index.js").write_text(f"mirrorIndex({json.dumps(key)}, {json.dumps(index, separators=(',', ':'))});\n")

    parsed_cols = [c for c in part.columns if c not in _META and not c.startswith("_")]

    def text(column: str) -> pl.Expr:
        if column not in view.columns:
            return pl.lit(None, dtype=pl.String)
        value = pl.col(column).cast(pl.String)
        cut = value.str.slice(0, TEXT_LIMIT) + pl.lit("\n[… more characters in the parquet file]")
        return pl.when(value.str.len_chars() > TEXT_LIMIT).then(cut).otherwise(value)

    # polars writes the rows as JSON lines (fast, in Rust); chunks are runs of lines. Parsed fields
    # travel as one object with its nulls; the page shows the non-null ones.
    rows = view.select(
        text("item_id").alias("id"), text("prompt").alias("prompt"), text("_question").alias("question"),
        text("raw_response").alias("response"), text("reasoning").alias("reasoning"), text("_gold").alias("gold"),
        pl.struct([pl.col(c) for c in parsed_cols]).alias("parsed") if parsed_cols else pl.lit(None).alias("parsed"),
    ).write_ndjson().splitlines()
    chunks = 0
    for start in range(0, len(rows), CHUNK):
        payload = "[" + ",".join(rows[start:start + CHUNK]) + "]"
        (folder / f"c{chunks}.js").write_text(f"mirrorChunk({json.dumps(key)}, {chunks}, {payload});\n", encoding="utf-8")
        chunks += 1
    return Dataset(key, model, experiment, view.height, chunks)
