"""The runner's parts on their own: request keys, the results store, the limiter, the plan's item
selection, names and URLs, and the client's error taxonomy against the scripted server."""

from __future__ import annotations

import asyncio
import json
import time

import pytest
from fakes.servers import openai_server, server_stats

from mirror_hf.runner.client import ChatClient, RetryPolicy, parse_retry_after
from mirror_hf.runner.limiter import RateLimiter
from mirror_hf.runner.plan import PlanError, stratified
from mirror_hf.runner.request import ChatRequest, Generation, Outcome
from mirror_hf.runner.session import RunError, check_split, model_slug, public_url
from mirror_hf.runner.store import ResultStore, StoreError, load_outcomes

MESSAGES = ({"role": "user", "content": "What is 2+3?"},)


# ------------------------------------------------------------------------------------ keys


def test_request_key_covers_model_url_messages_and_settings_only():
    base = ChatRequest("m", "http://h/v1", MESSAGES, Generation())
    assert base.key == ChatRequest("m", "http://h/v1/", MESSAGES, Generation()).key  # trailing slash is not a new endpoint
    variants = [
        ChatRequest("m2", "http://h/v1", MESSAGES, Generation()),
        ChatRequest("m", "http://other/v1", MESSAGES, Generation()),
        ChatRequest("m", "http://h/v1", ({"role": "user", "content": "What is 2+4?"},), Generation()),
        ChatRequest("m", "http://h/v1", MESSAGES, Generation(temperature=0.7)),
        ChatRequest("m", "http://h/v1", MESSAGES, Generation(seed=1)),
        ChatRequest("m", "http://h/v1", MESSAGES, Generation(max_tokens=16)),
        ChatRequest("m", "http://h/v1", MESSAGES, Generation(extra=(("reasoning_effort", "low"),))),
    ]
    keys = {v.key for v in variants}
    assert base.key not in keys and len(keys) == len(variants)


def test_prompt_json_is_the_protocols_canonical_form():
    from mirror_hf.protocol import prompt_sha

    request = ChatRequest("m", "u", ({"role": "user", "content": "Ünïcode — 7 × 6?"},), Generation())
    import hashlib

    assert hashlib.sha256(request.prompt_json().encode()).hexdigest() == prompt_sha(list(request.messages))


# ------------------------------------------------------------------------------------ store


def _write_store(path, outcomes):
    async def go():
        store = ResultStore(path, resume=True)
        store.start()
        for key, outcome in outcomes:
            store.add(key, outcome)
        await store.close()

    asyncio.run(go())


def test_store_round_trip_and_success_beats_failure(tmp_path):
    path = tmp_path / "r.jsonl"
    _write_store(path, [("k1", Outcome(text="a", attempts=1)), ("k2", Outcome(error="HTTP 500: x", error_kind="transient", attempts=6))])
    _write_store(path, [("k2", Outcome(text="b", attempts=2)), ("k1", Outcome(error="late failure", attempts=1))])
    outcomes, _ = load_outcomes(path)
    assert outcomes["k1"].text == "a" and outcomes["k1"].ok  # a recorded success is never replaced by a failure
    assert outcomes["k2"].text == "b" and outcomes["k2"].attempts == 2
    assert len(path.read_text().splitlines()) == 4  # append-only


def test_store_ignores_and_truncates_a_torn_last_line(tmp_path):
    path = tmp_path / "r.jsonl"
    _write_store(path, [("k1", Outcome(text="a", attempts=1))])
    with open(path, "ab") as f:
        f.write(b'{"k":"k2","t":"half a li')  # kill -9 mid-write
    outcomes, good_end = load_outcomes(path)
    assert set(outcomes) == {"k1"} and good_end == len(path.read_bytes()) - len(b'{"k":"k2","t":"half a li')
    _write_store(path, [("k3", Outcome(text="c", attempts=1))])
    lines = path.read_text().splitlines()
    assert [json.loads(line)["k"] for line in lines] == ["k1", "k3"]  # the torn bytes are gone, not buried


def test_store_reports_damage_in_the_middle_with_its_line(tmp_path):
    path = tmp_path / "r.jsonl"
    path.write_text('{"k":"k1","t":"a","a":1}\nnot json\n{"k":"k2","t":"b","a":1}\n')
    with pytest.raises(StoreError, match=r"r.jsonl line 2"):
        load_outcomes(path)


