"""The typed contracts at the runner's boundaries: the option vocabularies (one `Literal` each, its
tuple derived), `RunOptions` embedding `PlanOptions` (no field copied), the recipe Protocols every
registered experiment declares (the engine picks a recipe's turn rule by its declaration, never by
`hasattr`), and mypy over the packages configured clean."""

from __future__ import annotations

import importlib
import inspect
import math
import shutil
import subprocess
import sys
from dataclasses import fields
from pathlib import Path
from typing import get_args

import pytest

from mirror_hf import vocabulary
from mirror_hf.runner.engine import turn_rule
from mirror_hf.runner.plan import Job, MultiTurnRecipe, NextRequest, PlanOptions, Recipe
from mirror_hf.runner.request import Outcome
from mirror_hf.runner.session import RunOptions

REPO = Path(__file__).resolve().parents[1]
#: the packages mypy (disallow_untyped_defs, pyproject.toml) must pass over; the rest join once clean
TYPED = ("mirror_hf/runner", "mirror_hf/protocol", "mirror_hf/experiments", "mirror_hf/scoring")


def test_every_vocabulary_tuple_is_its_literal():
    pairs = [
        (vocabulary.MATCHERS, vocabulary.Matcher),
        (vocabulary.ANSWER_FORMATS, vocabulary.AnswerFormat),
        (vocabulary.ROUTE_RULES, vocabulary.RouteRuleKind),
        (vocabulary.DECISION_RULES, vocabulary.DecisionRules),
        (vocabulary.ATTACK_WORDINGS, vocabulary.AttackWording),
    ]
    for words, literal in pairs:
        assert words == get_args(literal) and len(set(words)) == len(words) > 1
    # the protocol names the same words, not a copy
    from mirror_hf.protocol import exp5, exp9, formats, matching, text

    assert matching.MATCHERS is vocabulary.MATCHERS and text.RULES is vocabulary.MATCHERS
    assert formats.ANSWER_FORMATS is vocabulary.ANSWER_FORMATS and exp9.DECISION_RULES is vocabulary.DECISION_RULES
    assert exp5.WORDINGS is vocabulary.ATTACK_WORDINGS


@pytest.mark.parametrize(
    "words", [vocabulary.MATCHERS, vocabulary.ANSWER_FORMATS, vocabulary.ROUTE_RULES, vocabulary.DECISION_RULES, vocabulary.ATTACK_WORDINGS]
)
def test_one_of_takes_every_word_and_refuses_anything_else(words):
    for word in words:
        assert vocabulary.one_of("--flag", word, words) == word
    for bad in ("", words[0].upper(), words[0] + " ", None, 1):
        with pytest.raises(vocabulary.VocabularyError, match=r"^--flag must be .* got "):
            vocabulary.one_of("--flag", bad, words)


def test_the_resolver_is_oracle_or_a_number_in_the_unit_interval():
    assert vocabulary.parse_resolver("oracle") == "oracle"
    for text, q in (("0", 0.0), ("1", 1.0), ("0.8", 0.8), (".5", 0.5), (0.7, 0.7)):
        value = vocabulary.parse_resolver(text)
        assert isinstance(value, float) and value == q
    for bad in ("1.5", "-0.1", "nan", "inf", "sometimes", "", "Oracle", True, math.nan):
        with pytest.raises(vocabulary.VocabularyError, match="--resolver-accuracy must be 'oracle' or a number in"):
            vocabulary.parse_resolver(bad)


def test_run_options_embed_the_plan_options_and_copy_none_of_them():
    run_fields = {f.name for f in fields(RunOptions)}
    plan_fields = {f.name for f in fields(PlanOptions)}
    assert "plan" in run_fields
    # `split` is the run's (default: the model's slug); the run sets the planner's from it
    assert run_fields & plan_fields == {"split"}


def _recipe_classes():
    from mirror_hf.experiments import EXPERIMENTS

    for name, spec in EXPERIMENTS.items():
        module = importlib.import_module(spec.planner.__module__)
        found = [
            c for _, c in inspect.getmembers(module, inspect.isclass) if c.__module__ == module.__name__ and c.__name__.endswith("Recipe")
        ]
        assert found, f"{name}: no recipe class in {module.__name__}"
        yield from ((name, c) for c in found)


def test_every_recipe_declares_its_contract():
    """Every experiment's recipe subclasses `Recipe` (so a missing method is an abstract-class error,
    not an AttributeError mid-run), and a recipe with a `next_turn` is declared `MultiTurnRecipe`:
    the engine would otherwise never ask it (it picks the rule by the declaration)."""
    seen = []
    for name, cls in _recipe_classes():
        assert Recipe in cls.__mro__, f"{name}: {cls.__name__} does not declare Recipe"
        assert not inspect.isabstract(cls), f"{name}: {cls.__name__} leaves {sorted(cls.__abstractmethods__)} abstract"
        assert hasattr(cls, "next_turn") == (MultiTurnRecipe in cls.__mro__), cls
        assert isinstance(cls.experiment, str) and cls.experiment and isinstance(cls.default_max_tokens, int)
        seen.append(name)
    from mirror_hf.experiments import EXPERIMENTS

    assert set(seen) == set(EXPERIMENTS)


def test_the_engine_asks_next_turn_of_a_multi_turn_recipe_and_followup_once_of_a_single_turn_one():
    job = Job("q1", {}, [{"role": "user", "content": "hi"}])
    first = (None, Outcome(text="a"))

    class Single(Recipe):
        experiment, default_max_tokens = "toy", 8

        def may_follow_up(self, job):
            return True

        def followup(self, job, outcome):
            return [{"role": "user", "content": f"after {outcome.text}"}]

        def parsed_fields(self, job, turns, error=None):
            return {}

    class Multi(Single, MultiTurnRecipe):
        def next_turn(self, job, turns):
            return NextRequest(job.messages, seed_offset=len(turns)) if len(turns) < 3 else None

    single, multi = turn_rule(Single()), turn_rule(Multi())
    assert single(job, [first]) == [{"role": "user", "content": "after a"}]
    assert single(job, [first, first]) is None  # one follow-up at most
    assert multi(job, [first]) == NextRequest(job.messages, seed_offset=1)
    assert multi(job, [first, first]) == NextRequest(job.messages, seed_offset=2) and multi(job, [first] * 3) is None


def test_the_runner_finds_no_recipe_hook_by_name():
    """No `hasattr`/`getattr` on a recipe or a store in the engine, the session or the records."""
    for name in ("engine.py", "session.py", "trials.py", "plan.py"):
        source = (REPO / "mirror_hf" / "runner" / name).read_text()
        for needle in (
            "hasattr(recipe",
            "getattr(recipe",
            "getattr(plan.recipe",
            "hasattr(plan.recipe",
            "getattr(self.store",
            "getattr(spec",
        ):
            assert needle not in source, f"runner/{name}: {needle}"


@pytest.mark.skipif(shutil.which("mypy") is None and importlib.util.find_spec("mypy") is None, reason="mypy not installed (the test extra)")
def test_mypy_passes_over_the_typed_packages():
    proc = subprocess.run([sys.executable, "-m", "mypy", *TYPED], cwd=REPO, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-1000:]
