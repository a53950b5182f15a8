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

from mirror_hf.report.signals import signals_figure  # noqa: E402
from mirror_hf.report.table import MainTable, fmt  # noqa: E402
from mirror_hf.scoring import MIN_TRIALS_PER_DOMAIN  # noqa: E402

CONDITION_NAMES = {"C1": "C1 uninformed", "C2": "C2 self-informed", "C3": "C3 instructed", "C4": "C4 routed"}
plt.rcParams.update({"svg.hashsalt": "mirror-hf", "svg.fonttype": "none", "figure.dpi": 100, "font.size": 9, "axes.grid": True,
                     "grid.alpha": 0.3})


@dataclass(frozen=True)
class FigureFile:
    name: str  # file stem
    title: str
    caption: str
    png: Path
    svg: Path


def _ok(x) -> bool:
    return x is not None and not (isinstance(x, float) and math.isnan(x))


#: The words a figure slot shows, in place of the plot, when the folder has too little to draw it.
NOT_ENOUGH_DATA = "not enough data"
#: Artists that draw data get an SVG id starting with `_marks.MARK`: the page test counts them.
from mirror_hf.report._marks import mark as _mark  # noqa: E402


def _content(artist):
    """Tag a text box that reads the data (a test's annotation, a correlation's box): no legend may cover it either."""
    artist.set_gid(f"content-{id(artist):x}")
    return artist


def _legend_outside(ax, **kwargs):
    """The legend beside the axes, never over the data (issue 29: a legend covered a box)."""
    kwargs.setdefault("fontsize", 7)
    return ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), borderaxespad=0.0, **kwargs)


def escalation(result: dict) -> Figure | None:
    """Mean CFR over models per condition with its BCa 95% CI, each model as a thin line, and the
    paired test of consecutive conditions (mean difference, d_z, bootstrap p)."""
    curve = result.get("aggregate", {}).get("escalation")
    if not curve:
        return None
    conditions = [c for c in CONDITION_NAMES if c in curve]
    fig, ax = plt.subplots(figsize=(9, 4.2))
    xs = range(len(conditions))
    first = True
    participants = result.get("participants") or {}
    for model, entry in sorted(result["models"].items()):
        cfr = (entry.get("exp9") or {}).get("cfr") or {}
        ys = [cfr.get(c, {}).get("value") for c in conditions]
        if model in participants:
            continue  # drawn below, beside the models
        if sum(_ok(y) for y in ys) >= 2:
            _mark(ax.plot(xs, [y if _ok(y) else math.nan for y in ys], color="0.75", lw=0.8, marker=".", ms=3,
                          label="one model" if first else None, zorder=1))
            first = False
    means = [curve[c]["value"] for c in conditions]
    lows = [curve[c]["value"] - curve[c]["ci"][0] if curve[c].get("ci") else 0 for c in conditions]
    highs = [curve[c]["ci"][1] - curve[c]["value"] if curve[c].get("ci") else 0 for c in conditions]
    _mark(ax.errorbar(xs, means, yerr=[lows, highs], color="black", lw=2, marker="s", ms=6, capsize=4,
                      label="mean over models, 95% BCa CI", zorder=3))
    _participants_at_conditions(ax, result, conditions)
    for i, (a, b) in enumerate(zip(conditions, conditions[1:])):
        pair = curve.get("d_z", {}).get(f"{a}_{b}")
        if not pair or not _ok(pair.get("mean_diff")):
            continue
        p = pair.get("p")
        text = f"Δ {fmt(-pair['mean_diff'], 2)}\nd_z {fmt(pair.get('value'), 2)}\np {fmt(p, 3) if _ok(p) else '—'}"
        y = max(means[i], means[i + 1])
        _content(ax.annotate(text, xy=(i + 0.5, min(1.0, y + 0.08)), ha="center", va="bottom", fontsize=7.5,
                             bbox={"boxstyle": "round,pad=0.2", "fc": "white", "ec": "0.6"}))
    n_models = curve[conditions[0]]["n"]
    ax.set_xticks(list(xs), [CONDITION_NAMES[c] for c in conditions])
    ax.set_ylim(0, 1.15)
    ax.set_xlabel("Exp9 condition")
    ax.set_ylabel("confident failure rate (share of weak components)")
    reduction = curve.get("reduction", {}).get("value")
    ax.set_title(f"Escalation curve: CFR C1-C4 over {n_models} models"
                 + (f" (C1→C4 reduction {fmt(reduction * 100, 0)}%)" if _ok(reduction) else ""),
                 fontsize=9)
    _legend_outside(ax)
    fig.tight_layout()
    return fig


