"""The authors' human-baseline packet (`audit/human_baseline_packet`): their cohort's response sheets
graded against their answer keys, as trial splits flagged by what their own manifest says they are.

Their `cohort/human_collection_manifest.json` says `collection_mode: ai_simulated_human_roleplay`
and rows carry `notes: ai_simulated_human`: the "participants" were played by a model. Every split
imported from such a packet is of kind `participants.SIMULATED` (run_id prefix, manifest `source`),
so the card, the report and `score` say "AI-simulated, not human" wherever it appears.

Exp1 sheets answer the question in free text (the natural channel); Exp9 sheets give a decision
per component (PROCEED / USE_TOOL / FLAG_FOR_REVIEW, P2's checkpoint words, uninformed: C1) and the
answer. Answers are graded with our matcher (`--regrade`: strict by default) against the cleaned
answer key; the authors' own matcher's verdict is kept in `upstream_correct`.
"""

from __future__ import annotations

import csv
import hashlib
import json
from pathlib import Path

from mirror_hf.participants import HUMAN, RUN_PREFIX, SIMULATED, SIMULATED_WARNING
from mirror_hf.upstream.read import UpstreamError
from mirror_hf.upstream.report import CleanReport

DECISION_WORDS = {"PROCEED": "proceed", "USE_TOOL": "use_tool", "FLAG_FOR_REVIEW": "defer"}
COHORT = "cohort"
KEYS = "answer_keys"


def is_packet(path: Path) -> bool:
    return path.is_dir() and (path / COHORT).is_dir() and (path / KEYS).is_dir()


def _csv(path: Path) -> list[dict]:
    if not path.is_file():
        raise UpstreamError(f"{path}: no such file (a human-baseline packet has {KEYS}/ and {COHORT}/)")
    try:
        with path.open(newline="", encoding="utf-8") as f:
            return list(csv.DictReader(f))
    except (UnicodeDecodeError, csv.Error) as exc:
        raise UpstreamError(f"{path}: not a readable CSV sheet ({exc})") from None


def collection(packet: Path) -> dict:
    path = packet / COHORT / "human_collection_manifest.json"
    if not path.is_file():
        return {}
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except ValueError as exc:
        raise UpstreamError(f"{path}: not valid JSON ({exc})") from None


def _kind(manifest: dict, sheets: list[list[dict]]) -> str:
    mode = str(manifest.get("collection_mode", ""))
    notes = any("ai_simulated" in (row.get("notes") or "") for rows in sheets for row in rows)
    return SIMULATED if "simulated" in mode or notes else HUMAN


def participant_split(pid: str, kind: str) -> tuple[str, str]:
    """(model name, split) of one of their participants: prefixed `sim_` when simulated, so a real
    participant of the same id never meets it."""
    from mirror_hf.folder import model_split

    name = f"sim_{pid}" if kind == SIMULATED else pid
    return name, model_split(name)


