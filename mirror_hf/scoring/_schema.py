"""The results schema of `mirror-hf score --json` (and of `score_tables`), as TypedDicts in the
manner of lm-evaluation-harness's `result_schema.py`: what a reader of the file can rely on.

Every number is an `EstimateJSON`: `value` (null when undefined for the input), `n` (the units it
rests on: records, questions, tasks, components or models, per metric), and `ci` (BCa 95%) when
CIs were asked for; some metrics add secondary keys (`pairs`, `channels`, ...). A metric the tables
cannot support is absent and, where a reason exists, named under `skipped`.
"""


import types
import typing
from typing import Any, Literal, NotRequired, TypedDict

Variant = Literal["paper", "upstream"]


class EstimateJSON(TypedDict):
    value: float | None
    n: int | None
    ci: NotRequired[list[float | None]]


class ReliabilityBin(TypedDict):
    """One non-empty bin of the ECE's reliability diagram."""

    lo: float
    hi: float
    n: int
    confidence: float  # mean stated confidence in the bin
    accuracy: float  # share correct in the bin


class Exp1Scores(TypedDict, total=False):
    natural_accuracy: EstimateJSON
    wagering_accuracy: EstimateJSON
    mirror_gap: EstimateJSON
    mirror_gap_by_domain: dict[str, EstimateJSON]
    natural_accuracy_by_domain: dict[str, EstimateJSON]
    wagering_accuracy_by_domain: dict[str, EstimateJSON]
    reliability: list[ReliabilityBin]  # the ECE's non-empty bins, for the reliability diagram
    ece: EstimateJSON
    brier: EstimateJSON
    log_score: EstimateJSON
    auroc: EstimateJSON
    mci: EstimateJSON  # + "pairs": {"a~b": rho | null}
    # every channel's confidence as a predictor of being right: {channel: {"status": "ok", "kind",
    # "auroc", "aurc", "risk_at_80", "prr"} | {"status": "unavailable", "reason"}}
    signals: dict
    # per behavioural channel, with a consistency channel: {"accuracy", "consistency" (partial
    # correlations), "reading", "by_domain", "line"}
    tracking: dict
    # plus accuracy_<channel> for every channel present


class Exp2Scores(TypedDict, total=False):
    tii: EstimateJSON  # under the chosen variant; + "channels": {channel: rho | null}
    tii_paper: EstimateJSON  # mean |rho| (the paper), in [0, 1]
    tii_upstream: EstimateJSON  # signed mean rho (the authors' code), in [-1, 1]
    verbal_transfer: EstimateJSON  # + sub_skills_rate, weakest_skill_rate
    dissociation: EstimateJSON  # verbal_transfer - tii


class Exp3Scores(TypedDict, total=False):
    cce: EstimateJSON
    cce_balanced: EstimateJSON


class Exp4Scores(TypedDict, total=False):
    ai: EstimateJSON  # wager channel (bet points), true feedback, chosen variant; + "domains": {burn domain: AI | null}
    ai_paper: EstimateJSON  # trial-aligned pairs (the paper's definition), same keys
    ai_upstream: EstimateJSON  # the authors' unaligned related / unrelated lists, same keys
    ai_by_channel: dict[str, dict[str, EstimateJSON]]  # channel -> variant (paper / upstream) -> AI
    sar: EstimateJSON  # wager channel: AI_false / AI_true; + "ai_true", "ai_false", "reading" (band or null)
    sar_by_channel: dict[str, EstimateJSON]  # channel -> SAR, same keys


class Exp5Scores(TypedDict, total=False):
    ars: EstimateJSON  # + "cells": {"attack/channel": 1 - |shift| | null}


class Exp6aScores(TypedDict, total=False):
    ssr: EstimateJSON  # self-rating stability over tasks rated under every prompt; + "mean_self_score": {prompt: mean}
    ssr_available: EstimateJSON  # the same over every rating given (tasks missing a prompt kept)


class Exp6bScores(TypedDict, total=False):
    fdr: EstimateJSON  # RESPONSE_TYPE self-labels; + "false_positive_rate", "controls" (+ its CI)
    fdr_keyword: EstimateJSON  # the authors' keyword heuristic, same keys


class Exp6cScores(TypedDict, total=False):
    vrs: EstimateJSON  # value robustness; + capability_robustness, compliance_rate, pressure detection, by attack,
    # and "calibration_under_pressure" on pairs with a gold


class RoutingStrategy(TypedDict):
    """One routing baseline's outcome on weak components (`mirror_hf.scoring.baselines`)."""

    cfr: EstimateJSON
    autonomy: EstimateJSON
    escalation_rate: EstimateJSON


class Exp9Baselines(TypedDict, total=False):
    budget: EstimateJSON  # the share of components routed: the weak share
    no_routing: RoutingStrategy
    domain_routing: RoutingStrategy
    confidence_threshold: RoutingStrategy
    self_consistency: RoutingStrategy
    platt: RoutingStrategy
    conformal: RoutingStrategy
    sampling_self_consistency: RoutingStrategy  # with the Exp1 sample agreement only
    platt_status: str  # "fitted" or the fallback used
    labels: dict[str, str]  # strategy -> what it is


