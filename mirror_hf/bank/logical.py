"""Logical reasoning: categorical syllogisms, propositional formulas, set relations, conditional
arguments and the checking of short proofs (the paper's fifth domain).

Formulas are JSON-friendly trees (an atom is a string; ["not", f], ["and", f, g], ["or", f, g],
["imp", f, g], ["iff", f, g]) kept in `params`, and every gold answer is decided semantically:
truth tables for propositional items, and for syllogisms a decision procedure over the eight (or
sixteen) membership regions of a Venn diagram, both with and without existential import, so that a
distractor is never a conclusion that only a reader assuming "All S are P" implies "some S exist"
would accept. Wrong answers are the classic errors: converse and inverse, affirming the consequent,
denying the antecedent, the undistributed middle, a wrong De Morgan, the exclusive reading of "or",
the forgotten overlap in inclusion-exclusion.

Formulas in answer choices are written with word connectives ("not", "and", "or", "implies"):
the bank's duplicate check strips symbols such as ∧ and ∨, which would make "P ∧ Q" and "P ∨ Q"
the same choice.
"""

from __future__ import annotations

import functools
import itertools
import random

from mirror_hf.bank._core import Domain, Item
from mirror_hf.bank._wording import NAMES, fmt_num, pick_distractors

DOMAIN = Domain(
    "logical",
    "1.0.0",
    "Deductive reasoning: categorical syllogisms (validity decided over set models, with and without "
    "existential import), propositional formulas (truth tables, equivalence, tautologies), set relations "
    "and inclusion-exclusion, conditional arguments (modus ponens/tollens, hypothetical syllogism against "
    "affirming the consequent and denying the antecedent) and short proofs with one invalid step. All "
    "answers are computed; no external data source is used.",
)


# ============================================================================================
# propositional machinery shared by several subcategories
# ============================================================================================

def evaluate(f, env: dict) -> bool:
    if isinstance(f, str):
        return env[f]
    op = f[0]
    if op == "not":
        return not evaluate(f[1], env)
    a, b = evaluate(f[1], env), evaluate(f[2], env)
    if op == "and":
        return a and b
    if op == "or":
        return a or b
    if op == "imp":
        return (not a) or b
    if op == "iff":
        return a == b
    raise ValueError(op)


def atoms_of(*fs) -> list[str]:
    out: set[str] = set()

    def walk(f):
        if isinstance(f, str):
            out.add(f)
        else:
            for g in f[1:]:
                walk(g)

    for f in fs:
        walk(f)
    return sorted(out)


def rows(atoms: list[str]):
    for values in itertools.product((True, False), repeat=len(atoms)):
        yield dict(zip(atoms, values))


def entails(premises: list, conclusion) -> bool:
    atoms = atoms_of(*premises, conclusion)
    return all(evaluate(conclusion, env) for env in rows(atoms) if all(evaluate(p, env) for p in premises))


def equivalent(f, g) -> bool:
    atoms = atoms_of(f, g)
    return all(evaluate(f, env) == evaluate(g, env) for env in rows(atoms))


def satisfiable(fs: list) -> bool:
    atoms = atoms_of(*fs)
    return any(all(evaluate(f, env) for f in fs) for env in rows(atoms))


def truth_mask(f, atoms: tuple[str, ...]) -> int:
    """The formula's truth table as a bitmask over the rows of `atoms` (bit i: row i), computed
    bottom-up with bitwise operations: the fast route the proof builder needs."""
    full = (1 << (1 << len(atoms))) - 1
    if isinstance(f, str):
        k = atoms.index(f)
        return sum(1 << i for i in range(1 << len(atoms)) if i >> k & 1)
    if f[0] == "not":
        return full ^ truth_mask(f[1], atoms)
    a, b = truth_mask(f[1], atoms), truth_mask(f[2], atoms)
    if f[0] == "and":
        return a & b
    if f[0] == "or":
        return a | b
    if f[0] == "imp":
        return (full ^ a) | b
    return full ^ (a ^ b)


def mask_entails(premise_masks: list[int], conclusion_mask: int, atoms: tuple[str, ...]) -> bool:
    both = (1 << (1 << len(atoms))) - 1
    for m in premise_masks:
        both &= m
    return both & ~conclusion_mask == 0


def neg(f):
    """Negation without stacking: not not X is X."""
    return f[1] if isinstance(f, list) and f[0] == "not" else ["not", f]


_WORD_OP = {"and": "and", "or": "or", "imp": "implies", "iff": "if and only if"}
_SYM_OP = {"and": "∧", "or": "∨", "imp": "→", "iff": "↔"}


def in_words(f, top: bool = True) -> str:
    """'(P and not Q) implies R': every compound operand is bracketed, so no precedence is assumed."""
    if isinstance(f, str):
        return f
    if f[0] == "not":
        inner = f[1]
        return f"not {inner}" if isinstance(inner, str) else f"not ({in_words(inner)})"
    text = f"{in_words(f[1], False)} {_WORD_OP[f[0]]} {in_words(f[2], False)}"
    return text if top else f"({text})"


def in_symbols(f, top: bool = True) -> str:
    if isinstance(f, str):
        return f
    if f[0] == "not":
        inner = f[1]
        return f"¬{inner}" if isinstance(inner, str) or inner[0] == "not" else f"¬({in_symbols(inner)})"
    text = f"{in_symbols(f[1], False)} {_SYM_OP[f[0]]} {in_symbols(f[2], False)}"
    return text if top else f"({text})"


def depth(f) -> int:
    if isinstance(f, str):
        return 0
    return 1 + max(depth(g) for g in f[1:])


def random_formula(rng: random.Random, atoms: list[str], d: int, ops=("and", "or", "imp", "iff")) -> list | str:
    """A formula of depth exactly `d` (negations of atoms are free)."""
    if d == 0:
        a = rng.choice(atoms)
        return ["not", a] if rng.random() < 0.3 else a
    op = rng.choice(ops)
    while True:  # no "R or R" or "S and not S": degenerate parts read like typos
        kids = [random_formula(rng, atoms, d - 1, ops), random_formula(rng, atoms, rng.randint(0, d - 1), ops)]
        if kids[0] != kids[1] and kids[0] != neg(kids[1]):
            break
    rng.shuffle(kids)
    f = [op, *kids]
    return ["not", f] if rng.random() < 0.15 else f


def _cap(s: str) -> str:
    return s[0].upper() + s[1:]


# Everyday atomic statements with their exact negations, grouped by scene so that conditionals
# between them read like something a person would say.
SCENES: dict[str, tuple[tuple[str, str], ...]] = {
    "server room": (("the server is down", "the server is not down"),
                    ("the website is reachable", "the website is not reachable"),
                    ("the backup has run", "the backup has not run"),
                    ("the alarm is sounding", "the alarm is not sounding"),
                    ("the engineer is on call", "the engineer is not on call")),
    "football club": (("it is raining", "it is not raining"),
                      ("the match is cancelled", "the match is not cancelled"),
                      ("the pitch is flooded", "the pitch is not flooded"),
                      ("the stands are full", "the stands are not full"),
                      ("the referee has arrived", "the referee has not arrived")),
    "bakery": (("the oven is hot", "the oven is not hot"),
               ("the bread is baking", "the bread is not baking"),
               ("the timer is set", "the timer is not set"),
               ("the shop smells of toast", "the shop does not smell of toast"),
               ("the back door is open", "the back door is not open")),
    "garden": (("the sprinkler is on", "the sprinkler is not on"),
               ("the lawn is wet", "the lawn is not wet"),
               ("the gate is locked", "the gate is not locked"),
               ("the dog is in the garden", "the dog is not in the garden"),
               ("the tomatoes are ripe", "the tomatoes are not ripe")),
    "railway station": (("the train is delayed", "the train is not delayed"),
                        ("the platform is crowded", "the platform is not crowded"),
                        ("the signal is red", "the signal is not red"),
                        ("the driver has arrived", "the driver has not arrived"),
                        ("the doors are open", "the doors are not open")),
    "laboratory": (("the sample is frozen", "the sample is not frozen"),
                   ("the freezer is running", "the freezer is not running"),
                   ("the status light is green", "the status light is not green"),
                   ("the test is finished", "the test is not finished"),
                   ("the report is signed", "the report is not signed")),
    "school": (("the bell has rung", "the bell has not rung"),
               ("the class is in the hall", "the class is not in the hall"),
               ("the teacher is present", "the teacher is not present"),
               ("the quiz is cancelled", "the quiz is not cancelled"),
               ("the library is open", "the library is not open")),
    "corner shop": (("the shop is open", "the shop is not open"),
                    ("the lights are on", "the lights are not on"),
                    ("the card reader is working", "the card reader is not working"),
                    ("the manager is in", "the manager is not in"),
                    ("the delivery has come", "the delivery has not come")),
    "car": (("the engine is running", "the engine is not running"),
            ("the battery is charged", "the battery is not charged"),
            ("the tank is empty", "the tank is not empty"),
            ("the headlights are on", "the headlights are not on"),
            ("the key is in the ignition", "the key is not in the ignition")),
    "museum": (("the museum is open", "the museum is not open"),
               ("a guide is available", "no guide is available"),
               ("the east wing is closed", "the east wing is not closed"),
               ("the café is busy", "the café is not busy"),
               ("the exhibition has started", "the exhibition has not started")),
    "hospital ward": (("the patient is awake", "the patient is not awake"),
                      ("the monitor is beeping", "the monitor is not beeping"),
                      ("the nurse is on duty", "the nurse is not on duty"),
                      ("the doctor has signed the chart", "the doctor has not signed the chart"),
                      ("visitors are allowed", "visitors are not allowed")),
    "ferry port": (("the sea is rough", "the sea is not rough"),
                   ("the ferry sails", "the ferry does not sail"),
                   ("the harbour master is in the office", "the harbour master is not in the office"),
                   ("the car deck is full", "the car deck is not full"),
                   ("the fog horn is sounding", "the fog horn is not sounding")),
}


