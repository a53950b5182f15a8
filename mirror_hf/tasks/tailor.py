"""`mirror-hf tasks tailor`: Exp9 tasks built for one model from its Exp1 profile.

The profile is read from a dataset folder (the model's split of `profiles`), a parquet file with the
same columns, or JSON (`{domain: accuracy}`, a list of `{domain, natural_accuracy}` rows, JSON lines,
or `{model: {"domain_accuracy": {...}}}` as in the authors' capability profiles). Only the natural
accuracies are used: the strong/weak labels are recomputed with a named weak-domain policy
(`mirror_hf.scoring.classify_domains`), so a task's slots depend on Exp1 data alone.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from pathlib import Path

from mirror_hf.errors import MirrorValueError
from mirror_hf.records import DOMAINS


class ProfileInputError(MirrorValueError):
    """The profile cannot be used (names the file, row and field)."""


@dataclass(frozen=True)
class WeakPolicySpec:
    """A named weak-domain policy with its parameters; `name` is what the tasks record."""

    policy: str = "median_or_bottom_k"
    k: int = 2
    weak_threshold: float = 0.40
    strong_threshold: float = 0.60
    tau: float = 0.40
    min_strong: float | None = None  # the strong-domain floor (None: scoring.MIN_STRONG_ACCURACY, chance)

    @property
    def name(self) -> str:
        if self.policy in ("median_or_bottom_k", "bottom_k"):
            return self.policy if self.k == 2 else f"{self.policy}:k={self.k}"
        if self.policy == "threshold":
            default = (self.weak_threshold, self.strong_threshold) == (0.40, 0.60)
            return "threshold" if default else f"threshold:weak={self.weak_threshold:g},strong={self.strong_threshold:g}"
        return "absolute" if self.tau == 0.40 else f"absolute:tau={self.tau:g}"

    def labels(self, accuracy: dict[str, float]) -> dict[str, str]:
        from mirror_hf.scoring import WEAK_POLICIES, classify_domains

        if self.policy not in WEAK_POLICIES:
            raise ProfileInputError(f"weak policy must be one of {', '.join(WEAK_POLICIES)}, got {self.policy!r}")
        floor = {} if self.min_strong is None else {"min_strong": self.min_strong}
        return classify_domains(accuracy, policy=self.policy, k=self.k, weak_threshold=self.weak_threshold,
                                strong_threshold=self.strong_threshold, tau=self.tau, **floor)


# --------------------------------------------------------------------------------------------
# Reading a profile
# --------------------------------------------------------------------------------------------


def read_accuracies(source: Path, model: str, split: str) -> dict[str, float]:
    """domain -> Exp1 natural accuracy for `model`, from a folder, parquet or JSON file."""
    if not source.exists():
        raise ProfileInputError(f"--profile {source} does not exist")
    if source.is_dir():
        rows, where = _rows_from_folder(source, split)
    elif source.suffix == ".parquet":
        rows, where = _rows_from_parquet(source, model), str(source)
    elif source.suffix in (".json", ".jsonl"):
        rows, where = _rows_from_json(source, model), str(source)
    else:
        raise ProfileInputError(f"--profile {source}: expected a dataset folder, a .parquet, .json or .jsonl file")
    return _accuracies(rows, where)


def _rows_from_folder(folder: Path, split: str) -> tuple[list[tuple[str, dict]], str]:
    import pyarrow.parquet as pq

    from mirror_hf.folder import split_files

    files = split_files(folder).get("profiles", [])
    chosen = [f for f in files if f.split == split]
    if not chosen:
        have = ", ".join(sorted(f.split for f in files)) or "none"
        raise ProfileInputError(
            f"{folder} has no split {split!r} in config 'profiles' (splits there: {have}); "
            "run `mirror-hf profile` for this model, or pass a profile file"
        )
    rows = pq.read_table(chosen[0].path).to_pylist()
    where = chosen[0].relative(folder)
    return [(f"{where} row {i}", r) for i, r in enumerate(rows)], f"{folder}/{where}"


def _rows_from_parquet(path: Path, model: str) -> list[tuple[str, dict]]:
    import pyarrow.parquet as pq

    try:
        rows = pq.read_table(path).to_pylist()
    except Exception as exc:  # pyarrow raises several types for a damaged file
        raise ProfileInputError(f"{path}: not a readable parquet file ({exc})") from None
    return _filter_model([(f"{path} row {i}", r) for i, r in enumerate(rows)], model, path)


def _rows_from_json(path: Path, model: str) -> list[tuple[str, dict]]:
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        raise ProfileInputError(f"{path}: not UTF-8 text (byte {exc.start}); expected a JSON profile") from None
    if path.suffix == ".jsonl":
        rows = []
        for i, line in enumerate(text.splitlines()):
            if line.strip():
                rows.append((f"{path} line {i + 1}", _loads(line, f"{path} line {i + 1}")))
        return _filter_model(rows, model, path)
    data = _loads(text, str(path))
    if isinstance(data, list):
        return _filter_model([(f"{path} row {i}", r) for i, r in enumerate(data)], model, path)
    if not isinstance(data, dict):
        raise ProfileInputError(f"{path}: expected a JSON object or list, got {type(data).__name__}")
    if data and all(isinstance(v, dict) for v in data.values()):  # {model: {...}}
        if model not in data:
            raise ProfileInputError(f"{path}: no entry for model {model!r} (models there: {', '.join(sorted(data))})")
        entry = data[model]
        per_domain = entry.get("domain_accuracy", entry)
        where = f"{path} [{model!r}]" + ("['domain_accuracy']" if "domain_accuracy" in entry else "")
    else:
        per_domain, where = data, str(path)
    if not isinstance(per_domain, dict):
        raise ProfileInputError(f"{where}: expected an object of domain -> accuracy")
    return [(f"{where} key {d!r}", {"domain": d, "natural_accuracy": a}) for d, a in per_domain.items()]


def _loads(text: str, where: str):
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise ProfileInputError(f"{where}: not valid JSON ({exc.msg} at line {exc.lineno} column {exc.colno})") from None
    except RecursionError:
        raise ProfileInputError(f"{where}: JSON nested too deeply to be a profile") from None


def _filter_model(rows: list[tuple[str, dict]], model: str, path: Path) -> list[tuple[str, dict]]:
    """Rows of this model when the file has a `model` column; all rows when it has none."""
    for where, row in rows:
        if not isinstance(row, dict):
            raise ProfileInputError(f"{where}: expected an object with 'domain' and 'natural_accuracy'")
    if not any("model" in row and row["model"] is not None for _, row in rows):
        return rows
    mine = [(w, r) for w, r in rows if r.get("model") == model]
    if not mine:
        models = sorted({str(r.get("model")) for _, r in rows})
        raise ProfileInputError(f"{path}: no rows for model {model!r} in field 'model' (models there: {', '.join(models)})")
    return mine


def _accuracies(rows: list[tuple[str, dict]], where: str) -> dict[str, float]:
    out: dict[str, float] = {}
    for row_where, row in rows:
        for name in ("domain", "natural_accuracy"):
            if name not in row:
                raise ProfileInputError(f"{row_where}: missing field {name!r}")
        domain, acc = row["domain"], row["natural_accuracy"]
        if domain not in DOMAINS:
            raise ProfileInputError(f"{row_where} field 'domain': {domain!r} is not one of {', '.join(DOMAINS)}")
        if domain in out:
            raise ProfileInputError(f"{row_where} field 'domain': {domain!r} appears twice")
        if acc is None or (isinstance(acc, float) and math.isnan(acc)):
            raise ProfileInputError(
                f"{row_where} field 'natural_accuracy': missing accuracy for domain {domain!r}; "
                "every domain in a profile needs its Exp1 natural accuracy"
            )
        if isinstance(acc, bool) or not isinstance(acc, (int, float)):
            raise ProfileInputError(f"{row_where} field 'natural_accuracy': {acc!r} is not a number")
        if not 0.0 <= acc <= 1.0:
            raise ProfileInputError(f"{row_where} field 'natural_accuracy': {acc!r} is outside [0, 1]")
        out[domain] = float(acc)
    if len(out) < 2:
        raise ProfileInputError(
            f"{where}: the profile has {len(out)} domain(s) ({', '.join(out) or 'none'}); tailoring needs at least two "
            "(one strong and one weak)"
        )
    return {d: out[d] for d in DOMAINS if d in out}


# --------------------------------------------------------------------------------------------
# Tailoring
# --------------------------------------------------------------------------------------------


def used_texts(folder: Path) -> set[str]:
    """Normalised texts of the folder's bank questions and fixed Exp9 parts: tailored parts avoid them."""
    import pyarrow.parquet as pq

    from mirror_hf.bank._core import normalise_text
    from mirror_hf.folder import split_files

    files = split_files(folder)
    texts: set[str] = set()
    for f in files.get("questions", []):
        texts.update(normalise_text(t) for t in pq.read_table(f.path, columns=["question"]).column(0).to_pylist())
    for f in files.get("exp9_fixed", []):
        for column in ("part1_text", "part2_text"):
            texts.update(normalise_text(t.rsplit("\nA) ", 1)[0]) for t in pq.read_table(f.path, columns=[column]).column(0).to_pylist())
    return texts


