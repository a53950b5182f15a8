"""The models file of `mirror-hf study --models FILE`: several models, each with its own endpoint,
key variable, limits and prices, and (optionally) what Exp8 needs to know of it.

    models:
      - name: Qwen/Qwen2.5-7B-Instruct        # required: the model name sent to the endpoint
        base_url: http://localhost:8000/v1    # required: an OpenAI-compatible endpoint
        api_key_env: VLLM_KEY                 # optional: the variable holding its key (must be set)
        rpm: 600                              # optional: requests per minute
        tpm: 400000                           # optional: tokens per minute
        concurrency: 16                       # optional: requests in flight
        price_in: 0.15                        # optional: USD per million prompt tokens
        price_out: 0.60                       # optional: USD per million completion tokens
        family: qwen                          # optional (Exp8): model family ...
        parameters: 7.6B                      # ... parameter count (needed with family)
        generation: "2.5"                     # ... and generation

Every problem is one line naming the file, the entry (1-based, with its name) and the field, found
before any request is sent: an unknown key, a missing `name` or `base_url`, a name listed twice, a
key variable that is not set, a number that is not one.
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass
from pathlib import Path

from mirror_hf.errors import MirrorValueError

FIELDS = ("name", "base_url", "api_key_env", "rpm", "tpm", "concurrency", "price_in", "price_out",
          "family", "parameters", "generation")
NUMBERS = {"rpm": float, "tpm": float, "concurrency": int, "price_in": float, "price_out": float}


class ModelsFileError(MirrorValueError):
    """The models file cannot be used (names the file, entry and field)."""


@dataclass(frozen=True)
class ModelEntry:
    name: str
    base_url: str
    api_key_env: str | None = None
    rpm: float | None = None
    tpm: float | None = None
    concurrency: int | None = None
    price_in: float | None = None
    price_out: float | None = None
    family: str | None = None
    parameters: float | None = None
    generation: str | None = None


def read_models_file(path: Path, *, environ=None) -> list[ModelEntry]:
    """The checked entries of a models file (see the module docstring)."""
    import yaml

    environ = os.environ if environ is None else environ
    try:
        text = Path(path).read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ModelsFileError(f"{path}: no such models file") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise ModelsFileError(f"{path}: cannot read the models file ({type(exc).__name__})") from None
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        raise ModelsFileError(f"{path}:{f' line {mark.line + 1}' if mark else ''} is not valid YAML") from None
    if not isinstance(data, dict) or "models" not in data:
        raise ModelsFileError(f"{path}: expected a top-level 'models:' list")
    extra = sorted(str(k) for k in data if k != "models")
    if extra:
        raise ModelsFileError(f"{path}: unknown top-level key {extra[0]!r} (only 'models' is read)")
    entries = data["models"]
    if not isinstance(entries, list) or not entries:
        raise ModelsFileError(f"{path} field 'models': expected a non-empty list of models")
    out: list[ModelEntry] = []
    seen: dict[str, int] = {}
    for number, raw in enumerate(entries, start=1):
        where = f"{path} entry {number}"
        if not isinstance(raw, dict):
            raise ModelsFileError(f"{where}: expected a mapping with name and base_url, got {type(raw).__name__}")
        if isinstance(raw.get("name"), str) and raw["name"].strip():
            where += f" ({raw['name'].strip()})"
        unknown = sorted(str(k) for k in raw if k not in FIELDS)
        if unknown:
            raise ModelsFileError(f"{where}: unknown key {unknown[0]!r} (keys: {', '.join(FIELDS)})")
        out.append(_entry(raw, where, environ))
        name = out[-1].name
        if name in seen:
            raise ModelsFileError(f"{where} field 'name': {name!r} is listed twice (first in entry {seen[name]})")
        seen[name] = number
    splits: dict[str, str] = {}
    for entry in out:  # two names with one split name would write over each other's trials
        from mirror_hf.folder import FolderError, model_split

        try:
            split = model_split(entry.name)
        except FolderError as exc:
            raise ModelsFileError(f"{path} entry {seen[entry.name]} field 'name': {exc}") from None
        if split in splits:
            raise ModelsFileError(f"{path} entry {seen[entry.name]} field 'name': {entry.name!r} has the split name "
                                  f"{split!r} of {splits[split]!r}")
        splits[split] = entry.name
    return out


def _entry(raw: dict, where: str, environ) -> ModelEntry:
    from mirror_hf.runner.validate import check_base_url

    for name in ("name", "base_url"):
        value = raw.get(name)
        if value is None or not isinstance(value, str) or not value.strip():
            raise ModelsFileError(f"{where}: missing {name}" if value is None else f"{where} field {name!r}: expected text")
    try:
        check_base_url(raw["base_url"].strip())
    except MirrorValueError as exc:
        raise ModelsFileError(f"{where} field 'base_url': {str(exc).removeprefix('--base-url ')}") from None
    key_env = raw.get("api_key_env")
    if key_env is not None:
        if not isinstance(key_env, str) or not key_env.strip():
            raise ModelsFileError(f"{where} field 'api_key_env': expected the name of an environment variable")
        if not environ.get(key_env):
            raise ModelsFileError(f"{where} field 'api_key_env': the variable {key_env} is not set "
                                  "(keys are read from the environment only)")
    numbers = {}
    for name, kind in NUMBERS.items():
        value = raw.get(name)
        if value is None:
            continue
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) or value <= 0 \
                or (kind is int and value != int(value)):
            raise ModelsFileError(f"{where} field {name!r}: {value!r} is not a positive {'whole ' if kind is int else ''}number")
        numbers[name] = kind(value)
    parameters = None
    if raw.get("family") is not None or raw.get("parameters") is not None:
        from mirror_hf.model_table import ModelTableError, parse_parameters

        for name in ("family", "parameters"):
            if raw.get(name) is None or str(raw[name]).strip() == "":
                raise ModelsFileError(f"{where}: missing {name} (Exp8 needs family and parameters together)")
        try:
            parameters = parse_parameters(raw["parameters"], where=f"{where} field 'parameters'")
        except ModelTableError as exc:
            raise ModelsFileError(str(exc)) from None
    generation = raw.get("generation")
    return ModelEntry(
        name=raw["name"].strip(), base_url=raw["base_url"].strip(), api_key_env=key_env, **numbers,
        family=None if raw.get("family") is None else str(raw["family"]).strip(), parameters=parameters,
        generation=None if generation is None or str(generation).strip() == "" else str(generation).strip(),
    )


def model_table(entries: list[ModelEntry]):
    """Exp8's model table (`scoring.ModelInfo` rows, as `score --models` reads them) from the entries
    that name a family; None when none does."""
    from mirror_hf.scoring._scaling import ModelInfo

    rows = [ModelInfo(e.name, e.family, e.parameters, e.generation) for e in entries if e.family is not None]
    return rows or None