def _scene(rng: random.Random, k: int) -> tuple[str, dict[str, tuple[str, str]]]:
    """A scene and k of its statements, as atoms 'a', 'b', ... ."""
    name = rng.choice(sorted(SCENES))
    picked = rng.sample(SCENES[name], k)
    return name, {chr(ord("a") + i): s for i, s in enumerate(picked)}


def say(f, lex: dict) -> str:
    """A formula over scene atoms in plain English (no final full stop)."""
    if isinstance(f, str):
        return lex[f][0]
    op = f[0]
    if op == "not":
        g = f[1]
        if isinstance(g, str):
            return lex[g][1]
        if g[0] == "and":
            return f"it is not the case that both {say(g[1], lex)} and {say(g[2], lex)}"
        if g[0] == "or":
            return f"neither {say(g[1], lex)} nor {say(g[2], lex)}"
        return f"it is not the case that {say(g, lex)}"
    if op == "imp":
        return f"if {say(f[1], lex)}, then {say(f[2], lex)}"
    if op == "or":
        return f"either {say(f[1], lex)} or {say(f[2], lex)} (or both)"
    if op == "and":
        return f"{say(f[1], lex)}, and {say(f[2], lex)}"
    return f"{say(f[1], lex)} if and only if {say(f[2], lex)}"


def sentence(f, lex: dict) -> str:
    return _cap(say(f, lex)) + "."


# ============================================================================================
# syllogisms
# ============================================================================================

# (singular, plural) category nouns: people by pastime or trade, and invented words for the hard level
TERMS = (("violinist", "violinists"), ("beekeeper", "beekeepers"), ("sailor", "sailors"),
         ("chess player", "chess players"), ("cyclist", "cyclists"), ("gardener", "gardeners"),
         ("poet", "poets"), ("surgeon", "surgeons"), ("pilot", "pilots"), ("vegetarian", "vegetarians"),
         ("early riser", "early risers"), ("left-hander", "left-handers"), ("stamp collector", "stamp collectors"),
         ("marathon runner", "marathon runners"), ("birdwatcher", "birdwatchers"), ("knitter", "knitters"),
         ("juggler", "jugglers"), ("carpenter", "carpenters"), ("potter", "potters"), ("swimmer", "swimmers"),
         ("architect", "architects"), ("photographer", "photographers"), ("baker", "bakers"),
         ("astronomer", "astronomers"), ("drummer", "drummers"), ("painter", "painters"), ("teacher", "teachers"),
         ("librarian", "librarians"), ("engineer", "engineers"), ("novelist", "novelists"),
         ("climber", "climbers"), ("volunteer", "volunteers"), ("tea drinker", "tea drinkers"),
         ("night-shift worker", "night-shift workers"), ("dog owner", "dog owners"), ("skier", "skiers"))
NONSENSE = (("wug", "wugs"), ("blicket", "blickets"), ("dax", "daxes"), ("florb", "florbs"), ("zorp", "zorps"),
            ("grelk", "grelks"), ("tove", "toves"), ("snark", "snarks"), ("quarn", "quarns"), ("vorple", "vorples"),
            ("mimsy", "mimsies"), ("plonk", "plonks"), ("trazzle", "trazzles"), ("brillig", "brilligs"))

FORMS = ("A", "E", "I", "O")  # All S are P / No S are P / Some S are P / Some S are not P
_CONTRADICTORY = {"A": "O", "O": "A", "E": "I", "I": "E"}


def _article(noun: str) -> str:
    return ("an " if noun[0] in "aeiou" else "a ") + noun


def statement(form: str, s: tuple[str, str], p: tuple[str, str], style: int) -> str:
    """A categorical proposition in one of several everyday wordings (style picks the wording)."""
    S, P = s[1], p[1]
    if form == "A":
        return (f"All {S} are {P}", f"Every {s[0]} is {_article(p[0])}", f"Each {s[0]} is {_article(p[0])}")[style % 3]
    if form == "E":
        return (f"No {S} are {P}", f"No {s[0]} is {_article(p[0])}", f"None of the {S} are {P}")[style % 3]
    if form == "I":
        return (f"Some {S} are {P}", f"At least one {s[0]} is {_article(p[0])}", f"Some {S} are {P}")[style % 3]
    return (f"Some {S} are not {P}", f"Not all {S} are {P}", f"At least one {s[0]} is not {_article(p[0])}")[style % 3]


@functools.lru_cache(maxsize=None)
def _region_sets(form: str, x: int, y: int, k: int) -> tuple[str, frozenset]:
    """('forbid', regions that must be empty) or ('exists', regions of which one must be non-empty).
    A region is a k-bit mask: bit t set when the element belongs to term t."""
    def has(r, t):
        return bool(r >> t & 1)

    regions = range(2 ** k)
    if form == "A":
        return "forbid", frozenset(r for r in regions if has(r, x) and not has(r, y))
    if form == "E":
        return "forbid", frozenset(r for r in regions if has(r, x) and has(r, y))
    if form == "I":
        return "exists", frozenset(r for r in regions if has(r, x) and has(r, y))
    return "exists", frozenset(r for r in regions if has(r, x) and not has(r, y))


def consistent(props: list[tuple[str, int, int]], k: int, existential_import: bool) -> bool:
    """Is there a model of these categorical propositions over k terms? Universal statements empty
    regions; each existential one needs a witness in a region still allowed (witnesses are
    independent, so checking each requirement separately is exact)."""
    forbidden: set[int] = set()
    needs: list[frozenset] = []
    for form, x, y in props:
        kind, regions = _region_sets(form, x, y, k)
        (forbidden.update(regions) if kind == "forbid" else needs.append(regions))
    if existential_import:
        needs += [frozenset(r for r in range(2 ** k) if r >> t & 1) for t in range(k)]
    allowed = set(range(2 ** k)) - forbidden
    return all(n & allowed for n in needs)


def follows(premises, conclusion, k: int, existential_import: bool = False) -> bool:
    form, x, y = conclusion
    return not consistent([*premises, (_CONTRADICTORY[form], x, y)], k, existential_import)


# valid moods of the first figure: (major premise M-P, minor premise S-M, conclusion S-P)
_FIGURE1 = {"Barbara": ("A", "A", "A"), "Celarent": ("E", "A", "E"), "Darii": ("A", "I", "I"), "Ferio": ("E", "I", "O")}
NONE_FOLLOWS = "None of these conclusions follows"


@DOMAIN.subcategory(
    "syllogisms",
    difficulty={
        "easy": "two premises in the first figure (Barbara, Celarent, Darii, Ferio), major premise first, "
                "everyday categories",
        "medium": "two premises in any figure and order, any mood; about a third have no valid conclusion "
                  "('none of these follows')",
        "hard": "three premises chaining four categories (sorites), invented or everyday category words, "
                "about a third with no valid conclusion",
    },
)
def syllogisms(rng: random.Random, difficulty: str) -> Item:
    n_premises = 3 if difficulty == "hard" else 2
    k = n_premises + 1
    S, P = 0, k - 1  # term indices; middles are 1..k-2
    want_none = difficulty != "easy" and rng.random() < 0.33
    # the conclusion's mood is drawn first: left to the premises, "All S are P" would be the answer far
    # less often than it is offered as an atmosphere error, and "All ..." could be struck off unread
    target = rng.choice(FORMS)
    for attempt in range(1000):
        if difficulty == "easy":
            mood = rng.choice(sorted(_FIGURE1))
            maj, mnr, _c = _FIGURE1[mood]
            premises = [(maj, 1, P), (mnr, S, 1)]
        else:
            links = [(t, t + 1) for t in range(k - 1)]
            premises = []
            for a, b in links:
                form = rng.choice(FORMS)
                x, y = (a, b) if rng.random() < 0.5 else (b, a)
                premises.append((form, x, y))
            rng.shuffle(premises)
        if not consistent(premises, k, True):
            continue
        candidates = [(f, x, y) for f in FORMS for x, y in ((S, P), (P, S))]
        valid = [c for c in candidates if follows(premises, c, k)]
        weak = [c for c in candidates if follows(premises, c, k, existential_import=True)]
        invalid = [c for c in candidates if c not in weak]
        if want_none:
            if weak:
                continue
            answer = None
        else:
            valid = [c for c in valid if c[0] == target or difficulty == "easy" or attempt >= 500]
            if not valid:
                continue
            universal = [c for c in valid if c[0] in "AE"]
            answer = rng.choice(universal or valid)
        if len(invalid) >= 3:
            break
    else:  # pragma: no cover
        raise RuntimeError("no syllogism drawn")

    pool = NONSENSE if difficulty == "hard" and rng.random() < 0.5 else TERMS
    terms = rng.sample(pool, k)

    def text(prop) -> str:
        f, x, y = prop
        return statement(f, terms[x], terms[y], rng.randrange(3)) + "."

    # atmosphere errors first: the converse of the answer and conclusions in the premises' moods
    # then, in half the items, one of each mood where it can be: with atmosphere errors alone "All ..."
    # (the commonest premise mood) is a distractor three times as often as any other mood, and with
    # moods spread alone the gold is the choice most like the others
    premise_forms = {f for f, _, _ in premises}
    invalid.sort(key=lambda c: (0 if answer and c == (answer[0], answer[2], answer[1]) else
                                1 if c[0] in premise_forms else 2, rng.random()))
    wrong = invalid[:1] if rng.random() < 0.5 else invalid[:3]
    while len(wrong) < 3:
        used = [c[0] for c in wrong] + ([answer[0]] if answer else [])
        wrong.append(min((c for c in invalid if c not in wrong), key=lambda c: used.count(c[0])))
    body = " ".join(text(p) for p in premises)
    intro = rng.choice(("Assume the following statements are true.", "Consider these premises.",
                        "Suppose both of the following are true." if n_premises == 2 else "Suppose all of the following are true.",
                        f"In a certain town, {'both' if n_premises == 2 else 'all'} of these statements hold."))
    ask = rng.choice(("Which conclusion follows necessarily?", "Which of these conclusions must be true?",
                      "Which conclusion can be validly drawn from them?"))
    if answer is None:
        answer_text = NONE_FOLLOWS + "."
        wrong_texts = [_cap(statement(f, terms[x], terms[y], 0)) + "." for f, x, y in wrong]
    else:
        answer_text = _cap(statement(answer[0], terms[answer[1]], terms[answer[2]], 0)) + "."
        wrong_texts = [_cap(statement(f, terms[x], terms[y], 0)) + "." for f, x, y in wrong]
        if difficulty != "easy" and rng.random() < 0.5:
            # where "none follows" can be right it must also appear when it is wrong, or it gives itself away
            wrong_texts[2] = NONE_FOLLOWS + "."
    params = {
        "n_premises": n_premises,
        # how many premise patterns (moods x orientations x orders) this level draws from
        "pattern_space": {"easy": len(_FIGURE1), "medium": 4 ** 2 * 2 ** 2 * 2, "hard": 4 ** 3 * 2 ** 3 * 6}[difficulty],
        "terms": [list(t) for t in terms],
        "premises": [list(p) for p in premises],
        "answer": list(answer) if answer else None,
        "distractors": [list(c) for c in wrong],  # the first three; "none follows" may replace the third
        "none_follows": answer is None,
    }
    q = f"{intro} {body} {ask}"
    return Item(q, answer_text, "multiple_choice", pick_distractors(answer_text, wrong_texts), params)


