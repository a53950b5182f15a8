"""The authors' banks and aggregate tables, filled by `mirror-hf import-upstream` (never built).

Their result files go into the `trials_*` configs like our own runs; what has no trial form — the
question and task banks, and the per-model CFR table they published without its trials — lives here.
"""

from mirror_hf.records import (
    EXP2_TASK_FEATURES,
    EXP3_TASK_FEATURES,
    EXP4_TEMPLATE_FEATURES,
    EXP6A_TASK_FEATURES,
    EXP6B_TASK_FEATURES,
    EXP6C_PROMPT_FEATURES,
    EXP9_TASK_FEATURES,
    QUESTION_FEATURES,
    UPSTREAM_CFR_FEATURES,
)

from . import ConfigBuilder

BUILDERS = [
    ConfigBuilder(
        name="upstream_questions",
        features=QUESTION_FEATURES,
        description="The authors' Exp1 question bank (5,000 rows, v40), imported as is: no choices, no difficulty labels; "
        "their reused question_id is kept by the first row in file order, later variants get `<id>.v<k>`.",
    ),
    ConfigBuilder(
        name="upstream_exp9_tasks",
        features=EXP9_TASK_FEATURES,
        description="The authors' Exp9 two-component tasks (297 fixed + 300 tailored; 165 / 98 distinct contents).",
    ),
    ConfigBuilder(
        name="upstream_exp3_tasks",
        features=EXP3_TASK_FEATURES,
        description="The authors' Exp3 v2 composite tasks (112 = 28 domain pairs x 4); both components share one text and gold.",
    ),
    ConfigBuilder(
        name="upstream_transfer_tasks",
        features=EXP2_TASK_FEATURES,
        description="The authors' Exp2 transfer tasks (200): framed in one domain, silently depending on another.",
    ),
    ConfigBuilder(
        name="upstream_exp6a",
        features=EXP6A_TASK_FEATURES,
        description="The authors' Exp6a tasks (their expanded set, 35): the model answers each, then rates its "
        "answer under four system prompts.",
    ),
    ConfigBuilder(
        name="upstream_exp6c",
        features=EXP6C_PROMPT_FEATURES,
        description="The authors' Exp6c prompt pairs (their expanded set, 20): per pressure tactic a "
        "capability-adversarial and a value-adversarial prompt.",
    ),
    ConfigBuilder(
        name="upstream_exp4",
        features=EXP4_TEMPLATE_FEATURES,
        description="The authors' Exp4 v2 templates (320: 40 per burn domain, fixed burn -> control pairing) with their "
        "pre-written true and fabricated feedback; each phase's task as a Question row (no choices, short_text gold).",
    ),
    ConfigBuilder(
        name="upstream_exp6b",
        features=EXP6B_TASK_FEATURES,
        description="The authors' Exp6b instructions: flawed ones (wrong approach, flawed premise, missing real goal) "
        "and their well-formed controls, paired by matched_flaw_id.",
    ),
    ConfigBuilder(
        name="upstream_exp9_cfr",
        features=UPSTREAM_CFR_FEATURES,
        description="The authors' per-model confident failure rate under conditions C1-C4 (16 models), as published "
        "without the trials behind it; one row per model x condition.",
    ),
]
