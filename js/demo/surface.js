// The chat surface demo: a 10,000-message chat in the bounded (managed) view
// through createChatSurfaceHost, with a participant written the way the
// contract's example writes one (feature detection, claims in
// prepareContent, disposers returned from activate). Each `<pre>` block is a
// runtime source; its grant mounts an iframe, its revoke leaves an
// equal-height inert placeholder (the participant's job, C70).
//
// window.demoSurface exposes the host and counters for the browser e2e test.
import { installChatSurfaceApi, createChatSurfaceHost } from '../chat-surface.js';

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
    const n = 6 + Math.floor(rnd() * 40);
    const text = Array.from({ length: n }, () => WORDS[Math.floor(rnd() * WORDS.length)]).join(' ');
    const m = { name: i % 2 ? 'Keeper' : 'You', is_user: i % 2 === 0, mes: `${title} #${i}: ${text}.` };
    if (i % 7 === 3) m.code = `// runtime for ${title} message ${i}\nrender(${i});`;
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
  if (m.code) html += `<div class="rt-host"><pre data-demo-runtime>${esc(m.code)}</pre></div>`;
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
  onFault: (e) => { statusEl.textContent = `fault: ${e.message}`; },
});

const select = $('chat-select');
CHATS.forEach((c, i) => select.add(new Option(c.title, String(i))));
select.addEventListener('change', () => switchChat(Number(select.value)));

async function switchChat(i) {
  host.resetEpoch(); // a chat switch ends the epoch (C107)
  current = i;
  select.value = String(i);
  $('jump').max = String(CHATS[i].messages.length - 1);
  await host.open();
}

$('controls').addEventListener('submit', (ev) => {
  ev.preventDefault();
  const n = Number($('jump').value);
  try {
    const el = host.jumpToMessage(n);
    el.querySelector('.mes_block')?.animate([{ background: '#ffe9a8' }, { background: 'transparent' }], 1200);
  } catch (e) {
    statusEl.textContent = e.message;
  }
});
$('end').addEventListener('click', () => host.scrollToEnd());

function showStatus() {
  const s = host.snapshot();
  if (!s.fault) {
    const v = s.viewport.length ? `${s.viewport[0]}–${s.viewport.at(-1)}` : '–';
    statusEl.textContent = `${s.state} · ${s.messageCount} messages · ${s.mounted.length} mounted (viewport ${v}) · ` +
      `runtimes ${s.runtime.active}/${s.runtime.maxActive} live, ${s.runtime.pending} pending`;
  }
  requestAnimationFrame(showStatus);
}

window.demoSurface = { host, stats, chats: CHATS, switchChat, registration, legacy: () => legacy, RMAX };
await switchChat(0);
showStatus();
document.body.dataset.ready = 'true';
