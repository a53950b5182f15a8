"""The report's figures (matplotlib, Agg): each function takes the score result (or the main table)
and returns a Figure, or None when the folder does not support it. Readable in greyscale: series
differ by marker, line style and hatch, not by hue alone; every figure has a title, labelled axes
with units and a legend. Numbers come from the score result only."""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402
from matplotlib.patches import Patch, Rectangle  # noqa: E402

from mirror_hf.report.table import MainTable, fmt  # noqa: E402

CONDITION_NAMES = {"C1": "C1 uninformed", "C2": "C2 self-informed", "C3": "C3 instructed", "C4": "C4 routed"}
plt.rcParams.update({"svg.hashsalt": "mirror-hf", "svg.fonttype": "none", "figure.dpi": 100, "font.size": 9, "axes.grid": True, "grid.alpha": 0.3})


@dataclass(frozen=True)
class FigureFile:
    name: str  # file stem
    title: str
    caption: str
    png: Path
    svg: Path


def _ok(x) -> bool:
    return x is not None and not (isinstance(x, float) and math.isnan(x))


def escalation(result: dict) -> Figure | None:
    """Mean CFR over models per condition with its BCa 95% CI, each model as a thin line, and the
    paired test of consecutive conditions (mean difference, d_z, bootstrap p)."""
    curve = result.get("aggregate", {}).get("escalation")
    if not curve:
        return None
    conditions = [c for c in CONDITION_NAMES if c in curve]
    fig, ax = plt.subplots(figsize=(7, 4.2))
    xs = range(len(conditions))
    first = True
    for model, entry in sorted(result["models"].items()):
        cfr = (entry.get("exp9") or {}).get("cfr") or {}
        ys = [cfr.get(c, {}).get("value") for c in conditions]
        if sum(_ok(y) for y in ys) >= 2:
            ax.plot(xs, [y if _ok(y) else math.nan for y in ys], color="0.75", lw=0.8, marker=".", ms=3,
                    label="one model" if first else None, zorder=1)
            first = False
    means = [curve[c]["value"] for c in conditions]
    lows = [curve[c]["value"] - curve[c]["ci"][0] if curve[c].get("ci") else 0 for c in conditions]
    highs = [curve[c]["ci"][1] - curve[c]["value"] if curve[c].get("ci") else 0 for c in conditions]
    ax.errorbar(xs, means, yerr=[lows, highs], color="black", lw=2, marker="s", ms=6, capsize=4,
                label="mean over models, 95% BCa CI", zorder=3)
    for i, (a, b) in enumerate(zip(conditions, conditions[1:])):
        pair = curve.get("d_z", {}).get(f"{a}_{b}")
        if not pair or not _ok(pair.get("mean_diff")):
            continue
        p = pair.get("p")
        text = f"Δ {fmt(-pair['mean_diff'], 2)}\nd_z {fmt(pair.get('value'), 2)}\np {fmt(p, 3) if _ok(p) else '—'}"
        y = max(means[i], means[i + 1])
        ax.annotate(text, xy=(i + 0.5, min(1.0, y + 0.08)), ha="center", va="bottom", fontsize=7.5,
                    bbox={"boxstyle": "round,pad=0.2", "fc": "white", "ec": "0.6"})
    n_models = curve[conditions[0]]["n"]
    ax.set_xticks(list(xs), [CONDITION_NAMES[c] for c in conditions])
    ax.set_ylim(0, 1.15)
    ax.set_xlabel("Exp9 condition")
    ax.set_ylabel("confident failure rate (share of weak components)")
    reduction = curve.get("reduction", {}).get("value")
    ax.set_title(f"Escalation curve: CFR C1-C4 over {n_models} models" + (f" (C1→C4 reduction {fmt(reduction * 100, 0)}%)" if _ok(reduction) else ""))
    ax.legend(loc="upper right", fontsize=8)
    fig.tight_layout()
    return fig


def reliability(model: str, exp1: dict) -> Figure | None:
    """Wager-based reliability diagram: accuracy vs mean confidence (bet/10) per bin, the bins' record
    counts as bars on a second axis, and the diagonal of perfect calibration."""
    bins = exp1.get("reliability")
    if not bins:
        return None
    fig, ax = plt.subplots(figsize=(4.6, 4.2))
    width = bins[0]["hi"] - bins[0]["lo"]
    counts = ax.twinx()
    counts.bar([b["lo"] + width / 2 for b in bins], [b["n"] for b in bins], width=width * 0.9, color="0.88",
               edgecolor="0.5", hatch="//", label="records per bin", zorder=0)
    counts.set_ylabel("records per bin (count)")
    counts.grid(False)
    ax.set_zorder(counts.get_zorder() + 1)
    ax.patch.set_visible(False)
    ax.plot([0, 1], [0, 1], ls="--", color="0.4", label="perfect calibration")
    ax.plot([b["confidence"] for b in bins], [b["accuracy"] for b in bins], color="black", marker="o", label="wagering trials")
    for b in bins:
        ax.annotate(str(b["n"]), (b["confidence"], b["accuracy"]), textcoords="offset points", xytext=(0, 6), ha="center", fontsize=7)
    ax.set_xlim(0, 1)
    ax.set_ylim(0, 1)
    ax.set_xlabel("confidence (bet / 10)")
    ax.set_ylabel("accuracy (share correct)")
    ece = (exp1.get("ece") or {}).get("value")
    ax.set_title(f"Reliability: {model}\nECE {fmt(ece)}, n {sum(b['n'] for b in bins)}", fontsize=9)
    handles = ax.get_legend_handles_labels()[0] + counts.get_legend_handles_labels()[0]
    ax.legend(handles=handles, loc="upper left", fontsize=7)
    fig.tight_layout()
    return fig


