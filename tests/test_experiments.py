"""The experiment registry and Exp2 end to end: every registered spec is declared as a trial config
with its own Features, unknown names get a did-you-mean error, and `mirror-hf run --experiment exp2`
against the scripted local server writes `trials_exp2` that `score` turns into TII (both variants)
and the verbal-transfer score — checked against a computation from the records written here."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import polars as pl
import pytest
from fakes.servers import openai_server
from mirror_hf.dataset_builders import registry
from runner_fixtures import cli_inproc, read_split
from scipy.stats import spearmanr

from mirror_hf import experiments
from mirror_hf.protocol import exp1, exp2
from mirror_hf.registry import Registry, UnknownName

MODEL = "acme/transfer-1"
SPLIT = "acme_transfer_1"


def _run(dataset, url, *args):
    return cli_inproc("run", "--dataset", str(dataset), "--model", MODEL, "--base-url", url, "--no-progress",
                      "--backoff-base", "0.01", *args)


def test_every_spec_is_a_declared_trial_config_with_its_features():
    configs = registry()
    assert experiments.names() == ("exp1", "exp2", "exp3", "exp4", "exp5", "exp6a", "exp6b", "exp6c", "exp9")
    for name, spec in experiments.EXPERIMENTS.items():
        assert spec.name == name and spec.trial_config == f"trials_{name}"
        assert configs[spec.trial_config].features == spec.trial_features
        assert set(spec.default_channels) <= set(spec.channels)
        assert all(h.experiment == name and h.direction in ("higher", "lower") for h in spec.headlines)
        assert spec.scorer is not None
    # the trial configs the builders declare are exactly the registry's
    assert {c for c in configs if c.startswith("trials_")} == {s.trial_config for s in experiments.EXPERIMENTS.values()}


def test_unknown_names_get_did_you_mean():
    with pytest.raises(UnknownName, match=r"unknown experiment 'exp22'; did you mean exp2"):
        experiments.get("exp22")
    with pytest.raises(UnknownName, match="did you mean wagering"):
        exp1.channel("wagerin")
    reg: Registry[int] = Registry("thing")
    reg.register("a", 1)
    with pytest.raises(ValueError, match="already registered"):
        reg.register("a", 2)
    with pytest.raises(UnknownName, match=r"unknown thing 'zzz' \(known: a\)"):
        reg["zzz"]


def test_cli_refuses_unknown_experiment_in_one_line(dataset):
    proc = cli_inproc("run", "--dataset", str(dataset), "--experiment", "exp22", "--base-url", "http://127.0.0.1:9/v1",
                      "--model", "m", check=False)
    assert proc.returncode == 2
    assert "did you mean exp2" in proc.stderr and "Traceback" not in proc.stderr


def test_placebo_pair_and_verbal_flags_over_every_task(dataset):
    tasks = read_split(dataset, "exp2_transfer", "test").to_dicts()
    assert len(tasks) == 200
    for task in tasks:
        pair = exp2.placebo_pair(task)
        assert pair.hard.question == task["task_text"]
        assert pair.easy.question == task["task_text"] + "\n" + exp2.PLACEBO_SUFFIX
        assert pair.easy.answer == pair.hard.answer == task["answer"]
        text = exp1.build_difficulty_selection(pair.hard, pair=pair)[0]["content"]
        assert text.index("TASK A") < text.index(task["task_text"]) < text.index("TASK B") < text.index(exp2.PLACEBO_SUFFIX)
    from mirror_hf.records import DOMAINS

    # a self-report naming a domain counts for that domain only
    assert all(exp2.names_domain(f"{d} skills", other) is (d == other) for d in DOMAINS for other in DOMAINS)
    assert exp2.verbal_flags({"sub_skills": "reading, date arithmetic", "weakest_skill": "calendar math"}, "temporal") == {
        "source_in_sub_skills": True, "source_is_weakest": True}
    assert exp2.verbal_flags({"sub_skills": "reading", "weakest_skill": None}, "temporal") == {
        "source_in_sub_skills": False, "source_is_weakest": None}


def _tii_by_hand(exp1_trials: pl.DataFrame, exp2_trials: pl.DataFrame, signed: bool) -> float:
    """TII as the protocol states it, from the records with scipy: per behavioural channel, Spearman
    rho between the Exp1 natural accuracy of each task's source domain and the channel's confidence."""
    nat = exp1_trials.filter((pl.col("channel") == "natural") & pl.col("correct").is_not_null())
    accuracy = {d: g["correct"].cast(float).mean() for (d,), g in nat.group_by("domain")}
    rhos = []
    for channel in exp1.BEHAVIOURAL_CHANNELS:
        part = exp2_trials.filter((pl.col("channel") == channel) & pl.col("confidence").is_not_null())
        x = np.array([accuracy.get(d, np.nan) for d in part["source_domain"]])
        y = part["confidence"].to_numpy()
        keep = ~np.isnan(x)
        if keep.sum() < 3 or np.unique(x[keep]).size < 2 or np.unique(y[keep]).size < 2:
            continue
        rho = spearmanr(x[keep], y[keep]).statistic
        rhos.append(rho if signed else abs(rho))
    return float(np.mean(rhos))


def test_exp2_runs_end_to_end_and_scores_tii(dataset, tmp_path):
    with openai_server(tool_rate=0.3) as url:
        out = _run(dataset, url, "--experiment", "exp2", "--limit", "24")
        _run(dataset, url, "--experiment", "exp1", "--limit", "48", "--channels", "natural,wagering")
    assert "wrote split 'acme_transfer_1' of config 'trials_exp2'" in out.stdout

    from datasets import load_dataset

    loaded = load_dataset(str(dataset), "trials_exp2", split=SPLIT)
    trials = pl.from_arrow(loaded.data.table)
    channels = experiments.get("exp2").default_channels
    assert set(channels) == {*exp1.BEHAVIOURAL_CHANNELS, "layer2"}
    # one record per (task, channel): 24 tasks x 6 channels
    assert trials.height == 24 * len(channels) == trials.select("item_id", "channel").n_unique()
    assert trials["item_id"].n_unique() == 24 and trials["source_domain"].n_unique() == 8
    # channel 5 at the authors' temperature, every other call at the run's
    by_channel = {c: set(trials.filter(pl.col("channel") == c)["temperature"]) for c in channels}
    assert by_channel["natural"] == {exp2.NATURAL_TEMPERATURE}
    assert all(t == {0.0} for c, t in by_channel.items() if c != "natural")
    # channel 3: Task B is the placebo copy of Task A, and the graded item is the one chosen
    ch3 = trials.filter(pl.col("channel") == "difficulty_selection")
    for row in ch3.iter_rows(named=True):
        prompt = json.loads(row["prompt"])[0]["content"]
        assert prompt.count(exp2.PLACEBO_SUFFIX) == 1 and row["paired_item_id"] == f"{row['item_id']}:placebo"
        assert row["chosen_item_id"] == {"A": row["item_id"], "B": row["paired_item_id"]}[row["choice"]]
    # layer 2: the verbal flags are read from the self-report against the hidden source domain
    layer2 = trials.filter(pl.col("channel") == "layer2")
    for row in layer2.iter_rows(named=True):
        assert row["source_in_sub_skills"] == exp2.names_domain(row["sub_skills"], row["source_domain"])
        assert row["source_is_weakest"] == exp2.names_domain(row["weakest_skill"], row["source_domain"])
    assert layer2["source_is_weakest"].any() and not layer2["source_is_weakest"].all()

    result_path = tmp_path / "scores.json"
    cli_inproc("score", "--dataset", str(dataset), "--resamples", "0", "--json", str(result_path))
    scores = json.loads(result_path.read_text())["models"][MODEL]["exp2"]
    exp1_trials = read_split(dataset, "trials_exp1", SPLIT)
    paper, upstream = _tii_by_hand(exp1_trials, trials, signed=False), _tii_by_hand(exp1_trials, trials, signed=True)
    print(f"TII paper: computed {scores['tii_paper']['value']:.6f}, by hand {paper:.6f}; "
          f"upstream: computed {scores['tii_upstream']['value']:.6f}, by hand {upstream:.6f}")
    assert scores["tii"]["value"] == pytest.approx(paper, abs=1e-12)
    assert scores["tii_paper"]["value"] == pytest.approx(paper, abs=1e-12)
    assert scores["tii_upstream"]["value"] == pytest.approx(upstream, abs=1e-12)
    verbal = ((layer2["source_in_sub_skills"].cast(float) + layer2["source_is_weakest"].cast(float)) / 2).mean()
    assert scores["verbal_transfer"]["value"] == pytest.approx(verbal, abs=1e-12)
    assert scores["verbal_transfer"]["n"] == layer2.height


def test_every_registered_experiment_owns_its_scorer_key_headlines_and_schema_part():
    """The tables `score` reads are derived from the specs: every experiment's scorer resolves to a
    `Scorer` whose schema is a TypedDict, its key starts with item_id, and the static `ModelScores`
    (what a type checker reads) declares exactly the parts the specs generate."""
    import typing

    from mirror_hf.experiments import EXPERIMENTS, scores_schema
    from mirror_hf.scoring import Scorer
    from mirror_hf.scoring._schema import ModelScores

    generated = scores_schema()
    assert set(generated) == set(EXPERIMENTS.names())
    for name, spec in EXPERIMENTS.items():
        assert isinstance(spec.scorer, Scorer), name
        assert typing.is_typeddict(spec.scorer.schema), name
        assert spec.dedup_key[0] == "item_id", name
        assert spec.headlines is not None, name
    assert typing.get_type_hints(ModelScores) == generated


def test_latest_records_needs_a_key_never_item_id_alone():
    import polars as pl
    import pytest

    from mirror_hf.scoring import latest_records

    frame = pl.DataFrame({"model": ["m", "m"], "item_id": ["q", "q"], "channel": ["a", "b"]})
    assert latest_records(frame, ("item_id", "channel")).height == 2
    assert latest_records(frame, ("item_id",)).height == 1  # what a missing key would silently do
    with pytest.raises(ValueError, match="de-duplication key"):
        latest_records(frame, ())


def _exp1_with(**changes):
    """Exp1's spec rebuilt with pieces removed or replaced (what a careless edit would leave)."""
    import dataclasses

    from mirror_hf.experiments import Experiment, get

    fields = {f.name: getattr(get("exp1"), f.name) for f in dataclasses.fields(get("exp1"))}
    return Experiment(**{**fields, **changes})


