"""`mirror-hf score` on a dataset folder written the way the runner writes trials (records.py
Features, one split per model): hand-computed values end to end, and bad input as a one-line error
with exit code 2 and no output file."""

from __future__ import annotations

import json
import math
import sys

import pytest

from mirror_hf.folder import write_split
from mirror_hf.records import (
    TRIAL_EXP1_FEATURES,
    TRIAL_EXP3_FEATURES,
    TRIAL_EXP9_FEATURES,
    empty_row,
)

T, F, N = True, False, None


def exp1_rows() -> list[dict]:
    rows = []

    def add(item, domain, channel, correct, **fields):
        row = empty_row(TRIAL_EXP1_FEATURES)
        row.update(run_id="r", model="m1", experiment="exp1", item_id=item, domain=domain, channel=channel, correct=correct, **fields)
        rows.append(row)

    domains = {"q1": "a", "q2": "a", "q3": "b", "q4": "b"}
    for q, c, h in (("q1", T, 0), ("q2", F, 2), ("q3", T, 0), ("q4", N, 1)):
        add(q, domains[q], "natural", c, hedging_count=h, confidence=1 / (1 + h))
    for q, c, bet in (("q1", T, 9), ("q2", T, 8), ("q3", F, 3), ("q4", T, 10)):
        add(q, domains[q], "wagering", c, bet=bet, confidence=bet / 10)
    for q, c, skipped in (("q1", T, F), ("q2", N, T), ("q3", T, F), ("q4", F, F)):
        add(q, domains[q], "opt_out", c, skipped=skipped, confidence=0.0 if skipped else 1.0)
    # an API error: ungraded, and no signal for MCI
    add("q5", "a", "opt_out", N, api_error="HTTP 500", confidence=1.0)
    return rows


def exp9_rows() -> list[dict]:
    rows = []

    def add(task, condition, paradigm, a, b):
        row = empty_row(TRIAL_EXP9_FEATURES)
        row.update(run_id="r", model="m1", experiment="exp9", item_id=task, condition=condition, paradigm=paradigm,
                   task_type="fixed", is_false_score_control=False, api_success=True)
        for slot, (domain, strength, decision, correct, routed) in (("a", a), ("b", b)):
            row.update({f"domain_{slot}": domain, f"strength_{slot}": strength, f"component_{slot}_decision": decision,
                        f"component_{slot}_correct": correct, f"component_{slot}_externally_routed": routed})
        rows.append(row)

    add("t1", "C1", "P1", ("a", "weak", "proceed", F, F), ("b", "strong", "use_tool", T, F))
    add("t2", "C1", "P2", ("a", "weak", "defer", F, F), ("a", "weak", "proceed", T, F))
    add("t3", "C4", "P1", ("a", "weak", "use_tool", T, T), ("b", "strong", "proceed", T, F))
    add("t4", "C1", "P3", ("a", "weak", "proceed", F, F), ("c", "medium", "proceed", F, F))
    return rows


def exp3_rows() -> list[dict]:
    rows = []
    for task, target, conf, correct in (
        ("x1", "composite", 0.8, T), ("x1", "component_a", 0.6, F),
        ("x2", "composite", 0.3, F), ("x2", "component_a", 0.9, T),
    ):
        for channel in ("self_prediction", "answer"):
            row = empty_row(TRIAL_EXP3_FEATURES)
            row.update(run_id="r", model="m1", experiment="exp3", item_id=task, channel=channel, target=target,
                       domain_a="a", domain_b="b")
            if channel == "self_prediction":
                row["confidence"] = conf
            else:
                row["correct"] = correct
            rows.append(row)
    return rows


@pytest.fixture
def folder(tmp_path):
    root = tmp_path / "mirror"
    write_split(root, "trials_exp1", "m1", exp1_rows(), TRIAL_EXP1_FEATURES)
    write_split(root, "trials_exp9", "m1", exp9_rows(), TRIAL_EXP9_FEATURES)
    write_split(root, "trials_exp3", "m1", exp3_rows(), TRIAL_EXP3_FEATURES)
    return root


