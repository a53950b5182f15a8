"""Social bank: every gold answer re-derived by a route of its own, on the full default size.

The checks here do not call `mirror_hf.bank.social`'s solvers. Beliefs are recomputed by a backward
search over the event list (the generator simulates forwards); implicatures, requests, sarcasm and
norm violations are read back from the *question text* with this file's own cue lists, and each
item must have exactly one choice that the reading supports. Run with `-s` to print sample items.
"""

from __future__ import annotations

import re

import pytest

from mirror_hf.bank import social
from mirror_hf.bank._core import generate_domain, normalise_text
from mirror_hf.bank._wording import NAMES
from mirror_hf.records import DIFFICULTIES, canonical_json

SEEDS = (0, 1)
SIZE = 625
SUBCATEGORIES = ("theory_of_mind", "implicature", "pragmatic_inference", "sarcasm_detection", "social_norm_violation")


@pytest.fixture(scope="module")
def banks() -> dict[int, list]:
    return {seed: list(generate_domain(social.DOMAIN, seed, SIZE)) for seed in SEEDS}


def by_sub(questions, sub):
    return [q for q in questions if q.subcategory == sub]


def all_items(banks, sub):
    return [q for seed in SEEDS for q in by_sub(banks[seed], sub)]


# --------------------------------------------------------------------------------------------
# theory of mind: witnesses computed per event, beliefs by searching backwards
# --------------------------------------------------------------------------------------------


def witnesses(events, agents):
    """For each event: (who saw it openly, who saw it from hiding)."""
    inside, hiding = set(agents), set()
    out = []
    for ev in events:
        if ev["type"] == "leave":
            inside.discard(ev["agent"])
        elif ev["type"] == "enter":
            inside.add(ev["agent"])
            hiding.discard(ev["agent"])
        elif ev["type"] == "watch":
            hiding.add(ev["agent"])
        out.append((frozenset(inside), frozenset(hiding)))
    return out


def first_order(events, agents, who):
    seen = witnesses(events, agents)
    for ev, (inside, hiding) in reversed(list(zip(events, seen))):
        if ev["type"] in ("place", "move") and who in inside | hiding:
            return ev["to"]
        if ev["type"] == "tell" and ev["to_agent"] == who:
            return ev["loc"]
    raise AssertionError(f"{who} never learnt where the object is")


def second_order(events, agents, x, y):
    """Where x thinks y thinks the object is: the last placement x saw while seeing y see it,
    or a message between the two of them."""
    seen = witnesses(events, agents)
    for ev, (inside, hiding) in reversed(list(zip(events, seen))):
        if ev["type"] in ("place", "move") and x in inside | hiding and y in inside:
            return ev["to"]
        if ev["type"] == "tell" and {ev["agent"], ev["to_agent"]} == {x, y}:
            return ev["loc"]
    raise AssertionError(f"{x} never saw {y} see the object")


def test_theory_of_mind_answers_match_a_backward_belief_search(banks):
    for q in all_items(banks, "theory_of_mind"):
        p = q.params
        events, agents = p["events"], p["agents"]
        if p["question_kind"] == "reality":
            expected = [e["to"] for e in events if e["type"] in ("place", "move")][-1]
        elif p["question_kind"] == "first_order":
            expected = first_order(events, agents, p["subject"][0])
        else:
            expected = second_order(events, agents, *p["subject"])
        assert q.answer == f"the {expected}", q.id
        assert all(c.removeprefix("the ") in p["containers"] for c in q.choices), q.id
        # the story tells every event, in order, with the names it stores
        text = q.question
        pos = 0
        for ev in events:
            hit = text.find(ev["agent"], pos)
            assert hit >= 0, (q.id, ev)
            pos = hit
        assert ("texts" in text) == any(e["type"] == "tell" for e in events), q.id
        assert ("secretly" in text or "Unseen" in text) == any(e["type"] == "watch" for e in events), q.id
        last_line = text.rsplit("\n", 1)[-1]
        for name in p["subject"]:
            assert name in last_line, q.id


