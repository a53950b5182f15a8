"""`mirror-hf report` end to end: on the authors' imported results and on a run against the scripted
server, the site, markdown and every figure are written; every number of the markdown table is the
one `score --json` gives; the figures are real, labelled, non-blank images; a real headless Chromium
opens the page without console errors and filters the trial browser; edge cases (Exp1-only model,
empty folder)."""

from __future__ import annotations

import json
import re
import shutil
import struct
import xml.etree.ElementTree as ET
from pathlib import Path

import numpy as np
import polars as pl
import pytest
from fakes.servers import openai_server
from runner_fixtures import cli_inproc

from mirror_hf.folder import write_split
from mirror_hf.records import TRIAL_EXP1_FEATURES, TRIAL_EXP9_FEATURES, empty_row

RESAMPLES = "300"
# The score-JSON path behind each column label, written out here (not read from the report code).
LABEL_PATHS = {
    "Nat.Acc": ("exp1", "natural_accuracy"), "Wag.Acc": ("exp1", "wagering_accuracy"), "Mirror gap": ("exp1", "mirror_gap"),
    "ECE": ("exp1", "ece"), "Brier": ("exp1", "brier"), "MCI": ("exp1", "mci"), "TII": ("exp2", "tii"), "CCE": ("exp3", "cce"),
    "ARS": ("exp5", "ars"), "FDR": ("exp6b", "fdr"),
    "CFR C1": ("exp9", "cfr", "C1"), "CFR C4": ("exp9", "cfr", "C4"), "KDI": ("exp9", "kdi"),
}
NUMBER = re.compile(r"-?\d+\.\d+")


def _report(dataset: Path, out: Path, *extra: str):
    proc = cli_inproc("report", "--dataset", str(dataset), "--out", str(out), "--resamples", RESAMPLES, *extra)
    score_file = out.parent / f"{out.name}.score.json"
    cli_inproc("score", "--dataset", str(dataset), "--json", str(score_file), "--resamples", RESAMPLES, *extra)
    return proc, json.loads(score_file.read_text())


@pytest.fixture(scope="module")
def upstream_report(upstream_dir, tmp_path_factory):
    from mirror_hf.upstream import import_upstream

    root = tmp_path_factory.mktemp("report_upstream")
    files = [upstream_dir / "results" / n for n in (
        "exp1_gemini-2.5-pro_shard.jsonl", "exp3_v2_results.jsonl", "exp9_escalation_16models.json")]
    files += [upstream_dir / "data" / "questions.jsonl", upstream_dir / "data" / "exp3" / "intersection_tasks_v2.jsonl"]
    import_upstream(files, root / "mirror")
    proc, scores = _report(root / "mirror", root / "report", "--variant", "upstream")
    return root / "mirror", root / "report", proc, scores


@pytest.fixture(scope="module")
def run_report(built_folder, tmp_path_factory):
    """A folder with Exp1 (five channels), its profile, Exp9 (C1-C4) and Exp3 from the scripted server."""
    root = tmp_path_factory.mktemp("report_run")
    dataset = root / "mirror"
    shutil.copytree(built_folder, dataset)
    common = ("--dataset", str(dataset), "--model", "acme/fake-1", "--no-progress", "--backoff-base", "0.01")
    with openai_server({"400": 0.05, "length": 0.05}, think_rate=0.3, tool_rate=0.3) as url:
        cli_inproc("run", *common, "--base-url", url, "--limit", "40")
        cli_inproc("profile", "--dataset", str(dataset), "--model", "acme/fake-1")
        cli_inproc("run", *common, "--base-url", url, "--experiment", "exp9", "--limit", "4", "--max-tokens", "200")
        cli_inproc("run", *common, "--base-url", url, "--experiment", "exp3", "--limit", "4")
    proc, scores = _report(dataset, root / "report")
    return dataset, root / "report", proc, scores


