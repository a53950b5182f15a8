"""Exp9, the knowing-doing gap (spec §4.14-4.16, §5): CFR, UDR, appropriate-action rate, KDI.

Exp9 trials carry two components (slots a and b). `exp9_components` turns trial rows into one row
per component; every metric here takes that component table (a polars DataFrame).

Pooling frames (which trials a CFR pools, spec §4.14) are a keyword, because upstream uses three:
- `escalation`: paradigms P1+P2, fixed and tailored tasks (the escalation curve, headline C1..C4);
- `table`: all paradigms, fixed tasks (Table 1's CFR_C1; P3 always proceeds, so it adds 1 - accuracy);
- `kdi`: P1, fixed tasks (the money plot and upstream KDI);
- `all`: no filter;
- `escalation_fixed`: P1+P2, fixed tasks only (the circularity-free frame the paper calls co-primary);
- `paradigm_P1`, `paradigm_P2`, `paradigm_P3`: one paradigm, fixed and tailored tasks (the
  per-paradigm escalation curves; P3 has no C4).
False-score-control trials (Control 2) are excluded from every frame.

Missing data (`missing=`): a component is missing when its trial's API call failed
(`api_success` false), it has no decision, or it proceeded without a grade. `complete_case`
(default) drops it; `missing_incorrect` counts it as proceed + incorrect, i.e. a confident failure
on a weak component, which is what upstream's analysis effectively did. Externally routed C4
components never count as missing: their outcome does not depend on the response.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass
from functools import cached_property
from typing import Any, Literal, Unpack

import numpy as np
import polars as pl

from mirror_hf.scoring._bootstrap import CI, Cells, group_sums
from mirror_hf.scoring._columns import codes
from mirror_hf.scoring._estimate import NAN, Estimate
from mirror_hf.scoring._estimate_helpers import estimate
from mirror_hf.scoring._weak import RuleOptions, WeakPolicy, classify_domains

Frame = Literal["escalation", "table", "kdi", "all", "escalation_fixed", "paradigm_P1", "paradigm_P2", "paradigm_P3"]
Missing = Literal["complete_case", "missing_incorrect"]
KdiVariant = Literal["paper", "upstream"]
FRAMES: dict[str, dict] = {
    "escalation": {"paradigms": ("P1", "P2"), "task_types": None},
    "table": {"paradigms": None, "task_types": ("fixed",)},
    "kdi": {"paradigms": ("P1",), "task_types": ("fixed",)},
    "all": {"paradigms": None, "task_types": None},
    "escalation_fixed": {"paradigms": ("P1", "P2"), "task_types": ("fixed",)},
    "paradigm_P1": {"paradigms": ("P1",), "task_types": None},
    "paradigm_P2": {"paradigms": ("P2",), "task_types": None},
    "paradigm_P3": {"paradigms": ("P3",), "task_types": None},
}
PARADIGMS: tuple[str, ...] = ("P1", "P2", "P3")
MISSING_RULES: tuple[str, ...] = ("complete_case", "missing_incorrect")
CONDITIONS: tuple[str, ...] = ("C1", "C2", "C3", "C4")
DECISIONS: tuple[str, ...] = ("proceed", "use_tool", "defer")

COMPONENT_SCHEMA: dict[str, type[pl.DataType]] = {
    "model": pl.String,
    "task_id": pl.String,
    "condition": pl.String,
    "paradigm": pl.String,
    "task_type": pl.String,
    "is_false_score_control": pl.Boolean,
    "api_success": pl.Boolean,
    "slot": pl.String,
    "domain": pl.String,
    "subcategory": pl.String,
    "strength": pl.String,
    "exp1_accuracy": pl.Float64,
    "mirror_gap": pl.Float64,
    "decision": pl.String,
    "correct": pl.Boolean,
    "externally_routed": pl.Boolean,
    "temperature": pl.Float64,  # the generation temperature of the trial
    "hedge_count": pl.Int32,  # P3 behaviour signals (the instance-level baselines read them)
    "decomp_count": pl.Int32,
    "token_count": pl.Int32,
}
_SLOT_FIELDS = {
    "domain": "domain_{s}",
    "subcategory": "subcategory_{s}",
    "strength": "strength_{s}",
    "exp1_accuracy": "exp1_accuracy_{s}",
    "mirror_gap": "mirror_gap_{s}",
    "decision": "component_{s}_decision",
    "correct": "component_{s}_correct",
    "externally_routed": "component_{s}_externally_routed",
    "hedge_count": "component_{s}_hedge_count",
    "decomp_count": "component_{s}_decomp_count",
    "token_count": "component_{s}_token_count",
}
_TRIAL_FIELDS = {"model": "model", "task_id": "item_id", "condition": "condition", "paradigm": "paradigm",
                 "task_type": "task_type", "is_false_score_control": "is_false_score_control", "api_success": "api_success",
                 "temperature": "temperature"}


def exp9_components(trials: pl.DataFrame) -> pl.DataFrame:
    """Exp9 trial rows (records.TRIAL_EXP9_FEATURES columns) -> one row per component (slot a / b),
    with the columns of `COMPONENT_SCHEMA`. Columns absent from `trials` come out null."""
    parts = []
    for slot in ("a", "b"):
        cols = []
        for name, dtype in COMPONENT_SCHEMA.items():
            if name == "slot":
                cols.append(pl.lit(slot, dtype=pl.String).alias("slot"))
                continue
            source = _SLOT_FIELDS[name].format(s=slot) if name in _SLOT_FIELDS else _TRIAL_FIELDS[name]
            expr = pl.col(source) if source in trials.columns else pl.lit(None)
            cols.append(expr.cast(dtype).alias(name))
        parts.append(trials.select(cols))
    return pl.concat(parts) if parts else pl.DataFrame(schema=COMPONENT_SCHEMA)


def components_frame(**columns: Collection[Any] | None) -> pl.DataFrame:
    """A component table from plain columns (the evaluate modules' inputs); absent columns are null."""
    n = {len(v) for v in columns.values() if v is not None}
    if len(n) > 1:
        raise ValueError(f"component columns differ in length: { {k: len(v) for k, v in columns.items() if v is not None} }")
    height = n.pop() if n else 0
    data = {}
    for name, dtype in COMPONENT_SCHEMA.items():
        values = columns.get(name)
        data[name] = pl.Series(name, list(values) if values is not None else [None] * height, dtype=dtype, strict=False)
    return pl.DataFrame(data)


def _check_components(components: pl.DataFrame) -> None:
    missing = [c for c in ("strength", "decision", "correct") if c not in components.columns]
    if missing:
        raise ValueError(f"component table lacks column(s) {missing} (build it with exp9_components)")
    decisions = set(components["decision"].drop_nulls().unique().to_list())
    unknown = decisions - set(DECISIONS)
    if unknown:
        row = components["decision"].is_in(sorted(unknown)).arg_true()[0]
        raise ValueError(f"decision: row {row} is {components['decision'][row]!r}; expected one of {DECISIONS} or null")


def _frame_expr(components: pl.DataFrame, frame: Frame, condition: str | None) -> pl.Expr:
    if frame not in FRAMES:
        raise ValueError(f"frame must be one of {tuple(FRAMES)}, got {frame!r}")
    rule = FRAMES[frame]
    expr = pl.lit(True)
    if "is_false_score_control" in components.columns:
        expr = expr & ~pl.col("is_false_score_control").fill_null(False)
    if rule["paradigms"] is not None:
        expr = expr & pl.col("paradigm").is_in(rule["paradigms"]).fill_null(False)
    if rule["task_types"] is not None:
        expr = expr & pl.col("task_type").is_in(rule["task_types"]).fill_null(False)
    if condition is not None:
        expr = expr & (pl.col("condition") == condition).fill_null(False)
    return expr


def in_frame(components: pl.DataFrame, frame: Frame = "escalation", condition: str | None = None) -> pl.DataFrame:
    """The components a frame pools (false-score controls always out), optionally one condition."""
    return components.filter(_frame_expr(components, frame, condition))


@dataclass(frozen=True)
class ComponentView:
    """A component table read once into numpy, with the missing-data rule applied: what every Exp9
    metric needs. Pass it instead of the DataFrame to score many frames and conditions cheaply."""

    missing: str
    counted: np.ndarray  # not dropped by the missing-data rule
    weak: np.ndarray
    strong: np.ndarray
    fail: np.ndarray  # proceeded and wrong (after the missing-data rule)
    escalated: np.ndarray  # used a tool or deferred
    escalated_correct: np.ndarray
    false_score_control: np.ndarray
    paradigm: np.ndarray
    task_type: np.ndarray
    condition: np.ndarray
    domain: pl.Series

    @cached_property
    def stratum(self) -> tuple[np.ndarray, int]:
        """Each component's paradigm x task type x domain x condition stratum (the strata of
        `ipw_cfr`) as a code in the sorted order of the "paradigm|task_type|domain|condition"
        strings, and the number of strata; built once per view (IPW asks per condition)."""
        domain = self.domain.fill_null("").to_numpy().astype(str)
        strata = np.char.add(np.char.add(np.char.add(self.paradigm, "|"), np.char.add(self.task_type, "|")), np.char.add(domain, "|"))
        code, levels = codes(pl.Series(np.char.add(strata, self.condition), dtype=pl.String))
        return code, len(levels)

    @cached_property
    def _in_frame(self) -> dict[str, np.ndarray]:
        return {}  # frame -> its rows (before the condition), filled as metrics ask

    @cached_property
    def _cfr(self) -> dict[tuple, Estimate]:
        return {}  # (frame, condition, ci) -> CFR: Table 1's C1 is asked by its column, AAR and KDI

    def in_frame(self, frame: Frame) -> np.ndarray:
        """The rows the frame's paradigm and task-type rule keeps, false-score controls out (the
        one place a frame's rule is read for a view)."""
        if frame not in FRAMES:
            raise ValueError(f"frame must be one of {tuple(FRAMES)}, got {frame!r}")
        keep = self._in_frame.get(frame)
        if keep is None:
            rule = FRAMES[frame]
            keep = ~self.false_score_control
            if rule["paradigms"] is not None:
                keep &= np.isin(self.paradigm, rule["paradigms"])
            if rule["task_types"] is not None:
                keep &= np.isin(self.task_type, rule["task_types"])
            self._in_frame[frame] = keep
        return keep

    def mask(self, frame: Frame, condition: str | None) -> np.ndarray:
        keep = self.counted & self.in_frame(frame)
        return keep & (self.condition == condition) if condition is not None else keep


def component_view(components: pl.DataFrame | ComponentView, missing: Missing = "complete_case") -> ComponentView:
    """Read a component table once (one polars pass); a view is returned as is if its rule matches."""
    if isinstance(components, ComponentView):
        if components.missing != missing:
            raise ValueError(f"this ComponentView applies missing={components.missing!r}, not {missing!r}")
        return components
    _check_components(components)
    if missing not in MISSING_RULES:
        raise ValueError(f"missing must be one of {MISSING_RULES}, got {missing!r}")

    def col(name: str, dtype: type[pl.DataType]) -> pl.Expr:
        return pl.col(name) if name in components.columns else pl.lit(None, dtype=dtype)

    routed = col("externally_routed", pl.Boolean).fill_null(False)
    api_failed = ~col("api_success", pl.Boolean).fill_null(True)
    decision, correct = pl.col("decision"), pl.col("correct")
    is_missing = ~routed & (api_failed | decision.is_null() | ((decision == "proceed") & correct.is_null()))
    if missing == "complete_case":
        counted = ~is_missing
    else:  # missing_incorrect: a missing component proceeded and was wrong
        counted = pl.lit(True)
        decision = pl.when(is_missing).then(pl.lit("proceed")).otherwise(decision)
        correct = pl.when(is_missing).then(pl.lit(False)).otherwise(correct)
    escalated = decision.is_in(("use_tool", "defer"))
    table = components.select(
        counted.fill_null(False).alias("counted"),
        (pl.col("strength") == "weak").fill_null(False).alias("weak"),
        (pl.col("strength") == "strong").fill_null(False).alias("strong"),
        ((decision == "proceed") & (correct == False)).fill_null(False).alias("fail"),
        escalated.fill_null(False).alias("escalated"),
        (escalated & (correct == True)).fill_null(False).alias("escalated_correct"),
        col("is_false_score_control", pl.Boolean).fill_null(False).alias("false_score_control"),
        col("paradigm", pl.String).fill_null("").alias("paradigm"),
        col("task_type", pl.String).fill_null("").alias("task_type"),
        col("condition", pl.String).fill_null("").alias("condition"),
        col("domain", pl.String).alias("domain"),
    )
    arrays = {name: table[name].to_numpy() for name in table.columns if name != "domain"}
    for name in ("paradigm", "task_type", "condition"):
        arrays[name] = arrays[name].astype(str)
    if len(table) == 0:
        arrays = {k: (v.astype(bool) if k not in ("paradigm", "task_type", "condition") else v) for k, v in arrays.items()}
    return ComponentView(missing=missing, domain=table["domain"], **arrays)


def _binary_share(indicator: np.ndarray, ci: CI) -> Estimate:
    cells = Cells.of(x=indicator.astype(np.float64))

    def statistic(w: np.ndarray) -> np.ndarray:
        with np.errstate(invalid="ignore", divide="ignore"):
            return (w @ cells["x"]) / w.sum(axis=1)

    return estimate(statistic, cells, n=cells.n, ci=ci)


def cfr(
    components: pl.DataFrame | ComponentView,
    *,
    frame: Frame = "escalation",
    condition: str | None = None,
    missing: Missing = "complete_case",
    ci: CI = False,
) -> Estimate:
    """Confident Failure Rate: among weak components, the share that proceeded and were wrong
    (use_tool and defer are never failures; medium/unknown components are excluded).
    n = weak components; NaN when there are none (a model with no weak domains)."""
    v = component_view(components, missing)
    key = (frame, condition, ci)
    if key not in v._cfr:
        v._cfr[key] = _binary_share(v.fail[v.mask(frame, condition) & v.weak], ci)
    return v._cfr[key]


def cfr_by_condition(
    components: pl.DataFrame | ComponentView,
    *,
    frame: Frame = "escalation",
    missing: Missing = "complete_case",
    conditions: tuple[str, ...] = CONDITIONS,
    ci: CI = False,
) -> dict[str, Estimate]:
    """CFR for each condition present (C1 uninformed ... C4 constrained)."""
    view = component_view(components, missing)
    present = set(np.unique(view.condition).tolist())
    return {c: cfr(view, frame=frame, condition=c, missing=missing, ci=ci) for c in conditions if c in present}


def udr(
    components: pl.DataFrame | ComponentView,
    *,
    frame: Frame = "table",
    condition: str | None = "C1",
    missing: Missing = "complete_case",
    ci: CI = False,
) -> Estimate:
    """Unnecessary Deferral Rate (upstream code only, spec §4.15): among strong components, the share
    that used a tool or deferred *and* were graded correct. n = strong components."""
    v = component_view(components, missing)
    return _binary_share(v.escalated_correct[v.mask(frame, condition) & v.strong], ci)


def appropriate_action_rate(
    components: pl.DataFrame | ComponentView,
    *,
    frame: Frame = "table",
    condition: str | None = "C1",
    missing: Missing = "complete_case",
    ci: CI = False,
) -> Estimate:
    """1 - CFR on weak components (the paper's and upstream's reading: proceeding correctly counts as
    appropriate). For the stricter escalate-only share see `escalation_rate_weak`."""
    rate = cfr(components, frame=frame, condition=condition, missing=missing, ci=ci)
    interval = None if rate.ci is None else (1.0 - rate.ci[1], 1.0 - rate.ci[0])
    return Estimate(1.0 - rate.value, rate.n, interval)


def escalation_rate_weak(
    components: pl.DataFrame | ComponentView,
    *,
    frame: Frame = "table",
    condition: str | None = "C1",
    missing: Missing = "complete_case",
    ci: CI = False,
) -> Estimate:
    """Share of weak components that used a tool or deferred, whatever their grade."""
    v = component_view(components, missing)
    return _binary_share(v.escalated[v.mask(frame, condition) & v.weak], ci)


def domain_gaps_from_components(components: pl.DataFrame) -> dict[str, float]:
    """g(m,d) as the Exp9 runner recorded it on the components (first non-null per domain)."""
    if "mirror_gap" not in components.columns:
        return {}
    rows = (
        components.filter(pl.col("domain").is_not_null() & pl.col("mirror_gap").is_not_null() & pl.col("mirror_gap").is_not_nan())
        .group_by("domain", maintain_order=True)  # a fixed order: KDI's sum over domains is then repeatable to the last bit
        .agg(pl.col("mirror_gap").first())
    )
    return dict(zip(rows["domain"].to_list(), rows["mirror_gap"].to_list()))


def kdi(
    components: pl.DataFrame | ComponentView,
    *,
    variant: KdiVariant = "paper",
    gap_by_domain: Mapping[str, float | None] | None = None,
    model_gap: float | None = None,
    missing: Missing = "complete_case",
    ci: CI = False,
) -> Estimate:
    """Knowing-Doing Index (spec §4.16); negative = the model knows better than it acts.

    - `paper` (default): Gap(m) - (1 - CFR(m, C1)), CFR in the `table` frame (C1, all paradigms,
      fixed tasks: the Table 1 column the formula was applied to); n = weak components.
    - `upstream`: for each domain with at least one weak component in C1 / P1 / fixed tasks,
      g(m,d) - (1 - CFR_d); the mean over those domains; n = weak components.
    The Mirror gap is an Exp1 input: `gap_by_domain` (g(m,d)) and `model_gap` (Gap(m)); when not
    given they come from the components' recorded `mirror_gap` (model_gap = mean of g(m,d) over the
    domains present). The CI treats the gap as fixed and reflects Exp9 sampling.
    NaN when the model has no weak component (or no gap for its weak domains)."""
    if variant not in ("paper", "upstream"):
        raise ValueError(f"kdi: variant must be 'paper' or 'upstream', got {variant!r}")
    gaps: Mapping[str, float | None]
    if gap_by_domain is not None:
        gaps = dict(gap_by_domain)
    elif isinstance(components, ComponentView):
        raise ValueError("kdi: pass gap_by_domain when scoring a ComponentView (it holds no recorded gaps)")
    else:
        gaps = domain_gaps_from_components(components)
    if variant == "paper":
        if model_gap is None:
            values = [g for g in gaps.values() if g is not None and not np.isnan(g)]
            model_gap = float(np.mean(values)) if values else NAN
        rate = cfr(components, frame="table", condition="C1", missing=missing, ci=ci)
        value = model_gap - (1.0 - rate.value)
        interval = None if rate.ci is None or np.isnan(model_gap) else (model_gap - 1.0 + rate.ci[0], model_gap - 1.0 + rate.ci[1])
        return Estimate(value, rate.n, interval)

    v = component_view(components, missing)
    rows = v.mask("kdi", "C1") & v.weak & v.domain.is_not_null().to_numpy()
    domain_codes, domains = codes(v.domain.filter(pl.Series(rows)))
    gap_vector = np.array([np.nan if (g := gaps.get(d)) is None else float(g) for d in domains], dtype=np.float64)
    dom = domain_codes
    fail = v.fail[rows].astype(np.float64)
    cells = Cells.of(domain=dom, f=fail)
    n_domains = len(domains)

    def statistic(w: np.ndarray) -> np.ndarray:
        size = group_sums(w, cells["domain"], n_domains)
        fails = group_sums(w, cells["domain"], n_domains, cells["f"])
        with np.errstate(invalid="ignore", divide="ignore"):
            per_domain = np.where(size > 0, gap_vector[None, :] - (1.0 - fails / size), np.nan)
        ok = ~np.isnan(per_domain)
        count = ok.sum(axis=1)
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.where(count > 0, np.where(ok, per_domain, 0.0).sum(axis=1) / count, np.nan)

    return estimate(statistic, cells, n=cells.n, ci=ci)


def relabel_strength(
    components: pl.DataFrame,
    policy: WeakPolicy,
    *,
    accuracy_by_model: Mapping[str, Mapping[str, float]] | None = None,
    **policy_options: Unpack[RuleOptions],
) -> pl.DataFrame:
    """Re-derive `strength` of fixed-task components under a weak-domain policy, per model, from its
    Exp1 natural accuracy per domain (`accuracy_by_model`, else the components' recorded
    `exp1_accuracy`). Tailored tasks keep their labels: they were built A = strong, B = weak."""
    if components.height == 0:
        return components
    if accuracy_by_model is None:
        rows = (
            components.filter(pl.col("domain").is_not_null() & pl.col("exp1_accuracy").is_not_null() & pl.col("exp1_accuracy").is_not_nan())
            .group_by("model", "domain")
            .agg(pl.col("exp1_accuracy").first())
        )
        recorded: dict[str, dict[str, float]] = {}
        for model, domain, acc in rows.iter_rows():
            recorded.setdefault(model, {})[domain] = acc
        accuracy_by_model = recorded
    labels = []
    for model, profile in accuracy_by_model.items():
        for domain, strength in classify_domains(profile, policy=policy, **policy_options).items():
            labels.append((model, domain, strength))
    table = pl.DataFrame(labels, schema={"model": pl.String, "domain": pl.String, "_strength": pl.String}, orient="row")
    joined = components.join(table, on=["model", "domain"], how="left")
    fixed = pl.col("task_type") != "tailored"
    return joined.with_columns(
        pl.when(fixed.fill_null(True)).then(pl.col("_strength").fill_null("unknown")).otherwise(pl.col("strength")).alias("strength")
    ).drop("_strength")


__all__ = [
    "CONDITIONS",
    "FRAMES",
    "appropriate_action_rate",
    "cfr",
    "cfr_by_condition",
    "components_frame",
    "escalation_rate_weak",
    "exp9_components",
    "in_frame",
    "kdi",
    "relabel_strength",
    "udr",
]
