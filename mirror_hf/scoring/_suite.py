"""The whole metric suite over trial tables (what `mirror-hf score` writes), still without I/O:
the CLI reads the folder and hands the tables in.

Variant switch (`variant="paper"` default, or `"upstream"`): TII absolute vs signed, CCE composite-
minus-component vs mean |confidence - correct|, KDI model-level vs mean over weak domains, and the
weak-domain labels for Exp9 (paper: median_or_bottom_k over the model's Exp1 natural accuracy;
upstream: the labels the runner recorded, i.e. its thresholds). Metrics the tables cannot support
under the chosen variant are listed under `skipped` with the reason, never silently invented.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from concurrent.futures import ThreadPoolExecutor
from contextlib import nullcontext
from dataclasses import dataclass, field
from typing import Literal

import numpy as np
import polars as pl
from threadpoolctl import threadpool_limits

from mirror_hf.headlines import CFR_FRAME, CFR_TABLE_FRAME
from mirror_hf.scoring._accuracy import (
    accuracy,
    domain_accuracy,
    macro_and_domain_accuracy,
    mirror_gap_and_by_domain,
)
from mirror_hf.scoring._bootstrap import CI
from mirror_hf.scoring._calibration import calibration, reliability, wager_confidence
from mirror_hf.scoring._cce import cce
from mirror_hf.scoring._escalation import escalation_curve, escalation_to_json
from mirror_hf.scoring._estimate import Estimate
from mirror_hf.scoring._exp4 import score_exp4
from mirror_hf.scoring._exp5 import score_exp5
from mirror_hf.scoring._exp6 import score_exp6a, score_exp6c
from mirror_hf.scoring._exp6b import score_exp6b
from mirror_hf.scoring._exp9 import (
    CONDITIONS,
    ComponentView,
    Missing,
    appropriate_action_rate,
    cfr,
    cfr_by_condition,
    component_view,
    domain_gaps_from_components,
    kdi,
    udr,
)
from mirror_hf.scoring._exp9_report import (
    aggregate_extras,
    label_components,
    model_extras,
    to_json,
)
from mirror_hf.scoring._headline import latest_records
from mirror_hf.scoring._mci import behavioural_channels, channel_signal, mci
from mirror_hf.scoring._schema import ScoreResult, Variant
from mirror_hf.scoring._signals import signal_scores, subcategory_agreement, tracking_scores
from mirror_hf.scoring._tii import tii, verbal_transfer
from mirror_hf.scoring._value_robustness import robustness_correlation
from mirror_hf.scoring._weak import WeakPolicy, weak_domains


@dataclass(frozen=True)
class SuiteOptions:
    variant: Variant = "paper"
    weak_policy: Literal["auto"] | WeakPolicy | None = "auto"  # "auto": per variant (above); None: the recorded labels
    missing: Missing = "complete_case"
    ci: CI = True
    k: int = 2  # k of the median_or_bottom_k / bottom_k weak-domain policies
    # human participants' weak domains: the paper's rule, whose bottom-k fallback names them at ceiling
    human_weak_policy: WeakPolicy = "median_or_bottom_k"

    @property
    def exp9_policy(self) -> str | None:
        if self.weak_policy == "auto":
            return "median_or_bottom_k" if self.variant == "paper" else None
        return self.weak_policy


def _col(frame: pl.DataFrame, name: str, dtype=None) -> pl.Series:
    if name in frame.columns:
        return frame[name]
    return pl.Series(name, [None] * frame.height, dtype=dtype or pl.Null)


# ------------------------------------------------------------------------------------------------
# Exp1
# ------------------------------------------------------------------------------------------------


def exp1_question_grades(nat: pl.DataFrame, wag: pl.DataFrame) -> pl.DataFrame:
    """One row per question: domain, natural grade, wagering grade (null where missing), from the
    natural- and wagering-channel records (the caller has them split by channel already)."""
    def side(part: pl.DataFrame, name: str) -> pl.DataFrame:
        return part.select("item_id", pl.col("domain").alias(f"domain_{name}"), pl.col("correct").alias(name))

    q = side(nat, "nat").join(side(wag, "wag"), on="item_id", how="full", coalesce=True)
    return q.select("item_id", pl.coalesce("domain_nat", "domain_wag").alias("domain"), "nat", "wag")


def natural_profile(frame: pl.DataFrame) -> dict[str, float]:
    """The model's Exp1 natural accuracy per domain (the input of every weak-domain policy)."""
    nat = frame.filter(pl.col("channel") == "natural")
    return profile_of(domain_accuracy(nat["correct"], nat["domain"]))


