// Chat surface rules C101–C148 (spec/chatsurface.md §10–§15), static mode,
// no content processor: clauses no other suite pins down. Static absorption
// (C101), the static no-ops (C102), one fault authority per epoch (C103),
// the C112a check order, operation labels (C109, C110), no emits (C111),
// the disposed host (C112), host options and creation order (C140, C141),
// detached operations (C142) and snapshots (C143).
// Managed-mode clauses: chat-surface-rules-c101-c150-managed.test.js;
// processors: chat-surface-rules-c101-c150-processors.test.js.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { makeRoot, frames, formatMessage, materializer, messages, thrown } from './chat-surface-fixture.js';
import { installChatSurfaceApi, createChatSurfaceHost } from '../chat-surface.js';

const api = installChatSurfaceApi(globalThis, { managed: false });
const beh = {}; // participant id → { prepare, mount, content }
const regs = {};
for (const id of ['p', 'q']) {
  regs[id] = api.registerParticipant({
    id,
    protocolVersion: 1,
    prepareContent(ctx, claims) { return beh[id]?.prepare?.(ctx, claims); },
    didMount(ctx) { return beh[id]?.mount?.(ctx); },
    didCommitContent(ctx) { return beh[id]?.content?.(ctx); },
  });
}

let chat = [];
let root;
let host;
let faults;
let emits;
let sched;
const observer = () => new Promise((r) => { setTimeout(r, 0); }); // MutationObserver callbacks have run
function fresh(n = 1, extra = {}) {
  if (host) { try { host.dispose(); } catch { /* a failing reset still disposes (C112) */ } root.remove(); }
  for (const k of Object.keys(beh)) delete beh[k];
  chat = messages(n);
  root = makeRoot();
  faults = [];
  emits = [];
  sched = frames();
  host = createChatSurfaceHost({
    root, getMessages: () => chat, materialize: materializer(), formatMessage,
    emit: (...a) => { emits.push(a); }, ...sched, onFault: (f) => faults.push(f), ...extra,
  });
}
const mounted = () => host.snapshot().mounted;

test('C101: roots removed together are absorbed in ascending mesid order, content lease before mount lease', async () => {
  fresh(4);
  const log = [];
  beh.p = {
    mount: ({ mesid, signal }) => () => log.push(`${mesid}:mount:${signal.reason}`),
    content: ({ mesid, signal }) => () => log.push(`${mesid}:content:${signal.reason}`),
  };
  host.render();
  host.getMessageElement(3).remove();
  host.getMessageElement(0).remove();
  await observer();
  assert.deepEqual(log, ['0:content:legacy-external-removal', '0:mount:legacy-external-removal',
    '3:content:legacy-external-removal', '3:mount:legacy-external-removal']);
  assert.deepEqual(mounted(), [1, 2]);
  assert.equal(host.getMessageElement(0), null);
  assert.equal(host.getFault(), null);
  assert.equal(host.snapshot().state, 'static');
});

test('C101/C112a: a removal the observer has not reported is absorbed by the next operation before its own preconditions', () => {
  fresh(3);
  const log = [];
  beh.p = { mount: ({ mesid, signal }) => () => log.push(`${mesid}:${signal.reason}`) };
  host.render();
  host.getMessageElement(1).remove();
  // No await: the observer callback has not run. updateContent(1) absorbs
  // first, so 1 is no longer mounted: false, not a DOM identity fault.
  assert.equal(host.updateContent(1), false);
  assert.deepEqual(log, ['1:legacy-external-removal']);
  assert.equal(host.getFault(), null);
  assert.deepEqual(mounted(), [0, 2]);
  // The same for an operation whose own precondition then fails.
  host.getMessageElement(2).remove();
  const e = thrown(() => host.render({ first: 99 }));
  assert.ok(e instanceof RangeError);
  assert.equal(e.message, 'ChatSurface static range start 99 is outside [0, 3]');
  assert.deepEqual(log, ['1:legacy-external-removal', '2:legacy-external-removal']);
  assert.deepEqual(mounted(), [0]);
  assert.equal(host.getFault(), null);
});

