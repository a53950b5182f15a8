"""Unnecessary Deferral Rate (Mirror, Exp9; upstream code only): strong-domain components escalated although graded correct."""

import datasets
import evaluate
from mirror_hf.scoring import components_frame  # From: mirror-hf
from mirror_hf.scoring import evaluate_support  # From: mirror-hf
from mirror_hf.scoring import udr  # From: mirror-hf

_CITATION = """\
@article{mirror2026,
  title={MIRROR: Do Language Models Know What They Know, and Act on It?},
  journal={arXiv preprint arXiv:2604.19809},
  year={2026}
}
"""

_DESCRIPTION = """\
UDR = #{strong components with decision in (use_tool, defer) and correct = true} / #{strong components}.
Only observed correctness is available, so in P2 (non-proceed forces correct = false) UDR is 0 and it
is effectively the P1 tool-use-and-correct rate on strong domains. Not in the paper; kept for parity.
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
    frame: "table" (default: all paradigms, fixed tasks), "escalation", "kdi" or "all".
    condition_filter: "C1" (default) or another condition, or None for all.
    missing: "complete_case" (default) or "missing_incorrect".
    ci: bool (default False): add a 95% BCa interval (10,000 resamples, seed 42; n_resamples= and seed= to change).
Returns:
    {"udr": float (NaN without strong components), "n": strong components, "ci": [lo, hi] if asked}
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
class Udr(evaluate_support.StrictMetric):
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
        frame="table",
        condition_filter="C1",
        missing="complete_case",
        ci=False,
        n_resamples=10_000,
        seed=42,
    ):
        options = evaluate_support.bootstrap_option(ci, n_resamples, seed)
        components = components_frame(strength=strength, decision=decision, correct=correct, condition=condition, paradigm=paradigm, task_type=task_type, api_success=api_success, externally_routed=externally_routed)
        return evaluate_support.as_output(udr(components, frame=frame, condition=condition_filter, missing=missing, ci=options), "udr")
