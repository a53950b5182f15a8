"""Social: beliefs, implied meaning, requests, sarcasm and norms (the paper's sixth domain).

Social questions are only unambiguous when the story fixes everything the answer depends on, so
every item is built from explicit parameters and its gold answer follows from them mechanically:

* theory_of_mind: a list of events (who puts or moves the object where, who leaves, who returns,
  who secretly watches, who is told); the answer is read off a simulation of who saw which event
  and who saw whom see it (first- and second-order belief).
* implicature: a scale (some < all, warm < hot, ...) and whether the speaker is in a position to
  know; a knowledgeable speaker who uses the weaker term implies "not the stronger one", one who
  says only part is known implies nothing beyond it. Relevance items: a reply that names an
  obstacle implies "no", one that names a preparation implies "yes".
* pragmatic_inference: a scene lists what is within the listener's reach; the speaker voices a need
  that exactly one of those things meets.
* sarcasm_detection: what happened, what the speaker wanted, and the literal polarity of the
  remark; a remark whose polarity contradicts the speaker's evaluation of what they saw is sarcastic.
* social_norm_violation: actions tagged with what they do; a setting's widely shared norms and any
  posted rule forbid tags; exactly one listed action carries a forbidden tag.
"""

from __future__ import annotations

import random

from mirror_hf.bank._core import Domain, Item
from mirror_hf.bank._wording import NAMES, pick_distractors

DOMAIN = Domain(
    "social",
    "1.0.0",
    "Theory of mind, implicature, indirect requests, sarcasm and social norms. Every story is built "
    "from explicit parameters and the gold answer follows from them mechanically: false-belief answers "
    "from a simulation of who witnessed each event (first and second order); implicatures from the "
    "scale used and whether the speaker is in a position to know; requests from which object in reach "
    "meets the stated need; sarcasm from whether the remark's literal polarity contradicts what the "
    "speaker saw and wanted; norm violations from tagged actions against the setting's norms and any "
    "posted rule. No source package: the tables of scenes are the project's own.",
)


def _choice(rng: random.Random, seq):
    return seq[rng.randrange(len(seq))]


# ============================================================================================
# theory_of_mind: event lists and a witness simulation
# ============================================================================================

_TOM_OBJECTS = ("ball", "chocolate bar", "notebook", "harmonica", "toy car", "sandwich", "wallet", "scarf",
                "marble", "puzzle box", "phone charger", "birthday card", "torch", "apple", "comic",
                "paintbrush", "whistle", "sunglasses case", "yo-yo", "tennis ball")
_TOM_CONTAINERS = ("basket", "blue box", "drawer", "cupboard", "backpack", "wardrobe", "toy chest", "biscuit tin",
                   "laundry bag", "red suitcase", "shoebox", "sewing box", "plant pot", "filing cabinet",
                   "picnic hamper", "bread bin")
_TOM_ROOMS = ("kitchen", "classroom", "living room", "garden shed", "office", "hotel room", "attic",
              "staff room", "studio", "playroom")
_ERRANDS = ("to answer the door", "to fetch some water", "to walk the dog", "to buy bread",
            "to check the post", "to take a phone call", "to hang up the washing", "for a swimming lesson",
            "to find a pen", "to return a library book")
_PLACE_VERBS = ("puts the {o} in the {l}", "places the {o} in the {l}", "tucks the {o} into the {l}",
                "leaves the {o} in the {l}")
_MOVE_VERBS = ("takes the {o} out of the {f} and puts it in the {l}", "moves the {o} from the {f} to the {l}",
               "shifts the {o} from the {f} into the {l}", "hides the {o} in the {l}, taking it out of the {f}")
_LEAVE_VERBS = ("{a} goes out {e}.", "{a} leaves the {r} {e}.", "{a} steps out {e}.")
_ENTER_VERBS = ("{a} comes back into the {r}.", "{a} returns to the {r}.", "{a} walks back in.")


def _tom_story(rng: random.Random, difficulty: str) -> dict:
    """Draw agents, containers and an event list. Events are dicts with a `type` of place, move,
    leave, enter, watch (a hidden observer starts watching from outside) or tell."""
    n_agents = {"easy": 2, "medium": 3, "hard": 3}[difficulty]
    n_moves = {"easy": 1, "medium": 2, "hard": rng.choice((2, 3))}[difficulty]
    agents = rng.sample(NAMES, n_agents)
    containers = rng.sample(_TOM_CONTAINERS, 4)
    obj = _choice(rng, _TOM_OBJECTS)
    room = _choice(rng, _TOM_ROOMS)
    present = set(agents)
    loc = _choice(rng, containers)
    events: list[dict] = [{"type": "place", "agent": agents[0], "to": loc}]
    twist = _choice(rng, ("watch", "tell")) if difficulty == "hard" else None
    for step in range(n_moves):
        # someone other than the mover leaves first, so at least one agent misses the move
        mover = _choice(rng, sorted(present)) if step else _choice(rng, agents)
        if mover not in present:
            events.append({"type": "enter", "agent": mover})
            present.add(mover)
        leavers = [a for a in sorted(present) if a != mover]
        if leavers and (step == 0 or rng.random() < 0.6):
            leaver = _choice(rng, leavers)
            events.append({"type": "leave", "agent": leaver, "errand": _choice(rng, _ERRANDS)})
            present.discard(leaver)
            if twist == "watch":  # the first leaver keeps watching from outside, unseen
                events.append({"type": "watch", "agent": leaver})
                twist = "done"
        new_loc = _choice(rng, [c for c in containers if c != loc])
        events.append({"type": "move", "agent": mover, "from": loc, "to": new_loc})
        loc = new_loc
        absent = sorted(set(agents) - present)
        if twist == "tell" and absent and (step == n_moves - 1 or rng.random() < 0.4):
            events.append({"type": "tell", "agent": _choice(rng, sorted(present)), "to_agent": _choice(rng, absent),
                           "loc": loc})
            twist = "done"
        if difficulty == "medium" and absent and rng.random() < 0.3:
            back = _choice(rng, absent)
            events.append({"type": "enter", "agent": back})
            present.add(back)
    for a in agents:
        if a not in present:
            events.append({"type": "enter", "agent": a})
            present.add(a)
    return {"agents": agents, "containers": containers, "object": obj, "room": room, "events": events}


