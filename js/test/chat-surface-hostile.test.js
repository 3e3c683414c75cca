// Hostile hosts (issue 13, priority 1): nothing a host does may end the Go
// program or wedge the page. Each case gets a coded error or a fault that
// resetEpoch()/dispose() recover from, and the module keeps serving every
// API afterwards (takeover included).
import { test, afterEach } from 'node:test';
import assert from 'node:assert/strict';
import { makeRoot, frames, formatMessage, materializer, messages, thrown } from './chat-surface-fixture.js';
import { installChatSurfaceApi, createChatSurfaceHost } from '../chat-surface.js';
import { createMessageEditorHandle } from '../message-takeover.js';
import { sharedCore } from '../core.js';

installChatSurfaceApi(globalThis, { managed: true });
const Event = globalThis.window.Event;

const live = [];
afterEach(() => { for (const x of live.splice(0)) { try { x.host.dispose(); } catch { /* reported by the test */ } x.root.remove(); } });

function setup({ n = 100, chat = messages(n), ...over } = {}) {
  const root = makeRoot();
  const sched = frames();
  const faults = [];
  const host = createChatSurfaceHost({
    root, getMessages: () => chat, materialize: materializer(), formatMessage, emit() {}, ...sched,
    onFault: (f) => faults.push(f), ...over,
  });
  const done = () => { host.dispose(); root.remove(); };
  const x = { root, chat, sched, faults, host, done };
  live.push(x);
  return x;
}

// The module is alive: another API still answers.
function alive() {
  const h = createMessageEditorHandle({ generationType: 'normal' });
  h.setText('still here');
  assert.equal(h.getText(), 'still here');
  h.discard();
}

// After a fault: every operation throws the coded error, resetEpoch()
// recovers, and the next open() settles.
async function recovers(x) {
  for (const call of [() => x.host.jumpToMessage(1), () => x.host.scrollToEnd(), () => x.host.render()]) {
    const e = thrown(call);
    assert.equal(e.message, 'ChatSurface epoch is faulted');
    assert.equal(e.cause, x.host.getFault());
  }
  x.host.resetEpoch();
  assert.equal(x.host.getFault(), null);
  await x.host.open();
  x.sched.flush();
  assert.equal(x.host.snapshot().state, 'settled');
}

for (const which of ['setTimeout', 'requestAnimationFrame']) {
  test(`C10/C88: a host ${which} that throws under a scroll faults the epoch; Go lives on (issue 13)`, async () => {
    const boom = new Error(`${which} refused`);
    let refuse = false;
    const real = frames();
    const x = setup({
      ...real,
      [which]: (...a) => { if (refuse) { refuse = false; throw boom; } return real[which](...a); },
    });
    await x.host.open();
    real.flush();
    refuse = true;
    x.root.scrollTop = 1234;
    x.root.dispatchEvent(new Event('scroll'));
    real.flush();
    assert.equal(x.host.getFault(), boom, 'the host value is the fault, by identity');
    assert.deepEqual(x.faults, [boom]);
    assert.equal(x.host.snapshot().state, 'faulted');
    alive();
    x.sched = real;
    await recovers(x);
    x.done();
    alive();
  });
}

test('C10/C88: a root whose scrollTop getter throws under a scroll event faults the epoch; nothing escapes into the page (issue 13)', async () => {
  const x = setup();
  await x.host.open();
  x.sched.flush();
  const boom = new Error('scrollTop refused');
  const own = Object.getOwnPropertyDescriptor(x.root, 'scrollTop');
  Object.defineProperty(x.root, 'scrollTop', { get() { throw boom; }, set() {}, configurable: true });
  const escaped = [];
  const onError = (e) => escaped.push(e.error ?? e.message);
  globalThis.window.addEventListener('error', onError);
  try {
    x.root.dispatchEvent(new Event('scroll'));
    x.sched.flush();
  } finally {
    globalThis.window.removeEventListener('error', onError);
  }
  assert.deepEqual(escaped, [], 'the listener contained the throw');
  assert.equal(x.host.getFault(), boom, 'the host value is the fault, by identity');
  assert.deepEqual(x.faults, [boom]);
  alive();
  if (own) Object.defineProperty(x.root, 'scrollTop', own); else delete x.root.scrollTop;
  await recovers(x);
  x.done();
  alive();
});

test('C10/C79: a mutation record whose target\'s parentNode getter throws reaches Go as a change to read; nothing escapes into the page', async () => {
  const x = setup();
  await x.host.open();
  x.sched.flush();
  const el = x.root.querySelector(':scope > .mes');
  Object.defineProperty(el, 'parentNode', { get() { throw new Error('parentNode refused'); }, configurable: true });
  const escaped = [];
  const onError = (e) => escaped.push(e.error ?? e.message);
  globalThis.window.addEventListener('error', onError);
  const rejected = [];
  const onRejection = (e) => rejected.push(e);
  process.on('uncaughtException', onRejection);
  try {
    el.setAttribute('class', 'mes last_mes'); // an observed attribute of a root's child
    await new Promise((r) => { setTimeout(r, 0); });
    x.sched.flush();
  } finally {
    globalThis.window.removeEventListener('error', onError);
    process.off('uncaughtException', onRejection);
    delete el.parentNode;
  }
  assert.deepEqual(escaped, [], 'the observer callback contained the throw');
  assert.deepEqual(rejected, []);
  assert.equal(x.host.getFault(), null, 'Go re-read the children: nothing foreign, no fault');
  assert.deepEqual(x.faults, []);
  alive();
  x.done();
});

