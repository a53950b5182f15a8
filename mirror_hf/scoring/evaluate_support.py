"""Everything the `evaluate` modules in `metrics/<name>/<name>.py` share, written once.

A module script declares only what differs: its name, its description, its inputs card, the function it
calls and its own keyword options (and a citation if it is not Mirror's). `metric()` makes the class:

    Auroc = evaluate_support.metric("auroc", _DESCRIPTION, _KWARGS_DESCRIPTION, function=auroc, columns=CONFIDENCE_ARGS)

The inputs card is the text evaluate shows as `inputs_description`, in sections:
- `Args (one row per ...):` one line per column, `name (dtype): what it holds` (a `datasets.Value`
  dtype); the module's Features are built from these lines, so the card and the types cannot differ.
  Columns several modules share (`COMPONENT_ARGS`, `CONFIDENCE_ARGS`) are passed as `columns=` and
  put first under the card's header;
- `Keyword arguments:` one `name: ...` line per option of `options=` (every option documented, nothing
  documented that is not an option); the `ci` line is added here unless the module writes its own;
- `Returns:`, and `Examples:`, a doctest (`>>>` lines and the output they print), which
  tests/test_metric_examples.py runs against the module loaded with `evaluate.load`.

Every module takes `ci`, `n_resamples` and `seed` (the `Bootstrap` defaults); the function receives the
columns and options as keyword arguments and `ci=` either False or a `Bootstrap`. With `function=` it
returns an `Estimate`, reported as `{name: value, "n": n, "ci": [lo, hi]?}` plus the `extras` named from
`Estimate.extra`; with `compute=` it returns the module's whole result.

`StrictMetric` checks every input value against its declared `Value` type *before* evaluate encodes
the batch: datasets' encoder would otherwise turn "no" or 0.3 into `True` for a bool column, and
evaluate itself only checks the first element of string columns. A wrong type raises evaluate's own
"Module inputs don't match the expected format" ValueError, naming the column and the row.

Scripts import this *module* (`from mirror_hf.scoring import evaluate_support`), never a class from it:
evaluate picks the first EvaluationModule subclass it finds in the script's namespace, which must be
the one `metric()` returned. evaluate copies only the script into its modules cache, so all shared
behaviour has to live here, in the installed package.
"""

from __future__ import annotations

import math
import re
import sys
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar

import datasets
import evaluate
import numpy as np
from evaluate.naming import camelcase_to_snakecase

from mirror_hf.scoring._bootstrap import Bootstrap
from mirror_hf.scoring._estimate import Estimate

MIRROR_CITATION = """\
@article{mirror2026,
  title={MIRROR: Do Language Models Know What They Know, and Act on It?},
  journal={arXiv preprint arXiv:2604.19809},
  year={2026}
}
"""
PAPER_URL = "https://arxiv.org/abs/2604.19809"

# The columns of one Exp9 component (one slot of one trial), shared by the cfr, udr, kdi and c4_tradeoff cards.
COMPONENT_ARGS = """\
    strength (string): "weak" / "strong" / "medium" / "unknown".
    decision (string): "proceed" / "use_tool" / "defer" (null = missing).
    correct (bool): graded correct (null = ungraded).
    condition (string): "C1".."C4".
    paradigm (string): "P1" / "P2" / "P3".
    task_type (string): "fixed" / "tailored".
    api_success (bool): false = the trial's request failed.
    externally_routed (bool): C4 oracle routing; never counted as missing.
"""

# A graded record's confidence and grade, shared by the auroc, aurc, brier, ece, log_score and prr cards.
CONFIDENCE_ARGS = """\
    confidence (float64): the confidence as a probability of being correct, in [0, 1] (a wager's bet / 10, or any
        Exp1 channel's signal: sample agreement, a token probability).
    correct (bool): the record's grade (null rows are dropped).
"""

Output = dict[str, Any]
Compute = Callable[..., Any]

_DEFAULTS = Bootstrap()
SHARED_OPTIONS: Mapping[str, object] = {"n_resamples": _DEFAULTS.n_resamples, "seed": _DEFAULTS.seed}
_INT_TYPES = ("int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64")
_FLOAT_TYPES = ("float16", "float32", "float64")
_SECTION = re.compile(r"^(\S[^\n]*):$")
_ARG = re.compile(r"^    (\w+) \((\w+)\): \S")
_OPTION = re.compile(r"^    (\w+): \S")


class MetricCardError(ValueError):
    """A module's declaration does not hold together (raised when its script is imported)."""