@pytest.mark.parametrize(("piece", "value", "named"), [
    ("scorer_ref", "", "scorer"),
    ("dedup_key", (), "dedup_key"),
    ("dedup_key", ("channel",), "dedup_key"),
    ("headlines", None, "headlines"),
    ("bank_configs", (), "bank_configs"),
    ("trial_schema", "", "trial_schema"),
    ("default_channels", ("natural", "telepathy"), "default_channels"),
])
def test_a_spec_missing_a_piece_is_refused_in_one_line_naming_experiment_and_piece(piece, value, named):
    from mirror_hf.experiments import ExperimentSpecError

    with pytest.raises(ExperimentSpecError) as err:
        _exp1_with(**{piece: value})
    message = str(err.value)
    print(f"{piece}={value!r}: {message}")
    assert "\n" not in message and message.startswith("experiment exp1: ") and named in message


def test_a_foreign_or_taken_headline_and_an_unresolvable_scorer_are_refused():
    from mirror_hf.experiments import ExperimentSpecError, register
    from mirror_hf.headlines import Headline

    foreign = Headline("exp1_x", "exp9", "x", ("exp9", "cfr"), "lower", "x")
    with pytest.raises(ExperimentSpecError, match="^experiment exp1: headline exp1_x belongs to 'exp9'"):
        _exp1_with(headlines=(foreign,))
    taken = Headline("exp1_mci", "exp1b", "MCI again", ("exp1b", "mci"), "higher", "x")
    with pytest.raises(ExperimentSpecError, match="^experiment exp1b: headline exp1_mci is already exp1's$"):
        register(_exp1_with(name="exp1b", headlines=(taken,)))
    with pytest.raises(ExperimentSpecError, match="^experiment exp1: name is already registered$"):
        register(_exp1_with())
    refs = (("mirror_hf.scoring._suite:EXP_NONE", "cannot be imported"),
            ("mirror_hf.scoring._suite:score_exp1", "not a mirror_hf.scoring.Scorer"))
    for ref, why in refs:
        with pytest.raises(ExperimentSpecError, match=f"^experiment exp1: scorer {ref!r} .*{why}"):
            _exp1_with(scorer_ref=ref).scorer