test('C101/C110: absorption run by the observer callback is the mutation external-removal', async () => {
  fresh(2);
  let inner;
  beh.p = {
    mount: ({ mesid }) => () => {
      if (mesid === 1) { try { host.render(); } catch (e) { inner = e; } }
    },
  };
  host.render();
  host.getMessageElement(1).remove();
  await observer();
  assert.ok(inner, 'the disposer ran from the observer callback');
  assert.equal(inner.message, 'ChatSurface mutation render reentered during external-removal');
  assert.equal(host.getFault(), inner);
  assert.deepEqual(faults, [inner]);
});

test('C101: a root moved elsewhere (not removed) is found by the observer callback and faults', async () => {
  fresh(2);
  host.render();
  document.body.append(host.getMessageElement(0));
  await observer();
  assert.equal(faults.length, 1);
  assert.equal(faults[0].message, 'ChatSurface committed DOM projection is inconsistent');
  assert.equal(host.getFault(), faults[0]);
  assert.equal(host.snapshot().state, 'faulted');
});

test('C101: static mode polices no other foreign change of the root\'s children', async () => {
  fresh(2);
  host.render();
  const foreign = document.createElement('div');
  foreign.id = 'foreign';
  root.append(foreign);
  root.prepend(document.createElement('section'));
  await observer();
  chat.push({ mes: 'm2' });
  host.render();
  assert.equal(host.getFault(), null);
  assert.deepEqual(mounted(), [0, 1, 2]);
  assert.equal(root.querySelector('#foreign').parentNode, root);
  // C107 step 4: a reset removes the host's roots; other children stay.
  host.resetEpoch();
  assert.equal(root.querySelectorAll('.mes').length, 0);
  assert.equal(root.querySelector('#foreign').parentNode, root);
  assert.equal(root.querySelector('section').parentNode, root);
});

test('C102: static setProjectionHeld and refreshLayout do nothing; scrollToEnd scrolls the root to its end', () => {
  fresh(30); // 30 roots of 100 px in a 1000 px root
  host.render();
  const before = host.snapshot();
  host.setProjectionHeld(true);
  host.refreshLayout();
  assert.deepEqual(host.snapshot(), before);
  assert.equal(host.snapshot().projectionHeld, false);
  sched.flush(); // nothing was scheduled that could change anything
  assert.deepEqual(host.snapshot(), before);
  assert.equal(root.scrollTop, 0);
  host.scrollToEnd();
  assert.equal(root.scrollTop, 3000 - 1000);
  assert.equal(host.snapshot().followingTail, false);
  assert.equal(host.getFault(), null);
});

test('C103: onFault is called once per epoch; each epoch records its own first fault', () => {
  fresh(2);
  const e1 = new Error('first');
  beh.p = { mount() { throw e1; } };
  assert.equal(thrown(() => host.render()), e1);
  // A later failure of the same epoch changes nothing: the moved root the
  // next operation would fault on (C101) is not even looked at.
  document.body.append(host.getMessageElement(0) ?? document.createElement('i'));
  assert.equal(host.getFault(), e1);
  assert.equal(host.snapshot().fault, e1);
  assert.equal(thrown(() => host.render()).cause, e1);
  assert.deepEqual(faults, [e1]);
  delete beh.p;
  host.resetEpoch();
  assert.equal(host.getFault(), null);
  assert.equal(host.snapshot().fault, null);
  const e2 = new Error('second epoch');
  beh.p = { mount() { throw e2; } };
  assert.equal(thrown(() => host.render()), e2);
  assert.deepEqual(faults, [e1, e2]);
  assert.equal(host.getFault(), e2);
});

