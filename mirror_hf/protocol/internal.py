"""Two Exp1 channels a model cannot misreport: agreement across samples (`consistency`) and token
probabilities (`logprob`), read beside the five behavioural channels (docs/protocol.md, "Internal
signals").

`consistency` sends the natural prompt k times at a sampling temperature (one request with `n` where
the endpoint honours it, else k requests with seeds s, s+1, ...); every sample is parsed as a
natural response, the answers are grouped by the grader's own equivalence (`same_answer`: "12" and
"12.0", "Paris" and "paris" agree), and the confidence is the modal answer's share of the k
samples; the modal answer is the one graded. `logprob` sends the natural request with `logprobs` on:
for an item shown with choices, the option letters' probabilities at the answer position
(renormalised over the options, the mass outside them recorded) and confidence = the chosen option's;
otherwise the mean and sum of the answer tokens' log-probabilities and confidence = exp(mean).
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence

from mirror_hf.protocol.exp1 import Channel, Reading, Signal, build_natural, parse_natural, register_channel
from mirror_hf.protocol.matching import _ANSWER_IS, _is_long, extract_final_answer, match, read_letter, resolve_choice
from mirror_hf.records import CHOICE_LETTERS, Question
from mirror_hf.vocabulary import Matcher
from mirror_hf.vocabulary import Matcher as Rules  # a parser's rules are the matcher's words

DEFAULT_SAMPLES = 5
DEFAULT_SAMPLE_TEMPERATURE = 0.7
TOP_LOGPROBS = 10  # alternatives per token asked for (OpenAI allows 0-20)


# --------------------------------------------------------------------------------------------
# Agreement under the grader's equivalence
# --------------------------------------------------------------------------------------------


def answer_form(answer: str, question: Question) -> str:
    """The short answer a parsed answer states, as the grader reads it: the final answer found in
    free text, and a choice letter as its option's text."""
    text = str(answer).strip()
    forms = (*question.choices, question.answer, *question.aliases)
    if _is_long(text) or _ANSWER_IS.search(text):  # free text, or "The answer is C) 808." as a whole response
        text = extract_final_answer(text, question.answer_type, forms) or text
    chosen = resolve_choice(text, question.choices) if question.choices else None
    return chosen or text


def same_answer(a: str, b: str, question: Question, matcher: Matcher = "strict") -> bool:
    """Whether two samples' answers agree: each graded against the other's stated form by the
    run's matcher (either way round, as the grader is not symmetric in what it extracts)."""
    fa, fb = answer_form(a, question), answer_form(b, question)  # never None: the text itself at worst
    choices, kind = question.choices, question.answer_type
    return bool(match(a, fb, kind, (), choices, matcher=matcher) or match(b, fa, kind, (), choices, matcher=matcher))


def answer_classes(answers: Sequence[str | None], question: Question, matcher: Matcher = "strict") -> list[list[int]]:
    """The samples' indices grouped by agreeing answers, in order of first appearance (samples with
    no answer join no group)."""
    classes: list[list[int]] = []
    for i, answer in enumerate(answers):
        if answer is None or not str(answer).strip():
            continue
        for group in classes:
            if same_answer(answer, answers[group[0]] or "", question, matcher):  # a group's first has an answer
                group.append(i)
                break
        else:
            classes.append([i])
    return classes


def agreement(answers: Sequence[str | None], question: Question, matcher: Matcher = "strict") -> dict:
    """Modal share (the largest group's size / number of samples), the entropy of the answer
    distribution over the answered samples (nats) and the modal sample's index (the earliest group
    among equally large ones); None values when no sample has an answer."""
    classes = answer_classes(answers, question, matcher)
    if not classes:
        return {"sample_agreement": None, "answer_entropy": None, "modal": None, "classes": 0}
    answered = sum(len(c) for c in classes)
    modal = max(classes, key=len)  # max keeps the first of equal groups
    entropy = -sum(len(c) / answered * math.log(len(c) / answered) for c in classes)
    return {"sample_agreement": len(modal) / len(answers), "answer_entropy": entropy + 0.0, "modal": modal[0],
            "classes": len(classes)}