def test_the_report_table_naming_a_headline_nobody_declares_is_one_line():
    from mirror_hf.experiments import ExperimentSpecError, headline_by_key

    assert headline_by_key("exp9_kdi").experiment == "exp9"
    with pytest.raises(ExperimentSpecError, match="^headline exp1_nope: no registered experiment declares it"):
        headline_by_key("exp1_nope")


# ------------------------------------------------------------------------------------------------
# The worked example of docs/architecture.md: a toy experiment in one new module, nothing else edited
# ------------------------------------------------------------------------------------------------

ARCHITECTURE = Path(__file__).resolve().parents[1] / "docs" / "architecture.md"


def _toy_distribution(where: Path) -> Path:
    """docs/architecture.md's toy module, installed as a distribution of its own: the module on a path
    of its own and a dist-info naming it under the `mirror_hf.experiments` entry point."""
    import re

    blocks = re.findall(r"```python\n(.*?)```", ARCHITECTURE.read_text(), re.DOTALL)
    (module,) = [b for b in blocks if "EXPERIMENT = Experiment(" in b]
    (toml,) = re.findall(r"```toml\n(.*?)```", ARCHITECTURE.read_text(), re.DOTALL)
    assert 'toy = "toy_exp"' in toml and f'"{experiments.ENTRY_POINT_GROUP}"' in toml
    where.mkdir()
    (where / "toy_exp.py").write_text(module)
    info = where / "toy_exp-0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: toy-exp\nVersion: 0\n")
    (info / "entry_points.txt").write_text(f"[{experiments.ENTRY_POINT_GROUP}]\ntoy = toy_exp\n")
    return where


