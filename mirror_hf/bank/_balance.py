"""Keeping every test-wise cue at chance across a form, as answer positions are kept balanced.

`fair_pick` balances the cues inside one item's pool of errors; what it cannot see is the form:
that "Retry the request now" is the gold in most of the items that offer it, that the answer to
"how many steps" is 4 far more often than any other count, or that one generator family leaves the
gold the second-largest value a little too often. A test-wise respondent who has read the form's
other items exploits exactly that (the answer priors of `_leaks`).

So while a subcategory is drawn, a `CueBalance` keeps its running tally: the credit each of the
leak gate's strategies has earned so far (the answer priors read from the items drawn before), and
how often each option string has been the gold and been offered. A fresh draw whose choices would
push any tally above chance by more than `TOLERANCE` standard errors (or an option string's gold
rate away from 1/4 either way) is set aside for another draw of the same block; after `DRAWS`
unique draws the one that tips the tallies least is kept. The generator is untouched and every
item is still one of its own: the form only prefers, among equally valid items, those that keep
the cues fair.
"""

from __future__ import annotations

import math
from typing import Sequence

from mirror_hf.bank._fair import _LIKENESS
from mirror_hf.bank._items import Item, normalise_text
from mirror_hf.bank._leaks import ALL_STRATEGIES, CHANCE, STRATEGIES, credit, credits

DRAWS = 4  # unique draws considered per item at most
TOLERANCE = 1.5  # z above chance a running tally may reach before a draw is set aside
MIN_OFFERS = 5  # an option string's gold rate counts once it has been offered this often
_VAR = CHANCE * (1 - CHANCE)


class CueBalance:
    """The running tallies of one subcategory of one form."""

    def __init__(self) -> None:
        self.n = 0
        self.sums: dict[str, float] = {name: 0.0 for name in (*ALL_STRATEGIES, "likeness_1", "likeness_2")}
        self.gold: dict[str, int] = {}
        self.offered: dict[str, int] = {}

    def _credits(self, question: str, choices: Sequence[str], keys: Sequence[str]) -> dict[str, float]:
        scores: dict[str, list[float] | None] = {name: scorer(question, choices) for name, scorer in STRATEGIES.items()}
        scores["gold_prior"] = [float(self.gold.get(k, 0)) for k in keys]
        scores["offered_prior"] = [(self.gold.get(k, 0) + CHANCE) / (self.offered.get(k, 0) + 1) for k in keys]
        out = credits(scores, 0)  # every strategy of the gate, each turned round too
        # "the most typical choice" read coarser than the gate's trigrams too (character bigrams,
        # characters: `_fair._LIKENESS`), so the balance does not hold for one formula only
        for k, like in enumerate(_LIKENESS[1:], 1):
            centre = [sum(like(a, b) for j, b in enumerate(choices) if j != i) for i, a in enumerate(choices)]
            out[f"likeness_{k}"] = credit(centre, 0)
        return out

    def cost(self, item: Item) -> tuple[float, dict[str, float]]:
        """How far above chance (in standard errors) the worst tally would stand with this item."""
        choices = (item.answer, *item.distractors)
        keys = [normalise_text(c) for c in choices]
        credits = self._credits(item.question, choices, keys)
        n = self.n + 1
        worst = max((self.sums[name] + c - CHANCE * n) / math.sqrt(_VAR * n) for name, c in credits.items())
        for i, k in enumerate(keys):
            o = self.offered.get(k, 0) + 1
            if o >= MIN_OFFERS:
                g = self.gold.get(k, 0) + (i == 0)
                worst = max(worst, abs(g - CHANCE * o) / math.sqrt(_VAR * o))
        return worst, credits

    def add(self, item: Item, credits: dict[str, float]) -> None:
        self.n += 1
        for name, c in credits.items():
            self.sums[name] += c
        keys = {normalise_text(c) for c in (item.answer, *item.distractors)}
        for k in keys:
            self.offered[k] = self.offered.get(k, 0) + 1
        a = normalise_text(item.answer)
        self.gold[a] = self.gold.get(a, 0) + 1
