"""Regenerating a dataset folder's metadata — the card (README.md with its YAML `configs:` and
`dataset_info:`), croissant.json and eval.yaml — from what the folder holds and what the config
declarations (`dataset_builders`) say. Everything that adds a split calls `refresh_metadata`
afterwards; the card and Croissant modules take what they render as arguments, so neither reaches
back here.
"""

from __future__ import annotations

from pathlib import Path

from mirror_hf.folder import Publication


def refresh_metadata(root: Path, publication: Publication | None = None) -> None:
    """Regenerate README.md (card + YAML), croissant.json and eval.yaml from the folder's files (and,
    when it is being pushed, from where it is published)."""
    from mirror_hf.benchmark import write_eval_yaml
    from mirror_hf.card import write_card
    from mirror_hf.croissant import write_croissant
    from mirror_hf.dataset_builders import config_features, registry

    known = registry()
    write_card(root, config_features(root), {name: b.description for name, b in known.items()}, publication)
    write_croissant(root, publication)
    write_eval_yaml(root)
