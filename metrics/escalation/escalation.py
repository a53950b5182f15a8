"""Escalation curve (Mirror, Exp9): mean per-model CFR across conditions C1..C4."""

import datasets
import evaluate
from mirror_hf.scoring import escalation_curve  # From: mirror-hf
from mirror_hf.scoring import evaluate_support  # From: mirror-hf

_CITATION = """\
@article{mirror2026,
  title={MIRROR: Do Language Models Know What They Know, and Act on It?},
  journal={arXiv preprint arXiv:2604.19809},
  year={2026}
}
"""

_DESCRIPTION = """\
Per condition: the mean over models of per-model CFR (escalation frame), SD (ddof 1) and a BCa CI over
the per-model values; reduction = (mean C1 - mean C4) / mean C1; for consecutive conditions the paired
effect size d_z = mean(diff)/SD(diff), diff = earlier - later, with a paired-bootstrap p-value
2 min(P*(mean diff* <= 0), P*(mean diff* >= 0)) and the BCa CI of the mean difference.
"""

_KWARGS_DESCRIPTION = """\
Args (one row per model and condition):
    model: the model.
    condition: "C1".."C4".
    cfr: that model's CFR under that condition (null = undefined).
Keyword arguments:
    ci: bool (default True here): BCa CIs of the condition means (10,000 resamples, seed 42).
Returns:
    {"C1": {"value", "n", "ci", "sd"}, ..., "reduction": {"value", "difference"},
     "d_z": {"C1_C2": {"value", "n", "ci", "mean_diff", "mean_diff_ci", "sd_diff", "p"}, ...}}
"""

_FEATURES = datasets.Features(
    {
        "model": datasets.Value("string"),
        "condition": datasets.Value("string"),
        "cfr": datasets.Value("float64"),
    }
)


@evaluate.utils.file_utils.add_start_docstrings(_DESCRIPTION, _KWARGS_DESCRIPTION)
class Escalation(evaluate_support.StrictMetric):
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
        condition,
        cfr,
        ci=True,
        n_resamples=10_000,
        seed=42,
    ):
        per_model = {}
        for m, c, v in zip(model, condition, cfr):
            per_model.setdefault(m, {})[c] = v
        conditions = tuple(c for c in ("C1", "C2", "C3", "C4") if c in set(condition))
        curve = escalation_curve(per_model, conditions=conditions, ci=evaluate_support.bootstrap_option(ci, n_resamples, seed))
        return evaluate_support.escalation_output(curve)