test('C105/C112a: a faulted static host throws epoch-faulted whatever the arguments; finishContent only when it would update', () => {
  fresh(2);
  host.render();
  host.updateContent(1, { transient: true });
  const x = new Error('x');
  beh.p = { content() { throw x; } };
  assert.equal(thrown(() => host.updateContent(0)), x);
  assert.equal(host.getFault(), x);
  for (const call of [() => host.render({ first: 99 }), () => host.render({ first: -1 }), () => host.open(),
    () => host.updateContent('x'), () => host.updateContent(-5), () => host.jumpToMessage('nope'),
    () => host.setProjectionHeld(true), () => host.refreshLayout(), () => host.scrollToEnd(),
    () => host.finishContent(1)]) {
    const e = thrown(call);
    assert.equal(e.message, 'ChatSurface epoch is faulted', String(call));
    assert.equal(e.cause, x);
  }
  // finishContent of a message that is not transient updates nothing: no
  // synchronous throw (C112a: its checks 2–5 run only with step 1).
  let p;
  assert.doesNotThrow(() => { p = host.finishContent(0); });
  assert.ok(p instanceof Promise);
  p.catch(() => {});
  // Read-only calls, resetEpoch and the extension API remain usable.
  assert.ok(host.getMessageElement(0));
  assert.equal(host.snapshot().state, 'faulted');
  const late = thrown(() => api.registerParticipant({ id: 'late', protocolVersion: 1, didMount() {} }));
  assert.equal(late.message, 'ChatSurface participants must register before the first projection');
  assert.equal(host.getFault(), x);
  assert.deepEqual(faults, [x]);
  delete beh.p;
  host.resetEpoch();
  assert.equal(host.getFault(), null);
});

test('C112a: the fault check comes before static foreign-DOM detection', () => {
  fresh(2);
  const log = [];
  beh.p = { mount: ({ mesid, signal }) => () => log.push(`${mesid}:${signal.reason}`) };
  host.render();
  beh.q = { content() { throw new Error('f'); } };
  assert.equal(thrown(() => host.updateContent(0)).message, 'f');
  delete beh.q;
  host.getMessageElement(1).remove();
  assert.equal(thrown(() => host.render()).message, 'ChatSurface epoch is faulted');
  assert.deepEqual(log, [], 'a faulted render absorbs nothing');
  assert.deepEqual(mounted(), [0, 1]);
});

test('C112a/C109: the reentrancy check comes before the fault check (a disposer of a faulted epoch\'s reset)', () => {
  fresh(1);
  let inner;
  beh.p = { mount: () => () => { try { host.render({ first: 99 }); } catch (e) { inner = e; } } };
  host.render();
  const f = new Error('f');
  beh.q = { content() { throw f; } };
  assert.equal(thrown(() => host.updateContent(0)), f);
  delete beh.q;
  host.resetEpoch();
  assert.equal(inner.message, 'ChatSurface mutation render reentered during resetEpoch');
  assert.equal(host.getFault(), null, 'the reset still starts a new epoch');
});

test('C109/C110: every labelled operation names itself and the running one', () => {
  const cases = [
    // [what the hook calls, which op runs, which hook]
    ['render', 'open', (h) => h.render(), (h) => h.open(), 'mount'],
    ['open', 'render', (h) => h.open(), (h) => h.render(), 'mount'],
    ['updateContent', 'render', (h) => h.updateContent(0), (h) => h.render(), 'mount'],
    ['jumpToMessage', 'render', (h) => h.jumpToMessage(0), (h) => h.render(), 'mount'],
    ['scrollToEnd', 'render', (h) => h.scrollToEnd(), (h) => h.render(), 'mount'],
    ['resetEpoch', 'render', (h) => h.resetEpoch(), (h) => h.render(), 'mount'],
    ['render', 'updateContent', (h) => h.render(), (h) => h.updateContent(0), 'update'],
    ['render', 'dispose', (h) => h.render(), (h) => h.dispose(), 'dispose'],
  ];
  for (const [inner, outer, call, run, where] of cases) {
    fresh(1);
    let seen;
    const reenter = () => { try { call(host); } catch (e) { seen ??= e; } };
    if (where === 'mount') beh.p = { mount: reenter };
    if (where === 'update') { host.render(); beh.p = { content: reenter }; }
    if (where === 'dispose') { beh.p = { mount: () => reenter }; host.render(); }
    try { run(host); } catch { /* the reentry faulted the running operation */ }
    assert.ok(seen, `${inner} during ${outer}`);
    assert.equal(seen.message, `ChatSurface mutation ${inner} reentered during ${outer}`);
    if (outer !== 'dispose') {
      assert.equal(host.getFault(), seen);
      assert.deepEqual(faults, [seen]);
    }
  }
});

