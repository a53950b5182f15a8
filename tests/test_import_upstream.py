"""`mirror-hf import-upstream`: the authors' files -> trials_* / upstream_* configs.

Real files (through `upstream_dir`) check that the published numbers come back out of the folder;
small synthetic files in each of the authors' other formats check the cleaning rules; bad input
must give a one-line error naming the file and line, exit 2, and leave no folder behind."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import polars as pl
import pyarrow.parquet as pq
import pytest

from mirror_hf.upstream import UpstreamError, convert, import_upstream


def read_config(root: Path, config: str) -> pl.DataFrame:
    files = sorted((root / "data" / config).glob("*.parquet"))
    assert files, f"no {config} in {root}"
    return pl.concat([pl.read_parquet(f) for f in files], how="diagonal_relaxed")


def write_jsonl(path: Path, rows: list[dict]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


# ------------------------------------------------------------------------------ the real files


@pytest.fixture(scope="module")
def imported(upstream_dir, tmp_path_factory):
    out = tmp_path_factory.mktemp("imported") / "mirror"
    files = [
        upstream_dir / "results" / "exp1_gemini-2.5-pro_shard.jsonl",
        upstream_dir / "results" / "exp3_v2_results.jsonl",
        upstream_dir / "results" / "exp9_escalation_16models.json",
        upstream_dir / "data" / "questions.jsonl",
        upstream_dir / "data" / "exp3" / "intersection_tasks_v2.jsonl",
        upstream_dir / "data" / "exp9_tasks.jsonl",
        upstream_dir / "data" / "transfer_tasks.jsonl",
    ]
    result = import_upstream(files, out)
    for line in result.lines():
        print(line)
    return out, {Path(r.path).name: r for r in result.reports}


def test_configs_and_splits(imported):
    out, _ = imported
    assert sorted(p.name for p in (out / "data").iterdir()) == [
        "trials_exp1", "trials_exp3", "upstream_exp3_tasks", "upstream_exp9_cfr", "upstream_exp9_tasks",
        "upstream_questions", "upstream_transfer_tasks",
    ]
    assert [p.name.split("-")[0] for p in (out / "data" / "trials_exp1").glob("*.parquet")] == ["gemini_2_5_pro"]
    assert (out / "README.md").is_file() and (out / "croissant.json").is_file()
    assert len(read_config(out, "upstream_questions")) == 5000
    assert len(read_config(out, "upstream_exp9_tasks")) == 597
    assert len(read_config(out, "upstream_transfer_tasks")) == 200


def test_gemini_exp1_row_is_reproduced(imported):
    out, reports = imported
    trials = read_config(out, "trials_exp1")
    assert trials["model"].unique().to_list() == ["gemini-2.5-pro"]
    assert trials["run_id"].unique().to_list()[0].startswith("upstream:exp1_gemini-2.5-pro_shard.jsonl:")
    assert set(trials["channel"].unique()) == {"wagering", "natural"}
    assert (trials["correct"].eq_missing(trials["upstream_correct"])).all()
    per_domain = (
        trials.filter(pl.col("correct").is_not_null())
        .group_by("channel", "domain")
        .agg(pl.col("correct").cast(pl.Float64).mean().alias("acc"))
        .pivot(on="channel", index="domain", values="acc")
    )
    assert len(per_domain) == 8
    nat, wag = per_domain["natural"].mean(), per_domain["wagering"].mean()
    gap = (per_domain["wagering"] - per_domain["natural"]).abs().mean()
    assert (round(nat, 3), round(wag, 3), round(gap, 3)) == (0.513, 0.659, 0.146)
    assert reports["exp1_gemini-2.5-pro_shard.jsonl"].rows_written == 800


PUBLISHED_CCE = {
    "gemma-3-12b": 0.516, "gpt-oss-120b": 0.477, "llama-3.1-405b": 0.485, "llama-3.1-8b": 0.583,
    "llama-3.2-3b": 0.588, "llama-3.3-70b": 0.446, "mistral-large": 0.642, "qwen3-next-80b": 0.480,
}


def test_exp3_v2_cce_is_reproduced(imported):
    out, reports = imported
    trials = read_config(out, "trials_exp3").filter(pl.col("channel") == "layer2")
    assert trials.group_by("model", "item_id").len()["len"].max() == 1  # item_id is unique per trial
    # qwen3-next-80b ran every task twice: identical copies are dropped, differing re-runs kept as
    # trials <task>#2; the authors' CCE used the first trial per (model, task), by upstream_id.
    repeats = trials.filter(pl.col("item_id") != pl.col("upstream_id"))
    assert set(repeats["model"]) == {"qwen3-next-80b"} and repeats["item_id"].str.ends_with("#2").all()
    layer2 = trials.unique(["model", "upstream_id"], keep="first", maintain_order=True)
    cce = dict(
        layer2.group_by("model")
        .agg((pl.col("confidence") - pl.col("correct").cast(pl.Float64)).abs().mean().alias("cce"))
        .iter_rows()
    )
    for model, published in PUBLISHED_CCE.items():
        assert abs(cce[model] - published) <= 0.001, (model, cce[model], published)
    counts = dict(layer2.group_by("model").len().iter_rows())
    assert counts["gpt-oss-120b"] == 61 and counts["qwen3-next-80b"] == 112
    report = reports["exp3_v2_results.jsonl"]
    assert (report.duplicates_identical, report.shared_id_trials) == (200, 136)  # every qwen3 row twice
    assert report.rows_read - report.rows_written == 200  # only the identical copies are dropped
    assert any("0-1" in note for note in report.notes)
    # Failures the authors encoded as data are kept but marked.
    phi = layer2.filter(pl.col("model") == "phi-4")
    assert (phi["confidence"] == 0.5).all() and (~phi["parse_success"]).all()


def test_cfr_table(imported):
    out, _ = imported
    cfr = read_config(out, "upstream_exp9_cfr")
    assert len(cfr) == 64 and cfr["model"].n_unique() == 16
    means = dict(cfr.group_by("condition").agg(pl.col("cfr").mean()).iter_rows())
    assert [round(means[c], 3) for c in ("C1", "C2", "C3", "C4")] == [0.600, 0.605, 0.514, 0.143]


def test_bank_cleaning_counts(imported):
    _, reports = imported
    questions = reports["questions.jsonl"]
    assert questions.coerced["correct_answer int -> str"] == 64 and questions.coerced["correct_answer float -> str"] == 1
    assert questions.coerced["question_id reused by variants -> later rows get <id>.v<k>"] == 5000 - 528
    exp3 = reports["intersection_tasks_v2.jsonl"]
    assert exp3.coerced["component_a.answer_type: polluted answer_type cut to 'exact_numeric'"] == 24


def test_folder_loads_with_datasets(imported):
    from datasets import load_dataset

    out, _ = imported
    ds = load_dataset(str(out), "trials_exp1", split="gemini_2_5_pro")
    assert ds.num_rows == 800 and "upstream_correct" in ds.column_names


@pytest.mark.parametrize("matcher", ["upstream", "strict"])
def test_regrade_from_raw_responses(upstream_dir, matcher):
    files = [
        upstream_dir / "data" / "questions.jsonl",
        upstream_dir / "results" / "exp1_gemini-2.5-pro_shard.jsonl",
        upstream_dir / "data" / "exp3" / "intersection_tasks_v2.jsonl",
        upstream_dir / "results" / "exp3_v2_results.jsonl",
    ]
    tables, _ = convert(files, regrade=matcher)
    for config in ("trials_exp1", "trials_exp3"):
        rows = [r for (c, _), rs in tables.items() if c == config for r in rs]
        compared = [r for r in rows if r["correct"] is not None or r["upstream_correct"] is not None]
        agreeing = sum(r["correct"] == r["upstream_correct"] for r in compared)
        print(f"{matcher} {config}: {agreeing}/{len(compared)} agree with the authors")
        if matcher == "upstream":
            assert agreeing == len(compared)
        else:
            assert 0.6 < agreeing / len(compared) < 1.0


# ------------------------------------------------------------------------ the authors' other formats


def test_older_exp1_format(tmp_path):
    bank = write_jsonl(tmp_path / "bank.jsonl", [
        {"question_id": "q1", "question_text": "What is 6 * 7?", "correct_answer": 42, "answer_type": "exact_numeric", "domain": "arithmetic", "subcategory": "mult", "metadata": {}},
    ])
    results = write_jsonl(tmp_path / "old_run.jsonl", [
        {"model": "Some/Model-1.5", "question_id": "q1", "channel": 1, "answer_correct": True, "raw_response": "ANSWER: 42\nBET: 9", "parsed": {"answer": 42, "bet": 9}, "latency_ms": 812},
        {"model": "Some/Model-1.5", "question_id": "q1", "channel": 1, "answer_correct": True, "raw_response": "ANSWER: 42\nBET: 9", "parsed": {"answer": 42, "bet": 9}, "latency_ms": 812},
        {"model": "Some/Model-1.5", "question_id": "q1", "channel": "layer2", "answer_correct": False, "raw_response": "CONFIDENCE: 80\nANSWER: 41", "parsed": {"answer": "41", "confidence": 80, "sub_skills": ["times tables"], "verify": False}},
        {"model": "Some/Model-1.5", "question_id": "q1", "channel": 2, "answer_correct": False, "raw_response": None, "error": "429 quota exceeded", "parsed": {}},
        {"model": "Some/Model-1.5", "question_id": "q1", "channel_name": "structured_control", "answer_correct": True, "raw_response": "ANSWER: 42\nCONFIDENCE: 6", "parsed": {"answer": "42", "confidence": 6, "parse_success": True}},
        {"model": "Some/Model-1.5", "question_id": "q1", "channel": 7, "answer_correct": True, "raw_response": "?", "parsed": {}},
    ])
    tables, reports = convert([results, bank])
    rows = {r["channel"]: r for r in tables[("trials_exp1", "some_model_1_5")]}
    assert set(rows) == {"wagering", "layer2", "opt_out", "structured_control"}
    assert rows["wagering"]["answer"] == "42" and rows["wagering"]["confidence"] == 0.9 and rows["wagering"]["latency_ms"] == 812.0
    assert rows["wagering"]["subcategory"] == "mult"  # joined from the bank
    assert rows["layer2"]["self_report_confidence"] == 80 and rows["layer2"]["confidence"] == 0.8
    assert rows["layer2"]["sub_skills"] == "times tables" and rows["layer2"]["verify"] == "no"
    assert rows["opt_out"]["correct"] is None and rows["opt_out"]["upstream_correct"] is False
    assert rows["opt_out"]["api_error"] == "429 quota exceeded"
    assert rows["structured_control"]["control_confidence"] == 6 and rows["structured_control"]["confidence"] == 0.6
    report = reports[0]
    assert report.duplicates_identical == 1
    assert report.coerced["answer int -> str"] == 1 and report.coerced["channel int -> name"] == 2
    assert report.flagged["API failure recorded as answer_correct=false -> correct null"] == 1
    assert report.unusable["unknown channel 7"] == 1
    # Regrading parses the raw text again: the layer-2 answer 41 is wrong, the wager right.
    regraded = {r["channel"]: r for r in convert([results, bank], regrade="strict")[0][("trials_exp1", "some_model_1_5")]}
    assert regraded["wagering"]["correct"] is True and regraded["layer2"]["correct"] is False
    assert regraded["opt_out"]["correct"] is None


def test_ablation_rows_without_question_ids(tmp_path):
    rows = [
        {"model": "m", "domain": "logical", "channel": 1, "answer_correct": True, "bet_size": 8},
        {"model": "m", "domain": "logical", "channel": 1, "answer_correct": False, "bet_size": 3},
        {"model": "m", "domain": "logical", "channel": 5, "answer_correct": None},
    ]
    tables, reports = convert([write_jsonl(tmp_path / "ablation.jsonl", rows)], regrade="upstream")
    out = tables[("trials_exp1", "m")]
    assert [(r["channel"], r["bet"], r["confidence"], r["correct"]) for r in out] == [
        ("wagering", 8, 0.8, True), ("wagering", 3, 0.3, False), ("natural", None, None, None),
    ]
    assert reports[0].duplicates_identical == 0 and any("no question id" in n for n in reports[0].notes)


def test_exp3_confidence_on_a_0_100_scale(tmp_path):
    rows = [
        {"model": "m", "task_id": "t1", "channel": "layer2", "domain_a": "arithmetic", "domain_b": "spatial", "confidence": 80, "answer": "12", "answer_correct": True, "correct_answer": "12"},
        {"model": "m", "task_id": "t2", "channel": "layer2", "domain_a": "arithmetic", "domain_b": "spatial", "confidence": 35, "answer": "3", "answer_correct": False, "correct_answer": "4"},
        {"model": "m", "task_id": "t1", "channel": "natural", "domain_a": "arithmetic", "domain_b": "spatial", "confidence": None, "answer": None, "answer_correct": False, "correct_answer": "12"},
    ]
    tables, reports = convert([write_jsonl(tmp_path / "e3.jsonl", rows)])
    out = {(r["item_id"], r["channel"]): r for r in tables[("trials_exp3", "m")]}
    assert out[("t1", "layer2")]["confidence"] == 0.8 and out[("t2", "layer2")]["confidence"] == 0.35
    assert out[("t1", "layer2")]["self_report_confidence"] == 80
    assert out[("t1", "natural")]["parse_success"] is False
    assert any("0-100" in n for n in reports[0].notes)


def test_exp9_results_format(tmp_path):
    row = {
        "model": "m-1", "task_id": "fixed_1", "condition": 3, "paradigm": 1, "is_false_score_control": False, "task_type": "fixed",
        "circularity_free": True, "api_success": True, "domain_a": "arithmetic", "domain_b": "social", "strength_a": "strong",
        "strength_b": "weak", "component_a_decision": "proceed", "component_a_correct": True, "component_b_decision": "defer",
        "component_b_correct": False, "component_b_externally_routed": False, "exp1_accuracy_b": 0.3, "hedge_count_b": 2,
    }
    tables, reports = convert([write_jsonl(tmp_path / "e9.jsonl", [row, {**row, "api_success": False, "task_id": "fixed_2"}])])
    out = tables[("trials_exp9", "m_1")]
    assert (out[0]["condition"], out[0]["paradigm"]) == ("C3", "P1")
    assert out[0]["component_b_decision"] == "defer" and out[0]["strength_b"] == "weak" and out[0]["component_b_hedge_count"] == 2
    assert reports[0].flagged["api_success=false (components parsed from an empty response upstream)"] == 1


def test_rows_sharing_an_upstream_id_are_kept_as_distinct_trials(tmp_path):
    """Only a row identical apart from its timestamp is a duplicate. Rows that share (model, id,
    channel) but differ are distinct trials with unique item_ids, joined to the bank only when the
    id names one question there."""
    bank = write_jsonl(tmp_path / "bank.jsonl", [
        {"question_id": "q1", "question_text": "What is 2 + 2?", "correct_answer": "4", "answer_type": "exact_numeric", "domain": "arithmetic", "subcategory": "add", "metadata": {}},
        {"question_id": "q1", "question_text": "What is 3 + 3?", "correct_answer": "6", "answer_type": "exact_numeric", "domain": "arithmetic", "subcategory": "add", "metadata": {}},
        {"question_id": "q2", "question_text": "What is 5 * 5?", "correct_answer": "25", "answer_type": "exact_numeric", "domain": "arithmetic", "subcategory": "mult", "metadata": {}},
    ])

    def row(qid, channel, raw, correct, t, latency=100.0):
        return {"model": "m", "question_id": qid, "channel": channel, "answer_correct": correct, "raw_response": raw,
                "parsed": {"answer": raw.split("\n")[0][8:]}, "timestamp": t, "latency_ms": latency}

    results = write_jsonl(tmp_path / "run.jsonl", [
        row("q2", 1, "ANSWER: 25\nBET: 9", True, "t1"),
        row("q2", 1, "ANSWER: 25\nBET: 9", True, "t2"),  # identical apart from the timestamp: a duplicate
        row("q2", 1, "ANSWER: 25\nBET: 9", True, "t3", latency=250.0),  # a second call: a trial
        row("q1", 1, "ANSWER: 4\nBET: 8", True, "t4"),
        row("q1", 1, "ANSWER: 6\nBET: 8", False, "t5"),  # same id, another answer: which variant? unknown
        row("q1", 5, "ANSWER: 4", True, "t6"),  # the only natural trial of q1: the authors' first row
    ])
    tables, reports = convert([results, bank], regrade="strict")
    rows = tables[("trials_exp1", "m")]
    assert [(r["item_id"], r["upstream_id"], r["channel"]) for r in rows] == [
        ("q2", "q2", "wagering"), ("q2#2", "q2", "wagering"),
        ("q1", "q1", "wagering"), ("q1#2", "q1", "wagering"), ("q1", "q1", "natural"),
    ]
    by_id = {(r["item_id"], r["channel"]): r for r in rows}
    # q2 names one question: both of its trials are joined and regraded
    assert by_id[("q2", "wagering")]["subcategory"] == by_id[("q2#2", "wagering")]["subcategory"] == "mult"
    assert by_id[("q2", "wagering")]["correct"] is True and by_id[("q2#2", "wagering")]["correct"] is True
    # q1 names two: its two wagering trials stay unjoined (ungraded by a regrade), its one natural trial joins
    assert by_id[("q1", "wagering")]["correct"] is None and by_id[("q1#2", "wagering")]["correct"] is None
    assert by_id[("q1", "natural")]["correct"] is True and by_id[("q1", "natural")]["subcategory"] == "add"
    report = next(r for r in reports if r.kind == "exp1_results")
    assert (report.duplicates_identical, report.shared_id_trials, report.unjoined_ambiguous) == (1, 2, 2)
    assert report.rows_written == 5
    lines = "\n".join(report.lines())
    assert "duplicates dropped (identical apart from the timestamp): 1" in lines
    assert "kept as distinct trials: 2 rows" in lines and "not joined to the bank (the upstream id names several questions): 2" in lines
    # Without --regrade the authors' grades stay on every trial.
    kept = convert([results, bank])[0][("trials_exp1", "m")]
    assert [r["correct"] for r in kept] == [True, True, True, False, True]


PUBLISHED_GEMINI_CALIBRATION = {"ece": 0.3675, "brier": 0.3664}  # the paper, n = 166 wagering trials


def test_exp1_fixed_run_keeps_every_trial_and_its_published_calibration(upstream_dir, tmp_path):
    """The authors' older gemini Exp1 run repeats question ids (172 wagering rows, 77 ids). Keeping
    the first row per (model, id, channel) dropped 471 of 907 rows and moved ECE / Brier away from
    the published values; keeping every trial brings them back. Printed side by side."""
    path = upstream_dir / "results" / "exp1_gemini_fixed_results.jsonl"
    if not path.is_file():
        pytest.skip(f"{path.name} is not among the authors' files at {upstream_dir}")
    from mirror_hf import scoring as S
    from mirror_hf.cli import app

    out = tmp_path / "mirror"
    result = import_upstream([path], out)
    report = result.reports[0]
    assert (report.rows_read, report.rows_written, report.duplicates_identical, report.shared_id_trials) == (907, 907, 0, 471)
    app(["score", "--dataset", str(out), "--variant", "upstream", "--json", str(tmp_path / "s.json")], standalone_mode=False)
    exp1 = json.loads((tmp_path / "s.json").read_text())["models"]["gemini-2.5-pro"]["exp1"]
    wag = read_config(out, "trials_exp1").filter((pl.col("channel") == "wagering") & pl.col("bet").is_not_null() & pl.col("correct").is_not_null())
    first = wag.filter(pl.col("item_id") == pl.col("upstream_id"))  # the old rule: first row per id
    before = {"ece": S.ece(first["bet"] / 10, first["correct"]).value, "brier": S.brier(first["bet"] / 10, first["correct"]).value}
    print(f"\n{'gemini Exp1 fixed run':<24} {'published':>10} {'first row per id (n=%d)' % len(first):>26} {'every trial (n=%d)' % exp1['ece']['n']:>22}")
    for name, published in PUBLISHED_GEMINI_CALIBRATION.items():
        print(f"{name:<24} {published:>10.4f} {before[name]:>26.4f} {exp1[name]['value']:>22.4f}")
    assert exp1["ece"]["n"] == 166
    for name, published in PUBLISHED_GEMINI_CALIBRATION.items():
        assert abs(exp1[name]["value"] - published) <= 0.001
        assert abs(before[name] - published) > 0.03  # what the old rule reported


def test_reimport_replaces_its_own_rows_and_keeps_others(tmp_path):
    from mirror_hf.dataset_builders import registry
    from mirror_hf.folder import write_split

    out = tmp_path / "mirror"
    ours = {"run_id": "our-run", "model": "m", "experiment": "exp3", "item_id": "t9", "channel": "self_prediction", "confidence": 0.4}
    write_split(out, "trials_exp3", "m", [ours], registry()["trials_exp3"].features)
    source = write_jsonl(tmp_path / "e3.jsonl", [
        {"model": "m", "task_id": "t1", "channel": "layer2", "domain_a": "a", "domain_b": "b", "confidence": 0.9, "answer": "1", "answer_correct": True, "correct_answer": "1"},
    ])
    for _ in range(2):
        import_upstream([source], out)
    table = read_config(out, "trials_exp3")
    assert len(table) == 2 and "our-run" in table["run_id"].to_list()
    assert len(list((out / "data" / "trials_exp3").glob("m-*.parquet"))) == 1
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".mirror.")]  # no staging left behind


# ------------------------------------------------------------------------------------ bad input


_CLI_SCRIPT = """
import contextlib, io, json, sys
from mirror_hf.cli import main
results = []
for args in json.loads(sys.argv[1]):
    out, err, code = io.StringIO(), io.StringIO(), 0
    sys.argv = ["mirror-hf", "import-upstream", *args]
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            main()
        except SystemExit as exc:
            code = exc.code or 0
    results.append({"code": code, "stdout": out.getvalue(), "stderr": err.getvalue()})
