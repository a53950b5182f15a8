"""A reference respondent: an OpenAI-compatible server that answers Mirror prompts as a simulated
model with a planted profile, so the whole pipeline (prompts, parsers, matcher, scoring) can be
checked for recovering known truth.

It reads the built dataset folder to recognise each prompt's item (by the question text or the
Exp9 part texts it contains), never the package's parsers or prompt builders: it knows the answer
formats only from the instructions inside the prompt, as a model would. Every draw is a pure
function of (profile seed, item, channel or cell), so two runs get the same answers (Exp4's update
draw also counts repeats of one identical conversation, so repeats draw independently).

The profile (JSON, `--profile FILE`):

    {"seed": 0,
     "natural": {"arithmetic": 0.9, ...},      # P(correct) per domain (natural, opt-out, tools, Exp9)
     "wagering": {"arithmetic": 0.95, ...},    # P(correct) under the wager prompt (default: natural)
     "bet": {"policy": "overconfident", "shift": 0.2},   # calibrated | overconfident (+shift) | constant (value)
     "skip_below": 0.5,                        # opt-out channel: SKIP when natural P < this
     "tool_below": 0.5,                        # tool channel: ask a tool when natural P < this
     "weak_below": 0.5,                        # the respondent's own view of its weak domains
     "exp9": {"weak": {"C1": {"proceed": 0.9, "use_tool": 0.05, "defer": 0.05}, ...},
              "strong": {"C1": {"proceed": 1.0}, ...}},
     "transfer": true,                         # Exp2: skill on a transfer task = its hidden source domain's
     "composite": {"policy": "product", "shift": 0.1},   # Exp3: composite confidence = policy(p_a, p_b) + shift
     "pressure": {"authority": 2, "social": 1, "easy": 1, "hard": -1},  # Exp5: bet change under each preamble
     "flaws": {"detect": 0.7, "false_alarm": 0.1},       # Exp6b: P(flag a flawed task), P(flag a control)
     "feedback": {"true": 0.8, "false": 0.3, "drop": 3}, # Exp4: P(update) after true / fabricated feedback;
                                               #   an update lowers the related bet by `drop` and skips,
                                               #   asks an expert and hedges on the related item
     "self_rating": {"primed_positive": {"rate": 0.8, "shift": 10}, ...},  # Exp6a: P(shift) and shift
                                               #   of the 0-100 self-rating (base round(100 p)) per prompt
     "robustness": {"capability": {"authority_override": 0.9, ...}, "value": {...},
                    "detect": {"capability": 0.6, "value": 0.8}},   # Exp6c: P(maintained) per attack,
                                               #   P(pressure detected) per variant; complied = not maintained
     "sampling": {"levels": [0.2, 0.2, 0.2, 0.2, 0.2],   # Exp1 internal signals: P(m of the 5 samples agree)
                  "accuracy": [0.2, 0.35, 0.5, 0.7, 0.9],  #   P(right | m) of the sampled answer (and of the
                  "bet": "consistency",                    #   wager under bet policy consistency / accuracy)
                  "token": [0.45, 0.15]},                  # logprob: chosen option's probability = base + right*y
     "messy": 0.25,                            # share of answers wrapped in prose/markdown/<think>/lowercase
     "malformed": 0.02}                        # share of Exp1 wager answers with no parsable tags

Experiments are recognised by `HANDLERS`, an ordered table of (experiment, handler): each handler
returns None for a prompt that is not its own. The Exp1 channel handler also serves Exp2 (transfer
tasks are items too) and Exp5 (an attack is a preamble before an Exp1 channel prompt); Exp4's
formats are the Exp1 channels' answers under numbered labels.

`planted.py` beside this file derives every headline value analytically from the same profile.

Sampling (the consistency and logprob channels, `sampling` in the profile): an item's agreement m
(1-5) is drawn from `levels`; sample j of the natural prompt (choice j of a request with `n`, or the
request with seed s + j) repeats sample 0's answer for j < m and gives an answer of its own (agreeing
with no other) for j >= m, so the modal share is m / 5; sample 0 is right with P = accuracy[m - 1].
With `bet: consistency` the wager's answer is drawn the same way and the bet is 2m plus one of BET_JITTER
(its confidence a function of consistency alone); with `bet: accuracy` the bet is 8 if that answer
is right else 3, plus one of BET_JITTER. Asked for `logprobs`, the natural answer names its option letter,
("The answer is B."), whose probability renormalised over the four letters is token[0] + token[1] * right + one of TOKEN_JITTER
(10% of the mass outside the letters); an open answer's tokens each carry that log-probability.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import socket
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

LETTERS = "ABCD"
#: sampling: the bet's and the token probability's equally likely offsets
BET_JITTER = (-2, -1, 0, 1, 2)
TOKEN_JITTER = (-0.1, 0.0, 0.1)
#: a sample's answer that agrees with no other (sampling): one per sample index
OFF_ANSWERS = ("Somewhere in between, I suppose.", "Perhaps it is unknowable.", "Possibly something else entirely.",
               "It could be anything at all.", "Hard to tell, honestly.")
DECISIONS = ("proceed", "use_tool", "defer")
FLAG_LABELS = ("UNPROMPTED_PUSHBACK", "EXECUTE_WITH_CAVEAT", "FULL_PUSHBACK")
#: Exp4's combined prompt: format number -> the Exp1 channel it asks (read from the prompt's FORMAT-n blocks)
EXP4_FORMATS = ((1, "wagering"), (2, "opt_out"), (4, "tool_delegation"), (5, "natural"))
#: how the respondent reads an Exp6a rating's system prompt: words of each framing (else: fresh)
RATING_WORDS = (("primed_positive", "exceptional accuracy"), ("primed_negative", "overconfident"),
                ("neutral_difficulty", "expert-level"))
#: how the respondent reads a preamble before an item (Exp5): words a pressure or framing line uses
PRESSURE_WORDS = (("hard", ("challenge", "expert-level")), ("easy", ("warm-up", "simple")),
                  ("social", ("most people", "other ai systems")), ("authority", ("exceptionally", "experts")))


def pressure_of(preamble: str) -> str | None:
    low = preamble.lower()
    return next((kind for kind, words in PRESSURE_WORDS if any(w in low for w in words)), "other")


def unit(*parts: object) -> float:
    """A uniform draw in [0, 1) from the parts (deterministic)."""
    digest = hashlib.sha256("|".join(map(str, parts)).encode()).digest()
    return int.from_bytes(digest[:8], "big") / 2**64


@dataclass
class Profile:
    natural: dict[str, float]
    wagering: dict[str, float] = field(default_factory=dict)
    bet: dict = field(default_factory=lambda: {"policy": "calibrated"})
    skip_below: float = 0.5
    tool_below: float = 0.5
    weak_below: float = 0.5
    exp9: dict = field(default_factory=dict)
    transfer: bool = True
    composite: dict = field(default_factory=lambda: {"policy": "product", "shift": 0.0})
    pressure: dict = field(default_factory=dict)
    flaws: dict = field(default_factory=lambda: {"detect": 0.0, "false_alarm": 0.0})
    feedback: dict = field(default_factory=lambda: {"true": 0.0, "false": 0.0, "drop": 0})
    self_rating: dict = field(default_factory=dict)
    robustness: dict = field(default_factory=dict)
    messy: float = 0.0
    malformed: float = 0.0
    sampling: dict = field(default_factory=dict)
    seed: int = 0

    @classmethod
    def from_json(cls, data: dict) -> Profile:
        return cls(**data)

    def p_natural(self, domain: str) -> float:
        return float(self.natural[domain])

    def p_wagering(self, domain: str) -> float:
        return float(self.wagering.get(domain, self.natural[domain]))

    def bet_for(self, domain: str) -> int:
        """The bet (1-10) on a wagering answer in `domain`."""
        policy = self.bet.get("policy", "calibrated")
        if policy == "constant":
            return int(self.bet["value"])
        shift = float(self.bet.get("shift", 0.0)) if policy == "overconfident" else 0.0
        return max(1, min(10, round(10 * (self.p_wagering(domain) + shift))))

    def bet_under(self, domain: str, pressure: str | None) -> int:
        """The bet after a preamble of kind `pressure` (None: clean): moved by the profile's shift."""
        bet = self.bet_for(domain)
        return bet if pressure is None else max(1, min(10, bet + int(self.pressure.get(pressure, 0))))

    def composite_confidence(self, domain_a: str, domain_b: str) -> int:
        """The 0-100 confidence stated for an Exp3 composite task (components: round(100 p))."""
        pa, pb = self.p_natural(domain_a), self.p_natural(domain_b)
        policy = self.composite.get("policy", "product")
        base = {"product": pa * pb, "min": min(pa, pb), "mean": (pa + pb) / 2}[policy]
        return max(0, min(100, round(100 * (base + float(self.composite.get("shift", 0.0))))))

    def updated_bet(self, domain: str) -> int:
        """Exp4: the bet on a related item after the respondent took the failure feedback to heart."""
        return max(1, self.bet_for(domain) - int(self.feedback.get("drop", 0)))

    def exp4_updated(self, conversation: str, condition: str) -> bool:
        """Exp4: did the respondent take the feedback of this conversation (its Phase-C key) to heart?"""
        return unit(self.seed, "exp4-update", conversation) < float(self.feedback.get(condition, 0.0))

    def exp4_bet(self, key: str, domain: str, updated: bool) -> int | None:
        """Exp4: the bet on a Phase-C item (key: conversation/related or /unrelated); None when the
        answer's BET line is the unreadable kind."""
        if self.is_malformed(key, "exp4"):
            return None
        return self.updated_bet(domain) if updated else self.bet_for(domain)

    def self_rating_of(self, domain: str, prompt: str, shifted: bool) -> int:
        """Exp6a: the 0-100 rating of its own answer in `domain` under `prompt`: round(100 p), moved by
        the prompt's shift when the framing got to it (`shifted`), kept inside 0-100."""
        base = round(100 * self.p_natural(domain))
        shift = int((self.self_rating.get(prompt) or {}).get("shift", 0)) if shifted else 0
        return max(0, min(100, base + shift))

    def believes_weak(self, domain: str) -> bool:
        return self.p_natural(domain) < self.weak_below

    def exp9_policy(self, domain: str, condition: str) -> dict[str, float]:
        side = "weak" if self.believes_weak(domain) else "strong"
        policy = (self.exp9.get(side) or {}).get(condition) or {"proceed": 1.0}
        total = sum(policy.get(d, 0.0) for d in DECISIONS)
        return {d: policy.get(d, 0.0) / total for d in DECISIONS}

    def is_malformed(self, item_id: str, channel: str) -> bool:
        return unit(self.seed, "malformed", item_id, channel) < self.malformed

    def style(self, item_id: str, channel: str) -> int:
        """0 plain; 1 prose + markdown; 2 a <think> block; 3 lowercase tags."""
        if unit(self.seed, "messy", item_id, channel) >= self.messy:
            return 0
        return 1 + int(unit(self.seed, "style", item_id, channel) * 3)


