"""Channel specs: every registered channel's parser stores the confidence its `Signal` computes from
the raw field, and scoring recomputes that signal by the same rule; the worked example of
docs/architecture.md (a new behavioural channel) runs end to end against the local server."""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import polars as pl
import pytest
from fakes.servers import openai_server
from runner_fixtures import cli_inproc, read_split
from scipy.stats import spearmanr

from mirror_hf.protocol import exp1
from mirror_hf.scoring import channel_signal

DOCS = Path(__file__).resolve().parents[1] / "docs" / "architecture.md"
RESPONSES = [
    "ANSWER: 12\nBET: 7", "ANSWER: B\nBET: 11", "SKIP", "ANSWER: Paris", "CHOICE: A\nANSWER: 3", "CHOICE: B\nANSWER: 4",
    "[USE_TOOL: calculator | 2+2]\nANSWER: 4", "[USE_TOOL: web_search | x]\n[USE_TOOL: ask_expert | y]\nANSWER: 5",
    "I think it is probably 7. ANSWER: 7", "CONFIDENCE: 80\nSUB_SKILLS: a\nWEAKEST_SKILL: b\nANSWER: 9",
    "ANSWER: 2\nCONFIDENCE: 6", "", "I cannot help with that.",
]


def test_every_parser_stores_its_signal_and_scoring_agrees():
    for name, spec in exp1.CHANNELS.items():
        for rules in ("strict", "upstream"):
            for text in RESPONSES:
                parsed = spec.parse(text, rules=rules)
                expected = spec.confidence.of(parsed)
                # the stored confidence is the spec's signal; a parser may leave it out on a refusal
                assert parsed["confidence"] == expected or (parsed["confidence"] is None and parsed["refused"]), (name, rules, text)
                if expected is not None:
                    assert 0.0 <= expected <= 1.0
                if spec.behavioural and expected is not None:
                    field = spec.confidence.field
                    raw = parsed[field]
                    kwargs = {{"tools_used": "n_tools"}.get(field, field): [len(raw) if isinstance(raw, list) else raw]}
                    assert channel_signal([name], **kwargs)[0] == pytest.approx(expected), (name, text)


def _example_code() -> str:
    blocks = re.findall(r"```python\n(.*?)```", DOCS.read_text(), re.DOTALL)
    (block,) = [b for b in blocks if "register_channel" in b]
    return block


def test_architecture_worked_example_adds_a_behavioural_channel(dataset, tmp_path):
    exec(compile(_example_code(), str(DOCS), "exec"), {})
    try:
        assert "quick_bet" in exp1.behavioural_channels()
        with openai_server() as url:
            cli_inproc("run", "--dataset", str(dataset), "--model", "acme/toy", "--base-url", url, "--no-progress",
                       "--limit", "24", "--channels", "wagering,natural,quick_bet")
        trials = read_split(dataset, "trials_exp1", "acme_toy")
        toy = trials.filter(pl.col("channel") == "quick_bet")
        assert toy.height == 24 and toy["bet"].is_not_null().all()
        assert toy["confidence"].to_list() == [b / 10 for b in toy["bet"].to_list()], toy.select("bet", "confidence", "raw_response")
        assert "How many points (1-10) would you stake" in json.loads(toy["prompt"][0])[0]["content"]
        out = tmp_path / "scores.json"
        cli_inproc("score", "--dataset", str(dataset), "--resamples", "0", "--json", str(out))
        pairs = json.loads(out.read_text())["models"]["acme/toy"]["exp1"]["mci"]["pairs"]
        wag = trials.filter(pl.col("channel") == "wagering").select("item_id", pl.col("bet").alias("w"))
        joined = toy.select("item_id", pl.col("bet").alias("q")).join(wag, on="item_id")
        by_hand = spearmanr(joined["q"].to_numpy(), joined["w"].to_numpy()).statistic
        print(f"MCI pair quick_bet~wagering: scored {pairs['quick_bet~wagering']}, by hand {by_hand}")
        assert pairs["quick_bet~wagering"] == pytest.approx(float(by_hand), abs=1e-12)
        assert not np.isnan(by_hand)
    finally:
        exp1.CHANNELS.unregister("quick_bet")
    assert "quick_bet" not in exp1.behavioural_channels()
