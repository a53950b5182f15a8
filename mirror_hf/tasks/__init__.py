"""Task banks built from the question generators (DESIGN.md "Configs").

- `exp3.composite_tasks`: Exp3 composites, two domains chained through one number (`chain`,
  `producers`, `consumers`), each step also a stand-alone Question.
- `exp2.transfer_tasks`: Exp2 tasks framed in one domain whose number hides another domain's step.
- `exp9.fixed_tasks` / `exp9.tailored_tasks`: Exp9 two-part work requests (`scenarios`) whose parts
  are fresh bank items; `tailor` reads a model's profile and labels its domains with a named
  weak-domain policy (`mirror_hf.scoring.classify_domains`).
"""

from mirror_hf.tasks.exp2 import transfer_tasks
from mirror_hf.tasks.exp3 import composite_tasks
from mirror_hf.tasks.exp9 import fixed_tasks, tailored_tasks

__all__ = ["composite_tasks", "fixed_tasks", "tailored_tasks", "transfer_tasks"]
