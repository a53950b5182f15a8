"""Linguistic bank: every gold answer re-derived from other sources and rules, on the full default size.

The generator takes word forms from lemminflect and pronunciations from the CMU dictionary; this
file checks them against *different* sources: the `inflect` package (plurals, noun number, verb
agreement, a/an), the `wordfreq` frequency lists (a derived word exists, its rivals do not), and
rule sets and a principal-parts table written here (past tenses, comparison, affix parsing).
Grammar items are checked slot by slot from the choice text, syntax items from the stored tree,
ambiguity items from this file's own reading of the trigger, register items with an independent
formality scorer. Run with `-s` to print sample items.
"""

from __future__ import annotations

import dataclasses
import re
import sys

import pytest
from scipy.stats import binomtest
from wordfreq import zipf_frequency

from mirror_hf.bank import linguistic
from mirror_hf.bank._core import generate_domain, normalise_text
from mirror_hf.records import DIFFICULTIES, canonical_json

SEEDS = (0, 1)
SIZE = 625
SUBCATEGORIES = ("grammar_correction", "syntax_parsing", "morphology", "ambiguity_resolution", "register_formality")


def _load_inflect():
    """inflect 7 wraps its methods with typeguard, whose instrumentation costs seconds at import;
    the type checks are irrelevant to the answers we compare, so import it with them switched off."""
    if "inflect" in sys.modules:
        return sys.modules["inflect"].engine()
    import typeguard

    original = typeguard.typechecked
    typeguard.typechecked = lambda f=None, **kw: f if f is not None else (lambda g: g)
    try:
        import inflect
    finally:
        typeguard.typechecked = original
    return inflect.engine()


INFLECT = _load_inflect()


@pytest.fixture(scope="module")
def banks() -> dict[int, list]:
    return {seed: list(generate_domain(linguistic.DOMAIN, seed, SIZE)) for seed in SEEDS}


def by_sub(questions, sub):
    return [q for q in questions if q.subcategory == sub]


def all_items(banks, sub):
    return [q for seed in SEEDS for q in by_sub(banks[seed], sub)]


def zipf(word: str) -> float:
    return zipf_frequency(word, "en")


# --------------------------------------------------------------------------------------------
# grammar_correction: each slot judged by its own rule, from the choice text
# --------------------------------------------------------------------------------------------

PAST_ADVERB = re.compile(r"^(Yesterday|Last \w+|.* ago|The day before yesterday|In \d{4}|On our last holiday),")
CASES = {"I": "me", "he": "him", "she": "her", "we": "us", "they": "them"}
# principal parts (base: simple past, past participle), typed from a grammar reference
IRREGULAR = {
    "go": ("went", "gone"), "take": ("took", "taken"), "see": ("saw", "seen"), "write": ("wrote", "written"),
    "eat": ("ate", "eaten"), "drive": ("drove", "driven"), "ride": ("rode", "ridden"), "swim": ("swam", "swum"),
    "sing": ("sang", "sung"), "give": ("gave", "given"), "fly": ("flew", "flown"), "draw": ("drew", "drawn"),
    "throw": ("threw", "thrown"), "choose": ("chose", "chosen"), "forget": ("forgot", "forgotten"),
    "speak": ("spoke", "spoken"), "begin": ("began", "begun"), "bring": ("brought", "brought"),
    "buy": ("bought", "bought"), "catch": ("caught", "caught"), "teach": ("taught", "taught"),
    "build": ("built", "built"), "find": ("found", "found"), "sell": ("sold", "sold"), "send": ("sent", "sent"),
    "make": ("made", "made"), "lose": ("lost", "lost"), "meet": ("met", "met"), "spend": ("spent", "spent"),
    "win": ("won", "won"), "feed": ("fed", "fed"), "think": ("thought", "thought"), "drink": ("drank", "drunk"),
    "freeze": ("froze", "frozen"), "steal": ("stole", "stolen"), "sleep": ("slept", "slept"), "keep": ("kept", "kept"),
    "feel": ("felt", "felt"), "sweep": ("swept", "swept"), "fight": ("fought", "fought"), "ring": ("rang", "rung"),
    "lend": ("lent", "lent"), "stride": ("strode", "stridden"), "forsake": ("forsook", "forsaken"),
    "tread": ("trod", "trodden"), "seek": ("sought", "sought"), "weep": ("wept", "wept"), "cling": ("clung", "clung"),
    "sting": ("stung", "stung"), "fling": ("flung", "flung"), "bind": ("bound", "bound"), "slay": ("slew", "slain"),
    "shrink": ("shrank", "shrunk"), "stink": ("stank", "stunk"), "wring": ("wrung", "wrung"), "arise": ("arose", "arisen"),
    "withdraw": ("withdrew", "withdrawn"), "foresee": ("foresaw", "foreseen"), "mislead": ("misled", "misled"),
    "uphold": ("upheld", "upheld"), "befall": ("befell", "befallen"), "smite": ("smote", "smitten"),
    "swear": ("swore", "sworn"), "bleed": ("bled", "bled"), "breed": ("bred", "bred"), "flee": ("fled", "fled"),
    "creep": ("crept", "crept"), "slink": ("slunk", "slunk"), "sling": ("slung", "slung"),
}


def regular_past(verb: str) -> str:
    if verb.endswith("e"):
        return verb + "d"
    if re.search(r"[^aeiou]y$", verb):
        return verb[:-1] + "ied"
    # doubling: one-syllable CVC, or a stressed final syllable (admit, prefer, occur, refer, permit, regret, omit)
    if re.fullmatch(r"[^aeiou]*[aeiou][bdgmnprt]", verb) or verb in {"admit", "prefer", "occur", "refer", "permit",
                                                                      "regret", "omit"}:
        return verb + verb[-1] + "ed"
    return verb + "ed"


