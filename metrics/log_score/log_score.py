"""Log score (Mirror, Exp1 wager)."""

from mirror_hf.scoring import evaluate_support  # From: mirror-hf
from mirror_hf.scoring import log_score  # From: mirror-hf

_DESCRIPTION = """\
Log score = mean -[y ln p + (1 - y) ln(1 - p)], p clipped to [1e-6, 1 - 1e-6] (negative log-likelihood).
On the wager signal bet/10. Range [0, ~13.8], lower is better.
"""

_KWARGS_DESCRIPTION = """\
Args (one row per graded wagering record):
Returns:
    {"log_score": float, "n": records, "ci": [lo, hi] if asked}
Examples:
    >>> log_score = evaluate.load("mirror/log_score")
    >>> log_score.compute(confidence=[0.9, 0.2], correct=[True, False])
    {'log_score': 0.16425203348601802, 'n': 2}
"""

LogScore = evaluate_support.metric(
    "log_score", _DESCRIPTION, _KWARGS_DESCRIPTION, function=log_score, columns=evaluate_support.CONFIDENCE_ARGS
)
