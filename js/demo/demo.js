// The demo page: the SillyTavern-style host (st-host.js) drawn into the
// DOM, the demo plugin installed on its context, the chat loaded from and
// saved to the demo server.
//
// What a SillyTavern user expects, and this page does:
// - an empty Send asks for a reply; Regenerate and Continue on a chat that
//   ends with the user's message answer it (so a failed or stopped reply is
//   never a dead end); a failure says why, in a toast;
// - ← / → on the last reply (buttons, or the arrow keys while the message
//   box is empty) move between swipes, → past the last one makes a new one;
// - the composer stays on screen and the chat follows a streaming reply
//   unless the user scrolled up;
// - a message that cannot be saved stays in the message box, with a note;
// - messages are markdown (showdown) sanitized by DOMPurify, as in
//   SillyTavern; the streaming bubble shows a cursor; screen readers hear a
//   reply once, when it settles.
import DOMPurify from '/vendor/purify.js';
import { createTavernHost } from './st-host.js';
import { installDemoPlugin } from './plugin.js';
import { plainReply } from './backend.js';

const $ = (id) => document.getElementById(id);
const chatEl = $('chat');
const form = $('composer');
const input = $('input');
const statusEl = $('status');
const announceEl = $('announce');
const toastsEl = $('toasts');
const stopBtn = $('stop');
const failBox = $('fail');
const takeoverBox = $('takeover');
const ACTIONS = ['send', 'regenerate', 'swipe', 'continue'];

// ---- markdown, as SillyTavern renders messages ----
const converter = new globalThis.showdown.Converter({
  simpleLineBreaks: true, strikethrough: true, tables: true, simplifiedAutoLink: true, openLinksInNewWindow: true,
  literalMidWordUnderscores: true, underline: false, noHeaderId: true, ghCodeBlocks: true,
});
export function renderMarkdown(text) {
  return DOMPurify.sanitize(converter.makeHtml(text), { FORBID_TAGS: ['style', 'form', 'input', 'button'], FORBID_ATTR: ['style'] });
}

// ---- toasts: failures and their remedy, never silent ----
// An error stays until it is dismissed or no longer true: a toast with a
// topic ('turn', 'send', 'save') replaces the previous one of that topic and
// goes away once that thing succeeds (dismissToasts), so a failure from two
// turns ago never sits over a chat that has since worked.
function toast(message, { kind = 'error', action, topic, timeout = kind === 'error' ? 0 : 4000 } = {}) {
  if (topic) dismissToasts(topic);
  const el = document.createElement('div');
  el.className = `toast ${kind}`;
  if (topic) el.dataset.topic = topic;
  el.setAttribute('role', kind === 'error' ? 'alert' : 'status');
  const text = document.createElement('span');
  text.textContent = message;
  el.append(text);
  if (action) {
    const b = document.createElement('button');
    b.type = 'button';
    b.textContent = action.label;
    b.addEventListener('click', () => { el.remove(); action.run(); });
    el.append(b);
  }
  const close = document.createElement('button');
  close.type = 'button';
  close.className = 'close';
  close.setAttribute('aria-label', 'Dismiss');
  close.textContent = '×';
  close.addEventListener('click', () => el.remove());
  el.append(close);
  toastsEl.append(el);
  if (timeout) setTimeout(() => el.remove(), timeout);
  return el;
}
function dismissToasts(topic) {
  for (const el of toastsEl.querySelectorAll(`.toast[data-topic="${topic}"]`)) el.remove();
}

function setStatus(text, state) {
  statusEl.textContent = text;
  statusEl.dataset.status = state;
}

// ---- the chat, from the server ----
async function loadChat() {
  try {
    const res = await fetch('/api/chat', { cache: 'no-store' });
    if (!res.ok) throw new Error(`the server answered ${res.status}`);
    return await res.json();
  } catch (err) {
    toast(`The chat could not be loaded (${err.message}). Is the demo server running? Reload to try again.`,
      { action: { label: 'Reload', run: () => location.reload() } });
    return [];
  }
}
const chat = await loadChat();

