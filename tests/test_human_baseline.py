"""The human baseline end to end: the questionnaire driven in a real headless Chromium (every step
answered by script, the page closed and reopened half-way, the response file downloaded), its
import graded as the script entered, `score` with the participant's Nat.Acc and CFR; the packet
holds no gold; five planted participants and the "humans (mean)" row; every refusal of
`import-human` through the CLI; the authors' simulated cohort flagged everywhere."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import polars as pl
import pytest
from human_script import plan, response_file

RESAMPLES = "400"


def cli(*args: str, ok: bool = True) -> subprocess.CompletedProcess:
    """`mirror-hf ARGS` through the console script's own `main()`, in this interpreter (fast)."""
    from runner_fixtures import cli_inproc

    proc = cli_inproc(*args, env={"COLUMNS": "200"}, check=False)
    if ok:
        assert proc.returncode == 0, proc.stderr
    return proc


@pytest.fixture(scope="module")
def study(built_folder, tmp_path_factory):
    """A copy of the session's small build and a small packet of it (5 questions per domain, 1 task per pair)."""
    root = tmp_path_factory.mktemp("human") / "mirror"
    shutil.copytree(built_folder, root)
    out = root.parent / "packet"
    proc = cli("human-packet", "--dataset", str(root), "--out", str(out), "--exp1-per-domain", "5", "--exp9-per-pair", "1")
    assert "packet_hash" in proc.stdout
    return root, out, json.loads((out / "packet.json").read_text())


def _files(root: Path) -> dict[str, str]:
    return {str(p.relative_to(root)): (p.stat().st_size, p.stat().st_mtime_ns) for p in sorted(root.rglob("*"))}


# ------------------------------------------------------------------------------ the packet itself


def test_packet_items_are_the_runners_and_hold_no_gold(study):
    root, out, packet = study
    from mirror_hf.experiments import get
    from mirror_hf.runner.plan import PlanOptions

    exp1 = [i for i in packet["items"] if i["experiment"] == "exp1"]
    run = get("exp1").plan(root, PlanOptions(limit=len(exp1), channels=("natural",)))
    assert {i["item_id"] for i in exp1} == {j.item_id for j in run.jobs}  # the items `run --limit 8` sends
    allowed = {"item_id", "experiment", "channels", "text", "choices", "tasks", "condition", "paradigm", "parts"}
    from mirror_hf.records import Question
    from mirror_hf.runner.plan import read_config

    bank = {r["id"]: Question.from_row(r) for r in read_config(root, "questions", needed_for="test")}
    page = (out / "index.html").read_text()
    shown_texts = []
    for item in packet["items"]:
        assert set(item) <= allowed, set(item) - allowed  # no answer, gold, alias or letter key
        shown_texts += [item["text"], *item.get("choices", [])]
        for sub in (*item.get("tasks", {}).values(), *item.get("parts", {}).values()):
            shown_texts += [sub["text"], *sub["choices"]]
    # the gold may be one of the choices shown (the model sees them too), never anywhere else: cut every
    # shown text out of the packet and the page, then no gold (4+ characters) is left in either
    rests = []
    for text in (json.dumps(packet, ensure_ascii=False), page):
        for shown in sorted(set(shown_texts), key=len, reverse=True):
            text = text.replace(json.dumps(shown, ensure_ascii=False)[1:-1], "").replace(shown, "")
        rests.append(text)
    tasks = {t["task_id"]: t for t in read_config(root, "exp9_fixed", needed_for="test")}
    checked = 0
    for item in packet["items"]:
        if item["experiment"] == "exp1":
            answers = [bank[item["item_id"]].answer]
        else:
            answers = [tasks[item["item_id"]][f"correct_answer_{c[-1]}"] for c in item["channels"]]
        for answer in answers:
            if len(answer) >= 4:
                assert all(answer not in rest for rest in rests), (item["item_id"], answer)
                checked += 1
    assert checked >= len(packet["items"]) // 2, checked  # most golds are long enough to be searched for
    assert packet["packet_hash"] in page and "http://" not in page.replace("http://www.w3.org", "") and "https://" not in page


# ------------------------------------------------------------------------------ the real browser


@pytest.fixture(scope="module")
def browser():
    from cdp import Browser, find_chromium

    executable = find_chromium()
    if executable is None:
        pytest.skip("no Chromium on this machine (apt-get install -y chromium); the questionnaire test needs a real browser")
    b = Browser(executable)
    yield b
    b.close()


