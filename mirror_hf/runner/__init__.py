"""The runner: turns an OpenAI-compatible endpoint (or the embedded local model) into trial splits.

`run(RunOptions(...))` plans the requests with the protocol's prompt builders, sends them through
the `openai` client (aiohttp transport, adaptive rate limiting, bounded retries), records every
finished request in a crash-safe results file, and writes the model's split of `trials_<exp>`.
"""

from mirror_hf.runner.plan import PlanError
from mirror_hf.runner.session import (
    Estimate,
    RunError,
    RunOptions,
    RunReport,
    model_slug,
    run,
)

__all__ = ["Estimate", "PlanError", "RunError", "RunOptions", "RunReport", "model_slug", "run"]
