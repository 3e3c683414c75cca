// Rules C1–C50 of spec/chatsurface.md that no scenario test pins down:
// install details, registration read order, the freeze point, materializer
// checks, the commit's phase order and failure states, claims and contexts,
// C40's branches, C45 at a projection commit, disposer order across
// residencies. Static mode (`managed: false`); the registry is page-wide and
// freezes at the first projection, so every participant registers up front
// and each test sets what the hooks do (`beh`).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { makeRoot, frames, formatMessage, materializer, messages, thrown } from './chat-surface-fixture.js';
import { installChatSurfaceApi, createChatSurfaceHost } from '../chat-surface.js';

let api;

test('C11/C12: a failed install writes and records nothing; null ABI objects are created; a cleared chatSurface is set again', () => {
  // Step 3 fails for a function __TAURITAVERN__ (functions are not objects),
  // with managed: true. Nothing is recorded, so managed: false installs next.
  let e = thrown(() => installChatSurfaceApi({ __TAURITAVERN__: () => {} }, { managed: true }));
  assert.ok(e instanceof TypeError);
  assert.equal(e.message, 'Host ABI __TAURITAVERN__ must be an object');
  // A non-object second argument counts as managed undefined.
  e = thrown(() => installChatSurfaceApi({}, 5));
  assert.ok(e instanceof TypeError);
  assert.equal(e.message, 'Chat virtualization setting must be a boolean');
  const t = { __TAURITAVERN__: null };
  api = installChatSurfaceApi(t, { managed: false });
  assert.equal(Object.getPrototypeOf(t.__TAURITAVERN__), Object.prototype);
  assert.equal(t.__TAURITAVERN__.api.chatSurface, api);
  const u = { __TAURITAVERN__: { api: null, k: 1 } };
  assert.equal(installChatSurfaceApi(u, { managed: false }), api);
  assert.equal(u.__TAURITAVERN__.k, 1);
  assert.equal(u.__TAURITAVERN__.api.chatSurface, api);
  // A mismatch at step 2 writes nothing, on a bare target or an existing ABI.
  const bare = {};
  e = thrown(() => installChatSurfaceApi(bare, { managed: true }));
  assert.equal(e.message, 'Chat virtualization changed during this page lifetime: false -> true');
  assert.deepEqual(Object.keys(bare), []);
  const abi = { __TAURITAVERN__: { api: {} } };
  thrown(() => installChatSurfaceApi(abi, { managed: true }));
  assert.deepEqual(Object.keys(abi.__TAURITAVERN__.api), []);
  // Steps 3–5 run again for the same value: a cleared chatSurface is set again.
  delete t.__TAURITAVERN__.api.chatSurface;
  assert.equal(installChatSurfaceApi(t, { managed: false }), api);
  assert.equal(t.__TAURITAVERN__.api.chatSurface, api);
});

// ---- participants (all registered before the first projection) ----
const beh = {}; // participant id → { prepare, mount, content }
const regs = {};
const thisSeen = []; // `this` of every registered hook call (C7)
for (const id of ['p', 'q']) {
  regs[id] = {
    id,
    protocolVersion: 1,
    prepareContent(ctx, claims) { thisSeen.push(this); return beh[id]?.prepare?.(ctx, claims); },
    didMount(ctx) { thisSeen.push(this); return beh[id]?.mount?.(ctx); },
    didCommitContent(ctx) { thisSeen.push(this); return beh[id]?.content?.(ctx); },
  };
}
const c19 = []; // what the C18/C19 participants' hooks saw

test('C18: id, protocolVersion and the three hooks are each read once, in that order', () => {
  for (const id of ['p', 'q']) api.registerParticipant(regs[id]);
  const reads = [];
  const target = { id: 'reads', protocolVersion: 1, didMount() {} };
  const proxy = new Proxy(target, { get(t, k, r) { if (typeof k === 'string') reads.push(k); return Reflect.get(t, k, r); } });
  api.registerParticipant(proxy);
  assert.deepEqual(reads, ['id', 'protocolVersion', 'prepareContent', 'didMount', 'didCommitContent']);
});

test('C18: validation order across steps 3–7', () => {
  const cases = [
    // step 3 before step 4
    [{ id: '', protocolVersion: 2, didMount() {} }, Error, 'ChatSurface participant id is required'],
    // step 4 before step 5
    [{ id: 'x', protocolVersion: 2, didMount: 5 }, Error, 'Unsupported ChatSurface participant protocol: 2'],
    // strictly the number 1: a Number object is not
    [{ id: 'x', protocolVersion: Object(1), didMount() {} }, Error, 'Unsupported ChatSurface participant protocol: 1'],
    // step 5 checks prepareContent first
    [{ id: 'x', protocolVersion: 1, prepareContent: 5, didMount: null }, TypeError, 'ChatSurface participant x.prepareContent must be a function'],
    [{ id: 'x', protocolVersion: 1, didCommitContent: 'f' }, TypeError, 'ChatSurface participant x.didCommitContent must be a function'],
    // steps 5 and 6 before the duplicate check (step 7); the id is trimmed in messages
    [{ id: ' p ', protocolVersion: 1 }, Error, 'ChatSurface participant p must implement at least one hook'],
    [{ id: 'p', protocolVersion: 1, didMount: 1 }, TypeError, 'ChatSurface participant p.didMount must be a function'],
  ];
  for (const [def, Ctor, msg] of cases) {
    const e = thrown(() => api.registerParticipant(def));
    assert.equal(e.constructor, Ctor, msg);
    assert.equal(e.message, msg);
  }
});