KEYS = {"Enter": ("Enter", "Enter", 13, "\r"), "Tab": ("Tab", "Tab", 9, None), "Space": (" ", "Space", 32, " "),
        "ArrowDown": ("ArrowDown", "ArrowDown", 40, None)}


def press(browser, name: str) -> None:
    """One key, as a keyboard sends it (keyDown with its text, keyUp)."""
    key, code, vk, text = KEYS[name]
    browser.send("Input.dispatchKeyEvent", type="keyDown", key=key, code=code, windowsVirtualKeyCode=vk, **({"text": text} if text else {}))
    browser.send("Input.dispatchKeyEvent", type="keyUp", key=key, code=code, windowsVirtualKeyCode=vk)


FILL = """(r => {
  const f = document.getElementById('step');
  const set = (name, v) => { const radio = f.querySelector(`input[name="${name}"][value="${v}"]`);
    if (radio) { radio.checked = true; radio.dispatchEvent(new Event('change', {bubbles: true})); return; }
    const text = f.querySelector(`input[type=text][name="${name}"]`); text.value = v; };
  if (r.skipped !== undefined) set('skip', r.skipped ? 'yes' : 'no');
  if (r.choice) set('choice', r.choice);
  if (r.decision) set('decision', r.decision);
  if (r.answer !== null && r.answer !== undefined) set('answer', r.answer);
  if (r.wager) f.querySelector('#wager').value = String(r.wager);
  f.querySelector('#next').click();
  return true; })"""


