"""The authors' result files -> the trial records our runner writes (`trials_exp1/3/9`) and the
per-model CFR table (`upstream_exp9_cfr`).

Every trial keeps the authors' grade in `upstream_correct` and the model name as they recorded it in
`model`; `run_id` names the source file. Without `regrade`, `correct` is the authors' grade (null for
failures they encoded as data); with `regrade="upstream" | "strict"` the raw responses are parsed
again with our parsers under those rules and graded with that matcher.

Cleaning rules (each counted in the file's report):
- duplicates: one row per (model, item, channel), the first in file order kept. The authors' Exp3 v2
  CCE for qwen3-next-80b (0.480) is reproduced only by the first copy, so first-wins is their rule;
- channel numbers become names (1 wagering, 2 opt_out, 3 difficulty_selection, 4 tool_delegation,
  5 natural; "layer2" and "structured_control" kept);
- confidences: a file whose confidences exceed 1 is on a 0-100 scale and is divided by 100;
- failures encoded as data are kept but marked: API errors recorded as wrong answers get
  correct = null and api_error; Exp3 self-reports the authors' parser defaulted to 0.5 (empty answer,
  a cut-off `<think>` block, no CONFIDENCE in the text) get parse_success = false.
"""

from __future__ import annotations

import re
from typing import Mapping

from mirror_hf.protocol import exp1 as p_exp1
from mirror_hf.protocol.matching import match, match_upstream
from mirror_hf.protocol.text import split_reasoning
from mirror_hf.records import TRIAL_EXP1_FEATURES, TRIAL_EXP3_FEATURES, TRIAL_EXP9_FEATURES, Question, empty_row
from mirror_hf.upstream.banks import clean_answer_type, clean_gold
from mirror_hf.upstream.read import SourceFile
from mirror_hf.upstream.report import CleanReport

CHANNEL_NAMES = {1: "wagering", 2: "opt_out", 3: "difficulty_selection", 4: "tool_delegation", 5: "natural"}


def model_split(model: str) -> str:
    """The split of a model's trials: `folder.model_split`, the rule the runner uses too
    ("gemini-2.5-pro" -> gemini_2_5_pro); a record without a usable name goes to `unknown_model`."""
    from mirror_hf.folder import FolderError
    from mirror_hf.folder import model_split as split_of

    try:
        return split_of(model)
    except FolderError:
        return "unknown_model"


def _dedupe(source: SourceFile, key, report: CleanReport, ignore: tuple[str, ...] = ("timestamp",)) -> list[tuple[int, dict]]:
    kept: dict = {}
    out = []
    for index, record in enumerate(source.records):
        k = key(record)
        if k in kept:
            first = kept[k]
            same = {f: v for f, v in first.items() if f not in ignore} == {f: v for f, v in record.items() if f not in ignore}
            if same:
                report.duplicates_identical += 1
            else:
                report.duplicates_conflicting += 1
            continue
        kept[k] = record
        out.append((index, record))
    return out


def _bool_or_none(value, what: str, report: CleanReport) -> bool | None:
    if value is None or isinstance(value, bool):
        return value
    if value in (0, 1, "true", "false", "True", "False"):
        report.coerced[f"{what} {type(value).__name__} -> bool"] += 1
        return value in (1, "true", "True")
    report.unusable[f"{what} is not a boolean"] += 1
    raise ValueError


def _int_or_none(value) -> int | None:
    if value is None or isinstance(value, bool):
        return None
    try:
        return int(value)
    except (TypeError, ValueError):
        return None


# --------------------------------------------------------------------------------------------
# Exp1
# --------------------------------------------------------------------------------------------


