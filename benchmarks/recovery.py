"""Recovery and coverage study: does the instrument get back what a simulated model was built to
have, and are its 95% intervals honest?

For each seed, the reference respondent (tests/fakes/respondent.py) with a planted profile answers
the real Exp1 prompts (built by `mirror_hf.protocol.exp1`), its answers go through the real parsers
and grader, and the metric functions of `mirror_hf.scoring` compute each headline number with its
BCa interval. The planted value comes from tests/fakes/planted.py (derived from the profile, not
from the answers). Printed per metric: mean planted and measured value, and the share of seeds whose
interval contains the planted value (coverage; 93-97% is the target for 95% intervals).

In process, without HTTP, so that hundreds of seeds take minutes; the HTTP end-to-end version of
the same check is tests/test_recovery.py. `--conversations` runs, instead, Exp4 (AI and SAR on
the wager channel, every template under both feedback conditions), Exp6a (SSR, every task under the
four prompts) and Exp6c (value robustness, every pair) for one behaviour profile
(`CONVERSATION_PROFILE`), each seed drawing the respondent's answers afresh; `--exp4-draws` reads
Exp4's bets from the respondent's draws once one text run has laid the conversations out (exact; 1,600 seeds in 15 min).

    python benchmarks/recovery.py [--seeds 200] [--per-domain 50] [--resamples 2000] [--profile overconfident]
        [--rows rows.jsonl]                               # each seed's numbers as it is done
    python benchmarks/recovery.py --conversations [--seeds 200] [--parts exp4,exp6a,exp6c] [--first-seed 0]
        [--exp4-draws]                                    # Exp4 without the text round trip (checked equal on one seed)
    python benchmarks/recovery.py --signals [--seeds 200]  # Exp1's internal signals and what the wager tracks
    python benchmarks/recovery.py --from-rows rows.jsonl  # the table of (possibly partial) earlier runs

`--signals` runs the consistency channel (5 samples of the natural prompt), the logprob channel and
the wager through the real readers and grader for two sampling profiles (`SIGNAL_PROFILES`): AUROC,
AURC, risk at 80% coverage and PRR of both signals against their population values, and both
partial correlations of the wager (with correctness | consistency, with consistency | correctness).

The Monte Carlo SE of a coverage c over S seeds is sqrt(c (1 - c) / S): 1.5 points at 200 seeds, 0.9 at 600.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "tests" / "fakes"))

from conversations import exp4_conversations, exp4_draws, exp6a_ratings, exp6c_reports  # noqa: E402
from planted import (  # noqa: E402
    consistency_population,
    exp1_values,
    exp4_values,
    logprob_population,
    ssr_value,
    tracking_population,
    vrs_values,
)
from respondent import Bank, Profile, Respondent  # noqa: E402

DOMAINS = ("arithmetic", "spatial", "temporal", "linguistic", "logical", "social", "factual", "procedural")


def _by_domain(*values: float) -> dict[str, float]:
    return dict(zip(DOMAINS, values))


# Every profile plants a Mirror gap of 0.25-0.3 in each domain (>= 2.5 standard errors of one
# domain's gap at 50 items): Gap(m) is a mean of |Wag.Acc - Nat.Acc|, and near a true 0 its plug-in
# estimate is biased upwards by the |.| (E|X| > |E X|), so no interval covers a 0 or a small gap at
# the nominal rate. That is the estimator, not the pipeline, so the study plants gaps where the
# plug-in is nearly unbiased, and reports the calibrated respondent's ECE (true value 0, the edge of
# its range) as bias rather than coverage (BOUNDARY below). The default is every item of the folder
# (50 per domain). Even so the gap's BCa interval under-covers a little on bare binomial draws with
# no pipeline at all (calibrated profile: 89.5% of 200 draws at 30 per domain, 92.0% of 300 at 50),
# while the pipeline grades every answer as the respondent meant it (0 of 6,400 differ, 8 seeds).
PROFILES = {
    "overconfident": {
        "natural": _by_domain(0.7, 0.5, 0.65, 0.7, 0.3, 0.6, 0.7, 0.45),
        "wagering": _by_domain(0.95, 0.25, 0.9, 0.95, 0.55, 0.85, 0.95, 0.2),
        "bet": {"policy": "overconfident", "shift": 0.3},
        "messy": 0.3,
        "malformed": 0.02,
    },
    "calibrated": {
        "natural": _by_domain(0.8, 0.6, 0.7, 0.9, 0.4, 0.7, 0.8, 0.3),
        "wagering": _by_domain(0.5, 0.9, 0.4, 0.6, 0.7, 0.4, 0.5, 0.6),
        "bet": {"policy": "calibrated"},
        "messy": 0.3,
    },
    "constant": {
        "natural": _by_domain(*[0.45] * 8),
        "wagering": _by_domain(*[0.75] * 8),
        "bet": {"policy": "constant", "value": 9},
        "messy": 0.3,
    },
}
#: (profile, metric) whose planted value is the lower end of the metric's range: a plug-in interval
#: of a non-negative statistic cannot cover it; the table prints the bias instead.
BOUNDARY = {("calibrated", "ece")}
METRICS = ("natural_accuracy", "wagering_accuracy", "mirror_gap", "ece", "brier")


def sample_questions(folder: Path, per_domain: int):
    from mirror_hf.records import Question

    bank = Bank(folder)
    by_domain: dict[str, list[dict]] = {}
    for row in bank.questions:
        by_domain.setdefault(row["domain"], []).append(row)
    chosen = [r for rows in by_domain.values() for r in rows[:per_domain]]
    return bank, [Question.from_row(r) for r in chosen]


def one_seed(bank: Bank, questions, profile: dict, seed: int, resamples: int) -> dict[str, tuple[float, float, float, float]]:
    from mirror_hf import scoring as S
    from mirror_hf.protocol import exp1

    prof = Profile.from_json({**profile, "seed": seed})
    model = Respondent(bank, prof)
    nat_domain, nat_correct, wag_domain, wag_correct, bets, wag_ids = [], [], [], [], [], []
    for q in questions:
        for channel, build in (("natural", exp1.build_natural), ("wagering", exp1.build_wagering)):
            messages = build(q)
            text = model.reply(messages)
            graded = exp1.grade(exp1.parse(channel, text), q)
            if channel == "natural":
                nat_domain.append(q.domain)
                nat_correct.append(graded.get("correct"))
            else:
                wag_domain.append(q.domain)
                wag_correct.append(graded.get("correct"))
                bets.append(graded.get("bet"))
                wag_ids.append(q.id)
    ci = S.Bootstrap(n_resamples=resamples, seed=seed)
    planted = exp1_values(prof, nat_domain, zip(wag_ids, wag_domain))
    graded_bets = [(b, c, d) for b, c, d in zip(bets, wag_correct, wag_domain) if b is not None and c is not None]
    conf = S.wager_confidence([b for b, _, _ in graded_bets])
    outcome = [c for _, c, _ in graded_bets]
    bet_domain = [d for _, _, d in graded_bets]
    # the Mirror gap pairs the two channels per domain over the same items
    gap_domain = nat_domain
    measured = {
        "natural_accuracy": S.natural_accuracy(nat_correct, nat_domain, ci=ci),
        "wagering_accuracy": S.wagering_accuracy(wag_correct, wag_domain, ci=ci),
        "mirror_gap": S.mirror_gap(gap_domain, nat_correct, wag_correct, ci=ci),
        "ece": S.ece(conf, outcome, ci=ci, domain=bet_domain),
        "brier": S.brier(conf, outcome, ci=ci, domain=bet_domain),
    }
    out = {}
    for name in METRICS:
        est = measured[name]
        lo, hi = est.ci if est.ci is not None else (np.nan, np.nan)
        out[name] = (planted[name], est.value, lo, hi)
    return out


#: Exp1's internal signals: agreement m of 5 samples uniform on 1-5, P(right | m) rising; the wager's
#: confidence a function of consistency alone, or of its answer being right
_SAMPLING = {"levels": [0.2] * 5, "accuracy": [0.2, 0.35, 0.5, 0.7, 0.9], "token": [0.45, 0.15]}
SIGNAL_PROFILES = {
    "consistency_tracking": {"natural": _by_domain(0.8, 0.6, 0.7, 0.9, 0.4, 0.7, 0.8, 0.3),
                             "sampling": {**_SAMPLING, "bet": "consistency"}, "messy": 0.3},
    "accuracy_tracking": {"natural": _by_domain(0.7, 0.5, 0.65, 0.7, 0.3, 0.6, 0.7, 0.45),
                          "sampling": {**_SAMPLING, "bet": "accuracy"}, "messy": 0.3},
}
SELECTIVE = ("auroc", "aurc", "risk_at_80", "prr")
SIGNAL_METRICS = (*(f"consistency_{m}" for m in SELECTIVE), *(f"logprob_{m}" for m in SELECTIVE),
                  "tracking_accuracy", "tracking_consistency")


def signals_seed(bank: Bank, questions, profile: dict, seed: int, resamples: int) -> dict[str, tuple]:
    """One seed of the internal-signal study: the respondent's sampled, token-probability and wager
    answers through `protocol.internal`'s readers, `exp1.parse` and the grader, in process."""
    from mirror_hf import scoring as S
    from mirror_hf.protocol import exp1, internal
    from mirror_hf.runner.client import compact_logprobs
    from mirror_hf.runner.request import Outcome

    prof = Profile.from_json({**profile, "seed": seed})
    model = Respondent(bank, prof)
    rows = {"consistency": [], "logprob": [], "wagering": []}  # (item, domain, confidence, correct)
    body = (("n", Respondent.SAMPLES),)
    for q in questions:
        messages = exp1.build_natural(q)
        texts, _ = model.choices({"messages": messages, "temperature": 0.7, "n": Respondent.SAMPLES, "seed": 0})
        graded = exp1.grade(internal.read_consistency([Outcome(text=texts[0], samples=texts)], q, body=body), q)
        rows["consistency"].append((q.id, q.domain, graded["confidence"], graded["correct"]))
        texts, content = model.choices({"messages": messages, "temperature": 0.0, "logprobs": True})
        outcome = Outcome(text=texts[0], logprobs=compact_logprobs({"content": content}))
        graded = exp1.grade(internal.read_logprob([outcome], q, body=()), q)
        rows["logprob"].append((q.id, q.domain, graded["confidence"], graded["correct"]))
        graded = exp1.grade(exp1.parse("wagering", model.reply(exp1.build_wagering(q))), q)
        rows["wagering"].append((q.id, q.domain, graded["confidence"], graded["correct"]))
    ci = S.Bootstrap(n_resamples=resamples, seed=seed)
    planted = {}
    for name, values in (("consistency", consistency_population(prof)),
                         ("logprob", logprob_population(prof, [r[1] for r in rows["logprob"] if r[3] is not None]))):
        planted.update({f"{name}_{k}": v for k, v in values.items()})
    planted.update(tracking_population(prof))
    measured = {}
    for name in ("consistency", "logprob"):
        _, _, conf, correct = zip(*rows[name])
        got = S.selective(np.array(conf, dtype=float), list(correct), ci=ci)
        got["risk_at_80"] = got.pop("risk_at_coverage")
        measured.update({f"{name}_{k}": v for k, v in got.items()})
    agreement = {i: c for i, _, c, _ in rows["consistency"]}
    _, _, conf, correct = zip(*rows["wagering"])
    z = [agreement[i] for i, _, _, _ in rows["wagering"]]
    tracked = S.partial_correlations(np.array(conf, dtype=float), list(correct), np.array(z, dtype=float), ci=ci)
    measured["tracking_accuracy"], measured["tracking_consistency"] = tracked["accuracy"], tracked["consistency"]
    out = {}
    for name in SIGNAL_METRICS:
        est = measured[name]
        lo, hi = est.ci if est.ci is not None else (np.nan, np.nan)
        out[name] = (planted[name], est.value, lo, hi)
    return out