def _participants_at_conditions(ax, result: dict, conditions: list[str]) -> None:
    """People beside the models: each participant's CFR as a small diamond where they have one
    (the questionnaire asks C1), their mean with its CI over participants as a large one."""
    from mirror_hf.participants import MEAN_ROW, SIMULATED

    participants = result.get("participants") or {}
    colours = {"human": "tab:green", SIMULATED: "tab:red"}
    for kind, mean_row in MEAN_ROW.items():
        people = [m for m, p in participants.items() if p.get("kind") == kind and m != mean_row]
        if not people:
            continue
        colour, first = colours.get(kind, "tab:green"), True
        for person in people:
            cfr = ((result["models"].get(person) or {}).get("exp9") or {}).get("cfr") or {}
            for i, c in enumerate(conditions):
                y = (cfr.get(c) or {}).get("value")
                if _ok(y):
                    ax.plot([i + 0.08], [y], marker="d", ms=4, color=colour, alpha=0.6, ls="none", zorder=2,
                            label=f"one participant ({'human' if kind == 'human' else 'AI-simulated'})" if first else None)
                    first = False
        mean = ((result["models"].get(mean_row) or {}).get("exp9") or {}).get("cfr") or {}
        for i, c in enumerate(conditions):
            entry = mean.get(c) or {}
            if _ok(entry.get("value")):
                ci = entry.get("ci")
                err = [[entry["value"] - ci[0]], [ci[1] - entry["value"]]] if ci and None not in ci else None
                ax.errorbar([i + 0.16], [entry["value"]], yerr=err, marker="D", ms=7, color=colour, capsize=4, ls="none", zorder=4,
                            label=f"{mean_row}, 95% BCa CI over {entry.get('n')} participants")


def reliability(model: str, exp1: dict) -> Figure | None:
    """Wager-based reliability diagram: accuracy vs mean confidence (bet/10) per bin, each bin's share
    of the records as a bar on the same [0, 1] axis with its count above the point, and the diagonal
    of perfect calibration. One axis, fixed margins: a report draws one per model, so it is kept cheap."""
    bins = exp1.get("reliability")
    if not bins:
        return None
    fig, ax = plt.subplots(figsize=(6.6, 4.2))
    width = bins[0]["hi"] - bins[0]["lo"]
    total = sum(b["n"] for b in bins)
    _mark(ax.bar([b["lo"] + width / 2 for b in bins], [b["n"] / total for b in bins], width=width * 0.9, color="0.85",
                 edgecolor="0.5", label="share of records per bin", zorder=0))
    ax.plot([0, 1], [0, 1], ls="--", color="0.4", label="perfect calibration")
    _mark(ax.plot([b["confidence"] for b in bins], [b["accuracy"] for b in bins], color="black", marker="o", label="wagering trials"))
    for b in bins:
        ax.annotate(str(b["n"]), (b["confidence"], b["accuracy"]), textcoords="offset points", xytext=(0, 6), ha="center", fontsize=7)
    ax.set_xlim(0, 1)
    ax.set_ylim(0, 1.05)
    ax.set_xlabel("confidence (bet / 10)")
    ax.set_ylabel("accuracy (share correct); bars: share of records")
    ece = (exp1.get("ece") or {}).get("value")
    ax.set_title(f"Reliability: {model}\nECE {fmt(ece)}, n {total} (numbers: records per bin)", fontsize=9)
    _legend_outside(ax)
    # fixed margins: the figure's size and text never vary, and tight_layout was a third of its cost
    fig.subplots_adjust(left=0.1, right=0.66, bottom=0.12, top=0.87)
    return fig


