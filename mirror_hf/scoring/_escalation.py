"""The escalation curve (spec §4.17): does telling the model its accuracy (C2), adding a norm (C3)
and routing weak components away (C4) reduce confident failures?

Input: per-model CFR per condition (escalation frame: P1+P2, fixed and tailored tasks). Output per
condition: the unweighted mean over models, SD (ddof=1), BCa CI over the per-model values (10,000
resamples, seed 42); the C1->C4 reduction (mean C1 - mean C4)/mean C1 (a ratio of means, as the
paper's "76%"); paired comparisons of consecutive conditions (d_z, bootstrap p, CI of mean Δ).
Models whose CFR is undefined in a condition are left out of that condition (and of its pairs).
"""

from __future__ import annotations

from collections.abc import Mapping
from itertools import pairwise

import numpy as np

from mirror_hf.scoring._bootstrap import CI, Bootstrap, bca_mean, resolve_ci
from mirror_hf.scoring._estimate import NAN, Estimate
from mirror_hf.scoring._exp9 import CONDITIONS
from mirror_hf.scoring._stats import PairedDifference, paired_difference


def escalation_curve(
    per_model: Mapping[str, Mapping[str, float | None]],
    *,
    conditions: tuple[str, ...] = CONDITIONS,
    ci: CI = True,
) -> dict:
    """`{"C1": Estimate(mean, n_models, ci, extra={"sd": ...}), ..., "reduction": Estimate,
    "d_z": {"C1_C2": PairedDifference, ...}}`."""
    wanted = resolve_ci(ci)
    options = wanted or Bootstrap()
    resamples = options.n_resamples if wanted is not None else 0  # CIs off: no paired bootstraps either
    models = sorted(per_model)

    def column(condition: str) -> np.ndarray:
        values = [per_model[m].get(condition) for m in models]
        return np.array([np.nan if v is None else float(v) for v in values], dtype=np.float64)

    out: dict = {}
    means = {}
    for condition in conditions:
        values = column(condition)
        values = values[~np.isnan(values)]
        n = len(values)
        mean = float(values.mean()) if n else NAN
        sd = float(values.std(ddof=1)) if n > 1 else NAN
        interval = None
        if wanted is not None and n > 1:
            interval = bca_mean(values, n_resamples=options.n_resamples, seed=options.seed, confidence_level=options.confidence_level)
        out[condition] = Estimate(mean, n, interval, {"sd": sd})
        means[condition] = mean
    first, last = conditions[0], conditions[-1]
    difference = means[first] - means[last]
    reduction = difference / means[first] if means[first] else NAN
    out["reduction"] = Estimate(reduction, out[last].n, None, {"difference": difference, "from": first, "to": last})
    pairs: dict[str, PairedDifference] = {}
    for earlier, later in pairwise(conditions):
        pairs[f"{earlier}_{later}"] = paired_difference(
            column(earlier), column(later), n_resamples=resamples, seed=options.seed, confidence_level=options.confidence_level
        )
    out["d_z"] = pairs
    return out


def escalation_to_json(curve: dict) -> dict:
    out = {}
    for key, value in curve.items():
        if key == "d_z":
            out[key] = {pair: diff.to_json() for pair, diff in value.items()}
        else:
            out[key] = value.to_json()
    return out
