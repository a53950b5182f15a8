"""Participants scored like models, and their mean: each human participant is a row of `score`
(scored by the same suite as a model), and "humans (mean)" is the unweighted mean over participants
of each number they have, with a BCa CI over participants (one value per person: people, not trials,
are the units a human baseline samples). The weak-domain policy for people defaults to the paper's
`median_or_bottom_k`: people at ceiling in every domain leave the median rule empty, and its
bottom-2 fallback (by accuracy, then domain name) names their weak domains; which rule applied is
reported per participant."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from mirror_hf.headlines import Headline
from mirror_hf.scoring._bootstrap import CI, bca_mean, resolve_ci
from mirror_hf.scoring._estimate import NAN, Estimate
from mirror_hf.scoring._weak import WeakPolicy, median_rule_empty, weak_domains

#: the numbers the mean row carries beyond the headline numbers (the main table's ECE and Brier)
EXTRA_PATHS: tuple[tuple[str, ...], ...] = (("exp1", "ece"), ("exp1", "brier"), ("exp9", "udr"), ("exp9", "appropriate_action_rate"))


def _pick(entry: Mapping, path: tuple[str, ...]) -> float | None:
    node = entry
    for part in path:
        if not isinstance(node, Mapping) or part not in node:
            return None
        node = node[part]
    value = node.get("value") if isinstance(node, Mapping) else None
    return None if value is None or (isinstance(value, float) and np.isnan(value)) else float(value)


def _put(entry: dict, path: tuple[str, ...], value: dict) -> None:
    node = entry
    for part in path[:-1]:
        node = node.setdefault(part, {})
    node[path[-1]] = value


def participant_mean(models: Mapping[str, Mapping], participants: list[str], headlines: Sequence[Headline], *,
                     ci: CI = True) -> dict:
    """The mean row: for every headline number in `headlines` (and `EXTRA_PATHS`) some participant has, the mean
    over the participants that have it, n = participants, BCa CI over them (two or more)."""
    wanted = resolve_ci(ci)
    paths = [h.path for h in headlines] + list(EXTRA_PATHS)
    entry: dict = {}
    for path in dict.fromkeys(paths):
        values = np.array([v for p in participants if (v := _pick(models.get(p, {}), path)) is not None], dtype=np.float64)
        if not len(values):
            continue
        interval = None
        if wanted is not None and len(values) > 1:
            interval = bca_mean(values, n_resamples=wanted.n_resamples, seed=wanted.seed, confidence_level=wanted.confidence_level)
        sd = float(values.std(ddof=1)) if len(values) > 1 else NAN
        estimate = Estimate(float(values.mean()), len(values), interval, {"sd": sd, "unit": "participants"})
        _put(entry, path, estimate.to_json())
    return entry


def weak_rule(models: Mapping[str, Mapping], participant: str, *, policy: WeakPolicy, k: int) -> dict:
    """Which domains are the participant's weak ones under `policy`, and whether the median rule
    was empty (people at ceiling) so the bottom-k fallback named them."""
    by_domain = (models.get(participant, {}).get("exp1") or {}).get("natural_accuracy_by_domain") or {}
    profile = {d: e.get("value") for d, e in by_domain.items() if e.get("value") is not None}
    if not profile:
        return {"policy": policy, "weak_domains": [], "rule_applied": "no Exp1 natural accuracy"}
    applied: str = policy  # the rule in words
    if policy == "median_or_bottom_k":
        applied = f"bottom-{k} fallback (nobody below the median)" if median_rule_empty(profile) else "below the median"
    return {"policy": policy, "k": k, "weak_domains": sorted(weak_domains(profile, policy=policy, k=k)), "rule_applied": applied}
