"""Lay out the authors' files as the tests read them, from a clone of their public repository.

    git clone https://github.com/Jason-Wang313/Mirror && git -C Mirror checkout 8ea87be
    python tests/upstream_layout.py Mirror ../shared/upstream      # or any DIR, then MIRROR_HF_UPSTREAM=DIR

The tests marked `upstream` (`pytest -m upstream`) read these files; the project never copies them
(MIT, the authors'). Most keep their path; a few are renamed, and the Exp3 v2 result file keeps the
12 models of the paper's CCE table (its four later models' rows are left out, as in the layout the
published numbers were checked on).
"""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

SAME = [
    "LICENSE",
    "data/questions.jsonl",
    "data/exp9_tasks.jsonl",
    "data/transfer_tasks.jsonl",
    "data/attack_templates.json",
    "data/exp3/intersection_tasks_v2.jsonl",
    "data/exp4/templates_v2.jsonl",
    "data/exp9/capability_profiles.json",
]
RENAMED = {
    "data/exp6/6a_scenarios_new.json": "data/exp6/expanded/6a_scenarios_new.json",
    "data/exp6/6b_controls_new.json": "data/exp6/expanded/6b_controls_new.json",
    "data/exp6/6b_flawed_new.json": "data/exp6/expanded/6b_flawed_new.json",
    "data/exp6/6c_prompts_new.json": "data/exp6/expanded/6c_prompts_new.json",
    "results/exp1_gemini-2.5-pro_shard.jsonl": "data/results/exp1_20260323_gemini_gemini-2-5-pro_fast_shard.jsonl",
    "results/exp9_escalation_16models.json": "data/results/exp9_combined_16model_escalation.json",
}
PACKET = "audit/human_baseline_packet"
PACKET_FILES = ["README.md", "protocol.md", "packet_manifest.json", "results/human_baseline_summary.json",
                "results/human_baseline_summary.md", "results/human_baseline_human20_summary.json",
                "results/human_baseline_human20_summary.md"]
PACKET_FOLDERS = ["answer_keys", "tasks", "templates", "cohort"]
EXP3_SOURCE = "data/results/exp3_v2_expanded_results.jsonl"
EXP3_TARGET = "results/exp3_v2_results.jsonl"
EXP3_LATER_MODELS = {"llama-3.1-70b", "gemma-3-27b", "kimi-k2", "mixtral-8x22b"}


def lay_out(clone: Path, out: Path) -> None:
    pairs = [(p, p) for p in SAME] + list(RENAMED.items()) + [(f"{PACKET}/{p}", f"{PACKET}/{p}") for p in PACKET_FILES]
    for folder in PACKET_FOLDERS:
        pairs += [(str(f.relative_to(clone)), str(f.relative_to(clone))) for f in sorted((clone / PACKET / folder).rglob("*"))
                  if f.is_file()]
    for target, source in pairs:
        (out / target).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(clone / source, out / target)
    lines = (clone / EXP3_SOURCE).read_text(encoding="utf-8").splitlines(keepends=True)
    (out / EXP3_TARGET).write_text("".join(ln for ln in lines if json.loads(ln)["model"] not in EXP3_LATER_MODELS),
                                   encoding="utf-8")


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit("usage: python tests/upstream_layout.py CLONE_OF_THE_AUTHORS_REPO OUT_DIR")
    lay_out(Path(sys.argv[1]), Path(sys.argv[2]))
