"""The dataset configs, declared one module each (installed as `mirror_hf.dataset_builders`).

A config module defines `BUILDERS`: a list of `ConfigBuilder`s naming the config, its Features and
description, and — for configs that `mirror-hf build` generates — a function from the build context
to `{split: rows}`. Configs filled later by runs or imports (trials, profiles, tailored tasks,
upstream banks) are declared the same way with `generate=None`, so the card and Croissant know their
schema whenever they appear in a folder.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass, field
from functools import cache
from typing import Callable

from datasets import Features

from mirror_hf.records import Question

# Config modules, in the order their configs appear in the card. Add a module here to register it.
CONFIG_MODULES: tuple[str, ...] = (
    "questions",
    "exp2_transfer",
    "exp3_composite",
    "exp4_templates",
    "exp9_fixed",
    "exp9_tailored",
    "exp6a_tasks",
    "exp6b_flawed",
    "exp6c_pairs",
    "trials",
    "upstream",
)


@dataclass
class BuildContext:
    """What builders share during one build: the seed, the scale, and the bank drawn once."""

    seed: int
    per_domain: int
    _questions: list[Question] | None = field(default=None, repr=False)

    def questions(self) -> list[Question]:
        if self._questions is None:
            from mirror_hf.bank import generate_bank

            self._questions = generate_bank(self.seed, self.per_domain)
        return self._questions


Generate = Callable[[BuildContext], dict[str, list[dict]]]


@dataclass(frozen=True)
class ConfigBuilder:
    name: str
    features: Features
    description: str
    generate: Generate | None = None  # None: the config is filled by runs or imports, not by `build`
    default: bool = False  # the config `load_dataset(folder)` returns without a name

    @property
    def generated(self) -> bool:
        return self.generate is not None


@cache
def registry() -> dict[str, ConfigBuilder]:
    """name -> builder for every declared config."""
    out: dict[str, ConfigBuilder] = {}
    for module_name in CONFIG_MODULES:
        module = importlib.import_module(f"{__name__}.{module_name}")
        for builder in module.BUILDERS:
            if builder.name in out:
                raise ValueError(f"config {builder.name!r} declared twice (second in {module_name})")
            out[builder.name] = builder
    return out


def config_features(root) -> dict[str, Features]:
    """Features per config on disk in folder `root`: the registry's declaration when it knows the
    config, else the schema stored in the parquet file (configs added by other tools still get a
    correct card)."""
    from mirror_hf.folder import features_on_disk, split_files

    known = registry()
    return {config: known[config].features if config in known else features_on_disk(files[0].path)
            for config, files in split_files(root).items()}


def generated_configs() -> list[str]:
    return [name for name, b in registry().items() if b.generated]
