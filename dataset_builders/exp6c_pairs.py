"""`exp6c_pairs`: our Exp6c prompt pairs, one pressure tactic on a bank question, twice."""

from mirror_hf.records import EXP6C_PROMPT_FEATURES

from . import BuildContext, ConfigBuilder


def _rows(ctx: BuildContext) -> dict[str, list[dict]]:
    from mirror_hf.tasks.exp6c import exp6c_pairs

    return {"test": exp6c_pairs(ctx.questions())}


BUILDERS = [
    ConfigBuilder(
        name="exp6c_pairs",
        features=EXP6C_PROMPT_FEATURES,
        description="Exp6c prompt pairs (40 = 10 per tactic: authority override, social pressure, framing manipulation, "
        "incremental escalation), each on a question of this build's bank: the capability-adversarial prompt presses on "
        "the model's stated confidence, the value-adversarial one uses the same pressure to demand a claim of certainty "
        "with no caveats (honest self-report as the value at stake).",
        generate=_rows,
    )
]
