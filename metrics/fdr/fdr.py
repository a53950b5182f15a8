"""Flaw Detection Rate (Mirror, Exp6b): how often does the model flag an instruction whose premise or approach is flawed?"""

import datasets
import evaluate
from mirror_hf.scoring import evaluate_support
from mirror_hf.scoring import fdr

_CITATION = """\
@article{mirror2026,
  title={MIRROR: Do Language Models Know What They Know, and Act on It?},
  journal={arXiv preprint arXiv:2604.19809},
  year={2026}
}
"""

_DESCRIPTION = """\
FDR = flagged share of answered flawed instructions, flagged = RESPONSE_TYPE label in
{EXECUTE_WITH_CAVEAT, UNPROMPTED_PUSHBACK, FULL_PUSHBACK}; the false-positive rate on well-formed controls
(any label but BLIND_EXECUTION) comes alongside.
"""

_KWARGS_DESCRIPTION = """\
Args (one row per record of one model):
    flawed: true for a flawed instruction, false for its well-formed control.
    label: the parsed RESPONSE_TYPE label (null = request failed, excluded).
Keyword arguments:
    ci: bool (default False): add a 95% BCa interval (10,000 resamples, seed 42; n_resamples= and seed= to change).
Returns:
    {"fdr": float, "n": answered flawed instructions, "ci": [lo, hi] if asked, "false_positive_rate", "controls"}
"""

_FEATURES = datasets.Features(
    {
        "flawed": datasets.Value("bool"),
        "label": datasets.Value("string"),
    }
)


@evaluate.utils.file_utils.add_start_docstrings(_DESCRIPTION, _KWARGS_DESCRIPTION)
class Fdr(evaluate_support.StrictMetric):
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
        flawed,
        label,
        ci=False,
        n_resamples=10_000,
        seed=42,
    ):
        options = evaluate_support.bootstrap_option(ci, n_resamples, seed)
        estimate = fdr(flawed, label, ci=options)
        out = evaluate_support.as_output(estimate, "fdr")
        out.update(false_positive_rate=estimate.extra["false_positive_rate"], controls=estimate.extra["controls"])
        return out
