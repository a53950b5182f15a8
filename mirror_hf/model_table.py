"""The model table Exp8 reads: which family each model belongs to, its size and its generation.

A CSV (header row) or YAML (a list of mappings, or `{models: [...]}`) file with one row per model:

    model,family,parameters,generation
    meta-llama/Llama-3.1-8B-Instruct,llama,8B,3.1
    meta-llama/Llama-3.1-70B-Instruct,llama,70B,3.1
    Qwen/Qwen2.5-7B-Instruct,qwen,7.6e9,2.5

`model` is the name the trials carry (as given to `mirror-hf run --model`; the split name also
matches), `parameters` a count (`8e9`, `8000000000`) or a count with a unit (`135M`, `8B`, `1.2T`),
`generation` optional. Every problem is one `ModelTableError` naming the file, row and field.
"""

from __future__ import annotations

import csv
import math
import re
from collections.abc import Iterable
from pathlib import Path

from mirror_hf.errors import MirrorValueError
from mirror_hf.scoring._scaling import ModelInfo

FIELDS = ("model", "family", "parameters", "generation")
REQUIRED = ("model", "family", "parameters")
_UNITS = {"": 1.0, "k": 1e3, "m": 1e6, "b": 1e9, "t": 1e12}
_COUNT = re.compile(r"^\s*([0-9]*\.?[0-9]+(?:e[+-]?[0-9]+)?)\s*([kmbt]?)\s*$", re.IGNORECASE)


class ModelTableError(MirrorValueError):
    """The model table cannot be read: the message names the file, row and field."""


def parse_parameters(text: object, *, where: str) -> float:
    """'8B' -> 8e9, '135M' -> 1.35e8, '7.6e9' -> 7.6e9; anything else (or <= 0) is an error."""
    match = _COUNT.match(str(text)) if text is not None else None
    if not match:
        raise ModelTableError(f"{where}: parameters {text!r} is not a count like 8e9, 8B or 135M")
    value = float(match.group(1)) * _UNITS[match.group(2).lower()]
    if not math.isfinite(value) or value <= 0:
        raise ModelTableError(f"{where}: parameters {text!r} must be a positive count")
    return value


def _rows(path: Path) -> list[dict]:
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ModelTableError(f"{path}: no such model table") from None
    except IsADirectoryError:
        raise ModelTableError(f"{path}: is a folder; pass the model table file (.csv or .yaml)") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise ModelTableError(f"{path}: cannot read the model table ({type(exc).__name__})") from None
    if path.suffix.lower() in (".yaml", ".yml"):
        import yaml

        try:
            data = yaml.safe_load(text)
        except yaml.YAMLError as exc:
            mark = getattr(exc, "problem_mark", None)
            line = f" line {mark.line + 1}" if mark is not None else ""
            raise ModelTableError(f"{path}:{line} is not valid YAML") from None
        if isinstance(data, dict) and "models" in data:
            data = data["models"]
        if not isinstance(data, list) or not all(isinstance(r, dict) for r in data):
            raise ModelTableError(f"{path}: expected a list of models (mappings with {', '.join(REQUIRED)})")
        return data
    if path.suffix.lower() != ".csv":
        raise ModelTableError(f"{path}: the model table must be .csv, .yaml or .yml")
    reader = csv.DictReader(text.splitlines())
    missing = [f for f in REQUIRED if f not in (reader.fieldnames or [])]
    if missing:
        raise ModelTableError(f"{path}: header lacks column(s) {', '.join(missing)} (expected {','.join(FIELDS)})")
    return list(reader)


def read_model_table(path: str | Path) -> list[ModelInfo]:
    """The checked rows of a model table (rows are numbered from 1, the CSV header not counted)."""
    path = Path(path)
    out: list[ModelInfo] = []
    seen: dict[str, int] = {}
    for number, row in enumerate(_rows(path), start=1):
        where = f"{path} row {number}"
        unknown = sorted(set(row) - set(FIELDS))
        if unknown:
            raise ModelTableError(f"{where}: unknown field {unknown[0]!r} (fields: {', '.join(FIELDS)})")
        for name in REQUIRED:
            value = row.get(name)
            if value is None or str(value).strip() == "":
                raise ModelTableError(f"{where}: field {name!r} is empty")
        model = str(row["model"]).strip()
        if model in seen:
            raise ModelTableError(f"{where}: model {model!r} is listed twice (first in row {seen[model]})")
        seen[model] = number
        generation = row.get("generation")
        generation = None if generation is None or str(generation).strip() == "" else str(generation).strip()
        out.append(ModelInfo(model, str(row["family"]).strip(), parse_parameters(row["parameters"], where=where), generation))
    if not out:
        raise ModelTableError(f"{path}: the model table lists no model")
    return out


def _split_key(name: str) -> str | None:
    """The split name of a model (the one rule run and import use), None for a name with no split."""
    from mirror_hf.folder import FolderError, model_split

    try:
        return model_split(name)
    except FolderError:
        return None


def align(models: Iterable[ModelInfo], scored: Iterable[str]) -> list[ModelInfo]:
    """The table's rows renamed to the names `score` reports, matching a scored model by its exact
    name or by its split name; rows with no scored model are left out."""
    by_key = {}
    for name in scored:
        by_key.setdefault(name, name)
        if _split_key(name):
            by_key.setdefault(_split_key(name), name)
    out = []
    for m in models:
        name = by_key.get(m.model) or by_key.get(_split_key(m.model))
        if name is not None:
            out.append(ModelInfo(name, m.family, m.parameters, m.generation))
    return out
