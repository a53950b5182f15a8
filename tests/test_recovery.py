"""Recovery: a reference respondent with a planted profile answers the real prompts over HTTP, the
real CLI runs, profiles and scores it, and every headline number's CI must contain the value the
profile plants (derived analytically in tests/fakes/planted.py). This is the check that found the
matcher accepting distractors and rejecting repeated full-text golds: a bug anywhere between the
prompt and the score moves a number away from its planted value.

Headlines checked: natural and wagering accuracy, Mirror gap, ECE, Brier, MCI (Exp1, all five
behavioural channels); TII paper and upstream (Exp2); CCE paper, upstream and balanced (Exp3); AI
and SAR on each of the four format channels (Exp4); ARS (Exp5); SSR (Exp6a); value robustness
(VRS) with capability robustness, compliance and pressure-detection rates (Exp6c; the plain shares
the score gives without an interval get Wilson's); CFR per condition, per paradigm and condition,
UDR, KDI and the C4 trade-off (Exp9); FDR and its false-positive rate under both protocols (Exp6b,
with the authors' bank). Several of them (MCI,
TII, ARS) are deterministic for this respondent — its signals are functions of the domain — so the
measured value sits on the planted one, which a parsing slip moves.

About 35 intervals are checked at once, so each 95% interval is widened to the Bonferroni level of
the family (`family_factor`, x1.6): the whole check then raises a false alarm in at most 5% of seeds
instead of most of them. The printed table shows the score's own 95% CI beside it.

The default run uses a reduced design (Exp1 on 20 items per domain, small limits elsewhere) and
checks Exp6a and Exp6c in process (the package's builders, parsers and metrics on the respondent's
replies, no runner: each CLI run costs ~5 s of start-up); `-m slow` runs the full folder, every
experiment end to end. Three tests break the instrument on purpose and show the check failing:
a matcher that accepts any answer, a wagering parser that swaps the BET and ANSWER fields, and an
Exp4 reader that swaps the related and unrelated task of Phase C.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from contextlib import contextmanager
from pathlib import Path

import polars as pl
import pytest

from tests.runner_fixtures import cli, read_split

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE / "fakes"))

import planted as P  # noqa: E402
from respondent import Profile  # noqa: E402

PROFILE = {
    "seed": int(os.environ.get("MIRROR_RECOVERY_SEED", "3")),
    "natural": {"arithmetic": 0.9, "spatial": 0.25, "temporal": 0.85, "linguistic": 0.9,
                "logical": 0.3, "social": 0.85, "factual": 0.9, "procedural": 0.2},
    "wagering": {"arithmetic": 0.95, "spatial": 0.45, "temporal": 0.9, "linguistic": 0.95,
                 "logical": 0.5, "social": 0.9, "factual": 0.95, "procedural": 0.4},
    "bet": {"policy": "overconfident", "shift": 0.3},
    "exp9": {"weak": {"C1": {"proceed": 0.9, "use_tool": 0.05, "defer": 0.05},
                      "C2": {"proceed": 0.8, "use_tool": 0.1, "defer": 0.1},
                      "C3": {"proceed": 0.4, "use_tool": 0.3, "defer": 0.3}},
             "strong": {"C1": {"proceed": 0.8, "use_tool": 0.15, "defer": 0.05}}},
    "composite": {"policy": "min", "shift": 0.1},
    "pressure": {"authority": 2, "social": 1, "easy": 1, "hard": -2},
    "flaws": {"detect": 0.7, "false_alarm": 0.15},
    "feedback": {"true": 0.8, "false": 0.3, "drop": 3},
    "self_rating": {"primed_positive": {"rate": 0.8, "shift": 12}, "primed_negative": {"rate": 0.7, "shift": -20},
                    "neutral_difficulty": {"rate": 0.6, "shift": -15}},
    "robustness": {"capability": {"authority_override": 0.9, "social_pressure": 0.8, "framing_manipulation": 0.7,
                                  "incremental_escalation": 0.6},
                   "value": {"authority_override": 0.7, "social_pressure": 0.5, "framing_manipulation": 0.6,
                             "incremental_escalation": 0.3},
                   "detect": {"capability": 0.6, "value": 0.8}},
    "messy": 0.3,
    "malformed": 0.02,
}
EXP1_CHANNELS = "wagering,natural,opt_out,tool_delegation,difficulty_selection"
#: requests are cheap beside each CLI run's fixed start-up (~5 s), so Exp4 is sized for its intervals
#: (8 templates per burn domain x 2 feedback conditions); Exp6a and Exp6c run end to end in the full
#: (slow) test, in process in the default one (`test_self_rating_and_pressure_are_recovered`)
REDUCED = {"exp1": 160, "exp2": 48, "exp3": 24, "exp4": 64, "exp5": 16, "exp9": 40}
FULL = dict.fromkeys([*REDUCED, "exp6a", "exp6c"])


@contextmanager
def respondent(folder: Path, profile: dict, tmp_path: Path, *, env: dict | None = None):
    path = tmp_path / "profile.json"
    path.write_text(json.dumps(profile))
    proc = subprocess.Popen(
        [sys.executable, str(HERE / "fakes" / "respondent.py"), "--dataset", str(folder), "--profile", str(path)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env={**os.environ, **(env or {})},
    )
    line = proc.stdout.readline()
    if not line.startswith("PORT "):
        proc.kill()
        raise RuntimeError(f"respondent did not start: {line!r} {proc.stderr.read()[-2000:]}")
    try:
        yield f"http://127.0.0.1:{int(line.split()[1])}/v1"
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def run_pipeline(folder: Path, base_url: str, limits: dict[str, int | None], *, channels: str = EXP1_CHANNELS,
                 variants: tuple[str, ...] = ("paper", "upstream")) -> dict:
    """Run each experiment in `limits` (None: every item) through the real CLI, Exp1 and the profile
    first; score under each variant. Returns {"paper": score, "upstream": score}."""
    env = {"OPENAI_API_KEY": "local-test-key"}
    common = ["--model", "planted", "--base-url", base_url, "--dataset", str(folder), "--concurrency", "16"]

    def run(experiment: str, *extra: str) -> None:
        limit = limits[experiment]
        cli("run", "--experiment", experiment, *common, *(["--limit", str(limit)] if limit else []), *extra, env=env)

    run("exp1", "--channels", channels)
    if set(limits) & {"exp5", "exp9"}:  # the experiments whose plan reads the model's Exp1 profile
        cli("profile", "--dataset", str(folder), "--model", "planted", env=env)
    for experiment in ("exp2", "exp3", "exp4", "exp5", "exp6a", "exp6c", "exp9"):
        if experiment in limits:
            run(experiment, *(["--channels", EXP1_CHANNELS] if experiment == "exp2" else []))
    scores = {}
    for variant in variants:
        out = folder.parent / f"score-{variant}.json"
        cli("score", "--dataset", str(folder), "--variant", variant, "--resamples", "2000", "--json", str(out), env=env)
        scores[variant] = json.loads(out.read_text())["models"]["planted"]
    return scores


def exp9_components(folder: Path) -> list[dict]:
    exp9 = read_split(folder, "trials_exp9", "planted")
    return [
        {
            "task_id": row["item_id"],
            "slot": slot,
            "condition": row["condition"],
            "paradigm": row["paradigm"],
            "domain": row[f"domain_{slot}"],
            "strength": row[f"strength_{slot}"],
            "routed": bool(row[f"component_{slot}_externally_routed"]),
        }
        for row in exp9.filter(~pl.col("is_false_score_control").fill_null(False)).iter_rows(named=True)
        for slot in ("a", "b")
    ]


def planted_values(folder: Path, profile: Profile, scores: dict) -> dict[str, float]:
    """Every headline the run produced, planted: from the profile and the run's design (which items
    were asked where, which components are weak or routed). Three metrics are defined against an
    Exp1 reading, taken as the design input they are: TII and the balanced CCE against the measured
    natural accuracy per domain, KDI against the measured Mirror gap (its interval holds it fixed)."""
    exp1 = read_split(folder, "trials_exp1", "planted")
    natural = exp1.filter(pl.col("channel") == "natural")
    wager = exp1.filter(pl.col("channel") == "wagering").select("item_id", "domain").rows()
    values = P.exp1_values(profile, natural["domain"].to_list(), wager)
    channels = set(exp1["channel"].unique().to_list())
    if len(channels) > 2:
        values["mci"] = P.mci_value(profile, exp1.select("item_id", "channel", "domain").rows())
    accuracy = dict(natural.group_by("domain").agg(pl.col("correct").cast(pl.Float64).mean()).rows())
    trials = {name: read_split(folder, f"trials_{name}", "planted") for name in ("exp2", "exp3", "exp4", "exp5", "exp6a", "exp6c")
              if (folder / "data" / f"trials_{name}").is_dir()}
    if "exp2" in trials:
        values.update(P.tii_values(profile, trials["exp2"].select("item_id", "channel", "source_domain").rows(), accuracy))
    if "exp3" in trials:
        from mirror_hf.scoring import weak_domains

        tasks = trials["exp3"].filter(pl.col("target") == "composite").unique("item_id").select("domain_a", "domain_b")
        values.update(P.cce_values(profile, tasks.to_dicts(), weak_domains(accuracy, k=2)))
    if "exp5" in trials:
        attacked = trials["exp5"].filter(pl.col("attack").is_not_null())
        values["ars"] = P.ars_value(profile, attacked.select("item_id", "attack", "channel", "domain").rows())
    if "exp4" in trials:
        values.update(P.exp4_values(profile, trials["exp4"].select("feedback", "domain", "control_domain").rows()))
    if "exp6a" in trials:
        values["ssr"] = P.ssr_value(profile, trials["exp6a"].unique("item_id").select("item_id", "domain").rows())
    if "exp6c" in trials:
        values.update(P.vrs_values(profile, trials["exp6c"].select("item_id", "attack", "channel").rows()))
    if (folder / "data" / "trials_exp9").is_dir():
        components = exp9_components(folder)
        escalation = [c for c in components if c["paradigm"] in ("P1", "P2")]
        values.update({f"cfr_{c}": v for c, v in P.cfr_values(profile, escalation).items()})
        values.update(P.cfr_by_paradigm_values(profile, components))
        values["udr"] = P.udr_value(profile, components)
        values["kdi"] = P.kdi_value(profile, components, scores["paper"]["exp1"]["mirror_gap"]["value"])
        if any(c["condition"] == "C4" for c in components):
            values.update(P.c4_tradeoff_values(profile, components))
    return values


def measured(scores: dict) -> dict[str, dict]:
    """The same names, read from `score --json` (paper variant; the upstream CCE from the upstream one)."""
    model, upstream = scores["paper"], scores.get("upstream", {})
    out = {name: model["exp1"][name] for name in ("natural_accuracy", "wagering_accuracy", "mirror_gap", "ece", "brier", "mci")
           if name in model.get("exp1", {})}
    if "exp2" in model:
        out.update(tii_paper=model["exp2"]["tii_paper"], tii_upstream=model["exp2"]["tii_upstream"])
    if "exp3" in model:
        out.update(cce_paper=model["exp3"]["cce"], cce_balanced=model["exp3"]["cce_balanced"], cce_upstream=upstream["exp3"]["cce"])
    if "exp5" in model:
        out["ars"] = model["exp5"]["ars"]
    if "exp4" in model:
        out.update({f"ai_{c}": by["paper"] for c, by in model["exp4"]["ai_by_channel"].items()})
        out.update({f"sar_{c}": v for c, v in model["exp4"]["sar_by_channel"].items()})
    if "exp6a" in model:
        out["ssr"] = model["exp6a"]["ssr"]
    if "exp6c" in model:
        vrs = model["exp6c"]["vrs"]
        out["vrs"] = vrs
        # the other Exp6c measures are plain shares the score gives without an interval: Wilson's
        for name, n in (("capability_robustness", vrs["capability_n"]), ("compliance_rate", vrs["n"]),
                        ("pressure_detection_capability", vrs["capability_n"]), ("pressure_detection_value", vrs["n"])):
            out[f"vrs_{name}"] = wilson(vrs[name], n)
    if "exp9" in model:
        exp9 = model["exp9"]
        out.update({f"cfr_{c}": v for c, v in exp9["cfr"].items()})
        out.update({f"cfr_{p}_{c}": v for p, by in exp9["cfr_by_paradigm"].items() for c, v in by.items() if v["n"]})
        out.update(udr=exp9["udr"], kdi=exp9["kdi"])
        out.update({f"c4_{k}": v for k, v in exp9.get("c4_tradeoff", {}).items()})
    return out


def wilson(share: float, n: int, level: float = 0.95) -> dict:
    """A share of n with its Wilson score interval, in the score's {"value", "ci"} shape."""
    from scipy.stats import norm

    z = float(norm.ppf(1 - (1 - level) / 2))
    centre = (share + z * z / (2 * n)) / (1 + z * z / n)
    half = z * (share * (1 - share) / n + z * z / (4 * n * n)) ** 0.5 / (1 + z * z / n)
    return {"value": share, "ci": [centre - half, centre + half]}


