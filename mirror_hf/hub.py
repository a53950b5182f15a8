"""Hub I/O: merge a dataset folder (or only its new trial splits) into a dataset repo, and write
`.eval_results/*.yaml` entries for a model repo.

The token comes from the environment (`HF_TOKEN` by default) and is handed to `huggingface_hub`
only; it is never printed, logged or written. `.runs/` (the raw results files) is not pushed: the
splits are the published record, and the results files are a local cache.
"""

from __future__ import annotations

import os
import re
import shutil
from dataclasses import dataclass, field
from pathlib import Path

from mirror_hf.errors import MirrorValueError
from mirror_hf.folder import Publication
from mirror_hf.provenance import RUNS_DIR

REPO_ID = re.compile(r"^[A-Za-z0-9][\w.-]*/[\w.-]+$")
IGNORED = [".runs/**", ".runs", "**/__pycache__/**", "**/.*.tmp-*", ".git/**", ".cache/**"]
TRIAL_CONFIG = re.compile(r"^(trials_\w+|profiles)$")  # one split per model: what --only-trials pushes


DATA_FILE = re.compile(r"^data/(?P<config>\w+)/(?P<split>\w+)-[0-9a-f]{12}\.parquet$")
GENERATED = ("README.md", "croissant.json", "eval.yaml")  # regenerated from the merged state on every push
MAX_ATTEMPTS = 5  # commits lost to a concurrent push before giving up


class HubError(MirrorValueError):
    """A push or export refused (one line: what is wrong and what to do)."""


@dataclass
class PushReport:
    repo_id: str
    commit_url: str | None
    added: list[str] = field(default_factory=list)
    deleted: list[str] = field(default_factory=list)
    splits: list[str] = field(default_factory=list)  # "config/split" this push added or replaced
    attempts: int = 1
    skipped: list[str] = field(default_factory=list)  # symlinks and special files in the folder, not uploaded


def _token(token_env: str) -> str | None:
    return os.environ.get(token_env) or None


def _check(folder: Path, repo_id: str) -> Path:
    folder = folder.absolute()
    if not REPO_ID.match(repo_id):
        raise HubError(f"--repo {repo_id!r} must look like ORG/NAME")
    if not (folder / "README.md").is_file() or not (folder / "data").is_dir():
        raise HubError(f"{folder} is not a dataset folder (needs README.md and data/); build one with `mirror-hf build`")
    return folder


def local_files(folder: Path, skipped: list[str] | None = None) -> list[str]:
    """Repo-relative paths of the folder that a push may upload (everything but the ignored patterns):
    regular files inside the folder only. A symlink (to a file outside or inside, or a linked folder)
    is never followed: its path goes to `skipped`, so the push says what it left out."""
    from fnmatch import fnmatch

    out = []
    for path in sorted(folder.rglob("*")):
        rel = path.relative_to(folder).as_posix()
        if rel.startswith(".runs/") or any(fnmatch(rel, pattern) for pattern in IGNORED):
            continue
        linked = path.is_symlink() or any(p.is_symlink() for p in path.relative_to(folder).parents if p != Path("."))
        if linked or (path.exists() and not path.is_dir() and not path.is_file()):
            if skipped is not None and (path.is_symlink() or not path.is_dir()):
                skipped.append(rel)
            continue
        if path.is_file():
            out.append(rel)
    return out


def _splits(paths) -> dict[tuple[str, str], str]:
    """(config, split) -> its data file, for the content-hashed parquet files among `paths`."""
    return {(m["config"], m["split"]): p for p in paths if (m := DATA_FILE.match(p))}


def is_trial_config(config: str) -> bool:
    return bool(TRIAL_CONFIG.match(config))


@dataclass(frozen=True)
class MergePlan:
    """What a push changes: the local data files to upload, the remote ones it replaces (only with
    --replace), and the data files of the merged state (remote kept + local uploaded)."""

    upload: tuple[str, ...]
    delete: tuple[str, ...]
    merged: dict  # (config, split) -> repo path
    new_splits: tuple[str, ...]