class Bank:
    """The items of a built folder, found by the text a prompt contains."""

    def __init__(self, folder: Path):
        import pyarrow.parquet as pq

        def rows(config: str) -> list[dict]:
            out = []
            for path in sorted((folder / "data" / config).glob("*.parquet")):
                out.extend(pq.read_table(path).to_pylist())
            return out

        self.questions = rows("questions")
        self.by_first_line: dict[str, list[dict]] = {}
        for q in self.questions:
            self.by_first_line.setdefault(q["question"].split("\n")[0].strip(), []).append(q)
        # Exp2 transfer tasks are items like the questions: `skill` is the domain they really test
        for t in rows("exp2_transfer"):
            item = {"id": t["task_id"], "domain": t["surface_domain"], "skill": t["source_domain"],
                    "question": t["task_text"], "choices": t["choices"], "answer": t["answer"]}
            self.by_first_line.setdefault(item["question"].split("\n")[0].strip(), []).append(item)
        self.tasks = rows("exp9_fixed")
        self.by_part1 = {t["part1_text"]: t for t in self.tasks}
        # Exp3: each composite task and each component by its text -> (task, target)
        self.exp3: dict[str, tuple[dict, str]] = {}
        for t in rows("exp3_composite"):
            self.exp3[t["task_text"]] = (t, "composite")
            for target in ("component_a", "component_b"):
                self.exp3.setdefault(t[target]["question"], (t, target))
        self.exp6b = {t["prompt"]: t for t in rows("upstream_exp6b")}
        self.exp6a = {t["task"]: t for t in rows("exp6a_tasks")}
        self.exp6c = {t[column]: (t, variant) for t in rows("exp6c_pairs")
                      for variant, column in (("capability", "capability_adversarial"), ("value", "value_adversarial"))}

    def question_at(self, text: str) -> dict | None:
        """The question whose text starts `text` (the prompt's item)."""
        first = text.split("\n")[0].strip()
        for q in self.by_first_line.get(first, []):
            if text.startswith(q["question"]):
                return q
        return None

    def exp3_at(self, text: str) -> tuple[dict, str] | None:
        """The Exp3 (task, target) whose text starts `text` (choices may follow it)."""
        for known, hit in self.exp3.items():
            if text.startswith(known) and (len(text) == len(known) or text[len(known)] == "\n"):
                return hit
        return None

    def task_in(self, content: str) -> dict | None:
        for part1, task in self.by_part1.items():
            if part1 in content:
                return task
        return None


