// The chat surface demo: a 10,000-message chat in the bounded (managed) view
// through createChatSurfaceHost, with a participant written the way the
// contract's example writes one (feature detection, claims in
// prepareContent, disposers returned from activate). Each `<pre>` block is a
// runtime source; its grant mounts an iframe, its revoke leaves an
// equal-height inert placeholder (the participant's job, C70).
//
// Two content processors (C113–C132) are registered before the first
// projection: `demo/macros` expands `{{char}}` and `{{weather}}` from world
// info fetched asynchronously (world.json), and `demo/badge`, registered
// first and so outermost (C115), wraps its result in a badge naming the
// world-info version. "World info changed" changes the data and calls
// refresh() (C129). `?slow=<ms>` delays each macro expansion (abortable), for
// the e2e test that checks no stale HTML ever lands; that timer is a test aid
// only (C132 asks real processors not to create timers).
//
// window.demoSurface exposes the host and counters for the browser e2e test.
import { installChatSurfaceApi, createChatSurfaceHost } from '../dist/chat-surface.js';

const RMAX = 8;
const $ = (id) => document.getElementById(id);
const rootEl = $('chat');
const statusEl = $('status');
$('rmax').textContent = String(RMAX);

// ---- two chats, generated deterministically ----
const WORDS = ('the a tavern lantern rain road keeper map song ember quiet river north story cellar bell ' +
  'stranger candle wind harbor letter night window inn fire hill bridge dawn traveler coin').split(' ');
function makeChat(count, seed, title) {
  let x = seed;
  const rnd = () => { x = (x * 1103515245 + 12345) & 0x7fffffff; return x / 0x7fffffff; };
  return Array.from({ length: count }, (_, i) => {
    const n = 4 + Math.floor(rnd() * 16);
    const text = Array.from({ length: n }, () => WORDS[Math.floor(rnd() * WORDS.length)]).join(' ');
    const m = { name: i % 2 ? 'Keeper' : 'You', is_user: i % 2 === 0, mes: `${title} #${i}: ${text}.` };
    if (i % 3 === 1) m.mes += ' {{char}} looks out at the {{weather}}.';
    // Dense enough that more runtime sources are in view than the cap
    // admits (about 14 for the dozen messages on screen): admission,
    // nearest first with the rest waiting, is visible.
    if (i % 4 !== 3) m.code = [`// runtime for ${title} message ${i}\nrender(${i});`];
    if (i % 2 === 1 && m.code) m.code.push(`// second runtime of message ${i}\nrender(${i}, 2);`);
    return m;
  });
}
const CHATS = [
  { title: 'Chat A (10,000 messages)', messages: makeChat(10000, 7, 'A') },
  { title: 'Chat B (2,500 messages)', messages: makeChat(2500, 99, 'B') },
];
let current = 0;

// ---- the host's rendering (SillyTavern shapes: .mes > .mes_text) ----
const esc = (s) => s.replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c]);
function formatMessage(m) {
  let html = `<p>${esc(m.mes)}</p>`;
  for (const code of m.code ?? []) html += `<div class="rt-host"><pre data-demo-runtime>${esc(code)}</pre></div>`;
  return html;
}
function materialize(m, mesid) {
  const el = document.createElement('div');
  el.className = m.is_user ? 'mes user' : 'mes';
  el.innerHTML = `<div class="mes_block"><div class="mes_header"><span class="name">${esc(m.name)}</span>` +
    `<span class="mesIDDisplay"></span></div><div class="mes_text">${formatMessage(m, mesid)}</div></div>`;
  return el;
}

