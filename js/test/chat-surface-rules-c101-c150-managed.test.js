// Chat surface rules C101–C148 (spec/chatsurface.md §11–§14), managed mode:
// clauses no other suite pins down. No emits from the lifecycle (C111), the
// faulted bounded view keeps its runtimes until reset and cancels its frames
// (C106), labels of frames and managed operations (C110), the scheduler
// defaults captured at creation (C140), dispose stopping frames (C112) and
// the managed runtime snapshot (C143).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { makeRoot, formatMessage, materializer, messages, thrown } from './chat-surface-fixture.js';
import { installChatSurfaceApi, createChatSurfaceHost } from '../chat-surface.js';

globalThis.ResizeObserver = class {
  observe() {}
  unobserve() {}
  disconnect() {}
};
const api = installChatSurfaceApi(globalThis, { managed: true });

const beh = {};
const rt = { log: [] };
api.registerParticipant({
  id: 'rt',
  protocolVersion: 1,
  prepareContent({ content, mesid }, claims) {
    for (const pre of content.querySelectorAll('pre')) {
      claims.claim(pre, (ctx) => {
        rt.log.push(`grant:${mesid}`);
        beh.activate?.(ctx);
        return () => rt.log.push(`revoke:${mesid}:${ctx.signal.reason}`);
      });
    }
  },
  didMount(ctx) { return beh.mount?.(ctx); },
});

function scheduler() {
  const fq = new Map();
  const tq = new Map();
  let next = 0;
  const s = {
    cancelled: 0,
    requestAnimationFrame: (cb) => { fq.set(++next, cb); return next; },
    cancelAnimationFrame: (id) => { if (fq.delete(id)) s.cancelled++; },
    setTimeout: (cb) => { tq.set(++next, cb); return next; },
    clearTimeout: (id) => { tq.delete(id); },
    get frames() { return fq.size; },
    get timers() { return tq.size; },
    frame() { const b = [...fq.values()]; fq.clear(); for (const cb of b) cb(); return b.length; },
    fireTimers() { const b = [...tq.values()]; tq.clear(); for (const cb of b) cb(); },
    flush() {
      for (let i = 0; fq.size + tq.size > 0; i++) {
        if (i > 10000) throw new Error('never settles');
        if (fq.size) s.frame(); else s.fireTimers();
      }
    },
  };
  return s;
}

let cur;
function setup(chat, extra = {}) {
  if (cur) { try { cur.host.dispose(); } catch { /* disposal completes anyway */ } cur.root.remove(); }
  for (const k of Object.keys(beh)) delete beh[k];
  rt.log.length = 0;
  const root = makeRoot();
  const sched = scheduler();
  const faults = [];
  const emits = [];
  const host = createChatSurfaceHost({
    root, getMessages: () => chat, materialize: materializer(), formatMessage,
    emit: (...a) => { emits.push(a); }, ...sched, onFault: (f) => faults.push(f), ...extra,
  });
  cur = { root, sched, host, faults, emits, chat };
  return cur;
}
const gesture = (root, top) => { root.scrollTop = top; root.dispatchEvent(new root.ownerDocument.defaultView.Event('scroll')); };
const withPre = (n) => messages(n).map((m) => ({ mes: `${m.mes}<pre>x</pre>` }));

test('C111/S68: no managed lifecycle operation calls emit', async () => {
  const chat = withPre(200);
  const { root, host, sched, emits } = setup(chat);
  await host.open();
  sched.flush();
  gesture(root, 0);
  sched.flush(); // the gesture settles, runtimes are granted and revoked
  host.jumpToMessage(100);
  sched.flush();
  host.scrollToEnd();
  sched.flush();
  chat.push({ mes: 'new<pre>x</pre>' });
  await host.render();
  chat.shift();
  await host.render({ replace: [198] });
  host.updateContent(198);
  host.updateContent(198, { transient: true });
  host.updateContent(198);
  host.setProjectionHeld(true);
  host.setProjectionHeld(false);
  host.refreshLayout();
  sched.flush();
  host.resetEpoch();
  await host.open();
  sched.flush();
  assert.ok(rt.log.some((l) => l.startsWith('revoke')), 'runtimes came and went');
  assert.deepEqual(emits, []);
  assert.equal(host.getFault(), null);
});

test('C106: on a fault the active runtimes stay until reset; pending frames are cancelled', async () => {
  const chat = withPre(20);
  const { root, host, sched, faults } = setup(chat);
  await host.open();
  sched.flush();
  const active = host.snapshot().runtime.active;
  assert.ok(active > 0);
  host.refreshLayout(); // a geometry frame is pending when the fault comes (C97)
  assert.equal(sched.frames, 1);
  rt.log.length = 0;
  const foreign = document.createElement('div');
  root.append(foreign);
  assert.equal(thrown(() => host.render()).message, 'Bounded ChatSurface contains an unknown direct child: div');
  assert.equal(faults.length, 1);
  assert.equal(sched.frames, 0, 'pending frames are cancelled');
  assert.equal(sched.cancelled, 1);
  assert.equal(host.snapshot().state, 'faulted');
  assert.equal(root.hasAttribute('data-tt-chat-bootstrap'), false);
  assert.equal(host.snapshot().runtime.active, active);
  assert.deepEqual(rt.log, [], 'no runtime revoked by the fault');
  assert.ok(root.querySelector('tt-chat-spacer'), 'the bounded DOM stays');
  foreign.remove();
  host.resetEpoch();
  assert.equal(rt.log.filter((l) => l.startsWith('revoke')).length, active);
  assert.equal(host.snapshot().runtime.active, 0);
});