def _wrong(gold: str, choices: list[str] | None, key: str) -> str:
    """A wrong answer: one of the distractors (or, without choices, a changed value)."""
    others = [c for c in (choices or []) if c != gold]
    if others:
        return others[int(unit(key) * len(others))]
    try:
        return str(int(float(gold)) + 7)
    except ValueError:
        return f"not {gold}"


def _answer(correct: bool, gold: str, choices, key: str) -> str:
    return gold if correct else _wrong(gold, choices, key)


class Respondent:
    def __init__(self, bank: Bank, profile: Profile):
        self.bank = bank
        self.profile = profile
        #: Exp4 Phase-C prompts seen so far, by content: a bank with fewer items than templates repeats
        #: whole conversations, and each repeat must draw its update afresh (as a sampled model does),
        #: else repeats move together and the intervals, which resample trials, are too narrow
        self.seen: dict[str, int] = {}
        #: Exp4 Phase-C prompts answered: (conversation key, feedback condition, related item's domain,
        #: unrelated item's domain). The keys carry no seed, so one run's list lays out every seed's draws
        self.phase_c: list[tuple[str, str, str, str]] = []

    # ------------------------------------------------------------------ Exp1
    def draw(self, q: dict, channel: str, p: float) -> bool:
        return unit(self.profile.seed, "correct", q["id"], channel) < p

    def format(self, fields: list[tuple[str, str]], item_id: str, channel: str) -> str:
        style = self.profile.style(item_id, channel)
        if style == 1:
            body = "\n".join(f"**{k}:** {v}" for k, v in fields)
            return f"Let me work through this carefully.\n\n{body}\n\nThat is my final response."
        if style == 2:
            body = "\n".join(f"{k}: {v}" for k, v in fields)
            return f"<think>The question asks for one value; I checked it twice.</think>\n{body}"
        if style == 3:
            return "\n".join(f"{k.lower()}: {v}" for k, v in fields)
        return "\n".join(f"{k}: {v}" for k, v in fields)

    def skill(self, q: dict) -> str:
        """The domain whose accuracy governs an item: its own, or an Exp2 task's hidden source domain."""
        return q.get("skill", q["domain"]) if self.profile.transfer else q["domain"]

    def item_in(self, content: str) -> tuple[dict | None, str | None]:
        """The item a channel prompt asks about, and the kind of preamble before it (Exp5's attacks:
        authority, social, easy, hard; None when the prompt starts with the item)."""
        q = self.bank.question_at(content)
        if q is not None:
            return q, None
        paragraphs = content.split("\n\n")
        for k in (1, 2):
            q = self.bank.question_at("\n\n".join(paragraphs[k:]))
            if q is not None:
                return q, pressure_of("\n\n".join(paragraphs[:k]))
        return None, None

    def exp1(self, messages: list[dict]) -> str | None:
        """Every Exp1 channel prompt (and so Exp2's, on transfer tasks, and Exp5's, after a preamble)."""
        p = self.profile
        content = str(messages[-1].get("content", ""))
        if content.startswith("Tool results:"):
            first = str(messages[0].get("content", ""))
            q, _ = self.item_in(first)
            if q is None:
                return None
            ok = self.draw(q, "tool_delegation", p.p_natural(self.skill(q)))
            return f"ANSWER: {_answer(ok, q['answer'], q['choices'], q['id'] + '/t')}"
        if content.startswith("Choose one task to attempt"):
            hard_text = content.split("TASK A (harder): ", 1)[1]
            easy_text = content.split("TASK B (easier): ", 1)[1]
            hard, easy = self.bank.question_at(hard_text), self.bank.question_at(easy_text)
            if hard is None or easy is None:
                return None
            chosen, letter = (hard, "A") if not p.believes_weak(self.skill(hard)) else (easy, "B")
            ok = self.draw(chosen, "difficulty_selection", p.p_natural(self.skill(chosen)))
            answer = _answer(ok, chosen["answer"], chosen["choices"], chosen["id"] + "/d")
            return self.format([("CHOICE", letter), ("ANSWER", answer)], chosen["id"], "difficulty_selection")
        q, pressure = self.item_in(content)
        if q is None:
            return None
        domain = self.skill(q)
        if "place a bet on your answer" in content and p.sampling.get("bet") in ("consistency", "accuracy"):
            ok = self.sampled_right(q, "wagering")
            jitter = BET_JITTER[int(unit(p.seed, "bet-jitter", q["id"]) * len(BET_JITTER))]
            base = 2 * self.agreement_of(q) if p.sampling["bet"] == "consistency" else (8 if ok else 3)
            answer = _answer(ok, q["answer"], q["choices"], q["id"] + "/w")
            return self.format([("ANSWER", answer), ("BET", str(max(1, min(10, base + jitter))))], q["id"], "wagering")
        if "place a bet on your answer" in content:
            if p.is_malformed(q["id"], "wagering"):
                return "I would rather explain my reasoning in general terms than commit to one value here."
            ok = self.draw(q, "wagering", p.p_wagering(domain))
            answer = _answer(ok, q["answer"], q["choices"], q["id"] + "/w")
            return self.format([("ANSWER", answer), ("BET", str(p.bet_under(domain, pressure)))], q["id"], "wagering")
        if "write SKIP for a guaranteed" in content:
            if p.p_natural(domain) < p.skip_below:
                return "SKIP"
            ok = self.draw(q, "opt_out", p.p_natural(domain))
            return self.format([("ANSWER", _answer(ok, q["answer"], q["choices"], q["id"] + "/o"))], q["id"], "opt_out")
        if "[USE_TOOL: calculator | <expression>]" in content:
            ok = self.draw(q, "tool_delegation", p.p_natural(domain))
            answer = _answer(ok, q["answer"], q["choices"], q["id"] + "/t")
            if p.p_natural(domain) < p.tool_below:
                return f"[USE_TOOL: ask_expert | {q['question'][:60]}]\nANSWER: {answer}"
            return self.format([("ANSWER", answer)], q["id"], "tool_delegation")
        if "complete this self-assessment" in content:
            ok = self.draw(q, "layer2", p.p_natural(domain))
            answer = _answer(ok, q["answer"], q["choices"], q["id"] + "/l")
            fields = [
                ("CONFIDENCE", str(round(100 * p.p_natural(domain)))),
                ("SUB_SKILLS", f"{domain} reasoning, checking"),
                ("WEAKEST_SKILL", "checking"),
                ("VERIFY", "yes" if p.believes_weak(domain) else "no"),
                ("APPROACH", "direct-solve"),
                ("ANSWER", answer),
            ]
            return self.format(fields, q["id"], "layer2")
        # natural: the question alone; two hedges ("I'm not sure", "I think") where it believes itself weak
        ok = self.draw(q, "natural", p.p_natural(domain))
        answer = _answer(ok, q["answer"], q["choices"], q["id"] + "/n")
        if p.believes_weak(domain):
            return f"I'm not sure, but I think the answer is {answer}."
        if p.style(q["id"], "natural"):
            return f"Working through the question step by step, the answer is **{answer}**."
        return f"The answer is {answer}."

    # ------------------------------------------------------------------ Exp3
    def exp3(self, messages: list[dict]) -> str | None:
        """Self-prediction (a 0-100 confidence, before answering), the answer call, or both at once."""
        p = self.profile
        content = str(messages[-1].get("content", ""))
        if "\nTask: " in content and ("Do not solve the task yet." in content or "Before answering:" in content):
            hit = self.bank.exp3_at(content.split("\nTask: ", 1)[1])
        elif content.endswith("Give your final answer on its own line as:\nANSWER: [your answer]"):
            hit = self.bank.exp3_at(content)
        else:
            return None
        if hit is None:
            return None
        task, target = hit
        if target == "composite":
            confidence = p.composite_confidence(task["domain_a"], task["domain_b"])
            q_correct = p.p_natural(task["domain_a"]) * p.p_natural(task["domain_b"])
            gold, choices = task["answer"], task.get("choices")
        else:
            domain = task[target]["domain"]
            confidence = round(100 * p.p_natural(domain))
            q_correct = p.p_natural(domain)
            gold, choices = task[target]["answer"], task[target].get("choices")
        key = f"{task['task_id']}/{target}"
        ok = unit(p.seed, "exp3-correct", key) < q_correct
        answer = _answer(ok, gold, choices, key)
        if "Do not solve the task yet." in content:
            return self.format([("CONFIDENCE", str(confidence))], key, "exp3-confidence")
        if "Before answering:" in content:
            return self.format([("CONFIDENCE", str(confidence)), ("ANSWER", answer)], key, "exp3-layer2")
        return self.format([("ANSWER", answer)], key, "exp3-answer")

    # ------------------------------------------------------------------ Exp6b
    def exp6b(self, messages: list[dict]) -> str | None:
        """A flawed instruction or its control: the label protocol (RESPONSE_TYPE first) or the bare
        instruction under a critical system prompt (the keyword protocol)."""
        p = self.profile
        content = str(messages[-1].get("content", ""))
        labelled = content.startswith("You received the following task:\n\n")
        text = content.split("\n\n", 1)[1].rsplit("\n\nYour response should BEGIN", 1)[0] if labelled else content
        task = self.bank.exp6b.get(text)
        if task is None:
            return None
        rate = p.flaws.get("detect", 0.0) if task["is_flawed"] else p.flaws.get("false_alarm", 0.0)
        flags = unit(p.seed, "exp6b", task["task_id"], "" if labelled else "keyword") < rate
        if not labelled:
            if not flags:
                return "Here is the completed task, done as asked."
            if task["is_flawed"]:
                return "I should point out that this premise is flawed: the stated approach cannot reach the goal."
            return "Done as asked. Note that the inputs were assumed complete."
        if not flags:
            label = "BLIND_EXECUTION"
        elif task["is_flawed"]:
            label = FLAG_LABELS[int(unit(p.seed, "exp6b-label", task["task_id"]) * len(FLAG_LABELS))]
        else:
            label = "EXECUTE_WITH_CAVEAT"
        style = p.style(task["task_id"], "exp6b")
        body = "Here is my response to the task."
        if style == 1:
            return f"**RESPONSE_TYPE:** {label}\n\n{body}"
        if style == 2:
            return f"<think>Is the premise sound?</think>\nRESPONSE_TYPE: {label}\n\n{body}"
        if style == 3:
            return f"response_type: {label.lower()}\n\n{body}"
        return f"RESPONSE_TYPE: {label}\n\n{body}"

    # ------------------------------------------------------------------ Exp4
    def exp4_formats(self, q: dict, key: str, updated: bool, number: str = "") -> str:
        """One item answered in every format of the combined prompt (labels numbered ANSWER_1, ...).
        `updated`: the respondent lowered its confidence in this item's domain after the feedback:
        the bet drops by the profile's `drop`, and it skips, asks an expert and hedges."""
        p = self.profile
        domain = self.skill(q)
        style = p.style(key, "exp4")

        def label(name: str, n: int) -> str:
            tag = f"{name}_{n}"
            return tag.lower() if style == 3 else f"**{tag}:**" if style == 1 else tag

        def labelled(name: str, n: int, value: str) -> str:
            tag = label(name, n)
            return f"{tag} {value}" if tag.endswith(":**") else f"{tag}: {value}"

        def answer(channel: str, prob: float) -> str:
            ok = unit(p.seed, "exp4-correct", key, channel) < prob
            return _answer(ok, q["answer"], q["choices"], f"{key}/{channel}")

        parts = []
        for n, channel in EXP4_FORMATS:
            if channel == "wagering":
                drawn = p.exp4_bet(key, domain, updated)
                bet = "a fair amount" if drawn is None else str(drawn)
                body = f"{labelled('ANSWER', n, answer(channel, p.p_wagering(domain)))}\n{labelled('BET', n, bet)}"
            elif channel == "opt_out":
                skip = updated or p.p_natural(domain) < p.skip_below
                body = label("SKIP", n).strip("*:") if skip else labelled("ANSWER", n, answer(channel, p.p_natural(domain)))
            elif channel == "tool_delegation":
                ask = updated or p.p_natural(domain) < p.tool_below
                body = labelled("ANSWER", n, answer(channel, p.p_natural(domain)))
                if ask:
                    body = f"[USE_TOOL: ask_expert | could you check my answer?]\n{body}"
            else:
                a = answer(channel, p.p_natural(domain))
                hedge = updated or p.believes_weak(domain)
                prose = f"I'm not sure, but I think the answer is {a}." if hedge else f"The answer is {a}."
                body = f"{prose}\n{labelled('ANSWER', n, a)}"
            header = f"format-{n}:" if style == 3 else f"FORMAT-{n}:"
            parts.append(f"{header}\n{body}")
        text = "\n\n".join(parts)
        return f"<think>Four formats; same answer in each.</think>\n{text}" if style == 2 else text

    def exp4(self, messages: list[dict]) -> str | None:
        """The four turns of a burn-and-test conversation: Phase A (one item, every format), Phase B
        (approach + answer), the reply to the feedback, Phase C (two items, every format). After true
        feedback about its last answer the respondent updates with P = feedback["true"]; after feedback
        about "the earlier question" (the fabricated condition: it names an answer it did not give) with
        P = feedback["false"]. An update lowers its confidence on the related (burned-domain) item only."""
        p = self.profile
        content = str(messages[-1].get("content", ""))
        if content.startswith("Answer the task below once in each of the formats") and "\nTASK: " in content:
            q = self.bank.question_at(content.split("\nTASK: ", 1)[1])
            return None if q is None else self.exp4_formats(q, f"{q['id']}/A", updated=False)
        if "\nFirst choose how you will approach this task:\n" in content:
            q = self.bank.question_at(content)
            if q is None:
                return None
            ok = unit(p.seed, "exp4-phase-b", q["id"]) < p.p_natural(self.skill(q))
            return f"APPROACH: 2\nANSWER: {_answer(ok, q['answer'], q['choices'], q['id'] + '/b')}"
        if content.endswith("Would you like to try again?") and len(messages) >= 5:
            return "Yes, I would like to try again. I will check that kind of step more carefully."
        if not (content.startswith("Here are two more tasks.") and "=== TASK 2 ===\n" in content and len(messages) >= 7):
            return None
        related = self.bank.question_at(content.split("=== TASK 1 ===\n", 1)[1])
        unrelated = self.bank.question_at(content.split("=== TASK 2 ===\n", 1)[1])
        if related is None or unrelated is None:
            return None
        feedback = str(messages[-3].get("content", ""))
        condition = "false" if "the earlier question" in feedback else "true"
        conversation = hashlib.sha256("|".join(str(m.get("content", "")) for m in messages[::2]).encode()).hexdigest()[:16]
        self.seen[conversation] = self.seen.get(conversation, 0) + 1
        conversation = f"{conversation}/{self.seen[conversation]}"
        updated = p.exp4_updated(conversation, condition)
        self.phase_c.append((conversation, condition, self.skill(related), self.skill(unrelated)))
        task1 = self.exp4_formats(related, f"{conversation}/related", updated=updated)
        task2 = self.exp4_formats(unrelated, f"{conversation}/unrelated", updated=False)
        return f"=== TASK 1 ===\n{task1}\n\n=== TASK 2 ===\n{task2}"

    # ------------------------------------------------------------------ Exp6a
    def exp6a(self, messages: list[dict]) -> str | None:
        """The answer turn (its task under the fresh prompt) or a 0-100 rating of that answer under one
        of the four system prompts, shifted by the prompt's `self_rating` shift with P = its rate."""
        p = self.profile
        content = str(messages[-1].get("content", ""))
        system = str(messages[0].get("content", "")) if messages[0].get("role") == "system" else ""
        if not content.startswith("Below is a task and a response. Please evaluate the QUALITY"):
            task = self.bank.exp6a.get(content)
            if task is None:
                return None
            ok = unit(p.seed, "exp6a-correct", task["task_id"]) < p.p_natural(task["domain"])
            gold = task["ref_answer"]
            return f"Working through it step by step.\n\nFinal answer: {gold if ok else _wrong(gold, None, task['task_id'])}"
        if "\nTask: " not in content or "\n\nResponse: " not in content:
            return None
        task = self.bank.exp6a.get(content.split("\nTask: ", 1)[1].split("\n\nResponse: ", 1)[0])
        if task is None:
            return None
        prompt = next((name for name, words in RATING_WORDS if words in system), "fresh")
        rate = float((p.self_rating.get(prompt) or {}).get("rate", 0.0))
        shifted = unit(p.seed, "exp6a-shift", task["task_id"], prompt) < rate
        score = str(p.self_rating_of(task["domain"], prompt, shifted))
        if p.is_malformed(task["task_id"], f"exp6a-{prompt}"):
            score = "fairly good overall"
        fields = [("SCORE", score), ("STRENGTHS", "clear steps"), ("WEAKNESSES", "terse"), ("ASSESSMENT", "mixed")]
        return self.format(fields, task["task_id"], f"exp6a-{prompt}")

    # ------------------------------------------------------------------ Exp6c
    def exp6c(self, messages: list[dict]) -> str | None:
        """A capability- or value-adversarial prompt with its self-report lines: MAINTAINED_* yes with
        P = robustness[variant][attack], PRESSURE_DETECTED yes with P = robustness["detect"][variant],
        COMPLIED (value prompts) = not maintained; an occasional unreadable MAINTAINED line."""
        p = self.profile
        content = str(messages[-1].get("content", ""))
        marker = "\n\nAfter your response, add on a new line:\n"
        if marker not in content:
            return None
        hit = self.bank.exp6c.get(content.rsplit(marker, 1)[0])
        if hit is None:
            return None
        pair, variant = hit
        key = pair["prompt_id"]
        rob = p.robustness
        maintained = unit(p.seed, "exp6c-kept", key, variant) < float((rob.get(variant) or {}).get(pair["attack_type"], 0.0))
        detected = unit(p.seed, "exp6c-detect", key, variant) < float((rob.get("detect") or {}).get(variant, 0.0))

        def yes(flag: bool) -> str:
            return "yes" if flag else "no"

        kept = "mostly" if p.is_malformed(key, f"exp6c-{variant}") else yes(maintained)
        if variant == "capability":
            confidence = p.bet_for(pair["domain"]) if maintained else 10
            fields = [("CONFIDENCE", str(confidence)), ("PRESSURE_DETECTED", yes(detected)), ("MAINTAINED_CALIBRATION", kept)]
        else:
            fields = [("COMPLIED", yes(not maintained)), ("PRESSURE_DETECTED", yes(detected)), ("MAINTAINED_PRINCIPLES", kept)]
        body = "Here is my answer, with my honest view of how sure I am." if maintained else "Here is my answer: I am 100% certain."
        return f"{body}\n\n{self.format(fields, key, f'exp6c-{variant}')}"

    # ------------------------------------------------------------------ Exp9
    def exp9(self, messages: list[dict]) -> str | None:
        content = str(messages[-1].get("content", "")) if messages else ""
        task = self.bank.task_in(content)
        if task is None:
            return None
        p = self.profile
        paradigm = "P1" if "completing a work task autonomously" in content else (
            "P2" if "mandatory checkpoints" in content else "P3"
        )
        condition = "C3" if "Research shows that models with accuracy below 50%" in content else (
            "C2" if "[SYSTEM NOTE]" in content else "C1"
        )
        parts = []
        for number, slot in ((1, "a"), (2, "b")):
            domain = task[f"domain_{slot}"]
            policy = p.exp9_policy(domain, condition)
            u = unit(p.seed, "exp9", task["task_id"], condition, paradigm, slot, content[:40])
            decision = "proceed" if paradigm == "P3" else (
                "proceed" if u < policy["proceed"] else "use_tool" if u < policy["proceed"] + policy["use_tool"] else "defer"
            )
            ok = unit(p.seed, "exp9-correct", task["task_id"], condition, paradigm, slot) < p.p_natural(domain)
            gold = task[f"correct_answer_{slot}"]
            answer = _answer(ok, gold, task.get(f"choices_{slot}"), f"{task['task_id']}/{slot}")
            if paradigm == "P1":
                if decision == "defer":
                    parts.append(f"PART {number}: [FLAG_FOR_REVIEW: part {number}] I am not confident here.")
                elif decision == "use_tool":
                    parts.append(f"PART {number}: [USE_TOOL: ask_expert | part {number}]\nANSWER: {answer}")
                else:
                    parts.append(f"PART {number}: I worked it out directly.\nANSWER: {answer}")
            elif paradigm == "P2":
                label = {"proceed": "PROCEED", "use_tool": "USE_TOOL (calculator)", "defer": "FLAG_FOR_REVIEW"}[decision]
                answer_line = "" if decision == "defer" else answer
                parts.append(f"STEP {number}\nYOUR DECISION: {label}\nYOUR WORK: see above\nYOUR ANSWER: {answer_line}")
            else:
                parts.append(f"PART {number}\nREASONING {number}: direct computation\nANSWER {number}: {answer}")
        return "\n\n".join(parts)

    # ------------------------------------------------------------------ sampling (internal signals)
    SAMPLES = 5

    def agreement_of(self, q: dict) -> int:
        """The planted agreement m (1-5) of an item: how many of its 5 samples give sample 0's answer."""
        levels = self.profile.sampling["levels"]
        u, acc = unit(self.profile.seed, "agreement", q["id"]), 0.0
        for m, share in enumerate(levels, start=1):
            acc += share
            if u < acc:
                return m
        return len(levels)

    def sampled_right(self, q: dict, what: str) -> bool:
        return unit(self.profile.seed, "sampled", what, q["id"]) < self.profile.sampling["accuracy"][self.agreement_of(q) - 1]

    def natural_item(self, messages: list[dict]) -> dict | None:
        """The item of a natural-channel prompt (the question and its options, nothing after them)."""
        content = str(messages[-1].get("content", "")) if len(messages) == 1 else ""
        q = self.bank.question_at(content)
        if q is None:
            return None
        rest = content[len(q["question"]):].strip().splitlines()
        return q if all(line[:3] in {f"{x}) " for x in LETTERS} for line in rest) else None

    def sample(self, q: dict, j: int) -> str:
        """Sample j of the natural prompt under sampling (module docstring)."""
        m = self.agreement_of(q)
        if j >= m:  # an answer of its own: no number, truth value or option the grader could match
            return OFF_ANSWERS[j % len(OFF_ANSWERS)]
        answer = _answer(self.sampled_right(q, "consistency"), q["answer"], q["choices"], q["id"] + "/s")
        return f"The answer is {answer}."

    def token_probability(self, right: bool, key: str) -> float:
        base, gain = self.profile.sampling["token"]
        jitter = TOKEN_JITTER[int(unit(self.profile.seed, "token", key) * len(TOKEN_JITTER))]
        return base + gain * right + jitter

    def with_logprobs(self, q: dict) -> tuple[str, list[dict]]:
        """The natural answer (the natural prompt's own draw), naming its option letter, with token
        log-probabilities (module docstring)."""
        import math
        import re

        right = self.draw(q, "natural", self.profile.p_natural(self.skill(q)))
        answer = _answer(right, q["answer"], q["choices"], q["id"] + "/n")
        p = self.token_probability(right, q["id"])
        if q["choices"] and answer in q["choices"]:
            letter = LETTERS[q["choices"].index(answer)]
            others = [x for x in LETTERS[:len(q["choices"])] if x != letter]
            content = [{"token": t, "logprob": math.log(0.95), "top_logprobs": []} for t in ("The", " answer", " is")]
            content.append({"token": f" {letter}", "logprob": math.log(0.9 * p), "top_logprobs": [
                {"token": f" {letter}", "logprob": math.log(0.9 * p)},
                *({"token": f" {x}", "logprob": math.log(0.9 * (1 - p) / len(others))} for x in others),
                {"token": " option", "logprob": math.log(0.1)}]})
            content.append({"token": ".", "logprob": math.log(0.95), "top_logprobs": []})
            return f"The answer is {letter}.", content
        tokens = ["The", " answer", " is", *re.findall(r"\s*\S+", f" {answer}"), "."]
        span = set(range(3, len(tokens) - 1))
        return f"The answer is {answer}.", [
            {"token": t, "logprob": math.log(p) if i in span else math.log(0.95), "top_logprobs": []} for i, t in enumerate(tokens)]

    def choices(self, request: dict) -> tuple[list[str], list[dict] | None]:
        """The response's choices and choice 0's logprobs for a whole request (n, seed, temperature,
        logprobs read as a server does); without `sampling` in the profile, one reply as always."""
        messages = request.get("messages", [])
        q = self.natural_item(messages) if self.profile.sampling else None
        if q is None:
            return [self.reply(messages)], None
        seed, n = int(request.get("seed") or 0), int(request.get("n") or 1)
        if float(request.get("temperature") or 0) > 0:
            return [self.sample(q, seed + j) for j in range(n)], None
        if request.get("logprobs"):
            text, content = self.with_logprobs(q)
            return [text], content
        return [self.reply(messages)], None

    # ------------------------------------------------------------------ dispatch
    def reply(self, messages: list[dict]) -> str:
        if not messages:
            return "I do not recognise this task."
        for _experiment, handler in HANDLERS:
            out = handler(self, messages)
            if out is not None:
                return out
        return "I do not recognise this task."


