"""`mirror-hf import-human FILE... --dataset DIR`: response files of the questionnaire as trial
splits, graded exactly as a model's trials are.

Every file is read and checked against the packet before anything is written: the packet its
`packet_settings` make on DIR must hash to its `packet_hash` (else the hash was tampered with), and
that must be the packet of the import (`--packet`, else the first file's); a participant already in
the folder or twice among the files, a response to an item or channel the packet does not ask, or a
step answered twice is refused. A file that says it is finished must answer every step; an
unfinished one imports what it answers, the rest counted as missing, never invented.

Each response becomes the parse a model's response of that channel gives (the answer as entered,
the wager as the bet, the skip, the task chosen, the decision per component) and is graded by the
recipes' graders: `protocol.exp1.grade` with the item's difficulty pair, `protocol.exp9.grade_exp9`
under the strict matcher. The split (= participant id) is written by the runner's `write_trials`
with a manifest saying `source: human`; the card and Croissant are refreshed.
"""

from __future__ import annotations

import datetime as dt
import json
import re
from dataclasses import dataclass, field
from pathlib import Path

from mirror_hf.errors import MirrorValueError
from mirror_hf.human.packet import HUMAN_EXP9_CONDITION, HUMAN_EXP9_PARADIGM, PacketSettings, build_packet, packet_hash, steps
from mirror_hf.human.page import PARTICIPANT_PATTERN, RESPONSE_FORMAT
from mirror_hf.participants import HUMAN, RUN_PREFIX

MATCHER = "strict"


class HumanImportError(MirrorValueError):
    """A response file that cannot be imported: one line naming the file and the field."""


@dataclass
class Participant:
    path: Path
    participant: str
    split: str
    finished: bool
    data: dict
    responses: dict[tuple[str, str], dict]
    missing: list[tuple[str, str]] = field(default_factory=list)


@dataclass
class HumanImport:
    participant: str
    split: str
    trials: dict[str, int]  # config -> rows written
    missing: int
    finished: bool

    def line(self) -> str:
        where = ", ".join(f"{c}/{self.split} ({n} trials)" for c, n in self.trials.items())
        tail = "" if self.finished else " (unfinished)"
        return f"imported participant {self.participant}: {where}; {self.missing} step(s) missing{tail}"


def _read(path: Path) -> dict:
    if not path.is_file():
        raise HumanImportError(f"{path}: no such file")
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except UnicodeDecodeError:
        raise HumanImportError(f"{path}: not UTF-8 text") from None
    except json.JSONDecodeError as exc:
        raise HumanImportError(f"{path}:{exc.lineno}: not valid JSON ({exc.msg})") from None
    if not isinstance(data, dict) or data.get("format") != RESPONSE_FORMAT:
        raise HumanImportError(f"{path}: field 'format': not a Mirror response file (expected {RESPONSE_FORMAT!r})")
    for name in ("packet_hash", "participant", "responses", "packet_settings"):
        if name not in data:
            raise HumanImportError(f"{path}: field {name!r} missing")
    if not isinstance(data["responses"], list):
        raise HumanImportError(f"{path}: field 'responses' must be a list")
    if not isinstance(data["participant"], str) or not re.match(PARTICIPANT_PATTERN, data["participant"]):
        raise HumanImportError(f"{path}: field 'participant': {data['participant']!r} must match {PARTICIPANT_PATTERN}")
    return data


def _packet_of(settings: PacketSettings, root: Path, cache: dict) -> dict:
    key = (settings.exp1_per_domain, settings.exp9_per_pair, settings.seed)
    if key not in cache:
        cache[key] = build_packet(root, settings)
    return cache[key]


