// Leak checks (issue 5, issue 13). (1) Tables: open/scroll/jump/reset and
// create/dispose cycles leave no Go or facade table larger than it was after
// warming up — a table that grew by one entry per cycle would show within a
// few cycles, so 300 prove what 1,000 did. Sizes come from
// core.chatSurfaceTables(), a debug counter on the core instance (never on
// the public API). (2) Heap: 2,000 open/scroll/reset cycles in one turn of
// the event loop (no finalizer or timer runs in between) leave the JS heap
// and Go's heap level: what lives after the first 500 is what lives at the
// end. (Before issue 13 the heap grew from 28.7 to 92.5 MB over 2,000 cycles,
// and to 1.35 GB in 1,000 that never yielded.)
import { test } from 'node:test';
import assert from 'node:assert/strict';
import v8 from 'node:v8';
import vm from 'node:vm';
import { existsSync } from 'node:fs';
import { makeRoot, formatMessage, materializer, messages, frames } from './chat-surface-fixture.js';
import { sharedCore } from '../core.js';
import { styleCacheSize, STYLE_CACHE_MAX } from '../chat-surface-dom.js';

v8.setFlagsFromString('--expose-gc');
const gc = vm.runInNewContext('gc');
// The module built with -tags heapprobe (`make heap-probe`): the page's has
// no tc_heap (it links 18 KB of ReadMemStats). It becomes this process's
// shared core before chat-surface.js asks for one.
const PROBE = new URL('../.heap-probe.wasm', import.meta.url);
assert.ok(existsSync(PROBE), 'run `make heap-probe` first (make test-js does)');
const core = await sharedCore({ wasmURL: PROBE });
const { installChatSurfaceApi, createChatSurfaceHost } = await import('../chat-surface.js');
const api = installChatSurfaceApi(globalThis, { managed: true });
let live = 0;
api.registerParticipant({
  id: 'leak/runtime',
  protocolVersion: 1,
  // The sources are found by walking the content: happy-dom's query APIs
  // keep the nodes they return alive until the job ends (WeakRef), which a
  // never-yielding loop never reaches, and the heap test measures tavern-core.
  prepareContent({ content }, claims) {
    for (let n = content.firstElementChild; n !== null; n = n.nextElementSibling) {
      if (n.localName === 'pre') claims.claim(n, () => { live++; return () => { live--; }; });
    }
  },
  didMount: ({ signal }) => () => signal.aborted,
  didCommitContent: () => ({ dispose() {} }),
});
const Event = globalThis.window.Event;
const chats = [messages(160).map((m, i) => ({ mes: i % 3 ? m.mes : `${m.mes}<pre>r</pre>` })), messages(60)];

test('tables: 300 open/scroll/jump/reset and create/dispose cycles leave no Go or facade table growing', async () => {
  const sched = frames();
  let chat = chats[0];
  const root = makeRoot();
  const make = () => createChatSurfaceHost({ root, getMessages: () => chat, materialize: materializer(), formatMessage, emit() {}, ...sched });
  let host = make();
  let baseline;
  for (let i = 0; i < 300; i++) {
    chat = chats[i % 2];
    await host.open();
    sched.flush();
    root.scrollTop = (i * 7919) % Math.max(1, root.scrollHeight - 1000);
    root.dispatchEvent(new Event('scroll'));
    sched.flush();
    if (i % 5 === 0) { host.jumpToMessage(i % chat.length); sched.flush(); }
    assert.ok(live <= 8);
    host.resetEpoch();
    sched.flush();
    assert.equal(live, 0);
    // Create/dispose: the host goes and a new one takes the root (its Go
    // and facade entries must go with the old one).
    const old = host;
    old.dispose();
    old.dispose();
    assert.equal(old.snapshot().state, 'disposed');
    assert.equal(old.getFault(), null);
    assert.throws(() => old.render(), /disposed/);
    host = make();
    const t = core.chatSurfaceTables();
    assert.equal(t.hosts, 1, `cycle ${i}: Go hosts`);
    assert.equal(t.jsHosts, 1, `cycle ${i}: facade hosts`);
    assert.ok(t.tombs <= 1, `cycle ${i}: tombs`);
    if (i === 9) baseline = t;
    if (i > 9) {
      for (const k of Object.keys(t)) assert.ok(t[k] <= baseline[k], `cycle ${i}: ${k} grew from ${baseline[k]} to ${t[k]}`);
    }
  }
  const end = core.chatSurfaceTables();
  assert.equal(end.mounted + end.sizes + end.dirty + end.candidates + end.desired + end.openClaims, 0, JSON.stringify(end));
  assert.equal(end.signals + end.requests, 0, 'every lease signal released');
  assert.equal(end.frames + end.timers, 0);
  assert.equal(end.memo + end.thrown, 0);
  assert.equal(end.nodes, 1, 'only the root is named');
  host.dispose();
  root.remove();
});

