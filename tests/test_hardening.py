"""The twelve findings of the hardening issue, one test (or more) each, against the scripted local
server: a long Retry-After, two runs on one split, secrets in base URLs, runs that fail, --extra-body,
--max-cost, tampering, untrusted long responses, crash leftovers, silent acceptance, Exp9 failures.
(Bad input through the CLI, findings 4, 9, 10 and 11, is swept in test_bad_input.py.)"""

from __future__ import annotations

import json
import os
import re
import socket
import subprocess
import sys
import time

import polars as pl
import pytest
from fakes.servers import openai_server, server_stats, wait_until
from hypothesis import given, settings
from hypothesis import strategies as st
from runner_fixtures import REPO, cli_inproc, read_split

from mirror_hf.runner.request import ChatRequest, Generation


def _run(dataset, url, *args, check=True, env=None, model="acme/m"):
    return cli_inproc("run", "--dataset", str(dataset), "--model", model, "--base-url", url, "--no-progress",
                      "--backoff-base", "0.01", *args, check=check, env=env)


def _dead_url() -> str:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return f"http://127.0.0.1:{s.getsockname()[1]}/v1"


# ---------------------------------------------------------------- 1. Retry-After


@pytest.mark.timeout(60)
def test_1_a_day_long_retry_after_fails_that_attempt_and_stalls_nothing(dataset):
    """A 429 saying `Retry-After: 86400` fails its attempt at once (beyond --max-retry-wait) while the
    other requests go on; the run ends in seconds, not a day."""
    with openai_server({"429": 0.2}, retry_after="86400", max_transient=1) as url:
        t0 = time.monotonic()
        proc = _run(dataset, url, "--limit", "20", "--channels", "natural,wagering", "--concurrency", "4",
                    "--max-retry-wait", "1", "--max-attempts", "3")
        elapsed = time.monotonic() - t0
        stats = server_stats(url)
    trials = read_split(dataset, "trials_exp1", "acme_m")
    failed = trials.filter(pl.col("api_error").is_not_null())
    assert stats["429"] == failed.height > 0 and (failed["attempts"] == 1).all()
    assert failed["api_error"].str.contains("Retry-After 86400 s is longer than --max-retry-wait 1 s").all()
    assert trials.height == 40 and "wrote split" in proc.stdout
    print(f"40 trials with {failed.height} day-long Retry-Afters in {elapsed:.1f} s")


# ---------------------------------------------------------------- 2. two runs on one split


def test_2_a_second_run_on_the_same_split_is_refused_naming_the_first(dataset):
    args = ["run", "--dataset", str(dataset), "--model", "acme/m", "--no-progress", "--limit", "16", "--channels", "natural",
            "--concurrency", "1"]
    holder = dataset / ".runs" / "acme_m" / ".holder.json"
    with openai_server(delay_s=0.3) as url:
        first = subprocess.Popen([sys.executable, "-m", "mirror_hf.cli", *args, "--base-url", url], cwd=REPO,
                                 stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        try:
            assert wait_until(holder.exists, timeout=120), first.stderr.read() if first.poll() is not None else "no lock"
            second = _run(dataset, url, "--limit", "16", "--channels", "natural", "--resume", check=False)
        finally:
            out, err = first.communicate(timeout=300)
        assert first.returncode == 0, err
        assert second.returncode == 2 and f"in use by another run (pid {first.pid}" in second.stderr
        assert "started 20" in second.stderr and "Traceback" not in second.stderr
        stats = server_stats(url)
        assert stats["requests"] == stats["distinct"] == 16  # nothing paid twice
        assert not holder.exists()  # released
        # the results file is whole, and a later --resume reads it without sending anything
        lines = (dataset / ".runs" / "acme_m" / "exp1.jsonl").read_text().splitlines()
        assert len(lines) == 16 and all(json.loads(line)["k"] for line in lines)
        again = _run(dataset, url, "--limit", "16", "--channels", "natural", "--resume")
        assert "0 requests sent, 16 reused" in again.stdout


def test_2_a_stale_lock_of_a_dead_run_is_taken_over(dataset):
    folder = dataset / ".runs" / "acme_m"
    folder.mkdir(parents=True)
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True).stdout.strip()
    (folder / ".holder.json").write_text(json.dumps({"pid": int(dead), "host": "x", "started": "2026-01-01T00:00:00+00:00"}))
    with openai_server() as url:
        _run(dataset, url, "--limit", "4", "--channels", "natural")
    assert read_split(dataset, "trials_exp1", "acme_m").height == 4 and not (folder / ".holder.json").exists()


