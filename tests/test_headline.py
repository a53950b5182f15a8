"""Headline numbers are decided once (`mirror_hf.scoring.headline`): on one folder whose splits hold
re-run records, `score`, `profile`, the quickstart table and `export-eval-results` show the same
values — and those values use the re-run records (the last written wins), checked by hand."""

from __future__ import annotations

import json
import re
from types import SimpleNamespace

import numpy as np
import polars as pl
import pytest
from fakes.servers import openai_server
from runner_fixtures import cli_inproc, read_split

from mirror_hf.folder import split_files, write_split
from mirror_hf.metadata import refresh_metadata
from mirror_hf.records import TRIAL_EXP1_FEATURES, TRIAL_EXP9_FEATURES

MODEL = "acme/rerun-1"
SPLIT = "acme_rerun_1"
COMPARED = ("exp1_natural_accuracy", "exp1_wagering_accuracy", "exp1_mirror_gap", "exp1_mci",
            "exp9_cfr_c1", "exp9_cfr_c2", "exp9_cfr_c3", "exp9_cfr_c4", "exp9_cfr_table_c1")


def _run(dataset, url, *args):
    return cli_inproc("run", "--dataset", str(dataset), "--model", MODEL, "--base-url", url, "--no-progress",
                      "--backoff-base", "0.01", *args)


def _append_reruns(dataset, config: str, features, flip: tuple[str, ...], every: int) -> pl.DataFrame:
    """Append a re-run of every `every`-th record with its grades flipped (a later run_id)."""
    trials = read_split(dataset, config, SPLIT)
    rerun = trials.gather_every(every).with_columns(
        *(~pl.col(c) for c in flip), pl.lit("rerun-2").alias("run_id")
    )
    both = pl.concat([trials, rerun])
    write_split(dataset, config, SPLIT, both.to_dicts(), features, replace=True)  # the split grows: replaced knowingly
    refresh_metadata(dataset)  # a new split file: the card and Croissant list it (run/score verify them)
    return both


@pytest.fixture
def rerun_folder(dataset):
    with openai_server() as url:
        _run(dataset, url, "--experiment", "exp1", "--limit", "32")
        cli_inproc("profile", "--dataset", str(dataset), "--model", MODEL)
        _run(dataset, url, "--experiment", "exp9", "--limit", "6")
    exp1 = _append_reruns(dataset, "trials_exp1", TRIAL_EXP1_FEATURES, ("correct",), 3)
    _append_reruns(dataset, "trials_exp9", TRIAL_EXP9_FEATURES, ("component_a_correct", "component_b_correct"), 2)
    return dataset, exp1


def _quickstart_values(dataset, capsys) -> dict[str, tuple[float | None, int | None]]:
    from mirror_hf.cli.run_cmd import _score_table
    from mirror_hf.experiments import all_headlines

    paths = [f.path for c, files in split_files(dataset).items() if c.startswith("trials_") for f in files if f.split == SPLIT]
    capsys.readouterr()
    _score_table(dataset, [SimpleNamespace(split_path=p) for p in paths])
    text = capsys.readouterr().out
    labels = {h.label: h.key for h in all_headlines()}
    out = {}
    for line in text.splitlines():
        cells = [c.strip() for c in re.split(r"[│┃|]", line) if c.strip()]
        if len(cells) >= 3 and cells[0] in labels:
            out[labels[cells[0]]] = (None if cells[1] == "-" else float(cells[1]), None if cells[2] == "-" else int(cells[2]))
    return out


