"""The two internal-signal channels (consistency, logprob) through the real runner against the local
test server: k samples per item whether the endpoint honours `n` or ignores it, the request count
the dry run stated, samples grouped by the grader's equivalence, token probabilities read at the
answer position, and an endpoint without logprobs making the channel unavailable (exit 0, one note)."""

from __future__ import annotations

import json
import math
import re

import polars as pl
import pytest
from fakes.openai_server import letter_probability
from fakes.servers import openai_server, server_stats
from runner_fixtures import cli_inproc, messages_digest, read_split

from mirror_hf.protocol import internal
from mirror_hf.records import Question
from mirror_hf.runner.request import Outcome

LIMIT, K = 8, 5
CHANNELS = "natural,consistency,logprob"


def _run(dataset, url, *extra):
    return cli_inproc("run", "--dataset", str(dataset), "--model", "acme/toy", "--base-url", url, "--no-progress",
                      "--limit", str(LIMIT), "--channels", CHANNELS, *extra)


def _dry_run_calls(dataset, url) -> tuple[int, int]:
    out = _run(dataset, url, "--dry-run").stdout
    honoured = int(re.search(r"; (\d+) calls to send", out).group(1))
    ignored = int(re.search(r"(\d+) calls if it ignores n", out).group(1))
    return honoured, ignored


@pytest.mark.parametrize("n_mode", ["honour", "ignore"])
def test_consistency_records_k_samples_either_way_and_the_dry_run_count(dataset, n_mode):
    with openai_server(n=n_mode, logprobs="on") as url:
        honoured, ignored = _dry_run_calls(dataset, url)
        assert (honoured, ignored) == (3 * LIMIT, 3 * LIMIT + (K - 1) * LIMIT)  # stated, and by hand
        _run(dataset, url)
        sent = server_stats(url)["requests"]
    assert sent == (honoured if n_mode == "honour" else ignored), (n_mode, sent, honoured, ignored)
    trials = read_split(dataset, "trials_exp1", "acme_toy")
    manifest = json.loads((dataset / ".runs" / "acme_toy" / "exp1.manifest.json").read_text())
    assert manifest["channels"]["consistency"] == {"samples": K, "temperature": 0.7}
    assert manifest["channels"]["n_honoured"] is (n_mode == "honour")
    cons = trials.filter(pl.col("channel") == "consistency")
    assert cons.height == LIMIT and cons["sample_count"].to_list() == [K] * LIMIT
    assert (cons["temperature"] == 0.7).all()
    for row in cons.iter_rows(named=True):
        letters = [re.search(r"ANSWER: ([A-D])", t).group(1) for t in row["samples"]]
        modal = max(letters.count(x) for x in set(letters))
        assert row["sample_agreement"] == pytest.approx(modal / K) and row["confidence"] == row["sample_agreement"]
        shares = [letters.count(x) / K for x in dict.fromkeys(letters)]
        assert row["answer_entropy"] == pytest.approx(-sum(p * math.log(p) for p in shares))



def test_the_samples_are_the_same_whether_n_is_honoured_or_not(built_folder, tmp_path):
    import shutil

    got = {}
    for mode in ("honour", "ignore"):
        folder = tmp_path / mode
        shutil.copytree(built_folder, folder)
        with openai_server(n=mode) as url:
            cli_inproc("run", "--dataset", str(folder), "--model", "acme/toy", "--base-url", url, "--no-progress",
                       "--limit", "4", "--channels", "consistency")
        got[mode] = read_split(folder, "trials_exp1", "acme_toy").sort("item_id").select("item_id", "samples", "answer").rows()
    assert got["honour"] == got["ignore"]


def test_logprob_channel_reads_the_option_letter_probability(dataset):
    with openai_server(logprobs="on") as url:
        _run(dataset, url)
    trials = read_split(dataset, "trials_exp1", "acme_toy")
    lp = trials.filter(pl.col("channel") == "logprob")
    assert lp.height == LIMIT and lp["logprobs_available"].all()
    for row in lp.iter_rows(named=True):
        assert row["token_signal"] == "options", row
        planted = letter_probability(messages_digest(row["prompt"]))
        # renormalised over the four letters: p / (1 - 0.05)
        assert row["token_probability"] == pytest.approx(planted / 0.95) and row["confidence"] == row["token_probability"]
        assert sum(row["option_probs"]) == pytest.approx(1.0) and row["option_mass_outside"] == pytest.approx(0.05)
    manifest = json.loads((dataset / ".runs" / "acme_toy" / "exp1.manifest.json").read_text())
    assert "unavailable_channels" not in manifest


def test_an_endpoint_without_logprobs_makes_the_channel_unavailable(dataset, tmp_path):
    with openai_server(logprobs="off") as url:
        proc = _run(dataset, url)
    assert proc.returncode == 0
    lines = [ln for ln in proc.stdout.splitlines() if "channel logprob unavailable" in ln]
    assert len(lines) == 1, proc.stdout
    manifest = json.loads((dataset / ".runs" / "acme_toy" / "exp1.manifest.json").read_text())
    assert "logprob" in manifest["unavailable_channels"]
    lp = read_split(dataset, "trials_exp1", "acme_toy").filter(pl.col("channel") == "logprob")
    assert lp.height == LIMIT and lp["confidence"].is_null().all() and (~lp["logprobs_available"]).all()
    assert lp["parse_success"].all() and lp["api_error"].is_null().all()  # not parse failures, not errors
    out = tmp_path / "scores.json"
    cli_inproc("score", "--dataset", str(dataset), "--resamples", "0", "--json", str(out))
    signals = json.loads(out.read_text())["models"]["acme/toy"]["exp1"]["signals"]
    assert signals["logprob"]["status"] == "unavailable"


