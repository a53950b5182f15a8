"""Exp5's scorer over its trial table: each attacked trial paired with its clean twin (same item and
channel, `attack` null) and handed to `ars`."""

from __future__ import annotations

import polars as pl

from mirror_hf.scoring._bootstrap import CI
from mirror_hf.scoring._robustness import ars
from mirror_hf.scoring._schema import Variant


def exp5_pairs(frame: pl.DataFrame) -> pl.DataFrame:
    """One row per attacked trial: attack, channel, item_id, its signal and the clean control's
    signal of the same item and channel (null when the clean trial is missing or failed)."""
    if "api_error" in frame.columns:
        frame = frame.filter(pl.col("api_error").is_null())
    signal = pl.col("signal").cast(pl.Float64)
    clean = frame.filter(pl.col("attack").is_null()).select("item_id", "channel", signal.alias("clean_signal"))
    attacked = frame.filter(pl.col("attack").is_not_null()).select("item_id", "channel", "attack", signal.alias("signal"))
    return attacked.join(clean, on=["item_id", "channel"], how="left")


def score_exp5(frame: pl.DataFrame, *, variant: Variant = "paper", ci: CI = True) -> dict:
    pairs = exp5_pairs(frame)
    if pairs.height == 0:
        return {}
    return {"ars": ars(pairs["attack"], pairs["channel"], pairs["signal"], pairs["clean_signal"], variant=variant, ci=ci)}