class Exp9Scores(TypedDict, total=False):
    cfr: dict[str, EstimateJSON]  # condition C1..C4 -> CFR (escalation frame)
    cfr_table_c1: EstimateJSON
    udr: EstimateJSON
    appropriate_action_rate: EstimateJSON
    kdi: EstimateJSON
    cfr_by_paradigm: dict[str, dict[str, EstimateJSON]]  # paradigm -> condition -> CFR
    escalation_fixed_p1p2: dict[str, EstimateJSON]  # condition -> CFR over fixed tasks, P1 + P2
    c4_tradeoff: dict[str, EstimateJSON]  # escalation, correct/false escalation rates, per-100 figures
    resolver: dict[str, dict[str, EstimateJSON]]  # resolver accuracy q -> system_success, autonomy
    ipw_cfr: dict[str, EstimateJSON]  # condition -> inverse-probability-weighted CFR
    mnar_bound: dict[str, dict]  # condition -> {"low", "high"}: CFR with missing components as successes / as failures
    false_score_control: dict  # analyses A-D of the inverted-score C2 control and the verdict
    baselines: Exp9Baselines


class ModelScores(TypedDict, total=False):
    exp1: Exp1Scores
    exp2: Exp2Scores
    exp3: Exp3Scores
    exp4: Exp4Scores
    exp5: Exp5Scores
    exp6a: Exp6aScores
    exp6b: Exp6bScores
    exp6c: Exp6cScores
    exp9: Exp9Scores


class Aggregate(TypedDict, total=False):
    escalation: dict  # condition -> EstimateJSON over models, "d_z" -> paired differences
    escalation_by_paradigm: dict  # paradigm -> an escalation curve
    escalation_fixed_p1p2: dict  # the escalation curve over fixed tasks, P1 + P2
    money_plot: dict  # gap vs CFR cells, partial r with its null rule, BH q-values
    temperature_reduction: dict  # per model and mean C1 -> C4 reduction per temperature
    exp6c_robustness_correlation: dict  # over models: VRS against capability robustness, {"pearson_r", "p_value", "n_models"}
    scaling: dict  # Exp8 (score --models): headline key -> family -> slope / intercept / r2 / generations


class ScoreSettings(TypedDict):
    dataset: str
    variant: Variant
    weak_policy: str
    k: int  # of the median_or_bottom_k / bottom_k weak-domain policies
    human_weak_policy: NotRequired[str]  # human participants' weak-domain policy (default median_or_bottom_k)
    missing: str
    resamples: int
    seed: int
    ci: str


class Participant(TypedDict, total=False):
    kind: str  # participants.HUMAN ("human") or participants.SIMULATED ("ai_simulated_human")
    label: str
    weak_domains: dict  # policy, k, weak_domains, rule_applied (which rule named them)
    warning: str  # the authors' AI-simulated cohort: not human data
    mean_over: list[str]  # the mean row: the participants it averages
    weak_policy: str


class ScoreResult(TypedDict):
    models: dict[str, ModelScores]  # models, participants (scored alike) and each kind's mean row
    aggregate: Aggregate  # over models only
    participants: NotRequired[dict[str, Participant]]  # which rows of `models` are people (or simulated people)
    skipped: NotRequired[dict[str, dict[str, str]]]
    settings: NotRequired[ScoreSettings]  # written by the CLI


#: keys a part may carry beyond its declared ones, by pattern: part -> {regex: the TypedDict of their values}
PATTERN_KEYS: dict[str, dict[str, type]] = {"Exp1Scores": {"^accuracy_": EstimateJSON}}  # accuracy_<channel>
#: parts whose values may add secondary keys beyond the declared ones (an estimate's `pairs`, `channels`, ...)
OPEN_PARTS = frozenset({"EstimateJSON"})


def json_schema(typ: Any) -> dict[str, Any]:
    """The JSON Schema (draft 2020-12) of a value of annotation `typ` (TypedDicts, dict/list, unions,
    Literals, scalars): `score --json`'s file described from the same TypedDicts the code is typed with."""
    origin = typing.get_origin(typ)
    if typing.is_typeddict(typ):
        hints = typing.get_type_hints(typ)
        out: dict[str, Any] = {"type": "object", "properties": {k: json_schema(v) for k, v in hints.items()},
                               "required": sorted(typ.__required_keys__)}
        patterns = PATTERN_KEYS.get(typ.__name__)
        if patterns:
            out["patternProperties"] = {p: json_schema(t) for p, t in patterns.items()}
        out["additionalProperties"] = typ.__name__ in OPEN_PARTS
        return out
    if origin is dict:
        return {"type": "object", "additionalProperties": json_schema(typing.get_args(typ)[1])}
    if origin is list:
        return {"type": "array", "items": json_schema(typing.get_args(typ)[0])}
    if origin in (typing.Union, types.UnionType):
        return {"anyOf": [json_schema(t) for t in typing.get_args(typ)]}
    if origin is typing.Literal:
        return {"enum": list(typing.get_args(typ))}
    if origin is NotRequired:
        return json_schema(typing.get_args(typ)[0])
    scalar = {float: "number", int: "integer", str: "string", bool: "boolean", type(None): "null", dict: "object", list: "array"}
    return {"type": scalar[typ]} if typ in scalar else {}


def result_json_schema(parts: typing.Mapping[str, type]) -> dict[str, Any]:
    """The schema of a whole score result whose per-model entries hold `parts` (experiment -> its
    TypedDict: the registered experiments', `mirror_hf.experiments.scores_json_schema`)."""
    schema = json_schema(ScoreResult)
    schema["properties"]["models"]["additionalProperties"] = {
        "type": "object", "properties": {name: json_schema(t) for name, t in parts.items()}, "additionalProperties": False,
    }
    return {"$schema": "https://json-schema.org/draft/2020-12/schema", "title": "mirror-hf score --json", **schema}
