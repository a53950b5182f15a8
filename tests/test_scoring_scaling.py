"""Exp8 scaling: the log-parameter fit, generation comparisons and the model table, checked against
hand-computed values, numpy's own least squares and planted slopes."""

from __future__ import annotations

import math

import numpy as np
import pytest

from mirror_hf.model_table import ModelTableError, align, parse_parameters, read_model_table
from mirror_hf.scoring._scaling import ModelInfo, generation_difference, scaling, scaling_fit


def test_fit_hand_computed():
    # x = 9, 10, 11; y = 0.2, 0.4, 0.6 -> slope 0.2 per decade, intercept 0.2 - 0.2 * 9 = -1.6, R^2 = 1
    fit = scaling_fit([1e9, 1e10, 1e11], [0.2, 0.4, 0.6])
    assert fit["slope"].value == pytest.approx(0.2)
    assert fit["intercept"].value == pytest.approx(-1.6)
    assert fit["r2"].value == pytest.approx(1.0)
    assert fit["slope"].n == 3


def test_fit_agrees_with_numpy_polyfit_and_r2():
    rng = np.random.default_rng(4)
    params = 10 ** rng.uniform(8, 11, 12)
    y = rng.random(12)
    fit = scaling_fit(params, y)
    slope, intercept = np.polyfit(np.log10(params), y, 1)
    r = np.corrcoef(np.log10(params), y)[0, 1]
    assert fit["slope"].value == pytest.approx(slope)
    assert fit["intercept"].value == pytest.approx(intercept)
    assert fit["r2"].value == pytest.approx(r * r)


def test_fit_undefined_cases():
    assert math.isnan(scaling_fit([1e9, 1e10], [0.1, 0.2])["slope"].value)  # two models
    assert math.isnan(scaling_fit([8e9, 8e9, 8e9], [0.1, 0.2, 0.3])["slope"].value)  # one size
    fit = scaling_fit([1e9, 1e10, 1e11, 1e12], [0.1, float("nan"), 0.3, 0.4])
    assert fit["slope"].n == 3 and not math.isnan(fit["slope"].value)


def test_planted_slope_inside_ci():
    rng = np.random.default_rng(9)
    params = np.repeat([1e8, 1e9, 1e10, 1e11], 5)
    y = 0.1 + 0.15 * np.log10(params / 1e8) + rng.normal(0, 0.03, len(params))
    fit = scaling_fit(params, y, ci=True)
    lo, hi = fit["slope"].ci
    assert lo <= 0.15 <= hi and lo > 0


def test_generation_difference_hand_computed():
    d = generation_difference([0.2, 0.4], [0.5, 0.7, 0.9])
    assert d.value == pytest.approx(0.7 - 0.3) and d.n == 5
    assert math.isnan(generation_difference([], [0.5]).value)


def test_scaling_per_family_and_generation():
    models = [
        ModelInfo("a-1b", "a", 1e9, "v1"),
        ModelInfo("a-10b", "a", 1e10, "v1"),
        ModelInfo("a2-10b", "a", 1e10, "v2"),
        ModelInfo("a2-100b", "a", 1e11, "v2"),
        ModelInfo("b-7b", "b", 7e9),
    ]
    metric = {"a-1b": 0.1, "a-10b": 0.3, "a2-10b": 0.4, "a2-100b": 0.6, "b-7b": 0.5}
    out = scaling(metric, models)
    slope, _ = np.polyfit(np.log10([1e9, 1e10, 1e10, 1e11]), [0.1, 0.3, 0.4, 0.6], 1)
    assert out["a"]["slope"]["value"] == pytest.approx(slope)
    assert out["a"]["generations"]["v1"]["value"] == pytest.approx(0.2)
    assert out["a"]["generation_difference"]["value"] == pytest.approx(0.5 - 0.2)
    assert out["a"]["generation_difference"]["latest"] == "v2"
    assert out["b"]["slope"]["value"] is None and out["b"]["slope"]["n"] == 1
    assert "generations" not in out["b"]


@pytest.mark.parametrize(
    "text, want", [("8B", 8e9), ("135M", 1.35e8), ("7.6e9", 7.6e9), ("1.2t", 1.2e12), ("70b", 7e10), ("500", 500.0)]
)
def test_parse_parameters(text, want):
    assert parse_parameters(text, where="x") == pytest.approx(want)


@pytest.mark.parametrize("text", ["", "eight", "-8B", "0", "8X", "nan", None])
def test_parse_parameters_refuses(text):
    with pytest.raises(ModelTableError, match="parameters"):
        parse_parameters(text, where="x")


def test_read_model_table_csv_and_yaml(tmp_path):
    csv = tmp_path / "models.csv"
    csv.write_text("model,family,parameters,generation\nmeta-llama/Llama-3.1-8B-Instruct,llama,8B,3.1\nQwen/Qwen2.5-7B,qwen,7.6e9,\n")
    rows = read_model_table(csv)
    assert rows == [
        ModelInfo("meta-llama/Llama-3.1-8B-Instruct", "llama", 8e9, "3.1"),
        ModelInfo("Qwen/Qwen2.5-7B", "qwen", 7.6e9, None),
    ]
    yml = tmp_path / "models.yaml"
    yml.write_text("models:\n  - {model: m1, family: f, parameters: 135M}\n")
    assert read_model_table(yml) == [ModelInfo("m1", "f", 1.35e8, None)]


@pytest.mark.parametrize(
    "name, text, message",
    [
        ("a.csv", "model,family\nm,f\n", "header lacks column(s) parameters"),
        ("a.csv", "model,family,parameters\nm,f,big\n", "row 1: parameters 'big'"),
        ("a.csv", "model,family,parameters\nm,,8B\n", "row 1: field 'family' is empty"),
        ("a.csv", "model,family,parameters\nm,f,8B\nm,f,9B\n", "row 2: model 'm' is listed twice"),
        ("a.csv", "model,family,parameters\n", "lists no model"),
        ("a.yaml", "models: [1, 2]\n", "expected a list of models"),
        ("a.yaml", "- {model: m, family: f, parameters: 8B, size: 3}\n", "row 1: unknown field 'size'"),
        ("a.yaml", "models: [\n", "is not valid YAML"),
        ("a.txt", "x", "must be .csv, .yaml or .yml"),
    ],
)
def test_read_model_table_errors_name_file_row_and_field(tmp_path, name, text, message):
    path = tmp_path / name
    path.write_text(text)
    with pytest.raises(ModelTableError) as info:
        read_model_table(path)
    assert message in str(info.value) and str(path) in str(info.value)
    assert "\n" not in str(info.value)


def test_read_model_table_missing_and_folder(tmp_path):
    with pytest.raises(ModelTableError, match="no such model table"):
        read_model_table(tmp_path / "nope.csv")
    with pytest.raises(ModelTableError, match="is a folder"):
        read_model_table(tmp_path)


def test_align_matches_exact_names_and_split_names():
    table = [ModelInfo("meta-llama/Llama-3.1-8B-Instruct", "llama", 8e9), ModelInfo("absent", "x", 1e9)]
    aligned = align(table, ["meta_llama_Llama_3_1_8B_Instruct"])
    assert aligned == [ModelInfo("meta_llama_Llama_3_1_8B_Instruct", "llama", 8e9)]
    assert align(table, ["meta-llama/Llama-3.1-8B-Instruct"])[0].model == "meta-llama/Llama-3.1-8B-Instruct"