def _by_domain(result: dict, key: str, min_n: int = 0) -> dict[str, dict[str, float]]:
    """model -> domain -> value, for domains whose value rests on at least `min_n` trials."""
    out = {}
    for model, entry in sorted(result["models"].items()):
        values = (entry.get("exp1") or {}).get(key)
        if values:
            out[model] = {d: e["value"] for d, e in values.items() if _ok(e.get("value")) and (e.get("n") or 0) >= min_n}
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
    image = _mark(ax.imshow(grid, cmap="Greys_r", vmin=0, vmax=1, aspect="auto"))
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


DOMAIN_MARKERS = ("o", "s", "^", "v", "D", "P", "X", "*", "<", ">", "h", "p")


def natural_vs_wagering(result: dict) -> Figure | None:
    """Every model's accuracy per domain, natural (x) against wagering (y), one marker per domain;
    the vertical distance from the diagonal is the Mirror gap g(m, d). One axes however many models
    the folder has (a panel per model cost seconds per report and was unreadable at 16)."""
    nat = _by_domain(result, "natural_accuracy_by_domain", MIN_TRIALS_PER_DOMAIN)
    wag = _by_domain(result, "wagering_accuracy_by_domain", MIN_TRIALS_PER_DOMAIN)
    models = [m for m in nat if m in wag and set(nat[m]) & set(wag[m])]
    if not models:
        return None  # no domain with enough graded trials in both channels: the slot says so
    domains = sorted({d for m in models for d in nat[m] if d in wag[m]})
    fig, ax = plt.subplots(figsize=(7.2, 5))
    ax.plot([0, 1], [0, 1], ls="--", color="0.4", label="no gap (diagonal)")
    for i, domain in enumerate(domains):
        points = [(nat[m][domain], wag[m][domain]) for m in models if domain in nat[m] and domain in wag[m]]
        _mark(ax.scatter([p[0] for p in points], [p[1] for p in points], marker=DOMAIN_MARKERS[i % len(DOMAIN_MARKERS)],
                         facecolor="white" if i % 2 else f"{0.1 + 0.6 * i / max(1, len(domains) - 1):.2f}", edgecolor="black", s=36,
                         lw=0.8, label=domain))
    ax.set_xlim(0, 1)
    ax.set_ylim(0, 1)
    ax.set_aspect("equal")
    ax.set_xlabel("natural accuracy (share correct)")
    ax.set_ylabel("wagering accuracy (share correct)")
    ax.set_title(f"Exp1 accuracy per domain: natural vs wagering channel\n({len(models)} model(s); one point per model and domain "
                 f"with >= {MIN_TRIALS_PER_DOMAIN} graded trials in each)", fontsize=9)
    ax.legend(fontsize=7, loc="center left", bbox_to_anchor=(1.02, 0.5), title="domain", title_fontsize=7)
    fig.subplots_adjust(left=0.09, right=0.74, bottom=0.1, top=0.9)
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
            _mark(ax.plot(cell.ci, [i, i], color="0.4", lw=2, label="95% CI" if i == 0 else None))
        _mark(ax.plot(cell.value, i, "o", color="black", label="KDI" if i == 0 else None))
    ax.axvline(0, color="0.3", ls="--", lw=1, label="KDI = 0")
    ax.set_yticks(range(len(points)), [p[0] for p in points])
    ax.set_xlabel("KDI = Mirror gap - (1 - CFR C1)  (unitless, [-1, 1])")
    ax.set_ylabel("model")
    ax.set_title(f"Knowing-doing index over {len(points)} model(s)")
    _legend_outside(ax)
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
                _mark(ax.plot(cell.ci, [i, i], color="0.7", lw=3, zorder=1))
            _mark(ax.plot(cell.value, i, marker, color="black" if marker == "o" else "white", mec="black", zorder=2,
                          label=label if i == 0 else None))
    ax.set_yticks(range(len(points)), [p[0] for p in points])
    ax.set_xlim(-0.02, 1.02)
    ax.set_xlabel("confident failure rate (share of weak components; bars: 95% CI where scored)")
    ax.set_ylabel("model")
    ax.set_title("C4 routing: confident failures before and after external routing", fontsize=9)
    _legend_outside(ax)
    fig.tight_layout()
    return fig