test('C18: only own enumerable string keys are checked; ids go through String()', () => {
  // inherited, symbol and non-enumerable keys are not fields
  const proto = { foo: 1 };
  const d = Object.assign(Object.create(proto), { id: 'own-only', protocolVersion: 1, didMount() {} });
  d[Symbol('s')] = 1;
  Object.defineProperty(d, 'bar', { value: 1, enumerable: false });
  api.registerParticipant(d);
  // String(id) of a truthy object, trimmed
  api.registerParticipant({ id: { toString: () => '  obj  ' }, protocolVersion: 1, didMount() {} });
  assert.equal(thrown(() => api.registerParticipant({ id: 'obj', protocolVersion: 1, didMount() {} })).message,
    'ChatSurface participant already registered: obj');
});

test('C13: registerContentProcessor works detached (an invalid definition gets its own error)', () => {
  const { registerContentProcessor } = api;
  const e = thrown(() => registerContentProcessor({ id: 5, prepare() {} }));
  assert.ok(e instanceof TypeError);
  assert.equal(e.message, 'ChatSurface content processor requires an id and prepare function');
});

test('C19 set-up: prototype hooks register; a getter is read once; later changes have no effect', () => {
  class Cls {
    constructor() { this.id = 'cls'; this.protocolVersion = 1; }
    didMount(ctx) { c19.push(['cls.mount', this, ctx.mesid]); }
  }
  const inst = new Cls();
  api.registerParticipant(inst);
  Cls.prototype.didMount = () => { c19.push(['cls.changed']); };
  inst.didCommitContent = () => { c19.push(['cls.added']); };
  let n = 0;
  const g = {
    id: 'getter',
    protocolVersion: 1,
    get didMount() {
      n++;
      return n === 1 ? function first() { c19.push(['getter.first', this]); } : () => { c19.push(['getter.later']); };
    },
  };
  api.registerParticipant(g);
  assert.equal(n, 1);
});

// ---- the host ----
let chat = [];
let root;
let host;
let faults;
const calls = { mat: [], fmt: [] };
let matOverride = null;
const baseMat = materializer();
function fresh(texts = 1) {
  if (host) { try { host.dispose(); } catch { /* a failing reset still disposes (C112) */ } root.remove(); }
  for (const k of Object.keys(beh)) delete beh[k];
  matOverride = null;
  calls.mat.length = 0;
  calls.fmt.length = 0;
  chat = typeof texts === 'number' ? messages(texts) : texts.map((mes) => ({ mes }));
  root = makeRoot();
  faults = [];
  host = createChatSurfaceHost({
    root,
    getMessages: () => chat,
    materialize: (m, i) => { calls.mat.push([m, i]); return matOverride ? matOverride(m, i) : baseMat(m, i); },
    formatMessage: (m, i) => { calls.fmt.push([m, i]); return formatMessage(m, i); },
    emit() {},
    ...frames(),
    onFault: (f) => faults.push(f),
  });
}
const mesRoots = () => [...root.querySelectorAll(':scope > .mes')];
function assertFaulted(e) {
  assert.equal(host.getFault(), e);
  assert.equal(host.snapshot().state, 'faulted');
  const again = thrown(() => host.render());
  assert.equal(again.message, 'ChatSurface epoch is faulted');
  assert.equal(again.cause, host.getFault());
}

test('C24/C25/C30: the registry freezes when a non-empty commit begins, not at an empty one or a failed structural pass', () => {
  fresh([]);
  host.render();
  api.registerParticipant({ id: 'after-empty', protocolVersion: 1, didMount() {} });
  // A structural pass that fails comes before any commit: still open.
  const m = { mes: 'dup' };
  chat = [m, m];
  thrown(() => host.render());
  host.resetEpoch();
  api.registerParticipant({ id: 'after-failed-pass', protocolVersion: 1, didMount() {} });
  // A non-empty commit that fails at materialisation (phase 4) has frozen it (phase 3).
  chat = messages(1);
  matOverride = () => document.createElement('div');
  const e = thrown(() => host.render());
  assert.equal(e.message, 'ChatSurface materializer must return a .mes HTMLElement');
  assert.equal(thrown(() => api.registerParticipant({ id: 'late', protocolVersion: 1, didMount() {} })).message,
    'ChatSurface participants must register before the first projection');
  // Permanent across epochs.
  host.resetEpoch();
  assert.equal(thrown(() => api.registerParticipant({ id: 'late', protocolVersion: 1, didMount() {} })).message,
    'ChatSurface participants must register before the first projection');
});

