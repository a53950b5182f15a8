"""The main table (the paper's Table 4 shape): one row per model, one column per headline metric,
each cell the scored value with its 95% CI and n; "—" where the model lacks the experiment; the
direction of "better" per column and the best model per column marked. Values are read from the
score result (`_numbers.scores`), never computed here."""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from mirror_hf.experiments import all_headlines, headline_by_key
from mirror_hf.scoring import ModelView, Reading, ResultView, headlines_of

DASH = "—"


@dataclass(frozen=True)
class Column:
    key: str
    label: str
    path: tuple[str, ...]  # into models[<model>] of the score result
    better: str | None  # "higher", "lower" or None (no direction: nothing marked best)
    note: str = ""
    headline: str | None = None  # the headline key the value is read through (None: not a headline)

    @property
    def arrow(self) -> str:
        return {"higher": "↑", "lower": "↓"}.get(self.better or "", "")


def _headline(key: str, label: str, headline_key: str, note: str) -> Column:
    """A column that shows a headline number: its path and direction are the headline's
    (the experiment's own declaration, the one list `score`, `profile` and the exports read)."""
    h = headline_by_key(headline_key)
    return Column(key, label, h.path, h.direction, note, headline_key)


# Table 4's columns in its order. ECE and Brier are Exp1 calibration numbers that are no headline.
COLUMNS: tuple[Column, ...] = (
    _headline("nat_acc", "Nat.Acc", "exp1_natural_accuracy", "Exp1 natural channel, macro mean over domains"),
    _headline("wag_acc", "Wag.Acc", "exp1_wagering_accuracy", "Exp1 wagering channel, macro mean over domains"),
    _headline("gap", "Mirror gap", "exp1_mirror_gap", "mean over domains of |Wag.Acc - Nat.Acc|"),
    Column("ece", "ECE", ("exp1", "ece"), "lower", "wager (bet/10) calibration, 10 equal-width bins"),
    Column("brier", "Brier", ("exp1", "brier"), "lower", "wager (bet/10)"),
    _headline("mci", "MCI", "exp1_mci", "mean pairwise Spearman of the behavioural channels"),
    _headline("tii", "TII", "exp2_tii", "Exp2 transfer influence"),
    _headline("cce", "CCE", "exp3_cce", "Exp3 compositional calibration error"),
    _headline("ai", "AI", "exp4_ai", "Exp4 adaptation index (wager)"),
    _headline("sar", "SAR", "exp4_sar", "Exp4 sycophancy adaptation ratio"),
    _headline("ars", "ARS", "exp5_ars", "Exp5 adversarial robustness"),
    _headline("fdr", "FDR", "exp6b_fdr", "Exp6b flaw detection rate"),
    _headline("ssr", "SSR", "exp6a_ssr", "Exp6a sycophancy separation ratio"),
    _headline("cfr_c1", "CFR C1", "exp9_cfr_c1", "Exp9 confident failures on weak components, uninformed (P1+P2)"),
    _headline("cfr_c4", "CFR C4", "exp9_cfr_c4", "Exp9 confident failures with external routing (P1+P2)"),
    _headline("kdi", "KDI", "exp9_kdi", "Gap - (1 - CFR C1); negative: knows better than it acts"),
)


@dataclass(frozen=True)
class Cell:
    value: float | None
    ci: tuple[float, float] | None
    n: int | None
    source: str | None = None
    note: str | None = None  # why the cell has no interval (the score entry's `ci_note`: too few trials per domain, ...)

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
    kinds: dict[str, str] = field(default_factory=dict)  # row -> participant kind (human, AI-simulated); models absent

    def label(self, model: str) -> str:
        """The row's name as shown: a participant's says what it is (`participants.display`)."""
        from mirror_hf.participants import MEAN_ROW, display

        kind = self.kinds.get(model)
        return model if kind is None or model in MEAN_ROW.values() else display(model, kind)

    reasons: dict[str, dict[str, str]] = field(default_factory=dict)  # model -> column key -> why "—" (set by the report)

    def note_of(self, model: str, key: str) -> str | None:
        """Why a cell is "—" or has no interval, or None (a cell with its interval)."""
        cell = self.cells[model][key]
        if cell is None:
            return self.reasons.get(model, {}).get(key) or "no value"
        return None if cell.ci else cell.note