def _interval(entry: dict | None) -> tuple[float, float] | None:
    ci = (entry or {}).get("ci")
    return (ci[0], ci[1]) if ci and None not in ci else None


def _errors(entries: list[dict]) -> list[list[float]]:
    """matplotlib's asymmetric yerr/xerr from score entries (0 where an entry has no CI)."""
    lows, highs = [], []
    for e in entries:
        ci, v = _interval(e), e.get("value")
        lows.append(v - ci[0] if ci and _ok(v) else 0.0)
        highs.append(ci[1] - v if ci and _ok(v) else 0.0)
    return [lows, highs]


def escalation_frames(result: dict) -> Figure | None:
    """The escalation curve one paradigm at a time (P1, P2, P3; fixed and tailored tasks) and in the
    fixed-task P1+P2 frame: mean CFR over models per condition with its BCa 95% CI."""
    aggregate = result.get("aggregate", {})
    curves = [(f"{p} only", aggregate.get("escalation_by_paradigm", {}).get(p)) for p in ("P1", "P2", "P3")]
    curves.append(("P1+P2, fixed tasks only", aggregate.get("escalation_fixed_p1p2")))
    curves = [(label, c) for label, c in curves if c and sum(_ok((c.get(k) or {}).get("value")) for k in CONDITION_NAMES) >= 2]
    if not curves:
        return None
    fig, ax = plt.subplots(figsize=(7, 4.2))
    styles = (("o", "-"), ("s", "--"), ("^", ":"), ("D", "-."))
    conditions = list(CONDITION_NAMES)
    for i, ((label, curve), (marker, line)) in enumerate(zip(curves, styles)):
        here = [c for c in conditions if _ok((curve.get(c) or {}).get("value"))]
        xs = [conditions.index(c) + (i - (len(curves) - 1) / 2) * 0.06 for c in here]
        entries = [curve[c] for c in here]
        n = max(e.get("n") or 0 for e in entries)
        _mark(ax.errorbar(xs, [e["value"] for e in entries], yerr=_errors(entries), marker=marker, ls=line, color=f"{0.15 * i:.2f}",
                          capsize=3, label=f"{label} ({n} models)"))
    ax.set_xticks(range(len(conditions)), [CONDITION_NAMES[c] for c in conditions])
    ax.set_ylim(0, 1.05)
    ax.set_xlabel("Exp9 condition")
    ax.set_ylabel("confident failure rate (share of weak components)")
    ax.set_title("Escalation curve per paradigm and in the fixed-task frame\n(mean CFR over models, 95% BCa CI)", fontsize=9)
    _legend_outside(ax)
    fig.tight_layout()
    return fig


TRADEOFF_BARS = (
    ("correct_escalation_rate", "correct escalations (C1 was wrong)", "0.3", ""),
    ("false_escalation_rate", "false escalations (C1 was right)", "white", "///"),
)


