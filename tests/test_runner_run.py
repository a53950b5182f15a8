"""`mirror-hf run` / `profile` end to end, as a user runs them (the CLI's `main()`; the first test in
a fresh interpreter, the others in this one to save start-up time), against the scripted
OpenAI-compatible server on 127.0.0.1."""

from __future__ import annotations

import hashlib
import json

import polars as pl
import pytest
from fakes.openai_server import LETTERS, unit
from fakes.servers import openai_server, server_stats
from runner_fixtures import cli, cli_inproc, read_split

from mirror_hf.runner.trials import read_manifest

CHANNELS5 = "wagering,opt_out,tool_delegation,natural,layer2"


def _run(dataset, url, *args, check=True, env=None, fresh=False):
    return (cli if fresh else cli_inproc)("run", "--dataset", str(dataset), "--model", "acme/fake-1", "--base-url", url, "--no-progress",
               "--backoff-base", "0.01", *args, check=check, env=env)


def _bank(dataset) -> dict:
    return {r["id"]: r for r in read_split(dataset, "questions", "test").iter_rows(named=True)}


def test_exp1_run_records_every_trial_with_request_facts(dataset):
    with openai_server(tool_rate=0.5, think_rate=0.3) as url:
        proc = _run(dataset, url, "--limit", "16", "--channels", CHANNELS5, "--concurrency", "8", fresh=True)
        stats = server_stats(url)
    assert "wrote split 'acme_fake_1' of config 'trials_exp1'" in proc.stdout
    trials = read_split(dataset, "trials_exp1", "acme_fake_1")
    assert trials.height == 16 * 5
    assert trials.select("item_id", "channel").n_unique() == trials.height  # one record per (item, channel)
    assert set(trials["channel"]) == set(CHANNELS5.split(","))
    assert trials["item_id"].n_unique() == 16 and trials["domain"].n_unique() == len({q["domain"] for q in _bank(dataset).values()})
    assert (trials["raw_response"].str.len_chars() > 0).all()
    assert (trials["prompt_tokens"] > 0).all() and (trials["completion_tokens"] > 0).all()
    assert (trials["temperature"] == 0.0).all() and (trials["seed"] == 0).all()
    assert (trials["system_fingerprint"] == "fp_fake").all() and (trials["finish_reason"] == "stop").all()
    assert trials["api_error"].is_null().all() and (~trials["truncated"]).all()
    assert (trials["model"] == "acme/fake-1").all() and trials["run_id"].n_unique() == 1
    # prompt_sha is the sha256 of the prompt text stored beside it
    assert all(hashlib.sha256(p.encode()).hexdigest() == s for p, s in zip(trials["prompt"], trials["prompt_sha"]))

    # <think> blocks: kept in raw_response, split into reasoning by the protocol's parser
    thinking = trials.filter(pl.col("raw_response").str.starts_with("<think>"))
    assert thinking.height > 0 and thinking["reasoning"].str.starts_with("Let me weigh option").all()

    # the calculator was called in some tool trials: a second turn with the tool results was sent
    two_turn = trials.filter(pl.col("channel") == "tool_delegation").filter(pl.col("attempts") == 2)
    assert two_turn.height > 0
    for row in two_turn.iter_rows(named=True):
        messages = json.loads(row["prompt"])
        assert [m["role"] for m in messages] == ["user", "assistant", "user"]
        assert "[TOOL_RESULT: calculator | 6*7 = 42]" in messages[-1]["content"]
        assert row["tools_used"] == ["calculator"] and row["answer"] == "42"
    assert stats["requests"] == 16 * 5 + two_turn.height

    # grading, checked independently: the server answers a letter drawn from the messages' digest,
    # and a multiple-choice item is right iff that letter is the gold choice's
    bank = _bank(dataset)
    wagering = trials.filter(pl.col("channel") == "wagering")
    for row in wagering.iter_rows(named=True):
        digest = hashlib.sha256(json.dumps(json.loads(row["prompt"]), sort_keys=True).encode()).hexdigest()
        letter = LETTERS[int(unit(digest, "letter") * 4)]
        question = bank[row["item_id"]]
        assert row["answer"] == letter and row["bet"] == 1 + int(unit(digest, "bet") * 10)
        assert row["confidence"] == pytest.approx(row["bet"] / 10)
        if question["choices"]:
            assert row["correct"] == ("ABCD"[question["choices"].index(question["answer"])] == letter), row["item_id"]

    # the manifest travels in the split's parquet metadata and sits beside the results file
    from mirror_hf.folder import split_files

    path = next(f.path for f in split_files(dataset)["trials_exp1"] if f.split == "acme_fake_1")
    manifest = read_manifest(path)
    assert manifest["model"] == "acme/fake-1" and manifest["experiment"] == "exp1"
    assert manifest["generation"] == {"temperature": 0.0, "seed": 0, "max_tokens": 1024}
    assert len(manifest["protocol_sha256"]) == 64 and len(manifest["prompts_sha256"]) == 64
    assert manifest["counts"]["trials"] == 80 and manifest["dataset"]["seed"] == 0
    assert manifest["settings"]["channels"] == CHANNELS5.split(",") and manifest["settings"]["api_key_env"] == "OPENAI_API_KEY"
    assert json.loads((dataset / ".runs" / "acme_fake_1" / "exp1.manifest.json").read_text()) == manifest
    results = (dataset / ".runs" / "acme_fake_1" / "exp1.jsonl").read_text().splitlines()
    assert len(results) == stats["requests"]

    # the card lists the new split, and datasets loads it from the folder
    assert "trials_exp1" in (dataset / "README.md").read_text() and "acme_fake_1" in (dataset / "README.md").read_text()
    from datasets import load_dataset

    loaded = load_dataset(str(dataset), "trials_exp1", split="acme_fake_1")
    assert loaded.num_rows == 80 and set(loaded["request_key"]) == set(trials["request_key"])


