"""Exp4 burn-and-test: the generated templates (counts, pairing, phases and both feedback texts
re-derived here from the bank and the items' params), the authors' templates imported as
`upstream_exp4`, the combined prompts built from the Exp1 channel specs and read back by their
parsers, the four-turn conversation run against the scripted server (with a SIGKILL mid-run and a
resume equal to an uninterrupted run), and AI / SAR in `score --json`."""

from __future__ import annotations

import datetime as dt
import json
import os
import re
import signal
import subprocess
import sys
import time
from collections import Counter
from dataclasses import replace

import pytest
from fakes.servers import openai_server
from runner_fixtures import REPO, cli_inproc, messages_digest, read_split

from mirror_hf.protocol import exp1, exp4
from mirror_hf.records import DOMAINS, Question
from mirror_hf.tasks import exp4 as bank4

MODEL = "acme/fake-1"


# --------------------------------------------------------------------------------------------
# The generated bank, every row
# --------------------------------------------------------------------------------------------


def _rows(root, config="exp4_templates"):
    return read_split(root, config, "test").to_dicts()


def _phase(row, phase) -> Question:
    return Question.from_row(json.loads(row[phase]))


def _rederive(q: Question) -> tuple[str | None, str]:
    """(the answer recomputed from params by our own route or None, a text the feedback must name)."""
    p = q.params
    if p.get("template") == "last_digit":
        d = str(pow(p["base"], p["exponent"], 10))
        return d, f"final digit is {d}"
    if p.get("kind") == "clock_angle":
        h, m = p["time"]
        gap = abs(((h % 12) * 60 + m) * 0.5 - m * 6.0)
        angle = min(gap, 360 - gap)
        text = f"{angle:g}"
        return text, f"{text} degrees apart"
    if p.get("form") == "days_between":
        days = (dt.date.fromisoformat(p["end"]) - dt.date.fromisoformat(p["start"])).days + bool(p["inclusive"])
        return str(days), f"the answer is {days}"
    if p.get("kind") == "three_sets":
        g = p["given"]
        exactly_two = (g["AB"] - g["ABC"]) + (g["AC"] - g["ABC"]) + (g["BC"] - g["ABC"])
        return str(exactly_two), f"= {exactly_two}"
    if p.get("kind") == "scale":
        need = p["recipe"][p["ingredient"]] * p["target_servings"] / p["base_servings"] - p["already_have"]
        return f"{need:g}", f"{need:g}"
    if p.get("kind") == "nominalisation":
        return p["word"], f"-{p['suffix']}"
    if p.get("kind") == "past_tense":
        return p["accepted"][0], "irregular"
    if p.get("kind") == "country_from_alpha3":
        import pycountry

        return None, f"alpha-2 code {pycountry.countries.get(alpha_3=p['code']).alpha_2}"
    if "remark" in p:
        return None, p["remark"]
    raise AssertionError(f"explained feedback for a kind the test does not know: {q.subcategory} {p}")


def test_generated_bank_counts_pairing_and_phases(dataset):
    rows = _rows(dataset)
    bank = {r["id"]: Question.from_row(r) for r in read_split(dataset, "questions", "test").to_dicts()}
    per_domain = Counter(r["burn_domain"] for r in rows)
    pairing = {(r["burn_domain"], r["control_domain"]) for r in rows}
    print(f"exp4_templates: {len(rows)} rows; per burn domain {dict(per_domain)}; pairing {sorted(pairing)}")
    assert len(rows) == 320 and per_domain == {d: 40 for d in DOMAINS}
    controls = dict(pairing)
    assert len(controls) == len(pairing) == 8  # one fixed control per burn domain
    assert all(burn != control for burn, control in pairing)
    assert len({r["trial_id"] for r in rows}) == 320
    expected = {"phase_a": ("burn", "easy"), "phase_b": ("burn", "hard"),
                "phase_c_related": ("burn", "medium"), "phase_c_unrelated": ("control", "medium")}
    for r in rows:
        for phase, (side, difficulty) in expected.items():
            q = _phase(r, phase)
            assert q == bank[q.id], (r["trial_id"], phase)  # the very bank item, every field
            assert q.difficulty == difficulty and q.domain == r[f"{side}_domain"], (r["trial_id"], phase)


# a sentence about what the reader did or got: "you treated", "you did not", "your answer was";
# "check your answer" asks, it does not claim
SAYS_WHAT_YOU_DID = re.compile(r"\byou\b(?! already)|\byour (?!answer against)\w+", re.I)


