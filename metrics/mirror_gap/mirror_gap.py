"""Mirror gap (Mirror, Exp1): how far wagering accuracy and natural accuracy diverge, per domain."""

import datasets
import evaluate
from mirror_hf.scoring import evaluate_support  # From: mirror-hf
from mirror_hf.scoring import mirror_gap  # From: mirror-hf
from mirror_hf.scoring import mirror_gap_by_domain  # From: mirror-hf

_CITATION = """\
@article{mirror2026,
  title={MIRROR: Do Language Models Know What They Know, and Act on It?},
  journal={arXiv preprint arXiv:2604.19809},
  year={2026}
}
"""

_DESCRIPTION = """\
Gap(m) = mean over domains having both accuracies of |Wag.Acc(m,d) - Nat.Acc(m,d)|, accuracies over
graded records (ungraded = null are excluded). Range [0, 1].
"""

_KWARGS_DESCRIPTION = """\
Args (one row per question of one model):
    domain: the question's domain.
    natural_correct: grade in the natural channel (null = missing or ungraded).
    wagering_correct: grade in the wagering channel (null = missing or ungraded).
Keyword arguments:
    ci: bool (default False): add a 95% percentile interval (10,000 resamples, seed 42; n_resamples= and seed= to change). The bootstrap resamples questions within domains.
Returns:
    {"mirror_gap": float, "n": questions with a grade, "ci": [lo, hi] if asked, "by_domain": {domain: g(m,d)}}
"""

_FEATURES = datasets.Features(
    {
        "domain": datasets.Value("string"),
        "natural_correct": datasets.Value("bool"),
        "wagering_correct": datasets.Value("bool"),
    }
)


@evaluate.utils.file_utils.add_start_docstrings(_DESCRIPTION, _KWARGS_DESCRIPTION)
class MirrorGap(evaluate_support.StrictMetric):
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
        domain,
        natural_correct,
        wagering_correct,
        ci=False,
        n_resamples=10_000,
        seed=42,
    ):
        options = evaluate_support.bootstrap_option(ci, n_resamples, seed)
        out = evaluate_support.as_output(mirror_gap(domain, natural_correct, wagering_correct, ci=options), "mirror_gap")
        by_domain = mirror_gap_by_domain(domain, natural_correct, wagering_correct)
        out["by_domain"] = {d: e.value for d, e in by_domain.items()}
        return out