def test_a_toy_experiment_in_one_module_runs_scores_and_reports_end_to_end(dataset, tmp_path):
    import os
    import subprocess
    import sys

    from runner_fixtures import cli

    plugin = _toy_distribution(tmp_path / "plugin")
    env = {"PYTHONPATH": os.pathsep.join([str(plugin), *filter(None, [os.environ.get("PYTHONPATH")])])}
    assert "toy" not in experiments.names()  # this interpreter never saw it: only the module was added
    with openai_server() as url:
        run = cli("run", "--dataset", str(dataset), "--experiment", "toy", "--model", "acme/toy", "--base-url", url,
                  "--no-progress", "--limit", "16", env=env)
    assert "wrote split 'acme_toy' of config 'trials_toy'" in run.stdout, run.stdout
    help_text = " ".join(cli("run", "--help", env={**env, "COLUMNS": "400"}).stdout.split())
    assert "toy (every question once, plainly)" in help_text  # the CLI help lists it
    trials = read_split(dataset, "trials_toy", "acme_toy")
    assert trials.height == 16 and set(trials["channel"]) == {"natural"}
    graded = trials["correct"].drop_nulls()
    by_hand = graded.cast(float).mean()

    out = tmp_path / "scores.json"
    cli("score", "--dataset", str(dataset), "--resamples", "0", "--json", str(out), env=env)
    scored = json.loads(out.read_text())["models"]["acme/toy"]["toy"]["accuracy"]
    print(f"toy accuracy: scored {scored['value']} (n {scored['n']}), by hand {by_hand} (n {graded.len()})")
    assert scored["value"] == pytest.approx(by_hand, abs=1e-12) and scored["n"] == graded.len()
    probe = subprocess.run(
        [sys.executable, "-c", "import json; from mirror_hf import experiments as e; "
         "print(json.dumps({'schema': sorted(e.scores_schema()['toy'].__annotations__), "
         "'headlines': [h.key for h in e.all_headlines() if h.experiment == 'toy'], 'configs': e.trial_configs()['toy']}))"],
        capture_output=True, text=True, check=True, env={**os.environ, **env},
    )
    assert json.loads(probe.stdout) == {"schema": ["accuracy"], "headlines": ["toy_accuracy"], "configs": "trials_toy"}

    report = tmp_path / "report"
    cli("report", "--dataset", str(dataset), "--out", str(report), env=env)
    md = (report / "report.md").read_text()
    row = next(line for line in md.splitlines() if line.startswith("| Toy accuracy"))
    assert f"{by_hand:.3f}" in row, row
    card = (dataset / "README.md").read_text()
    assert "config_name: trials_toy" in card
    croissant = json.loads((dataset / "croissant.json").read_text())
    assert "trials_toy" in json.dumps(croissant)
