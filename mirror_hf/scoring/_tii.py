"""TII, the Transfer Influence Index of Exp2 (spec §4.7).

Per channel c: Spearman rho between the model's Exp1 natural accuracy in each transfer task's hidden
source domain and the channel's confidence signal on that task (at least 3 tasks, both sides
varying). `variant="paper"` (default): mean of |rho| over channels with data, in [0, 1];
`variant="upstream"`: the signed mean (`analyze_experiment_2.py`'s `transfer_mci`), in [-1, 1].
The bootstrap resamples tasks.
"""

from __future__ import annotations

from typing import Literal

import numpy as np
import polars as pl

from mirror_hf.scoring._bootstrap import CI, Cells
from mirror_hf.scoring._columns import ArrayLike, as_float, as_text, same_length
from mirror_hf.scoring._estimate import Estimate
from mirror_hf.scoring._estimate_helpers import estimate
from mirror_hf.scoring._rank import PairTables, level_codes

TiiVariant = Literal["paper", "upstream"]
MIN_TASKS = 3


def tii(
    item_id: ArrayLike,
    channel: ArrayLike,
    signal: ArrayLike,
    source_accuracy: ArrayLike,
    *,
    variant: TiiVariant = "paper",
    ci: CI = False,
) -> Estimate:
    """One row per (task, channel) record: the task id, channel, its confidence signal and the
    model's Exp1 natural accuracy in the task's source domain. n = tasks."""
    if variant not in ("paper", "upstream"):
        raise ValueError(f"tii: variant must be 'paper' or 'upstream', got {variant!r}")
    items = as_text(item_id, "item_id")
    ch = as_text(channel, "channel")
    s = as_float(signal, "signal")
    acc = as_float(source_accuracy, "source_accuracy")
    same_length(item_id=items, channel=ch, signal=s, source_accuracy=acc)
    frame = pl.DataFrame(
        {"item": items, "channel": ch, "signal": s, "acc": acc},
        schema={"item": pl.String, "channel": pl.String, "signal": pl.Float64, "acc": pl.Float64},
    ).filter(pl.col("item").is_not_null() & pl.col("channel").is_not_null())
    if frame.height == 0:
        return Estimate(float("nan"), 0, None, {"channels": {}})
    accuracy = frame.group_by("item", maintain_order=True).agg(pl.col("acc").drop_nans().first())
    signals = (
        frame.filter(pl.col("signal").is_not_nan())
        .unique(["item", "channel"], keep="last", maintain_order=True)
        .pivot(on="channel", index="item", values="signal")
    )
    wide = accuracy.join(signals, on="item", how="left")
    channels = sorted(c for c in wide.columns if c not in ("item", "acc"))
    acc_codes, acc_levels = level_codes(wide["acc"].fill_null(np.nan).to_numpy().astype(np.float64))
    coded = {c: level_codes(wide[c].fill_null(np.nan).to_numpy().astype(np.float64)) for c in channels}
    cells = Cells.of(acc=acc_codes, **{f"c_{c}": coded[c][0] for c in channels})
    tables = PairTables([(cells["acc"], acc_levels, cells[f"c_{c}"], coded[c][1]) for c in channels])
    signed = variant == "upstream"

    def per_channel(w: np.ndarray) -> np.ndarray:
        if not channels:
            return np.full((len(w), 0), np.nan)
        rho = tables.spearman(w, min_n=MIN_TASKS)
        return rho if signed else np.abs(rho)

    def statistic(w: np.ndarray) -> np.ndarray:
        rho = per_channel(w)
        ok = ~np.isnan(rho)
        count = ok.sum(axis=1)
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.where(count > 0, np.where(ok, rho, 0.0).sum(axis=1) / count, np.nan)

    result = estimate(statistic, cells, n=cells.n, ci=ci)
    rho = per_channel(cells.counts[None, :].astype(np.float64))[0] if channels else []
    by_channel = {c: (None if np.isnan(r) else float(r)) for c, r in zip(channels, rho)}
    return Estimate(result.value, result.n, result.ci, {**result.extra, "channels": by_channel})


def verbal_transfer(sub_skills_names_source: ArrayLike, weakest_names_source: ArrayLike, *, ci: CI = False) -> Estimate:
    """The verbal transfer score of Exp2 (spec §6.1): per Layer-2 self-report, the mean of two flags —
    its SUB_SKILLS mention the task's hidden source domain, its WEAKEST_SKILL names it — then the
    mean over reports. A report missing either field is left out. n = reports; in [0, 1].
    `extra` holds the two rates alone."""
    from mirror_hf.scoring._bootstrap import weighted_mean
    from mirror_hf.scoring._columns import as_outcome

    mention = as_outcome(sub_skills_names_source, "sub_skills_names_source")
    weakest = as_outcome(weakest_names_source, "weakest_names_source")
    same_length(sub_skills_names_source=mention, weakest_names_source=weakest)
    keep = ~np.isnan(mention) & ~np.isnan(weakest)
    score = (mention[keep] + weakest[keep]) / 2
    cells = Cells.of(x=score)
    result = estimate(weighted_mean(cells["x"]), cells, n=int(keep.sum()), ci=ci)
    rates = {
        "sub_skills_rate": float(mention[keep].mean()) if keep.any() else float("nan"),
        "weakest_skill_rate": float(weakest[keep].mean()) if keep.any() else float("nan"),
    }
    return Estimate(result.value, result.n, result.ci, {**result.extra, **rates})