def simple_past(verb: str) -> str:
    return IRREGULAR[verb][0] if verb in IRREGULAR else regular_past(verb)


def is_plural_noun(noun: str) -> bool:
    singular = INFLECT.singular_noun(noun)
    return bool(singular) and singular != noun


def slot_ok(slot: dict, word: str, template: str) -> bool:
    kind, options = slot["kind"], slot["options"]
    assert word in options, (word, options)
    if kind == "agreement":
        sing, plur = options
        assert INFLECT.plural_verb(sing) == plur, options  # options are (singular, plural) forms
        return word == (plur if is_plural_noun(slot["subject_head"]) else sing)
    if kind == "article":
        return word == INFLECT.a(slot["next_word"]).split()[0]
    if kind == "fewer_less":
        return word == ("fewer" if is_plural_noun(slot["noun"]) else "less")
    if kind == "pronoun_case":
        subject, obj = options
        assert CASES[subject] == obj
        # a subject when a verb follows: of the main clause ("Maya and I walked"), of a that-clause
        # ("that Maya and I should") or of a clause of time ("before Maya and I did")
        position_subject = re.search(r"[A-Z]\w+ and \{\d\} (\{\d\}|should |did\.)", template) is not None
        return word == (subject if position_subject else obj)
    if kind == "than_then":
        assert re.search(r"\{0\} .* \{1\}", template), template
        return word == than_or_then(template.split("{1}")[0])
    if kind == "past_tense":
        assert PAST_ADVERB.match(template), template
        return word == simple_past(slot["lemma"])
    raise AssertionError(kind)


def than_or_then(before: str) -> str:
    """The word for a than/then blank, from the text before it: straight after the compared noun
    phrase ("fewer cars on our street ___ last year") the comparison goes on with "than"; after a
    clause boundary (", and ___", ", but ___", "; ___", or the comma closing an if-clause) a new clause
    starts and the adverb is "then"."""
    assert re.search(r"(^|\s)(fewer|less|\{0\}|___) ", before), before  # a comparative stands before it
    return "then" if re.search(r"(, and|, but|;|,) $", before) else "than"


def slot_words(q) -> list[tuple[str, str]]:
    """(first blank, second blank) of every choice, read back from its text."""
    template = q.params["template"]
    if q.params["format"] == "blanks":
        return [tuple(c.split(" … ")) for c in q.choices]
    pattern = "^" + re.escape(template).replace(r"\{0\}", "(.+?)").replace(r"\{1\}", "(.+?)") + "$"
    out = []
    for c in q.choices:
        m = re.match(pattern, c)
        assert m, (q.id, c)
        order = [template.index("{0}"), template.index("{1}")]
        groups = m.groups() if order[0] < order[1] else m.groups()[::-1]
        out.append(tuple(groups))
    return out


def test_grammar_exactly_one_choice_passes_every_slot_rule(banks):
    for q in all_items(banks, "grammar_correction"):
        p = q.params
        verdicts = []
        for words in slot_words(q):
            verdicts.append(all(slot_ok(slot, w, p["template"]) for slot, w in zip(p["slots"], words)))
        assert sum(verdicts) == 1, (q.id, q.choices)
        assert q.choices[verdicts.index(True)] == q.answer, q.id
        # the head noun really heads the subject: it follows the opening determiner
        for slot in p["slots"]:
            if slot["kind"] == "agreement" and p["frame"] != "there_quantity":
                assert re.match(rf"The {re.escape(slot['subject_head'])}\b", p["template"]), q.id


FRESH_SEEDS = (7919, 104729, 1299709)  # seeds used nowhere else in the repository
_PAIRS = {frozenset(p) for p in CASES.items()}
_NOUN_END = re.compile(r"^ ([^ ]+(?: [^ ]+)?) (?:in|on|at|from|near|behind|along|with|over|for)\b")


def _blank_context(blanked: str, k: int) -> tuple[str, str]:
    """The text before and after blank `k` (0 or 1) of the question's sentence."""
    parts = blanked.split("___")
    assert len(parts) == 3, blanked
    return "___".join(parts[: k + 1]), "___".join(parts[k + 1:])


def _read_simple_past(word: str) -> bool:
    """Whether `word` is the simple past of a verb, by this file's principal parts and -ed rules."""
    if word in {past for past, _ in IRREGULAR.values()}:
        return True
    if not re.fullmatch(r"[a-z]+", word) or word in IRREGULAR:  # "have walked" is the present perfect; "feed" a base
        return False
    stems = {s for s in (word[:-2], word[:-1], word[:-3], word[:-3] + "y") if s and regular_past(s) == word}
    return bool(stems) and not stems & IRREGULAR.keys()  # "spended", "buyed": -ed on an irregular verb


