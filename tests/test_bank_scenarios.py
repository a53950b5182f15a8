"""Distinct scenarios per subcategory (#10 item 3): what the definition counts as one scenario, and
that the card's column shows the built form's counts."""

from __future__ import annotations

import collections
import re

from mirror_hf.bank._core import scenario_counts, scenario_key
from mirror_hf.records import Question


def _q(text: str, sub: str = "durations") -> Question:
    return Question(id=f"t.{abs(hash(text))}", domain="temporal", subcategory=sub, difficulty="easy", question=text,
                    choices=("a", "b", "c", "d"), answer="a", answer_type="short_text", aliases=(), generator="t", seed=0)


def test_numbers_and_names_are_particulars_wording_is_the_scenario():
    same = [
        "Priya's train leaves Leeds at 09:15 and arrives at 11:40. How long is the journey?",
        "Omar's train leaves York at 7:05 and arrives at 10:00. How long is the journey?",
        "Zoë's train leaves Málaga at 23:50 and arrives at 1,250.5. How long is the journey?",
    ]
    other = [
        "Priya's bus leaves Leeds at 09:15 and arrives at 11:40. How long is the journey?",  # another vehicle
        "Priya's train leaves Leeds at 09:15 and arrives at 11:40. When does it arrive?",  # another ask
    ]
    assert len({scenario_key(t) for t in same}) == 1
    assert len({scenario_key(t) for t in same + other}) == 1 + len(other)
    counts = scenario_counts([_q(t) for t in same + other] + [_q(same[0], sub="scheduling")])
    assert counts == {"temporal.durations": 3, "temporal.scheduling": 1}


def test_card_reports_scenarios_of_the_built_form(tmp_path):
    import pyarrow.parquet as pq

    from mirror_hf.build import BuildRequest, build
    from mirror_hf.folder import split_files

    out = build(BuildRequest(out=tmp_path / "form", seed=5, per_domain=40))
    rows = pq.read_table(split_files(out)["questions"][0].path).to_pylist()
    keys = collections.defaultdict(set)
    count = collections.Counter()
    for r in rows:
        sub = f"{r['domain']}.{r['subcategory']}"
        keys[sub].add(scenario_key(r["question"]))
        count[sub] += 1
    card = (out / "README.md").read_text()
    header = next(line for line in card.splitlines() if line.startswith("| subcategory | n |"))
    columns = [c.strip() for c in header.strip("|").split("|")]
    assert columns[:3] == ["subcategory", "n", "scenarios"], columns
    printed = {}
    for line in card.split(header, 1)[1].splitlines():
        m = re.match(r"\| `([\w.]+)`( †)? \| (\d+) \| (\d+) \|", line)
        if m:
            printed[m.group(1)] = (int(m.group(3)), int(m.group(4)))
    assert set(printed) == set(count)
    print(f"\n{'subcategory':42s}    n scenarios")
    for sub, (n, scen) in sorted(printed.items()):
        print(f"{sub:42s} {n:4d} {scen:4d}")
        assert n == count[sub] and scen == len(keys[sub]), (sub, n, scen)
        assert 1 <= scen <= n
