"""Writing the report: `report.md` and a self-contained `index.html` (inline CSS and script, figures
and trial chunks as files beside it; no server, no network)."""

from __future__ import annotations

import html
import json

from mirror_hf.report.figures import FigureFile
from mirror_hf.report.headline_list import HEADERS as HEADLINE_HEADERS
from mirror_hf.report.headline_list import headline_rows
from mirror_hf.report.quality import QualityRow
from mirror_hf.report.scaling import ScalingRow
from mirror_hf.report.signals import html_section, markdown_section
from mirror_hf.report.table import DASH, MainTable, fmt_cell, participants_note
from mirror_hf.report.terminal import Footnotes
from mirror_hf.writes import markdown_text

QUALITY_HEADERS = ("experiment", "channel / condition x paradigm", "trials", "parse failures", "truncated", "failed requests", "ungraded")


def _quality_cells(row: QualityRow) -> list[str]:
    def share(k: int) -> str:
        return f"{k} ({100 * k / row.trials:.1f}%)" if row.trials and k else str(k)

    return [row.experiment, row.group, str(row.trials), share(row.parse_failures), share(row.truncated),
            share(row.failed_requests), share(row.ungraded)]


def _header(column) -> str:
    return f"{column.label} {column.arrow}".strip()


SCALING_HEADERS = ("headline number", "family", "models", "slope per 10x parameters [95% CI]", "R²", "generations",
                   "latest - earliest [95% CI]")
SCALING_ABSENT = ("Exp8 (scaling with model size): not in this report; "
                  "give a model table (`mirror-hf report --models TABLE`, as for `score`).")


def _scaling_cells(row: ScalingRow) -> list[str]:
    return [row.label, row.family, str(row.models), fmt_cell(row.slope), fmt_cell(row.r2, ci=False), row.generations or DASH,
            fmt_cell(row.generation_difference)]


def markdown(title: str, settings: dict, table: MainTable, narratives: dict[str, str], quality: dict[str, list[QualityRow]],
             run_settings: dict[str, list[tuple[str, dict]]], figures: list[FigureFile], not_drawn: list[str], skipped: dict,
             scaling: list[ScalingRow] = (), result: dict | None = None) -> str:
    md = markdown_text  # every name from a user or a model, as inert text
    lines = [f"# {md(title)}", "", "Settings: " + md(", ".join(f"{k} {v}" for k, v in settings.items())), "",
             "## Main table", "",
             "Each cell: value [95% BCa CI]; ↑ higher is better, ↓ lower is better; **bold** = best in its column; "
             f"{DASH} and a value without its interval carry a numbered reason below the table.", ""]
    lines.append("| Model | " + " | ".join(_header(c) for c in table.columns) + " |")
    lines.append("|---|" + "---:|" * len(table.columns))
    notes = Footnotes()
    for model in table.models:
        cells = []
        for column in table.columns:
            text = fmt_cell(table.cells[model][column.key])
            note = table.note_of(model, column.key)
            if note:
                text += " " + notes.mark(note)
            cells.append(f"**{text}**" if model in table.best.get(column.key, ()) else text)
        lines.append(f"| {md(table.label(model))} | " + " | ".join(cells) + " |")
    lines.append("")
    lines += [line + "\n" for line in participants_note(table)]
    lines += [f"{line}  " for line in notes.lines()]
    if notes.lines():
        lines.append("")
    for column in table.columns:
        lines.append(f"- {column.label}: {column.note}")
    if table.absent:
        lines += ["", "Not in this folder (no model has them): " + ", ".join(c.label for c in table.absent) + "."]
    rows = headline_rows(result or {"models": {}}, table.models)
    if rows:
        lines += ["", "## Every headline number", "", "As each experiment declares them: value [95% BCa CI] (n).", "",
                  "| " + " | ".join((*HEADLINE_HEADERS, *(md(table.label(m)) for m in table.models))) + " |",
                  "|---|---|" + "---:|" * len(table.models)]
        lines += ["| " + " | ".join((r.label, r.headline.experiment, *(r.values[m] for m in table.models))) + " |" for r in rows]
    lines += ["", "## Exp8: scaling", ""]
    if scaling:
        lines += ["OLS of each headline number on log10(parameters) within a model family (value [95% BCa CI]; "
                  f"{DASH}: fewer than three models or one size only).", "",
                  "| " + " | ".join(SCALING_HEADERS) + " |", "|---|---|" + "---:|" * 5]
        lines += ["| " + " | ".join(_scaling_cells(r)) + " |" for r in scaling]
    else:
        lines.append(SCALING_ABSENT)
    lines += ["", "## Per model", ""]
    for model in table.models:
        lines += [f"### {md(table.label(model))}", "", md(narratives[model]), ""]
        for label, settings_row in run_settings.get(model, []):
            lines.append(f"- run settings ({md(label)}): " + md(", ".join(f"{k} {v}" for k, v in settings_row.items())))
        for metric, why in (skipped.get(model) or {}).items():
            lines.append(f"- {md(metric)} not scored: {md(why)}")
        rows = quality.get(model, [])
        if rows:
            lines += ["", "| " + " | ".join(QUALITY_HEADERS) + " |", "|---|---|" + "---:|" * 5]
            lines += ["| " + " | ".join(md(c) for c in _quality_cells(r)) + " |" for r in rows]
        lines.append("")
    lines += markdown_section(result or {"models": {}})
    lines += ["## Figures", ""]
    for f in figures:
        lines += [f"### {f.title}", "", f"![{f.title}](figures/{f.png.name})", "", f.caption, ""]
    for line in not_drawn:
        title, _, why = line.partition(": not drawn, ")
        lines += [f"### {title}", "", f"{line}.", ""]
    return "\n".join(lines) + "\n"


