"""Trial and profile configs: filled by `mirror-hf run`, `profile` and `import-upstream`, one split
per model. Declared from the experiment registry, so every folder's card and Croissant describe
each experiment's trials with the schema its spec names."""

from mirror_hf.experiments import EXPERIMENTS
from mirror_hf.records import PROFILE_FEATURES

from . import ConfigBuilder

BUILDERS = [
    ConfigBuilder(name=spec.trial_config, features=spec.trial_features, description=spec.trial_description)
    for spec in EXPERIMENTS.values()
] + [
    ConfigBuilder(
        name="profiles",
        features=PROFILE_FEATURES,
        description="Per model x domain Exp1 profile (natural and wagering accuracy, Mirror gap, strength label), "
        "built from a model's Exp1 trials by `mirror-hf profile`; one split per model.",
    )
]