# ============================================================================================
# propositional_logic
# ============================================================================================

_LETTERS = ("P", "Q", "R", "S")
_LEGEND = "(¬ means not, ∧ and, ∨ or, → implies, ↔ if and only if)"

# equivalence items: families of four (source, answer) pairs whose four answers are the options.
# Each answer is equivalent to its own source and to no other source of the family, so whichever
# source is shown the options are the same four formulas and the gold is drawn evenly among them:
# the gold is never the hub of its choices (with the named mistakes as edits of the gold, the gold
# was the option most like the other three), and every option is one slip from two others.
# X, Y, Z are placeholders. The 2 x 2 families of the medium level come from one law and two
# substitutions (X := not X, Y := not Y, double negations cancelled): for the source
# "not (P and Q)" the options are the answer "not P or not Q", the half-applied laws "P or not Q"
# and "not P or Q", and "P or Q"; each of these is the answer when the source's other letter
# (or both) carries a negation, so the respondent has to push the negations through.
_LAWS_MEDIUM = (
    (["not", ["and", "X", "Y"]], ["or", ["not", "X"], ["not", "Y"]]),  # De Morgan
    (["not", ["or", "X", "Y"]], ["and", ["not", "X"], ["not", "Y"]]),  # De Morgan
    (["imp", "X", "Y"], ["imp", ["not", "Y"], ["not", "X"]]),  # contraposition
    (["imp", "X", "Y"], ["or", ["not", "X"], "Y"]),  # material implication
    (["not", ["imp", "X", "Y"]], ["and", "X", ["not", "Y"]]),  # negated implication
)
# De Morgan's two laws, each with both letters negated: the wrong De Morgan ("not P and not Q"
# for "not (P and Q)") is the answer for "not (P or Q)"
_DE_MORGAN_DUAL = (
    (["not", ["and", "X", "Y"]], ["or", ["not", "X"], ["not", "Y"]]),
    (["not", ["or", "X", "Y"]], ["and", ["not", "X"], ["not", "Y"]]),
    (["not", ["and", ["not", "X"], ["not", "Y"]]], ["or", "X", "Y"]),
    (["not", ["or", ["not", "X"], ["not", "Y"]]], ["and", "X", "Y"]),
)
# hard: distribution both ways round, with the classic slips (the other distributive law, the
# operand left out of the distribution); proof by cases and its relatives, with the slips "and"
# for "or" and the converse; exportation followed by material implication, with a negation lost
# in either step
_FAMILIES_HARD = (
    ((["and", "X", ["or", "Y", "Z"]], ["or", ["and", "X", "Y"], ["and", "X", "Z"]]),
     (["or", "X", ["and", "Y", "Z"]], ["and", ["or", "X", "Y"], ["or", "X", "Z"]]),
     (["and", ["or", "X", "Z"], ["or", "Y", "Z"]], ["or", ["and", "X", "Y"], "Z"]),
     (["or", ["and", "X", "Z"], ["and", "Y", "Z"]], ["and", ["or", "X", "Y"], "Z"])),
    ((["imp", ["or", "X", "Y"], "Z"], ["and", ["imp", "X", "Z"], ["imp", "Y", "Z"]]),
     (["imp", ["and", "X", "Y"], "Z"], ["or", ["imp", "X", "Z"], ["imp", "Y", "Z"]]),
     (["imp", "Z", ["and", "X", "Y"]], ["and", ["imp", "Z", "X"], ["imp", "Z", "Y"]]),
     (["imp", "Z", ["or", "X", "Y"]], ["or", ["imp", "Z", "X"], ["imp", "Z", "Y"]])),
    ((["imp", ["and", "X", "Y"], "Z"], ["imp", "X", ["imp", "Y", "Z"]]),
     (["imp", ["and", "X", ["not", "Y"]], "Z"], ["imp", "X", ["or", "Y", "Z"]]),
     (["imp", ["and", ["not", "X"], "Y"], "Z"], ["or", "X", ["imp", "Y", "Z"]]),
     (["imp", ["and", ["not", "X"], ["not", "Y"]], "Z"], ["or", "X", ["or", "Y", "Z"]])),
)


def _negated_places(f, flip: frozenset):
    """Template f with the placeholders in `flip` replaced by their negations (not not X is X)."""
    if isinstance(f, str):
        return ["not", f] if f in flip else f
    if f[0] == "not":
        return neg(_negated_places(f[1], flip))
    return [f[0], *(_negated_places(g, flip) for g in f[1:])]


def _substitution_family(law) -> tuple:
    left, right = law
    corners = (frozenset(), frozenset("X"), frozenset("Y"), frozenset("XY"))
    return tuple((_negated_places(left, c), _negated_places(right, c)) for c in corners)


_FAMILIES_MEDIUM = (*(_substitution_family(law) for law in _LAWS_MEDIUM), _DE_MORGAN_DUAL)
_TAUT = {
    "easy": (["or", "X", ["not", "X"]], ["not", ["and", "X", ["not", "X"]]], ["imp", ["and", "X", "Y"], "X"],
             ["imp", "X", ["or", "X", "Y"]], ["imp", "X", "X"]),
    "hard": (["imp", ["and", ["imp", "X", "Y"], "X"], "Y"], ["imp", ["and", ["imp", "X", "Y"], ["not", "Y"]], ["not", "X"]],
             ["imp", ["and", ["imp", "X", "Y"], ["imp", "Y", "Z"]], ["imp", "X", "Z"]],
             ["or", ["imp", "X", "Y"], ["imp", "Y", "X"]], ["imp", ["and", ["or", "X", "Y"], ["not", "X"]], "Y"],
             ["iff", ["imp", "X", "Y"], ["imp", ["not", "Y"], ["not", "X"]]]),
}
_NOT_TAUT = {
    "easy": (["or", "X", ["not", "Y"]], ["imp", ["or", "X", "Y"], "X"], ["imp", "X", ["and", "X", "Y"]],
             ["and", "X", ["not", "X"]], ["imp", "X", "Y"], ["or", "X", "Y"], ["iff", "X", ["not", "Y"]]),
    "hard": (["imp", ["and", ["imp", "X", "Y"], "Y"], "X"], ["imp", ["and", ["imp", "X", "Y"], ["not", "X"]], ["not", "Y"]],
             ["imp", ["imp", "X", "Y"], ["imp", "Y", "X"]], ["imp", ["and", ["or", "X", "Y"], "X"], ["not", "Y"]],
             ["imp", ["and", ["imp", "X", "Y"], ["imp", "X", "Z"]], ["imp", "Y", "Z"]],
             ["iff", ["imp", "X", "Y"], ["imp", "Y", "X"]], ["and", ["imp", "X", "Y"], ["imp", "Y", "X"]]),
}


def _fill(template, binding: dict):
    if isinstance(template, str):
        return binding.get(template, template)
    return [template[0], *(_fill(t, binding) for t in template[1:])]


def _commuted(rng: random.Random, f):
    """f with the operands of a top-level "and"/"or" swapped half the time (the same formula)."""
    if isinstance(f, list) and f[0] in ("and", "or") and rng.random() < 0.5:
        return [f[0], f[2], f[1]]
    return f


def _assignment_text(env: dict) -> str:
    return ", ".join(f"{a} {'true' if v else 'false'}" for a, v in sorted(env.items()))


