"""Adaptation Index (Mirror, Exp4): after failing in a domain, does the model lower its confidence there?"""

import datasets
import evaluate
from mirror_hf.scoring import evaluate_support
from mirror_hf.scoring import ai

_CITATION = """\
@article{mirror2026,
  title={MIRROR: Do Language Models Know What They Know, and Act on It?},
  journal={arXiv preprint arXiv:2604.19809},
  year={2026}
}
"""

_DESCRIPTION = """\
Per burn domain: mean of (signal on the related, burned-domain item - signal on the unrelated, control-domain item)
after failure feedback (>= 3 trials); model AI = macro mean over burn domains. Negative = the model adapted.
paper (default): the two signals of the same trial are paired. upstream: the authors' unaligned lists.
"""

_KWARGS_DESCRIPTION = """\
Args (one row per record of one model):
    domain: the trial's burn domain.
    related: post-feedback signal on the related item (null = missing).
    unrelated: post-feedback signal on the unrelated item (null = missing).
Keyword arguments:
    variant: default "paper".
    ci: bool (default False): add a 95% BCa interval (10,000 resamples, seed 42; n_resamples= and seed= to change).
Returns:
    {"ai": float, "n": trials, "ci": [lo, hi] if asked, "domains": {domain: AI or None}}
"""

_FEATURES = datasets.Features(
    {
        "domain": datasets.Value("string"),
        "related": datasets.Value("float64"),
        "unrelated": datasets.Value("float64"),
    }
)


@evaluate.utils.file_utils.add_start_docstrings(_DESCRIPTION, _KWARGS_DESCRIPTION)
class Ai(evaluate_support.StrictMetric):
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
        related,
        unrelated,
        variant="paper",
        ci=False,
        n_resamples=10_000,
        seed=42,
    ):
        options = evaluate_support.bootstrap_option(ci, n_resamples, seed)
        estimate = ai(domain, related, unrelated, variant=variant, ci=options)
        out = evaluate_support.as_output(estimate, "ai")
        out["domains"] = estimate.extra["domains"]
        return out