print(json.dumps(results))
"""


def run_cli(calls: list[list], cwd: Path) -> list[dict]:
    """The console entry point, once per argument list, in one fresh interpreter (start-up is slow)."""
    env = {**os.environ, "PYTHONWARNINGS": "ignore"}
    done = subprocess.run([sys.executable, "-c", _CLI_SCRIPT, json.dumps([[str(a) for a in call] for call in calls])],
                          capture_output=True, text=True, cwd=cwd, env=env, timeout=300)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_bad_input_is_one_line_exit_2_and_no_output(tmp_path):
    good = write_jsonl(tmp_path / "e3.jsonl", [
        {"model": "m", "task_id": "t1", "channel": "layer2", "domain_a": "a", "domain_b": "b", "confidence": 0.9, "answer": "1", "answer_correct": True, "correct_answer": "1"},
    ])
    unknown = write_jsonl(tmp_path / "mystery.jsonl", [{"foo": 1, "bar": 2}])
    broken = tmp_path / "broken.jsonl"
    broken.write_text(good.read_text() + '{"model": "m", "task_id": \n')
    out, bad_out = tmp_path / "out", tmp_path / "bad_out"
    bad_unknown, bad_broken, ok = run_cli([[good, unknown, "--out", bad_out], [good, broken, "--out", bad_out], [good, "--out", out]], tmp_path)
    for done, expected in ((bad_unknown, f"{unknown}:1: unknown format"), (bad_broken, f"{broken}:2: not a valid JSON line")):
        assert done["code"] == 2, done
        lines = done["stderr"].strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith(f"error: {expected}"), done["stderr"]
    assert not bad_out.exists()
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == []  # no staging folder left
    assert ok["code"] == 0, ok
    assert "trials_exp3/m" in ok["stdout"] and pq.read_table(next((out / "data" / "trials_exp3").glob("*.parquet"))).num_rows == 1


def test_regrade_errors(tmp_path):
    from typer.testing import CliRunner

    from mirror_hf.cli import UsageError, app

    good = write_jsonl(tmp_path / "e3.jsonl", [
        {"model": "m", "task_id": "t1", "channel": "layer2", "domain_a": "a", "domain_b": "b", "confidence": 0.9, "answer": "1", "answer_correct": True, "correct_answer": "1"},
    ])
    with pytest.raises(UpstreamError, match="needs the exp3 tasks bank"):
        convert([good], regrade="strict")
    result = CliRunner().invoke(app, ["import-upstream", str(good), "--out", str(tmp_path / "out"), "--regrade", "lenient"])
    assert isinstance(result.exception, UsageError) and "--regrade must be upstream or strict" in str(result.exception)
    assert not (tmp_path / "out").exists()


def test_unusable_file_is_an_error(tmp_path):
    rows = [{"model": "", "task_id": "t1", "channel": "layer2", "domain_a": "a", "domain_b": "b", "confidence": 0.9, "answer": "1", "answer_correct": True, "correct_answer": "1"}]
    with pytest.raises(UpstreamError, match="no usable rows"):
        convert([write_jsonl(tmp_path / "e3.jsonl", rows)])
    with pytest.raises(UpstreamError, match="no such file"):
        convert([tmp_path / "missing.jsonl"])