def test_score_profile_quickstart_and_export_agree(rerun_folder, tmp_path, capsys):
    dataset, exp1 = rerun_folder
    scores_path = tmp_path / "scores.json"
    cli_inproc("score", "--dataset", str(dataset), "--resamples", "0", "--json", str(scores_path))
    scored = json.loads(scores_path.read_text())["models"][MODEL]
    score = {
        "exp1_natural_accuracy": scored["exp1"]["natural_accuracy"], "exp1_wagering_accuracy": scored["exp1"]["wagering_accuracy"],
        "exp1_mirror_gap": scored["exp1"]["mirror_gap"], "exp1_mci": scored["exp1"]["mci"],
        **{f"exp9_cfr_{c.lower()}": scored["exp9"]["cfr"][c] for c in ("C1", "C2", "C3", "C4")},
        "exp9_cfr_table_c1": scored["exp9"]["cfr_table_c1"],
    }

    from mirror_hf.hub import eval_result_entries

    exported = {e.task_id: e.value for e in eval_result_entries(dataset, SPLIT, "org/mirror")}
    quick = _quickstart_values(dataset, capsys)

    from mirror_hf.experiments import get
    from mirror_hf.runner.profile import build_profile

    profile = build_profile(dataset, SPLIT, dedup_key=get("exp1").dedup_key)

    print(f"{'headline':<24}{'score':>10}{'quickstart':>12}{'export':>10}")
    for key in COMPARED:
        value = score[key]["value"]
        print(f"{key:<24}{value!s:>10}{quick.get(key, ('-',))[0]!s:>12}{exported.get(key, '-')!s:>10}")
        if value is None:
            assert key not in exported and quick[key][0] is None
            continue
        assert quick[key] == (round(value, 3), score[key]["n"]), key
        assert exported[key] == round(value, 4), key
    assert score["exp9_cfr_c1"]["value"] is not None and score["exp1_natural_accuracy"]["value"] is not None

    # profile: its per-domain numbers are the ones the headline macro means are taken over
    nat = [r["natural_accuracy"] for r in profile if r["natural_accuracy"] is not None]
    assert np.mean(nat) == pytest.approx(score["exp1_natural_accuracy"]["value"], abs=1e-12)
    by_domain = scored["exp1"]["mirror_gap_by_domain"]
    for row in profile:
        if row["mirror_gap"] is not None:
            assert row["mirror_gap"] == pytest.approx(by_domain[row["domain"]]["value"], abs=1e-12)

    # the re-run records replaced the first ones (last written wins), computed here by hand
    last: dict = {}
    for row in exp1.iter_rows(named=True):
        last[(row["item_id"], row["channel"])] = row
    per_domain: dict[str, list[float]] = {}
    for (item, channel), row in last.items():
        if channel == "natural" and row["correct"] is not None:
            per_domain.setdefault(row["domain"], []).append(float(row["correct"]))
    by_hand = np.mean([np.mean(v) for v in per_domain.values()])
    print(f"natural accuracy after re-runs: headline {score['exp1_natural_accuracy']['value']:.6f}, by hand {by_hand:.6f}")
    assert score["exp1_natural_accuracy"]["value"] == pytest.approx(by_hand, abs=1e-12)


def _check(value, typ, where: str) -> None:
    """`value` (parsed JSON) conforms to the TypedDict / container annotation `typ`."""
    import typing

    origin = typing.get_origin(typ)
    if typing.is_typeddict(typ):
        assert isinstance(value, dict), where
        hints = typing.get_type_hints(typ)
        required = typ.__required_keys__
        assert required <= set(value), f"{where}: missing {sorted(required - set(value))}"
        for key, item in value.items():
            if key in hints:
                _check(item, hints[key], f"{where}.{key}")
            elif typ.__name__ == "Exp1Scores" and key.startswith("accuracy_"):
                _check(item, hints["natural_accuracy"], f"{where}.{key}")
            elif typ.__name__ != "EstimateJSON":  # an estimate may add secondary keys (pairs, channels, ...)
                raise AssertionError(f"{where}: undeclared key {key!r}")
    elif origin is dict:
        assert isinstance(value, dict), where
        _, item_type = typing.get_args(typ)
        for key, item in value.items():
            _check(item, item_type, f"{where}.{key}")
    elif origin in (typing.Union, __import__("types").UnionType):
        errors = []
        for option in typing.get_args(typ):
            try:
                _check(value, option, where)
                return
            except AssertionError as exc:
                errors.append(str(exc))
        raise AssertionError(f"{where}: {value!r} fits none of {typ} ({errors})")
    elif origin is list:
        assert isinstance(value, list), where
        for i, item in enumerate(value):
            _check(item, typing.get_args(typ)[0], f"{where}[{i}]")
    elif origin is typing.Literal:
        assert value in typing.get_args(typ), where
    elif typ is float:
        assert isinstance(value, (int, float)) and not isinstance(value, bool), where
    elif typ is type(None):
        assert value is None, where
    elif typ in (int, str, bool):
        assert isinstance(value, typ), f"{where}: {value!r} is not {typ.__name__}"
    else:
        assert isinstance(value, (dict, list, str, int, float, type(None))), where


def test_score_json_follows_the_typed_schema(rerun_folder, tmp_path):
    from mirror_hf.scoring import ScoreResult

    dataset, _ = rerun_folder
    for resamples in ("0", "200"):
        path = tmp_path / f"scores{resamples}.json"
        cli_inproc("score", "--dataset", str(dataset), "--resamples", resamples, "--json", str(path))
        result = json.loads(path.read_text())
        _check(result, ScoreResult, "result")
        assert set(result["models"][MODEL]) == {"exp1", "exp9"}
    # a schema that does not declare a key the output has is caught
    with pytest.raises(AssertionError, match="undeclared key 'surprise'"):
        _check({**result, "models": {MODEL: {"exp9": {"surprise": 1}}}}, ScoreResult, "result")
