"""`mirror-hf human-packet`: the questionnaire a person takes, drawn from the folder's own banks.

The items are the runner's: Exp1 questions in `stratified` order (what `run --limit` sends, per
domain), Exp9 fixed tasks in `stratified` order per domain pair; with the default seed the Exp1
items are exactly those of `run --experiment exp1 --limit <8 x per domain>`. A person gets the
channels a person can answer (`HUMAN_EXP1_CHANNELS`; Exp9 under C1 with P2's checkpoint decision per
component), with the instructions the model gets, cut from the protocol's own prompt text (its
answer-format lines dropped: the form's fields replace them).

`packet.json` holds the items as shown and no gold; `packet_hash` is the sha256 of its canonical
JSON without that field, so a response file names the exact packet it answers.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from pathlib import Path

from mirror_hf.errors import MirrorValueError

#: the Exp1 channels a person can answer in a form (the tool channel needs executed tools; the
#: natural channel's hedging signal is a model's free text), in the order each item asks them
HUMAN_EXP1_CHANNELS: tuple[str, ...] = ("natural", "wagering", "opt_out", "difficulty_selection")
#: Exp9 as a person takes it: uninformed (C1), checkpoint decisions (P2), one step per component
HUMAN_EXP9_CONDITION, HUMAN_EXP9_PARADIGM = "C1", "P2"
EXP9_STEPS: tuple[str, ...] = ("component_a", "component_b")
PACKET_FORMAT = "mirror-hf human packet"
PACKET_VERSION = 1


class PacketError(MirrorValueError):
    """The packet cannot be made from this folder with these settings (one line)."""


@dataclass(frozen=True)
class PacketSettings:
    exp1_per_domain: int = 10
    exp9_per_pair: int = 2
    seed: int | None = None  # None: the runner's own order (the items `run --limit` sends)

    def to_json(self) -> dict:
        return {"exp1_per_domain": self.exp1_per_domain, "exp9_per_pair": self.exp9_per_pair, "seed": self.seed}

    @classmethod
    def from_json(cls, value: dict, where: str) -> "PacketSettings":
        if not isinstance(value, dict):
            raise PacketError(f"{where}: field 'packet_settings' must be an object")
        try:
            seed = value.get("seed")
            return cls(int(value["exp1_per_domain"]), int(value["exp9_per_pair"]), None if seed is None else int(seed))
        except (KeyError, TypeError, ValueError) as exc:
            raise PacketError(f"{where}: field 'packet_settings' is incomplete ({exc})") from None


def _seeded(seed: int | None, item_id: str) -> str:
    """The id the stratified order is drawn on: the item's own (seed None, the runner's order) or
    salted with the seed (a different draw of the same design)."""
    return item_id if seed is None else f"{seed}|{item_id}"


def _plain(instructions: str) -> str:
    """A channel's instructions as a person reads them: the protocol's text without its
    answer-format block (the form's fields replace "Format your response ...")."""
    for marker in ("\n\nFormat", "\nFormat", "\n\nWrite either"):
        if marker in instructions:
            instructions = instructions.split(marker)[0]
    return instructions.replace("write SKIP", "choose SKIP").strip()


def channel_instructions() -> dict[str, str]:
    """Per channel, the wording the model gets (protocol.exp1), as a person reads it."""
    from mirror_hf.protocol import exp1

    pair_rules = [ln.strip() for ln in exp1.DIFFICULTY_TEMPLATE.splitlines() if ln.strip().startswith("→")]
    return {
        "natural": "Answer the question.",
        "wagering": _plain(exp1.WAGERING_INSTRUCTIONS),
        "opt_out": _plain(exp1.OPT_OUT_INSTRUCTIONS),
        "difficulty_selection": (_plain(exp1.DIFFICULTY_TEMPLATE.split("\n\n")[0]) + " Task A (harder) "
                                 + pair_rules[0].lstrip("→ ") + "; Task B (easier) " + pair_rules[1].lstrip("→ ")
                                 + ". Choose one, then answer the task you chose."),
    }


def exp9_instructions() -> dict[str, str]:
    """Exp9 P2's wording (protocol.exp9.paradigm_body), cut into the intro and the decision line."""
    from mirror_hf.protocol import exp9

    body = exp9.paradigm_body(HUMAN_EXP9_PARADIGM, {"task_text": "", "part1_text": "", "part2_text": ""})
    intro = body.split("\n\nTASK:")[0].strip()
    decide = next(ln for ln in body.splitlines() if ln.startswith("Before working"))
    return {"intro": intro, "decision": decide.strip(),
            "decisions": {"proceed": "PROCEED (solve it yourself)", "use_tool": "USE_TOOL (hand it to a tool)",
                          "defer": "FLAG_FOR_REVIEW (flag it for human review)"}}


def _choices_shown(question) -> list[str]:
    return list(question.choices)


def _exp1_items(root: Path, settings: PacketSettings) -> list[dict]:
    from dataclasses import replace

    from mirror_hf.protocol.formats import question_as_asked
    from mirror_hf.protocol.pairing import difficulty_pairs, pair_for_each_question
    from mirror_hf.records import Question
    from mirror_hf.runner.plan import read_config, stratified

    bank = [Question.from_row(r) for r in read_config(root, "questions", needed_for="human-packet")]
    domains = sorted({q.domain for q in bank})
    salted = {(_seeded(settings.seed, q.id)): q for q in bank}
    keyed = [replace(q, id=k) for k, q in salted.items()]
    chosen = stratified(keyed, settings.exp1_per_domain * len(domains), stratum=lambda q: q.domain,
                        substratum=lambda q: q.subcategory)
    chosen = [salted[q.id] for q in chosen]
    pairs = pair_for_each_question(difficulty_pairs(bank))
    items = []
    for q in chosen:
        q = question_as_asked(q, "choices")
        pair = pairs.get(q.id)
        channels = [c for c in HUMAN_EXP1_CHANNELS if c != "difficulty_selection" or pair is not None]
        item = {"item_id": q.id, "experiment": "exp1", "channels": channels, "text": q.question, "choices": _choices_shown(q)}
        if pair is not None:
            easy, hard = question_as_asked(pair.easy, "choices"), question_as_asked(pair.hard, "choices")
            item["tasks"] = {"A": {"text": hard.question, "choices": _choices_shown(hard)},
                             "B": {"text": easy.question, "choices": _choices_shown(easy)}}
        items.append(item)
    return items


def _exp9_items(root: Path, settings: PacketSettings) -> list[dict]:
    from mirror_hf.protocol.formats import exp9_task_as_asked
    from mirror_hf.runner.plan import read_config, stratified

    tasks = read_config(root, "exp9_fixed", needed_for="human-packet")
    pairs = {f"{t['domain_a']}|{t['domain_b']}" for t in tasks}
    salted = {_seeded(settings.seed, t["task_id"]): t for t in tasks}
    keyed = [{**t, "task_id": k} for k, t in salted.items()]
    chosen = stratified(keyed, settings.exp9_per_pair * len(pairs), stratum=lambda t: f"{t['domain_a']}|{t['domain_b']}")
    items = []
    for t in (exp9_task_as_asked(salted[c["task_id"]], "choices") for c in chosen):
        items.append({
            "item_id": t["task_id"], "experiment": "exp9", "channels": list(EXP9_STEPS),
            "condition": HUMAN_EXP9_CONDITION, "paradigm": HUMAN_EXP9_PARADIGM, "text": t["task_text"],
            "parts": {"component_a": {"text": t["part1_text"], "choices": list(t.get("choices_a") or [])},
                      "component_b": {"text": t["part2_text"], "choices": list(t.get("choices_b") or [])}},
        })
    return items


def _display_order(items: list[dict], seed: int | None) -> list[dict]:
    """Exp1 first, then Exp9 (the authors' protocol order), each interleaved by a fixed pseudo-random
    order so a person does not meet one domain's items in a row."""
    def key(item):
        return (item["experiment"], hashlib.sha256(f"{seed}|{item['item_id']}".encode()).hexdigest())

    return sorted(items, key=key)


def canonical(value) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def packet_hash(packet: dict) -> str:
    """sha256 of the packet's canonical JSON without its own `packet_hash`."""
    body = {k: v for k, v in packet.items() if k != "packet_hash"}
    return hashlib.sha256(canonical(body).encode()).hexdigest()


def build_packet(root: Path, settings: PacketSettings = PacketSettings()) -> dict:
    """The packet as a JSON-able dict (items as shown, instructions, the folder's build), hashed."""
    from mirror_hf._version import __version__
    from mirror_hf.folder import read_marker

    if settings.exp1_per_domain < 0 or settings.exp9_per_pair < 0 or not (settings.exp1_per_domain or settings.exp9_per_pair):
        raise PacketError("--exp1-per-domain and --exp9-per-pair must be >= 0, and one of them > 0")
    root = Path(root).absolute()
    if not (root / "data").is_dir():
        raise PacketError(f"{root} is not a dataset folder (no data/ directory)")
    marker = read_marker(root) or {}
    items = (_exp1_items(root, settings) if settings.exp1_per_domain else []) + (
        _exp9_items(root, settings) if settings.exp9_per_pair else [])
    packet = {
        "format": PACKET_FORMAT, "format_version": PACKET_VERSION, "mirror_hf": __version__,
        "dataset": {"build_hash": marker.get("build_hash"), "seed": marker.get("seed"), "per_domain": marker.get("per_domain")},
        "settings": settings.to_json(),
        "instructions": {"exp1": channel_instructions(), "exp9": exp9_instructions()},
        "items": _display_order(items, settings.seed),
    }
    packet["packet_hash"] = packet_hash(packet)
    return packet


def steps(packet: dict) -> list[tuple[str, str]]:
    """Every (item_id, channel) the packet asks, in the order the page asks them."""
    return [(item["item_id"], channel) for item in packet["items"] for channel in item["channels"]]


def write_packet(root: Path, out: Path, settings: PacketSettings = PacketSettings()) -> tuple[Path, dict]:
    """OUT/index.html (the page with the packet inside) and OUT/packet.json, written beside and renamed."""
    import os

    from mirror_hf.human.page import render_page

    packet = build_packet(root, settings)
    out = Path(out)
    if out.exists() and not out.is_dir():
        raise PacketError(f"--out {out} exists and is not a folder")
    try:
        out.mkdir(parents=True, exist_ok=True)
        for name, text in (("packet.json", json.dumps(packet, indent=1, ensure_ascii=False) + "\n"), ("index.html", render_page(packet))):
            tmp = out / f".{name}.tmp-{os.getpid()}"
            tmp.write_text(text, encoding="utf-8")
            os.replace(tmp, out / name)
    except OSError as exc:
        raise PacketError(f"cannot write --out {out}: {exc.strerror or exc}") from None
    return out / "index.html", packet
