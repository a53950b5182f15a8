"""Brier (Mirror, Exp1 wager)."""

import datasets
import evaluate
from mirror_hf.scoring import brier  # From: mirror-hf
from mirror_hf.scoring import evaluate_support  # From: mirror-hf

_CITATION = """\
@article{mirror2026,
  title={MIRROR: Do Language Models Know What They Know, and Act on It?},
  journal={arXiv preprint arXiv:2604.19809},
  year={2026}
}
"""

_DESCRIPTION = """\
Brier = mean (p - y)^2 of the confidence as a probability of being correct.
On the wager signal bet/10. Range [0, 1], lower is better.
"""

_KWARGS_DESCRIPTION = """\
Args (one row per graded wagering record):
    confidence: probability of being correct in [0, 1] (for wagers: bet / 10).
    correct: bool (null rows are dropped).
Keyword arguments:
    ci: bool (default False): add a 95% BCa interval (10,000 resamples, seed 42; n_resamples= and seed= to change).
    domain: optional list, one domain per row: the bootstrap then resamples within domains (the bank fixes
        the items per domain); the value is the same.
Returns:
    {"brier": float, "n": records, "ci": [lo, hi] if asked}
"""

_FEATURES = datasets.Features(
    {
        "confidence": datasets.Value("float64"),
        "correct": datasets.Value("bool"),
    }
)


@evaluate.utils.file_utils.add_start_docstrings(_DESCRIPTION, _KWARGS_DESCRIPTION)
class Brier(evaluate_support.StrictMetric):
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
        domain=None,
        n_resamples=10_000,
        seed=42,
    ):
        options = evaluate_support.bootstrap_option(ci, n_resamples, seed)
        return evaluate_support.as_output(brier(confidence, correct, ci=options, domain=domain), "brier")