CSS = """
body{font:14px/1.45 system-ui,sans-serif;margin:0 auto;max-width:1300px;padding:0 18px 60px;color:#111}
h1{font-size:22px}h2{margin-top:34px;border-bottom:1px solid #ccc}table{border-collapse:collapse;margin:8px 0}
td,th{border:1px solid #ccc;padding:3px 6px;text-align:right;white-space:nowrap}td:first-child,th:first-child{text-align:left}
th{background:#f2f2f2}td.best{font-weight:700;background:#e6e6e6}tr.participant td{background:#eef5ea}.ci{color:#555;font-size:12px}\
.n{color:#777;font-size:11px}
.wrap{overflow-x:auto}figure{display:inline-block;margin:8px;vertical-align:top;max-width:640px}\
figure img{max-width:100%;border:1px solid #ddd}
figcaption{font-size:12px;color:#444}\
.not-enough-data{border:1px dashed #999;padding:40px 16px;color:#333;background:#f7f7f7;max-width:420px}\
#controls label{margin-right:10px}#controls select{max-width:220px}
.trial{border:1px solid #ccc;margin:4px 0;padding:4px 8px}.trial summary{cursor:pointer}\
.tag{display:inline-block;padding:0 5px;border:1px solid #999;margin-left:6px;font-size:12px}
.s-correct{background:#fff}.s-wrong{background:#ddd}.s-ungraded{background:#fff;border-style:dashed}.s-failed{background:#333;color:#fff}
pre{white-space:pre-wrap;background:#f7f7f7;padding:6px;max-height:360px;overflow:auto;margin:4px 0}.k{font-weight:600}
"""