def convert_packet(packet: Path, regrade: str | None) -> tuple[dict[tuple[str, str], list[dict]], CleanReport, dict]:
    """{(config, split): rows}, the cleaning report, and {(config, split): manifest}."""
    from mirror_hf.protocol import exp9 as p_exp9
    from mirror_hf.protocol.matching import match
    from mirror_hf.records import TRIAL_EXP1_FEATURES, TRIAL_EXP9_FEATURES, empty_row
    from mirror_hf.upstream.banks import clean_answer_type, clean_gold

    matcher = regrade or "strict"
    report = CleanReport(str(packet), "human_baseline_packet")
    keys1 = {r["item_id"]: r for r in _csv(packet / KEYS / "exp1_answer_key.csv")}
    keys9 = {r["item_id"]: r for r in _csv(packet / KEYS / "exp9_answer_key.csv")}
    sheets = {p: _csv(p) for p in sorted((packet / COHORT).glob("exp[19]_response_sheet_*.csv"))}
    if not sheets:
        raise UpstreamError(f"{packet / COHORT}: no exp1_response_sheet_*.csv or exp9_response_sheet_*.csv")
    manifest = collection(packet)
    kind = _kind(manifest, list(sheets.values()))
    if kind == SIMULATED:
        report.notes.append(f"WARNING: {SIMULATED_WARNING}")
    tables: dict[tuple[str, str], list[dict]] = {}
    manifests: dict[tuple[str, str], dict] = {}
    for path, rows in sheets.items():
        experiment = path.name.split("_", 1)[0]
        pid = path.stem.rsplit("_", 1)[-1]
        name, split = participant_split(pid, kind)
        sha = hashlib.sha256(path.read_bytes()).hexdigest()
        run_id = f"{RUN_PREFIX[kind]}{path.name}:{sha[:12]}"
        report.rows_read += len(rows)
        out = []
        for i, row in enumerate(rows):
            where = f"{path}:{i + 2}"
            if experiment == "exp1":
                key = keys1.get(row.get("item_id"))
                if key is None:
                    raise UpstreamError(f"{where}: field 'item_id': {row.get('item_id')!r} is not in {KEYS}/exp1_answer_key.csv")
                gold = clean_gold(key["correct_answer"], "gold", report)
                answer_type = clean_answer_type(key["answer_type"], "answer_type", report)
                answer = (row.get("participant_answer") or "").strip() or None
                trial = empty_row(TRIAL_EXP1_FEATURES)
                trial.update(channel="natural", answer=answer, parse_success=answer is not None, refused=False,
                             domain=row.get("domain") or key.get("domain"), subcategory=row.get("subcategory") or None,
                             difficulty=row.get("difficulty") or None, upstream_id=key["question_id"],
                             correct=match(answer, gold, answer_type, matcher=matcher) if answer else None,
                             upstream_correct=match(answer, gold, answer_type, matcher="upstream") if answer else None)
            else:
                key = keys9.get(row.get("item_id"))
                if key is None:
                    raise UpstreamError(f"{where}: field 'item_id': {row.get('item_id')!r} is not in {KEYS}/exp9_answer_key.csv")
                task = {"task_id": key["task_id"]}
                parsed = {"paradigm": "P2", "api_success": True, "decision_rules": "form"}
                for slot in p_exp9.SLOTS:
                    word = (row.get(f"decision_{slot}") or "").strip().upper()
                    if word not in DECISION_WORDS:
                        raise UpstreamError(f"{where}: field 'decision_{slot}': {word!r} is not one of {', '.join(DECISION_WORDS)}")
                    parsed[f"component_{slot}_decision"] = DECISION_WORDS[word]
                    parsed[f"component_{slot}_answer"] = (row.get(f"answer_{slot}") or "").strip() or None
                    task[f"correct_answer_{slot}"] = clean_gold(key[f"correct_answer_{slot}"], "gold", report)
                    task[f"answer_type_{slot}"] = clean_answer_type(key[f"answer_type_{slot}"], "answer_type", report)
                parsed["parse_success"] = True
                graded = p_exp9.grade_exp9(parsed, task, matcher)
                trial = empty_row(TRIAL_EXP9_FEATURES)
                trial.update({k: v for k, v in graded.items() if k in trial})
                trial.update(condition="C1", paradigm="P2", is_false_score_control=False, task_type="fixed", upstream_id=key["task_id"])
                for slot in p_exp9.SLOTS:
                    trial[f"domain_{slot}"] = row.get(f"domain_{slot}") or key.get(f"domain_{slot}")
                    trial[f"subcategory_{slot}"] = row.get(f"subcategory_{slot}") or None
                    trial[f"strength_{slot}"] = "unknown"
                    trial[f"component_{slot}_externally_routed"] = False
            answered = {k: v for k, v in row.items() if k.startswith(("participant_", "decision_", "answer_", "notes"))}
            trial.update(run_id=run_id, model=name, experiment=experiment, item_id=row["item_id"], answer_format=None,
                         raw_response=json.dumps(answered, ensure_ascii=False))
            out.append(trial)
        config = f"trials_{experiment}"
        tables[(config, split)] = out
        report.written_to[f"{config}/{split}"] += len(out)
        report.rows_written += len(out)
        manifests[(config, split)] = {
            "run_id": run_id, "package": "mirror-hf", "experiment": experiment, "model": name, "source": kind,
            "participant": pid, "collection_mode": manifest.get("collection_mode"), "protocol_version": manifest.get("protocol_version"),
            "response_file": path.name, "sha256": sha, "endpoint": None, "settings": {"matcher": matcher},
            "warning": SIMULATED_WARNING if kind == SIMULATED else None, "counts": {"trials": len(out)},
        }
    report.notes.append(f"{len({s for _, s in tables})} participant(s) of kind {kind!r} from {packet.name}")
    return tables, report, manifests