def _channel_name(record: dict, report: CleanReport) -> str | None:
    name = record.get("channel_name")
    channel = record.get("channel")
    if isinstance(name, str) and name:
        if isinstance(channel, int) and not isinstance(channel, bool):
            report.coerced["channel int -> name (channel_name kept)"] += 1
        return name
    if isinstance(channel, int) and not isinstance(channel, bool) and channel in CHANNEL_NAMES:
        report.coerced["channel int -> name"] += 1
        return CHANNEL_NAMES[channel]
    if isinstance(channel, str) and channel.isdigit() and int(channel) in CHANNEL_NAMES:
        report.coerced["channel digit string -> name"] += 1
        return CHANNEL_NAMES[int(channel)]
    if isinstance(channel, str) and channel in p_exp1.CHANNELS:
        return channel
    return None


def _confidence(channel: str, fields: dict) -> float | None:
    """The channel's confidence signal in [0, 1] from its raw form (same as our parsers)."""
    if channel == "wagering" and fields.get("bet") is not None:
        return fields["bet"] / 10
    if channel == "opt_out" and fields.get("skipped") is not None:
        return 0.0 if fields["skipped"] else 1.0
    if channel == "difficulty_selection" and fields.get("choice") in ("A", "B"):
        return 1.0 if fields["choice"] == "A" else 0.0
    if channel == "tool_delegation" and fields.get("tools_used") is not None:
        return 1.0 / (1 + len(fields["tools_used"]))
    if channel == "natural" and fields.get("hedging_count") is not None:
        return 1.0 / (1 + fields["hedging_count"])
    if channel == "layer2" and fields.get("self_report_confidence") is not None:
        return fields["self_report_confidence"] / 100
    if channel == "structured_control" and fields.get("control_confidence") is not None:
        return fields["control_confidence"] / 10
    return None


def _recorded_exp1_fields(channel: str, parsed: dict, report: CleanReport, record_bet=None) -> dict:
    """The authors' own parse, in our field names."""
    fields: dict = {}
    answer = parsed.get("final_answer") or parsed.get("answer")
    if answer is not None and not isinstance(answer, str):
        report.coerced[f"answer {type(answer).__name__} -> str"] += 1
        answer = str(answer)
    fields["answer"] = answer
    fields["refused"] = parsed.get("refused")
    fields["parse_success"] = parsed.get("parse_success")
    fields["reasoning"] = parsed.get("thinking_content")
    bet = _int_or_none(parsed.get("bet", parsed.get("bet_size", record_bet)))
    fields["bet"] = bet if bet is not None and 1 <= bet <= 10 else None
    fields["skipped"] = parsed.get("skipped")
    fields["choice"] = parsed.get("choice")
    tools = parsed.get("tools_used")
    if tools is not None:
        fields["tools_used"] = [t.get("tool_name") if isinstance(t, dict) else str(t) for t in tools]
    for name in ("hedging_count", "caveat_count", "response_length"):
        fields[name] = _int_or_none(parsed.get(name))
    confidence = parsed.get("confidence")
    if channel == "layer2" and isinstance(confidence, (int, float)) and not isinstance(confidence, bool):
        fields["self_report_confidence"] = float(confidence)
    if channel == "structured_control" and isinstance(confidence, (int, float)) and not isinstance(confidence, bool):
        fields["control_confidence"] = int(confidence)
    skills = parsed.get("sub_skills")
    fields["sub_skills"] = ", ".join(map(str, skills)) if isinstance(skills, list) else skills
    fields["weakest_skill"] = parsed.get("weakest_skill")
    verify = parsed.get("verify")
    fields["verify"] = ("yes" if verify else "no") if isinstance(verify, bool) else verify
    fields["approach"] = parsed.get("approach")
    return fields