def profile_of(by_domain: Mapping[str, Estimate]) -> dict[str, float]:
    """The profile from the natural channel's per-domain accuracies (domains with a graded record)."""
    return {d: e.value for d, e in by_domain.items() if e.n}


def score_exp1(frame: pl.DataFrame, *, ci: CI = True) -> dict:
    return _score_exp1_latest(latest_records(frame, "exp1"), ci=ci)


def _score_exp1_latest(frame: pl.DataFrame, *, ci: CI) -> dict:
    """`score_exp1` on records already de-duplicated (`latest_records`)."""
    out: dict = {}
    by_channel = {key[0]: part for key, part in frame.partition_by("channel", as_dict=True).items() if key[0] is not None}
    empty = frame.clear()
    nat = by_channel.get("natural", empty)
    wag = by_channel.get("wagering", empty)
    # Nat.Acc / Wag.Acc are the macro accuracies of their channel (natural_accuracy, wagering_accuracy);
    # each is computed with its per-domain table from one cell table, as is the gap with its domains
    if nat.height:
        out["natural_accuracy"], out["natural_accuracy_by_domain"] = macro_and_domain_accuracy(nat["correct"], nat["domain"], ci=ci)
    if wag.height:
        out["wagering_accuracy"], out["wagering_accuracy_by_domain"] = macro_and_domain_accuracy(wag["correct"], wag["domain"], ci=ci)
    if nat.height and wag.height:
        q = exp1_question_grades(nat, wag)
        out["mirror_gap"], out["mirror_gap_by_domain"] = mirror_gap_and_by_domain(q["domain"], q["nat"], q["wag"], ci=ci)
    if wag.height:
        bet_conf = wager_confidence(_col(wag, "bet", pl.Int32))
        fallback = _col(wag, "confidence", pl.Float64).cast(pl.Float64).fill_null(np.nan).to_numpy()
        conf = np.where(np.isnan(bet_conf), fallback, bet_conf)
        if (~np.isnan(conf)).any():
            out.update(calibration(conf, wag["correct"], ci=ci, domain=wag["domain"]))
            out["reliability"] = reliability(conf, wag["correct"])  # the ECE's bins, for the diagram
    behavioural = frame.filter(pl.col("channel").is_in(behavioural_channels()))
    if "api_error" in behavioural.columns:
        behavioural = behavioural.filter(pl.col("api_error").is_null())
    if behavioural["channel"].n_unique() >= 2:
        tools = _col(behavioural, "tools_used")
        n_tools = tools.list.len() if tools.dtype != pl.Null else tools
        raw = channel_signal(
            behavioural["channel"],
            bet=_col(behavioural, "bet", pl.Int32),
            skipped=_col(behavioural, "skipped", pl.Boolean),
            choice=_col(behavioural, "choice", pl.String),
            n_tools=n_tools,
            hedging_count=_col(behavioural, "hedging_count", pl.Int32),
        )
        recorded = _col(behavioural, "confidence", pl.Float64).cast(pl.Float64).fill_null(np.nan).to_numpy()
        signal = np.where(np.isnan(recorded), raw, recorded)
        out["mci"] = mci(behavioural["item_id"], behavioural["channel"], signal, ci=ci)
    for channel in sorted(by_channel):
        out[f"accuracy_{channel}"] = accuracy(by_channel[channel]["correct"], ci=ci)
    signals = signal_scores(by_channel, ci=ci)
    if signals:
        out["signals"] = signals  # AUROC, AURC, risk at 80% coverage, PRR of every channel
    tracked = tracking_scores(by_channel, ci=ci)
    if tracked:
        out["tracking"] = tracked  # what each behavioural channel's confidence follows
    return out