# ---------------------------------------------------------------- 3. secrets in base URLs


def test_3_query_secrets_in_the_base_url_reach_no_file_and_no_message(dataset):
    secret = "qs-SECRET-51a9e0"
    # faults follow the messages: at 0.5 over 16 requests, some fail whatever the bank (1 - 2**-16)
    with openai_server({"400": 0.5}) as url:
        _run(dataset, f"{url}?api_key={secret}", "--limit", "8", "--channels", "natural,wagering", "--max-failure-rate", "0.9")
    dead = _dead_url()
    down = _run(dataset, f"{dead}?api_key={secret}", "--limit", "8", "--channels", "natural", "--model", "acme/down", check=False)
    assert down.returncode == 2 and "could not reach the endpoint" in down.stderr
    assert secret not in down.stderr + down.stdout
    for path in dataset.rglob("*"):
        if path.is_file():
            assert secret.encode() not in path.read_bytes(), path
    trials = read_split(dataset, "trials_exp1", "acme_m")
    assert trials.filter(pl.col("api_error").is_not_null()).height > 0  # errors were written (and scanned)


# ---------------------------------------------------------------- 4. runs that fail


def test_4_a_run_where_every_request_fails_exits_2_and_writes_no_split(dataset):
    with openai_server({"400": 1.0}) as url:
        proc = _run(dataset, url, "--limit", "8", "--channels", "natural", check=False)
        assert server_stats(url)["requests"] == 8  # permanent: one attempt each
    assert proc.returncode == 2 and "8 of 8 trials failed (100%" in proc.stderr and "HTTP 400" in proc.stderr
    assert "trials_exp1" not in {p.name for p in (dataset / "data").iterdir()}
    assert len((dataset / ".runs" / "acme_m" / "exp1.jsonl").read_text().splitlines()) == 8  # kept for --resume


def test_4_more_failures_than_the_stated_share_exit_2(dataset):
    with openai_server({"400": 0.3}) as url:
        strict = _run(dataset, url, "--limit", "20", "--channels", "natural,wagering", "--max-failure-rate", "0.05", check=False)
        failed = server_stats(url)["400"]
        assert strict.returncode == 2 and f"{failed} of 40 trials failed" in strict.stderr
        _run(dataset, url, "--limit", "20", "--channels", "natural,wagering", "--resume")  # default 0.5: written
    assert read_split(dataset, "trials_exp1", "acme_m").height == 40


def test_4_an_unreachable_endpoint_stops_after_a_few_attempts(dataset):
    from mirror_hf.runner.client import FAIL_FAST

    proc = _run(dataset, _dead_url(), "--limit", "40", "--channels", "natural", "--concurrency", "2", check=False)
    assert proc.returncode == 2 and f"{FAIL_FAST} requests in a row could not reach the endpoint" in proc.stderr
    recorded = (dataset / ".runs" / "acme_m" / "exp1.jsonl").read_text().splitlines()
    assert len(recorded) < FAIL_FAST + 2  # stopped: not 40 requests, not 6 attempts each
    assert all(json.loads(line)["a"] == 1 for line in recorded)


# ---------------------------------------------------------------- 5. --extra-body


def test_5_extra_body_cannot_override_protocol_fields():
    from mirror_hf.runner.request import PROTOCOL_FIELDS

    for name in ("messages", "model", "max_tokens", "n", "stream", "tools", "temperature", "seed"):
        assert name in PROTOCOL_FIELDS
    sneaky = Generation(0.0, 0, 64, (("max_tokens", -5), ("model", "other"), ("top_p", 0.5)))
    assert sneaky.body() == {"temperature": 0.0, "max_tokens": 64, "seed": 0, "top_p": 0.5}


def test_5_provider_fields_are_sent(dataset):
    with openai_server() as url:
        _run(dataset, url, "--limit", "2", "--channels", "natural", "--extra-body", '{"top_p": 0.5}')
    manifest = json.loads((dataset / ".runs" / "acme_m" / "exp1.manifest.json").read_text())
    assert manifest["generation"] == {"temperature": 0.0, "max_tokens": 1024, "seed": 0, "top_p": 0.5}


# ---------------------------------------------------------------- 6. --max-cost


