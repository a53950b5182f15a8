"""The live progress bar: trials done of total, requests per second, failures, retries, ETA.
Redraws at most ten times a second, so the per-request cost is one clock read."""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING

from mirror_hf.runner.engine import Progress

if TYPE_CHECKING:
    from rich.console import Console


@contextmanager
def progress_bar(
    total: int, description: str, *, enabled: bool, client: object = None, console: Console | None = None
) -> Iterator[Progress]:
    counters = Progress()
    if not enabled or total == 0:
        yield counters
        return
    from rich.console import Console
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        TextColumn,
        TimeElapsedColumn,
        TimeRemainingColumn,
    )
    from rich.progress import Progress as RichProgress

    console = console or Console(stderr=True)
    bar = RichProgress(
        TextColumn("[bold]{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("{task.fields[rate]:>6.1f} req/s"),
        TextColumn("[red]{task.fields[failed]} failed[/] {task.fields[retries]} retries"),
        TimeElapsedColumn(),
        TextColumn("ETA"),
        TimeRemainingColumn(),
        console=console,
        refresh_per_second=4,
    )
    task = bar.add_task(description, total=total, rate=0.0, failed=0, retries=0)
    started = time.monotonic()
    last = [0.0]

    def update(p: Progress, force: bool = False) -> None:
        now = time.monotonic()
        if not force and now - last[0] < 0.1:
            return
        last[0] = now
        elapsed = max(now - started, 1e-9)
        bar.update(task, completed=p.done, rate=p.sent / elapsed, failed=p.failed, retries=getattr(client, "retries", 0))

    counters.on_update = update
    with bar:
        try:
            yield counters
        finally:
            update(counters, force=True)
