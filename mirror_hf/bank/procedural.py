"""Procedural domain: carry out a procedure exactly as written and report its result.

Each item states the whole procedure (an algorithm, a recipe, a rule table, a puzzle's moves, a
recovery rule), so its answer is fixed by the text; the generator then runs the procedure to get the
gold answer. Distractors are the results of the slips people make: one pass too many or too few,
a stack read as a queue, rules applied out of order, a boundary misread, a plan a move or two off
the shortest, restarting from the wrong step. Where every slip is one edit of the gold (a traced
list, a probe sequence), two slips are shown alone and together (a 2 x 2 family), so the gold is not
the choice the others have most in common with. Where the answer is a count or a step number (moves,
probes, loop repetitions, oven batches, a restart step), the four offered are a run with the gold's
place in it drawn first, so no value is learnt to be "often right". Where the answer comes from a
small vocabulary of values (a scaled amount, bowl weights, steps to redo, a retry action), the four
offered are answers to equally likely items (two slips each exchanging the item for another one
drawn alike: the scale factor read upside down and another ingredient's line, the other bowl and a
step done the other way round, two dependencies misread), or are drawn before the answer among
them, so each is the gold in a quarter of the items that offer it. `params` holds the procedure as
data, so the tests can run it again with their own implementation.
"""

from __future__ import annotations

import itertools
import math
import random
from collections import deque
from fractions import Fraction
from math import gcd

from mirror_hf.bank._core import Domain, Item
from mirror_hf.bank._leaks import STRATEGIES
from mirror_hf.bank._wording import NAMES, answer_ranks, fmt_num, pick_distractors, plural

DOMAIN = Domain(
    "procedural",
    version="1.0.0",
    description=(
        "Procedures stated in full inside each question (sorting passes, stack and queue operations, "
        "short loops, binary search; recipes with scaling and bowls; ordered rule tables; shortest "
        "plans in small puzzles; recovery rules after a failed step). Gold answers are computed by "
        "executing the procedure (shortest plans by breadth-first search); distractors are the results "
        "of common execution slips."
    ),
)


def fmt_ok(value) -> bool:
    """A value the bank can write exactly (1/3 cannot be)."""
    try:
        fmt_num(value)
    except ValueError:
        return False
    return True


def fmt_list(values: list[int]) -> str:
    return "[" + ", ".join(str(v) for v in values) + "]"


# ---------------------------------------------------------------------------------------------
# algorithm_execution
# ---------------------------------------------------------------------------------------------


def bubble_pass(values: list[int], descending: bool = False) -> list[int]:
    """One left-to-right pass: swap each adjacent pair that is out of order."""
    out = list(values)
    for i in range(len(out) - 1):
        if (out[i] > out[i + 1]) != descending and out[i] != out[i + 1]:
            out[i], out[i + 1] = out[i + 1], out[i]
    return out


def bubble_passes(values: list[int], passes: int, descending: bool = False) -> list[int]:
    for _ in range(passes):
        values = bubble_pass(values, descending)
    return values


def selection_passes(values: list[int], passes: int) -> list[int]:
    """After pass k the k smallest values sit, in order, at the front (swap with the minimum)."""
    out = list(values)
    for i in range(passes):
        j = min(range(i, len(out)), key=lambda k: (out[k], k))
        out[i], out[j] = out[j], out[i]
    return out


def insertion_passes(values: list[int], inserted: int) -> list[int]:
    """Insertion sort after elements 2..inserted+1 have been inserted into the sorted prefix."""
    out = list(values)
    for i in range(1, inserted + 1):
        key, j = out[i], i - 1
        while j >= 0 and out[j] > key:
            out[j + 1] = out[j]
            j -= 1
        out[j + 1] = key
    return out


def _distinct_values(rng: random.Random, n: int, hi: int = 60) -> list[int]:
    while True:
        values = rng.sample(range(1, hi), n)
        if values != sorted(values):
            return values


def _swapped(values: list[int], i: int) -> list[int]:
    """The list with the neighbours at positions i and i + 1 exchanged: a swap made or missed by mistake."""
    out = list(values)
    out[i], out[i + 1] = out[i + 1], out[i]
    return out


def _slip_family(rng: random.Random, answer: list[int], slips: list[list[int]]) -> tuple[str, str, str]:
    """Three wrong lists that, with the answer, form a 2 x 2 family of two slips.

    The slips people make in a sorting trace (a pass too many or too few, the list sorted outright,
    the wrong algorithm) and a single swap made or missed are each one edit of the answer, so with
    several of them shown the answer is the list the others have most in common with. Here one named
    slip s and one interior swap at position i span {answer, s, swap_i(answer), swap_i(s)}: every list
    is one edit from two others and two from the third. The swap never touches the ends, so the two
    lists of a pair open and close alike: four lists written from one set of numbers differ, read as
    characters or pairs of characters, only in their first and last entries, and the answer is then
    no more typical than any other choice. Of the families available (every named slip with every
    interior position), one whose answer sits nearest a centrality rank drawn at random, under the
    leak gate's likeness reading, is kept."""
    want = rng.randrange(4)
    families: list[tuple[float, tuple[str, str, str]]] = []
    for s in slips:
        for i in range(1, len(answer) - 2):
            if s == answer or s == _swapped(answer, i):
                continue
            texts = [fmt_list(v) for v in (answer, s, _swapped(answer, i), _swapped(s, i))]
            if len(set(texts)) == 4:
                families.append((abs(answer_ranks(texts)[1] - want), (texts[1], texts[2], texts[3])))
    if not families:
        raise ValueError(f"no slip family for {answer}")  # pragma: no cover - 5+ values, slips differ
    best = min(cost for cost, _ in families)
    return rng.choice([f for cost, f in families if cost == best])


def _algo_sort_passes(rng: random.Random, difficulty: str) -> Item:
    n, passes = {"easy": (5, 1), "medium": (6, 2), "hard": (8, 3)}[difficulty]
    algorithm = rng.choice(["bubble", "selection", "insertion"] if difficulty != "easy" else ["bubble", "selection"])
    for _ in range(50):
        values = _distinct_values(rng, n, 40 if difficulty == "easy" else 100)
        run = {"bubble": bubble_passes, "selection": selection_passes, "insertion": insertion_passes}[algorithm]
        answer = run(values, passes)
        one_less, one_more = run(values, passes - 1), run(values, passes + 1)
        if answer != sorted(values) and one_less != answer and one_more != answer:
            break
    else:
        raise ValueError("no list found whose passes differ")  # pragma: no cover - the range is large
    name = rng.choice(NAMES)
    pass_word = "pass" if passes == 1 else "passes"
    if algorithm == "bubble":
        rule = (
            "In one pass, compare each pair of neighbours from left to right and swap them when the left "
            "one is larger."
        )
        slips = [one_more, one_less, sorted(values), bubble_passes(values, passes, descending=True)]
        what = f"{passes} {pass_word} of bubble sort (ascending)"
    elif algorithm == "selection":
        rule = (
            "Pass k finds the smallest value among positions k to the end and swaps it into position k "
            "(positions counted from 1)."
        )
        # Slips: one pass more or less, or shifting the minimum in (insertion-style) instead of swapping.
        shifted = list(values)
        for i in range(passes):
            j = min(range(i, n), key=lambda k: shifted[k])
            shifted.insert(i, shifted.pop(j))
        slips = [one_more, one_less, shifted, sorted(values)]
        what = f"{passes} {pass_word} of selection sort (ascending)"
    else:
        rule = (
            "Pass k takes the element at position k+1 and moves it left past every larger element of the "
            "already-sorted front part."
        )
        slips = [one_more, one_less, bubble_passes(values, passes), sorted(values)]
        what = f"{passes} {pass_word} of insertion sort (ascending)"
    q = rng.choice(
        [
            f"{name} runs {what} on the list {fmt_list(values)}. {rule} What is the list after {passes} {pass_word}?",
            f"Start with {fmt_list(values)} and perform {what}. {rule} Which list results?",
            f"{rule} Applying {what} to {fmt_list(values)}, what does the list look like afterwards?",
        ]
    )
    return Item(
        q,
        fmt_list(answer),
        "short_text",
        _slip_family(rng, answer, slips),
        {"kind": "sort_passes", "algorithm": algorithm, "values": values, "passes": passes},
    )


def _algo_stack_queue(rng: random.Random, difficulty: str) -> Item:
    n_ops = {"easy": 6, "medium": 9, "hard": 13}[difficulty]
    structure = rng.choice(["stack", "queue"])
    values = rng.sample(range(1, 100), n_ops)
    ops: list[list] = []
    size = 0
    for v in values:
        if size >= 1 and rng.random() < 0.4:
            ops.append(["remove"])
            size -= 1
        ops.append(["add", v])
        size += 1
    while len(ops) < n_ops:
        ops.append(["remove"] if size > 1 and rng.random() < 0.5 else ["add", rng.randint(1, 99)])
        size += -1 if ops[-1][0] == "remove" else 1
    ops = ops[:n_ops]
    # Make sure at least one element remains, and that removals never hit an empty container.
    stack_run = _run_container(ops, "stack")
    queue_run = _run_container(ops, "queue")
    if stack_run is None or queue_run is None:
        return _algo_stack_queue(rng, difficulty)
    mine, other = (stack_run, queue_run) if structure == "stack" else (queue_run, stack_run)
    removed, remaining = mine
    add_word, remove_word = ("push", "pop") if structure == "stack" else ("enqueue", "dequeue")
    lines = [f"{add_word} {op[1]}" if op[0] == "add" else remove_word for op in ops]
    ask = rng.choice(["last_removed", "front"] if removed else ["front"])
    if ask == "last_removed":
        answer = str(removed[-1])
        slips = [str(other[0][-1])] if other[0] else []
        slips += [str(x) for x in removed[-2::-1]] + [str(x) for x in remaining]
        question_end = f"Which value does the last {remove_word} return?"
    else:
        answer = str(remaining[-1] if structure == "stack" else remaining[0])
        end_of_other = other[1][-1] if structure == "queue" else other[1][0]
        slips = [str(remaining[0] if structure == "stack" else remaining[-1]), str(end_of_other)]
        slips += [str(x) for x in remaining] + [str(x) for x in removed]
        question_end = "Which value is now on top of the stack?" if structure == "stack" else "Which value is now at the front of the queue?"
    intro = rng.choice(
        [
            f"An empty {structure} receives these operations in order: {'; '.join(lines)}.",
            f"Starting from an empty {structure}, a program performs: {', '.join(lines)}.",
            f"Trace the following operations on a {structure} that starts empty: {' -> '.join(lines)}.",
        ]
    )
    fallback = [str(op[1]) for op in ops if op[0] == "add"]  # only values that were ever added
    return Item(
        f"{intro} {question_end}",
        answer,
        "exact_numeric",
        pick_distractors(answer, slips, fallback),
        {"kind": "stack_queue", "structure": structure, "ops": ops, "ask": ask},
    )


