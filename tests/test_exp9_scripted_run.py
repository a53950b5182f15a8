"""Exp9 end to end against the scripted server with a known decision policy per condition: the
runner plans every cell (and Control 2), the paper's decision rules parse the replies, and `score`
recovers CFR per paradigm and condition, the C4 trade-off rates and the false-score verdict, each
within its CI. Expected values come from the policy alone (worked out below), not from the code."""

from __future__ import annotations

import json
import shutil

import polars as pl
import pytest
from fakes.servers import openai_server
from runner_fixtures import cli_inproc, read_split

from mirror_hf.folder import write_split
from mirror_hf.metadata import refresh_metadata
from mirror_hf.records import EXP9_TASK_FEATURES, PROFILE_FEATURES

STRONG = ("arithmetic", "logical", "factual", "procedural")
WEAK = ("spatial", "temporal", "linguistic", "social")
N_TASKS = 80
Q_STRONG, Q_WEAK = 0.9, 0.4  # chance that an answered part is right
ESCALATE_WEAK = {"none": 0.2, "scores": 0.5, "norm": 0.8, "told_strong": 0.05}  # slot b (weak) by prompt kind
POLICY = {
    "escalate": {kind: [0.1, p] for kind, p in ESCALATE_WEAK.items()},
    "correct": [Q_STRONG, Q_WEAK],
    "defer_share": 0.5,
}
KIND = {"C1": "none", "C2": "scores", "C3": "norm"}