test('C4: a scheduler that throws inside an operation propagates the value from it', async () => {
  const boom = new Error('no frames');
  const x = setup({ requestAnimationFrame: () => { throw boom; } });
  assert.equal(thrown(() => x.host.open()), boom);
  assert.equal(x.host.getFault(), boom);
  x.host.resetEpoch();
  x.done();
  alive();
});

test('C4/C146: chat[] lengths are read as array lengths, checked before anything is sized by them', async () => {
  // A claimed length of 1e9 is refused before anything is sized by it;
  // a plausible one with nothing in it fails at its first entry.
  let list = { length: 1e9 };
  let x = setup({ getMessages: () => list });
  let e = thrown(() => x.host.open());
  assert.ok(e instanceof RangeError, String(e));
  assert.equal(e.message, 'ChatSurface chat has 1000000000 messages; the maximum is 4194304');
  assert.equal(x.host.getFault(), e);
  list = { length: 5 };
  x.host.resetEpoch();
  e = thrown(() => x.host.open());
  assert.ok(e instanceof TypeError, String(e));
  assert.equal(e.message, 'ChatSurface message at index 0 must be an object');
  // Array-likes follow ToLength: '3' is 3, -1 and NaN are 0.
  list = { length: '3', 0: { mes: 'a' }, 1: { mes: 'b' }, 2: { mes: 'c' } };
  x.host.resetEpoch();
  await x.host.open();
  assert.deepEqual(x.host.snapshot().mounted, [0, 1, 2]);
  for (const length of [-1, NaN, undefined]) {
    list = { length };
    x.host.resetEpoch();
    await x.host.open();
    assert.equal(x.host.snapshot().messageCount, 0);
  }
  assert.equal(x.host.jumpToMessage.length, 1);
  assert.throws(() => x.host.jumpToMessage(0), RangeError);
  // A length getter that throws, and getMessages() returning null: the
  // thrown value propagates (C6) and faults.
  const boom = new Error('length refused');
  list = { get length() { throw boom; } };
  x.host.resetEpoch();
  assert.equal(thrown(() => x.host.open()), boom);
  assert.equal(x.host.getFault(), boom);
  // getMessages() returning undefined or null (a chat not loaded yet): the
  // surface's own coded TypeError, not the facade's reading of `length`.
  for (const none of [null, undefined]) {
    list = none;
    x.host.resetEpoch();
    e = thrown(() => x.host.open());
    assert.ok(e instanceof TypeError, String(e));
    assert.equal(e.message, 'ChatSurface getMessages() must return chat[], not undefined or null');
    assert.equal(x.host.getFault(), e);
  }
  list = [{ mes: 'a' }];
  x.host.resetEpoch();
  await x.host.open();
  assert.equal(x.host.snapshot().messageCount, 1, 'the next epoch works');
  x.done();
  // An array-like whose every entry is a fresh object, 2^32 − 1 long.
  const huge = new Proxy([], { get: (t, k) => (k === 'length' ? 2 ** 32 - 1 : typeof k === 'string' && /^\d+$/.test(k) ? {} : Reflect.get(t, k)) });
  x = setup({ getMessages: () => huge });
  e = thrown(() => x.host.open());
  assert.ok(e instanceof RangeError, String(e));
  assert.equal(e.message, 'ChatSurface chat has 4294967295 messages; the maximum is 4194304');
  x.done();
  alive();
});

test('C30/C112: a materialize that returns a Proxy or throws leaves a host that disposes and a page that creates again', async () => {
  for (const make of [
    (el) => new Proxy(el, { get(t, k) { if (k === 'querySelector' || k === 'matches') throw new Error('trap'); return Reflect.get(t, k); } }),
    (el) => new Proxy({}, { get() { throw new Error('trap'); } }),
    () => { throw new Error('materialize failed'); },
  ]) {
    const mat = materializer();
    const x = setup({ materialize: (m, i) => make(mat(m, i)) });
    // Either the result works as the element it wraps (the adapter calls
    // platform methods, which a Proxy's traps cannot redirect) or open()
    // fails with a coded error or the host's own value; never internal.
    let e = null;
    try { await x.host.open(); } catch (err) { e = err; }
    if (e !== null) {
      assert.notEqual(e.code, 'internal', String(e));
      assert.equal(x.host.getFault(), e);
    }
    x.host.dispose();
    x.host.dispose();
    assert.equal(x.host.snapshot().state, 'disposed');
    const y = setup({ n: 3 });
    await y.host.open();
    assert.deepEqual(y.host.snapshot().mounted, [0, 1, 2]);
    y.done();
    x.root.remove();
  }
  alive();
});

