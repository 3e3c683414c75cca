// Layout that moves under the host (issue 13): roots whose height follows
// their content (test/chat-surface-layout.js), a browser that clamps
// scrollTop when the content shrinks, async content processors, and a
// runtime that shrinks and then grows the tail. Following the tail is
// decided from live measurements, a clamp is not a gesture (C87/C88 as
// changed, docs/chatsurface.md), and a jump target stays where the jump put
// it while its content settles (C86 as changed).
import { test, afterEach } from 'node:test';
import assert from 'node:assert/strict';
import { materializer } from './chat-surface-fixture.js';
import { LayoutResizeObserver, layoutRoot, browser } from './chat-surface-layout.js';
import { installChatSurfaceApi, createChatSurfaceHost } from '../chat-surface.js';

globalThis.ResizeObserver = LayoutResizeObserver;
const api = installChatSurfaceApi(globalThis, { managed: true });

// An async processor (world info): results land when the test releases them.
let held = [];
let holding = false;
const registration = api.registerContentProcessor({
  id: 'world',
  async prepare(ctx, renderBase) {
    const base = await renderBase();
    if (holding) await new Promise((r) => held.push(r));
    return base.replace('{{w}}', 'rain');
  },
});
const release = async () => { while (held.length) { for (const r of held.splice(0)) r(); await settle(); } };
const settle = () => new Promise((r) => { setImmediate(r); });

// A runtime participant: granting a <pre data-rt> first shrinks its message
// (the placeholder goes), then grows it as its "iframe" loads.
const grown = [];
api.registerParticipant({
  id: 'rt',
  protocolVersion: 1,
  prepareContent({ content }, claims) {
    for (const pre of content.querySelectorAll('pre[data-rt]')) {
      claims.claim(pre, ({ source }) => {
        source.dataset.h = '-60';
        grown.push(source);
        return () => {};
      });
    }
  },
});

const live = [];
afterEach(() => { for (const x of live.splice(0)) { x.host.dispose(); x.root.remove(); } holding = false; held = []; });

function setup(chat) {
  const root = layoutRoot({ height: 1000 });
  const sched = browser(root);
  const faults = [];
  const host = createChatSurfaceHost({
    root, getMessages: () => chat, materialize: materializer(), emit() {}, ...sched,
    formatMessage: (m) => `<p>${m.mes}</p>`, onFault: (f) => faults.push(f),
  });
  // Frames (with their layout) and the promise jobs between them; enough
  // for a gesture's 150 ms settle timer to fire.
  const turn = async (n = 30) => {
    for (let i = 0; i < n; i++) {
      sched.frame();
      await settle();
    }
  };
  const x = { root, chat, sched, host, faults, turn };
  live.push(x);
  return x;
}

const atEnd = (root) => Math.abs(root.scrollTop - (root.scrollHeight - root.clientHeight)) <= 1;

test('C87/C88/C129: refresh() at the tail keeps following; the view ends at the end', async () => {
  const chat = Array.from({ length: 300 }, (_, i) => ({ mes: `m${i} {{w}}` }));
  const x = setup(chat);
  await x.host.open();
  await x.turn();
  assert.ok(atEnd(x.root));
  for (let k = 0; k < 3; k++) {
    holding = true;
    const done = registration.refresh();
    await x.turn(); // every mounted message is pending: 20 px, and the browser clamps
    assert.equal(x.host.snapshot().followingTail, true, `refresh ${k}: a clamp is not a gesture`);
    holding = false;
    await release();
    await done;
    await x.turn();
    assert.equal(x.host.snapshot().followingTail, true, `refresh ${k}: still following`);
    assert.ok(atEnd(x.root), `refresh ${k}: at the end (${x.root.scrollTop} of ${x.root.scrollHeight - 1000})`);
  }
  assert.deepEqual(x.faults, []);
});

test('C87/C88: a runtime that shrinks, then grows, the tail right after open() leaves the view following', async () => {
  const chat = Array.from({ length: 200 }, (_, i) => ({ mes: i % 5 === 4 ? `m${i} <pre data-rt>x</pre>` : `m${i}` }));
  const x = setup(chat);
  await x.host.open();
  await x.turn(); // grants shrink their messages; the browser clamps
  assert.equal(x.host.snapshot().followingTail, true, 'the clamp was not taken for a gesture');
  for (const pre of grown) pre.dataset.h = '240'; // the iframes load
  await x.turn();
  assert.ok(atEnd(x.root), 'at the very end after the runtimes grew');
  chat.push({ mes: 'new' });
  await x.host.render();
  await x.turn();
  const last = x.host.getMessageElement(chat.length - 1).getBoundingClientRect();
  assert.ok(last.bottom <= 1000 + 1 && last.top >= 0, `the appended message is in view: ${JSON.stringify(last)}`);
  assert.deepEqual(x.faults, []);
});