def test_true_feedback_names_the_hard_items_real_error(dataset):
    rows = _rows(dataset)
    basis = Counter((r["burn_domain"], r["feedback_basis"]) for r in rows)
    print(f"true-feedback basis per burn domain: {dict(basis)}")
    assert set(basis) == {(d, "explained") for d in DOMAINS}  # every burn domain gets a params explanation here
    for r in rows:
        hard = _phase(r, "phase_b")
        text = r["phase_b_feedback"]
        # never contradicts the record: no unconditional "you were wrong" (a model may have answered right)
        assert text.endswith(f"The correct answer is {hard.answer}; any other answer was incorrect."), text
        assert not re.search(r"\byour answer (was|is) (incorrect|wrong)\b", text, re.I), text
        # ... nor says what the model did: the pitfall is named, not pinned on the reader ("You treated
        # the hour hand as ..." told a model that answered right that it erred); quoted item text aside
        own_words = re.sub(r'"[^"]*"', '""', text)
        assert not SAYS_WHAT_YOU_DID.search(own_words), (r["trial_id"], SAYS_WHAT_YOU_DID.search(own_words)[0])
        value, named = _rederive(hard)
        assert named in text, (r["trial_id"], named, text)
        if value is not None:
            assert value == hard.answer, (r["trial_id"], value, hard.answer)


def test_false_feedback_fabricates_an_error_on_phase_a(dataset):
    for r in _rows(dataset):
        easy = _phase(r, "phase_a")
        text = r["phase_b_false_feedback"]
        claimed = text.split("you answered ", 1)[1].rsplit(f" instead of {easy.answer}.", 1)[0]
        assert claimed in easy.choices and claimed != easy.answer, (r["trial_id"], claimed)
        assert hard_answer_not_named(text, _phase(r, "phase_b"))


def hard_answer_not_named(text: str, hard: Question) -> bool:
    return f"correct answer is {hard.answer}" not in text


def test_explainer_never_states_a_wrong_gold():
    q = Question("x", "arithmetic", "numerical_reasoning", "hard", "What is the final digit of 18^102?", (), "4",
                 "exact_numeric", (), "t", 0, {"template": "last_digit", "base": 18, "exponent": 102})
    assert bank4.true_feedback(q)[1] == "explained"
    tampered = replace(q, answer="6")
    text, basis = bank4.true_feedback(tampered)
    assert basis == "answer_only" and "cycle" not in text and text.endswith("The correct answer is 6; any other answer was incorrect.")


def test_templates_are_deterministic_per_seed(dataset):
    questions = [Question.from_row(r) for r in read_split(dataset, "questions", "test").to_dicts()]
    first = bank4.templates(questions, 7)
    assert first == bank4.templates(questions, 7)
    assert first != bank4.templates(questions, 8)
    assert _rows(dataset) == [{**r} for r in bank4.templates(questions, 0)]  # the build's seed is 0


# --------------------------------------------------------------------------------------------
# The authors' templates
# --------------------------------------------------------------------------------------------


def test_upstream_templates_import_and_plan(dataset, upstream_dir):
    source = upstream_dir / "data/exp4/templates_v2.jsonl"
    out = dataset
    cli_inproc("import-upstream", str(source), "--out", str(out), "--quiet")
    rows = _rows(out, "upstream_exp4")
    raw = [json.loads(line) for line in source.read_text().splitlines() if line.strip()]
    print(f"upstream_exp4: {len(rows)} of {len(raw)} templates; per burn domain {dict(Counter(r['burn_domain'] for r in rows))}")
    assert len(rows) == len(raw) == 320
    assert Counter(r["burn_domain"] for r in rows) == {d: 40 for d in DOMAINS}
    assert {r["burn_domain"]: r["control_domain"] for r in rows} == bank4.CONTROL_DOMAIN  # our pairing is theirs
    by_id = {r["trial_id"]: r for r in raw}
    for r in rows:
        for phase in bank4.PHASES:
            q = _phase(r, phase)
            assert (q.question, q.answer, q.domain) == (by_id[r["trial_id"]][phase]["task_text"],
                                                        str(by_id[r["trial_id"]][phase]["correct_answer"]),
                                                        by_id[r["trial_id"]][phase]["domain"])
        assert r["phase_b_feedback"] == by_id[r["trial_id"]]["phase_b_feedback"]
    run = ("run", "--dataset", str(out), "--experiment", "exp4", "--model", MODEL, "--base-url", "http://127.0.0.1:9/v1",
           "--dry-run")
    dry = cli_inproc(*run, "--bank", "upstream_exp4").stdout
    print(dry)
    # 320 templates x 2 conditions, four turns each; a turn whose conversation so far is the same is sent once
    # (the two conditions share A and B; some templates share their Phase-A task): count those prefixes here
    task = lambda t, p: t[p]["task_text"]  # noqa: E731
    prefixes = set()
    for t in raw:
        for fb in ("phase_b_feedback", "phase_b_false_feedback"):
            a, b, c = task(t, "phase_a"), task(t, "phase_b"), (task(t, "phase_c_related"), task(t, "phase_c_unrelated"))
            prefixes |= {(a,), (a, b), (a, b, t[fb]), (a, b, t[fb], c)}
    assert "from upstream_exp4" in dry and f"dry run: 640 trials of exp4; {len(prefixes)} calls to send" in dry
    assert "from exp4_templates" in cli_inproc(*run, "--limit", "2").stdout  # ours when both are there
    bad = cli_inproc(*run, "--bank", "upstream_exp44", check=False)
    assert bad.returncode == 2 and "exp4 reads exp4_templates, upstream_exp4" in bad.stderr and "Traceback" not in bad.stderr
    assert len(bad.stderr.strip().splitlines()) == 1