def _simulate(story: dict) -> tuple[str, dict[str, str], dict[tuple[str, str], str]]:
    """Forward simulation: where the object is, where each agent believes it is, and where each
    agent believes each other agent believes it is."""
    agents = story["agents"]
    present = set(agents)
    hidden: set[str] = set()  # agents watching from outside, unseen
    world = None
    belief: dict[str, str] = {}
    meta: dict[tuple[str, str], str] = {}
    for ev in story["events"]:
        kind = ev["type"]
        if kind in ("place", "move"):
            world = ev["to"]
            visible = present
            for x in visible | hidden:
                belief[x] = world
                for y in visible:  # x saw y see it (a hidden watcher sees the people in the room)
                    if y != x:
                        meta[(x, y)] = world
        elif kind == "leave":
            present.discard(ev["agent"])
        elif kind == "enter":
            present.add(ev["agent"])
            hidden.discard(ev["agent"])
        elif kind == "watch":
            hidden.add(ev["agent"])
        elif kind == "tell":
            a, b = ev["agent"], ev["to_agent"]
            belief[b] = ev["loc"]
            meta[(a, b)] = ev["loc"]
            meta[(b, a)] = ev["loc"]
    return world, belief, meta


def _narrate(story: dict, rng: random.Random) -> str:
    o, r = story["object"], story["room"]
    c = story["containers"]
    names = story["agents"]
    people = ", ".join(names[:-1]) + f" and {names[-1]}"
    lines = [f"{people} are in the {r}. In the {r} there are {_listing(c)}."]
    for ev in story["events"]:
        a = ev["agent"]
        if ev["type"] == "place":
            lines.append(f"{a} {_choice(rng, _PLACE_VERBS).format(o=o, l=ev['to'])}.")
        elif ev["type"] == "move":
            lines.append(f"{a} {_choice(rng, _MOVE_VERBS).format(o=o, f=ev['from'], l=ev['to'])}.")
        elif ev["type"] == "leave":
            lines.append(_choice(rng, _LEAVE_VERBS).format(a=a, r=r, e=ev["errand"]))
        elif ev["type"] == "enter":
            lines.append(_choice(rng, _ENTER_VERBS).format(a=a, r=r))
        elif ev["type"] == "watch":
            lines.append(_choice(rng, (
                f"Outside, {a} secretly watches through the window; nobody in the {r} notices.",
                f"Unseen by anyone inside, {a} peeks in through the half-open door and keeps watching.",
            )))
        elif ev["type"] == "tell":
            lines.append(f"{a} texts {ev['to_agent']}: \"The {o} is in the {ev['loc']} now.\"")
    return " ".join(lines)


def _told_past_a_bystander(story: dict, x: str, y: str) -> bool:
    """x was texted the new place by someone other than y while y, as far as x knows, stayed in the
    room: x cannot tell whether y saw the move, so "where does x think y thinks" is not settled."""
    inside = set(story["agents"])
    y_stayed = False
    for ev in story["events"]:
        if ev["type"] == "leave":
            y_stayed = y in inside if ev["agent"] == x else y_stayed
            inside.discard(ev["agent"])
        elif ev["type"] == "enter":
            inside.add(ev["agent"])
        elif ev["type"] == "tell" and ev["to_agent"] == x and ev["agent"] != y and y_stayed:
            return True
    return False


def _listing(items) -> str:
    words = [f"a {x}" if x[0] not in "aeiou" else f"an {x}" for x in items]
    return ", ".join(words[:-1]) + f" and {words[-1]}"


@DOMAIN.subcategory(
    "theory_of_mind",
    difficulty={
        "easy": "two people, one move while one of them is out; first-order belief or where the object "
                "really is",
        "medium": "three people, two moves, people leaving and returning in between; first-order belief "
                  "of any of them",
        "hard": "three people, two or three moves, plus a hidden watcher or a text message; second-order "
                "belief (where X thinks Y will look)",
    },
)
def theory_of_mind(rng: random.Random, difficulty: str) -> Item:
    story = _tom_story(rng, difficulty)
    world, belief, meta = _simulate(story)
    agents = story["agents"]
    o = story["object"]
    if difficulty == "hard":
        pairs = [(x, y) for x in agents for y in agents if x != y and not _told_past_a_bystander(story, x, y)]
        # prefer pairs whose answer differs from the object's real place or from y's own belief
        interesting = [p for p in pairs if meta.get(p) and (meta[p] != world or meta[p] != belief[p[1]])]
        x, y = _choice(rng, interesting or [p for p in pairs if meta.get(p)])
        gold = meta[(x, y)]
        question_kind = "second_order"
        ask = _choice(rng, (f"Where does {x} think {y} will look for the {o}?",
                            f"Where does {x} believe {y} thinks the {o} is?",
                            f"If {x} had to guess where {y} will search for the {o}, which place would {x} name?"))
        subject = [x, y]
    else:
        mistaken = [a for a in agents if belief[a] != world]
        if rng.random() < 0.2:
            question_kind, subject, gold = "reality", [], world
            ask = _choice(rng, (f"Where is the {o} at the end of the story?", f"Where is the {o} really?"))
        else:
            a = _choice(rng, mistaken) if mistaken and rng.random() < 0.75 else _choice(rng, agents)
            question_kind, subject, gold = "first_order", [a], belief[a]
            ask = _choice(rng, (f"Where will {a} look for the {o} first?", f"Where does {a} think the {o} is?",
                                f"When {a} wants the {o}, where will {a} go to get it?"))
    question = _narrate(story, rng) + "\n\n" + ask
    others = [c for c in story["containers"] if c != gold]
    others.sort(key=lambda c: (c != world, c not in belief.values()))  # the tempting places first
    params = {**story, "question_kind": question_kind, "subject": subject, "moves": sum(
        1 for e in story["events"] if e["type"] == "move"), "order": 2 if question_kind == "second_order" else 1}
    return Item(question, f"the {gold}", "short_text", pick_distractors(f"the {gold}", [f"the {c}" for c in others]),
                params, aliases=(gold, f"in the {gold}"))


