// Chat-surface rules C51–C100 through the public JS API and the real wasm,
// managed mode: clauses no other suite caught (the Go side is
// chatsurface/rules_c51_c100_test.go).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { makeRoot, frames, formatMessage, materializer, messages } from './chat-surface-fixture.js';
import { installChatSurfaceApi, createChatSurfaceHost } from '../chat-surface.js';

globalThis.ResizeObserver = class { observe() {} unobserve() {} disconnect() {} };
installChatSurfaceApi(globalThis, { managed: true });

let cur;
function setup(chat, { height = 1000, size = () => 100, materialize = materializer() } = {}) {
  if (cur) { try { cur.host.dispose(); } catch { /* disposal completes anyway */ } cur.root.remove(); }
  const root = makeRoot({ height, size });
  const sched = frames();
  const host = createChatSurfaceHost({ root, getMessages: () => chat, materialize, formatMessage, emit() {}, ...sched });
  cur = { root, sched, host };
  return cur;
}

test('C96: setProjectionHeld takes its argument\'s truthiness', async () => {
  const { host } = setup(messages(10));
  await host.open();
  for (const [arg, held] of [['yes', true], [0, false], [{}, true], ['', false], [1, true], [undefined, false], [[], true], [null, false]]) {
    host.setProjectionHeld(arg);
    assert.equal(host.snapshot().projectionHeld, held, `setProjectionHeld(${JSON.stringify(arg)})`);
  }
});

// Computed lengths are cached page-wide per style signature until
// refreshLayout() (docs/chatsurface.md); a new host starts afresh, so a host
// made after the page's styles changed (a theme, a chat style) lays out with
// them. The root here looks to CSS exactly as the last one did.
test('C80/C84: a host opened after a stylesheet changed the root\'s padding and row gap reads them afresh', async () => {
  const top = (root) => root.querySelector('tt-chat-spacer[data-tt-chat-spacer="top"]')?.style.height;
  const a = setup(messages(100));
  await a.host.open();
  a.sched.flush();
  const first = a.host.snapshot().mounted[0];
  // Messages above the window are unmeasured: 200 px each (C80).
  assert.equal(top(a.root), `${first * 200}px`, 'C84 with Ps = G = 0');
  const style = document.createElement('style');
  style.textContent = '#chat { display: flex; flex-direction: column; padding-top: 30px; row-gap: 10px; }';
  document.head.append(style);
  try {
    const b = setup(messages(100));
    await b.host.open();
    b.sched.flush();
    const i = b.host.snapshot().mounted[0];
    // start(i) = Ps + i·(200 + G); top = start(i) − Ps − G
    assert.equal(top(b.root), `${i * 210 - 10}px`);
  } finally {
    style.remove();
  }
});

test('C85: a root\'s measured size is its border box plus its computed margin-top and margin-bottom', async () => {
  const style = document.createElement('style');
  style.textContent = '.c85 { margin-top: 7px; margin-bottom: 3px; }';
  document.head.append(style);
  // Roots of a class no earlier host measured: computed margins are cached
  // page-wide per style signature (docs/chatsurface.md).
  const base = materializer();
  const materialize = (m, i) => { const el = base(m, i); el.classList.add('c85'); return el; };
  try {
    const chat = messages(5);
    const { host, root, sched } = setup(chat, { height: 300, materialize });
    // A scrollTop that does not clamp, so the host's written S is what it computed.
    let s = 0;
    Object.defineProperty(root, 'scrollTop', { get: () => s, set: (v) => { s = v; }, configurable: true });
    await host.open();
    sched.flush();
    assert.deepEqual(host.snapshot().mounted, [0, 1, 2, 3, 4]);
    assert.equal(root.scrollTop, 5 * 110 - 300, 'following: S = total − H with 110 px roots');
  } finally {
    style.remove();
  }
});
