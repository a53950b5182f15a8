"""Confident Failure Rate (Mirror, Exp9): the share of weak-domain components a model proceeded on and got wrong."""

import datasets
import evaluate
from mirror_hf.scoring import cfr  # From: mirror-hf
from mirror_hf.scoring import cfr_by_condition  # From: mirror-hf
from mirror_hf.scoring import components_frame  # From: mirror-hf
from mirror_hf.scoring import evaluate_support  # From: mirror-hf

_CITATION = """\
@article{mirror2026,
  title={MIRROR: Do Language Models Know What They Know, and Act on It?},
  journal={arXiv preprint arXiv:2604.19809},
  year={2026}
}
"""

_DESCRIPTION = """\
CFR = #{weak components with decision = proceed and correct = false} / #{weak components}.
A component is one part (slot a or b) of one Exp9 trial. use_tool and defer are never failures;
medium/unknown components are excluded. Trials are pooled by a frame (escalation: P1+P2, fixed and
tailored; table: all paradigms, fixed; kdi: P1, fixed; all), false-score controls always excluded.
"""

_KWARGS_DESCRIPTION = """\
Args (one row per component):
    strength: "weak" / "strong" / "medium" / "unknown".
    decision: "proceed" / "use_tool" / "defer" (null = missing).
    correct: bool (null = ungraded).
    condition: "C1".."C4".
    paradigm: "P1" / "P2" / "P3".
    task_type: "fixed" / "tailored".
    api_success: bool (false = the trial's request failed).
    externally_routed: bool (C4 oracle routing; never counted as missing).
Keyword arguments:
    frame: "escalation" (default), "table", "kdi" or "all".
    condition_filter: one condition ("C1"...), or None (default) for the pooled value plus `by_condition`.
    missing: "complete_case" (default) or "missing_incorrect".
    ci: bool (default False): add a 95% BCa interval (10,000 resamples, seed 42 unless n_resamples/seed given).
Returns:
    {"cfr": float (NaN without weak components), "n": weak components, "ci": [lo, hi] if asked,
     "by_condition": {"C1": {"cfr", "n", "ci"}, ...} when condition_filter is None}
Examples:
    >>> cfr = evaluate.load("mirror/cfr")
    >>> cfr.compute(strength=["weak", "weak", "strong"], decision=["proceed", "defer", "proceed"],
    ...             correct=[False, False, False], condition=["C1"] * 3, paradigm=["P1"] * 3,
    ...             task_type=["fixed"] * 3, api_success=[True] * 3, externally_routed=[False] * 3)["cfr"]
    0.5
"""

_FEATURES = datasets.Features(
    {
        "strength": datasets.Value("string"),
        "decision": datasets.Value("string"),
        "correct": datasets.Value("bool"),
        "condition": datasets.Value("string"),
        "paradigm": datasets.Value("string"),
        "task_type": datasets.Value("string"),
        "api_success": datasets.Value("bool"),
        "externally_routed": datasets.Value("bool"),
    }
)


@evaluate.utils.file_utils.add_start_docstrings(_DESCRIPTION, _KWARGS_DESCRIPTION)
class Cfr(evaluate_support.StrictMetric):
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
        strength,
        decision,
        correct,
        condition,
        paradigm,
        task_type,
        api_success,
        externally_routed,
        frame="escalation",
        condition_filter=None,
        missing="complete_case",
        ci=False,
        n_resamples=10_000,
        seed=42,
    ):
        components = components_frame(
            strength=strength,
            decision=decision,
            correct=correct,
            condition=condition,
            paradigm=paradigm,
            task_type=task_type,
            api_success=api_success,
            externally_routed=externally_routed,
        )
        options = evaluate_support.bootstrap_option(ci, n_resamples, seed)
        out = evaluate_support.as_output(cfr(components, frame=frame, condition=condition_filter, missing=missing, ci=options), "cfr")
        if condition_filter is None:
            by_condition = cfr_by_condition(components, frame=frame, missing=missing, ci=options)
            out["by_condition"] = {c: evaluate_support.as_output(e, "cfr") for c, e in by_condition.items()}
        return out
