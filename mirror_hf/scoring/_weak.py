"""Weak-domain policies (spec §5.3): which of a model's domains count as weak / strong, from its Exp1
natural accuracy per domain.

- `median_or_bottom_k` (default; the paper's canonical rule, k=2): weak = accuracy strictly below the
  median (mean of the two middle values); if that is empty (all equal), the bottom k by (accuracy,
  domain name). Every other domain with data is strong.
- `threshold` (the Exp9 runner and main upstream analyses): weak <= 0.40, strong >= 0.60, medium between.
- `bottom_k`: weak = bottom k, strong = top k (by accuracy, then name), the rest medium.
- `absolute`: weak = accuracy < tau (default 0.40), every other domain strong.
Domains without an accuracy are `unknown` under every policy.

Two rules hold under every policy (`strong_rule`): a domain is never both weak and strong, and a
domain is "strong" only if its accuracy is at least `MIN_STRONG_ACCURACY` (chance among an item's
four choices, by default) and above every weak domain's: a domain tied with a weak one, or below
chance, is `medium`. Ties in a ranking (bottom k, top k) are broken by domain name, alphabetically.
When no domain qualifies as strong, `no_strong_domain` says why in one line.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Literal, TypedDict, Unpack, get_args

WeakPolicy = Literal["median_or_bottom_k", "threshold", "bottom_k", "absolute"]
WEAK_POLICIES: tuple[str, ...] = get_args(WeakPolicy)
STRENGTHS: tuple[str, ...] = ("weak", "strong", "medium", "unknown")
#: Accuracy of a uniform guess among an item's four choices: no domain below it is called strong.
CHANCE_ACCURACY = 0.25
MIN_STRONG_ACCURACY = CHANCE_ACCURACY
#: The option of `profile`, `tasks tailor` and `run --experiment exp5` that sets the floor.
MIN_STRONG_OPTION = "--min-strong-accuracy"


def strong_rule(min_strong: float = MIN_STRONG_ACCURACY) -> str:
    """The strong-domain rule in words (messages and docs say it the same way)."""
    return (f"a strong domain has accuracy >= {min_strong:g} (chance: {CHANCE_ACCURACY:g}) and above every weak "
            "domain's; ties are broken by domain name")


def no_strong_domain(accuracy: Mapping[str, float | None], labels: Mapping[str, str], *, what: str,
                     min_strong: float = MIN_STRONG_ACCURACY, options: str = MIN_STRONG_OPTION) -> str | None:
    """One line saying that no domain qualifies as strong, the rule, and the option that changes it;
    None when some domain is strong."""
    if any(s == "strong" for s in labels.values()):
        return None
    shown = ", ".join(f"{d} {float(a):.3f}" for d, a in accuracy.items() if a is not None and not math.isnan(float(a)))
    return (f"{what} has no strong domain: no domain qualifies as strong ({strong_rule(min_strong)}); "
            f"accuracies: {shown or 'none'}; {options} changes the floor")


def _apply_strong_rule(out: dict[str, str], known: Mapping[str, float], min_strong: float) -> dict[str, str]:
    weak = [known[d] for d, s in out.items() if s == "weak"]
    ceiling = max(weak) if weak else -math.inf
    for d, s in out.items():
        if s == "strong" and (known[d] < min_strong or known[d] <= ceiling):
            out[d] = "medium"
    return out


def classify_domains(
    accuracy: Mapping[str, float | None],
    *,
    policy: WeakPolicy = "median_or_bottom_k",
    k: int = 2,
    weak_threshold: float = 0.40,
    strong_threshold: float = 0.60,
    tau: float = 0.40,
    min_strong: float = MIN_STRONG_ACCURACY,
) -> dict[str, str]:
    """domain -> weak / strong / medium / unknown (the policy, then the strong rule of the module
    docstring)."""
    if policy not in WEAK_POLICIES:
        raise ValueError(f"weak_policy must be one of {WEAK_POLICIES}, got {policy!r}")
    known = {d: float(a) for d, a in accuracy.items() if a is not None and not math.isnan(float(a))}
    out = {d: "unknown" for d in accuracy if d not in known}
    if not known:
        return out
    ranked = sorted(known, key=lambda d: (known[d], d))
    if policy == "median_or_bottom_k":
        weak = _below_median(known) or set(ranked[:k])
        out.update({d: "weak" if d in weak else "strong" for d in known})
    elif policy == "threshold":
        for d, a in known.items():
            out[d] = "weak" if a <= weak_threshold else "strong" if a >= strong_threshold else "medium"
    elif policy == "bottom_k":
        weak = set(ranked[:k])
        strong = set(sorted((d for d in known if d not in weak), key=lambda d: (-known[d], d))[:k])
        out.update({d: "weak" if d in weak else "strong" if d in strong else "medium" for d in known})
    else:  # absolute
        out.update({d: "weak" if a < tau else "strong" for d, a in known.items()})
    return _apply_strong_rule(out, known, min_strong)


def _below_median(known: Mapping[str, float]) -> set[str]:
    values = sorted(known.values())
    mid = len(values) // 2
    median = values[mid] if len(values) % 2 else (values[mid - 1] + values[mid]) / 2.0
    return {d for d, a in known.items() if a < median}


def median_rule_empty(accuracy: Mapping[str, float | None]) -> bool:
    """True when no domain is strictly below the median (all equal, e.g. people at ceiling): then
    `median_or_bottom_k` names the bottom k instead (the paper's fallback)."""
    known = {d: float(a) for d, a in accuracy.items() if a is not None and not math.isnan(float(a))}
    return bool(known) and not _below_median(known)


class RuleOptions(TypedDict, total=False):
    """The keywords of `classify_domains` besides `policy` (their defaults stay there), for functions
    that pass them on."""

    k: int
    weak_threshold: float
    strong_threshold: float
    tau: float
    min_strong: float


class PolicyOptions(RuleOptions, total=False):
    """Every keyword of `classify_domains`, the policy included."""

    policy: WeakPolicy


def weak_domains(accuracy: Mapping[str, float | None], **policy: Unpack[PolicyOptions]) -> frozenset[str]:
    """The weak set under a policy (keywords as for `classify_domains`)."""
    return frozenset(d for d, s in classify_domains(accuracy, **policy).items() if s == "weak")
