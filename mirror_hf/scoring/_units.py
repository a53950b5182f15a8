"""What a scorer is, and what passes between the two scoring phases.

Phase 1 (`PROFILE_PHASE`) scores the experiments that describe the model itself — Exp1 — and leaves a
frozen `Profile` (natural accuracy per domain, Mirror gaps, sample agreement). Phase 2 (`READER_PHASE`)
scores every other experiment with that profile in a frozen `ModelContext`; nothing is mutated, and a
scorer's order inside a phase does not matter. An experiment with cross-model statistics adds an
`aggregate` step that runs once all models are scored, from the results and the states its per-model
scorer returned (`Scored.state`), so nothing is rebuilt or compared by identity.

An experiment (`mirror_hf.experiments.Experiment`) is a `ScoringUnit`: a name, its de-duplication key and
its `Scorer`; `score_tables` needs nothing else.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

import polars as pl

from mirror_hf.scoring._options import SuiteOptions

Phase = int
PROFILE_PHASE: Phase = 1  # describes the model (Exp1): leaves the profile the others read
READER_PHASE: Phase = 2  # reads the profile


#: a model's mean Exp1 sample agreement per (domain, subcategory): the input of Exp9's sampling
#: self-consistency baseline (a dict: the Exp9 report passes it on as one)
SampleAgreement = dict[tuple[str, str | None], float]


@dataclass(frozen=True)
class Profile:
    """What a model's phase-1 scores give the others."""

    natural: Mapping[str, float] | None = None  # Exp1 natural accuracy per domain (the weak-domain policies' input)
    gaps: Mapping[str, float] | None = None  # Mirror gap per domain (NaN where undefined)
    model_gap: float | None = None
    agreement: SampleAgreement | None = None

    def merged(self, other: Profile) -> Profile:
        """This profile with `other`'s defined parts laid over it (several phase-1 units)."""
        return Profile(
            natural=other.natural if other.natural is not None else self.natural,
            gaps=other.gaps if other.gaps is not None else self.gaps,
            model_gap=other.model_gap if other.model_gap is not None else self.model_gap,
            agreement=other.agreement if other.agreement is not None else self.agreement,
        )


@dataclass(frozen=True)
class ModelContext:
    """What a phase-2 scorer reads: the options and the model's profile (empty in phase 1)."""

    options: SuiteOptions
    profile: Profile = field(default_factory=Profile)


@dataclass(frozen=True)
class Scored:
    """One experiment's scores for one model (metric name -> Estimate or nested dict), notes on the
    metrics it could not compute (metric -> why), the profile (phase 1 only) and any state its
    aggregate step reuses."""

    scores: Mapping[str, Any]
    notes: Mapping[str, str] = field(default_factory=dict)
    profile: Profile | None = None
    state: Any = None


@dataclass(frozen=True)
class AggregateInput:
    """What an experiment's cross-model step sees: every model's scores as JSON, this experiment's
    per-model states and trial tables, every model's profile, all raw tables (experiment -> table)
    and the authors' published per-model CFR, if any."""

    models: Mapping[str, dict[str, Any]]
    states: Mapping[str, Any]
    trials: Mapping[str, pl.DataFrame]
    profiles: Mapping[str, Profile]
    tables: Mapping[str, pl.DataFrame | None]
    upstream_cfr: pl.DataFrame | None
    options: SuiteOptions


@dataclass(frozen=True)
class Aggregated:
    """A cross-model step's output: entries of the result's `aggregate`, and per-model entries it
    adds (model -> this experiment's metric -> JSON), e.g. a published CFR for a model without trials."""

    aggregate: Mapping[str, Any] = field(default_factory=dict)
    models: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)


ScoreFn = Callable[[pl.DataFrame, ModelContext], Scored | None]
AggregateFn = Callable[[AggregateInput], Aggregated]


@dataclass(frozen=True)
class Scorer:
    """How `score` summarises an experiment: `score` per model (its de-duplicated trials), the
    TypedDict of its part of the result (`schema`), its phase, and an optional cross-model step."""

    score: ScoreFn
    schema: type
    phase: Phase = READER_PHASE
    aggregate: AggregateFn | None = None

    def __post_init__(self) -> None:
        if self.phase not in (PROFILE_PHASE, READER_PHASE):
            raise ValueError(f"scorer phase must be {PROFILE_PHASE} or {READER_PHASE}, got {self.phase!r}")


class ScoringUnit(Protocol):
    """What `score_tables` needs of an experiment (`mirror_hf.experiments.Experiment` is one)."""

    @property
    def name(self) -> str: ...

    @property
    def dedup_key(self) -> Sequence[str]: ...

    @property
    def scorer(self) -> Scorer: ...
