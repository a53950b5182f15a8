"""`exp2_transfer`: tasks framed in one domain whose solution silently depends on another (Exp2)."""

from mirror_hf.records import DOMAINS, EXP2_TASK_FEATURES

from . import BuildContext, ConfigBuilder


def _rows(ctx: BuildContext) -> dict[str, list[dict]]:
    from mirror_hf.tasks.exp2 import transfer_tasks

    domains = list(DOMAINS)  # the chain links cover every domain; they do not need the bank's modules
    return {"test": transfer_tasks(ctx.seed, domains)}


BUILDERS = [
    ConfigBuilder(
        name="exp2_transfer",
        features=EXP2_TASK_FEATURES,
        description="Exp2 transfer tasks: 25 per hidden source domain (200 for 8 domains). The story and question belong "
        "to `surface_domain`; the number it needs is named by a phrase that takes `source_domain`'s skill to work "
        "out (`hidden_dependency`), which the task never mentions. Gold computed; four choices.",
        generate=_rows,
    )
]
