// startChatSurfaceExtensions in managed mode (spec/chatsurface.md §13,
// S88–S91, C133–C138). Static mode: chat-surface-processors-startup-static.test.js.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import './chat-surface-fixture.js';
import {
  installChatSurfaceApi, startChatSurfaceExtensions, CHAT_SURFACE_RENDERER_CAPABILITIES,
} from '../chat-surface.js';

const api = installChatSurfaceApi(globalThis, { managed: true });
const settle = () => new Promise((r) => { setImmediate(r); });
const hooked = (name) => ({ name, manifest: { hooks: { chatSurface: 'registerChatSurface' } } });

test('C138: the default table is frozen, in order', () => {
  assert.ok(Object.isFrozen(CHAT_SURFACE_RENDERER_CAPABILITIES));
  assert.deepEqual(CHAT_SURFACE_RENDERER_CAPABILITIES, [
    { extensionName: 'JS-Slash-Runner', participantId: 'js-slash-runner/message-runtime' },
    { extensionName: 'LittleWhiteBox', participantId: 'littlewhitebox/message-runtime' },
  ]);
  for (const r of CHAT_SURFACE_RENDERER_CAPABILITIES) assert.ok(Object.isFrozen(r));
});

test('S88/C134: hooks run one at a time, in order, with no timeout', async () => {
  const log = [];
  let releaseX;
  const modules = {
    X: { registerChatSurface(...args) { log.push(`X:${args.length}`); return new Promise((r) => { releaseX = r; }); } },
    Y: { registerChatSurface() { log.push('Y'); } },
  };
  const realSetTimeout = globalThis.setTimeout;
  let timers = 0;
  globalThis.setTimeout = (...a) => { timers++; return realSetTimeout(...a); };
  try {
    const p = startChatSurfaceExtensions({
      extensions: [hooked('X'), hooked('Y')],
      importExtension: async (ext) => { log.push(`import:${ext.name}`); return modules[ext.name]; },
      activateExtension: () => { log.push('activate'); },
    });
    let done = false;
    p.then(() => { done = true; });
    for (let i = 0; i < 10; i++) await settle(); // "10 s" of waiting: nothing else moves
    assert.deepEqual(log, ['import:X', 'X:0']);
    assert.equal(done, false);
    assert.equal(timers, 0, 'no timeout is armed');
    releaseX();
    assert.equal(await p, undefined);
    assert.deepEqual(log, ['import:X', 'X:0', 'import:Y', 'Y']);
  } finally {
    globalThis.setTimeout = realSetTimeout;
  }
});

test('S89/C135: a rejecting hook rejects with the same value; later extensions and the gate are skipped', async () => {
  const E = new Error('E');
  const imported = [];
  const err = await startChatSurfaceExtensions({
    extensions: [hooked('X'), hooked('Y'), { name: 'JS-Slash-Runner', manifest: {} }],
    importExtension: async (ext) => { imported.push(ext.name); return { registerChatSurface: () => Promise.reject(E) }; },
    activateExtension: () => { imported.push('activate'); },
  }).then(() => null, (e) => e);
  assert.equal(err, E);
  assert.deepEqual(imported, ['X']);
});

test('S91/C134: a declared hook the module lacks rejects, naming the extension as listed', async () => {
  const err = await startChatSurfaceExtensions({
    extensions: [hooked('third-party/X')],
    importExtension: async () => ({}),
    activateExtension: () => {},
  }).then(() => null, (e) => e);
  assert.equal(err.message,
    'Extension "third-party/X" declares chatSurface hook "registerChatSurface" but does not export a function of that name');
});

test('S90/C137: a required extension that registers nothing fails the gate; registering it passes', async () => {
  const jsr = { name: 'third-party/JS-Slash-Runner', manifest: {} };
  const activated = [];
  const err = await startChatSurfaceExtensions({
    extensions: [jsr, { name: 'other', manifest: {} }],
    importExtension: () => { throw new Error('no import expected'); },
    activateExtension: async (ext) => { activated.push(ext.name); },
  }).then(() => null, (e) => e);
  assert.equal(err.message,
    'Bounded ChatSurface requires extension "JS-Slash-Runner" to register protocol v1 participant "js-slash-runner/message-runtime"');
  assert.deepEqual(activated, ['third-party/JS-Slash-Runner'], 'only required extensions are activated');
  await startChatSurfaceExtensions({
    extensions: [jsr],
    importExtension: () => { throw new Error('no import expected'); },
    activateExtension: async () => { api.registerParticipant({ id: 'js-slash-runner/message-runtime', protocolVersion: 1, didMount() {} }); },
  });
});

