"""Metacognitive Convergence Index (Mirror, Exp1): do the behavioural channels agree on confidence?"""

from mirror_hf.scoring import evaluate_support  # From: mirror-hf
from mirror_hf.scoring import mci  # From: mirror-hf

_DESCRIPTION = """\
MCI = mean over channel pairs (with >= 2 shared questions and both sides varying) of Spearman's rho
between the channels' per-question confidence signals. Signed, range [-1, 1]. A constant channel's
pairs are dropped rather than turning the mean into NaN.
"""

_KWARGS_DESCRIPTION = """\
Args (one row per record of one model):
    item_id (string): the question.
    channel (string): wagering / opt_out / difficulty_selection / tool_delegation / natural (or any other).
    signal (float64): the channel's confidence signal (bet, 1 answered / 0 skipped, 1 chose harder,
        1/(1+tools), 1/(1+hedges), or the recorded `confidence`); null = missing.
Keyword arguments:
    min_shared: fewest shared questions for a pair (default 2).
Returns:
    {"mci": float, "n": questions, "ci": [lo, hi] if asked, "pairs": {"a~b": rho or None}}
Examples:
    >>> mci = evaluate.load("mirror/mci")
    >>> mci.compute(item_id=["q1", "q2", "q3", "q1", "q2", "q3"], channel=["wagering"] * 3 + ["natural"] * 3,
    ...             signal=[3, 7, 9, 0.5, 1.0, 1.0])
    {'mci': 0.8660254037844387, 'n': 3, 'pairs': {'natural~wagering': 0.8660254037844387}}
"""

Mci = evaluate_support.metric("mci", _DESCRIPTION, _KWARGS_DESCRIPTION, function=mci, options={"min_shared": 2}, extras=("pairs",))