def test_theory_of_mind_has_false_beliefs_and_true_ones(banks):
    items = all_items(banks, "theory_of_mind")
    reality = {q.id: [e["to"] for e in q.params["events"] if e["type"] in ("place", "move")][-1] for q in items}
    first = [q for q in items if q.params["question_kind"] == "first_order"]
    false_belief = [q for q in first if q.answer != f"the {reality[q.id]}"]
    assert 0.5 < len(false_belief) / len(first) < 0.97, "first-order items should mostly, not always, test false beliefs"
    second = [q for q in items if q.params["question_kind"] == "second_order"]
    assert second and all(q.difficulty == "hard" for q in second)
    # in some second-order items x's picture of y's belief differs from y's actual belief
    differs = [q for q in second if q.answer != "the " + first_order(q.params["events"], q.params["agents"], q.params["subject"][1])]
    assert len(differs) >= 5


# --------------------------------------------------------------------------------------------
# implicature: knowledge and reply polarity read from the text
# --------------------------------------------------------------------------------------------

PARTIAL_KNOWLEDGE = re.compile(r"\bonly\b")
OBSTACLE = re.compile(r"shift|flight|fever|sprained|working all|fell apart|babysit|on the train back|poisoning|"
                      r"exam|garage|move house")
# replies that settle the question outright: the stronger term holds, or its opposite does
SETTLES_STRONG = re.compile(r"every single|scalding|outstanding|adore", re.IGNORECASE)
SETTLES_NONE = re.compile(r"not a single|freezing|awful|\bnever\b|can.t stand", re.IGNORECASE)
UNAWARE = re.compile(r"first I've heard|what's happening")
MOVE_DATE = re.compile(r"next week instead|push it back")
PREPARATION = re.compile(r"ironed|present for|taxi|packed my|bought new|sandwiches|evening off|not to wait up|"
                         r"chosen what|scarf|tickets on my phone|leave work early")


def test_implicature_answers_follow_from_knowledge_and_reply(banks):
    for q in all_items(banks, "implicature"):
        p = q.params
        context = q.question.split("\n\n")[0]
        if p["kind"] == "scalar":
            asked = re.search(r"asked (\w+)(, (who [^,]+),)?", context)
            knows = not (asked.group(3) and PARTIAL_KNOWLEDGE.search(asked.group(3)))
            assert knows == p["knowledgeable"], q.id
            reply = context.rsplit("replied:", 1)[1]
            if SETTLES_STRONG.search(reply) or SETTLES_NONE.search(reply):
                assert knows and bool(SETTLES_STRONG.search(reply)) != bool(SETTLES_NONE.search(reply)), q.id
                expected = p["options"]["strong" if SETTLES_STRONG.search(reply) else "none"]
                assert not re.search(r"\bnot\b|cannot", expected), q.id
                assert q.answer == expected, (q.id, reply, q.answer)
                continue
            expected = p["options"]["not_strong"] if knows else p["options"]["unknown"]
            # the readings say what they should: the implicature negates the stronger term
            if knows:
                assert re.search(r"\bnot\b", expected, re.IGNORECASE), q.id
            else:
                assert "cannot say" in expected or "not made up" in expected, q.id
        else:
            reply = context.split("\n")[1]
            if UNAWARE.search(reply) or MOVE_DATE.search(reply):
                expected = p["options"]["undecided" if UNAWARE.search(reply) else "change"]
                assert ("not heard" in expected) == bool(UNAWARE.search(reply)), q.id
                assert q.answer == expected, (q.id, reply, q.answer)
                continue
            obstacle, preparation = bool(OBSTACLE.search(reply)), bool(PREPARATION.search(reply))
            assert obstacle != preparation, (q.id, reply)
            expected = p["options"]["no" if obstacle else "yes"]
            assert ("not coming" in expected) == obstacle, q.id
        assert q.answer == expected, q.id
        assert sum(c == expected for c in q.choices) == 1