def c4_tradeoff(result: dict) -> Figure | None:
    """Per model, what C4's routing does to weak components judged by the same component under C1:
    left, the shares of escalations that were correct vs false; right, failures prevented and
    successes blocked per 100 matched weak components, each with its BCa 95% CI."""
    rows = []
    for model, entry in sorted(result["models"].items()):
        t = (entry.get("exp9") or {}).get("c4_tradeoff")
        if t and any(_ok((t.get(k) or {}).get("value")) for k, *_ in TRADEOFF_BARS):
            rows.append((model, t))
    if not rows:
        return None
    fig, (left, right) = plt.subplots(1, 2, figsize=(10, 3.0 + 0.38 * len(rows)), sharey=True)
    ys = list(range(len(rows)))
    for offset, (key, label, face, hatch) in zip((-0.2, 0.2), TRADEOFF_BARS):
        entries = [t.get(key) or {} for _, t in rows]
        values = [e.get("value") if _ok(e.get("value")) else 0.0 for e in entries]
        _mark(left.barh([y + offset for y in ys], values, 0.4, xerr=_errors(entries), color=face, edgecolor="black", hatch=hatch,
                        capsize=2, label=label))
    for offset, (key, label, face, hatch) in zip((-0.2, 0.2), (
            ("failures_prevented_per_100", "failures prevented", "0.3", ""),
            ("successes_blocked_per_100", "successes blocked", "white", "///"))):
        entries = [t.get(key) or {} for _, t in rows]
        values = [e.get("value") if _ok(e.get("value")) else 0.0 for e in entries]
        _mark(right.barh([y + offset for y in ys], values, 0.4, xerr=_errors(entries), color=face, edgecolor="black", hatch=hatch,
                         capsize=2, label=label))
    for y, (_, t) in zip(ys, rows):
        net = t.get("net_utility_per_100") or {}
        if _ok(net.get("value")):
            right.annotate(f"net {net['value']:+.1f}", (1.0, y), xycoords=("axes fraction", "data"), xytext=(3, 0),
                           textcoords="offset points", va="center", fontsize=7)
    left.set_yticks(ys, [m for m, _ in rows])
    left.set_xlim(0, 1)
    left.set_xlabel("share of matched escalated weak C4 components")
    left.set_ylabel("model")
    left.legend(fontsize=7, loc="lower center", bbox_to_anchor=(0.5, 1.0), ncol=1)
    right.set_xlabel("per 100 matched weak C4 components (count)")
    right.legend(fontsize=7, loc="lower center", bbox_to_anchor=(0.5, 1.0), ncol=1)
    left.invert_yaxis()
    fig.suptitle("C4 trade-off: correct vs false escalations\n"
                 "(each escalated weak C4 component matched to the same component under C1; bars: 95% BCa CI)",
                 fontsize=9)
    fig.tight_layout()
    return fig


