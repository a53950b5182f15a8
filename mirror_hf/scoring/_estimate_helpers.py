"""Turning cell statistics into `Estimate`s, with or without their BCa intervals."""

from __future__ import annotations

from mirror_hf.scoring._bootstrap import (
    CI,
    Bootstrap,
    Cells,
    Statistic,
    bca_intervals,
    point,
    resolve_ci,
)
from mirror_hf.scoring._estimate import NAN, ZERO_WIDTH, Estimate, _zero_width

#: A statistic bootstrapped within domains (macro accuracy, the Mirror gap, domain-stratified
#: calibration) gets no interval when a domain has fewer graded trials than this: a domain of one or
#: two trials is the same in almost every resample, and the interval would claim a precision the
#: data do not have. The Estimate then carries `ci_note` = TOO_FEW instead (docs/protocol.md).
MIN_TRIALS_PER_DOMAIN = 5
TOO_FEW = f"too few trials per domain (< {MIN_TRIALS_PER_DOMAIN})"
#: The note of an interval withheld because every resample gives the same value on a sample whose
#: trials are all alike (all correct, all wrong): a zero-width interval is never reported.
NO_SPREAD = "no spread: every trial alike"


def _withheld(samples: tuple[Cells, ...], options: Bootstrap | None) -> str | None:
    """Why no interval is computed for these samples, or None."""
    if options is None:
        return None
    if any(s.stratum is not None and s.smallest_stratum() < MIN_TRIALS_PER_DOMAIN for s in samples):
        return TOO_FEW
    return None


def _zero_width_note(ci: tuple[float, float] | None, value: float, samples: tuple[Cells, ...]) -> str | None:
    """A zero-width interval is never reported: on trials all alike it says there is no spread; on
    any other sample it means the resampling could not move the statistic (strata each constant)."""
    if ci is None or not _zero_width(ci, value):
        return None
    if all(s.alike() for s in samples):
        return NO_SPREAD
    # strata each constant: the resampling within them could not move the statistic
    return TOO_FEW if any(s.stratum is not None for s in samples) else ZERO_WIDTH


def estimates(
    statistics: dict[str, Statistic], *samples: Cells, n: int, ci: CI = False, interval: str = "BCa"
) -> dict[str, Estimate]:
    """Point values of several statistics of the same sample(s) (NaN if a sample is empty) and,
    when `ci` asks for it, their BCa (or `interval`) intervals from one shared set of resamples."""
    if not samples or any(s.n == 0 for s in samples):
        return {name: Estimate(NAN, n, None) for name in statistics}
    options = resolve_ci(ci)
    values = {name: point(st, *samples) for name, st in statistics.items()}
    intervals: dict[str, tuple[float, float] | None] = {name: None for name in statistics}
    withheld = _withheld(samples, options)
    if withheld is not None:
        return {name: Estimate(values[name], n, None, {"ci_note": withheld}) for name in statistics}
    if options is not None:
        intervals = bca_intervals(
            statistics,
            *samples,
            n_resamples=options.n_resamples,
            seed=options.seed,
            confidence_level=options.confidence_level,
            stream=options.stream,
            interval=interval,
            theta_hat=values,
        )
    out = {}
    for name in statistics:
        note = _zero_width_note(intervals[name], values[name], samples)
        out[name] = Estimate(values[name], n, None, {"ci_note": note}) if note else Estimate(values[name], n, intervals[name])
    return out


def estimate(statistic: Statistic, *samples: Cells, n: int, ci: CI = False, interval: str = "BCa") -> Estimate:
    """Point value of `statistic` on the samples (NaN if any sample is empty) and, when `ci` asks
    for it, its BCa (or `interval`) interval from the same statistic."""
    return estimates({"_": statistic}, *samples, n=n, ci=ci, interval=interval)["_"]
