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
    duplicates_identical: int = 0  # rows identical to an earlier one apart from the timestamp: dropped
    shared_id_trials: int = 0  # rows sharing (model, upstream id, channel) with another but differing: kept
    unjoined_ambiguous: int = 0  # of those, rows not joined to the bank (the id names several questions)
    coerced: Counter = field(default_factory=Counter)  # what was coerced -> rows
    unusable: Counter = field(default_factory=Counter)  # why -> rows
    flagged: Counter = field(default_factory=Counter)  # failures encoded as data -> rows (kept, marked)
    notes: list[str] = field(default_factory=list)
    manifests: dict = field(default_factory=dict)  # (config, split) -> run manifest (participant splits only)

    def lines(self) -> list[str]:
        out = [f"{self.path} [{self.kind}]: {self.rows_read} read, {self.rows_written} written"
               + (f" ({', '.join(f'{k}: {v}' for k, v in sorted(self.written_to.items()))})" if self.written_to else "")]
        if self.duplicates_identical:
            out.append(f"  duplicates dropped (identical apart from the timestamp): {self.duplicates_identical}")
        if self.shared_id_trials:
            out.append(
                f"  kept as distinct trials: {self.shared_id_trials} rows share an upstream id with an earlier, "
                "different trial (item_id <id>#<k>, the id kept in upstream_id)"
            )
        if self.unjoined_ambiguous:
            out.append(f"  not joined to the bank (the upstream id names several questions): {self.unjoined_ambiguous}")
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
            "shared_id_trials": self.shared_id_trials,
            "unjoined_ambiguous": self.unjoined_ambiguous,
            "coerced": dict(self.coerced),
            "unusable": dict(self.unusable),
            "flagged": dict(self.flagged),
            "notes": list(self.notes),
        }