let unsaved = false;
// Saves go one at a time, in the order they were asked for, each with the
// chat as it was when asked: two PUTs in flight on two connections could
// land out of order and leave the older chat on disk.
let saving = Promise.resolve();
function save(messages) {
  const body = JSON.stringify(messages);
  const run = saving.then(async () => {
    const res = await fetch('/api/chat', { method: 'PUT', headers: { 'content-type': 'application/json' }, body });
    if (!res.ok) throw new Error(`the server answered ${res.status}`);
    unsaved = false;
    dismissToasts('save');
  });
  saving = run.catch(() => {});
  return run;
}
// The takeover's persist step: a failure is shown and kept for a retry (the
// whole chat is saved each time, so the next save catches up).
async function persist(messages) {
  try {
    await save(messages);
  } catch (err) {
    unsaved = true;
    const why = err instanceof TypeError ? 'the demo server is not reachable' : err.message;
    toast(`The reply is on screen but could not be saved (${why}).`, { topic: 'save', action: { label: 'Try again', run: retrySave } });
  }
}
async function retrySave() {
  try {
    await save(chat);
    toast('Saved.', { kind: 'info', topic: 'save' });
  } catch (err) {
    persistFailed(err);
  }
}
function persistFailed(err) {
  unsaved = true;
  const why = err instanceof TypeError ? 'the demo server is not reachable' : err.message;
  toast(`Still not saved (${why}).`, { topic: 'save', action: { label: 'Try again', run: retrySave } });
}

// ---- drawing ----
let streamingIndex = -1;
let follow = true; // the chat follows new text unless the user scrolled up
const nearBottom = () => window.innerHeight + window.scrollY >= document.documentElement.scrollHeight - 80;
window.addEventListener('scroll', () => { follow = nearBottom(); }, { passive: true });

function bubble(i) {
  let li = chatEl.children[i];
  if (!li) {
    li = document.createElement('li');
    li.innerHTML = '<span class="name"></span><details class="reasoning"><summary>Reasoning</summary><div class="reasoning-text"></div></details>' +
      '<div class="text"></div><div class="swipes" hidden><button type="button" class="swipe-left" aria-label="Previous version">←</button>' +
      '<span class="swipe-counter"></span><button type="button" class="swipe-right" aria-label="Next version">→</button></div>';
    li.querySelector('.swipe-left').addEventListener('click', () => swipeBy(-1));
    li.querySelector('.swipe-right').addEventListener('click', () => swipeBy(1));
    chatEl.append(li);
  }
  return li;
}

function render(i) {
  while (chatEl.children.length > chat.length) chatEl.lastChild.remove();
  for (let j = Math.max(0, Math.min(i, chat.length)); j < chat.length; j++) draw(j);
  // Only the last reply carries swipe controls (as in SillyTavern).
  for (let j = 0; j < chat.length; j++) if (j !== chat.length - 1) chatEl.children[j].querySelector('.swipes').hidden = true;
  $('empty-note').hidden = chat.length > 0;
  if (follow) window.scrollTo({ top: document.documentElement.scrollHeight });
}

function draw(i) {
  const m = chat[i];
  const li = bubble(i);
  li.className = `msg ${m.is_user ? 'user' : 'assistant'}${i === streamingIndex ? ' streaming' : ''}`;
  li.dataset.index = String(i);
  li.querySelector('.name').textContent = m.name;
  const reasoning = m.extra?.reasoning ?? '';
  const r = li.querySelector('.reasoning');
  r.hidden = reasoning === '';
  r.querySelector('.reasoning-text').textContent = reasoning;
  const text = li.querySelector('.text');
  if (text.dataset.source !== m.mes) {
    text.dataset.source = m.mes;
    text.innerHTML = renderMarkdown(m.mes);
  }
  const nav = li.querySelector('.swipes');
  const last = i === chat.length - 1 && !m.is_user;
  nav.hidden = !last;
  if (last) {
    const n = m.swipes?.length ?? 1;
    const at = (m.swipe_id ?? 0) + 1;
    nav.querySelector('.swipe-counter').textContent = `${at}/${n}`;
    nav.querySelector('.swipe-left').disabled = tavern?.locked || at <= 1;
    nav.querySelector('.swipe-right').disabled = tavern?.locked ?? false;
  }
}

function setLocked(locked) {
  for (const id of ACTIONS) $(id).disabled = locked;
  stopBtn.disabled = !locked;
  const last = chat.at(-1);
  if (!locked) {
    // Regenerate and Continue answer a trailing user message too; a swipe
    // needs a reply to swipe.
    $('regenerate').disabled = !last;
    $('continue').disabled = !last;
    $('swipe').disabled = !last || last.is_user;
  }
  document.body.dataset.busy = locked ? 'true' : 'false';
  if (chat.length) draw(chat.length - 1);
}

let tavern;
let lastFailure = null;
tavern = createTavernHost({ chat, save: persist, render: (i) => render(i), setLocked, fallback: plainReply });
installDemoPlugin(tavern.getContext(), {
  shouldTakeover: () => takeoverBox.checked,
  failNext: () => failBox.checked,
  onFailure: (err) => { lastFailure = err; },
});