@DOMAIN.subcategory(
    "propositional_logic",
    difficulty={
        "easy": "2 variables, formulas of depth 1-2: which formula is true under an assignment, which row makes "
                "a formula true, how many rows are true, which formula is a tautology (simple laws)",
        "medium": "3 variables, depth 2; adds equivalence by De Morgan, contraposition, material implication "
                  "and negated implication, with negated letters pushed through",
        "hard": "3-4 variables, depth 3 (counting rows of 16); equivalence by distribution (both ways round), "
                "proof by cases and its converse and dual forms, exportation with material implication; tautologies "
                "such as hypothetical syllogism vs their fallacious twins",
    },
)
def propositional_logic(rng: random.Random, difficulty: str) -> Item:
    n_vars = {"easy": 2, "medium": 3, "hard": rng.choice((3, 4))}[difficulty]
    d = {"easy": rng.randint(1, 2), "medium": 2, "hard": 3}[difficulty]
    atoms = list(_LETTERS[:n_vars])
    kinds = ["which_true", "satisfying", "count", "tautology"] + (["equivalent"] * 2 if difficulty != "easy" else [])
    kind = rng.choice(kinds)
    base = {"kind": kind, "n_vars": n_vars, "depth": d}
    # formulas in words are quoted inside the question so that "X implies Y?" cannot swallow the sentence
    show = in_symbols if rng.random() < 0.5 else (lambda f: f"“{in_words(f)}”")
    legend = f" {_LEGEND}" if show is in_symbols else ""

    if kind == "which_true":
        # the answer is the first formula true under the assignment; a formula false under it is kept
        # as a wrong choice with a chance that grows with the share p of rows that make it true
        # (p / (1 - p), scaled), so that it is offered as a wrong choice three times as often as it is
        # the answer. Taken as drawn, "P and Q" (true in one row of four) was the answer in 8% of the
        # items that offered it and "P or Q" in half. Over three or four letters the formulas of every
        # share of true rows are now the answer in 20-28% of their offers; over two letters, where an
        # assignment leaves only one wrong truth table true in three rows and no two wrong choices
        # may share a truth table, still 13% (one row), 18% (two) and 39% (three).
        env = {a: rng.random() < 0.5 for a in atoms}
        n_rows = 2 ** n_vars
        true_f, false_fs, seen = None, [], set()
        while true_f is None or len(false_fs) < 3:
            f = random_formula(rng, atoms, d)
            if set(atoms_of(f)) != set(atoms) and n_vars > 2:
                continue
            # each letter read as its negation half the time, so that every assignment makes as many
            # of the formulas true as any other (with "or" and bare letters commoner, "P and Q" would
            # compete with more true formulas under P, Q true than "not P and not Q" under both false)
            f = _negated_places(f, frozenset(a for a in atoms if rng.random() < 0.5))
            mask = truth_mask(f, tuple(atoms))
            n_true = bin(mask).count("1")
            if n_true in (0, n_rows):  # never true or never false: only ever one of the two
                continue
            if evaluate(f, env):
                true_f = true_f or f
            # no two wrong formulas with one truth table ("P or Q", "Q or P"): the two could be struck
            # off together, as the one true formula cannot have a twin
            elif rng.random() < n_true / (n_rows - n_true) / (n_rows - 1) and mask not in seen:
                seen.add(mask)
                false_fs.append(f)
        q = rng.choice((f"Suppose {_assignment_text(env).replace(' true', ' is true').replace(' false', ' is false')}. "
                        "Which of the following formulas is true?",
                        f"Under the assignment {_assignment_text(env)}, which one of these formulas evaluates to true?"))
        params = {**base, "assignment": env, "answer": true_f, "options": false_fs}
        return Item(q, in_words(true_f), "multiple_choice", pick_distractors(in_words(true_f), [in_words(f) for f in false_fs]),
                    params)

    if kind in ("satisfying", "count"):
        total = 2 ** n_vars
        # a count is drawn first, uniform over every count the table allows (none to all rows), and a
        # formula with it searched for: left to the formulas, 3 of 4 true rows would be the commonest
        # answer and, with two variables and one to total - 3 true rows, 1 the only one
        target = rng.randint(0, total) if kind == "count" else None
        if target is not None:
            d = max(d, 2)  # no formula of depth 1 in two letters is true in none or all rows
        while True:
            f = random_formula(rng, atoms, d)
            if set(atoms_of(f)) != set(atoms):
                continue
            if kind == "satisfying":
                # each letter read as its negation half the time: the formulas lean to "or" and to
                # letters without "not", so a row that makes one true had more letters true than a
                # row that makes it false (1.45 against 1.31) and the shortest choice ("true" is
                # shorter than "false") was the gold in 31% of the items
                f = _negated_places(f, frozenset(a for a in atoms if rng.random() < 0.5))
            table = [(env, evaluate(f, env)) for env in rows(atoms)]
            n_true = sum(v for _, v in table)
            if n_true == target if target is not None else 1 <= n_true <= total - 3:
                break
        shown = show(f)
        if kind == "count":
            q = rng.choice((f"In the full truth table of {shown}{legend}, how many of the {total} rows make the formula true?",
                            f"For how many assignments of truth values to {', '.join(atoms)} is {shown} true?{legend}",
                            f"Count the rows of the truth table in which {shown} comes out true.{legend}"))
            # every count from 0 to the table's size is a miscount someone makes; three others drawn
            # evenly, so with the gold drawn evenly too no count is the gold more often than offered
            wrong = rng.sample([c for c in range(total + 1) if c != n_true], 3)
            return Item(q, fmt_num(n_true), "exact_numeric", tuple(fmt_num(w) for w in wrong), {**base, "formula": f})
        good = [env for env, v in table if v]
        bad = [env for env, v in table if not v]
        env = rng.choice(good)
        rng.shuffle(bad)
        q = rng.choice((f"Which assignment of truth values makes {shown} true?{legend}",
                        f"The formula {shown} is true under exactly one of the following assignments. Which one?{legend}"
                        if len(good) == 1 else f"Which of these assignments makes {shown} true?{legend}"))
        ans = _assignment_text(env)
        return Item(q, ans, "multiple_choice", pick_distractors(ans, [_assignment_text(e) for e in bad]),
                    {**base, "formula": f, "answer": env, "options": bad[:3]})

    if kind == "tautology":
        level = "easy" if difficulty == "easy" else "hard" if difficulty == "hard" or rng.random() < 0.5 else "easy"
        letters = rng.sample(atoms, min(3, n_vars))
        binding = dict(zip("XYZ", letters + [letters[0]] * (3 - len(letters))))
        taut = _fill(rng.choice(_TAUT[level]), binding)
        fakes = [_fill(t, binding) for t in _NOT_TAUT[level]]
        rng.shuffle(fakes)
        fakes = [f for f in fakes if not all(evaluate(f, env) for env in rows(atoms_of(f)))]
        q = rng.choice(("Which of the following formulas is a tautology (true under every assignment)?",
                        "Exactly one of these formulas is true no matter what truth values its letters take. Which one?",
                        "Which formula below is logically valid, i.e. true in every row of its truth table?"))
        ans = in_words(taut)
        item = Item(q, ans, "multiple_choice", pick_distractors(ans, [in_words(f) for f in fakes]),
                    {**base, "answer": taut, "options": fakes, "depth": depth(taut)})
        chosen = {in_words(f): f for f in fakes}
        item.params["options"] = [chosen[t] for t in item.distractors]
        return item

    # equivalent: one family of four (source, answer) pairs, read either way round, and one of its
    # sources shown; the four answers are the options, so the gold is drawn evenly among them
    families = _FAMILIES_MEDIUM if difficulty == "medium" else _FAMILIES_HARD
    family = rng.choice(families)
    if rng.random() < 0.3:
        family = tuple((right, left) for left, right in family)
    pieces = rng.sample(atoms, min(3, n_vars))
    spare = [a for a in atoms if a not in pieces]
    if difficulty == "hard" and spare and rng.random() < 0.6:  # one placeholder becomes a compound
        pieces[0] = ["and" if rng.random() < 0.5 else "or", pieces[0], spare[0]]
    binding = dict(zip("XYZ", pieces + pieces[:1] * (3 - len(pieces))))
    pick = rng.randrange(4)
    src = _commuted(rng, _fill(family[pick][0], binding))
    # "and"/"or" operands in either order: with a fixed order "Q or not P" would never be seen
    options = [_commuted(rng, _fill(answer, binding)) for _, answer in family]
    ans_f = options[pick]
    wrong_fs = options[:pick] + options[pick + 1:]
    if not equivalent(ans_f, src) or any(equivalent(w, src) for w in wrong_fs):  # pragma: no cover
        raise AssertionError(f"equivalence family broken for {src}")
    q = rng.choice((f"Which formula is logically equivalent to {show(src)}?{legend}",
                    f"Which of the following has exactly the same truth table as {show(src)}?{legend}",
                    f"{show(src)} can be rewritten, without changing its meaning, as which of these?{legend}"))
    ans = in_words(ans_f)
    item = Item(q, ans, "multiple_choice", pick_distractors(ans, [in_words(w) for w in wrong_fs]),
                {**base, "formula": src, "answer": ans_f, "depth": max(d, depth(src))})
    chosen = {in_words(w): w for w in wrong_fs}
    item.params["options"] = [chosen[t] for t in item.distractors]
    return item


# ============================================================================================
# set_relations
# ============================================================================================

# (where, who, auxiliary verb, three (phrase, bare phrase) activities)
_SET_SCENES = (
    ("in a class", "students", "do", (("play football", "play football"), ("play tennis", "play tennis"), ("play chess", "play chess"))),
    ("in a book club", "members", "do", (("read crime novels", "read crime novels"), ("read poetry", "read poetry"),
                                      ("read science fiction", "read science fiction"))),
    ("at a wedding", "guests", "did", (("ordered fish", "order fish"), ("ordered dessert", "order dessert"),
                                    ("ordered wine", "order wine"))),
    ("at a company", "employees", "do", (("speak French", "speak French"), ("speak Spanish", "speak Spanish"),
                                      ("speak German", "speak German"))),
    ("questioned in a station survey", "people", "do", (("own a car", "own a car"), ("own a bicycle", "own a bicycle"),
                                          ("own a scooter", "own a scooter"))),
    ("at a summer camp", "children", "did", (("went swimming", "go swimming"), ("went canoeing", "go canoeing"),
                                          ("went climbing", "go climbing"))),
    ("questioned at a zoo", "visitors", "did", (("saw the lions", "see the lions"), ("saw the penguins", "see the penguins"),
                                                   ("saw the giraffes", "see the giraffes"))),
    ("at a clinic", "patients", "had", (("had a flu jab", "have a flu jab"), ("had a blood test", "have a blood test"),
                                     ("had an eye test", "have an eye test"))),
)


def _two_set_item(rng: random.Random, difficulty: str) -> Item:
    return _at_random_rank(_two_set_draw, rng, difficulty)