test('heap: 2,000 open/scroll/reset cycles without yielding level off, JS heap and Go heap', () => {
  const sched = frames();
  const small = [chats[0].slice(0, 40), chats[1].slice(0, 20)];
  let chat = small[0];
  const root = makeRoot({ height: 300 }); // a short view: a few roots per frame keep 2,000 cycles quick
  const host = createChatSurfaceHost({ root, getMessages: () => chat, materialize: materializer(), formatMessage, emit() {}, ...sched });
  const cycle = (i) => {
    chat = small[i % 2];
    host.open();
    sched.flush();
    root.scrollTop = (i * 7919) % Math.max(1, root.scrollHeight - 300);
    root.dispatchEvent(new Event('scroll'));
    sched.flush();
    host.resetEpoch();
    sched.flush();
  };
  const heaps = () => { gc(); gc(); return { js: process.memoryUsage().heapUsed, go: core.ex.tc_heap() * 1024 }; };
  for (let i = 0; i < 500; i++) cycle(i);
  const a = heaps();
  for (let i = 500; i < 1250; i++) cycle(i);
  const b = heaps();
  for (let i = 1250; i < 2000; i++) cycle(i);
  const c = heaps();
  const mb = (x) => `${(x / 1e6).toFixed(2)} MB`;
  console.log(`heap after 500 / 1,250 / 2,000 cycles: JS ${mb(a.js)} / ${mb(b.js)} / ${mb(c.js)}, Go ${mb(a.go)} / ${mb(b.go)} / ${mb(c.go)}`);
  // A leak of one small object per cycle (a node, a closure, a signal)
  // would add well over these bounds across 1,500 cycles.
  assert.ok(c.js - a.js < 2e6, `JS heap grew ${mb(c.js - a.js)} after the first 500 cycles`);
  assert.ok(c.go - a.go < 256e3, `Go heap grew ${mb(c.go - a.go)} after the first 500 cycles`);
  assert.equal(core.chatSurfaceTables().nodes, 1);
  host.dispose();
  root.remove();
});

// C85's margins are cached page-wide by style signature; SillyTavern gives
// every message its own (a `timestamp` attribute), so the cache is bounded
// or a long scroll keeps one entry per message ever measured.
test('C85: the computed-margins cache stays bounded when every root has a signature of its own', async () => {
  const sched = frames();
  const chat = messages(3000);
  const root = makeRoot();
  const base = materializer();
  const materialize = (m, mesid) => { const el = base(m, mesid); el.setAttribute('timestamp', `t${mesid}`); return el; };
  const host = createChatSurfaceHost({ root, getMessages: () => chat, materialize, formatMessage, emit() {}, ...sched });
  await host.open();
  sched.flush();
  let measured = 0;
  for (let t = 0; t < 3000; t += 40) {
    host.jumpToMessage(t);
    sched.flush();
    measured += 32;
    assert.ok(styleCacheSize() <= STYLE_CACHE_MAX, `${styleCacheSize()} entries after ${measured} roots measured`);
  }
  assert.ok(measured > 2 * STYLE_CACHE_MAX);
  host.dispose();
  root.remove();
});

// A fault that names a thrown JS value keeps it (C6, C103) only while the
// fault stands: its refs leaked, one set per fault, once a reset or
// dispose cleared it (hostile probe: a MutationObserver whose observe
// throws, a materialize that throws).
test('C6/C107: the thrown values a fault kept are let go of once reset or dispose clears the fault', async () => {
  const core = await sharedCore();
  const before = core.chatSurfaceTables().refs;
  const RealMO = globalThis.MutationObserver;
  for (let i = 0; i < 60; i++) {
    const root = makeRoot();
    const sched = frames();
    let bad = true;
    const mat = materializer();
    if (i % 3 === 2) globalThis.MutationObserver = class extends RealMO { observe() { throw new Error('observe refused'); } };
    const host = createChatSurfaceHost({ root, getMessages: () => messages(5), formatMessage, emit() {}, ...sched, onFault() {},
      materialize: (m, id) => { if (bad && i % 3 === 0) throw new Error(`materialize ${i}`); return mat(m, id); } });
    globalThis.MutationObserver = RealMO;
    try { await host.open(); } catch { /* the fault under test */ }
    sched.flush();
    bad = false;
    if (i % 3 === 1) {
      host.resetEpoch();
      await host.open();
      sched.flush();
    }
    try { host.dispose(); } catch { /* a failed reset rethrown */ }
    root.remove();
  }
  assert.equal(core.chatSurfaceTables().refs, before);
});