# --------------------------------------------------------------------------------------------
# The pieces, property-style
# --------------------------------------------------------------------------------------------

Q_NUM = Question("q1", "arithmetic", "x", "easy", "What is 7 + 5?", (), "12", "exact_numeric", (), "g", 0)
Q_TEXT = Question("q2", "factual", "x", "easy", "Capital of France?", (), "Paris", "short_text", (), "g", 0)
Q_MC = Question("q3", "factual", "x", "easy", "Capital of France?", ("Rome", "Paris", "Oslo", "Bern"), "Paris",
                "short_text", (), "g", 0)


def test_agreement_uses_the_graders_equivalence():
    assert internal.same_answer("12", "12.0", Q_NUM) and not internal.same_answer("12", "13", Q_NUM)
    assert internal.same_answer("Paris", "paris", Q_TEXT)
    assert internal.same_answer("B", "Paris", Q_MC) and internal.same_answer("B) Paris", "b", Q_MC)
    got = internal.agreement(["12", "12.0", "13", None, "The answer is 12."], Q_NUM)
    assert got["sample_agreement"] == pytest.approx(3 / 5) and got["modal"] == 0
    assert got["answer_entropy"] == pytest.approx(-(0.75 * math.log(0.75) + 0.25 * math.log(0.25)))
    assert internal.agreement([None, None], Q_NUM)["sample_agreement"] is None


def test_consistency_reads_n_choices_or_one_text_per_request():
    body = (("n", 3),)
    one = Outcome(text="ANSWER: 12", samples=["ANSWER: 12", "ANSWER: 12.0", "ANSWER: 4"])
    assert internal.next_sample(body, [one]) is None
    single = [Outcome(text="ANSWER: 12")]
    assert internal.next_sample(body, single) == 1
    three = [Outcome(text=t) for t in ("ANSWER: 12", "ANSWER: 12.0", "ANSWER: 4")]
    assert internal.next_sample(body, three) is None
    assert internal.read_consistency([one], Q_NUM, body=body) == internal.read_consistency(three, Q_NUM, body=body) | {
        "raw_response": "ANSWER: 12", "finish_reason": None}


def test_logprob_open_answer_mean_and_sum():
    lps = [["The", -0.1, []], [" answer", -0.2, []], [" is", -0.1, []], [" 1", -0.5, []], ["2", -0.3, []], [".", -0.05, []]]
    out = internal.read_logprob([Outcome(text="The answer is 12.", logprobs=lps)], Q_NUM, body=())
    assert out["token_signal"] == "answer_tokens"
    assert out["token_logprob_sum"] == pytest.approx(-0.8) and out["token_logprob_mean"] == pytest.approx(-0.4)
    assert out["confidence"] == pytest.approx(math.exp(-0.4))


def test_report_shows_the_signals_figure_tracking_table_and_samples(dataset, tmp_path):
    with openai_server(n="honour", logprobs="on") as url:
        cli_inproc("run", "--dataset", str(dataset), "--model", "acme/toy", "--base-url", url, "--no-progress",
                   "--limit", "16", "--channels", "wagering,natural,consistency,logprob")
    out = tmp_path / "report"
    cli_inproc("report", "--dataset", str(dataset), "--out", str(out), "--resamples", "200")
    md = (out / "report.md").read_text()
    assert "## Exp1 signals" in md and "| acme/toy | consistency | internal |" in md
    assert "r(confidence, correct | consistency)" in md and "| acme/toy | wagering |" in md
    assert (out / "figures" / "signals.png").is_file() and "Which signal knows best" in md
    html = (out / "index.html").read_text()
    assert "which signal knows best" in html.lower()
    chunks = "".join(p.read_text() for p in (out / "trials").rglob("c*.js"))
    assert '"samples":["ANSWER:' in chunks and '"sample_answers":' in chunks


def test_a_resumed_run_sends_no_sample_again(dataset):
    with openai_server(n="ignore", logprobs="on") as url:
        _run(dataset, url)
        first = server_stats(url)["requests"]
        proc = _run(dataset, url, "--resume")
        assert server_stats(url)["requests"] == first, proc.stdout  # every sample request reused
    assert f"0 requests sent, {first} reused" in proc.stdout


def test_bad_sampling_options_are_one_line_and_exit_2(dataset):
    for option, value, words in (("--samples", "1", "--samples must be at least 2"),
                                 ("--sample-temperature", "0", "--sample-temperature must be in (0, 2]")):
        proc = cli_inproc("run", "--dataset", str(dataset), "--model", "acme/toy", "--base-url", "http://127.0.0.1:9/v1",
                          "--channels", "consistency", option, value, "--dry-run", check=False)
        assert proc.returncode == 2 and words in proc.stderr and "Traceback" not in proc.stderr, proc.stderr
