"""Confident Failure Rate (Mirror, Exp9): the share of weak-domain components a model proceeded on and got wrong."""

from mirror_hf.scoring import PARADIGMS  # From: mirror-hf
from mirror_hf.scoring import cfr  # From: mirror-hf
from mirror_hf.scoring import cfr_by_condition  # From: mirror-hf
from mirror_hf.scoring import components_frame  # From: mirror-hf
from mirror_hf.scoring import evaluate_support  # From: mirror-hf

_DESCRIPTION = """\
CFR = #{weak components with decision = proceed and correct = false} / #{weak components}.
A component is one part (slot a or b) of one Exp9 trial. use_tool and defer are never failures;
medium/unknown components are excluded. Trials are pooled by a frame (escalation: P1+P2, fixed and
tailored; table: all paradigms, fixed; kdi: P1, fixed; all), false-score controls always excluded.
"""

_KWARGS_DESCRIPTION = """\
Args (one row per component):
Keyword arguments:
    frame: "escalation" (default; P1+P2, fixed and tailored), "table" (all paradigms, fixed), "kdi" (P1, fixed),
        "all", "escalation_fixed" (P1+P2, fixed only), "paradigm_P1" / "paradigm_P2" / "paradigm_P3" (one
        paradigm), or "by_paradigm" (the value over all paradigms plus `by_paradigm`: each paradigm alone).
    condition_filter: one condition ("C1"...), or None (default) for the pooled value plus `by_condition`.
    missing: "complete_case" (default) or "missing_incorrect".
Returns:
    {"cfr": float (NaN without weak components), "n": weak components, "ci": [lo, hi] if asked,
     "by_condition": {"C1": {"cfr", "n", "ci"}, ...} when condition_filter is None,
     "by_paradigm": {"P1": {"cfr", "n", "by_condition"}, "P2": ..., "P3": ...} with frame="by_paradigm"}
Examples:
    >>> cfr = evaluate.load("mirror/cfr")
    >>> cfr.compute(strength=["weak", "weak", "strong"], decision=["proceed", "defer", "proceed"],
    ...             correct=[False, False, False], condition=["C1"] * 3, paradigm=["P1"] * 3,
    ...             task_type=["fixed"] * 3, api_success=[True] * 3, externally_routed=[False] * 3)
    {'cfr': 0.5, 'n': 2, 'by_condition': {'C1': {'cfr': 0.5, 'n': 2}}}
    >>> out = cfr.compute(strength=["weak"] * 3, decision=["proceed", "defer", "proceed"], correct=[False, None, False],
    ...                   condition=["C1"] * 3, paradigm=["P1", "P1", "P3"], task_type=["fixed"] * 3,
    ...                   api_success=[True] * 3, externally_routed=[False] * 3, frame="by_paradigm")
    >>> out["by_paradigm"]["P1"]["cfr"], out["by_paradigm"]["P3"]["cfr"], out["by_paradigm"]["P2"]["n"]
    (0.5, 1.0, 0)
"""


def _cfr(*, frame, condition_filter, missing, ci, **columns):
    if frame == "by_paradigm":
        out = _cfr(frame="all", condition_filter=condition_filter, missing=missing, ci=ci, **columns)
        out["by_paradigm"] = {
            p: _cfr(frame=f"paradigm_{p}", condition_filter=condition_filter, missing=missing, ci=ci, **columns) for p in PARADIGMS
        }
        return out
    components = components_frame(**columns)
    out = evaluate_support.as_output(cfr(components, frame=frame, condition=condition_filter, missing=missing, ci=ci), "cfr")
    if condition_filter is None:
        by_condition = cfr_by_condition(components, frame=frame, missing=missing, ci=ci)
        out["by_condition"] = {c: evaluate_support.as_output(e, "cfr") for c, e in by_condition.items()}
    return out


_OPTIONS = {"frame": "escalation", "condition_filter": None, "missing": "complete_case"}
Cfr = evaluate_support.metric(
    "cfr", _DESCRIPTION, _KWARGS_DESCRIPTION, compute=_cfr, options=_OPTIONS, columns=evaluate_support.COMPONENT_ARGS
)