test('C109/C112: dispose() called from inside materialize is refused as reentrant; the host then disposes', async () => {
  const mat = materializer();
  let x;
  let inner;
  x = setup({ materialize: (m, i) => { if (!inner) inner = thrown(() => x.host.dispose()); return mat(m, i); } });
  const outer = thrown(() => x.host.open());
  assert.equal(inner.message, 'ChatSurface mutation dispose reentered during open');
  assert.equal(x.host.getFault(), inner);
  assert.equal(outer.message, 'ChatSurface epoch is faulted');
  assert.equal(outer.cause, inner);
  x.host.dispose();
  assert.equal(x.host.snapshot().state, 'disposed');
  const y = setup({ n: 2 });
  await y.host.open();
  y.done();
  x.root.remove();
  alive();
});

test('C76/C106/C107: a foreign child appended to #chat faults once; calls stay coded; reset + open recover once it is gone', async () => {
  const x = setup({ n: 1000 });
  await x.host.open();
  x.sched.flush();
  const typing = document.createElement('div');
  typing.className = 'typing_indicator';
  x.root.append(typing);
  x.root.scrollTop = 20000;
  x.root.dispatchEvent(new Event('scroll'));
  x.sched.flush();
  const fault = x.host.getFault();
  assert.equal(fault?.message, 'Bounded ChatSurface contains an unknown direct child: div');
  assert.deepEqual(x.faults, [fault]);
  for (const call of [() => x.host.jumpToMessage(5), () => x.host.scrollToEnd(), () => x.host.render()]) {
    const e = thrown(call);
    assert.equal(e.message, 'ChatSurface epoch is faulted');
    assert.equal(e.cause, fault);
  }
  // Switching chats resets; while the child is there the new epoch names it.
  x.host.resetEpoch();
  assert.equal(x.root.querySelectorAll(':scope > .mes, :scope > tt-chat-spacer').length, 0);
  assert.equal(typing.parentNode, x.root, 'a foreign child stays (C107 step 4)');
  const again = thrown(() => x.host.open());
  assert.equal(again.message, 'Bounded ChatSurface contains an unknown direct child: div');
  typing.remove();
  x.host.resetEpoch();
  await x.host.open();
  x.sched.flush();
  assert.equal(x.host.snapshot().state, 'settled');
  x.host.jumpToMessage(5);
  x.done();
  alive();
});

// The applier answers "unchanged" for the root's children when its
// observers saw nothing, so each foreign change C79 names must still be
// found by the next operation, before the observer's callback runs.
for (const [what, change] of [
  ['loses its .mes class', (el) => el.classList.remove('mes')],
  ['gets another mesid', (el) => el.setAttribute('mesid', '7')],
  ['is moved to the end', (el) => el.parentNode.append(el)],
  ['is removed', (el) => el.remove()],
]) {
  test(`C79/C112a: a mounted root that ${what} is found by the next operation (issue 13)`, async () => {
    const x = setup({ n: 1000 });
    await x.host.open();
    x.sched.flush();
    x.host.render(); // nothing changed: the check finds nothing
    assert.equal(x.host.getFault(), null);
    change(x.root.querySelector(':scope > .mes'));
    const e = thrown(() => x.host.render()); // synchronously: no observer callback yet
    assert.equal(e.message, 'ChatSurface committed DOM projection is inconsistent');
    assert.equal(x.host.getFault(), e);
    await recoversAfterRepair(x);
  });
}
test('C79: a class change deep inside a message is not a change of the root\'s children', async () => {
  const x = setup({ n: 1000 });
  await x.host.open();
  x.sched.flush();
  x.root.querySelector('.mes_text').classList.add('highlighted');
  await new Promise((r) => setTimeout(r, 0)); // the observers' callbacks run
  x.host.render();
  x.sched.flush();
  assert.equal(x.host.getFault(), null);
  assert.equal(x.host.snapshot().state, 'settled');
});

// A chat switch after a fault: the reset drops the host's roots, foreign or
// not, so the next open settles.
async function recoversAfterRepair(x) {
  for (const el of x.root.querySelectorAll('.mes')) el.remove();
  x.host.resetEpoch();
  assert.equal(x.host.getFault(), null);
  await x.host.open();
  x.sched.flush();
  assert.equal(x.host.snapshot().state, 'settled');
}

test('C6: host throws come back as the thrown value, never as internal', async () => {
  const boom = { toString() { throw new Error('no text'); } };
  let x = setup({ n: 3, formatMessage: (m) => (m.bad ? boom : formatMessage(m)) });
  await x.host.open();
  x.chat[1].bad = true;
  const e = thrown(() => x.host.updateContent(1));
  assert.equal(e.message, 'no text');
  assert.equal(x.host.getFault(), e);
  x.done();
  x = setup({ getMessages: () => { throw 'x'; } });
  assert.equal(thrown(() => x.host.open()), 'x');
  assert.equal(x.host.getFault().message, 'x');
  x.done();
  const sym = Symbol('m');
  x = setup({ materialize: () => { throw sym; } });
  assert.equal(thrown(() => x.host.open()), sym);
  x.done();
  alive();
});