def test_store_releases_written_outcomes_and_reads_them_back(tmp_path):
    """A released outcome leaves memory only once its line is on disk, and `get` still returns it
    (read back from the file) with every field; a loaded outcome stays; an unreleased one stays."""
    path = tmp_path / "r.jsonl"
    _write_store(path, [("old", Outcome(text="from before", attempts=1))])
    outcomes = {f"k{i}": Outcome(text=f"Ünï {i}", reasoning="r" if i % 2 else None, finish_reason="stop", prompt_tokens=i,
                                 completion_tokens=2 * i, latency_ms=i / 3, attempts=1 + i % 3, system_fingerprint="fp")
                for i in range(50)}

    async def go():
        store = ResultStore(path, resume=True)
        store.start()
        for key, outcome in outcomes.items():
            store.add(key, outcome)
        store.release([*list(outcomes)[:40], "old", "never-added"])
        assert len(store.outcomes) == 51  # nothing written yet: nothing dropped
        await asyncio.sleep(store.batch_window * 5)
        assert set(store.outcomes) == {"old", *list(outcomes)[40:]}
        for key, outcome in outcomes.items():
            assert store.get(key) == outcome
        assert store.get("old").text == "from before" and store.get("never-added") is None
        await store.close()

    asyncio.run(go())
    assert load_outcomes(path)[0] == {"old": Outcome(text="from before", attempts=1), **outcomes}


def test_store_index_never_answers_with_another_keys_line(tmp_path, monkeypatch):
    """The released outcomes are found by the key's hash: if two keys shared one, the line read back
    belongs to the key written last, and the other key is not known (sent again), never answered
    with the wrong outcome. Every key is given one hash here."""
    from mirror_hf.runner import store as store_module

    monkeypatch.setattr(store_module, "hash", lambda key: 7, raising=False)
    path = tmp_path / "r.jsonl"
    first, second = Outcome(text="first", attempts=1), Outcome(text="second", attempts=2)

    async def go():
        store = ResultStore(path, resume=False)
        store.start()
        store.add("a", first)
        store.add("b", second)
        store.release(["a", "b"])
        await asyncio.sleep(store.batch_window * 5)
        assert not store.outcomes
        assert store.get("b") == second and store.get("a") is None
        await store.close()

    asyncio.run(go())
    assert load_outcomes(path)[0] == {"a": first, "b": second}  # both lines are on disk for --resume


def test_line_index_answers_as_a_dict_would(monkeypatch):
    """Through many folds and merges (RECENT = 8), rewrites of a hash included: the newest location
    of every hash written, None for one never written."""
    import random

    from mirror_hf.runner.store import LineIndex

    monkeypatch.setattr(LineIndex, "RECENT", 8)
    rng = random.Random(5)
    index, model = LineIndex(), {}
    hashes = [rng.randrange(-(1 << 63), 1 << 63) for _ in range(700)]
    for n in range(2000):
        digest = rng.choice(hashes)
        where = (n * 1000 + rng.randrange(1 << 40), rng.randrange(1, 1 << 32))
        index.put(digest, *where)
        model[digest] = where
        if n % 97 == 0:
            assert all(index.get(h) == model.get(h) for h in hashes)
    assert len(model) > 600 and all(index.get(h) == where for h, where in model.items())
    assert index.get(12345) is None and 12345 not in index and hashes[0] in index
    assert 1 < len(index._levels) < 10  # merged as it went, never one level per fold


def test_store_without_resume_starts_empty(tmp_path):
    path = tmp_path / "r.jsonl"
    _write_store(path, [("k1", Outcome(text="a", attempts=1))])

    async def go():
        store = ResultStore(path, resume=False)
        assert store.get("k1") is None
        await store.close()

    asyncio.run(go())
    assert path.read_text() == ""


# ------------------------------------------------------------------------------------ limiter


class FakeClock:
    """A clock that only moves when the limiter sleeps: pacing is checked as exact arithmetic on
    the time the limiter asked to wait, never against the wall clock."""

    def __init__(self):
        self.now = 0.0
        self.sleeps: list[float] = []

    def __call__(self) -> float:
        return self.now

    def install(self, monkeypatch):
        real_sleep = asyncio.sleep

        async def sleep(delay, *args, **kwargs):
            if delay > 0:
                self.sleeps.append(delay)
                # a real clock always moves on; a float sum may not (0.1 + 1e-17 == 0.1)
                self.now += max(delay, 1e-9)
            await real_sleep(0)

        monkeypatch.setattr("mirror_hf.runner.limiter.asyncio.sleep", sleep)
        return self


