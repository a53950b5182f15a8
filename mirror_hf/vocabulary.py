"""The option vocabularies a run is planned with: one `Literal` per closed set of words, and its tuple.

Data only (no import beyond `typing` and the error base), so the runner's option records (`runner.plan.PlanOptions`),
the protocol's parsers and graders and the CLI name the same words from one place; each tuple is
derived from its `Literal`, never written a second time. `one_of` turns a text (a CLI flag's value)
into the typed word, or refuses it in one line naming the flag.
"""

from __future__ import annotations

from typing import Literal, TypeVar, get_args

from mirror_hf.errors import MirrorValueError

#: parsing and answer matching: ours (strict) or the authors' (upstream); parsers call it `rules`
Matcher = Literal["strict", "upstream"]
MATCHERS: tuple[Matcher, ...] = get_args(Matcher)

#: how an item's answer is asked for: four options (the paper's datasheet) or none (the authors' bank)
AnswerFormat = Literal["choices", "open"]
ANSWER_FORMATS: tuple[AnswerFormat, ...] = get_args(AnswerFormat)

#: Exp9 C4: which components are routed away from the model (protocol.exp9.RouteRule)
RouteRuleKind = Literal["weak_set", "accuracy_below"]
ROUTE_RULES: tuple[RouteRuleKind, ...] = get_args(RouteRuleKind)

#: Exp9: the rule set that turns a response's words into decisions (protocol.exp9.decisions_of)
DecisionRules = Literal["paper", "tags", "upstream"]
DECISION_RULES: tuple[DecisionRules, ...] = get_args(DecisionRules)

#: Exp5: the attack prefixes' wording, the authors' code (upstream) or the paper's descriptions
AttackWording = Literal["upstream", "paper"]
ATTACK_WORDINGS: tuple[AttackWording, ...] = get_args(AttackWording)

#: Exp9 C4's external resolver: always right ("oracle", the paper) or right with probability q in [0, 1]
Resolver = Literal["oracle"] | float

_Word = TypeVar("_Word", bound=str)


class VocabularyError(MirrorValueError):
    """A word outside its vocabulary (the message names the flag, the word and the choices)."""


def spelled(choices: tuple[str, ...]) -> str:
    """`a, b or c`: how a refusal lists the choices."""
    return choices[0] if len(choices) == 1 else f"{', '.join(choices[:-1])} or {choices[-1]}"


def one_of(flag: str, value: object, choices: tuple[_Word, ...]) -> _Word:
    """`value` as the typed word of `choices`, or `VocabularyError` naming `flag`."""
    for word in choices:
        if value == word:
            return word
    raise VocabularyError(f"{flag} must be {spelled(choices)}, got {value!r}")


def parse_resolver(text: str | float, flag: str = "--resolver-accuracy") -> Resolver:
    """A resolver from its CLI text ("oracle" or a number in [0, 1]), or `VocabularyError` naming `flag`.
    A number given as a number passes the same check (library callers)."""
    if text == "oracle":
        return "oracle"
    q = -1.0
    if not isinstance(text, bool):
        try:
            q = float(text)
        except (TypeError, ValueError):
            pass
    if not 0 <= q <= 1:  # NaN fails too
        raise VocabularyError(f"{flag} must be 'oracle' or a number in [0, 1], got {text!r}")
    return q
