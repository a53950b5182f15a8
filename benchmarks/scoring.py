"""Scoring benchmark: the full metric suite on synthetic trials at the scale of a large run
(16 models x (25,000 Exp1 + 2,500 Exp9) trials: 400,000 and 40,000), against a straightforward per-record
Python implementation of the same metrics, measured in the same run.

    python benchmarks/scoring.py [--models 16] [--exp1 400000] [--exp9 40000] [--resamples 10000]

Limits from issue 17: point estimates of the whole suite <= 1 s; with 10,000-resample BCa CIs on
every per-model headline number <= 15 s, on two cores (issue 7 had 5 s and 60 s). Wall and CPU
seconds are both printed (the point estimates: the median of five runs); PASS / FAIL reads CPU seconds (one thread for the point estimates, CPU / 2
for the CIs, which run on two threads), since on a shared machine wall time includes other work.

The baseline ("naive") computes the same point estimates record by record with dicts and loops,
the way one would write them without thinking about speed. For the CIs, the baseline is
`scipy.stats.bootstrap(method="BCa")` with a per-record statistic, measured on one model's
headline numbers and scaled by the number of models (running it on all 16 would take many minutes).
"""

from __future__ import annotations

import argparse
import math
import os
import statistics
import sys
import time
from collections import defaultdict

import numpy as np
import polars as pl

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

from mirror_hf.experiments import units
from mirror_hf.records import DOMAINS
from mirror_hf.scoring import Bootstrap, SuiteOptions
from mirror_hf.scoring import score_tables as _score_tables

LIMIT_POINT = 1.0
POINT_RUNS = 5
LIMIT_CI = 15.0
CHANNELS = ("wagering", "opt_out", "difficulty_selection", "tool_delegation", "natural")


# ------------------------------------------------------------------------------------------------
# Synthetic trials
# ------------------------------------------------------------------------------------------------




def score_tables(*, exp1, exp9, options):
    """The suite over the Exp1 and Exp9 tables (the registered experiments as units)."""
    return _score_tables(units=units(), tables={"exp1": exp1, "exp9": exp9}, options=options)

def _masked(values: np.ndarray, keep: np.ndarray, dtype) -> pl.Series:
    """`values` where `keep`, null elsewhere."""
    return pl.select(pl.when(pl.Series(keep)).then(pl.Series(values).cast(dtype))).to_series()


def synthetic_exp1(n_models: int, n_trials: int, seed: int = 0) -> pl.DataFrame:
    """Exp1 records: per model, questions x the five channels, with per-domain skill, signals that
    track the latent skill, and ~3% ungraded records."""
    rng = np.random.default_rng(seed)
    per_model = n_trials // n_models
    n_q = per_model // len(CHANNELS)
    frames = []
    for m in range(n_models):
        skill = rng.uniform(0.2, 0.9, len(DOMAINS))
        dom = rng.integers(0, len(DOMAINS), n_q)
        p = skill[dom]
        rows = n_q * len(CHANNELS)
        channel = np.repeat(np.array(CHANNELS), n_q)
        domain = np.tile(np.array(DOMAINS)[dom], len(CHANNELS))
        pq = np.tile(p, len(CHANNELS))
        boost = np.where(channel == "wagering", 0.1, 0.0)
        correct = rng.random(rows) < np.clip(pq + boost, 0, 1)
        graded = rng.random(rows) > 0.03
        bet = np.clip(np.round(pq * 10 + rng.normal(0, 2, rows)), 1, 10).astype(np.int32)
        skipped = rng.random(rows) > pq + 0.2
        choice = np.where(rng.random(rows) < pq, "A", "B")
        n_tools = rng.poisson(np.clip(1.5 - pq, 0.05, None))
        hedging = rng.poisson(np.clip(2.0 - 2 * pq, 0.05, None))
        is_ = {c: channel == c for c in CHANNELS}
        conf = np.select(
            [is_["wagering"], is_["opt_out"], is_["difficulty_selection"], is_["tool_delegation"], is_["natural"]],
            [bet / 10, 1.0 - skipped, (choice == "A").astype(float), 1 / (1 + n_tools), 1 / (1 + hedging)],
        )
        frames.append(
            pl.DataFrame(
                {
                    "model": f"model-{m:02d}",
                    "item_id": np.tile(np.array([f"q{i:05d}" for i in range(n_q)]), len(CHANNELS)),
                    "channel": channel,
                    "domain": domain,
                    "correct": _masked(correct, graded, pl.Boolean),
                    "bet": _masked(bet, is_["wagering"], pl.Int32),
                    "skipped": _masked(skipped, is_["opt_out"], pl.Boolean),
                    "choice": _masked(choice, is_["difficulty_selection"], pl.String),
                    "hedging_count": _masked(hedging, is_["natural"], pl.Int32),
                    "n_tools": _masked(n_tools, is_["tool_delegation"], pl.Int32),
                    "confidence": conf,
                    "api_error": pl.Series([None] * rows, dtype=pl.String),
                }
            )
        )
    frame = pl.concat(frames)
    tools = pl.col("n_tools")
    return frame.with_columns(
        pl.when(tools.is_null()).then(None).otherwise(pl.int_ranges(0, tools.fill_null(0)).list.eval(pl.lit("calculator"))).alias("tools_used")
    ).drop("n_tools")


