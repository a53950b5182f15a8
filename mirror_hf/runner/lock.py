"""One run per split: an exclusive lock on the split's run folder (`.runs/<split>/`, which holds its
results files), held from the run's first write to its split's last.

The lock is an `flock` on the folder itself: the kernel drops it when the holder dies, however it
dies, so a lock left by a killed run is simply taken by the next one, and nothing has to be deleted
to release it. The holder writes its pid, host and start time to `.holder.json` inside, so a
refused second run can say who holds it; the holder removes that file when it is done.
"""

from __future__ import annotations

import datetime as dt
import json
import os
import socket
from pathlib import Path

from mirror_hf.errors import MirrorError

HOLDER = ".holder.json"


class LockedError(MirrorError):
    """Another live run holds this split's results file."""


class RunLock:
    def __init__(self, folder: Path, what: str):
        self.folder = folder
        self.holder = folder / HOLDER
        self.what = what
        self._fd: int | None = None

    def __enter__(self) -> RunLock:
        import fcntl

        self.folder.mkdir(parents=True, exist_ok=True)
        fd = os.open(self.folder, os.O_RDONLY | os.O_DIRECTORY)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = _holder(self.holder)
            os.close(fd)
            raise LockedError(
                f"{self.what} is in use by another run (pid {holder.get('pid', '?')} on {holder.get('host', '?')}, "
                f"started {holder.get('started', '?')}); wait for it to finish, or stop it, then rerun with --resume"
            ) from None
        except BaseException:
            os.close(fd)
            raise
        stamp = {"pid": os.getpid(), "host": socket.gethostname(),
                 "started": dt.datetime.now(dt.UTC).isoformat(timespec="seconds")}
        self._fd = fd
        try:
            self.holder.write_text(json.dumps(stamp) + "\n")
        except BaseException:
            self.__exit__()
            raise
        return self

    def __exit__(self, *exc: object) -> None:
        if self._fd is not None:
            self.holder.unlink(missing_ok=True)
            os.close(self._fd)  # closing drops the flock
            self._fd = None


def _holder(path: Path) -> dict:
    try:
        holder = json.loads(path.read_text())
        return holder if isinstance(holder, dict) else {}
    except (OSError, ValueError):
        return {}
