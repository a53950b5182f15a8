"""The report's view of Exp1's signals: the figure "which signal knows best" (per model, AUROC and
AURC of every channel, behavioural, self-report and internal, with their BCa 95% CIs) and the
tracking table (per model and behavioural channel, the partial correlations of its confidence with
correctness given consistency and with consistency given correctness, and the reading). Numbers come
from the score result only (`exp1.signals`, `exp1.tracking`)."""

from __future__ import annotations

import math

from mirror_hf.report.table import fmt

KIND_MARKERS = {"behavioural": "o", "self-report": "s", "internal": "D"}


def _value(entry) -> float | None:
    v = entry.get("value") if isinstance(entry, dict) else None
    return None if v is None or (isinstance(v, float) and math.isnan(v)) else v


def _with_ci(entry) -> str:
    v = _value(entry)
    if v is None:
        return "—"
    ci = entry.get("ci")
    return f"{fmt(v)} [{fmt(ci[0])}, {fmt(ci[1])}]" if ci and ci[0] is not None else fmt(v)


def signals_figure(result: dict):
    """One row per model with Exp1 signals: AUROC (left, higher is better) and AURC (right, lower is
    better) per channel with 95% CIs; marker by kind (circle behavioural, square self-report, diamond
    internal); unavailable channels named in the title."""
    import matplotlib.pyplot as plt

    from mirror_hf.report._marks import mark as _mark

    models = [(m, (e.get("exp1") or {}).get("signals")) for m, e in sorted(result["models"].items())]
    models = [(m, s) for m, s in models if s and any(v.get("status") == "ok" for v in s.values())]
    if not models:
        return None
    fig, axes = plt.subplots(len(models), 2, figsize=(8, 0.45 * sum(len(s) for _, s in models) + 1.2 * len(models)),
                             squeeze=False)
    for row, (model, signals) in enumerate(models):
        ok = [(c, s) for c, s in signals.items() if s.get("status") == "ok"]
        ok.sort(key=lambda cs: -(_value(cs[1]["auroc"]) or 0))
        unavailable = [c for c, s in signals.items() if s.get("status") == "unavailable"]
        for col, (metric, label) in enumerate((("auroc", "AUROC (higher is better)"), ("aurc", "AURC (lower is better)"))):
            ax = axes[row][col]
            for y, (channel, s) in enumerate(ok):
                v = _value(s[metric])
                if v is None:
                    continue
                ci = s[metric].get("ci")
                err = [[v - ci[0]], [ci[1] - v]] if ci and ci[0] is not None else None
                _mark(ax.errorbar([v], [y], xerr=err, fmt=KIND_MARKERS.get(s.get("kind"), "o"), color="black", capsize=3, ms=5))
            ax.set_yticks(range(len(ok)), [c for c, _ in ok])
            ax.set_xlim(0, 1)
            if metric == "auroc":
                ax.axvline(0.5, ls="--", color="0.5", lw=0.8)
            ax.set_xlabel(label)
            ax.invert_yaxis()
        title = f"{model}: which signal knows best"
        if unavailable:
            title += f" ({', '.join(unavailable)} unavailable)"
        axes[row][0].set_title(title, fontsize=9, loc="left")
    from matplotlib.lines import Line2D

    handles = [Line2D([], [], marker=m, color="black", ls="", label=k) for k, m in KIND_MARKERS.items()]
    fig.legend(handles=handles, loc="lower center", ncol=3, fontsize=8)
    fig.tight_layout(rect=(0, 0.05, 1, 1))
    return fig


TRACKING_HEADERS = ("model", "channel", "r(confidence, correct | consistency)", "r(confidence, consistency | correct)",
                    "reading")
SIGNAL_HEADERS = ("model", "channel", "kind", "AUROC", "AURC", "risk at 80%", "PRR")


def signal_rows(result: dict) -> list[list[str]]:
    rows = []
    for model, entry in sorted(result["models"].items()):
        for channel, s in sorted(((entry.get("exp1") or {}).get("signals") or {}).items()):
            if s.get("status") == "unavailable":
                rows.append([model, channel, "internal", f"unavailable: {s.get('reason', '')}", "", "", ""])
            else:
                rows.append([model, channel, s.get("kind", ""), *(_with_ci(s.get(k)) for k in ("auroc", "aurc", "risk_at_80", "prr"))])
    return rows


def tracking_rows(result: dict) -> list[list[str]]:
    rows = []
    for model, entry in sorted(result["models"].items()):
        for channel, t in ((entry.get("exp1") or {}).get("tracking") or {}).items():
            rows.append([model, channel, _with_ci(t.get("accuracy")), _with_ci(t.get("consistency")), t.get("line") or ""])
    return rows


def markdown_section(result: dict) -> list[str]:
    """The section for report.md; names from users and models are inert text (`writes.markdown_text`)."""
    from mirror_hf.writes import markdown_text

    signals, tracking = signal_rows(result), tracking_rows(result)
    if not signals and not tracking:
        return []
    lines = ["## Exp1 signals: which signal knows best, and what confidence tracks", ""]
    if signals:
        lines += ["Every channel's confidence as a predictor of being right: value [95% BCa CI].", "",
                  "| " + " | ".join(SIGNAL_HEADERS) + " |", "|---|---|---|" + "---:|" * 4]
        lines += ["| " + " | ".join(map(markdown_text, r)) + " |" for r in signals]
        lines.append("")
    if tracking:
        lines += ["Partial correlations, item level, consistency = the items' sample agreement (consistency channel); "
                  "a correlation is followed when its interval lies above 0.", "",
                  "| " + " | ".join(TRACKING_HEADERS) + " |", "|---|---|---:|---:|---|"]
        lines += ["| " + " | ".join(map(markdown_text, r)) + " |" for r in tracking]
        lines.append("")
    return lines


def html_section(result: dict, esc) -> str:
    signals, tracking = signal_rows(result), tracking_rows(result)
    if not signals and not tracking:
        return ""

    def table(headers, rows):
        head = "".join(f"<th>{esc(h)}</th>" for h in headers)
        body = "".join("<tr>" + "".join(f"<td>{esc(c)}</td>" for c in r) + "</tr>" for r in rows)
        return f"<div class='wrap'><table><tr>{head}</tr>{body}</table></div>"

    out = ["<h2>Exp1 signals: which signal knows best, and what confidence tracks</h2>"]
    if signals:
        out.append(table(SIGNAL_HEADERS, signals))
    if tracking:
        out.append("<p>Partial correlations, item level; a correlation is followed when its interval lies above 0.</p>")
        out.append(table(TRACKING_HEADERS, tracking))
    return "".join(out)