test('C137: requirements are validated before the walk; failures reject, never throw', async () => {
  let called = 0;
  const opts = (requirements) => ({
    extensions: [hooked('X')], importExtension: async () => { called++; return { registerChatSurface() {} }; },
    activateExtension: () => { called++; }, requirements,
  });
  for (const [reqs, msg] of [
    [null, 'ChatSurface capability requirements must be an array'],
    [[{ extensionName: 'a', participantId: 'b' }, { extensionName: 'a' }], 'ChatSurface renderer capability is malformed'],
  ]) {
    let p;
    assert.doesNotThrow(() => { p = startChatSurfaceExtensions(opts(reqs)); });
    const e = await p.then(() => null, (x) => x);
    assert.ok(e instanceof TypeError);
    assert.equal(e.message, msg);
  }
  assert.equal(called, 0);
  assert.equal(await startChatSurfaceExtensions(opts([])), undefined);
  assert.equal(called, 1);
});

test('C137: a requirements table is read by the facade, bounded before anything is sized; a throwing one rejects with its value; the next call works (issue 13)', async () => {
  const opts = (requirements) => ({ extensions: [], importExtension() {}, activateExtension() {}, requirements });
  const rejection = (p) => p.then(() => assert.fail('resolved'), (x) => x);
  // A claimed length of 1e9: nothing is copied or allocated for it.
  const huge = new Proxy([], { get: (t, k) => (k === 'length' ? 1e9 : Reflect.get(t, k)) });
  let e = await rejection(startChatSurfaceExtensions(opts(huge)));
  assert.ok(e instanceof RangeError, String(e));
  assert.equal(e.message, 'ChatSurface capability requirements have 1000000000 entries; the maximum is 4096');
  // A length or entry getter that throws rejects with the thrown value (C6),
  // not with an internal error, and never unwinds through Go.
  const boom = new Error('length refused');
  e = await rejection(startChatSurfaceExtensions(opts(new Proxy([], { get: (t, k) => { if (k === 'length') throw boom; return Reflect.get(t, k); } }))));
  assert.equal(e, boom);
  const sym = Symbol('entry refused');
  e = await rejection(startChatSurfaceExtensions(opts(new Proxy([{}], { get: (t, k) => { if (k === '0') throw sym; return Reflect.get(t, k); } }))));
  assert.equal(e, sym);
  const { proxy, revoke } = Proxy.revocable([], {});
  revoke();
  e = await rejection(startChatSurfaceExtensions(opts(proxy)));
  assert.ok(e instanceof TypeError, String(e));
  // 4096 entries are taken.
  const full = Array.from({ length: 4096 }, (_, i) => ({ extensionName: `e${i}`, participantId: `p${i}` }));
  assert.equal(await startChatSurfaceExtensions(opts(full)), undefined);
  assert.equal(await startChatSurfaceExtensions(opts(undefined)), undefined);
});

test('C134: an activate hook (how real renderers declare themselves) is called too; chatSurface takes precedence', async () => {
  const log = [];
  const modules = {
    'third-party/A': { init() { log.push('A.init'); } },
    B: { registerChatSurface() { log.push('B.registerChatSurface'); }, init() { log.push('B.init'); } },
    C: { init() { log.push('C.init'); } },
  };
  await startChatSurfaceExtensions({
    extensions: [
      { name: 'third-party/A', manifest: { hooks: { activate: 'init' } } },
      { name: 'B', manifest: { hooks: { chatSurface: 'registerChatSurface', activate: 'init' } } },
      { name: 'C', manifest: { hooks: { chatSurface: '', activate: 'init' } } },
      { name: 'D', manifest: { hooks: { activate: '' } } },
      { name: 'E', manifest: { hooks: { activate: 5 } } },
    ],
    importExtension: async (ext) => { log.push(`import:${ext.name}`); return modules[ext.name]; },
    activateExtension: (ext) => { log.push(`activate:${ext.name}`); },
  });
  assert.deepEqual(log, ['import:third-party/A', 'A.init', 'import:B', 'B.registerChatSurface', 'import:C', 'C.init']);
});

test('C134: a declared activate hook the module lacks rejects, naming the hook', async () => {
  const err = await startChatSurfaceExtensions({
    extensions: [{ name: 'third-party/X', manifest: { hooks: { activate: 'init' } } }],
    importExtension: async () => ({ init: 'not a function' }),
    activateExtension: () => {},
  }).then(() => null, (e) => e);
  assert.equal(err.message, 'Extension "third-party/X" declares activate hook "init" but does not export a function of that name');
});