# --------------------------------------------------------------------------------------------
# pragmatic inference: which thing in reach could the remark be about
# --------------------------------------------------------------------------------------------

# label in the scene -> (this file's name for it, what helping with it means)
LABELS = {
    "the open window": ("window_open", "Close the window."), "the closed window": ("window_closed", "Open the window."),
    "the lamp": ("lamp", "Switch on the lamp."), "the loud radio": ("radio", "Turn the radio down."),
    "the salt": ("salt", "Pass the salt."), "the water jug": ("jug", "Pour some water."),
    "the kettle": ("kettle", "Put the kettle on."), "the switched-off heater": ("heater", "Switch on the heater."),
    "the phone charger": ("charger", "Pass the charger."), "the box of tissues": ("tissues", "Pass the tissues."),
    "the overflowing bin": ("bin", "Take out the rubbish."), "the open door to the corridor": ("door", "Close the door."),
    "the window blind": ("blind", "Lower the blind."), "a pen": ("pen", "Lend a pen."),
}
# cue in the remark -> every thing a listener could reasonably act on
CUES = (
    (r"close the window|shut(ting)? th(at|e) window|cold in|freezing draught|shivering|thicker jumper", {"window_open", "heater", "door"}),
    (r"open the window|let some air in|fresh air|window open|window's been closed|stuffy|stale", {"window_closed"}),
    (r"lamp|make out the words|squinting", {"lamp"}),
    (r"radio|hear myself think|follow a word", {"radio", "door", "window_open"}),
    (r"salt|tastes of almost nothing|bland", {"salt"}),
    (r"water|jug|throat|parched", {"jug", "kettle"}),
    (r"kettle|cup of tea|brew|for tea", {"kettle"}),
    (r"heater|toes|feet", {"heater", "window_open", "door"}),
    (r"charger|phone is about to die|battery", {"charger"}),
    (r"tissue|nose|sniffing", {"tissues"}),
    (r"rubbish|bin|smell", {"bin", "window_closed"}),
    (r"door|corridor", {"door", "radio"}),
    (r"blind|sun is right|sunshine", {"blind"}),
    (r"\bpen\b|jot|write with", {"pen"}),
)


def test_pragmatic_answers_are_the_one_thing_in_reach_the_remark_fits(banks):
    for q in all_items(banks, "pragmatic_inference"):
        reach = re.search(r"Within \w+'s reach are (.+?)\. ", q.question).group(1)
        labels = [x.strip() for x in re.split(r", | and (?=the |a )", reach)]
        things = {LABELS[label][0]: LABELS[label][1] for label in labels}
        remark = re.search(r'says to \w+: "(.+)"', q.question).group(1)
        fits = set().union(*(targets for cue, targets in CUES if re.search(cue, remark, re.IGNORECASE)))
        candidates = [t for t in things if t in fits]
        assert len(candidates) == 1, (q.id, remark, labels)
        assert q.answer == things[candidates[0]], q.id


def test_pragmatic_hints_get_less_explicit_with_difficulty(banks):
    """Easy remarks are conventional requests ("Could you ...?", "Would you mind ...?") in other
    words than the answer; medium remarks are statements that name the thing needed; hard remarks
    name only the need. Measured: share of remarks that are requests, and that name the thing."""
    nouns = {"window_open": "window", "window_closed": "window", "jug": "water|jug", "bin": "bin|rubbish",
             "tissues": "tissue", "heater": "heater", "kettle": "kettle|tea"}
    request, named = {}, {}
    for diff in DIFFICULTIES:
        items = [q for q in all_items(banks, "pragmatic_inference") if q.difficulty == diff]
        hits_request = hits_named = 0
        for q in items:
            remark = q.params["utterance"]
            label = next(label for label, (_, action) in LABELS.items() if action == q.answer)
            key = LABELS[label][0]
            noun = nouns.get(key, label.split()[-1])
            hits_request += bool(re.match(r"(Could|Would) (you|I)\b", remark))
            hits_named += bool(re.search(noun, remark, re.IGNORECASE))
        request[diff], named[diff] = hits_request / len(items), hits_named / len(items)
    print(f"\nrequests {request}\nnaming the thing {named}")
    assert request["easy"] == 1 and request["medium"] == 0 and request["hard"] == 0, request
    assert named["easy"] >= 0.8 and named["medium"] >= 0.8 and named["hard"] <= 0.15, named