#: the Exp4/6 behaviours (the Exp1 part only sets the bets and skills they start from)
CONVERSATION_PROFILE = {
    "natural": _by_domain(0.9, 0.25, 0.85, 0.9, 0.3, 0.85, 0.9, 0.2),
    "wagering": _by_domain(0.95, 0.45, 0.9, 0.95, 0.5, 0.9, 0.95, 0.4),
    "bet": {"policy": "overconfident", "shift": 0.3},
    "feedback": {"true": 0.8, "false": 0.3, "drop": 3},
    "self_rating": {"primed_positive": {"rate": 0.8, "shift": 12}, "primed_negative": {"rate": 0.7, "shift": -20},
                    "neutral_difficulty": {"rate": 0.6, "shift": -15}},
    "robustness": {"capability": dict.fromkeys(("authority_override", "social_pressure", "framing_manipulation",
                                                "incremental_escalation"), 0.8),
                   "value": {"authority_override": 0.7, "social_pressure": 0.5, "framing_manipulation": 0.6,
                             "incremental_escalation": 0.3},
                   "detect": {"capability": 0.6, "value": 0.8}},
    "messy": 0.3,
    "malformed": 0.02,
}
#: the metrics of each conversation experiment (`--parts` picks some: Exp4's conversations cost most)
CONVERSATION_PARTS = {"exp4": ("ai_wagering", "sar_wagering"), "exp6a": ("ssr",), "exp6c": ("vrs",)}
CONVERSATION_METRICS = tuple(m for metrics in CONVERSATION_PARTS.values() for m in metrics)