def _markdown_table(text: str) -> tuple[list[str], dict[str, list[str]]]:
    section = text.split("## Main table", 1)[1].split("\n## ", 1)[0]
    lines = [line for line in section.splitlines() if line.startswith("|")]
    header = [h.strip().rstrip("↑↓ ").strip() for h in lines[0].strip("|").split("|")]
    rows = {}
    for line in lines[2:]:
        cells = [c.strip() for c in line.strip("|").split("|")]
        rows[cells[0]] = cells[1:]
    return header[1:], rows


def _check_table_against_scores(text: str, scores: dict) -> int:
    labels, rows = _markdown_table(text)
    assert set(rows) == set(scores["models"]), "one row per scored model"
    checked = 0
    for model, cells in rows.items():
        for label, cell in zip(labels, cells):
            node = scores["models"][model]
            for part in LABEL_PATHS[label]:
                node = node.get(part) if isinstance(node, dict) else None
            if cell == "—" or re.fullmatch(r"—(?: \(\d+\))?", cell):  # a dash, with its numbered reason
                assert node is None or node.get("value") is None, f"{model} {label}: score has {node}, table says —"
                continue
            numbers = NUMBER.findall(cell)  # printed with three decimals: compare the printed text
            expected = [node["value"], *(node["ci"] if node.get("ci") and None not in node["ci"] else [])]
            assert numbers == [f"{v:.3f}" for v in expected], (model, label, cell, node)
            checked += 1
    return checked


def _png_ok(path: Path) -> None:
    import matplotlib.image as mpimg

    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    width, height = struct.unpack(">II", data[16:24])
    assert width > 200 and height > 150
    pixels = mpimg.imread(path)[..., :3]
    assert pixels.std() > 0.05, f"{path.name} looks blank"
    assert (pixels.mean(axis=2) < 0.5).mean() > 0.002, f"{path.name} has almost no ink"


def _svg_texts(path: Path) -> list[str]:
    tree = ET.parse(path)
    return ["".join(e.itertext()).strip() for e in tree.iter() if e.tag.endswith("text")]


EXPECTED_TEXT = {  # figure -> words its title, axes and legend must show
    "escalation": ["Escalation curve", "Exp9 condition", "confident failure rate", "95% BCa CI", "d_z"],
    "domain_heatmap": ["natural accuracy by domain", "domain", "model", "weak domain"],
    "natural_vs_wagering": ["natural vs wagering", "accuracy (share correct)", "natural", "wagering"],
    "c4_routing": ["C4 routing", "confident failure rate", "C1 uninformed", "C4 routed"],
    "kdi": ["Knowing-doing index", "KDI", "95% CI", "model"],
    "c4_tradeoff": ["C4 trade-off", "correct escalations", "false escalations", "failures prevented", "successes blocked",
                   "95% BCa CI", "model"],
    "money_plot": ["Money plot", "Mirror gap", "cell CFR", "Pearson r", "partial r", "cell: model x domain x subcategory"],
    "escalation_frames": ["Escalation curve per paradigm", "Exp9 condition", "confident failure rate", "P1 only", "95% BCa CI"],
    "resolver": ["fallible resolver", "resolver accuracy q", "system success under C4", "autonomy", "95% BCa CI"],
    "scaling": ["Exp8 scaling", "parameters (count, log scale)"],
    "signals": ["which signal knows best", "AUROC (higher is better)", "AURC (lower is better)", "behavioural", "internal"],
    "reliability": ["Reliability", "confidence (bet / 10)", "accuracy (share correct)", "perfect calibration", "records per bin"],
}


def _check_figures(report: Path, expected: set[str]) -> None:
    names = {p.stem for p in (report / "figures").glob("*.png")}
    assert names == {p.stem for p in (report / "figures").glob("*.svg")}
    assert expected <= names, f"missing figures: {expected - names}"
    for name in names:
        _png_ok(report / "figures" / f"{name}.png")
        texts = " ".join(_svg_texts(report / "figures" / f"{name}.svg"))
        for word in EXPECTED_TEXT["reliability" if name.startswith("reliability_") else name]:
            assert word in texts, f"{name}.svg lacks {word!r}"


