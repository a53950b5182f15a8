"""Compositional Calibration Error (Mirror, Exp3): calibration on two-domain composite tasks."""

from mirror_hf.scoring import cce  # From: mirror-hf
from mirror_hf.scoring import evaluate_support  # From: mirror-hf

_DESCRIPTION = """\
paper (default): mean over tasks of |p_composite - correct_composite| - |p_component - correct_component|
(the primary component asked alone); range [-1, 1], > 0 = worse calibrated on composites.
upstream: mean over tasks of |confidence - correct| on the composite (missing confidence = 0.5); [0, 1].
balanced: the upstream error averaged over domain pairs within weak_weak / strong_weak / strong_strong
strata, then over strata (the expectation of upstream's difficulty-balanced subsampling).
"""

_KWARGS_DESCRIPTION = """\
Args (one row per composite task of one model):
    confidence (float64): self-predicted probability of success in [0, 1] (divide a 0-100 report by 100).
    correct (bool): the composite answer's grade.
    component_confidence (float64): the primary component's confidence asked alone (paper; else null).
    component_correct (bool): the primary component's grade asked alone (paper; else null).
    domain_a (string): the task's first domain (balanced; else null).
    domain_b (string): the task's second domain (balanced; else null).
Keyword arguments:
    variant: "paper" (default), "upstream" or "balanced".
    weak_domains: list of the model's weak domains (balanced only).
Returns:
    {"cce": float, "n": tasks used, "ci": [lo, hi] if asked}
Examples:
    >>> cce = evaluate.load("mirror/cce")
    >>> cce.compute(confidence=[0.9, 0.2], correct=[True, False], component_confidence=[0.6, 0.5],
    ...             component_correct=[True, True], domain_a=[None, None], domain_b=[None, None])
    {'cce': -0.30000000000000004, 'n': 2}
    >>> cce.compute(confidence=[0.9, 0.2], correct=[True, False], component_confidence=[None, None],
    ...             component_correct=[None, None], domain_a=[None, None], domain_b=[None, None],
    ...             variant="upstream")
    {'cce': 0.15, 'n': 2}
"""

Cce = evaluate_support.metric("cce", _DESCRIPTION, _KWARGS_DESCRIPTION, function=cce, options={"variant": "paper", "weak_domains": None})
