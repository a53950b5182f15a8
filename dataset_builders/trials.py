"""Trial and profile configs: filled by `mirror-hf run`, `profile` and `import-upstream`, one split
per model. Declared here so every folder's card and Croissant describe them with one schema."""

from mirror_hf.records import PROFILE_FEATURES, TRIAL_FEATURES

from . import ConfigBuilder

BUILDERS = [
    ConfigBuilder(
        name=f"trials_{experiment}",
        features=features,
        description=f"{experiment} trial records: one row per request the runner sent (or per imported "
        "upstream response), with the raw text, the parsed fields and the grade; one split per model.",
    )
    for experiment, features in TRIAL_FEATURES.items()
] + [
    ConfigBuilder(
        name="profiles",
        features=PROFILE_FEATURES,
        description="Per model x domain Exp1 profile (natural and wagering accuracy, Mirror gap, strength label), "
        "built from a model's Exp1 trials by `mirror-hf profile`; one split per model.",
    )
]
