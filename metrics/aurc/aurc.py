"""AURC (Mirror, Exp1 signals)."""

from mirror_hf.scoring import aurc  # From: mirror-hf
from mirror_hf.scoring import evaluate_support  # From: mirror-hf
from mirror_hf.scoring import risk_at_coverage  # From: mirror-hf

_DESCRIPTION = """\
AURC = area under the risk-coverage curve: records ordered by confidence (highest first),
risk(i) = errors among the first i / i, AURC = mean over i; equal confidences averaged over their orders.
Also `risk_at_80` (error rate among the 80% most confident). Range [0, 1], lower is better; a
random signal's AURC is 1 - accuracy.
"""

_KWARGS_DESCRIPTION = """\
Args (one row per graded record of one channel):
Returns:
    {"aurc": float, "risk_at_80": float, "n": records, "ci": [lo, hi] if asked (for aurc)}
Examples:
    >>> aurc = evaluate.load("mirror/aurc")
    >>> out = aurc.compute(confidence=[0.9, 0.8, 0.7, 0.6], correct=[True, False, True, False])
    >>> round(out["aurc"], 4), round(out["risk_at_80"], 4), out["n"]
    (0.3333, 0.375, 4)
"""


def _aurc(*, confidence, correct, ci):
    out = evaluate_support.as_output(aurc(confidence, correct, ci=ci), "aurc")
    out["risk_at_80"] = float(risk_at_coverage(confidence, correct, coverage=0.8).value)
    return out


Aurc = evaluate_support.metric("aurc", _DESCRIPTION, _KWARGS_DESCRIPTION, compute=_aurc, columns=evaluate_support.CONFIDENCE_ARGS)