test('C19/C7: stored hooks are the ones read at registration, called with this undefined', () => {
  fresh(1);
  c19.length = 0;
  host.render();
  assert.deepEqual(c19, [['cls.mount', undefined, 0], ['getter.first', undefined]]);
});

test('C13/C16: detached, registerContentProcessor reports the closed registration once content preparation started', () => {
  const { registerContentProcessor } = api;
  assert.equal(thrown(() => registerContentProcessor({ id: 'late', prepare() {} })).message,
    'ChatSurface content processors must register before the first projection');
});

test('C30: materializer results are checked in order (.mes, parentless, .mes_text); each faults with the DOM untouched', () => {
  const mk = (cls, inner = '<div class="mes_text"></div>') => {
    const el = document.createElement('div');
    el.className = cls;
    el.innerHTML = inner;
    return el;
  };
  const parented = (el) => { document.createElement('section').append(el); return el; };
  const cases = [
    [() => 'not an element', 'ChatSurface materializer must return a .mes HTMLElement'],
    [() => parented(mk('other')), 'ChatSurface materializer must return a .mes HTMLElement'],
    [() => parented(mk('mes', '')), 'ChatSurface materializer must return a parentless .mes element'],
    [() => mk('mes', '<div class="text"></div>'), 'ChatSurface message is missing .mes_text'],
  ];
  for (const [make, msg] of cases) {
    fresh(2);
    host.render();
    const before = mesRoots();
    chat.push({ mes: 'new' });
    matOverride = make;
    const e = thrown(() => host.render());
    assert.equal(e.constructor, Error);
    assert.equal(e.message, msg);
    assertFaulted(e);
    assert.deepEqual(mesRoots(), before);
  }
});

test('C30/C4: new roots are materialised in ascending mesid, with the live objects of chat[]', () => {
  fresh(4);
  host.render({ first: 1 });
  assert.deepEqual(calls.mat.map(([, i]) => i), [1, 2, 3]);
  for (const [m, i] of [...calls.mat, ...calls.fmt]) assert.equal(m, chat[i]);
});

test('C25: a duplicate object or a non-object entry faults and leaves the DOM unchanged', () => {
  fresh(2);
  host.render();
  const before = mesRoots();
  const [a, b] = chat;
  chat = [a, b, a];
  let e = thrown(() => host.render());
  assert.equal(e.message, 'ChatSurface messages must not contain the same object more than once');
  assertFaulted(e);
  assert.deepEqual(mesRoots(), before);
  host.resetEpoch();
  chat = [a, b];
  host.render();
  const again = mesRoots();
  chat = [a, 7];
  e = thrown(() => host.render());
  assert.ok(e instanceof TypeError);
  assert.equal(e.message, 'ChatSurface message at index 1 must be an object');
  assertFaulted(e);
  assert.deepEqual(mesRoots(), again);
});

test('C26/C28: an edit keeps the key and the root; a new object at the same mesid, or an insertion before, is a cold remount', () => {
  fresh(['a', 'b']);
  const log = [];
  beh.p = { mount: ({ mesid, signal }) => { log.push(`mount:${mesid}`); return () => log.push(`unmount:${mesid}:${signal.reason}`); } };
  host.render();
  const [r0, r1] = mesRoots();
  chat[0].mes = 'edited';
  host.render();
  assert.deepEqual(mesRoots(), [r0, r1]);
  log.length = 0;
  chat.push({ mes: 'c' });
  host.render();
  assert.deepEqual(mesRoots().slice(0, 2), [r0, r1], 'appending keeps the earlier roots');
  assert.deepEqual(log, ['mount:2']);
  log.length = 0;
  chat[1] = { mes: 'B' };
  host.render();
  const now = mesRoots();
  assert.equal(now[0], r0);
  assert.notEqual(now[1], r1);
  assert.equal(now[1].getAttribute('mesid'), '1');
  assert.deepEqual(log, ['unmount:1:projection-unmount', 'mount:1']);
  chat.unshift({ mes: 'z' });
  host.render();
  assert.ok(!mesRoots().includes(r0), 'a mesid shift remounts');
});

// The DOM changes fn makes under the root, as type:attribute.
function recordsOf(fn) {
  const mo = new MutationObserver(() => {});
  mo.observe(root, { childList: true, attributes: true, characterData: true, subtree: true });
  fn();
  const recs = mo.takeRecords();
  mo.disconnect();
  return recs.map((r) => `${r.type}:${r.attributeName}`);
}