def test_questionnaire_in_chromium_imports_as_entered_and_scores(study, browser, tmp_path):
    root, out, packet = study
    planned = {(r["item_id"], r["channel"]): r for r in plan(packet, root, 0.5, seed=3)}
    total = len(planned)
    browser.send("Network.enable")
    browser.errors.clear()
    browser.open(out / "index.html")
    browser.evaluate("localStorage.clear()")
    browser.open(out / "index.html")
    browser.wait_for("document.getElementById('participant') !== null")
    assert browser.evaluate("document.activeElement.id") == "participant"  # keyboard: focus is where typing goes
    browser.send("Input.insertText", text="P01")  # the first two steps by keyboard alone
    press(browser, "Enter")
    browser.wait_for("document.getElementById('step') !== null")
    for _ in range(2):
        key = tuple(browser.evaluate("[document.getElementById('step').dataset.item, document.getElementById('step').dataset.channel]"))
        want = planned[key]
        assert key[1] in ("natural", "wagering"), key
        radios = browser.evaluate("document.querySelectorAll('#step input[name=answer][type=radio]').length")
        if radios:
            press(browser, "Space")  # the focused first option (A)
            for _ in range("ABCDEFGH".index(want["answer"])):
                press(browser, "ArrowDown")
        else:
            browser.send("Input.insertText", text=want["answer"])
        if key[1] == "wagering":
            press(browser, "Tab")  # to the bet
            for _ in range(want["wager"]):
                press(browser, "ArrowDown")
        press(browser, "Tab")  # to Next
        press(browser, "Enter")
        browser.wait_for(f"JSON.parse(localStorage.getItem('mirror-hf-human:{packet['packet_hash']}')).responses.length > 0"
                         f" && document.getElementById('where').textContent.startsWith('Step {2 if key[1] == 'natural' else 3} ')")
    typed = browser.evaluate(f"JSON.parse(localStorage.getItem('mirror-hf-human:{packet['packet_hash']}')).responses")
    first = typed[0]["item_id"]
    assert [(r["channel"], r["answer"], r.get("wager")) for r in typed] == [
        (k[1], planned[k]["answer"], planned[k].get("wager")) for k in [(first, "natural"), (first, "wagering")]]
    browser.send("Emulation.setDeviceMetricsOverride", width=360, height=740, deviceScaleFactor=2, mobile=True)  # a phone
    done = 2
    while browser.evaluate("document.getElementById('step') !== null"):
        assert browser.evaluate("document.documentElement.scrollWidth") <= 360  # every step fits the phone's width
        key = tuple(browser.evaluate("[document.getElementById('step').dataset.item, document.getElementById('step').dataset.channel]"))
        assert browser.evaluate("document.activeElement && ['INPUT', 'SELECT'].includes(document.activeElement.tagName)")
        r = {k: v for k, v in planned[key].items() if not k.startswith("_") and k != "response_ms"}
        browser.evaluate(f"({FILL})({json.dumps(r)})")
        done += 1
        if done == total // 2:  # close the page and open it again: the progress is kept
            browser.send("Page.navigate", url="about:blank")
            browser.wait_for("document.readyState === 'complete' && location.href === 'about:blank'")
            browser.open(out / "index.html")
            browser.wait_for("document.getElementById('where') !== null")
            assert browser.evaluate("document.getElementById('where').textContent") == f"Step {done + 1} of {total}"
        assert done <= total
    assert done == total
    browser.wait_for("document.getElementById('export') !== null")
    assert browser.evaluate("document.documentElement.scrollWidth") <= 360
    browser.send("Emulation.clearDeviceMetricsOverride")
    downloads = tmp_path / "downloads"
    downloads.mkdir()
    browser.send("Browser.setDownloadBehavior", behavior="allow", downloadPath=str(downloads))
    browser.evaluate("document.getElementById('export').click(); true")
    target = downloads / "P01.json"
    browser.loop.run_until_complete(__import__("asyncio").sleep(0.2))
    for _ in range(100):
        if target.is_file() and target.stat().st_size:
            break
        browser.loop.run_until_complete(__import__("asyncio").sleep(0.1))
    exported = json.loads(target.read_text())
    assert browser.errors == [], browser.errors
    requests = [e["params"]["request"]["url"] for e in browser._events if e.get("method") == "Network.requestWillBeSent"]
    assert requests and all(u.startswith(("file://", "about:", "blob:")) for u in requests), requests
    assert all(u.endswith("index.html") for u in requests if u.startswith("file://"))
    assert exported["participant"] == "P01" and exported["finished"] is True and exported["packet_hash"] == packet["packet_hash"]
    assert len(exported["responses"]) == total and all(r["response_ms"] >= 0 for r in exported["responses"])

    proc = cli("import-human", str(target), "--dataset", str(root))
    assert "imported participant P01" in proc.stdout
    e1 = pl.read_parquet(next((root / "data" / "trials_exp1").glob("p01-*.parquet")))
    e9 = pl.read_parquet(next((root / "data" / "trials_exp9").glob("p01-*.parquet")))
    for row in e1.iter_rows(named=True):
        want = planned[(row["item_id"], row["channel"])]
        assert row["answer"] == want["answer"] and row["correct"] == want["_correct"], (row["item_id"], row["channel"])
        assert row["bet"] == want.get("wager") and row["skipped"] == want.get("skipped") and row["choice"] == want.get("choice")
    for row in e9.iter_rows(named=True):
        for slot in "ab":
            want = planned[(row["item_id"], f"component_{slot}")]
            assert (row[f"component_{slot}_decision"], row[f"component_{slot}_answer"], row[f"component_{slot}_correct"]) == (
                want["decision"], want["answer"], want["_correct"])
    assert e1.height + 2 * e9.height == total

    scores = tmp_path / "scores.json"
    cli("score", "--dataset", str(root), "--json", str(scores), "--resamples", RESAMPLES)
    result = json.loads(scores.read_text())
    person = result["models"]["P01"]
    # Nat.Acc, recomputed from what the script entered: macro mean over domains of the natural channel
    natural = [r for r in planned.values() if r["channel"] == "natural"]
    domain = {row["item_id"]: row["domain"] for row in e1.iter_rows(named=True)}
    by_domain: dict[str, list[bool]] = {}
    for r in natural:
        by_domain.setdefault(domain[r["item_id"]], []).append(r["_correct"])
    accuracy = {d: sum(v) / len(v) for d, v in by_domain.items()}
    assert person["exp1"]["natural_accuracy"]["value"] == pytest.approx(sum(accuracy.values()) / len(accuracy))
    assert len(person["exp1"]["natural_accuracy"]["ci"]) == 2
    # CFR C1: weak domains by the paper's rule (below the median, else the bottom two), proceed-and-wrong share
    values = sorted(accuracy.values())
    median = (values[3] + values[4]) / 2
    weak = {d for d, a in accuracy.items() if a < median} or set(sorted(accuracy, key=lambda d: (accuracy[d], d))[:2])
    assert sorted(weak) == result["participants"]["P01"]["weak_domains"]["weak_domains"]
    comps = [(planned[(row["item_id"], f"component_{s}")], row[f"domain_{s}"]) for row in e9.iter_rows(named=True) for s in "ab"]
    weak_comps = [r for r, d in comps if d in weak]
    fails = sum(1 for r in weak_comps if r["decision"] == "proceed" and r["_correct"] is False)
    cfr = person["exp9"]["cfr"]["C1"]
    assert cfr["n"] == len(weak_comps) and cfr["value"] == pytest.approx(fails / len(weak_comps)) and len(cfr["ci"]) == 2
    assert result["participants"]["P01"]["kind"] == "human" and "humans (mean)" in result["models"]
    print(f"browser participant: {total} steps; Nat.Acc {person['exp1']['natural_accuracy']}; CFR C1 {cfr}")


