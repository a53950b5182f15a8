"""The `datasets.Features` of every record kind: one definition each. The parquet schema, the card's
`dataset_info`, Croissant's fields and `load_dataset` all come from these, so a change shows up
everywhere at once. Field names follow the paper's datasheet where it has one.

Kept apart from `mirror_hf.records` because importing `datasets` costs seconds: `records` hands
these out on first use (`records.TRIAL_EXP1_FEATURES` imports this module then), so a command that
never touches a schema (an error message, `--help`, the request loop) never pays for it.

JSON-valued fields (`params`, `prompt`, ...) are stored as JSON *text* (`Value("string")`): the
arrow `json` extension type of datasets 5 does not survive polars or mlcroissant."""

from __future__ import annotations

from datasets import Features, List, Value

_str = Value("string")
_bool = Value("bool")
_i32 = Value("int32")
_i64 = Value("int64")
_f64 = Value("float64")



# --------------------------------------------------------------------------------------------
# Question (the Exp1 bank)
# --------------------------------------------------------------------------------------------

QUESTION_FEATURES = Features(
    {
        "id": _str,
        "domain": _str,
        "subcategory": _str,
        "difficulty": _str,
        "question": _str,
        "choices": List(_str),
        "answer": _str,
        "answer_type": _str,
        "aliases": List(_str),
        "generator": _str,
        "seed": _i64,
        "params": _str,
    }
)



# --------------------------------------------------------------------------------------------
# Task banks (Exp2, Exp3, Exp9)
# --------------------------------------------------------------------------------------------

EXP9_TASK_FEATURES = Features(
    {
        "task_id": _str,
        "task_type": _str,  # fixed / tailored
        "circularity_free": _bool,
        "target_model": _str,  # null for fixed tasks
        "domain_a": _str,
        "domain_b": _str,
        "subcategory_a": _str,
        "subcategory_b": _str,
        "difficulty_a": _str,
        "difficulty_b": _str,
        "correct_answer_a": _str,
        "correct_answer_b": _str,
        "answer_type_a": _str,
        "answer_type_b": _str,
        "aliases_a": List(_str),
        "aliases_b": List(_str),
        "task_text": _str,
        "part1_text": _str,
        "part2_text": _str,
        "question_id_a": _str,
        "question_id_b": _str,
        "strength_a": _str,  # tailored: strong / fixed: null (strength comes from the model's profile)
        "strength_b": _str,
        "weak_policy": _str,  # tailored: the policy that labelled the domains
        "seed": _i64,
        # The parts are four-choice bank items: the options (also inline in part1/part2_text as
        # "A) ... D)"), so graders accept the letter or the value; correct_answer_* is the value.
        "choices_a": List(_str),
        "choices_b": List(_str),
        "generator_a": _str,
        "generator_b": _str,
        "params_a": _str,  # JSON text: what the part's generator drew, enough to recompute its answer
        "params_b": _str,
    }
)

EXP3_TASK_FEATURES = Features(
    {
        "task_id": _str,
        "domain_a": _str,
        "domain_b": _str,
        "stratum": _str,  # difficulty stratum of the pair of components, e.g. "easy+medium"
        "task_text": _str,
        "answer": _str,
        "answer_type": _str,
        "aliases": List(_str),
        "component_a": dict(QUESTION_FEATURES),
        "component_b": dict(QUESTION_FEATURES),
        "generator": _str,
        "seed": _i64,
        "params": _str,
        "choices": List(_str),  # the composite's four options (gold + propagated and own errors)
    }
)

EXP2_TASK_FEATURES = Features(
    {
        "task_id": _str,
        "surface_domain": _str,
        "source_domain": _str,  # the hidden dependency
        "hidden_dependency": _str,
        "difficulty": _str,
        "task_text": _str,
        "choices": List(_str),
        "answer": _str,
        "answer_type": _str,
        "aliases": List(_str),
        "generator": _str,
        "seed": _i64,
        "params": _str,
    }
)

EXP6B_TASK_FEATURES = Features(
    {
        "task_id": _str,
        "is_flawed": _bool,  # a flawed instruction (true) or its well-formed control (false)
        "category": _str,  # wrong_approach / flawed_premise / missing_real_goal
        "domain": _str,
        "prompt": _str,  # the instruction as the model gets it
        "specific_flaw": _str,  # flawed only: what is wrong with it
        "expected_behavior": _str,  # flawed only: what a model that notices should say
        "matched_flaw_id": _str,  # the flawed instruction this one is the control of (its own id when flawed)
        "generator": _str,
    }
)

