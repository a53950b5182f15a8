"""`exp4_templates`: the Exp4 burn-and-test templates, drawn from the question bank (40 per burn domain)."""

from mirror_hf.records import EXP4_TEMPLATE_FEATURES

from . import BuildContext, ConfigBuilder


def _rows(ctx: BuildContext) -> dict[str, list[dict]]:
    from mirror_hf.tasks.exp4 import templates

    return {"test": templates(ctx.questions(), ctx.seed)}


BUILDERS = [
    ConfigBuilder(
        name="exp4_templates",
        features=EXP4_TEMPLATE_FEATURES,
        description="Exp4 burn-and-test templates: 40 per burn domain (320), each burn domain with one fixed control "
        "domain. Phase A an easy and Phase B a hard burn-domain bank item, Phase C a medium burn-domain (related) and a "
        "medium control-domain (unrelated) item, each stored as a full Question row. `phase_b_feedback` (condition A) "
        "names the hard item's real pitfall and working, computed from its params where its kind has an explainer "
        "(`feedback_basis`), `phase_b_false_feedback` (condition B) claims a wrong answer on the Phase-A item.",
        generate=_rows,
    )
]
