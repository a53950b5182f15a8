"""What a channel's confidence tracks: accuracy, or merely the consistency of the model's answers
(docs/protocol.md, "What confidence tracks").

Item level, per model and behavioural channel: x = the channel's confidence, y = its grade (0/1),
z = the item's sample agreement (the consistency channel's modal share). Two Pearson partial
correlations, each with its BCa interval from shared item resamples:

- `accuracy`: r(x, y | z), does confidence follow being right once consistency is held fixed;
- `consistency`: r(x, z | y), does it follow consistency once being right is held fixed.

r(a, b | c) = (r_ab - r_ac r_bc) / sqrt((1 - r_ac^2)(1 - r_bc^2)); NaN when a variance is 0.

The reading rule: a partial correlation whose interval lies above 0 is "followed"; one covering 0
(or below it) is not. accuracy only -> "follows accuracy"; consistency only -> "follows consistency,
not accuracy"; both -> "follows accuracy and consistency"; neither -> "follows neither". Without
intervals (no resamples) nothing is read.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

import numpy as np

from mirror_hf.scoring._bootstrap import CI, Cells, Statistic
from mirror_hf.scoring._columns import ArrayLike, as_float, as_outcome, as_text, codes, same_length
from mirror_hf.scoring._estimate import Estimate
from mirror_hf.scoring._estimate_helpers import estimates

READINGS = {
    (True, False): "follows accuracy",
    (False, True): "follows consistency, not accuracy",
    (True, True): "follows accuracy and consistency",
    (False, False): "follows neither",
}


def _moments(cells: Cells) -> Callable[[np.ndarray], tuple[np.ndarray, np.ndarray, np.ndarray]]:
    x, y, z = cells["x"], cells["y"], cells["z"]

    def corr(w: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        total = w.sum(axis=1)
        with np.errstate(invalid="ignore", divide="ignore"):
            m = {k: (w @ v) / total for k, v in (("x", x), ("y", y), ("z", z))}
            def cov(a: str, b: str, va: np.ndarray, vb: np.ndarray) -> np.ndarray:
                return (w @ (va * vb)) / total - m[a] * m[b]
            sxx, syy, szz = cov("x", "x", x, x), cov("y", "y", y, y), cov("z", "z", z, z)
            sxy, sxz, syz = cov("x", "y", x, y), cov("x", "z", x, z), cov("y", "z", y, z)
            return sxy / np.sqrt(sxx * syy), sxz / np.sqrt(sxx * szz), syz / np.sqrt(syy * szz)

    return corr


def partial(r_ab: np.ndarray, r_ac: np.ndarray, r_bc: np.ndarray) -> np.ndarray:
    with np.errstate(invalid="ignore", divide="ignore"):
        return (r_ab - r_ac * r_bc) / np.sqrt((1.0 - r_ac**2) * (1.0 - r_bc**2))


def _statistics(cells: Cells) -> dict[str, Statistic]:
    corr = _moments(cells)

    def accuracy(w: np.ndarray) -> np.ndarray:
        rxy, rxz, ryz = corr(w)
        return partial(rxy, rxz, ryz)

    def consistency(w: np.ndarray) -> np.ndarray:
        rxy, rxz, ryz = corr(w)
        return partial(rxz, rxy, ryz)

    return {"accuracy": accuracy, "consistency": consistency}


def _tracking_cells(confidence: ArrayLike, correct: ArrayLike, consistency: ArrayLike) -> Cells:
    x = as_float(confidence, "confidence")
    y = as_outcome(correct)
    z = as_float(consistency, "consistency")
    same_length(confidence=x, correct=y, consistency=z)
    keep = ~np.isnan(x) & ~np.isnan(y) & ~np.isnan(z)
    return Cells.of(x=x[keep], y=y[keep], z=z[keep])


def partial_correlations(confidence: ArrayLike, correct: ArrayLike, consistency: ArrayLike, *, ci: CI = False) -> dict[str, Estimate]:
    """`{"accuracy": r(conf, correct | consistency), "consistency": r(conf, consistency | correct)}`
    over items with all three; n = those items."""
    cells = _tracking_cells(confidence, correct, consistency)
    return estimates(_statistics(cells), cells, n=cells.n, ci=ci)


def followed(estimate: Estimate) -> bool | None:
    """True when the interval lies above 0, False when it does not, None without an interval."""
    if estimate.ci is None or not estimate.defined or np.isnan(estimate.ci[0]):
        return None
    return bool(estimate.ci[0] > 0)


def reading(partials: Mapping[str, Estimate]) -> str | None:
    """The reading rule (module docstring) on one pair of partial correlations."""
    acc, cons = followed(partials["accuracy"]), followed(partials["consistency"])
    if acc is None or cons is None:
        return None
    return READINGS[(acc, cons)]


def tracking(confidence: ArrayLike, correct: ArrayLike, consistency: ArrayLike, *, domain: ArrayLike | None = None,
             ci: CI = False, channel: str = "confidence") -> dict:
    """Both partial correlations overall and per domain, their readings, and one line saying what
    the channel's confidence follows ("wagering follows consistency, not accuracy (overall); by
    domain: follows consistency, not accuracy in 6 of 8")."""
    overall = partial_correlations(confidence, correct, consistency, ci=ci)
    out: dict = {**overall, "reading": reading(overall)}
    by_domain: dict[str, dict] = {}
    if domain is not None:
        d_code, names = codes(as_text(domain, "domain"))
        x, y, z = as_float(confidence, "confidence"), as_outcome(correct), as_float(consistency, "consistency")
        for k, name in enumerate(names):
            mask = d_code == k
            part = partial_correlations(x[mask], y[mask], z[mask], ci=ci)
            by_domain[str(name)] = {**part, "reading": reading(part)}
    out["by_domain"] = by_domain
    out["line"] = _line(channel, out["reading"], by_domain)
    return out


def _line(channel: str, overall: str | None, by_domain: Mapping[str, dict]) -> str:
    if overall is None:
        return f"{channel}: not read (no intervals; score with resamples)"
    line = f"{channel} {overall} (overall)"
    read = [d["reading"] for d in by_domain.values() if d["reading"] is not None]
    if read:
        top = max(set(read), key=read.count)
        line += f"; by domain: {top} in {read.count(top)} of {len(by_domain)}"
    return line
