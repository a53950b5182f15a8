"""AUROC (Mirror, Exp1 wager)."""

from mirror_hf.scoring import auroc  # From: mirror-hf
from mirror_hf.scoring import evaluate_support  # From: mirror-hf

_DESCRIPTION = """\
AUROC = P(confidence of a correct record > that of an incorrect one), ties counting half.
On the wager signal bet/10. Range [0, 1], 0.5 = no discrimination; NaN with one class only.
"""

_KWARGS_DESCRIPTION = """\
Args (one row per graded wagering record):
Returns:
    {"auroc": float, "n": records, "ci": [lo, hi] if asked}
Examples:
    >>> bets, correct = [9, 6, 6, 2], [True, True, False, False]
    >>> auroc = evaluate.load("mirror/auroc")
    >>> auroc.compute(confidence=[b / 10 for b in bets], correct=correct)  # the tie at 0.6 counts half
    {'auroc': 0.875, 'n': 4}
"""

Auroc = evaluate_support.metric("auroc", _DESCRIPTION, _KWARGS_DESCRIPTION, function=auroc, columns=evaluate_support.CONFIDENCE_ARGS)
