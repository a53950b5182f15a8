"""Console entry point: `mirror-hf <command>`. One module per area registers its commands."""

from __future__ import annotations

import sys

# Each import registers that area's commands on `app` (order = order in --help).
from mirror_hf.cli import (
    build_cmd,  # noqa: F401,E402  build, sample, summary
    hub_cmd,  # noqa: F401,E402  push, export-eval-results
    import_cmd,  # noqa: F401,E402  import-upstream
    report_cmd,  # noqa: F401,E402  report
    run_cmd,  # noqa: F401,E402  run, profile, quickstart
    score_cmd,  # noqa: F401,E402  score
    tasks_cmd,  # noqa: F401,E402  tasks tailor
)
from mirror_hf.cli._app import app
from mirror_hf.errors import MirrorError

__all__ = ["app", "main"]


def main() -> None:
    """Run the CLI; any MirrorError becomes one line on stderr and exit code 2, with nothing half-written."""
    try:
        app()
    except MirrorError as exc:
        print(f"error: {exc}", file=sys.stderr)
        raise SystemExit(2) from None