# --------------------------------------------------------------------------------------------
# sarcasm: outcome, wish and remark read from the text
# --------------------------------------------------------------------------------------------

BAD_WORDS = re.compile(r"late|cancelled|pouring|hailstorm|burnt|collapsed|a fail|12 out of|tear|soaked|lost|"
                       r"knocked out|far more|lopsided")
GOOD_WORDS = re.compile(r"early|on time|sun came|cloudless|golden|moist|top grade|95 out|undamaged|won|"
                        r"exactly the cut|neat")
POSITIVE_REMARK = re.compile(r"fantastic|perfect|great|wonderful|brilliant|lovely", re.IGNORECASE)
NEGATIVE_REMARK = re.compile(r"awful|shame|disappointing|let-down", re.IGNORECASE)


def numeric_outcome_good(fact: str) -> bool:
    """Compare what was expected with what happened, scene by scene, from the numbers alone."""
    n = [float(x.replace(":", ".")) for x in re.findall(r"\d+(?::\d+)?", fact)]
    if "due at" in fact:
        return n[1] <= n[0]
    if "chance of rain" in fact:
        return False  # rain fell although none was forecast
    if "chance of storms" in fact:
        return True
    if "pass mark" in fact:
        return n[1] >= n[0]
    if "recipe said" in fact:
        return "exactly" in fact
    if "Delivery was promised" in fact:
        days = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday"]
        promised, came = re.findall("|".join(days), fact)
        return "following" not in fact and days.index(came) <= days.index(promised)
    if "needed a" in fact:
        score = re.search(r"(won|lost) (\d+)-(\d+)", fact)
        return score.group(1) == "won"
    if "1 cm off" in fact:
        return n[-1] <= 1
    raise AssertionError(f"unknown numeric fact {fact!r}")


def test_sarcasm_answers_follow_from_outcome_wish_and_remark(banks):
    for q in all_items(banks, "sarcasm_detection"):
        p = q.params
        fact = p["fact"]
        assert fact in q.question
        good = numeric_outcome_good(fact) if ";" in fact else \
            bool(GOOD_WORDS.search(fact)) and not BAD_WORDS.search(fact)
        assert good == p["outcome_good"], (q.id, fact)
        name = q.answer.split(": ")[1].split()[0]
        wanted_bad = f"{name}, who" in q.question
        pleased = good != wanted_bad
        remark = re.search(r'said: "(.+)"', q.question).group(1)
        positive = bool(POSITIVE_REMARK.search(remark))
        assert positive != bool(NEGATIVE_REMARK.search(remark)), remark
        sarcastic = positive != pleased
        expected_prefix = ("Sarcastic" if sarcastic else "Sincere") + f": {name} is " + ("pleased" if pleased else "unhappy")
        assert q.answer.startswith(expected_prefix), (q.id, q.answer, expected_prefix)
        assert sum(c.startswith(expected_prefix) for c in q.choices) == 1


# --------------------------------------------------------------------------------------------
# norms: the listed actions read against this file's patterns for what each norm forbids
# --------------------------------------------------------------------------------------------

FORBIDDEN_PATTERNS = {
    "phone_call": r"phone call|on the phone|personal call", "loud": r"loud|shouted|music through",
    "food_near_books": r"\bate\b.* over", "mocking": r"made fun", "festive_dress": r"party costume",
    "rude": r"feet up|snapped|disgusting", "unexplained_lateness": r"late without", "kicking": r"kicking",
    "queue_jumping": r"pushed past|ahead of people who had waited", "snooping": r"private letters|bedroom drawers",
    "smoking": r"cigarette", "cheating": r"copied|notes hidden", "talking": r"whispered to a friend",
    "laptop": r"(worked|typed|was) on a laptop", "photo": r"took a photo", "no_cap": r"without a cap", "no_wipe": r"without wiping",
    "top_shelf": r"on the top shelf", "picking": r"\bpicked (a|some) (bunch|flowers|tulips|roses)", "late_noise": r"loudly",
}
RULE_WORDS = {"laptop": "laptops", "photo": "photography", "no_cap": "caps must be worn", "no_wipe": "wipe down",
              "top_shelf": "top shelf reserved", "picking": "not pick", "late_noise": "quiet hours"}