def _run_container(ops: list[list], structure: str) -> tuple[list[int], list[int]] | None:
    items: list[int] = []
    removed: list[int] = []
    for op in ops:
        if op[0] == "add":
            items.append(op[1])
        else:
            if not items:
                return None
            removed.append(items.pop() if structure == "stack" else items.pop(0))
    return (removed, items) if items else None


# Loop programs: a variable updated n times by a rule with a branch. Each rule is data:
# ("collatz",), ("add_mod", k, m), ("double_cap", cap), ("digit_sum_add",), ("alt", a, b)
def loop_step(rule: list, x: int, i: int) -> int:
    kind = rule[0]
    if kind == "collatz":
        return x // 2 if x % 2 == 0 else 3 * x + 1
    if kind == "add_mod":
        return (x + rule[1]) % rule[2]
    if kind == "double_cap":
        y = 2 * x
        return y - rule[1] if y > rule[1] else y
    if kind == "digit_sum_add":
        return x + sum(int(d) for d in str(x))
    if kind == "alt":
        return x + rule[1] if i % 2 == 1 else x - rule[2]
    raise ValueError(f"unknown loop rule {rule!r}")


def run_loop(rule: list, start: int, steps: int) -> int:
    x = start
    for i in range(1, steps + 1):
        x = loop_step(rule, x, i)
    return x


def _loop_text(rule: list, x: str) -> str:
    kind = rule[0]
    if kind == "collatz":
        return f"if {x} is even, set {x} to {x} / 2; otherwise set {x} to 3 × {x} + 1"
    if kind == "add_mod":
        return f"set {x} to the remainder of ({x} + {rule[1]}) divided by {rule[2]}"
    if kind == "double_cap":
        return f"double {x}, and if the result is greater than {rule[1]}, subtract {rule[1]} from it"
    if kind == "digit_sum_add":
        return f"add the sum of the decimal digits of {x} to {x}"
    if kind == "alt":
        return f"on odd-numbered repetitions add {rule[1]} to {x}; on even-numbered ones subtract {rule[2]}"
    raise ValueError(kind)


def _algo_loop(rng: random.Random, difficulty: str) -> Item:
    """Run a short loop body a given number of times; what value does the variable end with?

    The slip in tracing a loop is losing count of the repetitions, so the four values offered are
    the variable after four consecutive repetition counts w .. w + 3, with the answer's place among
    them drawn first (the repetitions asked for are w + place) and a loop kept only when the four
    values differ. Each value offered is then the answer in a quarter of the items that offer it,
    and no value the loop cannot reach (below zero, above a cap or a modulus) is ever offered."""
    first = {"easy": 2, "medium": 5, "hard": 8}[difficulty]
    place = rng.randrange(4)
    steps = first + place
    for _ in range(200):
        kind = rng.choice(["collatz", "add_mod", "double_cap", "digit_sum_add", "alt"])
        rule: list = {
            "collatz": ["collatz"],
            "add_mod": ["add_mod", rng.randint(5, 19), rng.choice([7, 9, 11, 12, 13])],
            "double_cap": ["double_cap", rng.choice([50, 60, 75, 90, 100])],
            "digit_sum_add": ["digit_sum_add"],
            "alt": ["alt", rng.randint(5, 15), rng.randint(2, 9)],
        }[kind]
        start = rng.randint(3, 40) if kind != "double_cap" else rng.randint(3, rule[1] - 1)
        run = [run_loop(rule, start, first + k) for k in range(4)]
        if len(set(run)) == 4:
            break
    else:
        raise ValueError("no loop with four different values found")  # pragma: no cover
    answer = run[place]
    wrong = [str(v) for k, v in enumerate(run) if k != place]
    var = rng.choice(["x", "n", "v", "total"])
    body = _loop_text(rule, var)
    q = rng.choice(
        [
            f"Set {var} = {start}. Repeat the following {steps} times: {body}. What is {var} at the end?",
            f"A short program starts with {var} = {start} and runs this loop body {steps} times: {body}. What value does {var} hold when the loop finishes?",
            f"Trace this procedure: begin with {var} = {start}; then, {steps} times in a row, {body}. What is the final value of {var}?",
        ]
    )
    answer_s = str(answer)
    return Item(
        q,
        answer_s,
        "exact_numeric",
        (wrong[0], wrong[1], wrong[2]),
        {"kind": "loop", "rule": rule, "start": start, "steps": steps},
    )


def binary_search_probes(values: list[int], target: int, *, round_up: bool = False, high: int | None = None,
                         run_on: int = 0) -> list[int]:
    """Values compared by binary search with mid = (lo + hi) // 2 (0-based, inclusive bounds).

    The keywords make the slips of a hand trace: the midpoint rounded up, high started one past the
    last position (a probe past the end ends the search), and not stopping at a match (run_on = 1:
    the search carries on once more to the right as if the probe were smaller; -1: to the left)."""
    lo, hi = 0, len(values) - 1 if high is None else high
    probes: list[int] = []
    found = False
    while lo <= hi:
        mid = (lo + hi + round_up) // 2
        if mid >= len(values):
            break
        probes.append(values[mid])
        if found:
            break
        if values[mid] == target:
            if not run_on:
                break
            found = True
        if values[mid] < target or (values[mid] == target and run_on > 0):
            lo = mid + 1
        else:
            hi = mid - 1
    return probes


def binary_search_probes_upper(values: list[int], target: int) -> list[int]:
    """The slip: rounding the midpoint up."""
    return binary_search_probes(values, target, round_up=True)


def _edge_credit(scores: list[float]) -> tuple[float, float]:
    """Credit a pick of the highest and of the lowest score gives choice 0 (ties share it)."""
    top, low = max(scores), min(scores)
    return (scores[0] == top) / scores.count(top), (scores[0] == low) / scores.count(low)


def _trace_cues(texts: list[str]) -> list[list[float]]:
    """Per choice, the cues a test-wise reader of four probe sequences has: its length, how many
    probes it lists (every probe is a value the question shows), its likeness to the others (the
    leak gate's trigram reading, and pairs of characters), and how many of its values the others
    share."""
    nums = [set(t.split(", ")) for t in texts]
    pairs = [{t[i:i + 2] for i in range(len(t) - 1)} for t in texts]
    return [
        [float(len(t)) for t in texts],
        [float(len(a)) for a in nums],
        list(STRATEGIES["most_similar"]("", texts)),
        [sum(len(p & o) / len(p | o) for o in pairs if o is not p) for p in pairs],
        [float(sum(len(a & b) for b in nums if b is not a)) for a in nums],
    ]


def _probe_family(rng: random.Random, values: list[int], target: int, want: tuple[int, ...]
                  ) -> tuple[float, tuple[str, str, str]] | None:
    """Three wrong probe sequences that, with the answer, form a 2 x 2 family of two slips.

    The slips of a binary-search trace (one probe too few or too many, the midpoint rounded up, the
    first probe forgotten) are each one edit of the answer; shown together, the answer is the
    sequence they all have most in common with, and the one of middle length. So one slip that
    changes the whole trace, A (the midpoint rounded up, high started one past the end, the first
    probe left out), and one at its end, B (stopping one probe early, or not stopping at a match),
    are combined: {answer, A, B, A and B}. Every sequence is one slip from two others and two slips
    from the third. `want` holds the answer's rank drawn at random under each cue of `_trace_cues`
    (0 = lowest); the family whose answer's credit from picking the highest and from picking the
    lowest of each cue comes nearest those ranks' is kept, with its cost (None when no family has
    four distinct traces)."""
    whole = [{"round_up": True}, {"high": len(values)}, {"skip_first": True}]
    ends = [{"stop_early": True}, {"run_on": 1}, {"run_on": -1}]

    def trace(slips: dict) -> list[int]:
        keys = {k: v for k, v in slips.items() if k in ("round_up", "high", "run_on")}
        seq = binary_search_probes(values, target, **keys)
        if slips.get("skip_first"):
            seq = seq[1:]
        return seq[:-1] if slips.get("stop_early") else seq

    families: list[tuple[float, tuple[str, str, str]]] = []
    for a in whole:
        for b in ends:
            seqs = [trace({}), trace(a), trace(b), trace({**a, **b})]
            texts = [", ".join(str(v) for v in seq) for seq in seqs]
            if all(texts) and len(set(texts)) == 4:
                cost = 0.0
                for cue, w in zip(_trace_cues(texts), want):
                    top, low = _edge_credit(cue)
                    cost += abs(top - (w == 3)) + abs(low - (w == 0))
                families.append((cost, (texts[1], texts[2], texts[3])))
    if not families:
        return None
    best = min(cost for cost, _ in families)
    return best, rng.choice([f for cost, f in families if cost == best])