def test_difficulty_selection_runs_only_paired_items_and_grades_the_chosen_task(dataset):
    with openai_server() as url:
        _run(dataset, url, "--limit", "24", "--channels", "difficulty_selection")
    trials = read_split(dataset, "trials_exp1", "acme_fake_1")
    bank = _bank(dataset)
    assert trials.height > 0
    assert all(bank[i]["difficulty"] in ("easy", "hard") for i in trials["item_id"])  # medium items have no pair
    for row in trials.iter_rows(named=True):
        if row["choice"] is None:
            continue
        chosen = bank[row["chosen_item_id"]]
        assert chosen["difficulty"] == ("hard" if row["choice"] == "A" else "easy")
        assert row["paired_item_id"] != row["item_id"]


def test_failed_requests_are_recorded_ungraded(dataset):
    with openai_server({"400": 0.3}) as url:
        _run(dataset, url, "--limit", "24", "--channels", "natural,wagering")
        stats = server_stats(url)
    trials = read_split(dataset, "trials_exp1", "acme_fake_1")
    failed = trials.filter(pl.col("api_error").is_not_null())
    assert trials.height == 48 and failed.height == stats["400"] > 0
    assert failed["api_error"].str.starts_with("HTTP 400").all() and (failed["attempts"] == 1).all()
    assert failed["correct"].is_null().all() and failed["answer"].is_null().all() and failed["raw_response"].is_null().all()
    assert trials.filter(pl.col("api_error").is_null())["correct"].is_not_null().all()


