// The demo page: a tiny host plus a stand-in plugin. The plugin writes a
// reply into a message editor handle; the host draws it live through
// setOnUpdate and reacts to the handle's outcome.
import { createMessageEditorHandle } from '../message-takeover.js';
import { streamReply } from './backend.js';

const chatEl = document.getElementById('chat');
const form = document.getElementById('composer');
const input = document.getElementById('input');
const stopBtn = document.getElementById('stop');
const discardBtn = document.getElementById('discard');
const statusEl = document.getElementById('status');

const chat = []; // { role, text, reasoning, status }
let turn = null; // { handle, controller }

function bubble(i) {
  let li = chatEl.children[i];
  if (!li) {
    li = document.createElement('li');
    li.innerHTML = '<span class="reasoning"></span><span class="text"></span><span class="badge" hidden></span>';
    chatEl.append(li);
  }
  return li;
}

function draw(i) {
  const m = chat[i];
  const li = bubble(i);
  li.className = `msg ${m.role}${m.status === 'streaming' ? ' streaming' : ''}`;
  li.dataset.status = m.status ?? '';
  li.querySelector('.reasoning').textContent = m.reasoning ?? '';
  li.querySelector('.text').textContent = m.text;
  const badge = li.querySelector('.badge');
  badge.hidden = !(m.status === 'aborted');
  badge.textContent = m.status === 'aborted' ? 'stopped' : '';
}

function redrawAll() {
  while (chatEl.children.length > chat.length) chatEl.lastChild.remove();
  chat.forEach((_, i) => draw(i));
}

function setBusy(busy) {
  stopBtn.disabled = !busy;
  discardBtn.disabled = !busy;
  form.querySelector('#send').disabled = busy;
}

// The stand-in plugin: claims the turn and streams into the handle, as the
// seed's example does (abort keeps the partial; a hard failure discards).
async function plugin(handle, prompt, signal) {
  try {
    for await (const chunk of streamReply(prompt, signal)) {
      if (chunk.type === 'reasoning') handle.appendReasoning(chunk.delta);
      else handle.setText(handle.getText() + chunk.delta);
    }
    await handle.commit();
  } catch (err) {
    if (handle.isSettled()) return; // discarded by the user
    if (err?.name === 'AbortError' || signal.aborted) await handle.abort();
    else await handle.discard();
  }
}

async function send(text) {
  chat.push({ role: 'user', text });
  const slot = chat.push({ role: 'assistant', text: '', reasoning: '', status: 'streaming' }) - 1;
  redrawAll();
  const controller = new AbortController();
  const handle = createMessageEditorHandle({ generationType: 'normal', abortSignal: controller.signal, owner: 'demo-plugin' });
  turn = { handle, controller };
  handle.setOnUpdate((t, r) => {
    chat[slot].text = t;
    chat[slot].reasoning = r;
    draw(slot);
  });
  setBusy(true);
  statusEl.textContent = 'streaming…';
  plugin(handle, text, controller.signal);
  const outcome = await handle.complete;
  handle.setOnUpdate(null);
  if (outcome.status === 'discarded') {
    chat.splice(slot, 1); // roll back the placeholder
  } else {
    Object.assign(chat[slot], { text: outcome.finalText, reasoning: outcome.finalReasoning, status: outcome.status });
  }
  redrawAll();
  statusEl.textContent = `last reply: ${outcome.status}`;
  turn = null;
  setBusy(false);
}

form.addEventListener('submit', (e) => {
  e.preventDefault();
  const text = input.value.trim();
  if (!text || turn) return;
  input.value = '';
  send(text);
});
input.addEventListener('keydown', (e) => {
  if (e.key === 'Enter' && !e.shiftKey) { e.preventDefault(); form.requestSubmit(); }
});
stopBtn.addEventListener('click', () => turn?.controller.abort());
discardBtn.addEventListener('click', () => { turn?.handle.discard(); turn?.controller.abort(); });

document.body.dataset.ready = 'true';