def family_factor(k: int, level: float = 0.95) -> float:
    """How much to widen each of k 95% intervals checked at once so that the whole check has a false
    alarm rate of at most 5% (Bonferroni): z(1 - 0.05 / 2k) / z(0.975). With ~35 headlines one 95%
    interval would miss by chance in most runs; the score's own 95% intervals stay as they are."""
    from scipy.stats import norm

    alpha = 1 - level
    return float(norm.ppf(1 - alpha / (2 * k)) / norm.ppf(1 - alpha / 2))


def misses(planted: dict[str, float], got: dict[str, dict]) -> list[str]:
    """Metrics whose interval, widened for the family (`family_factor`), does not contain the planted
    value (printed side by side with the score's own 95% CI either way); a planted metric the score
    lacks is a miss too."""
    bad = []
    factor = family_factor(len(planted))
    print(f"\n{'metric':<32} {'planted':>8} {'measured':>9}   95% CI  (checked widened x{factor:.2f}, {len(planted)} at once)")
    for name, want in planted.items():
        est = got.get(name)
        if est is not None and est.get("ci") is None and est.get("ci_note", "").startswith("no spread"):
            est = {**est, "ci": [est["value"], est["value"]]}  # every resample the same (issue 29: not reported as [x, x])
        if est is None or est.get("ci") is None or est["ci"][0] is None:
            print(f"{name:<32} {want:8.4f}   (not in the score)  MISS")
            bad.append(name)
            continue
        value, (lo, hi) = est["value"], est["ci"]
        inside = value - factor * (value - lo) - 1e-9 <= want <= value + factor * (hi - value) + 1e-9
        plain = "" if lo - 1e-9 <= want <= hi + 1e-9 else " (outside the 95% CI)"
        print(f"{name:<32} {want:8.4f} {value:9.4f}   [{lo:.4f}, {hi:.4f}] {'ok' if inside else 'MISS'}{plain}")
        if not inside:
            bad.append(name)
    return bad


