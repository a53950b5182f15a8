"""Escalation curve (Mirror, Exp9): mean per-model CFR across conditions C1..C4."""

from mirror_hf.scoring import CONDITIONS  # From: mirror-hf
from mirror_hf.scoring import escalation_curve  # From: mirror-hf
from mirror_hf.scoring import evaluate_support  # From: mirror-hf

_DESCRIPTION = """\
Per condition: the mean over models of per-model CFR (escalation frame), SD (ddof 1) and a BCa CI over
the per-model values; reduction = (mean C1 - mean C4) / mean C1; for consecutive conditions the paired
effect size d_z = mean(diff)/SD(diff), diff = earlier - later, with a paired-bootstrap p-value
2 min(P*(mean diff* <= 0), P*(mean diff* >= 0)) and the BCa CI of the mean difference.
"""

_KWARGS_DESCRIPTION = """\
Args (one row per model and condition):
    model (string): the model.
    condition (string): "C1".."C4".
    cfr (float64): that model's CFR under that condition (null = undefined).
Keyword arguments:
    ci: bool (default True here): BCa CIs of the condition means (10,000 resamples, seed 42; n_resamples= and seed= to change).
Returns:
    {"C1": {"value", "n", "ci", "sd"}, ..., "reduction": {"value", "difference"},
     "d_z": {"C1_C2": {"value", "n", "ci", "mean_diff", "mean_diff_ci", "sd_diff", "p"}, ...}}
Examples:
    >>> esc = evaluate.load("mirror/escalation")
    >>> out = esc.compute(model=["m1", "m1", "m2", "m2", "m3", "m3"], condition=["C1", "C4"] * 3,
    ...                   cfr=[0.6, 0.1, 0.5, 0.2, 0.7, 0.0])
    >>> round(out["C1"]["value"], 3), round(out["reduction"]["value"], 3)
    (0.6, 0.833)
"""


def _escalation(*, model, condition, cfr, ci):
    per_model = {}
    for m, c, v in zip(model, condition, cfr):
        per_model.setdefault(m, {})[c] = v
    present = tuple(c for c in CONDITIONS if c in set(condition))
    return evaluate_support.escalation_output(escalation_curve(per_model, conditions=present, ci=ci))


Escalation = evaluate_support.metric("escalation", _DESCRIPTION, _KWARGS_DESCRIPTION, compute=_escalation, ci=True)
