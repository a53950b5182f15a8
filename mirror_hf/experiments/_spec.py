"""The `Experiment` spec: everything the package knows about one experiment, in one record.

The runner gets a spec and calls its planner (it never imports an experiment by name); the trial
config, its Features, the CLI help, the card and `score` all read the registry of specs.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from mirror_hf.runner.plan import Job, Messages, Plan, PlanOptions, Recipe
from mirror_hf.runner.request import Outcome
from mirror_hf.vocabulary import Matcher

if TYPE_CHECKING:  # scoring (polars, scipy) is imported when a score is asked for, not by a run
    from datasets import Features

    from mirror_hf.scoring import Headline, Scorer


@dataclass(frozen=True)
class Experiment:
    """One experiment of the protocol.

    `planner(root, options) -> Plan` reads `bank_configs` from the folder and returns the jobs with
    the recipe that parses and grades them; `channels` are what `--channels` accepts (the first
    `default_channels` run without it); `generation` holds per-channel overrides of the run's
    generation settings (Exp2's channel 5 at temperature 0.7); `scorer` and `headlines` say how
    `score` summarises its trials."""

    name: str
    title: str
    bank_configs: tuple[str, ...]
    trial_schema: str  # the name of its trials' Features in mirror_hf.records (read on first use: datasets is slow to import)
    planner: Callable[[Path, PlanOptions], Plan]
    default_max_tokens: int
    channels: tuple[str, ...] = ()
    default_channels: tuple[str, ...] = ()
    generation: Mapping[str, Mapping[str, float]] = field(default_factory=dict)
    section: str = ""  # where docs/protocol.md describes it

    @property
    def trial_features(self) -> Features:
        import mirror_hf.records as records

        return getattr(records, self.trial_schema)

    @property
    def trial_config(self) -> str:
        return f"trials_{self.name}"

    @property
    def scorer(self) -> Scorer | None:
        from mirror_hf.scoring import SCORERS

        return SCORERS.get(self.name)

    @property
    def headlines(self) -> tuple[Headline, ...]:
        from mirror_hf.scoring import HEADLINES

        return HEADLINES.get(self.name, ())

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