def _accepts(dtype: str, value: object) -> bool:
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
        if isinstance(column, (str, bytes)) or not isinstance(column, Iterable):
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

    def add_batch(self, *, predictions: Any = None, references: Any = None, **kwargs: Any) -> None:
        """Add a batch of inputs (columns as keyword arguments), type-checked value by value."""
        features = self._info().features
        batch = {"predictions": predictions, "references": references, **kwargs}
        check_inputs(features, {name: batch.get(name) for name in features})
        super().add_batch(predictions=predictions, references=references, **kwargs)

    def _enforce_nested_string_type(self, schema: Any, obj: Any) -> Any:
        # evaluate checks only a column's first value and rejects None there; every value has been
        # checked above, so a leading null (a missing decision, an unused column) is fine.
        if obj is None:
            return None
        return super()._enforce_nested_string_type(schema, obj)

    def add(self, *, prediction: Any = None, reference: Any = None, **kwargs: Any) -> None:
        """Add one example (one value per input), type-checked."""
        features = self._info().features
        example = {"predictions": prediction, "references": reference, **kwargs}
        check_inputs(features, {name: [example.get(name)] for name in features})
        super().add(prediction=prediction, reference=reference, **kwargs)


def bootstrap_option(ci: bool, n_resamples: int, seed: int) -> Bootstrap | bool:
    """The `ci=` value for a scoring function from a module's keyword arguments."""
    return Bootstrap(n_resamples=n_resamples, seed=seed) if ci else False


def as_output(estimate: Estimate, key: str) -> Output:
    """`{key: value, "n": n, "ci": [lo, hi]?}` (NaN stays NaN: evaluate results are Python floats)."""
    out: Output = {key: float(estimate.value) if not math.isnan(estimate.value) else float("nan"), "n": int(estimate.n)}
    if estimate.ci is not None:
        out["ci"] = [float(estimate.ci[0]), float(estimate.ci[1])]
    return out


def escalation_output(curve: dict) -> Output:
    """The escalation curve as plain dicts (NaN as None), as `mirror-hf score` writes it."""
    from mirror_hf.scoring._escalation import escalation_to_json

    return escalation_to_json(curve)


@dataclass(frozen=True)
class Card:
    """A module's inputs card, read: the columns' dtypes (in card order) and the text evaluate shows."""

    columns: dict[str, str]
    text: str
    examples: str = field(repr=False)


def _ci_line(default: bool) -> str:
    return (
        f"    ci: bool (default {default}): add a 95% BCa interval ({_DEFAULTS.n_resamples:,} resamples, seed "
        f"{_DEFAULTS.seed}; n_resamples= and seed= to change)."
    )


def read_card(name: str, inputs: str, options: Mapping[str, object], ci_default: bool = False, columns: str = "") -> Card:
    """Parse and check an inputs card (see the module docstring); MetricCardError names what is wrong.
    `columns`: Args lines shared with other modules, put first under the card's `Args` header."""
    sections: dict[str, list[str]] = {}
    order: list[str] = []
    current: list[str] | None = None
    for line in inputs.rstrip("\n").split("\n"):
        header = _SECTION.match(line)
        if header:
            title = header[1].split(" (")[0]
            if title in sections:
                raise MetricCardError(f"{name}: the inputs card has two '{title}:' sections")
            current = sections[title] = []
            order.append(header[1])
        elif current is None:
            raise MetricCardError(f"{name}: the inputs card must start with 'Args (...):', not {line!r}")
        else:
            current.append(line)
    if not order or not order[0].startswith("Args"):
        raise MetricCardError(f"{name}: the inputs card must start with 'Args (...):'")
    for title in ("Returns", "Examples"):
        if title not in sections:
            raise MetricCardError(f"{name}: the inputs card has no '{title}:' section")
    sections["Args"][:0] = columns.rstrip("\n").split("\n") if columns else []
    declared: dict[str, str] = {}
    for line in sections["Args"]:
        match = _ARG.match(line)
        if match:
            if match[1] in declared:
                raise MetricCardError(f"{name}: column {match[1]!r} is declared twice")
            try:
                datasets.Value(match[2])
            except ValueError:
                raise MetricCardError(f"{name}: column {match[1]!r} has unknown dtype {match[2]!r}") from None
            declared[match[1]] = match[2]
        elif not line.startswith("        "):
            raise MetricCardError(f"{name}: Args line {line!r} is not 'name (dtype): what it holds' (or an 8-space continuation)")
    if not declared:
        raise MetricCardError(f"{name}: the inputs card declares no column")
    keywords = sections.setdefault("Keyword arguments", [])
    if "Keyword arguments" not in order:
        order.insert(1, "Keyword arguments")
    documented = [m[1] for m in map(_OPTION.match, keywords) if m]
    if "ci" not in documented:
        keywords.append(_ci_line(ci_default))
    own = [o for o in documented if o not in ("ci", *SHARED_OPTIONS)]
    undocumented = sorted(set(options) - set(own))
    if undocumented:
        raise MetricCardError(f"{name}: option(s) {', '.join(undocumented)} not documented under 'Keyword arguments:'")
    stray = sorted(set(own) - set(options))
    if stray:
        raise MetricCardError(f"{name}: 'Keyword arguments:' documents {', '.join(stray)}, which options= does not declare")
    clashes = sorted(set(options) & ({"ci", *SHARED_OPTIONS} | set(declared)))
    if clashes:
        raise MetricCardError(f"{name}: option(s) {', '.join(clashes)} clash with a column or a shared option")
    examples = "\n".join(line[4:] if line.startswith("    ") else line for line in sections["Examples"])
    if ">>> " not in examples:
        raise MetricCardError(f"{name}: the 'Examples:' section has no '>>> ' line")
    text = "".join(f"{header}:\n" + "".join(f"{line}\n" for line in sections[header.split(" (")[0]]) for header in order)
    return Card(columns=declared, text=text, examples=examples + "\n")


