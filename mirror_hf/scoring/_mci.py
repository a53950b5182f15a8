"""MCI, the Metacognitive Convergence Index (spec §4.6): do the behavioural channels agree, question
by question, about how confident the model is?

Per model: each channel gives one signal per question (`channel_signal`); for every channel pair
with at least 2 shared questions, Spearman's rho of the two signals; MCI = the mean of the defined
rhos (signed). A constant channel has no ranks to correlate: its pairs are *dropped*, not NaN-
poisoning the mean. The per-channel min-max normalisation upstream applies is monotone, so it cannot
change a rank correlation and is skipped. The bootstrap resamples questions (all channels together).
"""

from __future__ import annotations

from itertools import combinations

import numpy as np
import polars as pl

from mirror_hf.scoring._bootstrap import CI, Cells
from mirror_hf.scoring._columns import (
    ArrayLike,
    as_float,
    as_outcome,
    as_text,
    same_length,
)
from mirror_hf.scoring._estimate import Estimate
from mirror_hf.scoring._estimate_helpers import estimate
from mirror_hf.scoring._rank import PairTables, level_codes


def behavioural_channels() -> tuple[str, ...]:
    """The channels MCI and TII correlate: every registered behavioural `Channel` spec
    (`mirror_hf.protocol.exp1.CHANNELS`), the paper's five and any added since."""
    from mirror_hf.protocol.exp1 import behavioural_channels as registered

    return registered()


def channel_signal(
    channel: ArrayLike,
    *,
    bet: ArrayLike | None = None,
    skipped: ArrayLike | None = None,
    choice: ArrayLike | None = None,
    n_tools: ArrayLike | None = None,
    hedging_count: ArrayLike | None = None,
    confidence: ArrayLike | None = None,
    **fields: ArrayLike,
) -> np.ndarray:
    """Each record's confidence signal in [0, 1], higher = more confident, by the rule of its
    registered `Channel` spec (`mirror_hf.protocol.exp1.CHANNELS`), recomputed from the raw parsed
    field: wagering bet / 10; opt_out 1 answered / 0 skipped; difficulty_selection 1 chose A (harder)
    / 0 chose B; tool_delegation 1/(1+number of tools); natural 1/(1+hedging count); a registered
    channel's own field by name (`**fields`). Channels whose field is not given (layer2,
    structured_control, ...) keep their recorded `confidence`. Missing inputs give NaN."""
    from mirror_hf.protocol.exp1 import CHANNELS

    ch = as_text(channel, "channel")
    n = len(ch)
    given = {"bet": bet, "skipped": skipped, "choice": choice, "tools_used": n_tools, "hedging_count": hedging_count, **fields}
    out = np.full(n, np.nan) if confidence is None else as_float(confidence, "confidence")
    # each record's channel as its index in CHANNELS (-1: other or null), read in one pass
    codes = ch.replace_strict({name: i for i, name in enumerate(CHANNELS)}, default=-1, return_dtype=pl.Int64)
    index = codes.fill_null(-1).to_numpy()
    for position, (name, spec) in enumerate(CHANNELS.items()):
        signal = spec.confidence
        values = given.get(signal.field)
        if not spec.behavioural or values is None:
            continue
        mask = index == position
        if signal.codes is not None:
            text = as_text(values, signal.field)
            same_length(channel=ch, **{name: text})
            # the text rules run on this channel's records only (the others' values are never read)
            text = text.filter(pl.Series(mask)).str.strip_chars().str.to_uppercase()
            raw = text.replace_strict(dict(signal.codes), default=None, return_dtype=pl.Float64).fill_null(np.nan).to_numpy()
        else:
            raw = as_outcome(values, signal.field) if signal.flag else as_float(values, signal.field)
            same_length(channel=ch, **{name: raw})
            raw = raw[mask]
        with np.errstate(invalid="ignore", divide="ignore"):
            out[mask] = signal.transform(raw)
    return out


def _wide(item_id: ArrayLike, channel: ArrayLike, signal: ArrayLike) -> tuple[list[str], dict[str, np.ndarray]]:
    """question x channel signals (the last record wins when a question has two in one channel);
    questions in order of first appearance among the kept records, channels sorted."""
    items = as_text(item_id, "item_id")
    ch = as_text(channel, "channel")
    s = as_float(signal, "signal")
    same_length(item_id=items, channel=ch, signal=s)
    frame = pl.DataFrame({"item": items, "channel": ch, "signal": s}, schema={"item": pl.String, "channel": pl.String, "signal": pl.Float64})
    # one query for the kept records and both codes; the item code is re-ordered from sorted to
    # first-appearance order below
    coded = (
        frame.lazy()
        .filter(pl.col("item").is_not_null() & pl.col("channel").is_not_null() & pl.col("signal").is_not_nan())
        .filter(pl.struct("item", "channel").is_last_distinct())
        .select(
            pl.col("item").rank("dense").cast(pl.Int64).alias("item") - 1,
            pl.col("item").is_first_distinct().alias("first"),
            pl.col("channel").rank("dense").cast(pl.Int64).alias("code") - 1,
            "channel",
            "signal",
        )
        .collect()
    )
    if coded.height == 0:
        return [], {}
    sorted_code = coded["item"].to_numpy()
    first = coded["first"].to_numpy()
    appearance = np.empty(int(first.sum()), dtype=np.int64)
    appearance[sorted_code[first]] = np.arange(len(appearance))
    row = appearance[sorted_code]
    channels = coded["channel"].unique().sort().to_list()
    wide = np.full((len(channels), len(appearance)), np.nan)
    wide[coded["code"].to_numpy(), row] = coded["signal"].to_numpy()
    return channels, {c: wide[j] for j, c in enumerate(channels)}


def mci(item_id: ArrayLike, channel: ArrayLike, signal: ArrayLike, *, min_shared: int = 2, ci: CI = False) -> Estimate:
    """Mean pairwise Spearman rho across channels; n = questions with at least one signal.
    `extra["pairs"]` holds each pair's rho (null when dropped)."""
    channels, columns = _wide(item_id, channel, signal)
    if len(channels) < 2:
        n = len(next(iter(columns.values()))) if columns else 0
        return Estimate(float("nan"), n, None, {"pairs": {}})
    coded = {c: level_codes(columns[c]) for c in channels}
    cells = Cells.of(**{c: coded[c][0] for c in channels})
    pairs = list(combinations(channels, 2))
    tables = PairTables([(cells[a], coded[a][1], cells[b], coded[b][1]) for a, b in pairs])

    def per_pair(w: np.ndarray) -> np.ndarray:
        return tables.spearman(w, min_n=min_shared)

    def statistic(w: np.ndarray) -> np.ndarray:
        rho = per_pair(w)
        ok = ~np.isnan(rho)
        count = ok.sum(axis=1)
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.where(count > 0, np.where(ok, rho, 0.0).sum(axis=1) / count, np.nan)

    result = estimate(statistic, cells, n=cells.n, ci=ci)
    rho = per_pair(cells.counts[None, :].astype(np.float64))[0]
    pair_values = {f"{a}~{b}": (None if np.isnan(r) else float(r)) for (a, b), r in zip(pairs, rho)}
    return Estimate(result.value, result.n, result.ci, {**result.extra, "pairs": pair_values})