test('C29: the fast path changes nothing in the DOM, calls no materialize and no hook', () => {
  fresh(3);
  const log = [];
  beh.p = { prepare: () => { log.push('prepare'); }, mount: () => { log.push('mount'); }, content: () => { log.push('content'); } };
  host.render({ first: 1 });
  const before = mesRoots();
  log.length = 0;
  calls.mat.length = 0;
  assert.deepEqual(recordsOf(() => host.render()), []);
  assert.deepEqual(mesRoots(), before);
  assert.deepEqual(log, []);
  assert.equal(calls.mat.length, 0);
});

test('C29, C31: a commit puts back what foreign code changed of last_mes and #n, and writes nothing already right', () => {
  fresh(3);
  host.render();
  const [r0, r1, r2] = mesRoots();
  r2.classList.remove('last_mes');
  r0.classList.add('last_mes');
  r1.querySelector('.mesIDDisplay').textContent = '#9';
  calls.mat.length = 0;
  host.render(); // the fast path (C29)
  assert.equal(calls.mat.length, 0);
  assert.deepEqual(mesRoots().map((r) => r.classList.contains('last_mes')), [false, false, true]);
  assert.equal(r1.querySelector('.mesIDDisplay').textContent, '#1');
  assert.deepEqual(recordsOf(() => host.render()), []);
});

test('C31: one batch — removals before insertions; retained roots are not moved; non-.mes children stay; last_mes moves', () => {
  fresh(5);
  const foreign = document.createElement('aside');
  root.append(foreign);
  host.render({ first: 2 });
  const kept = mesRoots();
  const mo = new MutationObserver(() => {});
  mo.observe(root, { childList: true });
  host.render({ first: 0 });
  let recs = mo.takeRecords();
  assert.ok(recs.length > 0);
  assert.equal(recs.filter((r) => r.removedNodes.length > 0).length, 0, 'no retained root was moved');
  assert.deepEqual(mesRoots().slice(2), kept);
  assert.equal(foreign.parentNode, root);
  // A shift: every root leaves and new ones come; all removals come first.
  chat.shift();
  host.render();
  recs = mo.takeRecords();
  mo.disconnect();
  const kinds = recs.flatMap((r) => [...r.removedNodes].map(() => 'remove').concat([...r.addedNodes].map(() => 'add')));
  assert.ok(kinds.includes('remove') && kinds.includes('add'));
  assert.ok(kinds.lastIndexOf('remove') < kinds.indexOf('add'), kinds.join());
  assert.equal(foreign.parentNode, root);
  // last_mes: only the root with mesid count − 1
  const tail = mesRoots().at(-1);
  chat.push({ mes: 'tail' });
  host.render();
  assert.equal(tail.classList.contains('last_mes'), false);
  assert.deepEqual(mesRoots().filter((r) => r.classList.contains('last_mes')).map((r) => r.getAttribute('mesid')), [String(chat.length - 1)]);
});

test('C33/C48: phase order — prepare, old leases close (ascending, content then mount) with the DOM unchanged, then the DOM batch, then didMount, didCommitContent, grants', () => {
  fresh(['zero', 'one']);
  const log = [];
  const dom = () => `${mesRoots().length}`;
  beh.p = {
    prepare: ({ mesid, content }, claims) => {
      log.push(`prepare:${mesid}:dom=${dom()}`);
      const pre = content.querySelector('pre');
      if (pre) claims.claim(pre, () => { log.push(`activate:${mesid}`); return () => {}; });
    },
    mount: ({ mesid, element }) => {
      log.push(`mount:${mesid}:connected=${element.isConnected}:dom=${dom()}`);
      return () => log.push(`mount-close:${mesid}:dom=${dom()}`);
    },
    content: ({ mesid }) => { log.push(`content:${mesid}`); return () => log.push(`content-close:${mesid}:dom=${dom()}`); },
  };
  host.render();
  log.length = 0;
  chat.shift();
  chat[0].mes = 'one<pre>x</pre>';
  host.render();
  assert.deepEqual(log, [
    'prepare:0:dom=2',
    'content-close:0:dom=2', 'mount-close:0:dom=2', 'content-close:1:dom=2', 'mount-close:1:dom=2',
    'mount:0:connected=true:dom=1',
    'content:0',
    'activate:0',
  ]);
});

