"""Metacognitive Convergence Index (Mirror, Exp1): do the behavioural channels agree on confidence?"""

import datasets
import evaluate
from mirror_hf.scoring import evaluate_support  # From: mirror-hf
from mirror_hf.scoring import mci  # From: mirror-hf

_CITATION = """\
@article{mirror2026,
  title={MIRROR: Do Language Models Know What They Know, and Act on It?},
  journal={arXiv preprint arXiv:2604.19809},
  year={2026}
}
"""

_DESCRIPTION = """\
MCI = mean over channel pairs (with >= 2 shared questions and both sides varying) of Spearman's rho
between the channels' per-question confidence signals. Signed, range [-1, 1]. A constant channel's
pairs are dropped rather than turning the mean into NaN.
"""

_KWARGS_DESCRIPTION = """\
Args (one row per record of one model):
    item_id: the question.
    channel: wagering / opt_out / difficulty_selection / tool_delegation / natural (or any other).
    signal: the channel's confidence signal (bet, 1 answered / 0 skipped, 1 chose harder,
            1/(1+tools), 1/(1+hedges), or the recorded `confidence`); null = missing.
Keyword arguments:
    min_shared: fewest shared questions for a pair (default 2).
    ci: bool (default False): add a 95% BCa interval (10,000 resamples, seed 42; n_resamples= and seed= to change).
Returns:
    {"mci": float, "n": questions, "ci": [lo, hi] if asked, "pairs": {"a~b": rho or None}}
"""

_FEATURES = datasets.Features(
    {
        "item_id": datasets.Value("string"),
        "channel": datasets.Value("string"),
        "signal": datasets.Value("float64"),
    }
)


@evaluate.utils.file_utils.add_start_docstrings(_DESCRIPTION, _KWARGS_DESCRIPTION)
class Mci(evaluate_support.StrictMetric):
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
        item_id,
        channel,
        signal,
        min_shared=2,
        ci=False,
        n_resamples=10_000,
        seed=42,
    ):
        options = evaluate_support.bootstrap_option(ci, n_resamples, seed)
        estimate = mci(item_id, channel, signal, min_shared=min_shared, ci=options)
        out = evaluate_support.as_output(estimate, "mci")
        out["pairs"] = estimate.extra["pairs"]
        return out
