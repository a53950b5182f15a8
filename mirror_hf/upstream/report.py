"""What an import cleaned, per file: the counts the user sees and the tests check."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field


@dataclass
class CleanReport:
    path: str
    kind: str
    rows_read: int = 0
    rows_written: int = 0
    written_to: Counter = field(default_factory=Counter)  # "config/split" -> rows
    duplicates_identical: int = 0
    duplicates_conflicting: int = 0
    coerced: Counter = field(default_factory=Counter)  # what was coerced -> rows
    unusable: Counter = field(default_factory=Counter)  # why -> rows
    flagged: Counter = field(default_factory=Counter)  # failures encoded as data -> rows (kept, marked)
    notes: list[str] = field(default_factory=list)

    def lines(self) -> list[str]:
        out = [f"{self.path} [{self.kind}]: {self.rows_read} read, {self.rows_written} written"
               + (f" ({', '.join(f'{k}: {v}' for k, v in sorted(self.written_to.items()))})" if self.written_to else "")]
        if self.duplicates_identical or self.duplicates_conflicting:
            out.append(
                f"  duplicates dropped (first in file order kept): {self.duplicates_identical} identical, "
                f"{self.duplicates_conflicting} conflicting"
            )
        out += [f"  coerced: {what}: {n}" for what, n in sorted(self.coerced.items())]
        out += [f"  unusable: {why}: {n}" for why, n in sorted(self.unusable.items())]
        out += [f"  flagged: {why}: {n}" for why, n in sorted(self.flagged.items())]
        out += [f"  note: {note}" for note in self.notes]
        return out

    def as_dict(self) -> dict:
        return {
            "path": self.path,
            "kind": self.kind,
            "rows_read": self.rows_read,
            "rows_written": self.rows_written,
            "written_to": dict(self.written_to),
            "duplicates_identical": self.duplicates_identical,
            "duplicates_conflicting": self.duplicates_conflicting,
            "coerced": dict(self.coerced),
            "unusable": dict(self.unusable),
            "flagged": dict(self.flagged),
            "notes": list(self.notes),
        }