test('C30/C51: text written to the DOM crosses exactly, lone surrogates included', async () => {
  const x = setup({ chat: [{ mes: 'a\uD800b' }, { mes: '\uDC00z\uD83D\uDE00' }] });
  await x.host.open();
  const html = (i) => x.host.getMessageElement(i).querySelector('.mes_text').innerHTML;
  assert.equal(html(0), '<p>a\uD800b</p>');
  assert.equal(html(1), '<p>\uDC00z\uD83D\uDE00</p>');
  x.chat[0].mes = 'c\uDBFFd';
  x.host.updateContent(0);
  assert.equal(html(0), '<p>c\uDBFFd</p>');
  x.host.updateContent(1, { transient: true });
  assert.equal(html(1), '<p>\uDC00z\uD83D\uDE00</p>');
  x.done();
});

test('C93/C112a: render()\'s replace is read by the facade: a throwing or absurd list is an argument error after the fault checks, nothing faults, the next render works (issue 13)', async () => {
  const x = setup();
  await x.host.open();
  x.sched.flush();
  const before = x.host.snapshot();
  const boom = new Error('replace refused');
  const throwing = new Proxy([1], { get: (t, k) => { if (k === 'length') throw boom; return Reflect.get(t, k); } });
  assert.equal(thrown(() => x.host.render({ replace: throwing })), boom);
  const huge = new Proxy([], { get: (t, k) => (k === 'length' ? 2 ** 32 - 1 : typeof k === 'string' && /^\d+$/.test(k) ? 0 : Reflect.get(t, k)) });
  const e = thrown(() => x.host.render({ replace: huge }));
  assert.ok(e instanceof RangeError, String(e));
  assert.equal(e.message, 'ChatSurface render replace lists 4294967295 mesids; the maximum is 4194304');
  assert.equal(x.host.getFault(), null, 'an argument error does not fault');
  assert.deepEqual(x.faults, []);
  assert.deepEqual(x.host.snapshot().mounted, before.mounted);
  // A replace list is honoured: the listed mounted message gets a new root.
  const last = before.mounted.at(-1);
  const old = x.host.getMessageElement(last);
  await x.host.render({ replace: [last] });
  x.sched.flush();
  assert.notEqual(x.host.getMessageElement(last), old);
  // A faulted host says so first, whatever replace holds.
  x.root.append(document.createElement('aside'));
  thrown(() => x.host.render());
  assert.notEqual(x.host.getFault(), null);
  const f = thrown(() => x.host.render({ replace: huge }));
  assert.equal(f.message, 'ChatSurface epoch is faulted');
  x.root.querySelector(':scope > aside').remove();
  x.done();
  alive();
});

test('C140: createChatSurfaceHost reads each option once; a getter that throws throws to the caller and registers nothing (issue 13)', async () => {
  const reads = new Map();
  const base = { getMessages: () => messages(10), materialize: materializer(), formatMessage, emit() {}, ...frames() };
  const counted = (root, extra = {}) => {
    const o = {};
    for (const [k, v] of Object.entries({ root, ...base, ...extra })) {
      Object.defineProperty(o, k, { enumerable: true, get() { reads.set(k, (reads.get(k) ?? 0) + 1); return v; } });
    }
    return o;
  };
  let root = makeRoot();
  let host = createChatSurfaceHost(counted(root));
  await host.open();
  for (const [k, n] of reads) assert.equal(n, 1, `${k} was read ${n} times`);
  host.dispose();
  root.remove();
  // A getter that throws: the caller gets the value, and the page can
  // create a host right after (nothing was registered).
  const boom = new Error('options refused');
  root = makeRoot();
  const bad = counted(root);
  Object.defineProperty(bad, 'runtimeLimit', { get() { throw boom; } });
  assert.equal(thrown(() => createChatSurfaceHost(bad)), boom);
  host = createChatSurfaceHost(counted(root));
  await host.open();
  assert.equal(host.snapshot().state, 'settled');
  host.dispose();
  root.remove();
  alive();
});

// Found by probing: one element handed back for two messages passed C30's
// parentless check twice (neither was placed yet), and placing it twice
// ran Go out of a slice.
test('C30: materialize returning the same element for two messages of one commit is C30\'s parentless error; the host recovers', async () => {
  const mk = () => { const el = document.createElement('div'); el.className = 'mes'; el.innerHTML = '<div class="mes_text"></div>'; return el; };
  let shared = mk();
  const x = setup({ n: 5, materialize: (m, mesid) => (shared !== null && mesid < 4 ? shared : materializer()(m, mesid)) });
  let e;
  try { await x.host.open(); x.sched.flush(); } catch (err) { e = err; }
  assert.equal(e?.message, 'ChatSurface materializer must return a parentless .mes element');
  assert.equal(x.host.getFault(), e);
  alive();
  shared = null;
  await recovers(x);
});

