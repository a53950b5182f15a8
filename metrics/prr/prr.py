"""PRR (Mirror, Exp1 signals)."""

import datasets
import evaluate
from mirror_hf.scoring import prr  # From: mirror-hf
from mirror_hf.scoring import evaluate_support  # From: mirror-hf

_CITATION = """\
@article{mirror2026,
  title={MIRROR: Do Language Models Know What They Know, and Act on It?},
  journal={arXiv preprint arXiv:2604.19809},
  year={2026}
}
"""

_DESCRIPTION = """\
PRR = prediction rejection ratio as LM-Polygraph defines it: (AURC_random - AURC) / (AURC_random - AURC_oracle),
with 0/1 quality the normalised area under the prediction-rejection curve. 1 = oracle ranking, 0 = random,
< 0 worse than random; NaN with one class only.
"""

_KWARGS_DESCRIPTION = """\
Args (one row per graded record of one channel):
    confidence: the channel's confidence in [0, 1] (any Exp1 channel's signal: a wager, sample agreement, a token probability).
    correct: bool (null rows are dropped).
Keyword arguments:
    ci: bool (default False): add a 95% BCa interval (10,000 resamples, seed 42; n_resamples= and seed= to change).
Returns:
    {"prr": float, "n": records, "ci": [lo, hi] if asked}
"""

_FEATURES = datasets.Features(
    {
        "confidence": datasets.Value("float64"),
        "correct": datasets.Value("bool"),
    }
)


@evaluate.utils.file_utils.add_start_docstrings(_DESCRIPTION, _KWARGS_DESCRIPTION)
class Prr(evaluate_support.StrictMetric):
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
        return evaluate_support.as_output(prr(confidence, correct, ci=options), "prr")