# ------------------------------------------------------------------------------------------------
# Exp2, Exp3
# ------------------------------------------------------------------------------------------------


def score_exp2(frame: pl.DataFrame, profile: Mapping[str, float], *, variant: Variant, ci: CI = True) -> dict:
    """TII from Exp2 trial records with a `source_domain` column and the model's Exp1 profile, over
    the behavioural channels (`tii` under `variant`, and both variants by name), and the verbal
    transfer score from the Layer-2 self-reports when the records carry its two flags."""
    frame = latest_records(frame, "exp2")
    if "api_error" in frame.columns:
        frame = frame.filter(pl.col("api_error").is_null())
    behavioural = frame.filter(pl.col("channel").is_in(behavioural_channels()))
    source_acc = behavioural["source_domain"].replace_strict(dict(profile), default=None, return_dtype=pl.Float64)
    signal = _col(behavioural, "confidence", pl.Float64)
    args = (behavioural["item_id"], behavioural["channel"], signal, source_acc)
    both = {v: tii(*args, variant=v, ci=ci) for v in ("paper", "upstream")}
    out: dict = {"tii": both[variant], "tii_paper": both["paper"], "tii_upstream": both["upstream"]}
    layer2 = frame.filter(pl.col("channel") == "layer2")
    if layer2.height and {"source_in_sub_skills", "source_is_weakest"} <= set(layer2.columns):
        verbal = verbal_transfer(layer2["source_in_sub_skills"], layer2["source_is_weakest"], ci=ci)
        out["verbal_transfer"] = verbal
        if verbal.defined and both[variant].defined:
            out["dissociation"] = Estimate(verbal.value - both[variant].value, verbal.n)
    return out


def exp3_task_rows(frame: pl.DataFrame, *, prefer_layer2: bool) -> pl.DataFrame:
    """One row per (task, target) with its self-predicted confidence and grade.

    Two protocols can be in the table: ours asks the confidence (`self_prediction`) and the task
    (`answer`) in separate fresh calls; the authors' v2 asked both in one `layer2` call. A task with
    both uses `layer2` when `prefer_layer2` (the upstream variant), else the separate calls. The
    natural / wagering channels of Exp3 never enter CCE."""
    target = pl.col("target").fill_null("composite") if "target" in frame.columns else pl.lit("composite")
    frame = frame.with_columns(target.alias("target"))
    keys = ["item_id", "target"]
    cols = [c for c in ("domain_a", "domain_b") if c in frame.columns]
    layer2 = frame.filter(pl.col("channel") == "layer2").select(*keys, "confidence", "correct", *cols).with_columns(pl.lit(0).alias("_source"))
    conf = frame.filter(pl.col("channel") == "self_prediction").select(*keys, "confidence")
    answer = frame.filter(pl.col("channel") == "answer").select(*keys, "correct", *cols)
    split = conf.join(answer, on=keys, how="full", coalesce=True).select(*keys, "confidence", "correct", *cols).with_columns(pl.lit(1).alias("_source"))
    both = pl.concat([layer2, split], how="diagonal_relaxed")
    order = [0, 1] if prefer_layer2 else [1, 0]
    both = both.with_columns(pl.col("_source").replace_strict({order[0]: 0, order[1]: 1}).alias("_rank"))
    first = both.sort("_rank", maintain_order=True).unique(keys, keep="first", maintain_order=True)
    appearance = frame.select(keys).unique(keep="first", maintain_order=True)
    return appearance.join(first.drop("_source", "_rank"), on=keys, how="inner")