def _algo_binary_search(rng: random.Random, difficulty: str) -> Item:
    ask = rng.choice(["count", "sequence"]) if difficulty != "easy" else "count"
    place = rng.randrange(4)  # count asked: the answer's place among the four counts offered (0 = smallest)
    want = tuple(rng.randrange(4) for _ in range(5))  # sequence asked: the ranks _probe_family aims at
    while True:
        n = {"easy": rng.randint(8, 9), "medium": rng.randint(11, 15), "hard": rng.randint(18, 31)}[difficulty]
        values = sorted(rng.sample(range(1, 150), n))
        present = rng.random() < 0.75 or difficulty == "easy"
        targets = values if present else [v for v in range(1, 150) if v not in values]
        if ask == "count":
            # The four counts offered are a run low .. low + 3 ending at or below the longest search
            # the list allows (floor(log2 n) + 1 probes), and the answer's place in the run is drawn
            # first: every count shown is then the answer equally often (none can be ruled out as
            # never right), and the answer is the smallest, the middle or the largest value no more
            # often than chance. The target is drawn among those whose search needs that count.
            low = rng.randint(1, len(bin(n)) - 2 - 3)
            targets = [t for t in targets if len(binary_search_probes(values, t)) == low + place]
            if targets:
                target = rng.choice(targets)
                distractors = tuple(str(low + k) for k in range(4) if k != place)
                break
            continue
        # Sequence asked: of up to 12 targets, the first whose family of slips fits the drawn ranks
        # (cost under 1), else the best found.
        found = []
        for target in rng.sample(targets, min(len(targets), 12)):
            family = _probe_family(rng, values, target, want)
            if family is not None:
                found.append((family[0], target, family[1]))
                if family[0] < 1:
                    break
        if found:
            _, target, distractors = min(found, key=lambda f: f[0])
            break
    probes = binary_search_probes(values, target)
    rules = (
        "Use 0-based positions, start with low = 0 and high = the last position, and each time probe "
        "position mid = floor((low + high) / 2); if the probed value is smaller than the target set "
        "low = mid + 1, if larger set high = mid - 1, and stop when the value is found or low > high."
    )
    outcome = "" if present else f" (note: {target} may not be in the list)"
    head = f"Binary search looks for {target} in the sorted list {fmt_list(values)}{outcome}. {rules}"
    if ask == "count":
        answer = str(len(probes))
        q = f"{head} How many values does it compare with the target?"
    else:
        answer = ", ".join(str(p) for p in probes)
        q = f"{head} List the values it probes, in order."
    return Item(
        q,
        answer,
        "short_text" if ask == "sequence" else "exact_numeric",
        distractors,
        {"kind": "binary_search", "values": values, "target": target, "ask": ask},
    )


_ALGO_KINDS = [_algo_sort_passes, _algo_stack_queue, _algo_loop, _algo_binary_search]


@DOMAIN.subcategory(
    "algorithm_execution",
    difficulty={
        "easy": "1 pass of bubble/selection sort on 5 values; 6 stack/queue operations; 2-5 loop "
        "repetitions; binary search on 8-9 values (count of probes)",
        "medium": "2 passes (bubble, selection or insertion) on 6 values; 9 operations; 5-8 repetitions; "
        "11-15 values, count or sequence of probes; from medium on the target may be absent",
        "hard": "3 passes on 8 values; 13 operations; 8-11 repetitions; 18-31 values (count or sequence of probes)",
    },
)
def algorithm_execution(rng: random.Random, difficulty: str) -> Item:
    return rng.choice(_ALGO_KINDS)(rng, difficulty)


# ---------------------------------------------------------------------------------------------
# recipe_following
# ---------------------------------------------------------------------------------------------

DISHES = (
    ("pancakes", [("flour", "g", 50), ("milk", "ml", 60), ("sugar", "g", 10), ("butter", "g", 15)]),
    ("bread", [("flour", "g", 100), ("water", "ml", 65), ("salt", "g", 2), ("yeast", "g", 1)]),
    ("tomato soup", [("tomatoes", "g", 150), ("stock", "ml", 125), ("onion", "g", 30), ("cream", "ml", 20)]),
    ("granola", [("oats", "g", 60), ("honey", "g", 15), ("nuts", "g", 20), ("oil", "ml", 10)]),
    ("lemonade", [("water", "ml", 200), ("lemon juice", "ml", 40), ("sugar", "g", 25), ("mint", "g", 2)]),
    ("rice pudding", [("rice", "g", 25), ("milk", "ml", 150), ("sugar", "g", 12), ("vanilla", "ml", 1)]),
    ("pizza dough", [("flour", "g", 125), ("water", "ml", 80), ("olive oil", "ml", 8), ("salt", "g", 3)]),
    ("hummus", [("chickpeas", "g", 80), ("tahini", "g", 15), ("lemon juice", "ml", 10), ("garlic", "g", 3)]),
    ("smoothie", [("banana", "g", 60), ("yogurt", "g", 75), ("berries", "g", 50), ("juice", "ml", 50)]),
    ("curry", [("lentils", "g", 70), ("coconut milk", "ml", 100), ("spice paste", "g", 15), ("spinach", "g", 40)]),
)


