"""Regenerating a dataset folder's metadata — the card (README.md with its YAML `configs:` and
`dataset_info:`), croissant.json and eval.yaml — from what the folder holds and what the config
declarations (`dataset_builders`) say. Everything that adds a split calls `refresh_metadata`
afterwards; the card and Croissant modules take what they render as arguments, so neither reaches
back here.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from mirror_hf.folder import Publication


def _writers():
    """The modules refresh_metadata uses (mlcroissant and the card templates: seconds and ~100 MB to import)."""
    from mirror_hf.benchmark import eval_yaml_text
    from mirror_hf.card import render_card
    from mirror_hf.croissant import croissant_json

    def croissant_text(root: Path, publication: Publication | None) -> str:  # as croissant.write_croissant writes it
        return json.dumps(croissant_json(root, publication), indent=2, ensure_ascii=False, default=str) + "\n"
    from mirror_hf.dataset_builders import config_features, registry

    return render_card, croissant_text, eval_yaml_text, config_features, registry


def refresh_metadata(root: Path, publication: Publication | None = None) -> None:
    """Regenerate README.md (card + YAML), croissant.json and eval.yaml from the folder's files (and,
    when it is being pushed, from where it is published). The three are rendered first and put in
    place as one change (`writes.atomic_write_many`): a full disk leaves all three as they were."""
    from mirror_hf.benchmark import EVAL_YAML
    from mirror_hf.writes import atomic_write_many

    render_card, croissant_text, eval_yaml_text, config_features, registry = _writers()
    root = Path(root)
    known = registry()
    card = render_card(root, config_features(root), {name: b.description for name, b in known.items()}, publication)
    atomic_write_many({root / "README.md": card, root / "croissant.json": croissant_text(root, publication),
                       root / EVAL_YAML: eval_yaml_text()})


_CHILD = """
import json, os, sys
sys.path[:] = json.loads(sys.argv[1])
from pathlib import Path
from mirror_hf import metadata
metadata._writers()
# What the writers import on first use (mlcroissant's graph and torch adapter, the card's jinja
# template engine, the provenance rows): seconds that would otherwise follow the run's last request.
import jinja2, mlcroissant, mirror_hf.provenance
for line in sys.stdin:
    try:
        metadata.refresh_metadata(Path(json.loads(line)))
        print("ok", flush=True)
    except BaseException:
        print("failed", flush=True)
os._exit(0)  # every reply is flushed: skip tearing down the ~100 MB of imports (seconds the parent would wait on)
"""


class MetadataWorker:
    """`refresh_metadata` in a child process started before a run: its imports happen on the other
    core while the run sends requests, and never enter the runner's own memory (its peak drops by
    those ~100 MB). Any failure of the child falls back to refreshing here, which raises the real
    error. Where the writers are already imported (a second run in one process), it refreshes here."""

    def __init__(self, spawn: bool | None = None) -> None:
        self._proc = None
        self._used = False
        if spawn if spawn is not None else "mlcroissant" not in sys.modules:
            try:
                self._proc = subprocess.Popen([sys.executable, "-c", _CHILD, json.dumps(sys.path)], stdin=subprocess.PIPE,
                                              stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
            except OSError:
                self._proc = None

    def __call__(self, root: Path) -> None:
        proc = self._proc
        if proc is not None:
            try:
                self._used = True
                proc.stdin.write(json.dumps(str(Path(root).absolute())) + "\n")
                proc.stdin.flush()
                if proc.stdout.readline().strip() == "ok":
                    return
            except OSError:
                pass
            self.close()
        refresh_metadata(root)

    def close(self) -> None:
        proc, self._proc = self._proc, None
        if proc is None:
            return
        if not self._used:
            proc.kill()  # a run that stopped before writing: the child has only been importing
        try:
            proc.stdin.close()  # an idle child's loop ends at end of input
        except OSError:
            pass
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        proc.stdout.close()

    def __enter__(self) -> MetadataWorker:
        return self

    def __exit__(self, *exc) -> None:
        self.close()