# --------------------------------------------------------------------------------------------
# Prompts and parsing through the channel specs
# --------------------------------------------------------------------------------------------


def _item(text="What is 2 + 2?", answer="4"):
    return Question("q1", "arithmetic", "mental_calculation", "easy", text, ("3", "4", "5", "6"), answer,
                    "multiple_choice", (), "t", 0, {})


def test_format_instructions_are_the_channel_prompts_numbered():
    q = _item()
    for number, channel in exp4.FORMATS.items():
        text = exp4.format_instructions(channel, q, number)
        if channel != "natural":
            own = exp1.channel(channel).build(q)[0]["content"][len(exp1.question_text(q)):].strip()
            assert text.replace(f"_{number}", "") == own, channel
        assert f"ANSWER_{number}:" in text
    prompt = exp4.build_single(q)
    assert all(f"FORMAT-{n}:" in prompt for n in exp4.FORMATS) and "FORMAT-3" not in prompt


REPLY = """=== TASK 1 ===
FORMAT-1:
ANSWER_1: B
BET_1: 3
FORMAT-2:
SKIP_2
FORMAT-4:
[USE_TOOL: calculator | 2+2] [USE_TOOL: ask_expert | sure?]
ANSWER_4: B
FORMAT-5:
I think it is probably 4, but I'm not sure.
ANSWER_5: 4

=== TASK 2 ===
TASK2_FORMAT-1 ANSWER_1: A
BET_1: 9
TASK2_FORMAT-2 ANSWER_2: A
TASK2_FORMAT-4 ANSWER_4: A
TASK2_FORMAT-5 It is 3.
ANSWER_5: 3
"""


def test_sections_are_read_by_the_channel_parsers():
    q = _item()
    sections = exp4.task_sections(REPLY, 2)
    one = exp4.read_formats(sections[1], q)
    two = exp4.read_formats(sections[2], _item("What is 1 + 2?", "3"))
    # by hand: task 1 bets 3 and is right (B = 4), skips format 2, calls two tools, hedges
    assert one["wagering"]["bet"] == 3 and one["wagering"]["correct"] is True
    assert one["opt_out"]["skipped"] is True and one["opt_out"]["confidence"] == 0.0
    assert one["tool_delegation"]["tools_used"] == ["calculator", "ask_expert"]
    assert one["tool_delegation"]["confidence"] == pytest.approx(1 / 3) and one["tool_delegation"]["correct"] is True
    assert one["natural"]["hedging_count"] >= 2 and one["natural"]["correct"] is True
    assert two["wagering"]["bet"] == 9 and two["wagering"]["correct"] is True
    assert two["opt_out"]["skipped"] is False and two["tool_delegation"]["tools_used"] == []
    assert two["natural"]["hedging_count"] == 0 and two["natural"]["correct"] is True
    # the same reading as the channel parser on the un-numbered section text
    section = exp4.format_sections(sections[1])[1]
    assert one["wagering"]["confidence"] == exp1.parse("wagering", section)["confidence"] == 0.3
    missing = exp4.read_formats("no sections at all", q)
    assert all(missing[c].get("confidence") is None for c in ("wagering", "opt_out"))