def test_upstream_report_writes_site_markdown_and_figures(upstream_report):
    _, report, proc, scores = upstream_report
    assert "wrote" in proc.stdout and (report / "index.html").is_file() and (report / "report.md").is_file()
    _check_figures(report, {"escalation", "domain_heatmap", "natural_vs_wagering", "c4_routing", "reliability_gemini_2_5_pro"})
    text = (report / "report.md").read_text()
    checked = _check_table_against_scores(text, scores)
    print(f"{checked} table numbers (with their CIs) match score --json")
    assert checked >= 16 * 2 + 7  # 16 models' CFR C1/C4, gemini's Exp1 columns, 12 CCEs
    # every figure of the site is linked from the markdown and the page, and exists
    html = (report / "index.html").read_text()
    for png in (report / "figures").glob("*.png"):
        assert f"figures/{png.name}" in text and f"figures/{png.stem}.svg" in html
    # the data-quality block names the authors' parse failures: 686 + 151 + 102 + 107 flagged Exp3 answers
    assert "parse failures" in text and "imported from the authors' files" in text
    # the escalation figure's means are the authors' published headline (0.5999 / 0.6048 / 0.5144 / 0.1425)
    esc = scores["aggregate"]["escalation"]
    computed = [esc[c]["value"] for c in ("C1", "C2", "C3", "C4")]
    print("escalation means: published 0.5999 0.6048 0.5144 0.1425; computed", " ".join(f"{v:.4f}" for v in computed))
    assert computed == pytest.approx([0.5999, 0.6048, 0.5144, 0.1425], abs=1e-4)
    assert "over 16 models" in " ".join(_svg_texts(report / "figures" / "escalation.svg"))


def test_narrative_numbers_come_from_the_table(upstream_report, run_report):
    for _, report, _, _ in (upstream_report, run_report):
        text = (report / "report.md").read_text()
        _, rows = _markdown_table(text)
        for model, cells in rows.items():
            para = text.split(f"### {model}\n\n", 1)[1].split("\n", 1)[0]
            row_numbers = {n for c in cells for n in NUMBER.findall(c)}
            found = NUMBER.findall(para.replace(model, ""))
            assert found, f"{model}: narrative has no number"
            assert set(found) <= row_numbers, f"{model}: narrative numbers {set(found) - row_numbers} are not in its table row"


def test_run_report_has_every_experiment(run_report):
    dataset, report, _, scores = run_report
    _check_figures(report, {"escalation", "domain_heatmap", "natural_vs_wagering", "kdi", "c4_routing", "reliability_acme_fake_1",
                            "c4_tradeoff", "money_plot", "escalation_frames", "resolver"})
    text = (report / "report.md").read_text()
    assert _check_table_against_scores(text, scores) >= 8
    labels, rows = _markdown_table(text)
    assert {"Nat.Acc", "ECE", "MCI", "CFR C1", "KDI"} <= set(labels)
    # data quality counts, recomputed here from the parquet: failed requests (400s) and truncations ("length")
    trials = pl.concat([pl.read_parquet(p) for p in (dataset / "data" / "trials_exp1").glob("*.parquet")])
    for channel in trials["channel"].unique().to_list():
        part = trials.filter(pl.col("channel") == channel)
        failed, truncated = part["api_error"].is_not_null().sum(), part["truncated"].fill_null(False).sum()
        assert re.search(rf"\| exp1 \| {channel} \| {part.height} \| [^|]+ \| {truncated}\b[^|]* \| {failed}\b", text), channel
    assert "max_tokens 1024" in text and "temperature 0.0" in text and "matcher strict" in text


