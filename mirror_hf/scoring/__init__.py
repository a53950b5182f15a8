"""Scoring: one pure function per Mirror metric over columns, with seeded BCa CIs (spec §4, §7).

Every metric returns an `Estimate(value, n, ci)`; `ci=True` (or a `Bootstrap(...)`) adds the BCa
interval. Where the paper and the authors' code disagree, the choice is a named keyword with the
default stated in the docstring and the metric card (`variant=`, `weak_policy=`, `frame=`,
`missing=`). `score_tables(units=..., tables=..., options=SuiteOptions(...))` runs the whole suite over
trial tables (what `mirror-hf score` writes); the units are the registered experiments
(`mirror_hf.experiments.units()`), each owning its `Scorer`, de-duplication key and headline numbers.
"""

from mirror_hf.headlines import CFR_FRAME, CFR_TABLE_FRAME, Headline
from mirror_hf.protocol.exp1 import (
    BEHAVIOURAL_CHANNELS,  # the paper's five; scoring reads the Channel specs
)
from mirror_hf.scoring._accuracy import (
    accuracy,
    domain_accuracy,
    macro_accuracy,
    mirror_gap,
    mirror_gap_by_domain,
    natural_accuracy,
    wagering_accuracy,
)
from mirror_hf.scoring._adaptation import AI_VARIANTS, ai, sar, sar_reading
from mirror_hf.scoring._baselines import BASELINES, baselines
from mirror_hf.scoring._bootstrap import (
    Bootstrap,
    Cells,
    bca_interval,
    bca_intervals,
    bca_mean,
)
from mirror_hf.scoring._calibration import (
    auroc,
    brier,
    calibration,
    ece,
    log_score,
    reliability,
    wager_confidence,
)
from mirror_hf.scoring._cce import CCE_VARIANTS, cce
from mirror_hf.scoring._columns import ScoringInputError
from mirror_hf.scoring._dedup import latest_records
from mirror_hf.scoring._ecosystem import SSR_MISSING, fdr, ssr, ssr_reading
from mirror_hf.scoring._escalation import escalation_curve
from mirror_hf.scoring._estimate import ZERO_WIDTH, Estimate
from mirror_hf.scoring._estimate_helpers import MIN_TRIALS_PER_DOMAIN, NO_SPREAD, TOO_FEW
from mirror_hf.scoring._exp9 import (
    CONDITIONS,
    FRAMES,
    MISSING_RULES,
    PARADIGMS,
    ComponentView,
    appropriate_action_rate,
    cfr,
    cfr_by_condition,
    component_view,
    components_frame,
    escalation_rate_weak,
    exp9_components,
    in_frame,
    kdi,
    relabel_strength,
    udr,
)
from mirror_hf.scoring._exp9_models import (
    money_plot,
    money_plot_cells,
    pooled_wag_nat_gap,
    temperature_reduction,
)
from mirror_hf.scoring._exp9_tradeoff import (
    FALSE_SCORE_VERDICTS,
    RESOLVER_ACCURACIES,
    c4_tradeoff,
    cfr_by_paradigm,
    escalation_fixed_p1p2,
    false_score_control,
    false_score_verdict,
    ipw_cfr,
    mnar_bound,
    resolver_outcomes,
)
from mirror_hf.scoring._headline import HeadlineValue, headlines_of
from mirror_hf.scoring._mci import behavioural_channels, channel_signal, mci
from mirror_hf.scoring._options import SuiteOptions
from mirror_hf.scoring._participants import participant_mean, weak_rule
from mirror_hf.scoring._robustness import ARS_VARIANTS, ars
from mirror_hf.scoring._scaling import (
    ModelInfo,
    generation_difference,
    scaling,
    scaling_fit,
    scaling_report,
)
from mirror_hf.scoring._schema import EstimateJSON, ModelScores, ScoreResult
from mirror_hf.scoring._selective import aurc, prr, risk_at_coverage, selective
from mirror_hf.scoring._stats import (
    PairedDifference,
    PartialCorrelation,
    bh_fdr,
    paired_difference,
    partial_correlation,
)
from mirror_hf.scoring._tables import OPEN_SUFFIX, score_tables
from mirror_hf.scoring._tii import tii, verbal_transfer
from mirror_hf.scoring._tracking import partial_correlations, tracking
from mirror_hf.scoring._units import (
    PROFILE_PHASE,
    READER_PHASE,
    Aggregated,
    AggregateInput,
    ModelContext,
    Profile,
    Scored,
    Scorer,
    ScoringUnit,
)
from mirror_hf.scoring._value_robustness import vrs
from mirror_hf.scoring._view import ModelView, Part, Reading, ResultView
from mirror_hf.scoring._weak import (
    CHANCE_ACCURACY,
    MIN_STRONG_ACCURACY,
    MIN_STRONG_OPTION,
    WEAK_POLICIES,
    classify_domains,
    no_strong_domain,
    strong_rule,
    weak_domains,
)