# ============================================================================================
# implicature: scales and the speaker's knowledge; relevance replies
# ============================================================================================

_SCALES = (
    {"id": "some_all", "topics": (("guests", "arrived", "have"), ("students", "passed the exam", "have"),
                                  ("tickets", "been sold", "have"), ("invitations", "been sent", "have"),
                                  ("volunteers", "signed the form", "have"), ("parcels", "been delivered", "have")),
     "ask": "whether all of the {t} had {p}", "reply": "Some of them {aux} {p}.",
     "strong": "All of the {t} {aux} {p}.", "not_strong": "Not all of the {t} {aux} {p}.",
     "none": "None of the {t} {aux} {p}.", "unknown": "At least some {aux} {p}; {b} cannot say whether all {aux}."},
    {"id": "most_all", "topics": (("seats", "been booked", "have"), ("apples", "been picked", "have"),
                                  ("forms", "been checked", "have"), ("rooms", "been cleaned", "have")),
     "ask": "whether all of the {t} had {p}", "reply": "Most of them {aux} {p}.",
     "strong": "All of the {t} {aux} {p}.", "not_strong": "Not all of the {t} {aux} {p}.",
     "none": "Fewer than half of the {t} {aux} {p}.", "unknown": "Most {aux} {p}; {b} cannot say whether all {aux}."},
    {"id": "warm_hot", "topics": (("soup", "", ""), ("bath water", "", ""), ("coffee", "", ""), ("sauna", "", "")),
     "ask": "whether the {t} was hot", "reply": "It's warm.",
     "strong": "The {t} is hot.", "not_strong": "The {t} is warm but not hot.",
     "none": "The {t} is cold.", "unknown": "The {t} is at least warm; {b} cannot say whether it is hot."},
    {"id": "good_excellent", "topics": (("film", "", ""), ("new restaurant", "", ""), ("concert", "", ""),
                                        ("book", "", ""), ("hotel", "", "")),
     "ask": "whether the {t} was excellent", "reply": "It was good.",
     "strong": "The {t} was excellent.", "not_strong": "The {t} was good but not excellent.",
     "none": "The {t} was bad.", "unknown": "The {t} was at least good; {b} cannot say whether it was excellent."},
    {"id": "often_always", "topics": (("bus", "late", ""), ("printer", "jammed", ""), ("lift", "broken", ""),
                                      ("shop", "closed early", "")),
     "ask": "whether the {t} is always {p}", "reply": "It's often {p}.",
     "strong": "The {t} is always {p}.", "not_strong": "The {t} is often, but not always, {p}.",
     "none": "The {t} is never {p}.", "unknown": "The {t} is often {p}; {b} cannot say whether it always is."},
    {"id": "like_love", "topics": (("new job", "", ""), ("flat", "", ""), ("gift", "", ""), ("haircut", "", "")),
     "ask": "whether {b} loved the {t}", "reply": "I like it.",
     "strong": "{b} loves the {t}.", "not_strong": "{b} likes the {t} but does not love it.",
     "none": "{b} dislikes the {t}.", "unknown": None},
)
# replies that settle the stronger term or its negation outright or by implication, per scale: the
# literal and near-literal controls that keep "All of ..." and "None of ..." from being readings
# that are never meant
_SETTLING_REPLIES = {
    "some_all": ("Yes, every single one of them.", "Not a single one, I'm afraid."),
    "most_all": ("Yes, every single one of them.", "Not a single one, I'm afraid."),
    "warm_hot": ("It's scalding!", "It's freezing."),
    "good_excellent": ("It was outstanding, one of the best ever.", "It was awful."),
    "often_always": ("Every single time.", "Never, in my experience."),
    "like_love": ("I absolutely adore it.", "I can't stand it."),
}
# how often each reading is the gold: a knowledgeable speaker's weak term ("not_strong"), a partly
# informed speaker's ("unknown", hard only), and the settling replies ("strong", "none")
_SCALAR_GOLDS = {"easy": (("not_strong", 3), ("strong", 2), ("none", 2)),
                 "medium": (("not_strong", 3), ("strong", 2), ("none", 2)),
                 "hard": (("not_strong", 3), ("unknown", 3), ("strong", 2), ("none", 2))}
_KNOWING = ("who had checked for themselves", "who had seen it all first-hand", "who was in charge of it",
            "who had gone through everything carefully", "who knew the full details")
_PARTIAL = ("who had only had a quick look", "who had seen only part of it", "who had only heard about it second-hand",
            "who had just arrived and seen only a little")
_RELEVANCE = (
    {"event": "the party tonight", "no": ("I'm on a night shift at the hospital tonight.", "My flight leaves at six tomorrow morning and I haven't packed.",
                                          "I've got a fever and I'm in bed."),
     "yes": ("I've just ironed my best shirt for it.", "I've already bought a present for the host.",
             "I've booked a taxi for eight.")},
    {"event": "the hike on Saturday", "no": ("I sprained my ankle yesterday.", "I'm working all weekend.",
                                             "My boots fell apart last week and the shops are shut till Monday."),
     "yes": ("I've packed my rucksack already.", "I bought new boots for it.", "I've made sandwiches for both of us.")},
    {"event": "the team dinner", "no": ("I've promised to babysit my nephew that evening.", "I'll still be on the train back from Leeds then.",
                                        "I've had food poisoning all week."),
     "yes": ("I've asked for the evening off.", "I've told my partner not to wait up.", "I've already chosen what I'm ordering.")},
    {"event": "the football match", "no": ("I'm sitting my final exam that afternoon.", "My car is at the garage and there are no buses.",
                                           "I promised my mum I'd help her move house that day."),
     "yes": ("I've dug out my old scarf.", "I've got the tickets on my phone.", "I've arranged to leave work early.")},
)
_IMPLICATURE_STEMS = ("What is {b} most likely conveying?", "What does {b}'s reply suggest?",
                      "What would a listener reasonably take {b} to mean?", "What can {a} infer from the reply?")


