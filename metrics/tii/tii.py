"""Transfer Influence Index (Mirror, Exp2): does confidence on transfer tasks track skill in the hidden source domain?"""

import datasets
import evaluate
from mirror_hf.scoring import evaluate_support  # From: mirror-hf
from mirror_hf.scoring import tii  # From: mirror-hf

_CITATION = """\
@article{mirror2026,
  title={MIRROR: Do Language Models Know What They Know, and Act on It?},
  journal={arXiv preprint arXiv:2604.19809},
  year={2026}
}
"""

_DESCRIPTION = """\
Per channel: Spearman's rho between the model's Exp1 natural accuracy in each task's hidden source
domain and the channel's confidence signal on the task (>= 3 tasks). paper (default): mean of |rho| over
channels, [0, 1]. upstream: signed mean, [-1, 1].
"""

_KWARGS_DESCRIPTION = """\
Args (one row per (task, channel) record of one model):
    item_id: the transfer task.
    channel: the channel.
    signal: its confidence signal (null = missing).
    source_accuracy: the model's Exp1 natural accuracy in the task's source domain.
Keyword arguments:
    variant: "paper" (default) or "upstream".
    ci: bool (default False): add a 95% BCa interval (10,000 resamples, seed 42; n_resamples= and seed= to change).
Returns:
    {"tii": float, "n": tasks, "ci": [lo, hi] if asked, "channels": {channel: rho or None}}
"""

_FEATURES = datasets.Features(
    {
        "item_id": datasets.Value("string"),
        "channel": datasets.Value("string"),
        "signal": datasets.Value("float64"),
        "source_accuracy": datasets.Value("float64"),
    }
)


@evaluate.utils.file_utils.add_start_docstrings(_DESCRIPTION, _KWARGS_DESCRIPTION)
class Tii(evaluate_support.StrictMetric):
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
        source_accuracy,
        variant="paper",
        ci=False,
        n_resamples=10_000,
        seed=42,
    ):
        options = evaluate_support.bootstrap_option(ci, n_resamples, seed)
        estimate = tii(item_id, channel, signal, source_accuracy, variant=variant, ci=options)
        out = evaluate_support.as_output(estimate, "tii")
        out["channels"] = estimate.extra["channels"]
        return out