test('C33 step 11: candidates register (and eager grants run) by participant, then mesid, then claim order', () => {
  fresh(['<pre data-k="a">a</pre><pre data-k="b">b</pre><pre data-k="c">c</pre>', '<pre data-k="a">a</pre><pre data-k="b">b</pre><pre data-k="c">c</pre>']);
  const log = [];
  const act = (pid) => ({ source, mesid }) => { log.push(`${pid}:${mesid}${source.dataset.k}`); return () => log.push(`revoke ${pid}:${mesid}${source.dataset.k}`); };
  beh.p = { prepare: ({ content }, claims) => { claims.claim(content.querySelector('[data-k=b]'), act('p')); claims.claim(content.querySelector('[data-k=a]'), act('p')); } };
  beh.q = { prepare: ({ content }, claims) => { claims.claim(content.querySelector('[data-k=c]'), act('q')); } };
  host.render();
  assert.deepEqual(log, ['p:0b', 'p:0a', 'p:1b', 'p:1a', 'q:0c', 'q:1c']);
  assert.deepEqual(host.snapshot().runtime.candidates.map((c) => `${c.participantId}:${c.mesid}`), ['p:0', 'p:0', 'p:1', 'p:1', 'q:0', 'q:1']);
  // C47/C48: a reset closes residencies in descending mesid; each content lease
  // revokes its runtimes in reverse candidate order.
  log.length = 0;
  host.resetEpoch();
  assert.deepEqual(log, ['revoke q:1c', 'revoke p:1a', 'revoke p:1b', 'revoke q:0c', 'revoke p:0a', 'revoke p:0b']);
});

test('C47/C48: leaving the projection closes residencies in ascending mesid: runtimes, content disposers (reverse participant order), mount disposers', () => {
  fresh(['<pre>x</pre>', '<pre>y</pre>', 'z']);
  const log = [];
  for (const pid of ['p', 'q']) {
    beh[pid] = {
      prepare: pid === 'p' ? ({ content }, claims) => { const pre = content.querySelector('pre'); if (pre) claims.claim(pre, ({ mesid }) => () => log.push(`runtime:${mesid}`)); } : undefined,
      mount: ({ mesid, signal }) => () => log.push(`${pid}.mount:${mesid}:${signal.reason}`),
      content: ({ mesid, signal }) => () => log.push(`${pid}.content:${mesid}:${signal.reason}`),
    };
  }
  host.render();
  chat = [];
  host.render();
  const r = 'projection-unmount';
  assert.deepEqual(log, [
    'runtime:0', `q.content:0:${r}`, `p.content:0:${r}`, `q.mount:0:${r}`, `p.mount:0:${r}`,
    'runtime:1', `q.content:1:${r}`, `p.content:1:${r}`, `q.mount:1:${r}`, `p.mount:1:${r}`,
    `q.content:2:${r}`, `p.content:2:${r}`, `q.mount:2:${r}`, `p.mount:2:${r}`,
  ]);
});

test('C48/C50: every lease of every residency is attempted; the first failure (descending on reset) is rethrown and faults', () => {
  fresh(3);
  const log = [];
  const E1 = new Error('content 1');
  const E0 = new Error('mount 0');
  beh.p = {
    mount: ({ mesid }) => () => { log.push(`mount:${mesid}`); if (mesid === 0) throw E0; },
    content: ({ mesid }) => () => { log.push(`content:${mesid}`); if (mesid === 1) throw E1; },
  };
  host.render();
  const e = thrown(() => host.resetEpoch());
  assert.equal(e, E1);
  assert.deepEqual(log, ['content:2', 'mount:2', 'content:1', 'mount:1', 'content:0', 'mount:0']);
  assert.equal(host.getFault(), E1);
});

test('C50: a content disposer that throws during updateContent faults the epoch', () => {
  fresh(1);
  const E = new Error('content cleanup');
  beh.p = { content: () => () => { throw E; } };
  host.render();
  assert.equal(thrown(() => host.updateContent(0)), E);
  assertFaulted(E);
});

test('C34: a failure in phase 7 (an unmount disposer) discards the new roots and leaves the DOM untouched', () => {
  fresh(['zero', 'one']);
  const E = new Error('unmount failed');
  const mounted = [];
  beh.p = { mount: ({ mesid }) => { mounted.push(mesid); return () => { if (mesid === 0) throw E; }; } };
  host.render();
  const before = mesRoots();
  mounted.length = 0;
  chat.shift();
  assert.equal(thrown(() => host.render()), E);
  assert.deepEqual(mesRoots(), before, 'no new root inserted, no old root removed');
  assert.deepEqual(mounted, [], 'no didMount for discarded roots');
  assertFaulted(E);
});

test('C34: a failure in phase 6 closes nothing of the roots that were leaving and leaves the DOM untouched', () => {
  fresh(['zero', 'one']);
  const log = [];
  const E = new Error('prepare failed');
  let fail = false;
  beh.p = {
    prepare: () => { if (fail) throw E; },
    mount: ({ mesid }) => () => log.push(`unmount:${mesid}`),
  };
  host.render();
  const before = mesRoots();
  fail = true;
  chat.shift();
  assert.equal(thrown(() => host.render()), E);
  assert.deepEqual(log, [], 'phase 7 did not run');
  assert.deepEqual(mesRoots(), before);
  assertFaulted(E);
});