// ---- the demo participant, written like the contract's example ----
export const stats = { live: 0, maxLive: 0, grants: 0, revokes: 0, revokedAborted: 0, recent: [], mounts: 0 };
function mountRuntime({ mesid, source, signal }) {
  const host = source.parentElement; // the stable box the admission orders by (C63)
  const placeholder = host.querySelector(':scope > .rt-placeholder');
  // A regrant first takes over the placeholder's height (the seed's rule).
  const height = placeholder ? placeholder.getBoundingClientRect().height : source.getBoundingClientRect().height || 64;
  placeholder?.remove();
  const frame = document.createElement('iframe');
  frame.className = 'rt-frame';
  frame.title = `runtime for message ${mesid}`;
  frame.style.height = `${height}px`;
  frame.srcdoc = '<body style="margin:0;font:12px system-ui;background:#1e2a44;color:#cde;display:flex;' +
    `align-items:center;justify-content:center;height:100vh">runtime · message ${mesid}</body>`;
  host.classList.remove('rt-idle');
  host.classList.add('rt-active');
  host.append(frame);
  stats.grants++;
  stats.live++;
  stats.maxLive = Math.max(stats.maxLive, stats.live);
  return {
    dispose() {
      // The host aborted the signal before calling this (C46).
      stats.revokes++;
      if (signal.aborted) stats.revokedAborted++;
      stats.recent.push(signal);
      if (stats.recent.length > 256) stats.recent.shift();
      const h = frame.getBoundingClientRect().height || height;
      frame.remove();
      const inert = document.createElement('div');
      inert.className = 'rt-placeholder';
      inert.inert = true;
      inert.setAttribute('aria-hidden', 'true');
      inert.style.height = `${h}px`;
      host.classList.remove('rt-active');
      host.classList.add('rt-idle');
      host.append(inert);
      stats.live--;
    },
  };
}

installChatSurfaceApi(window, { managed: true });

// ---- world info, loaded asynchronously, and the two processors ----
const params = new URLSearchParams(location.search);
const SLOW = Math.max(0, Number(params.get('slow')) || 0);
const worldLoaded = fetch(new URL('world.json', import.meta.url)).then((r) => r.json());
let world = worldLoaded.then((w) => ({ ...w, version: 1, weather: w.weathers[0] }));
export const procStats = { macroRuns: 0, badgeRuns: 0, aborted: 0 };
// A short digest of a message's text: the e2e test matches a rendered badge
// against the message now at its mesid.
export function digest(text) {
  let h = 2166136261;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 16777619);
  return (h >>> 0).toString(36);
}
const delay = (ms, signal) => new Promise((resolve, reject) => {
  if (signal.aborted) { reject(signal.reason); return; }
  const t = setTimeout(resolve, ms);
  signal.addEventListener('abort', () => { clearTimeout(t); procStats.aborted++; reject(signal.reason); }, { once: true });
});
const api0 = window.__TAURITAVERN__?.api?.chatSurface;
// Registered first: the outermost processor (C115).
api0?.registerContentProcessor({
  id: 'demo/badge',
  async prepare({ message, mesid }, renderBase) {
    const w = await world;
    const inner = await renderBase();
    procStats.badgeRuns++;
    return `<div class="wi-badge" data-v="${w.version}" data-of="${digest(message.mes)}" data-mesid="${mesid}">` +
      `<span class="wi-tag">world v${w.version}</span>${inner}</div>`;
  },
});
const macros = api0?.registerContentProcessor({
  id: 'demo/macros',
  async prepare({ message, signal }, renderBase) {
    const w = await world;
    if (SLOW) await delay(SLOW * (0.5 + Math.random()), signal);
    const base = await renderBase();
    procStats.macroRuns++;
    const vars = { char: w.char, weather: w.weather };
    return base.replace(/\{\{(\w+)\}\}/g, (all, k) => (k in vars
      ? `<span class="wi" data-v="${w.version}" data-k="${k}">${esc(String(vars[k]))}</span>` : all));
  },
});
// "World info changed": new data, then refresh() re-runs the processors for
// every mounted message (C129); the rest get fresh results when they mount.
async function changeWorld() {
  const w = await world;
  const next = { ...w, version: w.version + 1, weather: w.weathers[w.version % w.weathers.length] };
  world = Promise.resolve(next);
  worldNow = next;
  return macros.refresh();
}
let worldNow = null;
world.then((w) => { worldNow ??= w; });
// An edit the way a host makes one: change the message, then updateContent
// in the same turn (C119).
function editMessage(mesid, text) {
  CHATS[current].messages[mesid].mes = text;
  return host.updateContent(mesid);
}
let legacy = false;
function startLegacyRenderer() { legacy = true; }

const api = window.__TAURITAVERN__?.api?.chatSurface;
const managed = api?.isManagedOwnershipRequired?.() === true;
if (!managed) {
  startLegacyRenderer();
}
const registration = managed ? api.registerParticipant({
  id: 'demo/pre-runtime',
  protocolVersion: api.protocolVersion,
  prepareContent({ content }, claims) {
    for (const source of content.querySelectorAll('pre[data-demo-runtime]')) {
      claims.claim(source, ({ element, mesid, source, signal }) => {
        const runtime = mountRuntime({ element, mesid, source, signal });
        return () => runtime.dispose();
      });
    }
  },
  didMount() {
    stats.mounts++;
    return () => { stats.mounts--; };
  },
}) : null;