EXP6A_TASK_FEATURES = Features(
    {
        "task_id": _str,
        "domain": _str,
        "task_type": _str,  # the authors' task type (problem_solving, analytical, ...); ours: the bank subcategory
        "difficulty": _str,
        "task": _str,  # what the model answers (and later rates its answer to)
        "ref_answer": _str,  # a reference answer where there is one (not used by SSR)
        "source_question": _str,  # ours: the bank question the task is made from
        "generator": _str,
    }
)

EXP6C_PROMPT_FEATURES = Features(
    {
        "prompt_id": _str,
        "attack_type": _str,  # authority_override / social_pressure / framing_manipulation / incremental_escalation
        "domain": _str,
        "capability_adversarial": _str,  # pressure on the model's stated confidence in a task it can do
        "value_adversarial": _str,  # the same tactic pushing for something it should decline
        "expected_capability_robust_response": _str,
        "expected_value_robust_response": _str,
        "generator": _str,
        # the bank question under pressure (ours; null / empty in the authors' file, which has none):
        # the capability answer is graded against it, so stated confidence meets real correctness
        "question_id": _str,
        "answer": _str,
        "answer_type": _str,
        "aliases": List(_str),
    }
)

# Our generated Exp6b bank: the same fields plus the source item and what the prompt states (JSON).
EXP6B_GENERATED_FEATURES = Features({**EXP6B_TASK_FEATURES, "params": _str})

EXP4_TEMPLATE_FEATURES = Features(
    {
        "trial_id": _str,
        "burn_domain": _str,  # the domain the hard item and its failure feedback are about
        "control_domain": _str,  # the fixed partner domain of the unrelated Phase-C item
        # each phase's item as JSON text of a Question row (`Question.from_row(json.loads(...))`)
        "phase_a": _str,  # easy burn-domain item
        "phase_b": _str,  # hard burn-domain item
        "phase_c_related": _str,  # burn-domain item after the feedback
        "phase_c_unrelated": _str,  # control-domain item after the feedback
        "phase_b_feedback": _str,  # condition A: true feedback naming the hard item's real error
        "phase_b_false_feedback": _str,  # condition B: fabricated error about the Phase-A answer
        "feedback_basis": _str,  # how the true feedback was made: explained (from params) / answer_only / upstream
        "generator": _str,
        "seed": _i64,
    }
)

PROFILE_FEATURES = Features(
    {
        "model": _str,
        "domain": _str,
        "natural_accuracy": _f64,
        "wagering_accuracy": _f64,
        "mirror_gap": _f64,
        "n_natural": _i64,
        "n_wagering": _i64,
        "strength": _str,  # weak / strong / medium / unknown
        "weak_policy": _str,
        "run_id": _str,
    }
)

UPSTREAM_CFR_FEATURES = Features(
    {
        "model": _str,  # as the authors recorded it
        "condition": _str,  # C1..C4
        "cfr": _f64,  # their per-model confident failure rate (already aggregated; no trials behind it here)
        "run_id": _str,  # the source file
    }
)

# --------------------------------------------------------------------------------------------
# Trials (what the runner, or import-upstream, recorded)
# --------------------------------------------------------------------------------------------

TRIAL_COMMON = {
    "run_id": _str,
    "model": _str,
    "experiment": _str,
    "item_id": _str,
    "answer_format": _str,  # choices (options shown) / open (items not typed multiple_choice asked without them)
    "upstream_id": _str,  # imported records: the authors' item id as written (item_id is unique per trial)
    "request_key": _str,  # hash of (model, base_url, messages, generation settings): the resume key
    "prompt": _str,  # JSON text of the messages sent (the last turn's, for two-turn channels)
    "prompt_sha": _str,
    "raw_response": _str,
    "reasoning": _str,  # stripped <think> block or reasoning_content
    "finish_reason": _str,
    "truncated": _bool,
    "api_error": _str,  # the error of a request that finally failed (then correct is null)
    "attempts": _i32,
    "latency_ms": _f64,
    "prompt_tokens": _i64,
    "completion_tokens": _i64,
    "temperature": _f64,
    "seed": _i64,
    "system_fingerprint": _str,
    "domain": _str,
    "subcategory": _str,
    "difficulty": _str,
    "answer": _str,  # the parsed answer
    "answer_candidates": List(_str),  # every distinct ANSWER value when a response gave several (else null)
    "parse_success": _bool,
    "refused": _bool,
    "correct": _bool,  # true / false / null = ungraded, never guessed
    "upstream_correct": _bool,  # the authors' own grade, for imported records
}

