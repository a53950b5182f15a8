"""The main table (the paper's Table 4 shape): one row per model, one column per headline metric,
each cell the scored value with its 95% CI and n; "—" where the model lacks the experiment; the
direction of "better" per column and the best model per column marked. Values are read from the
score result (`_numbers.scores`), never computed here."""

from __future__ import annotations

import math
from dataclasses import dataclass, field

DASH = "—"


@dataclass(frozen=True)
class Column:
    key: str
    label: str
    path: tuple[str, ...]  # into models[<model>] of the score result
    better: str | None  # "higher", "lower" or None (no direction: nothing marked best)
    note: str = ""

    @property
    def arrow(self) -> str:
        return {"higher": "↑", "lower": "↓"}.get(self.better or "", "")


# Table 4's columns in its order. AI and SAR (Exp4) are listed so a folder whose score result
# carries them shows them.
COLUMNS: tuple[Column, ...] = (
    Column("nat_acc", "Nat.Acc", ("exp1", "natural_accuracy"), "higher", "Exp1 natural channel, macro mean over domains"),
    Column("wag_acc", "Wag.Acc", ("exp1", "wagering_accuracy"), "higher", "Exp1 wagering channel, macro mean over domains"),
    Column("gap", "Mirror gap", ("exp1", "mirror_gap"), "lower", "mean over domains of |Wag.Acc - Nat.Acc|"),
    Column("ece", "ECE", ("exp1", "ece"), "lower", "wager (bet/10) calibration, 10 equal-width bins"),
    Column("brier", "Brier", ("exp1", "brier"), "lower", "wager (bet/10)"),
    Column("mci", "MCI", ("exp1", "mci"), "higher", "mean pairwise Spearman of the behavioural channels"),
    Column("tii", "TII", ("exp2", "tii"), "higher", "Exp2 transfer influence"),
    Column("cce", "CCE", ("exp3", "cce"), "lower", "Exp3 compositional calibration error"),
    Column("ai", "AI", ("exp4", "ai"), "lower", "Exp4 adaptation index (wager)"),
    Column("sar", "SAR", ("exp4", "sar"), None, "Exp4 sycophancy adaptation ratio"),
    Column("ars", "ARS", ("exp5", "ars"), "higher", "Exp5 adversarial robustness"),
    Column("fdr", "FDR", ("exp6b", "fdr"), "higher", "Exp6b flaw detection rate"),
    Column("ssr", "SSR", ("exp6a", "ssr"), None, "Exp6a sycophancy separation ratio"),
    Column("cfr_c1", "CFR C1", ("exp9", "cfr", "C1"), "lower", "Exp9 confident failures on weak components, uninformed (P1+P2)"),
    Column("cfr_c4", "CFR C4", ("exp9", "cfr", "C4"), "lower", "Exp9 confident failures with external routing (P1+P2)"),
    Column("kdi", "KDI", ("exp9", "kdi"), "lower", "Gap - (1 - CFR C1); negative: knows better than it acts"),
)


@dataclass(frozen=True)
class Cell:
    value: float | None
    ci: tuple[float, float] | None
    n: int | None
    source: str | None = None

    @property
    def defined(self) -> bool:
        return self.value is not None and not (isinstance(self.value, float) and math.isnan(self.value))


@dataclass
class MainTable:
    columns: list[Column]  # the columns some model has a value for
    absent: list[Column]  # the columns no model has (listed under the table)
    models: list[str]
    cells: dict[str, dict[str, Cell | None]]  # model -> column key -> cell (None: "—")
    best: dict[str, set[str]] = field(default_factory=dict)  # column key -> best model(s)


def cell_of(model_scores: dict, column: Column) -> Cell | None:
    node = model_scores
    for part in column.path:
        if not isinstance(node, dict) or part not in node:
            return None
        node = node[part]
    if not isinstance(node, dict) or "value" not in node:
        return None
    ci = node.get("ci")
    cell = Cell(node["value"], tuple(ci) if ci and None not in ci else None, node.get("n"), node.get("source"))
    return cell if cell.defined else None


def main_table(result: dict) -> MainTable:
    models = sorted(result.get("models", {}))
    cells = {m: {c.key: cell_of(result["models"][m], c) for c in COLUMNS} for m in models}
    present = [c for c in COLUMNS if any(cells[m][c.key] for m in models)]
    absent = [c for c in COLUMNS if c not in present]
    best: dict[str, set[str]] = {}
    for column in present:
        if column.better is None:
            continue
        values = {m: cells[m][column.key].value for m in models if cells[m][column.key]}
        if len(values) < 2:
            continue
        target = (max if column.better == "higher" else min)(values.values())
        best[column.key] = {m for m, v in values.items() if v == target}
    return MainTable(present, absent, models, cells, best)


def fmt(value: float | None, digits: int = 3) -> str:
    """The one number format of the report (table, narrative, figures' labels)."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return DASH
    return f"{value:.{digits}f}"


def fmt_cell(cell: Cell | None, *, ci: bool = True) -> str:
    if cell is None:
        return DASH
    text = fmt(cell.value)
    if ci and cell.ci:
        text += f" [{fmt(cell.ci[0])}, {fmt(cell.ci[1])}]"
    return text