def _scalar(rng: random.Random, difficulty: str) -> tuple[str, str, list[str], dict]:
    pool = [s for s in _SCALES if (s["id"] == "some_all") == (difficulty == "easy")]
    if difficulty == "hard":
        pool = [s for s in _SCALES if s["unknown"]]
    scale = _choice(rng, pool)
    t, p, aux = _choice(rng, scale["topics"])
    a, b = rng.sample(NAMES, 2)
    keys, weights = zip(*_SCALAR_GOLDS[difficulty])
    gold_key = rng.choices(keys, weights)[0]
    knowledgeable = gold_key != "unknown"
    source = _choice(rng, _KNOWING if knowledgeable else _PARTIAL)
    fill = {"t": t, "p": p, "aux": aux, "a": a, "b": b}
    if gold_key in ("strong", "none"):
        reply = _SETTLING_REPLIES[scale["id"]][gold_key == "none"]
    else:
        reply = scale["reply"].format(**fill)
    if scale["id"] == "like_love":
        context = f"{a} asked {b} {scale['ask'].format(**fill)}. {b} replied: \"{reply}\""
    else:
        context = f"{a} asked {b}, {source}, {scale['ask'].format(**fill)}. {b} replied: \"{reply}\""
    options = {k: scale[k].format(**fill) for k in ("strong", "not_strong", "none") }
    if scale["unknown"]:
        options["unknown"] = scale["unknown"].format(**fill)
    else:
        options["unknown"] = f"{b} has not made up their mind about the {t} yet."
    question = context + "\n\n" + _choice(rng, _IMPLICATURE_STEMS).format(a=a, b=b)
    wrong = [options[k] for k in ("strong", "not_strong", "unknown", "none") if k != gold_key]
    params = {"kind": "scalar", "scale": scale["id"], "knowledgeable": knowledgeable, "topic": t,
              "options": options, "gold_key": gold_key, "cancellable": difficulty == "hard"}
    return question, options[gold_key], wrong, params


def _relevance(rng: random.Random, difficulty: str) -> tuple[str, str, list[str], dict]:
    row = _choice(rng, _RELEVANCE)
    # every reading is sometimes the one meant: news to the speaker, or a wish to move the date
    polarity = rng.choices(("yes", "no", "undecided", "change"), (3, 3, 2, 2))[0]
    if polarity == "undecided":
        reply = _choice(rng, ("This is the first I've heard of it.", "Wait, what's happening?"))
    elif polarity == "change":
        reply = _choice(rng, ("Any chance we could do it next week instead?", "Could we push it back a week?"))
    else:
        reply = _choice(rng, row[polarity])
    a, b = rng.sample(NAMES, 2)
    event = row["event"]
    ask = _choice(rng, (f"Are you coming to {event}?", f"Will I see you at {event}?", f"Can we count on you for {event}?"))
    options = {"yes": f"{b} is planning to come to {event}.", "no": f"{b} is not coming to {event}.",
               "undecided": f"{b} has not heard about {event}.", "change": f"{b} wants {event} moved to another day."}
    question = f"{a}: \"{ask}\"\n{b}: \"{reply}\"\n\n" + _choice(rng, _IMPLICATURE_STEMS).format(a=a, b=b)
    gold = options[polarity]
    wrong = [options[k] for k in ("yes", "no", "undecided", "change") if k != polarity]
    params = {"kind": "relevance", "event": event, "reply": reply, "polarity": polarity, "options": options,
              "gold_key": polarity, "cancellable": False}
    return question, gold, wrong, params


@DOMAIN.subcategory(
    "implicature",
    difficulty={
        "easy": "'some' for 'all' from a speaker who knows the full picture (implies 'not all')",
        "medium": "other scales (most/all, warm/hot, good/excellent, often/always, like/love) from a "
                  "knowledgeable speaker, and relevance replies that name an obstacle or a preparation",
        "hard": "the same scales with the speaker's knowledge varied: a speaker who saw only part implies "
                "nothing about the rest, so the implicature is cancelled",
    },
)
def implicature(rng: random.Random, difficulty: str) -> Item:
    make = _scalar if difficulty != "medium" or rng.random() < 0.6 else _relevance
    question, gold, wrong, params = make(rng, difficulty)
    params["difficulty_rank"] = {"easy": 0, "medium": 1, "hard": 2}[difficulty]
    # the answer is one of the offered readings (a label among them), not a free-form reply
    return Item(question, gold, "multiple_choice", pick_distractors(gold, wrong), params)


# ============================================================================================
# pragmatic_inference: which thing within reach meets the need the speaker voices
# ============================================================================================
# Each thing offers one action and meets the needs listed for it. A scene holds four things
# whose need sets are disjoint, so the voiced need picks exactly one.