TRIAL_EXP1_FEATURES = Features(
    {
        **TRIAL_COMMON,
        "channel": _str,  # wagering / opt_out / difficulty_selection / tool_delegation / natural / layer2 / ...
        "confidence": _f64,  # the channel's confidence signal in [0, 1]
        "bet": _i32,
        "skipped": _bool,
        "choice": _str,  # difficulty selection: A (harder) / B (easier)
        "chosen_item_id": _str,  # the item actually graded in difficulty selection
        "paired_item_id": _str,
        "tools_used": List(_str),
        "tool_results": _str,  # JSON text
        "hedging_count": _i32,
        "caveat_count": _i32,
        "response_length": _i32,
        "self_report_confidence": _f64,  # layer 2, 0-100
        "sub_skills": _str,
        "weakest_skill": _str,
        "verify": _str,
        "approach": _str,
        "control_confidence": _i32,  # format-matched control (structured_control): the stated 1-10 value
        # consistency: the k samples' texts and parsed answers, the modal answer's share, the entropy
        "samples": List(_str),
        "sample_answers": List(_str),
        "sample_count": _i32,
        "sample_agreement": _f64,
        "answer_entropy": _f64,  # nats, over the answered samples
        # logprob: option letters' probabilities at the answer position (renormalised over the
        # options, A-D order) and the mass outside them; the answer tokens' log-probabilities
        "logprobs_available": _bool,
        "option_probs": List(_f64),
        "option_mass_outside": _f64,
        "token_logprob_mean": _f64,
        "token_logprob_sum": _f64,
        "token_probability": _f64,  # the channel's raw reading (its confidence)
        "token_signal": _str,  # options / answer_tokens / response_tokens
    }
)

TRIAL_EXP2_FEATURES = Features(
    {
        **TRIAL_COMMON,
        "channel": _str,  # the five behavioural channels and layer2, as in Exp1
        "surface_domain": _str,  # the domain the task is framed in (also in `domain`)
        "source_domain": _str,  # the hidden dependency's domain (TII correlates its Exp1 accuracy)
        "hidden_dependency": _str,
        "confidence": _f64,  # the channel's confidence signal in [0, 1]
        "bet": _i32,
        "skipped": _bool,
        "choice": _str,  # difficulty selection: A (the task) / B (its placebo copy)
        "chosen_item_id": _str,
        "paired_item_id": _str,
        "tools_used": List(_str),
        "tool_results": _str,  # JSON text
        "hedging_count": _i32,
        "caveat_count": _i32,
        "response_length": _i32,
        "self_report_confidence": _f64,  # layer 2, 0-100
        "sub_skills": _str,
        "weakest_skill": _str,
        "verify": _str,
        "approach": _str,
        "source_in_sub_skills": _bool,  # layer 2: SUB_SKILLS mention the source domain (verbal transfer)
        "source_is_weakest": _bool,  # layer 2: WEAKEST_SKILL names the source domain
    }
)

TRIAL_EXP3_FEATURES = Features(
    {
        **TRIAL_COMMON,
        "channel": _str,  # self_prediction / answer / layer2 (upstream single call) / natural / wagering
        "target": _str,  # composite / component_a / component_b
        "domain_a": _str,
        "domain_b": _str,
        "confidence": _f64,  # self-predicted probability of success in [0, 1]
        "self_report_confidence": _f64,  # the stated 0-100 value behind `confidence`
    }
)

TRIAL_EXP5_FEATURES = Features(
    {
        **TRIAL_COMMON,
        "channel": _str,  # wagering / opt_out / tool_delegation / natural
        "attack": _str,  # authority_override / social_pressure / framing_easy / framing_hard; null = clean control
        "attack_wording": _str,  # upstream (the authors' code) / paper
        "strength": _str,  # weak / strong: the item's domain in the model's Exp1 profile
        "signal": _f64,  # the channel's reading normalised to [0, 1] as ARS uses it
        "confidence": _f64,  # the Exp1 channel's own confidence signal
        "bet": _i32,
        "skipped": _bool,
        "tools_used": List(_str),
        "tool_results": _str,  # JSON text
        "hedging_count": _i32,
        "caveat_count": _i32,
        "response_length": _i32,
    }
)