SCRIPT = """
const DATASETS = JSON.parse(document.getElementById('datasets').textContent);
const PAGE = 50; const state = {key: null, page: 0, match: []};
const INDEX = {}; const CHUNKS = {}; const waiting = {};
function mirrorIndex(key, index) { INDEX[key] = index; (waiting['i' + key] || []).forEach(f => f()); }
function mirrorChunk(key, n, rows) { CHUNKS[key + '/' + n] = rows; (waiting['c' + key + '/' + n] || []).forEach(f => f()); }
function load(src, token, ready) {
  if (ready()) return Promise.resolve();
  return new Promise((resolve, reject) => {
    (waiting[token] = waiting[token] || []).push(resolve);
    if (document.querySelector('script[src="' + src + '"]')) return;
    const s = document.createElement('script'); s.src = src; s.onerror = () => reject(new Error('cannot load ' + src));
    document.head.appendChild(s);
  });
}
const $ = id => document.getElementById(id);
function option(sel, value, label) { const o = document.createElement('option');\
 o.value = value; o.textContent = label; sel.appendChild(o); }
function fillFacet(id, facet) {
  const sel = $(id); sel.innerHTML = ''; option(sel, '', 'all');
  facet.values.forEach((v, i) => option(sel, String(i), v));
}
async function selectDataset(key) {
  state.key = key; state.page = 0;
  await load('trials/' + key + '/index.js', 'i' + key, () => key in INDEX);
  const ix = INDEX[key];
  fillFacet('f-domain', ix.domain); fillFacet('f-subcategory', ix.subcategory); fillFacet('f-group', ix.group);
  const st = $('f-status'); st.innerHTML = ''; option(st, '', 'all'); ix.statuses.forEach((v, i) => option(st, String(i), v));
  applyFilters();
}
function applyFilters() {
  const ix = INDEX[state.key]; if (!ix) return;
  const want = {domain: $('f-domain').value, subcategory: $('f-subcategory').value, group: $('f-group').value};
  const status = $('f-status').value; const match = [];
  for (let i = 0; i < ix.n; i++) {
    if (want.domain !== '' && ix.domain.codes[i] !== +want.domain) continue;
    if (want.subcategory !== '' && ix.subcategory.codes[i] !== +want.subcategory) continue;
    if (want.group !== '' && ix.group.codes[i] !== +want.group) continue;
    if (status !== '' && ix.status[i] !== +status) continue;
    match.push(i);
  }
  state.match = match; state.page = 0; render();
}
function field(label, text) {
  if (text === null || text === undefined || text === '') return '';
  const d = document.createElement('div'); const k = document.createElement('div'); k.className = 'k'; k.textContent = label;
  const p = document.createElement('pre'); p.textContent = text; d.appendChild(k); d.appendChild(p); return d.outerHTML;
}
function promptText(raw) {
  if (!raw) return null;
  try { return JSON.parse(raw).map(m => '[' + m.role + ']\\n' +\
 (typeof m.content === 'string' ? m.content : JSON.stringify(m.content))).join('\\n\\n'); }
  catch (e) { return raw; }
}
async function render() {
  const ix = INDEX[state.key]; const list = $('trials'); const pages = Math.max(1, Math.ceil(state.match.length / PAGE));
  const token = state.key + ':' + state.page + ':' + state.match.length;
  state.token = token;
  const shown = state.match.slice(state.page * PAGE, (state.page + 1) * PAGE);
  const need = [...new Set(shown.map(i => Math.floor(i / ix.chunk)))];
  await Promise.all(need.map(n => load('trials/' + state.key + '/c' + n + '.js', 'c' + state.key + '/' + n,\
 () => (state.key + '/' + n) in CHUNKS)));
  if (state.token !== token) return;
  $('count').textContent = state.match.length + ' of ' + ix.n + ' trials match; page ' + (state.page + 1) + ' of ' + pages;
  list.innerHTML = shown.map(i => {
    const row = CHUNKS[state.key + '/' + Math.floor(i / ix.chunk)][i % ix.chunk]; const status = ix.statuses[ix.status[i]];
    const esc = s => String(s).replace(/[&<>"]/g, c => ({'&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;'}[c]));
    return '<details class="trial s-' + status + '" data-status="' + status + '"\
 data-domain="' + esc(ix.domain.values[ix.domain.codes[i]]) +
      '" data-group="' + esc(ix.group.values[ix.group.codes[i]]) + '"><summary>' + esc(row.id) +
      '<span class="tag">' + esc(ix.domain.values[ix.domain.codes[i]]) + '</span>\
<span class="tag">' + esc(ix.subcategory.values[ix.subcategory.codes[i]]) +
      '</span><span class="tag">' + esc(ix.group.values[ix.group.codes[i]]) + '</span><span class="tag">' + status + '</span></summary>' +
      field('prompt', promptText(row.prompt)) + (row.prompt ? '' : field('question (from the bank)', row.question)) +
      field('raw response', row.response) + field('reasoning', row.reasoning) +
      field('parsed fields', JSON.stringify(\
Object.fromEntries(Object.entries(row.parsed || {}).filter(([k, v]) => v !== null)), null, 1)) + field('gold', row.gold) + '</details>';
  }).join('');
  $('prev').disabled = state.page === 0; $('next').disabled = state.page >= pages - 1;
}
document.addEventListener('DOMContentLoaded', () => {
  const sel = $('f-dataset');
  DATASETS.forEach(d => option(sel, d.key, d.model + ' · ' + d.experiment + ' (' + d.trials + ')'));
  sel.addEventListener('change', () => selectDataset(sel.value));
  ['f-domain', 'f-subcategory', 'f-group', 'f-status'].forEach(id => $(id).addEventListener('change', applyFilters));
  $('prev').addEventListener('click', () => { state.page--; render(); });
  $('next').addEventListener('click', () => { state.page++; render(); });
  if (DATASETS.length) selectDataset(DATASETS[0].key);
});
"""