def _check_response(path: Path, i: int, r, item: dict | None, asked: set, seen: set) -> tuple[str, str]:
    where = f"{path}: responses[{i}]"
    if not isinstance(r, dict):
        raise HumanImportError(f"{where}: not an object")
    for name in ("item_id", "channel", "answer"):
        if name not in r:
            raise HumanImportError(f"{where}: field {name!r} missing")
    key = (r["item_id"], r["channel"])
    if item is None:
        raise HumanImportError(f"{where}: field 'item_id': {r['item_id']!r} is not an item of the packet (an extra item)")
    if key not in asked:
        raise HumanImportError(f"{where}: field 'channel': the packet does not ask item {r['item_id']} in channel {r['channel']!r}")
    if key in seen:
        raise HumanImportError(f"{where}: item {r['item_id']} channel {r['channel']} answered twice")
    seen.add(key)
    answer = r["answer"]
    if answer is not None and not isinstance(answer, str):
        raise HumanImportError(f"{where}: field 'answer' must be text or null")
    channel = r["channel"]
    need = {"wagering": "wager", "opt_out": "skipped", "difficulty_selection": "choice"}.get(channel)
    if item["experiment"] == "exp9":
        need = "decision"
    if need and need not in r:
        raise HumanImportError(f"{where}: field {need!r} missing (channel {channel})")
    if channel == "wagering" and not (isinstance(r["wager"], int) and not isinstance(r["wager"], bool) and 1 <= r["wager"] <= 10):
        raise HumanImportError(f"{where}: field 'wager': {r['wager']!r} is not a whole number 1-10")
    if channel == "opt_out" and not isinstance(r["skipped"], bool):
        raise HumanImportError(f"{where}: field 'skipped' must be true or false")
    if channel == "difficulty_selection" and r["choice"] not in ("A", "B"):
        raise HumanImportError(f"{where}: field 'choice': {r['choice']!r} is not A or B")
    if item["experiment"] == "exp9":
        from mirror_hf.protocol.exp9 import DECISIONS

        if r["decision"] not in DECISIONS:
            raise HumanImportError(f"{where}: field 'decision': {r['decision']!r} is not one of {', '.join(DECISIONS)}")
    ms = r.get("response_ms")
    if ms is not None and (isinstance(ms, bool) or not isinstance(ms, (int, float)) or ms < 0):
        raise HumanImportError(f"{where}: field 'response_ms' must be a number of milliseconds >= 0")
    return key