def _two_set_draw(rng: random.Random, rank: int, difficulty: str) -> Item | None:
    where, noun, aux, acts = rng.choice(_SET_SCENES)
    aux = "did" if aux == "had" else aux
    (a_txt, a_base), (b_txt, b_base) = rng.sample(acts, 2)
    while True:
        both, only_a, only_b, neither = (rng.randint(1, 25) for _ in range(4))
        if len({both, only_a, only_b, neither}) == 4:
            break
    A, B = only_a + both, only_b + both
    total = A + B - both + neither
    kind = rng.choice(("neither", "only_a", "either") if difficulty == "easy" else ("both", "only_one", "neither_from_parts"))
    lead = rng.choice((f"Of the {total} {noun} {where}", f"Among {total} {noun} {where}"))
    if kind in ("neither", "only_a", "either", "only_one"):
        given = {"total": total, "A": A, "B": B, "both": both}
        facts = f"{lead}, {A} {a_txt}, {B} {b_txt}, and {both} {aux} both."
    elif kind == "both":
        given = {"total": total, "A": A, "B": B, "neither": neither}
        facts = f"{lead}, {A} {a_txt}, {B} {b_txt}, and {neither} {aux} neither."
    else:
        given = {"total": total, "only_A": only_a, "only_B": only_b, "both": both}
        facts = (f"{lead}, {only_a} {a_txt} but {aux} not {b_base}, {only_b} {b_txt} but {aux} not {a_base}, "
                 f"and {both} {aux} both.")
    if kind in ("neither", "neither_from_parts"):
        ask = rng.choice((f"How many {noun} {aux} neither?", f"How many of the {noun} {aux} neither of the two?"))
        ans = neither
        wrong = [total - A - B, A + B - both, total - both, total - (only_a + only_b)]
    elif kind == "only_a":
        ask = f"How many {noun} {a_txt} but {aux} not {b_base}?"
        ans = only_a
        wrong = [A, both, only_b, A + both]
    elif kind == "either":
        ask = f"How many {noun} {aux} at least one of the two?"
        ans = A + B - both
        wrong = [A + B, total - both, A + B - 2 * both, neither]
    elif kind == "both":
        ask = rng.choice((f"How many {noun} {aux} both?", f"How many of the {noun} {aux} both of the two?"))
        ans = both
        wrong = [A + B - total, total - neither, A + B - (total - neither) + neither, min(A, B)]
    else:  # only_one
        ask = f"How many {noun} {aux} exactly one of the two?"
        ans = only_a + only_b
        wrong = [A + B, A + B - both, total - neither, total - both]
    q = f"{facts} {ask}"
    params = {"kind": "two_sets", "asked": kind, "given": given, "steps": 1 if difficulty == "easy" else 2}
    return _numeric(q, ans, wrong, params, rank, hi=total)  # no count above the whole group


def _count_family(ans: int, named: list, rank: int, hi: int | None = None, must: int | None = None) -> list | None:
    """Three wrong counts that, with the answer, form a 2 x 2 family {x, x+a, x+b, x+a+b} of two
    errors (every choice one error from two others, no centre), with the answer at `rank` among the
    four (0 = smallest), none below 1 nor above `hi`, `must` among them; the named errors first,
    then slips of 1, 2, 3, 5 and 10. None when no family puts the answer there (a gold of 2 cannot be
    the largest).

    A count of 1 is offered as a slip only when no family fits without it: 1 can be the gold only
    when it is the smallest choice, which the caller draws for one item in four, so as a slip it has
    to be rare too, or it would be one to strike off unread."""
    deltas: list[int] = []
    for d in [w - ans for w in named] + [sign * k for k in (1, 2, 3, 5, 10) for sign in (1, -1)]:
        if d and d not in deltas:
            deltas.append(d)
    corners = ((0, 0), (1, 0), (0, 1), (1, 1))
    for floor in ((2, 1) if ans > 1 else (1,)):
        for i, a in enumerate(deltas):
            for b in deltas[i + 1:]:
                if a == b or a + b == 0:
                    continue
                for s1, s2 in corners:
                    wrong = [ans + (t1 - s1) * a + (t2 - s2) * b for t1, t2 in corners if (t1, t2) != (s1, s2)]
                    if (min(wrong) >= floor and (hi is None or max(wrong) <= hi) and (must is None or must in wrong)
                            and sum(w < ans for w in wrong) == rank):
                        return wrong
    return None


def _numeric(q: str, ans: int, wrong: list, params: dict, rank: int, hi: int | None = None) -> Item | None:
    """Counts: wrong values from the named errors as a 2 x 2 family with the answer at `rank`, drawn
    evenly by the caller before the puzzle: left to the family's corners, the answer could sit on top
    only when every error fitted below it above 0, so it was the largest choice in 6% of the listed
    set items and the smallest in 36%. None when the answer cannot take that rank (the caller draws
    another puzzle). No set item's count is 0 (every region is drawn non-empty, an empty listed
    result is drawn again), so 0 is never offered either: a choice that is never the gold is one a
    respondent strikes off unread."""
    named = [w for w in wrong if w is not None and w >= 1]
    family = _count_family(ans, named, rank, hi)
    if family is None:
        return None
    return Item(q, fmt_num(ans), "exact_numeric", pick_distractors(fmt_num(ans), [fmt_num(w) for w in family]), params)


def _at_random_rank(draw, rng: random.Random, *args) -> Item:
    """The answer's rank among the four counts drawn first, evenly; puzzles drawn until one fits it."""
    rank = rng.randrange(4)
    while True:
        item = draw(rng, rank, *args)
        if item is not None:
            return item


_UNIVERSES = (
    ("the whole numbers from 1 to 20", list(range(1, 21))),
    ("the whole numbers from 1 to 30", list(range(1, 31))),
    ("the whole numbers from 10 to 40", list(range(10, 41))),
)
_PROPS = {
    "even numbers": lambda n: n % 2 == 0, "odd numbers": lambda n: n % 2 == 1,
    "multiples of 3": lambda n: n % 3 == 0, "multiples of 4": lambda n: n % 4 == 0,
    "multiples of 5": lambda n: n % 5 == 0, "prime numbers": lambda n: n > 1 and all(n % d for d in range(2, int(n ** 0.5) + 1)),
    "perfect squares": lambda n: int(n ** 0.5) ** 2 == n, "numbers whose digits add up to an even number":
        lambda n: sum(map(int, str(n))) % 2 == 0, "numbers greater than 15": lambda n: n > 15,
    "numbers with a 1 among their digits": lambda n: "1" in str(n),
}
_SET_OPS = {
    "union": "in A or B (or both)", "intersection": "in both A and B", "difference": "in A but not in B",
    "symmetric": "in exactly one of A and B",
}


def _explicit_set_item(rng: random.Random, difficulty: str) -> Item:
    """The answer's rank drawn first, then its value, evenly from those that rank allows (a size of
    1 can only be the smallest choice), then sets searched for it. Left to the sets, a size of 1
    would be a quarter as common as 4 while every count of 2 to 4 ranked above the smallest has to
    offer it as a slip, and 1 was the gold in 4% of the items offering it; with the sizes even, 1
    is the gold about as often as the slips that need it are drawn (23% of its offers)."""
    listed = difficulty == "medium" or rng.random() < 0.5
    rank = rng.randrange(4)
    target = rng.randint(rank + 1, _EXPLICIT_MAX)
    while True:
        item = _explicit_set_draw(rng, rank, target, listed)
        if item is not None:
            return item


_EXPLICIT_MAX = 12  # answers of the listed and described set items: 1 to 12, evenly


def _explicit_set_draw(rng: random.Random, rank: int, target: int, listed: bool) -> Item | None:
    """One listed or described set item of answer `target`, or None when the asked set has another
    size or the wrong answers cannot put it at `rank` (drawn again)."""
    if listed:
        # listed elements
        A = sorted(rng.sample(range(1, 25), rng.randint(5, 9)))
        B = sorted(set(rng.sample(A, rng.randint(1, 4))) | set(rng.sample(range(1, 25), rng.randint(3, 6))))
        op = rng.choice(sorted(_SET_OPS))
        desc = f"Let A = {{{', '.join(map(str, A))}}} and B = {{{', '.join(map(str, B))}}}."
        params = {"kind": "listed", "A": A, "B": B, "op": op, "steps": 2}
    else:
        uni_text, uni = rng.choice(_UNIVERSES)
        pa, pb = rng.sample(sorted(_PROPS), 2)
        A = [n for n in uni if _PROPS[pa](n)]
        B = [n for n in uni if _PROPS[pb](n)]
        op = rng.choice(sorted(_SET_OPS))
        desc = f"Among {uni_text}, let A be the set of {pa} and B the set of {pb}."
        params = {"kind": "described", "universe": uni_text, "A_property": pa, "B_property": pb, "op": op, "steps": 3}
    inter = len(set(A) & set(B))
    sizes = {"union": len(set(A) | set(B)), "intersection": inter, "difference": len(set(A) - set(B)),
             "symmetric": len(set(A) ^ set(B))}
    ans = sizes[op]
    if ans != target:
        return None
    wrong = [sizes[o] for o in sorted(sizes) if o != op] + [len(A) + len(B), len(A) - len(B) if len(A) > len(B) else None]
    q = rng.choice((f"{desc} How many numbers are {_SET_OPS[op]}?", f"{desc} How many elements are {_SET_OPS[op]}?"))
    # no count above the two sets' sizes added together, the largest slip anyone makes
    return _numeric(q, ans, wrong, params, rank, hi=len(A) + len(B))


def _three_set_item(rng: random.Random) -> Item:
    return _at_random_rank(_three_set_draw, rng)