def _blank_ok(blanked: str, k: int, options: set[str], word: str) -> bool:
    """Blank `k` filled with `word`, judged from the sentence around the blank alone (no generator
    params): the rule is chosen by which words the choices offer for that blank."""
    before, after = _blank_context(blanked, k)
    if options == {"a", "an"}:
        return word == INFLECT.a(re.split(r"[ -]", after.strip())[0]).split()[0]
    if options == {"fewer", "less"}:
        m = _NOUN_END.match(after)
        assert m, (blanked, after)
        return word == ("fewer" if is_plural_noun(m.group(1).split()[-1]) else "less")
    if options == {"than", "then"}:
        assert before.count("___") == 1, blanked  # it follows the fewer/less blank: a comparison
        return word == than_or_then(before)
    if frozenset(options) in _PAIRS:
        if not re.search(r"\b[A-Z]\w+ and $", before):  # the pronoun stands right after "Name and", or nowhere
            return False
        subject_form = next(o for o in options if o in CASES)
        # a subject when a verb follows it ("Maya and I ___", "that Maya and I should", "before Maya and
        # I did"); an object otherwise: the sentence ends on it ("with Maya and me."), a to-infinitive
        # follows ("asks Maya and me to"), or the fronted phrase closes ("Like Maya and me, ...")
        is_object = re.match(r"^\s+(___|should\b|did\b)", after) is None
        return word == (CASES[subject_form] if is_object else subject_form)
    a, b = sorted(options)
    if {INFLECT.plural_verb(a), INFLECT.plural_verb(b)} == {b} or {INFLECT.plural_verb(a), INFLECT.plural_verb(b)} == {a}:
        plural = b if INFLECT.plural_verb(a) == b else a
        head = re.match(r"^(?:[^\w]*)The (\w+)", before)
        assert head, blanked
        return word == (plural if is_plural_noun(head.group(1)) else next(o for o in options if o != plural))
    assert PAST_ADVERB.match(blanked.lstrip('"')), blanked
    return _read_simple_past(word)


def _blank_words(q) -> tuple[str, list[tuple[str, str]]]:
    """The question's sentence with its two blanks, and each choice's (first blank, second blank)
    as a reader fills them: the blank format's pair read in order, a full sentence matched back."""
    blanked = re.search(r'"([^"]*___[^"]*)"', q.question).group(1)
    if all(" … " in c for c in q.choices):
        return blanked, [tuple(c.split(" … ")) for c in q.choices]
    pattern = "^" + re.escape(blanked).replace("___", "(.+?)") + "$"
    return blanked, [re.match(pattern, c).groups() for c in q.choices]


def grammar_order_faults(questions) -> tuple[int, int, list]:
    """(two-blank items, of which in the blank format, faults): a fault is a choice whose sentence,
    filled in the order the blanks stand, is grammatical though it is not the gold, or not though it is."""
    n = n_blank = 0
    faults = []
    for q in questions:
        blanked, words = _blank_words(q)
        n += 1
        n_blank += all(" … " in c for c in q.choices)
        options = [set(w[k] for w in words) for k in (0, 1)]
        for choice, pair in zip(q.choices, words):
            ok = all(_blank_ok(blanked, k, options[k], pair[k]) for k in (0, 1))
            if ok != (choice == q.answer):
                faults.append((q.id, blanked, choice, q.answer))
                break
    return n, n_blank, faults


def test_grammar_blanks_filled_in_stated_order_give_the_grammatical_sentence():
    """Three fresh forms: every two-blank grammar item is read the way a reader does (the first word
    into the first blank, the second into the second; a full sentence is matched back), and each blank
    is judged from its own sentence alone with this file's rules (principal parts, inflect's a/an,
    plural and verb number, pronoun case by what follows the pronoun), never the generator's params:
    the gold gives the one grammatical sentence, every distractor an ungrammatical one."""
    questions = [q for seed in FRESH_SEEDS for q in by_sub(generate_domain(linguistic.DOMAIN, seed, SIZE),
                                                            "grammar_correction")]
    n, n_blank, faults = grammar_order_faults(questions)
    assert n == 3 * SIZE // len(SUBCATEGORIES) and n_blank >= 100, (n, n_blank)
    assert not faults, f"{len(faults)} of {n} items ({n_blank} in the blank format) misread, e.g. {faults[:3]}"


def test_grammar_order_check_can_fail():
    """A blank-format item whose pair is built in the other order (verb first for 'Mei and ___ ___')
    is caught: the keyed pair read in order is ungrammatical."""
    from mirror_hf.records import Question

    question = 'Fill in both blanks so that the sentence is grammatical:\n\n"Yesterday, Mei and ___ ___ a talk."'
    choices = ("gave … I", "give … I", "gave … me", "give … me")
    q = Question(id="t.0", domain="linguistic", subcategory="grammar_correction", difficulty="easy",
                 question=question, choices=choices, answer="gave … I", answer_type="multiple_choice",
                 aliases=(), generator="t", seed=0)
    assert grammar_order_faults([q])[2]
    fixed = dataclasses.replace(q, choices=("I … gave", "I … give", "me … gave", "me … give"), answer="I … gave")
    assert not grammar_order_faults([fixed])[2]


# --------------------------------------------------------------------------------------------
# syntax_parsing: answers read off the stored tree, which must spell the sentence
# --------------------------------------------------------------------------------------------


def leaves(node):
    if isinstance(node, str):
        return [node]
    return [w for child in node[1:] for w in leaves(child)]


def nodes(node, parent=None):
    if isinstance(node, str):
        return
    yield node, parent
    for child in node[1:]:
        yield from nodes(child, node)


def head_noun(np):
    return next(child[1] for child in np[1:] if not isinstance(child, str) and child[0] == "N")


