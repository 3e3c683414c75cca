// Getters a page puts on what it hands the chat surface, found by probing:
// a throw from one is the host's throw (C6) or the layer's failure (C118),
// never "tavern-core internal error", and the host recovers. Its own file:
// the processor registered here applies to every host of the page (C113).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { makeRoot, frames, formatMessage, materializer, messages } from './chat-surface-fixture.js';
import { installChatSurfaceApi, createChatSurfaceHost } from '../chat-surface.js';
import { sharedCore } from '../core.js';

const api = installChatSurfaceApi(globalThis, { managed: true });
let armed = null; // the processor's trap while a test wants it
let gate = null; // armed 'gate': prepare waits for this before it answers
const boom = new Error('refused');
api.registerContentProcessor({
  id: 'probe/ctor',
  prepare(ctx, renderBase) { // not async: the ctor case returns its own Promise
    const p = renderBase();
    if (armed === 'gate') return p.then(async (b) => { await gate; return b; });
    if (armed !== 'ctor') return p;
    const q = Promise.resolve('<p>x</p>');
    Object.defineProperty(q, 'constructor', { get() { throw boom; } });
    return q;
  },
});

function setup(materialize = materializer()) {
  const root = makeRoot();
  const sched = frames();
  const chat = messages(3);
  const host = createChatSurfaceHost({ root, getMessages: () => chat, materialize, formatMessage, emit() {}, ...sched });
  return { root, sched, host };
}

async function recovers(x) {
  x.host.resetEpoch();
  armed = null;
  const opened = x.host.open();
  x.sched.flush();
  await opened;
  x.sched.flush();
  assert.equal(x.host.snapshot().state, 'settled');
  x.host.dispose();
  x.root.remove();
}

test('C6 C30: a .mes_text whose parentNode or innerHTML getter throws: open() throws that value, which is the fault', async () => {
  for (const prop of ['parentNode', 'innerHTML']) {
    const base = materializer();
    const x = setup((m, i) => {
      const el = base(m, i);
      if (armed === prop) Object.defineProperty(el.querySelector('.mes_text'), prop, { get() { throw boom; } });
      return el;
    });
    armed = prop;
    let e;
    try { await x.host.open(); } catch (err) { e = err; }
    assert.equal(e, boom, prop);
    assert.equal(x.host.getFault(), boom);
    await recovers(x);
  }
});

test('C118: a processor\'s Promise whose constructor getter throws fails its layer, with the throw as cause', async () => {
  const x = setup();
  armed = 'ctor';
  try { await x.host.open(); } catch { /* the fault below is what matters */ }
  for (let i = 0; i < 5; i++) { x.sched.flush(); await new Promise((r) => setTimeout(r, 0)); }
  const e = x.host.getFault();
  assert.match(e?.message ?? '', /^ChatSurface content processor probe\/ctor failed for message \d$/);
  assert.equal(e.cause, boom);
  await recovers(x);
});

// Found by probing: nothing reaches a disposed host, so a request its
// disposal aborted while the processor still ran never settled in Go: the
// Promises waiting on it (open, finishContent) stayed pending for good, and
// its signal and message object stayed in the facade's tables.
test('C112 C126 C130: dispose() with a processor still running fulfils the Promises waiting on it and lets its request go', async () => {
  const core = await sharedCore();
  const before = core.chatSurfaceTables();
  let open;
  gate = new Promise((r) => { open = r; });
  armed = 'gate';
  const x = setup();
  const states = [];
  const watch = (p, k) => p.then(() => states.push(`${k}:fulfilled`), (e) => states.push(`${k}:${e.message}`));
  const opened = watch(x.host.open(), 'open');
  x.sched.flush();
  const finished = watch(x.host.finishContent(2), 'finish');
  await new Promise((r) => setTimeout(r, 5));
  assert.deepEqual(states, []);
  x.host.dispose();
  x.root.remove();
  await Promise.all([opened, finished]);
  assert.deepEqual(states.sort(), ['finish:fulfilled', 'open:fulfilled']);
  open();
  armed = null;
  await new Promise((r) => setTimeout(r, 5));
  const after = core.chatSurfaceTables();
  for (const k of ['waits', 'signals', 'requests', 'bases', 'contexts']) assert.equal(after[k], before[k], k);
});
