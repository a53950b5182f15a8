"""`exp6a_tasks`: our Exp6a tasks, bank questions asked open for the answer-then-rate protocol."""

from mirror_hf.records import EXP6A_TASK_FEATURES

from . import BuildContext, ConfigBuilder


def _rows(ctx: BuildContext) -> dict[str, list[dict]]:
    from mirror_hf.tasks.exp6a import exp6a_tasks

    return {"test": exp6a_tasks(ctx.questions())}


BUILDERS = [
    ConfigBuilder(
        name="exp6a_tasks",
        features=EXP6A_TASK_FEATURES,
        description="Exp6a tasks (10 per domain, 80): questions of this build's bank, spread over each domain's "
        "subcategories, asked open with a request to show the working (items typed multiple_choice left out). "
        "The model answers each once, then rates its own answer 0-100 under four system prompts (SSR).",
        generate=_rows,
    )
]
