"""`questions`: the Exp1 bank, 8 domains x 5 subcategories x 3 difficulties, gold computed."""

from mirror_hf.records import QUESTION_FEATURES

from . import BuildContext, ConfigBuilder


def _rows(ctx: BuildContext) -> dict[str, list[dict]]:
    return {"test": [q.to_row() for q in ctx.questions()]}


BUILDERS = [
    ConfigBuilder(
        name="questions",
        features=QUESTION_FEATURES,
        description="The Exp1 question bank: generated items with computed gold answers, four choices each, "
        "balanced over domains, subcategories and difficulties.",
        generate=_rows,
        default=True,
    )
]