def test_syntax_answers_come_from_the_tree(banks):
    for q in all_items(banks, "syntax_parsing"):
        p = q.params
        tree = p["tree"]
        assert normalise_text(" ".join(leaves(tree))) == normalise_text(p["sentence"]), q.id
        assert p["sentence"] in q.question
        main = next(child for child in tree[1:] if child[0] == "S")
        if p["kind"] == "subject":
            expected = head_noun(main[1])
            assert main[1][0] == "NP"
        elif p["kind"] == "main_verb":
            vp = next(child for child in main[1:] if child[0] == "VP")
            expected = vp[1][1]
            assert vp[1][0] == "V"
        elif p["kind"] == "clauses":
            expected = str(sum(1 for n, _ in nodes(tree) if n[0] in ("S", "RC")))
        else:
            ((rc, np),) = [(n, parent) for n, parent in nodes(tree) if n[0] == "RC"]
            expected = head_noun(np)
            verb = rc[2][1][1]
            singular_verb = INFLECT.plural_verb(verb) != verb
            # agreement makes the attachment unique: the attached noun agrees, the other noun does not
            nouns = [head_noun(n) for n, _ in nodes(main[1]) if n[0] == "NP"]
            agreeing = [n for n in nouns if is_plural_noun(n) != singular_verb]
            assert agreeing == [expected], (q.id, nouns, verb)
        assert q.answer == expected, (q.id, q.answer, expected)


# --------------------------------------------------------------------------------------------
# morphology: inflect, wordfreq and this file's rules
# --------------------------------------------------------------------------------------------

IRREGULAR_DEGREES = {"good": ("better", "best"), "bad": ("worse", "worst")}


def syllables(word: str) -> int:
    w = word[:-1] if word.endswith("e") and not word.endswith("le") else word
    return len(re.findall(r"[aeiouy]+", w))


def degree_form(adj: str, degree: str) -> str:
    if adj in IRREGULAR_DEGREES:
        return IRREGULAR_DEGREES[adj][degree == "superlative"]
    long_form = syllables(adj) >= 3 or (syllables(adj) == 2 and not re.search(r"(y|le)$", adj))
    if long_form:
        return ("more " if degree == "comparative" else "most ") + adj
    suffix = "er" if degree == "comparative" else "est"
    if adj.endswith("e"):
        return adj + suffix[1:]
    if re.search(r"[^aeiou]y$", adj):
        return adj[:-1] + "i" + suffix
    if re.fullmatch(r"[^aeiou]*[aeiou][^aeiouwy]", adj):
        return adj + adj[-1] + suffix
    return adj + suffix


PREFIXES = ("un", "re", "mis", "dis", "over", "under", "pre")
# surface spelling of suffixes -> number of morphemes; "d", "r", "rs" only right after a stem's silent e
SUFFIXES = {"s": 1, "es": 1, "ed": 1, "ing": 1, "er": 1, "ful": 1, "less": 1, "ness": 1, "ly": 1,
            "able": 1, "ment": 1, "ably": 2, "ers": 2}
AFTER_E = {"d": 1, "r": 1, "rs": 2, "s": 1, "ful": 1, "less": 1, "ness": 1, "ly": 1, "ment": 1,
           "able": 1, "ing": 1}  # agree-able, agree-ing: an e after another e stays


def root_spellings(root: str) -> list[str]:
    out = [root]
    if root.endswith("e"):
        out.append(root[:-1])
    if root.endswith("ie"):
        out.append(root[:-2] + "y")  # tie -> ty-ing
    if re.search(r"[^aeiou]y$", root):
        out.append(root[:-1] + "i")
    if re.fullmatch(r"[^aeiou]*[aeiou][^aeiouwxy]", root):
        out.append(root + root[-1])
    return out


def parse_morphemes(word: str, root: str) -> int | None:
    """Morpheme count of `word` if it splits into a known prefix, `root` (as spelled at a boundary)
    and a sequence of known suffixes; None when it does not."""
    for prefix in ("", *PREFIXES):
        if not word.startswith(prefix):
            continue
        rest = word[len(prefix):]
        for spelling in root_spellings(root):
            if rest.startswith(spelling):
                tail = suffix_count(rest[len(spelling):], after_e=spelling.endswith("e"))
                if tail is not None:
                    return 1 + bool(prefix) + tail
    return None


def suffix_count(tail: str, after_e: bool = False) -> int | None:
    if not tail:
        return 0
    best = None
    for surface, n in (AFTER_E if after_e else SUFFIXES).items():
        if tail.startswith(surface):
            rest = suffix_count(tail[len(surface):])
            if rest is not None and (best is None or n + rest < best):
                best = n + rest
    return best


def test_morphology_answers_match_other_sources(banks):
    for q in all_items(banks, "morphology"):
        p = q.params
        kind = p["kind"]
        wrong = [c for c in q.choices if c != q.answer]
        if kind == "plural":
            accepted = {q.answer, *q.aliases}
            other = INFLECT.plural_noun(p["lemma"])
            # where inflect disagrees (it writes "thiefs"), word frequency decides between the two
            assert other in accepted or zipf(q.answer) > zipf(other) + 1.0, (q.id, p["lemma"], accepted, other)
            for d in wrong:
                if d.endswith("'s"):  # a possessive, never a plural (frequency would count "army's")
                    continue
                assert zipf(q.answer) > zipf(d) + 0.5, (q.id, q.answer, d)
        elif kind == "past_tense":
            assert q.answer == simple_past(p["lemma"]), (q.id, p["lemma"], q.answer)
            assert simple_past(p["lemma"]) not in wrong
        elif kind in ("comparative", "superlative"):
            assert q.answer == degree_form(p["lemma"], kind), (q.id, q.answer)
        elif kind == "negative_prefix":
            assert zipf(q.answer) >= 2.0, (q.id, q.answer)
            for w in wrong:
                assert zipf(q.answer) > zipf(w) + 1.0, (q.id, q.answer, w)
        elif kind == "nominalisation":
            assert zipf(q.answer) >= 2.0, (q.id, q.answer)
            for d in wrong:
                assert zipf(q.answer) > zipf(d) + 1.0, (q.id, q.answer, d)
        elif kind == "morpheme_count":
            assert zipf(p["word"]) >= 1.0, (q.id, p["word"])
            assert q.answer == str(parse_morphemes(p["word"], p["root"])), (q.id, p["word"])
        else:  # root
            assert parse_morphemes(p["word"], q.answer) is not None, (q.id, p["word"])
            for d in wrong:  # the word does not split around it, it still carries an affix, or it is no word
                assert (parse_morphemes(p["word"], d) is None or parse_morphemes(d, q.answer) not in (None, 1)
                        or zipf(d) < 2.0), (q.id, d)