def test_limiter_rpm_spaces_requests(monkeypatch):
    clock = FakeClock().install(monkeypatch)

    async def go():
        limiter = RateLimiter(64, rpm=600, clock=clock)  # 10 per second, one second of burst
        sent_at = []
        for _ in range(25):
            await limiter.acquire(10)
            sent_at.append(clock.now)
            limiter.release(10, 10)
        return sent_at

    sent_at = asyncio.run(go())
    # GCRA by hand: the first 10 go at once (1 s of burst at 0.1 s each), then one every 0.1 s
    assert sent_at[:10] == [0.0] * 10
    assert sent_at[10:] == pytest.approx([0.1 * k for k in range(1, 16)], abs=1e-6)


def test_limiter_tpm_paces_by_tokens(monkeypatch):
    clock = FakeClock().install(monkeypatch)

    async def go():
        limiter = RateLimiter(64, tpm=60_000, clock=clock)  # 1000 tokens per second
        sent_at = []
        for _ in range(4):
            await limiter.acquire(1000)
            sent_at.append(clock.now)
            limiter.release(1000, 1000)
        return sent_at

    # 4000 tokens = 4 s of budget, minus the 1 s burst: two go at once, then one per second
    assert asyncio.run(go()) == pytest.approx([0.0, 0.0, 1.0, 2.0], abs=1e-6)


def test_limiter_tpm_charges_what_was_used(monkeypatch):
    clock = FakeClock().install(monkeypatch)

    async def go():
        limiter = RateLimiter(64, tpm=60_000, clock=clock)
        sent_at = []
        for _ in range(4):
            await limiter.acquire(1000)
            sent_at.append(clock.now)
            limiter.release(1000, 250)  # the server's usage: a quarter of the estimate
        return sent_at

    assert asyncio.run(go()) == [0.0, 0.0, 0.0, 0.0]  # 4 x 250 tokens fit the one-second burst


def test_limiter_halves_window_on_429_once_per_burst_and_grows_back():
    async def go():
        limiter = RateLimiter(16, cooldown=10.0)
        for _ in range(3):
            await limiter.acquire(1)
        for _ in range(3):  # a burst of three 429s counts once
            limiter.release(1, None, rate_limited=True)
        assert limiter.window == 8 and limiter.rate_limited == 3
        for _ in range(200):
            await limiter.acquire(1)
            limiter.release(1, 1)
        return limiter.window

    assert asyncio.run(go()) == 16


def test_limiter_retry_after_pauses_everyone(monkeypatch):
    clock = FakeClock().install(monkeypatch)

    async def go():
        limiter = RateLimiter(8, clock=clock)
        await limiter.acquire(1)
        limiter.release(1, None, rate_limited=True, retry_after=0.6)
        sent_at = []

        async def one():
            await limiter.acquire(1)
            sent_at.append(clock.now)

        await asyncio.gather(*(one() for _ in range(3)))
        return sent_at

    assert asyncio.run(go()) == pytest.approx([0.6] * 3)  # none goes before the pause ends


def test_limiter_429_narrows_the_window_but_pauses_no_one_without_retry_after():
    """A 429 without Retry-After halves the window; the others go on at once within it."""
    async def go():
        limiter = RateLimiter(8)
        await limiter.acquire(1)
        limiter.release(1, None, rate_limited=True)
        assert limiter.window == 4
        waiting = [asyncio.ensure_future(limiter.acquire(1)) for _ in range(5)]
        await asyncio.sleep(0)
        await asyncio.sleep(0)
        states = [w.done() for w in waiting]
        limiter.release(1, 1)
        await asyncio.gather(*waiting)
        return states

    assert asyncio.run(go()) == [True] * 4 + [False]  # four go at once, the fifth waits for a slot, not a clock


def test_limiter_window_blocks_until_release():
    async def go():
        limiter = RateLimiter(2)
        await limiter.acquire(1)
        await limiter.acquire(1)
        third = asyncio.ensure_future(limiter.acquire(1))
        await asyncio.sleep(0.05)
        blocked = not third.done()
        limiter.release(1, 1)
        await asyncio.wait_for(third, 1)
        return blocked

    assert asyncio.run(go())


