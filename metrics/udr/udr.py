"""Unnecessary Deferral Rate (Mirror, Exp9; upstream code only): strong-domain components escalated although graded correct."""

from mirror_hf.scoring import components_frame  # From: mirror-hf
from mirror_hf.scoring import evaluate_support  # From: mirror-hf
from mirror_hf.scoring import udr  # From: mirror-hf

_DESCRIPTION = """\
UDR = #{strong components with decision in (use_tool, defer) and correct = true} / #{strong components}.
Only observed correctness is available, so in P2 (non-proceed forces correct = false) UDR is 0 and it
is effectively the P1 tool-use-and-correct rate on strong domains. Not in the paper; kept for parity.
"""

_KWARGS_DESCRIPTION = """\
Args (one row per component):
Keyword arguments:
    frame: "table" (default: all paradigms, fixed tasks), "escalation", "kdi", "all", "escalation_fixed",
        "paradigm_P1", "paradigm_P2" or "paradigm_P3".
    condition_filter: "C1" (default) or another condition, or None for all.
    missing: "complete_case" (default) or "missing_incorrect".
Returns:
    {"udr": float (NaN without strong components), "n": strong components, "ci": [lo, hi] if asked}
Examples:
    >>> udr = evaluate.load("mirror/udr")
    >>> udr.compute(strength=["strong", "strong"], decision=["use_tool", "proceed"], correct=[True, True],
    ...             condition=["C1"] * 2, paradigm=["P1"] * 2, task_type=["fixed"] * 2,
    ...             api_success=[True] * 2, externally_routed=[False] * 2)
    {'udr': 0.5, 'n': 2}
"""


def _udr(*, frame, condition_filter, missing, ci, **columns):
    return udr(components_frame(**columns), frame=frame, condition=condition_filter, missing=missing, ci=ci)


_OPTIONS = {"frame": "table", "condition_filter": "C1", "missing": "complete_case"}
Udr = evaluate_support.metric(
    "udr", _DESCRIPTION, _KWARGS_DESCRIPTION, function=_udr, options=_OPTIONS, columns=evaluate_support.COMPONENT_ARGS
)