# --------------------------------------------------------------------------------------------
# ambiguity_resolution: this file's reading of the triggers
# --------------------------------------------------------------------------------------------

# for each schema: which participant a *positive* property describes ("a" = first named, "b" = second)
PROPERTY_OWNER = {
    "fit": {"big": "a", "long": "a", "wide": "a", "small": "b", "short": "b", "narrow": "b"},
    "through": {"wide": "a", "tall": "a", "narrow": "b", "low": "b"},
    "crush": {"heavy": "a", "light": "b", "fragile": "b", "delicate": "b", "sturdy": "b", "tough": "b"},
    "lift": {"weak": "a", "strong": "a", "heavy": "b", "light": "b"},
}
# a negated property belongs to the same participant; this maps "not strong enough" to "weak" etc.
ANTONYM = {"strong": "weak", "light": "heavy", "small": "big", "big": "small", "short": "long", "long": "short",
           "narrow": "wide", "wide": "narrow", "low": "tall", "tall": "low", "sturdy": "fragile", "tough": "delicate"}
# people schemas whose triggers are not adjectives: phrase -> participant (the one the phrase is true of)
EVENT_OWNER = (
    (r"plenty to spare|not short of money|feeling generous|not feeling mean", "a"),
    (r"lost \w+ wallet|find \w+ own wallet|short of cash|not have enough cash", "b"),
    (r"was lost|know the way|new to the city|not familiar", "a"),
    (r"a local|lived there all|knew the area|no stranger", "b"),
    (r"rude|not been polite|broken the vase|not been careful", "a"),
    (r"felt insulted|not felt respected", "b"),
    (r"more experienced|more practised", "a"), (r"tired and distracted|not concentrating", "b"),
    (r"excellent job|cut any corners", "b"), (r"broken the window|caused the damage", "a"),
    (r"late shift|home until midnight", "a"), (r"great with children|lost patience", "b"),
)


# triggers that leave the pronoun open: either participant could have the property or have done it
OPEN = re.compile(r"wrong (size|shape|place)|awkward|right (size|shape)|not where it belonged|upset all evening|"
                  r"not been happy|asked about the bill|forgotten about the bill|won the raffle|lost the raffle|"
                  r"late on Monday|on time on Monday|got home|no longer at work|heard the news|missed the news|"
                  r"not in a good position")
CANNOT_TELL = re.compile(r"^(It cannot be determined|The sentence does not say|Either reading is equally likely)")
CIRCUMSTANCE = r"radio on|door wide open|lights off|curtains drawn|window open"
MIXED = re.compile(r"^Most .*, but (the twins|two of them)")


def winograd_owner(schema: str, surface: str) -> str | None:
    if OPEN.search(surface):
        return None
    m = re.search(r"too (\w+)|so (\w+)|not (\w+) enough|anything but (\w+)", surface)
    if schema in PROPERTY_OWNER and m:
        too, so, negated, but = m.groups()
        if too or so:
            return PROPERTY_OWNER[schema][too or so]
        return PROPERTY_OWNER[schema][ANTONYM[negated or but]]
    owners = {owner for pattern, owner in EVENT_OWNER if re.search(pattern, surface)}
    assert len(owners) == 1, (schema, surface)
    return owners.pop()


TOOL_WORDS = r"knife|slice|brush|roller|gun|spoon|ladle|crowbar|screwdriver|hammer|camera|lens|phone|telescope|" \
             r"binoculars|glasses|squeegee|cloth|sponge|trolley|truck|straps"
PEOPLE_WORDS = r"cousins|guests|grandmother|neighbours?|friends|daughter|colleagues|students|brothers?|staff|uncle|" \
               r"helpers|group|father|classmates|club|aunt|flatmates|caretaker|son|men"
DIFFERENT = re.compile(r"\beach\b|no two|different|one child to a tree|never crossed|separate|own\b|scattered|"
                       r"favourite|no statue twice", re.IGNORECASE)


