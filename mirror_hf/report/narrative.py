"""A short generated paragraph per model. Every number in it is a main-table cell, printed with the
table's own format, so the text can never disagree with the table."""

from __future__ import annotations

from mirror_hf.report.table import MainTable, fmt


def _rank(table: MainTable, model: str, key: str) -> str:
    """'best of 5' / '3rd of 5' among models with a value, by the column's direction."""
    column = next(c for c in table.columns if c.key == key)
    values = sorted((table.cells[m][key].value for m in table.models if table.cells[m].get(key)),
                    reverse=column.better == "higher")
    if len(values) < 2 or column.better is None:
        return ""
    position = values.index(table.cells[model][key].value) + 1
    suffix = {1: "st", 2: "nd", 3: "rd"}.get(position if position < 20 else position % 10, "th")
    return f" ({'best' if position == 1 else f'{position}{suffix}'} of {len(values)})"


def narrative(table: MainTable, model: str) -> str:
    c = table.cells[model]
    keys = {col.key for col in table.columns}
    parts: list[str] = []
    if c.get("nat_acc") and c.get("wag_acc"):
        gap = c.get("gap")
        parts.append(
            f"answers {fmt(c['nat_acc'].value)} of Exp1 questions correctly when asked naturally and {fmt(c['wag_acc'].value)} "
            f"when it must bet on its answer" + (f"; Mirror gap {fmt(gap.value)}{_rank(table, model, 'gap')}" if gap else "")
        )
    elif c.get("nat_acc"):
        parts.append(f"natural accuracy {fmt(c['nat_acc'].value)}")
    if c.get("ece"):
        parts.append(f"its bets are calibrated with ECE {fmt(c['ece'].value)}{_rank(table, model, 'ece')}"
                     + (f" and Brier {fmt(c['brier'].value)}" if c.get("brier") else ""))
    if c.get("mci"):
        direction = "agree" if c["mci"].value > 0 else "disagree"
        parts.append(f"its behavioural channels {direction} (MCI {fmt(c['mci'].value)})")
    if c.get("tii"):
        parts.append(f"TII {fmt(c['tii'].value)}")
    if c.get("cce"):
        parts.append(f"compositional calibration error {fmt(c['cce'].value)}{_rank(table, model, 'cce')}")
    if c.get("cfr_c1") and c.get("cfr_c4"):
        parts.append(f"it proceeds and fails on {fmt(c['cfr_c1'].value)} of weak-domain components when uninformed (C1); "
                     f"external routing (C4) changes that to {fmt(c['cfr_c4'].value)}")
    elif c.get("cfr_c1"):
        parts.append(f"confident failure rate {fmt(c['cfr_c1'].value)} on weak-domain components (C1)")
    if c.get("kdi"):
        reading = "it knows better than it acts" if c["kdi"].value < 0 else "its actions lag what it knows"
        parts.append(f"KDI {fmt(c['kdi'].value)} ({reading})")
    missing = [label for key, label in (("nat_acc", "Exp1"), ("cce", "Exp3"), ("cfr_c1", "Exp9")) if key in keys and not c.get(key)]
    text = f"{model} " + "; ".join(parts) + "." if parts else f"{model}: no headline number in this folder."
    if missing:
        text += f" No {', '.join(missing)} numbers for this model (—)."
    return text
