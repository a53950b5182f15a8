"""`exp6b_flawed`: our Exp6b bank, flawed instructions built from bank items with checkable flaws."""

from mirror_hf.records import EXP6B_GENERATED_FEATURES

from . import BuildContext, ConfigBuilder


def _rows(ctx: BuildContext) -> dict[str, list[dict]]:
    from mirror_hf.tasks.exp6b import exp6b_tasks

    return {"test": exp6b_tasks(ctx.seed)}


BUILDERS = [
    ConfigBuilder(
        name="exp6b_flawed",
        features=EXP6B_GENERATED_FEATURES,
        description="Exp6b instructions (126 flawed + 126 matched well-formed controls): six kinds of fresh bank "
        "items (change, fence posts, two overlapping groups, a right-angled route, an end time, a weekday N days on), "
        "each with a wrong approach, a flawed premise and steps that miss the real goal, every flaw constructed from "
        "the item's own parameters (`params` holds the item, the construction and the stated value, so the flaw can "
        "be rechecked); each control differs from its flawed twin only in stating a working approach, a true premise "
        "or complete steps.",
        generate=_rows,
    )
]