def exp1_rows(
    source: SourceFile, report: CleanReport, questions: Mapping[str, Question], regrade: str | None
) -> dict[str, list[dict]]:
    """Exp1 result records -> TRIAL_EXP1_FEATURES rows by split."""
    out: dict[str, list[dict]] = {}

    without_ids = sum(1 for r in source.records if r.get("question_id") is None)
    if without_ids:
        report.notes.append(f"{without_ids} rows carry no question id: kept as they are (no bank join, no dedupe, no regrade)")

    def key(record):
        qid = record.get("question_id")
        return (record.get("model"), qid if qid is not None else id(record), _channel_name(record, CleanReport("", "")))

    missing_questions = 0
    for _, record in _dedupe(source, key, report):
        channel = _channel_name(record, report)
        if channel is None:
            report.unusable[f"unknown channel {record.get('channel')!r}"] += 1
            continue
        if not record.get("model"):
            report.unusable["no model"] += 1
            continue
        try:
            upstream_correct = _bool_or_none(record.get("answer_correct"), "answer_correct", report)
        except ValueError:
            continue
        item_id = str(record["question_id"]) if record.get("question_id") is not None else None
        question = questions.get(item_id) if item_id else None
        parsed = record.get("parsed") if isinstance(record.get("parsed"), dict) else {}
        raw = record.get("raw_response")
        api_error = record.get("error") or None
        if api_error is not None and not isinstance(api_error, str):
            api_error = str(api_error)
        failed = raw is None and (api_error is not None or ("raw_response" in record and not parsed))
        row = empty_row(TRIAL_EXP1_FEATURES)
        row.update(
            run_id=source.run_id,
            model=str(record["model"]),
            experiment="exp1",
            item_id=item_id,
            raw_response=raw,
            api_error=api_error if failed or api_error else None,
            latency_ms=float(record["latency_ms"]) if isinstance(record.get("latency_ms"), (int, float)) else None,
            domain=record.get("domain") or (question.domain if question else None),
            subcategory=question.subcategory if question else record.get("subcategory"),
            difficulty=record.get("difficulty"),
            channel=channel,
            upstream_correct=upstream_correct,
            chosen_item_id=None,
            paired_item_id=str(record["ch3_pair_id"]) if record.get("ch3_pair_id") is not None else None,
        )
        if failed:
            row["api_error"] = api_error or "no response recorded"
            if upstream_correct is False:
                report.flagged["API failure recorded as answer_correct=false -> correct null"] += 1
            row["correct"] = None
            row["parse_success"] = False
        elif regrade and raw is None:
            report.coerced["no raw response to regrade: the authors' parse and grade kept"] += 1
            row.update(_recorded_exp1_fields(channel, parsed, report, record.get("bet_size")))
            row["correct"] = upstream_correct
        elif regrade:
            if question is None:
                missing_questions += item_id is not None
                row["correct"] = None
                row.update(_recorded_exp1_fields(channel, parsed, report))
            elif channel == "difficulty_selection":
                report.unusable["difficulty selection cannot be regraded without its pair (kept, ungraded)"] += 1
                row.update(_recorded_exp1_fields(channel, parsed, report))
                row["correct"] = None
            else:
                fresh = p_exp1.parse(channel, raw, rules=regrade)
                graded = p_exp1.grade(fresh, question, regrade)
                for name, value in graded.items():
                    if name in row and name not in ("channel", "raw_response"):
                        row[name] = value
        else:
            row.update(_recorded_exp1_fields(channel, parsed, report, record.get("bet_size")))
            row["correct"] = upstream_correct
        row["confidence"] = _confidence(channel, row)
        out.setdefault(model_split(row["model"]), []).append(row)
    if missing_questions:
        report.unusable[f"question not in the given bank (kept, ungraded by --regrade {regrade})"] += missing_questions
    return out


# --------------------------------------------------------------------------------------------
# Exp3
# --------------------------------------------------------------------------------------------


def _defaulted_confidence(answer: str | None, confidence: float | None) -> str | None:
    """Why a v2 layer-2 confidence of 0.5 is the authors' parser default rather than a statement."""
    if confidence != 0.5:
        return None
    if not answer:
        return "empty answer with default confidence 0.5"
    if answer.lstrip().lower().startswith("<think>") and "</think>" not in answer.lower():
        return "response cut off inside <think>, default confidence 0.5"
    fallback = "\n" in answer or len(answer) >= 200
    if fallback and not re.search(r"CONFIDENCE\s*:\s*\d", answer, re.IGNORECASE):
        return "no CONFIDENCE in the response, default confidence 0.5"
    return None