def score(monkeypatch, capsys, *args) -> tuple[int, str, str]:
    from mirror_hf.cli import main

    monkeypatch.setattr(sys, "argv", ["mirror-hf", "score", *args])
    code = 0
    try:
        main()
    except SystemExit as exc:
        code = exc.code or 0
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_score_folder_hand_computed(folder, tmp_path, monkeypatch, capsys):
    out = tmp_path / "scores.json"
    code, _, err = score(monkeypatch, capsys, "--dataset", str(folder), "--json", str(out), "--resamples", "0", "--weak-policy", "recorded")
    assert code == 0, err
    result = json.loads(out.read_text())
    m = result["models"]["m1"]
    e1 = m["exp1"]
    # natural: a 1/2, b 1/1 (q4 ungraded) -> 0.75; wagering: a 2/2, b 1/2 -> 0.75; gap: (0.5 + 0.5) / 2
    assert e1["natural_accuracy"] == {"value": 0.75, "n": 3}
    assert e1["wagering_accuracy"]["value"] == pytest.approx(0.75)
    assert e1["mirror_gap"]["value"] == pytest.approx(0.5)
    # wager: (0.9 T) (0.8 T) (0.3 F) (1.0 T): ECE (2*0.05 + 0.2 + 0.3) / 4; Brier 0.14 / 4; AUROC 1
    assert e1["ece"]["value"] == pytest.approx(0.15)
    assert e1["brier"]["value"] == pytest.approx(0.035)
    assert e1["auroc"]["value"] == pytest.approx(1.0)
    # MCI over q1-q4 (q5 is an API error): rank correlations worked out by hand
    expected_mci = (-1 / math.sqrt(22.5) + 1 / math.sqrt(15) + 3 / math.sqrt(13.5)) / 3
    assert e1["mci"]["value"] == pytest.approx(expected_mci)
    assert e1["accuracy_opt_out"] == {"value": pytest.approx(2 / 3), "n": 3}
    assert e1["accuracy_natural"]["value"] == pytest.approx(2 / 3)
    assert "ci" not in e1["natural_accuracy"]
    e9 = m["exp9"]
    # escalation frame (P1+P2): C1 weak = t1a fail, t2a defer, t2b right -> 1/3; C4: routed t3a -> 0
    assert e9["cfr"]["C1"] == {"value": pytest.approx(1 / 3), "n": 3}
    assert e9["cfr"]["C4"]["value"] == 0.0
    assert e9["cfr_table_c1"]["value"] == pytest.approx(0.5)  # + P3's t4a failure: 2/4
    assert e9["udr"]["value"] == pytest.approx(1.0)  # t1b: strong, used a tool, correct
    assert e9["kdi"]["value"] == pytest.approx(0.5 - (1 - 0.5))  # paper: Gap - (1 - CFR_C1)
    # CCE paper: x1 |0.8-1| - |0.6-0| = -0.4; x2 |0.3-0| - |0.9-1| = 0.2 -> -0.1
    assert m["exp3"]["cce"]["value"] == pytest.approx(-0.1)
    esc = result["aggregate"]["escalation"]
    assert esc["C1"]["value"] == pytest.approx(1 / 3) and esc["C1"]["n"] == 1
    assert result["settings"]["variant"] == "paper"


def test_score_upstream_variant_and_paper_relabelling(folder, tmp_path, monkeypatch, capsys):
    out = tmp_path / "up.json"
    code, _, err = score(monkeypatch, capsys, "--dataset", str(folder), "--json", str(out), "--variant", "upstream", "--resamples", "0")
    assert code == 0, err
    m = json.loads(out.read_text())["models"]["m1"]
    assert m["exp3"]["cce"]["value"] == pytest.approx((0.2 + 0.3) / 2)  # mean |confidence - correct|
    assert m["exp9"]["kdi"]["value"] == pytest.approx(0.5 - (1 - 1.0))  # domain a: g 0.5, CFR (C1/P1/fixed) 1
    # paper variant relabels from the Exp1 profile (a 0.5, b 1.0: median 0.75 -> a weak, b strong; c unknown)
    out2 = tmp_path / "paper.json"
    code, _, err = score(monkeypatch, capsys, "--dataset", str(folder), "--json", str(out2), "--resamples", "0")
    assert code == 0, err
    assert json.loads(out2.read_text())["models"]["m1"]["exp9"]["cfr"]["C1"]["value"] == pytest.approx(1 / 3)