def _by_domain(result: dict, key: str) -> dict[str, dict[str, float]]:
    out = {}
    for model, entry in sorted(result["models"].items()):
        values = (entry.get("exp1") or {}).get(key)
        if values:
            out[model] = {d: e["value"] for d, e in values.items() if _ok(e.get("value"))}
    return out


def domain_heatmap(result: dict, weak: dict[str, frozenset[str]]) -> Figure | None:
    """Model x domain Exp1 natural accuracy; each model's weak domains outlined and hatched."""
    acc = _by_domain(result, "natural_accuracy_by_domain")
    if not acc:
        return None
    models = list(acc)
    domains = sorted({d for v in acc.values() for d in v})
    grid = [[acc[m].get(d, math.nan) for d in domains] for m in models]
    fig, ax = plt.subplots(figsize=(2.5 + 0.85 * len(domains), 2.2 + 0.42 * len(models)))
    image = ax.imshow(grid, cmap="Greys_r", vmin=0, vmax=1, aspect="auto")
    for i, model in enumerate(models):
        for j, domain in enumerate(domains):
            value = grid[i][j]
            if _ok(value):
                ax.text(j, i, fmt(value, 2), ha="center", va="center", fontsize=7, color="black" if value > 0.5 else "white")
            if domain in weak.get(model, ()):  # a black and a white line: visible on dark and light cells
                ax.add_patch(Rectangle((j - 0.46, i - 0.46), 0.92, 0.92, fill=False, ec="black", lw=3))
                ax.add_patch(Rectangle((j - 0.46, i - 0.46), 0.92, 0.92, fill=False, ec="white", lw=1.2, ls="--"))
    ax.set_xticks(range(len(domains)), domains, rotation=30, ha="right")
    ax.set_yticks(range(len(models)), models)
    ax.grid(False)
    ax.set_xlabel("domain")
    ax.set_ylabel("model")
    ax.set_title("Exp1 natural accuracy by domain (weak domains outlined)")
    fig.colorbar(image, ax=ax, label="accuracy (share correct)", fraction=0.04)
    fig.legend(handles=[Patch(fill=False, ec="black", lw=3, ls="-", label="weak domain of that model")], loc="lower right", fontsize=7)
    fig.tight_layout()
    return fig


def natural_vs_wagering(result: dict) -> Figure | None:
    """Per model and domain, natural and wagering accuracy side by side (the Mirror gap per domain)."""
    nat = _by_domain(result, "natural_accuracy_by_domain")
    wag = _by_domain(result, "wagering_accuracy_by_domain")
    models = [m for m in nat if m in wag]
    if not models:
        return None
    cols = min(2, len(models))
    rows = math.ceil(len(models) / cols)
    fig, axes = plt.subplots(rows, cols, figsize=(6.2 * cols, 2.8 * rows), squeeze=False)
    for ax, model in zip(axes.flat, models):
        domains = sorted(set(nat[model]) | set(wag[model]))
        xs = range(len(domains))
        ax.bar([x - 0.2 for x in xs], [nat[model].get(d, 0) for d in domains], 0.4, color="0.35", label="natural")
        ax.bar([x + 0.2 for x in xs], [wag[model].get(d, 0) for d in domains], 0.4, color="white", edgecolor="black", hatch="...", label="wagering")
        ax.set_xticks(list(xs), domains, rotation=30, ha="right", fontsize=7)
        ax.set_ylim(0, 1)
        ax.set_ylabel("accuracy (share correct)")
        ax.set_title(model, fontsize=9)
        ax.legend(fontsize=7, loc="upper right")
    for ax in list(axes.flat)[len(models):]:
        ax.set_visible(False)
    fig.suptitle("Exp1 accuracy per domain: natural vs wagering channel")
    fig.supxlabel("domain")
    fig.tight_layout()
    return fig