def first_upstream_trial(frame: pl.DataFrame, keys: list[str]) -> pl.DataFrame:
    """The authors' Exp3 v2 rule: one trial per (task, channel), the first in file order, where an
    imported file repeated a task (`upstream_id` holds their id; `item_id` is unique per trial)."""
    if "upstream_id" not in frame.columns:
        return frame
    frame = frame.with_columns(pl.coalesce("upstream_id", "item_id").alias("item_id"))
    return frame.unique(keys, keep="first", maintain_order=True)


def score_exp3(frame: pl.DataFrame, *, variant: Variant, ci: CI = True, skipped: dict, profile: Mapping[str, float] | None = None, k: int = 2) -> dict:
    if variant == "upstream":
        frame = first_upstream_trial(frame, ["item_id", "channel", "target"] if "target" in frame.columns else ["item_id", "channel"])
    frame = latest_records(frame, "exp3")
    rows = exp3_task_rows(frame, prefer_layer2=variant == "upstream")
    composite = rows.filter(pl.col("target") == "composite")
    out: dict = {}
    if profile and {"domain_a", "domain_b"} <= set(composite.columns):
        # the difficulty-balanced error, strata from the model's own Exp1 weak set (median_or_bottom_k)
        out["cce_balanced"] = cce(
            composite["confidence"],
            composite["correct"],
            domain_a=composite["domain_a"],
            domain_b=composite["domain_b"],
            weak_domains=weak_domains(profile, k=k),
            variant="balanced",
            ci=ci,
        )
    if variant == "upstream":
        return {"cce": cce(composite["confidence"], composite["correct"], variant="upstream", ci=ci), **out}
    component = rows.filter(pl.col("target") == "component_a").select(
        "item_id", pl.col("confidence").alias("component_confidence"), pl.col("correct").alias("component_correct")
    )
    if component.height == 0:
        skipped["cce"] = "variant 'paper' needs the primary component asked alone (exp3 trials with target=component_a); use --variant upstream for mean |confidence - correct|"
        return out
    paired = composite.join(component, on="item_id", how="inner")
    return {
        "cce": cce(
            paired["confidence"],
            paired["correct"],
            component_confidence=paired["component_confidence"],
            component_correct=paired["component_correct"],
            variant="paper",
            ci=ci,
        ),
        **out,
    }


# ------------------------------------------------------------------------------------------------
# Exp9
# ------------------------------------------------------------------------------------------------


def exp9_labelled(trials: pl.DataFrame, *, options: SuiteOptions, profile: Mapping[str, float] | None) -> pl.DataFrame:
    """One model's Exp9 component table, de-duplicated and labelled under the options' weak policy."""
    return label_components(latest_records(trials, "exp9"), policy=options.exp9_policy, profile=profile, k=options.k)



def score_exp9(
    trials: pl.DataFrame,
    *,
    options: SuiteOptions,
    profile: Mapping[str, float] | None,
    gaps: Mapping[str, float] | None,
    model_gap: float | None,
    components: pl.DataFrame | None = None,
    view: ComponentView | None = None,
    agreement: dict | None = None,
) -> dict:
    """`components`, `view`: the model's labelled component table (`exp9_labelled`) and its
    `component_view` under `options.missing`, if already built; `agreement`: the model's mean Exp1
    sample agreement per (domain, subcategory) (the sampling self-consistency baseline)."""
    if components is None:
        components = exp9_labelled(trials, options=options, profile=profile)
    ci, missing = options.ci, options.missing
    if gaps is None:
        gaps = domain_gaps_from_components(components)
    view = component_view(view if view is not None else components, missing)
    out: dict = {"cfr": cfr_by_condition(view, frame=CFR_FRAME, missing=missing, ci=ci)}
    out["cfr_table_c1"] = cfr(view, frame=CFR_TABLE_FRAME, condition="C1", missing=missing, ci=ci)
    out["udr"] = udr(view, frame=CFR_TABLE_FRAME, condition="C1", missing=missing, ci=ci)
    out["appropriate_action_rate"] = appropriate_action_rate(view, frame=CFR_TABLE_FRAME, condition="C1", missing=missing, ci=ci)
    out["kdi"] = kdi(view, variant=options.variant, gap_by_domain=gaps, model_gap=model_gap, missing=missing, ci=ci)
    out.update(model_extras(components, view, missing=missing, ci=ci, agreement=agreement))
    return out