def recovery_misses(folder: Path, scores: dict) -> list[str]:
    return misses(planted_values(folder, Profile.from_json(PROFILE), scores), measured(scores))


def test_every_headline_is_recovered(dataset, tmp_path):
    with respondent(dataset, PROFILE, tmp_path) as url:
        scores = run_pipeline(dataset, url, REDUCED)
    planted = planted_values(dataset, Profile.from_json(PROFILE), scores)
    expected = {"mci", "tii_paper", "tii_upstream", "cce_paper", "cce_upstream", "cce_balanced", "ars", "udr", "kdi",
                "cfr_P1_C1", "cfr_P2_C3", "cfr_P3_C1", "c4_net_utility_per_100", "cfr_C4", "ai_wagering", "sar_wagering",
                "ai_natural", "sar_opt_out"}
    assert expected <= set(planted), sorted(expected - set(planted))
    assert misses(planted, measured(scores)) == []


@pytest.mark.slow
def test_every_headline_is_recovered_full(dataset, tmp_path):
    with respondent(dataset, PROFILE, tmp_path) as url:
        scores = run_pipeline(dataset, url, FULL)
    assert recovery_misses(dataset, scores) == []


def test_self_rating_and_pressure_are_recovered(dataset):
    """Exp6a (SSR over every task, the four prompts) and Exp6c (value robustness and its shares over
    every pair), in process: the package's builders, parsers and metric functions on the
    respondent's replies (tests/fakes/conversations.py); the runner's part is the full test's."""
    from conversations import exp6a_ratings, exp6c_reports
    from respondent import Bank, Respondent

    from mirror_hf import scoring as S

    profile = Profile.from_json(PROFILE)
    model = Respondent(Bank(dataset), profile)
    ci = S.Bootstrap(n_resamples=2000, seed=0)
    rated, told = exp6a_ratings(model, dataset), exp6c_reports(model, dataset)
    ssr = S.ssr(rated["task_id"], rated["prompt"], rated["score"], ci=ci)
    vrs = S.vrs(told["variant"], told["maintained"], told["pressure_detected"], told["complied"], told["attack"], ci=ci)
    planted = {"ssr": P.ssr_value(profile, rated["tasks"]), **P.vrs_values(profile, told["asked"])}
    got = {"ssr": {"value": ssr.value, "ci": list(ssr.ci)}, "vrs": {"value": vrs.value, "ci": list(vrs.ci)}}
    for name, n in (("capability_robustness", vrs.extra["capability_n"]), ("compliance_rate", vrs.n),
                    ("pressure_detection_capability", vrs.extra["capability_n"]), ("pressure_detection_value", vrs.n)):
        got[f"vrs_{name}"] = wilson(vrs.extra[name], n)
    assert misses(planted, got) == []


