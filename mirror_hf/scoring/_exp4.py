"""Exp4's scorer over its trial table: AI and SAR per channel (protocol §4.9-4.10).

One row per conversation carries, per format channel, the Phase-C signal on the related and on the
unrelated item; the wager channel is read in bet points (1-10, so AI lies in [-9, 9], as the paper
reports it), the others as their Exp1 signal in [0, 1]. AI is the true-feedback condition's
(condition A, the paper's Table 1); SAR divides the fabricated-feedback AI by it. Both variants of
AI are reported: `paper` pairs the two signals of the same trial, `upstream` the authors' unaligned
lists (in record order). Conversations that did not finish (a failed turn) are left out.
"""

from __future__ import annotations

import polars as pl

from mirror_hf.scoring._adaptation import AI_VARIANTS, ai, sar
from mirror_hf.scoring._bootstrap import CI
from mirror_hf.scoring._schema import Variant

WAGER = "wagering"


def exp4_signals(frame: pl.DataFrame) -> pl.DataFrame:
    """One row per (conversation, channel), in record order: feedback, domain (the burn domain),
    channel, related, unrelated (null: not readable)."""
    if "api_error" in frame.columns:
        frame = frame.filter(pl.col("api_error").is_null())
    frame = frame.filter(pl.col("channels").is_not_null()).with_row_index("_order")
    if frame.height == 0:
        return pl.DataFrame(schema={"feedback": pl.String, "domain": pl.String, "channel": pl.String,
                                    "related": pl.Float64, "unrelated": pl.Float64})
    long = frame.select("_order", "feedback", "domain", "channels", "signal_related", "signal_unrelated",
                        "bet_related", "bet_unrelated").explode(["channels", "signal_related", "signal_unrelated"])
    wager = pl.col("channels") == WAGER
    return long.select(
        "feedback", "domain", pl.col("channels").alias("channel"),
        pl.when(wager).then(pl.col("bet_related").cast(pl.Float64)).otherwise(pl.col("signal_related")).alias("related"),
        pl.when(wager).then(pl.col("bet_unrelated").cast(pl.Float64)).otherwise(pl.col("signal_unrelated")).alias("unrelated"),
    )


def score_exp4(frame: pl.DataFrame, *, variant: Variant = "paper", ci: CI = True) -> dict:
    rows = exp4_signals(frame)
    if rows.height == 0:
        return {}
    out: dict = {"ai_by_channel": {}, "sar_by_channel": {}}
    for channel in rows["channel"].unique(maintain_order=True).to_list():
        part = rows.filter(pl.col("channel") == channel)
        true = part.filter(pl.col("feedback") == "true")
        by_variant = {v: ai(true["domain"], true["related"], true["unrelated"], variant=v,
                            ci=ci if v == "paper" else False) for v in AI_VARIANTS}
        out["ai_by_channel"][channel] = by_variant
        out["sar_by_channel"][channel] = sar(part["feedback"], part["domain"], part["related"], part["unrelated"],
                                             variant=variant, ci=ci)
        if channel == WAGER:
            out["ai"] = by_variant[variant]
            out["ai_paper"], out["ai_upstream"] = by_variant["paper"], by_variant["upstream"]
            out["sar"] = out["sar_by_channel"][channel]
    return out