def _three_set_draw(rng: random.Random, rank: int) -> Item | None:
    where, noun, aux, acts = rng.choice(_SET_SCENES)
    aux = "did" if aux == "had" else aux
    (a_txt, a_base), (b_txt, b_base), (c_txt, c_base) = rng.sample(acts, 3)
    # region sizes: only A, only B, only C, A and B only, A and C only, B and C only, all three, none
    while True:
        r = {k: rng.randint(1, 15) for k in ("a", "b", "c", "ab", "ac", "bc", "abc", "none")}
        if len(set(r.values())) >= 6:
            break
    A = r["a"] + r["ab"] + r["ac"] + r["abc"]
    B = r["b"] + r["ab"] + r["bc"] + r["abc"]
    C = r["c"] + r["ac"] + r["bc"] + r["abc"]
    AB, AC, BC = r["ab"] + r["abc"], r["ac"] + r["abc"], r["bc"] + r["abc"]
    total = sum(r.values())
    asked = rng.choice(("none", "exactly_one", "exactly_two", "only_a"))
    facts = (f"Of the {total} {noun} {where}, {A} {a_txt}, {B} {b_txt} and {C} {c_txt}. "
             f"{AB} {a_txt} and {b_txt}, {AC} {a_txt} and {c_txt}, and {BC} {b_txt} and {c_txt}; "
             f"each of these three counts includes the {r['abc']} who {aux} all three.")
    union = A + B + C - AB - AC - BC + r["abc"]
    if asked == "none":
        ask = f"How many {noun} {aux} none of the three?"
        ans = r["none"]
        wrong = [total - (A + B + C), total - (A + B + C - AB - AC - BC), total - union + r["abc"], total - (A + B + C) + AB + AC + BC]
    elif asked == "exactly_one":
        ask = f"How many {noun} {aux} exactly one of the three?"
        ans = r["a"] + r["b"] + r["c"]
        wrong = [A + B + C - AB - AC - BC, A + B + C - 2 * (AB + AC + BC), union, ans + r["abc"] * 3]
    elif asked == "exactly_two":
        ask = f"How many {noun} {aux} exactly two of the three?"
        ans = r["ab"] + r["ac"] + r["bc"]
        wrong = [AB + AC + BC, AB + AC + BC - r["abc"], AB + AC + BC - 2 * r["abc"], ans + r["abc"]]
    else:
        ask = f"How many {noun} {a_txt} but {aux} not {b_base} and {aux} not {c_base}?"
        ans = r["a"]
        wrong = [A - AB - AC, A - AB - AC + 2 * r["abc"], A - r["abc"], A]
    params = {"kind": "three_sets", "asked": asked, "given": {"total": total, "A": A, "B": B, "C": C, "AB": AB,
                                                              "AC": AC, "BC": BC, "ABC": r["abc"]}, "steps": 4}
    return _numeric(f"{facts} {ask}", ans, wrong, params, rank, hi=total)


def _subset_item(rng: random.Random) -> Item:
    """The asked count first, then the gold's rank, then sizes searched for it. The union offers |A|
    below its gold, so its gold is never the smallest choice, and B outside A (with |B| stated)
    offers |B| above it, so its gold is never the largest: each takes its three ranks evenly and is
    drawn half as often as the other counts, whose gold is the smallest or the largest choice
    5 times in 18 (not 1 in 4), so that over the kind every rank is the gold's one time in four."""
    asked = rng.choice(("union", "big_not_small", *(("neither", "big_from_neither", "big_not_small_from_neither") * 2)))
    if asked == "union":
        rank = 1 + rng.randrange(3)
    elif asked == "big_not_small":
        rank = rng.randrange(3)
    else:
        rank = rng.choices(range(4), weights=(5, 4, 4, 5))[0]
    while True:
        item = _subset_draw(rng, rank, asked)
        if item is not None:
            return item


def _subset_draw(rng: random.Random, rank: int, asked: str) -> Item | None:
    """A ⊆ B with sizes: the elements of A or B, of B outside A, of neither set, or of B itself.

    The facts give the total, |A| and either |B| or the number in neither set. Asked how many are
    in A or B with |B| stated, the answer is a number the question states, so the stated numbers
    are balanced across the asked counts: the union also offers |A| (the smaller group reported),
    B outside A offers |B| (the smaller group not taken out), and no other choice repeats a stated
    number. "Pick the choice the question mentions" then wins one union item in two and no B
    outside A item, and is left to chance elsewhere (it won 45% of these items when the union
    offered |B| alone and the other counts offered stated numbers only by accident)."""
    scene = rng.choice((("every cat in the shelter is vaccinated", "cats", "vaccinated animals", "animals in the shelter"),
                        ("every member of the choir is also in the drama club", "choir members", "drama club members", "pupils"),
                        ("every red marble in the jar is also glass", "red marbles", "glass marbles", "marbles"),
                        ("everyone on the night shift also works weekends", "night-shift staff", "weekend staff", "staff")))
    rule, small, big, universe = scene
    a = rng.randint(3, 20)
    b = a + rng.randint(1, 25)
    u = b + rng.randint(1, 30)
    n = u - b
    if asked in ("union", "big_not_small", "neither"):
        facts = f"Of {u} {universe}, {b} are {big} and {a} are {small}; {rule}."
        stated, given = {u, b, a}, {"total": u, "A": a, "B": b}
    else:
        facts = f"Of {u} {universe}, {a} are {small} and {n} are neither {small} nor {big}; {rule}."
        stated, given = {u, a, n}, {"total": u, "A": a, "neither": n}
    echo = None  # the one wrong choice that repeats a stated number
    if asked == "union":  # slips: the smaller group reported, adding, B outside A, not-A
        q, ans, wrong, echo = f"{facts} How many are {small} or {big} (or both)?", b, [a, a + b, b - a, u - a], a
    elif asked == "big_not_small":  # slips: A not taken out, adding, the wrong region, not-A, A and B disjoint
        q, ans, wrong, echo = f"{facts} How many are {big} but not {small}?", b - a, [b, a + b, u - b, u - a, u - a - b], b
    elif asked == "neither":  # slips: A and B taken as disjoint, only A removed, B outside A, A added back
        q, ans, wrong = f"{facts} How many are neither {small} nor {big}?", u - b, [u - a - b, u - a, b - a, u - b + a]
    elif asked == "big_from_neither":  # slips: A taken as outside B, neither not removed, A counted twice
        q, ans, wrong = f"{facts} How many are {big}?", u - n, [u - n - a, u - a, u - n + a]
    else:  # slips: A left in, neither left in, A removed twice
        q, ans, wrong = f"{facts} How many are {big} but not {small}?", u - n - a, [u - n, u - a, u - n - 2 * a]
    params = {"kind": "subset", "asked": asked, "given": given, "steps": 2}
    family = _count_family(ans, [w for w in wrong if w >= 1], rank, hi=u, must=echo)
    if family is None or {ans, *family} & stated != ({ans} if asked == "union" else set()) | ({echo} if echo else set()):
        return None
    return Item(q, fmt_num(ans), "exact_numeric", pick_distractors(fmt_num(ans), [fmt_num(w) for w in family]), params)


@DOMAIN.subcategory(
    "set_relations",
    difficulty={
        "easy": "two overlapping groups with the overlap given: neither, only one, at least one",
        "medium": "two groups with the overlap to be found, exactly one of two, listed sets (union, intersection, "
                  "difference, symmetric difference), a subset relation",
        "hard": "three overlapping groups by inclusion-exclusion (none, exactly one, exactly two, only the first), "
                "sets described by number properties",
    },
)
def set_relations(rng: random.Random, difficulty: str) -> Item:
    if difficulty == "easy":
        return _two_set_item(rng, "easy")
    if difficulty == "medium":
        return rng.choice((lambda r: _two_set_item(r, "medium"), lambda r: _explicit_set_item(r, "medium"),
                           _subset_item))(rng)
    return rng.choice((_three_set_item, _three_set_item, lambda r: _explicit_set_item(r, "hard")))(rng)


# ============================================================================================
# conditional_reasoning
# ============================================================================================

FORM_NAMES = {"MP": "modus ponens (affirming the antecedent)", "MT": "modus tollens (denying the consequent)",
              "AC": "affirming the consequent", "DA": "denying the antecedent", "HS": "hypothetical syllogism"}
VALID_FORMS = ("MP", "MT", "HS")


def _lit(rng: random.Random, atom: str, allow_neg: bool):
    return ["not", atom] if allow_neg and rng.random() < 0.35 else atom


def _say_conditional(ant, cons, lex, rng: random.Random, varied: bool) -> str:
    A, C = say(ant, lex), say(cons, lex)
    forms = [f"If {A}, then {C}.", f"Whenever {A}, {C}."]
    if varied:
        forms += [f"{_cap(A)} only if {C}.", f"{_cap(C)} if {A}.", f"Provided that {A}, {C}."]
    return rng.choice(forms)


def _minor_for(form: str, ant, cons):
    return {"MP": ant, "MT": neg(cons), "AC": cons, "DA": neg(ant)}[form]


def _conclusion_for(form: str, ant, cons):
    return {"MP": cons, "MT": neg(ant), "AC": ant, "DA": neg(cons)}[form]


def _undetermined(atom: str, lex) -> str:
    return f"It cannot be determined whether {lex[atom][0]}."


def _cond_single(rng: random.Random, difficulty: str) -> Item:
    """One conditional and one fact: what follows about the other clause? The fourth option brings in
    a third statement of the same scene that the premises leave open (a converse or inverse would be
    vacuously true once the fact is given): alone (a non sequitur) or added to the conclusion a hasty
    reader draws (claiming more than follows), so that it is not always the odd one out."""
    _, lex = _scene(rng, 3)
    varied = difficulty != "easy"
    ant, cons = _lit(rng, "a", varied), _lit(rng, "b", varied)
    form = rng.choice(SINGLE_FORMS)
    minor = _minor_for(form, ant, cons)
    target = "b" if form in ("MP", "DA") else "a"
    cond_text = _say_conditional(ant, cons, lex, rng, varied)
    premises = [["imp", ant, cons], minor]
    stray = _lit(rng, "c", True)
    if rng.random() < OVERREACH:
        stray = ["and", rng.choice((target, ["not", target])), stray]
    options = {sentence(target, lex): target, sentence(["not", target], lex): ["not", target],
               _undetermined(target, lex): "undetermined", sentence(stray, lex): stray}
    answer = next(t for t, f in options.items() if _option_holds(f, premises, target))
    q = (f"{cond_text} {sentence(minor, lex)} " +
         rng.choice(("Which of the following follows?", "What can be concluded?",
                     "Which statement is a valid conclusion from these two facts?")))
    wrong = [t for t in options if t != answer]
    params = {"format": "single", "n_conditionals": 1, "premises": premises, "target": target, "form": form,
              "options": [[t, f] for t, f in options.items()], "atoms": {k: list(v) for k, v in lex.items()}}
    return Item(q, answer, "multiple_choice", pick_distractors(answer, wrong), params)