def synthetic_exp9(n_models: int, n_trials: int, seed: int = 1) -> pl.DataFrame:
    """Exp9 trials: conditions x paradigms over fixed and tailored tasks, two components each."""
    rng = np.random.default_rng(seed)
    per_model = n_trials // n_models
    cells = [(c, p) for c in ("C1", "C2", "C3", "C4") for p in ("P1", "P2", "P3") if not (c == "C4" and p == "P3")]
    frames = []
    for m in range(n_models):
        acc = dict(zip(DOMAINS, rng.uniform(0.2, 0.9, len(DOMAINS))))
        cell = rng.integers(0, len(cells), per_model)
        cond = np.array([cells[i][0] for i in cell])
        par = np.array([cells[i][1] for i in cell])
        data = {
            "model": f"model-{m:02d}",
            "item_id": [f"t{i:04d}" for i in rng.integers(0, 300, per_model)],
            "condition": cond,
            "paradigm": par,
            "is_false_score_control": rng.random(per_model) < 0.05,
            "task_type": np.where(rng.random(per_model) < 0.5, "fixed", "tailored"),
            "api_success": rng.random(per_model) > 0.1,
        }
        for s in ("a", "b"):
            dom = np.array(DOMAINS)[rng.integers(0, len(DOMAINS), per_model)]
            a = np.array([acc[d] for d in dom])
            strength = np.where(a <= 0.4, "weak", np.where(a >= 0.6, "strong", "medium"))
            escalate = rng.random(per_model) < np.where(cond == "C1", 0.2, np.where(cond == "C4", 0.8, 0.4))
            decision = np.where(escalate, np.where(rng.random(per_model) < 0.5, "use_tool", "defer"), "proceed")
            decision = np.where(par == "P3", "proceed", decision)
            routed = (cond == "C4") & (a < 0.5)  # the C4 oracle: use_tool, graded correct
            decision = np.where(routed, "use_tool", decision)
            data.update(
                {
                    f"domain_{s}": dom,
                    f"strength_{s}": strength,
                    f"exp1_accuracy_{s}": a,
                    f"mirror_gap_{s}": np.full(per_model, 0.1) + a / 10,
                    f"component_{s}_decision": decision,
                    f"component_{s}_correct": routed | (rng.random(per_model) < a),
                    f"component_{s}_externally_routed": routed,
                }
            )
        frames.append(pl.DataFrame(data))
    return pl.concat(frames)


# ------------------------------------------------------------------------------------------------
# The naive baseline: per-record Python
# ------------------------------------------------------------------------------------------------


def _spearman(xs: list[float], ys: list[float]) -> float:
    def ranks(v):
        order = sorted(range(len(v)), key=lambda i: v[i])
        r = [0.0] * len(v)
        i = 0
        while i < len(v):
            j = i
            while j + 1 < len(v) and v[order[j + 1]] == v[order[i]]:
                j += 1
            for k in range(i, j + 1):
                r[order[k]] = (i + j) / 2 + 1
            i = j + 1
        return r

    rx, ry = ranks(xs), ranks(ys)
    mx, my = sum(rx) / len(rx), sum(ry) / len(ry)
    sxy = sum((a - mx) * (b - my) for a, b in zip(rx, ry))
    sxx = sum((a - mx) ** 2 for a in rx)
    syy = sum((b - my) ** 2 for b in ry)
    return sxy / math.sqrt(sxx * syy) if sxx > 0 and syy > 0 else float("nan")