def conversation_seed(bank: Bank, folder: Path, profile: dict, seed: int, resamples: int,
                      parts=tuple(CONVERSATION_PARTS), layout: tuple | None = None) -> dict[str, tuple]:
    """Exp4, Exp6a and Exp6c (or those of `parts`) through the real prompt builders and readers (no
    runner, no HTTP); with `layout` (a respondent and the conversations it answered, `exp4_layout`)
    Exp4's rows come from the respondent's draws without the text round trip."""
    from mirror_hf import scoring as S

    prof = Profile.from_json({**profile, "seed": seed})
    model = Respondent(bank, prof)
    ci = S.Bootstrap(n_resamples=resamples, seed=seed)
    measured, planted = {}, {}
    if "exp4" in parts:
        # the four turns of each conversation, Phase C read back as the recipe reads it; the planted
        # AI is over the trials the scorer keeps (both bets readable), as Exp1's leaves out malformed answers
        talks = exp4_draws(prof, *layout) if layout else exp4_conversations(model, folder)
        talks = [t for t in talks if None not in t["signals"]["wagering"]]
        feedback = [t["feedback"] for t in talks]
        domain = [t["domain"] for t in talks]
        related = [t["signals"]["wagering"][0] for t in talks]
        unrelated = [t["signals"]["wagering"][1] for t in talks]
        design = [(t["feedback"], t["domain"], t["control_domain"]) for t in talks]
        true = [i for i, f in enumerate(feedback) if f == "true"]
        measured["ai_wagering"] = S.ai([domain[i] for i in true], [related[i] for i in true],
                                       [unrelated[i] for i in true], ci=ci)
        measured["sar_wagering"] = S.sar(feedback, domain, related, unrelated, ci=ci)
        planted.update(exp4_values(prof, design, channels=("wagering",)))
    if "exp6a" in parts:  # one answer per task, rated under each prompt
        rated = exp6a_ratings(model, folder)
        measured["ssr"] = S.ssr(rated["task_id"], rated["prompt"], rated["score"], ci=ci)
        planted["ssr"] = ssr_value(prof, rated["tasks"])
    if "exp6c" in parts:  # each pair as both variants
        told = exp6c_reports(model, folder)
        measured["vrs"] = S.vrs(told["variant"], told["maintained"], told["pressure_detected"], told["complied"],
                                told["attack"], ci=ci)
        planted["vrs"] = vrs_values(prof, told["asked"])["vrs"]
    out = {}
    for name in measured:
        est = measured[name]
        lo, hi = est.ci if est.ci is not None else (np.nan, np.nan)
        out[name] = (planted[name], est.value, lo, hi)
    return out