@dataclass(frozen=True)
class Declaration:
    """What one module declares; `metric()` checks it and makes the evaluate class from it."""

    name: str
    description: str
    card: Card
    call: Compute
    whole: bool  # True: `call` returns the module's result; False: an Estimate reported under `name`
    extras: tuple[str, ...]
    options: Mapping[str, object]
    ci_default: bool
    citation: str
    reference_urls: tuple[str, ...]

    def features(self) -> datasets.Features:
        return datasets.Features({column: datasets.Value(dtype) for column, dtype in self.card.columns.items()})

    def compute(self, kwargs: Mapping[str, Any]) -> Output:
        """Fill the defaults, refuse unknown keywords, call the function, shape its result."""
        accepted = {"ci": self.ci_default, **SHARED_OPTIONS, **self.options}
        unknown = sorted(set(kwargs) - set(accepted) - set(self.card.columns))
        if unknown:
            raise TypeError(f"{self.name}: unknown keyword argument(s) {', '.join(unknown)}; it takes {', '.join(accepted)}")
        given = {**accepted, **kwargs}
        values = {key: given[key] for key in (*self.card.columns, *self.options)}
        values["ci"] = bootstrap_option(given["ci"], given["n_resamples"], given["seed"])
        result = self.call(**values)
        if self.whole:
            return dict(result)
        if not isinstance(result, Estimate):
            raise TypeError(f"{self.name}: function= must return an Estimate (got {type(result).__name__}); use compute=")
        out = as_output(result, self.name)
        out.update({key: result.extra[key] for key in self.extras})
        return out


class DeclaredMetric(StrictMetric):
    """The base of every class `metric()` makes: info and computation read from its `Declaration`."""

    declaration: ClassVar[Declaration]

    def _info(self) -> evaluate.MetricInfo:
        d = self.declaration
        return evaluate.MetricInfo(
            module_type="metric",
            description=d.description,
            citation=d.citation,
            inputs_description=d.card.text,
            features=d.features(),
            reference_urls=list(d.reference_urls),
        )

    def _compute(self, **kwargs: Any) -> Output:
        return self.declaration.compute(kwargs)


def class_name(name: str) -> str:
    """The CamelCase class name evaluate turns back into `name` (`c4_tradeoff` -> `C4Tradeoff`)."""
    return "".join(part[:1].upper() + part[1:] for part in name.split("_"))


def metric(
    name: str,
    description: str,
    inputs: str,
    *,
    function: Callable[..., Estimate] | None = None,
    compute: Callable[..., Output] | None = None,
    extras: tuple[str, ...] = (),
    options: Mapping[str, object] | None = None,
    columns: str = "",
    ci: bool = False,
    citation: str = MIRROR_CITATION,
    reference_urls: tuple[str, ...] = (PAPER_URL,),
) -> type[DeclaredMetric]:
    """The evaluate class of one module (assign it to a name in the script; see the module docstring)."""
    if (function is None) == (compute is None):
        raise MetricCardError(f"{name}: give exactly one of function= (returns an Estimate) and compute= (returns the result)")
    if extras and compute is not None:
        raise MetricCardError(f"{name}: extras= goes with function=, not compute=")
    if camelcase_to_snakecase(class_name(name)) != name:
        raise MetricCardError(f"{name}: evaluate would call class {class_name(name)} {camelcase_to_snakecase(class_name(name))!r}")
    options = dict(options or {})
    call = function if function is not None else compute
    assert call is not None
    declaration = Declaration(
        name=name,
        description=description,
        card=read_card(name, inputs, options, ci, columns),
        call=call,
        whole=compute is not None,
        extras=extras,
        options=options,
        ci_default=ci,
        citation=citation,
        reference_urls=reference_urls,
    )
    doc = f"{description}\n{declaration.card.text}"
    # The class belongs to the script that declares it (as namedtuple's do), so it pickles by that name.
    script = sys._getframe(1).f_globals.get("__name__", __name__)
    return type(class_name(name), (DeclaredMetric,), {"declaration": declaration, "__doc__": doc, "__module__": script})
