"""`exp9_fixed`: two-part agentic work tasks, identical for every model (Exp9, circularity-free)."""

from mirror_hf.records import EXP9_TASK_FEATURES

from . import BuildContext, ConfigBuilder


def _rows(ctx: BuildContext) -> dict[str, list[dict]]:
    from mirror_hf.bank import available_domains
    from mirror_hf.bank._core import normalise_text
    from mirror_hf.tasks.exp9 import fixed_tasks

    domains = available_domains()
    if len(domains) < 2:
        return {}
    bank_texts = {normalise_text(q.question) for q in ctx.questions()}
    return {"test": fixed_tasks(ctx.seed, domains, avoid=bank_texts)}


BUILDERS = [
    ConfigBuilder(
        name="exp9_fixed",
        features=EXP9_TASK_FEATURES,
        description="Exp9 fixed tasks (297, the same for every model, circularity_free): a short work request with two "
        "parts from different domains, covering every unordered domain pair with counts at most one apart and both "
        "orders. Each part is a fresh four-choice item from the bank's generators (not an Exp1 item; "
        "`question_id_a/_b` are its own ids, `params_a/_b` recompute its gold); no part repeats.",
        generate=_rows,
    )
]
