"""Is a dataset folder's data what was written? Every `data/<config>/<split>-<sha12>.parquet` carries
the first 12 hex digits of its bytes' sha256 in its name (`folder.write_split`), and `croissant.json`
lists each file's full sha256. A file edited, cut or swapped in place no longer matches: `run`,
`score` and `summary` refuse it by name (`check_folder`), `mirror-hf verify DIR` lists all of them.

A file that croissant.json does not list yet (a crash between writing a split and refreshing the
metadata) is checked against its name only; the next write refreshes the metadata.
"""

from __future__ import annotations

import json
from pathlib import Path

from mirror_hf.errors import MirrorValueError


class IntegrityError(MirrorValueError):
    """A data file does not match its content hash (names the file)."""


def croissant_hashes(root: Path) -> dict[str, str]:
    """contentUrl -> sha256 of every file object in the folder's croissant.json (empty if none)."""
    path = root / "croissant.json"
    if not path.is_file():
        return {}
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise IntegrityError(f"{path} is damaged ({type(exc).__name__}); rebuild the metadata (rerun the last write)") from None
    out = {}
    for entry in doc.get("distribution", []) if isinstance(doc, dict) else []:
        if isinstance(entry, dict) and isinstance(entry.get("contentUrl"), str) and isinstance(entry.get("sha256"), str):
            out[entry["contentUrl"]] = entry["sha256"]
    return out


def problems(root: Path) -> tuple[list[str], int]:
    """One line per data file that does not match its hashes, and how many files were checked."""
    from mirror_hf.folder import sha256_file, split_files

    listed = croissant_hashes(root)
    found, checked = [], 0
    for files in split_files(root).values():
        for f in files:
            rel = f.relative(root)
            checked += 1
            try:
                digest = sha256_file(f.path)
            except OSError as exc:
                found.append(f"{rel}: cannot be read ({exc.strerror or exc})")
                continue
            named = f.path.name.rsplit("-", 1)[1].removesuffix(".parquet")
            if not digest.startswith(named):
                found.append(f"{rel}: content changed since it was written (sha256 {digest[:12]}, name says {named})")
            elif rel in listed and listed[rel] != digest:
                found.append(f"{rel}: does not match the sha256 croissant.json lists ({listed[rel][:12]}...)")
    return found, checked


def check_folder(root: Path) -> None:
    """Raise IntegrityError naming the first data file that does not match its hashes."""
    found, _ = problems(root)
    if found:
        more = f" (and {len(found) - 1} more; see `mirror-hf verify {root}`)" if len(found) > 1 else ""
        raise IntegrityError(f"{root}/{found[0]}{more}; rebuild or re-download the folder")
