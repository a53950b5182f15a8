"""PRR (Mirror, Exp1 signals)."""

from mirror_hf.scoring import evaluate_support  # From: mirror-hf
from mirror_hf.scoring import prr  # From: mirror-hf

_DESCRIPTION = """\
PRR = prediction rejection ratio as LM-Polygraph defines it: (AURC_random - AURC) / (AURC_random - AURC_oracle),
with 0/1 quality the normalised area under the prediction-rejection curve. 1 = oracle ranking, 0 = random,
< 0 worse than random; NaN with one class only.
"""

_KWARGS_DESCRIPTION = """\
Args (one row per graded record of one channel):
Returns:
    {"prr": float, "n": records, "ci": [lo, hi] if asked}
Examples:
    >>> prr = evaluate.load("mirror/prr")
    >>> out = prr.compute(confidence=[0.9, 0.8, 0.7, 0.6], correct=[True, False, True, False])
    >>> round(out["prr"], 4), out["n"]
    (0.5714, 4)
"""

Prr = evaluate_support.metric("prr", _DESCRIPTION, _KWARGS_DESCRIPTION, function=prr, columns=evaluate_support.CONFIDENCE_ARGS)
