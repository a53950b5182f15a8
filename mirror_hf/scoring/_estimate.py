"""The value every metric returns: a point estimate, how many units it rests on, and (on request) a CI."""

from __future__ import annotations

import math
from dataclasses import dataclass, field


@dataclass(frozen=True, slots=True)
class Estimate:
    """`value` is NaN when the metric is undefined for the input (empty input, one class only for AUROC,
    no weak components for CFR, ...); `n` counts the units the value rests on (records, questions,
    components, tasks or models, as each metric's docstring says); `ci` is a BCa interval when asked for
    and defined. `extra` carries secondary numbers some metrics have (SD of the escalation curve)."""

    value: float
    n: int
    ci: tuple[float, float] | None = None
    extra: dict = field(default_factory=dict)

    def __post_init__(self) -> None:
        # A zero-width interval is never reported (it would claim certainty the resampling merely
        # failed to question): it becomes no interval, with the reason in `extra["ci_note"]`.
        if self.ci is not None and _zero_width(self.ci, self.value):
            object.__setattr__(self, "ci", None)
            object.__setattr__(self, "extra", {**self.extra, "ci_note": self.extra.get("ci_note") or ZERO_WIDTH})

    def __float__(self) -> float:
        return float(self.value)

    @property
    def defined(self) -> bool:
        return not math.isnan(self.value)

    def to_json(self) -> dict:
        """`{"value": v, "n": n, "ci": [lo, hi], ...extra}`; NaN becomes null (JSON has no NaN)."""
        out: dict = {"value": _json_float(self.value), "n": int(self.n)}
        if self.ci is not None:
            out["ci"] = [_json_float(self.ci[0]), _json_float(self.ci[1])]
        for key, value in self.extra.items():
            out[key] = _json_float(value) if isinstance(value, float) else value
        return out


#: The note of an interval withheld because every resample gave the same value.
ZERO_WIDTH = "no spread: every resample gives the same value"


#: An interval narrower than this share of max(1, |value|) has zero width up to float noise (a
#: correlation of an exact line resamples to 1 - 1e-16, not 1).
ZERO_WIDTH_TOLERANCE = 1e-9


def _zero_width(ci: tuple[float, float], value: float) -> bool:
    lo, hi = float(ci[0]), float(ci[1])
    if math.isnan(lo) or math.isnan(hi):
        return False
    scale = max(1.0, abs(float(value))) if not math.isnan(float(value)) else 1.0
    return abs(hi - lo) <= ZERO_WIDTH_TOLERANCE * scale


def _json_float(value: float) -> float | None:
    value = float(value)
    return None if math.isnan(value) or math.isinf(value) else value


NAN = float("nan")