def test_model_with_only_exp1_gets_its_row_and_reliability_diagram(tmp_path):
    root = tmp_path / "mirror"
    rng = np.random.default_rng(3)
    rows = []
    for model in ("solo", "both"):
        for q in range(40):
            for channel in ("natural", "wagering"):
                row = empty_row(TRIAL_EXP1_FEATURES)
                bet = int(rng.integers(1, 11))
                row.update(run_id="r", model=model, experiment="exp1", item_id=f"q{q}",
                           domain=["arithmetic", "spatial", "social", "logical"][q % 4],
                           channel=channel, correct=bool(rng.random() < 0.6), bet=bet if channel == "wagering" else None,
                           raw_response=f"ANSWER: {q}", parse_success=True)
                rows.append(row)
    write_split(root, "trials_exp1", "both_models", rows, TRIAL_EXP1_FEATURES)
    exp9 = []
    for t in range(6):
        row = empty_row(TRIAL_EXP9_FEATURES)
        row.update(run_id="r", model="both", experiment="exp9", item_id=f"t{t}", condition="C1", paradigm="P1", task_type="fixed",
                   is_false_score_control=False, api_success=True, domain_a="arithmetic", domain_b="spatial",
                   strength_a="weak", strength_b="strong", component_a_decision="proceed", component_b_decision="proceed",
                   component_a_correct=t % 2 == 0, component_b_correct=True)
        exp9.append(row)
    write_split(root, "trials_exp9", "both", exp9, TRIAL_EXP9_FEATURES)
    out = tmp_path / "report"
    _, scores = _report(root, out, "--weak-policy", "recorded")
    labels, table = _markdown_table((out / "report.md").read_text())
    solo = dict(zip(labels, table["solo"]))
    assert solo["CFR C1"].startswith("—") and solo["KDI"].startswith("—") and NUMBER.search(solo["Nat.Acc"])
    assert solo["CFR C1"] == "— (1)" and "(1) no trials" in (out / "report.md").read_text()  # issue 29: the dash says why
    assert not dict(zip(labels, table["both"]))["CFR C1"].startswith("—")
    assert (out / "figures" / "reliability_solo.png").is_file() and (out / "figures" / "reliability_solo.svg").is_file()
    _png_ok(out / "figures" / "reliability_solo.png")


def test_empty_folder_is_one_line_and_exit_2(tmp_path):
    (tmp_path / "empty" / "data").mkdir(parents=True)
    out = tmp_path / "report"
    proc = cli_inproc("report", "--dataset", str(tmp_path / "empty"), "--out", str(out), check=False)
    assert proc.returncode == 2 and proc.stderr.startswith("error: ") and proc.stderr.count("\n") == 1
    assert "holds no trials" in proc.stderr and not out.exists()
    assert [p.name for p in tmp_path.iterdir()] == ["empty"]  # no staging folder left behind
    proc = cli_inproc("report", "--dataset", str(tmp_path / "nowhere"), "--out", str(out), check=False)
    assert proc.returncode == 2 and "not a dataset folder" in proc.stderr


def test_report_k_reaches_the_weak_domain_policy_as_score_k_does(run_report, tmp_path):
    """`report --k` is `score --k`: with bottom-k weak domains, the table shows `score --k 4`'s numbers,
    and those differ from the default k's (so a report that dropped --k would fail here)."""
    dataset = run_report[0]
    policy = ("--weak-policy", "bottom_k")
    default = tmp_path / "k2.json"
    cli_inproc("score", "--dataset", str(dataset), "--json", str(default), "--resamples", RESAMPLES, *policy)
    proc, scores = _report(dataset, tmp_path / "report", *policy, "--k", "4")
    text = (tmp_path / "report" / "report.md").read_text()
    assert _check_table_against_scores(text, scores) >= 8
    assert scores["settings"]["k"] == 4
    with pytest.raises(AssertionError):  # the default k's numbers are not the table's
        _check_table_against_scores(text, json.loads(default.read_text()))


