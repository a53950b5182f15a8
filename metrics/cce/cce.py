"""Compositional Calibration Error (Mirror, Exp3): calibration on two-domain composite tasks."""

import datasets
import evaluate
from mirror_hf.scoring import cce  # From: mirror-hf
from mirror_hf.scoring import evaluate_support  # From: mirror-hf

_CITATION = """\
@article{mirror2026,
  title={MIRROR: Do Language Models Know What They Know, and Act on It?},
  journal={arXiv preprint arXiv:2604.19809},
  year={2026}
}
"""

_DESCRIPTION = """\
paper (default): mean over tasks of |p_composite - correct_composite| - |p_component - correct_component|
(the primary component asked alone); range [-1, 1], > 0 = worse calibrated on composites.
upstream: mean over tasks of |confidence - correct| on the composite (missing confidence = 0.5); [0, 1].
balanced: the upstream error averaged over domain pairs within weak_weak / strong_weak / strong_strong
strata, then over strata (the expectation of upstream's difficulty-balanced subsampling).
"""

_KWARGS_DESCRIPTION = """\
Args (one row per composite task of one model):
    confidence: self-predicted probability of success in [0, 1] (divide a 0-100 report by 100).
    correct: bool, the composite answer's grade.
    component_confidence: the primary component's confidence asked alone (paper; else null).
    component_correct: the primary component's grade asked alone (paper; else null).
    domain_a, domain_b: the task's two domains (balanced; else null).
Keyword arguments:
    variant: "paper" (default), "upstream" or "balanced".
    weak_domains: list of the model's weak domains (balanced only).
    ci: bool (default False): add a 95% BCa interval (10,000 resamples, seed 42; n_resamples= and seed= to change).
Returns:
    {"cce": float, "n": tasks used, "ci": [lo, hi] if asked}
"""

_FEATURES = datasets.Features(
    {
        "confidence": datasets.Value("float64"),
        "correct": datasets.Value("bool"),
        "component_confidence": datasets.Value("float64"),
        "component_correct": datasets.Value("bool"),
        "domain_a": datasets.Value("string"),
        "domain_b": datasets.Value("string"),
    }
)


@evaluate.utils.file_utils.add_start_docstrings(_DESCRIPTION, _KWARGS_DESCRIPTION)
class Cce(evaluate_support.StrictMetric):
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
        confidence,
        correct,
        component_confidence,
        component_correct,
        domain_a,
        domain_b,
        variant="paper",
        weak_domains=None,
        ci=False,
        n_resamples=10_000,
        seed=42,
    ):
        options = evaluate_support.bootstrap_option(ci, n_resamples, seed)
        estimate = cce(
            confidence,
            correct,
            component_confidence=component_confidence,
            component_correct=component_correct,
            domain_a=domain_a,
            domain_b=domain_b,
            weak_domains=weak_domains,
            variant=variant,
            ci=options,
        )
        return evaluate_support.as_output(estimate, "cce")
