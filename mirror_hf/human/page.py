# ruff: noqa: E501  (the page's CSS and JavaScript, kept as written)
"""The questionnaire page: one self-contained HTML file (inline CSS and JS, the packet inside as a
JSON script element), no request of any kind, so it opens from disk or any static host and works
offline. Progress lives in the browser's localStorage under the packet's hash; a finished (or
stopped) packet is exported as one response file (docs/human-baseline.md, "The response file")."""

from __future__ import annotations

import json

#: a participant id: what the split name is made from (`folder.model_split`), so kept to \w and -
PARTICIPANT_PATTERN = r"^[A-Za-z0-9_\-]{1,64}$"
RESPONSE_FORMAT = "mirror-hf human responses"
RESPONSE_VERSION = 1

_CSS = """
*{box-sizing:border-box}body{font:16px/1.45 system-ui,sans-serif;margin:0;background:#f6f6f4;color:#111}
main{max-width:46rem;margin:0 auto;padding:1rem}h1{font-size:1.3rem}h2{font-size:1.05rem;margin:.8rem 0 .3rem}
.card{background:#fff;border:1px solid #ccc;border-radius:8px;padding:1rem;margin:.8rem 0}
.q{white-space:pre-wrap;overflow-wrap:anywhere}label,legend,p{overflow-wrap:anywhere}.instr{background:#eef3fb;border-left:4px solid #4a6fa5;padding:.5rem .7rem;white-space:pre-wrap}
label{display:block;padding:.35rem .2rem;cursor:pointer}label.inline{display:inline-block;margin-right:1rem}
input[type=text],select{font:inherit;width:100%;padding:.45rem;border:1px solid #888;border-radius:4px}
button{font:inherit;padding:.55rem 1.1rem;margin:.4rem .4rem .4rem 0;border-radius:6px;border:1px solid #345;background:#345;color:#fff}
button.secondary{background:#fff;color:#345}:focus-visible{outline:3px solid #e8a200;outline-offset:2px}
progress{width:100%;height:.8rem}.err{color:#a00;min-height:1.3em}.muted{color:#555;font-size:.9rem}
fieldset{border:1px solid #bbb;border-radius:6px;margin:.6rem 0}legend{font-weight:600}
@media (max-width:480px){main{padding:.5rem}.card{padding:.7rem}button{width:100%}}
"""