def test_ambiguity_answers_follow_this_files_reading(banks):
    for q in all_items(banks, "ambiguity_resolution"):
        p = q.params
        if p["kind"] == "winograd":
            owner = winograd_owner(p["schema"], p["surface"])
            assert p["surface"] in p["sentence"] and p["sentence"] in q.question
            if owner is None:
                assert CANNOT_TELL.match(q.answer), (q.id, p["surface"], q.answer)
                continue
            name = p["candidates"][owner]
            expected = name if p["schema"] in ("lift", "lend", "directions", "apologise", "chess", "pay",
                                               "babysit") else f"the {name}"
        elif p["kind"] == "attachment":
            phrase = p["phrase"]
            if re.search(CIRCUMSTANCE, phrase):
                expected_start = "It describes the surroundings"
            elif re.search(PEOPLE_WORDS, phrase):
                expected_start = "It says who"
            elif re.search(TOOL_WORDS, phrase):
                expected_start = "It says what"
            else:
                expected_start = "It says which"
            assert q.answer.startswith(expected_start), (q.id, phrase, q.answer)
            assert sum(c.startswith(expected_start) for c in q.choices) == 1
            continue
        else:
            follow = p["follow_up"]
            if MIXED.search(follow):
                expected_start = "A " + p["scene"] + " each, though some"
            elif DIFFERENT.search(follow):
                expected_start = "A different"
            elif re.search(r"\bit\b|\bits\b|the one\b|\btogether\b", follow, re.IGNORECASE):
                expected_start = "One and the same"
            else:  # nothing in the follow-up says whether they shared one
                assert CANNOT_TELL.match(q.answer), (q.id, follow, q.answer)
                continue
            assert q.answer.startswith(expected_start), (q.id, follow)
            continue
        assert q.answer == expected, (q.id, q.answer, expected)


# --------------------------------------------------------------------------------------------
# register_formality: an independent formality scorer
# --------------------------------------------------------------------------------------------

# markers of casual register (slang, clipped or subjectless phrasing, exclamations) and of formal
# register (letter conventions, Latinate vocabulary, full verb forms, hedged requests)
CASUAL = re.compile(r"\b(hey|hiya|yo|guys|gonna|wanna|lemme|ya|thx|u|asap|cheers|ta|later(?=,)|totally|busted|thing|"
                    r"whenever|heads up|no worries|got|-ish|off you|cash|packed in|sort|any chance|meet up|go over|"
                    r"come along|on us|if you're in|a bit|thanks a lot|going for|absolutely)\b|!", re.IGNORECASE)
FORMAL = re.compile(r"\b(sincerely|faithfully|regards|inform|owing|anticipate|apologies|apologise|purchased|"
                    r"defective|retained|grateful|convenien\w+|cordially|kindly|confirm|attendance|attendees|provided|"
                    r"opportunity|consent|shall|submitting|earliest|wish|available|arrange|would|whether|please|"
                    r"position|system|temperature|once more|failure|original|appreciate|willing|unable|understand|"
                    r"best wishes|many thanks|with thanks|good morning|hello|invited|discuss|kept|expect|properly|"
                    r"has stopped|has broken|has become|i am|will be|does not|store|annual|wanted to let you know)\b",
                    re.IGNORECASE)
LETTER_FORMAL = re.compile(r"\bdear\b|\byours (sincerely|faithfully)\b", re.IGNORECASE)  # count twice: letter conventions
CONTRACTION = re.compile(r"\w'(m|s|re|ll|d|ve)\b|n't\b", re.IGNORECASE)


def formality(text: str) -> int:
    return (len(FORMAL.findall(text)) + 2 * len(LETTER_FORMAL.findall(text)) - len(CASUAL.findall(text))
            - len(CONTRACTION.findall(text)))


def test_register_answer_is_the_extreme_under_an_independent_scorer(banks):
    for q in all_items(banks, "register_formality"):
        scores = {c: formality(c) for c in q.choices}
        best = max(scores.values()) if q.params["most"] == "formal" else min(scores.values())
        assert scores[q.answer] == best, (q.id, scores)
        assert list(scores.values()).count(best) == 1, (q.id, scores)


# --------------------------------------------------------------------------------------------
# shared bank properties
# --------------------------------------------------------------------------------------------


def test_structure_of_every_item(banks):
    for seed in SEEDS:
        qs = banks[seed]
        assert len(qs) == SIZE
        for q in qs:
            assert q.answer in q.choices and len(q.choices) == 4, q.id
            assert len({normalise_text(c) for c in q.choices}) == 4, q.id
            canonical_json(q.params)
            if q.params.get("kind") in ("morpheme_count", "clauses"):
                expected_type = "exact_numeric"
            elif q.subcategory in ("grammar_correction", "register_formality") or (
                    q.subcategory == "ambiguity_resolution" and q.params["kind"] != "winograd"):
                expected_type = "multiple_choice"  # one of the offered versions or readings
            else:
                expected_type = "short_text"
            assert q.answer_type == expected_type, q.id
        for sub in SUBCATEGORIES:
            assert {q.difficulty for q in by_sub(qs, sub)} == set(DIFFICULTIES)
            assert 120 <= len(by_sub(qs, sub)) <= 130


def counting_traps_of(p: dict) -> int:
    """What misleads a morpheme count, read with this file's rules: the syllables are not the morphemes,
    the root is not spelled as such in the word (happi-ness), a single morpheme ends like a suffix (corner)."""
    word, n = p["word"], p["morphemes"]
    traps = (syllables(word) != n) + (not word[len(p["prefix"]):].startswith(p["root"]))
    return traps + (n == 1 and any(word.endswith(s) for s in SUFFIXES))