def plan_merge(local: list[str], remote: list[str], repo_id: str, *, replace: bool, only_trials: bool) -> MergePlan:
    """The union of the repo's splits and the folder's. A split on both sides with different content
    (content-hashed file names differ) is refused unless `replace`. With `only_trials`, the folder's
    other splits are not uploaded and must already be on the Hub as they are here (the trials were run
    on them)."""
    mine, theirs = _splits(local), _splits(remote)
    upload, delete, new, conflicts = [], [], [], []
    for key, path in sorted(mine.items()):
        there = theirs.get(key)
        if only_trials and not is_trial_config(key[0]):
            if there != path:
                what = "lacks" if there is None else "has a different"
                raise HubError(f"{repo_id} {what} {key[0]}/{key[1]} than this folder ({path}): the trials were run on "
                               "another build; push the whole folder first (without --only-trials)")
            continue
        if there == path:
            continue
        if there is not None and not replace:
            conflicts.append((key, there, path))
            continue
        upload.append(path)
        new.append(f"{key[0]}/{key[1]}")
        if there is not None:
            delete.append(there)
    if conflicts:
        (config, split), there, path = conflicts[0]
        more = f" (and {len(conflicts) - 1} more)" if len(conflicts) > 1 else ""
        raise HubError(f"{repo_id} already has split {config}/{split} with different content ({there.rsplit('/', 1)[1]} "
                       f"there, {path.rsplit('/', 1)[1]} here){more}; pass --replace to overwrite it, or use another split name")
    merged = dict(theirs)
    merged.update({k: v for k, v in mine.items() if v in upload})
    return MergePlan(tuple(upload), tuple(delete), merged, tuple(new))


def _remote_state(api, repo_id: str) -> tuple[str | None, list[str]]:
    """The branch head and the repo's files at (or after) it."""
    info = api.repo_info(repo_id, repo_type="dataset")
    return info.sha, sorted(s.rfilename for s in (info.siblings or []))


def _carried(api, repo_id: str, head: str | None, remote: list[str], merged_configs: set[str]) -> Publication:
    """The remote card's configs that are not made of our data files (another tool's), kept as they are."""
    from huggingface_hub import DatasetCard, hf_hub_download

    if "README.md" not in remote:
        return Publication(repo_id)
    import yaml

    text = Path(hf_hub_download(repo_id, "README.md", repo_type="dataset", revision=head, token=api.token)).read_text()
    try:
        data = DatasetCard(text).data.to_dict()
    except (yaml.YAMLError, ValueError, TypeError, AttributeError) as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" at line {mark.line + 2}" if mark is not None else ""
        raise HubError(f"{repo_id}: the card on the Hub (README.md) has YAML that does not parse{where} "
                       f"({getattr(exc, 'problem', None) or type(exc).__name__}); fix or remove it there, then push again") from None
    if not isinstance(data.get("configs") or [], list) or not all(isinstance(c, dict) for c in data.get("configs") or []):
        raise HubError(f"{repo_id}: the card on the Hub (README.md) has a `configs:` that is not a list of mappings; "
                       "fix it there, then push again")
    configs = tuple(c for c in data.get("configs") or [] if c.get("config_name") not in merged_configs)
    names = {c.get("config_name") for c in configs}
    infos = data.get("dataset_info") or []
    infos = tuple(i for i in (infos if isinstance(infos, list) else [infos]) if i.get("config_name") in names)
    return Publication(repo_id, configs, infos)


def _link(source: Path, target: Path) -> None:
    source = source.resolve()  # the Hub cache hands out symlinks into its blob store
    target.parent.mkdir(parents=True, exist_ok=True)
    try:
        os.link(source, target)
    except OSError:
        shutil.copyfile(source, target)


def _stage(folder: Path, plan: MergePlan, api, repo_id: str, head: str | None, remote: list[str], stage: Path) -> None:
    """Lay out the merged state in `stage`: every data file of it (local ones linked, the repo's
    fetched), the build marker, then card, Croissant and run manifests regenerated from it."""
    from huggingface_hub import hf_hub_download

    from mirror_hf.folder import BUILD_MARKER
    from mirror_hf.metadata import refresh_metadata
    from mirror_hf.provenance import write_manifests

    for path in plan.merged.values():
        if (folder / path).is_file():  # content-hashed: same name, same bytes
            _link(folder / path, stage / path)
        else:
            _link(Path(hf_hub_download(repo_id, path, repo_type="dataset", revision=head, token=api.token)), stage / path)
    if (folder / BUILD_MARKER).is_file():
        _link(folder / BUILD_MARKER, stage / BUILD_MARKER)
    elif BUILD_MARKER in remote:
        _link(Path(hf_hub_download(repo_id, BUILD_MARKER, repo_type="dataset", revision=head, token=api.token)), stage / BUILD_MARKER)
    publication = _carried(api, repo_id, head, remote, {c for c, _ in plan.merged})
    refresh_metadata(stage, publication)
    write_manifests(stage)