# --------------------------------------------------------------------------------------------
# consistency
# --------------------------------------------------------------------------------------------


def sample_texts(outcomes: Sequence, k: int) -> list[str]:
    """The k samples: the first response's choices when it carried several (n honoured), else one
    text per request."""
    first = outcomes[0]
    texts = list(first.samples) if first.samples else [first.text or ""]
    texts.extend(o.text or "" for o in outcomes[1:])
    return texts[:k]


def requested_samples(body: Sequence) -> int:
    return int(dict(body).get("n") or 1)


def next_sample(body: Sequence, outcomes: Sequence) -> int | None:
    """One more request while fewer than k samples are in (the endpoint ignored `n`, as the
    response's choices count shows): the natural prompt again, its seed moved by this offset."""
    k = requested_samples(body)
    if len(sample_texts(outcomes, k)) >= k:
        return None
    return len(outcomes)


def read_consistency(outcomes: Sequence, question: Question, *, body: Sequence, rules: Rules = "strict") -> dict:
    k = requested_samples(body)
    texts = sample_texts(outcomes, k)
    parses = [parse_natural(t, rules=rules) for t in texts]
    answers = [p["answer"] for p in parses]
    agreed = agreement(answers, question, "upstream" if rules == "upstream" else "strict")
    modal = agreed["modal"]
    out = dict(parses[modal if modal is not None else 0])
    out.update(channel="consistency", samples=texts, sample_answers=answers, sample_count=len(texts),
               sample_agreement=agreed["sample_agreement"], answer_entropy=agreed["answer_entropy"])
    out["hedging_count"] = out["caveat_count"] = out["response_length"] = None  # natural's signal is not this channel's
    out["confidence"] = CONSISTENCY.confidence.of(out)
    out["parse_success"] = modal is not None and len(texts) == k
    return out


def parse_consistency(text: str | None, *, reasoning_content: str | None = None, finish_reason: str | None = None,
                      rules: Rules = "strict") -> dict:
    """A single text read as a natural response (the channel's records are built by `read_consistency`)."""
    out = parse_natural(text, reasoning_content=reasoning_content, finish_reason=finish_reason, rules=rules)
    out.update(channel="consistency", confidence=None, hedging_count=None, caveat_count=None, response_length=None)
    return out


# --------------------------------------------------------------------------------------------
# logprob
# --------------------------------------------------------------------------------------------

_LETTER_TOKEN = re.compile(r"^[\s(*\[]*([A-Da-d])[\s).:*\]]*$")


def _letter_of(token: str) -> str | None:
    m = _LETTER_TOKEN.match(token)
    return m.group(1).upper() if m else None


def chosen_letter(answer: str | None, question: Question) -> str | None:
    """The option letter the graded answer designates (None: no choices, or no option named)."""
    if answer is None or not question.choices:
        return None
    form = answer_form(answer, question)
    if form in question.choices:
        return CHOICE_LETTERS[list(question.choices).index(form)]
    letter = read_letter(form)
    return letter[0] if letter else None


def option_probabilities(entry: Sequence, letters: Sequence[str]) -> tuple[list[float], float] | None:
    """At one token position: each option letter's probability (its spellings " B", "B", "(B"
    summed over the sampled token and its alternatives), renormalised over the options, and the
    share of probability mass that fell outside them. None when no option letter is among them."""
    token, logprob, top = entry
    seen: dict[str, float] = {}
    for alt, lp in [*top, [token, logprob]]:
        if lp is not None and alt not in seen:
            seen[alt] = math.exp(lp)
    mass = {letter: 0.0 for letter in letters}
    for alt, p in seen.items():
        letter = _letter_of(alt)
        if letter in mass:
            mass[letter] += p
    inside = sum(mass.values())
    if inside <= 0:
        return None
    return [mass[letter] / inside for letter in letters], max(0.0, 1.0 - inside)