def test_dry_run_counts_and_costs_without_sending(dataset):
    with openai_server() as url:
        proc = _run(dataset, url, "--limit", "8", "--channels", "natural,wagering", "--dry-run",
                    "--price-in", "2", "--price-out", "10", "--max-tokens", "100")
        assert server_stats(url)["requests"] == 0
    out = proc.stdout
    assert "16 trials of exp1; 16 calls to send (0 already done)" in out
    tokens = int(out.split("prompt tokens ~")[1].split()[0].replace(",", ""))
    assert "completion tokens <= 1,600" in out
    expected_cost = (tokens * 2 + 1600 * 10) / 1e6
    assert f"cost <= ${expected_cost:,.4f}" in out
    assert not (dataset / ".runs").exists() and "trials_exp1" not in [p.name for p in (dataset / "data").iterdir()]


def test_max_cost_stops_cleanly_then_resume_finishes_without_paying_twice(dataset):
    with openai_server(delay_s=0.02) as url:
        # ~30 prompt tokens at $1000/M = $0.03 per request: a $0.3 cap stops after about ten
        proc = _run(dataset, url, "--limit", "20", "--channels", "natural,wagering", "--concurrency", "2",
                    "--price-in", "1000", "--price-out", "0", "--max-cost", "0.3")
        assert "stopped: --max-cost reached" in proc.stdout
        assert "trials_exp1" not in {p.name for p in (dataset / "data").iterdir()}
        done = len((dataset / ".runs" / "acme_fake_1" / "exp1.jsonl").read_text().splitlines())
        assert 5 <= done < 40
        # the cap covers the whole run: resuming under the same cap sends nothing more
        same = _run(dataset, url, "--limit", "20", "--channels", "natural,wagering", "--concurrency", "2",
                    "--price-in", "1000", "--price-out", "0", "--max-cost", "0.3", "--resume")
        assert "stopped: --max-cost reached" in same.stdout and server_stats(url)["requests"] == done
        _run(dataset, url, "--limit", "20", "--channels", "natural,wagering", "--concurrency", "2",
             "--price-in", "1000", "--price-out", "0", "--resume")
        stats = server_stats(url)
    assert read_split(dataset, "trials_exp1", "acme_fake_1").height == 40
    assert stats["requests"] == stats["distinct"] == 40 and stats["repeats_after_ok"] == 0


def test_an_existing_run_needs_resume_or_restart_and_resume_checks_settings(dataset):
    with openai_server() as url:
        _run(dataset, url, "--limit", "8", "--channels", "natural")
        again = _run(dataset, url, "--limit", "8", "--channels", "natural", check=False)
        assert again.returncode == 2 and "pass --resume to continue it" in again.stderr and "--restart" in again.stderr
        changed = _run(dataset, url, "--limit", "8", "--channels", "natural", "--resume", "--temperature", "0.5", check=False)
        assert changed.returncode == 2 and "the stored run differs" in changed.stderr and "temperature" in changed.stderr
        before = server_stats(url)["requests"]
        rescored = _run(dataset, url, "--limit", "8", "--channels", "natural", "--resume")
        assert server_stats(url)["requests"] == before  # a finished run resumed = rescoring, no calls
        assert "0 requests sent, 8 reused" in rescored.stdout
        _run(dataset, url, "--limit", "8", "--channels", "natural", "--restart")
        assert server_stats(url)["requests"] == before + 8


def test_bad_split_names_and_unknown_options_are_one_line_errors(dataset):
    with openai_server() as url:
        bad = _run(dataset, url, "--split", "dev-small", check=False)
        assert bad.returncode == 2 and "must match \\w+" in bad.stderr and "Traceback" not in bad.stderr
        channel = _run(dataset, url, "--channels", "telepathy", check=False)
        assert channel.returncode == 2 and "unknown channel(s) telepathy" in channel.stderr
    remote = cli_inproc("run", "--dataset", str(dataset), "--model", "m", "--base-url", "https://api.example.invalid/v1", check=False,
                 env={"OPENAI_API_KEY": ""})
    assert remote.returncode == 2 and "set the environment variable OPENAI_API_KEY" in remote.stderr


