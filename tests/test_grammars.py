"""The answer-format grammars (`run --format-grammar`) against the parsers, over their whole
language: every response a grammar allows (drawn at random, free text full of markup, labels and
brackets) is parsed by its channel's parser, and the fixed parts it wrote (bet, choice, confidence,
decision, tools) are the values the parser reads. A grammar whose member fails to parse, or a
parser that reads a different value, fails here."""

from __future__ import annotations

import random
import re

import pytest

from mirror_hf.protocol import exp1, exp3, exp9, grammars

# Channels that send the natural prompt as it is (the internal signals sample or score it): no stated format.
FREE_TEXT = {"natural", "consistency", "logprob"}

DRAWS = 300


def draws(node, seed: int):
    rng = random.Random(seed)
    return [grammars.sample(node, rng) for _ in range(DRAWS)]


def test_every_stated_format_has_a_grammar_and_natural_has_none():
    """Every Exp1 channel but the free-text natural one, every Exp3 channel, every Exp9 paradigm."""
    assert set(grammars.formats("exp1")) == set(exp1.CHANNELS) - FREE_TEXT
    assert set(grammars.formats("exp3")) == set(exp3.CHANNELS)
    assert set(grammars.formats("exp9")) == set(exp9.PARADIGMS)
    assert grammars.format_grammar("exp1", {"channel": "natural"}) is None
    assert grammars.format_grammar("exp4", {"channel": "wagering"}) is None
    assert grammars.format_grammar("exp1", {"channel": "wagering"}, turn=1) is None


@pytest.mark.parametrize("channel", sorted(set(exp1.CHANNELS) - FREE_TEXT))
def test_exp1_channel_grammar_members_parse(channel):
    node = grammars.formats("exp1")[channel]
    for i, text in enumerate(draws(node, hash(channel) % 1000)):
        parsed = exp1.channel(channel).parse(text, finish_reason="stop")
        if channel == "opt_out":
            assert parsed["skipped"] is not None, text
            assert parsed["skipped"] == (text == "SKIP" or parsed["answer"] is None), text
        else:
            assert parsed["parse_success"], (i, text)
        if channel == "wagering":
            assert parsed["bet"] == int(re.search(r"\nBET: (\d+)$", text).group(1)), text
        if channel == "structured_control":
            assert parsed["control_confidence"] == int(re.search(r"\nCONFIDENCE: (\d+)$", text).group(1)), text
        if channel == "difficulty_selection":
            assert parsed["choice"] == text[len("CHOICE: ")], text
        if channel == "tool_delegation":
            assert parsed["tools_used"] == re.findall(r"^\[USE_TOOL: (\w+) \| ", text, re.MULTILINE), text
        if channel == "layer2":
            assert parsed["self_report_confidence"] == float(re.match(r"CONFIDENCE: (\d+)\n", text).group(1)), text
            assert parsed["verify"] == re.search(r"\nVERIFY: (\w+)\n", text).group(1), text
            assert parsed["approach"] == re.search(r"\nAPPROACH: ([\w-]+)\n", text).group(1), text


def test_tool_followup_grammar_members_parse():
    first = exp1.parse_tool_delegation("[USE_TOOL: calculator | 2+2]\nANSWER: 4", finish_reason="stop")
    results = exp1.run_tools(first)
    assert grammars.format_grammar("exp1", {"channel": "tool_delegation"}, turn=1) == grammars.gbnf(grammars.TOOL_FOLLOWUP)
    for text in draws(grammars.TOOL_FOLLOWUP, 5):
        merged = exp1.parse_tool_followup(text, first, results, finish_reason="stop")
        assert merged["parse_success"] and merged["answer"], text


@pytest.mark.parametrize("channel", exp3.CHANNELS)
def test_exp3_channel_grammar_members_parse(channel):
    node = grammars.formats("exp3")[channel]
    for text in draws(node, 11):
        parsed = exp3.PARSERS[channel](text, finish_reason="stop")
        assert parsed["parse_success"], text
        if channel != "answer":
            assert parsed["self_report_confidence"] == float(re.match(r"CONFIDENCE: (\d+)", text).group(1)), text


@pytest.mark.parametrize("paradigm", exp9.PARADIGMS)
@pytest.mark.parametrize("decisions", exp9.DECISION_RULES)
def test_exp9_paradigm_grammar_members_parse(paradigm, decisions):
    node = grammars.formats("exp9")[paradigm]
    rules = "upstream" if decisions == "upstream" else "strict"
    for text in draws(node, 23):
        parsed = exp9.parse_exp9(text, paradigm, rules=rules, decisions=decisions, finish_reason="stop")
        assert parsed["parse_success"], text
        if paradigm == "P2":
            written = re.findall(r"^YOUR DECISION: (\w+)", text, re.MULTILINE)
            wanted = [{"PROCEED": "proceed", "USE_TOOL": "use_tool", "FLAG_FOR_REVIEW": "defer"}[w] for w in written]
            assert [parsed["component_a_decision"], parsed["component_b_decision"]] == wanted, text
        if paradigm == "P1" and decisions == "tags":
            for slot, part in zip(exp9.SLOTS, text.split("\n\nPART 2:\n")):
                wanted = "defer" if part.split("\n")[-1].startswith("[FLAG_FOR_REVIEW") else (
                    "use_tool" if "\n[USE_TOOL: " in "\n" + part else "proceed")
                assert parsed[f"component_{slot}_decision"] == wanted, text
        if paradigm == "P3" and rules == "strict":
            for slot, n in zip(exp9.SLOTS, "12"):
                assert parsed[f"component_{slot}_answer"], text


def test_the_gbnf_text_is_well_formed():
    """Balanced parentheses and quotes outside strings, one root rule: a malformed grammar would make
    llama.cpp refuse every request (the embedded test sends them all for real)."""
    for experiment in grammars.EXPERIMENTS:
        for name, node in grammars.formats(experiment).items():
            text = grammars.gbnf(node)
            assert text.startswith("root ::= ") and text.count("::=") == 1, name
            assert _outside_literals(text).count("(") == _outside_literals(text).count(")"), name


def _outside_literals(text: str) -> str:
    """The GBNF text without its "strings" and [classes] (scanned left to right, escapes skipped)."""
    out, i = [], 0
    while i < len(text):
        ch = text[i]
        if ch in "\"[":
            close = '"' if ch == '"' else "]"
            i += 1
            while text[i] != close:
                i += 2 if text[i] == "\\" else 1
            assert i < len(text), "unclosed literal"
        else:
            out.append(ch)
        i += 1
    return "".join(out)