test('C34 C103: a DOM commit that throws faults the epoch with the thrown value, and that value is what the operation throws', async () => {
  const boom = new Error('classList refused');
  const base = materializer();
  let armed = true;
  const x = setup({ n: 1, materialize: (m, i) => { const el = base(m, i); if (armed) Object.defineProperty(el, 'classList', { get() { throw boom; } }); return el; } });
  let e;
  try { await x.host.open(); x.sched.flush(); } catch (err) { e = err; }
  assert.equal(e, boom);
  assert.equal(x.host.getFault(), boom);
  armed = false;
  await recovers(x);
});

// Found by probing: a frame that arrived inside the call asking for it was
// refused, and Go, believing one still pending, never asked again.
test('C90: a host requestAnimationFrame that runs its callback before returning still gets its frame, and later gestures settle', async () => {
  const real = frames();
  let sync = true;
  const x = setup({ n: 200, ...real, requestAnimationFrame: (cb) => { if (sync) { sync = false; cb(0); return 1; } return real.requestAnimationFrame(cb); } });
  await x.host.open();
  await Promise.resolve();
  real.flush();
  x.root.scrollTop = 0;
  x.root.dispatchEvent(new Event('scroll'));
  for (let i = 0; i < 3; i++) { await Promise.resolve(); real.flush(); }
  const s = x.host.snapshot();
  assert.equal(s.state, 'settled');
  assert.equal(s.viewport[0], 0);
  assert.equal(x.host.getFault(), null);
});

// Found by probing: Go's js.Value.Type panics on a BigInt (wasm_exec.js
// gives it no type flag), so any BigInt argument was an internal error,
// and one that reached an operation faulted the epoch.
test('C4 C53 C96: BigInt arguments get the rules\' answers, never an internal error or a fault', async () => {
  const x = setup({ n: 20 });
  await x.host.open();
  x.sched.flush();
  const noInternal = (f) => { try { f(); } catch (e) { assert.doesNotMatch(String(e.message), /internal error/); } };
  noInternal(() => x.host.getMessageElement(0n));
  x.host.setProjectionHeld(1n);
  assert.equal(x.host.snapshot().projectionHeld, true);
  x.host.setProjectionHeld(0n);
  assert.equal(x.host.snapshot().projectionHeld, false);
  assert.equal(thrown(() => x.host.updateContent(0n)).message, 'ChatSurface updateContent requires an integer mesid');
  noInternal(() => x.host.jumpToMessage(2n));
  noInternal(() => x.host.render({ replace: [0n] }));
  x.sched.flush();
  assert.equal(x.host.getFault(), null);
  assert.equal(x.host.snapshot().state, 'settled');
  x.host.dispose();
  assert.equal(thrown(() => createChatSurfaceHost({ root: makeRoot(), getMessages: () => [], materialize: materializer(), formatMessage, emit() {}, runtimeLimit: 2n })).message,
    'RuntimeAdmission maxActive must be a positive integer');
  // C62: a large budget ("unlimited") is taken as given, up to the largest
  // integer a number holds exactly.
  for (const [limit, reported] of [[2 ** 31 - 1, 2 ** 31 - 1], [Number.MAX_SAFE_INTEGER, Number.MAX_SAFE_INTEGER], [1e300, Number.MAX_SAFE_INTEGER]]) {
    const root = makeRoot();
    const h = createChatSurfaceHost({ root, getMessages: () => [], materialize: materializer(), formatMessage, emit() {}, runtimeLimit: limit });
    assert.equal(h.snapshot().runtime.maxActive, reported, String(limit));
    h.dispose();
    root.remove();
  }
});

// A custom element in a message reacts to the batch that inserts it
// (connectedCallback runs inside the adapter's insertBefore): its page code
// may call the host while that batch is in flight.
let probeCalls = null; // (element) => void, while a test listens
customElements.define('tt-probe-reentry', class extends HTMLElement {
  connectedCallback() { probeCalls?.(this); }
});
function probed(over = {}) {
  const mat = materializer();
  return setup({ n: 30, materialize: (m, mesid) => { const el = mat(m, mesid); el.append(document.createElement('tt-probe-reentry')); return el; }, ...over });
}