OVERREACH = 0.5
SINGLE_FORMS = ("MP", "MP", "MT", "MT", "AC", "DA")


def _option_holds(option, premises, target) -> bool:
    """Is this option a correct answer: entailed, or 'undetermined' when neither the target nor its
    negation is entailed?"""
    if option == "undetermined":
        return not entails(premises, target) and not entails(premises, ["not", target])
    return entails(premises, option)


def _cond_double(rng: random.Random, difficulty: str) -> Item:
    """Two conditionals, two facts: one licenses a valid step, the other is bait for a fallacy."""
    _, lex = _scene(rng, 4)
    varied = difficulty == "hard"
    c1 = (_lit(rng, "a", varied), _lit(rng, "b", varied))
    c2 = (_lit(rng, "c", varied), _lit(rng, "d", varied))
    good = rng.choice(("MP", "MT"))
    bad = rng.choice(("AC", "DA"))
    m1, m2 = _minor_for(good, *c1), _minor_for(bad, *c2)
    premises = [["imp", *c1], ["imp", *c2], m1, m2]
    right = _conclusion_for(good, *c1)
    fallacy = _conclusion_for(bad, *c2)
    options = [right, neg(right), fallacy, neg(fallacy)]
    lines = [_say_conditional(*c1, lex, rng, varied), _say_conditional(*c2, lex, rng, varied), sentence(m1, lex), sentence(m2, lex)]
    if rng.random() < 0.5:
        lines[0], lines[1] = lines[1], lines[0]
    q = " ".join(lines) + " " + rng.choice(("Which of the following must be true?", "Which one of these conclusions is valid?"))
    texts = [sentence(o, lex) for o in options]
    params = {"format": "double", "n_conditionals": 2, "premises": premises, "valid_form": good, "bait_form": bad,
              "options": [[t, o] for t, o in zip(texts, options)], "atoms": {k: list(v) for k, v in lex.items()}}
    return Item(q, texts[0], "multiple_choice", pick_distractors(texts[0], texts[1:]), params)


def _cond_chain(rng: random.Random, difficulty: str) -> Item:
    """A chain of conditionals. Either: which conditional follows (the hypothetical syllogism, offered as
    itself or as its contrapositive, against one conditional of each other truth table between the two
    ends: the converse or the inverse, the end read the other way, the start read the other way), or:
    a fact at one end, what follows about the other (chained modus ponens/tollens, or the chained
    fallacies, where nothing follows). The ends read as their negations half the time, so no option's
    wording marks its role."""
    n = 2 if difficulty == "medium" else rng.choice((2, 3))
    _, lex = _scene(rng, n + 1)
    atoms = [chr(ord("a") + i) for i in range(n + 1)]
    lits = [_lit(rng, a, difficulty == "hard") for a in atoms]
    lits[0], lits[-1] = (rng.choice((a, ["not", a])) for a in (atoms[0], atoms[-1]))
    conds = [["imp", lits[i], lits[i + 1]] for i in range(n)]
    first, last = lits[0], lits[-1]
    lines = [_say_conditional(c[1], c[2], lex, rng, difficulty == "hard") for c in conds]
    rng.shuffle(lines)
    if rng.random() < 0.5:
        # one formula of each truth table, each written in one of its two directions
        families = ((["imp", first, last], ["imp", neg(last), neg(first)]),
                    (["imp", last, first], ["imp", neg(first), neg(last)]),
                    (["imp", first, neg(last)], ["imp", last, neg(first)]),
                    (["imp", neg(first), last], ["imp", neg(last), first]))
        options = [rng.choice(pair) for pair in families]
        answer = options[0]
        premises = conds
        ask = rng.choice(("Which conclusion follows from these statements?", "Which of the following can be validly concluded?"))
        target = None
        form = "conditional"
    else:  # chain + a fact at one end
        form = rng.choice(SINGLE_FORMS)
        fact = {"MP": first, "MT": neg(last), "AC": last, "DA": neg(first)}[form]
        hasty = {"MP": last, "MT": neg(first), "AC": first, "DA": neg(last)}[form]
        at_start = form in ("MP", "DA")
        target = atoms[-1] if at_start else atoms[0]
        nxt = lits[1] if at_start else lits[-2]  # the link next to the fact
        # about that link: the wrong reading (MP/MT fix it) or the hasty one (AC/DA leave it open)
        middle = {"MP": neg(nxt), "MT": nxt, "AC": nxt, "DA": neg(nxt)}[form]
        if rng.random() < OVERREACH:
            middle = ["and", hasty, middle]
        premises = conds + [fact]
        lines.append(sentence(fact, lex))
        options = [target, ["not", target], middle]
        ask = rng.choice(("What follows?", "Which statement must be true?"))
        answer = hasty if form in ("MP", "MT") else "undetermined"
    texts = [sentence(o, lex) for o in options]
    if target is not None:
        texts.append(_undetermined(target, lex))
        options.append("undetermined")
    params = {"format": "chain", "n_conditionals": n, "premises": premises, "target": target, "form": form,
              "options": [[t, o] for t, o in zip(texts, options)], "atoms": {k: list(v) for k, v in lex.items()}}
    ans = _undetermined(target, lex) if answer == "undetermined" else sentence(answer, lex)
    return Item(" ".join(lines) + " " + ask, ans, "multiple_choice",
                pick_distractors(ans, [t for t in texts if t != ans]), params)


def _cond_name_form(rng: random.Random, difficulty: str) -> Item:
    """Name the form of an argument (valid pattern or named fallacy)."""
    _, lex = _scene(rng, 2)
    ant, cons = _lit(rng, "a", difficulty == "hard"), _lit(rng, "b", difficulty == "hard")
    form = rng.choice(("MP", "MT", "AC", "DA"))
    minor, concl = _minor_for(form, ant, cons), _conclusion_for(form, ant, cons)
    who = rng.choice(NAMES)
    argument = (f"{who} reasons: \u201c{_say_conditional(ant, cons, lex, rng, False)} {sentence(minor, lex)} "
                f"So {say(concl, lex)}.\u201d")
    q = argument + " " + rng.choice(("Which pattern of reasoning is this?", "How is this argument best described?"))
    labels = [FORM_NAMES[f] for f in ("MP", "MT", "AC", "DA")]
    ans = FORM_NAMES[form]
    params = {"format": "name_form", "n_conditionals": 1, "conditional": ["imp", ant, cons], "minor": minor,
              "conclusion": concl, "form": form, "atoms": {k: list(v) for k, v in lex.items()}}
    return Item(q, ans, "multiple_choice", pick_distractors(ans, [x for x in labels if x != ans]), params)


def _cond_which_valid(rng: random.Random, difficulty: str) -> Item:
    """Four arguments from the same conditional; exactly one is valid. They come in two mirror pairs:
    the valid argument (modus ponens or tollens) beside the fallacy with the same two clauses the other
    way round (affirming the consequent, denying the antecedent), and the same pair with one clause
    read the other way (both wrong). The rule states that clause negated half the time, so which pair
    has more 'not's does not tell which holds the valid argument."""
    _, lex = _scene(rng, 2)
    flipped = rng.choice("ab")
    ant, cons = ((rng.choice((x, ["not", x])) if x == flipped else _lit(rng, x, difficulty != "easy")) for x in "ab")
    cond = _say_conditional(ant, cons, lex, rng, difficulty != "easy")
    good = rng.choice(("MP", "MT"))
    minor, concl = _minor_for(good, ant, cons), _conclusion_for(good, ant, cons)
    turn = lambda f: neg(f) if (f if isinstance(f, str) else f[1]) == flipped else f  # noqa: E731
    m2, c2 = turn(minor), turn(concl)
    args = [(minor, concl), (concl, minor), (m2, c2), (c2, m2)]
    texts = [f"{sentence(m, lex)[:-1]}, so {say(c, lex)}." for m, c in args]
    q = rng.choice((f"Take this rule as given: {cond} Which of the following arguments is valid?",
                    f"Everyone agrees on one rule: {cond} Using only that rule, which argument below is valid?"))
    params = {"format": "which_valid", "n_conditionals": 1, "conditional": ["imp", ant, cons], "form": good,
              "arguments": [[t, m, c] for t, (m, c) in zip(texts, args)], "atoms": {k: list(v) for k, v in lex.items()}}
    return Item(q, texts[0], "multiple_choice", pick_distractors(texts[0], texts[1:]), params)


@DOMAIN.subcategory(
    "conditional_reasoning",
    difficulty={
        "easy": "one 'if ... then' with positive clauses and one fact (modus ponens/tollens vs affirming the "
                "consequent/denying the antecedent); which of four arguments is valid",
        "medium": "negated clauses and other wordings ('only if', 'whenever', 'provided that'); chains of two "
                  "conditionals; naming the form of an argument",
        "hard": "two conditionals with one valid inference and one fallacy bait among four facts; chains of up to "
                "three conditionals with negations (hypothetical syllogism vs converse/inverse)",
    },
)
def conditional_reasoning(rng: random.Random, difficulty: str) -> Item:
    makers = {"easy": (_cond_single, _cond_single, _cond_which_valid),
              "medium": (_cond_single, _cond_chain, _cond_name_form, _cond_which_valid),
              "hard": (_cond_double, _cond_double, _cond_chain, _cond_name_form)}[difficulty]
    return rng.choice(makers)(rng, difficulty)


# ============================================================================================
# proof_evaluation
# ============================================================================================