_THINGS = {  # needs it meets, and needs a listener could also take it to meet (kept out of the same scene)
    "window_open": {"label": "the open window", "action": "close the window", "needs": {"cold"},
                    "also": {"cold_feet", "loud_music", "corridor_noise"}},
    "window_closed": {"label": "the closed window", "action": "open the window", "needs": {"stuffy"}, "also": {"bin_smell"}},
    "lamp": {"label": "the lamp", "action": "switch on the lamp", "needs": {"dark"}, "also": set()},
    "radio": {"label": "the loud radio", "action": "turn the radio down", "needs": {"loud_music"}, "also": {"corridor_noise"}},
    "salt": {"label": "the salt", "action": "pass the salt", "needs": {"bland"}, "also": set()},
    "water_jug": {"label": "the water jug", "action": "pour some water", "needs": {"thirsty"}, "also": set()},
    "kettle": {"label": "the kettle", "action": "put the kettle on", "needs": {"tea"}, "also": {"thirsty"}},
    "heater": {"label": "the switched-off heater", "action": "switch on the heater", "needs": {"cold_feet"}, "also": {"cold"}},
    "charger": {"label": "the phone charger", "action": "pass the charger", "needs": {"battery"}, "also": set()},
    "tissues": {"label": "the box of tissues", "action": "pass the tissues", "needs": {"sneezing"}, "also": set()},
    "bin": {"label": "the overflowing bin", "action": "take out the rubbish", "needs": {"bin_smell"}, "also": set()},
    "door": {"label": "the open door to the corridor", "action": "close the door", "needs": {"corridor_noise"},
             "also": {"loud_music", "cold", "cold_feet"}},
    "blind": {"label": "the window blind", "action": "lower the blind", "needs": {"glare"}, "also": set()},
    "pen": {"label": "a pen", "action": "lend a pen", "needs": {"write"}, "also": set()},
}
_NEEDS = {  # need -> (easy: conventional requests, medium: name the thing, hard: hints without naming it), two
    # of each so that an (utterance, answer) pair recurs rarely; easy requests use other words than the answer
    "cold": (("Could you shut that window?", "Would you mind shutting the window?"),
             ("That open window is letting the cold in.", "There's a freezing draught from that window."),
             ("Brr, I can't stop shivering.", "I should have brought a thicker jumper.")),
    "stuffy": (("Could you let some air in through the window?", "Would you mind letting some fresh air in?"),
               ("It's so stuffy with the window shut.", "That window's been closed all day."),
               ("I can hardly breathe in here, it's so stuffy.", "The air in here is so stale.")),
    "dark": (("Could you light the lamp?", "Would you mind lighting that lamp?"),
             ("It'd help to have that lamp lit.", "That lamp would make all the difference."),
             ("I can barely make out the words of this page.", "I'm squinting to read this.")),
    "loud_music": (("Could you make the radio a bit quieter?", "Would you mind lowering the radio's volume?"),
                   ("The radio is really loud.", "That radio is blaring."),
                   ("I can't hear myself think.", "I can't follow a word of my phone call.")),
    "bland": (("Could you hand me the salt?", "Would you mind giving me the salt?"),
              ("This soup needs salt.", "A bit of salt would help this soup."),
              ("This soup tastes of almost nothing.", "This soup is rather bland.")),
    "thirsty": (("Could I have a glass of water?", "Would you mind filling my glass from the jug?"),
                ("I'd love a drop of that water.", "That jug of water looks tempting."),
                ("My throat is so dry.", "I'm parched.")),
    "tea": (("Could you boil some water for tea?", "Would you mind boiling the kettle?"),
            ("The kettle's right by you, isn't it?", "Is the kettle full?"),
            ("I'd kill for a cup of tea.", "I could really do with a brew.")),
    "cold_feet": (("Could you get the heater going?", "Would you mind starting the heater?"),
                  ("It would be nice if the heater were running.", "That heater isn't doing much switched off."),
                  ("My toes are like ice.", "My feet are frozen.")),
    "battery": (("Could you hand me the charger?", "Would you mind giving me the charger?"),
                ("I need that charger.", "Is that charger free?"),
                ("My phone is about to die.", "My battery's on two per cent.")),
    "sneezing": (("Could you hand me a tissue?", "Would you mind giving me a tissue?"),
                 ("Are those tissues next to you?", "I could use one of those tissues."),
                 ("Atchoo! Sorry, my nose is running.", "I can't stop sniffing.")),
    "bin_smell": (("Could you empty the bin?", "Would you mind getting rid of the bin bag?"),
                  ("That bin is full.", "The bin's overflowing again."),
                  ("Something in here really smells.", "What is that awful smell?")),
    "corridor_noise": (("Could you pull the door to?", "Would you mind shutting the door?"),
                       ("The door's letting in all that noise from the corridor.", "That open door lets every sound in."),
                       ("The chatter out in the corridor is driving me mad.", "Everyone in the corridor is so noisy today.")),
    "glare": (("Could you pull the blind down?", "Would you mind bringing the blind down?"),
              ("The blind should be down.", "That blind is up again."),
              ("The sun is right in my eyes.", "I can't see my screen for the sunshine.")),
    "write": (("Could I borrow a pen?", "Would you mind if I used your pen?"),
              ("Have you got a pen there?", "A pen would be handy right now."),
              ("I need to jot this number down before I forget it.", "I've nothing to write with.")),
}
_PRAG_SETTINGS = ("at the dinner table", "in the office they share", "in the library study room", "in the staff room",
                  "in their hotel room", "at the kitchen table", "in the waiting room", "in the car park office")
_PRAG_STEMS = ("What does {s} most likely want {h} to do?", "What is {s} really asking {h} for?",
               "How should {h} respond to be helpful?")


def _scene_things(rng: random.Random, target: str) -> list[str]:
    """The target thing plus three others whose needs are disjoint from the target's (and from
    each other's), never both windows."""
    chosen = [target]
    for key in rng.sample(sorted(_THINGS), len(_THINGS)):
        if len(chosen) == 4:
            break
        if key in chosen or (key.startswith("window") and any(c.startswith("window") for c in chosen)):
            continue
        if any(_conflict(key, c) for c in chosen):
            continue
        chosen.append(key)
    return chosen


def _conflict(a: str, b: str) -> bool:
    """Whether a hint aimed at one of the two things could be taken as aimed at the other."""
    reach_a = _THINGS[a]["needs"] | _THINGS[a]["also"]
    reach_b = _THINGS[b]["needs"] | _THINGS[b]["also"]
    return bool(reach_a & _THINGS[b]["needs"] or reach_b & _THINGS[a]["needs"])