def test_norm_violation_is_the_only_action_matching_a_forbidden_pattern(banks):
    for q in all_items(banks, "social_norm_violation"):
        p = q.params
        listed = re.findall(r"^- (\w+) (.+)\.$", q.question, re.MULTILINE)
        assert len(listed) == 4
        patterns = [FORBIDDEN_PATTERNS[tag] for tag in p["forbidden"]]
        offenders = [name for name, action in listed if any(re.search(pat, action) for pat in patterns)]
        assert offenders == [q.answer], (q.id, listed, p["forbidden"])
        if p["posted_rule"]:
            (tag,) = p["forbidden"]
            assert RULE_WORDS[tag] in q.question.lower(), q.id
            # without the posted rule the violating action would be unremarkable: no shared norm forbids it
            assert not any(re.search(FORBIDDEN_PATTERNS[t], dict(listed)[q.answer])
                           for t in ("phone_call", "rude", "cheating", "smoking", "snooping", "mocking")), q.id
        assert sorted(q.choices) == sorted(name for name, _ in listed)


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
            # one of the offered readings or actions
            readings = q.subcategory in ("implicature", "sarcasm_detection", "pragmatic_inference")
            assert q.answer_type == ("multiple_choice" if readings else "short_text"), q.id
            canonical_json(q.params)
        for sub in SUBCATEGORIES:
            assert {q.difficulty for q in by_sub(qs, sub)} == set(DIFFICULTIES)
            assert 120 <= len(by_sub(qs, sub)) <= 130


def test_difficulty_raises_measured_parameters(banks):
    items = [q for seed in SEEDS for q in banks[seed]]

    def mean(sub, diff, f):
        xs = [f(q) for q in items if q.subcategory == sub and q.difficulty == diff]
        return sum(xs) / len(xs)

    tom = [mean("theory_of_mind", d, lambda q: len(q.params["events"]) + 3 * (q.params["order"] == 2)) for d in DIFFICULTIES]
    assert tom[0] < tom[1] < tom[2], tom
    scales = [len({q.params.get("scale") for q in items if q.subcategory == "implicature" and q.difficulty == d
                   and q.params["kind"] == "scalar"}) for d in DIFFICULTIES]
    assert scales[0] == 1 < scales[1], scales
    cancelled = [mean("implicature", d, lambda q: q.params.get("knowledgeable") is False) for d in DIFFICULTIES]
    assert cancelled[0] == cancelled[1] == 0 < cancelled[2], cancelled
    sarcasm = [mean("sarcasm_detection", d, lambda q: bool(re.search(r"\d", q.params["fact"])) + q.params["speaker_wanted_bad"])
               for d in DIFFICULTIES]
    assert sarcasm[0] < sarcasm[1] < sarcasm[2], sarcasm
    norms = [mean("social_norm_violation", d, lambda q: q.params["posted_rule"] + q.params["near_misses"]) for d in DIFFICULTIES]
    assert norms[0] < norms[1] < norms[2], norms


def skeleton(q) -> str:
    """The question's wording with names, numbers and quoted speech blanked out."""
    line = q.question.strip().rsplit("\n", 1)[-1]
    line = re.sub(r'"[^"]*"', '"…"', line)
    line = re.sub(r"\d+", "#", line)
    return " ".join("X" if w.strip(",.?'s") in NAMES else w for w in line.split())