// Found in the real SillyTavern: a message's border box grew by its padding
// (its content box unchanged) while the view followed, and a ResizeObserver
// watching the default content box never reported it, so the view stayed a
// few px short of the end for the rest of a streamed reply.
test('C85/C87: a mounted root whose border box changes but not its content box is re-measured; the view keeps following', async () => {
  const chat = Array.from({ length: 200 }, (_, i) => ({ mes: `m${i}` }));
  const x = setup(chat);
  await x.host.open();
  await x.turn();
  assert.ok(atEnd(x.root));
  const mounted = x.host.snapshot().mounted;
  for (const mesid of [mounted[0], mounted.at(-1)]) {
    x.host.getMessageElement(mesid).dataset.pad = '3';
    await x.turn();
    assert.equal(x.host.snapshot().followingTail, true);
    assert.ok(atEnd(x.root), `at the end after #${mesid}'s padding grew: ${x.root.scrollTop} + ${x.root.clientHeight} of ${x.root.scrollHeight}`);
  }
  assert.deepEqual(x.faults, []);
});

test('C10/C85: a mounted root whose getBoundingClientRect throws under a size notification faults the epoch; the observer callback does not throw', async () => {
  const chat = Array.from({ length: 200 }, (_, i) => ({ mes: `m${i}` }));
  const x = setup(chat);
  await x.host.open();
  await x.turn();
  assert.deepEqual(x.faults, []);
  const el = x.host.getMessageElement(x.host.snapshot().mounted.at(-1));
  const boom = new Error('rect refused');
  el.getBoundingClientRect = () => { throw boom; };
  el.dataset.pad = '5'; // its border box changes: the observer is notified
  await x.turn(); // a throw out of the observer callback would fail here
  assert.equal(x.host.getFault(), boom, 'Go read the root in a contained batch; the host value is the fault');
  assert.deepEqual(x.faults, [boom]);
  delete el.getBoundingClientRect;
  x.host.resetEpoch();
  assert.equal(x.host.getFault(), null);
  await x.host.open(); // the next epoch opens, renders and follows the tail
  await x.turn();
  assert.equal(x.host.snapshot().state, 'settled');
  assert.ok(atEnd(x.root), 'at the end in the new epoch');
  assert.deepEqual(x.faults, [boom]);
});

// The observer's notification carries the box the frame laid out: when it
// is the height Go last read, the root is not read again (a read there
// would force a layout whenever a write followed the frame's); when it
// differs (a transform or a zoom makes the two differ) the root's border box
// decides.
test('C85: a size notification whose box is the height Go last read reads nothing; one whose box differs reads the root first', async () => {
  let observer = null;
  globalThis.ResizeObserver = class extends LayoutResizeObserver { constructor(cb) { super(cb); observer = cb; } };
  try {
    const chat = Array.from({ length: 200 }, (_, i) => ({ mes: `m${i}` }));
    const x = setup(chat);
    await x.host.open();
    await x.turn();
    const el = x.host.getMessageElement(x.host.snapshot().mounted.at(-1));
    const r = el.getBoundingClientRect();
    const h = r.bottom - r.top;
    let reads = 0;
    el.getBoundingClientRect = () => { reads++; throw new Error('read'); };
    observer([{ target: el, borderBoxSize: [{ blockSize: h, inlineSize: 0 }] }]);
    await x.turn();
    assert.equal(reads, 0, 'the notification\'s own box answered');
    assert.deepEqual(x.faults, []);
    // A transformed root: its layout box is not its rect. The rect is the
    // one Go read, so nothing changed: Go is not woken.
    el.getBoundingClientRect = () => { reads++; return r; };
    observer([{ target: el, borderBoxSize: [{ blockSize: h / 2, inlineSize: 0 }] }]);
    await x.turn();
    assert.equal(reads, 1, 'the root was read once, by the observer');
    assert.deepEqual(x.faults, []);
    delete el.getBoundingClientRect;
  } finally {
    globalThis.ResizeObserver = LayoutResizeObserver;
  }
});

test('C87: a gesture that ends short of the end stops following; one that ends at it follows', async () => {
  const chat = Array.from({ length: 200 }, (_, i) => ({ mes: `m${i}` }));
  const x = setup(chat);
  await x.host.open();
  await x.turn();
  x.root.scrollTop -= 300; // a user scroll: its event comes at the next frame
  await x.turn();
  assert.equal(x.host.snapshot().followingTail, false);
  x.root.scrollTop = x.root.scrollHeight;
  await x.turn();
  assert.equal(x.host.snapshot().followingTail, true);
});

test('C86/C94: a jump target stays where the jump put it while async processor results land around it', async () => {
  const chat = Array.from({ length: 2000 }, (_, i) => ({ mes: `m${i} {{w}}` }));
  const x = setup(chat);
  await x.host.open();
  await x.turn();
  for (const t of [400, 1200, 37, 1800]) {
    holding = true;
    const el = x.host.jumpToMessage(t);
    const at = el.getBoundingClientRect();
    holding = false;
    await release();
    await x.turn();
    const now = x.host.getMessageElement(t).getBoundingClientRect();
    assert.ok(now.top >= 0 && now.bottom <= 1000, `target ${t} is in view: ${JSON.stringify(now)}`);
    assert.ok(Math.abs(now.top - at.top) <= 1, `target ${t} kept its place: ${at.top} → ${now.top}`);
  }
  assert.deepEqual(x.faults, []);
});