test('C33/C109/C110: page code a DOM batch runs may read the host and call refreshLayout; the batch in flight is applied once, whole (issue 13: the module died)', async () => {
  const calls = [];
  const x = probed();
  probeCalls = () => {
    const h = x.host;
    for (const [what, fn] of [['snapshot', () => h.snapshot().state], ['element', () => h.getMessageElement(29) !== undefined],
      ['fault', () => h.getFault()], ['layout', () => h.refreshLayout()]]) {
      try { fn(); calls.push(what); } catch (e) { calls.push(`${what}: ${e.message}`); }
    }
    probeCalls = null; // once: a refresh that runs on every insert would never settle, as in a browser
  };
  await x.host.open();
  x.sched.flush();
  assert.deepEqual(calls, ['snapshot', 'element', 'fault', 'layout']);
  assert.equal(x.host.getFault(), null);
  assert.deepEqual(x.faults, []);
  const snap = x.host.snapshot();
  assert.equal(snap.state, 'settled');
  const roots = [...x.root.querySelectorAll(':scope > .mes')];
  assert.deepEqual(roots.map((r) => Number(r.getAttribute('mesid'))), snap.mounted);
  assert.equal(new Set(roots).size, roots.length);
  assert.ok(roots.at(-1).classList.contains('last_mes'));
  for (const r of roots) assert.equal(r.querySelector('.mesIDDisplay').textContent, `#${r.getAttribute('mesid')}`);
  alive();
});

test('C109: a mutating call from page code a DOM batch runs is refused as reentrant and faults; reset and open recover (issue 13: the module died)', async () => {
  const x = probed();
  const seen = [];
  probeCalls = () => {
    probeCalls = null;
    try { x.host.scrollToEnd(); seen.push('ok'); } catch (e) { seen.push(e.message); }
  };
  const e = thrown(() => x.host.open());
  assert.deepEqual(seen, ['ChatSurface mutation scrollToEnd reentered during open']);
  assert.equal(x.host.getFault().message, 'ChatSurface mutation scrollToEnd reentered during open');
  assert.equal(e.message, 'ChatSurface epoch is faulted');
  assert.equal(x.faults.length, 1);
  alive();
  await recovers(x);
  alive();
});

test('C33: page code inside a batch that makes Go grow its memory leaves the batch readable; it applies whole', async () => {
  const x = probed();
  const core = await sharedCore();
  let grew = 0;
  probeCalls = () => {
    probeCalls = null;
    const before = core.memory.buffer;
    // 100,000 open handles take Go's memory past what it had: the wasm
    // memory grows, and every view of the old buffer is detached.
    const hs = [];
    for (let i = 0; i < 100000; i++) hs.push(createMessageEditorHandle({ generationType: 'normal' }));
    for (const h of hs) h.discard();
    grew = before.byteLength === 0 ? hs.length : 0; // (a grown memory detached the old buffer)
  };
  await x.host.open();
  x.sched.flush();
  assert.equal(grew, 100000);
  assert.equal(x.host.getFault(), null);
  const snap = x.host.snapshot();
  assert.equal(snap.state, 'settled');
  const roots = [...x.root.querySelectorAll(':scope > .mes')];
  assert.deepEqual(roots.map((r) => Number(r.getAttribute('mesid'))), snap.mounted);
  alive();
});

test('C4: a chat[] whose entries run page code that calls into Go (and grows its memory) still reads as what it holds', async () => {
  const core = await sharedCore();
  const chat = messages(30);
  let trap = true;
  let grew = false;
  const list = new Proxy(chat, {
    get(target, k, r) {
      if (trap && k === '5') {
        trap = false;
        const before = core.memory.buffer;
        // Go's shared buffer is written by these calls, and its memory grows.
        const hs = [];
        for (let i = 0; i < 100000; i++) hs.push(createMessageEditorHandle({ generationType: 'normal', owner: `p${i}` }));
        for (const h of hs) h.discard();
        grew = before.byteLength === 0;
      }
      return Reflect.get(target, k, r);
    },
  });
  const x = setup({ chat, getMessages: () => list });
  await x.host.open();
  x.sched.flush();
  assert.ok(grew, 'the page code ran inside the structural pass and grew Go\'s memory');
  assert.equal(x.host.getFault(), null);
  const snap = x.host.snapshot();
  assert.equal(snap.state, 'settled');
  const roots = [...x.root.querySelectorAll(':scope > .mes')];
  assert.deepEqual(roots.map((r) => Number(r.getAttribute('mesid'))), snap.mounted);
  // Each root shows its own message (materialize got the right object).
  for (const r of roots) assert.equal(r.querySelector('.mes_text').textContent, `m${r.getAttribute('mesid')}`);
  alive();
});

// A custom element whose disconnectedCallback runs page code: it runs
// inside the batch that removes its root.
let goneCalls = null;
customElements.define('tt-probe-gone', class extends HTMLElement {
  disconnectedCallback() { goneCalls?.(); }
});

for (const op of ['jumpToMessage', 'scrollToEnd']) {
  test(`C39/C109: a reentrant call that page code inside ${op}'s batch makes faults the epoch and ${op} throws instead of reporting success`, async () => {
    const mat = materializer();
    const x = setup({ n: 60, materialize: (m, mesid) => { const el = mat(m, mesid); el.append(document.createElement('tt-probe-gone')); return el; } });
    await x.host.open();
    x.sched.flush();
    if (op === 'scrollToEnd') { x.host.jumpToMessage(1); x.sched.flush(); }
    const seen = [];
    goneCalls = () => {
      goneCalls = null;
      try { x.host.render(); } catch (e) { seen.push(e.message); }
    };
    const e = thrown(() => (op === 'jumpToMessage' ? x.host.jumpToMessage(1) : x.host.scrollToEnd()));
    const label = op === 'jumpToMessage' ? 'jumpToMessage' : 'scrollToEnd';
    assert.deepEqual(seen, [`ChatSurface mutation render reentered during ${label}`]);
    assert.equal(e.message, 'ChatSurface epoch is faulted');
    assert.equal(e.cause, x.host.getFault());
    assert.equal(x.host.snapshot().state, 'faulted');
    assert.equal(x.faults.length, 1);
    alive();
    await recovers(x);
  });
}

