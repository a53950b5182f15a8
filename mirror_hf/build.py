"""`mirror-hf build`: generate every config into a fresh dataset folder, atomically.

The folder is assembled in a temporary sibling directory and renamed into place only when complete,
so an interrupted build leaves either the previous folder or nothing. Configs that runs and imports
added to a previous build of the same form (same version, seed and scale) are carried over; rebuilding
a different form over them is refused unless forced, because their item ids would no longer match.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import tempfile
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

from mirror_hf._version import __version__
from mirror_hf.errors import MirrorValueError
from mirror_hf.folder import (
    BUILD_MARKER,
    FolderError,
    read_marker,
    split_files,
    swap_into_place,
    write_marker,
    write_split,
)
from mirror_hf.metadata import refresh_metadata

RUNS_DIR = ".runs"  # where `mirror-hf run` keeps its results files (see mirror_hf.runner)


class BuildError(MirrorValueError):
    """A build refused before writing anything (one line: what is wrong and how to proceed)."""


@dataclass(frozen=True)
class BuildRequest:
    out: Path
    seed: int = 0
    per_domain: int = 625
    configs: tuple[str, ...] | None = None  # None: every generated config
    force: bool = False


def _validate(request: BuildRequest) -> list[str]:
    from mirror_hf.dataset_builders import generated_configs, registry

    if isinstance(request.seed, bool) or not isinstance(request.seed, int) or request.seed < 0:
        raise BuildError(f"seed must be a non-negative integer, got {request.seed!r}")
    if request.per_domain < 1:
        raise BuildError(f"per-domain size must be at least 1, got {request.per_domain}")
    known = generated_configs()
    if request.configs is None:
        return known
    chosen = []
    for name in request.configs:
        if name not in known:
            kind = "is filled by runs or imports, not built" if name in registry() else "is unknown"
            raise BuildError(f"config {name!r} {kind}; buildable configs: {', '.join(known)}")
        if name not in chosen:
            chosen.append(name)
    return chosen


def _check_destination(out: Path, marker: dict | None, request: BuildRequest) -> None:
    if out.exists() and not out.is_dir():
        raise BuildError(f"--out {out} exists and is not a folder")
    if out.is_dir() and any(out.iterdir()) and marker is None and not request.force:
        raise BuildError(f"--out {out} is a non-empty folder that is not a previous mirror-hf build; use --force to replace it")
    parent = out.parent if out.parent != Path("") else Path(".")
    if not parent.exists():
        raise BuildError(f"parent folder {parent} of --out does not exist")
    if not os.access(parent, os.W_OK | os.X_OK):
        raise BuildError(f"cannot write to {parent} (permission denied)")


def _same_form(marker: dict | None, request: BuildRequest) -> bool:
    return bool(marker) and (marker.get("version"), marker.get("seed"), marker.get("per_domain")) == (
        __version__,
        request.seed,
        request.per_domain,
    )


def copy_metric_modules(dest: Path) -> list[str]:
    """Put each `evaluate` module beside the data, so `evaluate.load("<folder>/cfr")` works offline."""
    from mirror_hf.metric_folder import generated_files

    names = []
    root = resources.files("mirror_hf.metrics")
    for entry in sorted(root.iterdir(), key=lambda e: e.name):
        if entry.is_dir() and (entry / f"{entry.name}.py").is_file():
            target = dest / entry.name
            target.mkdir(parents=True, exist_ok=True)
            for f in sorted(entry.iterdir(), key=lambda e: e.name):
                if f.is_file() and f.name.endswith((".py", ".md")):
                    (target / f.name).write_bytes(f.read_bytes())
            for name, content in generated_files().items():  # app.py, requirements.txt: one template for all
                (target / name).write_text(content)
            names.append(entry.name)
    return names


def build(request: BuildRequest) -> Path:
    """Build the dataset folder; returns its path. Raises BuildError before touching anything on bad input."""
    from mirror_hf.dataset_builders import BuildContext, registry

    configs = _validate(request)
    out = request.out.absolute()
    marker = read_marker(out) if out.is_dir() else None
    _check_destination(out, marker, request)
    carried = {}
    if marker is not None:
        carried = {c: files for c, files in split_files(out).items() if c not in registry() or not registry()[c].generated}
        if carried and not _same_form(marker, request) and not request.force:
            raise BuildError(
                f"--out {out} holds run data ({', '.join(sorted(carried))}) for a different form "
                f"(version {marker.get('version')}, seed {marker.get('seed')}); use another --out, or --force to discard it"
            )
        if not _same_form(marker, request):
            carried = {}
        # --configs rebuilds some configs: the folder's other built configs stay (same form) or the
        # build is refused (another form: they would no longer match the rebuilt ones).
        others = {c: files for c, files in split_files(out).items()
                  if c in registry() and registry()[c].generated and c not in configs}
        if others and not _same_form(marker, request) and not request.force:
            raise BuildError(
                f"--configs {','.join(configs)} over {out} would drop its other configs ({', '.join(sorted(others))}), "
                f"built for another form (seed {marker.get('seed')}, per-domain {marker.get('per_domain')}); "
                "omit --configs to rebuild them all, or --force"
            )
        if _same_form(marker, request):
            carried.update(others)

    _remove_stale_staging(out)
    staging = Path(tempfile.mkdtemp(prefix=f".{out.name}.building-{os.getpid()}-", dir=out.parent))
    staging.chmod(0o755)  # mkdtemp makes it private; the result is a folder meant to be shared
    try:
        ctx = BuildContext(seed=request.seed, per_domain=request.per_domain)
        builders = registry()
        for name in configs:
            for split, rows in builders[name].generate(ctx).items():
                write_split(staging, name, split, rows, builders[name].features)
        for config, files in carried.items():
            for f in files:
                target = staging / f.relative(out)
                target.parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(f.path, target)
        if _same_form(marker, request) and (out / RUNS_DIR).is_dir():  # the runner's resume files and manifests go with their splits
            shutil.copytree(out / RUNS_DIR, staging / RUNS_DIR)
        metrics = copy_metric_modules(staging)
        kept = [c for c in carried if c in builders and builders[c].generated]
        write_marker(staging, _marker(request, [*configs, *kept], metrics, staging, ctx))
        refresh_metadata(staging)
        swap_into_place(staging, out)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    return out


def _marker(request: BuildRequest, configs: list[str], metrics: list[str], staging: Path, ctx=None) -> dict:
    from mirror_hf.bank import available_domains, load_domain
    from mirror_hf.bank._core import scenario_counts
    from mirror_hf.bank._leaks import leak_rows, strategy_table

    digest = hashlib.sha256()
    for config, files in split_files(staging).items():
        if config in configs:
            for f in files:
                digest.update(f.relative(staging).encode())
    return {
        "package": "mirror-hf",
        "version": __version__,
        "seed": request.seed,
        "per_domain": request.per_domain,
        "configs": configs,
        "metrics": metrics,
        "generators": {d: load_domain(d).version for d in available_domains()},
        "bank": bank_design(),
        # test-wise strategy shares per subcategory of this form (the card prints them)
        "leaks": leak_rows(strategy_table(ctx.questions()), scenario_counts(ctx.questions()))
        if ctx is not None and "questions" in configs else [],
        "build_hash": digest.hexdigest()[:16],
    }


def bank_design() -> list[dict]:
    """What made the bank: per domain its sources and per subcategory its generator and what each
    difficulty means. Stored in the build marker so the card can show it without importing (slow)
    generator modules every time a run refreshes the folder's metadata."""
    from mirror_hf.bank import available_domains, load_domain

    out = []
    for name in available_domains():
        domain = load_domain(name)
        subs = [
            {"name": s.name, "generator": domain.generator_tag(s.name), "difficulty": s.difficulty}
            for s in domain.subcategories.values()
        ]
        out.append({"name": name, "version": domain.version, "description": domain.description, "subcategories": subs})
    return out


def _remove_stale_staging(out: Path) -> None:
    """A build, import or swap killed outright (SIGKILL) cannot clean up; the next build removes what it left."""
    from mirror_hf.folder import remove_folder_leftovers

    remove_folder_leftovers(out)


__all__ = ["BUILD_MARKER", "BuildError", "BuildRequest", "FolderError", "build", "copy_metric_modules"]