def test_score_k_reaches_the_weak_policy_and_exp9_extras_are_reported(folder, tmp_path, monkeypatch, capsys):
    values = {}
    for k in (1, 2):
        out = tmp_path / f"k{k}.json"
        code, _, err = score(monkeypatch, capsys, "--dataset", str(folder), "--json", str(out), "--resamples", "0",
                             "--weak-policy", "bottom_k", "--k", str(k))
        assert code == 0, err
        result = json.loads(out.read_text())
        values[k] = result["models"]["m1"]["exp9"]
        assert result["settings"]["k"] == k
    # Exp1 profile a 0.5, b 1.0. k=1: weak {a}: t1a fail, t2a defer, t2b right -> 1/3; k=2: weak {a, b}: + t1b tool -> 1/4
    assert values[1]["cfr"]["C1"]["value"] == pytest.approx(1 / 3)
    assert values[2]["cfr"]["C1"]["value"] == pytest.approx(1 / 4)
    e9 = values[1]
    assert e9["cfr_by_paradigm"]["P1"]["C1"] == {"value": 1.0, "n": 1} and e9["cfr_by_paradigm"]["P2"]["C1"]["value"] == 0.0
    assert e9["escalation_fixed_p1p2"]["C1"]["value"] == pytest.approx(1 / 3)
    # C4: t3a routed; its C1 counterpart (t3, P1, a) was never run -> unmatched
    assert e9["c4_tradeoff"]["escalation_rate"] == {"value": 1.0, "n": 1}
    assert e9["c4_tradeoff"]["correct_escalation_rate"] == {"value": None, "n": 0}
    assert e9["resolver"]["0.5"]["system_success"]["value"] == pytest.approx((1 + 0.5) / 2)  # t3b right, t3a routed
    assert set(e9["mnar_bound"]["C1"]) == {"low", "high"} and "baselines" in e9 and "C1" in e9["ipw_cfr"]


def test_score_missing_incorrect_counts_a_failed_call_as_a_confident_failure(tmp_path, monkeypatch, capsys):
    """`--missing missing_incorrect` (it once ended in a traceback): a weak component whose call failed
    counts as a confident failure; the IPW CFR and the MNAR bound model the missing ones themselves,
    so they read the same under either rule."""
    root = tmp_path / "mirror"
    rows = exp9_rows()
    failed = {**rows[0], "item_id": "t5", "api_success": False, "component_a_decision": None, "component_a_correct": None,
              "component_b_decision": None, "component_b_correct": None}
    write_split(root, "trials_exp9", "m1", [*rows, failed], TRIAL_EXP9_FEATURES)
    e9 = {}
    for rule in ("complete_case", "missing_incorrect"):
        out = tmp_path / f"{rule}.json"
        code, _, err = score(monkeypatch, capsys, "--dataset", str(root), "--json", str(out), "--resamples", "0",
                             "--weak-policy", "recorded", "--missing", rule)
        assert code == 0 and "Traceback" not in err, err
        e9[rule] = json.loads(out.read_text())["models"]["m1"]["exp9"]
    # C1 escalation frame (P1+P2), weak: t1a fail, t2a defer, t2b right, t5a missing
    assert e9["complete_case"]["cfr"]["C1"] == {"value": pytest.approx(1 / 3), "n": 3}
    assert e9["missing_incorrect"]["cfr"]["C1"] == {"value": pytest.approx(2 / 4), "n": 4}
    for rule in e9:
        bound = e9[rule]["mnar_bound"]["C1"]
        assert bound["low"]["value"] == pytest.approx(1 / 4) and bound["high"]["value"] == pytest.approx(2 / 4)
        # IPW: stratum P1/a holds t1a (fail) and t5a (missing): 1 fail x 2 / 1 observed; P2/a: 0 of 2 -> 2 / 4
        assert e9[rule]["ipw_cfr"]["C1"]["value"] == pytest.approx(2 / 4)


def test_score_with_cis(folder, tmp_path, monkeypatch, capsys):
    out = tmp_path / "ci.json"
    code, stdout, err = score(monkeypatch, capsys, "--dataset", str(folder), "--resamples", "500", "--json", str(out))
    assert code == 0, err
    result = json.loads(out.read_text())
    nat = result["models"]["m1"]["exp1"]["natural_accuracy"]
    # two items per domain: a stratified interval would be meaningless (issue 29), the entry says why
    assert nat.get("ci") is None and nat["ci_note"].startswith("too few trials per domain")
    found = []

    def walk(node):
        if isinstance(node, dict):
            if node.get("ci") and None not in node["ci"] and isinstance(node.get("value"), float):
                found.append(node)
            for child in node.values():
                walk(child)
        elif isinstance(node, list):
            for child in node:
                walk(child)

    walk(result["models"]["m1"])
    assert found and all(e["ci"][0] <= e["value"] <= e["ci"][1] and e["ci"][0] < e["ci"][1] for e in found)
    assert "sd" in result["aggregate"]["escalation"]["C1"]