_JS = r"""
'use strict';
const PACKET = JSON.parse(document.getElementById('packet').textContent);
const LETTERS = PACKET_LETTERS, ID_RULE = new RegExp(PARTICIPANT_RULE);
const KEY = 'mirror-hf-human:' + PACKET.packet_hash;
const STEPS = [];
PACKET.items.forEach(item => item.channels.forEach(ch => STEPS.push({item, channel: ch})));
const app = document.getElementById('app');
let state = load();
let shownAt = 0;

function load() {
  try { const s = JSON.parse(localStorage.getItem(KEY) || 'null'); if (s && Array.isArray(s.responses)) return s; } catch (e) {}
  return null;
}
function save() { localStorage.setItem(KEY, JSON.stringify(state)); }
function el(tag, attrs, ...kids) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) { if (k === 'text') e.textContent = v; else e.setAttribute(k, v); }
  kids.forEach(k => e.append(k));
  return e;
}
function done() { return new Set(state.responses.map(r => r.item_id + '\u0000' + r.channel)); }
function next() { const seen = done(); return STEPS.findIndex(s => !seen.has(s.item.item_id + '\u0000' + s.channel)); }

function render() {
  app.replaceChildren();
  if (!state) return renderStart();
  const i = next();
  if (i < 0) return renderEnd();
  renderStep(i);
}

function renderStart() {
  const f = el('form', {class: 'card', id: 'start'});
  f.append(el('h1', {text: 'Mirror questionnaire'}),
    el('p', {text: 'You will answer ' + PACKET.items.length + ' items in ' + STEPS.length + ' steps. Each step shows the instructions a language model gets for the same item. Your progress is kept in this browser: you can close the page and continue later. At the end you download one response file and send it to the study team.'}),
    el('label', {for: 'participant', text: 'Participant id (given to you by the study team)'}),
    el('input', {type: 'text', id: 'participant', autocomplete: 'off', required: '', pattern: PARTICIPANT_RULE.slice(1, -1)}),
    el('p', {class: 'err', id: 'err', role: 'alert'}), el('button', {type: 'submit', id: 'begin', text: 'Start'}));
  f.addEventListener('submit', ev => {
    ev.preventDefault();
    const id = document.getElementById('participant').value.trim();
    if (!ID_RULE.test(id)) { document.getElementById('err').textContent = 'Use letters, digits, - or _ (at most 64).'; return; }
    state = {participant: id, started: new Date().toISOString(), responses: []};
    save(); render();
  });
  app.append(f);
  document.getElementById('participant').focus();
}

function choiceField(name, choices, legend) {
  const fs = el('fieldset', {}, el('legend', {text: legend}));
  if (choices && choices.length) {
    choices.forEach((c, j) => {
      const input = el('input', {type: 'radio', name, value: LETTERS[j], id: name + '-' + j});
      fs.append(el('label', {for: name + '-' + j}, input, ' ' + LETTERS[j] + ') ' + c));
    });
  } else {
    fs.append(el('input', {type: 'text', name, id: name + '-text', autocomplete: 'off', 'aria-label': legend}));
  }
  return fs;
}
function letterField(name, choices, legend) {  // Exp9 parts show their options inside the text, as the model sees them
  const fs = el('fieldset', {}, el('legend', {text: legend}));
  if (choices && choices.length) choices.forEach((c, j) => {
    fs.append(el('label', {class: 'inline', for: name + '-' + j}, el('input', {type: 'radio', name, value: LETTERS[j], id: name + '-' + j}), ' ' + LETTERS[j]));
  });
  else fs.append(el('input', {type: 'text', name, id: name + '-text', autocomplete: 'off', 'aria-label': legend}));
  return fs;
}
function value(form, name) {
  const checked = form.querySelector('input[name="' + name + '"]:checked');
  if (checked) return checked.value;
  const text = form.querySelector('input[type=text][name="' + name + '"]');
  return text && text.value.trim() ? text.value.trim() : null;
}
function radios(name, options, legend) {
  const fs = el('fieldset', {}, el('legend', {text: legend}));
  options.forEach(([v, label], j) => fs.append(el('label', {for: name + '-' + j}, el('input', {type: 'radio', name, value: v, id: name + '-' + j}), ' ' + label)));
  return fs;
}
function question(text, choices) {
  const box = el('div', {class: 'q'}, text);
  return box;
}

function renderStep(i) {
  const {item, channel} = STEPS[i];
  const f = el('form', {class: 'card', id: 'step', 'data-item': item.item_id, 'data-channel': channel});
  f.append(el('progress', {max: STEPS.length, value: i, 'aria-label': 'progress'}),
           el('p', {class: 'muted', id: 'where', text: 'Step ' + (i + 1) + ' of ' + STEPS.length}));
  const I = PACKET.instructions;
  if (item.experiment === 'exp1') {
    f.append(el('div', {class: 'instr', text: I.exp1[channel]}));
    if (channel === 'difficulty_selection') {
      ['A', 'B'].forEach(t => f.append(el('h2', {text: 'Task ' + t + (t === 'A' ? ' (harder)' : ' (easier)')}), question(item.tasks[t].text)));
      ['A', 'B'].forEach(t => { if (item.tasks[t].choices.length) f.append(el('p', {class: 'muted', text: 'Task ' + t + ' options: ' + item.tasks[t].choices.map((c, j) => LETTERS[j] + ') ' + c).join('   ')})); });
      f.append(radios('choice', [['A', 'Task A (harder)'], ['B', 'Task B (easier)']], 'Which task do you attempt?'));
      const slot = el('div', {id: 'chosen'});
      f.append(slot);
      f.addEventListener('change', ev => {
        if (ev.target.name !== 'choice') return;
        const t = item.tasks[ev.target.value];
        slot.replaceChildren(choiceField('answer', t.choices, 'Your answer to Task ' + ev.target.value));
      });
    } else {
      f.append(el('h2', {text: 'Question'}), question(item.text));
      if (channel === 'opt_out') {
        f.append(radios('skip', [['no', 'Answer the question'], ['yes', 'SKIP (a guaranteed +1 point)']], 'Answer or skip?'));
      }
      f.append(choiceField('answer', item.choices, 'Your answer'));
      if (channel === 'wagering') {
        const sel = el('select', {name: 'wager', id: 'wager'}, el('option', {value: '', text: 'choose 1-10'}));
        for (let k = 1; k <= 10; k++) sel.append(el('option', {value: String(k), text: String(k)}));
        f.append(el('label', {for: 'wager', text: 'Your bet (points, 1-10)'}), sel);
      }
    }
  } else {
    const part = item.parts[channel], n = channel === 'component_a' ? 1 : 2;
    f.append(el('div', {class: 'instr', text: I.exp9.intro}), el('h2', {text: 'Task'}), question(item.text),
             el('h2', {text: 'STEP ' + n}), question(part.text), el('p', {class: 'instr', text: I.exp9.decision}),
             radios('decision', Object.entries(I.exp9.decisions), 'Your decision'));
    const slot = el('div', {id: 'proceed'});
    f.append(slot);
    f.addEventListener('change', ev => {
      if (ev.target.name !== 'decision') return;
      slot.replaceChildren(...(ev.target.value === 'proceed' ? [letterField('answer', part.choices, 'Your answer')] : []));
    });
  }
  f.append(el('p', {class: 'err', id: 'err', role: 'alert'}), el('button', {type: 'submit', id: 'next', text: 'Next'}),
           el('button', {type: 'button', class: 'secondary', id: 'export-partial', text: 'Stop here and download my responses so far'}));
  f.addEventListener('submit', ev => { ev.preventDefault(); submit(f, item, channel); });
  f.querySelector('#export-partial').addEventListener('click', () => download(false));
  app.append(f);
  shownAt = performance.now();
  const first = f.querySelector('input,select');
  if (first) first.focus();
}

function submit(f, item, channel) {
  const err = f.querySelector('#err');
  const r = {item_id: item.item_id, experiment: item.experiment, channel, answer: null};
  const answer = value(f, 'answer');
  if (item.experiment === 'exp1') {
    if (channel === 'opt_out') {
      const skip = value(f, 'skip');
      if (!skip) { err.textContent = 'Choose: answer or skip.'; return; }
      r.skipped = skip === 'yes';
      if (!r.skipped && !answer) { err.textContent = 'Give your answer (or choose SKIP).'; return; }
      r.answer = r.skipped ? null : answer;
    } else if (channel === 'difficulty_selection') {
      r.choice = value(f, 'choice');
      if (!r.choice) { err.textContent = 'Choose Task A or Task B.'; return; }
      if (!answer) { err.textContent = 'Answer the task you chose.'; return; }
      r.answer = answer;
    } else {
      if (!answer) { err.textContent = 'Give your answer.'; return; }
      r.answer = answer;
      if (channel === 'wagering') {
        const w = f.querySelector('#wager').value;
        if (!w) { err.textContent = 'Choose your bet (1-10).'; return; }
        r.wager = parseInt(w, 10);
      }
    }
  } else {
    r.decision = value(f, 'decision');
    if (!r.decision) { err.textContent = 'Choose a decision.'; return; }
    if (r.decision === 'proceed' && !answer) { err.textContent = 'Give your answer (you chose to proceed).'; return; }
    r.answer = r.decision === 'proceed' ? answer : null;
  }
  r.response_ms = Math.round(performance.now() - shownAt);
  r.answered_at = new Date().toISOString();
  state.responses.push(r);
  save();
  render();
}

function mirrorExport(finished) {
  return {format: RESPONSE_FORMAT, format_version: RESPONSE_VERSION, packet_hash: PACKET.packet_hash,
          packet_settings: PACKET.settings, build_hash: PACKET.dataset.build_hash, participant: state.participant,
          finished: finished === undefined ? next() < 0 : !!finished, started: state.started,
          exported: new Date().toISOString(), responses: state.responses};
}
window.mirrorExport = mirrorExport;

function download(finished) {
  const blob = new Blob([JSON.stringify(mirrorExport(finished), null, 1)], {type: 'application/json'});
  const a = el('a', {href: URL.createObjectURL(blob), download: state.participant + '.json'});
  document.body.append(a); a.click(); a.remove();
  setTimeout(() => URL.revokeObjectURL(a.href), 1000);
}

function renderEnd() {
  const box = el('div', {class: 'card', id: 'end'}, el('h1', {text: 'Thank you: every step is answered'}),
    el('p', {text: 'Download your response file (' + state.participant + '.json) and send it to the study team. Nothing has been sent anywhere: the answers exist only in this browser and in that file.'}),
    el('button', {type: 'button', id: 'export', text: 'Download my responses'}),
    el('button', {type: 'button', class: 'secondary', id: 'forget', text: 'Remove my answers from this browser'}));
  box.querySelector('#export').addEventListener('click', () => download(true));
  box.querySelector('#forget').addEventListener('click', () => { localStorage.removeItem(KEY); state = null; render(); });
  app.append(box);
  box.querySelector('#export').focus();
}
render();
"""


