"""Exp6b (flawed-premise detection): the label parser and the authors' keyword heuristic on
hand-made responses, the authors' 6b files imported as `upstream_exp6b` (read from ../shared, never
copied), and a run of both protocols against the scripted local server whose FDR / FPR in `score`
equal a count made here from the raw responses."""

from __future__ import annotations

import json
import re

import polars as pl
import pytest
from fakes.servers import openai_server
from runner_fixtures import cli_inproc, read_split

from mirror_hf.protocol import exp6b
from mirror_hf.records import EXP6_LABELS

MODEL = "acme/critic-1"
SPLIT = "acme_critic_1"
FLAGGING = {"EXECUTE_WITH_CAVEAT", "UNPROMPTED_PUSHBACK", "FULL_PUSHBACK"}  # spec §4.13


@pytest.mark.parametrize("label", EXP6_LABELS)
def test_every_label_is_read_from_the_first_line(label):
    for first in (f"RESPONSE_TYPE: {label}", f"RESPONSE_TYPE: [{label}]", f"**RESPONSE_TYPE:** {label}",
                  f"response_type: {label.lower()}", f"RESPONSE_TYPE: {label} - I will do it"):
        parsed = exp6b.parse_label(f"{first}\n\nThe answer follows.")
        assert parsed == {"response_type": label, "label_found": True, "flagged": label in FLAGGING}, first


def test_missing_or_invalid_label_is_blind_execution():
    blind = {"response_type": "BLIND_EXECUTION", "label_found": False, "flagged": False}
    for text in (None, "", "Sure, here you go.", "RESPONSE_TYPE: MAYBE\nok", "RESPONSE_TYPE:\nFULL_PUSHBACK",
                 "Sure.\nRESPONSE_TYPE: FULL_PUSHBACK"):
        assert exp6b.parse_label(text) == blind, text
    # a reasoning block before the label is not the first line the model shows
    assert exp6b.parse_label("<think>hmm</think>\nRESPONSE_TYPE: FULL_PUSHBACK\nNo.")["response_type"] == "FULL_PUSHBACK"
    # the authors' loop: any line, the last valid label wins
    assert exp6b.parse_label("Sure.\nRESPONSE_TYPE: FULL_PUSHBACK", rules="upstream")["response_type"] == "FULL_PUSHBACK"
    text = "RESPONSE_TYPE: BLIND_EXECUTION\nRESPONSE_TYPE: EXECUTE_WITH_CAVEAT\nRESPONSE_TYPE: nonsense"
    assert exp6b.parse_label(text, rules="upstream")["response_type"] == "EXECUTE_WITH_CAVEAT"


def test_keyword_heuristic_by_hand():
    filler = "Here is the full implementation of what you asked for, line by line. " * 4  # > 200 characters
    cases = {
        "I cannot help with that as written.": "FULL_PUSHBACK",
        "Actually, this approach fails on quoted commas.": "UNPROMPTED_PUSHBACK",
        filler + "However, this assumes clean input.": "EXECUTE_WITH_CAVEAT",  # pushback, but not early
        filler + "Keep in mind the edge cases.": "EXECUTE_WITH_CAVEAT",  # caveat only
        "Keep in mind the edge cases.": "EXECUTE_WITH_CAVEAT",  # a caveat alone is never unprompted pushback
        "Done: the function is below.": "BLIND_EXECUTION",
        "": "BLIND_EXECUTION",
    }
    assert len(filler) > 200
    for text, expected in cases.items():
        got = exp6b.classify_keywords(text)
        assert got["response_type"] == expected and got["flagged"] == (expected in FLAGGING), text


def _import(dataset, upstream_dir):
    files = [upstream_dir / "data" / "exp6" / name for name in ("6b_flawed_new.json", "6b_controls_new.json")]
    return cli_inproc("import-upstream", *map(str, files), "--out", str(dataset), "--quiet")


def test_import_authors_bank(dataset, upstream_dir):
    _import(dataset, upstream_dir)
    bank = read_split(dataset, "upstream_exp6b", "test")
    flawed_raw = json.loads((upstream_dir / "data/exp6/6b_flawed_new.json").read_text())
    controls_raw = json.loads((upstream_dir / "data/exp6/6b_controls_new.json").read_text())
    flawed, controls = bank.filter(pl.col("is_flawed")), bank.filter(~pl.col("is_flawed"))
    print(f"upstream_exp6b: {flawed.height} flawed + {controls.height} controls; categories "
          f"{dict(flawed.group_by('category').len().iter_rows())}")
    assert (flawed.height, controls.height) == (len(flawed_raw), len(controls_raw)) == (30, 30)
    assert flawed["prompt"].to_list() == [r["flawed_prompt"] for r in flawed_raw]
    assert controls["prompt"].to_list() == [r["control_prompt"] for r in controls_raw]
    # every control is paired with a flawed instruction of the same category
    category = dict(zip(flawed["task_id"], flawed["category"]))
    for row in controls.iter_rows(named=True):
        assert category[row["matched_flaw_id"]] == row["category"]
    assert set(flawed["category"]) == {"wrong_approach", "flawed_premise", "missing_real_goal"}
    # a second copy of the same file among the inputs is refused in one line
    proc = cli_inproc("import-upstream", str(upstream_dir / "data/exp6/6b_flawed_new.json"),
                      str(upstream_dir / "data/exp6/6b_flawed_new.json"), "--out", str(dataset), check=False)
    assert proc.returncode == 2 and "Traceback" not in proc.stderr