test('C110: read-only host methods may be called from inside a hook', () => {
  fresh(2);
  const seen = [];
  beh.p = {
    mount: ({ mesid }) => {
      seen.push(host.snapshot().state, host.getFault(), host.getMessageElement(mesid) === null);
    },
  };
  host.render();
  assert.equal(host.getFault(), null);
  assert.deepEqual(seen, ['inactive', null, false, 'inactive', null, false]);
});

test('C109/C110: finishContent updates under updateContent, and only a transient message makes it reenter', () => {
  fresh(1);
  host.render();
  host.updateContent(0, { transient: true });
  chat.push({ mes: 'm1' });
  let plain;
  let seen;
  beh.p = {
    mount: ({ mesid }) => {
      if (mesid !== 1) return;
      plain = host.finishContent(1); // 1 is not transient: nothing to update, no check
      try { host.finishContent(0); } catch (e) { seen = e; }
    },
  };
  try { host.render(); } catch { /* faulted by the reentry */ }
  assert.ok(plain instanceof Promise);
  plain.catch(() => {});
  assert.equal(seen.message, 'ChatSurface mutation updateContent reentered during render');
  assert.equal(host.getFault(), seen);
});

test('C111: no static lifecycle operation calls emit; finishContent emits exactly its event', async () => {
  fresh(3);
  await host.render();
  chat.push({ mes: 'm3' });
  await host.render();
  chat.shift();
  await host.render({ replace: [0] });
  host.updateContent(0);
  host.updateContent(1, { transient: true });
  host.updateContent(1);
  host.getMessageElement(2).remove();
  await observer();
  host.scrollToEnd();
  host.setProjectionHeld(true);
  host.refreshLayout();
  host.resetEpoch();
  await host.open();
  sched.flush();
  assert.deepEqual(emits, []);
  await host.finishContent(0, 'character_message_rendered', 'a', 2);
  assert.deepEqual(emits, [['character_message_rendered', 0, 'a', 2]]);
  await host.finishContent(1);
  assert.equal(emits.length, 1, 'no event, no emit');
});

test('C112: after dispose every mutating operation throws host-disposed synchronously, whatever the arguments', () => {
  fresh(2, { runtimeLimit: 3 });
  host.render();
  host.updateContent(1, { transient: true });
  host.dispose();
  for (const call of [() => host.open(), () => host.render(), () => host.render({ first: 99 }),
    () => host.updateContent(0), () => host.updateContent('x'), () => host.finishContent(1, 'e'),
    () => host.finishContent(0), () => host.jumpToMessage(0), () => host.jumpToMessage(-1), () => host.scrollToEnd(),
    () => host.setProjectionHeld(true), () => host.refreshLayout(), () => host.resetEpoch()]) {
    const e = thrown(call);
    assert.equal(e.message, 'ChatSurface host is disposed', String(call));
  }
  assert.equal(host.dispose(), undefined);
  assert.equal(emits.length, 0);
});

test('C112: a disposed host\'s snapshot describes an empty host; mode and maxActive unchanged', () => {
  fresh(3, { runtimeLimit: 3 });
  beh.p = {
    prepare({ content }, claims) {
      const pre = document.createElement('pre');
      content.append(pre);
      claims.claim(pre, () => () => {});
    },
  };
  host.render({ first: 1 });
  const live = host.snapshot();
  assert.equal(live.runtime.active, 2);
  assert.equal(live.runtime.maxActive, 3);
  host.dispose();
  const s = host.snapshot();
  assert.deepEqual(JSON.parse(JSON.stringify(s)), {
    mode: 'static', state: 'disposed', messageCount: 0, mounted: [], ranges: [], viewport: [],
    followingTail: false, projectionHeld: false,
    runtime: { mode: 'eager', maxActive: 3, active: 0, pending: 0, scheduled: false, suspended: false, candidates: [] },
    pendingPreparations: [], fault: null,
  });
  assert.equal(host.getMessageElement(1), null);
  assert.equal(host.getFault(), null);
});