def kdi_distribution(table: MainTable) -> Figure | None:
    """KDI of every model with its 95% CI, sorted; zero marks 'acts as well as it knows'."""
    points = [(m, table.cells[m]["kdi"]) for m in table.models if table.cells[m].get("kdi")]
    if not points:
        return None
    points.sort(key=lambda p: p[1].value)
    fig, ax = plt.subplots(figsize=(6, 1.4 + 0.35 * len(points)))
    for i, (model, cell) in enumerate(points):
        if cell.ci:
            ax.plot(cell.ci, [i, i], color="0.4", lw=2, label="95% CI" if i == 0 else None)
        ax.plot(cell.value, i, "o", color="black", label="KDI" if i == 0 else None)
    ax.axvline(0, color="0.3", ls="--", lw=1, label="KDI = 0")
    ax.set_yticks(range(len(points)), [p[0] for p in points])
    ax.set_xlabel("KDI = Mirror gap - (1 - CFR C1)  (unitless, [-1, 1])")
    ax.set_ylabel("model")
    ax.set_title(f"Knowing-doing index over {len(points)} model(s)")
    ax.legend(fontsize=7, loc="lower right")
    fig.tight_layout()
    return fig


def c4_routing(table: MainTable) -> Figure | None:
    """Per model, confident failures without (C1) and with external routing (C4): what routing buys."""
    points = [(m, table.cells[m].get("cfr_c1"), table.cells[m].get("cfr_c4")) for m in table.models]
    points = [p for p in points if p[1] and p[2]]
    if not points:
        return None
    fig, ax = plt.subplots(figsize=(6.4, 1.6 + 0.35 * len(points)))
    for i, (model, c1, c4) in enumerate(points):
        ax.annotate("", xy=(c4.value, i), xytext=(c1.value, i), arrowprops={"arrowstyle": "->", "color": "0.5"})
        for cell, marker, label in ((c1, "o", "C1 uninformed"), (c4, "s", "C4 routed")):
            if cell.ci:
                ax.plot(cell.ci, [i, i], color="0.7", lw=3, zorder=1)
            ax.plot(cell.value, i, marker, color="black" if marker == "o" else "white", mec="black", zorder=2,
                    label=label if i == 0 else None)
    ax.set_yticks(range(len(points)), [p[0] for p in points])
    ax.set_xlim(-0.02, 1.02)
    ax.set_xlabel("confident failure rate (share of weak components; bars: 95% CI where scored)")
    ax.set_ylabel("model")
    ax.set_title("C4 routing: confident failures before and after external routing")
    ax.legend(fontsize=7, loc="lower right")
    fig.tight_layout()
    return fig


def save(fig: Figure, folder: Path, name: str, title: str, caption: str) -> FigureFile:
    folder.mkdir(parents=True, exist_ok=True)
    png, svg = folder / f"{name}.png", folder / f"{name}.svg"
    fig.savefig(png, dpi=110)
    fig.savefig(svg, metadata={"Date": None})
    plt.close(fig)
    return FigureFile(name, title, caption, png, svg)


def safe_name(text: str) -> str:
    return "".join(ch if ch.isalnum() else "_" for ch in text).strip("_") or "model"


def write_figures(result: dict, table: MainTable, weak: dict[str, frozenset[str]], folder: Path) -> tuple[list[FigureFile], list[str]]:
    """Every figure the result supports, as PNG and SVG; and one line per figure not drawn, saying why."""
    files: list[FigureFile] = []
    missing: list[str] = []
    specs = [
        ("escalation", "Escalation curve C1-C4", "Mean CFR over models with BCa 95% CIs; boxes: paired test of consecutive conditions (Δ = change in mean CFR, d_z, bootstrap p).",
         lambda: escalation(result), "needs Exp9 CFR for at least two conditions"),
        ("domain_heatmap", "Accuracy by model and domain", "Exp1 natural accuracy; outlined cells are the model's weak domains.",
         lambda: domain_heatmap(result, weak), "needs Exp1 natural-channel trials"),
        ("natural_vs_wagering", "Natural vs wagering accuracy", "Per domain; the difference is the Mirror gap g(m,d).",
         lambda: natural_vs_wagering(result), "needs Exp1 natural and wagering trials for one model"),
        ("kdi", "KDI distribution", "Knowing-doing index per model with its 95% CI.",
         lambda: kdi_distribution(table), "needs Exp1 and Exp9 trials for one model"),
        ("c4_routing", "C4 routing", "CFR under C1 and C4 per model: the confident failures external routing removes.",
         lambda: c4_routing(table), "needs Exp9 CFR under C1 and C4"),
    ]
    for name, title, caption, draw, why in specs:
        fig = draw()
        if fig is None:
            missing.append(f"{title}: not drawn ({why})")
        else:
            files.append(save(fig, folder, name, title, caption))
    for model, entry in sorted(result["models"].items()):
        fig = reliability(model, entry.get("exp1") or {})
        if fig is not None:
            files.append(save(fig, folder, f"reliability_{safe_name(model)}", f"Reliability: {model}",
                              "Wager-based (bet/10), 10 equal-width bins; numbers: records per bin."))
    if not any(f.name.startswith("reliability_") for f in files):
        missing.append("Reliability diagrams: not drawn (needs Exp1 wagering trials with a parsed bet)")
    missing.append("C4 trade-off as correct vs false escalations (C4 escalations matched to the same component under C1): not drawn (not scored by this version)")
    missing.append("Money plot (gap vs CFR per model x domain x subcategory cell): not drawn (not scored by this version)")
    return files, missing
