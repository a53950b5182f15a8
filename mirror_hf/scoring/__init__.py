"""Scoring: one pure function per Mirror metric over columns, with seeded BCa CIs (spec §4, §7).

Every metric returns an `Estimate(value, n, ci)`; `ci=True` (or a `Bootstrap(...)`) adds the BCa
interval. Where the paper and the authors' code disagree, the choice is a named keyword with the
default stated in the docstring and the metric card (`variant=`, `weak_policy=`, `frame=`,
`missing=`). `score_tables(exp1=..., exp3=..., exp9=..., options=SuiteOptions(...))` runs the whole
suite over trial tables (what `mirror-hf score` writes).
"""

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
    wager_confidence,
)
from mirror_hf.scoring._cce import CCE_VARIANTS, cce
from mirror_hf.scoring._columns import ScoringInputError
from mirror_hf.scoring._ecosystem import SSR_MISSING, fdr, ssr, ssr_reading
from mirror_hf.scoring._escalation import escalation_curve
from mirror_hf.scoring._estimate import Estimate
from mirror_hf.scoring._exp9 import (
    CONDITIONS,
    FRAMES,
    MISSING_RULES,
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
from mirror_hf.scoring._robustness import ARS_VARIANTS, ars
from mirror_hf.scoring._scaling import (
    ModelInfo,
    generation_difference,
    scaling,
    scaling_fit,
)
from mirror_hf.scoring._headline import (
    CFR_FRAME,
    CFR_TABLE_FRAME,
    DEDUP_KEYS,
    HEADLINES,
    Headline,
    HeadlineValue,
    headline,
    headlines_of,
    latest_records,
)
from mirror_hf.protocol.exp1 import BEHAVIOURAL_CHANNELS  # the paper's five; scoring reads the Channel specs
from mirror_hf.scoring._mci import behavioural_channels, channel_signal, mci
from mirror_hf.scoring._stats import (
    PairedDifference,
    PartialCorrelation,
    bh_fdr,
    paired_difference,
    partial_correlation,
)
from mirror_hf.scoring._schema import EstimateJSON, ModelScores, ScoreResult
from mirror_hf.scoring._suite import SCORERS, ModelContext, Scorer, SuiteOptions, score_tables
from mirror_hf.scoring._tii import tii, verbal_transfer
from mirror_hf.scoring._weak import WEAK_POLICIES, classify_domains, weak_domains

__all__ = [
    "scaling_fit",
    "scaling",
    "generation_difference",
    "ModelInfo",
    "ssr_reading",
    "ssr",
    "sar_reading",
    "sar",
    "fdr",
    "ars",
    "ai",
    "SSR_MISSING",
    "ARS_VARIANTS",
    "AI_VARIANTS",
    "BEHAVIOURAL_CHANNELS",
    "CCE_VARIANTS",
    "CFR_FRAME",
    "CFR_TABLE_FRAME",
    "CONDITIONS",
    "DEDUP_KEYS",
    "HEADLINES",
    "SCORERS",
    "Headline",
    "HeadlineValue",
    "EstimateJSON",
    "ModelContext",
    "ModelScores",
    "ScoreResult",
    "Scorer",
    "FRAMES",
    "MISSING_RULES",
    "WEAK_POLICIES",
    "Bootstrap",
    "Cells",
    "ComponentView",
    "Estimate",
    "PairedDifference",
    "PartialCorrelation",
    "ScoringInputError",
    "SuiteOptions",
    "accuracy",
    "appropriate_action_rate",
    "auroc",
    "bca_interval",
    "bca_intervals",
    "bca_mean",
    "bh_fdr",
    "brier",
    "calibration",
    "cce",
    "cfr",
    "cfr_by_condition",
    "behavioural_channels",
    "channel_signal",
    "classify_domains",
    "component_view",
    "components_frame",
    "domain_accuracy",
    "ece",
    "escalation_curve",
    "escalation_rate_weak",
    "exp9_components",
    "in_frame",
    "kdi",
    "log_score",
    "macro_accuracy",
    "mci",
    "mirror_gap",
    "mirror_gap_by_domain",
    "natural_accuracy",
    "paired_difference",
    "partial_correlation",
    "relabel_strength",
    "score_tables",
    "headline",
    "headlines_of",
    "latest_records",
    "tii",
    "verbal_transfer",
    "udr",
    "wager_confidence",
    "wagering_accuracy",
    "weak_domains",
]
