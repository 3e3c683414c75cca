// The message editor demo page: the host's stock transcript renderer (rows
// from the demo host's transcript view, original text only) with the
// tavern-core editor widget mounted on top of it.
import { mountMessageEditor } from '../dist/message-editor.js';

const log = document.querySelector('#log');
const streaming = document.querySelector('#streaming');
const status = document.querySelector('#status');
const input = document.querySelector('#input');
const WHO = { user: 'You', steering: 'You (steering)', assistant: 'Model', tool: 'Tool', context: 'Context', 'compaction-marker': 'Compacted' };

let agent = 'idle';
let seen = '';
let editor;

async function transcript() {
  const r = await fetch('/api/demo-editor/transcript', { cache: 'no-store' });
  if (!r.ok) throw new Error(`transcript: HTTP ${r.status}`);
  return r.json();
}

function rowElement(row) {
  const el = document.createElement('article');
  el.className = `row ${row.kind}`;
  el.dataset.seq = String(row.seq);
  el.dataset.kind = row.kind;
  const who = document.createElement('div');
  who.className = 'who';
  who.textContent = WHO[row.kind] ?? row.kind;
  const body = document.createElement('div');
  body.dataset.part = 'body';
  const text = document.createElement('div');
  text.className = 'text';
  text.textContent = row.text;
  body.append(text);
  for (const call of row.toolCalls ?? []) {
    const c = document.createElement('div');
    c.className = 'tool-call';
    c.textContent = `⚙ ${call}`;
    body.append(c);
  }
  if (row.attachments?.length) {
    const list = document.createElement('div');
    list.className = 'attachments';
    for (const a of row.attachments) {
      const s = document.createElement('span');
      s.className = 'attachment';
      s.textContent = a;
      list.append(s);
    }
    body.append(list);
  }
  const note = document.createElement('div');
  note.className = 'turn-note';
  note.hidden = true;
  note.textContent = 'The model was cut off here (the server stopped mid-answer). Send again, or edit and use Save & regenerate.';
  const actions = document.createElement('div');
  actions.dataset.part = 'actions';
  actions.className = 'actions';
  if (row.kind === 'assistant') {
    const copy = document.createElement('button');
    copy.type = 'button';
    copy.className = 'act';
    copy.title = 'Copy';
    copy.innerHTML = '<svg viewBox="0 0 24 24" width="16" height="16" aria-hidden="true"><path fill="none" stroke="currentColor" stroke-width="2" d="M9 9h10v10H9zM5 15V5h10"/></svg>';
    copy.addEventListener('click', () => navigator.clipboard?.writeText(row.text));
    actions.append(copy);
  }
  el.append(who, body, note, actions);
  return el;
}

// Keyed by seq: rows are append-only, so only new rows are added (and rows
// that disappear removed); the widget's decorations on old rows stay.
function render(view) {
  const have = new Map([...log.children].map((el) => [el.dataset.seq, el]));
  const want = new Set(view.rows.map((r) => String(r.seq)));
  for (const [seq, el] of have) if (!want.has(seq)) el.remove();
  for (const row of view.rows) if (!have.has(String(row.seq))) log.append(rowElement(row));
  for (const row of view.rows) {
    const n = log.querySelector(`[data-seq="${row.seq}"] > .turn-note`);
    if (n) n.hidden = !row.interrupted;
  }
  streaming.hidden = view.streaming == null;
  streaming.querySelector('.text').textContent = view.streaming ?? '';
  status.textContent = view.agent === 'running' ? 'The model is answering… An edit made now applies from its next step.' : '';
  document.querySelector('#send').disabled = view.agent === 'running';
  // The widget refetches its state when rows change; regenerable also
  // depends on the agent being idle, which only this view sees.
  const key = `${view.agent}:${view.rows.length}`;
  if (key !== seen) {
    seen = key;
    editor?.refresh();
  }
  agent = view.agent;
  document.body.dataset.agent = view.agent;
}

async function poll() {
  try {
    render(await transcript());
  } catch (err) {
    status.textContent = err instanceof TypeError ? 'The demo server is not reachable; trying again…' : `The transcript could not be loaded (${err.message}); trying again…`;
  }
  setTimeout(poll, agent === 'running' ? 150 : 1000);
}

document.querySelector('#composer').addEventListener('submit', async (ev) => {
  ev.preventDefault();
  const text = input.value;
  if (text.trim() === '') return;
  const r = await fetch('/api/demo-editor/send', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ text }) });
  if (r.ok) input.value = '';
  else status.textContent = (await r.json()).error;
  render(await transcript());
});
input.addEventListener('keydown', (ev) => {
  if (ev.key === 'Enter' && !ev.shiftKey && !ev.isComposing) {
    ev.preventDefault();
    document.querySelector('#composer').requestSubmit();
  }
});

const first = await transcript();
render(first);
agent = first.agent;
editor = await mountMessageEditor(log, { sessionId: first.sessionId });
globalThis.demoEditor = editor;
await editor.whenIdle();
document.body.dataset.ready = 'true';
setTimeout(poll, 500);