def _answer_span(tokens: Sequence[str], form: str) -> list[int]:
    """Indices of the tokens that overlap the last occurrence of the answer's text in the response."""
    text = "".join(tokens)
    at = text.lower().rfind(form.lower()) if form else -1
    if at < 0:
        return []
    end, pos, out = at + len(form), 0, []
    for i, tok in enumerate(tokens):
        if pos < end and pos + len(tok) > at:
            out.append(i)
        pos += len(tok)
    return out


def read_logprob(outcomes: Sequence, question: Question, *, body: Sequence, rules: Rules = "strict") -> dict:
    outcome = outcomes[-1]
    out = parse_natural(outcome.text, reasoning_content=outcome.reasoning, finish_reason=outcome.finish_reason, rules=rules)
    out.update(channel="logprob", hedging_count=None, caveat_count=None, confidence=None,
               logprobs_available=outcome.logprobs is not None, option_probs=None, option_mass_outside=None,
               token_logprob_mean=None, token_logprob_sum=None, token_probability=None, token_signal=None)
    lps = outcome.logprobs
    if lps is None or out["answer"] is None:
        return out
    letters = CHOICE_LETTERS[: len(question.choices)]
    letter = chosen_letter(out["answer"], question)
    if letter is not None:
        for entry in lps:  # the answer position: the first token that is the chosen option's letter
            if _letter_of(entry[0]) == letter:
                probs = option_probabilities(entry, letters)
                if probs is not None:
                    out.update(option_probs=probs[0], option_mass_outside=probs[1], token_signal="options",
                               token_probability=probs[0][letters.index(letter)])
                break
    tokens = [e[0] for e in lps]
    forms = (*question.choices, question.answer, *question.aliases)
    stated = extract_final_answer(str(out["answer"]), question.answer_type, forms) or answer_form(out["answer"], question)
    stated = stated.strip()
    span = _answer_span(tokens, stated.rstrip(".!?,;:") or stated)  # a sentence's full stop is not the answer
    kind = "answer_tokens"
    if not span:
        span, kind = list(range(len(tokens))), "response_tokens"
    values = [lps[i][1] for i in span if lps[i][1] is not None]
    if values:
        out["token_logprob_sum"] = float(sum(values))
        out["token_logprob_mean"] = float(sum(values) / len(values))
        if out["token_probability"] is None:
            out.update(token_probability=math.exp(out["token_logprob_mean"]), token_signal=kind)
    out["confidence"] = LOGPROB.confidence.of(out)
    return out


def parse_logprob(text: str | None, *, reasoning_content: str | None = None, finish_reason: str | None = None,
                      rules: Rules = "strict") -> dict:
    """A text without its token probabilities: a natural response, no confidence."""
    out = parse_natural(text, reasoning_content=reasoning_content, finish_reason=finish_reason, rules=rules)
    out.update(channel="logprob", confidence=None, hedging_count=None, caveat_count=None, logprobs_available=False)
    return out


CONSISTENCY = Channel(
    "consistency", build_natural, parse_consistency,
    Signal("sample_agreement", lambda x: x, "share of the k samples giving the modal answer"),
    reads=Reading(read_consistency, next_sample, extra_if_n_ignored=lambda body: requested_samples(body) - 1),
)
LOGPROB = Channel(
    "logprob", build_natural, parse_logprob,
    Signal("token_probability", lambda x: x, "chosen option's probability (renormalised), else exp(mean answer-token log-prob)"),
    reads=Reading(read_logprob),
)
for _c in (CONSISTENCY, LOGPROB):
    register_channel(_c)
del _c


def job_settings(name: str, samples: int, temperature: float) -> tuple[tuple, float | None]:
    """(body fields, temperature) of an internal channel's first request; ((), None) for any other."""
    if name == "consistency":
        return (("n", samples),), temperature
    if name == "logprob":
        return (("logprobs", True), ("top_logprobs", TOP_LOGPROBS)), None
    return (), None