def test_6_max_cost_is_a_reservation_never_overshot_by_concurrency(dataset):
    price_in, cap = 1000.0, 0.3  # ~30 prompt tokens at $1000/M: ~$0.03 a request, ~10 fit
    with openai_server(delay_s=0.05) as url:
        proc = _run(dataset, url, "--limit", "40", "--channels", "natural", "--concurrency", "16",
                    "--price-in", str(price_in), "--price-out", "0", "--max-cost", str(cap))
    assert "stopped: --max-cost reached" in proc.stdout
    lines = [json.loads(line) for line in (dataset / ".runs" / "acme_m" / "exp1.jsonl").read_text().splitlines()]
    spent = sum(r["p"] for r in lines) * price_in / 1e6
    # one request's estimate (prompt characters / 4) is the only slack the reservation allows
    largest = max(r["p"] for r in lines) * price_in / 1e6
    assert 0 < spent <= cap + largest, (spent, cap)
    print(f"--max-cost {cap}: spent {spent:.4f} over {len(lines)} requests at concurrency 16")


# ---------------------------------------------------------------- 7. tampering


def test_7_verify_passes_a_clean_folder_and_names_a_changed_file(dataset):
    ok = cli_inproc("verify", str(dataset))
    assert ok.stdout.startswith("ok: ")
    n = int(ok.stdout.split()[1])
    assert n == sum(1 for _ in (dataset / "data").rglob("*.parquet"))
    import pyarrow.parquet as pq

    target = next((dataset / "data" / "questions").glob("*.parquet"))
    pq.write_table(pq.read_table(target).slice(0, 10), target)
    bad = cli_inproc("verify", str(dataset), check=False)
    assert bad.returncode == 2 and target.name in bad.stderr and "content changed" in bad.stderr
    with openai_server() as url:
        refused = _run(dataset, url, "--limit", "2", "--channels", "natural", check=False)
        assert server_stats(url)["requests"] == 0
    assert refused.returncode == 2 and target.name in refused.stderr


# ---------------------------------------------------------------- 8. untrusted long responses


ADVERSARIAL = {
    "unclosed tool calls": "[USE_TOOL: calculator | 1+" * 40_000,
    "blank after the bar": "[USE_TOOL: calculator |" + " " * 1_000_000,
    "a long tool name": "[USE_TOOL:" + "a" * 1_000_000,
    "open think": "<think>" + "x" * 1_000_000,
    "many think blocks": "<think>a</think>" * 60_000,
    "answer labels": "ANSWER: " * 120_000,
    "bold runs": "**" * 500_000,
    "digits": "1" * 1_000_000,
    "part markers": "PART 2\n" * 140_000,
    "defer tags": "[DEFER:" * 140_000,
    "brackets": "[" * 1_000_000,
    "a label on every line": "ANSWER: 1\n" * 100_000,  # was quadratic: each label sliced the rest of the text
    "bare labels": "ANSWER:\n" * 125_000,
    "hedges": "perhaps likely " * 70_000,
    "tool calls with brackets": "[USE_TOOL: calculator | [1+" * 40_000,  # inputs may quote brackets: they nest
    "nested brackets in a call": "[USE_TOOL: calculator | " + "[" * 1_000_000,
    "paired brackets in a call": "[USE_TOOL: calculator | " + "[]" * 500_000,
    "a call over many lines": "[USE_TOOL: calculator | " + "[\n" * 500_000,
    "closed calls with brackets": "[USE_TOOL: web_search | a [b]]\n" * 32_000,
    "tool heads": "[USE_TOOL: calculator |" * 43_000,
    "[TOOL: repeats": "[TOOL:" * 170_000,
    "runs of blank lines": ("a" + "\n" * 30_000) * 34,
    "marks on every line": "-\n" * 500_000,
}


def _every_parser():
    from mirror_hf.protocol import exp1, exp3, exp9

    for channel in exp1.CHANNELS:
        yield f"exp1.{channel}", lambda t, c=channel: exp1.parse(c, t)
    yield "exp1.parse_tool_delegation", exp1.parse_tool_delegation
    for name, parser in exp3.PARSERS.items():
        yield f"exp3.{name}", parser
    for paradigm in exp9.PARADIGMS:
        for rules in ("strict", "upstream"):
            yield f"exp9.{paradigm}.{rules}", lambda t, p=paradigm, r=rules: exp9.parse_exp9(t, p, rules=r)


@pytest.mark.slow
@pytest.mark.timeout(600)
@pytest.mark.parametrize("kind", sorted(ADVERSARIAL))
def test_8_every_parser_reads_1mb_adversarial_responses(kind):
    """Each parser on ~1 MB of hostile text returns (the timeout catches a quadratic one: a 60 KB
    input took 2.9 s before, so 1 MB would take ~15 minutes); timings are in benchmarks/parsers.py."""
    text = ADVERSARIAL[kind]
    assert len(text) >= 900_000
    for name, parser in _every_parser():
        parser(text)