def test_parse_retry_after_forms():
    assert parse_retry_after({"retry-after": "2"}) == 2.0
    assert parse_retry_after({"retry-after": "0.25"}) == 0.25
    assert parse_retry_after({"retry-after-ms": "1500", "retry-after": "9"}) == 1.5
    assert parse_retry_after({}) is None
    future = time.strftime("%a, %d %b %Y %H:%M:%S GMT", time.gmtime(time.time() + 30))
    assert 25 <= parse_retry_after({"retry-after": future}) <= 31


# ------------------------------------------------------------------------------------ selection, names


def test_stratified_limit_spreads_over_domains_and_subcategories():
    items = [{"id": f"{d}.{s}.{i}", "domain": d, "sub": s} for d in "ABCD" for s in ("x", "y") for i in range(5)]
    chosen = stratified(items, 9, stratum=lambda q: q["domain"], substratum=lambda q: q["sub"])
    by_domain = {d: [q for q in chosen if q["domain"] == d] for d in "ABCD"}
    assert sorted(len(v) for v in by_domain.values()) == [2, 2, 2, 3]
    assert all({q["sub"] for q in v} == {"x", "y"} for v in by_domain.values())
    # deterministic, and a larger limit extends a smaller one's choice within each domain
    assert stratified(items, 9, stratum=lambda q: q["domain"], substratum=lambda q: q["sub"]) == chosen
    bigger = stratified(items, 17, stratum=lambda q: q["domain"], substratum=lambda q: q["sub"])
    assert {q["id"] for q in chosen} <= {q["id"] for q in bigger}


def test_stratified_short_stratum_gives_its_share_to_the_others():
    items = [{"id": f"A{i}", "d": "A"} for i in range(2)] + [{"id": f"B{i}", "d": "B"} for i in range(10)]
    chosen = stratified(items, 8, stratum=lambda q: q["d"])
    assert len(chosen) == 8 and sum(q["d"] == "A" for q in chosen) == 2
    with pytest.raises(PlanError, match="--limit must be at least 1"):
        stratified(items, 0, stratum=lambda q: q["d"])


@pytest.mark.parametrize("model, slug", [
    ("gpt-4o-mini", "gpt_4o_mini"),
    ("meta-llama/Llama-3.1-8B-Instruct", "meta_llama_llama_3_1_8b_instruct"),
    ("qwen2.5:7b", "qwen2_5_7b"),
])
def test_model_slug(model, slug):
    from mirror_hf.upstream import model_split

    assert model_slug(model) == slug
    assert model_split(model) == slug  # the imported twin lands in the same split


def test_split_names_outside_word_characters_are_refused():
    assert check_split("my_model_2") == "my_model_2"
    for bad in ("dev-small", "a b", "modèle", ""):
        with pytest.raises(RunError, match=r"\\w\+"):
            check_split(bad)
    with pytest.raises(RunError, match="--split"):
        model_slug("////")


def test_public_url_drops_credentials_and_query():
    assert public_url("https://user:pw@api.example.com:8443/v1/?key=abc") == "https://api.example.com:8443/v1"


# ------------------------------------------------------------------------------------ client vs scripted server


def _send_one(url: str, *, policy: RetryPolicy, content: str = "q"):
    async def go():
        limiter = RateLimiter(4)
        client = ChatClient(url, "sk-unit-secret", concurrency=4, policy=policy, limiter=limiter, seed=0)
        try:
            request = ChatRequest("m", url, ({"role": "user", "content": content},), Generation(max_tokens=16))
            t0 = time.monotonic()
            outcome = await client.send(request)
            return outcome, time.monotonic() - t0, limiter
        finally:
            await client.close()

    return asyncio.run(go())


def test_permanent_error_is_not_retried():
    with openai_server({"400": 1.0}) as url:
        outcome, _, _ = _send_one(url, policy=RetryPolicy(max_attempts=5, backoff_base=0.01))
        assert server_stats(url)["requests"] == 1
    assert not outcome.ok and outcome.error_kind == "permanent" and outcome.attempts == 1
    assert outcome.error.startswith("HTTP 400")


@pytest.mark.parametrize("kind", ["500", "malformed", "slow"])
def test_transient_errors_are_retried_until_success(kind):
    with openai_server({kind: 1.0}, max_transient=2, slow_s=2.0) as url:
        outcome, _, _ = _send_one(url, policy=RetryPolicy(max_attempts=4, backoff_base=0.01, timeout=0.5))
        assert server_stats(url)[kind] == 2
    assert outcome.ok and outcome.attempts == 3 and outcome.text.startswith("ANSWER:")


