"""The one write rule of the package: nothing a user has is lost.

Every command that writes into a dataset folder or an output path goes through here (the split
writer `folder.SplitWriter` and `folder.write_split`, the card / Croissant / eval.yaml refresh, the
report's output folder, `score --json`):

- an existing split, task split, profile or file with different content is replaced only when the
  caller was given `--replace` (`refuse_replacing`); otherwise one line naming it, exit 2, nothing written;
- `report --out` goes only into a missing or empty folder or one holding a previous report (its
  marker file `REPORT_MARKER`), never onto the dataset it reads (`check_output_folder`);
- every file is written beside its final name under a dot name and renamed (`atomic_write`); a full
  disk or a read-only folder is one line (`WriteError`), and the target is as it was.

It sits with the error base (it imports nothing of the package but `errors`), so every room may call it.
"""

from __future__ import annotations

import errno
import os
from pathlib import Path

from mirror_hf.errors import MirrorError, MirrorValueError

__all__ = ["REPORT_MARKER", "ReplaceRefused", "WriteError", "atomic_write", "atomic_write_many", "check_output_folder", "disk_error",
           "is_disk_error", "markdown_text", "refuse_replacing"]

#: the file a report folder carries, so a later `report --out` knows it may replace that folder
REPORT_MARKER = ".mirror_report"
#: what a report written before the marker existed holds (and nothing else): replaced like a marked one
LEGACY_REPORT = frozenset({"index.html", "report.md", "scores.json", "figures", "trials"})
#: what the OS says when the disk, not the input, stops a write
DISK_ERRNOS = frozenset({errno.ENOSPC, errno.EDQUOT, errno.EROFS, errno.EACCES, errno.EPERM, errno.EFBIG, errno.EIO})


class WriteError(MirrorError):
    """A write the disk refused (full, read-only, permission): one line, the target as it was."""


class ReplaceRefused(MirrorValueError):
    """Existing data with other content, and no `--replace`: nothing is written."""


def is_disk_error(exc: BaseException) -> bool:
    return isinstance(exc, OSError) and exc.errno in DISK_ERRNOS


def disk_error(exc: OSError, target: Path | str) -> WriteError:
    """The one line for a write the disk refused."""
    reason = exc.strerror or str(exc)
    if exc.errno in (errno.EACCES, errno.EPERM, errno.EROFS):
        reason = f"{reason} (permission denied)" if "permission denied" not in reason.lower() else reason
    return WriteError(f"cannot write {target}: {reason}; nothing was changed there")


def refuse_replacing(what: str, where: Path | str, detail: str = "") -> ReplaceRefused:
    """The refusal for existing data of other content (the caller raises it)."""
    more = f" ({detail})" if detail else ""
    return ReplaceRefused(f"{what} already exists in {where} with other content{more}; pass --replace to replace it "
                          "(nothing was written)")


def atomic_write(path: Path, data: bytes | str, *, encoding: str = "utf-8") -> Path:
    """Write `data` to `path` through a dot-named temp file in the same folder, fsynced and renamed, so
    a reader or a crash sees the old file or the new one. A disk error leaves no temp file and raises
    `WriteError` naming the file."""
    path = Path(path)
    if path.is_dir():
        raise WriteError(f"cannot write {path}: it is a folder; name a file")
    tmp = path.with_name(f".{path.name}.tmp-{os.getpid()}")
    raw = data.encode(encoding) if isinstance(data, str) else data
    try:
        with open(tmp, "wb") as f:
            f.write(raw)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except OSError as exc:
        try:
            tmp.unlink(missing_ok=True)
        except OSError:
            pass
        raise disk_error(exc, path) from None
    return path


def atomic_write_many(files: dict[Path, bytes | str], *, encoding: str = "utf-8") -> None:
    """Several files as one change: every temp file is written and fsynced first, then all are
    renamed, so a full disk leaves every target as it was (the renames themselves need no space)."""
    temps: list[tuple[Path, Path]] = []
    try:
        for path, data in files.items():
            path = Path(path)
            if path.is_dir():
                raise WriteError(f"cannot write {path}: it is a folder; name a file")
            tmp = path.with_name(f".{path.name}.tmp-{os.getpid()}")
            temps.append((tmp, path))
            with open(tmp, "wb") as f:
                f.write(data.encode(encoding) if isinstance(data, str) else data)
                f.flush()
                os.fsync(f.fileno())
    except OSError as exc:
        for tmp, _ in temps:
            try:
                tmp.unlink(missing_ok=True)
            except OSError:
                pass
        raise disk_error(exc, temps[-1][1] if temps else next(iter(files), "?")) from None
    for tmp, path in temps:
        os.replace(tmp, path)


def markdown_text(value) -> str:
    """A name from a user or a model (a model name, an endpoint, a setting) as inert Markdown text on
    one line: HTML special characters escaped (`<script>` shows as text in every renderer, sanitising
    or not), table pipes, link brackets and backticks escaped, line breaks made spaces."""
    import html

    text = html.escape(" ".join(str(value).splitlines()), quote=False)
    for ch in ("\\", "|", "[", "]", "`"):
        text = text.replace(ch, "\\" + ch)
    return text


def _inside(path: Path, folder: Path) -> bool:
    return path == folder or folder in path.parents


def check_output_folder(out: Path, *, protect: tuple[Path, ...] = (), flag: str = "--out") -> None:
    """`out` may take a new report: it is missing, an empty folder, or a folder holding a previous
    report (its `REPORT_MARKER`). Never a file, a folder with anything else in it, a folder holding
    or inside one of `protect` (the dataset the report reads)."""
    out = Path(out).resolve()
    for folder in (Path(p).resolve() for p in protect):
        if _inside(folder, out):
            raise WriteError(f"{flag} {out} holds the dataset folder {folder}; name a new folder for the report "
                             f"(e.g. {out.parent / (folder.name + '-report')}); nothing was written")
        if _inside(out, folder):
            raise WriteError(f"{flag} {out} is inside the dataset folder {folder}; name a folder outside it "
                             f"(e.g. {folder.parent / (folder.name + '-report')}); nothing was written")
    if out.exists() and not out.is_dir():
        raise WriteError(f"{flag} {out} is a file; name a folder for the report (nothing was written)")
    if out.is_dir() and not (out / REPORT_MARKER).is_file():
        try:
            entries = sorted(p.name for p in out.iterdir())
        except OSError as exc:
            raise disk_error(exc, out) from None
        if entries and not (set(entries) <= LEGACY_REPORT and {"index.html", "report.md"} <= set(entries)):
            shown = ", ".join(entries[:3]) + (", ..." if len(entries) > 3 else "")
            raise WriteError(f"{flag} {out} is a folder holding other files ({shown}) and no previous report; "
                             "name an empty or new folder (nothing was written)")