@settings(max_examples=400, deadline=None)
@given(st.lists(st.sampled_from(["likely", "un", " ", "'", "’", "_", "é", "1", "however", "i think", ".", "\n", "may", "be"]),
                max_size=14).map("".join))
def test_8_the_linear_phrase_counter_is_the_whole_word_regex(text):
    """The hedging counter finds phrases with str.find for speed; it must count exactly what its
    definition, the whole-word regex, counts (non-overlapping, not inside a word)."""
    from mirror_hf.protocol.text import CAVEAT_PHRASES, HEDGING_PHRASES, count_phrases

    lower = text.lower().replace("’", "'")
    for phrases in (HEDGING_PHRASES, CAVEAT_PHRASES, ("likely", "i think", "may be")):
        regex = sum(len(re.findall(rf"(?<![\w']){re.escape(p)}(?![\w'])", lower)) for p in phrases)
        assert count_phrases(text, phrases) == regex, (text, phrases)


def test_8_the_tool_call_scan_is_linear_by_construction(monkeypatch):
    """No `[USE_TOOL` scan runs past the next `[USE_TOOL`, and the search resumes after the call or its
    head, so the regions scanned over any text tile it: the work is bounded by its length. Checked by
    recording every region scanned, and on the boundaries."""
    from mirror_hf.protocol import exp1

    assert exp1.tool_calls("[USE_TOOL: calculator | 1+ [USE_TOOL: calculator | 6*7]") == [{"tool": "calculator", "input": "6*7"}]
    assert exp1.tool_calls("[USE_TOOL: calculator |   2+2 ]") == [{"tool": "calculator", "input": "2+2"}]
    assert exp1.tool_calls("[USE_TOOL: calculator | ]") == []
    scanned = []
    real = exp1._call_end
    monkeypatch.setattr(exp1, "_call_end", lambda text, start, limit: scanned.append((start, limit)) or real(text, start, limit))
    for text in (ADVERSARIAL["unclosed tool calls"][:200_000], "[USE_TOOL: calculator | [" * 8_000 + "]" * 100,
                 "[USE_TOOL: calculator | [1] ]\n" * 8_000, "[USE_TOOL: calculator |" + "\n[" * 50_000):
        scanned.clear()
        exp1.tool_calls(text)
        assert scanned and sum(limit - start for start, limit in scanned) <= len(text)
        assert all(a[1] <= b[0] for a, b in zip(scanned, scanned[1:]))  # no region read twice


def test_8_long_responses_are_parsed_off_the_event_loop(monkeypatch):
    import asyncio
    import threading

    from mirror_hf.runner import engine as engine_module
    from mirror_hf.runner.request import Outcome

    seen = {}

    class Recipe:
        def followup(self, job, outcome):
            seen[len(outcome.text)] = threading.current_thread() is threading.main_thread()

    eng = engine_module.Engine.__new__(engine_module.Engine)
    eng.next_turn = engine_module.turn_rule(Recipe())  # a single-turn recipe: its one follow-up
    for n in (100, engine_module.OFF_LOOP_CHARS + 1):
        asyncio.run(eng._followup(None, [(None, Outcome(text="x" * n))]))  # the conversation so far: (request, outcome)
    assert seen == {100: True, engine_module.OFF_LOOP_CHARS + 1: False}


# ---------------------------------------------------------------- 9. leftovers


def _dead_pid() -> int:
    return int(subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True).stdout)


def test_9_leftovers_of_killed_writes_builds_imports_and_swaps_are_removed(dataset, tmp_path):
    from mirror_hf.folder import remove_folder_leftovers, write_split
    from mirror_hf.records import PROFILE_FEATURES

    dead, alive = _dead_pid(), os.getppid()
    folder = dataset / "data" / "profiles"
    folder.mkdir()
    (folder / f".acme.tmp-{dead}.parquet").write_bytes(b"torn")
    (folder / f".acme.tmp-{alive}.parquet").write_bytes(b"someone else's write in progress")
    write_split(dataset, "profiles", "acme", [], PROFILE_FEATURES)
    assert sorted(p.name for p in folder.iterdir() if p.name.startswith(".")) == [f".acme.tmp-{alive}.parquet"]

    out = tmp_path / "mirror"
    for kind in ("building", "importing", "old"):
        (tmp_path / f".mirror.{kind}-{dead}-abc").mkdir()
        (tmp_path / f".mirror.{kind}-{alive}-abc").mkdir()
    remove_folder_leftovers(out)
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith(".mirror.")) == sorted(
        f".mirror.{k}-{alive}-abc" for k in ("building", "importing", "old"))