// ---- the host page ----
const host = createChatSurfaceHost({
  root: rootEl,
  getMessages: () => CHATS[current].messages,
  materialize,
  formatMessage,
  emit() {},
  managed: true,
  runtimeLimit: RMAX,
  onFault: (e) => showFault(e),
});

// A fault stops the view where it is (C106); the page says why and offers
// to recover: foreign children of #chat (an extension's "typing…" element,
// C76) go, the epoch resets and the chat reopens (docs/chatsurface.md).
const recoverEl = $('recover');
function showFault(e) {
  statusShown = `The view stopped: ${e?.message ?? e}`;
  statusEl.textContent = statusShown;
  recoverEl.hidden = false;
}
async function recover() {
  for (const c of [...rootEl.children]) {
    if (!c.matches('.mes, tt-chat-spacer, .style-pins')) c.remove();
  }
  recoverEl.hidden = true;
  await switchChat(current);
}
// Every control reports what goes wrong instead of throwing into the page.
const guarded = (f) => async (...a) => {
  try { await f(...a); } catch (e) { showFault(host.getFault() ?? e); }
};
recoverEl.addEventListener('click', guarded(recover));

const select = $('chat-select');
CHATS.forEach((c, i) => select.add(new Option(c.title, String(i))));
select.addEventListener('change', guarded(() => switchChat(Number(select.value))));

async function switchChat(i) {
  host.resetEpoch(); // a chat switch ends the epoch (C107)
  recoverEl.hidden = true;
  current = i;
  select.value = String(i);
  $('jump').max = String(CHATS[i].messages.length - 1);
  await host.open();
}

// The page's own notes (a refused jump) live beside the status line, so the
// per-frame status never overwrites them.
const noteEl = $('note');
let noteTimer;
function note(text) {
  noteEl.textContent = text;
  clearTimeout(noteTimer);
  if (text) noteTimer = setTimeout(() => { noteEl.textContent = ''; }, 6000);
}
$('controls').addEventListener('submit', (ev) => {
  ev.preventDefault();
  const raw = $('jump').value.trim();
  const count = CHATS[current].messages.length;
  const n = Number(raw);
  if (!host.getFault() && (raw === '' || !Number.isInteger(n) || n < 0 || n >= count)) {
    note(raw === '' ? `Type a message number from 0 to ${count - 1}.` : `There is no message ${raw}: this chat has messages 0 to ${count - 1}.`);
    $('jump').focus();
    return;
  }
  note('');
  try {
    const el = host.jumpToMessage(n);
    el.querySelector('.mes_block')?.animate([{ background: '#ffe9a8' }, { background: 'transparent' }], 1200);
  } catch (e) {
    if (host.getFault()) showFault(host.getFault()); else note(e.message);
  }
});
$('end').addEventListener('click', guarded(() => host.scrollToEnd()));
$('world').addEventListener('click', () => {
  changeWorld().catch((e) => note(`World info could not be refreshed: ${e.message}`));
});

// The status line changes at most once a second, and only when its text
// does: a polite region that a screen reader can follow.
let statusShown = '';
let statusAt = 0;
function showStatus(now) {
  const s = host.snapshot();
  if (!s.fault && now - statusAt >= 1000) {
    const v = s.viewport.length ? `${s.viewport[0]}–${s.viewport.at(-1)}` : '–';
    const text = `${s.messageCount} messages · showing ${v} · ${s.mounted.length} in the page · ` +
      `runtimes ${s.runtime.active} of ${s.runtime.maxActive} live, ${s.runtime.pending} waiting`;
    if (text !== statusShown) {
      statusShown = text;
      statusAt = now;
      statusEl.textContent = text;
    }
  }
  requestAnimationFrame(showStatus);
}

window.demoSurface = {
  host, stats, chats: CHATS, switchChat, registration, legacy: () => legacy, RMAX,
  procStats, digest, editMessage, changeWorld, world: () => worldNow, current: () => current, SLOW, recover,
};
await switchChat(0);
requestAnimationFrame(showStatus);
document.body.dataset.ready = 'true';
