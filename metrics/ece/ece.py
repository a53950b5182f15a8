"""Expected Calibration Error (Mirror, Exp1 wager): 10 equal-width bins."""

from mirror_hf.scoring import ece  # From: mirror-hf
from mirror_hf.scoring import evaluate_support  # From: mirror-hf

_DESCRIPTION = """\
ECE = sum over bins of |B|/N * |acc(B) - conf(B)|, bins [b/10, (b+1)/10), the last closed at 1.0, on
the wager signal bet/10 (the paper's choice; upstream's library default used Layer-2 confidence).
Range [0, 1], lower is better.
"""

_KWARGS_DESCRIPTION = """\
Args (one row per graded wagering record):
Keyword arguments:
    domain: optional list, one domain per row: the bootstrap then resamples within domains (the bank fixes
        the items per domain); the value is the same.
    n_bins: number of equal-width bins (default 10).
Returns:
    {"ece": float, "n": records, "ci": [lo, hi] if asked}
Examples:
    >>> ece = evaluate.load("mirror/ece")
    >>> confidence, correct = [0.9, 0.8, 0.3], [True, False, False]
    >>> round(ece.compute(confidence=confidence, correct=correct)["ece"], 4)
    0.4
    >>> round(ece.compute(confidence=confidence, correct=correct, n_bins=2)["ece"], 4)
    0.3333
"""

Ece = evaluate_support.metric(
    "ece", _DESCRIPTION, _KWARGS_DESCRIPTION, function=ece, options={"n_bins": 10, "domain": None}, columns=evaluate_support.CONFIDENCE_ARGS
)