def money_plot(result: dict) -> Figure | None:
    """The money plot: every (model, domain, subcategory) cell of C1 / P1 / fixed tasks with weak
    components, Mirror gap g(m, d) against the cell's CFR (marker area: weak components), with the
    Pearson r and its BCa 95% CI and the partial r given accuracy; right, the per-subcategory
    Pearson r across models with its BH-adjusted q."""
    plot = result.get("aggregate", {}).get("money_plot")
    cells = [c for c in (plot or {}).get("cells", []) if _ok(c.get("gap")) and _ok(c.get("cfr"))]
    if not cells:
        return None
    subs = {k: v for k, v in (plot.get("subcategories") or {}).items() if _ok(v.get("value"))}
    fig, axes = plt.subplots(1, 2 if subs else 1, figsize=(11 if subs else 6.5, 5.6), squeeze=False,
                             gridspec_kw={"width_ratios": [3, 2]} if subs else None)
    ax = axes[0][0]
    sizes = [8 + 4 * min(int(c.get("n_weak") or 1), 40) for c in cells]
    _mark(ax.scatter([c["gap"] for c in cells], [c["cfr"] for c in cells], s=sizes, facecolor="0.6", edgecolor="black", lw=0.5, alpha=0.7,
                     label=f"cell: model x domain x subcategory ({len(cells)}; area = weak components)"))
    r, partial = plot.get("pearson_r") or {}, plot.get("partial_r") or {}
    ci = _interval(r)
    text = [f"Pearson r {fmt(r.get('value'), 2)}" + (f" [{fmt(ci[0], 2)}, {fmt(ci[1], 2)}]" if ci else "") + f", n {r.get('n')}",
            f"partial r | accuracy {fmt(partial.get('value'), 2)} (p {fmt(partial.get('p'), 3)})"]
    _content(ax.text(0.0, 1.02, "\n".join(text), transform=ax.transAxes, va="bottom", fontsize=8,
                     bbox={"boxstyle": "round,pad=0.3", "fc": "white", "ec": "0.6"}))
    ax.set_xlim(left=0)
    ax.set_ylim(-0.03, 1.1)
    ax.set_xlabel("Mirror gap g(m, d) (|wagering - natural accuracy|, share)")
    ax.set_ylabel("cell CFR (share of weak components, C1 / P1 / fixed)")
    ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(0.0, -0.14), borderaxespad=0.0)
    ax.set_title("Money plot: Mirror gap vs confident failures", pad=34)
    if subs:
        side = axes[0][1]
        names = sorted(subs, key=lambda k: subs[k]["value"])
        rejected = [bool(subs[k].get("reject")) for k in names]
        _mark(side.barh(range(len(names)), [subs[k]["value"] for k in names], color=["0.2" if x else "white" for x in rejected],
                        edgecolor="black"))
        side.set_yticks(range(len(names)), names, fontsize=5 if len(names) > 20 else 7)
        side.axvline(0, color="0.3", lw=0.8)
        side.set_xlim(-1, 1)
        side.set_xlabel("Pearson r of gap and CFR (unitless)")
        side.set_ylabel("subcategory")
        significant = sum(rejected)
        side.set_title(f"Per subcategory: {significant} of {plot.get('family_size', len(names))} with BH q < 0.05", fontsize=9)
        side.legend(handles=[Patch(fc="0.2", ec="black", label="Pearson r, BH q < 0.05"),
                             Patch(fc="white", ec="black", label="Pearson r, q >= 0.05")],
                    fontsize=7, loc="upper center", bbox_to_anchor=(0.5, -0.14), borderaxespad=0.0)
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


def resolver(result: dict) -> Figure | None:
    """System success under C4 against the resolver's accuracy q (the paper's 0.5 / 0.7 / 0.8 and the
    oracle 1.0) per model, with BCa 95% CIs; the legend gives each model's autonomy (share of C4
    components not routed)."""
    rows = [(m, (e.get("exp9") or {}).get("resolver")) for m, e in sorted(result["models"].items())]
    rows = [(m, r) for m, r in rows if r and any(_ok((v.get("system_success") or {}).get("value")) for v in r.values())]
    if not rows:
        return None
    fig, ax = plt.subplots(figsize=(9, 4.2))
    styles = (("o", "-"), ("s", "--"), ("^", ":"), ("D", "-."), ("v", "-"), ("P", "--"))
    for i, (model, by_q) in enumerate(rows):
        qs = sorted(by_q, key=float)
        entries = [by_q[q].get("system_success") or {} for q in qs]
        autonomy = (by_q[qs[-1]].get("autonomy") or {}).get("value")
        marker, line = styles[i % len(styles)]
        _mark(ax.errorbar([float(q) + (i - (len(rows) - 1) / 2) * 0.004 for q in qs], [e.get("value") for e in entries],
                          yerr=_errors(entries),
                          marker=marker, ls=line, color=f"{0.6 * i / max(1, len(rows) - 1):.2f}", capsize=3, ms=4,
                          label=f"{model} (autonomy {fmt(autonomy, 2)})"))
    ax.set_ylim(0, 1.05)
    ax.set_xlabel("resolver accuracy q (share of routed components it answers correctly)")
    ax.set_ylabel("system success under C4 (share of components)")
    ax.set_title("C4 with a fallible resolver: system success vs resolver accuracy (95% BCa CI)", fontsize=9)
    _legend_outside(ax, fontsize=6.5 if len(rows) > 6 else 7, ncol=2 if len(rows) > 8 else 1)
    fig.tight_layout()
    return fig


