"""Typed records: the contracts between the rooms (docs/architecture.md, "Rooms").

The vocabularies (domains, difficulties, channels' labels), the `Question` record, and each record
kind's `datasets.Features`: those live in `mirror_hf.features` (one definition each) and are handed
out from here on first use (`from mirror_hf.records import TRIAL_EXP1_FEATURES`), so importing this
module does not import `datasets` (seconds of start-up for every command).
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field, fields
from typing import TYPE_CHECKING, Any

from mirror_hf.errors import MirrorValueError

if TYPE_CHECKING:
    from datasets import Features

DOMAINS: tuple[str, ...] = (
    "arithmetic",
    "spatial",
    "temporal",
    "linguistic",
    "logical",
    "social",
    "factual",
    "procedural",
)
DIFFICULTIES: tuple[str, ...] = ("easy", "medium", "hard")
ANSWER_TYPES: tuple[str, ...] = ("multiple_choice", "exact_numeric", "short_text", "boolean")
CHOICE_LETTERS: tuple[str, ...] = ("A", "B", "C", "D")

# Exp6 vocabularies (read by the Exp6 protocol and by scoring's SSR and FDR).
EXP6_SELF_RATING_PROMPTS: tuple[str, ...] = ("fresh", "primed_positive", "primed_negative", "neutral_difficulty")
EXP6_LABELS: tuple[str, ...] = ("BLIND_EXECUTION", "EXECUTE_WITH_CAVEAT", "UNPROMPTED_PUSHBACK", "FULL_PUSHBACK")
EXP6_FLAG_LABELS: tuple[str, ...] = ("EXECUTE_WITH_CAVEAT", "UNPROMPTED_PUSHBACK", "FULL_PUSHBACK")

def canonical_json(value: Any) -> str:
    """JSON text with sorted keys and no spaces: the byte-stable form used in records and hashes."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


# --------------------------------------------------------------------------------------------
# Question (the Exp1 bank)
# --------------------------------------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class Question:
    """One bank item. `answer` is the canonical gold value; when `choices` is non-empty it is one of
    them, and `answer_letter` names its position. `params` (a dict here, JSON text on disk) holds what
    the generator drew, enough to recompute `answer` by another route."""

    id: str
    domain: str
    subcategory: str
    difficulty: str
    question: str
    choices: tuple[str, ...]
    answer: str
    answer_type: str
    aliases: tuple[str, ...]
    generator: str
    seed: int
    params: dict = field(default_factory=dict)

    @property
    def answer_letter(self) -> str | None:
        if not self.choices:
            return None
        return CHOICE_LETTERS[self.choices.index(self.answer)]

    def to_row(self) -> dict:
        row = asdict(self)
        row["choices"] = list(self.choices)
        row["aliases"] = list(self.aliases)
        row["params"] = canonical_json(self.params)
        return row

    @classmethod
    def from_row(cls, row: dict) -> "Question":
        values = {f.name: row[f.name] for f in fields(cls)}
        values["choices"] = tuple(values["choices"] or ())
        values["aliases"] = tuple(values["aliases"] or ())
        params = values["params"]
        values["params"] = json.loads(params) if isinstance(params, str) else dict(params or {})
        return cls(**values)


QUESTION_COLUMNS = tuple(f.name for f in fields(Question))  # what `Question.from_row` reads


def empty_row(features: Features) -> dict:
    """A row with every declared column present and null: records fill what they know."""
    return {name: None for name in features}


class UndeclaredFields(MirrorValueError):
    """A record with a field its schema does not declare (`conform_row`)."""


def conform_row(features: Features, row: dict, *, where: str = "row") -> dict:
    """Return `row` with exactly the declared columns (missing ones null).

    The one rule for a field the schema lacks, wherever a record comes from (a run's parsed trial
    fields, an import, a human baseline): an error naming the record and the field(s), never a field
    dropped, not even with a note. A parser and its schema that disagree are a defect to fix, and
    dropping would lose data silently in every path that does not show notes (datasets would
    otherwise fail later with an opaque CastError). `runner.trials` builds trial rows through here."""
    extra = set(row) - set(features)
    if extra:
        raise UndeclaredFields(f"{where}: undeclared field(s) {sorted(extra)}: not in the schema (mirror_hf/features.py)")
    return {name: row.get(name) for name in features}


def __getattr__(name: str) -> Any:
    """`QUESTION_FEATURES`, `TRIAL_*_FEATURES`, ...: the schemas of `mirror_hf.features`, imported
    (with `datasets`) the first time one is asked for."""
    if not name.isupper():  # the schemas only (not `features`' helpers), and no import for dunder probes
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    import mirror_hf.features as features

    try:
        value = getattr(features, name)
    except AttributeError:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}") from None
    globals()[name] = value
    return value
