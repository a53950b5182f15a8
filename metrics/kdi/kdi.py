"""Knowing-Doing Index (Mirror): the Mirror gap minus the appropriate-action rate on weak domains."""

import datasets
import evaluate
from mirror_hf.scoring import components_frame  # From: mirror-hf
from mirror_hf.scoring import evaluate_support  # From: mirror-hf
from mirror_hf.scoring import kdi  # From: mirror-hf

_CITATION = """\
@article{mirror2026,
  title={MIRROR: Do Language Models Know What They Know, and Act on It?},
  journal={arXiv preprint arXiv:2604.19809},
  year={2026}
}
"""

_DESCRIPTION = """\
paper (default): KDI(m) = Gap(m) - (1 - CFR(m, C1)), CFR in the table frame (C1, all paradigms, fixed
tasks). upstream: for each domain with a weak component in C1 / P1 / fixed tasks, g(m,d) - (1 - CFR_d),
averaged over those domains. Range [-1, 1]; negative = the model knows better than it acts.
"""

_KWARGS_DESCRIPTION = """\
Args (one row per component of one model):
    strength: "weak" / "strong" / "medium" / "unknown".
    decision: "proceed" / "use_tool" / "defer" (null = missing).
    correct: bool (null = ungraded).
    condition: "C1".."C4".
    paradigm: "P1" / "P2" / "P3".
    task_type: "fixed" / "tailored".
    api_success: bool (false = the trial's request failed).
    externally_routed: bool (C4 oracle routing; never counted as missing).
    domain: the component's domain.
    mirror_gap: g(m, domain), the model's Exp1 Mirror gap in that domain (null if unknown).
Keyword arguments:
    variant: "paper" (default) or "upstream".
    model_gap: Gap(m) for the paper variant (default: mean of the per-domain gaps present).
    missing: "complete_case" (default) or "missing_incorrect".
    ci: bool (default False): add a 95% BCa interval (10,000 resamples, seed 42; n_resamples= and seed= to change). The gap is treated as fixed.
Returns:
    {"kdi": float, "n": weak components, "ci": [lo, hi] if asked}
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
        "domain": datasets.Value("string"),
        "mirror_gap": datasets.Value("float64"),
    }
)


@evaluate.utils.file_utils.add_start_docstrings(_DESCRIPTION, _KWARGS_DESCRIPTION)
class Kdi(evaluate_support.StrictMetric):
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
        domain,
        mirror_gap,
        variant="paper",
        model_gap=None,
        missing="complete_case",
        ci=False,
        n_resamples=10_000,
        seed=42,
    ):
        options = evaluate_support.bootstrap_option(ci, n_resamples, seed)
        components = components_frame(strength=strength, decision=decision, correct=correct, condition=condition, paradigm=paradigm, task_type=task_type, api_success=api_success, externally_routed=externally_routed, domain=domain, mirror_gap=mirror_gap)
        return evaluate_support.as_output(kdi(components, variant=variant, model_gap=model_gap, missing=missing, ci=options), "kdi")