def naive_exp1(records: list[dict]) -> dict:
    out = {}
    by_model = defaultdict(list)
    for r in records:
        by_model[r["model"]].append(r)
    for model, rows in by_model.items():
        acc = defaultdict(lambda: [0, 0])
        pooled = defaultdict(lambda: [0, 0])
        signals = defaultdict(dict)
        wager = []
        for r in rows:
            if r["correct"] is not None:
                cell = acc[(r["channel"], r["domain"])]
                cell[0] += r["correct"]
                cell[1] += 1
                pooled[r["channel"]][0] += r["correct"]
                pooled[r["channel"]][1] += 1
                if r["channel"] == "wagering" and r["bet"] is not None:
                    wager.append((r["bet"] / 10, float(r["correct"])))
            if r["confidence"] is not None:
                signals[r["channel"]][r["item_id"]] = r["confidence"]
        res = {}
        for ch in ("natural", "wagering"):
            vals = [acc[(ch, d)][0] / acc[(ch, d)][1] for d in DOMAINS if acc[(ch, d)][1]]
            res[ch] = sum(vals) / len(vals)
        gaps = [abs(acc[("wagering", d)][0] / acc[("wagering", d)][1] - acc[("natural", d)][0] / acc[("natural", d)][1]) for d in DOMAINS if acc[("wagering", d)][1] and acc[("natural", d)][1]]
        res["gap"] = sum(gaps) / len(gaps)
        bins = defaultdict(list)
        for p, y in wager:
            bins[min(int(p * 10 + 1e-9), 9)].append((p, y))
        res["ece"] = sum(abs(sum(y for _, y in b) - sum(p for p, _ in b)) for b in bins.values()) / len(wager)
        res["brier"] = sum((p - y) ** 2 for p, y in wager) / len(wager)
        res["log"] = sum(-(y * math.log(min(max(p, 1e-6), 1 - 1e-6)) + (1 - y) * math.log(1 - min(max(p, 1e-6), 1 - 1e-6))) for p, y in wager) / len(wager)
        pos = [p for p, y in wager if y == 1]
        neg = [p for p, y in wager if y == 0]
        neg.sort()
        import bisect

        wins = sum(bisect.bisect_left(neg, p) + 0.5 * (bisect.bisect_right(neg, p) - bisect.bisect_left(neg, p)) for p in pos)
        res["auroc"] = wins / (len(pos) * len(neg))
        rhos = []
        chans = [c for c in CHANNELS if signals[c]]
        for i, a in enumerate(chans):
            for b in chans[i + 1 :]:
                shared = [q for q in signals[a] if q in signals[b]]
                rho = _spearman([signals[a][q] for q in shared], [signals[b][q] for q in shared]) if len(shared) >= 2 else float("nan")
                if not math.isnan(rho):
                    rhos.append(rho)
        res["mci"] = sum(rhos) / len(rhos)
        for ch, (k, n) in pooled.items():
            res[f"accuracy_{ch}"] = k / n
        out[model] = res
    return out


def naive_exp9(records: list[dict]) -> dict:
    out = {}
    per = defaultdict(lambda: defaultdict(lambda: [0, 0]))
    latest = {}  # a re-run record replaces the earlier one (Experiment.dedup_key: last written wins)
    for r in records:
        latest[(r["model"], r["item_id"], r["condition"], r["paradigm"], r["is_false_score_control"])] = r
    for r in latest.values():
        if r["is_false_score_control"] or r["paradigm"] not in ("P1", "P2"):
            continue
        for s in ("a", "b"):
            if r[f"strength_{s}"] != "weak":
                continue
            if not r["api_success"] and not r[f"component_{s}_externally_routed"]:
                continue  # complete case; routed components do not depend on the response
            cell = per[r["model"]][r["condition"]]
            cell[0] += r[f"component_{s}_decision"] == "proceed" and r[f"component_{s}_correct"] is False
            cell[1] += 1
    for model, conds in per.items():
        out[model] = {c: k / n for c, (k, n) in conds.items() if n}
    return out