test('C35/C36: prepareContent gets a frozen { mesid, content } of a detached root and a frozen claims object of its own per call', () => {
  fresh(['<pre>a</pre>', '<pre>b</pre>']);
  const seen = [];
  let stale = null;
  let staleErr;
  thisSeen.length = 0;
  beh.p = {
    prepare(ctx, claims) {
      seen.push({ ctx, claims });
      assert.ok(Object.isFrozen(ctx) && Object.isFrozen(claims));
      assert.deepEqual(Object.keys(ctx).sort(), ['content', 'mesid']);
      assert.deepEqual(Object.keys(claims), ['claim']);
      assert.ok(ctx.content.matches('.mes_text'));
      assert.equal(ctx.content.isConnected, false);
      assert.equal(ctx.content.closest('.mes').parentNode, null);
      // C36: the claims object of message 0's call is dead during message 1's.
      if (stale) staleErr = thrown(() => stale.claim(ctx.content.querySelector('pre'), () => () => {}));
      else stale = claims;
    },
  };
  let crossErr;
  beh.q = { prepare(ctx) { if (ctx.mesid === 0) crossErr = thrown(() => stale.claim(ctx.content.querySelector('pre'), () => () => {})); } };
  host.render();
  assert.equal(seen.length, 2);
  assert.ok(thisSeen.length > 0 && thisSeen.every((x) => x === undefined), 'C7: hooks get this undefined');
  assert.notEqual(seen[0].claims, seen[1].claims);
  assert.equal(staleErr.message, 'ChatSurface participant p claimed a runtime after prepareContent returned');
  assert.equal(crossErr.message, 'ChatSurface participant p claimed a runtime after prepareContent returned');
  assert.equal(host.getFault(), null);
  assert.deepEqual(host.snapshot().runtime.candidates, []);
});

test('C37: claim checks run in order (source, then activate, then duplicates); another message\'s source is not a descendant', () => {
  const probe = (prepare) => {
    fresh(['<pre>a</pre>', '<pre>b</pre>']);
    let err;
    beh.p = { prepare(ctx, claims) { if (err === undefined) { try { prepare(ctx, claims); } catch (e) { err = e; } } } };
    host.render();
    return err;
  };
  let e = probe((ctx, claims) => claims.claim(document.createElement('pre'), 1));
  assert.equal(e.constructor, Error);
  assert.equal(e.message, 'ChatSurface participant p must claim a descendant of message content');
  e = probe(({ content }, claims) => { const pre = content.querySelector('pre'); claims.claim(pre, () => () => {}); claims.claim(pre, 1); });
  assert.ok(e instanceof TypeError);
  assert.equal(e.message, 'ChatSurface participant p runtime activate must be a function');
  let other;
  e = probe(({ content, mesid }, claims) => {
    if (mesid === 0) { other = content.querySelector('pre'); return; }
    claims.claim(other, () => () => {});
  });
  assert.equal(e?.message, 'ChatSurface participant p must claim a descendant of message content');
});

test('C38/C5: a thenable (object or function) is "must be synchronous"; a function or null is "must not return a value"', () => {
  const thenFn = Object.assign(() => {}, { then() {} });
  for (const [v, Ctor, msg] of [
    [{ then() {} }, TypeError, 'ChatSurface participant p.prepareContent must be synchronous'],
    [thenFn, TypeError, 'ChatSurface participant p.prepareContent must be synchronous'],
    [() => {}, TypeError, 'ChatSurface participant p.prepareContent must not return a value'],
    [null, TypeError, 'ChatSurface participant p.prepareContent must not return a value'],
  ]) {
    fresh(1);
    beh.p = { prepare: () => v };
    const e = thrown(() => host.render());
    assert.equal(e.constructor, Ctor);
    assert.equal(e.message, msg);
    assertFaulted(e);
    assert.equal(mesRoots().length, 0);
  }
});

test('C39: a hook or activate during which the epoch faulted stops the operation with "epoch is faulted"', () => {
  const inside = {
    prepareContent: (f) => ({ p: { prepare: f } }),
    didCommitContent: (f) => ({ p: { content: f } }),
    activate: (f) => ({ p: { prepare: ({ content }, claims) => claims.claim(content.querySelector('pre'), () => { f(); return () => {}; }) } }),
  };
  for (const [where, make] of Object.entries(inside)) {
    fresh(['<pre>a</pre>', '<pre>b</pre>']);
    let inner;
    const later = [];
    Object.assign(beh, make(() => { if (!inner) inner = thrown(() => host.render()); }));
    beh.q = { prepare: ({ mesid }) => { later.push(`q.prepare:${mesid}`); }, content: ({ mesid }) => { later.push(`q.content:${mesid}`); } };
    const e = thrown(() => host.render());
    assert.equal(inner.message, 'ChatSurface mutation render reentered during render', where);
    assert.equal(e.message, 'ChatSurface epoch is faulted', where);
    assert.equal(e.cause, inner, where);
    assert.equal(host.getFault(), inner, where);
    // the operation stopped right after the call
    if (where === 'prepareContent') assert.deepEqual(later, [], where);
    if (where === 'didCommitContent') assert.deepEqual(later, ['q.prepare:0', 'q.prepare:1'], where);
    if (where === 'activate') assert.deepEqual(later, ['q.prepare:0', 'q.prepare:1', 'q.content:0', 'q.content:1'], where);
  }
});