def test_score_prints_a_readable_table(run_report):
    dataset = run_report[0]
    proc = cli_inproc("score", "--dataset", str(dataset), "--resamples", RESAMPLES)
    assert "Nat.Acc ↑" in proc.stdout and "CFR C1 ↓" in proc.stdout and "acme/fake-1" in proc.stdout
    assert re.search(r"\[\d\.\d{3}, \d\.\d{3}\]", proc.stdout) and re.search(r"n \d+", proc.stdout)
    assert not proc.stdout.lstrip().startswith("{")


# ------------------------------------------------------------------------------ the real browser


@pytest.fixture(scope="module")
def browser():
    from cdp import Browser, find_chromium

    executable = find_chromium()
    if executable is None:
        pytest.skip("no Chromium on this machine (install it: apt-get install -y chromium); the page test needs a real browser")
    b = Browser(executable)
    yield b
    b.close()


def _upstream_report_if_there(request) -> list:
    """The imported-upstream report where the authors' files are present; the page test runs on the
    scripted-server report either way (it is the browser test of the default run)."""
    try:
        return [request.getfixturevalue("upstream_report")]
    except pytest.skip.Exception as exc:
        print(f"page test on the run report only: {exc}")
        return []


def test_page_opens_without_errors_and_the_trial_browser_filters(browser, run_report, request, tmp_path):
    for dataset, report, _, _ in (run_report, *_upstream_report_if_there(request)):
        browser.errors.clear()
        browser.open(report / "index.html")
        browser.wait_for("document.querySelectorAll('#trials .trial').length > 0")
        shot = browser.screenshot(tmp_path / f"{report.parent.name}.png")
        _png_ok(shot)
        assert browser.errors == [], browser.errors
        assert (browser.evaluate("document.querySelectorAll('#main-table tbody tr').length") == len(run_report[3]["models"])
                if report == run_report[1] else True)
        browser.evaluate("document.querySelectorAll('img').forEach(i => { i.loading = 'eager'; })")  # lazy below the fold
        browser.wait_for("Array.from(document.images).every(i => i.complete)")
        figures = browser.evaluate("Array.from(document.images).map(i => [i.naturalWidth, i.getAttribute('src')])")
        assert figures and all(w > 0 for w, _ in figures), figures  # every figure loaded

    # filter the run's Exp1 split: wrong answers of one channel; the count is recomputed from the parquet
    dataset, report = run_report[0], run_report[1]
    trials = pl.concat([pl.read_parquet(p) for p in (dataset / "data" / "trials_exp1").glob("*.parquet")])
    browser.open(report / "index.html")
    browser.wait_for("document.querySelectorAll('#trials .trial').length > 0")
    key = browser.evaluate("DATASETS.find(d => d.experiment === 'exp1').key")
    browser.evaluate(f"(async () => {{ const s = document.getElementById('f-dataset'); s.value = {json.dumps(key)}; "
                     f"await selectDataset(s.value); }})()")

    def choose(select_id: str, label: str) -> None:
        found = browser.evaluate(f"""(() => {{ const s = document.getElementById('{select_id}');
            const o = Array.from(s.options).find(o => o.textContent === {json.dumps(label)}); if (!o) return false;
            s.value = o.value; s.dispatchEvent(new Event('change')); return true; }})()""")
        assert found, f"{select_id} has no option {label!r}"

    for channel in ("wagering", "natural"):
        choose("f-group", channel)
        choose("f-status", "wrong")
        expected = trials.filter((pl.col("channel") == channel) & (pl.col("correct") == False) & pl.col("api_error").is_null())  # noqa: E712
        browser.wait_for(f"document.getElementById('count').textContent.startsWith('{expected.height} of ')")
        rows = browser.evaluate("Array.from(document.querySelectorAll('#trials .trial')).map(t => "
                                "[t.dataset.status, t.dataset.group, t.querySelector('summary').firstChild.textContent])")
        assert len(rows) == min(50, expected.height)
        assert all(status == "wrong" and group == channel for status, group, _ in rows)
        assert {item for _, _, item in rows} <= set(expected["item_id"].to_list())
    choose("f-status", "failed")
    failed = trials.filter((pl.col("channel") == "natural") & pl.col("api_error").is_not_null())
    browser.wait_for(f"document.getElementById('count').textContent.startsWith('{failed.height} of ')")
    # open one trial: prompt, raw response and parsed fields are shown
    choose("f-status", "all")
    browser.wait_for("document.querySelectorAll('#trials .trial').length > 0")
    shown = browser.evaluate("(() => { const d = document.querySelector('#trials .trial'); d.open = true; return d.innerText; })()")
    assert "prompt" in shown and "raw response" in shown and "parsed fields" in shown and "gold" in shown
    assert browser.errors == [], browser.errors
    browser.screenshot(tmp_path / "filtered.png")


