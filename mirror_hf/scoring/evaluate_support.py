"""Support for the `evaluate` modules in `metrics/<name>/<name>.py`.

`StrictMetric` checks every input value against its declared `Value` type *before* evaluate encodes
the batch: datasets' encoder would otherwise turn "no" or 0.3 into `True` for a bool column, and
evaluate itself only checks the first element of string columns. A wrong type raises evaluate's own
"Module inputs don't match the expected format" ValueError, naming the column and the row.

Modules must import this *module* (`from mirror_hf.scoring import evaluate_support`) and subclass
`evaluate_support.StrictMetric`: evaluate picks the first EvaluationModule subclass it finds in the
script's namespace, so the base class must not be imported into it by name.
"""

from __future__ import annotations

import math
from collections.abc import Mapping

import datasets
import evaluate
import numpy as np

from mirror_hf.scoring._bootstrap import Bootstrap
from mirror_hf.scoring._estimate import Estimate

_INT_TYPES = ("int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64")
_FLOAT_TYPES = ("float16", "float32", "float64")


def _accepts(dtype: str, value) -> bool:
    if value is None:
        return True
    if dtype == "bool":
        return isinstance(value, (bool, np.bool_))
    if dtype == "string":
        return isinstance(value, str)
    if isinstance(value, (bool, np.bool_)):
        return False
    if dtype in _INT_TYPES:
        return isinstance(value, (int, np.integer))
    if dtype in _FLOAT_TYPES:
        return isinstance(value, (int, float, np.integer, np.floating))
    return True


def check_inputs(features: datasets.Features, batch: Mapping[str, object]) -> None:
    """Raise evaluate's format ValueError for the first value that does not fit its column's type."""
    missing = [name for name in features if batch.get(name) is None]
    if missing:
        raise ValueError(f"Evaluation module inputs are missing: {missing}. All required inputs are {list(features)}")
    for name, feature in features.items():
        if not isinstance(feature, datasets.Value):
            continue
        column = batch[name]
        if isinstance(column, (str, bytes)) or not hasattr(column, "__iter__"):
            raise ValueError(
                f"Module inputs don't match the expected format.\nExpected format: {features},\n"
                f"Input {name}: expected a list of {feature.dtype} values, got {type(column).__name__}"
            )
        for row, value in enumerate(column):
            if not _accepts(feature.dtype, value):
                raise ValueError(
                    f"Module inputs don't match the expected format.\nExpected format: {features},\n"
                    f"Input {name}: row {row} is {value!r} ({type(value).__name__}), expected {feature.dtype} or None"
                )


class StrictMetric(evaluate.Metric):
    """An evaluate.Metric whose inputs are type-checked value by value (see the module docstring)."""

    def add_batch(self, *, predictions=None, references=None, **kwargs):
        """Add a batch of inputs (columns as keyword arguments), type-checked value by value.
"""
        features = self._info().features
        batch = {"predictions": predictions, "references": references, **kwargs}
        check_inputs(features, {name: batch.get(name) for name in features})
        return super().add_batch(predictions=predictions, references=references, **kwargs)

    def _enforce_nested_string_type(self, schema, obj):
        # evaluate checks only a column's first value and rejects None there; every value has been
        # checked above, so a leading null (a missing decision, an unused column) is fine.
        if obj is None:
            return None
        return super()._enforce_nested_string_type(schema, obj)

    def add(self, *, prediction=None, reference=None, **kwargs):
        """Add one example (one value per input), type-checked.
"""
        features = self._info().features
        example = {"predictions": prediction, "references": reference, **kwargs}
        check_inputs(features, {name: [example.get(name)] for name in features})
        return super().add(prediction=prediction, reference=reference, **kwargs)


def bootstrap_option(ci: bool, n_resamples: int, seed: int):
    """The `ci=` value for a scoring function from a module's keyword arguments."""
    return Bootstrap(n_resamples=n_resamples, seed=seed) if ci else False


def as_output(estimate: Estimate, key: str) -> dict:
    """`{key: value, "n": n, "ci": [lo, hi]?}` (NaN stays NaN: evaluate results are Python floats)."""
    out = {key: float(estimate.value) if not math.isnan(estimate.value) else float("nan"), "n": int(estimate.n)}
    if estimate.ci is not None:
        out["ci"] = [float(estimate.ci[0]), float(estimate.ci[1])]
    return out


def escalation_output(curve: dict) -> dict:
    """The escalation curve as plain dicts (NaN as None), as `mirror-hf score` writes it."""
    from mirror_hf.scoring._escalation import escalation_to_json

    return escalation_to_json(curve)
