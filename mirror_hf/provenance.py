"""How each trial split was made, in the form it is published: the run manifest the runner stores in
the split's parquet metadata (the one source), written beside the data as `runs/<config>/<split>.json`
when a folder is pushed, and summarised per model in the dataset card.

The manifest never holds a secret (the key's variable name only); the endpoint is redacted once
more here (no user-info, no query) in case a manifest came from another tool.
"""

from __future__ import annotations

import json
from pathlib import Path

RUNS_DIR = "runs"
TRIAL_CONFIG_PREFIX = "trials_"


def manifest_path(config: str, split: str) -> str:
    """Repo-relative path of a split's published manifest."""
    return f"{RUNS_DIR}/{config}/{split}.json"


def redact_endpoint(url: str | None) -> str | None:
    from mirror_hf.runner.session import public_url

    if not url or "://" not in url:
        return url
    return public_url(url)


def split_manifest(path: Path) -> dict | None:
    """The manifest of one trials parquet file, endpoint redacted (None when it has none)."""
    from mirror_hf.runner.trials import read_manifest

    manifest = read_manifest(path)
    if manifest is None:
        return None
    return {**manifest, "endpoint": redact_endpoint(manifest.get("endpoint"))}


def summary(manifest: dict) -> dict:
    """The fields the card's per-model table shows (all present in every runner manifest)."""
    generation = manifest.get("generation") or {}
    settings = manifest.get("settings") or {}
    dataset = manifest.get("dataset") or {}
    from mirror_hf.participants import LABEL, SIMULATED

    return {
        "model": manifest.get("model"),
        "kind": LABEL.get(manifest.get("source")),  # a human participant, or the authors' AI-simulated one
        "simulated": manifest.get("source") == SIMULATED,
        "version": manifest.get("version"),
        "build_hash": dataset.get("build_hash"),
        "temperature": generation.get("temperature"),
        "max_tokens": generation.get("max_tokens"),
        "seed": generation.get("seed"),
        "matcher": settings.get("matcher"),
        "answer_format": settings.get("answer_format") or (manifest.get("protocol_sha256") or "")[:12] or None,
        "prompts_sha256": (manifest.get("prompts_sha256") or "")[:12] or None,
        "endpoint": redact_endpoint(manifest.get("endpoint")),
        "started": manifest.get("started"),
        "finished": manifest.get("finished"),
    }


def write_manifests(root: Path) -> list[str]:
    """Write `runs/<config>/<split>.json` for every trial split of the folder that carries a manifest;
    returns the repo-relative paths written."""
    from mirror_hf.folder import split_files

    written = []
    for config, files in split_files(root).items():
        if not config.startswith(TRIAL_CONFIG_PREFIX):
            continue
        for f in files:
            manifest = split_manifest(f.path)
            if manifest is None:
                continue
            rel = manifest_path(config, f.split)
            target = root / rel
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(json.dumps(manifest, indent=2, sort_keys=True) + "\n")
            written.append(rel)
    return written


def card_rows(root: Path) -> list[dict]:
    """One row per trial split for the card: config, split, manifest file and the summary fields."""
    from mirror_hf.folder import split_files
    from mirror_hf.writes import markdown_text

    rows = []
    for config, files in split_files(root).items():
        if not config.startswith(TRIAL_CONFIG_PREFIX):
            continue
        for f in files:
            manifest = split_manifest(f.path)
            if manifest is not None:
                shown = {k: v if v is None or isinstance(v, (int, float)) else markdown_text(v) for k, v in summary(manifest).items()}
                rows.append({"config": config, "split": f.split, "file": manifest_path(config, f.split), **shown})
    return rows