def test_flaw_flags_are_recovered(dataset, upstream_dir, tmp_path):
    """Exp6b on the authors' bank (both protocols): FDR and the controls' false-positive rate."""
    files = [upstream_dir / "data" / "exp6" / name for name in ("6b_flawed_new.json", "6b_controls_new.json")]
    cli("import-upstream", *map(str, files), "--out", str(dataset), "--quiet")
    env = {"OPENAI_API_KEY": "local-test-key"}
    with respondent(dataset, PROFILE, tmp_path) as url:
        cli("run", "--experiment", "exp6b", "--channels", "label,keyword", "--bank", "upstream_exp6b", "--limit", "120",
            "--model", "planted",
            "--base-url", url, "--dataset", str(dataset), "--concurrency", "16", env=env)
    out = tmp_path / "score.json"
    cli("score", "--dataset", str(dataset), "--resamples", "2000", "--json", str(out), env=env)
    exp6b = json.loads(out.read_text())["models"]["planted"]["exp6b"]
    want = P.fdr_values(Profile.from_json(PROFILE))
    got = {}
    for key in ("fdr", "fdr_keyword"):
        got[key] = exp6b[key]
        got[f"{key}_false_positive_rate"] = {"value": exp6b[key]["false_positive_rate"], "ci": exp6b[key]["false_positive_rate_ci"]}
    planted = {"fdr": want["fdr"], "fdr_keyword": want["fdr"], "fdr_false_positive_rate": want["fdr_false_positive_rate"],
               "fdr_keyword_false_positive_rate": want["fdr_false_positive_rate"]}
    assert misses(planted, got) == []


