"""Answer-format grammars (`run --format-grammar`): for each prompt that states a response format
(`ANSWER: ...` + `BET: n`, `CHOICE: A|B`, `CONFIDENCE: n`, Exp9's parts and steps), a grammar that
lets the model write only that format, for servers that constrain decoding by a GBNF grammar
(llama.cpp's `llama-server` and `llama-cpp-python`'s server take it as the request's `grammar`).

Why: a very small model (the embedded SmolLM2-135M) mostly ignores the stated format (it echoes
`BET: [1-10]` or lists the options), so nearly every trial fails to parse and the quickstart's
numbers describe nothing. The prompts are unchanged; only what the model may write is narrowed, so
this is an option, recorded in the run manifest (`settings.format_grammar`), off for `run` and on
for the quickstart's embedded model. The free-text natural channel (channel 5) and experiments
whose prompts state no single format (Exp4-6) get no grammar.

A grammar is built from a few combinators (`Lit`, `Text`, `Alt`, `Seq`, `Opt`) that both write
GBNF and draw random members, so the tests can prove over the whole language (not examples) that
everything a grammar allows is parsed by its channel's parser, with the values it wrote.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from functools import cache
from typing import Union

# --------------------------------------------------------------------------------------------
# Combinators
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Lit:
    """A fixed string."""

    text: str


@dataclass(frozen=True)
class Text:
    """One line of free text, no line break (and no `[`/`]` when `brackets` is false). It opens
    with a letter, a digit or one of a few marks that open an answer (`(`, `$`, `"`, `'`, `.`, `-`
    before a digit), so markup stripping (`text.clean_markup`) never leaves it empty; not with `[`:
    the parser reads `[x]` as `x` anyway, and the tiny model otherwise copies the placeholder
    `[your answer]`. Its length is left to `max_tokens` (a bounded repetition `{0,n}` nests n rules,
    and llama.cpp's grammar stacks then cost seconds per token)."""

    brackets: bool = True


@dataclass(frozen=True)
class Alt:
    options: tuple[Node, ...]


@dataclass(frozen=True)
class Seq:
    parts: tuple[Node, ...]


@dataclass(frozen=True)
class Opt:
    part: Node


Node = Union[Lit, Text, Alt, Seq, Opt]

_LEAD = "0-9A-Za-z\\u00C0-\\u024F\\u0370-\\u03FF\\u0400-\\u04FF\\u4E00-\\u9FFF($\"'."
_LEAD_CHARS = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyzéßΩЖ中($\"'."


def _gbnf_string(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


def _gbnf(node: Node) -> str:
    if isinstance(node, Lit):
        return _gbnf_string(node.text)
    if isinstance(node, Text):
        rest = "[^\\n\\r]" if node.brackets else "[^\\n\\r\\[\\]]"
        return f'(([{_LEAD}] | "-" [0-9]) {rest}*)'
    if isinstance(node, Alt):
        return "(" + " | ".join(_gbnf(o) for o in node.options) + ")"
    if isinstance(node, Seq):
        return "(" + " ".join(_gbnf(p) for p in node.parts) + ")"
    if isinstance(node, Opt):
        return f"({_gbnf(node.part)})?"
    raise TypeError(f"not a grammar node: {node!r}")


@cache
def gbnf(node: Node) -> str:
    """The grammar as GBNF text (one `root` rule)."""
    return f"root ::= {_gbnf(node)}\n"


# characters a sampled free text may hold: markup, label-like words, brackets, separators
_TEXT_PIECES = ("a", "Z", "7", " ", "*", "_", "#", "-", ":", "|", "[", "]", "(", ")", ".", ",", "é", "中",
                "ANSWER: ", "BET: 3", "SKIP", "PART 2", "STEP 2", "skip", "**", "`", "~", ">", "I defer", "FLAG",
                "USE_TOOL", "\t", "’", "%", "/10", "0")


def sample(node: Node, rng: random.Random) -> str:
    """A random member of the grammar's language."""
    if isinstance(node, Lit):
        return node.text
    if isinstance(node, Text):
        out = "-" + rng.choice("0123456789") if rng.random() < 0.1 else rng.choice(_LEAD_CHARS)
        pieces = [p for p in _TEXT_PIECES if node.brackets or ("[" not in p and "]" not in p)]
        for _ in range(rng.randrange(0, 12)):
            out += rng.choice(pieces)
        return out
    if isinstance(node, Alt):
        return sample(rng.choice(node.options), rng)
    if isinstance(node, Seq):
        return "".join(sample(p, rng) for p in node.parts)
    if isinstance(node, Opt):
        return sample(node.part, rng) if rng.random() < 0.5 else ""
    raise TypeError(f"not a grammar node: {node!r}")


def _alt(*words: str) -> Alt:
    return Alt(tuple(Lit(w) for w in words))


def _seq(*parts: Node | str) -> Seq:
    return Seq(tuple(Lit(p) if isinstance(p, str) else p for p in parts))


# --------------------------------------------------------------------------------------------
# The formats the prompts state
# --------------------------------------------------------------------------------------------

VALUE = Text()
NOTE = Text(brackets=False)  # a tool input, a flag reason, a skill list, a line of work or reasoning
ONE_TO_TEN = _alt(*(str(n) for n in range(10, 0, -1)))
PERCENT = Alt((Lit("100"), Lit("0"), *(Seq((Lit(str(d)), Opt(_alt(*"0123456789")))) for d in range(1, 10))))
ANSWER_LINE = _seq("ANSWER: ", VALUE)


def _tool_call(tools: tuple[str, ...]) -> Seq:
    return _seq("[USE_TOOL: ", _alt(*tools), " | ", NOTE, "]")


def _exp1_formats() -> dict[str, Node]:
    from mirror_hf.protocol.exp1 import APPROACHES, TOOLS

    call = _seq(_tool_call(TOOLS), "\n")
    return {
        "wagering": _seq(ANSWER_LINE, "\nBET: ", ONE_TO_TEN),
        "opt_out": Alt((ANSWER_LINE, Lit("SKIP"))),
        "difficulty_selection": _seq("CHOICE: ", _alt("A", "B"), "\n", ANSWER_LINE),
        "tool_delegation": Seq((Opt(call), Opt(call), ANSWER_LINE)),
        "layer2": _seq("CONFIDENCE: ", PERCENT, "\nSUB_SKILLS: ", NOTE, "\nWEAKEST_SKILL: ", NOTE,
                       "\nVERIFY: ", _alt("yes", "no"), "\nAPPROACH: ", _alt(*APPROACHES), "\n", ANSWER_LINE),
        "structured_control": _seq(ANSWER_LINE, "\nCONFIDENCE: ", ONE_TO_TEN),
    }


#: the tool channel's second turn ("Using these results, give your final answer. ANSWER: ...")
TOOL_FOLLOWUP = ANSWER_LINE


def _exp3_formats() -> dict[str, Node]:
    return {
        "self_prediction": _seq("CONFIDENCE: ", PERCENT),
        "answer": ANSWER_LINE,
        "layer2": _seq("CONFIDENCE: ", PERCENT, "\n", ANSWER_LINE),
    }


def _exp9_formats() -> dict[str, Node]:
    from mirror_hf.protocol.exp9 import P1_TOOLS

    p1_part = Alt((_seq("[FLAG_FOR_REVIEW: ", NOTE, "]"), Seq((Opt(_seq(_tool_call(P1_TOOLS), "\n")), _seq("ANSWER: ", VALUE)))))
    p2_step = _seq("YOUR DECISION: ", Alt((Lit("PROCEED"), _seq("USE_TOOL (", _alt(*P1_TOOLS), ")"), Lit("FLAG_FOR_REVIEW"))),
                   "\nYOUR WORK: ", NOTE, "\nYOUR ANSWER: ", VALUE)
    return {
        "P1": _seq("PART 1:\n", p1_part, "\n\nPART 2:\n", p1_part),
        "P2": _seq("STEP 1:\n", p2_step, "\n\nSTEP 2:\n", p2_step),
        "P3": _seq("REASONING 1: ", NOTE, "\nANSWER 1: ", VALUE, "\n\nREASONING 2: ", NOTE, "\nANSWER 2: ", VALUE),
    }


@cache
def formats(experiment: str) -> dict[str, Node]:
    """The grammar of every format of an experiment, by channel (Exp1, Exp2, Exp3) or paradigm
    (Exp9); an experiment without formats gets {}."""
    if experiment in ("exp1", "exp2"):
        return _exp1_formats()
    if experiment == "exp3":
        return _exp3_formats()
    if experiment == "exp9":
        return _exp9_formats()
    return {}


EXPERIMENTS: tuple[str, ...] = ("exp1", "exp2", "exp3", "exp9")


def grammar_node(experiment: str, fields: dict, turn: int = 0) -> Node | None:
    """The grammar of one request: `fields` are the job's (its channel, or its paradigm), `turn`
    the request's index in the trial (the tool channel's second turn has its own)."""
    if experiment in ("exp1", "exp2") and fields.get("channel") == "tool_delegation" and turn == 1:
        return TOOL_FOLLOWUP
    if turn:
        return None
    key = fields.get("paradigm") if experiment == "exp9" else fields.get("channel")
    return formats(experiment).get(str(key))


def format_grammar(experiment: str, fields: dict, turn: int = 0) -> str | None:
    """The GBNF text for one request, or None (the request is sent unconstrained)."""
    node = grammar_node(experiment, fields, turn)
    return None if node is None else gbnf(node)