// A custom element in a message's formatted content: its connectedCallback
// runs inside the batch that writes the content.
let contentCalls = null;
customElements.define('tt-probe-content', class extends HTMLElement {
  connectedCallback() { contentCalls?.(this); }
});

test('C39/C109: a reentrant call from page code inside updateContent\'s content write faults the epoch and updateContent throws', async () => {
  const chat = messages(60);
  const x = setup({ chat, formatMessage: (m) => `<p>${m.mes}</p><tt-probe-content></tt-probe-content>` });
  await x.host.open();
  x.sched.flush();
  const seen = [];
  contentCalls = () => { contentCalls = null; try { x.host.render(); } catch (e) { seen.push(e.message); } };
  chat[59].mes = 'changed';
  const e = thrown(() => x.host.updateContent(59));
  assert.deepEqual(seen, ['ChatSurface mutation render reentered during updateContent']);
  assert.equal(e.message, 'ChatSurface epoch is faulted');
  assert.equal(e.cause, x.host.getFault());
  assert.equal(x.host.snapshot().state, 'faulted');
  alive();
  await recovers(x);
});

test('C79: page code inside a content write that removes its own root is a foreign change: the surface faults, it does not stay settled over a DOM it no longer matches', async () => {
  const chat = messages(60);
  const x = setup({ chat, formatMessage: (m) => `<p>${m.mes}</p><tt-probe-content></tt-probe-content>` });
  await x.host.open();
  x.sched.flush();
  contentCalls = (el) => { contentCalls = null; el.closest('.mes').remove(); };
  chat[58].mes = 'changed';
  assert.equal(x.host.updateContent(58), true);
  await Promise.resolve(); // the observer's report, as for a change made between batches
  x.sched.flush();
  assert.equal(x.host.snapshot().state, 'faulted');
  assert.equal(x.host.getFault().message, 'ChatSurface committed DOM projection is inconsistent');
  assert.equal(x.faults.length, 1);
  alive();
  await recovers(x);
});

// A chat switch must not depend on the host's cancel functions: one that
// throws while resetEpoch() or dispose() stops the gesture's frame and
// settle timer does not stop the reset. The reset completes, then the value
// propagates (C6), as C112 rethrows a failed reset after disposal; the
// callback it failed to cancel does nothing when it fires (docs/chatsurface.md).
for (const which of ['cancelAnimationFrame', 'clearTimeout']) {
  for (const op of ['resetEpoch', 'dispose']) {
    test(`C6/C107/C112: a host ${which} that throws under ${op}() still lets it complete, then throws the value; the stale callback is ignored`, async () => {
      const boom = new Error(`${which} refused`);
      let refuse = false;
      const real = frames();
      const x = setup({ ...real, [which]: (...a) => { if (refuse) throw boom; return real[which](...a); } });
      await x.host.open();
      real.flush();
      x.root.scrollTop = 1234;
      x.root.dispatchEvent(new Event('scroll')); // a gesture: a settle timer and a frame wait
      refuse = true;
      assert.equal(thrown(() => x.host[op]()), boom, 'the value itself propagates');
      refuse = false;
      const snap = x.host.snapshot();
      assert.equal(snap.state, op === 'dispose' ? 'disposed' : 'inactive', 'the reset completed');
      assert.equal(x.host.getFault(), null, 'the new epoch starts clean');
      assert.equal(x.root.querySelectorAll('.mes').length, 0);
      real.flush(); // the frame and timer it could not cancel fire now
      assert.equal(x.host.getFault(), null, 'a stale callback does nothing');
      assert.deepEqual(x.faults, []);
      if (op === 'resetEpoch') {
        await x.host.open();
        real.flush();
        assert.equal(x.host.snapshot().state, 'settled');
        assert.equal(x.host.getFault(), null);
      }
      alive();
      x.done();
    });
  }
}