@DOMAIN.subcategory(
    "pragmatic_inference",
    difficulty={
        "easy": "a conventional indirect request ('Could you shut that window?') in other words than the "
                "action it asks for, with three other things in reach (the literal reading, a question about "
                "ability, was never the gold and is not offered)",
        "medium": "a statement that names the thing needed ('This soup needs salt') with three other "
                  "things in reach",
        "hard": "an off-record hint that names only the need ('My toes are like ice'); the listener must "
                "map it to the one thing in reach that meets it",
    },
)
def pragmatic_inference(rng: random.Random, difficulty: str) -> Item:
    need = _choice(rng, sorted(_NEEDS))
    target = next(k for k, v in sorted(_THINGS.items()) if need in v["needs"])
    things = _scene_things(rng, target)
    level = {"easy": 0, "medium": 1, "hard": 2}[difficulty]
    utterance = _choice(rng, _NEEDS[need][level])
    s, h = rng.sample(NAMES, 2)
    setting = _choice(rng, _PRAG_SETTINGS)
    reach = [_THINGS[k]["label"] for k in things]
    rng.shuffle(reach)
    intro = f"{s} and {h} are {setting}. Within {h}'s reach are {', '.join(reach[:-1])} and {reach[-1]}."
    question = f"{intro} {s} says to {h}: \"{utterance}\"\n\n" + _choice(rng, _PRAG_STEMS).format(s=s, h=h)
    gold = _cap(_THINGS[target]["action"]) + "."
    wrong = [_cap(_THINGS[k]["action"]) + "." for k in things if k != target]
    params = {"need": need, "target": target, "things": things, "utterance_level": level, "utterance": utterance}
    # an utterance backs at most two items of a form: it takes one of two slots, and the bank redraws
    # an item whose slot is taken (see Item.facts)
    slot = f"pragmatic_utterance:{utterance}:{rng.randrange(2)}"
    # the helpful action is one of the offered ones ("Close the window." has as many paraphrases as
    # there are ways to shut a window), so the item always shows its options
    return Item(question, gold, "multiple_choice", pick_distractors(gold, wrong), params, facts=(slot,))


def _cap(text: str) -> str:
    return text[:1].upper() + text[1:]


# ============================================================================================
# sarcasm_detection: remark polarity against what the speaker saw and wanted
# ============================================================================================

_SARCASM_SCENES = (
    {"id": "train", "topic": "the train", "good": ("The train pulled in two minutes early.", "The 8:10 train left exactly on time."),
     "bad": ("The train was ninety minutes late.", "The train was cancelled for the third time this week."),
     "bad_numeric": "The train was due at 9:00; it arrived at 10:40.", "good_numeric": "The train was due at 9:00; it arrived at 8:58.",
     "hoped_bad": "who secretly hoped the trip would fall through so that {x} could stay home"},
    {"id": "weather", "topic": "the weather", "good": ("The sun came out and the sky cleared.", "It turned into a warm, cloudless afternoon."),
     "bad": ("It started pouring with rain the moment they set off.", "A hailstorm flattened the picnic tent."),
     "bad_numeric": "The forecast said 0% chance of rain; 40 mm fell in an hour.",
     "good_numeric": "The forecast said 90% chance of storms; not a drop fell.",
     "hoped_bad": "who had been hoping for rain so that the garden would be watered"},
    {"id": "cake", "topic": "the cake", "good": ("The cake came out of the oven golden and perfectly risen.", "The cake was moist and delicious."),
     "bad": ("The cake came out of the oven burnt black.", "The cake collapsed into a soggy heap."),
     "bad_numeric": "The recipe said 30 minutes at 180 °C; the cake had been in for 90 minutes at 240 °C.",
     "good_numeric": "The recipe said 30 minutes; it came out at exactly 30 minutes, evenly golden.",
     "hoped_bad": "who had bet a friend that the new recipe would fail"},
    {"id": "exam", "topic": "the exam result", "good": ("The results came back: a top grade.", "The exam was marked 95 out of 100."),
     "bad": ("The results came back: a fail.", "The exam was marked 12 out of 100."),
     "bad_numeric": "The pass mark was 50; the score was 23.", "good_numeric": "The pass mark was 50; the score was 91.",
     "hoped_bad": "who wanted to fail the entrance test so as not to be moved to a new school"},
    {"id": "delivery", "topic": "the delivery", "good": ("The sofa was delivered on time and undamaged.", "The parcel arrived a day early."),
     "bad": ("The sofa arrived with a huge tear in it.", "The parcel turned up soaked and crushed."),
     "bad_numeric": "Delivery was promised for Monday; it came the following Friday.",
     "good_numeric": "Delivery was promised for Friday; it came on Wednesday.",
     "hoped_bad": "who hoped it would come late so that the order could be cancelled for a full refund"},
    {"id": "match", "topic": "the match", "good": ("The home team won 4-0.", "The team won the final in the last minute."),
     "bad": ("The home team lost 0-6.", "The team was knocked out in the first round."),
     "bad_numeric": "The home team needed a win; it lost 1-5.", "good_numeric": "The home team needed a draw; it won 3-0.",
     "hoped_bad": "who supports the visiting club"},
    {"id": "haircut", "topic": "the haircut", "good": ("The barber gave exactly the cut in the photo.", "The haircut turned out neat and stylish."),
     "bad": ("The barber shaved off far more than asked.", "The haircut came out lopsided."),
     "bad_numeric": "The request was 'just 1 cm off'; 8 cm came off.", "good_numeric": "The request was 'just 1 cm off'; exactly 1 cm came off.",
     "hoped_bad": None},
)
_POSITIVE_REMARKS = ("Oh, fantastic.", "Well, this is just perfect.", "Great, exactly what I wanted.",
                     "Wonderful. Just wonderful.", "Brilliant, this has made my day.", "Oh, lovely.")
_NEGATIVE_REMARKS = ("Oh no, that's awful.", "Well, that's a real shame.", "This is so disappointing.",
                     "What a let-down.")
_SARCASM_STEMS = ("Which description of {s}'s remark fits best?", "How should {s}'s remark be understood?",
                  "Was {s} being sincere or sarcastic, and how does {s} actually feel?",
                  "What is {s}'s tone, and what does {s} really think about {t}?")


