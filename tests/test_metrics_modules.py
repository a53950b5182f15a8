"""The `evaluate` modules in metrics/: copied beside the data as `mirror-hf build` does, loaded
offline with `evaluate.load("<folder>/<name>")`, agreeing with `mirror_hf.scoring` on random inputs,
refusing wrong input types with evaluate's format error, and each carrying a metric card."""

from __future__ import annotations

import math
import re
from pathlib import Path

import numpy as np
import pytest

from mirror_hf import scoring as S
from mirror_hf.build import copy_metric_modules

REPO = Path(__file__).resolve().parents[1]
MODULES = (
    "ai", "ars", "auroc", "aurc", "brier", "c4_tradeoff", "cce", "cfr", "ece", "escalation", "fdr", "kdi", "log_score", "mci",
    "mirror_gap", "prr", "sar", "ssr", "tii", "udr", "vrs",
)
CARD_SECTIONS = ("## Formula", "## Inputs", "## Variants", "## Range", "## Interpretation", "## Citation")


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("built") / "mirror"
    folder.mkdir()
    names = copy_metric_modules(folder)
    assert set(MODULES) <= set(names)
    return folder


@pytest.fixture(scope="module")
def load(built):
    import evaluate

    cache = {}

    def get(name):
        if name not in cache:
            cache[name] = evaluate.load(str(built / name))
        return cache[name]

    return get


def same(a, b):
    return (math.isnan(a) and math.isnan(b)) or a == pytest.approx(b, abs=1e-12)


def random_components(rng, n):
    strength = rng.choice(["weak", "strong", "medium"], n).tolist()
    decision = [None if rng.random() < 0.05 else d for d in rng.choice(["proceed", "use_tool", "defer"], n)]
    correct = [None if rng.random() < 0.05 else bool(c) for c in rng.random(n) < 0.5]
    return {
        "strength": strength,
        "decision": decision,
        "correct": correct,
        "condition": rng.choice(["C1", "C2", "C3", "C4"], n).tolist(),
        "paradigm": rng.choice(["P1", "P2", "P3"], n).tolist(),
        "task_type": rng.choice(["fixed", "tailored"], n).tolist(),
        "api_success": (rng.random(n) > 0.1).tolist(),
        "externally_routed": (rng.random(n) < 0.05).tolist(),
    }


@pytest.mark.parametrize("seed", [0, 1])
def test_modules_agree_with_scoring_functions(load, seed):
    rng = np.random.default_rng(seed)
    n = 200
    conf = np.round(rng.random(n), 2).tolist()
    correct = (rng.random(n) < np.array(conf)).tolist()
    for name, fn in (("ece", S.ece), ("brier", S.brier), ("log_score", S.log_score), ("auroc", S.auroc), ("aurc", S.aurc),
                     ("prr", S.prr)):
        got = load(name).compute(confidence=conf, correct=correct)
        assert same(got[name], fn(conf, correct).value) and got["n"] == n

    comps = random_components(rng, n)
    frame = S.components_frame(**comps)
    by = load("cfr").compute(**comps, frame="by_paradigm")
    for paradigm, value in by["by_paradigm"].items():
        assert same(value["cfr"], S.cfr(frame, frame=f"paradigm_{paradigm}").value)
        for condition, cell in value["by_condition"].items():
            assert same(cell["cfr"], S.cfr_by_paradigm(frame)[paradigm][condition].value)
    rows = {**comps, "model": ["m"] * n, "task_id": [f"t{i % 50}" for i in range(n)], "slot": rng.choice(["a", "b"], n).tolist()}
    got = load("c4_tradeoff").compute(**rows)
    expected = S.c4_tradeoff(S.components_frame(**rows))
    assert all(same(got[k]["value"], e.value) and got[k]["n"] == e.n for k, e in expected.items())
    got = load("cfr").compute(**comps, frame="escalation")
    assert same(got["cfr"], S.cfr(frame, frame="escalation").value)
    for condition, value in got["by_condition"].items():
        assert same(value["cfr"], S.cfr(frame, frame="escalation", condition=condition).value)
    got = load("cfr").compute(**comps, frame="table", condition_filter="C1", missing="missing_incorrect")
    assert same(got["cfr"], S.cfr(frame, frame="table", condition="C1", missing="missing_incorrect").value)
    got = load("udr").compute(**comps)
    assert same(got["udr"], S.udr(frame).value)

    domains = rng.choice(["a", "b", "c"], n).tolist()
    gaps = {"a": 0.1, "b": 0.3, "c": 0.2}
    kdi_frame = S.components_frame(**comps, domain=domains, mirror_gap=[gaps[d] for d in domains])
    for variant in ("paper", "upstream"):
        got = load("kdi").compute(**comps, domain=domains, mirror_gap=[gaps[d] for d in domains], variant=variant)
        assert same(got["kdi"], S.kdi(kdi_frame, variant=variant).value)

    nat = [None if rng.random() < 0.1 else bool(x) for x in rng.random(n) < 0.5]
    wag = [None if rng.random() < 0.1 else bool(x) for x in rng.random(n) < 0.7]
    got = load("mirror_gap").compute(domain=domains, natural_correct=nat, wagering_correct=wag)
    assert same(got["mirror_gap"], S.mirror_gap(domains, nat, wag).value)
    assert set(got["by_domain"]) == {"a", "b", "c"}

    items = [f"q{i}" for i in range(n)]
    channels = ["wagering"] * n + ["natural"] * n + ["opt_out"] * n
    signal = rng.integers(1, 11, n).tolist() + np.round(rng.random(n), 1).tolist() + rng.integers(0, 2, n).astype(float).tolist()
    got = load("mci").compute(item_id=items * 3, channel=channels, signal=signal)
    assert same(got["mci"], S.mci(items * 3, channels, signal).value)

    source = [round(float(x), 2) for x in rng.random(n)]
    for variant in ("paper", "upstream"):
        got = load("tii").compute(item_id=items * 3, channel=channels, signal=signal, source_accuracy=source * 3, variant=variant)
        assert same(got["tii"], S.tii(items * 3, channels, signal, source * 3, variant=variant).value)

    comp_conf = np.round(rng.random(n), 2).tolist()
    comp_correct = (rng.random(n) < 0.5).tolist()
    dom_b = rng.choice(["a", "b", "c"], n).tolist()
    kwargs = dict(confidence=conf, correct=correct, component_confidence=comp_conf, component_correct=comp_correct, domain_a=domains, domain_b=dom_b)
    for variant in ("paper", "upstream", "balanced"):
        extra = {"weak_domains": ["a"]} if variant == "balanced" else {}
        got = load("cce").compute(**kwargs, variant=variant, **extra)
        want = S.cce(conf, correct, component_confidence=comp_conf, component_correct=comp_correct, domain_a=domains, domain_b=dom_b, variant=variant, **({"weak_domains": {"a"}} if extra else {}))
        assert same(got["cce"], want.value)

    models = [f"m{i}" for i in range(8)]
    per_model = {m: {c: float(rng.random()) for c in ("C1", "C2", "C3", "C4")} for m in models}
    rows = [(m, c, v) for m, cs in per_model.items() for c, v in cs.items()]
    got = load("escalation").compute(model=[r[0] for r in rows], condition=[r[1] for r in rows], cfr=[r[2] for r in rows], n_resamples=500)
    curve = S.escalation_curve(per_model, ci=S.Bootstrap(n_resamples=500))
    assert same(got["C1"]["value"], curve["C1"].value) and got["C1"]["ci"] == pytest.approx(list(curve["C1"].ci))
    assert same(got["d_z"]["C3_C4"]["value"], curve["d_z"]["C3_C4"].d_z)