def test_exp9_conditions_beyond_c1_need_the_profile(dataset):
    with openai_server() as url:
        proc = _run(dataset, url, "--experiment", "exp9", "--limit", "2", check=False)
        assert server_stats(url)["requests"] == 0
    assert proc.returncode == 2
    assert "need the model's Exp1 profile" in proc.stderr and "'profiles'" in proc.stderr and "mirror-hf profile" in proc.stderr


def test_profile_then_exp9_and_exp3(dataset):
    with openai_server() as url:
        _run(dataset, url, "--limit", "40", "--channels", "natural,wagering")
        cli_inproc("profile", "--dataset", str(dataset), "--model", "acme/fake-1")
        exp1 = read_split(dataset, "trials_exp1", "acme_fake_1")
        profile = read_split(dataset, "profiles", "acme_fake_1")
        # natural / wagering accuracy per domain, recomputed here from the trials
        for row in profile.iter_rows(named=True):
            for channel, column in (("natural", "natural_accuracy"), ("wagering", "wagering_accuracy")):
                graded = exp1.filter((pl.col("domain") == row["domain"]) & (pl.col("channel") == channel) & pl.col("correct").is_not_null())
                assert row[column] == pytest.approx(graded["correct"].mean()) and row[f"n_{channel}"] == graded.height
            assert row["mirror_gap"] == pytest.approx(abs(row["wagering_accuracy"] - row["natural_accuracy"]))
        assert set(profile["strength"]) <= {"weak", "strong", "medium", "unknown"}  # medium: tied with a weak one, or below chance
        assert (profile["weak_policy"] == "median_or_bottom_k").all()
        values = sorted(profile["natural_accuracy"].to_list())
        median = (values[len(values) // 2 - 1] + values[len(values) // 2]) / 2 if len(values) % 2 == 0 else values[len(values) // 2]
        weak = {r["domain"] for r in profile.iter_rows(named=True) if r["natural_accuracy"] < median}
        if weak:
            assert weak == set(profile.filter(pl.col("strength") == "weak")["domain"])

        _run(dataset, url, "--experiment", "exp9", "--limit", "2", "--max-tokens", "200")
        exp9 = read_split(dataset, "trials_exp9", "acme_fake_1")
        _run(dataset, url, "--experiment", "exp3", "--limit", "3")
        exp3 = read_split(dataset, "trials_exp3", "acme_fake_1")

    assert exp9.height == 2 * 11 and exp9.select("item_id", "condition", "paradigm").n_unique() == 22
    assert exp9.filter(pl.col("condition") == "C4")["paradigm"].to_list().count("P3") == 0
    c1 = {(r["item_id"], r["paradigm"]): r["request_key"] for r in exp9.filter(pl.col("condition") == "C1").iter_rows(named=True)}
    for row in exp9.filter(pl.col("condition") == "C4").iter_rows(named=True):
        assert row["request_key"] == c1[(row["item_id"], row["paradigm"])]  # same prompt: one call, shared
    by_domain = {r["domain"]: r for r in profile.iter_rows(named=True)}
    for row in exp9.filter(pl.col("condition") == "C2").iter_rows(named=True):
        known = by_domain.get(row["domain_a"])  # a domain the bank does not cover yet has no profile row
        pct = f"{known['natural_accuracy'] * 100:.0f}" if known else "unknown"
        assert f"in {row['domain_a']} tasks is {pct}%" in json.loads(row["prompt"])[0]["content"]
        assert row["strength_a"] == (known["strength"] if known else "unknown")
    routed = exp9.filter(pl.col("condition") == "C4")
    for row in routed.iter_rows(named=True):
        known = by_domain.get(row["domain_a"])
        assert row["component_a_externally_routed"] == bool(known and known["strength"] == "weak")
    assert exp9["api_success"].all()

    assert exp3.height == 3 * 6 and exp3.select("item_id", "channel", "target").n_unique() == 18
    predictions = exp3.filter(pl.col("channel") == "self_prediction")
    assert predictions["correct"].is_null().all() and predictions["confidence"].is_not_null().all()