SCALING_FIRST = ("exp1_natural_accuracy", "exp1_mirror_gap", "exp9_cfr_c1", "exp3_cce")  # the panels, in this order, when scored


def scaling_figure(result: dict, sizes: dict[str, tuple[str, float]]) -> Figure | None:
    """Exp8: up to four headline numbers against parameters (log axis), one marker per family, each
    family's OLS line on log10(parameters) from the scored fit, its slope and 95% CI in the legend."""
    from mirror_hf.experiments import all_headlines
    from mirror_hf.scoring import headlines_of

    fits = result.get("aggregate", {}).get("scaling") or {}
    keys = [k for k in SCALING_FIRST if k in fits] or sorted(fits)[:4]
    if not keys or not sizes:
        return None
    values = {m: {v.headline.key: v for v in vs} for m, vs in headlines_of(result, all_headlines()).items()}
    families = sorted({f for f, _ in sizes.values()})
    fig, axes = plt.subplots(1, len(keys), figsize=(3.6 * len(keys) + 1, 3.8), squeeze=False)
    for ax, key in zip(axes[0], keys):
        label = key
        for i, family in enumerate(families):
            marker, line = (("o", "-"), ("s", "--"), ("^", ":"), ("D", "-."))[i % 4]
            points = [(p, values[m][key].value) for m, (f, p) in sizes.items()
                      if f == family and key in values.get(m, {}) and _ok(values[m][key].value)]
            if not points:
                continue
            label = values[next(m for m, (f, _) in sizes.items() if f == family and key in values.get(m, {}))][key].headline.label
            fit = fits[key].get(family) or {}
            slope, intercept = (fit.get("slope") or {}), (fit.get("intercept") or {})
            ci = _interval(slope)
            text = f"{family}: slope {fmt(slope.get('value'))}" + (f" [{fmt(ci[0])}, {fmt(ci[1])}]" if ci else "") + " per 10x"
            _mark(ax.plot([p for p, _ in points], [v for _, v in points], marker, color="black", mfc="white" if i % 2 else "0.3",
                          label=text))
            if _ok(slope.get("value")) and _ok(intercept.get("value")):
                lo, hi = min(p for p, _ in points), max(p for p, _ in points)
                xs = [lo, hi]
                ax.plot(xs, [intercept["value"] + slope["value"] * math.log10(x) for x in xs], ls=line, color="0.4", lw=1)
        ax.set_xscale("log")
        ax.set_xlabel("parameters (count, log scale)")
        ax.set_ylabel(label)
        ax.set_title(label, fontsize=9)
        ax.legend(fontsize=6.5, loc="upper center", bbox_to_anchor=(0.5, -0.2), borderaxespad=0.0)
    fig.suptitle("Exp8 scaling: headline numbers vs model size, OLS per family (slope: 95% BCa CI)", fontsize=9)
    fig.tight_layout()
    return fig