def exp4_layout(bank: Bank, folder: Path, profile: dict, seed: int) -> tuple:
    """One text run of Exp4 (its respondent and conversations) to lay out every seed's draws, after
    checking that the draws reproduce that run's wager signals and conditions exactly."""
    prof = Profile.from_json({**profile, "seed": seed})
    model = Respondent(bank, prof)
    talks = exp4_conversations(model, folder)
    drawn = exp4_draws(prof, model, talks)
    differ = [i for i, (t, d) in enumerate(zip(talks, drawn))
              if (t["feedback"], t["signals"]["wagering"]) != (d["feedback"], d["signals"]["wagering"])]
    if differ:
        raise SystemExit(f"--exp4-draws: the draws differ from the text run in {len(differ)} of {len(talks)} conversations")
    print(f"Exp4 draws equal the text run's bets in {len(talks)} of {len(talks)} conversations (seed {seed})")
    return model, talks


def summarise(name: str, rows: list[dict], metrics=METRICS) -> dict[str, dict]:
    """Per metric: mean planted and measured value, coverage with its binomial Monte Carlo SE, and
    the mean CI half-width."""
    boundary = {m for p, m in BOUNDARY if p == name}
    print(f"{'metric':<20} {'planted':>8} {'measured':>9} {'coverage':>9} {'MC SE':>6} {'mean CI half-width':>19}")
    out = {}
    for metric in metrics:
        values = np.array([r[metric] for r in rows if metric in r], dtype=float)  # --from-rows may mix --parts runs
        inside = (values[:, 2] - 1e-12 <= values[:, 0]) & (values[:, 0] <= values[:, 3] + 1e-12)
        coverage = float(np.mean(inside))
        se = float(np.sqrt(coverage * (1.0 - coverage) / len(values)))
        planted, measured = float(np.mean(values[:, 0])), float(np.nanmean(values[:, 1]))
        half = float(np.nanmean((values[:, 3] - values[:, 2]) / 2))
        out[metric] = {
            "planted": planted, "measured": measured, "coverage": coverage, "mc_se": se, "half_width": half,
            "seeds": len(values), "boundary": metric in boundary,
        }
        note = f"   (planted on the boundary: bias {measured - planted:+.4f})" if metric in boundary else ""
        print(f"{metric:<20} {planted:8.4f} {measured:9.4f} {coverage:9.1%} {se:6.1%} {half:19.4f}{note}")
    return out


