"""Brier (Mirror, Exp1 wager)."""

from mirror_hf.scoring import brier  # From: mirror-hf
from mirror_hf.scoring import evaluate_support  # From: mirror-hf

_DESCRIPTION = """\
Brier = mean (p - y)^2 of the confidence as a probability of being correct.
On the wager signal bet/10. Range [0, 1], lower is better.
"""

_KWARGS_DESCRIPTION = """\
Args (one row per graded wagering record):
Keyword arguments:
    domain: optional list, one domain per row: the bootstrap then resamples within domains (the bank fixes
        the items per domain); the value is the same.
Returns:
    {"brier": float, "n": records, "ci": [lo, hi] if asked}
Examples:
    >>> brier = evaluate.load("mirror/brier")
    >>> brier.compute(confidence=[1.0, 0.5, 0.0], correct=[True, False, False])["brier"]
    0.08333333333333333
"""

Brier = evaluate_support.metric(
    "brier", _DESCRIPTION, _KWARGS_DESCRIPTION, function=brier, options={"domain": None}, columns=evaluate_support.CONFIDENCE_ARGS
)
