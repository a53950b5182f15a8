"""Exp8 in the report: the scaling fits `score --models` computes (`aggregate.scaling`: per headline
number and model family, the OLS of the value on log10 parameters, and the latest-minus-earliest
generation difference), as table rows. Read from the score result, never refitted here."""

from __future__ import annotations

from dataclasses import dataclass

from mirror_hf.experiments import all_headlines
from mirror_hf.report.table import Cell, cell_from
from mirror_hf.scoring import Reading


@dataclass(frozen=True)
class ScalingRow:
    headline: str  # HEADLINES key
    label: str
    family: str
    models: int
    slope: Cell | None  # change of the value per tenfold parameters
    r2: Cell | None
    generations: str  # "3.1 -> 3.3" or ""
    generation_difference: Cell | None


def _cell(entry: dict, key: str) -> Cell | None:
    return cell_from(Reading.read(entry[key])) if isinstance(entry.get(key), dict) else None


def scaling_rows(result: dict) -> list[ScalingRow]:
    """One row per (headline number, family) of the result's Exp8 section (empty without one)."""
    rows = []
    for key, families in (result.get("aggregate", {}).get("scaling") or {}).items():
        label = next((h.label for h in all_headlines() if h.key == key), key)
        for family, entry in sorted(families.items()):
            diff = entry.get("generation_difference") or {}
            rows.append(ScalingRow(
                key, label, family, len(entry.get("models") or []), _cell(entry, "slope"), _cell(entry, "r2"),
                f"{diff['earliest']} -> {diff['latest']}" if diff.get("earliest") is not None else "",
                _cell(entry, "generation_difference"),
            ))
    return rows