@pytest.mark.parametrize(
    "args, message",
    [
        (["--variant", "v2"], "--variant must be paper or upstream"),
        (["--weak-policy", "median"], "--weak-policy must be one of"),
        (["--missing", "drop"], "--missing must be one of"),
        (["--resamples", "-1"], "--resamples must be >= 0"),
        (["--k", "0"], "--k must be at least 1"),
    ],
)
def test_score_bad_options(folder, tmp_path, monkeypatch, capsys, args, message):
    out = tmp_path / "never.json"
    code, _, err = score(monkeypatch, capsys, "--dataset", str(folder), "--json", str(out), *args)
    assert code == 2
    assert err.startswith("error: ") and message in err and err.count("\n") == 1
    assert not out.exists()


def test_score_not_a_dataset_folder(tmp_path, monkeypatch, capsys):
    code, _, err = score(monkeypatch, capsys, "--dataset", str(tmp_path / "nowhere"))
    assert code == 2 and "not a dataset folder" in err
    (tmp_path / "empty" / "data").mkdir(parents=True)
    code, _, err = score(monkeypatch, capsys, "--dataset", str(tmp_path / "empty"))
    assert code == 2 and "holds no trials" in err


def test_score_exp2_tii_from_transfer_tasks(folder, tmp_path, monkeypatch, capsys):
    """Exp2 trials (no records.py schema yet: written here with the Exp1 trial columns) get their
    hidden source domain from the `exp2_transfer` task bank; TII uses the model's Exp1 profile."""
    from mirror_hf.records import EXP2_TASK_FEATURES

    tasks = []
    for task, source in (("t1", "a"), ("t2", "b"), ("t3", "a"), ("t4", "b")):
        row = empty_row(EXP2_TASK_FEATURES)
        row.update(task_id=task, surface_domain="social", source_domain=source, task_text="...", answer="1", choices=[], aliases=[])
        tasks.append(row)
    write_split(folder, "exp2_transfer", "test", tasks, EXP2_TASK_FEATURES)
    trials = []
    for task, conf in (("t1", 0.2), ("t2", 0.9), ("t3", 0.3), ("t4", 0.8)):
        row = empty_row(TRIAL_EXP1_FEATURES)
        row.update(run_id="r", model="m1", experiment="exp2", item_id=task, channel="wagering", confidence=conf, correct=T)
        trials.append(row)
    write_split(folder, "trials_exp2", "m1", trials, TRIAL_EXP1_FEATURES)
    out = tmp_path / "tii.json"
    code, _, err = score(monkeypatch, capsys, "--dataset", str(folder), "--json", str(out), "--resamples", "0")
    assert code == 0, err
    # source accuracy (a 0.5, b 1.0) ranks (1.5, 3.5, 1.5, 3.5) vs signal ranks (1, 4, 2, 3):
    # dx (-1, 1, -1, 1), dy (-1.5, 1.5, -0.5, 0.5): rho = 4 / sqrt(4 * 5)
    tii = json.loads(out.read_text())["models"]["m1"]["exp2"]["tii"]
    assert tii["value"] == pytest.approx(4 / math.sqrt(20)) and tii["n"] == 4


def test_score_reports_balanced_cce_with_an_exp1_profile(folder, tmp_path, monkeypatch, capsys):
    out = tmp_path / "bal.json"
    code, _, err = score(monkeypatch, capsys, "--dataset", str(folder), "--json", str(out), "--resamples", "0")
    assert code == 0, err
    # profile a 0.5, b 1.0 -> weak {a}; both tasks are a|b (strong_weak): one stratum, one pair,
    # errors |0.8 - 1| = 0.2 and |0.3 - 0| = 0.3 -> 0.25
    bal = json.loads(out.read_text())["models"]["m1"]["exp3"]["cce_balanced"]
    assert bal["value"] == pytest.approx(0.25) and bal["n"] == 2