def _esc(text) -> str:
    return html.escape(str(text))


def html_page(title: str, settings: dict, table: MainTable, narratives: dict[str, str], quality: dict[str, list[QualityRow]],
              run_settings: dict[str, list[tuple[str, dict]]], figures: list[FigureFile], not_drawn: list[str],
              datasets: list, skipped: dict, scaling: list[ScalingRow] = (), result: dict | None = None) -> str:
    out = [f"<!doctype html><html lang='en'><head><meta charset='utf-8'><title>{_esc(title)}</title>",
           "<meta name='viewport' content='width=device-width, initial-scale=1'>", f"<style>{CSS}</style></head><body>",
           f"<h1>{_esc(title)}</h1><p>" + _esc(", ".join(f"{k} {v}" for k, v in settings.items())) + "</p>",
           "<nav><a href='#table'>Main table</a> · <a href='#scaling'>Exp8</a> · <a href='#models'>Per model</a> · "
           "<a href='#figures'>Figures</a> · "
           "<a href='#browser'>Trial browser</a> · <a href='report.md'>report.md</a></nav>",
           "<h2 id='table'>Main table</h2><p>Value [95% BCa CI], n below; ↑ higher is better, ↓ lower is better; "
           f"shaded bold = best in its column; {DASH} and a value without its interval carry a numbered reason below the table.</p>",
           "<div class='wrap'><table id='main-table'><thead><tr><th>Model</th>"]
    out += [f"<th title='{_esc(c.note)}'>{_esc(_header(c))}</th>" for c in table.columns]
    out.append("</tr></thead><tbody>")
    notes = Footnotes()
    for model in table.models:
        row_class = " class='participant'" if model in table.kinds else ""
        out.append(f"<tr{row_class}><td>{_esc(table.label(model))}</td>")
        for column in table.columns:
            cell = table.cells[model][column.key]
            cls = " class='best'" if model in table.best.get(column.key, ()) else ""
            note = table.note_of(model, column.key)
            mark = f" <sup class='note' title='{_esc(note)}'>{notes.mark(note)}</sup>" if note else ""
            if cell is None:
                out.append(f"<td{cls}>{DASH}{mark}</td>")
                continue
            ci = f"<br><span class='ci'>[{fmt_cell(cell).split(' [', 1)[1]}</span>" if cell.ci else ""
            n = f"<br><span class='n'>n {cell.n}</span>" if cell.n is not None else (
                f"<br><span class='n' title='{_esc(cell.source)}'>as published</span>" if cell.source else "")
            out.append(f"<td{cls}>{fmt_cell(cell, ci=False)}{mark}{ci}{n}</td>")
        out.append("</tr>")
    out.append("</tbody></table></div>")
    out += [f"<p class='participants'>{_esc(line)}</p>" for line in participants_note(table)]
    if notes.lines():
        out.append("<p class='notes'>" + "<br>".join(_esc(line) for line in notes.lines()) + "</p>")
    out.append("<ul>")
    out += [f"<li><b>{_esc(c.label)}</b>: {_esc(c.note)}</li>" for c in table.columns]
    out.append("</ul>")
    if table.absent:
        out.append("<p>Not in this folder (no model has them): " + _esc(", ".join(c.label for c in table.absent)) + ".</p>")
    rows = headline_rows(result or {"models": {}}, table.models)
    if rows:
        out.append("<h2 id='headlines'>Every headline number</h2><p>As each experiment declares them: value [95% BCa CI] (n).</p>"
                   "<div class='wrap'><table id='headline-table'><thead><tr>"
                   + "".join(f"<th>{_esc(h)}</th>" for h in (*HEADLINE_HEADERS, *(table.label(m) for m in table.models)))
                   + "</tr></thead><tbody>")
        out += ["<tr>" + "".join(f"<td title='{_esc(r.headline.description)}'>{_esc(c)}</td>"
                                 for c in (r.label, r.headline.experiment, *(r.values[m] for m in table.models))) + "</tr>" for r in rows]
        out.append("</tbody></table></div>")
    out.append("<h2 id='scaling'>Exp8: scaling</h2>")
    if scaling:
        out.append("<p>OLS of each headline number on log10(parameters) within a model family; value [95% BCa CI].</p>"
                   "<div class='wrap'><table id='scaling-table'><thead><tr>"
                   + "".join(f"<th>{_esc(h)}</th>" for h in SCALING_HEADERS) + "</tr></thead><tbody>")
        out += ["<tr>" + "".join(f"<td>{_esc(c)}</td>" for c in _scaling_cells(r)) + "</tr>" for r in scaling]
        out.append("</tbody></table></div>")
    else:
        out.append(f"<p>{_esc(SCALING_ABSENT)}</p>")
    out.append("<h2 id='models'>Per model</h2>")
    for model in table.models:
        out.append(f"<h3>{_esc(table.label(model))}</h3><p class='narrative'>{_esc(narratives[model])}</p><ul>")
        for label, row in run_settings.get(model, []):
            out.append(f"<li>run settings ({_esc(label)}): " + _esc(", ".join(f"{k} {v}" for k, v in row.items())) + "</li>")
        for metric, why in (skipped.get(model) or {}).items():
            out.append(f"<li>{_esc(metric)} not scored: {_esc(why)}</li>")
        out.append("</ul>")
        rows = quality.get(model, [])
        if rows:
            problems = sum(r.parse_failures + r.truncated + r.failed_requests for r in rows)
            out.append(f"<details><summary>data quality: {sum(r.trials for r in rows)} trials, {problems} parse failures, truncations "
                       "or failed requests</summary><table class='quality'><tr>"
                       + "".join(f"<th>{_esc(h)}</th>" for h in QUALITY_HEADERS) + "</tr>")
            out += ["<tr>" + "".join(f"<td>{_esc(c)}</td>" for c in _quality_cells(r)) + "</tr>" for r in rows]
            out.append("</table></details>")
    out.append(html_section(result or {"models": {}}, _esc))
    out.append("<h2 id='figures'>Figures</h2>")
    for f in figures:
        out.append(f"<figure><img loading='lazy' src='figures/{f.svg.name}' alt='{_esc(f.title)}'>"
                   f"<figcaption><b>{_esc(f.title)}</b>. {_esc(f.caption)} "
                   f"<a href='figures/{f.png.name}'>PNG</a> · <a href='figures/{f.svg.name}'>SVG</a></figcaption></figure>")
    for line in not_drawn:  # in place of the plot: the figure's title and why there is nothing to draw
        title, _, why = line.partition(": not drawn, ")
        out.append(f"<figure class='no-data'><div class='not-enough-data'>{_esc(why[:1].upper() + why[1:])}</div>"
                   f"<figcaption><b>{_esc(title)}</b>: not drawn.</figcaption></figure>")
    out.append("<h2 id='browser'>Trial browser</h2><div id='controls'>"
               "<label>split <select id='f-dataset'></select></label><label>domain <select id='f-domain'></select></label>"
               "<label>subcategory <select id='f-subcategory'></select></label>"
               "<label>channel / condition x paradigm <select id='f-group'></select></label>"
               "<label>outcome <select id='f-status'></select></label></div>"
               "<p><button id='prev'>‹ previous</button> <span id='count'></span> <button id='next'>next ›</button></p>"
               "<div id='trials'></div>")
    data = json.dumps([d.to_json() for d in datasets]).replace("</", "<\\/")
    out.append(f"<script type='application/json' id='datasets'>{data}</script><script>{SCRIPT}</script></body></html>")
    return "\n".join(out)
