"""The suite's options (`mirror-hf score`'s flags), one frozen record every scorer reads."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from mirror_hf.scoring._bootstrap import CI
from mirror_hf.scoring._exp9 import Missing
from mirror_hf.scoring._schema import Variant
from mirror_hf.scoring._weak import WeakPolicy


@dataclass(frozen=True)
class SuiteOptions:
    variant: Variant = "paper"
    weak_policy: Literal["auto"] | WeakPolicy | None = "auto"  # "auto": per variant (below); None: the recorded labels
    missing: Missing = "complete_case"
    ci: CI = True
    k: int = 2  # k of the median_or_bottom_k / bottom_k weak-domain policies
    # human participants' weak domains: the paper's rule, whose bottom-k fallback names them at ceiling
    human_weak_policy: WeakPolicy = "median_or_bottom_k"

    @property
    def exp9_policy(self) -> WeakPolicy | None:
        """Exp9's weak-domain labels: the paper's median_or_bottom_k over the Exp1 profile, or (upstream
        variant) the labels the runner recorded (None)."""
        if self.weak_policy == "auto":
            return "median_or_bottom_k" if self.variant == "paper" else None
        return self.weak_policy