test('C112: a reset that throws still completes disposal; the error is rethrown; a second dispose does nothing', () => {
  fresh(2);
  const boom = new Error('cleanup failed');
  const log = [];
  beh.p = { mount: ({ mesid }) => () => { log.push(mesid); if (mesid === 1) throw boom; } };
  host.render();
  assert.equal(thrown(() => host.dispose()), boom);
  assert.deepEqual(log, [1, 0], 'every disposer ran, descending (C107 step 2)');
  assert.equal(host.snapshot().state, 'disposed');
  assert.equal(host.getFault(), null);
  assert.equal(thrown(() => host.render()).message, 'ChatSurface host is disposed');
  assert.doesNotThrow(() => host.dispose());
  assert.deepEqual(log, [1, 0]);
  // A disposed host does not count as live (C141).
  const r2 = makeRoot();
  const h2 = createChatSurfaceHost({ root: r2, getMessages: () => chat, materialize: materializer(), formatMessage, emit() {} });
  h2.dispose();
  r2.remove();
});

test('C140: an option whose value is undefined counts as absent; a non-object options has every option absent', () => {
  fresh(0);
  host.dispose();
  root.remove();
  root = makeRoot();
  host = createChatSurfaceHost({
    root, getMessages: () => chat, materialize: materializer(), formatMessage, emit() {},
    managed: undefined, runtimeLimit: undefined, onFault: undefined,
    requestAnimationFrame: undefined, cancelAnimationFrame: undefined, setTimeout: undefined, clearTimeout: undefined,
  });
  assert.equal(host.snapshot().runtime.maxActive, 8);
  assert.equal(host.snapshot().mode, 'static');
  host.dispose();
  for (const bad of [undefined, null, 5, 'x']) {
    const e = thrown(() => createChatSurfaceHost(bad));
    assert.ok(e instanceof TypeError);
    assert.equal(e.message, 'ChatSurface host requires root, getMessages, materialize, formatMessage and emit');
  }
  host = undefined;
});

test('C141: creation checks run in order; a failed creation leaves no host behind', () => {
  fresh(0);
  const base = { root: makeRoot(), getMessages: () => chat, materialize: materializer(), formatMessage, emit() {} };
  // A live host is found before any option is looked at.
  assert.equal(thrown(() => createChatSurfaceHost({})).message, 'ChatSurface host already exists');
  assert.equal(thrown(() => createChatSurfaceHost({ ...base, managed: 'x' })).message, 'ChatSurface host already exists');
  host.dispose();
  let e = thrown(() => createChatSurfaceHost({ ...base, root: undefined, managed: 'x' }));
  assert.ok(e instanceof TypeError);
  assert.equal(e.message, 'ChatSurface host requires root, getMessages, materialize, formatMessage and emit');
  e = thrown(() => createChatSurfaceHost({ ...base, managed: 'x', runtimeLimit: 0 }));
  assert.equal(e.message, 'Chat virtualization setting must be a boolean');
  e = thrown(() => createChatSurfaceHost({ ...base, managed: true, runtimeLimit: 0 }));
  assert.equal(e.message, 'ChatSurface host mode must match the installed ownership decision');
  e = thrown(() => createChatSurfaceHost({ ...base, runtimeLimit: 0, onFault: 1 }));
  assert.equal(e.message, 'RuntimeAdmission maxActive must be a positive integer');
  for (const name of ['requestAnimationFrame', 'cancelAnimationFrame', 'setTimeout', 'clearTimeout']) {
    e = thrown(() => createChatSurfaceHost({ ...base, [name]: 1 }));
    assert.ok(e instanceof TypeError);
    assert.equal(e.message, `ChatSurface host option ${name} must be a function`);
  }
  e = thrown(() => createChatSurfaceHost({ ...base, onFault: null }));
  assert.equal(e.message, 'ChatSurface host option onFault must be a function');
  // Static mode needs only MutationObserver.
  const { ResizeObserver: RO, MutationObserver: MO } = globalThis;
  try {
    globalThis.ResizeObserver = undefined;
    const h = createChatSurfaceHost(base);
    h.dispose();
    globalThis.MutationObserver = undefined;
    e = thrown(() => createChatSurfaceHost({ ...base, onFault: 1 }));
    assert.equal(e.message, 'ChatSurface host option onFault must be a function');
    e = thrown(() => createChatSurfaceHost(base));
    assert.ok(e instanceof TypeError);
    assert.equal(e.message, 'ChatSurface host requires ResizeObserver and MutationObserver');
  } finally {
    globalThis.ResizeObserver = RO;
    globalThis.MutationObserver = MO;
  }
  // None of the failures left a host: this one is the only live one.
  host = createChatSurfaceHost(base);
  root = base.root;
  faults = [];
});