# --------------------------------------------------------------------------------------------
# The conversation run: SIGKILL mid-conversation, resume, equal to an uninterrupted run
# --------------------------------------------------------------------------------------------

LIMIT = 8
COMPARED = ["model", "experiment", "item_id", "feedback", "request_key", "prompt", "raw_response", "turns", "conversation",
            "domain", "control_domain", "bank", "channels", "signal_a", "signal_related", "signal_unrelated", "bet_a",
            "bet_related", "bet_unrelated", "correct_a", "correct_related", "correct_unrelated", "phase_b_answer",
            "phase_b_correct", "phase_b_approach", "retry_reply", "api_error", "attempts", "prompt_tokens",
            "completion_tokens", "parse_success"]


def _args(dataset, url, split):
    return ["run", "--dataset", str(dataset), "--experiment", "exp4", "--model", MODEL, "--base-url", url,
            "--split", split, "--limit", str(LIMIT), "--concurrency", "2", "--no-progress"]


def _results(dataset, split):
    return dataset / ".runs" / split / "exp4.jsonl"


def _recorded(dataset, split) -> set[str]:
    path = _results(dataset, split)
    return {line.split('"k":"')[1].split('"')[0] for line in path.read_text().splitlines() if '"k":"' in line} if path.exists() else set()