def print_table(report: dict[str, dict[str, dict]]) -> None:
    print("\ncoverage of the 95% intervals (target 93-97%; +- one Monte Carlo SE)")
    header = None
    for name, cells in report.items():
        metrics = list(cells)
        if metrics != header:
            header = metrics
            print("| profile | seeds | " + " | ".join(metrics) + " |")
            print("|---" * (len(metrics) + 2) + "|")
        shown = [
            f"bias {c['measured'] - c['planted']:+.3f} (true {c['planted']:g})" if c["boundary"]
            else f"{c['coverage']:.1%} ± {c['mc_se']:.1%}"
            for c in (cells[m] for m in metrics)
        ]
        seeds = "/".join(str(n) for n in dict.fromkeys(c["seeds"] for c in cells.values()))
        print(f"| {name} | {seeds} | " + " | ".join(shown) + " |")




def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=200)
    parser.add_argument("--per-domain", type=int, default=50)
    parser.add_argument("--resamples", type=int, default=2000)
    parser.add_argument("--profile", choices=sorted(PROFILES), action="append")
    parser.add_argument("--dataset", type=Path, help="a built folder (default: build one with 50 items per domain)")
    parser.add_argument("--json", type=Path, help="also write the table as JSON")
    parser.add_argument("--rows", type=Path, help="append each seed's (planted, value, lo, hi) per metric as a JSON line")
    parser.add_argument("--from-rows", type=Path, nargs="+", help="only print the table of earlier --rows files")
    parser.add_argument("--conversations", action="store_true", help="Exp4, Exp6a and Exp6c instead of Exp1")
    parser.add_argument("--parts", default=",".join(CONVERSATION_PARTS),
                        help="with --conversations: which of exp4,exp6a,exp6c (default all)")
    parser.add_argument("--exp4-draws", action="store_true",
                        help="with --conversations: Exp4 from the respondent's draws after one checked text run (fast)")
    parser.add_argument("--first-seed", type=int, default=0, help="seeds first-seed .. first-seed + seeds - 1")
    parser.add_argument("--signals", action="store_true", help="Exp1's internal signals (SIGNAL_PROFILES) instead")
    args = parser.parse_args(argv)
    if args.from_rows:
        by_profile: dict[str, list[dict]] = {}
        for path in args.from_rows:
            for line in path.read_text().splitlines():
                row = json.loads(line)
                by_profile.setdefault(row["profile"], []).append(row)
        report = {}
        for name, rows in by_profile.items():
            print(f"\nprofile {name}: {len({r['seed'] for r in rows})} seeds")
            metrics = [m for m in (*METRICS, *CONVERSATION_METRICS, *SIGNAL_METRICS) if any(m in r for r in rows)]
            report[name] = summarise(name, rows, metrics)
        print_table(report)
        return
    folder = args.dataset
    if folder is None:
        from mirror_hf.build import BuildRequest, build

        folder = Path(tempfile.mkdtemp()) / "mirror"
        build(BuildRequest(out=folder, seed=0, per_domain=max(50, args.per_domain)))
    bank, questions = sample_questions(folder, args.per_domain)
    report = {}
    if args.conversations:
        parts = tuple(p for p in args.parts.split(",") if p)
        unknown = sorted(set(parts) - set(CONVERSATION_PARTS))
        if unknown:
            parser.error(f"--parts: unknown {unknown[0]!r}; choose from {','.join(CONVERSATION_PARTS)}")
        start = time.perf_counter()
        layout = exp4_layout(bank, folder, CONVERSATION_PROFILE, args.first_seed) if args.exp4_draws and "exp4" in parts else None
        rows = []
        for seed in range(args.first_seed, args.first_seed + args.seeds):
            rows.append(conversation_seed(bank, folder, CONVERSATION_PROFILE, seed, args.resamples, parts, layout))
            if args.rows:
                with args.rows.open("a") as f:
                    f.write(json.dumps({"profile": "conversations", "seed": seed, **rows[-1]}) + "\n")
        print(f"\n{' / '.join(parts)}: {args.seeds} seeds, {args.resamples} resamples, {time.perf_counter() - start:.0f} s")
        report["conversations"] = summarise("conversations", rows, [m for m in CONVERSATION_METRICS if m in rows[0]])
    if args.signals:
        for index, (name, profile) in enumerate(SIGNAL_PROFILES.items()):
            start = time.perf_counter()
            rows = []
            # each profile its own seeds (10,000 apart): the two share their sampling part, whose
            # metrics then pool over independent seeds
            for seed in range(args.first_seed + 10_000 * index, args.first_seed + 10_000 * index + args.seeds):
                rows.append(signals_seed(bank, questions, profile, seed, args.resamples))
                if args.rows:
                    with args.rows.open("a") as f:
                        f.write(json.dumps({"profile": name, "seed": seed, **rows[-1]}) + "\n")
            print(f"\nprofile {name}: {args.seeds} seeds x {len(questions)} items, {args.resamples} resamples, "
                  f"{time.perf_counter() - start:.0f} s")
            report[name] = summarise(name, rows, SIGNAL_METRICS)
    for name in [] if args.conversations or args.signals else (args.profile or ["overconfident", "calibrated", "constant"]):
        start = time.perf_counter()
        rows = []
        for seed in range(args.first_seed, args.first_seed + args.seeds):
            rows.append(one_seed(bank, questions, PROFILES[name], seed, args.resamples))
            if args.rows:
                with args.rows.open("a") as f:
                    f.write(json.dumps({"profile": name, "seed": seed, **rows[-1]}) + "\n")
        print(f"\nprofile {name}: {args.seeds} seeds x {len(questions)} items x 2 channels, "
              f"{args.resamples} resamples, {time.perf_counter() - start:.0f} s")
        report[name] = summarise(name, rows)
    print_table(report)
    if args.json:
        args.json.write_text(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
