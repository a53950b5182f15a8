"""Is a dataset folder what `load_dataset` needs, and its data what was written?

`problems(root)` checks, cheaply enough for every command that reads a folder (`check_folder`):
- the card's YAML (README.md front matter) parses;
- every config and split the card lists exists, and every file it lists is present;
- every data file on disk is listed in the card, and in croissant.json, and Croissant lists no other;
- every `data/<config>/<split>-<sha12>.parquet` carries the first 12 hex digits of its bytes' sha256
  in its name (`folder.write_split`) and matches the full sha256 croissant.json lists for it.

A folder whose data files are intact but whose card or Croissant is stale or broken is repaired by
`mirror-hf verify --repair DIR` (the card and Croissant regenerated from the files on disk); a data
file that no longer matches its hash is not repairable here (rebuild or re-download it).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from mirror_hf.errors import MirrorValueError

REPAIR = "mirror-hf verify --repair"


class IntegrityError(MirrorValueError):
    """A folder `load_dataset` would fail on, or a data file that does not match its hash (names it)."""


@dataclass(frozen=True)
class Problem:
    """One thing wrong with a folder; `data`: a data file itself (not repairable from disk)."""

    text: str
    data: bool = False
    replaced: bool = False  # a self-consistent file where croissant.json lists another: repair accepts it only when asked

    def __str__(self) -> str:
        return self.text


def croissant_hashes(root: Path) -> dict[str, str]:
    """contentUrl -> sha256 of every file object in the folder's croissant.json (empty if none)."""
    path = root / "croissant.json"
    if not path.is_file():
        return {}
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise IntegrityError(f"{path} is damaged ({type(exc).__name__}); repair: `{REPAIR} {root}`") from None
    out = {}
    for entry in doc.get("distribution", []) if isinstance(doc, dict) else []:
        if isinstance(entry, dict) and isinstance(entry.get("contentUrl"), str) and isinstance(entry.get("sha256"), str):
            out[entry["contentUrl"]] = entry["sha256"]
    return out


def card_front_matter(root: Path) -> tuple[dict | None, str | None]:
    """The card's YAML as a dict, or (None, why it cannot be read)."""
    import yaml

    path = root / "README.md"
    if not path.is_file():
        return None, "README.md (the card) is missing"
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        return None, f"README.md cannot be read ({type(exc).__name__})"
    if not text.startswith("---"):
        return None, "README.md has no YAML front matter (no `configs:` for load_dataset)"
    end = text.find("\n---", 3)
    if end < 0:
        return None, "README.md: the YAML front matter is not closed by ---"
    try:
        doc = yaml.safe_load(text[3:end])
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" at line {mark.line + 2}" if mark is not None else ""
        return None, f"README.md: the card's YAML does not parse{where} ({getattr(exc, 'problem', None) or type(exc).__name__})"
    if not isinstance(doc, dict):
        return None, "README.md: the card's YAML is not a mapping"
    return doc, None


def card_files(doc: dict) -> tuple[dict[str, tuple[str, str]], list[str]]:
    """path -> (config, split) of every data file the card's `configs:` lists, and what is malformed."""
    import glob as globbing

    out: dict[str, tuple[str, str]] = {}
    bad: list[str] = []
    configs = doc.get("configs") or []
    if not isinstance(configs, list):
        return out, ["README.md: `configs:` is not a list"]
    for entry in configs:
        if not isinstance(entry, dict) or not isinstance(entry.get("config_name"), str):
            bad.append(f"README.md: a `configs:` entry has no config_name ({str(entry)[:60]})")
            continue
        config = entry["config_name"]
        files = entry.get("data_files") or []
        if isinstance(files, (str, dict)):
            files = [files]
        for item in files:
            split = item.get("split", "train") if isinstance(item, dict) else "train"
            paths = item.get("path") if isinstance(item, dict) else item
            for path in [paths] if isinstance(paths, str) else (paths or []):
                if not isinstance(path, str):
                    bad.append(f"README.md: config {config} split {split} has a data file that is not a path")
                elif globbing.has_magic(path):
                    out[f"glob:{path}"] = (config, split)
                else:
                    out[path] = (config, split)
    return out, bad