@contextmanager
def patched(tmp_path: Path, source: str):
    """The package with `source` run first (a sitecustomize on PYTHONPATH, so the CLI subprocesses and
    nothing else see it)."""
    patch = tmp_path / "patch"
    patch.mkdir()
    (patch / "sitecustomize.py").write_text(source)
    old = dict(os.environ)
    os.environ["PYTHONPATH"] = os.pathsep.join([str(patch), os.environ.get("PYTHONPATH", "")])
    try:
        yield
    finally:
        os.environ.clear()
        os.environ.update(old)


BROKEN = {"exp1": 240}  # the accuracies alone show it; Exp9 would add minutes, not evidence


def test_a_broken_matcher_fails_the_recovery(dataset, tmp_path):
    """The same check with a matcher patched to accept every answer: wrong answers now grade right,
    accuracies drift above their planted values and the check reports it."""
    source = (
        "import mirror_hf.protocol.matching as m\n"
        "_orig = m.match\n"
        "def match(*args, **kwargs):\n"
        "    result = _orig(*args, **kwargs)\n"
        "    return True if result is False else result\n"
        "m.match = match\n"
        "import mirror_hf.protocol.exp1 as e1, mirror_hf.protocol.exp9 as e9\n"
        "e1.match = match\n"
        "e9.match = match\n"
    )
    with patched(tmp_path, source), respondent(dataset, PROFILE, tmp_path) as url:
        scores = run_pipeline(dataset, url, BROKEN, channels="wagering,natural", variants=("paper",))
    bad = recovery_misses(dataset, scores)
    assert {"natural_accuracy", "wagering_accuracy"} <= set(bad)


SWAP_BET_AND_ANSWER = r"""
import dataclasses
import re

import mirror_hf.protocol.exp1 as e1

_orig = e1.parse_wagering
_SWAP = {"answer": "BET", "bet": "ANSWER"}


def parse_wagering(text, **kwargs):
    if text:
        text = re.sub(r"(?im)^(\W*)(answer|bet)(\W*:)", lambda m: m.group(1) + _SWAP[m.group(2).lower()] + m.group(3), text)
    return _orig(text, **kwargs)


e1.parse_wagering = parse_wagering
e1.register_channel(dataclasses.replace(e1.channel("wagering"), parse=parse_wagering), replace=True)
"""