def cell_from(estimate: Reading | None) -> Cell | None:
    """A cell showing one estimate of the result (None when it is absent or undefined)."""
    if not isinstance(estimate, Reading):
        return None
    cell = Cell(estimate.value, estimate.ci, estimate.n, estimate.source, estimate.note)
    return cell if cell.defined else None


def cell_of(model: ModelView, column: Column) -> Cell | None:
    """A column's cell, read from the model's entry by attribute along the column's path (a field the
    score schema does not declare is an AttributeError, not an empty column)."""
    node: object = model
    for part in column.path:  # a schema field by attribute; a key of a declared dict (a condition, a domain) by key
        node = node.get(part) if isinstance(node, dict) else getattr(node, part)
        if node is None:
            return None
    return cell_from(node if isinstance(node, Reading) else None)


def _headline_cells(result: ResultView) -> dict[str, dict[str, Cell]]:
    """model -> headline key -> cell, through `headlines_of` (the reader `score`'s exports use)."""
    out: dict[str, dict[str, Cell]] = {}
    models = result.models
    for model, values in headlines_of(result.raw, all_headlines()).items():
        cells = {}
        for v in values:
            source = cell_of(models[model], Column(v.headline.key, "", v.headline.path, None))
            cell = Cell(v.value, v.ci if v.ci and None not in v.ci else None, v.n, source.source if source else None,
                        source.note if source else None)
            if cell.defined:
                cells[v.headline.key] = cell
        out[model] = cells
    return out


def main_table(result: ResultView) -> MainTable:
    """The table of a score result (`experiments.result_view(result)`), read by attribute."""
    models = sorted(result.models)
    entries = result.models
    headline_cells = _headline_cells(result)
    cells = {
        m: {c.key: headline_cells.get(m, {}).get(c.headline) if c.headline else cell_of(entries[m], c) for c in COLUMNS}
        for m in models
    }
    kinds = {m: p.kind for m, p in (result.participants or {}).items() if m in cells}
    present = [c for c in COLUMNS if any(cells[m][c.key] for m in models)]
    absent = [c for c in COLUMNS if c not in present]
    best: dict[str, set[str]] = {}
    for column in present:
        if column.better is None:
            continue
        # best = the best model: participants and their mean are shown beside, not ranked
        values = {m: cells[m][column.key].value for m in models if cells[m][column.key] and m not in kinds}
        if len(values) < 2:
            continue
        target = (max if column.better == "higher" else min)(values.values())
        best[column.key] = {m for m, v in values.items() if v == target}
    return MainTable(present, absent, models, cells, best, kinds)


def participants_note(table: MainTable) -> list[str]:
    """What the participant rows are, one sentence per kind present (the simulated one warns)."""
    from mirror_hf.participants import HUMAN, MEAN_ROW, SIMULATED, SIMULATED_WARNING

    kinds = set(table.kinds.values())
    out = []
    for kind in (HUMAN, SIMULATED):
        if kind not in kinds:
            continue
        people = sum(1 for m, k in table.kinds.items() if k == kind and m != MEAN_ROW[kind])
        text = (f"{people} row(s) marked ({'human' if kind == HUMAN else 'AI-simulated, not human'}) answered the "
                f"questionnaire's items and are scored exactly as the models; '{MEAN_ROW[kind]}' is the mean over them, "
                "its CI a BCa interval over participants; bold marks the best model only.")
        if kind == SIMULATED:
            text += f" WARNING: {SIMULATED_WARNING}."
        out.append(text)
    return out


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