test('C110: an activate called by an admission frame reenters runtime-admission', async () => {
  const chat = withPre(3);
  const { host, sched, faults } = setup(chat);
  let seen;
  beh.activate = () => { try { host.render(); } catch (e) { seen ??= e; } };
  await host.open();
  sched.flush();
  assert.equal(seen.message, 'ChatSurface mutation render reentered during runtime-admission');
  assert.equal(host.getFault(), seen);
  assert.deepEqual(faults, [seen]);
});

test('C110: hooks of a geometry commit, a jump and scrollToEnd reenter geometry-frame, jumpToMessage and scrollToEnd', async () => {
  for (const [label, act] of [
    ['geometry-frame', ({ root, sched }) => { gesture(root, 0); sched.fireTimers(); sched.frame(); }],
    ['jumpToMessage', ({ host }) => { host.jumpToMessage(50); }],
    ['scrollToEnd', ({ host, sched }, reenter) => {
      // Jump away, then back to the end: the end's roots mount again.
      beh.mount = null;
      host.jumpToMessage(50);
      sched.flush();
      beh.mount = reenter;
      host.scrollToEnd();
    }],
    ['open', ({ host }) => { host.resetEpoch(); host.open(); }],
  ]) {
    const chat = messages(200);
    const s = setup(chat);
    await s.host.open();
    s.sched.flush();
    let seen;
    const reenter = () => { try { s.host.render(); } catch (e) { seen ??= e; } };
    beh.mount = reenter;
    try { act(s, reenter); } catch { /* the reentry faulted the running operation */ }
    assert.ok(seen, label);
    assert.equal(seen.message, `ChatSurface mutation render reentered during ${label}`);
    assert.equal(s.host.getFault(), seen);
  }
});

test('C140: omitted scheduler functions are the globalThis ones as they were at creation', async () => {
  const saved = {};
  const names = ['requestAnimationFrame', 'cancelAnimationFrame', 'setTimeout', 'clearTimeout'];
  for (const n of names) saved[n] = globalThis[n];
  const atCreation = scheduler();
  const later = scheduler();
  let created;
  try {
    for (const n of names) globalThis[n] = atCreation[n];
    created = setup(withPre(50), { requestAnimationFrame: undefined, cancelAnimationFrame: undefined, setTimeout: undefined, clearTimeout: undefined });
    for (const n of names) globalThis[n] = later[n];
  } finally {
    for (const n of names) globalThis[n] = saved[n];
  }
  const { host } = created;
  // (the fixture's own scheduler was overridden by the undefined options, which count as absent)
  await host.open();
  assert.equal(later.frames + later.timers, 0);
  assert.ok(atCreation.frames > 0);
  atCreation.flush();
  assert.ok(host.snapshot().runtime.active > 0);
  assert.equal(created.sched.frames, 0);
});

test('C112: dispose cancels pending frames and timers; nothing runs afterwards', async () => {
  const chat = withPre(50);
  const { root, host, sched } = setup(chat);
  await host.open();
  assert.ok(sched.frames > 0);
  gesture(root, 0);
  assert.ok(sched.timers > 0);
  host.dispose();
  assert.equal(sched.frames, 0);
  assert.equal(sched.timers, 0);
  rt.log.length = 0;
  gesture(root, 500);
  assert.equal(sched.frames + sched.timers, 0, 'a disposed host listens to nothing');
  assert.equal(host.snapshot().state, 'disposed');
});

test('C143: the managed runtime snapshot: scheduled, pending candidates, then active ones', async () => {
  const chat = withPre(3);
  const { host, sched } = setup(chat, { runtimeLimit: 2 });
  await host.open();
  let r = host.snapshot().runtime;
  assert.equal(r.mode, 'managed');
  assert.equal(r.maxActive, 2);
  assert.equal(r.scheduled, true);
  assert.equal(r.active, 0);
  assert.equal(r.pending, 3);
  // Registration order: open() commits the tail first (C92), then the rest.
  assert.deepEqual(r.candidates, [2, 0, 1].map((mesid) => ({ participantId: 'rt', mesid, state: 'pending' })));
  sched.flush();
  r = host.snapshot().runtime;
  assert.equal(r.scheduled, false);
  assert.equal(r.active, 2);
  assert.equal(r.pending, 1);
  assert.equal(r.candidates.filter((c) => c.state === 'active').length, 2);
  assert.deepEqual(host.snapshot().viewport, [0, 1, 2]);
  assert.equal(host.snapshot().followingTail, true);
});

test('C143: a hook inside the first normal commit sees that commit\'s viewport, as hooks of later commits see theirs', async () => {
  const chat = withPre(3);
  const { host, sched } = setup(chat);
  const seen = [];
  beh.mount = ({ mesid }) => { seen.push([mesid, host.snapshot().viewport]); };
  await host.open();
  sched.flush();
  // The tail-only commit of open() (C92) has no viewport yet; the normal
  // commit that follows mounts 0 and 1 with V = [0, 1, 2].
  assert.deepEqual(seen, [[2, []], [0, [0, 1, 2]], [1, [0, 1, 2]]]);
  assert.deepEqual(host.snapshot().viewport, [0, 1, 2]);
});