# ------------------------------------------------------------------------------ five planted participants


def test_humans_mean_recovers_the_planted_mean(built_folder, tmp_path):
    root = tmp_path / "mirror"
    shutil.copytree(built_folder, root)
    cli("human-packet", "--dataset", str(root), "--out", str(tmp_path / "packet"), "--exp1-per-domain", "5", "--exp9-per-pair", "1")
    packet = json.loads((tmp_path / "packet" / "packet.json").read_text())
    planted = {"H1": 0.4, "H2": 0.6, "H3": 0.6, "H4": 0.8, "H5": 1.0}
    files = []
    for i, (pid, accuracy) in enumerate(planted.items()):
        path = tmp_path / f"{pid}.json"
        steps = plan(packet, root, accuracy, seed=i)
        # H5 stops after a third of the steps: a mean over participants, not pooled over trials, stays on target
        doc = response_file(packet, pid, steps[: len(steps) // 3], finished=False) if pid == "H5" else response_file(packet, pid, steps)
        path.write_text(json.dumps(doc))
        files.append(str(path))
    cli("import-human", *files, "--dataset", str(root))
    cli("report", "--dataset", str(root), "--out", str(tmp_path / "report"), "--resamples", "200")
    result = json.loads((tmp_path / "report" / "scores.json").read_text())
    mean = result["models"]["humans (mean)"]["exp1"]["natural_accuracy"]
    target = sum(planted.values()) / len(planted)
    lo, hi = mean["ci"]
    print(f"humans (mean) Nat.Acc {mean['value']:.3f} [{lo:.3f}, {hi:.3f}] over {mean['n']} participants; planted mean {target:.3f}")
    assert mean["n"] == 5 and lo <= target <= hi and mean["value"] == pytest.approx(target) and lo < hi
    for pid, accuracy in planted.items():
        assert result["models"][pid]["exp1"]["natural_accuracy"]["value"] == pytest.approx(accuracy)
    assert all(result["participants"][p]["weak_domains"]["policy"] == "median_or_bottom_k" for p in planted)
    other = tmp_path / "bottom3.json"  # the people's weak-domain rule is a named option of score and report
    cli("score", "--dataset", str(root), "--json", str(other), "--resamples", "0", "--human-weak-policy", "bottom_k", "--k", "3")
    from test_headline import _check

    from mirror_hf.scoring import ScoreResult

    _check(json.loads(other.read_text()), ScoreResult, "result")  # the typed schema of score --json, participants included
    people = json.loads(other.read_text())["participants"]
    assert all(len(people[p]["weak_domains"]["weak_domains"]) == 3 and people[p]["weak_domains"]["policy"] == "bottom_k" for p in planted)
    page = (tmp_path / "report" / "index.html").read_text()
    assert "humans (mean)" in page and "H1 (human)" in page  # the main table, beside the models
    browser_index = (tmp_path / "report" / "trials" / "exp1__H1" / "index.js").read_text()
    assert '"model":"H1 (human)"' in browser_index  # the trial browser says who answered


# ------------------------------------------------------------------------------ refusals, through the CLI


@pytest.fixture
def refusal_case(study, tmp_path):
    root, out, packet = study
    target = tmp_path / "mirror"
    shutil.copytree(root, target)
    good = response_file(packet, "R01", plan(packet, target, 0.5, seed=9))
    return target, packet, good


def _refused(root: Path, tmp_path: Path, *documents: dict, extra: tuple[str, ...] = ()) -> str:
    files = []
    for i, doc in enumerate(documents):
        path = tmp_path / f"file{i}.json"
        path.write_text(json.dumps(doc))
        files.append(str(path))
    before = _files(root)
    proc = cli("import-human", *files, "--dataset", str(root), *extra, ok=False)
    assert proc.returncode == 2, proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and "Traceback" not in proc.stderr, proc.stderr
    assert _files(root) == before  # nothing written
    return lines[0]


def test_refuses_a_file_from_another_packet(refusal_case, tmp_path, study):
    root, packet, good = refusal_case
    other = json.loads(json.dumps(good))
    other["packet_settings"] = {**packet["settings"], "seed": 7}
    from mirror_hf.human.packet import PacketSettings, build_packet

    other["packet_hash"] = build_packet(root, PacketSettings.from_json(other["packet_settings"], "test"))["packet_hash"]
    other["participant"] = "R02"
    line = _refused(root, tmp_path, good, other)
    assert "file1.json" in line and "packet_hash" in line and "another packet" in line
    foreign = {**good, "build_hash": "0123456789abcdef"}
    line = _refused(root, tmp_path, foreign)
    assert "build_hash" in line and "another packet" in line


def test_refuses_a_tampered_hash(refusal_case, tmp_path):
    root, packet, good = refusal_case
    line = _refused(root, tmp_path, {**good, "packet_hash": "f" * 64})
    assert "file0.json" in line and "packet_hash" in line and "changed" in line
    changed = json.loads(json.dumps(packet))  # a packet.json edited after it was made (--packet)
    changed["items"][0]["text"] += " (edited)"
    edited = tmp_path / "packet.json"
    edited.write_text(json.dumps(changed))
    line = _refused(root, tmp_path, good, extra=("--packet", str(edited)))
    assert "packet.json" in line and "packet_hash" in line and "changed" in line


def test_refuses_a_duplicate_participant(refusal_case, tmp_path):
    root, packet, good = refusal_case
    line = _refused(root, tmp_path, good, good)
    assert "file1.json" in line and "participant" in line and "duplicate" in line
    ok = tmp_path / "ok.json"
    ok.write_text(json.dumps(good))
    cli("import-human", str(ok), "--dataset", str(root))
    line = _refused(root, tmp_path, good)
    assert "already in the folder" in line and "participant" in line


def test_refuses_extra_and_missing_items_and_imports_a_partial_file(refusal_case, tmp_path):
    root, packet, good = refusal_case
    extra = json.loads(json.dumps(good))
    extra["responses"].append({**extra["responses"][0], "item_id": "not.an.item"})
    line = _refused(root, tmp_path, extra)
    assert "responses[" in line and "item_id" in line and "extra" in line
    twice = json.loads(json.dumps(good))
    twice["responses"].append(twice["responses"][0])
    assert "answered twice" in _refused(root, tmp_path, twice)
    missing = json.loads(json.dumps(good))
    del missing["responses"][3:6]
    line = _refused(root, tmp_path, missing)
    assert "field 'responses'" in line and "3 step(s) of the packet missing" in line
    no_wager = json.loads(json.dumps(good))
    wager = next(r for r in no_wager["responses"] if r["channel"] == "wagering")
    del wager["wager"]
    assert "field 'wager' missing" in _refused(root, tmp_path, no_wager)
    # a partial (unfinished) file imports what it answers, the rest counted as missing, never invented
    partial = {**missing, "finished": False}
    path = tmp_path / "partial.json"
    path.write_text(json.dumps(partial))
    proc = cli("import-human", str(path), "--dataset", str(root))
    assert "3 step(s) missing (unfinished)" in proc.stdout
    rows = sum(pl.read_parquet(p).height for c in ("trials_exp1",) for p in (root / "data" / c).glob("r01-*.parquet"))
    exp1_answered = sum(1 for r in partial["responses"] if r["experiment"] == "exp1")
    assert rows == exp1_answered


# ------------------------------------------------------------------------------ the authors' simulated cohort


def test_the_authors_simulated_cohort_is_flagged_everywhere(upstream_dir, tmp_path):
    packet = upstream_dir / "audit" / "human_baseline_packet"
    if not packet.is_dir():
        pytest.skip(f"the authors' human-baseline packet is not at {packet}")
    out = tmp_path / "up"
    proc = cli("import-upstream", str(packet), "--out", str(out))
    assert "not human data" in proc.stdout
    card = (out / "README.md").read_text()
    assert "AI-simulated participants" in card and card.count("(AI-simulated, not human)") >= 40
    scores = tmp_path / "s.json"
    cli("score", "--dataset", str(out), "--json", str(scores), "--resamples", "0")
    result = json.loads(scores.read_text())
    people = {m: p for m, p in result["participants"].items() if m != "AI-simulated humans (mean)"}
    assert len(people) == 20 and all(p["kind"] == "ai_simulated_human" and "not human" in p["warning"] for p in people.values())
    assert "humans (mean)" not in result["models"]  # a simulated cohort never makes a human row
    mean = result["models"]["AI-simulated humans (mean)"]
    # their summary: participant-mean Nat.Acc 1.000, CFR 0.000 over 2,820 weak components (bottom-2 fallback)
    assert mean["exp1"]["natural_accuracy"]["value"] == 1.0 and mean["exp9"]["cfr"]["C1"]["value"] == 0.0
    assert sum(result["models"][m]["exp9"]["cfr"]["C1"]["n"] for m in people) == 2820
    assert all(p["weak_domains"]["weak_domains"] == ["arithmetic", "factual"] for p in people.values())
    cli("report", "--dataset", str(out), "--out", str(tmp_path / "report"), "--resamples", "0")
    page = (tmp_path / "report" / "index.html").read_text()
    assert "WARNING: AI-simulated by the authors" in page and "sim_H01 (AI-simulated, not human)" in page
    assert page.count("collection_mode: ai_simulated_human_roleplay") >= 21  # the note and each data-quality block


# ------------------------------------------------------------------------------ humans beside models


def _mixed_result() -> dict:
    """A score result with two models over C1-C4 and three participants at C1, built with the suite's
    own aggregate and mean functions (the report only reads it)."""
    from mirror_hf.experiments import all_headlines
    from mirror_hf.scoring import participant_mean
    from mirror_hf.scoring._escalation import escalation_curve, escalation_to_json

    def cfr(values: dict) -> dict:
        return {"exp1": {"natural_accuracy": {"value": 0.7, "n": 40, "ci": [0.6, 0.8]}},
                "exp9": {"cfr": {c: {"value": v, "n": 30, "ci": [max(0, v - 0.1), min(1, v + 0.1)]} for c, v in values.items()}}}

    models = {"m1": cfr({"C1": 0.4, "C2": 0.3, "C3": 0.2, "C4": 0.1}), "m2": cfr({"C1": 0.5, "C2": 0.45, "C3": 0.3, "C4": 0.2})}
    people = {"P1": cfr({"C1": 0.0}), "P2": cfr({"C1": 0.1}), "P3": cfr({"C1": 0.05})}
    curve = escalation_curve({m: {c: e["value"] for c, e in v["exp9"]["cfr"].items()} for m, v in models.items()}, ci=False)
    result = {"models": {**models, **people}, "aggregate": {"escalation": escalation_to_json(curve)}}
    result["models"]["humans (mean)"] = participant_mean(people, sorted(people), all_headlines(), ci=True)
    result["participants"] = {**{p: {"kind": "human"} for p in people}, "humans (mean)": {"kind": "human"}}
    return result


def test_the_main_table_and_the_escalation_figure_show_humans_beside_models():
    from mirror_hf.report.figures import escalation
    from mirror_hf.report.table import main_table, participants_note

    result = _mixed_result()
    mean = result["models"]["humans (mean)"]["exp9"]["cfr"]["C1"]
    assert mean["value"] == pytest.approx(0.05) and mean["n"] == 3 and mean["ci"][0] <= 0.05 <= mean["ci"][1]
    from mirror_hf.experiments import result_view

    table = main_table(result_view(result))
    assert {table.label(m) for m in table.models} == {"m1", "m2", "P1 (human)", "P2 (human)", "P3 (human)", "humans (mean)"}
    assert table.best["cfr_c1"] == {"m1"}  # bold marks the best model; people are shown beside, not ranked
    assert "3 row(s) marked (human)" in participants_note(table)[0]
    fig = escalation(result)
    labels = [t.get_text() for t in fig.axes[0].get_legend().get_texts()]
    assert "one participant (human)" in labels and "humans (mean), 95% BCa CI over 3 participants" in labels
    assert "one model" in labels
