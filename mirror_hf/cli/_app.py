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


def _resolved(value):
    from pathlib import Path

    if isinstance(value, Path):
        return value.expanduser().resolve()
    if isinstance(value, (list, tuple)) and any(isinstance(v, Path) for v in value):
        return type(value)(_resolved(v) for v in value)
    return value


def resolve_paths(command):
    """Every path a user gives (and every path default) is resolved once, here at the CLI boundary
    (`Path.resolve()`), for every command of the tree, those registered later included: `../ds`,
    `./ds` and a symlink name the same folder everywhere below (messages, card paths, relative_to)."""
    import functools

    callback = getattr(command, "callback", None)
    if callback is not None and not getattr(callback, "_mirror_resolves", False):
        @functools.wraps(callback)
        def resolving(*args, **kwargs):
            return callback(*args, **{k: _resolved(v) for k, v in kwargs.items()})

        resolving._mirror_resolves = True
        command.callback = resolving
    for sub in getattr(command, "commands", {}).values():
        resolve_paths(sub)
    return command
