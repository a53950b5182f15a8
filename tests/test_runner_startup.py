"""What a run imports before its first request: none of the libraries that take seconds to load
and that only the records, the split or the card need (the records worker and the metadata child
import those on the other core while the requests are in flight)."""

from __future__ import annotations

import json
import subprocess
import sys

HEAVY = ("datasets", "pandas", "polars", "scipy", "huggingface_hub", "mlcroissant", "pyarrow.dataset")

# The CLI's own path up to the first request: its module, the metadata worker's class, the plan
# (which reads the folder's parquet files) and the HTTP client.
PROBE = """
import json, sys
from pathlib import Path
import mirror_hf.cli.run_cmd
from mirror_hf.metadata import MetadataWorker
from mirror_hf.experiments import get
from mirror_hf.runner.plan import PlanOptions, build_plan
from mirror_hf.runner.client import ChatClient, RetryPolicy
from mirror_hf.runner.limiter import RateLimiter
plan = build_plan(Path(sys.argv[1]), PlanOptions(limit=8), get("exp1"))
ChatClient("http://127.0.0.1:9/v1", "x", concurrency=1, policy=RetryPolicy(), limiter=RateLimiter(1))
print(json.dumps({"jobs": len(plan.jobs), "loaded": [m for m in json.loads(sys.argv[2]) if m in sys.modules]}))
"""


def test_the_request_loop_starts_without_the_slow_libraries(dataset):
    proc = subprocess.run([sys.executable, "-c", PROBE, str(dataset), json.dumps(HEAVY)], capture_output=True, text=True,
                          timeout=300, check=False)
    assert proc.returncode == 0, proc.stderr[-3000:]
    out = json.loads(proc.stdout.strip().splitlines()[-1])
    assert out["jobs"] > 0
    assert out["loaded"] == [], f"imported before the first request: {out['loaded']}"


def test_the_plan_still_hands_out_the_trial_features(dataset):
    from mirror_hf.experiments import get
    from mirror_hf.records import TRIAL_EXP1_FEATURES
    from mirror_hf.runner.plan import PlanOptions, build_plan

    plan = build_plan(dataset, PlanOptions(limit=8), get("exp1"))  # Features read when first asked for
    assert plan.features == TRIAL_EXP1_FEATURES and "request_key" in plan.features