def test_9_a_refused_option_leaves_no_run_json_to_block_the_rerun(dataset):
    with openai_server() as url:
        bad = _run(dataset, url, "--limit", "2", "--channels", "natural", "--rpm", "0", check=False)
        assert bad.returncode == 2 and "--rpm" in bad.stderr
        assert not (dataset / ".runs").exists()
        _run(dataset, url, "--limit", "2", "--channels", "natural", "--rpm", "600")  # the corrected rerun just works


# ---------------------------------------------------------------- 11. silent acceptance


def test_11_building_some_configs_keeps_the_others(dataset):
    from mirror_hf.folder import read_marker, split_files

    before = {c: [f.path.name for f in fs] for c, fs in split_files(dataset).items()}
    marker = read_marker(dataset)
    cli_inproc("build", "--out", str(dataset), "--configs", "questions", "--per-domain", str(marker["per_domain"]),
               "--seed", str(marker["seed"]), "--quiet")
    after = {c: [f.path.name for f in fs] for c, fs in split_files(dataset).items()}
    assert after == before  # same form: every config still there, byte for byte (same content hashes)


# ---------------------------------------------------------------- 12. Exp9 failures under --matcher upstream


def test_12_failed_exp9_requests_are_ungraded_under_either_matcher(dataset):
    # faults follow the messages: at 0.5 over 12 tasks, some fail and some are answered whatever the
    # bank (at 0.3 over 8, a bank drawing none would leave this test vacuous in 1 of 17)
    with openai_server({"400": 0.5}) as url:
        _run(dataset, url, "--experiment", "exp9", "--conditions", "C1", "--limit", "12", "--matcher", "upstream")
    trials = read_split(dataset, "trials_exp9", "acme_m")
    failed = trials.filter(pl.col("api_error").is_not_null())
    assert failed.height > 0 and (~failed["api_success"]).all()
    for slot in ("a", "b"):
        assert failed[f"component_{slot}_decision"].is_null().all()
        assert failed[f"component_{slot}_correct"].is_null().all()
    answered = trials.filter(pl.col("api_error").is_null())
    assert answered["component_a_decision"].is_not_null().all()


def test_request_key_is_unchanged_by_the_body_order():
    """Protocol fields now come last in the body; the key (canonical JSON) is the same as before."""
    generation = Generation(0.0, 0, 16, (("top_p", 0.5),))
    request = ChatRequest("m", "http://x/v1", ({"role": "user", "content": "q"},), generation)
    expected = __import__("hashlib").sha256(json.dumps(
        {"base_url": "http://x/v1", "generation": {"max_tokens": 16, "seed": 0, "temperature": 0.0, "top_p": 0.5},
         "messages": [{"content": "q", "role": "user"}], "model": "m"}, sort_keys=True, separators=(",", ":")).encode()).hexdigest()[:32]
    assert request.key == expected


def test_8_the_upstream_defer_tag_pattern_is_linear_and_finds_what_the_authors_finds():
    """The authors' P1 defer regex rescanned to the end from every unclosed tag; ours stops at the next
    opener. Over 100,000 random texts from the tags' own pieces, `.search` agrees with theirs."""
    import random

    from mirror_hf.protocol.exp9 import _PAPER_DEFER, _UP_DEFER

    authors = re.compile(r"\[FLAG_FOR_REVIEW[^\]]*\]|\[DEFER:[^\]]*\]|\bI\s+defer\b|FLAG\s+FOR\s+REVIEW", re.IGNORECASE)
    paper = re.compile(r"\[FLAG_FOR_REVIEW[^\]]*\]|\bI\s+defer\b|\bFLAG\s+FOR\s+REVIEW\b", re.IGNORECASE)  # the quadratic form
    rng = random.Random(0)
    pieces = ["[DEFER:", "[FLAG_FOR_REVIEW", "]", "[", "x", " ", "I defer", "flag for review", "[defer:", "\n", "[USE_TOOL:"]
    for _ in range(100_000):
        text = "".join(rng.choice(pieces) for _ in range(rng.randint(0, 12)))
        assert bool(authors.search(text)) == bool(_UP_DEFER.search(text)), text
        assert bool(paper.search(text)) == bool(_PAPER_DEFER.search(text)), text
    # the work count: each character is scanned from at most one opener
    text = "[DEFER:" * 1000 + "x"
    assert _UP_DEFER.search(text) is None and _UP_DEFER.search(text + "]").start() == 7 * 999
