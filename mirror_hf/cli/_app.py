"""The `mirror-hf` typer application. Command modules register on `app`; heavy imports stay inside
the command functions so `mirror-hf --help` (and the runner's start-up) stays fast."""

import typer

from mirror_hf.errors import MirrorError

app = typer.Typer(
    name="mirror-hf",
    help="Mirror (arXiv 2604.19809): build the benchmark, run it against any OpenAI-compatible endpoint, score it.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    add_completion=False,
)


class UsageError(MirrorError):
    """A problem with the user's input: printed as one line, exit code 2, no traceback."""