# ------------------------------------------------------------------------------------------------
# The suite
# ------------------------------------------------------------------------------------------------


def _to_json(value):
    if isinstance(value, Estimate):
        return value.to_json()
    if isinstance(value, dict):
        return {k: _to_json(v) for k, v in value.items()}
    return value


OPEN_SUFFIX = " [open]"  # trials asked with --answer-format open are scored as their own entry


def _by_model(frame: pl.DataFrame | None) -> dict[str, pl.DataFrame]:
    """Trials per scored entry: the model, and "<model> [open]" for its open-format trials (the two
    formats measure different things and are never pooled; choices is the default and the paper's)."""
    if frame is None or frame.height == 0:
        return {}
    if "answer_format" in frame.columns:
        model = pl.col("model")
        frame = frame.with_columns(pl.when(pl.col("answer_format") == "open").then(model + OPEN_SUFFIX).otherwise(model).alias("model"))
    runs = frame["model"].rle()
    values = runs.struct.field("value")
    if values.n_unique() == len(values):
        # each model's trials are contiguous (as written, one split per model): zero-copy slices give
        # the same frames as partition_by, without copying every column
        starts = np.concatenate([[0], np.cumsum(runs.struct.field("len").to_numpy())[:-1]])
        lengths = runs.struct.field("len").to_list()
        return {m: frame.slice(int(o), n) for m, o, n in zip(values.to_list(), starts, lengths) if m is not None}
    return {key[0]: part for key, part in frame.partition_by("model", as_dict=True, maintain_order=True).items() if key[0] is not None}


@dataclass
class ModelContext:
    """What one model's scorers share: the options, and what its Exp1 scores give the others (the
    natural-accuracy profile, the per-domain and model Mirror gaps), plus notes on skipped metrics."""

    options: SuiteOptions
    profile: dict[str, float] | None = None
    gaps: dict[str, float] | None = None
    model_gap: float | None = None
    notes: dict[str, str] = field(default_factory=dict)
    agreement: dict | None = None  # mean Exp1 sample agreement per (domain, subcategory) (Exp9's sampling baseline)
    exp9_components: pl.DataFrame | None = None  # the labelled Exp9 components (the cross-model Exp9 statistics reuse them)
    exp9_profile: dict[str, float] | None = None  # the profile they were labelled from
    exp9_view: ComponentView | None = None  # their component_view under options.missing


Scorer = Callable[[pl.DataFrame, ModelContext], dict | None]


def _exp1(frame: pl.DataFrame, ctx: ModelContext) -> dict:
    frame = latest_records(frame, "exp1")
    scores = _score_exp1_latest(frame, ci=ctx.options.ci)
    ctx.profile = profile_of(scores.get("natural_accuracy_by_domain", {})) or None  # = natural_profile(frame)
    ctx.agreement = subcategory_agreement(frame)
    by_domain = scores.get("mirror_gap_by_domain")
    if by_domain:
        ctx.gaps = {d: e.value for d, e in by_domain.items()}
        ctx.model_gap = scores["mirror_gap"].value
    return scores


def _exp2(frame: pl.DataFrame, ctx: ModelContext) -> dict | None:
    if not ctx.profile:
        ctx.notes["tii"] = "needs the model's Exp1 natural accuracy per domain (no trials_exp1 for it)"
        return None
    return score_exp2(frame, ctx.profile, variant=ctx.options.variant, ci=ctx.options.ci)


def _exp3(frame: pl.DataFrame, ctx: ModelContext) -> dict | None:
    o = ctx.options
    return score_exp3(frame, variant=o.variant, ci=o.ci, skipped=ctx.notes, profile=ctx.profile, k=o.k) or None