def _metric_files(folder: Path, files: list[str]) -> list[str]:
    """The folder's `evaluate` modules (`<name>/<name>.py` and everything beside it)."""
    names = {rel.split("/", 1)[0] for rel in files if rel.count("/") == 1 and rel.endswith(".py")
             and rel.split("/", 1)[1] == rel.split("/", 1)[0] + ".py"}
    return [rel for rel in files if rel.split("/", 1)[0] in names and "/" in rel]


def _is_conflict(exc: Exception) -> bool:
    """The Hub's answer to a commit whose parent_commit is no longer the head (412)."""
    response = getattr(exc, "response", None)
    return getattr(response, "status_code", None) == 412


def push(folder: Path, repo_id: str, *, only_trials: bool = False, replace: bool = False, private: bool | None = None,
         create_pr: bool = False, token_env: str = "HF_TOKEN", message: str | None = None) -> PushReport:
    """Merge the folder into the dataset repo in one commit and never lose what is there: the repo's
    splits stay, the folder's are added (a split on both sides with different content is refused
    unless `replace`), and card, Croissant and run manifests are regenerated from the merged state.
    The commit names the head it was planned on (`parent_commit`); when another push got there
    first, the Hub refuses it and the merge is planned again on the new head.

    With `only_trials`, only trial/profile splits (and the regenerated card, Croissant, manifests and
    metric modules) are uploaded; the repo must already hold the rest of this folder."""
    import tempfile

    from huggingface_hub import CommitOperationAdd, CommitOperationDelete, HfApi
    from huggingface_hub.errors import HfHubHTTPError, RepositoryNotFoundError

    from mirror_hf.integrity import check_folder

    folder = _check(folder, repo_id)
    check_folder(folder)  # a broken folder is never published
    api = HfApi(token=_token(token_env))
    skipped: list[str] = []
    files = local_files(folder, skipped)
    if only_trials:
        try:
            api.repo_info(repo_id, repo_type="dataset")
        except RepositoryNotFoundError:
            raise HubError(f"{repo_id} does not exist on the Hub yet: push the whole folder first (without --only-trials)") from None
    else:
        api.create_repo(repo_id, repo_type="dataset", exist_ok=True, private=private)
    if only_trials:
        extra = _metric_files(folder, files)
    else:
        extra = [rel for rel in files if not rel.startswith(("data/", f"{RUNS_DIR}/")) and rel not in GENERATED]
    for attempt in range(1, MAX_ATTEMPTS + 1):
        head, remote = _remote_state(api, repo_id)
        plan = plan_merge(files, remote, repo_id, replace=replace, only_trials=only_trials)
        if only_trials and not plan.upload:
            return PushReport(repo_id, None, attempts=attempt, skipped=skipped)
        with tempfile.TemporaryDirectory(prefix="mirror-hf-push-") as tmp:
            stage = Path(tmp) / "repo"
            _stage(folder, plan, api, repo_id, head, remote, stage)
            generated = [rel for rel in local_files(stage) if rel in GENERATED or rel.startswith(f"{RUNS_DIR}/")]
            ops = [CommitOperationAdd(rel, str(folder / rel)) for rel in (*plan.upload, *extra)]
            ops += [CommitOperationAdd(rel, str(stage / rel)) for rel in generated]
            ops += [CommitOperationDelete(rel) for rel in plan.delete]
            summary = message or (f"Add splits: {', '.join(plan.new_splits)} (mirror-hf push)" if plan.new_splits
                                  else "Update Mirror dataset metadata (mirror-hf push)")
            try:
                info = api.create_commit(repo_id, ops, repo_type="dataset", create_pr=create_pr,
                                         parent_commit=head, commit_message=summary)
            except HfHubHTTPError as exc:
                if _is_conflict(exc) and attempt < MAX_ATTEMPTS:
                    continue
                if _is_conflict(exc):
                    raise HubError(f"{repo_id} kept changing during the push ({MAX_ATTEMPTS} attempts); try again") from None
                raise HubError(f"the Hub refused the commit to {repo_id}: {str(exc).splitlines()[0]}") from None
        added = [op.path_in_repo for op in ops if isinstance(op, CommitOperationAdd)]
        return PushReport(repo_id, getattr(info, "pr_url", None) or info.commit_url, added, list(plan.delete),
                          list(plan.new_splits), attempt, skipped)
    raise AssertionError("unreachable")


