"""The score result read by attribute: views generated from the same TypedDicts that give its JSON
Schema (`_schema`), so a reader names the fields the schema declares (`view.models["m"].exp1.ece.value`)
and a misspelt or undeclared field is an `AttributeError` naming the part, never a silent None;
a declared field the result lacks (a metric not scored) reads as None.

    view = ResultView(result, parts)  # parts: experiment -> its TypedDict (`experiments.scores_schema()`)
"""

from __future__ import annotations

import functools
import re
import typing
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any, NotRequired

from mirror_hf.scoring._schema import PATTERN_KEYS, EstimateJSON, ScoreResult


@dataclass(frozen=True)
class Reading:
    """One number of the result as a reader gets it back (an `EstimateJSON`, what `Estimate.to_json`
    wrote, so nullable where JSON is): value, n, its interval (None unless both ends are defined), why
    it has none (`ci_note`), where it was read from, and its secondary keys."""

    value: float | None
    n: int | None
    ci: tuple[float, float] | None
    note: str | None = None
    source: str | None = None
    extra: Mapping[str, Any] = field(default_factory=dict)

    @classmethod
    def read(cls, node: Mapping[str, Any]) -> Reading:
        ci = node.get("ci")
        interval = (float(ci[0]), float(ci[1])) if ci and len(ci) == 2 and None not in ci else None
        known = {"value", "n", "ci", "ci_note", "source"}
        return cls(node.get("value"), node.get("n"), interval, node.get("ci_note"), node.get("source"),
                   {k: v for k, v in node.items() if k not in known})


@functools.cache
def _fields(spec: type) -> dict[str, Any]:
    return typing.get_type_hints(spec)


def _field_type(spec: type, name: str) -> Any:
    hints = _fields(spec)
    if name in hints:
        return hints[name]
    for pattern, typ in PATTERN_KEYS.get(spec.__name__, {}).items():
        if re.search(pattern, name):
            return typ
    raise AttributeError(f"{spec.__name__} declares no field {name!r} (declared: {', '.join(hints)})")


def wrap(typ: Any, value: Any) -> Any:
    """`value` as a reader sees it under annotation `typ`: a `Reading`, a `Part`, a dict or list of
    those, or the value itself (an undeclared shape: `dict`, a scalar)."""
    if value is None:
        return None
    origin = typing.get_origin(typ)
    if origin is NotRequired:
        return wrap(typing.get_args(typ)[0], value)
    if typ is EstimateJSON:
        return Reading.read(value)
    if typing.is_typeddict(typ):
        return Part(typ, value)
    if origin is dict and isinstance(value, Mapping):
        inner = typing.get_args(typ)[1]
        return {k: wrap(inner, v) for k, v in value.items()}
    if origin is list and isinstance(value, list):
        inner = typing.get_args(typ)[0]
        return [wrap(inner, v) for v in value]
    return value  # a scalar, a union or an undeclared shape (`dict`): as the JSON holds it


class Part:
    """A node of the result shaped by a TypedDict (`spec`), read by attribute."""

    __slots__ = ("_node", "_spec")

    def __init__(self, spec: type, node: Mapping[str, Any]) -> None:
        self._spec = spec
        self._node = node

    def __getattr__(self, name: str) -> Any:
        if name.startswith("_"):
            raise AttributeError(name)
        typ = _field_type(self._spec, name)
        return wrap(typ, self._node.get(name))

    def __contains__(self, name: object) -> bool:
        return name in self._node

    def __iter__(self) -> Iterator[str]:
        return iter(self._node)

    def __repr__(self) -> str:
        return f"{self._spec.__name__}({', '.join(self._node)})"


class ModelView(Part):
    """One model's entry: its parts are the registered experiments' (an unregistered one is an error)."""

    __slots__ = ("_parts",)

    def __init__(self, parts: Mapping[str, type], node: Mapping[str, Any]) -> None:
        super().__init__(dict, node)
        self._parts = parts

    def __getattr__(self, name: str) -> Any:
        if name.startswith("_"):
            raise AttributeError(name)
        if name not in self._parts:
            raise AttributeError(f"no registered experiment {name!r} in a model's scores (registered: {', '.join(self._parts)})")
        value = self._node.get(name)
        return None if value is None else Part(self._parts[name], value)


class ResultView(Part):
    """A whole `score` result (`ScoreResult`): `.models` maps each row to its `ModelView`."""

    __slots__ = ("_parts",)

    def __init__(self, result: Mapping[str, Any], parts: Mapping[str, type]) -> None:
        super().__init__(ScoreResult, result)
        self._parts = parts

    @property
    def models(self) -> dict[str, ModelView]:
        return {m: ModelView(self._parts, entry) for m, entry in (self._node.get("models") or {}).items()}

    @property
    def raw(self) -> Mapping[str, Any]:
        """The result as `score --json` writes it."""
        return self._node
