// Chat surface scenarios through the public JS API, static mode
// (spec/chatsurface.md §16 C–F): hook return values, claims, integrity,
// disposers and their order, reentrancy, eager activation, content updates
// and foreign removal. The registry is page-wide and freezes at the first
// projection, so three participants p, q, r are registered up front and each
// scenario sets what their hooks do.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { makeRoot, frames, formatMessage, materializer, messages, thrown } from './chat-surface-fixture.js';
import { installChatSurfaceApi, createChatSurfaceHost } from '../chat-surface.js';

const api = installChatSurfaceApi(globalThis, { managed: false });
const beh = {}; // participant id → { prepare, mount, content }
const regs = {};
for (const id of ['p', 'q', 'r']) {
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
function fresh(n = 1, texts) {
  if (host) { try { host.dispose(); } catch { /* a failing reset still disposes (C112) */ } root.remove(); }
  for (const k of Object.keys(beh)) delete beh[k];
  chat = texts ? texts.map((mes) => ({ mes })) : messages(n);
  root = makeRoot();
  faults = [];
  host = createChatSurfaceHost({
    root, getMessages: () => chat, materialize: materializer(), formatMessage, emit() {}, ...frames(),
    onFault: (f) => faults.push(f),
  });
}
const mesCount = () => root.querySelectorAll('.mes').length;
function assertFaulted(e) {
  assert.equal(host.getFault(), e instanceof Error ? e : host.getFault());
  assert.equal(host.snapshot().state, 'faulted');
  const again = thrown(() => host.render());
  assert.equal(again.message, 'ChatSurface epoch is faulted');
  assert.equal(again.cause, host.getFault());
}

test('S15/C38/C34: prepareContent returning a value or a Promise faults, no .mes', () => {
  fresh(1);
  beh.p = { prepare: () => 1 };
  let e = thrown(() => host.render());
  assert.ok(e instanceof TypeError);
  assert.equal(e.message, 'ChatSurface participant p.prepareContent must not return a value');
  assert.equal(mesCount(), 0);
  assertFaulted(e);
  host.resetEpoch();
  beh.p = { async prepare() {} };
  e = thrown(() => host.render());
  assert.ok(e instanceof TypeError);
  assert.equal(e.message, 'ChatSurface participant p.prepareContent must be synchronous');
  assertFaulted(e);
  assert.deepEqual(faults.length, 2);
});

test('S17/C37: claiming the content itself, a Text node or an outside element', () => {
  for (const pick of [(c) => c, (c) => c.firstChild.firstChild, () => document.createElement('pre')]) {
    fresh(1, ['<pre>x</pre>text']);
    beh.p = { prepare({ content }, claims) { claims.claim(pick(content), () => () => {}); } };
    const e = thrown(() => host.render());
    assert.equal(e.message, 'ChatSurface participant p must claim a descendant of message content');
    assert.equal(mesCount(), 0);
    assertFaulted(e);
  }
});

test('S18/C37: double claims and a non-function activate', () => {
  fresh(1, ['<pre>x</pre>']);
  beh.p = { prepare({ content }, claims) { const pre = content.querySelector('pre'); claims.claim(pre, () => () => {}); claims.claim(pre, () => () => {}); } };
  assert.equal(thrown(() => host.render()).message, 'ChatSurface runtime source was claimed by both p and p');
  fresh(1, ['<pre>x</pre>']);
  beh.p = { prepare({ content }, claims) { claims.claim(content.querySelector('pre'), () => () => {}); } };
  beh.q = { prepare({ content }, claims) { claims.claim(content.querySelector('pre'), () => () => {}); } };
  assert.equal(thrown(() => host.render()).message, 'ChatSurface runtime source was claimed by both p and q');
  fresh(1, ['<pre>x</pre>']);
  beh.p = { prepare({ content }, claims) { claims.claim(content.querySelector('pre'), 1); } };
  const e = thrown(() => host.render());
  assert.ok(e instanceof TypeError);
  assert.equal(e.message, 'ChatSurface participant p runtime activate must be a function');
});

test('S19/C40: detached content moved, or a claimed source removed, during preparation', () => {
  fresh(1);
  beh.p = { prepare({ content }) { document.body.append(content); } };
  let e = thrown(() => host.render());
  assert.equal(e.message, 'ChatSurface participant changed detached content ownership');
  assert.equal(root.querySelectorAll('.mes').length, 0);
  fresh(1, ['<pre>x</pre>']);
  beh.p = { prepare({ content }, claims) { const pre = content.querySelector('pre'); claims.claim(pre, () => () => {}); pre.remove(); } };
  e = thrown(() => host.render());
  assert.equal(e.message, 'ChatSurface runtime source changed during preparation: p');
  assertFaulted(e);
});

test('S20/C43: didMount returning null, 42 or a Promise', () => {
  for (const [v, msg] of [[null, 'must return a cleanup function, disposable object, or nothing'],
    [42, 'must return a cleanup function, disposable object, or nothing'],
    [Promise.resolve(), 'must return synchronously']]) {
    fresh(1);
    beh.p = { mount: () => v };
    const e = thrown(() => host.render());
    assert.ok(e instanceof TypeError);
    assert.equal(e.message, `ChatSurface participant p.didMount ${msg}`);
    assertFaulted(e);
  }
});

test('S21/C7: a disposable is disposed once, as a method of itself', () => {
  fresh(1);
  const calls = [];
  const d = { dispose() { calls.push(this); } };
  beh.p = { mount: () => d };
  host.render();
  host.resetEpoch();
  assert.deepEqual(calls, [d]);
  assert.equal(calls[0], d);
});

test('S22/C46/C108: an async disposer makes the reset throw; the other disposer still ran; DOM untouched', () => {
  fresh(1);
  const log = [];
  beh.p = { mount: () => async () => {} };
  beh.q = { mount: () => () => log.push('q') };
  host.render();
  const e = thrown(() => host.resetEpoch());
  assert.ok(e instanceof TypeError);
  assert.equal(e.message, 'ChatSurface cleanup must be synchronous');
  assert.deepEqual(log, ['q']);
  assert.equal(host.snapshot().state, 'faulted');
  assert.equal(mesCount(), 1, 'DOM untouched');
  assert.equal(thrown(() => host.resetEpoch()), e, 'a second reset rethrows the same failure');
});

test('S25/C43/C107: didMount throws E → render throws E, faults; reset recovers', () => {
  fresh(2);
  const E = new Error('mount failed');
  beh.p = { mount: () => { throw E; } };
  assert.equal(thrown(() => host.render()), E);
  assert.equal(host.getFault(), E);
  delete beh.p;
  host.resetEpoch();
  assert.equal(mesCount(), 0);
  assert.equal(host.getFault(), null);
  host.render();
  assert.equal(mesCount(), 2);
});

test('S26/C108: a failing didMount disposer: reset throws it twice, the .mes stays', () => {
  fresh(1);
  const E = new Error('cleanup failed');
  beh.p = { mount: () => () => { throw E; } };
  host.render();
  assert.equal(thrown(() => host.resetEpoch()), E);
  assert.equal(mesCount(), 1);
  assert.equal(host.snapshot().state, 'faulted');
  assert.equal(thrown(() => host.resetEpoch()), E);
  // C112: disposal completes and rethrows; a new host can then be created.
  assert.equal(thrown(() => host.dispose()), E);
  assert.equal(host.snapshot().state, 'disposed');
});

test('S27/C109: a disposer that renders reenters and faults', () => {
  fresh(2, ['zero', 'one']);
  beh.p = { mount: ({ mesid }) => () => { if (mesid === 0) host.render(); } };
  host.render();
  chat.shift();
  const e = thrown(() => host.render());
  assert.equal(e.message, 'ChatSurface mutation render reentered during render');
  assert.equal(host.getFault(), e);
});

test('S35/C100: a static range start; widening retains roots', () => {
  fresh(5);
  host.render({ first: 2 });
  assert.deepEqual(host.snapshot().ranges, [{ start: 2, end: 5 }]);
  const kept = [2, 3, 4].map((i) => host.getMessageElement(i));
  host.render({ first: 0 });
  assert.deepEqual(host.snapshot().mounted, [0, 1, 2, 3, 4]);
  assert.deepEqual([2, 3, 4].map((i) => host.getMessageElement(i)), kept);
  const e = thrown(() => host.render({ first: 6 }));
  assert.ok(e instanceof RangeError);
  assert.equal(e.message, 'ChatSurface static range start 6 is outside [0, 5]');
  assert.equal(host.getFault(), null, 'C100: no fault');
});

test('S36/C46: a lease runs its disposers LIFO, all of them, and rethrows the first failure', () => {
  fresh(1);
  const log = [];
  const X = new Error('X');
  let seen;
  beh.p = { mount: () => () => log.push('a') };
  beh.q = { mount: () => () => { log.push('b'); throw X; } };
  beh.r = { mount: ({ signal }) => () => { seen = signal.reason; log.push('c'); return Promise.resolve(); } };
  host.render();
  const e = thrown(() => host.resetEpoch());
  assert.deepEqual(log, ['c', 'b', 'a']);
  assert.equal(seen, 'epoch-reset');
  assert.ok(e instanceof TypeError);
  assert.equal(e.message, 'ChatSurface cleanup must be synchronous');
  assert.equal(thrown(() => host.resetEpoch()), e, 'a second close throws the same object');
});

test('S37/S38/C55/C57/C66: updateContent revokes and regrants; transient content runs nothing', () => {
  fresh(1, ['<pre>x</pre>']);
  const log = [];
  const signals = [];
  beh.p = {
    prepare({ content }, claims) {
      log.push('prepare');
      const pre = content.querySelector('pre');
      if (pre) claims.claim(pre, ({ signal }) => { signals.push(signal); log.push('activate'); return () => log.push(`revoke:${signal.reason}`); });
    },
    mount: ({ signal }) => { signals.mount = signal; },
    content: ({ signal }) => { log.push('content'); return () => log.push(`content-dispose:${signal.reason}`); },
  };
  host.render();
  const text = host.getMessageElement(0).querySelector('.mes_text');
  assert.deepEqual(log, ['prepare', 'content', 'activate']);
  log.length = 0;
  host.updateContent(0);
  // C51: prepareContent on the staging element, then the old lease closes.
  assert.deepEqual(log, ['prepare', 'revoke:content-released', 'content-dispose:content-update', 'content', 'activate']);
  assert.equal(signals.length, 2);
  assert.ok(signals[0].aborted && !signals[1].aborted, 'a fresh signal per grant (C68)');
  assert.equal(signals.mount.aborted, false);
  assert.equal(host.getMessageElement(0).querySelector('.mes_text'), text);
  log.length = 0;
  chat[0].mes = 'streaming';
  assert.equal(host.updateContent(0, { transient: true }), true);
  assert.deepEqual(log, ['revoke:content-released', 'content-dispose:content-update']);
  assert.equal(text.textContent, 'streaming');
  assert.equal(host.snapshot().runtime.active, 0);
  log.length = 0;
  chat[0].mes = 'done <pre>y</pre>';
  host.updateContent(0);
  assert.deepEqual(log, ['prepare', 'content', 'activate']);
});

test('S40/C54: prepareContent throws during updateContent: the old content stays live, the epoch faults', () => {
  fresh(1);
  host.render();
  const text = host.getMessageElement(0).querySelector('.mes_text');
  const old = text.firstChild;
  const E = new Error('prep');
  beh.p = { prepare() { throw E; } };
  chat[0].mes = 'new';
  assert.equal(thrown(() => host.updateContent(0)), E);
  assert.equal(text.firstChild, old);
  assert.equal(text.textContent, 'm0');
  assertFaulted(E);
});

test('S41/C67: eager activation results', () => {
  const cases = [
    [() => undefined, Error, 'ChatSurface runtime p must return a disposable'],
    [() => { throw 'nope'; }, Error, 'ChatSurface runtime activation failed: p'],
    [() => Promise.resolve(), TypeError, 'ChatSurface runtime p must return synchronously'],
    [() => null, TypeError, 'ChatSurface runtime p must return a cleanup function, disposable object, or nothing'],
  ];
  for (const [activate, Ctor, msg] of cases) {
    fresh(1, ['<pre>x</pre>']);
    beh.p = { prepare({ content }, claims) { claims.claim(content.querySelector('pre'), activate); } };
    const e = thrown(() => host.render());
    assert.equal(e.constructor, Ctor);
    assert.equal(e.message, msg);
    if (msg.includes('activation failed')) assert.equal(e.cause, 'nope');
    assertFaulted(e);
    assert.equal(host.snapshot().runtime.active, 0);
  }
});

test('S48/C67: another participant\'s didMount removes the source → the eager grant fails', () => {
  fresh(1, ['<pre>x</pre>']);
  let called = false;
  beh.p = { prepare({ content }, claims) { claims.claim(content.querySelector('pre'), () => { called = true; return () => {}; }); } };
  beh.q = { mount({ element }) { element.querySelector('pre').remove(); } };
  const e = thrown(() => host.render());
  assert.equal(e.message, 'ChatSurface runtime source is not live: p');
  assert.equal(called, false);
  assertFaulted(e);
});

test('S66/C101: static foreign removal is absorbed with legacy-external-removal', async () => {
  fresh(3);
  const log = [];
  beh.p = { mount: ({ mesid, signal }) => () => log.push(`${mesid}:${signal.reason}`) };
  host.render();
  host.getMessageElement(1).remove();
  await new Promise((r) => setTimeout(r, 0)); // the MutationObserver callback
  host.render({ first: 2 }); // or the next operation (C112a step 4)
  assert.ok(log.includes('1:legacy-external-removal'), log.join());
  assert.equal(host.getFault(), null);
  assert.deepEqual(host.snapshot().mounted, [2]);
});

test('S28/C39: didMount calling registration.fault stops the render (last: the fault is page-wide)', () => {
  fresh(1);
  const x = new Error('x');
  beh.p = { mount() { regs.p.fault(x); } };
  const e = thrown(() => host.render());
  assert.equal(e.message, 'ChatSurface epoch is faulted');
  assert.equal(e.cause.message, 'ChatSurface participant p is faulted');
  assert.equal(e.cause.cause, x);
});