@DOMAIN.subcategory(
    "sarcasm_detection",
    difficulty={
        "easy": "a plainly good or bad outcome that the speaker sees and a remark whose polarity matches "
                "it (sincere) or contradicts it (sarcastic: praise after a flop, a mock complaint after a success)",
        "medium": "the outcome is given as numbers to compare with what was expected or promised; "
                  "positive or negative remarks",
        "hard": "numeric outcomes and a speaker who wanted the usually unwelcome result, so the same "
                "remark flips between sincere and sarcastic",
    },
)
def sarcasm_detection(rng: random.Random, difficulty: str) -> Item:
    scene = _choice(rng, _SARCASM_SCENES)
    # the reading is drawn first, each of the four equally often, and the story is built to fit it:
    # with a reading that is never the gold (a mock complaint, "Oh no, that's awful" from a pleased
    # speaker) a respondent could strike it off unread
    sarcastic, speaker_pleased = rng.random() < 0.5, rng.random() < 0.5
    inverted = difficulty == "hard" and scene["hoped_bad"] is not None and rng.random() < 0.6
    outcome_good = speaker_pleased != inverted
    remark_positive = speaker_pleased != sarcastic
    s = _choice(rng, NAMES)
    if difficulty == "easy":
        fact = _choice(rng, scene["good" if outcome_good else "bad"])
    else:
        fact = scene["good_numeric" if outcome_good else "bad_numeric"]
    remark = _choice(rng, _POSITIVE_REMARKS if remark_positive else _NEGATIVE_REMARKS)
    who = f"{s}, {scene['hoped_bad'].format(x=s)}," if inverted else s
    seen = _choice(rng, ("watched it happen", "saw it happen", "was right there"))
    question = f"{fact} {who} {seen} and said: \"{remark}\"\n\n" + _choice(rng, _SARCASM_STEMS).format(s=s, t=scene["topic"])
    t = scene["topic"]
    labels = {(True, True): f"Sarcastic: {s} is pleased about {t}",
              (True, False): f"Sarcastic: {s} is unhappy about {t}",
              (False, True): f"Sincere: {s} is pleased about {t}",
              (False, False): f"Sincere: {s} is unhappy about {t}"}
    gold = labels[(sarcastic, speaker_pleased)]
    # the other coherent reading first, then the two incoherent pairings
    wrong = [labels[(not sarcastic, not speaker_pleased)], labels[(not sarcastic, speaker_pleased)],
             labels[(sarcastic, not speaker_pleased)]]
    params = {"scene": scene["id"], "outcome_good": outcome_good, "speaker_wanted_bad": inverted,
              "remark_positive": remark_positive, "numeric": difficulty != "easy", "fact": fact, "remark": remark,
              "steps": 1 + (difficulty != "easy") + inverted}
    return Item(question, gold, "multiple_choice", pick_distractors(gold, wrong), params)


# ============================================================================================
# social_norm_violation: tagged actions against a setting's norms and a posted rule
# ============================================================================================

_NORM_SETTINGS = (
    {"id": "library", "place": "In the public library reading room", "forbidden": {"loud", "phone_call", "food_near_books"},
     "ok": ("returned two books at the desk", "whispered a question to the librarian", "read quietly in an armchair",
            "photocopied a page at the copier", "searched the catalogue on a terminal"),
     "bad": (("answered a phone call at the reading desk", "phone_call"), ("played music through a small speaker", "loud"),
             ("ate a greasy takeaway over a rare atlas", "food_near_books"))},
    {"id": "funeral", "place": "At a funeral service", "forbidden": {"mocking", "loud", "festive_dress"},
     "ok": ("wore a dark suit", "offered condolences to the family", "sat quietly during the eulogy",
            "signed the condolence book", "brought flowers for the family"),
     "bad": (("laughed loudly at a joke during the eulogy", "loud"), ("turned up in a bright party costume", "festive_dress"),
             ("made fun of the deceased's hobbies in the speech", "mocking"))},
    {"id": "interview", "place": "At a job interview day", "forbidden": {"phone_call", "rude", "unexplained_lateness"},
     "ok": ("shook hands with the panel", "brought a spare copy of the CV", "asked about the team's projects",
            "thanked the interviewers at the end", "arrived ten minutes early"),
     "bad": (("answered a personal call halfway through", "phone_call"), ("put both feet up on the desk", "rude"),
             ("arrived forty minutes late without a word of explanation", "unexplained_lateness"))},
    {"id": "cinema", "place": "At a cinema screening", "forbidden": {"loud", "phone_call", "kicking"},
     "ok": ("switched the phone to silent before the film", "bought popcorn in the foyer", "sat in the seat printed on the ticket",
            "left quietly during the credits", "whispered 'excuse me' when passing along the row"),
     "bad": (("chatted on the phone during the film", "phone_call"), ("kept kicking the seat in front", "kicking"),
             ("shouted comments at the screen throughout", "loud"))},
    {"id": "queue", "place": "In the queue at a busy bakery", "forbidden": {"queue_jumping", "rude"},
     "ok": ("waited for their turn", "let an elderly customer go ahead when offered", "had the money ready at the till",
            "asked the assistant what was in a pastry", "moved up when the queue shuffled forward"),
     "bad": (("pushed past six waiting customers to the counter", "queue_jumping"),
             ("snapped at the assistant for being slow", "rude"), ("joined the queue halfway along, beside a friend, ahead of people who had waited longer", "queue_jumping"))},
    {"id": "dinner", "place": "At a dinner party in a friend's flat", "forbidden": {"snooping", "rude"},
     "ok": ("brought a small gift for the host", "complimented the cook", "helped clear the plates", "asked for the recipe",
            "took their shoes off at the door as the host asked"),
     "bad": (("read the host's private letters left on a desk", "snooping"), ("loudly called the main course disgusting", "rude"),
             ("went through the host's bedroom drawers", "snooping"))},
    {"id": "hospital", "place": "On a hospital ward during visiting hours", "forbidden": {"loud", "smoking"},
     "ok": ("used the hand sanitiser at the entrance", "kept their voice low", "brought grapes for a patient",
            "checked in at the nurses' station", "left when visiting hours ended"),
     "bad": (("played loud videos next to a sleeping patient", "loud"), ("lit a cigarette by the bed", "smoking"),
             ("shouted across the ward to a friend", "loud"))},
    {"id": "exam", "place": "In a school exam hall", "forbidden": {"cheating", "talking"},
     "ok": ("raised a hand to ask for more paper", "handed in the paper when time was up", "checked their answers twice",
            "sharpened a pencil before the start", "left their bag at the front as instructed"),
     "bad": (("copied answers from the next desk", "cheating"), ("whispered to a friend during the exam", "talking"),
             ("read notes hidden in a sleeve", "cheating"))},
)
# near misses look like the violation but respect the rule, and share the rule's own words (laptops,
# photographs, cap, pick, shelf, wipe, quiet), so the rule does not single out the one action naming
# its subject; ordinary actions are unrelated
_POSTED_RULES = (
    {"id": "cafe_laptops", "place": "In a café", "rule": "a sign by the counter says: \"No laptops at weekends.\" It is Saturday.",
     "tag": "laptop", "violation": "worked on a laptop at a corner table",
     "near": ("read a paperback at a corner table", "asked whether laptops were allowed on weekdays"),
     "ordinary": ("wrote in a notebook", "sketched in a pad", "did a crossword in the paper")},
    {"id": "museum_photos", "place": "In a museum gallery", "rule": "a notice at the entrance says: \"No photography in this gallery.\"",
     "tag": "photo", "violation": "took a photo of a painting with a phone",
     "near": ("sketched a painting in a notebook", "bought a book of photographs of the paintings in the shop"),
     "ordinary": ("read the labels aloud quietly to a child", "sat on the bench", "asked a guard about a painting")},
    {"id": "pool_caps", "place": "At the public swimming pool", "rule": "a sign says: \"Swimming caps must be worn in the water.\"",
     "tag": "no_cap", "violation": "swam lengths without a cap",
     "near": ("swam lengths wearing a cap and goggles", "took off their cap after climbing out of the water"),
     "ordinary": ("showered before getting in", "sat at the edge with a towel", "bought a drink from the kiosk")},
    {"id": "gym_wipe", "place": "In a gym", "rule": "a poster says: \"Wipe down every machine after use.\"",
     "tag": "no_wipe", "violation": "left the rowing machine without wiping it",
     "near": ("wiped the bench after using it", "wiped the treadmill down"),
     "ordinary": ("refilled a water bottle", "stretched on a mat", "re-racked the weights")},
    {"id": "office_fridge", "place": "In an office kitchen", "rule": "a note on the fridge says: \"Top shelf reserved for the catering team.\"",
     "tag": "top_shelf", "violation": "put their lunch box on the top shelf",
     "near": ("put their lunch box on the bottom shelf", "took a yoghurt from the middle shelf"),
     "ordinary": ("washed up a mug", "made a coffee", "wiped the counter")},
    {"id": "garden_flowers", "place": "In a community garden", "rule": "a board at the gate says: \"Please do not pick the flowers.\"",
     "tag": "picking", "violation": "picked a bunch of tulips to take home",
     "near": ("picked up litter from between the flowers", "smelled the roses"),
     "ordinary": ("watered the beds on the rota", "sat reading on the bench", "pulled weeds from the path")},
    {"id": "hotel_quiet", "place": "In a hotel", "rule": "the door card says: \"Quiet hours from 10 pm to 7 am.\" It is 11 pm.",
     "tag": "late_noise", "violation": "played the guitar loudly in their room",
     "near": ("watched TV with headphones on", "hummed quietly while packing"),
     "ordinary": ("read in bed", "ordered a sandwich from room service", "wrote postcards at the desk")},
)
_NORM_STEMS = ("Whose behaviour breaks a social norm or rule that applies here?", "Which person acted inappropriately?",
               "Only one of these people did something they should not have. Who?",
               "Which action would most people there object to?")


