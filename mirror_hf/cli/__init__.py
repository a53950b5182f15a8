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
from mirror_hf.cli import inspect_cmd  # noqa: F401,E402  import-inspect
from mirror_hf.cli import report_cmd  # noqa: F401,E402  report
from mirror_hf.cli import study_cmd  # noqa: F401,E402  study
from mirror_hf.cli import human_cmd  # noqa: F401,E402  human-packet, import-human
# isort: on

__all__ = ["UsageError", "app", "main"]


def main() -> None:
    """Run the CLI; any MirrorError becomes one line on stderr and exit code 2, with nothing half-written."""
    import typer

    from mirror_hf.cli._app import resolve_paths
    from mirror_hf.writes import disk_error, is_disk_error

    cli = _click_exceptions()
    try:
        code = resolve_paths(typer.main.get_command(app))(standalone_mode=False)
    except MirrorError as exc:
        print(f"error: {exc}", file=sys.stderr)
        raise SystemExit(2) from None
    except OSError as exc:  # the disk, not the input: full, read-only, no permission (the writes were atomic)
        if not is_disk_error(exc):
            raise
        print(f"error: {disk_error(exc, exc.filename or 'a file')}", file=sys.stderr)
        raise SystemExit(2) from None
    except getattr(cli, "NoArgsIsHelpError", ()) as exc:  # `mirror-hf` alone, or a group without its command
        print(exc.ctx.get_help() if exc.ctx else exc.format_message(), file=sys.stderr)
        raise SystemExit(2) from None
    except cli.UsageError as exc:  # a flag typed wrong: one line, as for every other bad input
        where = f" (see `{exc.ctx.command_path} --help`)" if exc.ctx else ""
        print(f"error: {exc.format_message()}{where}", file=sys.stderr)
        raise SystemExit(2) from None
    except cli.ClickException as exc:
        print(f"error: {exc.format_message()}", file=sys.stderr)
        raise SystemExit(exc.exit_code) from None
    except typer.Abort:
        print("error: aborted", file=sys.stderr)
        raise SystemExit(1) from None
    if isinstance(code, int) and code:
        raise SystemExit(code)


def _click_exceptions():
    """The exception module of the click the installed Typer runs on (recent Typer carries its own)."""
    try:
        from typer._click import exceptions
    except ImportError:
        from click import exceptions
    return exceptions