def test_retries_are_bounded():
    with openai_server({"500": 1.0}, max_transient=100) as url:
        outcome, _, _ = _send_one(url, policy=RetryPolicy(max_attempts=3, backoff_base=0.01))
        assert server_stats(url)["requests"] == 3
    assert not outcome.ok and outcome.error_kind == "transient" and outcome.attempts == 3


def test_429_retry_after_is_honoured_and_shrinks_the_window(monkeypatch):
    real_sleep, asked = asyncio.sleep, []

    async def recording_sleep(delay, *args, **kwargs):
        asked.append(delay)
        await real_sleep(delay, *args, **kwargs)

    monkeypatch.setattr("mirror_hf.runner.client.asyncio.sleep", recording_sleep)
    with openai_server({"429": 1.0}, max_transient=1, retry_after="1") as url:
        outcome, _, limiter = _send_one(url, policy=RetryPolicy(max_attempts=3, backoff_base=0.001))
    assert outcome.ok and outcome.attempts == 2
    assert 1.0 in asked  # waited the server's Retry-After (1 s), not the 1 ms backoff
    assert limiter.rate_limited == 1 and limiter.window < 4


def test_empty_and_length_answers_are_recorded_not_retried():
    with openai_server({"empty": 1.0}) as url:
        empty, _, _ = _send_one(url, policy=RetryPolicy(max_attempts=3))
    with openai_server({"length": 1.0}) as url:
        cut, _, _ = _send_one(url, policy=RetryPolicy(max_attempts=3))
    assert empty.ok and empty.text == "" and empty.attempts == 1
    assert cut.ok and cut.truncated and cut.finish_reason == "length" and cut.attempts == 1


def _free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_connection_refused_is_permanent_not_retried_and_redacted():
    outcome, _, _ = _send_one(f"http://127.0.0.1:{_free_port()}/v1", policy=RetryPolicy(max_attempts=4, backoff_base=0.01, timeout=2))
    assert not outcome.ok and outcome.error_kind == "permanent" and outcome.attempts == 1
    assert "ConnectionRefusedError" in outcome.error and "sk-unit-secret" not in outcome.error


def test_consecutive_unreachable_requests_stop_the_run():
    from mirror_hf.runner.client import FAIL_FAST, EndpointDown

    url = f"http://127.0.0.1:{_free_port()}/v1"

    async def go():
        client = ChatClient(url, "sk-unit-secret", concurrency=1, policy=RetryPolicy(max_attempts=3, timeout=2), limiter=RateLimiter(1))
        outcomes = []
        try:
            for i in range(FAIL_FAST + 3):
                request = ChatRequest("m", url, ({"role": "user", "content": f"q{i}"},), Generation(max_tokens=4))
                outcomes.append(await client.send(request))
        except EndpointDown as exc:
            return outcomes, str(exc)
        finally:
            await client.close()
        return outcomes, None

    outcomes, stopped = asyncio.run(go())
    assert len(outcomes) == FAIL_FAST - 1 and all(o.error_kind == "permanent" for o in outcomes)
    assert stopped and f"{FAIL_FAST} requests in a row could not reach the endpoint" in stopped and "sk-unit-secret" not in stopped


def test_retry_after_beyond_the_cap_fails_the_attempt_at_once():
    with openai_server({"429": 1.0}, max_transient=5, retry_after="86400") as url:
        outcome, _, limiter = _send_one(url, policy=RetryPolicy(max_attempts=6, backoff_base=0.001, max_retry_wait=2))
        assert server_stats(url)["requests"] == 1
    assert not outcome.ok and outcome.attempts == 1 and outcome.error_kind == "transient"
    assert "Retry-After 86400 s is longer than --max-retry-wait 2 s" in outcome.error
    assert limiter.rate_limited == 1 and limiter.pause_until == 0.0  # a day-long wait pauses no one


def test_redact_blanks_secrets_userinfo_and_query_values():
    from mirror_hf.runner.secrets import redact

    text = ("NonHttpUrlClientError: ftp://user:hunter2pw@host/v1/chat and http://h:1/v1/?api_key=sk-abcdef&x=1chat/completions; "
            "key sk-live-12345 here")
    out = redact(text, ["sk-live-12345"])
    assert "hunter2pw" not in out and "sk-abcdef" not in out and "sk-live-12345" not in out
    assert "ftp://***@host/v1/chat" in out and "?api_key=***&x=***" in out
    assert redact(None) is None and redact("plain text") == "plain text"