def test_difficulty_raises_measured_parameters(banks):
    items = [q for seed in SEEDS for q in banks[seed]]

    def mean(sub, diff, f, where=lambda q: True):
        xs = [f(q) for q in items if q.subcategory == sub and q.difficulty == diff and where(q)]
        return sum(xs) / len(xs)

    traps = [mean("grammar_correction", d, lambda q: q.params["traps"]) for d in DIFFICULTIES]
    assert traps[0] < traps[1] < traps[2], traps
    clauses = [mean("syntax_parsing", d, lambda q: q.params["clauses"]) for d in DIFFICULTIES]
    assert clauses[0] < clauses[1] < clauses[2], clauses
    # every count is the answer equally often at each difficulty (test below); what rises is how far
    # a count of syllables or of the root's letters would mislead
    # (over every word the generator can draw, each count equally often: the few count items of two
    # forms, about a dozen per level, leave the means of medium and hard within each other's noise)
    table = linguistic._count_table()
    counting_traps = [sum(sum(counting_traps_of({"word": w, "prefix": p, "root": r, "morphemes": n}) for w, p, r, _ in table[n, d])
                          / len(table[n, d]) for n in linguistic._COUNTS) / len(linguistic._COUNTS) for d in DIFFICULTIES]
    assert counting_traps[0] < counting_traps[1] < counting_traps[2], counting_traps
    rare = [mean("morphology", d, lambda q: zipf(q.answer) if q.params["kind"] == "past_tense" else 0,
                 lambda q: q.params["kind"] == "past_tense") for d in DIFFICULTIES]
    assert rare[0] > rare[2], rare  # hard past tenses are rarer words
    negated = [mean("ambiguity_resolution", d, lambda q: q.params.get("negated", False),
                    lambda q: q.params["kind"] == "winograd") for d in DIFFICULTIES]
    assert negated[0] == negated[1] == 0 < negated[2], negated
    gaps = [mean("register_formality", d, lambda q: q.params["min_gap"]) for d in DIFFICULTIES]
    assert gaps[0] > gaps[1] > gaps[2], gaps


def skeleton(q) -> str:
    """The question's wording with quoted material, names and numbers blanked out."""
    text = re.sub(r"\"[^\"]*\"|'[^']*'", "…", q.question)
    text = re.sub(r"\d+", "#", text)
    return " ".join(w for w in text.split() if not w[:1].isupper() or w in ("Which", "What", "How", "In", "Read:"))


def test_wording_varies(banks):
    for sub in SUBCATEGORIES:
        items = all_items(banks, sub)
        assert len({skeleton(q) for q in items}) >= 3, sub


def test_same_seed_same_items_other_seed_other_items(banks):
    again = list(generate_domain(linguistic.DOMAIN, 0, SIZE))
    assert [q.to_row() for q in again] == [q.to_row() for q in banks[0]]
    texts0 = {normalise_text(q.question) for q in banks[0]}
    texts1 = {normalise_text(q.question) for q in banks[1]}
    assert len(texts0 & texts1) < 0.1 * SIZE, len(texts0 & texts1)




# --------------------------------------------------------------------------------------------
# answer priors: no option string tells the answer from the form's other items
# --------------------------------------------------------------------------------------------


def test_morpheme_counts_are_each_the_answer_a_quarter_of_the_time():
    """The choices of a count item are the counts 1-4, so each must be right as often as the others at
    every difficulty (a form mixes difficulties in any proportion): a count seldom right is struck out
    unread, and one usually right is picked unread."""
    import random

    for diff in DIFFICULTIES:
        rng = random.Random(f"counts|{diff}")
        golds = []
        for _ in range(400):
            question, gold, bad, params = linguistic._morph_count(rng, diff)
            assert sorted([gold, *bad]) == ["1", "2", "3", "4"], (diff, gold, bad)
            assert parse_morphemes(params["word"], params["root"]) == int(gold), (params["word"], gold)
            golds.append(gold)
        shares = {k: golds.count(k) / len(golds) for k in "1234"}
        assert all(0.19 <= v <= 0.31 for v in shares.values()), (diff, shares)  # 1/4 within ~2.8 s.e.


def test_the_answers_length_neither_gives_it_away_nor_rules_it_out():
    """Left to the errors people make, the answer's place by length is fixed by the kind: a root is
    shorter than every piece with an affix left on, -al, -ence, -ance are the shortest noun suffixes, a
    doubled consonant or an -ies adds letters the errors lack, a comparative is shorter than "more
    taller". "Pick the shortest choice" answered 0.48 of the root and 0.43 of the noun items of eight
    pooled forms, and "strike off the longest" 0.30 of all morphology items. Straight from the
    generator, 600 items of each kind whose errors are chosen by length, over the difficulties that
    ask it: picking the longest or the shortest choice, or striking it off and choosing among the rest
    (ties shared, as the leak test counts them), answers at most a fair quarter plus four standard
    errors."""
    import random

    from test_bank_leaks import _pick, _struck

    rates = {}
    for kind in ("plural", "past_tense", "degree", "nominalisation", "root"):
        diffs = ("medium", "hard") if kind == "root" else DIFFICULTIES
        rng = random.Random(f"length|{kind}")
        credit: dict[str, float] = {"longest": 0.0, "shortest": 0.0, "avoid_longest": 0.0, "avoid_shortest": 0.0}
        seen = 0
        while seen < 600:
            try:
                _, gold, distractors, _, _ = linguistic._morph_draw(rng, diffs[seen % len(diffs)], kind)
            except ValueError:  # a word with too few errors, which morphology() draws again
                continue
            lengths = [len(c) for c in (gold, *distractors)]
            for name, values in (("longest", lengths), ("shortest", [-k for k in lengths])):
                credit[name] += _pick(values, 0)
                credit["avoid_" + name] += _struck(values, 0)
            seen += 1
        rates[kind] = {k: round(v / seen, 3) for k, v in credit.items()}
    # A root is the least that is left of its word, so never the longest choice: striking off the
    # longest leaves it among three (1/3). Roots are about 1 in 12 morphology items, and over eight
    # pooled forms striking off the longest answers 0.27 of the subcategory (test_bank_leaks).
    allowed = {("root", "avoid_longest"): 1 / 3 + 0.07}
    over = {(k, n): v for k, r in rates.items() for n, v in r.items() if v > allowed.get((k, n), 0.32)}
    assert not over, (over, rates)  # 0.25 + 4 s.e. of 600 items