test('C142: every host operation works detached (without this)', async () => {
  fresh(3);
  const { open, render, updateContent, finishContent, scrollToEnd, setProjectionHeld, refreshLayout,
    resetEpoch, getMessageElement, getFault, snapshot, dispose, jumpToMessage } = host;
  await open();
  await render({ first: 1 });
  assert.deepEqual(snapshot().mounted, [1, 2]);
  assert.equal(updateContent(2), true);
  assert.equal(updateContent(0), false);
  await finishContent(1, 'ev');
  assert.deepEqual(emits, [['ev', 1]]);
  scrollToEnd();
  setProjectionHeld(true);
  refreshLayout();
  assert.equal(thrown(() => jumpToMessage(1)).message, 'Bounded ChatSurface is not active');
  assert.equal(getMessageElement(1), root.querySelector('.mes'));
  assert.equal(getFault(), null);
  resetEpoch();
  assert.deepEqual(snapshot().mounted, []);
  dispose();
  assert.equal(snapshot().state, 'disposed');
});

test('C143: snapshots are new deeply frozen objects; static state, messageCount, ranges and candidates', () => {
  fresh(5);
  const s0 = host.snapshot();
  assert.equal(s0.state, 'inactive');
  assert.equal(s0.messageCount, 0);
  assert.notEqual(host.snapshot(), s0);
  beh.p = {
    prepare({ content, mesid }, claims) {
      if (mesid % 2 === 1) return;
      const pre = document.createElement('pre');
      content.append(pre);
      claims.claim(pre, () => () => {});
    },
  };
  host.render({ first: 2 });
  chat.push({ mes: 'm5' }); // not rendered: messageCount is the last pass's
  const s = host.snapshot();
  assert.equal(s.state, 'static');
  assert.equal(s.messageCount, 5);
  assert.deepEqual(s.mounted, [2, 3, 4]);
  assert.deepEqual(s.ranges, [{ start: 2, end: 5 }]);
  assert.deepEqual(s.viewport, []);
  assert.equal(s.followingTail, false);
  assert.equal(s.projectionHeld, false);
  assert.deepEqual(s.pendingPreparations, []);
  assert.deepEqual(s.runtime, {
    mode: 'eager', maxActive: 8, active: 2, pending: 0, scheduled: false, suspended: false,
    candidates: [{ participantId: 'p', mesid: 2, state: 'active' }, { participantId: 'p', mesid: 4, state: 'active' }],
  });
  for (const o of [s, s.mounted, s.ranges, s.ranges[0], s.viewport, s.runtime, s.runtime.candidates,
    s.runtime.candidates[0], s.pendingPreparations]) assert.ok(Object.isFrozen(o));
  host.resetEpoch();
  const r = host.snapshot();
  assert.equal(r.messageCount, 0);
  assert.equal(r.state, 'inactive');
  // An empty projection commits too: the state becomes static.
  chat = [];
  host.render();
  assert.equal(host.snapshot().state, 'static');
});

test('C103 (last: a participant fault is page-wide): a fault after the first of the epoch changes nothing', () => {
  fresh(1);
  const e1 = new Error('first');
  beh.p = { mount() { throw e1; } };
  assert.equal(thrown(() => host.render()), e1);
  regs.q.fault(new Error('later'));
  assert.equal(host.getFault(), e1);
  assert.equal(host.snapshot().fault, e1);
  assert.deepEqual(faults, [e1]);
});
