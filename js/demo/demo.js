// The demo page: the SillyTavern-style host (st-host.js) drawn into the
// DOM, the demo plugin installed on its context, the chat loaded from and
// saved to the demo server.
import { createTavernHost } from './st-host.js';
import { installDemoPlugin } from './plugin.js';
import { plainReply } from './backend.js';

const chatEl = document.getElementById('chat');
const form = document.getElementById('composer');
const input = document.getElementById('input');
const statusEl = document.getElementById('status');
const buttons = ['send', 'regenerate', 'swipe', 'continue'].map((id) => document.getElementById(id));
const stopBtn = document.getElementById('stop');
const failBox = document.getElementById('fail');
const takeoverBox = document.getElementById('takeover');

const chat = await (await fetch('/api/chat')).json();

async function save(messages) {
  const res = await fetch('/api/chat', { method: 'PUT', headers: { 'content-type': 'application/json' }, body: JSON.stringify(messages) });
  if (!res.ok) throw new Error(`saving the chat failed: ${res.status}`);
}

function bubble(i) {
  let li = chatEl.children[i];
  if (!li) {
    li = document.createElement('li');
    li.innerHTML = '<span class="name"></span><span class="reasoning"></span><span class="text"></span><span class="swipes"></span>';
    chatEl.append(li);
  }
  return li;
}

function render(i) {
  while (chatEl.children.length > chat.length) chatEl.lastChild.remove();
  for (let j = Math.min(i, chat.length); j < chat.length; j++) draw(j);
}

function draw(i) {
  const m = chat[i];
  const li = bubble(i);
  li.className = `msg ${m.is_user ? 'user' : 'assistant'}`;
  li.querySelector('.name').textContent = m.name;
  li.querySelector('.reasoning').textContent = m.extra?.reasoning ?? '';
  li.querySelector('.text').textContent = m.mes;
  li.querySelector('.swipes').textContent = m.swipes && m.swipes.length > 1 ? `${m.swipe_id + 1}/${m.swipes.length}` : '';
}

function setLocked(locked) {
  for (const b of buttons) b.disabled = locked;
  stopBtn.disabled = !locked;
  const last = chat.at(-1);
  const canRework = !locked && last && !last.is_user;
  for (const id of ['regenerate', 'swipe', 'continue']) document.getElementById(id).disabled = !canRework;
  document.body.dataset.busy = locked ? 'true' : 'false';
}

const tavern = createTavernHost({ chat, save, render: (i) => render(i), setLocked, fallback: plainReply });
installDemoPlugin(tavern.getContext(), { shouldTakeover: () => takeoverBox.checked, failNext: () => failBox.checked });

async function generate(type) {
  statusEl.textContent = `${type}: streaming…`;
  const res = await tavern.Generate(type);
  statusEl.textContent = res.claimed ? `${type}: ${res.status}${res.stale ? ' (stale)' : ''}` : `${type}: answered without takeover`;
  statusEl.dataset.status = res.claimed ? res.status : 'plain';
  render(0);
  setLocked(tavern.locked);
}

form.addEventListener('submit', async (e) => {
  e.preventDefault();
  const text = input.value.trim();
  if (!text || tavern.locked) return;
  input.value = '';
  chat.push({ name: 'You', is_user: true, mes: text, extra: {} });
  render(chat.length - 1);
  await save(chat);
  await generate('normal');
});
input.addEventListener('keydown', (e) => {
  if (e.key === 'Enter' && !e.shiftKey) { e.preventDefault(); form.requestSubmit(); }
});
stopBtn.addEventListener('click', () => tavern.stop());
for (const type of ['regenerate', 'swipe', 'continue']) {
  document.getElementById(type).addEventListener('click', () => generate(type));
}

render(0);
setLocked(false);
document.body.dataset.ready = 'true';
