// Chat surface through the public JS API, static mode (spec/chatsurface.md).
// The install decision and registry are page-wide, so this process installs
// `managed: false`; chat-surface-managed.test.js covers the bounded view.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { makeRoot, frames, formatMessage, materializer, messages, thrown } from './chat-surface-fixture.js';
import { installChatSurfaceApi, createChatSurfaceHost } from '../chat-surface.js';
import { sharedCore } from '../core.js';

const log = [];
let api;
let A;
let kept; // a claims object kept past its prepareContent call (S16)

test('S4/C15: before install the feature detection yields false', () => {
  const w = {};
  assert.equal(w.__TAURITAVERN__?.api?.chatSurface?.isManagedOwnershipRequired?.() === true, false);
});

test('S2: install type checks write nothing', () => {
  let e = thrown(() => installChatSurfaceApi({ __TAURITAVERN__: 's' }, { managed: false }));
  assert.ok(e instanceof TypeError);
  assert.equal(e.message, 'Host ABI __TAURITAVERN__ must be an object');
  e = thrown(() => installChatSurfaceApi({ __TAURITAVERN__: { api: () => {} } }, { managed: false }));
  assert.equal(e.message, 'Host ABI __TAURITAVERN__.api must be an object');
  e = thrown(() => installChatSurfaceApi({}, { managed: 'yes' }));
  assert.ok(e instanceof TypeError);
  assert.equal(e.message, 'Chat virtualization setting must be a boolean');
  e = thrown(() => installChatSurfaceApi({}));
  assert.equal(e.message, 'Chat virtualization setting must be a boolean');
});

test('S1/S2/S3/C13: install, keys, frozen, same object, decision fixed', () => {
  const target = { __TAURITAVERN__: { api: { other: 1 }, x: 2 } };
  api = installChatSurfaceApi(target, { managed: false });
  assert.equal(target.__TAURITAVERN__.api.chatSurface, api);
  assert.equal(target.__TAURITAVERN__.api.other, 1);
  assert.equal(target.__TAURITAVERN__.x, 2);
  assert.ok(Object.isFrozen(api));
  assert.deepEqual(Object.keys(api), ['protocolVersion', 'isManagedOwnershipRequired', 'registerParticipant', 'registerContentProcessor']);
  assert.equal(api.protocolVersion, 1);
  const { isManagedOwnershipRequired } = api;
  assert.equal(isManagedOwnershipRequired(), false);
  const fresh = {};
  assert.equal(installChatSurfaceApi(fresh, { managed: false }), api);
  assert.equal(fresh.__TAURITAVERN__.api.chatSurface, api);
  const e = thrown(() => installChatSurfaceApi({}, { managed: true }));
  assert.equal(e.message, 'Chat virtualization changed during this page lifetime: false -> true');
});

test('S5–S9: registration validation, exact messages and classes', () => {
  const ok = (o) => ({ id: 'x', protocolVersion: 1, didMount() {}, ...o });
  const cases = [
    [null, TypeError, 'ChatSurface participant must be an object'],
    ['p', TypeError, 'ChatSurface participant must be an object'],
    [() => {}, TypeError, 'ChatSurface participant must be an object'],
    [ok({ refresh() {} }), Error, 'Unknown ChatSurface participant field: refresh'],
    [{ id: '', protocolVersion: 2, foo: 1 }, Error, 'Unknown ChatSurface participant field: foo'],
    [ok({ id: '' }), Error, 'ChatSurface participant id is required'],
    [ok({ id: 0 }), Error, 'ChatSurface participant id is required'],
    [ok({ protocolVersion: '1' }), Error, 'Unsupported ChatSurface participant protocol: 1'],
    [{ id: 'x', didMount() {} }, Error, 'Unsupported ChatSurface participant protocol: undefined'],
    [{ id: 'x', protocolVersion: 1, prepareContent() {}, didMount: null }, TypeError, 'ChatSurface participant x.didMount must be a function'],
    [{ id: 'x', protocolVersion: 1 }, Error, 'ChatSurface participant x must implement at least one hook'],
  ];
  for (const [def, Ctor, msg] of cases) {
    const e = thrown(() => api.registerParticipant(def));
    assert.equal(e.constructor, Ctor, msg);
    assert.equal(e.message, msg);
  }
  api.registerParticipant({ id: 5, protocolVersion: 1, didMount() {} });
  assert.equal(thrown(() => api.registerParticipant(ok({ id: '5' }))).message, 'ChatSurface participant already registered: 5');
  const { registerParticipant } = api; // detached (S4)
  registerParticipant(ok({ id: '  a/b  ' }));
  assert.equal(thrown(() => registerParticipant(ok({ id: 'a/b' }))).message, 'ChatSurface participant already registered: a/b');
  // C18: a getter that throws propagates by identity.
  const boom = { why: 'getter' };
  const e = thrown(() => registerParticipant({ get id() { throw boom; }, protocolVersion: 1 }));
  assert.equal(e, boom);
  // So does a Proxy whose ownKeys trap throws (C6: never an internal error).
  const sym = Symbol('no keys');
  assert.equal(thrown(() => registerParticipant(new Proxy(ok({ id: 'k' }), { ownKeys() { throw sym; } }))), sym);
  registerParticipant(ok({ id: 'k' })); // nothing of it was kept
});

