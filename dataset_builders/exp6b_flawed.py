"""`exp6b_flawed`: our Exp6b bank, flawed instructions built from bank items with checkable flaws."""

from mirror_hf.records import DOMAINS, EXP6B_GENERATED_FEATURES
from mirror_hf.tasks.exp6b import CATEGORIES, ITEMS_PER_KIND, KINDS, exp6b_tasks

from . import BuildContext, ConfigBuilder

_N = len(KINDS) * ITEMS_PER_KIND * len(CATEGORIES)


def _rows(ctx: BuildContext) -> dict[str, list[dict]]:
    return {"test": exp6b_tasks(ctx.seed)}


BUILDERS = [
    ConfigBuilder(
        name="exp6b_flawed",
        features=EXP6B_GENERATED_FEATURES,
        description=f"Exp6b instructions ({_N} flawed + {_N} matched well-formed controls): {len(KINDS)} kinds of fresh "
        f"bank items, at least three in each of the {len(DOMAINS)} domains ({ITEMS_PER_KIND} items per kind), each with a "
        "wrong approach, a flawed premise and steps that miss the real goal, every flaw constructed from the item's "
        "own parameters (`params` holds the item, the construction and the stated value, so the flaw can be "
        "rechecked); each control differs from its flawed twin only in stating a working approach, a true premise "
        "or complete steps.",
        generate=_rows,
    )
]
