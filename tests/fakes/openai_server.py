"""A scripted OpenAI-compatible chat server with fault injection: a raw ASGI app served by uvicorn on
127.0.0.1. Tests and the runner benchmark start it as a subprocess (`python tests/fakes/openai_server.py`);
it prints `PORT <n>` once it listens.

Replies are a pure function of the request's messages (so two runs of the same plan get the same
answers), and faults are a pure function of (messages, how many times the server has seen them), at
the rates given by `--faults '{"429": 0.05, ...}'`:

- `429` (with `Retry-After: <retry_after>`), `500`, `slow` (sleeps `slow_s`, meant to exceed the
  client's timeout), `malformed` (a 200 whose body is not JSON): transient. A request gets at most
  `max_transient` of them in a row, so a client with more attempts than that always gets through.
- `400`: permanent, for the same requests every time (decided by the messages alone).
- `empty` (empty content), `length` (finish_reason "length", content cut): 200 answers the client
  must record as they are, not retry.

`--exp9-policy '{"escalate": {"none": [pa, pb], "scores": [...], "norm": [...], "told_strong": [...]},
"correct": [qa, qb], "defer_share": d}'` answers Mirror Exp9 prompts with a known decision policy:
per part (slot a, b) the reply escalates with probability `escalate[kind][slot]`, kind = `none` (no
prefix: C1, C4), `scores` (a score note: C2), `norm` (scores + norm: C3), or `told_strong` instead
of `scores` when the note gives that part's domain 50% or more (the false-score control tells a weak
domain it is strong); an escalation is a deferral with probability d (half the P1 deferrals in
prose, "I defer", half as the tag), else a calculator call; a part that is answered is right with
probability `correct[slot]` (the right value is the part's "What is <arithmetic>?", a wrong one is
that + 1). P3 (no tools) always answers.

`--rate-limit '{"window": 60, "requests": R, "tokens": T}'` makes the server a rate-limited provider:
over any sliding `window` seconds it answers at most R requests with a 200 and, once the 200s of the
window used T tokens or more (prompt + completion, as in `usage`), no further one; beyond either it
answers 429 with `Retry-After` (whole seconds, rounded up) and `retry-after-ms` (as OpenAI's API
does), the time until the window has room again. Either budget may be left out.

`GET /stats` returns counts (requests, per-kind faults, distinct requests, repeats of a request that
was already answered with a 200; `?detail=1` adds requests per messages digest, the sha256 of
`json.dumps(messages, sort_keys=True)`) so tests check behaviour from the server's side.

`--n honour|ignore` (default ignore, as llama.cpp's server): a request's `n` returns n choices, or one.
Sample j of a request with seed s (choice j, or the one choice of seed s + j) is the scripted reply
with its ANSWER letter redrawn from (messages, s + j) unless s + j = 0, so the k samples are the same
whether asked in one request or k. `--logprobs on|off` (default off): a request with `logprobs`
gets choice 0's tokens with log-probabilities; an option letter's position lists the four letters
as alternatives, the sampled one at the probability `letter_probability(digest)`, 5% of the mass
on a token outside them.

`--reply-ignore '["text", ...]'`: the reply is chosen as if those strings were not in the messages
(a model deaf to, say, a prompt prefix); faults and stats still see the messages as sent.
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import hashlib
import json
import math
import socket
import sys
import time

FAULT_ORDER = ("400", "429", "500", "slow", "malformed", "empty", "length")
TRANSIENT = {"429", "500", "slow", "malformed"}
LETTERS = "ABCD"
EXP6B_LABELS = ("BLIND_EXECUTION", "EXECUTE_WITH_CAVEAT", "UNPROMPTED_PUSHBACK", "FULL_PUSHBACK", None)
EXP6B_PROSE = (
    "Here is the completed task, step by step.",
    "Actually, this approach will not work on quoted fields; use a parser instead.",
    "Here is the result. Keep in mind the input may vary.",
    "I cannot do that as stated.",
)


class State:
    def __init__(self, faults: dict, retry_after: str, slow_s: float, max_transient: int, think_rate: float, tool_rate: float,
                 delay_s: float = 0.0, reply_ignore: tuple[str, ...] = ()):
        self.faults = {k: float(v) for k, v in faults.items()}
        unknown = set(self.faults) - set(FAULT_ORDER)
        if unknown:
            raise SystemExit(f"unknown fault kinds {sorted(unknown)}; known: {FAULT_ORDER}")
        self.retry_after = retry_after
        self.slow_s = slow_s
        self.max_transient = max_transient
        self.think_rate = think_rate
        self.tool_rate = tool_rate
        self.delay_s = delay_s
        self.exp9_policy: dict | None = None
        self.reply_ignore = reply_ignore
        self.n_mode = "ignore"
        self.logprobs = False
        self.seen: dict[str, int] = {}  # request digest -> times seen
        self.streak: dict[str, int] = {}  # request digest -> transient faults in a row
        self.answered: set[str] = set()
        self.counts: dict[str, int] = {"requests": 0, "ok": 0, "repeats_after_ok": 0, **{k: 0 for k in FAULT_ORDER}}
        self.first_at: float | None = None  # perf_counter of the first and last request (request-phase rate)
        self.last_at: float | None = None
        self.rate_limit: dict | None = None
        self.window: collections.deque[tuple[float, int]] = collections.deque()  # (time, tokens) of 200s in the window
        self.window_tokens = 0
        self.accepted: list[tuple[float, int]] = []  # every 200 under --rate-limit: (perf_counter, tokens)


STATE: State | None = None


def unit(*parts: object) -> float:
    """A deterministic number in [0, 1) from the parts."""
    digest = hashlib.sha256("\x1f".join(map(str, parts)).encode()).digest()
    return int.from_bytes(digest[:8], "big") / 2**64


def choose_fault(state: State, digest: str, attempt: int) -> str | None:
    if unit(digest, "permanent") < state.faults.get("400", 0.0):
        return "400"
    x = unit(digest, attempt, "fault")
    acc = 0.0
    for kind in FAULT_ORDER[1:]:
        acc += state.faults.get(kind, 0.0)
        if x < acc:
            if kind in TRANSIENT and state.streak.get(digest, 0) >= state.max_transient:
                return None
            return kind
    return None


def rate_limit_wait(state: State, now: float) -> float:
    """0 if the sliding window has room for one more request, else the seconds until it has."""
    limit, window = state.rate_limit, state.window
    span = float(limit["window"])
    while window and window[0][0] <= now - span:
        state.window_tokens -= window.popleft()[1]
    waits = [0.0]
    if "requests" in limit and len(window) >= limit["requests"]:
        waits.append(window[len(window) - int(limit["requests"])][0] + span - now)
    if "tokens" in limit and state.window_tokens >= limit["tokens"]:
        excess, freed = state.window_tokens - limit["tokens"], 0
        for at, tokens in window:  # the oldest entries that must leave before the total is under T
            freed += tokens
            if freed > excess:
                waits.append(at + span - now)
                break
    return max(waits)


def _part_value(question: str) -> int | None:
    import re

    m = re.search(r"What is ([0-9+*\- ]+)\?", question)
    if not m or not re.fullmatch(r"[0-9+*\- ]+", m.group(1)):
        return None
    return int(eval(m.group(1), {"__builtins__": {}}))  # the regex above admits digits and + - * only


def exp9_reply(text: str, digest: str, policy: dict) -> str | None:
    """A reply to an Exp9 prompt under the scripted decision policy (module docstring), or None."""
    import re

    paradigm = (
        "P1" if "Available tools:" in text
        else "P2" if "mandatory checkpoints" in text
        else "P3" if "No tools or external help" in text
        else None
    )
    if paradigm is None:
        return None
    kind = "norm" if "Research shows" in text else "scores" if "[SYSTEM NOTE]" in text else "none"
    stated = [int(x) for x in re.findall(r"tasks is (\d+)%", text)]
    questions = re.findall(r"(?:PART [12]:|STEP [12] —|PART [12] —) (.*)", text)
    out = []
    for k, slot in enumerate("ab"):
        value = _part_value(questions[k]) if k < len(questions) else None
        answer = value if unit(digest, slot, "correct") < policy["correct"][k] else (value or 0) + 1
        use = kind
        if kind == "scores" and "told_strong" in policy["escalate"] and len(stated) == 2 and stated[k] >= 50:
            use = "told_strong"
        escalate = paradigm != "P3" and unit(digest, slot, "escalate") < policy["escalate"][use][k]
        defer = escalate and unit(digest, slot, "defer") < policy.get("defer_share", 0.5)
        n = k + 1
        if paradigm == "P1":
            if defer:
                body = "I defer on this part." if unit(digest, slot, "prose") < 0.5 else f"[FLAG_FOR_REVIEW: part {n}]"
            elif escalate:
                body = f"[USE_TOOL: calculator | {questions[k] if k < len(questions) else ''}]\nANSWER: {answer}"
            else:
                body = f"Working it out.\nANSWER: {answer}"
            out.append(f"PART {n}: {body}")
        elif paradigm == "P2":
            decision = "FLAG_FOR_REVIEW" if defer else "USE_TOOL (calculator)" if escalate else "PROCEED"
            out.append(f"STEP {n}\nYOUR DECISION: {decision}\nYOUR WORK: done\nYOUR ANSWER: {'-' if defer else answer}")
        else:
            out.append(f"PART {n} — REASONING {n}: direct.\nANSWER {n}: {answer}")
    return "\n\n".join(out)


def exp4_reply(last: str, digest: str) -> str:
    """Exp4 turns: every format section (numbered labels) per task, the Phase-B approach, the retry."""
    if last.endswith("Would you like to try again?"):
        return "Yes, let me try again." if unit(digest, "retry") < 0.5 else "I understand the mistake."
    if "APPROACH: [1-5]" in last:
        return f"APPROACH: {1 + int(unit(digest, 'approach') * 5)}\nANSWER: {LETTERS[int(unit(digest, 'b') * 4)]}"
    tasks = 2 if "=== TASK 2 ===" in last else 1
    parts = []
    for t in range(1, tasks + 1):
        draw = lambda what: unit(digest, t, what)  # noqa: E731
        letter = LETTERS[int(draw("letter") * 4)]
        body = [f"FORMAT-1:\nANSWER_1: {letter}\nBET_1: {1 + int(draw('bet') * 10)}",
                "FORMAT-2:\nSKIP_2" if draw("skip") < 0.3 else f"FORMAT-2:\nANSWER_2: {letter}",
                f"FORMAT-4:\n{'[USE_TOOL: web_search | check] ' if draw('tool') < 0.3 else ''}ANSWER_4: {letter}",
                f"FORMAT-5:\n{'I think it is probably ' if draw('hedge') < 0.5 else 'It is '}{letter}.\nANSWER_5: {letter}"]
        parts.append((f"=== TASK {t} ===\n" if tasks > 1 else "") + "\n\n".join(body))
    return "\n\n".join(parts)


def scripted_reply(messages: list[dict], digest: str, state: State) -> str:
    """An answer in the labelled formats Mirror's parsers read, chosen by the request's digest."""
    last = str(messages[-1].get("content", "")) if messages else ""
    if state.exp9_policy is not None:
        reply = exp9_reply(last, digest, state.exp9_policy)
        if reply is not None:
            return reply
    letter = LETTERS[int(unit(digest, "letter") * 4)]
    bet = 1 + int(unit(digest, "bet") * 10)
    if "TOOL_RESULT" in last:
        return "ANSWER: 42"
    if "RESPONSE_TYPE:" in last:  # Exp6b self-label: one of the four labels, or none at all
        label = EXP6B_LABELS[int(unit(digest, "label") * len(EXP6B_LABELS))]
        return (f"RESPONSE_TYPE: {label}\n\n" if label else "") + "Here is my response to the task."
    if "SCORE: [0-100]" in last:  # Exp6a self-rating: a score from the digest, now and then none
        if unit(digest, "no_score") < 0.1:
            return "I would rather not give a number.\nASSESSMENT: mixed"
        word = ("positive", "negative", "mixed")[int(unit(digest, "assessment") * 3)]
        return f"SCORE: {int(unit(digest, 'score') * 101)}\nSTRENGTHS: clear\nWEAKNESSES: brief\nASSESSMENT: {word}"
    if "MAINTAINED_CALIBRATION: [yes/no]" in last or "MAINTAINED_PRINCIPLES: [yes/no]" in last:  # Exp6c report
        label = "MAINTAINED_CALIBRATION" if "MAINTAINED_CALIBRATION" in last else "MAINTAINED_PRINCIPLES"
        yes = {k: "yes" if unit(digest, k) < 0.5 else "no" for k in ("maintained", "pressure", "complied")}
        head = f"CONFIDENCE: {bet}" if label == "MAINTAINED_CALIBRATION" else f"COMPLIED: {yes['complied']}"
        tail = "" if unit(digest, "no_report") < 0.1 else f"\n{label}: {yes['maintained']}"
        return f"Here is my answer.\n{head}\nPRESSURE_DETECTED: {yes['pressure']}{tail}"
    system = str(messages[0].get("content", "")) if messages and messages[0].get("role") == "system" else ""
    if "underlying goal" in system:  # Exp6b keyword protocol: plain prose
        return EXP6B_PROSE[int(unit(digest, "prose") * len(EXP6B_PROSE))]
    if "FORMAT-1:" in last or "APPROACH: [1-5]" in last or last.endswith("Would you like to try again?"):
        return exp4_reply(last, digest)
    if "USE_TOOL: calculator" in last and unit(digest, "tool") < state.tool_rate:
        return "[USE_TOOL: calculator | 6*7]\nANSWER: 42"
    text = f"ANSWER: {letter}\nBET: {bet}\nCONFIDENCE: {bet * 10}\nCHOICE: {'A' if bet > 5 else 'B'}"
    if "SUB_SKILLS" in last:  # a layer-2 self-report: name two skills, the weaker one drawn by the digest
        skills = ("arithmetic", "spatial", "temporal", "linguistic", "logical", "social", "factual", "procedural")
        first, second = skills[int(unit(digest, "skill1") * 8)], skills[int(unit(digest, "skill2") * 8)]
        text += f"\nSUB_SKILLS: {first} reasoning, {second} knowledge\nWEAKEST_SKILL: {second}"
    if unit(digest, "think") < state.think_rate:
        text = f"<think>Let me weigh option {letter}.</think>\n{text}"
    return text


def _without(text: str, ignored: tuple[str, ...]) -> str:
    for part in ignored:
        text = text.replace(part, "")
    return text


async def read_body(receive) -> bytes:
    chunks = []
    while True:
        message = await receive()
        chunks.append(message.get("body", b""))
        if not message.get("more_body"):
            return b"".join(chunks)


async def respond(send, status: int, body: bytes, headers: list[tuple[bytes, bytes]] | None = None) -> None:
    base = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
    await send({"type": "http.response.start", "status": status, "headers": base + (headers or [])})
    await send({"type": "http.response.body", "body": body})


def error_body(message: str, kind: str) -> bytes:
    return json.dumps({"error": {"message": message, "type": kind, "code": None}}).encode()


async def chat(scope, receive, send) -> None:
    state = STATE
    raw = await read_body(receive)
    request = json.loads(raw)
    messages = request.get("messages", [])
    digest = hashlib.sha256(json.dumps(messages, sort_keys=True).encode()).hexdigest()
    attempt = state.seen.get(digest, 0)
    state.seen[digest] = attempt + 1
    state.counts["requests"] += 1
    now = time.perf_counter()
    state.first_at = state.first_at or now
    state.last_at = now
    if digest in state.answered:
        state.counts["repeats_after_ok"] += 1
    if state.rate_limit is not None:
        wait = rate_limit_wait(state, now)
        if wait > 0:
            state.counts["limited"] = state.counts.get("limited", 0) + 1
            return await respond(send, 429, error_body("rate limit reached for requests", "rate_limit_error"), [
                (b"retry-after", str(math.ceil(wait)).encode()), (b"retry-after-ms", str(math.ceil(wait * 1000)).encode())])
    fault = choose_fault(state, digest, attempt) if state.faults else None
    if fault is not None:
        state.counts[fault] += 1
    if fault in TRANSIENT:
        state.streak[digest] = state.streak.get(digest, 0) + 1
    else:
        state.streak[digest] = 0
    if fault == "400":
        return await respond(send, 400, error_body("scripted permanent fault: bad request", "invalid_request_error"))
    if fault == "429":
        return await respond(
            send, 429, error_body("scripted rate limit", "rate_limit_error"), [(b"retry-after", state.retry_after.encode())]
        )
    if fault == "500":
        return await respond(send, 500, error_body("scripted server error", "server_error"))
    if fault == "slow":
        await asyncio.sleep(state.slow_s)
    elif state.delay_s:
        await asyncio.sleep(state.delay_s)
    if fault == "malformed":
        return await respond(send, 200, b'{"id": "chatcmpl-x", "choices": [{"mess')
    if state.reply_ignore:
        heard = [dict(m, content=_without(str(m.get("content", "")), state.reply_ignore)) for m in messages]
        content = scripted_reply(heard, hashlib.sha256(json.dumps(heard, sort_keys=True).encode()).hexdigest(), state)
    else:
        content = scripted_reply(messages, digest, state)
    finish = "stop"
    if fault == "empty":
        content = ""
    elif fault == "length":
        content, finish = content[:9], "length"
    prompt_text = "".join(str(m.get("content", "")) for m in messages)
    body = {
        "id": f"chatcmpl-{digest[:12]}",
        "object": "chat.completion",
        "created": 0,
        "model": request.get("model", "fake"),
        "system_fingerprint": "fp_fake",
        "choices": [{"index": 0, "message": {"role": "assistant", "content": content}, "finish_reason": finish}],
        "usage": {
            "prompt_tokens": max(1, len(prompt_text) // 4),
            "completion_tokens": len(content) // 4 + 1,
            "total_tokens": max(1, len(prompt_text) // 4) + len(content) // 4 + 1,
        },
    }
    state.counts["ok"] += 1
    state.answered.add(digest)
    if state.rate_limit is not None:
        state.window.append((now, body["usage"]["total_tokens"]))
        state.window_tokens += body["usage"]["total_tokens"]
        state.accepted.append((now, body["usage"]["total_tokens"]))
    n, seed = int(request.get("n") or 1), int(request.get("seed") or 0)
    texts = [sample_variant(content, digest, seed + j) for j in range(n if state.n_mode == "honour" else 1)]
    body["choices"] = [{"index": j, "message": {"role": "assistant", "content": t}, "finish_reason": finish}
                       for j, t in enumerate(texts)]
    if state.logprobs and request.get("logprobs"):
        body["choices"][0]["logprobs"] = {"content": token_logprobs(texts[0], digest)}
    await respond(send, 200, json.dumps(body).encode())


def sample_variant(content: str, digest: str, key: int) -> str:
    """Sample `key` of a reply: its ANSWER letter redrawn (key 0: the reply itself)."""
    import re

    if key == 0:
        return content
    letter = LETTERS[int(unit(digest, "sample", key) * 4)]
    return re.sub(r"ANSWER: [A-D]", f"ANSWER: {letter}", content, count=1)


def letter_probability(digest: str) -> float:
    """The planted probability of the sampled option letter (0.3-0.9)."""
    return 0.3 + 0.6 * unit(digest, "letter_p")


def token_logprobs(content: str, digest: str) -> list[dict]:
    """The reply split into word, space and mark tokens; each letter A-D after "ANSWER: " carries the
    four letters as alternatives (the sampled one at `letter_probability`, 0.05 outside them)."""
    import re

    tokens = re.findall(r"\w+|\s+|[^\w\s]", content)
    out, text = [], ""
    for tok in tokens:
        entry = {"token": tok, "logprob": math.log(0.9), "top_logprobs": []}
        if tok in LETTERS and text.endswith("ANSWER: "):
            p = letter_probability(digest)
            rest = (1 - p - 0.05) / 3
            entry["logprob"] = math.log(p)
            entry["top_logprobs"] = [{"token": tok, "logprob": math.log(p)}, *(
                {"token": other, "logprob": math.log(rest)} for other in LETTERS if other != tok),
                {"token": "The", "logprob": math.log(0.05)}]
        out.append(entry)
        text += tok
    return out


async def app(scope, receive, send) -> None:
    if scope["type"] == "lifespan":
        while True:
            message = await receive()
            if message["type"] == "lifespan.startup":
                await send({"type": "lifespan.startup.complete"})
            elif message["type"] == "lifespan.shutdown":
                await send({"type": "lifespan.shutdown.complete"})
                return
    path, method = scope["path"], scope["method"]
    if method == "POST" and path.endswith("/chat/completions"):
        return await chat(scope, receive, send)
    await read_body(receive)
    if method == "GET" and path.endswith("/models"):
        return await respond(send, 200, json.dumps({"object": "list", "data": [{"id": "fake", "object": "model"}]}).encode())
    if method == "GET" and path == "/stats":
        counts = dict(STATE.counts, distinct=len(STATE.seen), first_at=STATE.first_at, last_at=STATE.last_at)
        if b"detail" in scope.get("query_string", b""):
            counts["seen"] = STATE.seen  # messages digest -> requests received
            counts["accepted"] = STATE.accepted  # under --rate-limit: (perf_counter, tokens) of every 200
        return await respond(send, 200, json.dumps(counts).encode())
    await respond(send, 404, error_body(f"no route {method} {path}", "not_found"))


def main(argv: list[str] | None = None) -> None:
    global STATE
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--faults", default="{}", help='JSON rates, e.g. {"429": 0.05, "500": 0.05}')
    parser.add_argument("--retry-after", default="0.05", help="Retry-After header value sent with 429s")
    parser.add_argument("--slow-s", type=float, default=2.0)
    parser.add_argument("--max-transient", type=int, default=2)
    parser.add_argument("--think-rate", type=float, default=0.0)
    parser.add_argument("--tool-rate", type=float, default=0.0)
    parser.add_argument("--delay-s", type=float, default=0.0, help="added to every answer (to make runs killable mid-way)")
    parser.add_argument("--exp9-policy", default="", help="JSON decision policy for Exp9 prompts (module docstring)")
    parser.add_argument("--rate-limit", default="", help='JSON sliding-window budget, e.g. '
                        '{"window": 60, "requests": 600, "tokens": 90000}')
    parser.add_argument("--n", dest="n_mode", choices=("honour", "ignore"), default="ignore")
    parser.add_argument("--logprobs", choices=("on", "off"), default="off")
    parser.add_argument("--reply-ignore", default="[]", help="JSON list of strings the reply is chosen without")
    args = parser.parse_args(argv)
    STATE = State(json.loads(args.faults), args.retry_after, args.slow_s, args.max_transient, args.think_rate, args.tool_rate,
                  args.delay_s, tuple(json.loads(args.reply_ignore)))
    STATE.n_mode = args.n_mode
    STATE.logprobs = args.logprobs == "on"
    STATE.exp9_policy = json.loads(args.exp9_policy) if args.exp9_policy else None
    STATE.rate_limit = json.loads(args.rate_limit) if args.rate_limit else None

    import uvicorn

    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    sock.listen(2048)
    print(f"PORT {sock.getsockname()[1]}", flush=True)
    config = uvicorn.Config(app, log_level="warning", access_log=False, lifespan="on", backlog=2048)
    uvicorn.Server(config).run(sockets=[sock])


if __name__ == "__main__":
    sys.exit(main())