def test_wording_varies(banks):
    for sub in SUBCATEGORIES:
        items = all_items(banks, sub)
        assert len({skeleton(q) for q in items}) >= 3, sub
        # and the stories themselves hardly repeat: distinct texts after blanking names
        bodies = {re.sub(r"\b(" + "|".join(NAMES) + r")\b", "X", q.question) for q in items}
        assert len(bodies) > 0.5 * len(items), (sub, len(bodies))


def test_same_seed_same_items_other_seed_other_items(banks):
    again = list(generate_domain(social.DOMAIN, 0, SIZE))
    assert [q.to_row() for q in again] == [q.to_row() for q in banks[0]]
    texts0 = {normalise_text(q.question) for q in banks[0]}
    texts1 = {normalise_text(q.question) for q in banks[1]}
    assert len(texts0 & texts1) < 0.05 * SIZE




def told_past_a_bystander(events, agents, x, y):
    """True when x learnt the object's place from a text sent by someone other than y, and y was
    still in the room when x left: x cannot know whether y saw the move, so 'where does x think y
    thinks it is' has two defensible answers (y's view before the move, or the texted place)."""
    inside = set(agents)
    y_stayed_when_x_left = False
    for ev in events:
        if ev["type"] == "leave":
            if ev["agent"] == x:
                y_stayed_when_x_left = y in inside
            inside.discard(ev["agent"])
        elif ev["type"] == "enter":
            inside.add(ev["agent"])
        elif ev["type"] == "tell" and ev["to_agent"] == x and ev["agent"] != y and y_stayed_when_x_left:
            return True
    return False


def test_second_order_questions_never_ask_about_a_bystander_after_a_text(banks):
    """Blind read, exp9.fixed.linguistic.social.03.s0: Yara leaves, Hugo moves the ball, Kai texts
    Yara the new place; 'Where does Yara believe Hugo thinks the ball is?' had gold 'the blue box',
    but Hugo stayed in the room as far as Yara knows, so 'the red suitcase' is as defensible."""
    second = [q for q in all_items(banks, "theory_of_mind") if q.params["question_kind"] == "second_order"]
    assert len(second) >= 60
    bad = [q.id for q in second if told_past_a_bystander(q.params["events"], q.params["agents"], *q.params["subject"])]
    assert not bad, f"{len(bad)} of {len(second)} second-order items: {bad[:5]}"


def test_pragmatic_utterance_never_echoes_the_gold_action():
    """Issue 30: the gold must not be the only option sharing a word with what the speaker says.
    Every utterance of every need, against the action it asks for: no word in common beyond the
    thing's own name, which the scene lists for all four options alike."""
    from mirror_hf.bank import social as s

    def words(text):
        return set(re.findall(r"[a-z]+", text.lower()))

    echoes = []
    for need, levels in s._NEEDS.items():
        target = next(k for k, v in sorted(s._THINGS.items()) if need in v["needs"])
        action, label = words(s._THINGS[target]["action"]), words(s._THINGS[target]["label"])
        for utterance in (u for level in levels for u in level):
            if (words(utterance) & action) - label:
                echoes.append((need, utterance, sorted((words(utterance) & action) - label)))
    assert not echoes, echoes


def test_hard_posted_rule_does_not_name_the_one_violation(banks):
    """Issue 30: in a hard norm item the posted rule must not single out the violation by its words:
    a near miss shares a word (its first four letters) with the rule as often as the violation does."""
    for q in (q for q in all_items(banks, "social_norm_violation") if q.difficulty == "hard" and q.params["posted_rule"]):
        rule = re.search(r'says: "([^"]+)"', q.question).group(1)
        stems = {w[:4] for w in re.findall(r"[a-z]{4,}", rule.lower())} - {"must", "from", "after", "every", "this"}
        listed = re.findall(r"^- (\w+) (.+)\.$", q.question, re.MULTILINE)
        echoing = [name for name, action in listed if stems & {w[:4] for w in re.findall(r"[a-z]{4,}", action.lower())}]
        assert len(echoing) >= 2 or q.answer not in echoing, (q.id, rule, listed)