def test_a_parser_swapping_bet_and_answer_fails_the_recovery(dataset, tmp_path):
    """A wagering parser that reads the BET line as the answer and the ANSWER line as the bet (the
    fields swapped in a patched copy of the parse): the bet is then the answer's text, a number of
    1-10 only by accident, and the answer a digit, so wagering accuracy collapses and the
    calibration numbers move; the check must report it."""
    source = SWAP_BET_AND_ANSWER
    with patched(tmp_path, source), respondent(dataset, PROFILE, tmp_path) as url:
        scores = run_pipeline(dataset, url, {"exp1": 120}, channels="wagering,natural", variants=("paper",))
    bad = recovery_misses(dataset, scores)
    assert {"wagering_accuracy", "ece", "brier"} & set(bad), bad
    assert "natural_accuracy" not in bad  # only the wagering parse was broken


def test_an_exp4_reader_swapping_the_tasks_fails_the_recovery(dataset, monkeypatch):
    """Phase C read with TASK 1 and TASK 2 swapped (the related item's formats taken for the
    unrelated one's): every adaptation index changes sign (planted AI on the wager channel -2.4 bet
    points) and the check must report it, while the same conversations read correctly recover every
    AI. In process (the package's Exp4 builders, readers and `ai`, tests/fakes/conversations.py):
    the end-to-end run above already covers the runner, and a CLI run would cost ~10x the time."""
    from conversations import exp4_conversations
    from respondent import Bank, Respondent

    from mirror_hf import scoring as S
    from mirror_hf.protocol import exp4

    profile = Profile.from_json(PROFILE)
    bank = Bank(dataset)

    def recovery() -> list[str]:
        talks = exp4_conversations(Respondent(bank, profile), dataset, per_domain=8)
        planted = P.exp4_values(profile, [(t["feedback"], t["domain"], t["control_domain"]) for t in talks])
        planted = {k: v for k, v in planted.items() if k.startswith("ai_")}
        talks = [t for t in talks if t["feedback"] == "true"]  # AI is the true-feedback condition's
        got = {}
        for channel in exp4.CHANNELS:
            est = S.ai([t["domain"] for t in talks], [t["signals"][channel][0] for t in talks],
                       [t["signals"][channel][1] for t in talks], ci=S.Bootstrap(n_resamples=1000, seed=0))
            got[f"ai_{channel}"] = {"value": est.value, "ci": list(est.ci)}
        return misses(planted, got)

    assert recovery() == []
    original = exp4.task_sections

    def swapped(text: str, tasks: int) -> dict[int, str]:
        out = original(text, tasks)
        return {1: out[2], 2: out[1]} if tasks == 2 and {1, 2} <= set(out) else out

    monkeypatch.setattr(exp4, "task_sections", swapped)
    assert set(recovery()) == {"ai_wagering", "ai_opt_out", "ai_tool_delegation", "ai_natural"}


def test_exp4_draws_reproduce_another_seeds_text_run(dataset):
    """The coverage study's fast Exp4 path (`benchmarks/recovery.py --exp4-draws`): the draws laid out
    by one seed's text run give another seed's wager bets and conditions exactly as that seed's own
    text run reads them (the Phase-C keys carry no seed), including its unreadable bets."""
    from conversations import exp4_conversations, exp4_draws
    from respondent import Bank, Respondent

    bank = Bank(dataset)
    base = Profile.from_json({**PROFILE, "seed": 11})
    layout = Respondent(bank, base)
    laid = exp4_conversations(layout, dataset, per_domain=8)
    for seed in (11, 12):
        profile = Profile.from_json({**PROFILE, "seed": seed})
        text = exp4_conversations(Respondent(bank, profile), dataset, per_domain=8)
        drawn = exp4_draws(profile, layout, laid)
        assert [(t["feedback"], t["domain"], t["signals"]["wagering"]) for t in text] == \
            [(d["feedback"], d["domain"], d["signals"]["wagering"]) for d in drawn]
    assert len({t["signals"]["wagering"] for t in text}) > 2  # updated, not updated, unreadable differ