# ------------------------------------------------------------------------------------------------


def timed(fn, *args, **kwargs):
    start = time.perf_counter()
    result = fn(*args, **kwargs)
    return result, time.perf_counter() - start


def timed_cpu(fn, *args, **kwargs):
    """(result, wall seconds, CPU seconds of this process over all its threads)."""
    cpu, start = time.process_time(), time.perf_counter()
    result = fn(*args, **kwargs)
    return result, time.perf_counter() - start, time.process_time() - cpu


def load_average() -> str:
    try:
        one, five, fifteen = os.getloadavg()
        return f"load average {one:.1f} / {five:.1f} / {fifteen:.1f}"
    except OSError:
        return "load average n/a"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--models", type=int, default=16)
    parser.add_argument("--exp1", type=int, default=400_000)
    parser.add_argument("--exp9", type=int, default=40_000)
    parser.add_argument("--resamples", type=int, default=10_000)
    parser.add_argument("--skip-scipy", action="store_true", help="do not measure the scipy CI baseline")
    args = parser.parse_args(argv)

    exp1 = synthetic_exp1(args.models, args.exp1)
    exp9 = synthetic_exp9(args.models, args.exp9)
    print(
        f"synthetic: {exp1.height:,} Exp1 trials, {exp9.height:,} Exp9 trials, {args.models} models; "
        f"cores: {len(os.sched_getaffinity(0))}; {load_average()} (other processes share the cores)"
    )

    # warm-up on a slice (lazy imports, polars' thread pool), so both sides are measured warm
    score_tables(exp1=exp1.head(2_000), exp9=exp9.head(500), options=SuiteOptions(variant="upstream", ci=Bootstrap(n_resamples=50)))
    # A one-second measurement on a shared machine varies by +-30% from run to run: the median of
    # POINT_RUNS runs is the figure, every run is printed.
    runs = [timed_cpu(score_tables, exp1=exp1, exp9=exp9, options=SuiteOptions(variant="upstream", ci=False)) for _ in range(POINT_RUNS)]
    points = runs[0][0]
    t_points = statistics.median(r[1] for r in runs)
    cpu_points = statistics.median(r[2] for r in runs)
    print(f"point estimates, {POINT_RUNS} runs: wall {', '.join(f'{r[1]:.2f}' for r in runs)} s; CPU {', '.join(f'{r[2]:.2f}' for r in runs)} s")
    records1, records9 = exp1.to_dicts(), exp9.to_dicts()
    (naive1, t_n1) = timed(naive_exp1, records1)
    (naive9, t_n9) = timed(naive_exp9, records9)
    t_naive = t_n1 + t_n9

    # the two implementations must agree before their speeds are compared
    worst = 0.0
    for model, res in naive1.items():
        ours = points["models"][model]["exp1"]
        pairs = {"natural": "natural_accuracy", "wagering": "wagering_accuracy", "gap": "mirror_gap", "ece": "ece", "brier": "brier", "log": "log_score", "auroc": "auroc", "mci": "mci"}
        for key, name in pairs.items():
            worst = max(worst, abs(res[key] - ours[name]["value"]))
        for c in CHANNELS:
            worst = max(worst, abs(res[f"accuracy_{c}"] - ours[f"accuracy_{c}"]["value"]))
    for model, conds in naive9.items():
        for c, v in conds.items():
            worst = max(worst, abs(v - points["models"][model]["exp9"]["cfr"][c]["value"]))
    print(f"largest |suite - naive| over all point estimates: {worst:.2e}")

    print(f"point estimates, full suite (median): {t_points:6.2f} s wall ({cpu_points:.2f} s CPU)   naive per-record Python: {t_naive:6.2f} s   ratio naive/suite: {t_naive / t_points:5.1f}x   limit {LIMIT_POINT:.0f} s")

    _, t_ci, cpu_ci = timed_cpu(
        score_tables, exp1=exp1, exp9=exp9, options=SuiteOptions(variant="upstream", ci=Bootstrap(n_resamples=args.resamples))
    )
    line = (
        f"with {args.resamples:,}-resample BCa CIs on every per-model number: {t_ci:6.2f} s wall "
        f"({cpu_ci:.1f} s CPU over 2 threads; {load_average()})   limit {LIMIT_CI:.0f} s"
    )
    if not args.skip_scipy:
        t_scipy = scipy_baseline_one_model(exp1, exp9, args.resamples)
        est = t_scipy * args.models
        line += f"\n  scipy.stats.bootstrap(BCa) on one model's headline numbers: {t_scipy:6.2f} s -> x{args.models} models ~ {est:6.1f} s; ratio scipy/suite ~ {est / t_ci:5.1f}x"
    print(line)
    # the verdict reads CPU seconds (other processes share the cores, so wall time is theirs too):
    # the point estimates run in one thread; the CIs in two, so CPU / 2 is their wall time on two idle cores
    ok = cpu_points < LIMIT_POINT and cpu_ci / 2 < LIMIT_CI and worst < 1e-9
    print(f"verdict on CPU: points {cpu_points:.2f} s (limit {LIMIT_POINT:.0f} s), CIs {cpu_ci / 2:.2f} s per core (limit {LIMIT_CI:.0f} s)")
    print("PASS" if ok else "FAIL")
    return 0 if ok else 1


