"""Every metric module's card keeps a runnable `Examples:` block: read from the `inputs_description`
evaluate shows for the module loaded with `evaluate.load("mirror/<name>")` from a built copy (offline,
private HF_HOME: conftest), run as a doctest, so a printed or returned value that the module does not
produce fails. Each example is also altered in turn to show the check catches a wrong one. The card
README's "How to Use" block is the same text, and the scripts stay declarations (no class of their own,
the Features are the card's typed `Args` lines); `evaluate_support.metric` refuses a declaration whose
card and options disagree, with a message naming the module."""

from __future__ import annotations

import ast
import doctest
import os
import re
from pathlib import Path

import pytest

from mirror_hf.build import copy_metric_modules

REPO = Path(__file__).resolve().parents[1]
NAMES = sorted(p.parent.name for p in (REPO / "metrics").glob("*/*.py") if p.stem == p.parent.name)


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("examples") / "mirror"
    folder.mkdir()
    assert sorted(copy_metric_modules(folder)) == NAMES
    return folder


@pytest.fixture(scope="module")
def loaded(built):
    import evaluate

    assert os.environ["HF_HUB_OFFLINE"] == "1" and os.environ["HF_EVALUATE_OFFLINE"] == "1"
    assert not Path(os.environ["HF_HOME"]).is_relative_to(Path.home() / ".cache")
    cwd = os.getcwd()
    os.chdir(built.parent)
    try:
        return {name: evaluate.load(f"mirror/{name}") for name in NAMES}
    finally:
        os.chdir(cwd)


def examples_of(card: str) -> str:
    """The `Examples:` section of an inputs card (to its end or the next unindented header), dedented."""
    match = re.search(r"^Examples:\n((?:(?:    .*)?\n)+)", card, re.MULTILINE)
    assert match, "no Examples: section"
    return "".join(line[4:] + "\n" for line in match[1].rstrip("\n").split("\n"))


def run(source: str, name: str, built: Path, wrong: int | None = None) -> tuple[int, int, str]:
    """(failed, tried, report) of `source` as a doctest, run where `mirror/<name>` resolves; with
    `wrong`, that example's expected output is altered first."""
    import evaluate

    test = doctest.DocTestParser().get_doctest(source, {"evaluate": evaluate}, f"{name}-examples", f"metrics/{name}/{name}.py", 0)
    if wrong is not None:
        test.examples[wrong].want = "9" + test.examples[wrong].want
    report: list[str] = []
    runner = doctest.DocTestRunner(optionflags=doctest.NORMALIZE_WHITESPACE)
    cwd = os.getcwd()
    os.chdir(built.parent)
    try:
        result = runner.run(test, out=report.append, clear_globs=True)
    finally:
        os.chdir(cwd)
    return result.failed, result.attempted, "".join(report)


def test_every_metric_folder_is_covered():
    assert len(NAMES) >= 21 and {"cfr", "auroc", "c4_tradeoff", "escalation"} <= set(NAMES)


@pytest.mark.parametrize("name", NAMES)
def test_card_examples_run_and_hold(loaded, built, name):
    source = examples_of(loaded[name].inputs_description)
    parsed = doctest.DocTestParser().get_examples(source)
    assert f'evaluate.load("mirror/{name}")' in source, f"{name}: the example must load the module itself"
    assert any(example.want.strip() for example in parsed), f"{name}: no example shows a value"
    failed, tried, report = run(source, name, built)
    assert tried == len(parsed) and failed == 0, report


@pytest.mark.parametrize("name", NAMES)
def test_a_wrong_example_fails(built, loaded, name):
    """Every shown value is checked: each one altered alone makes the run fail."""
    source = examples_of(loaded[name].inputs_description)
    examples = doctest.DocTestParser().get_examples(source)
    shown = [i for i, example in enumerate(examples) if example.want.strip()]
    assert shown
    for i in shown:
        failed, _, _ = run(source, name, built, wrong=i)
        assert failed == 1, f"{name}: example {i} with a wrong value still passed"


