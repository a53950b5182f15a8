"""The built dataset folder (docs/architecture.md): writing splits as content-hashed
parquet, discovering what a folder holds, and regenerating its card and Croissant file from that.

Everything that adds data to a folder (build, run, import-upstream, profile, tasks tailor) goes
through `write_split` and then `mirror_hf.metadata.refresh_metadata`, so the README YAML and
croissant.json always describe exactly the files on disk. This module knows no config: it sits
below everything that declares one.
"""

from __future__ import annotations

import base64
import glob
import hashlib
import json
import os
import re
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import pyarrow as pa
import pyarrow.parquet as pq

from mirror_hf.errors import MirrorValueError
from mirror_hf.records import conform_row
from mirror_hf.writes import disk_error, refuse_replacing

if TYPE_CHECKING:  # datasets takes seconds to import: a run's request loop never needs it
    from datasets import Features

BUILD_MARKER = ".mirror_build.json"
SPLIT_NAME = re.compile(r"^\w+$", re.ASCII)
_DATA_FILE = re.compile(r"^(?P<split>\w+)-(?P<sha>[0-9a-f]{12})\.parquet$", re.ASCII)


class FolderError(MirrorValueError):
    """Bad input for a dataset folder (names the file, row and field where there is one)."""


def require_writable(root: Path, purpose: str) -> None:
    """Refuse a read-only dataset folder before any work (or any paid request) is done: the
    folder, its data/ and .runs/ must take new files."""
    for folder in (root, root / "data", root / ".runs"):
        if folder.exists() and not os.access(folder, os.W_OK | os.X_OK):
            raise FolderError(f"cannot write to {folder} (permission denied); {purpose}")


@dataclass(frozen=True)
class Publication:
    """Where a folder's card and Croissant are being published: the Hub dataset repo (it names the
    usage snippet and the Croissant `url`) and the repo's configs this folder does not hold
    (`configs:` / `dataset_info:` entries kept verbatim, so a push never drops another tool's config)."""

    repo_id: str
    carried_configs: tuple[dict, ...] = ()
    carried_infos: tuple[dict, ...] = ()

    @property
    def url(self) -> str:
        return f"https://huggingface.co/datasets/{self.repo_id}"


@dataclass(frozen=True)
class SplitFile:
    config: str
    split: str
    path: Path  # absolute

    def relative(self, root: Path) -> str:
        """The file's path inside `root`, however the root was spelled (`mirror`, `../ds`, a symlink)."""
        return self.path.relative_to(root.resolve()).as_posix()


def check_split_name(split: str) -> str:
    """Hub split names must be `\\w+` (datasets rejects `dev-small` with a misleading error)."""
    if not SPLIT_NAME.match(split):
        raise FolderError(f"split name {split!r} must match \\w+ (letters, digits, underscore)")
    return split


def model_split(model: str) -> str:
    """The split a model's trials and profile go to, whether the runner or `import-upstream` wrote
    them: the name lower-cased, every run of characters outside ASCII letters, digits and `_`
    replaced by one `_`, outer `_` stripped ("meta-llama/Llama-3.1-8B-Instruct" ->
    "meta_llama_llama_3_1_8b_instruct"). A name with nothing left is refused."""
    slug = re.sub(r"[^0-9a-z_]+", "_", str(model).lower()).strip("_")
    if not slug:
        raise FolderError(f"cannot make a split name from model {model!r}; pass --split NAME (letters, digits, _)")
    return slug