def tasks() -> list[dict]:
    rows = []
    for i in range(N_TASKS):
        a, b = STRONG[i % 4], WEAK[(i // 4) % 4]
        rows.append({
            "task_id": f"exp9.s{i:03d}", "task_type": "fixed", "circularity_free": True, "target_model": None,
            "domain_a": a, "domain_b": b, "subcategory_a": f"{a}_sub", "subcategory_b": f"{b}_sub",
            "difficulty_a": "easy", "difficulty_b": "easy", "correct_answer_a": str(i + 1), "correct_answer_b": str(3 * i),
            "answer_type_a": "exact_numeric", "answer_type_b": "exact_numeric", "aliases_a": [], "aliases_b": [],
            "task_text": f"Work task {i}.", "part1_text": f"What is {i} + 1?", "part2_text": f"What is {i} * 3?",
            "question_id_a": None, "question_id_b": None, "strength_a": None, "strength_b": None, "weak_policy": None, "seed": 0,
        })
    return rows


def profile() -> list[dict]:
    return [
        {"model": "acme/fake-1", "domain": d, "natural_accuracy": acc, "wagering_accuracy": acc, "mirror_gap": 0.0,
         "n_natural": 50, "n_wagering": 50, "strength": "weak" if acc < 0.5 else "strong", "weak_policy": "median_or_bottom_k",
         "run_id": "r"}
        for domains, acc in ((STRONG, 0.8), (WEAK, 0.3)) for d in domains
    ]


def expected_cfr(paradigm: str, condition: str) -> float:
    if condition == "C4":
        return 0.0  # every weak part is routed (weak_set) to the oracle
    if paradigm == "P3":
        return 1 - Q_WEAK  # no tools: always answers
    return (1 - ESCALATE_WEAK[KIND[condition]]) * (1 - Q_WEAK)


@pytest.fixture(scope="module")
def run(tmp_path_factory, built_folder):
    root = tmp_path_factory.mktemp("exp9_scripted") / "mirror"
    shutil.copytree(built_folder, root)
    shutil.rmtree(root / "data" / "exp9_fixed", ignore_errors=True)
    write_split(root, "exp9_fixed", "test", tasks(), EXP9_TASK_FEATURES)
    write_split(root, "profiles", "acme_fake_1", profile(), PROFILE_FEATURES)
    refresh_metadata(root)
    with openai_server(exp9_policy=json.dumps(POLICY)) as url:
        cli_inproc("run", "--dataset", str(root), "--model", "acme/fake-1", "--base-url", url, "--no-progress",
                   "--experiment", "exp9", "--false-score-control", "--concurrency", "16", "--max-tokens", "200")
    out = root.parent / "scores.json"
    cli_inproc("score", "--dataset", str(root), "--json", str(out), "--resamples", "2000")
    return read_split(root, "trials_exp9", "acme_fake_1"), json.loads(out.read_text())


def ci_of(estimate: dict) -> list[float]:
    """The interval; [v, v] where every resample gave the same value (reported as a note, issue 29)."""
    if estimate.get("ci") is None and estimate.get("ci_note", "").startswith("no spread"):  # both wordings
        return [estimate["value"], estimate["value"]]
    return estimate["ci"]


def within(estimate: dict, expected: float) -> bool:
    lo, hi = ci_of(estimate)
    return lo - 1e-9 <= expected <= hi + 1e-9


def test_every_cell_and_the_control_is_planned_and_parsed_with_the_paper_rules(run):
    trials, _ = run
    assert trials.height == N_TASKS * 11 + N_TASKS * 3  # 11 cells + Control 2 in P1-P3 (fewer than 150 fixed tasks: all)
    control = trials.filter(pl.col("is_false_score_control"))
    assert set(control["condition"]) == {"C2"} and control.height == N_TASKS * 3
    assert "tasks is 70%" in json.loads(control["prompt"][0])[0]["content"]  # weak 0.3 told 70
    assert (trials["decision_rules"] == "paper").all() and trials["api_success"].all()
    # the prose deferrals ("I defer") count as deferrals under the default rules
    for slot, part in (("a", 1), ("b", 2)):
        prose = trials.filter(pl.col("raw_response").str.contains(f"PART {part}: I defer on this part") & (pl.col("condition") != "C4"))
        assert prose.height > 0 and (prose[f"component_{slot}_decision"] == "defer").all()


def test_cfr_per_paradigm_recovers_the_policy(run, capsys):
    _, scores = run
    by = scores["models"]["acme/fake-1"]["exp9"]["cfr_by_paradigm"]
    rows = []
    for paradigm in ("P1", "P2", "P3"):
        for condition in ("C1", "C2", "C3", "C4"):
            got = by[paradigm][condition]
            if paradigm == "P3" and condition == "C4":
                assert got == {"value": None, "n": 0}  # not run
                continue
            rows.append((f"{paradigm} {condition}", expected_cfr(paradigm, condition), got))
    with capsys.disabled():
        print("\ncell      policy   recovered  CI")
        for label, expected, got in rows:
            print(f"{label:<8} {expected:>7.3f}   {got['value']:>8.3f}  [{ci_of(got)[0]:.3f}, {ci_of(got)[1]:.3f}]  n={got['n']}")
    assert all(within(got, expected) for _, expected, got in rows), rows
    assert all(got["n"] == N_TASKS for label, _, got in rows if label.startswith("P3"))


def test_c4_tradeoff_recovers_the_policy(run, capsys):
    _, scores = run
    t = scores["models"]["acme/fake-1"]["exp9"]["c4_tradeoff"]
    # every weak C4 part is routed; its C1 counterpart is graded unless deferred (P(defer) = 0.2 * 0.5)
    # and then wrong with probability 1 - Q_WEAK, whatever it decided
    expected = {
        "escalation_rate": 1.0,
        "correct_escalation_rate": 1 - Q_WEAK,
        "false_escalation_rate": Q_WEAK,
        "failures_prevented_per_100": 100 * (1 - Q_WEAK),
        "successes_blocked_per_100": 100 * Q_WEAK,
        "net_utility_per_100": 100 * (1 - 2 * Q_WEAK),
    }
    with capsys.disabled():
        for name, value in expected.items():
            print(f"{name:<28} policy {value:>7.2f}  recovered {t[name]['value']:>7.2f}  CI {ci_of(t[name])}  n={t[name]['n']}")
    assert all(within(t[name], value) for name, value in expected.items())
    assert t["escalation_rate"]["n"] == 2 * N_TASKS  # weak slot b in P1 and P2
    resolver = scores["models"]["acme/fake-1"]["exp9"]["resolver"]
    assert resolver["1.0"]["autonomy"]["value"] == pytest.approx(0.5)  # slot a autonomous, slot b routed


def test_false_score_control_recovers_the_verdict(run):
    _, scores = run
    control = scores["models"]["acme/fake-1"]["exp9"]["false_score_control"]
    assert within(control["real"], ESCALATE_WEAK["scores"]) and within(control["false"], ESCALATE_WEAK["told_strong"])
    assert within(control["difference"], ESCALATE_WEAK["told_strong"] - ESCALATE_WEAK["scores"])
    assert control["verdict"] == "C"  # defers less when its weak domain is told strong
    # the control never enters CFR: C2 in P1 is the real-score policy's value
    assert within(scores["models"]["acme/fake-1"]["exp9"]["cfr_by_paradigm"]["P1"]["C2"], expected_cfr("P1", "C2"))


def test_per_paradigm_frames_agree_with_the_aggregate(run):
    _, scores = run
    e9 = scores["models"]["acme/fake-1"]["exp9"]
    for condition in ("C1", "C2", "C3", "C4"):
        p1, p2 = e9["cfr_by_paradigm"]["P1"][condition], e9["cfr_by_paradigm"]["P2"][condition]
        pooled = e9["cfr"][condition]
        assert pooled["n"] == p1["n"] + p2["n"]
        assert pooled["value"] == pytest.approx((p1["value"] * p1["n"] + p2["value"] * p2["n"]) / pooled["n"])
        assert e9["escalation_fixed_p1p2"][condition]["value"] == pytest.approx(pooled["value"])  # every task is fixed here
        curve = scores["aggregate"]["escalation_by_paradigm"]["P1"][condition]
        assert curve["value"] == pytest.approx(p1["value"]) and curve["n"] == 1  # one model: its own value
    assert "C4" not in scores["aggregate"]["escalation_by_paradigm"]["P3"]


def test_plan_options_for_the_control_and_the_resolver(dataset):
    from mirror_hf.experiments import get
    from mirror_hf.runner.plan import PlanError, PlanOptions, build_plan

    with pytest.raises(PlanError, match="--resolver-accuracy must be 'oracle' or a number in"):
        build_plan(dataset, PlanOptions(resolver=1.5, split="nobody"), get("exp9"))
    with pytest.raises(PlanError, match="--resolver-accuracy must be 'oracle' or a number in"):  # typed: never text
        build_plan(dataset, PlanOptions(resolver="0.8", split="nobody"), get("exp9"))  # type: ignore[arg-type]
    with pytest.raises(PlanError, match="--false-score-control needs the model's Exp1 profile"):
        build_plan(dataset, PlanOptions(conditions=("C1",), false_score_control=True, split="nobody"), get("exp9"))
    with pytest.raises(PlanError, match="--decisions must be paper, tags or upstream"):
        build_plan(dataset, PlanOptions(decisions="loose", split="nobody"), get("exp9"))
    plan = build_plan(dataset, PlanOptions(conditions=("C1",), decisions="tags", resolver=0.8, split="nobody"), get("exp9"))
    assert plan.recipe.decisions == "tags" and plan.recipe.resolver == 0.8
    assert not any(job.fields["is_false_score_control"] for job in plan.jobs)
