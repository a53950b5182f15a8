"""mirror-hf: the Mirror benchmark (arXiv 2604.19809) as a declarative Hugging Face package.

`dataset_dir()` gives the built dataset folder for the installed version, so
`load_dataset(mirror_hf.dataset_dir(), "questions")` works from any directory.
"""

from __future__ import annotations

import os
from pathlib import Path

from mirror_hf._version import __version__

DEFAULT_SEED = 0

__all__ = ["DEFAULT_SEED", "__version__", "cache_root", "dataset_dir"]


def cache_root() -> Path:
    """Where built folders are kept: $MIRROR_HF_CACHE, else $XDG_CACHE_HOME/mirror_hf (~/.cache)."""
    if os.environ.get("MIRROR_HF_CACHE"):
        return Path(os.environ["MIRROR_HF_CACHE"])
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "mirror_hf"


def dataset_dir(seed: int = DEFAULT_SEED) -> Path:
    """The built dataset folder of this version and seed, built into the user cache on first use
    (about half a minute) and reused afterwards. Safe to call from several processes at once."""
    from filelock import FileLock

    from mirror_hf.build import BuildRequest, build
    from mirror_hf.folder import read_marker

    home = cache_root() / __version__ / f"seed{seed}"
    folder = home / "mirror"
    home.mkdir(parents=True, exist_ok=True)
    with FileLock(str(home / ".build.lock")):
        marker = read_marker(folder) if folder.is_dir() else None
        if not marker or marker.get("version") != __version__ or marker.get("seed") != seed:
            build(BuildRequest(out=folder, seed=seed, force=True))
    return folder
