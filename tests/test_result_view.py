"""The score result read by attribute (`mirror_hf.scoring.ResultView`, issue 33): generated from the
same TypedDicts as the JSON Schema, so every declared field reads back what the JSON holds, every
path the report's table and the headlines read is declared, and an undeclared one is an error."""

from __future__ import annotations

import random
import typing

import pytest

from mirror_hf.experiments import all_headlines, result_view, scores_schema
from mirror_hf.scoring import ModelView, Part, Reading
from mirror_hf.scoring._schema import EstimateJSON


def _filled(typ, rng: random.Random, paths: list, path: tuple):
    """A value of annotation `typ` with every declared field present; records (path, raw estimate)."""
    origin = typing.get_origin(typ)
    if origin is typing.NotRequired:
        return _filled(typing.get_args(typ)[0], rng, paths, path)
    if typ is EstimateJSON:
        lo = rng.random() / 2
        node = {"value": lo + 0.1, "n": rng.randint(1, 500), "ci": [lo, lo + 0.2], "ci_note": None}
        if rng.random() < 0.3:
            node = {"value": None, "n": 0}  # undefined: no interval
        paths.append((path, node))
        return node
    if typing.is_typeddict(typ):
        return {k: _filled(t, rng, paths, (*path, k)) for k, t in typing.get_type_hints(typ).items()}
    if origin is dict:
        inner = typing.get_args(typ)[1]
        return {key: _filled(inner, rng, paths, (*path, key)) for key in ("C1", "arithmetic")}
    if origin is list:
        return []
    return "x" if typ is str else 1


def _read(model: ModelView, path: tuple):
    node: object = model
    for part in path:
        node = node[part] if isinstance(node, dict) else getattr(node, part)
    return node


def test_every_declared_estimate_reads_back_what_the_json_holds():
    rng = random.Random(0)
    parts = scores_schema()
    paths: list = []
    entry = {name: _filled(spec, rng, paths, (name,)) for name, spec in parts.items()}
    model = result_view({"models": {"m": entry}, "aggregate": {}}).models["m"]
    assert len(paths) >= 70  # 79 today: every experiment's estimates, nested ones (cfr by condition, baselines) included
    for path, raw in paths:
        got = _read(model, path)
        assert isinstance(got, Reading), path
        want_ci = tuple(raw["ci"]) if raw.get("ci") else None
        assert (got.value, got.n, got.ci) == (raw["value"], raw["n"], want_ci), path


def test_every_path_the_table_and_the_headlines_read_is_declared():
    from mirror_hf.report.table import COLUMNS

    model = result_view({"models": {"m": {name: {} for name in scores_schema()}}, "aggregate": {}}).models["m"]
    paths = [c.path for c in COLUMNS] + [h.path for h in all_headlines()]
    for path in paths:
        node = getattr(model, path[0])
        assert isinstance(node, Part), path
        # the field after the experiment is declared by its part (absent here: None, not an error)
        assert getattr(node, path[1]) is None, path


@pytest.mark.parametrize("path, message", [
    (("exp1", "eec"), "Exp1Scores declares no field 'eec'"),
    (("exp10", "x"), "no registered experiment 'exp10'"),
])
def test_an_undeclared_field_is_an_error_not_a_silent_none(path, message):
    from mirror_hf.report.table import Column, cell_of

    model = result_view({"models": {"m": {"exp1": {"ece": {"value": 0.1, "n": 3}}}}, "aggregate": {}}).models["m"]
    with pytest.raises(AttributeError, match=message):
        cell_of(model, Column("bad", "bad", path, None))
    assert cell_of(model, Column("ece", "ECE", ("exp1", "ece"), "lower")).value == 0.1


def test_pattern_fields_and_settings_read_by_attribute():
    view = result_view({"models": {"m": {"exp1": {"accuracy_wagering": {"value": 0.5, "n": 4}}}}, "aggregate": {},
                        "settings": {"variant": "upstream", "dataset": "d"}})
    assert view.models["m"].exp1.accuracy_wagering.value == 0.5  # accuracy_<channel>, declared by pattern
    assert view.settings.variant == "upstream" and view.skipped is None
    with pytest.raises(AttributeError, match="ScoreSettings declares no field 'varient'"):
        view.settings.varient