def exp3_rows(
    source: SourceFile, report: CleanReport, tasks: Mapping[str, dict], regrade: str | None
) -> dict[str, list[dict]]:
    """Exp3 result records -> TRIAL_EXP3_FEATURES rows by split (composite target)."""
    out: dict[str, list[dict]] = {}
    confidences = [r.get("confidence") for r in source.records if isinstance(r.get("confidence"), (int, float)) and not isinstance(r.get("confidence"), bool)]
    scale = 100.0 if confidences and max(confidences) > 1 else 1.0
    report.notes.append(f"confidence scale detected: {'0-100 (divided by 100)' if scale == 100 else '0-1'}")
    if regrade:
        report.notes.append(f"regraded with matcher={regrade} from the recorded answers (the file holds no full raw responses)")
    key = lambda r: (r.get("model"), r.get("task_id"), r.get("channel"))  # noqa: E731
    for _, record in _dedupe(source, key, report):
        if not record.get("model") or not record.get("task_id") or not isinstance(record.get("channel"), str):
            report.unusable["missing model, task_id or channel"] += 1
            continue
        try:
            upstream_correct = _bool_or_none(record.get("answer_correct"), "answer_correct", report)
        except ValueError:
            continue
        answer = record.get("answer")
        if answer is not None and not isinstance(answer, str):
            report.coerced[f"answer {type(answer).__name__} -> str"] += 1
            answer = str(answer)
        confidence = record.get("confidence")
        if isinstance(confidence, bool) or (confidence is not None and not isinstance(confidence, (int, float))):
            report.unusable["confidence is not a number"] += 1
            continue
        if confidence is not None:
            confidence = confidence / scale
            if not 0 <= confidence <= 1:
                report.unusable["confidence outside the scale"] += 1
                continue
        row = empty_row(TRIAL_EXP3_FEATURES)
        row.update(
            run_id=source.run_id,
            model=str(record["model"]),
            experiment="exp3",
            item_id=record["task_id"],
            channel=record["channel"],
            target="composite",
            domain_a=record.get("domain_a"),
            domain_b=record.get("domain_b"),
            answer=answer,
            confidence=confidence,
            self_report_confidence=confidence * 100 if confidence is not None and record["channel"] == "layer2" else None,
            upstream_correct=upstream_correct,
            parse_success=bool(answer),
        )
        task = tasks.get(record["task_id"])
        if record["channel"] == "layer2":
            why = _defaulted_confidence(answer, confidence)
            if why:
                report.flagged[f"{why} (kept, parse_success=false)"] += 1
                row["parse_success"] = False
        if not answer and record["channel"] != "layer2":
            report.flagged["empty answer (kept, parse_success=false)"] += 1
        if regrade:
            row["correct"] = _regrade_exp3(answer, record, task, regrade, report)
        else:
            row["correct"] = upstream_correct
        out.setdefault(model_split(row["model"]), []).append(row)
    return out


def _regrade_exp3(answer: str | None, record: dict, task: dict | None, matcher: str, report: CleanReport) -> bool | None:
    gold = record.get("correct_answer")
    raw_type = task["raw_answer_type"] if task else None
    if task is None:
        report.unusable["task not in the given bank (answer type unknown; graded as untyped)"] += 1
    if matcher == "upstream":
        # The authors graded whatever their parser kept, even an empty or missing answer.
        return match_upstream(str(answer) if answer is not None else "None", str(gold), raw_type)
    if not answer:
        return None
    visible, _ = split_reasoning(answer)
    if not visible:
        return None
    scratch = CleanReport("", "")
    clean = clean_gold(str(gold), "gold", scratch)
    answer_type = clean_answer_type(raw_type, "type", scratch) if raw_type else None
    return match(visible, clean, answer_type, matcher="strict")