TRIAL_EXP4_FEATURES = Features(
    {
        **TRIAL_COMMON,  # `domain` = the burn domain; raw_response/prompt = the last (Phase-C) turn
        "feedback": _str,  # true (condition A) / false (condition B, fabricated)
        "control_domain": _str,
        "bank": _str,  # the template config the trial came from (exp4_templates / upstream_exp4)
        "turns": _i32,  # requests of the conversation (4 when complete)
        "conversation": _str,  # JSON text: every reply of the conversation, in order
        "phase_b_answer": _str,
        "phase_b_correct": _bool,
        "phase_b_approach": _str,  # the approach the model picked from the Phase-B menu
        "retry_reply": _str,  # the reply to the feedback + "Would you like to try again?"
        # per-channel readings, aligned by position with `channels` (null: not readable)
        "channels": List(_str),
        "signal_a": List(_f64),  # Phase A (easy burn-domain item)
        "signal_related": List(_f64),  # Phase C, TASK 1 (burn domain)
        "signal_unrelated": List(_f64),  # Phase C, TASK 2 (control domain)
        "bet_a": _i32,  # the wagering format's raw bets 1-10 (AI on the wager channel is in bet points)
        "bet_related": _i32,
        "bet_unrelated": _i32,
        "correct_a": List(_bool),
        "correct_related": List(_bool),
        "correct_unrelated": List(_bool),
    }
)

TRIAL_EXP6B_FEATURES = Features(
    {
        **TRIAL_COMMON,
        "channel": _str,  # the protocol: label (RESPONSE_TYPE self-label) / keyword (the authors' phrase heuristic)
        "is_flawed": _bool,
        "category": _str,
        "matched_flaw_id": _str,
        "response_type": _str,  # one of EXP6_LABELS (null: the request failed)
        "label_found": _bool,  # label protocol: a valid first-line label was there (else read as BLIND_EXECUTION)
        "flagged": _bool,  # response_type in EXP6_FLAG_LABELS
    }
)

TRIAL_EXP6A_FEATURES = Features(
    {
        **TRIAL_COMMON,
        "channel": _str,  # the rating's system prompt: one of EXP6_SELF_RATING_PROMPTS
        "task_type": _str,
        "task_output": _str,  # the model's answer to the task (the same for the four ratings)
        "self_score": _f64,  # the 0-100 SCORE of the rating (null: none parsed or the request failed)
        "assessment": _str,  # positive / negative / mixed
    }
)

TRIAL_EXP6C_FEATURES = Features(
    {
        **TRIAL_COMMON,
        "channel": _str,  # capability / value: which prompt of the pair
        "attack": _str,  # the pair's attack type
        "maintained": _bool,  # MAINTAINED_CALIBRATION (capability) / MAINTAINED_PRINCIPLES (value) said yes
        "pressure_detected": _bool,
        "complied": _bool,  # value prompts: the model says it complied
        "stated_confidence": _i32,  # capability prompts: CONFIDENCE 1-10
        "correct": _bool,  # capability prompts of a pair with a gold: the ANSWER line graded against it
    }
)

_EXP9_SLOT = {
    "domain": _str,
    "subcategory": _str,
    "strength": _str,
    "exp1_accuracy": _f64,
    "mirror_gap": _f64,
    "decision": _str,  # proceed / use_tool / defer
    "answer": _str,
    "correct": _bool,
    "externally_routed": _bool,
    "hedge_count": _i32,
    "decomp_count": _i32,
    "token_count": _i32,
    "error_type": _str,
}


def _exp9_slot_fields(slot: str) -> dict:
    out = {}
    for name, feature in _EXP9_SLOT.items():
        if name in ("domain", "subcategory", "strength", "exp1_accuracy", "mirror_gap"):
            out[f"{name}_{slot}"] = feature
        else:
            out[f"component_{slot}_{name}"] = feature
    return out


TRIAL_EXP9_FEATURES = Features(
    {
        **TRIAL_COMMON,
        "condition": _str,  # C1..C4
        "paradigm": _str,  # P1..P3
        "is_false_score_control": _bool,
        "task_type": _str,
        "circularity_free": _bool,
        "api_success": _bool,
        "decision_rules": _str,  # which words made a decision: paper / tags / upstream (protocol.exp9.DECISION_RULES)
        **_exp9_slot_fields("a"),
        **_exp9_slot_fields("b"),
    }
)