def check_files(files: list[Path], root: Path, packet_file: Path | None = None) -> tuple[dict, list[Participant]]:
    """(the packet, the participants), every file checked; HumanImportError on the first problem."""
    from mirror_hf.folder import model_split, read_marker, split_files

    if not files:
        raise HumanImportError("no response files given")
    cache: dict = {}
    marker = read_marker(root) or {}
    reference = None
    if packet_file is not None:
        try:
            reference = json.loads(Path(packet_file).read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            raise HumanImportError(f"{packet_file}: not a readable packet.json ({exc})") from None
        if not isinstance(reference, dict) or reference.get("packet_hash") != packet_hash(reference):
            raise HumanImportError(f"{packet_file}: field 'packet_hash' does not match the packet's content (the packet was changed)")
        rebuilt = _packet_of(PacketSettings.from_json(reference.get("settings"), str(packet_file)), root, cache)
        if rebuilt["packet_hash"] != reference["packet_hash"]:
            raise HumanImportError(f"{packet_file}: not a packet of {root} (its items are not the ones this folder's banks give)")
    existing = {f.split: config for config in ("trials_exp1", "trials_exp9") for f in split_files(root).get(config, [])}
    people: list[Participant] = []
    seen_ids: dict[str, Path] = {}
    for path in map(Path, files):
        data = _read(path)
        if data.get("build_hash") is not None and data["build_hash"] != marker.get("build_hash"):
            raise HumanImportError(f"{path}: field 'build_hash': a file from another packet (made on dataset build "
                                   f"{data['build_hash']}, {root} is build {marker.get('build_hash')})")
        settings = PacketSettings.from_json(data["packet_settings"], str(path))
        own = _packet_of(settings, root, cache)
        if data["packet_hash"] != own["packet_hash"]:
            raise HumanImportError(f"{path}: field 'packet_hash': {str(data['packet_hash'])[:16]}... is not the hash of the packet "
                                   "its packet_settings make on this folder (the hash was changed)")
        if reference is None:
            reference = own
        if data["packet_hash"] != reference["packet_hash"]:
            raise HumanImportError(f"{path}: field 'packet_hash': a file from another packet ({data['packet_hash'][:12]}, "
                                   f"this import's packet is {reference['packet_hash'][:12]})")
        pid = data["participant"]
        split = model_split(pid)
        if split in existing:
            raise HumanImportError(f"{path}: field 'participant': {pid!r} is already in the folder ({existing[split]}/{split}); "
                                   "a duplicate participant")
        if split in seen_ids:
            raise HumanImportError(f"{path}: field 'participant': {pid!r} is also the participant of {seen_ids[split]}; "
                                   "a duplicate participant")
        seen_ids[split] = path
        items = {item["item_id"]: item for item in reference["items"]}
        asked = set(steps(reference))
        answered: dict[tuple[str, str], dict] = {}
        seen: set = set()
        for i, r in enumerate(data["responses"]):
            item = items.get(r.get("item_id")) if isinstance(r, dict) else None
            key = _check_response(path, i, r, item, asked, seen)
            answered[key] = r
        missing = [s for s in steps(reference) if s not in answered]
        finished = data.get("finished", True) is not False
        if finished and missing:
            item_id, channel = missing[0]
            raise HumanImportError(f"{path}: field 'responses': {len(missing)} step(s) of the packet missing (first: item {item_id} "
                                   f"channel {channel}) in a file marked finished; an unfinished file says finished: false")
        people.append(Participant(path, pid, split, finished, data, answered, missing))
    return reference, people


def _exp1_rows(person: Participant, packet: dict, root: Path, run_id: str) -> list[dict]:
    from mirror_hf.protocol import exp1
    from mirror_hf.protocol.pairing import difficulty_pairs, pair_for_each_question
    from mirror_hf.records import TRIAL_EXP1_FEATURES, Question, empty_row
    from mirror_hf.runner.plan import read_config

    bank = [Question.from_row(r) for r in read_config(root, "questions", needed_for="import-human")]
    by_id = {q.id: q for q in bank}
    pairs = pair_for_each_question(difficulty_pairs(bank))
    from mirror_hf.protocol.formats import question_as_asked

    rows = []
    for item_id, channel in steps(packet):
        r = person.responses.get((item_id, channel))
        if r is None:
            continue
        q = question_as_asked(by_id[item_id], "choices") if item_id in by_id else None
        if q is None:  # only an Exp9 step reaches here for a task id
            continue
        pair = pairs.get(item_id)
        parsed = {"channel": channel, "answer": r["answer"], "answer_candidates": None, "refused": False, "truncated": False}
        if channel == "wagering":
            parsed["bet"] = r["wager"]
        elif channel == "opt_out":
            parsed["skipped"] = r["skipped"]
        elif channel == "difficulty_selection":
            parsed["choice"] = r["choice"]
        elif channel == "natural":
            parsed["hedging_count"] = None  # a form has no free text to count hedges in
        parsed["parse_success"] = (parsed["answer"] is not None) or parsed.get("skipped") is True
        parsed["confidence"] = exp1.signal_of(channel, parsed)
        if pair is not None and channel == "difficulty_selection":
            messages = exp1.build_difficulty_selection(q, pair=pair)
        else:
            messages = exp1.channel(channel).build(q)
        graded = exp1.grade(parsed, q, MATCHER, pair=pair)
        row = empty_row(TRIAL_EXP1_FEATURES)
        row.update({k: v for k, v in graded.items() if k in row})
        row.update(_common(person, run_id, "exp1", item_id, messages, r, _shown_response(r)),
                   channel=channel, domain=q.domain, subcategory=q.subcategory, difficulty=q.difficulty)
        rows.append(row)
    return rows


def _exp9_rows(person: Participant, packet: dict, root: Path, run_id: str) -> list[dict]:
    from mirror_hf.protocol import exp9
    from mirror_hf.protocol.formats import exp9_task_as_asked
    from mirror_hf.records import TRIAL_EXP9_FEATURES, empty_row
    from mirror_hf.runner.plan import read_config

    tasks = {t["task_id"]: t for t in read_config(root, "exp9_fixed", needed_for="import-human")}
    rows = []
    for item in packet["items"]:
        if item["experiment"] != "exp9":
            continue
        got = {slot: person.responses.get((item["item_id"], f"component_{slot}")) for slot in exp9.SLOTS}
        if not any(got.values()):
            continue
        task = exp9_task_as_asked(tasks[item["item_id"]], "choices")
        parsed = {"paradigm": HUMAN_EXP9_PARADIGM, "api_success": True, "decision_rules": "form",
                  "parse_success": all(got.values()), "truncated": False}
        for slot, r in got.items():
            parsed[f"component_{slot}_decision"] = r["decision"] if r else None
            parsed[f"component_{slot}_answer"] = r["answer"] if r else None
        graded = exp9.grade_exp9(parsed, task, MATCHER)
        row = empty_row(TRIAL_EXP9_FEATURES)
        row.update({k: v for k, v in graded.items() if k in row})
        messages = exp9.build_exp9(task, HUMAN_EXP9_CONDITION, HUMAN_EXP9_PARADIGM)
        answered = [r for r in got.values() if r]
        shown = "\n\n".join(f"STEP {i}\n" + _shown_response(r) for i, r in enumerate(got.values(), start=1) if r)
        row.update(_common(person, run_id, "exp9", item["item_id"], messages, answered, shown),
                   condition=HUMAN_EXP9_CONDITION, paradigm=HUMAN_EXP9_PARADIGM, is_false_score_control=False,
                   **exp9.slot_context(task, {}))
        rows.append(row)
    return rows


def _shown_response(r: dict) -> str:
    """The person's response in the channel's answer format, for the trial browser (not parsed)."""
    lines = []
    if "decision" in r:
        lines.append(f"YOUR DECISION: {r['decision']}")
    if "choice" in r:
        lines.append(f"CHOICE: {r['choice']}")
    if r.get("skipped") is True:
        lines.append("SKIP")
    if r.get("answer") is not None:
        lines.append(f"ANSWER: {r['answer']}")
    if "wager" in r:
        lines.append(f"BET: {r['wager']}")
    return "\n".join(lines)


def _common(person: Participant, run_id: str, experiment: str, item_id: str, messages, responses, shown: str) -> dict:
    import hashlib

    responses = responses if isinstance(responses, list) else [responses]
    times = [r.get("response_ms") for r in responses if r.get("response_ms") is not None]
    prompt = json.dumps(messages, ensure_ascii=False)
    return {
        "run_id": run_id, "model": person.participant, "experiment": experiment, "item_id": item_id,
        "answer_format": "choices", "prompt": prompt, "prompt_sha": hashlib.sha256(prompt.encode()).hexdigest(),
        "raw_response": shown, "attempts": 1, "latency_ms": float(sum(times)) if times else None, "api_error": None,
    }


def import_human(files: list[Path], root: Path, packet_file: Path | None = None) -> list[HumanImport]:
    """Check every file, then write each participant's splits and refresh the card and Croissant."""
    from mirror_hf._version import __version__
    from mirror_hf.folder import read_marker, require_writable
    from mirror_hf.metadata import refresh_metadata
    from mirror_hf.records import TRIAL_EXP1_FEATURES, TRIAL_EXP9_FEATURES
    from mirror_hf.runner.trials import write_trials

    root = Path(root).absolute()
    if not (root / "data").is_dir():
        raise HumanImportError(f"{root} is not a dataset folder (no data/ directory)")
    packet, people = check_files(files, root, packet_file)
    require_writable(root, "import-human")
    marker = read_marker(root) or {}
    staged = []
    for person in people:
        run_id = f"{RUN_PREFIX[HUMAN]}{packet['packet_hash'][:12]}:{person.participant}"
        tables = {"exp1": (_exp1_rows(person, packet, root, run_id), TRIAL_EXP1_FEATURES),
                  "exp9": (_exp9_rows(person, packet, root, run_id), TRIAL_EXP9_FEATURES)}
        staged.append((person, run_id, {k: v for k, v in tables.items() if v[0]}))
    from mirror_hf.folder import rows_to_table

    built = []
    for person, run_id, tables in staged:  # tabled (and type-checked) before any file is written
        built.append((person, run_id, {e: (rows_to_table(rows, feats, where=f"{person.path} trials_{e}"), feats, len(rows))
                                       for e, (rows, feats) in tables.items()}))
    cell = {"exp9": {"condition": HUMAN_EXP9_CONDITION, "paradigm": HUMAN_EXP9_PARADIGM}}
    of_experiment = {e: {it["item_id"] for it in packet["items"] if it["experiment"] == e} for e in ("exp1", "exp9")}
    out = []
    for person, run_id, tables in built:
        written = {}
        for experiment, (table, features, n) in tables.items():
            manifest = {
                "run_id": run_id, "package": "mirror-hf", "version": __version__, "experiment": experiment,
                "model": person.participant, "source": HUMAN, "participant": person.participant,
                "packet_hash": packet["packet_hash"], "packet_settings": packet["settings"], "response_file": person.path.name,
                "endpoint": None, "embedded": False, "started": person.data.get("started"),
                "finished": person.data.get("exported") or dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
                "dataset": {k: marker.get(k) for k in ("version", "seed", "per_domain", "build_hash")},
                "generation": {}, "settings": {"matcher": MATCHER, "answer_format": "choices", **cell.get(experiment, {})},
                "counts": {"trials": n, "missing_steps": sum(1 for i, _ in person.missing if i in of_experiment[experiment]),
                           "finished": person.finished},
            }
            write_trials(root, experiment, person.split, table, manifest, features)
            written[f"trials_{experiment}"] = n
        out.append(HumanImport(person.participant, person.split, written, len(person.missing), person.finished))
    refresh_metadata(root)
    return out