def _serving_pairs(counts: tuple[int, ...], whole: bool) -> list[tuple[int, int]]:
    """Unordered pairs of serving counts whose ratio is a whole number (whole=True) or is not."""
    pairs = [(a, b) for i, a in enumerate(counts) for b in counts[i + 1:] if (b % a == 0) == whole]
    return [(a, b) for a, b in pairs if a * b // gcd(a, b) ** 2 <= 30]  # reduced factor u/v with u * v <= 30


# A recipe is scaled between two serving counts of a pair, in either direction (up or down).
_SERVING_PAIRS = {
    "easy": [(a, b) for a, b in _serving_pairs((2, 3, 4, 5, 6, 8, 9, 10, 12), True) if b // a in (2, 3)],
    "medium": _serving_pairs((2, 3, 4, 5, 6, 8, 9, 10, 12), False),
    "hard": _serving_pairs((3, 4, 5, 6, 8, 9, 10, 12, 15, 16, 18, 20), False),
}
_BATCHES = (2, 3, 4, 6)  # a written recipe's amounts: one dish's proportions at one of these sizes


def _recipe_scale(rng: random.Random, difficulty: str) -> Item:
    """Scale one ingredient of a written recipe from its serving count to another.

    The four amounts offered are a 2 x 2 family of two slips: the factor turned upside down
    (multiplying by base / target instead of target / base) and the amount read off a neighbouring
    line of the recipe (another ingredient). The two serving counts are drawn as an unordered pair
    and put in either order, and the written amounts do not depend on which of the two the recipe
    is for, so the upside-down factor is exactly the right one for the same recipe read the other
    way; and the other ingredient is drawn like the asked one. Each of the four amounts is then the
    right one for an equally likely item, so no amount (a round one, a large one, the smallest) is
    the gold more or less often than a quarter of the times it is offered."""
    for _ in range(1000):
        dish, proportions = rng.choice(DISHES)
        batch = rng.choice(_BATCHES)
        pair = rng.choice(_SERVING_PAIRS[difficulty])
        base, target = pair if rng.random() < 0.5 else pair[::-1]
        asked, other = rng.sample(range(len(proportions)), 2)
        recipe_amounts = {n: a * batch for n, _u, a in proportions}
        have = rng.choice([10, 20, 25, 30, 40, 50]) if difficulty == "hard" else 0
        amounts = [recipe_amounts[proportions[k][0]] for k in (asked, other)]
        family = [Fraction(a * f0, f1) - have for f0, f1 in ((target, base), (base, target)) for a in amounts]
        if all(v.denominator == 1 and v > 0 for v in family) and len(set(family)) == 4:
            break
    else:
        raise ValueError("no scaling item found")  # pragma: no cover
    ing, unit, _ = proportions[asked]
    answer_value = family[0]
    listed = ", ".join(f"{recipe_amounts[n]} {u} of {n}" for n, u, _ in proportions)
    extra = f" You already measured out {have} {unit} of {ing} earlier." if have else ""
    unit_word = {"g": "grams", "ml": "millilitres"}[unit]
    ask = f"How many more {unit_word} of {ing} do you need to measure out?" if have else f"How many {unit_word} of {ing} do you need?"
    cook = rng.choice(NAMES)
    q = rng.choice(
        [
            f"A {dish} recipe for {base} servings uses {listed}. You want to make {target} servings, scaling every ingredient in proportion.{extra} {ask}",
            f"{cook} has a {dish} recipe written for {base} people: {listed}. {cook} scales it proportionally to feed {target} people.{extra.replace('You', cook)} {ask.replace('do you', f'does {cook}')}",
        ]
    )
    wrong = [fmt_num(v) for v in family[1:]]
    rng.shuffle(wrong)
    return Item(
        q,
        fmt_num(answer_value),
        "exact_numeric",
        (wrong[0], wrong[1], wrong[2]),
        {"kind": "scale", "base_servings": base, "target_servings": target, "ingredient": ing, "recipe": recipe_amounts, "already_have": have},
    )


BOWL_INGREDIENTS = ("flour", "sugar", "oats", "cocoa", "rice", "semolina", "almond meal", "cornflour")


def run_bowl(steps: list[list]) -> dict[str, Fraction]:
    """Grams in bowls 'A' and 'B' after the steps (add / move half / move all / remove)."""
    bowls = {"A": Fraction(0), "B": Fraction(0)}
    for step in steps:
        op = step[0]
        if op == "add":
            bowls[step[1]] += step[2]
        elif op == "remove":
            bowls[step[1]] -= step[2]
        elif op == "half":
            moved = bowls[step[1]] / 2
            bowls[step[1]] -= moved
            bowls[step[2]] += moved
        elif op == "all":
            bowls[step[2]] += bowls[step[1]]
            bowls[step[1]] = Fraction(0)
        else:
            raise ValueError(f"unknown bowl step {step!r}")
    return bowls


def _bowl_text(step: list, ingredient: str) -> str:
    op = step[0]
    if op == "add":
        return f"add {step[2]} g of {ingredient} to bowl {step[1]}"
    if op == "remove":
        return f"take {step[2]} g out of bowl {step[1]} and set it aside"
    if op == "half":
        return f"pour half of bowl {step[1]} into bowl {step[2]}"
    return f"tip everything in bowl {step[1]} into bowl {step[2]}"


def _bowls_swapped(step: list) -> list:
    """The step done with its bowls the other way round (added to or taken from the other bowl,
    poured from B into A instead of from A into B)."""
    other = {"A": "B", "B": "A"}
    if step[0] in ("add", "remove"):
        return [step[0], other[step[1]], step[2]]
    return [step[0], step[2], step[1]]


def _recipe_bowls(rng: random.Random, difficulty: str) -> Item:
    """Follow weighing steps across two bowls; how much is in one bowl at the end?

    The four weights offered are a 2 x 2 family of two slips: the other bowl read at the end, and
    one step (not the first) done with its bowls the other way round. Every step's bowl is drawn
    A or B evenly and the asked bowl too, and a sequence is kept only when both runs are valid
    (no bowl ever below zero, whole grams in both bowls at the end, four different weights), so the
    swapped run is as likely a question as the real one: each weight offered is the answer to an
    equally likely item, and none is the gold more or less often than a quarter of the times it is
    offered, nor the smallest or the largest more often than chance."""
    n_steps = {"easy": 3, "medium": 5, "hard": 7}[difficulty]
    for _ in range(1000):
        steps: list[list] = [["add", "A", rng.choice([100, 120, 200, 240, 300, 400])]]
        while len(steps) < n_steps:
            op = rng.choice(["add", "add", "half", "all", "remove"] if difficulty != "easy" else ["add", "half", "remove"])
            src = rng.choice("AB")
            dst = "B" if src == "A" else "A"
            if op == "add":
                steps.append(["add", src, rng.choice([20, 40, 50, 60, 80, 100])])
            elif op == "remove":
                steps.append(["remove", src, rng.choice([10, 20, 30, 50])])
            else:
                steps.append([op, src, dst])
        if not any(s[0] in ("half", "all") for s in steps):
            continue
        k = rng.randrange(1, n_steps)
        runs = (steps, [*steps[:k], _bowls_swapped(steps[k]), *steps[k + 1:]])
        paths = [[run_bowl(r[: i + 1]) for i in range(n_steps)] for r in runs]
        if any(v < 0 for path in paths for b in path for v in b.values()):
            continue
        family = [path[-1][bowl] for path in paths for bowl in "AB"]
        if all(v > 0 and v.denominator == 1 for v in family) and len(set(family)) == 4:
            break
    else:
        raise ValueError("no bowl sequence found")  # pragma: no cover
    ask = rng.choice("AB")
    answer = paths[0][-1][ask]
    wrong = [fmt_num(v) for v in family if v != answer]
    rng.shuffle(wrong)
    ingredients = rng.sample(BOWL_INGREDIENTS, len(steps))
    texts = [_bowl_text(s, ing) for s, ing in zip(steps, ingredients)]
    numbered = " ".join(f"({i}) {t}." for i, t in enumerate(texts, 1))
    q = rng.choice(
        [
            f"Two mixing bowls, A and B, start empty. Follow these steps: {numbered} How many grams are in bowl {ask} at the end?",
            f"In a test kitchen, {rng.choice(NAMES)} works with two empty bowls, A and B: {numbered} What is the weight of the contents of bowl {ask} afterwards, in grams?",
        ]
    )
    return Item(
        q,
        fmt_num(answer),
        "exact_numeric",
        (wrong[0], wrong[1], wrong[2]),
        {"kind": "bowls", "steps": steps, "ask": ask},
    )


def _recipe_timeline(rng: random.Random, difficulty: str) -> Item:
    """Batches through an oven of fixed capacity: when does the last batch come out?

    The slips are in the batch count (the partial last batch dropped, a batch too many when the
    trays are divided by the capacity, one more counted for the reloads), so the four times offered
    are those of four consecutive batch counts, P + b * bake + (b - 1) * gap for b = y .. y + 3: the
    run is drawn first and the answer's place in it uniformly, and the number of trays is then drawn
    to fill that many batches. Every time offered is the answer in a quarter of the items that offer
    it, and the smallest or the largest no more often than chance."""
    capacity = 1 if difficulty == "easy" else rng.choice([2, 3])
    bake = rng.choice([8, 10, 12, 15, 20])
    gap = 0 if difficulty == "easy" else rng.choice([2, 3, 5])
    preheat = rng.choice([10, 15]) if difficulty == "hard" else 0
    first = rng.choice({"easy": [2, 3, 4], "medium": [2, 3], "hard": [3, 4, 5]}[difficulty])
    place = rng.randrange(4)
    batches = first + place
    # trays that fill exactly that many batches; hard items always leave a partial last batch
    fits = [t for t in range(capacity * (batches - 1) + 1, capacity * batches + 1) if difficulty != "hard" or t % capacity]
    trays = rng.choice(fits)
    assert -(-trays // capacity) == batches

    def minutes(b: int) -> int:
        return preheat + b * bake + (b - 1) * gap

    answer = minutes(batches)
    wrong = [str(minutes(first + k)) for k in range(4) if k != place]
    distractors = (wrong[0], wrong[1], wrong[2])
    food = rng.choice(["cookies", "bread rolls", "scones", "flapjacks", "croissants", "muffins"])
    cap_text = "one tray at a time" if capacity == 1 else f"{capacity} trays at a time"
    gap_text = f" Between batches it takes {gap} minutes to unload and reload." if gap else ""
    pre_text = f" The oven first needs {preheat} minutes to preheat." if preheat else ""
    q = rng.choice(
        [
            f"You have {trays} trays of {food} to bake. The oven holds {cap_text}, and each batch bakes for {bake} minutes.{gap_text}{pre_text} Starting now, after how many minutes does the last batch come out?",
            f"A bakery must bake {trays} trays of {food}; its oven fits {cap_text} and every batch needs {bake} minutes.{gap_text}{pre_text} How many minutes from now until the final batch is done?",
        ]
    )
    return Item(
        q,
        str(answer),
        "exact_numeric",
        distractors,
        {"kind": "oven", "trays": trays, "capacity": capacity, "bake": bake, "gap": gap, "preheat": preheat},
    )


_RECIPE_KINDS = [_recipe_scale, _recipe_bowls, _recipe_timeline]


@DOMAIN.subcategory(
    "recipe_following",
    difficulty={
        "easy": "scaling up or down by a whole factor (x2, x3, /2, /3); 3 bowl steps (no full transfers); "
        "one oven tray at a time, 2-7 trays",
        "medium": "scaling up or down by a fractional factor (e.g. 4 to 6 servings); 5 bowl steps with "
        "transfers; 2-3 trays per batch with reload gaps, 2-6 batches",
        "hard": "fractional scaling plus subtracting an amount already measured; 7 bowl steps; preheating, "
        "gaps and a partial last batch, 3-8 batches",
    },
)
def recipe_following(rng: random.Random, difficulty: str) -> Item:
    return rng.choice(_RECIPE_KINDS)(rng, difficulty)


# ---------------------------------------------------------------------------------------------
# protocol_compliance: an ordered rule table, first match wins
# ---------------------------------------------------------------------------------------------

# Each protocol: the case's fields (name, kind, range or options, how the field reads in prose), the
# actions its rules may require and, per action, the conditions that can sensibly lead to it (a
# clinic sends chest pain to a doctor, not to infection testing; a shop offers a repair on opened
# electronics, not on sealed food): `triggers` maps an action to its fields, each with the value that
# triggers it (a yes/no sign, the categories, or a direction and the range a threshold is drawn
# from). A rule's conditions are drawn from its own action's triggers only, so no rule asks world
# knowledge to overrule it; `defaults` are the actions a table may fall back on.
PROTOCOLS = {
    "triage": {
        "intro": "An urgent-care clinic triages walk-in patients with this protocol",
        "fields": {
            "temperature": ("num", (36.0, 41.0, 0.1), "body temperature (°C)"),
            "heart_rate": ("num", (50, 150, 1), "heart rate (beats per minute)"),
            "age": ("num", (1, 90, 1), "age (years)"),
            "chest_pain": ("bool", ("the patient has chest pain", "the patient has no chest pain"), "chest pain"),
            "breathing_difficulty": ("bool", ("the patient has difficulty breathing", "the patient breathes normally"), "difficulty breathing"),
        },
        # most urgent first: a clinic's rules send the graver signs to the more urgent care
        "actions": ["Resuscitation bay now", "See a doctor within 15 minutes", "Isolate and test for infection",
                    "See a doctor within 1 hour", "See a nurse within 1 hour", "Routine queue", "Refer to pharmacy"],
        "by_urgency": 5,  # the first five are the rules' (in this order), the last two the default's
        # warning signs only (a rule never fires on a normal value), each sending to care that fits it
        "triggers": {
            "Resuscitation bay now": {"breathing_difficulty": True, "chest_pain": True, "heart_rate": (">", 130, 145)},
            "See a doctor within 15 minutes": {"chest_pain": True, "breathing_difficulty": True,
                                               "heart_rate": (">", 115, 135), "temperature": (">", 39.5, 40.5)},
            "Isolate and test for infection": {"temperature": (">", 37.8, 39.5), "breathing_difficulty": True},
            "See a doctor within 1 hour": {"temperature": (">", 38.0, 39.5), "heart_rate": (">", 100, 120),
                                           "age": (">", 65, 80), "chest_pain": True},
            "See a nurse within 1 hour": {"temperature": (">", 37.5, 38.5), "heart_rate": (">", 100, 115),
                                          "age": (">", 65, 85)},
        },
        "defaults": ["Routine queue", "Refer to pharmacy"],
        # a case with one of these is never left to the default (the least urgent care)
        "alarm": {"temperature": 39.0, "heart_rate": 120, "chest_pain": True, "breathing_difficulty": True},
    },
    "expenses": {
        "intro": "A company approves expense claims with this policy",
        "fields": {
            "amount": ("num", (20, 5000, 10), "amount (EUR)"),
            "has_receipt": ("bool", ("a receipt is attached", "no receipt is attached"), "receipt attached"),
            "category": ("cat", ["travel", "meals", "equipment", "training"], "category"),
            "days_since_purchase": ("num", (1, 120, 1), "days since purchase"),
        },
        "actions": ["Reject the claim", "Send to the finance director", "Send to the line manager", "Approve automatically", "Return for a receipt", "Flag for audit"],
        "triggers": {
            "Reject the claim": {"days_since_purchase": (">", 60, 110), "has_receipt": False},
            "Send to the finance director": {"amount": (">", 1500, 4500), "category": ("equipment", "training", "travel")},
            "Send to the line manager": {"amount": (">", 200, 1500), "category": ("equipment", "training")},
            "Approve automatically": {"amount": ("<", 50, 300), "has_receipt": True, "days_since_purchase": ("<", 7, 30)},
            "Return for a receipt": {"has_receipt": False},
            "Flag for audit": {"has_receipt": False, "amount": (">", 1000, 4000), "category": ("meals",)},
        },
        "defaults": ["Send to the line manager", "Approve automatically", "Send to the finance director"],
    },
    "returns": {
        "intro": "A shop handles returned goods with this procedure",
        "fields": {
            "days_since_purchase": ("num", (1, 90, 1), "days since purchase"),
            "has_receipt": ("bool", ("the customer shows a receipt", "there is no receipt"), "receipt shown"),
            "opened": ("bool", ("the packaging has been opened", "the packaging is still sealed"), "packaging opened"),
            "price": ("num", (5, 900, 5), "price paid (EUR)"),
            "item_type": ("cat", ["clothing", "electronics", "food", "books"], "item type"),
        },
        "actions": ["Refuse the return", "Full refund", "Store credit only", "Exchange only", "Refer to the store manager", "Offer a repair"],
        "triggers": {
            "Refuse the return": {"days_since_purchase": (">", 30, 80), "item_type": ("food",)},
            "Full refund": {"has_receipt": True, "opened": False, "days_since_purchase": ("<", 7, 30)},
            "Store credit only": {"has_receipt": False, "days_since_purchase": (">", 14, 45)},
            "Exchange only": {"opened": True, "item_type": ("clothing",)},
            "Refer to the store manager": {"price": (">", 200, 800), "has_receipt": False},
            "Offer a repair": {"item_type": ("electronics",), "opened": True},
        },
        "defaults": ["Store credit only", "Refer to the store manager", "Exchange only", "Full refund"],
    },
    "access": {
        "intro": "An IT team grants access requests with this rule set",
        "fields": {
            "data_class": ("cat", ["public", "internal", "confidential", "restricted"], "data classification"),
            "mfa_enabled": ("bool", ("multi-factor authentication is enabled", "multi-factor authentication is not enabled"), "multi-factor authentication enabled"),
            "tenure_months": ("num", (0, 60, 1), "months employed"),
            "contractor": ("bool", ("the requester is a contractor", "the requester is an employee"), "requester is a contractor"),
        },
        "actions": ["Deny the request", "Grant after security review", "Grant after manager approval", "Grant immediately", "Require MFA setup first", "Grant read-only access"],
        "triggers": {
            "Deny the request": {"data_class": ("restricted",), "contractor": True, "tenure_months": ("<", 1, 3)},
            "Grant after security review": {"data_class": ("confidential", "restricted")},
            "Grant after manager approval": {"data_class": ("internal", "confidential"), "contractor": True,
                                             "tenure_months": ("<", 3, 12)},
            "Grant immediately": {"data_class": ("public",), "mfa_enabled": True, "tenure_months": (">", 12, 36)},
            "Require MFA setup first": {"mfa_enabled": False},
            "Grant read-only access": {"contractor": True, "tenure_months": ("<", 3, 6), "data_class": ("internal", "public")},
        },
        "defaults": ["Grant after manager approval", "Deny the request", "Grant read-only access"],
    },
    "shipping": {
        "intro": "A warehouse routes parcels with this rule list",
        "fields": {
            "weight_kg": ("num", (0.5, 40.0, 0.5), "weight (kg)"),
            "hazardous": ("bool", ("the parcel contains hazardous material", "the parcel contains no hazardous material"), "contains hazardous material"),
            "destination": ("cat", ["domestic", "EU", "overseas"], "destination"),
            "express": ("bool", ("express service was paid for", "express service was not paid for"), "express service paid"),
        },
        "actions": ["Hold for inspection", "Send by freight", "Send by air courier", "Send by standard post", "Send by road courier", "Return to sender"],
        "triggers": {
            "Hold for inspection": {"hazardous": True},
            "Send by freight": {"weight_kg": (">", 20, 35), "destination": ("overseas",)},
            "Send by air courier": {"express": True, "destination": ("overseas", "EU"), "hazardous": False},
            "Send by standard post": {"express": False, "weight_kg": ("<", 2, 10), "destination": ("domestic",)},
            "Send by road courier": {"express": True, "destination": ("domestic", "EU")},
            "Return to sender": {"hazardous": True, "weight_kg": (">", 30, 38)},
        },
        "defaults": ["Send by standard post", "Send by road courier", "Send by freight"],
    },
}

_OPS_TEXT = {">": "more than", ">=": "at least", "<": "less than", "<=": "at most", "==": "is"}


def _cond_holds(cond: list, case: dict) -> bool:
    field, op, value = cond
    x = case[field]
    if op == ">":
        return x > value
    if op == ">=":
        return x >= value
    if op == "<":
        return x < value
    if op == "<=":
        return x <= value
    if op == "==":
        return x == value
    raise ValueError(f"unknown operator {op!r}")


def first_match(rules: list[dict], case: dict, default: str) -> str:
    for rule in rules:
        if all(_cond_holds(c, case) for c in rule["when"]):
            return rule["action"]
    return default


def _fmt_value(value) -> str:
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        return f"{value:g}"
    return str(value)


def _cond_text(cond: list, fields: dict) -> str:
    field, op, value = cond
    kind, _rng, label = fields[field]
    if kind == "bool":
        return _rng[0] if value else _rng[1]
    if kind == "cat":
        return f"{label} is {value}"
    return f"{label} is {_OPS_TEXT[op]} {_fmt_value(value)}"


def _draw_value(rng: random.Random, spec: tuple):
    kind, rng_spec, _label = spec
    if kind == "bool":
        return rng.random() < 0.5
    if kind == "cat":
        return rng.choice(rng_spec)
    lo, hi, step = rng_spec
    k = rng.randint(0, int(round((hi - lo) / step)))
    value = lo + k * step
    return round(value, 1) if isinstance(step, float) else int(value)


def _draw_condition(rng: random.Random, field: str, spec: tuple, trigger, case_value=None, tight: bool = False) -> list:
    """One condition on `field` as the action's `trigger` allows it: the sign (a yes/no value), one of
    the categories, or a threshold in the trigger's direction drawn from its range on the field's
    grid (with `tight`, the case's own value when it lies in that range: the case sits on the boundary)."""
    kind, rng_spec, _ = spec
    if kind == "bool":
        return [field, "==", trigger]
    if kind == "cat":
        return [field, "==", rng.choice(trigger)]
    direction, lo, hi = trigger
    op = rng.choice([">", ">="] if direction == ">" else ["<", "<="])
    if tight and case_value is not None and lo <= case_value <= hi:
        return [field, op, case_value]
    f_lo, _f_hi, step = rng_spec
    k = rng.randint(math.ceil(round((lo - f_lo) / step, 6)), math.floor(round((hi - f_lo) / step, 6)))
    value = f_lo + k * step
    return [field, op, round(value, 1) if isinstance(step, float) else int(value)]


def _protocol(rng: random.Random, difficulty: str) -> Item:
    name = rng.choice(sorted(PROTOCOLS))
    proto = PROTOCOLS[name]
    fields = proto["fields"]
    n_rules, max_conds = {"easy": (3, 1), "medium": (4, 2), "hard": (5, 3)}[difficulty]
    triggers = proto["triggers"]
    default = rng.choice(proto["defaults"])
    if proto.get("by_urgency"):  # earlier rules, more urgent care
        urgent = proto["actions"][: proto["by_urgency"]]
        actions = sorted(rng.sample(urgent, n_rules), key=urgent.index)
    else:
        actions = rng.sample([a for a in proto["actions"] if a != default], n_rules)
    alarm = proto.get("alarm", {})
    # which rule decides (n_rules: none does, the default) is drawn first, evenly, and a case and
    # conditions are searched for that make it so: each action is then the answer about as often as
    # it stands in a table, so no action string is the answer more often than it is offered (left to
    # the draws, a one-sign rule like "hazardous -> hold for inspection" decided 40% of the tables
    # that offered it, and the default almost never did). A hard table is not decided by rule 1,
    # except in triage, whose rule 1 is always its gravest (resuscitation) rule: barred from deciding,
    # that action would be offered in every hard triage table and never be the answer.
    target = rng.randint(1 if difficulty == "hard" and not proto.get("by_urgency") else 0, n_rules)
    for _ in range(5000):
        case = {f: _draw_value(rng, spec) for f, spec in fields.items()}
        rules = []
        for action in actions:
            k = rng.randint(1, min(max_conds, len(triggers[action]))) if difficulty != "easy" else 1
            chosen = rng.sample(sorted(triggers[action]), k)
            tight = difficulty == "hard" and rng.random() < 0.5
            rules.append({"when": [_draw_condition(rng, f, fields[f], triggers[action][f], case[f], tight) for f in chosen],
                          "action": action})
        if len({repr(sorted(r["when"], key=repr)) for r in rules}) < n_rules:
            continue  # two rules with the same conditions: the later one could never apply
        matches = [i for i, rule in enumerate(rules) if all(_cond_holds(c, case) for c in rule["when"])]
        if (matches[0] if matches else n_rules) != target:
            continue
        answer = first_match(rules, case, default)
        if not matches and any(case[f] is True if v is True else case[f] >= v for f, v in alarm.items()):
            continue  # a patient with a warning sign sent to the pharmacy by default: no clinic's table
        # Want: easy - one rule at most matches; medium/hard - a later rule also matches wherever one
        # could (the deciding rule is not the last rule or the default), so the order matters.
        if difficulty == "easy" and len(matches) > 1:
            continue
        if difficulty != "easy" and target < n_rules - 1 and len(matches) < 2:
            continue
        break
    else:
        raise ValueError("no rule table found")  # pragma: no cover
    slips = [rules[i]["action"] for i in matches[1:]]  # applying a later matching rule
    # Misreading a boundary or dropping one condition makes a non-matching rule fire.
    for i, rule in enumerate(rules):
        if i in matches:
            continue
        loose = [c for c in rule["when"] if not _cond_holds(c, case)]
        if len(loose) == 1:
            slips.append(rule["action"])
    slips.append(default)
    slips += [a for a in actions if a != answer]
    lines = [f"Rule {i}: if {' and '.join(_cond_text(c, fields) for c in rule['when'])}, then: {rule['action']}." for i, rule in enumerate(rules, 1)]
    lines.append(f"Otherwise: {default}.")
    case_text = "; ".join(f"{fields[f][2]}: {_fmt_value(v)}" for f, v in case.items())
    q = rng.choice(
        [
            f"{proto['intro']}, checking the rules in order and applying only the first one that matches. {' '.join(lines)} Case — {case_text}. What does the protocol require?",
            f"{proto['intro']} (rules are checked top to bottom; the first matching rule decides). {' '.join(lines)} A new case arrives with {case_text}. Which action must be taken?",
        ]
    )
    return Item(
        q,
        answer,
        "multiple_choice",
        pick_distractors(answer, slips),
        {"kind": "rule_table", "protocol": name, "rules": rules, "default": default, "case": case},
    )


@DOMAIN.subcategory(
    "protocol_compliance",
    difficulty={
        "easy": "3 rules of one condition each, at most one rule matches (none: the default decides)",
        "medium": "4 rules of up to 2 conditions; unless the last rule or the default decides, a later rule "
        "also matches, so order decides",
        "hard": "5 rules of up to 3 conditions, the deciding rule is not the first (in triage it may be: "
        "its first rule is always the resuscitation rule), and thresholds often sit exactly on the case's "
        "value (at least / more than)",
    },
)
def protocol_compliance(rng: random.Random, difficulty: str) -> Item:
    return _protocol(rng, difficulty)


# ---------------------------------------------------------------------------------------------
# multistep_planning: shortest plans found by breadth-first search
# ---------------------------------------------------------------------------------------------


def bfs_distance(start, goal_test, neighbours) -> int | None:
    seen = {start}
    frontier = deque([(start, 0)])
    while frontier:
        state, d = frontier.popleft()
        if goal_test(state):
            return d
        for nxt in neighbours(state):
            if nxt not in seen:
                seen.add(nxt)
                frontier.append((nxt, d + 1))
    return None


def bfs_layers(start, neighbours) -> dict:
    """Fewest moves from `start` to every state it can reach."""
    dist = {start: 0}
    frontier = deque([start])
    while frontier:
        state = frontier.popleft()
        for nxt in neighbours(state):
            if nxt not in dist:
                dist[nxt] = dist[state] + 1
                frontier.append(nxt)
    return dist


def _moves_window(rng: random.Random, starts: list[int], step: int = 1) -> tuple[int, tuple[str, str, str]]:
    """The optimum a planning item will have, and the three other move counts it offers.

    The four counts offered are a run y, y + step, y + 2 step, y + 3 step, with the start y drawn
    from `starts` and the answer's place in the run drawn uniformly; the generator then searches
    for a puzzle with that optimum. Every count is then the answer in a quarter of the items that
    offer it, whatever else is offered (a count learnt to be "often right", or only ever wrong,
    tells nothing), and the answer is the smallest, the middle or the largest value no more often
    than chance. Counts one or two moves off are the slips a planner makes (a move saved that the
    rules do not allow, a detour not seen); `step` = 2 where every plan has the optimum's parity
    (two jugs), so no count shown is impossible on its face."""
    y = rng.choice(starts)
    place = rng.randrange(4)
    run = [y + k * step for k in range(4)]
    others = [str(v) for k, v in enumerate(run) if k != place]
    return run[place], (others[0], others[1], others[2])


def jug_moves(state: tuple[int, ...], caps: tuple[int, ...]) -> list[tuple[int, ...]]:
    out = []
    for i in range(len(caps)):
        filled = list(state)
        filled[i] = caps[i]
        out.append(tuple(filled))
        emptied = list(state)
        emptied[i] = 0
        out.append(tuple(emptied))
        for j in range(len(caps)):
            if i != j:
                poured = list(state)
                amount = min(state[i], caps[j] - state[j])
                poured[i] -= amount
                poured[j] += amount
                out.append(tuple(poured))
    return out


def _plan_jugs(rng: random.Random, difficulty: str) -> Item:
    # Two jugs always need an even number of moves, three jugs need not.
    d, distractors = {"easy": lambda: _moves_window(rng, [2], 2), "medium": lambda: _moves_window(rng, [4], 2),
                      "hard": lambda: _moves_window(rng, [6, 7])}[difficulty]()
    for _ in range(2000):
        if difficulty == "easy":
            caps = tuple(sorted(rng.sample(range(2, 8), 2)))
        elif difficulty == "medium":
            caps = tuple(sorted(rng.sample(range(3, 14), 2)))
        else:
            caps = tuple(sorted(rng.sample(range(3, 16), 3)))
        reach = bfs_layers(tuple(0 for _ in caps), lambda s: jug_moves(s, caps))
        first = {}  # litres -> fewest moves until some jug holds exactly that much
        for state, moves in reach.items():
            for litres in state:
                first[litres] = min(first.get(litres, moves), moves)
        targets = [t for t in range(1, max(caps)) if t not in caps and first.get(t) == d]
        if targets:
            target = rng.choice(targets)
            break
    else:
        raise ValueError(f"no jug puzzle with a {d}-move optimum")  # pragma: no cover
    jugs = " and ".join(f"{'an' if c in (8, 11, 18) else 'a'} {c}-litre jug" for c in caps) if len(caps) == 2 else f"jugs of {caps[0]}, {caps[1]} and {caps[2]} litres"
    q = rng.choice(
        [
            f"You have {jugs}, {'both' if len(caps) == 2 else 'all'} empty, and an unlimited tap. One move is: fill a jug to the brim, empty a jug completely, or pour from one jug into another until the first is empty or the second is full. What is the fewest number of moves after which some jug holds exactly {plural(target, 'litre')}?",
            f"With {jugs} (initially empty) and a tap, each move fills a jug, empties a jug, or pours one jug into another until one of them is empty or full. In the minimum number of moves, how soon can exactly {plural(target, 'litre')} be in one jug?",
        ]
    )
    return Item(
        q,
        str(d),
        "exact_numeric",
        distractors,
        {"kind": "jugs", "capacities": list(caps), "target": target},
    )


def grid_neighbours(grid: list[str], cell: tuple[int, int]) -> list[tuple[int, int]]:
    r, c = cell
    out = []
    for dr, dc in ((1, 0), (-1, 0), (0, 1), (0, -1)):
        nr, nc = r + dr, c + dc
        if 0 <= nr < len(grid) and 0 <= nc < len(grid[0]) and grid[nr][nc] != "#":
            out.append((nr, nc))
    return out


def _find(grid: list[str], ch: str) -> tuple[int, int]:
    for r, row in enumerate(grid):
        if ch in row:
            return r, row.index(ch)
    raise ValueError(ch)


def _plan_grid(rng: random.Random, difficulty: str) -> Item:
    size, walls, detour = {"easy": (5, 4, 0), "medium": (6, 9, 2), "hard": (7, 15, 4)}[difficulty]
    d, distractors = _moves_window(rng, {"easy": [4, 5], "medium": [7, 8, 9], "hard": [10, 11, 12, 13]}[difficulty])
    cells = [(r, c) for r in range(size) for c in range(size)]
    for _ in range(2000):
        start = rng.choice(cells)
        blocked = set(rng.sample([x for x in cells if x != start], walls))
        open_grid = ["".join("#" if (r, c) in blocked else "." for c in range(size)) for r in range(size)]
        reach = bfs_layers(start, lambda s: grid_neighbours(open_grid, s))
        goals = [
            g for g, moves in reach.items()
            if moves == d and abs(start[0] - g[0]) + abs(start[1] - g[1]) >= size - 1
            and moves >= abs(start[0] - g[0]) + abs(start[1] - g[1]) + detour
        ]
        if goals:
            goal = rng.choice(goals)
            break
    else:
        raise ValueError(f"no grid with a {d}-move optimum")  # pragma: no cover
    grid = ["".join("S" if (r, c) == start else "G" if (r, c) == goal else ch for c, ch in enumerate(row)) for r, row in enumerate(open_grid)]
    rows = " / ".join(row.replace(".", "_") for row in grid)  # '_' survives the bank's text folding
    q = rng.choice(
        [
            f"A robot moves on this grid, one square up, down, left or right per move, never onto a wall (#); '_' marks open floor. Rows from top to bottom: {rows}. S is the start and G the goal. What is the minimum number of moves from S to G?",
            f"On the map below ('_' open floor, '#' wall, S start, G goal), a delivery cart steps one square at a time horizontally or vertically. Map rows, top to bottom: {rows}. How many steps does the shortest route from S to G take?",
        ]
    )
    return Item(
        q,
        str(d),
        "exact_numeric",
        distractors,
        {"kind": "grid", "grid": grid},
    )


def number_moves(x: int, buttons: list[list]) -> list[int]:
    out = []
    for op, k in buttons:
        y = x + k if op == "+" else x * k if op == "*" else x - k
        if 0 <= y <= 2000:
            out.append(y)
    return out


def _buttons_text(buttons: list[list]) -> str:
    words = {"+": "adds", "*": "multiplies by", "-": "subtracts"}
    return "; ".join(f"{'B' if i == 0 else 'b'}utton {chr(65 + i)} {words[op]} {k}" for i, (op, k) in enumerate(buttons))


def _plan_buttons(rng: random.Random, difficulty: str) -> Item:
    d, distractors = _moves_window(rng, {"easy": [3, 4], "medium": [4, 5], "hard": [5, 6]}[difficulty])
    for _ in range(2000):
        if difficulty == "easy":
            buttons = [["+", rng.randint(1, 3)], ["*", 2]]
            start, span = rng.randint(1, 5), (10, 30)
        elif difficulty == "medium":
            buttons = [["+", rng.randint(2, 5)], ["*", rng.choice([2, 3])], ["-", 1]]
            start, span = rng.randint(1, 6), (20, 80)
        else:
            buttons = [["+", rng.randint(3, 7)], ["*", rng.choice([2, 3])], ["-", rng.randint(2, 4)]]
            start, span = rng.randint(1, 9), (50, 200)
        reach = bfs_layers(start, lambda s: number_moves(s, buttons))
        targets = [t for t in range(span[0], span[1] + 1) if reach.get(t) == d]
        if targets:
            target = rng.choice(targets)
            break
    else:
        raise ValueError(f"no button puzzle with a {d}-press optimum")  # pragma: no cover
    q = rng.choice(
        [
            f"A counter shows {start}. {_buttons_text(buttons)}. The counter must stay between 0 and 2000. What is the fewest number of button presses that makes it show exactly {target}?",
            f"Starting from {start}, you may press these buttons in any order, any number of times: {_buttons_text(buttons)} (values stay within 0-2000). What is the minimum number of presses needed to reach {target}?",
        ]
    )
    return Item(
        q,
        str(d),
        "exact_numeric",
        distractors,
        {"kind": "buttons", "start": start, "target": target, "buttons": buttons},
    )


def knight_moves(square: tuple[int, int]) -> list[tuple[int, int]]:
    f, r = square
    out = []
    for df, dr in ((1, 2), (2, 1), (2, -1), (1, -2), (-1, -2), (-2, -1), (-2, 1), (-1, 2)):
        if 0 <= f + df < 8 and 0 <= r + dr < 8:
            out.append((f + df, r + dr))
    return out


def square_name(sq: tuple[int, int]) -> str:
    return "abcdefgh"[sq[0]] + str(sq[1] + 1)


def _plan_knight(rng: random.Random, difficulty: str) -> Item:
    # A knight needs at most 6 moves on an empty board (6 only between opposite corners).
    d, distractors = _moves_window(rng, {"easy": [1], "medium": [2], "hard": [2, 3]}[difficulty])
    while True:
        a = (rng.randrange(8), rng.randrange(8))
        goals = [sq for sq, moves in bfs_layers(a, knight_moves).items() if moves == d]
        if goals:
            b = rng.choice(goals)
            break
    q = rng.choice(
        [
            f"On an otherwise empty chessboard, a knight stands on {square_name(a)}. What is the minimum number of knight moves needed to reach {square_name(b)}?",
            f"How many moves does a knight need, at minimum, to travel from {square_name(a)} to {square_name(b)} on an empty 8x8 board?",
        ]
    )
    return Item(
        q,
        str(d),
        "exact_numeric",
        distractors,
        {"kind": "knight", "from": square_name(a), "to": square_name(b)},
    )


_PLAN_KINDS = [_plan_jugs, _plan_grid, _plan_buttons, _plan_knight]


@DOMAIN.subcategory(
    "multistep_planning",
    difficulty={
        "easy": "two jugs with a 2-8 move optimum; 5x5 grid, 4 walls, 4-8 moves; two buttons, 3-7 presses; "
        "knight 1-4 moves",
        "medium": "two larger jugs, 4-10 moves; 6x6 grid, 9 walls, 7-12 moves with a detour of 2+ over the "
        "straight-line distance; three buttons, 4-8 presses; knight 2-5 moves",
        "hard": "three jugs, 6-10 moves; 7x7 grid, 15 walls, 10-16 moves with a detour of 4+; three buttons "
        "with larger targets, 5-9 presses; knight 2-6 moves",
    },
)
def multistep_planning(rng: random.Random, difficulty: str) -> Item:
    return rng.choice(_PLAN_KINDS)(rng, difficulty)


# ---------------------------------------------------------------------------------------------
# error_recovery
# ---------------------------------------------------------------------------------------------

PROCESSES = (
    ("a lab assay", ["prepare the buffer", "calibrate the pipettes", "dilute the samples", "add the reagent", "incubate the plate", "read the absorbance", "compute the concentrations", "write the report", "archive the raw data", "sign off the batch"]),
    ("a software release", ["update the version number", "run the unit tests", "build the package", "generate the changelog", "sign the package", "upload to staging", "run the smoke tests", "publish the release", "announce it", "tag the repository"]),
    ("a cake order", ["weigh the dry ingredients", "cream the butter and sugar", "mix the batter", "line the tins", "bake the sponges", "make the icing", "cool the sponges", "assemble the cake", "decorate it", "box it"]),
    ("a data pipeline", ["download the raw files", "validate the schema", "clean the records", "join the lookup tables", "aggregate by region", "train the model", "score the test set", "draw the charts", "publish the dashboard", "email the summary"]),
    ("a furniture build", ["sort the parts", "attach the side panels", "fit the back board", "mount the hinges", "hang the doors", "insert the shelves", "fit the handles", "level the unit", "fix it to the wall", "clean up"]),
)


def downstream(deps: dict[int, list[int]], faulty: int, done: int) -> list[int]:
    """Completed steps that used the faulty step's output, directly or through other steps."""
    bad = {faulty}
    for step in range(faulty + 1, done + 1):
        if any(d in bad for d in deps.get(step, [])):
            bad.add(step)
    return sorted(bad)


def _fmt_steps(steps: list[int]) -> str:
    return ", ".join(str(s) for s in steps)


def _redo_set(deps: dict[int, list[int]], faulty: int, done: int) -> list[int] | None:
    """The steps to redo, or None when redoing the whole run from the fault would be right too
    (the item would not test the rule)."""
    redo = downstream(deps, faulty, done)
    return None if redo == list(range(faulty, done + 1)) else redo


def _transitive_chain(deps: dict[int, list[int]], faulty: int, redo: list[int]) -> list[int]:
    """Steps of a chain by which a step to redo uses the faulty step's output only through other
    steps (that step and the steps it goes through), or [] when every step to redo uses it directly."""
    for step in redo[1:]:
        if faulty not in deps.get(step, []):
            chain, current = [step], step
            while faulty not in deps.get(current, []):
                current = max(d for d in deps[current] if d in redo)
                chain.append(current)
            return chain
    return []


def _recovery_redo(rng: random.Random, difficulty: str) -> Item:
    """Which completed steps must be redone after a fault (or, in hard items, how many)?

    Asked for the list, the four lists offered are the answers for a 2 x 2 family of misread
    dependencies: two completed steps after the fault each have their "uses the output of" read as
    another, equally likely dependency, alone and together. The misreadings are drawn as the real
    dependencies are, the real plan is drawn from the four, and a family is kept only when all four
    make a fair item (redoing the whole run from the fault is not the answer; medium and hard: some
    step is hit only through another, the misread steps lying off that chain) with four different
    lists. Each list offered is then the answer to an equally likely plan: none (a contiguous run, a
    long list, a list missing a step) is the gold more or less often than a quarter of the times it
    is offered. A count is drawn first with its three neighbours offered (`_step_window`)."""
    n = {"easy": 5, "medium": 7, "hard": 9}[difficulty]
    label, names = rng.choice(PROCESSES)
    names = names[:n]
    # hard plans (9 steps) may ask for the count: the count is drawn first (3 to 7 steps, as a hard
    # plan allows) with its three neighbours offered, then a plan with that count is searched for
    ask_count = difficulty == "hard" and rng.random() < 0.4
    if ask_count:
        count, count_distractors = _step_window(rng, 3, 7)

    def dep_list(step: int) -> list[int]:
        k = rng.choice([1, 1, 2]) if difficulty != "easy" else 1
        return sorted(rng.sample(range(1, step), min(k, step - 1)))

    family: list[list[int]] = []
    for _ in range(2000):
        deps = {step: dep_list(step) for step in range(2, n + 1)}
        faulty = rng.randint(2, n - 3)  # every step after step 1 uses it, directly or not: a fault there taints the run
        done = rng.randint(faulty + 2, n)
        redo = _redo_set(deps, faulty, done)
        chain = _transitive_chain(deps, faulty, redo) if redo else []
        if redo is None or (difficulty != "easy" and not chain):
            continue
        if ask_count:
            if len(redo) == count:
                break
            continue
        # two completed steps after the fault (medium and hard: off the chain that makes a step hit
        # only transitively) whose dependencies are each drawn twice more: four exchangeable plans,
        # the real one drawn from them once all four make fair items
        free = [s for s in range(faulty + 1, done + 1) if difficulty == "easy" or s not in chain]
        if len(free) < 2:
            continue
        s1, s2 = rng.sample(free, 2)
        sets: dict = {}
        for _ in range(8):
            firsts, seconds = (dep_list(s1), dep_list(s1)), (dep_list(s2), dep_list(s2))
            if firsts[0] == firsts[1] or seconds[0] == seconds[1]:
                continue
            plans = [{**deps, s1: a, s2: b} for a in firsts for b in seconds]
            for a, b in itertools.product(firsts, seconds):
                if (key := (tuple(a), tuple(b))) not in sets:
                    sets[key] = _redo_set({**deps, s1: a, s2: b}, faulty, done)
            family = [sets[(tuple(a), tuple(b))] for a, b in itertools.product(firsts, seconds)]
            if all(family) and len({tuple(f) for f in family}) == 4:
                break
        else:
            continue
        real = rng.randrange(4)
        deps, redo = plans[real], family[real]
        family = [family[real]] + [f for k, f in enumerate(family) if k != real]
        break
    else:
        raise ValueError("no dependency graph found")  # pragma: no cover
    plan = " ".join(
        f"Step {s}: {names[s - 1]}" + (f" (uses the output of step{'s' if len(deps[s]) > 1 else ''} {' and '.join(map(str, deps[s]))})." if s in deps else ".")
        for s in range(1, n + 1)
    )
    rule = (
        "The recovery rule: redo the faulty step and every completed step that used its output, directly or "
        "through another step; completed steps that did not are kept."
    )
    situation = f"Steps 1 to {done} are finished when you discover that step {faulty} ({names[faulty - 1]}) was done wrong."
    if ask_count:
        answer = str(len(redo))
        ask = "How many steps must be redone?"
        answer_type = "exact_numeric"
    else:
        answer = _fmt_steps(redo)
        wrong = [_fmt_steps(f) for f in family[1:]]
        rng.shuffle(wrong)
        ask = "Which steps must be redone?"
        answer_type = "short_text"
    q = rng.choice(
        [
            f"A team runs {label} in {n} steps. {plan} {situation} {rule} {ask}",
            f"Here is the plan for {label}: {plan} {situation} {rule} {ask}",
        ]
    )
    return Item(
        q,
        answer,
        answer_type,
        count_distractors if ask_count else (wrong[0], wrong[1], wrong[2]),
        {"kind": "redo", "deps": {str(k): v for k, v in deps.items()}, "faulty": faulty, "done": done, "ask": "count" if ask_count else "steps"},
    )


def _step_window(rng: random.Random, lo: int, hi: int) -> tuple[int, tuple[str, str, str]]:
    """A step number (or count) an item will have as its answer, and the three others it offers:
    four consecutive numbers y .. y + 3 with y drawn from lo .. hi - 3 and the answer's place among
    them drawn uniformly, before the item is searched for. Every number offered is then the answer
    in a quarter of the items that offer it, and the smallest or the largest no more often than
    chance; the other three are the off-by-one and off-by-two slips of counting steps."""
    y = rng.randint(lo, hi - 3)
    place = rng.randrange(4)
    others = [str(y + k) for k in range(4) if k != place]
    return y + place, (others[0], others[1], others[2])


# How often a checkpoint is described as saved just before the next step rather than after its own
# step (the same moment, so the same restart step). After-step wording only states the number
# before the restart step, so the gold would be the one nearby number the question never states
# (striking off the options it states won 41% of these items); saying some checkpoints before the
# next step states the restart step itself about as often as a distractor is stated. The hard
# items' corrupted checkpoint, when it directly follows the usable one, already names the restart
# step, hence the smaller share there.
_BEFORE_NEXT = {"easy": 0.5, "medium": 0.45, "hard": 0.2}


def _recovery_checkpoint(rng: random.Random, difficulty: str) -> Item:
    n = {"easy": 6, "medium": 9, "hard": 12}[difficulty]
    label, _steps = rng.choice(PROCESSES)
    # the restart step is drawn first (from 1, no usable checkpoint, to n - 1) with its three
    # neighbours offered, then a job restarting there (and not at the failing step itself)
    resume, distractors = _step_window(rng, 1, n - 1)
    for _ in range(5000):
        checkpoints = sorted(rng.sample(range(1, n), {"easy": 2, "medium": 3, "hard": 4}[difficulty]))
        failed = rng.randint(2, n)
        before = [c for c in checkpoints if c < failed]
        if difficulty == "hard":
            # Hard: the most recent checkpoint is reported corrupted; fall back one further.
            if not before:
                continue
            usable = before[:-1]
        else:
            usable = before
        if (usable[-1] + 1 if usable else 1) == resume and failed != resume:
            break
    else:
        raise ValueError("no checkpoint case found")  # pragma: no cover
    corrupted = before[-1] if difficulty == "hard" else None
    # a checkpoint saved after step c is the one saved before step c + 1: each is worded one way or the other
    ahead = [c for c in checkpoints if rng.random() < _BEFORE_NEXT[difficulty]]

    def moment(c: int) -> str:
        return f"before step {c + 1}" if c in ahead else f"after step {c}"

    moments = [moment(c) for c in checkpoints]
    cp_text = ", ".join(moments[:-1]) + " and " + moments[-1]
    extra = f" The checkpoint saved {moment(corrupted)} turns out to be corrupted and cannot be used." if corrupted else ""
    q = rng.choice(
        [
            f"A {n}-step job saves a checkpoint {cp_text}. A checkpoint saved after a step lets the job restart with the next step; one saved before a step lets it restart with that step. If a step fails, the job must restart from the most recent usable checkpoint saved before the failure (or from step 1 if there is none). Step {failed} fails.{extra} At which step does the job restart?",
            f"{_cap_first(label)} has {n} steps, with checkpoints written {cp_text}. Recovery rule: on a failure, resume from the latest usable checkpoint taken before the failing step (from step 1 if none); a checkpoint written after a step resumes with the step that follows it, one written before a step resumes with that step itself. Step {failed} has just failed.{extra} Which step do you resume from?",
        ]
    )
    return Item(
        q,
        str(resume),
        "exact_numeric",
        distractors,
        {"kind": "checkpoint", "steps": n, "checkpoints": checkpoints, "failed": failed, "corrupted": corrupted, "said_before_next": ahead},
    )


def _cap_first(text: str) -> str:
    return text[:1].upper() + text[1:]


RETRY_ERRORS = ("timeout", "auth_expired", "not_found", "rate_limited")
RETRY_ACTION_TEXT = {
    "retry": "Retry the request now",
    "wait": "Wait {wait} seconds, then retry",
    "refresh": "Refresh the access token, then retry",
    "abort": "Abort and report the failure",
    "escalate": "Stop retrying and escalate to the on-call engineer",
}


def retry_next_action(log: list[str], max_timeouts: int, wait: int) -> str:
    """The policy: timeouts are retried immediately up to max_timeouts times in total, then escalated;
    an expired token is refreshed once (a second expiry aborts); 'not_found' aborts; a rate limit
    waits `wait` seconds (doubling each time it happens again) before retrying."""
    timeouts = refreshes = limits = 0
    action = "retry"
    for event in log:
        if event == "timeout":
            timeouts += 1
            action = "retry" if timeouts <= max_timeouts else "escalate"
        elif event == "auth_expired":
            refreshes += 1
            action = "refresh" if refreshes == 1 else "abort"
        elif event == "not_found":
            action = "abort"
        elif event == "rate_limited":
            limits += 1
            action = f"wait:{wait * 2 ** (limits - 1)}"
        else:
            raise ValueError(event)
    return action


def _action_text(action: str) -> str:
    if action.startswith("wait:"):
        return RETRY_ACTION_TEXT["wait"].format(wait=action.split(":")[1])
    return RETRY_ACTION_TEXT[action]


_EVENT_TEXT = {
    "timeout": "timed out",
    "auth_expired": "was rejected because the access token had expired",
    "not_found": "returned 'not found'",
    "rate_limited": "was refused with 'rate limited'",
}


_RETRY_WEIGHTS = {"timeout": 2, "auth_expired": 1, "rate_limited": 2, "not_found": 1}  # how often each error is logged


def _retry_logs(difficulty: str, max_timeouts: int, wait: int) -> dict[str, list[tuple[list[str], int]]]:
    """Every log a retry item of this difficulty may show, by the action it calls for, each with its
    weight (how often the errors in it come up): a log never goes on after the policy has stopped
    (a 'not found', an abort, an escalation), and a hard log ends with an error it has met before."""
    length = {"easy": 1, "medium": 3, "hard": 5}[difficulty]
    errors = ["timeout", "auth_expired", "rate_limited"] + (["not_found"] if difficulty == "easy" else [])
    logs: dict[str, list[tuple[list[str], int]]] = {}
    for combo in itertools.product(errors, repeat=length):
        log = list(combo)
        if any(retry_next_action(log[: i + 1], max_timeouts, wait) in ("abort", "escalate") for i in range(length - 1)):
            continue  # the job would already have stopped
        if difficulty == "hard" and log.count(log[-1]) < 2:
            continue  # hard: the last error has happened before, so the counts matter
        weight = math.prod(_RETRY_WEIGHTS[e] for e in log)
        logs.setdefault(retry_next_action(log, max_timeouts, wait), []).append((log, weight))
    return logs


def _recovery_retry(rng: random.Random, difficulty: str) -> Item:
    """What does the retry policy call for next, after the logged failures?

    The four actions offered are drawn first, from those a log of this difficulty can call for:
    one or two waits (two of consecutive doublings, the slip of counting the rate limits one off)
    and actions of the other kinds (retrying, refreshing the token, aborting, escalating: the slip
    of misreading which error came last or how often it came); the answer is drawn uniformly among
    the four, and then a log that calls for it. Every action offered is then the answer in a
    quarter of the items that offer it, whatever else is offered."""
    max_timeouts = rng.choice([2, 3])
    wait = rng.choice([5, 10, 15, 30])
    logs = _retry_logs(difficulty, max_timeouts, wait)
    waits = sorted((c for c in logs if c.startswith("wait:")), key=lambda c: int(c.split(":")[1]))
    others = sorted(c for c in logs if not c.startswith("wait:"))
    n_waits = 1 if len(waits) == 1 else rng.choice([1, 2, 2])
    start = rng.randrange(len(waits) - n_waits + 1)
    offered = waits[start : start + n_waits] + rng.sample(others, 4 - n_waits)
    answer_code = rng.choice(offered)
    log = rng.choices([entry[0] for entry in logs[answer_code]], weights=[entry[1] for entry in logs[answer_code]])[0]
    answer = _action_text(answer_code)
    wrong = [_action_text(c) for c in offered if c != answer_code]
    rng.shuffle(wrong)
    policy = (
        f"Policy: after a timeout, retry immediately, but once the request has timed out more than {max_timeouts} "
        "times in total, stop retrying and escalate to the on-call engineer. If the access token has expired, refresh it "
        "and retry; if it expires a second time, abort and report. If the server says 'not found', abort and report. "
        f"If the server says 'rate limited', wait {wait} seconds and retry, doubling the wait each further time it happens."
    )
    history = " ".join(f"Attempt {i} {_EVENT_TEXT[e]}." for i, e in enumerate(log, 1))
    q = rng.choice(
        [
            f"A script calls a web service. {policy} {history} According to the policy, what should the script do next?",
            f"{policy} A nightly job's log so far: {history} What is the correct next action?",
        ]
    )
    return Item(
        q,
        answer,
        "multiple_choice",
        (wrong[0], wrong[1], wrong[2]),
        {"kind": "retry", "log": log, "max_timeouts": max_timeouts, "wait": wait},
    )


_RECOVERY_KINDS = [_recovery_redo, _recovery_checkpoint, _recovery_retry]


@DOMAIN.subcategory(
    "error_recovery",
    difficulty={
        "easy": "5-step plans with single dependencies (which steps to redo); 6 steps and 2 checkpoints (each "
        "worded as saved after its step or, half the time, before the next); the first failure of a retry log",
        "medium": "7-step plans with one or two dependencies per step (transitive effects matter); 9 steps, "
        "3 checkpoints (worded either way); 3 logged failures",
        "hard": "9-step plans (which steps, or how many); 12 steps, 4 checkpoints (mostly worded as after a step), the latest "
        "one corrupted; 5 logged failures where "
        "the last error has occurred before (counts and doubling waits matter)",
    },
)
def error_recovery(rng: random.Random, difficulty: str) -> Item:
    return rng.choice(_RECOVERY_KINDS)(rng, difficulty)

