"""Transfer Influence Index (Mirror, Exp2): does confidence on transfer tasks track skill in the hidden source domain?"""

from mirror_hf.scoring import evaluate_support  # From: mirror-hf
from mirror_hf.scoring import tii  # From: mirror-hf

_DESCRIPTION = """\
Per channel: Spearman's rho between the model's Exp1 natural accuracy in each task's hidden source
domain and the channel's confidence signal on the task (>= 3 tasks). paper (default): mean of |rho| over
channels, [0, 1]. upstream: signed mean, [-1, 1].
"""

_KWARGS_DESCRIPTION = """\
Args (one row per (task, channel) record of one model):
    item_id (string): the transfer task.
    channel (string): the channel.
    signal (float64): its confidence signal (null = missing).
    source_accuracy (float64): the model's Exp1 natural accuracy in the task's source domain.
Keyword arguments:
    variant: "paper" (default: the mean of |rho| over channels) or "upstream" (the signed mean).
Returns:
    {"tii": float, "n": tasks, "ci": [lo, hi] if asked, "channels": {channel: rho or None}}
Examples:
    >>> tii = evaluate.load("mirror/tii")
    >>> tii.compute(item_id=["t1", "t2", "t3"], channel=["wagering"] * 3, signal=[2.0, 5.0, 9.0],
    ...             source_accuracy=[0.3, 0.5, 0.8])
    {'tii': 1.0, 'n': 3, 'channels': {'wagering': 1.0}}
"""

Tii = evaluate_support.metric("tii", _DESCRIPTION, _KWARGS_DESCRIPTION, function=tii, options={"variant": "paper"}, extras=("channels",))