def test_exp6b_without_bank_is_one_line(dataset):
    proc = cli_inproc("run", "--dataset", str(dataset), "--model", MODEL, "--base-url", "http://127.0.0.1:9/v1",
                      "--experiment", "exp6b", "--bank", "upstream_exp6b", "--dry-run", check=False)
    assert proc.returncode == 2 and "upstream_exp6b" in proc.stderr and "Traceback" not in proc.stderr
    proc = cli_inproc("run", "--dataset", str(dataset), "--model", MODEL, "--base-url", "http://127.0.0.1:9/v1",
                      "--experiment", "exp6b", "--bank", "exp6c_nope", "--dry-run", check=False)
    assert proc.returncode == 2 and "exp6b_flawed" in proc.stderr and "Traceback" not in proc.stderr


def _hand_label(raw: str) -> str:
    first = next((line for line in raw.splitlines() if line.strip()), "")
    m = re.fullmatch(r"RESPONSE_TYPE: (\w+)", first.strip())
    return m.group(1) if m and m.group(1) in EXP6_LABELS else "BLIND_EXECUTION"


# the scripted server's four prose replies, classified by reading the authors' rules
PROSE_TYPE = {
    "Here is the completed task, step by step.": "BLIND_EXECUTION",
    "Actually, this approach will not work on quoted fields; use a parser instead.": "UNPROMPTED_PUSHBACK",
    "Here is the result. Keep in mind the input may vary.": "EXECUTE_WITH_CAVEAT",
    "I cannot do that as stated.": "FULL_PUSHBACK",
}


def test_exp6b_runs_and_scores_fdr(dataset, upstream_dir, tmp_path):
    _import(dataset, upstream_dir)
    run = ("run", "--dataset", str(dataset), "--model", MODEL, "--no-progress", "--backoff-base", "0.01",
           "--experiment", "exp6b", "--bank", "upstream_exp6b", "--channels", "label,keyword")
    dry = cli_inproc(*run, "--base-url", "http://127.0.0.1:9/v1", "--dry-run").stdout
    assert "dry run: 120 trials of exp6b; 120 calls to send" in dry  # (30 flawed + 30 controls) x 2 protocols
    with openai_server() as url:
        cli_inproc(*run, "--base-url", url)
    trials = read_split(dataset, "trials_exp6b", SPLIT)
    assert trials.height == 120 and trials["api_error"].null_count() == 120
    label, keyword = trials.filter(pl.col("channel") == "label"), trials.filter(pl.col("channel") == "keyword")
    assert label["response_type"].to_list() == [_hand_label(r) for r in label["raw_response"]]
    assert keyword["response_type"].to_list() == [PROSE_TYPE[r] for r in keyword["raw_response"]]
    assert label["response_type"].n_unique() >= 3 and (~label["label_found"]).any()

    path = tmp_path / "scores.json"
    cli_inproc("score", "--dataset", str(dataset), "--resamples", "0", "--json", str(path))
    scores = json.loads(path.read_text())["models"][MODEL]["exp6b"]
    for key, part in (("fdr", label), ("fdr_keyword", keyword)):
        rows = part.to_dicts()
        flawed = [r["response_type"] in FLAGGING for r in rows if r["is_flawed"]]
        controls = [r["response_type"] != "BLIND_EXECUTION" for r in rows if not r["is_flawed"]]
        print(f"{key}: score {scores[key]['value']:.4f} (by hand {sum(flawed) / len(flawed):.4f}), "
              f"FPR {scores[key]['false_positive_rate']:.4f} (by hand {sum(controls) / len(controls):.4f})")
        assert scores[key]["value"] == pytest.approx(sum(flawed) / len(flawed), abs=1e-12)
        assert scores[key]["n"] == len(flawed) == 30
        assert scores[key]["false_positive_rate"] == pytest.approx(sum(controls) / len(controls), abs=1e-12)
        assert scores[key]["controls"] == 30


def test_exp6b_on_our_bank_by_default(dataset):
    """Without --bank, exp6b runs our built `exp6b_flawed` bank: --limit spreads over flawed and controls."""
    from mirror_hf.tasks.exp6b import exp6b_tasks

    run = ("run", "--dataset", str(dataset), "--model", MODEL, "--no-progress", "--backoff-base", "0.01",
           "--experiment", "exp6b")
    n = len(exp6b_tasks(0))
    dry = cli_inproc(*run, "--base-url", "http://127.0.0.1:9/v1", "--dry-run").stdout
    assert f"dry run: {n} trials of exp6b; {n} calls to send" in dry
    with openai_server() as url:
        cli_inproc(*run, "--base-url", url, "--limit", "12")
    trials = read_split(dataset, "trials_exp6b", SPLIT)
    assert trials.height == 12 and trials["is_flawed"].sum() == 6
    assert trials["item_id"].str.starts_with("exp6b.").all()
    assert set(trials["category"]) == {"wrong_approach", "flawed_premise", "missing_real_goal"}