test('C113: registerContentProcessor validates its definition (the chain: chat-surface-processors*.test.js)', () => {
  const e = thrown(() => api.registerContentProcessor({ id: 5, prepare() {} }));
  assert.ok(e instanceof TypeError);
  assert.equal(e.message, 'ChatSurface content processor requires an id and prepare function');
});

test('S10/S23 set-up: A and B with all three hooks; the handle is frozen with only fault', () => {
  const hooks = (name) => ({
    id: name,
    protocolVersion: 1,
    prepareContent(ctx, claims) {
      assert.equal(this, undefined);
      assert.ok(Object.isFrozen(ctx) && Object.isFrozen(claims));
      log.push(`${name}.prepare:${ctx.mesid}`);
      if (name === 'A') {
        kept = claims;
        const pre = ctx.content.querySelector('pre');
        if (pre) {
          claims.claim(pre, ({ signal, mesid }) => {
            log.push(`A.activate:${mesid}`);
            return () => log.push(`A:runtime:${signal.reason}`);
          });
        }
      }
    },
    didMount(ctx) {
      log.push(`${name}.mount:${ctx.mesid}`);
      return () => log.push(`${name}:mount:${ctx.signal.reason}:${ctx.signal.aborted}`);
    },
    didCommitContent(ctx) {
      log.push(`${name}.content:${ctx.mesid}`);
      return { dispose() { log.push(`${name}:content:${ctx.signal.reason}`); } };
    },
  });
  A = api.registerParticipant(hooks('A'));
  api.registerParticipant(hooks('B'));
  assert.ok(Object.isFrozen(A));
  assert.deepEqual(Object.keys(A), ['fault']);
});

let chat;
let host;
let root;
let faults = [];
const mat = materializer();

test('C141: creation checks', () => {
  let e = thrown(() => createChatSurfaceHost({}));
  assert.ok(e instanceof TypeError);
  assert.equal(e.message, 'ChatSurface host requires root, getMessages, materialize, formatMessage and emit');
  root = makeRoot();
  const base = { root, getMessages: () => chat, materialize: mat, formatMessage, emit() {} };
  e = thrown(() => createChatSurfaceHost({ ...base, managed: true }));
  assert.equal(e.message, 'ChatSurface host mode must match the installed ownership decision');
  e = thrown(() => createChatSurfaceHost({ ...base, onFault: 1 }));
  assert.equal(e.message, 'ChatSurface host option onFault must be a function');
  e = thrown(() => createChatSurfaceHost({ ...base, runtimeLimit: null }));
  assert.equal(e.message, 'RuntimeAdmission maxActive must be a positive integer');
  host = createChatSurfaceHost({ ...base, ...frames(), onFault: (f) => faults.push(f) });
  assert.equal(thrown(() => createChatSurfaceHost(base)).message, 'ChatSurface host already exists');
  assert.ok(Object.isFrozen(host));
  assert.deepEqual(Object.keys(host), ['open', 'render', 'updateContent', 'finishContent', 'jumpToMessage',
    'scrollToEnd', 'setProjectionHeld', 'refreshLayout', 'resetEpoch', 'getMessageElement', 'getFault',
    'snapshot', 'dispose']);
});