def problems(root: Path, skip: frozenset[tuple[str, str]] = frozenset(), *, hashes: bool = True) -> tuple[list[Problem], int]:
    """Every problem of the folder (one line each) and how many data files were checked; `skip`:
    (config, split) pairs not checked (a run rewriting that split after a crash)."""
    import glob as globbing

    from mirror_hf.folder import split_files

    root = Path(root).absolute()
    found: list[Problem] = []
    try:
        listed = croissant_hashes(root)
        croissant = (root / "croissant.json").is_file()
    except IntegrityError:
        found.append(Problem("croissant.json is damaged (not JSON)"))
        listed, croissant = {}, False
    carded = (root / "README.md").exists()  # a bare folder of parquet files has no card to disagree with
    doc, why = card_front_matter(root) if carded else (None, None)
    if why:
        found.append(Problem(why))
    in_card, malformed = card_files(doc) if doc is not None else ({}, [])
    found += [Problem(m) for m in malformed]
    for path, (config, split) in in_card.items():
        if (config, split) in skip:
            continue
        if path.startswith("glob:"):
            if not globbing.glob(str(root / path[5:])):
                found.append(Problem(f"README.md lists {path[5:]} (config {config}, split {split}); no file matches"))
        elif not (root / path).is_file():
            kind = "a folder" if (root / path).is_dir() else "missing"
            parent = (root / path).parent
            if parent.exists() and not parent.is_dir():
                kind = f"missing ({parent.relative_to(root).as_posix()} is a file, not a folder)"
            found.append(Problem(f"README.md lists {path} (config {config}, split {split}), which is {kind}"))
    on_disk = split_files(root)
    disk_rels = set()
    per_split: dict[tuple[str, str], list[str]] = {}
    for files in on_disk.values():
        for f in files:
            rel = f.relative(root)
            disk_rels.add(rel)
            per_split.setdefault((f.config, f.split), []).append(rel)
    for (config, split), rels in per_split.items():
        if (config, split) in skip:
            continue
        if len(rels) > 1:
            found.append(Problem(f"split {config}/{split} has {len(rels)} data files ({', '.join(rels)}); "
                                 "load_dataset would read them all"))
        for rel in rels:
            if doc is not None and rel not in in_card:
                found.append(Problem(f"{rel} is on disk but not listed in the card (load_dataset would not see it)"))
            if rel not in listed and croissant:
                found.append(Problem(f"{rel} is on disk but not listed in croissant.json"))
    if carded and not (root / "croissant.json").exists() and on_disk:
        found.append(Problem("croissant.json is missing"))
    for rel in sorted(listed):
        if rel.startswith("data/") and rel not in disk_rels and not _skipped(rel, skip):
            found.append(Problem(f"croissant.json lists {rel}, which is not on disk"))
    missing_listed = {rel.rsplit("-", 1)[0] for rel in listed if rel.startswith("data/") and rel not in disk_rels}
    checked = 0
    for files in on_disk.values():
        for f in files:
            if (f.config, f.split) in skip:
                continue
            checked += 1
            if not hashes:
                continue
            rel = f.relative(root)
            if rel not in listed and rel.rsplit("-", 1)[0] in missing_listed:
                found.append(Problem(f"{rel}: not the file croissant.json lists for split {f.config}/{f.split} "
                                     "(a file was replaced)", data=True, replaced=True))
                continue
            try:
                from mirror_hf.folder import sha256_file

                digest = sha256_file(f.path)
            except OSError as exc:
                found.append(Problem(f"{rel}: cannot be read ({exc.strerror or exc})", data=True))
                continue
            named = f.path.name.rsplit("-", 1)[1].removesuffix(".parquet")
            if not digest.startswith(named):
                found.append(Problem(f"{rel}: content changed since it was written (sha256 {digest[:12]}, name says {named})", data=True))
            elif rel in listed and listed[rel] != digest:
                found.append(Problem(f"{rel}: does not match the sha256 croissant.json lists ({listed[rel][:12]}...)", data=True))
    return found, checked


def _skipped(rel: str, skip: frozenset[tuple[str, str]]) -> bool:
    parts = rel.split("/")
    return len(parts) == 3 and (parts[1], parts[2].rsplit("-", 1)[0]) in skip


def repair_hint(root: Path, found: list[Problem]) -> str:
    if any(p.data and not p.replaced for p in found):
        return "a data file itself changed: rebuild the folder or re-download it"
    if any(p.replaced for p in found):
        return (f"if you replaced that file yourself, `{REPAIR} {root}` lists it in the card and Croissant; "
                "otherwise rebuild the folder or re-download it")
    return f"the data files are intact: `{REPAIR} {root}` regenerates the card and Croissant from them"


def check_folder(root: Path, skip: frozenset[tuple[str, str]] = frozenset()) -> None:
    """Raise IntegrityError naming the folder's first problem and its repair."""
    found, _ = problems(root, skip)
    if found:
        first = sorted(found, key=lambda p: not p.data)[0]
        more = f" (and {len(found) - 1} more; see `mirror-hf verify {root}`)" if len(found) > 1 else ""
        raise IntegrityError(f"{root}: {first}{more}; {repair_hint(root, found)}")
