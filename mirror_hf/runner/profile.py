"""`mirror-hf profile`: a model's Exp1 profile (per domain: natural and wagering accuracy, Mirror gap,
n, strong/weak label) from its `trials_exp1` split, written as its split of the `profiles` config.
Exp9 conditions C2-C4 read it (the scores the model is told, and which components C4 routes).

The numbers come from `mirror_hf.scoring` (accuracy excludes ungraded records; the gap pairs the
two channels per question; re-run records are de-duplicated as in `score`; the label follows a
named weak-domain policy).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import polars as pl

from mirror_hf.errors import MirrorValueError
from mirror_hf.records import DOMAINS

if TYPE_CHECKING:
    from mirror_hf.scoring._weak import WeakPolicy


class ProfileError(MirrorValueError):
    """The profile cannot be built (names the folder, config and split)."""


def build_profile(root: Path, split: str, *, dedup_key: Sequence[str], weak_policy: WeakPolicy = "median_or_bottom_k", k: int = 2,
                  min_strong: float | None = None) -> list[dict]:
    """One `PROFILE_FEATURES` row per domain that has Exp1 trials, in the paper's domain order.
    `dedup_key`: Exp1's de-duplication key (its spec's; the runner never imports an experiment)."""
    from mirror_hf.runner.plan import PlanError, read_config
    from mirror_hf.scoring import (
        WEAK_POLICIES,
        classify_domains,
        domain_accuracy,
        latest_records,
        mirror_gap_by_domain,
    )

    if weak_policy not in WEAK_POLICIES:
        raise ProfileError(f"--weak-policy must be one of {', '.join(WEAK_POLICIES)}, got {weak_policy!r}")
    try:
        rows = read_config(root, "trials_exp1", split, needed_for="the profile")
    except PlanError as exc:
        raise ProfileError(f"{exc}; run `mirror-hf run --experiment exp1` for this model first") from None
    trials = pl.DataFrame(
        {name: [r[name] for r in rows] for name in ("model", "run_id", "item_id", "domain", "channel", "correct")},
        schema={"model": pl.String, "run_id": pl.String, "item_id": pl.String, "domain": pl.String, "channel": pl.String,
                "correct": pl.Boolean},
    )
    trials = latest_records(trials, dedup_key)  # a re-run record replaces the earlier one, as in `score`
    natural = trials.filter(pl.col("channel") == "natural")
    wagering = trials.filter(pl.col("channel") == "wagering")
    if natural.is_empty():
        raise ProfileError(f"{root} trials_exp1/{split} has no natural-channel trials; the profile needs them "
                           "(run with the natural channel)")
    nat = domain_accuracy(natural["correct"].to_list(), natural["domain"].to_list())
    wag = domain_accuracy(wagering["correct"].to_list(), wagering["domain"].to_list()) if not wagering.is_empty() else {}
    paired = natural.select("item_id", "domain", pl.col("correct").alias("natural")).join(
        wagering.select("item_id", "domain", pl.col("correct").alias("wagering")), on=["item_id", "domain"], how="full", coalesce=True
    )
    gap = mirror_gap_by_domain(paired["domain"].to_list(), paired["natural"].to_list(), paired["wagering"].to_list())
    present = [d for d in DOMAINS if d in set(trials["domain"].to_list())]
    present += sorted(set(trials["domain"].drop_nulls().to_list()) - set(present))
    accuracy = {d: (nat[d].value if d in nat and nat[d].defined else None) for d in present}
    strength = classify_domains(accuracy, policy=weak_policy, k=k, **({} if min_strong is None else {"min_strong": min_strong}))
    models = sorted(set(trials["model"].drop_nulls().to_list()))
    run_ids = sorted(set(trials["run_id"].drop_nulls().to_list()))
    out = []
    for d in present:
        out.append({
            "model": ",".join(models),
            "domain": d,
            "natural_accuracy": accuracy[d],
            "wagering_accuracy": wag[d].value if d in wag and wag[d].defined else None,
            "mirror_gap": gap[d].value if d in gap else None,
            "n_natural": nat[d].n if d in nat else 0,
            "n_wagering": wag[d].n if d in wag else 0,
            "strength": strength.get(d, "unknown"),
            "weak_policy": weak_policy if k == 2 or weak_policy not in ("median_or_bottom_k", "bottom_k") else f"{weak_policy}:k={k}",
            "run_id": ",".join(run_ids),
        })
    return out


def write_profile(root: Path, split: str, rows: list[dict], *, replace: bool = False) -> Path:
    """Write the model's `profiles` split (the caller refreshes the card: `metadata.refresh_metadata`);
    a profile of other content is replaced only with `replace` (`--replace`)."""
    from mirror_hf.folder import write_split
    from mirror_hf.records import PROFILE_FEATURES

    return write_split(root, "profiles", split, rows, PROFILE_FEATURES, replace=replace)