def _exp4(frame: pl.DataFrame, ctx: ModelContext) -> dict | None:
    return score_exp4(frame, variant=ctx.options.variant, ci=ctx.options.ci) or None


def _exp5(frame: pl.DataFrame, ctx: ModelContext) -> dict | None:
    return score_exp5(frame, variant=ctx.options.variant, ci=ctx.options.ci) or None


def _exp6b(frame: pl.DataFrame, ctx: ModelContext) -> dict | None:
    return score_exp6b(frame, ci=ctx.options.ci) or None


def _exp6a(frame: pl.DataFrame, ctx: ModelContext) -> dict | None:
    return score_exp6a(frame, ci=ctx.options.ci) or None


def _exp6c(frame: pl.DataFrame, ctx: ModelContext) -> dict | None:
    return score_exp6c(frame, ci=ctx.options.ci) or None


def _exp9(frame: pl.DataFrame, ctx: ModelContext) -> dict:
    ctx.exp9_profile = ctx.profile
    ctx.exp9_components = exp9_labelled(frame, options=ctx.options, profile=ctx.profile)
    ctx.exp9_view = component_view(ctx.exp9_components, ctx.options.missing)
    return score_exp9(frame, options=ctx.options, profile=ctx.profile, gaps=ctx.gaps, model_gap=ctx.model_gap,
                      components=ctx.exp9_components, view=ctx.exp9_view, agreement=ctx.agreement)


#: experiment -> its scorer, Exp1 first (the others read the profile it leaves in the context).
#: The experiment specs (`mirror_hf.experiments`) point at these.
SCORERS: dict[str, Scorer] = {"exp1": _exp1, "exp2": _exp2, "exp3": _exp3, "exp4": _exp4, "exp5": _exp5, "exp6a": _exp6a, "exp6b": _exp6b,
                              "exp6c": _exp6c, "exp9": _exp9}


def score_tables(
    *,
    exp1: pl.DataFrame | None = None,
    exp2: pl.DataFrame | None = None,
    exp3: pl.DataFrame | None = None,
    exp9: pl.DataFrame | None = None,
    upstream_cfr: pl.DataFrame | None = None,
    options: SuiteOptions = SuiteOptions(),
    workers: int = 2,
    tables: Mapping[str, pl.DataFrame | None] | None = None,
    scorers: Mapping[str, Scorer] | None = None,
) -> ScoreResult:
    """Every metric the tables support, per model, plus the escalation aggregate.

    `tables`: experiment -> trial table (all splits); the `exp1=...` keywords are the same thing.
    `scorers`: experiment -> scorer, run in that order (default `SCORERS`).
    `upstream_cfr`: per-model CFR already aggregated by the authors (columns model, condition, cfr);
    used for models that have no Exp9 trials here."""
    given = {"exp1": exp1, "exp2": exp2, "exp3": exp3, "exp9": exp9, **(tables or {})}
    scorers = dict(scorers if scorers is not None else SCORERS)
    models: dict[str, dict] = {}
    skipped: dict[str, dict] = {}
    by_model = {name: _by_model(given.get(name)) for name in scorers}
    names = sorted(set().union(*(set(t) for t in by_model.values())) if by_model else set())
    per_model_cfr: dict[str, dict[str, float | None]] = {}

    def one_model(model: str) -> tuple[dict, ModelContext]:
        ctx = ModelContext(options)
        entry: dict = {}
        for experiment, scorer in scorers.items():
            frame = by_model[experiment].get(model)
            if frame is None:
                continue
            scores = scorer(frame, ctx)
            if scores:
                entry[experiment] = scores
        return entry, ctx

    # Models are independent and numpy releases the GIL in the resampling, so two threads use both
    # cores; every metric seeds its own generator, so results do not depend on the scheduling.
    workers = max(1, workers) if options.ci else 1  # point estimates alone are faster in one thread
    # The model threads fill the cores, so BLAS threads inside them only oversubscribe (OpenBLAS's
    # idle threads spin: the CI run took ~10-15% more CPU seconds with them); one BLAS thread each.
    blas = threadpool_limits(1, user_api="blas") if workers > 1 else nullcontext()
    with blas, ThreadPoolExecutor(max_workers=workers) as pool:
        results = list(pool.map(one_model, names))
    contexts = {model: ctx for model, (_, ctx) in zip(names, results)}
    for model, (entry, ctx) in zip(names, results):
        notes = ctx.notes
        if "exp9" in entry:
            per_model_cfr[model] = {c: e.value if e.defined else None for c, e in entry["exp9"]["cfr"].items()}
        models[model] = _to_json(entry)
        if notes:
            skipped[model] = notes
    if upstream_cfr is not None and upstream_cfr.height:
        for model, part in _by_model(upstream_cfr).items():
            if model in per_model_cfr:
                continue
            values = {row["condition"]: row["cfr"] for row in part.iter_rows(named=True)}
            per_model_cfr[model] = values
            exp9_entry = models.setdefault(model, {}).setdefault("exp9", {})
            exp9_entry["cfr"] = {
                c: {"value": v, "n": None, "source": "upstream aggregate (per-model CFR as published)"}
                for c, v in sorted(values.items())
            }
    out: dict = {"models": models, "aggregate": {}}
    if per_model_cfr:
        conditions = tuple(c for c in CONDITIONS if any(c in v for v in per_model_cfr.values()))
        if len(conditions) >= 2:
            out["aggregate"]["escalation"] = escalation_to_json(
                escalation_curve(per_model_cfr, conditions=conditions, ci=options.ci)
            )
    vrs_by_model = {m: e["exp6c"]["vrs"] for m, e in models.items() if "vrs" in e.get("exp6c", {})}
    correlation = robustness_correlation(vrs_by_model) if vrs_by_model else None
    if correlation is not None:
        out["aggregate"]["exp6c_robustness_correlation"] = correlation
    exp9_by = by_model.get("exp9") or {}
    if exp9_by:
        out["aggregate"].update(_exp9_aggregate(exp9_by, by_model.get("exp1") or {}, models, given.get("exp1"), options, contexts, scorers))
    if skipped:
        out["skipped"] = skipped
    return out