test('S23/C44: hook order for two new messages; S33 a second render does nothing', async () => {
  chat = messages(2);
  log.length = 0;
  const p = host.render();
  assert.ok(p instanceof Promise);
  await p;
  assert.deepEqual(log, ['A.prepare:0', 'A.prepare:1', 'B.prepare:0', 'B.prepare:1', 'A.mount:0', 'A.mount:1',
    'B.mount:0', 'B.mount:1', 'A.content:0', 'A.content:1', 'B.content:0', 'B.content:1']);
  assert.deepEqual([...root.children].map((c) => c.getAttribute('mesid')), ['0', '1']);
  assert.ok(root.children[1].classList.contains('last_mes'));
  assert.equal(root.children[1].querySelector('.mesIDDisplay').textContent, '#1');
  const before = [...root.children];
  const n = mat.counter.n;
  log.length = 0;
  host.render();
  assert.equal(mat.counter.n, n);
  assert.deepEqual(log, []);
  assert.deepEqual([...root.children], before);
});

test('S16/S11: claim after prepareContent returned; registration frozen', () => {
  const pre = document.createElement('pre');
  const e = thrown(() => kept.claim(pre, () => {}));
  assert.equal(e.message, 'ChatSurface participant A claimed a runtime after prepareContent returned');
  assert.equal(host.getFault(), null);
  assert.equal(thrown(() => api.registerParticipant(null)).message,
    'ChatSurface participants must register before the first projection');
  assert.equal(thrown(() => api.registerContentProcessor({ id: 'late', prepare() {} })).message,
    'ChatSurface content processors must register before the first projection');
});

test('S31/S24/C48: a shift remounts cold; unmount order is runtime, content, mount', () => {
  chat = [{ mes: 'zero' }, { mes: 'one<pre>x</pre>' }];
  host.render();
  const old = host.getMessageElement(1);
  assert.ok(log.includes('A.activate:1'), 'eager grant (C60)');
  assert.equal(host.snapshot().runtime.active, 1);
  log.length = 0;
  chat.shift();
  host.render();
  assert.notEqual(host.getMessageElement(0), old);
  assert.equal(host.getMessageElement(0).querySelector('.mes_text').textContent, 'onex');
  const unmount1 = log.slice(log.indexOf('A:runtime:content-released'), log.indexOf('A:runtime:content-released') + 5);
  assert.deepEqual(unmount1, ['A:runtime:content-released', 'B:content:projection-unmount',
    'A:content:projection-unmount', 'B:mount:projection-unmount:true', 'A:mount:projection-unmount:true']);
});

test('S34/S37: updateContent keeps root and mount lease, re-runs content hooks', () => {
  chat[0].mes = 'edited';
  const rootEl = host.getMessageElement(0);
  const content = rootEl.querySelector('.mes_text');
  log.length = 0;
  assert.equal(host.updateContent(0), true);
  assert.equal(host.getMessageElement(0), rootEl);
  assert.equal(rootEl.querySelector('.mes_text'), content);
  assert.equal(content.innerHTML, '<p>edited</p>');
  assert.ok(!log.some((l) => l.includes('.mount')));
  assert.ok(log.includes('A.content:0'));
  assert.equal(host.updateContent(7), false);
  const e = thrown(() => host.updateContent(0.5));
  assert.ok(e instanceof TypeError);
  assert.equal(e.message, 'ChatSurface updateContent requires an integer mesid');
});