test('C40: every integrity branch after preparation, checked only after all prepareContent calls', () => {
  const ownership = 'ChatSurface participant changed detached content ownership';
  const source = 'ChatSurface runtime source changed during preparation: p';
  const cases = [
    ['content no longer .mes_text', ({ content }) => { content.className = 'text'; }, ownership],
    ['content wrapped (another parent)', ({ content }) => { const w = document.createElement('div'); content.before(w); w.append(content); }, ownership],
    ['another .mes_text first', ({ content }) => { const x = document.createElement('div'); x.className = 'mes_text'; content.before(x); }, ownership],
    ['root given a parent', ({ content }) => { document.createElement('section').append(content.closest('.mes')); }, ownership],
    ['root connected', ({ content }) => { root.ownerDocument.body.append(content.closest('.mes')); }, ownership],
    ['source moved out of the content', ({ content }, claims) => { const pre = content.querySelector('pre'); claims.claim(pre, () => () => {}); content.after(pre); }, source],
    ['source connected', ({ content }, claims) => { const pre = content.querySelector('pre'); claims.claim(pre, () => () => {}); document.body.append(pre); }, source],
    ['source moved within the content', ({ content }, claims) => { const pre = content.querySelector('pre'); claims.claim(pre, () => () => {}); const d = document.createElement('div'); content.prepend(d); d.append(pre); }, null],
  ];
  for (const [name, tamper, msg] of cases) {
    fresh(['<pre>a</pre>']);
    const log = [];
    beh.p = { prepare: tamper };
    beh.q = { prepare: () => { log.push('q.prepare'); } };
    let e = null;
    try { host.render(); } catch (err) { e = err; }
    assert.deepEqual(log, ['q.prepare'], name);
    if (msg === null) {
      assert.equal(e, null, name);
      assert.equal(host.snapshot().runtime.active, 1, name);
      continue;
    }
    assert.equal(e?.message, msg, name);
    assert.equal(host.getFault(), e, name);
    assert.equal(mesRoots().length, 0, name);
  }
});

test('C41/C42/C7/C8: didMount, didCommitContent and activate contexts: frozen, live nodes, the source itself, their own AbortSignals, this undefined', () => {
  fresh(['<pre>a</pre>']);
  const got = {};
  let claimed;
  let disposerThis = 'unset';
  beh.p = {
    prepare: ({ content }, claims) => {
      claimed = content.querySelector('pre');
      claims.claim(claimed, function activate(ctx) { got.activate = { ctx, self: this, connected: ctx.source.isConnected }; return () => {}; });
    },
    mount(ctx) { got.mount = { ctx, el: host.getMessageElement(ctx.mesid) }; return function cleanup() { disposerThis = this; }; },
    content(ctx) { got.content = { ctx }; },
  };
  thisSeen.length = 0;
  host.render();
  assert.ok(thisSeen.length === 6 && thisSeen.every((x) => x === undefined), 'hooks get this undefined');
  const el = host.getMessageElement(0);
  const text = el.querySelector('.mes_text');
  for (const k of ['mount', 'content', 'activate']) {
    const { ctx, self } = got[k];
    if (k === 'activate') assert.equal(self, undefined, k);
    assert.ok(Object.isFrozen(ctx), k);
    assert.deepEqual(Object.keys(ctx).sort(), (k === 'activate' ? ['content', 'element', 'mesid', 'signal', 'source'] : ['content', 'element', 'mesid', 'signal']), k);
    assert.equal(ctx.mesid, 0);
    assert.equal(ctx.element, el, k);
    assert.equal(ctx.content, text, k);
    assert.ok(ctx.signal instanceof AbortSignal, k);
    assert.equal(ctx.signal.aborted, false, k);
  }
  assert.equal(got.mount.el, el);
  assert.ok(text.isConnected);
  assert.equal(got.activate.ctx.source, claimed, 'C41: the claimed node itself');
  assert.ok(got.activate.connected && text.contains(claimed));
  const signals = new Set([got.mount.ctx.signal, got.content.ctx.signal, got.activate.ctx.signal]);
  assert.equal(signals.size, 3);
  host.updateContent(0);
  assert.equal(got.content.ctx.signal.aborted, false, 'a new content lease');
  assert.equal(got.mount.ctx.signal.aborted, false);
  host.resetEpoch();
  assert.equal(disposerThis, undefined);
  assert.equal(got.mount.ctx.signal.reason, 'epoch-reset');
});

