"""Scripted participants for the human-baseline tests: answers chosen from the folder's gold (which
the test knows, the packet does not), right or wrong as planted, in the response-file format."""

from __future__ import annotations

import random
from pathlib import Path


def golds(root: Path) -> dict:
    """item id -> (gold as a person enters it, a wrong entry), for questions, pair members and Exp9 parts."""
    from mirror_hf.records import CHOICE_LETTERS, Question
    from mirror_hf.runner.plan import read_config

    out = {}

    def entries(answer: str, choices) -> tuple[str, str]:
        if choices:
            right = CHOICE_LETTERS[list(choices).index(answer)]
            return right, next(letter for letter in CHOICE_LETTERS[: len(choices)] if letter != right)
        return answer, f"not {answer} (wrong on purpose)"

    for row in read_config(root, "questions", needed_for="test"):
        q = Question.from_row(row)
        out[q.id] = entries(q.answer, q.choices)
    for t in read_config(root, "exp9_fixed", needed_for="test"):
        for slot in ("a", "b"):
            out[(t["task_id"], f"component_{slot}")] = entries(t[f"correct_answer_{slot}"], t.get(f"choices_{slot}") or ())
    return out


def plan(packet: dict, root: Path, accuracy: float, seed: int, *, defer_share: float = 0.2) -> list[dict]:
    """One planned response per step: its fields and whether the entered answer is the gold. The
    natural channel is right for exactly round(accuracy * n) items of each domain (so the person's
    Nat.Acc is `accuracy` in every domain); other channels are right with probability `accuracy`."""
    from mirror_hf.protocol.pairing import difficulty_pairs, pair_for_each_question
    from mirror_hf.records import Question
    from mirror_hf.runner.plan import read_config

    rng = random.Random(seed)
    gold = golds(root)
    bank = {r["id"]: Question.from_row(r) for r in read_config(root, "questions", needed_for="test")}
    pairs = pair_for_each_question(difficulty_pairs(list(bank.values())))
    by_domain: dict[str, list[str]] = {}
    for item in packet["items"]:
        if item["experiment"] == "exp1":
            by_domain.setdefault(bank[item["item_id"]].domain, []).append(item["item_id"])
    natural_right = set()
    for ids in by_domain.values():
        ids = sorted(ids)
        rng.shuffle(ids)
        natural_right |= set(ids[: round(accuracy * len(ids))])
    out = []
    for item in packet["items"]:
        for channel in item["channels"]:
            r = {"item_id": item["item_id"], "experiment": item["experiment"], "channel": channel}
            right = item["item_id"] in natural_right if channel == "natural" else rng.random() < accuracy
            if item["experiment"] == "exp1":
                target = item["item_id"]
                if channel == "difficulty_selection":
                    r["choice"] = rng.choice("AB")
                    pair = pairs[item["item_id"]]
                    target = (pair.hard if r["choice"] == "A" else pair.easy).id
                if channel == "opt_out":
                    r["skipped"] = rng.random() < 0.25
                r["answer"] = None if r.get("skipped") else gold[target][0 if right else 1]
                if channel == "wagering":
                    r["wager"] = rng.randint(1, 10)
                r["_correct"] = None if r.get("skipped") else right
            else:
                roll = rng.random()
                r["decision"] = "defer" if roll < defer_share else "use_tool" if roll < defer_share + 0.1 else "proceed"
                r["answer"] = gold[(item["item_id"], channel)][0 if right else 1] if r["decision"] == "proceed" else None
                r["_correct"] = right if r["decision"] == "proceed" else None
            r["response_ms"] = rng.randint(800, 9000)
            out.append(r)
    return out


def response_file(packet: dict, participant: str, planned: list[dict], *, finished: bool = True) -> dict:
    """What the page exports, for `planned` (the private `_correct` keys dropped)."""
    return {"format": "mirror-hf human responses", "format_version": 1, "packet_hash": packet["packet_hash"],
            "packet_settings": packet["settings"], "build_hash": packet["dataset"]["build_hash"],
            "participant": participant, "finished": finished, "started": "2026-01-01T00:00:00Z",
            "exported": "2026-01-01T01:00:00Z",
            "responses": [{k: v for k, v in r.items() if not k.startswith("_")} for r in planned]}