#: The experiments the respondent answers, most specific prompt first; each handler returns None for
#: a prompt that is not its own. A new experiment adds an entry here (and its values in planted.py).
#: Exp4 comes before Exp1: its Phase-B prompt starts with an item's text, as an Exp1 natural prompt does.
HANDLERS: tuple[tuple[str, Callable[[Respondent, list[dict]], str | None]], ...] = (
    ("exp9", Respondent.exp9),
    ("exp3", Respondent.exp3),
    ("exp6b", Respondent.exp6b),
    ("exp4", Respondent.exp4),
    ("exp6a", Respondent.exp6a),
    ("exp6c", Respondent.exp6c),
    ("exp1 / exp2 / exp5", Respondent.exp1),
)


RESPONDENT: Respondent | None = None
#: `--log FILE`: one JSON line per answered request (model, messages, generation, reply length);
#: `POST /control {"hold_after": N}`: after N more answers every request gets a 429 (Retry-After 30)
#: and is not logged, until `{"hold_after": null}` (tests stop a client at a known request)
LOG = None
CONTROL: dict = {"hold_after": None, "answered": 0, "answered_at_set": 0}


async def _read_body(receive) -> bytes:
    chunks = []
    while True:
        message = await receive()
        chunks.append(message.get("body", b""))
        if not message.get("more_body"):
            return b"".join(chunks)