# ------------------------------------------------------------------------------ the embedded model


@pytest.mark.slow
@pytest.mark.embedded
@pytest.mark.timeout(2400)
def test_quickstart_ends_with_the_report(dataset):
    """The README's main job on the embedded model: it ends with the report, its path and the next steps."""
    from mirror_hf import embedded

    try:
        embedded.check_available()
    except embedded.EmbeddedUnavailable as exc:
        pytest.skip(f"embedded model not installed: {exc}")
    proc = cli_inproc("quickstart", "--dataset", str(dataset), "--per-domain", "1", "--exp3-tasks", "1", "--exp9-tasks", "1",
                      "--max-tokens", "24", "--no-progress")
    report = dataset.parent / f"{dataset.name}-report"
    assert f"report: {report / 'index.html'}" in proc.stdout
    assert "--api-key-env" in proc.stdout and "mirror-hf push" in proc.stdout and "localhost:11434/v1" in proc.stdout
    _, scores = _report(dataset, dataset.parent / "again")
    _check_table_against_scores((dataset.parent / "again" / "report.md").read_text(), scores)
    assert (report / "report.md").is_file()
    # the tiny model rarely writes a parseable bet: the diagram is drawn exactly when the wager was scored
    has_bins = bool(scores["models"]["smollm2"].get("exp1", {}).get("reliability"))
    assert (report / "figures" / "reliability_smollm2.png").is_file() == has_bins
    if not has_bins:
        assert "Reliability diagrams: not drawn" in (report / "report.md").read_text()


