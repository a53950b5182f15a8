"""Knowing-Doing Index (Mirror): the Mirror gap minus the appropriate-action rate on weak domains."""

from mirror_hf.scoring import components_frame  # From: mirror-hf
from mirror_hf.scoring import evaluate_support  # From: mirror-hf
from mirror_hf.scoring import kdi  # From: mirror-hf

_DESCRIPTION = """\
paper (default): KDI(m) = Gap(m) - (1 - CFR(m, C1)), CFR in the table frame (C1, all paradigms, fixed
tasks). upstream: for each domain with a weak component in C1 / P1 / fixed tasks, g(m,d) - (1 - CFR_d),
averaged over those domains. Range [-1, 1]; negative = the model knows better than it acts.
"""

_KWARGS_DESCRIPTION = """\
Args (one row per component of one model):
    domain (string): the component's domain.
    mirror_gap (float64): g(m, domain), the model's Exp1 Mirror gap in that domain (null if unknown).
Keyword arguments:
    variant: "paper" (default) or "upstream".
    model_gap: Gap(m) for the paper variant (default: mean of the per-domain gaps present).
    missing: "complete_case" (default) or "missing_incorrect".
    ci: bool (default False): add a 95% BCa interval (10,000 resamples, seed 42; n_resamples= and seed= to change).
        The gap is treated as fixed.
Returns:
    {"kdi": float, "n": weak components, "ci": [lo, hi] if asked}
Examples:
    >>> kdi = evaluate.load("mirror/kdi")
    >>> kdi.compute(strength=["weak", "weak"], decision=["proceed", "defer"], correct=[False, False],
    ...             condition=["C1"] * 2, paradigm=["P1"] * 2, task_type=["fixed"] * 2, api_success=[True] * 2,
    ...             externally_routed=[False] * 2, domain=["spatial"] * 2, mirror_gap=[0.3, 0.3])
    {'kdi': -0.2, 'n': 2}
"""


def _kdi(*, variant, model_gap, missing, ci, **columns):
    return kdi(components_frame(**columns), variant=variant, model_gap=model_gap, missing=missing, ci=ci)


_OPTIONS = {"variant": "paper", "model_gap": None, "missing": "complete_case"}
Kdi = evaluate_support.metric(
    "kdi", _DESCRIPTION, _KWARGS_DESCRIPTION, function=_kdi, options=_OPTIONS, columns=evaluate_support.COMPONENT_ARGS
)