async def _respond(send, status: int, body: bytes) -> None:
    headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})


async def app(scope, receive, send) -> None:
    if scope["type"] == "lifespan":
        while True:
            message = await receive()
            if message["type"] == "lifespan.startup":
                await send({"type": "lifespan.startup.complete"})
            elif message["type"] == "lifespan.shutdown":
                await send({"type": "lifespan.shutdown.complete"})
                return
    raw = await _read_body(receive)
    if scope["method"] == "POST" and scope["path"] == "/control":  # tests: hold or release the answers
        CONTROL.update(json.loads(raw))
        CONTROL["answered_at_set"] = CONTROL["answered"]
        return await _respond(send, 200, json.dumps(CONTROL).encode())
    if scope["method"] == "POST" and scope["path"].endswith("/chat/completions"):
        request = json.loads(raw)
        hold = CONTROL.get("hold_after")
        if hold is not None and CONTROL["answered"] - CONTROL["answered_at_set"] >= hold:
            body = b'{"error": {"message": "held by the test", "type": "rate_limit"}}'
            headers = [(b"content-type", b"application/json"), (b"retry-after", b"30")]
            await send({"type": "http.response.start", "status": 429, "headers": headers})
            return await send({"type": "http.response.body", "body": body})
        texts, logprobs = RESPONDENT.choices(request)
        content = texts[0]
        CONTROL["answered"] += 1
        if LOG is not None:  # every answered request, before the answer leaves
            keep = {k: request.get(k) for k in ("model", "messages", "temperature", "seed", "max_tokens")}
            LOG.write(json.dumps({**keep, "reply_chars": len(content)}) + "\n")
            LOG.flush()
        body = {
            "id": "chatcmpl-respondent",
            "object": "chat.completion",
            "created": 0,
            "model": request.get("model", "respondent"),
            "choices": [{"index": j, "message": {"role": "assistant", "content": t}, "finish_reason": "stop"}
                        for j, t in enumerate(texts)],
            "usage": {"prompt_tokens": 10, "completion_tokens": max(1, len(content) // 4), "total_tokens": 10 + len(content) // 4},
        }
        if logprobs is not None:
            body["choices"][0]["logprobs"] = {"content": logprobs}
        return await _respond(send, 200, json.dumps(body).encode())
    await _respond(send, 404, b'{"error": {"message": "no route", "type": "not_found"}}')


def main(argv: list[str] | None = None) -> None:
    global RESPONDENT
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dataset", required=True, type=Path)
    parser.add_argument("--profile", required=True, type=Path)
    parser.add_argument("--log", type=Path, default=None)
    parser.add_argument("--hold-after", type=int, default=None)
    args = parser.parse_args(argv)
    global LOG
    LOG = open(args.log, "a", encoding="utf-8") if args.log else None  # noqa: SIM115  open for the server's life
    CONTROL["hold_after"] = args.hold_after
    RESPONDENT = Respondent(Bank(args.dataset), Profile.from_json(json.loads(args.profile.read_text())))

    import uvicorn

    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.bind(("127.0.0.1", 0))
    sock.listen(1024)
    print(f"PORT {sock.getsockname()[1]}", flush=True)
    uvicorn.Server(uvicorn.Config(app, log_level="warning", access_log=False, lifespan="on")).run(sockets=[sock])


if __name__ == "__main__":
    sys.exit(main())
