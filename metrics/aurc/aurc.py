"""AURC (Mirror, Exp1 signals)."""

import datasets
import evaluate
from mirror_hf.scoring import aurc  # From: mirror-hf
from mirror_hf.scoring import risk_at_coverage  # From: mirror-hf
from mirror_hf.scoring import evaluate_support  # From: mirror-hf

_CITATION = """\
@article{mirror2026,
  title={MIRROR: Do Language Models Know What They Know, and Act on It?},
  journal={arXiv preprint arXiv:2604.19809},
  year={2026}
}
"""

_DESCRIPTION = """\
AURC = area under the risk-coverage curve: records ordered by confidence (highest first),
risk(i) = errors among the first i / i, AURC = mean over i; equal confidences averaged over their orders.
Also `risk_at_80` (error rate among the 80% most confident). Range [0, 1], lower is better; a
random signal's AURC is 1 - accuracy.
"""

_KWARGS_DESCRIPTION = """\
Args (one row per graded record of one channel):
    confidence: the channel's confidence in [0, 1] (any Exp1 channel's signal: a wager, sample agreement, a token probability).
    correct: bool (null rows are dropped).
Keyword arguments:
    ci: bool (default False): add a 95% BCa interval (10,000 resamples, seed 42; n_resamples= and seed= to change).
Returns:
    {"aurc": float, "risk_at_80": float, "n": records, "ci": [lo, hi] if asked (for aurc)}
"""

_FEATURES = datasets.Features(
    {
        "confidence": datasets.Value("float64"),
        "correct": datasets.Value("bool"),
    }
)


@evaluate.utils.file_utils.add_start_docstrings(_DESCRIPTION, _KWARGS_DESCRIPTION)
class Aurc(evaluate_support.StrictMetric):
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
        ci=False,
        n_resamples=10_000,
        seed=42,
    ):
        options = evaluate_support.bootstrap_option(ci, n_resamples, seed)
        out = evaluate_support.as_output(aurc(confidence, correct, ci=options), "aurc")
        out["risk_at_80"] = evaluate_support.as_output(risk_at_coverage(confidence, correct, coverage=0.8), "risk")["risk"]
        return out