def tailor(*, profile: Path, model: str, split: str, dataset: Path, policy: WeakPolicySpec, seed: int,
           total: int) -> tuple[list[dict], dict[str, str]]:
    """The tailored rows for one model (not yet written) and the labels they were built from."""
    from mirror_hf.bank import available_domains
    from mirror_hf.tasks.exp9 import tailored_tasks

    accuracy = read_accuracies(profile, model, split)
    missing = [d for d in accuracy if d not in available_domains()]
    if missing:
        raise ProfileInputError(f"no question generator for domain(s) {', '.join(missing)} in this installation")
    from mirror_hf.scoring import MIN_STRONG_ACCURACY, MIN_STRONG_OPTION, no_strong_domain

    labels = policy.labels(accuracy)
    kinds = set(labels.values())
    refusal = no_strong_domain(accuracy, labels, what=f"{profile}: under weak policy {policy.name} the profile of {model!r}",
                               min_strong=MIN_STRONG_ACCURACY if policy.min_strong is None else policy.min_strong,
                               options=f"{MIN_STRONG_OPTION}, --weak-policy or --k")
    if refusal:
        raise ProfileInputError(refusal)
    if not {"strong", "weak"} <= kinds:
        detail = ", ".join(f"{d} {accuracy[d]:.3f} ({labels[d]})" for d in accuracy)
        raise ProfileInputError(
            f"{profile}: under weak policy {policy.name} the profile of {model!r} has no "
            f"{'strong' if 'strong' not in kinds else 'weak'} domain ({detail}); tailored tasks need one of each"
        )
    rows = tailored_tasks(model, split, labels, policy.name, seed=seed, total=total, avoid=used_texts(dataset))
    return rows, labels