// A root whose children collection lies about its length: the count Go
// reads is what was written, so nothing is sized by the lie (a length of
// 2^32 − 4,194,304 grew Go's memory to 3.8 GB for the page's life; −1 was an
// internal error; 1.5 put the answer out of step).
test('C79/C146: a root\'s children.length is never trusted: −1, 1.5 and near 2^32 read the real children, and Go\'s memory stays put (hostile probe)', async () => {
  const core = await sharedCore();
  const x = setup({ n: 10 });
  const real = Object.getOwnPropertyDescriptor(globalThis.Element.prototype, 'children')
    ?? Object.getOwnPropertyDescriptor(Object.getPrototypeOf(Object.getPrototypeOf(Object.getPrototypeOf(x.root))), 'children');
  let len = null;
  Object.defineProperty(x.root, 'children', { configurable: true, get() {
    const kids = real.get.call(this);
    return len === null ? kids : new Proxy(kids, { get: (t, k) => (k === 'length' ? len : Reflect.get(t, k)) });
  } });
  await x.host.open();
  x.sched.flush();
  const mounted = x.host.snapshot().mounted;
  const mem = core.memory.buffer.byteLength;
  for (len of [-1, 1.5, 0x6000000 - 2 ** 32, 2 ** 32 - 1]) {
    await x.host.render();
    x.sched.flush();
    assert.equal(x.host.getFault(), null, `length ${len}`);
    assert.deepEqual(x.host.snapshot().mounted, mounted, `length ${len}`);
  }
  assert.ok(core.memory.buffer.byteLength - mem < 16 * 2 ** 20, `Go's memory grew ${core.memory.buffer.byteLength - mem} bytes`);
  len = null;
  alive();
});

test('C11, C12: managed and the page decision are checked before the target is looked at', () => {
  // This file installed managed: true.
  const e = thrown(() => installChatSurfaceApi(null, { managed: 'x' }));
  assert.ok(e instanceof TypeError);
  assert.equal(e.message, 'Chat virtualization setting must be a boolean');
  const trap = { get __TAURITAVERN__() { throw new Error('trap'); } };
  assert.equal(thrown(() => installChatSurfaceApi(trap, { managed: 'x' })).message, 'Chat virtualization setting must be a boolean');
  assert.equal(thrown(() => installChatSurfaceApi(null, { managed: false })).message, 'Chat virtualization changed during this page lifetime: true -> false');
  assert.equal(thrown(() => installChatSurfaceApi(trap, { managed: true })).message, 'trap', 'step 3 reads the target');
  assert.equal(installChatSurfaceApi(globalThis, { managed: true }), globalThis.__TAURITAVERN__.api.chatSurface, 'and the page is as it was');
});

test('C112a, C105: render and updateContent options that throw lose to the disposed and faulted checks, and win after them', async () => {
  const boom = new Error('option getter');
  const bad = { get first() { throw boom; }, get transient() { throw boom; } };
  const x = setup({ n: 10 });
  await x.host.open();
  x.sched.flush();
  assert.equal(thrown(() => x.host.render(bad)), boom, 'a live host throws the getter\'s value');
  assert.equal(thrown(() => x.host.updateContent(0, bad)), boom);
  assert.equal(x.host.getFault(), null, 'an option that throws does not fault');
  await x.host.render({});
  assert.equal(x.host.updateContent(9, { transient: false }), true, 'the next calls work');
  x.root.append(document.createElement('p')); // a foreign child: the next commit faults (C76)
  assert.match(thrown(() => x.host.render()).message, /unknown direct child/);
  assert.equal(thrown(() => x.host.render(bad)).message, 'ChatSurface epoch is faulted');
  assert.equal(thrown(() => x.host.updateContent(0, bad)).message, 'ChatSurface epoch is faulted');
  x.root.querySelector(':scope > p').remove();
  x.host.dispose();
  assert.equal(thrown(() => x.host.render(bad)).message, 'ChatSurface host is disposed');
  assert.equal(thrown(() => x.host.updateContent(0, bad)).message, 'ChatSurface host is disposed');
  alive();
});

test('C140: finishContent calls the emit given at creation, read once', async () => {
  const calls = [];
  const chat = messages(5);
  const options = {
    root: makeRoot(), getMessages: () => chat, materialize: materializer(), formatMessage, ...frames(),
    emit: (...a) => calls.push(['given', ...a]),
  };
  const host = createChatSurfaceHost(options);
  live.push({ host, root: options.root });
  await host.open();
  options.emit = 42;
  await host.finishContent(4, 'MESSAGE_RENDERED', 'x');
  options.emit = () => calls.push(['replaced']);
  await host.finishContent(4, 'MESSAGE_RENDERED', 'y');
  assert.deepEqual(calls, [['given', 'MESSAGE_RENDERED', 4, 'x'], ['given', 'MESSAGE_RENDERED', 4, 'y']]);
});

test('C72, C107: the root\'s inline overflow-anchor comes back with its priority', async () => {
  for (const [value, priority] of [['auto', 'important'], ['auto', ''], ['', '']]) {
    const x = setup({ n: 20 });
    if (value) x.root.style.setProperty('overflow-anchor', value, priority);
    const before = x.root.style.cssText;
    await x.host.open();
    assert.equal(x.root.style.getPropertyValue('overflow-anchor'), 'none');
    x.host.resetEpoch();
    assert.equal(x.root.style.cssText, before, `${value} ${priority}`);
    assert.equal(x.root.style.getPropertyPriority('overflow-anchor'), priority);
    x.done();
  }
});