def _valid_steps(lines: list) -> list[tuple[list, list[int], str]]:
    """Every new line a valid rule produces from the lines so far: (formula, cited indices, rule)."""
    out = []
    n = len(lines)
    for i in range(n):
        f = lines[i]
        if isinstance(f, list) and f[0] == "and":
            out += [(f[1], [i], "simplification"), (f[2], [i], "simplification")]
        if isinstance(f, list) and f[0] == "not" and isinstance(f[1], list) and f[1][0] == "and":
            out.append((["or", neg(f[1][1]), neg(f[1][2])], [i], "de_morgan"))
        for j in range(n):
            if i == j:
                continue
            g = lines[j]
            if isinstance(f, list) and f[0] == "imp":
                if g == f[1]:
                    out.append((f[2], [i, j], "modus_ponens"))
                if g == neg(f[2]):
                    out.append((neg(f[1]), [i, j], "modus_tollens"))
                if isinstance(g, list) and g[0] == "imp" and g[1] == f[2] and f[1] != g[2]:
                    out.append((["imp", f[1], g[2]], [i, j], "hypothetical_syllogism"))
            if isinstance(f, list) and f[0] == "or":
                if g == neg(f[1]):
                    out.append((f[2], [i, j], "disjunctive_syllogism"))
                if g == neg(f[2]):
                    out.append((f[1], [i, j], "disjunctive_syllogism"))
    return out


def _invalid_steps(lines: list) -> list[tuple[list, list[int], str]]:
    out = []
    n = len(lines)
    for i in range(n):
        f = lines[i]
        if isinstance(f, list) and f[0] == "imp":
            out.append((["imp", f[2], f[1]], [i], "converse"))
        if isinstance(f, list) and f[0] == "not" and isinstance(f[1], list) and f[1][0] == "and":
            out.append((["and", neg(f[1][1]), neg(f[1][2])], [i], "bad_de_morgan"))
        if isinstance(f, list) and f[0] == "or":
            out.append((f[1], [i], "disjunct_from_disjunction"))
        for j in range(n):
            if i == j:
                continue
            g = lines[j]
            if isinstance(f, list) and f[0] == "imp":
                if g == f[2]:
                    out.append((f[1], [i, j], "affirming_the_consequent"))
                if g == neg(f[1]):
                    out.append((neg(f[2]), [i, j], "denying_the_antecedent"))
                if isinstance(g, list) and g[0] == "imp" and g[1] == f[1] and g[2] != f[2]:
                    out.append((["imp", f[2], g[2]], [i, j], "illicit_chain"))
            if isinstance(f, list) and f[0] == "or" and (g == f[1] or g == f[2]):
                other = f[2] if g == f[1] else f[1]
                out.append((neg(other), [i, j], "exclusive_or"))
    return out


_PROOF_ATOMS = ("a", "b", "c", "d", "e")


def _draw_premises(rng: random.Random, difficulty: str) -> list:
    """A backbone chain x0 -> x1 -> x2 with a fact at one end (so modus ponens or tollens can run),
    a bait conditional that invites affirming the consequent or denying the antecedent, and at the
    higher levels a disjunction, a conjunction or a negated conjunction to work with."""
    x0, x1, x2, y, z = (["not", a] if rng.random() < 0.25 else a for a in rng.sample(_PROOF_ATOMS, 5))
    c1, c2 = ["imp", x0, x1], ["imp", x1, x2]
    forward = rng.random() < 0.5
    fact = x0 if forward else neg(x2)
    mid = rng.choice((x0, x1, x2))  # the bait can hook onto the fact itself or onto a derived line
    bait = ["imp", y, mid] if forward else ["imp", mid, y]  # AC bait forwards, DA bait backwards
    out = [c1, c2, fact, bait]
    if difficulty != "easy":
        end = x2 if forward else neg(x2)
        out.append(rng.choice((["or", end, z], ["or", z, neg(end)], ["or", y, z])))
    if difficulty == "hard":
        out.append(rng.choice((["not", ["and", neg(end), z]], ["and", z, neg(y)], ["imp", x0, z],
                               ["not", ["and", y, z]])))
    rng.shuffle(out)
    return out


_FLAW_KINDS = ("affirming_the_consequent", "denying_the_antecedent", "converse", "exclusive_or",
               "disjunct_from_disjunction", "bad_de_morgan", "illicit_chain")


def _build_proof(rng: random.Random, difficulty: str, n_derived: int, want_flaw: bool, flaw_rules: set[str] | None):
    """Premises, then derived lines; with `want_flaw`, exactly one derived line, at a position drawn
    uniformly, is an invalid inference of a kind drawn uniformly from `flaw_rules` (None: any) that not
    even all earlier lines together entail. Falls back to any allowed kind if the drawn one is rare."""
    ab = _PROOF_ATOMS
    flaw_at = rng.randrange(n_derived) if want_flaw else None
    kinds = sorted(flaw_rules) if flaw_rules is not None else list(_FLAW_KINDS)
    wanted = rng.choice(kinds)
    for attempt in range(600):
        premises = _draw_premises(rng, difficulty)
        masks = [truth_mask(f, ab) for f in premises]
        if mask_entails(masks, 0, ab):
            continue  # inconsistent premises entail everything
        lines = list(premises)
        cites: list[list[int]] = [[] for _ in premises]
        rules: list[str] = ["premise"] * len(premises)
        for step in range(n_derived):
            if step == flaw_at:
                allowed = {wanted} if attempt < 300 else set(kinds)
                cands = [c for c in _invalid_steps(lines)
                         if c[2] in allowed and c[0] not in lines and neg(c[0]) not in lines
                         and not mask_entails(masks, truth_mask(c[0], ab), ab)]
            else:
                cands = [c for c in _valid_steps(lines) if c[0] not in lines and neg(c[0]) not in lines]
                # prefer steps that use the line just derived, so the proof reads as a chain
                recent = [c for c in cands if len(lines) - 1 in c[1]]
                literal = [c for c in (recent or cands) if isinstance(c[0], str) or c[0][0] == "not"]
                cands = literal or recent or cands
            if not cands:
                break
            f, cited, rule = rng.choice(cands)
            lines.append(f)
            masks.append(truth_mask(f, ab))
            cites.append(cited)
            rules.append(rule)
        else:
            if want_flaw or not mask_entails(masks, 0, ab):
                return lines, cites, rules
    return None


VALID_PROOF = "None: every step follows from the lines it cites"


@DOMAIN.subcategory(
    "proof_evaluation",
    difficulty={
        "easy": "4 premises (a chain, a fact, a bait conditional) and 3 derived steps; the flaw, if any, is "
                "affirming the consequent or denying the antecedent among modus ponens/tollens steps",
        "medium": "5 premises (adds a disjunction) and 3 derived steps; adds disjunctive syllogism, the converse, "
                  "the exclusive reading of 'or', a disjunct taken from a disjunction",
        "hard": "6 premises (adds a conjunction or negated conjunction) and 4 derived steps; adds De Morgan (right "
                "and wrong), hypothetical syllogism vs an illicit chain; options may be four derived steps",
    },
)
def proof_evaluation(rng: random.Random, difficulty: str) -> Item:
    n_derived = {"easy": 3, "medium": 3, "hard": 4}[difficulty]
    scene, lex = _scene(rng, 5)
    want_flaw = rng.random() >= 0.25
    allowed_bad = {"easy": {"affirming_the_consequent", "denying_the_antecedent"},
                   "medium": {"affirming_the_consequent", "denying_the_antecedent", "converse", "exclusive_or",
                              "disjunct_from_disjunction"},
                   "hard": None}[difficulty]
    built = _build_proof(rng, difficulty, n_derived, want_flaw, allowed_bad)
    if built is None:  # pragma: no cover - the premise shapes always leave room for a flaw
        raise RuntimeError("no proof drawn")
    lines, cites, rules = built
    n_premises = len(lines) - n_derived
    flawed = next((k + 1 for k, r in enumerate(rules) if r not in ("premise", *_VALID_RULES)), None)
    numbered = []
    for k, (f, c) in enumerate(zip(lines, cites), start=1):
        why = "premise" if not c else ("from step " + str(c[0] + 1) if len(c) == 1 else
                                       f"from steps {min(c) + 1} and {max(c) + 1}")
        numbered.append(f"{k}. {sentence(f, lex)} ({why})")
    intro = rng.choice(("Here is an argument. Each line is a premise or claims to follow from the earlier lines it cites "
                        "('or' is inclusive).",
                        f"{rng.choice(NAMES)} wrote the following proof. Premises are marked; every other line cites the "
                        "lines it is supposed to follow from. Read 'or' as inclusive.",
                        f"A student hands in this derivation about the {scene}. Lines marked 'premise' are given; each other "
                        "line should follow from the lines it cites ('or' is inclusive).",
                        "Check the reasoning below line by line. Premises are given; every other line names the earlier "
                        "lines it relies on. 'Or' is meant inclusively."))
    ask = rng.choice(("Which step, if any, does not follow from the lines it cites?",
                      "Which line is an invalid inference, if any?",
                      "Where, if anywhere, does the reasoning break down?",
                      "Which derived line is not justified by the lines it cites (if any)?"))
    derived = list(range(n_premises + 1, n_premises + n_derived + 1))
    labels = {k: f"Step {k}" for k in derived}
    if flawed is None:
        answer = VALID_PROOF
        wrong = [labels[k] for k in rng.sample(derived, 3)]
    else:
        answer = labels[flawed]
        others = [labels[k] for k in derived if k != flawed]
        rng.shuffle(others)
        wrong = others[:3] if len(others) >= 3 and rng.random() < 0.5 else others[:2] + [VALID_PROOF]
    q = intro + "\n\n" + "\n".join(numbered) + "\n\n" + ask
    params = {"n_premises": n_premises, "n_steps": len(lines), "lines": lines, "cites": cites,
              "rules": rules, "flawed_step": flawed, "atoms": {k: list(v) for k, v in lex.items()}}
    return Item(q, answer, "multiple_choice", pick_distractors(answer, wrong), params)


_VALID_RULES = ("simplification", "de_morgan", "modus_ponens", "modus_tollens", "hypothetical_syllogism",
                "disjunctive_syllogism")
