"""Console entry point: `mirror-hf <command>`. One module per area registers its commands."""

from __future__ import annotations

import sys

from mirror_hf.cli._app import UsageError, app
from mirror_hf.errors import MirrorError

# Each import registers that area's commands on `app` (order = order in --help).
# isort: off
from mirror_hf.cli import build_cmd  # noqa: F401,E402  build, sample, summary
from mirror_hf.cli import tasks_cmd  # noqa: F401,E402  tasks tailor
from mirror_hf.cli import run_cmd  # noqa: F401,E402  run, profile, quickstart
from mirror_hf.cli import score_cmd  # noqa: F401,E402  score
from mirror_hf.cli import import_cmd  # noqa: F401,E402  import-upstream
from mirror_hf.cli import hub_cmd  # noqa: F401,E402  push, export-eval-results
# isort: on

__all__ = ["UsageError", "app", "main"]


def main() -> None:
    """Run the CLI; any MirrorError becomes one line on stderr and exit code 2, with nothing half-written."""
    try:
        app()
    except MirrorError as exc:
        print(f"error: {exc}", file=sys.stderr)
        raise SystemExit(2) from None