def test_module_ci_matches_function_ci(load):
    rng = np.random.default_rng(9)
    conf = np.round(rng.random(80), 1).tolist()
    correct = (rng.random(80) < 0.5).tolist()
    got = load("brier").compute(confidence=conf, correct=correct, ci=True, n_resamples=1000, seed=3)
    want = S.brier(conf, correct, ci=S.Bootstrap(n_resamples=1000, seed=3))
    assert got["ci"] == pytest.approx(list(want.ci))


@pytest.mark.parametrize(
    "name, inputs, column",
    [
        ("ece", {"confidence": ["high", "low"], "correct": [True, False]}, "confidence"),
        ("brier", {"confidence": [0.5, 0.5], "correct": ["yes", "no"]}, "correct"),
        ("brier", {"confidence": [0.5, 0.5], "correct": [0.3, 1.0]}, "correct"),
        ("mci", {"item_id": [1, 2], "channel": ["wagering", "natural"], "signal": [1.0, 0.5]}, "item_id"),
        ("cfr", {**{k: ["x", "y"] for k in ("strength", "decision", "condition", "paradigm", "task_type")}, "correct": [True, False], "api_success": [True, True], "externally_routed": ["no", "no"]}, "externally_routed"),
        ("escalation", {"model": ["m1", "m2"], "condition": ["C1", "C1"], "cfr": [True, False]}, "cfr"),
    ],
)
def test_wrong_input_types_get_evaluates_format_error(load, name, inputs, column):
    with pytest.raises(ValueError, match=r"(?s)don't match the expected format.*Input " + column):
        load(name).compute(**inputs)


def test_missing_input_and_length_mismatch(load):
    with pytest.raises(ValueError, match="inputs are missing"):
        load("ece").compute(confidence=[0.5])
    with pytest.raises(ValueError, match="Mismatch in the number"):
        load("ece").compute(confidence=[0.5, 0.2], correct=[True])


def test_out_of_range_values_are_named(load):
    with pytest.raises(ValueError, match=r"confidence: row 1 is 85.0"):
        load("ece").compute(confidence=[0.5, 85.0], correct=[True, False])


def test_module_edge_cases(load):
    got = load("cfr").compute(**{k: [] for k in ("strength", "decision", "correct", "condition", "paradigm", "task_type", "api_success", "externally_routed")})
    assert math.isnan(got["cfr"]) and got["n"] == 0
    got = load("mci").compute(item_id=["q1", "q2", "q1", "q2"], channel=["wagering"] * 2 + ["opt_out"] * 2, signal=[3.0, 7.0, 1.0, 1.0])
    assert math.isnan(got["mci"]) and got["pairs"] == {"opt_out~wagering": None}


