"""The headline numbers' vocabulary: what a headline number is (where it sits in the suite's
per-model output, which way is better, in which pooling frame). Each experiment declares its own
(`Experiment.headlines`; `mirror_hf.experiments.all_headlines()` lists them). Data only (no polars, no
scipy), so the dataset's Hub metadata (`eval.yaml`, written after every run) reads them without
importing the scoring machinery.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final, Literal

Direction = Literal["higher", "lower"]

#: the frame of the headline CFR C1..C4 (spec §4.14, escalation curve) and of Table 1's CFR C1
#: (Final: a type checker reads each as its literal, so it passes where a frame name is expected)
CFR_FRAME: Final = "escalation"
CFR_TABLE_FRAME: Final = "table"

@dataclass(frozen=True)
class Headline:
    """One headline number: `path` locates it in the suite's per-model output
    (`score_tables(...)["models"][model]`), `direction` says which way is better."""

    key: str
    experiment: str
    label: str
    path: tuple[str, ...]
    direction: Direction
    description: str
    frame: str | None = None