def render_page(packet: dict) -> str:
    """The page for one packet (the packet JSON embedded; `</` escaped so no text can close the script)."""
    from mirror_hf.records import CHOICE_LETTERS

    data = json.dumps(packet, ensure_ascii=False).replace("</", "<\\/")
    js = (_JS.replace("PACKET_LETTERS", json.dumps(list(CHOICE_LETTERS)))
          .replace("PARTICIPANT_RULE)", json.dumps(PARTICIPANT_PATTERN) + ")")
          .replace("pattern: PARTICIPANT_RULE.slice(1, -1)", "pattern: " + json.dumps(PARTICIPANT_PATTERN[1:-1]))
          .replace("format: RESPONSE_FORMAT, format_version: RESPONSE_VERSION",
                   f"format: {json.dumps(RESPONSE_FORMAT)}, format_version: {RESPONSE_VERSION}"))
    return (
        "<!doctype html>\n<html lang='en'><head><meta charset='utf-8'>"
        "<meta name='viewport' content='width=device-width, initial-scale=1'>"
        "<meta http-equiv='Content-Security-Policy' content=\"default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src 'none'\">"
        f"<title>Mirror questionnaire</title><style>{_CSS}</style></head>\n<body><main id='app' aria-live='polite'></main>\n"
        f"<script id='packet' type='application/json'>{data}</script>\n<script>{js}</script>\n</body></html>\n"
    )