def test_every_wrong_root_is_plainly_wrong():
    """Every wrong root any root item could offer (not only those the forms above happened to draw): the
    word does not split around it, or it still carries an affix, or it is no word (wordfreq). A piece
    the word reads as with suffixes after it and that is a word ("car" in "uncaring", "cooke" in
    "overcooked", "pow" in "powerful") could be argued to be the root as the word spells it."""
    for word, prefix, root, chain in linguistic._root_rows():
        assert parse_morphemes(word, root) == 1 + bool(prefix) + len(chain), word
        for d in linguistic._wrong_roots(word, prefix, root, chain):
            assert (parse_morphemes(word, d) is None or parse_morphemes(d, root) not in (None, 1)
                    or zipf(d) < 2.0), (word, d)


def test_morphology_option_strings_are_right_about_a_quarter_of_the_times_they_are_offered(banks):
    """Within one form, an option string offered in several items (a count, a prefix) is the answer in
    about a quarter of them, and an answer that is a word (a root, a noun) is the answer of one item
    only: the same root asked of "faithful" and "unfaithfully" would be right wherever it was offered."""
    for seed in SEEDS:
        offered: dict[str, int] = {}
        gold: dict[str, int] = {}
        for q in by_sub(banks[seed], "morphology"):
            for c in q.choices:
                offered[c] = offered.get(c, 0) + 1
            gold[q.answer] = gold.get(q.answer, 0) + 1
        for s, n in offered.items():
            # a quarter, within the spread of the offers: a two-sided binomial test per string (a
            # count is the answer of 1 in 14 items that offer it about once in ten forms by chance)
            p = binomtest(gold.get(s, 0), n, 0.25).pvalue
            assert p >= 0.001, (seed, s, gold.get(s, 0), n, p)
        repeated = {s: k for s, k in gold.items() if k > 1 and not s.isdigit()}
        assert not repeated, (seed, repeated)


def test_syntax_option_strings_are_right_about_a_quarter_of_the_times_they_are_offered():
    """Syntax items reuse closed lists (people, verbs, clause counts), so each string offered must be
    the answer in about a quarter of the items offering it: a place offered against the subject but
    never the subject, or a clause count that is never the answer, can be struck out unread, and a
    string usually right when offered can be picked unread. Straight from the generator (no form-level
    balancing), 1,500 draws per difficulty; strings offered at least 40 times."""
    import random

    offered: dict[str, int] = {}
    gold: dict[str, int] = {}
    for diff in DIFFICULTIES:
        rng = random.Random(f"syntax|{diff}")
        counts = []
        for _ in range(1500):
            item = linguistic.syntax_parsing(rng, diff)
            for c in (item.answer, *item.distractors):
                offered[c] = offered.get(c, 0) + 1
            gold[item.answer] = gold.get(item.answer, 0) + 1
            if item.params["kind"] == "clauses":
                assert int(item.answer) == sum(1 for n, _ in nodes(item.params["tree"]) if n[0] in ("S", "RC"))
                counts.append(item.answer)
        # a form mixes difficulties in any proportion, so each count is the answer equally often at each
        shares = {k: round(counts.count(k) / len(counts), 2) for k in "1234"}
        assert all(0.17 <= v <= 0.33 for v in shares.values()), (diff, len(counts), shares)
    rates = {s: gold.get(s, 0) / n for s, n in offered.items() if n >= 40}
    assert len(rates) >= 30, len(rates)
    off = {s: round(r, 2) for s, r in rates.items() if not 0.1 <= r <= 0.4}  # 1/4 within ~2.5 s.e. at 40 offers
    assert not off, off


@pytest.mark.parametrize("sub", ["grammar_correction", "ambiguity_resolution"])
def test_grammar_and_ambiguity_option_strings_are_right_about_a_quarter_of_the_times_they_are_offered(sub):
    """Grammar items in the blank format offer word pairs from closed lists ("fewer … than", "asks …
    me", "I … walked"), and pronoun items offer the same objects, names and "cannot be determined" again
    and again: each string offered must be the answer in about a quarter of the items that offer it. A
    pair that can never be right ("fewer … then" when the second blank is always "than"; "me … walked"
    when a pronoun before the verb is always its subject) is struck out unread, and an object usually
    right when named (the crushed thing, when two triggers of three point at it) is picked unread.
    Straight from the generator (no form-level balancing), 1,500 draws per difficulty; strings offered
    at least 40 times."""
    import random

    offered: dict[str, int] = {}
    gold: dict[str, int] = {}
    for diff in DIFFICULTIES:
        rng = random.Random(f"{sub}|{diff}")
        for _ in range(1500):
            item = getattr(linguistic, sub)(rng, diff)
            if sub == "grammar_correction" and item.params["format"] != "blanks":
                continue  # whole sentences: each offered once
            for c in (item.answer, *item.distractors):
                offered[c] = offered.get(c, 0) + 1
            gold[item.answer] = gold.get(item.answer, 0) + 1
    rates = {s: gold.get(s, 0) / n for s, n in offered.items() if n >= 40}
    off = {s: (gold.get(s, 0), offered[s]) for s, r in rates.items() if not 0.1 <= r <= 0.4}  # 1/4 within ~2.5 s.e.
    assert not off, off
    assert len(rates) >= 30, len(rates)