def _exp9_aggregate(exp9_by: dict, exp1_by: dict, models: dict, exp1, options: SuiteOptions,
                    contexts: Mapping[str, ModelContext] | None = None, scorers: Mapping[str, Scorer] = SCORERS) -> dict:
    """Cross-model Exp9 statistics (per-paradigm and fixed-frame curves, money plot, temperature).
    A model's labelled components and profile come from its scoring context when the Exp1 and Exp9
    scorers left them there (the same tables, the same rule), else they are rebuilt."""
    components, views, gaps, accuracy = {}, {}, {}, {}
    order = list(scorers)
    exp1_first = scorers.get("exp1") is _exp1 and "exp9" in scorers and order.index("exp1") < order.index("exp9")
    for model, trials in exp9_by.items():
        ctx = (contexts or {}).get(model)
        reuse = ctx is not None and ctx.exp9_components is not None and (exp1_first or (model not in exp1_by and ctx.exp9_profile is None))
        if reuse:
            profile, components[model] = ctx.exp9_profile, ctx.exp9_components
            if ctx.exp9_view is not None:
                views[model] = ctx.exp9_view
        else:
            profile = natural_profile(latest_records(exp1_by[model], "exp1")) if model in exp1_by else None
            components[model] = label_components(latest_records(trials, "exp9"), policy=options.exp9_policy, profile=profile or None, k=options.k)
        if profile:
            accuracy[model] = profile
        by_domain = models.get(model, {}).get("exp1", {}).get("mirror_gap_by_domain")
        if by_domain:
            gaps[model] = {d: e.get("value") for d, e in by_domain.items()}
    return to_json(aggregate_extras(
        models, components, gap_by_model=gaps, accuracy_by_model=accuracy, exp1=exp1, missing=options.missing, ci=options.ci,
        views_by_model=views,
    ))