@pytest.mark.parametrize("name", MODULES)
def test_every_module_has_a_card(name):
    card = (REPO / "metrics" / name / "README.md").read_text()
    front = re.match(r"^---\n(.*?)\n---\n", card, re.DOTALL)
    assert front, f"{name}: README.md must start with YAML front matter"
    import yaml

    meta = yaml.safe_load(front.group(1))
    assert meta["title"] and meta["description"] and "metric" in meta["tags"]
    for section in CARD_SECTIONS:
        assert section in card, f"{name}: card lacks {section}"
    assert "2604.19809" in card
    assert not (REPO / "metrics" / name / "__init__.py").exists()


def test_module_is_loadable_from_the_folder_name(built):
    # `evaluate.load("mirror/cfr")` from the folder holding `mirror/`: the documented usage
    import os

    import evaluate

    cwd = os.getcwd()
    os.chdir(built.parent)
    try:
        module = evaluate.load("mirror/cfr")
    finally:
        os.chdir(cwd)
    assert module.name == "cfr"


@pytest.mark.parametrize("name", MODULES)
def test_one_import_per_line(name):
    """evaluate's import scanner reads `import a, b` as a package named "a,"; keep one per line
    (formatters that merge imports would break loading)."""
    source = (REPO / "metrics" / name / f"{name}.py").read_text()
    merged = [line for line in source.splitlines() if re.match(r"^\s*(import|from)\s", line) and "," in line]
    assert not merged, merged


@pytest.mark.parametrize("seed", [0, 1])
def test_exp4_to_exp6_modules_agree_with_scoring_functions(load, seed):
    rng = np.random.default_rng(seed)
    n = 150
    domain = rng.choice(["arithmetic", "logical", "social"], n).tolist()
    related = [None if rng.random() < 0.1 else float(x) for x in rng.integers(1, 11, n)]
    unrelated = [None if rng.random() < 0.1 else float(x) for x in rng.integers(1, 11, n)]
    for variant in ("paper", "upstream"):
        got = load("ai").compute(domain=domain, related=related, unrelated=unrelated, variant=variant)
        want = S.ai(domain, related, unrelated, variant=variant)
        assert same(got["ai"], want.value) and got["domains"] == want.extra["domains"]
        feedback = rng.choice(["true", "false"], n).tolist()
        got = load("sar").compute(feedback=feedback, domain=domain, related=related, unrelated=unrelated, variant=variant)
        assert same(got["sar"], S.sar(feedback, domain, related, unrelated, variant=variant).value)

    attack = rng.choice(["authority_override", "framing_easy", "framing_hard"], n).tolist()
    channel = rng.choice(["wagering", "natural"], n).tolist()
    signal = [None if rng.random() < 0.1 else round(float(x), 2) for x in rng.random(n)]
    clean = [None if rng.random() < 0.2 else round(float(x), 2) for x in rng.random(n)]
    for variant in ("paper", "upstream"):
        got = load("ars").compute(attack=attack, channel=channel, signal=signal, clean_signal=clean, variant=variant)
        assert same(got["ars"], S.ars(attack, channel, signal, clean, variant=variant).value)

    prompts = ["fresh", "primed_positive", "primed_negative", "neutral_difficulty"]
    task = [f"t{i // 4}" for i in range(n)]
    prompt = [prompts[i % 4] for i in range(n)]
    score = [None if rng.random() < 0.1 else float(x) for x in rng.integers(0, 101, n)]
    for missing in ("complete", "available"):
        got = load("ssr").compute(task_id=task, prompt=prompt, score=score, missing=missing)
        assert same(got["ssr"], S.ssr(task, prompt, score, missing=missing).value)

    labels = ["BLIND_EXECUTION", "EXECUTE_WITH_CAVEAT", "UNPROMPTED_PUSHBACK", "FULL_PUSHBACK", None]
    flawed = (rng.random(n) < 0.5).tolist()
    label = [labels[i] for i in rng.integers(0, 5, n)]
    got = load("fdr").compute(flawed=flawed, label=label)
    want = S.fdr(flawed, label)
    assert same(got["fdr"], want.value) and same(got["false_positive_rate"], want.extra["false_positive_rate"])


def test_module_ci_within_domains_matches_function_ci(load):
    rng = np.random.default_rng(9)
    conf = np.round(rng.random(80), 1).tolist()
    correct = (rng.random(80) < 0.5).tolist()
    domain = [("a", "b", "c")[i % 3] for i in range(80)]
    for name, function in (("brier", S.brier), ("ece", S.ece)):
        got = load(name).compute(confidence=conf, correct=correct, domain=domain, ci=True, n_resamples=1000, seed=3)
        want = function(conf, correct, domain=domain, ci=S.Bootstrap(n_resamples=1000, seed=3))
        pooled = function(conf, correct, ci=S.Bootstrap(n_resamples=1000, seed=3))
        assert got["ci"] == pytest.approx(list(want.ci)) and want.ci != pooled.ci
        assert got[name] == pytest.approx(pooled.value)