def test_report_with_a_model_table_shows_exp8_as_score_does(tmp_path):
    """`report --models TABLE`: the Exp8 rows are `score --models TABLE --json`'s scaling fits, printed
    number for number, and the scaling figure is drawn (titled, labelled, not blank)."""
    root = tmp_path / "mirror"
    rng = np.random.default_rng(11)
    sizes = {"tiny-1b": ("toy", "1B", 0.35), "tiny-8b": ("toy", "8B", 0.55), "tiny-70b": ("toy", "70B", 0.8),
             "other-3b": ("solo", "3B", 0.5)}
    for model, (_, _, skill) in sizes.items():
        rows = []
        for q in range(48):
            for channel in ("natural", "wagering"):
                row = empty_row(TRIAL_EXP1_FEATURES)
                row.update(run_id="r", model=model, experiment="exp1", item_id=f"q{q}",
                           domain=["arithmetic", "spatial", "social", "logical"][q % 4],
                           channel=channel, correct=bool(rng.random() < skill),
                           bet=int(rng.integers(1, 11)) if channel == "wagering" else None,
                           raw_response=f"ANSWER: {q}", parse_success=True)
                rows.append(row)
        write_split(root, "trials_exp1", model.replace("-", "_"), rows, TRIAL_EXP1_FEATURES)
    table = tmp_path / "models.csv"
    table.write_text("model,family,parameters\n" + "".join(f"{m},{f},{p}\n" for m, (f, p, _) in sizes.items()))
    out = tmp_path / "report"
    _, scores = _report(root, out, "--models", str(table))
    fits = scores["aggregate"]["scaling"]
    text = (out / "report.md").read_text()
    section = text.split("## Exp8: scaling", 1)[1].split("\n## ", 1)[0]
    lines = [line for line in section.splitlines() if line.startswith("| ") and not line.startswith("| headline")]
    labels = {"exp1_natural_accuracy": "Exp1 natural accuracy", "exp1_mirror_gap": "Mirror gap"}
    checked = 0
    for key, label in labels.items():
        row = next(line for line in lines if line.startswith(f"| {label} | toy |"))
        cells = [c.strip() for c in row.strip("|").split("|")]
        slope = fits[key]["toy"]["slope"]
        assert cells[2] == "3" and NUMBER.findall(cells[3]) == [f"{v:.3f}" for v in [slope["value"], *slope.get("ci", [])]], (row, slope)
        assert NUMBER.findall(cells[4]) == [f"{fits[key]['toy']['r2']['value']:.3f}"]
        checked += 1
    solo = next(line for line in lines if line.startswith("| Exp1 natural accuracy | solo |"))
    assert "| 1 | —" in solo  # one model: no fit
    print(f"{checked} Exp8 slopes match score --json; "
          f"natural-accuracy slope per 10x: {fits['exp1_natural_accuracy']['toy']['slope']['value']:.3f}")
    assert fits["exp1_natural_accuracy"]["toy"]["slope"]["value"] > 0  # the planted skills rise with size
    _png_ok(out / "figures" / "scaling.png")
    texts = " ".join(_svg_texts(out / "figures" / "scaling.svg"))
    for word in ("Exp8 scaling", "parameters (count, log scale)", "Exp1 natural accuracy", "toy: slope", "per 10x"):
        assert word in texts, word
    proc = cli_inproc("report", "--dataset", str(root), "--out", str(tmp_path / "r2"), "--models", str(tmp_path / "none.csv"), check=False)
    assert proc.returncode == 2 and proc.stderr.count("\n") == 1 and not (tmp_path / "r2").exists()



def test_exp6b_flaw_detection_is_a_column(tmp_path):
    """FDR reaches the main table through its headline (`exp6b_fdr`): the column that once read a path
    no scorer writes (exp6) shows the number `score --json` gives, and that number is the share of
    flawed instructions flagged, counted here by hand; a folder with Exp6b trials only is reported."""
    from mirror_hf.records import TRIAL_EXP6B_FEATURES

    labels_by_trial = ["FULL_PUSHBACK", "BLIND_EXECUTION", "EXECUTE_WITH_CAVEAT", "BLIND_EXECUTION", "UNPROMPTED_PUSHBACK"] * 6
    rows = []
    for i, label in enumerate(labels_by_trial):
        row = empty_row(TRIAL_EXP6B_FEATURES)
        row.update(run_id="r", model="acme/fake-1", experiment="exp6b", item_id=f"f{i}", channel="label", is_flawed=i % 3 != 0,
                   response_type=label, raw_response=f"RESPONSE_TYPE: {label}", parse_success=True)
        rows.append(row)
    root = tmp_path / "mirror"
    write_split(root, "trials_exp6b", "acme_fake_1", rows, TRIAL_EXP6B_FEATURES)
    out = tmp_path / "report"
    _, scores = _report(root, out)
    text = (out / "report.md").read_text()
    labels, _ = _markdown_table(text)
    assert labels == ["FDR"], labels
    flawed = [r["response_type"] != "BLIND_EXECUTION" for r in rows if r["is_flawed"]]
    fdr = scores["models"]["acme/fake-1"]["exp6b"]["fdr"]
    print(f"FDR in the table: {fdr['value']:.3f} (by hand {sum(flawed) / len(flawed):.3f}, n {fdr['n']})")
    assert fdr["value"] == pytest.approx(sum(flawed) / len(flawed))
    assert _check_table_against_scores(text, scores) == 1