def _people_actions(rng: random.Random, actions: list[tuple[str, list[str]]]) -> list[tuple[str, str, list[str]]]:
    names = rng.sample(NAMES, len(actions))
    return [(n, a, tags) for n, (a, tags) in zip(names, actions)]


@DOMAIN.subcategory(
    "social_norm_violation",
    difficulty={
        "easy": "a widely shared norm of the setting (quiet in a library, no cheating in an exam) broken "
                "blatantly, next to three ordinary actions",
        "medium": "a posted house rule that forbids something harmless elsewhere (laptops in a café at the "
                  "weekend), next to unrelated ordinary actions",
        "hard": "a posted rule with near-miss actions that look like the violation but respect the rule "
                "(a sketch instead of a photo, a cap on in the pool)",
    },
)
def social_norm_violation(rng: random.Random, difficulty: str) -> Item:
    if difficulty == "easy":
        setting = _choice(rng, _NORM_SETTINGS)
        bad_text, bad_tag = _choice(rng, setting["bad"])
        ok = rng.sample(setting["ok"], 3)
        actions = [(bad_text, [bad_tag])] + [(a, []) for a in ok]
        forbidden = sorted(setting["forbidden"])
        context = f"{setting['place']}, four people did the following."
        setting_id = setting["id"]
    else:
        # medium and hard draw from disjoint halves of the rules: a hard item is not a medium scene reused
        rule = _choice(rng, _POSTED_RULES[0::2] if difficulty == "medium" else _POSTED_RULES[1::2])
        ok = list(rule["ordinary"]) if difficulty == "medium" else [*rule["near"], _choice(rng, rule["ordinary"])]
        actions = [(rule["violation"], [rule["tag"]])] + [(a, []) for a in ok]
        forbidden = [rule["tag"]]
        context = f"{rule['place']}, {rule['rule']} Four people there did the following."
        setting_id = rule["id"]
    people = _people_actions(rng, actions)
    listing = list(people)
    rng.shuffle(listing)
    lines = "\n".join(f"- {n} {a}." for n, a, _ in listing)
    question = f"{context}\n{lines}\n\n{_choice(rng, _NORM_STEMS)}"
    gold_name = people[0][0]
    gold = gold_name
    wrong = [n for n, _, _ in people[1:]]
    params = {"setting": setting_id, "forbidden": forbidden, "posted_rule": difficulty != "easy",
              "near_misses": 2 if difficulty == "hard" else 0,
              "actions": [{"person": n, "action": a, "tags": tags} for n, a, tags in people]}
    return Item(question, gold, "short_text", pick_distractors(gold, wrong), params)