@pytest.mark.parametrize("name", NAMES)
def test_card_readme_shows_the_same_examples(loaded, name):
    readme = (REPO / "metrics" / name / "README.md").read_text()
    block = re.search(r"## How to Use\n```python\n(.*?)```", readme, re.DOTALL)
    assert block, f"{name}: README.md has no How to Use python block"
    assert block[1] == examples_of(loaded[name].inputs_description), f"{name}: README How to Use differs from the script's Examples"


@pytest.mark.parametrize("name", NAMES)
def test_features_are_the_cards_typed_args(loaded, name):
    card = loaded[name].inputs_description
    args = card.split("Args (", 1)[1].split("\nKeyword arguments:", 1)[0]
    declared = dict(re.findall(r"^    (\w+) \((\w+)\): ", args, re.MULTILINE))
    assert declared and {k: v.dtype for k, v in loaded[name].features.items()} == declared
    assert loaded[name].name == name
    assert "ci: bool" in card and "2604.19809" in loaded[name].citation


@pytest.mark.parametrize("name", NAMES)
def test_scripts_are_declarations(name):
    """No class, `_compute` or `_info` of their own: the shared behaviour lives in evaluate_support."""
    tree = ast.parse((REPO / "metrics" / name / f"{name}.py").read_text())
    assert not [n.name for n in ast.walk(tree) if isinstance(n, ast.ClassDef)], name
    calls = [n for n in ast.walk(tree) if isinstance(n, ast.Call) and ast.unparse(n.func) == "evaluate_support.metric"]
    assert len(calls) == 1 and ast.literal_eval(calls[0].args[0]) == name


GOOD = """\
Args (one row per thing):
    x (float64): a number.
Keyword arguments:
    scale: a factor (default 1).
Returns:
    {"toy": float, "n": rows}
Examples:
    >>> 1 + 1
    2
"""


def _toy(*, x, scale, ci):
    from mirror_hf.scoring import Estimate

    return Estimate(sum(v * scale for v in x), len(x))


def test_a_declared_toy_metric_computes_and_refuses_unknown_keywords():
    from mirror_hf.scoring import evaluate_support

    Toy = evaluate_support.metric("toy", "A toy.", GOOD, function=_toy, options={"scale": 1})
    toy = Toy()
    assert toy.name == "toy" and list(toy.features) == ["x"]
    assert toy.compute(x=[1.0, 2.0], scale=2) == {"toy": 6.0, "n": 2}
    with pytest.raises(TypeError, match="toy: unknown keyword argument.*scal\\b"):
        toy.compute(x=[1.0], scal=2)
    with pytest.raises(ValueError, match="don't match the expected format"):
        toy.compute(x=["one"])


@pytest.mark.parametrize(
    "card, options, message",
    [
        (GOOD, {}, "documents scale, which options= does not declare"),
        (GOOD, {"scale": 1, "offset": 0}, "offset not documented"),
        (GOOD.replace("x (float64)", "x (float65)"), {"scale": 1}, "column 'x' has unknown dtype 'float65'"),
        (GOOD.replace("x (float64): a number.", "x: a number."), {"scale": 1}, "is not 'name \\(dtype\\): what it holds'"),
        (GOOD.split("Examples:")[0], {"scale": 1}, "no 'Examples:' section"),
        (GOOD.replace(">>> 1 + 1", "1 + 1"), {"scale": 1}, "no '>>> ' line"),
        (GOOD.replace("scale:", "x:"), {"x": 1}, "clash with a column"),
    ],
)
def test_a_card_that_disagrees_with_its_declaration_is_refused(card, options, message):
    from mirror_hf.scoring import evaluate_support

    with pytest.raises(evaluate_support.MetricCardError, match=f"^toy: .*{message}"):
        evaluate_support.metric("toy", "A toy.", card, function=_toy, options=options)