def _kill_at(dataset, url, split, at_lines, resume):
    path = _results(dataset, split)
    args = [sys.executable, "-m", "mirror_hf.cli", *_args(dataset, url, split), *(["--resume"] if resume else [])]
    proc = subprocess.Popen(args, cwd=REPO, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        deadline = time.monotonic() + 120
        lines = lambda: path.read_bytes().count(b"\n") if path.exists() else 0  # noqa: E731
        while lines() < at_lines and proc.poll() is None and time.monotonic() < deadline:
            time.sleep(0.002)
        ended = proc.poll() is not None
        os.kill(proc.pid, signal.SIGKILL)
    finally:
        proc.wait()
    assert not ended, f"the runner ended before the kill point: {proc.stderr.read().decode()[-2000:]}"


def _turn_keys(frame, url) -> dict[tuple[str, str], list[str]]:
    """(item, feedback) -> the request key of each of its turns, from the recorded last prompt."""
    from mirror_hf.runner.request import ChatRequest, Generation
    from mirror_hf.runner.session import public_url

    generation = Generation(0.0, 0, 1536, ())
    out = {}
    for row in frame.iter_rows(named=True):
        messages = json.loads(row["prompt"])
        out[(row["item_id"], row["feedback"])] = [
            ChatRequest(MODEL, public_url(url), tuple(messages[: 2 * k + 1]), generation).key for k in range(exp4.TURNS)]
    return out


def _stats_detail(url):
    import urllib.request

    with urllib.request.urlopen(url.rsplit("/v1", 1)[0] + "/stats?detail=1", timeout=10) as reply:
        return json.loads(reply.read())["seen"]


def test_sigkill_mid_conversation_then_resume_equals_uninterrupted(dataset):
    # 8 templates x 2 conditions = 16 conversations; A and B are shared by the two conditions: 48 requests
    with openai_server(think_rate=0.2, delay_s=0.05) as url:
        recorded_at_kill = []
        for i, at in enumerate((10, 28)):
            _kill_at(dataset, url, "killed", at, resume=i > 0)
            recorded_at_kill.append(_recorded(dataset, "killed"))
            assert not (dataset / "data" / "trials_exp4").exists() or not any(
                p.name.startswith("killed") for p in (dataset / "data" / "trials_exp4").iterdir())
        seen_before = dict(_stats_detail(url))
        cli_inproc(*_args(dataset, url, "killed"), "--resume")
        seen_after = _stats_detail(url)
        cli_inproc(*_args(dataset, url, "reference"))
    reference, killed = read_split(dataset, "trials_exp4", "reference"), read_split(dataset, "trials_exp4", "killed")
    assert reference.height == killed.height == 2 * LIMIT
    assert killed.select("item_id", "feedback").n_unique() == 2 * LIMIT and set(killed["turns"]) == {exp4.TURNS}
    key = ["item_id", "feedback"]
    assert reference.select(COMPARED).sort(key).equals(killed.select(COMPARED).sort(key)), "resumed split differs"
    turns = _turn_keys(killed, url)
    assert len({k for keys in turns.values() for k in keys}) == 48
    # each kill left at least one conversation half recorded (it was killed mid-conversation) ...
    partial = [sum(0 < sum(k in rec for k in keys) < exp4.TURNS for keys in turns.values()) for rec in recorded_at_kill]
    print(f"conversations half recorded at the kills: {partial}; requests recorded: {[len(r) for r in recorded_at_kill]}")
    assert sum(partial) >= 1
    # ... and no request recorded before a kill was sent again (a finished conversation is never repeated)
    prompt_of = {}
    for row in killed.iter_rows(named=True):
        messages = json.loads(row["prompt"])
        for k, request_key in enumerate(turns[(row["item_id"], row["feedback"])]):
            prompt_of[request_key] = json.dumps(messages[: 2 * k + 1])
    for request_key in set().union(*recorded_at_kill):
        digest = messages_digest(prompt_of[request_key])
        assert seen_after[digest] == seen_before.get(digest, 0), request_key


def test_run_scores_ai_and_sar(dataset, tmp_path):
    with openai_server() as url:
        cli_inproc("run", "--dataset", str(dataset), "--experiment", "exp4", "--model", MODEL, "--base-url", url,
                   "--limit", "24", "--concurrency", "4", "--no-progress")
    trials = read_split(dataset, "trials_exp4", "acme_fake_1")
    path = tmp_path / "scores.json"
    cli_inproc("score", "--dataset", str(dataset), "--json", str(path), "--resamples", "200")
    scores = json.loads(path.read_text())["models"][MODEL]["exp4"]
    # recomputed here from the records: per burn domain the mean related - unrelated bet (true feedback)
    true = trials.filter(trials["feedback"] == "true").to_dicts()
    by_domain = {}
    for r in true:
        by_domain.setdefault(r["domain"], []).append(r["bet_related"] - r["bet_unrelated"])
    expected = sum(sum(v) / len(v) for v in by_domain.values()) / len(by_domain)
    print(f"exp4 AI (wager, paper): computed {scores['ai']['value']:.4f}, from the records {expected:.4f}; "
          f"SAR {scores['sar']['value']} ({scores['sar']['reading']})")
    assert all(len(v) == 3 for v in by_domain.values())
    assert scores["ai"]["value"] == pytest.approx(expected) and scores["ai_paper"]["value"] == pytest.approx(expected)
    assert scores["ai_upstream"]["value"] == pytest.approx(expected)  # nothing missing: the lists align
    assert "ci" in scores["ai"] and set(scores["ai_by_channel"]) == set(exp4.CHANNELS)
    false = trials.filter(trials["feedback"] == "false").to_dicts()
    f_dom = {}
    for r in false:
        f_dom.setdefault(r["domain"], []).append(r["bet_related"] - r["bet_unrelated"])
    ai_false = sum(sum(v) / len(v) for v in f_dom.values()) / len(f_dom)
    assert scores["sar"]["value"] == pytest.approx(ai_false / expected)


# --------------------------------------------------------------------------------------------
# The embedded model (plumbing only: SmolLM2-135M), slow; the default run's variant is the
# scripted-server run above
# --------------------------------------------------------------------------------------------


@pytest.mark.slow
@pytest.mark.embedded
@pytest.mark.timeout(1800)
def test_embedded_exp4_completes_and_scores(dataset, tmp_path):
    from test_runner_embedded import _require_embedded

    _require_embedded()
    cli_inproc("run", "--dataset", str(dataset), "--experiment", "exp4", "--limit", "2", "--max-tokens", "16",
               "--no-progress")  # 2 templates x 2 conditions: 12 distinct requests (A and B are shared)
    trials = read_split(dataset, "trials_exp4", "smollm2")
    assert trials.height == 4 and trials["api_error"].is_null().all() and set(trials["turns"]) == {exp4.TURNS}
    path = tmp_path / "scores.json"
    cli_inproc("score", "--dataset", str(dataset), "--resamples", "0", "--json", str(path))
    scores = json.loads(path.read_text())["models"]["smollm2"]["exp4"]
    print(f"embedded exp4: AI {scores['ai']['value']} (n {scores['ai']['n']}), SAR {scores['sar']['value']}, "
          f"bets read {trials['bet_related'].is_not_null().sum()} of {trials.height}")
    true = trials.filter(trials["feedback"] == "true")
    pairs = (true["bet_related"].is_not_null() & true["bet_unrelated"].is_not_null()).sum()
    assert scores["ai"]["n"] == pairs  # one burn-domain template each: AI itself needs 3 pairs per domain
    assert set(scores["ai"]["domains"]) <= set(DOMAINS) and "reading" in scores["sar"]
