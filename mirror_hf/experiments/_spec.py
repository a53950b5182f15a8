"""The `Experiment` spec: everything the package knows about one experiment, in one record.

The runner gets a spec and calls its planner (it never imports an experiment by name); the trial
config, its Features, the CLI help, the card, `score` (scorer, de-duplication key, headline numbers,
its part of the scores schema) all read the registry of specs. A spec missing a piece is refused
when it is built, in one line naming the experiment and the piece (`ExperimentSpecError`).
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any

from mirror_hf.errors import MirrorValueError
from mirror_hf.headlines import Headline
from mirror_hf.runner.plan import Job, Messages, Plan, PlanOptions, Recipe
from mirror_hf.runner.request import Outcome
from mirror_hf.vocabulary import Matcher

if TYPE_CHECKING:  # scoring (polars, scipy) is imported when a score is asked for, not by a run
    from datasets import Features

    from mirror_hf.scoring import Scorer


class ExperimentSpecError(MirrorValueError):
    """A registered experiment lacks a piece or declares a wrong one (one line: experiment, piece, why)."""


def resolve(ref: str) -> Any:
    """The object a "module:attribute" reference names (imported on first use)."""
    module, _, attr = ref.partition(":")
    return getattr(importlib.import_module(module), attr)


@dataclass(frozen=True)
class Experiment:
    """One experiment of the protocol.

    `planner(root, options) -> Plan` reads `bank_configs` from the folder and returns the jobs with
    the recipe that parses and grades them; `channels` are what `--channels` accepts (the first
    `default_channels` run without it); `generation` holds per-channel overrides of the run's
    generation settings (Exp2's channel 5 at temperature 0.7).

    How `score` summarises its trials: `scorer_ref` ("module:attribute" of its
    `mirror_hf.scoring.Scorer`, resolved on first use so a run never imports the scoring stack),
    `dedup_key` (the trial fields a re-run record replaces an earlier one under, `item_id` first) and
    `headlines` (its headline numbers; `()` is a declaration too: the experiment has none)."""

    name: str
    title: str
    bank_configs: tuple[str, ...]
    # its trials' Features: a name in mirror_hf.records, or "module:attribute" (read on first use: datasets is slow to import)
    trial_schema: str
    planner: Callable[[Path, PlanOptions], Plan]
    default_max_tokens: int
    scorer_ref: str = ""
    dedup_key: tuple[str, ...] = ()
    headlines: tuple[Headline, ...] | None = None
    channels: tuple[str, ...] = ()
    default_channels: tuple[str, ...] = ()
    generation: Mapping[str, Mapping[str, float]] = field(default_factory=dict)
    section: str = ""  # where docs/protocol.md describes it

    def __post_init__(self) -> None:
        def refuse(piece: str, why: str) -> None:
            raise ExperimentSpecError(f"experiment {self.name or '?'}: {piece} {why}")

        if not self.name:
            refuse("name", "is empty")
        if not self.bank_configs:
            refuse("bank_configs", "is empty (the bank configs its planner reads)")
        if not self.trial_schema:
            refuse("trial_schema", "is missing (its trials' Features)")
        if not callable(self.planner):
            refuse("planner", "is not callable")
        if ":" not in self.scorer_ref:
            refuse("scorer", "is missing (scorer_ref='module:attribute' of its mirror_hf.scoring.Scorer)")
        if not self.dedup_key or self.dedup_key[0] != "item_id":
            refuse("dedup_key", "is missing (the trial fields a re-run replaces a record under, item_id first)")
        if self.headlines is None:
            refuse("headlines", "are not declared (a tuple of mirror_hf.headlines.Headline; () for none)")
        for h in self.headlines or ():
            if h.experiment != self.name or not h.path or h.path[0] != self.name:
                refuse(f"headline {h.key}", f"belongs to {h.experiment!r} (its path {'/'.join(h.path)} must start with {self.name})")
        if len({h.key for h in self.headlines or ()}) != len(self.headlines or ()):
            refuse("headlines", "repeat a key")
        unknown = [c for c in self.default_channels if c not in self.channels]
        if unknown:
            refuse("default_channels", f"name {unknown[0]!r}, which is not one of its channels")

    @property
    def trial_features(self) -> Features:
        if ":" in self.trial_schema:
            return resolve(self.trial_schema)
        import mirror_hf.records as records

        return getattr(records, self.trial_schema)

    @property
    def trial_config(self) -> str:
        return f"trials_{self.name}"

    @cached_property
    def scorer(self) -> Scorer:
        """Its `Scorer` (imports the scoring stack on first use)."""
        from mirror_hf.scoring import Scorer

        try:
            found = resolve(self.scorer_ref)
        except (ImportError, AttributeError) as exc:
            raise ExperimentSpecError(f"experiment {self.name}: scorer {self.scorer_ref!r} cannot be imported ({exc})") from None
        if not isinstance(found, Scorer):
            kind = type(found).__name__
            raise ExperimentSpecError(f"experiment {self.name}: scorer {self.scorer_ref!r} is a {kind}, not a mirror_hf.scoring.Scorer")
        return found

    @property
    def trial_description(self) -> str:
        return (f"{self.name} trial records ({self.title}): one row per request the runner sent (or per imported "
                "upstream response), with the raw text, the parsed fields and the grade; one split per model.")

    def plan(self, root: Path, options: PlanOptions) -> Plan:
        return self.planner(root, options)

    def help(self) -> str:
        """One line for the CLI: what it runs and which channels it knows."""
        line = f"{self.name} ({self.title})"
        if self.channels:
            extra = [c for c in self.channels if c not in self.default_channels]
            line += f": channels {', '.join(self.default_channels)} (default)"
            if extra:
                line += f", {', '.join(extra)}"
        return line


class SingleRequestRecipe(Recipe):
    """The part every one-request recipe shares: the matcher it grades with, and no second turn
    (the engine asks `may_follow_up` / `followup` of every single-turn recipe); each subclass
    writes its `parsed_fields`."""

    def __init__(self, matcher: Matcher):
        self.matcher = matcher

    def may_follow_up(self, job: Job) -> bool:
        return False

    def followup(self, job: Job, outcome: Outcome) -> Messages | None:
        return None