// What each outcome means, in the user's words.
const SAID = {
  committed: 'Reply saved.',
  aborted: 'Stopped. The partial reply is shown but not saved.',
  discarded: 'The reply failed; nothing was changed.',
  plain: 'Answered without the plugin.',
};

async function generate(type) {
  if (tavern.locked) return;
  const last = chat.at(-1);
  // A chat that ends with the user's message has no reply to rework:
  // Regenerate and Continue answer it instead (SillyTavern does the same).
  if ((type === 'regenerate' || type === 'continue' || type === 'swipe') && (!last || last.is_user)) type = 'normal';
  if (type === 'normal' && !last) return;
  lastFailure = null;
  dismissToasts('turn'); // the last turn's failure is history once a new turn starts
  streamingIndex = type === 'normal' ? chat.length : chat.length - 1;
  follow = follow || nearBottom();
  setStatus('The model is writing…', `${type}:streaming`);
  announceEl.textContent = '';
  let res;
  try {
    res = await tavern.Generate(type);
  } finally {
    streamingIndex = -1;
  }
  const status = res.claimed ? res.status : 'plain';
  setStatus(SAID[status] ?? status, `${type}:${status}`);
  render(0);
  setLocked(tavern.locked);
  const reply = chat.at(-1);
  if (status === 'discarded') {
    const why = lastFailure?.message ?? 'the plugin gave up';
    toast(`The reply failed: ${why}. Nothing was saved; press Send (empty) or Regenerate to try again.`, { topic: 'turn' });
    announceEl.textContent = `The reply failed: ${why}.`;
  } else if (status === 'aborted') {
    announceEl.textContent = 'Stopped. The partial reply is not saved.';
  } else if (reply && !reply.is_user) {
    announceEl.textContent = `${reply.name} replied: ${reply.mes}`;
  }
}

async function swipeBy(step) {
  const m = chat.at(-1);
  if (tavern.locked || !m || m.is_user) return;
  const n = m.swipes?.length ?? 1;
  const at = m.swipe_id ?? 0;
  if (step > 0 && at >= n - 1) { await generate('swipe'); return; }
  const next = Math.max(0, Math.min(n - 1, at + step));
  if (next === at) return;
  m.swipes ??= [m.mes];
  m.swipe_id = next;
  m.mes = m.swipes[next];
  render(chat.length - 1);
  setStatus(`Version ${next + 1} of ${n}.`, 'swipe:moved');
  await persist(chat);
}

form.addEventListener('submit', async (e) => {
  e.preventDefault();
  if (tavern.locked) return;
  const text = input.value.trim();
  if (!text) {
    // An empty Send asks for a reply (to the user's last message, or a new one).
    await generate('normal');
    return;
  }
  const draft = input.value;
  input.value = '';
  chat.push({ name: 'You', is_user: true, mes: text, extra: {} });
  follow = true;
  render(chat.length - 1);
  try {
    await save(chat);
    dismissToasts('send');
  } catch (err) {
    // Nothing acknowledged is lost: the message goes back to the box.
    chat.pop();
    render(chat.length);
    if (input.value === '') input.value = draft;
    const why = err instanceof TypeError ? 'the demo server is not reachable' : err.message;
    toast(`Your message was not sent: ${why}. It is still in the message box.`, { topic: 'send', action: { label: 'Send again', run: () => form.requestSubmit() } });
    setStatus('Not sent.', 'normal:unsent');
    setLocked(false);
    input.focus();
    return;
  }
  await generate('normal');
});
input.addEventListener('keydown', (e) => {
  if (e.key === 'Enter' && !e.shiftKey && !e.isComposing) { e.preventDefault(); form.requestSubmit(); }
});
// Arrow keys swipe while the message box is empty, as in SillyTavern.
document.addEventListener('keydown', (e) => {
  if (e.key !== 'ArrowLeft' && e.key !== 'ArrowRight') return;
  if (e.altKey || e.ctrlKey || e.metaKey || e.shiftKey) return;
  const t = e.target;
  const typing = t instanceof HTMLInputElement || t instanceof HTMLSelectElement || (t instanceof HTMLTextAreaElement && t.value !== '') || t?.isContentEditable;
  if (typing) return;
  e.preventDefault();
  swipeBy(e.key === 'ArrowLeft' ? -1 : 1);
});
stopBtn.addEventListener('click', () => tavern.stop());
for (const type of ['regenerate', 'swipe', 'continue']) $(type).addEventListener('click', () => generate(type));
window.addEventListener('beforeunload', (e) => { if (unsaved) e.preventDefault(); });

render(0);
setLocked(false);
window.demoTakeover = { chat, renderMarkdown, get locked() { return tavern.locked; } };
document.body.dataset.ready = 'true';
