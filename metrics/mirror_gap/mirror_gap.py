"""Mirror gap (Mirror, Exp1): how far wagering accuracy and natural accuracy diverge, per domain."""

from mirror_hf.scoring import evaluate_support  # From: mirror-hf
from mirror_hf.scoring import mirror_gap  # From: mirror-hf
from mirror_hf.scoring import mirror_gap_by_domain  # From: mirror-hf

_DESCRIPTION = """\
Gap(m) = mean over domains having both accuracies of |Wag.Acc(m,d) - Nat.Acc(m,d)|, accuracies over
graded records (ungraded = null are excluded). Range [0, 1].
"""

_KWARGS_DESCRIPTION = """\
Args (one row per question of one model):
    domain (string): the question's domain.
    natural_correct (bool): grade in the natural channel (null = missing or ungraded).
    wagering_correct (bool): grade in the wagering channel (null = missing or ungraded).
Keyword arguments:
    ci: bool (default False): add a 95% percentile interval (10,000 resamples, seed 42; n_resamples= and seed= to change).
        The bootstrap resamples questions within domains.
Returns:
    {"mirror_gap": float, "n": questions with a grade, "ci": [lo, hi] if asked, "by_domain": {domain: g(m,d)}}
Examples:
    >>> gap = evaluate.load("mirror/mirror_gap")
    >>> gap.compute(domain=["a", "a", "b"], natural_correct=[True, False, True], wagering_correct=[True, True, False])
    {'mirror_gap': 0.75, 'n': 3, 'by_domain': {'a': 0.5, 'b': 1.0}}
"""


def _gap(*, domain, natural_correct, wagering_correct, ci):
    out = evaluate_support.as_output(mirror_gap(domain, natural_correct, wagering_correct, ci=ci), "mirror_gap")
    out["by_domain"] = {d: e.value for d, e in mirror_gap_by_domain(domain, natural_correct, wagering_correct).items()}
    return out


MirrorGap = evaluate_support.metric("mirror_gap", _DESCRIPTION, _KWARGS_DESCRIPTION, compute=_gap)
