"""C4 trade-off (Mirror, Exp9): what external routing of weak components buys (failures prevented) and costs (successes blocked)."""

from mirror_hf.scoring import RESOLVER_ACCURACIES  # From: mirror-hf
from mirror_hf.scoring import c4_tradeoff  # From: mirror-hf
from mirror_hf.scoring import components_frame  # From: mirror-hf
from mirror_hf.scoring import evaluate_support  # From: mirror-hf
from mirror_hf.scoring import resolver_outcomes  # From: mirror-hf

_DESCRIPTION = """\
A weak C4 (constrained) component is escalated when it was externally routed or its decision was not
proceed. It is matched to the same (model, task, paradigm, slot) under C1: wrong in C1 -> a correct
escalation (a failure prevented), right in C1 -> a false escalation (a success blocked). System success
with a resolver of accuracy q: (#autonomous and correct + q * #routed) / #components of C4.
"""

_KWARGS_DESCRIPTION = """\
Args (one row per component, C1 and C4 rows of the same tasks; rows whose request failed are dropped):
    model (string): the model.
    task_id (string): the task.
    slot (string): "a" / "b".
Keyword arguments:
    frame: "escalation" (default; P1+P2, fixed and tailored) or any CFR frame ("escalation_fixed", "paradigm_P1", ...).
    resolver_accuracies: the q values of `resolver` (default (0.5, 0.7, 0.8, 1.0); 1.0 = the oracle the paper assumes).
Returns:
    {"escalation_rate", "correct_escalation_rate", "false_escalation_rate", "failures_prevented_per_100",
     "successes_blocked_per_100", "net_utility_per_100": {"value", "n", "ci"?} each,
     "resolver": {"0.5": {"system_success": {...}, "autonomy": {...}}, ...}}
Examples:
    >>> c4 = evaluate.load("mirror/c4_tradeoff")
    >>> rows = 4 * 2
    >>> out = c4.compute(model=["m"] * rows, task_id=["t1", "t2", "t3", "t4"] * 2, slot=["b"] * rows,
    ...                  condition=["C1"] * 4 + ["C4"] * 4, paradigm=["P1"] * rows, task_type=["fixed"] * rows,
    ...                  strength=["weak"] * rows, decision=["proceed"] * 4 + ["use_tool"] * 4,
    ...                  correct=[False, False, False, True] + [True] * 4, externally_routed=[False] * 4 + [True] * 4,
    ...                  api_success=[True] * rows)
    >>> out["correct_escalation_rate"], out["net_utility_per_100"]
    ({'value': 0.75, 'n': 4}, {'value': 50.0, 'n': 4})
    >>> out["resolver"]["0.7"]
    {'system_success': {'value': 0.7, 'n': 4}, 'autonomy': {'value': 0.0, 'n': 4}}
"""


def _c4(*, frame, resolver_accuracies, ci, **columns):
    components = components_frame(**columns)
    out = {name: evaluate_support.as_output(e, "value") for name, e in c4_tradeoff(components, frame=frame, ci=ci).items()}
    resolver = resolver_outcomes(components, frame=frame, accuracies=tuple(resolver_accuracies), ci=ci)
    out["resolver"] = {q: {k: evaluate_support.as_output(e, "value") for k, e in v.items()} for q, v in resolver.items()}
    return out


_OPTIONS = {"frame": "escalation", "resolver_accuracies": RESOLVER_ACCURACIES}
C4Tradeoff = evaluate_support.metric(
    "c4_tradeoff", _DESCRIPTION, _KWARGS_DESCRIPTION, compute=_c4, options=_OPTIONS, columns=evaluate_support.COMPONENT_ARGS
)