def sha256_file(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def rows_to_table(rows: list[dict], features: Features, *, where: str) -> pa.Table:
    """Rows -> arrow table with exactly the declared schema. On a type error, find and name the row
    and field (arrow's own message names neither)."""
    rows = [conform_row(features, row, where=f"{where} row {i}") for i, row in enumerate(rows)]
    schema = features.arrow_schema
    try:
        return pa.Table.from_pylist(rows, schema=schema)
    except (pa.ArrowInvalid, pa.ArrowTypeError, TypeError, OverflowError) as exc:
        for i, row in enumerate(rows):
            for name in features:
                try:
                    pa.array([row[name]], type=schema.field(name).type)
                except (pa.ArrowInvalid, pa.ArrowTypeError, TypeError, OverflowError) as cell_exc:
                    raise FolderError(
                        f"{where} row {i} field {name!r}: value {row[name]!r} does not fit "
                        f"{features[name]} ({cell_exc})"
                    ) from None
        raise FolderError(f"{where}: {exc}") from None


def write_split(root: Path, config: str, split: str, rows: list[dict] | pa.Table, features: Features, *,
                replace: bool = False) -> Path:
    """Write one split as `data/<config>/<split>-<sha12>.parquet` (`SplitWriter` with the whole table
    as one piece: the bytes `pq.write_table` writes). An existing file of that split with other
    content is replaced only with `replace=True` (the user's `--replace`), else `ReplaceRefused`."""
    check_split_name(split)
    table = rows if isinstance(rows, pa.Table) else rows_to_table(rows, features, where=f"{config}/{split}")
    with SplitWriter(root, config, split, table.schema, replace=replace) as writer:
        writer.write(table)
        return writer.finish()


def existing_split(root: Path, config: str, split: str) -> list[Path]:
    """The data files of split `config/split` on disk (normally none or one)."""
    folder = Path(root) / "data" / config
    if not folder.is_dir():
        return []
    return sorted(p for p in folder.glob(f"{glob.escape(split)}-*.parquet")
                  if (m := _DATA_FILE.match(p.name)) and m["split"] == split)


def split_rows(path: Path) -> int | None:
    try:
        return pq.read_metadata(path).num_rows
    except (OSError, pa.ArrowException):
        return None


def guard_split(root: Path, config: str, split: str, replace: bool) -> None:
    """Refuse, before any work is done, to write a split that exists (the write rule of
    `mirror_hf.writes`, for a writer that cannot know its content until it has paid for it: a run)."""
    old = existing_split(root, config, split)
    if old and not replace:
        rows = split_rows(old[0])
        raise refuse_replacing(f"split {split!r} of config {config!r}", root,
                               f"{rows:,} rows in {old[0].name}" if rows is not None else old[0].name)


class SplitWriter:
    """One split's parquet file written a piece at a time: each `write(table)` goes to disk at once
    (as row groups, one per piece up to pyarrow's default row-group size), so whoever writes a long
    run's records holds one piece, never the split. `finish(metadata)` adds schema metadata known
    only at the end (a run's manifest) and puts the file in place; `discard()`, or leaving the `with`
    block unfinished, removes it.

    The name carries a hash of the bytes because the datasets cache keys on file names, not contents.
    The file is written beside its final name under a dot name (`load_dataset` never sees it),
    fsynced and renamed, so a crash never leaves a torn file under a real name.
    """

    def __init__(self, root: Path, config: str, split: str, schema: pa.Schema, *, replace: bool = False):
        check_split_name(split)
        self.root = Path(root)
        self.config = config
        self.split = split
        self.schema = schema
        self.replace = replace
        self.folder = self.root / "data" / config
        if self.folder.exists() and not self.folder.is_dir():
            raise FolderError(f"{self.folder} is a file where the folder of config {config!r} belongs; "
                              f"run `mirror-hf verify --repair {self.root}` or move it away")
        self._made_folder = not self.folder.exists()
        self._writer: pq.ParquetWriter | None = None
        self.tmp = self.folder / f".{split}.tmp-{os.getpid()}.parquet"
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
            remove_stale(self.folder, f".{split}.tmp-")  # a write killed before its rename
            self._writer = pq.ParquetWriter(self.tmp, schema, compression="zstd")
        except OSError as exc:
            self.discard()
            raise disk_error(exc, self.folder) from None
        self._pieces = 0

    def __enter__(self) -> SplitWriter:
        return self

    def __exit__(self, *exc) -> None:
        if self._writer is not None or self.tmp.exists():
            self.discard()

    def write(self, table: pa.Table) -> None:
        try:
            self._writer.write_table(table)
        except OSError as exc:  # a full disk: the temp file goes, the split stays as it was
            self.discard()
            raise disk_error(exc, self.folder) from None
        self._pieces += 1

    def finish(self, metadata: dict[bytes, bytes] | None = None) -> Path:
        """Close, fsync, name by content hash; refuse (nothing written) if the split exists with other
        content and `replace` was not given; rename into place, then remove the split's old file."""
        if not self._pieces:  # no rows: one empty row group, as pq.write_table writes an empty table
            self.write(self.schema.empty_table())
        try:
            if metadata:
                # Footer key-value metadata added at the end is not what pq.read_schema shows: it restores
                # the schema (metadata included) from the ARROW:schema entry written at the start. So that
                # entry is replaced too, by the final schema serialized as the writer serializes it.
                final = self.schema.with_metadata({**(self.schema.metadata or {}), **metadata})
                self._writer.add_key_value_metadata({**metadata, b"ARROW:schema": base64.b64encode(final.serialize())})
            self._writer.close()
            self._writer = None
            with open(self.tmp, "rb+") as f:
                os.fsync(f.fileno())
        except OSError as exc:
            self.discard()
            raise disk_error(exc, self.folder) from None
        final_path = self.folder / f"{self.split}-{sha256_file(self.tmp)[:12]}.parquet"
        old = [p for p in existing_split(self.root, self.config, self.split) if p != final_path]
        if old and not self.replace:
            self.discard()
            rows = split_rows(old[0])
            raise refuse_replacing(f"split {self.split!r} of config {self.config!r}", self.root,
                                   f"{rows:,} rows in {old[0].name}" if rows is not None else old[0].name)
        try:
            os.replace(self.tmp, final_path)  # first the new file, then the old one goes: never no file
        except OSError as exc:
            self.discard()
            raise disk_error(exc, self.folder) from None
        for path in old:
            path.unlink(missing_ok=True)
        return final_path

    def discard(self) -> None:
        """No split after all (a run stopped by its budget or its failures): nothing stays behind."""
        if self._writer is not None:
            try:
                self._writer.close()
            except (OSError, pa.ArrowException):
                pass
            self._writer = None
        self.tmp.unlink(missing_ok=True)
        if self._made_folder:
            try:
                self.folder.rmdir()  # only if empty
            except OSError:
                pass


def split_files(root: Path) -> dict[str, list[SplitFile]]:
    """config -> its split files on disk, sorted by config and split name."""
    out: dict[str, list[SplitFile]] = {}
    data = root / "data"
    if not data.is_dir():
        return out
    for config_dir in sorted(p for p in data.iterdir() if p.is_dir()):
        files = []
        for path in sorted(config_dir.glob("*.parquet")):
            m = _DATA_FILE.match(path.name)
            if m:
                files.append(SplitFile(config_dir.name, m["split"], path.resolve()))
        if files:
            out[config_dir.name] = files
    return out


def features_on_disk(path: Path) -> Features:
    """Features of a parquet file written by `write_split` (datasets metadata in its schema)."""
    from datasets import Features

    return Features.from_arrow_schema(pq.read_schema(path))


def read_marker(root: Path) -> dict | None:
    marker = root / BUILD_MARKER
    if not marker.is_file():
        return None
    try:
        return json.loads(marker.read_text())
    except json.JSONDecodeError:
        return None


def write_marker(root: Path, content: dict) -> None:
    (root / BUILD_MARKER).write_text(json.dumps(content, indent=2, sort_keys=True) + "\n")


def pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def remove_stale(parent: Path, prefix: str) -> None:
    """Remove what a killed process left in `parent`: entries named `<prefix><pid>...` whose pid is
    no longer running (temp parquet files, staging and retired folders)."""
    for stale in parent.glob(f"{glob.escape(prefix)}*"):
        pid = re.match(r"\d+", stale.name[len(prefix):])
        if pid and int(pid[0]) != os.getpid() and not pid_alive(int(pid[0])):
            if stale.is_dir() and not stale.is_symlink():
                shutil.rmtree(stale, ignore_errors=True)
            else:
                stale.unlink(missing_ok=True)


def remove_folder_leftovers(out: Path) -> None:
    """Staging and retired copies of folder `out` left by a killed build, import or swap."""
    for kind in ("building", "importing", "old"):
        remove_stale(out.parent, f".{out.name}.{kind}-")


def swap_into_place(staging: Path, out: Path) -> None:
    """Replace folder `out` by the complete folder `staging` with renames only (each atomic on one
    file system), so a reader or a crash sees the old folder or the new one, never a mix."""
    if out.exists():
        retired = Path(tempfile.mkdtemp(prefix=f".{out.name}.old-{os.getpid()}-", dir=out.parent))
        os.replace(out, retired / out.name)
        os.replace(staging, out)
        shutil.rmtree(retired, ignore_errors=True)
    else:
        os.replace(staging, out)