def scipy_baseline_one_model(exp1: pl.DataFrame, exp9: pl.DataFrame, resamples: int) -> float:
    """scipy's BCa on one model's per-record statistics (accuracies, gap, calibration, CFR); MCI is
    left out (its per-resample rank correlations would dominate), so the baseline is a lower bound."""
    from scipy import stats

    model = exp1["model"][0]
    m1 = exp1.filter(pl.col("model") == model)
    m9 = exp9.filter(pl.col("model") == model)
    dom_codes = {d: i for i, d in enumerate(DOMAINS)}

    def macro(y, d, axis=-1):
        vals = []
        for k in range(len(DOMAINS)):
            mask = d == k
            n = mask.sum(axis=axis)
            vals.append(np.where(n > 0, (y * mask).sum(axis=axis) / np.maximum(n, 1), np.nan))
        return np.nanmean(np.stack(vals), axis=0)

    start = time.perf_counter()
    rng = np.random.default_rng(42)
    for ch in ("natural", "wagering"):
        r = m1.filter((pl.col("channel") == ch) & pl.col("correct").is_not_null())
        y = r["correct"].cast(float).to_numpy()
        d = np.array([dom_codes[x] for x in r["domain"]])
        stats.bootstrap((y, d), macro, paired=True, method="BCa", n_resamples=resamples, rng=rng)
    w = m1.filter((pl.col("channel") == "wagering") & pl.col("correct").is_not_null())
    p = w["bet"].to_numpy() / 10
    y = w["correct"].cast(float).to_numpy()
    stats.bootstrap(((p - y) ** 2,), np.mean, method="BCa", n_resamples=resamples, rng=rng)
    stats.bootstrap((-(y * np.log(p) + (1 - y) * np.log1p(-np.minimum(p, 1 - 1e-6))),), np.mean, method="BCa", n_resamples=resamples, rng=rng)
    import warnings

    warnings.simplefilter("ignore")  # scipy warns on degenerate (all-equal) CFR samples
    for cond in ("C1", "C2", "C3", "C4"):
        rows = m9.filter((pl.col("condition") == cond) & pl.col("paradigm").is_in(["P1", "P2"]) & ~pl.col("is_false_score_control") & pl.col("api_success"))
        f = []
        for s in ("a", "b"):
            weak = rows.filter(pl.col(f"strength_{s}") == "weak")
            f.extend(((weak[f"component_{s}_decision"] == "proceed") & ~weak[f"component_{s}_correct"]).cast(float).to_list())
        if len(f) > 1:
            stats.bootstrap((np.array(f),), np.mean, method="BCa", n_resamples=resamples, rng=rng)
    return time.perf_counter() - start


if __name__ == "__main__":
    raise SystemExit(main())