def write_figures(result: dict, table: MainTable, weak: dict[str, frozenset[str]], folder: Path,
                  sizes: dict[str, tuple[str, float]] | None = None) -> tuple[list[FigureFile], list[str]]:
    """Every figure the result supports, as PNG and SVG; and one line per figure not drawn, saying why."""
    files: list[FigureFile] = []
    missing: list[str] = []
    specs = [
        ("escalation", "Escalation curve C1-C4",
         "Mean CFR over models with BCa 95% CIs; boxes: paired test of consecutive conditions (Δ = change in mean CFR, d_z, bootstrap p).",
         lambda: escalation(result), "needs Exp9 CFR for at least two conditions"),
        ("domain_heatmap", "Accuracy by model and domain", "Exp1 natural accuracy; outlined cells are the model's weak domains.",
         lambda: domain_heatmap(result, weak), "needs Exp1 natural-channel trials"),
        ("natural_vs_wagering", "Natural vs wagering accuracy", "Per domain; the difference is the Mirror gap g(m,d).",
         lambda: natural_vs_wagering(result),
         f"needs a domain with at least {MIN_TRIALS_PER_DOMAIN} graded Exp1 trials in both the natural and the wagering channel"),
        ("kdi", "KDI distribution", "Knowing-doing index per model with its 95% CI.",
         lambda: kdi_distribution(table), "needs Exp1 and Exp9 trials for one model"),
        ("c4_routing", "C4 routing", "CFR under C1 and C4 per model: the confident failures external routing removes.",
         lambda: c4_routing(table), "needs Exp9 CFR under C1 and C4"),
        ("c4_tradeoff", "C4 trade-off", "Weak C4 components that were escalated, each matched to the same component under C1: "
         "correct escalations (C1 wrong: a failure prevented) vs false escalations (C1 right: a success blocked), with 95% BCa CIs.",
         lambda: c4_tradeoff(result), "needs Exp9 trials under C1 and C4"),
        ("money_plot", "Money plot", "Cells of C1 / P1 / fixed tasks with weak components: Mirror gap vs CFR, Pearson r with its "
         "BCa 95% CI and the partial r given accuracy; right: per-subcategory r across models, BH-adjusted.",
         lambda: money_plot(result), "needs Exp9 C1 / P1 trials on fixed tasks with weak components"),
        ("escalation_frames", "Escalation curve per paradigm", "Mean CFR over models per condition for each paradigm alone "
         "and for P1+P2 on fixed tasks, with BCa 95% CIs (P3 has no C4).",
         lambda: escalation_frames(result), "needs Exp9 trials (the authors' aggregate has no per-paradigm values)"),
        ("signals", "Which signal knows best", "Per model, AUROC and AURC of every Exp1 channel's confidence as a predictor "
         "of being right, with 95% BCa CIs: circles behavioural channels, squares self-reports, diamonds the internal "
         "signals (consistency: agreement of k samples; logprob: token probability).",
         lambda: signals_figure(result), "needs Exp1 trials with a channel confidence"),
        ("resolver", "C4 with a fallible resolver", "System success under C4 when the resolver answers a routed component "
         "correctly with probability q (1.0: the oracle a C4 run records), with BCa 95% CIs.",
         lambda: resolver(result), "needs Exp9 trials under C4"),
    ]
    if sizes:
        specs.append(("scaling", "Exp8 scaling", "Headline numbers against parameters per model family with the scored OLS "
                      "fit on log10(parameters); legend: slope per tenfold parameters with its 95% BCa CI.",
                      lambda: scaling_figure(result, sizes), "needs a headline number for models of the model table"))
    for name, title, caption, draw, why in specs:
        fig = draw()
        if fig is None:
            missing.append(f"{title}: not drawn, {NOT_ENOUGH_DATA} ({why})")
        else:
            files.append(save(fig, folder, name, title, caption))
    for model, entry in sorted(result["models"].items()):
        fig = reliability(model, entry.get("exp1") or {})
        if fig is not None:
            files.append(save(fig, folder, f"reliability_{safe_name(model)}", f"Reliability: {model}",
                              "Wager-based (bet/10), 10 equal-width bins; numbers: records per bin."))
    if not any(f.name.startswith("reliability_") for f in files):
        missing.append(f"Reliability diagrams: not drawn, {NOT_ENOUGH_DATA} (needs Exp1 wagering trials with a parsed bet)")
    return files, missing
