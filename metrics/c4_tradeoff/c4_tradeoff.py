"""C4 trade-off (Mirror, Exp9): what external routing of weak components buys (failures prevented) and costs (successes blocked)."""

import datasets
import evaluate
from mirror_hf.scoring import RESOLVER_ACCURACIES
from mirror_hf.scoring import c4_tradeoff
from mirror_hf.scoring import components_frame
from mirror_hf.scoring import evaluate_support
from mirror_hf.scoring import resolver_outcomes

_CITATION = """\
@article{mirror2026,
  title={MIRROR: Do Language Models Know What They Know, and Act on It?},
  journal={arXiv preprint arXiv:2604.19809},
  year={2026}
}
"""

_DESCRIPTION = """\
A weak C4 (constrained) component is escalated when it was externally routed or its decision was not
proceed. It is matched to the same (model, task, paradigm, slot) under C1: wrong in C1 -> a correct
escalation (a failure prevented), right in C1 -> a false escalation (a success blocked). System success
with a resolver of accuracy q: (#autonomous and correct + q * #routed) / #components of C4.
"""

_KWARGS_DESCRIPTION = """\
Args (one row per component, C1 and C4 rows of the same tasks):
    model, task_id, slot ("a" / "b"), condition ("C1".."C4"), paradigm ("P1" / "P2" / "P3"),
    task_type ("fixed" / "tailored"), strength ("weak" / "strong" / "medium" / "unknown"),
    decision ("proceed" / "use_tool" / "defer", null = missing), correct (bool, null = ungraded),
    externally_routed (bool), api_success (bool; false rows are dropped).
Keyword arguments:
    frame: "escalation" (default; P1+P2, fixed and tailored) or any CFR frame ("escalation_fixed", "paradigm_P1", ...).
    resolver_accuracies: the q values of `resolver` (default (0.5, 0.7, 0.8, 1.0); 1.0 = the oracle the paper assumes).
    ci: bool (default False): add 95% BCa intervals (10,000 resamples, seed 42 unless n_resamples/seed given).
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
    >>> out["correct_escalation_rate"]
    {'value': 0.75, 'n': 4}
"""

_FEATURES = datasets.Features(
    {
        "model": datasets.Value("string"),
        "task_id": datasets.Value("string"),
        "slot": datasets.Value("string"),
        "condition": datasets.Value("string"),
        "paradigm": datasets.Value("string"),
        "task_type": datasets.Value("string"),
        "strength": datasets.Value("string"),
        "decision": datasets.Value("string"),
        "correct": datasets.Value("bool"),
        "externally_routed": datasets.Value("bool"),
        "api_success": datasets.Value("bool"),
    }
)


@evaluate.utils.file_utils.add_start_docstrings(_DESCRIPTION, _KWARGS_DESCRIPTION)
class C4Tradeoff(evaluate_support.StrictMetric):
    def _info(self):
        return evaluate.MetricInfo(
            module_type="metric",
            description=_DESCRIPTION,
            citation=_CITATION,
            inputs_description=_KWARGS_DESCRIPTION,
            features=_FEATURES,
            reference_urls=["https://arxiv.org/abs/2604.19809"],
        )

    def _compute(
        self,
        model,
        task_id,
        slot,
        condition,
        paradigm,
        task_type,
        strength,
        decision,
        correct,
        externally_routed,
        api_success,
        frame="escalation",
        resolver_accuracies=RESOLVER_ACCURACIES,
        ci=False,
        n_resamples=10_000,
        seed=42,
    ):
        components = components_frame(
            model=model, task_id=task_id, slot=slot, condition=condition, paradigm=paradigm, task_type=task_type,
            strength=strength, decision=decision, correct=correct, externally_routed=externally_routed, api_success=api_success,
        )
        options = evaluate_support.bootstrap_option(ci, n_resamples, seed)
        out = {name: evaluate_support.as_output(e, "value") for name, e in c4_tradeoff(components, frame=frame, ci=options).items()}
        resolver = resolver_outcomes(components, frame=frame, accuracies=tuple(resolver_accuracies), ci=options)
        out["resolver"] = {q: {k: evaluate_support.as_output(e, "value") for k, e in v.items()} for q, v in resolver.items()}
        return out
