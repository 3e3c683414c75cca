// Leak check (issue 5): 1,000 open/scroll/reset cycles, each with a second
// host created, opened and disposed, leave no growing Go or JS table. Sizes come from core.chatSurfaceTables(), a debug counter on
// the core instance (not on the public API): the bridge's host, error-memo
// and thrown-value tables, the DOM adapter's node ids, the host's per-epoch
// tables (C32, C107), and the facade's refs, signals and frame/timer maps.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { makeRoot, formatMessage, materializer, messages } from './chat-surface-fixture.js';
import { installChatSurfaceApi, createChatSurfaceHost } from '../chat-surface.js';
import { sharedCore } from '../core.js';

const core = await sharedCore();
const api = installChatSurfaceApi(globalThis, { managed: true });
let live = 0;
api.registerParticipant({
  id: 'leak/runtime',
  protocolVersion: 1,
  prepareContent({ content }, claims) {
    for (const pre of content.querySelectorAll('pre')) claims.claim(pre, () => { live++; return () => { live--; }; });
  },
  didMount: ({ signal }) => () => signal.aborted,
  didCommitContent: () => ({ dispose() {} }),
});

test('1,000 open/scroll/reset and create/dispose cycles leave no growing Go or JS tables', async () => {
  const q = new Map();
  let next = 0;
  const sched = {
    requestAnimationFrame: (cb) => { q.set(++next, cb); return next; },
    cancelAnimationFrame: (id) => { q.delete(id); },
    setTimeout: (cb) => { q.set(++next, cb); return next; },
    clearTimeout: (id) => { q.delete(id); },
  };
  const flush = () => { while (q.size) { const [id, cb] = q.entries().next().value; q.delete(id); cb(); } };
  const chats = [messages(400).map((m, i) => ({ mes: i % 3 ? m.mes : `${m.mes}<pre>r</pre>` })), messages(150)];
  let chat = chats[0];
  const root = makeRoot();
  const make = () => createChatSurfaceHost({ root, getMessages: () => chat, materialize: materializer(), formatMessage, emit() {}, ...sched });
  let host = make();
  const Event = root.ownerDocument.defaultView.Event;
  let baseline;
  for (let i = 0; i < 1000; i++) {
    chat = chats[i % 2];
    await host.open();
    flush();
    root.scrollTop = (i * 7919) % Math.max(1, root.scrollHeight - 1000);
    root.dispatchEvent(new Event('scroll'));
    flush();
    if (i % 10 === 0) { host.jumpToMessage(i % chat.length); flush(); }
    assert.ok(live <= 8);
    host.resetEpoch();
    flush();
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
  assert.equal(end.signals, 0, 'every lease signal released');
  assert.equal(end.frames + end.timers, 0);
  assert.equal(end.memo + end.thrown, 0);
  console.log('tables after 1,000 cycles', JSON.stringify(end));
  host.dispose();
});