test('S65/C94: static jump; S30 duplicate object faults with one error object', () => {
  assert.equal(thrown(() => host.jumpToMessage(0)).message, 'Bounded ChatSurface is not active');
  const m = { mes: 'dup' };
  chat = [m, m];
  const e = thrown(() => host.render());
  assert.equal(e.message, 'ChatSurface messages must not contain the same object more than once');
  assert.equal(host.getFault(), e);
  assert.equal(host.snapshot().fault, e);
  assert.equal(host.snapshot().state, 'faulted');
  assert.deepEqual(faults, [e]);
  const again = thrown(() => host.render());
  assert.equal(again.message, 'ChatSurface epoch is faulted');
  assert.equal(again.cause, e);
  assert.equal(thrown(() => host.jumpToMessage(0)).message, 'ChatSurface epoch is faulted');
  host.resetEpoch();
  assert.equal(host.getFault(), null);
  assert.equal(root.querySelectorAll('.mes').length, 0);
  chat = [{ mes: 'a' }, 5];
  const t = thrown(() => host.render());
  assert.ok(t instanceof TypeError);
  assert.equal(t.message, 'ChatSurface message at index 1 must be an object');
  host.resetEpoch();
});

test('C6/C103: a host callback that throws a string: the caller gets the string, getFault an Error', () => {
  chat = messages(1);
  const bad = createThrowingRender('nope');
  assert.equal(bad.thrown, 'nope');
  assert.ok(host.getFault() instanceof Error);
  assert.equal(host.getFault().message, 'nope');
  host.resetEpoch();
});

function createThrowingRender(value) {
  const saved = chat;
  chat = new Proxy(saved, { get(t, k) { if (k === 'length') throw value; return t[k]; } });
  let got;
  try { host.render(); } catch (e) { got = e; }
  chat = saved;
  return { thrown: got };
}

const core = await sharedCore();
test('S70/C112: dispose; read-only calls keep working; a new host can be created', () => {
  chat = messages(3);
  host.render();
  host.dispose();
  host.dispose();
  assert.equal(thrown(() => host.render()).message, 'ChatSurface host is disposed');
  assert.equal(host.getFault(), null);
  assert.equal(host.getMessageElement(0), null);
  const s = host.snapshot();
  assert.equal(s.state, 'disposed');
  assert.deepEqual(s.mounted, []);
  assert.ok(Object.isFrozen(s) && Object.isFrozen(s.runtime));
  const h2 = createChatSurfaceHost({ root: makeRoot(), getMessages: () => chat, materialize: mat, formatMessage, emit() {} });
  h2.render();
  assert.deepEqual(h2.snapshot().mounted, [0, 1, 2]);
  h2.dispose();
  // C36 once the claims object's host is gone too: its hook returned all the same.
  const tables = () => { const t = core.chatSurfaceTables(); return [t.memo, t.thrown, t.refs, t.nodes]; };
  const before = tables();
  const e = thrown(() => kept.claim(document.createElement('pre'), () => {}));
  assert.equal(e.message, 'ChatSurface participant A claimed a runtime after prepareContent returned');
  assert.deepEqual(tables(), before, 'the refused claim holds nothing (memo, thrown, refs, nodes)');
});

test('C31: .mesIDDisplay gets the text #<n>; one that already reads so is left as it is', () => {
  chat = messages(3);
  const shown = ['#0', '#7', ''];
  const texts = [];
  const materialize = (m, mesid) => {
    const el = document.createElement('div');
    el.className = 'mes';
    el.innerHTML = `<div class="mesIDDisplay">${shown[mesid]}</div><div class="mes_text">${formatMessage(m, mesid)}</div>`;
    texts[mesid] = el.firstChild.firstChild;
    return el;
  };
  const r = makeRoot();
  const h3 = createChatSurfaceHost({ root: r, getMessages: () => chat, materialize, formatMessage, emit() {} });
  h3.render();
  const display = (i) => r.children[i].querySelector('.mesIDDisplay');
  assert.deepEqual([0, 1, 2].map((i) => display(i).textContent), ['#0', '#1', '#2']);
  assert.equal(display(0).firstChild, texts[0], 'a display reading #<n> is not rewritten (no layout work for the same text)');
  assert.notEqual(display(1).firstChild, texts[1]);
  // A shift changes every mesid: each display follows.
  const before = display(1).firstChild;
  chat = chat.slice(1);
  h3.render();
  assert.deepEqual([0, 1].map((i) => display(i).textContent), ['#0', '#1']);
  assert.notEqual(display(0).firstChild, before);
  h3.dispose();
});