test('C43/C5: hook return classification, per hook name', () => {
  const bad = 'must return a cleanup function, disposable object, or nothing';
  const cases = [
    ['content', null, TypeError, `ChatSurface participant p.didCommitContent ${bad}`],
    ['content', Promise.resolve(), TypeError, 'ChatSurface participant p.didCommitContent must return synchronously'],
    ['mount', Object.assign(() => {}, { then() {} }), TypeError, 'ChatSurface participant p.didMount must return synchronously'],
    ['mount', { then() {}, dispose() {} }, TypeError, 'ChatSurface participant p.didMount must return synchronously'],
    ['mount', { dispose: 1 }, TypeError, `ChatSurface participant p.didMount ${bad}`],
    ['mount', 'str', TypeError, `ChatSurface participant p.didMount ${bad}`],
  ];
  for (const [hook, v, Ctor, msg] of cases) {
    fresh(1);
    beh.p = { [hook]: () => v };
    const e = thrown(() => host.render());
    assert.equal(e.constructor, Ctor, msg);
    assert.equal(e.message, msg);
    assertFaulted(e);
    assert.equal(mesRoots().length, 1, 'phases 9–12 keep the committed DOM');
  }
  // A function with a dispose method is a function: called as itself. An
  // object whose then is not a function is a disposable.
  fresh(1);
  const log = [];
  const fn = Object.assign(function f() { log.push(['fn', this]); }, { dispose() { log.push('fn.dispose'); } });
  const d = { then: 1, dispose() { log.push(['d.dispose', this === d]); } };
  beh.p = { mount: () => fn, content: () => d };
  host.render();
  host.resetEpoch();
  assert.deepEqual(log, [['d.dispose', true], ['fn', undefined]]);
});

test('C45: at a projection commit, a root whose content was replaced, or whose claimed source is gone, faults after the commit\'s own hooks', () => {
  fresh(['a', 'b']);
  const log = [];
  beh.q = { mount: ({ mesid }) => { log.push(`mount:${mesid}`); } };
  host.render();
  const fake = document.createElement('div');
  fake.className = 'mes_text';
  host.getMessageElement(0).querySelector('.mes_text').replaceWith(fake);
  log.length = 0;
  chat.push({ mes: 'c' });
  let e = thrown(() => host.render());
  assert.equal(e.message, 'ChatSurface message 0 content ownership diverged');
  assertFaulted(e);
  assert.deepEqual(log, ['mount:2'], 'step 12 comes after the hooks');
  assert.equal(mesRoots().length, 3, 'the committed DOM stays');

  fresh(['<pre>a</pre>', 'b']);
  beh.p = { prepare: ({ content }, claims) => { const pre = content.querySelector('pre'); if (pre) claims.claim(pre, () => () => {}); } };
  host.render();
  assert.equal(host.snapshot().runtime.active, 1);
  host.getMessageElement(0).querySelector('pre').remove();
  chat.push({ mes: 'c' });
  e = thrown(() => host.render());
  assert.equal(e.message, 'ChatSurface message 0 runtime source ownership diverged');
  assertFaulted(e);
});

test('C6: a hook throwing a non-Error: the caller gets the value, the fault is its error value (with both fallbacks)', () => {
  const noProto = Object.create(null);
  const hostile = new Proxy({}, { get() { throw new Error('get'); }, getPrototypeOf() { throw new Error('proto'); } });
  const real = new Error('real');
  const errProxy = new Proxy(real, { getPrototypeOf() { throw new Error('proto'); } });
  for (const [v, msg] of [[noProto, '[object Object]'], [hostile, ''], [errProxy, 'Error: real'], [42, '42']]) {
    fresh(1);
    beh.p = { mount: () => { throw v; } };
    assert.equal(thrown(() => host.render()), v);
    const f = host.getFault();
    assert.ok(f instanceof Error);
    assert.notEqual(f, v);
    assert.equal(f.message, msg);
    assert.deepEqual(faults, [f]);
  }
});

test('C10: the facade reads no clock during render, updateContent, reset or dispose (only the Go runtime\'s own nanotime does)', () => {
  fresh(['<pre>a</pre>', 'b']);
  beh.p = { prepare: ({ content }, claims) => { const pre = content.querySelector('pre'); if (pre) claims.claim(pre, () => () => {}); } };
  const reads = [];
  const { now } = Date;
  const perf = globalThis.performance.now;
  const note = (what) => {
    const frame = new Error().stack.split('\n')[3] ?? '';
    if (!/runtime\.(nanotime1|walltime)/.test(frame)) reads.push(`${what} ${frame.trim()}`);
  };
  Date.now = () => { note('Date.now'); return now(); };
  globalThis.performance.now = function n() { note('performance.now'); return perf.call(this); };
  try {
    host.render();
    chat.push({ mes: 'c' });
    host.render();
    host.updateContent(0);
    host.resetEpoch();
    host.render();
    host.dispose();
  } finally {
    Date.now = now;
    globalThis.performance.now = perf;
  }
  assert.deepEqual(reads, []);
  host = null;
  root.remove();
});
