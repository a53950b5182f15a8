"""`exp3_composite`: chained two-domain tasks whose two components are also full Questions (Exp3)."""

from mirror_hf.records import DOMAINS, EXP3_TASK_FEATURES

from . import BuildContext, ConfigBuilder


def _rows(ctx: BuildContext) -> dict[str, list[dict]]:
    from mirror_hf.tasks.exp3 import composite_tasks

    domains = list(DOMAINS)  # the chain links cover every domain; they do not need the bank's modules
    return {"test": composite_tasks(ctx.seed, domains)}


BUILDERS = [
    ConfigBuilder(
        name="exp3_composite",
        features=EXP3_TASK_FEATURES,
        description="Exp3 composite tasks: 4 per unordered domain pair (112 for 8 domains), each chaining two domains "
        "(component A's computed answer is component B's input), balanced over difficulty strata and both directions. "
        "`component_a` and `component_b` are the two steps as stand-alone Questions with their own gold, component B "
        "stated with A's true answer, so single-domain calibration can be measured on exactly those steps.",
        generate=_rows,
    )
]