# --------------------------------------------------------------------------------------------
# Exp9
# --------------------------------------------------------------------------------------------

_SLOT_FIELDS = ("decision", "answer", "correct", "externally_routed", "hedge_count", "decomp_count", "token_count", "error_type")
_CONTEXT_FIELDS = ("domain", "subcategory", "strength", "exp1_accuracy", "mirror_gap")


def _code(value, prefix: str) -> str | None:
    if value is None:
        return None
    text = str(value).strip().upper()
    return text if text.startswith(prefix) else f"{prefix}{text}"


def exp9_rows(source: SourceFile, report: CleanReport, regrade: str | None) -> dict[str, list[dict]]:
    """Exp9 per-trial records -> TRIAL_EXP9_FEATURES rows by split (the authors' grades kept)."""
    out: dict[str, list[dict]] = {}
    if regrade:
        report.notes.append("Exp9 results are not regraded: the authors' per-component grades are kept")
    key = lambda r: (r.get("model"), r.get("task_id"), r.get("condition"), r.get("paradigm"), bool(r.get("is_false_score_control")))  # noqa: E731
    for _, record in _dedupe(source, key, report):
        if not record.get("model") or not record.get("task_id"):
            report.unusable["missing model or task_id"] += 1
            continue
        row = empty_row(TRIAL_EXP9_FEATURES)
        row.update(
            run_id=source.run_id,
            model=str(record["model"]),
            experiment="exp9",
            item_id=str(record["task_id"]),
            raw_response=record.get("raw_response"),
            condition=_code(record.get("condition"), "C"),
            paradigm=_code(record.get("paradigm"), "P"),
            is_false_score_control=bool(record.get("is_false_score_control", False)),
            task_type=record.get("task_type"),
            circularity_free=record.get("circularity_free"),
            api_success=record.get("api_success"),
        )
        if isinstance(record.get("condition"), int) or isinstance(record.get("paradigm"), int):
            report.coerced["condition/paradigm number -> C<n>/P<n>"] += 1
        for slot in ("a", "b"):
            for name in _CONTEXT_FIELDS:
                row[f"{name}_{slot}"] = record.get(f"{name}_{slot}")
            for name in _SLOT_FIELDS:
                value = record.get(f"component_{slot}_{name}", record.get(f"{name}_{slot}"))
                row[f"component_{slot}_{name}"] = value
            if row[f"component_{slot}_answer"] is not None and not isinstance(row[f"component_{slot}_answer"], str):
                report.coerced["component answer -> str"] += 1
                row[f"component_{slot}_answer"] = str(row[f"component_{slot}_answer"])
        if record.get("api_success") is False:
            report.flagged["api_success=false (components parsed from an empty response upstream)"] += 1
        out.setdefault(model_split(row["model"]), []).append(row)
    return out


def cfr_rows(source: SourceFile, report: CleanReport) -> list[dict]:
    """The authors' per-model CFR table -> one row per model x condition."""
    rows = []
    document = source.records[0]
    for model, per_condition in document["per_model"].items():
        if not isinstance(per_condition, dict):
            report.unusable[f"model {model}: not a condition table"] += 1
            continue
        for condition, value in per_condition.items():
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 <= value <= 1:
                report.unusable["CFR missing or outside [0, 1]"] += 1
                continue
            rows.append({"model": model, "condition": _code(condition, "C"), "cfr": float(value), "run_id": source.run_id})
    report.rows_read = len(rows) + sum(report.unusable.values())
    if document.get("n_models") is not None and document["n_models"] != len(document["per_model"]):
        report.notes.append(f"n_models says {document['n_models']} but the table has {len(document['per_model'])}")
    return rows
