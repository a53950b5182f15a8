"""Hub I/O: push a dataset folder (or only its new trial splits) to a dataset repo, and write
`.eval_results/*.yaml` entries for a model repo.

The token comes from the environment (`HF_TOKEN` by default) and is handed to `huggingface_hub`
only; it is never printed, logged or written. `.runs/` (the raw results files) is not pushed: the
splits are the published record, and the results files are a local cache.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from pathlib import Path

from mirror_hf.errors import MirrorValueError

REPO_ID = re.compile(r"^[A-Za-z0-9][\w.-]*/[\w.-]+$")
IGNORED = [".runs/**", ".runs", "**/__pycache__/**", "**/.*.tmp-*", ".git/**", ".cache/**"]
TRIAL_FILE = re.compile(r"^data/(?P<config>trials_\w+|profiles)/(?P<split>\w+)-[0-9a-f]{12}\.parquet$")


class HubError(MirrorValueError):
    """A push or export refused (one line: what is wrong and what to do)."""


@dataclass
class PushReport:
    repo_id: str
    commit_url: str | None
    added: list[str] = field(default_factory=list)
    deleted: list[str] = field(default_factory=list)


def _token(token_env: str) -> str | None:
    return os.environ.get(token_env) or None


def _check(folder: Path, repo_id: str) -> Path:
    folder = folder.absolute()
    if not REPO_ID.match(repo_id):
        raise HubError(f"--repo {repo_id!r} must look like ORG/NAME")
    if not (folder / "README.md").is_file() or not (folder / "data").is_dir():
        raise HubError(f"{folder} is not a dataset folder (needs README.md and data/); build one with `mirror-hf build`")
    return folder


def local_files(folder: Path) -> list[str]:
    """Repo-relative paths that a push uploads (everything but the ignored patterns)."""
    from fnmatch import fnmatch

    out = []
    for path in sorted(p for p in folder.rglob("*") if p.is_file()):
        rel = path.relative_to(folder).as_posix()
        if rel.startswith(".runs/") or any(fnmatch(rel, pattern) for pattern in IGNORED):
            continue
        out.append(rel)
    return out


def push(folder: Path, repo_id: str, *, only_trials: bool = False, private: bool | None = None,
         create_pr: bool = False, token_env: str = "HF_TOKEN", message: str | None = None) -> PushReport:
    """Upload the folder as one commit. With `only_trials`, upload only trial/profile splits the repo
    does not have yet (plus the regenerated card and Croissant, which describe them), and delete the
    repo's older files of those same splits; everything else must already be there."""
    from huggingface_hub import CommitOperationAdd, CommitOperationDelete, HfApi
    from huggingface_hub.errors import RepositoryNotFoundError

    folder = _check(folder, repo_id)
    api = HfApi(token=_token(token_env))
    files = local_files(folder)
    if not only_trials:
        api.create_repo(repo_id, repo_type="dataset", exist_ok=True, private=private)
        remote = set(api.list_repo_files(repo_id, repo_type="dataset"))
        stale = sorted(f for f in remote if f.startswith("data/") and f not in files)
        ops = [CommitOperationAdd(rel, str(folder / rel)) for rel in files]
        ops += [CommitOperationDelete(rel) for rel in stale]
        added = files
    else:
        try:
            remote = set(api.list_repo_files(repo_id, repo_type="dataset"))
        except RepositoryNotFoundError:
            raise HubError(f"{repo_id} does not exist on the Hub yet: push the whole folder first (without --only-trials)") from None
        missing = [f for f in files if f.startswith("data/") and not TRIAL_FILE.match(f) and f not in remote]
        if missing:
            raise HubError(f"{repo_id} lacks {len(missing)} non-trial data file(s) (e.g. {missing[0]}); push the whole folder first")
        new = [f for f in files if TRIAL_FILE.match(f) and f not in remote]
        new_splits = {(TRIAL_FILE.match(f)["config"], TRIAL_FILE.match(f)["split"]) for f in new}
        stale = sorted(
            f for f in remote
            if (m := TRIAL_FILE.match(f)) and (m["config"], m["split"]) in new_splits and f not in files
        )
        added = new + [f for f in ("README.md", "croissant.json") if f in files]
        ops = [CommitOperationAdd(rel, str(folder / rel)) for rel in added]
        ops += [CommitOperationDelete(rel) for rel in stale]
        if not new:
            return PushReport(repo_id, None, [], [])
    info = api.create_commit(
        repo_id, ops, repo_type="dataset", create_pr=create_pr,
        commit_message=message or (f"Add trial splits: {', '.join(sorted({a.split('/')[1] + '/' + a.split('/')[2].rsplit('-', 1)[0] for a in added if a.startswith('data/')}))}"
                                   if only_trials else "Upload Mirror dataset folder (mirror-hf push)"),
    )
    return PushReport(repo_id, getattr(info, "pr_url", None) or info.commit_url, added, stale)


# --------------------------------------------------------------------------------------------
# .eval_results for model repos
# --------------------------------------------------------------------------------------------


def eval_result_entries(folder: Path, split: str, dataset_id: str, *, dataset_revision: str | None = None,
                        source_url: str | None = None) -> list:
    """One `EvalResultEntry` per headline number of the model(s) whose trials are in `split`
    (`mirror_hf.scoring.headline`: the same values, frames and de-duplication as `mirror-hf score`)."""
    import math

    import polars as pl
    from huggingface_hub import EvalResultEntry

    from mirror_hf.experiments import read_trial_tables
    from mirror_hf.folder import split_files
    from mirror_hf.scoring import headline

    folder = folder.absolute()
    models = sorted({
        m for config, files in split_files(folder).items() if config.startswith("trials_")
        for f in files if f.split == split
        for m in pl.read_parquet(f.path, columns=["model"])["model"].drop_nulls().to_list()
    })
    entries = []
    for values in headline(read_trial_tables(folder), models=tuple(models)).values():
        for v in values:
            if v.value is None or math.isnan(v.value):
                continue
            entries.append(EvalResultEntry(
                dataset_id=dataset_id, task_id=v.headline.key, value=round(float(v.value), 4),
                dataset_revision=dataset_revision, notes=v.headline.description, source_url=source_url,
                source_name="mirror-hf" if source_url else None,
            ))
    return entries


def write_eval_results(entries: list, out: Path, name: str = "mirror") -> Path:
    import yaml
    from huggingface_hub import eval_result_entries_to_yaml

    if not entries:
        raise HubError("no headline number could be computed from this model's splits (run exp1 or exp9 first)")
    out.mkdir(parents=True, exist_ok=True)
    path = out / f"{name}.yaml"
    path.write_text(yaml.safe_dump(eval_result_entries_to_yaml(entries), sort_keys=False))
    return path


def upload_eval_results(path: Path, model_repo: str, *, create_pr: bool = True, token_env: str = "HF_TOKEN") -> str:
    from huggingface_hub import HfApi

    if not REPO_ID.match(model_repo):
        raise HubError(f"--model-repo {model_repo!r} must look like ORG/NAME")
    api = HfApi(token=_token(token_env))
    info = api.upload_file(path_or_fileobj=str(path), path_in_repo=f".eval_results/{path.name}", repo_id=model_repo,
                           repo_type="model", create_pr=create_pr, commit_message="Add Mirror eval results (mirror-hf)")
    return getattr(info, "pr_url", None) or str(info)
