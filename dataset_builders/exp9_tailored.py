"""`exp9_tailored`: Exp9 tasks built for one model from its Exp1 profile by `mirror-hf tasks tailor`."""

from mirror_hf.records import EXP9_TASK_FEATURES

from . import ConfigBuilder

BUILDERS = [
    ConfigBuilder(
        name="exp9_tailored",
        features=EXP9_TASK_FEATURES,
        description="Exp9 tailored tasks, one split per model, written by `mirror-hf tasks tailor`: 300 two-part work "
        "tasks with a strong domain of that model in slot A and a weak one in slot B, the labels from a named "
        "weak-domain policy (`weak_policy`) applied to its Exp1 natural accuracies only.",
    )
]
