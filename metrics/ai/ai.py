"""Adaptation Index (Mirror, Exp4): after failing in a domain, does the model lower its confidence there?"""

from mirror_hf.scoring import ai  # From: mirror-hf
from mirror_hf.scoring import evaluate_support  # From: mirror-hf

_DESCRIPTION = """\
Per burn domain: mean of (signal on the related, burned-domain item - signal on the unrelated, control-domain item)
after failure feedback (>= 3 trials); model AI = macro mean over burn domains. Negative = the model adapted.
paper (default): the two signals of the same trial are paired. upstream: the authors' unaligned lists.
"""

_KWARGS_DESCRIPTION = """\
Args (one row per record of one model):
    domain (string): the trial's burn domain.
    related (float64): post-feedback signal on the related item (null = missing).
    unrelated (float64): post-feedback signal on the unrelated item (null = missing).
Keyword arguments:
    variant: "paper" (default: the two signals of a trial paired) or "upstream" (the authors' unaligned lists).
Returns:
    {"ai": float, "n": trials, "ci": [lo, hi] if asked, "domains": {domain: AI or None}}
Examples:
    >>> ai = evaluate.load("mirror/ai")
    >>> ai.compute(domain=["arithmetic"] * 3 + ["logical"] * 3, related=[3.0, 2.0, 5.0, 6.0, 7.0, 9.0],
    ...            unrelated=[5.0, 6.0, 8.0, 5.0, 6.0, 5.0])
    {'ai': -0.5, 'n': 6, 'domains': {'arithmetic': -3.0, 'logical': 2.0}}
"""

Ai = evaluate_support.metric("ai", _DESCRIPTION, _KWARGS_DESCRIPTION, function=ai, options={"variant": "paper"}, extras=("domains",))