__all__ = [
    "AI_VARIANTS",
    "AggregateInput",
    "Aggregated",
    "OPEN_SUFFIX",
    "PROFILE_PHASE",
    "Profile",
    "READER_PHASE",
    "Scored",
    "ScoringUnit",
    "ARS_VARIANTS",
    "BASELINES",
    "BEHAVIOURAL_CHANNELS",
    "Bootstrap",
    "CCE_VARIANTS",
    "CFR_FRAME",
    "CFR_TABLE_FRAME",
    "CONDITIONS",
    "Cells",
    "ComponentView",
    "Estimate",
    "MIN_TRIALS_PER_DOMAIN",
    "NO_SPREAD",
    "TOO_FEW",
    "ZERO_WIDTH",
    "EstimateJSON",
    "ModelView",
    "Part",
    "Reading",
    "ResultView",
    "FALSE_SCORE_VERDICTS",
    "FRAMES",
    "Headline",
    "HeadlineValue",
    "MISSING_RULES",
    "ModelContext",
    "ModelInfo",
    "ModelScores",
    "PARADIGMS",
    "PairedDifference",
    "PartialCorrelation",
    "RESOLVER_ACCURACIES",
    "SSR_MISSING",
    "ScoreResult",
    "Scorer",
    "ScoringInputError",
    "SuiteOptions",
    "WEAK_POLICIES",
    "CHANCE_ACCURACY",
    "MIN_STRONG_ACCURACY",
    "MIN_STRONG_OPTION",
    "no_strong_domain",
    "strong_rule",
    "accuracy",
    "ai",
    "appropriate_action_rate",
    "ars",
    "auroc",
    "aurc",
    "partial_correlations",
    "prr",
    "risk_at_coverage",
    "selective",
    "tracking",
    "baselines",
    "bca_interval",
    "bca_intervals",
    "bca_mean",
    "behavioural_channels",
    "bh_fdr",
    "brier",
    "c4_tradeoff",
    "calibration",
    "cce",
    "cfr",
    "cfr_by_condition",
    "cfr_by_paradigm",
    "channel_signal",
    "classify_domains",
    "component_view",
    "components_frame",
    "domain_accuracy",
    "ece",
    "escalation_curve",
    "escalation_fixed_p1p2",
    "escalation_rate_weak",
    "exp9_components",
    "false_score_control",
    "false_score_verdict",
    "fdr",
    "generation_difference",
    "headlines_of",
    "in_frame",
    "ipw_cfr",
    "kdi",
    "latest_records",
    "log_score",
    "macro_accuracy",
    "mci",
    "mirror_gap",
    "mirror_gap_by_domain",
    "mnar_bound",
    "money_plot",
    "money_plot_cells",
    "natural_accuracy",
    "paired_difference",
    "partial_correlation",
    "participant_mean",
    "pooled_wag_nat_gap",
    "relabel_strength",
    "resolver_outcomes",
    "sar",
    "sar_reading",
    "scaling",
    "scaling_fit",
    "scaling_report",
    "reliability",
    "score_tables",
    "ssr",
    "ssr_reading",
    "vrs",
    "temperature_reduction",
    "tii",
    "udr",
    "verbal_transfer",
    "wager_confidence",
    "wagering_accuracy",
    "weak_domains",
    "weak_rule",
]
