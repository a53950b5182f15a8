"""Each experiment's metrics over one model's de-duplicated trials, and its `Scorer` (`EXP1` ...
`EXP9`, which the experiment specs point at); `mirror_hf.scoring._tables` runs them.

Variant switch (`variant="paper"` default, or `"upstream"`): TII absolute vs signed, CCE composite-
minus-component vs mean |confidence - correct|, KDI model-level vs mean over weak domains, and the
weak-domain labels for Exp9 (paper: median_or_bottom_k over the model's Exp1 natural accuracy;
upstream: the labels the runner recorded, i.e. its thresholds). Metrics the tables cannot support
under the chosen variant are listed under `skipped` with the reason, never silently invented.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np
import polars as pl

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
from mirror_hf.scoring._mci import behavioural_channels, channel_signal, mci
from mirror_hf.scoring._options import SuiteOptions
from mirror_hf.scoring._schema import (
    Exp1Scores,
    Exp2Scores,
    Exp3Scores,
    Exp4Scores,
    Exp5Scores,
    Exp6aScores,
    Exp6bScores,
    Exp6cScores,
    Exp9Scores,
    Variant,
)
from mirror_hf.scoring._signals import signal_scores, subcategory_agreement, tracking_scores
from mirror_hf.scoring._tables import by_model
from mirror_hf.scoring._tii import tii, verbal_transfer
from mirror_hf.scoring._units import (
    PROFILE_PHASE,
    Aggregated,
    AggregateInput,
    ModelContext,
    Profile,
    SampleAgreement,
    Scored,
    Scorer,
)
from mirror_hf.scoring._value_robustness import robustness_correlation
from mirror_hf.scoring._weak import weak_domains


def _col(frame: pl.DataFrame, name: str, dtype: type[pl.DataType] | None = None) -> pl.Series:
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
    """Exp1's metrics from one model's de-duplicated trials (`latest_records`)."""
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
    """One model's Exp9 component table (trials de-duplicated), labelled under the options' weak policy."""
    return label_components(trials, policy=options.exp9_policy, profile=profile, k=options.k)



def score_exp9(
    trials: pl.DataFrame,
    *,
    options: SuiteOptions,
    profile: Mapping[str, float] | None,
    gaps: Mapping[str, float] | None,
    model_gap: float | None,
    components: pl.DataFrame | None = None,
    view: ComponentView | None = None,
    agreement: SampleAgreement | None = None,
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
# The scorers: one per experiment, pointed at by its spec (`Experiment.scorer_ref`)
# ------------------------------------------------------------------------------------------------


def _exp1(frame: pl.DataFrame, ctx: ModelContext) -> Scored:
    scores = score_exp1(frame, ci=ctx.options.ci)
    by_domain = scores.get("mirror_gap_by_domain")
    profile = Profile(
        natural=profile_of(scores.get("natural_accuracy_by_domain", {})) or None,  # = natural_profile(frame)
        gaps={d: e.value for d, e in by_domain.items()} if by_domain else None,
        model_gap=scores["mirror_gap"].value if by_domain else None,
        agreement=subcategory_agreement(frame),
    )
    return Scored(scores, profile=profile)


def _exp2(frame: pl.DataFrame, ctx: ModelContext) -> Scored:
    if not ctx.profile.natural:
        return Scored({}, notes={"tii": "needs the model's Exp1 natural accuracy per domain (no trials_exp1 for it)"})
    return Scored(score_exp2(frame, ctx.profile.natural, variant=ctx.options.variant, ci=ctx.options.ci))


def _exp3(frame: pl.DataFrame, ctx: ModelContext) -> Scored:
    o = ctx.options
    notes: dict[str, str] = {}
    scores = score_exp3(frame, variant=o.variant, ci=o.ci, skipped=notes, profile=ctx.profile.natural, k=o.k)
    return Scored(scores, notes=notes)


def _exp4(frame: pl.DataFrame, ctx: ModelContext) -> Scored:
    return Scored(score_exp4(frame, variant=ctx.options.variant, ci=ctx.options.ci))


def _exp5(frame: pl.DataFrame, ctx: ModelContext) -> Scored:
    return Scored(score_exp5(frame, variant=ctx.options.variant, ci=ctx.options.ci))


def _exp6a(frame: pl.DataFrame, ctx: ModelContext) -> Scored:
    return Scored(score_exp6a(frame, ci=ctx.options.ci))


def _exp6b(frame: pl.DataFrame, ctx: ModelContext) -> Scored:
    return Scored(score_exp6b(frame, ci=ctx.options.ci))


def _exp6c(frame: pl.DataFrame, ctx: ModelContext) -> Scored:
    return Scored(score_exp6c(frame, ci=ctx.options.ci))


def _exp6c_aggregate(given: AggregateInput) -> Aggregated:
    """Over models: value robustness against capability robustness."""
    vrs_by_model = {m: e["exp6c"]["vrs"] for m, e in given.models.items() if "vrs" in e.get("exp6c", {})}
    correlation = robustness_correlation(vrs_by_model) if vrs_by_model else None
    return Aggregated({"exp6c_robustness_correlation": correlation} if correlation is not None else {})


@dataclass(frozen=True)
class Exp9State:
    """A model's labelled Exp9 components and their view under `options.missing` (the cross-model
    statistics reuse them rather than rebuild them)."""

    components: pl.DataFrame
    view: ComponentView


def _exp9(frame: pl.DataFrame, ctx: ModelContext) -> Scored:
    options, profile = ctx.options, ctx.profile
    components = label_components(frame, policy=options.exp9_policy, profile=profile.natural, k=options.k)
    view = component_view(components, options.missing)
    scores = score_exp9(frame, options=options, profile=profile.natural, gaps=profile.gaps, model_gap=profile.model_gap,
                        components=components, view=view, agreement=profile.agreement)
    return Scored(scores, state=Exp9State(components, view))


def _exp9_aggregate(given: AggregateInput) -> Aggregated:
    """The escalation curve over models (with the authors' published per-model CFR for models without
    Exp9 trials here), and the cross-model Exp9 statistics (per-paradigm and fixed-frame curves, money
    plot, temperature)."""
    options = given.options
    per_model_cfr: dict[str, dict[str, float | None]] = {
        m: {c: e.get("value") for c, e in given.models[m]["exp9"]["cfr"].items()}
        for m in given.states if "cfr" in given.models.get(m, {}).get("exp9", {})
    }
    added: dict[str, dict] = {}
    if given.upstream_cfr is not None and given.upstream_cfr.height:
        for model, part in by_model(given.upstream_cfr).items():
            if model in per_model_cfr:
                continue
            values = {row["condition"]: row["cfr"] for row in part.iter_rows(named=True)}
            per_model_cfr[model] = values
            added[model] = {"cfr": {c: {"value": v, "n": None, "source": "upstream aggregate (per-model CFR as published)"}
                                    for c, v in sorted(values.items())}}
    aggregate: dict = {}
    if per_model_cfr:
        conditions = tuple(c for c in CONDITIONS if any(c in v for v in per_model_cfr.values()))
        if len(conditions) >= 2:
            aggregate["escalation"] = escalation_to_json(escalation_curve(per_model_cfr, conditions=conditions, ci=options.ci))
    if given.states:
        states: Mapping[str, Exp9State] = given.states
        profiles = {m: given.profiles[m] for m in states if m in given.profiles}
        aggregate.update(to_json(aggregate_extras(
            given.models, {m: s.components for m, s in states.items()},
            gap_by_model={m: dict(p.gaps) for m, p in profiles.items() if p.gaps},
            accuracy_by_model={m: dict(p.natural) for m, p in profiles.items() if p.natural},
            exp1=given.tables.get("exp1"), missing=options.missing, ci=options.ci,
            views_by_model={m: s.view for m, s in states.items()},
        )))
    return Aggregated(aggregate, added)


EXP1 = Scorer(_exp1, Exp1Scores, phase=PROFILE_PHASE)
EXP2 = Scorer(_exp2, Exp2Scores)
EXP3 = Scorer(_exp3, Exp3Scores)
EXP4 = Scorer(_exp4, Exp4Scores)
EXP5 = Scorer(_exp5, Exp5Scores)
EXP6A = Scorer(_exp6a, Exp6aScores)
EXP6B = Scorer(_exp6b, Exp6bScores)
EXP6C = Scorer(_exp6c, Exp6cScores, aggregate=_exp6c_aggregate)
EXP9 = Scorer(_exp9, Exp9Scores, aggregate=_exp9_aggregate)
