"""Exp1's signals compared on one scale: every channel's confidence (behavioural, self-report and the
internal signals consistency and logprob) scored by AUROC, AURC, risk at 80% coverage and PRR, and,
per behavioural channel, what its confidence tracks (`_tracking`)."""

from __future__ import annotations

import numpy as np
import polars as pl

from mirror_hf.protocol.exp1 import behavioural_channels
from mirror_hf.scoring._bootstrap import CI
from mirror_hf.scoring._selective import COVERAGE, selective
from mirror_hf.scoring._tracking import tracking
from mirror_hf.scoring._units import SampleAgreement

INTERNAL = ("consistency", "logprob")


def _confidence(part: pl.DataFrame) -> np.ndarray:
    if "confidence" not in part.columns:
        return np.full(part.height, np.nan)
    return part["confidence"].cast(pl.Float64).fill_null(np.nan).to_numpy()


def _usable(part: pl.DataFrame) -> pl.DataFrame:
    return part.filter(pl.col("api_error").is_null()) if "api_error" in part.columns else part


def signal_scores(by_channel: dict[str, pl.DataFrame], *, ci: CI) -> dict:
    """Per channel: {"status": "ok", "auroc", "aurc", "risk_at_80", "prr"} (Estimates, CIs from shared
    resamples within domains), or {"status": "unavailable", "reason"} for a logprob channel whose
    endpoint returned no token probabilities."""
    out: dict = {}
    for channel in sorted(by_channel):
        part = _usable(by_channel[channel])
        if channel == "logprob" and "logprobs_available" in part.columns and not part["logprobs_available"].fill_null(False).any():
            out[channel] = {"status": "unavailable", "reason": "the endpoint returned no token log-probabilities"}
            continue
        conf = _confidence(part)
        if not (~np.isnan(conf)).any():
            continue
        got = selective(conf, part["correct"], coverage=COVERAGE, ci=ci, domain=part["domain"])
        got[f"risk_at_{round(COVERAGE * 100)}"] = got.pop("risk_at_coverage")
        out[channel] = {"status": "ok", "kind": "internal" if channel in INTERNAL else
                        "behavioural" if channel in behavioural_channels() else "self-report", **got}
    return out


def tracking_scores(by_channel: dict[str, pl.DataFrame], *, ci: CI) -> dict:
    """Per behavioural channel: both partial correlations with the items' sample agreement (from the
    consistency channel), overall and per domain, and the one-line reading. Empty without a
    consistency channel."""
    cons = by_channel.get("consistency")
    if cons is None or "sample_agreement" not in cons.columns:
        return {}
    agreement = _usable(cons).select("item_id", pl.col("sample_agreement").cast(pl.Float64).alias("_z")).unique("item_id", keep="last")
    out = {}
    for channel in behavioural_channels():
        part = by_channel.get(channel)
        if part is None:
            continue
        joined = _usable(part).join(agreement, on="item_id", how="inner")
        if joined.height < 3:
            continue
        z = joined["_z"].fill_null(np.nan).to_numpy()
        out[channel] = tracking(_confidence(joined), joined["correct"], z, domain=joined["domain"], ci=ci, channel=channel)
    return out


def subcategory_agreement(frame: pl.DataFrame) -> SampleAgreement | None:
    """The model's mean sample agreement per (domain, subcategory) over its consistency-channel
    records (Exp9's sampling self-consistency baseline), or None without any."""
    if "sample_agreement" not in frame.columns:
        return None
    cons = _usable(frame.filter(pl.col("channel") == "consistency")).filter(pl.col("sample_agreement").is_not_null())
    if not cons.height:
        return None
    means = cons.group_by("domain", "subcategory").agg(pl.col("sample_agreement").mean())
    return {(d, s): float(v) for d, s, v in means.iter_rows()}