# --------------------------------------------------------------------------------------------
# .eval_results for model repos
# --------------------------------------------------------------------------------------------


def eval_result_entries(folder: Path, split: str, dataset_id: str, *, dataset_revision: str | None = None,
                        source_url: str | None = None, date: str | None = None) -> list:
    """One `EvalResultEntry` per headline task of `mirror_hf.benchmark` this model's splits support,
    with the task ids the dataset's `eval.yaml` defines, the dataset revision and the run date."""
    from huggingface_hub import EvalResultEntry

    from mirror_hf.benchmark import HEADLINE_TASKS, headline_values

    folder = folder.absolute()
    values = headline_values(folder, split)
    date = date or _run_date(folder, split)
    entries = []
    for task in HEADLINE_TASKS:
        if task.id not in values:
            continue
        value, n = values[task.id]
        entries.append(EvalResultEntry(
            dataset_id=dataset_id, task_id=task.id, value=round(value, 4), dataset_revision=dataset_revision,
            date=date, notes=f"{task.title}; {task.direction}; n={n}",
            source_url=source_url, source_name="mirror-hf" if source_url else None,
        ))
    return entries


def _run_date(folder: Path, split: str) -> str | None:
    """When the model's runs finished (the latest of its trial splits' manifests)."""
    from mirror_hf.folder import split_files
    from mirror_hf.provenance import split_manifest

    finished = [m["finished"] for config, files in split_files(folder).items() if config.startswith("trials_")
                for f in files if f.split == split and (m := split_manifest(f.path)) and m.get("finished")]
    return max(finished) if finished else None


def dataset_revision(dataset_repo: str, token_env: str = "HF_TOKEN") -> str:
    """The dataset repo's current head, for results that do not name the revision they ran on."""
    from huggingface_hub import HfApi
    from huggingface_hub.errors import (
        HfHubHTTPError,
        OfflineModeIsEnabled,
        RepositoryNotFoundError,
    )

    try:
        return HfApi(token=_token(token_env)).repo_info(dataset_repo, repo_type="dataset").sha
    except RepositoryNotFoundError:
        raise HubError(f"dataset repo {dataset_repo} not found on the Hub; push it first or pass --revision SHA") from None
    except (HfHubHTTPError, OfflineModeIsEnabled, OSError) as exc:
        raise HubError(f"cannot read the revision of {dataset_repo} ({type(exc).__name__}); pass --revision SHA") from None


def write_eval_results(entries: list, out: Path, name: str = "mirror") -> Path:
    import yaml
    from huggingface_hub import eval_result_entries_to_yaml

    if not entries:
        raise HubError("no headline number could be computed from this model's splits (run exp1, exp3 or exp9 first)")
    out.mkdir(parents=True, exist_ok=True)
    path = out / f"{name}.yaml"
    from mirror_hf.writes import atomic_write

    atomic_write(path, yaml.safe_dump(eval_result_entries_to_yaml(entries), sort_keys=False))
    return path


def upload_eval_results(path: Path, model_repo: str, *, create_pr: bool = True, token_env: str = "HF_TOKEN") -> str:
    from huggingface_hub import HfApi

    if not REPO_ID.match(model_repo):
        raise HubError(f"--model-repo {model_repo!r} must look like ORG/NAME")
    from huggingface_hub.errors import HfHubHTTPError, RepositoryNotFoundError

    api = HfApi(token=_token(token_env))
    try:
        info = api.upload_file(path_or_fileobj=str(path), path_in_repo=f".eval_results/{path.name}", repo_id=model_repo,
                               repo_type="model", create_pr=create_pr, commit_message="Add Mirror eval results (mirror-hf)")
    except RepositoryNotFoundError:
        raise HubError(f"model repo {model_repo} not found on the Hub (or not visible with the token in {token_env}); "
                       f"the results are written locally at {path}") from None
    except HfHubHTTPError as exc:
        raise HubError(f"the Hub refused the upload to {model_repo}: {str(exc).splitlines()[0]}") from None
    return getattr(info, "pr_url", None) or str(info)
