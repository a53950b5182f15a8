"""The study's presets: which experiments run, and how many items each.

`full` is the paper's design: every registered experiment on every item of its bank (no `--limit`),
Exp1 through its default (behavioural) channels, Exp9 on the fixed tasks plus 300 tasks tailored to
the model, under C1-C4 x P1-P3. `core` is what the paper calls the core findings: Exp1, Exp3 and
Exp9 on the fixed tasks. `smoke` is a few items of every experiment, to check an endpoint in a
minute. The sizes here are the only place they are stated; `--help` and docs/study.md print them
from this table.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from mirror_hf.errors import MirrorValueError


class PresetError(MirrorValueError):
    """An unknown preset or experiment name."""


@dataclass(frozen=True)
class Preset:
    """`experiments`: the experiments in the preset (None: every registered one); `limits`: per
    experiment its `--limit` (an experiment not listed gets `default_limit`; None: every item);
    `tailored`: how many Exp9 tasks are tailored to the model (None: Exp9 on the fixed tasks only)."""

    name: str
    description: str
    experiments: tuple[str, ...] | None = None
    limits: Mapping[str, int | None] = field(default_factory=dict)
    default_limit: int | None = None
    tailored: int | None = 300

    def limit(self, experiment: str) -> int | None:
        return self.limits.get(experiment, self.default_limit)

    def sizes(self) -> str:
        """One line for --help and the docs."""
        shown = "every item of each experiment's bank" if self.default_limit is None and not self.limits else (
            ", ".join(f"{name} {n}" for name, n in self.limits.items())
            + (f", others {self.default_limit}" if self.default_limit is not None else ""))
        which = ", ".join(self.experiments) if self.experiments else "every experiment"
        tailored = f"; {self.tailored} tailored Exp9 tasks" if self.tailored else "; Exp9 on the fixed tasks only"
        return f"{self.name}: {which} ({shown}{tailored})"


PRESETS: dict[str, Preset] = {
    "full": Preset("full", "the paper's design sizes for every experiment"),
    "core": Preset("core", "the paper's core findings: Exp1, Exp3 and Exp9 on the fixed tasks",
                   experiments=("exp1", "exp3", "exp9"), tailored=None),
    "smoke": Preset("smoke", "a few items of every experiment, to check an endpoint in a minute",
                    limits={"exp1": 16, "exp9": 4}, default_limit=4, tailored=8),
}


def preset(name: str) -> Preset:
    if name not in PRESETS:
        raise PresetError(f"--preset {name!r}: known presets are {', '.join(PRESETS)}")
    return PRESETS[name]


def experiments_of(chosen: Preset, narrowed: tuple[str, ...] | None) -> tuple[str, ...]:
    """The study's experiments in dependency order: Exp1 first (the profile reads it), Exp9 next
    (the tailored tasks are built for it), then the others in the registry's order. `narrowed`
    (`--experiments`) keeps only those named, each of which must be in the preset."""
    from mirror_hf.experiments import names

    registered = names()
    included = list(chosen.experiments or registered)
    for name in included:
        if name not in registered:
            raise PresetError(f"preset {chosen.name} names {name!r}, which is not a registered experiment")
    if narrowed:
        unknown = [n for n in narrowed if n not in registered]
        if unknown:
            raise PresetError(f"--experiments: unknown experiment(s) {', '.join(unknown)}; known: {', '.join(registered)}")
        outside = [n for n in narrowed if n not in included]
        if outside:
            raise PresetError(f"--experiments: {', '.join(outside)} not in preset {chosen.name} ({', '.join(included)})")
        included = [n for n in included if n in narrowed]
    first = [n for n in ("exp1", "exp9") if n in included]
    return tuple(first + [n for n in registered if n in included and n not in first])


def help_text() -> str:
    return "; ".join(p.sizes() for p in PRESETS.values()) + "."
