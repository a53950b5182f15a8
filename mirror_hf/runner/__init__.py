"""The runner: turns an OpenAI-compatible endpoint (or the embedded local model) into trial splits.

`run(RunOptions(dataset=..., experiment=..., plan=PlanOptions(limit=...)))` plans the requests with
the protocol's prompt builders, posts them with aiohttp (adaptive rate limiting, bounded retries), records every
finished request in a crash-safe results file, and writes the model's split of `trials_<exp>`.
"""

from mirror_hf.runner.plan import PlanError, PlanOptions
from mirror_hf.runner.session import (
    Estimate,
    RunError,
    RunOptions,
    RunReport,
    model_slug,
    run,
)

__all__ = ["Estimate", "PlanError", "PlanOptions", "RunError", "RunOptions", "RunReport", "model_slug", "run"]
