"""What the terminal, the score JSON, the report and its figures say is what the data say (issue 29).

Two studies against the scripted server, a small one (2 Exp1 items per domain, a third of the
replies empty: unparsed) and a large one (50 per domain, Exp3 and Exp9 too):

- no Estimate anywhere in the score JSON has a zero-width interval; on the small study the macro
  accuracies say "too few trials per domain" instead of an interval, on the large one they have one;
- the report's main table is the score JSON cell for cell;
- `score` and `run` print per model and experiment the share of unparsed or failed trials, counted
  here from the parquet, with a WARNING line exactly when it is above 20%; every "-" has a footnote;
- in a real headless Chromium every figure slot of both reports shows a figure whose SVG holds data
  marks, or its "not enough data" note, and no legend covers a data mark.
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import polars as pl
import pytest
from fakes.servers import openai_server
from runner_fixtures import cli_inproc
from test_report import _check_table_against_scores

RESAMPLES = "300"
MODEL = "acme/fake-1"
WARNING_SHARE = 0.20  # the issue's threshold, stated here


def _study(built_folder, root: Path, *, exp1_limit: int, faults: dict, extra: bool) -> dict:
    dataset = root / "mirror"
    shutil.copytree(built_folder, dataset)
    common = ("--dataset", str(dataset), "--model", MODEL, "--no-progress", "--backoff-base", "0.01")
    with openai_server(faults, think_rate=0.2) as url:
        run = cli_inproc("run", *common, "--base-url", url, "--limit", str(exp1_limit))
        if extra:
            cli_inproc("profile", "--dataset", str(dataset), "--model", MODEL)
            cli_inproc("run", *common, "--base-url", url, "--experiment", "exp9", "--limit", "4", "--max-tokens", "200")
            cli_inproc("run", *common, "--base-url", url, "--experiment", "exp3", "--limit", "8")
    score_file = root / "score.json"
    cli_inproc("score", "--dataset", str(dataset), "--json", str(score_file), "--resamples", RESAMPLES)
    terminal = cli_inproc("score", "--dataset", str(dataset), "--resamples", RESAMPLES)
    cli_inproc("report", "--dataset", str(dataset), "--out", str(root / "report"), "--resamples", RESAMPLES)
    return {"dataset": dataset, "scores": json.loads(score_file.read_text()), "terminal": terminal.stdout,
            "run": run.stdout, "report": root / "report"}


@pytest.fixture(scope="module")
def small(built_folder, tmp_path_factory):
    return _study(built_folder, tmp_path_factory.mktemp("small_study"), exp1_limit=16, faults={"empty": 0.35}, extra=False)


@pytest.fixture(scope="module")
def large(built_folder, tmp_path_factory):
    return _study(built_folder, tmp_path_factory.mktemp("large_study"), exp1_limit=400, faults={"empty": 0.05}, extra=True)


def _estimates(node, path=()):
    """Every Estimate-shaped entry ({"value", "n", ...}) of a score JSON, with its path."""
    if isinstance(node, dict):
        if "value" in node and "n" in node:
            yield path, node
        for key, child in node.items():
            yield from _estimates(child, (*path, str(key)))
    elif isinstance(node, list):
        for i, child in enumerate(node):
            yield from _estimates(child, (*path, str(i)))


@pytest.mark.parametrize("study", ["small", "large"])
def test_no_estimate_of_the_score_json_has_a_zero_width_interval(study, request):
    scores = request.getfixturevalue(study)["scores"]
    found = list(_estimates(scores))
    with_ci = [(p, e) for p, e in found if e.get("ci") and None not in e["ci"]]
    zero = [("/".join(p), e["ci"]) for p, e in with_ci if e["ci"][1] - e["ci"][0] <= 0]
    print(f"\n{study}: {len(found)} estimates, {len(with_ci)} with an interval, {len(zero)} of zero width")
    assert with_ci and not zero, zero[:10]


def test_small_domains_get_too_few_trials_instead_of_an_interval(small, large):
    exp1 = small["scores"]["models"][MODEL]["exp1"]
    for metric in ("natural_accuracy", "wagering_accuracy", "mirror_gap"):
        entry = exp1[metric]
        assert "ci" not in entry or entry["ci"] is None, (metric, entry)
        assert entry["ci_note"].startswith("too few trials per domain"), (metric, entry)
    assert large["scores"]["models"][MODEL]["exp1"]["natural_accuracy"].get("ci"), "50 per domain: an interval"


@pytest.mark.parametrize("study", ["small", "large"])
def test_the_report_table_is_the_score_json_cell_for_cell(study, request):
    s = request.getfixturevalue(study)
    checked = _check_table_against_scores((s["report"] / "report.md").read_text(), s["scores"])
    assert checked >= 3
    assert json.loads((s["report"] / "scores.json").read_text())["models"] == s["scores"]["models"]


def _unusable(dataset: Path, experiment: str) -> tuple[int, int]:
    files = list((dataset / "data" / f"trials_{experiment}").glob("*.parquet"))
    frame = pl.concat([pl.read_parquet(f) for f in files], how="diagonal_relaxed")
    bad = pl.lit(False)
    for column, expr in (("parse_success", pl.col("parse_success") == False),  # noqa: E712
                         ("api_error", pl.col("api_error").is_not_null()), ("api_success", pl.col("api_success") == False)):  # noqa: E712
        if column in frame.columns:
            bad = bad | expr.fill_null(False)
    return frame.height, int(frame.select(bad.sum()).item())


@pytest.mark.parametrize("study", ["small", "large"])
def test_score_and_run_print_the_unusable_share_and_warn_above_a_fifth(study, request):
    s = request.getfixturevalue(study)
    experiments = ["exp1"] + (["exp3", "exp9"] if study == "large" else [])
    for experiment in experiments:
        trials, bad = _unusable(s["dataset"], experiment)
        line = f"{MODEL} {experiment}: {bad} of {trials} trials unparsed or failed ({bad / trials:.0%})"
        assert line in s["terminal"], (line, s["terminal"])
        warned = f"WARNING: {MODEL} {experiment}:" in s["terminal"]
        assert warned == (bad / trials > WARNING_SHARE), (experiment, bad, trials)
    trials, bad = _unusable(s["dataset"], "exp1")
    assert f"{bad} of {trials} trials unparsed or failed" in s["run"]
    if study == "small":
        assert bad / trials > WARNING_SHARE and "WARNING" in s["run"]  # a third of the replies are empty


def test_every_dash_of_the_terminal_table_has_a_reason(small):
    text = small["terminal"]
    cells = re.findall(r"(?<![\w.])-(?![\w.-])(?: \((\d+)\))?", text.split("unparsed or failed")[0])
    marked = {int(m) for m in re.findall(r"(?<![\w.])- \((\d+)\)", text)} | {int(m) for m in re.findall(r"no CI \((\d+)\)", text)}
    notes = {int(m) for m in re.findall(r"^\((\d+)\) \w", text, re.MULTILINE)}
    assert marked and marked == notes, (marked, notes, text)
    assert all(c for c in cells), f"a '-' without a footnote marker:\n{text}"
    assert "too few trials per domain" in text


# ------------------------------------------------------------------------------ figures in a real browser


@pytest.fixture(scope="module")
def browser():
    from cdp import Browser, find_chromium

    executable = find_chromium()
    if executable is None:
        pytest.skip("no Chromium on this machine (install it: apt-get install -y chromium); the figure test needs a real browser")
    b = Browser(executable)
    yield b
    b.close()


SLOTS = """Array.from(document.querySelectorAll('#figures ~ figure')).map(f => {
  const img = f.querySelector('img'); const note = f.querySelector('.not-enough-data');
  return {title: f.querySelector('figcaption b').textContent, src: img ? img.getAttribute('src') : null,
          width: img ? img.naturalWidth : 0, note: note ? note.textContent : null};
})"""

MARKS = """(() => {
  const box = e => e.getBoundingClientRect();
  const marks = Array.from(document.querySelectorAll('[id^="mark-"]'));
  const shapes = marks.flatMap(m => { const k = m.querySelectorAll('path, use, rect, image'); return k.length ? Array.from(k) : [m]; })
                      .map(box).filter(r => r.width > 0 || r.height > 0);
  const content = Array.from(document.querySelectorAll('[id^="content-"]')).map(box);
  const legends = Array.from(document.querySelectorAll('[id^="legend_"]')).map(box);
  const hit = (a, b) => Math.min(a.right, b.right) - Math.max(a.left, b.left) > 1
                     && Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top) > 1;
  const covered = shapes.concat(content).filter(s => legends.some(l => hit(s, l))).length;
  return {marks: shapes.length, legends: legends.length, covered: covered};
})()"""


@pytest.mark.parametrize("study", ["small", "large"])
def test_every_figure_has_data_marks_or_says_there_is_not_enough_data(study, request, browser):
    s = request.getfixturevalue(study)
    report = s["report"]
    browser.errors.clear()
    browser.open(report / "index.html")
    browser.wait_for("document.querySelectorAll('#figures ~ figure').length > 0")
    browser.evaluate("document.querySelectorAll('img').forEach(i => { i.loading = 'eager'; })")
    browser.wait_for("Array.from(document.images).every(i => i.complete)")
    slots = browser.evaluate(SLOTS)
    drawn = [x for x in slots if x["src"]]
    notes = [x for x in slots if x["note"]]
    print(f"\n{study}: {len(drawn)} figures drawn, {len(notes)} with a 'not enough data' note: {[x['title'] for x in notes]}")
    assert len(drawn) + len(notes) == len(slots) and drawn
    assert all("not enough data" in x["note"].lower() for x in notes)
    for slot in drawn:
        assert slot["width"] > 0, slot
        browser.open(report / slot["src"])
        found = browser.evaluate(MARKS)
        assert found["marks"] > 0, (slot["title"], found)
        assert found["covered"] == 0, f"{slot['title']}: a legend covers {found['covered']} data mark(s)"
    assert browser.errors == [], browser.errors
    if study == "small":
        assert any(x["title"] == "Natural vs wagering accuracy" for x in notes)  # 2 trials per domain: too few
    else:
        assert any(x["title"] == "Natural vs wagering accuracy" for x in drawn)


def _crowded_result() -> dict:
    """Three models whose CFR stays near 1 under every condition: the curve, its CIs and the boxes of
    the paired tests all sit at the top of the axes, where a legend inside them would go."""
    conditions = ("C1", "C2", "C3", "C4")
    models = {f"m{i}": {"exp9": {"cfr": {c: {"value": 0.9 + 0.03 * i, "n": 40} for c in conditions}}} for i in range(3)}
    curve = {c: {"value": 0.93, "n": 3, "ci": [0.9, 0.96]} for c in conditions}
    curve["d_z"] = {f"{a}_{b}": {"mean_diff": 0.0, "value": 0.1, "p": 0.9} for a, b in zip(conditions, conditions[1:])}
    return {"models": models, "aggregate": {"escalation": curve}}


def test_no_legend_covers_data_or_a_test_box_on_a_crowded_escalation_curve():
    """Issue 29: the escalation figure's legend covered a box. Measured in matplotlib's own display
    coordinates: no legend overlaps a data mark or a paired-test box."""
    from mirror_hf.report.figures import escalation

    fig = escalation(_crowded_result())
    renderer = fig.canvas.get_renderer()
    legends = [ax.get_legend().get_window_extent(renderer) for ax in fig.axes if ax.get_legend()]
    tagged = [a for a in fig.findobj() if (a.get_gid() or "").startswith(("mark-", "content-"))]
    assert legends and len(tagged) >= 5
    boxes = [a.get_window_extent(renderer) for a in tagged]
    covered = [b for b in boxes for leg in legends if b.overlaps(leg) and min(b.x1, leg.x1) - max(b.x0, leg.x0) > 1
               and min(b.y1, leg.y1) - max(b.y0, leg.y0) > 1]
    assert not covered, covered


def test_each_dash_reason_names_what_is_missing():
    """The reasons are read from the trials: no trials of the experiment, the channel not run, no
    trial of it graded; each case built here by hand."""
    from mirror_hf import unusable
    from mirror_hf.report import terminal

    exp1 = pl.DataFrame({"model": ["m"] * 4, "channel": ["natural", "natural", "wagering", "wagering"],
                         "correct": [True, False, None, None], "parse_success": [True, True, False, False]})
    tables = {"exp1": exp1, "exp9": None}
    assert terminal.dash_reason(tables, "m", "exp1_wagering_accuracy", "exp1") == terminal.NO_GRADED
    assert terminal.dash_reason(tables, "m", "exp9_cfr_c1", "exp9") == terminal.NO_TRIALS
    assert terminal.dash_reason(tables, "other", "exp1_natural_accuracy", "exp1") == terminal.NO_TRIALS
    only_natural = {"exp1": exp1.filter(pl.col("channel") == "natural")}
    assert terminal.dash_reason(only_natural, "m", "exp1_mirror_gap", "exp1") == terminal.CHANNEL_NOT_RUN
    rows = unusable.unusable_shares(tables)
    assert [(r.model, r.experiment, r.trials, r.unusable) for r in rows] == [("m", "exp1", 4, 2)]
    lines = unusable.unusable_lines(rows)
    assert lines[0] == "m exp1: 2 of 4 trials unparsed or failed (50%)" and lines[1].startswith("WARNING: m exp1: 50%")
    one_in_five = unusable.Unusable("m", "exp1", 5, 1)  # exactly 20%: not above the share, no warning
    assert unusable.unusable_lines([one_in_five]) == ["m exp1: 1 of 5 trials unparsed or failed (20%)"]
