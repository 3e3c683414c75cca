// The contract's example participant, unchanged, against the managed host
// (issue 5 acceptance); and the feature detection falling back to the
// legacy path when the API is absent (C15).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { makeRoot, frames, formatMessage, materializer } from './chat-surface-fixture.js';
import { seedExtension, seedHelpers } from './chat-surface-seed-extension.js';
import { installChatSurfaceApi, createChatSurfaceHost } from '../chat-surface.js';

test('C15: without the API the example extension keeps its legacy renderer and registers nothing', () => {
  const log = [];
  const out = seedExtension({}, seedHelpers(log));
  assert.deepEqual(log, ['legacy']);
  assert.equal(out.managed, false);
  assert.equal(out.registration, null);
  // An API that answers false (static page) also keeps the legacy path.
  const log2 = [];
  const staticWindow = { __TAURITAVERN__: { api: { chatSurface: { isManagedOwnershipRequired: () => false } } } };
  assert.equal(seedExtension(staticWindow, seedHelpers(log2)).registration, null);
  assert.deepEqual(log2, ['legacy']);
});

test('seed example: registers and runs unchanged in managed mode', () => {
  const win = {};
  installChatSurfaceApi(win, { managed: true });
  const log = [];
  const { managed, registration } = seedExtension(win, seedHelpers(log));
  assert.equal(managed, true);
  assert.deepEqual(Object.keys(registration), ['fault']);
  assert.deepEqual(log, [], 'no legacy renderer in managed mode');

  const root = makeRoot();
  const chat = [{ mes: 'hi {{user}}' }, { mes: 'run <div data-my-runtime>x</div>' }];
  const sched = frames();
  const host = createChatSurfaceHost({
    root, getMessages: () => chat, materialize: materializer(), formatMessage, emit() {}, ...sched,
  });
  host.open();
  sched.flush();
  assert.equal(host.getFault(), null);
  assert.equal(host.getMessageElement(0).querySelector('.mes_text').innerHTML, '<p>hi Alice</p>');
  // Tail-only commit mounts 1; the next commit mounts 0; the runtime is
  // granted in an admission frame (C61, C92).
  assert.deepEqual(log, ['macros:false', 'observe:1', 'decorate:true', 'macros:false', 'observe:0', 'decorate:true',
    'runtime:1:true:false']);
  assert.ok(log.includes('runtime:1:true:false'), 'the claimed source was activated, connected, with a live signal');
  assert.equal(host.snapshot().runtime.active, 1);
  log.length = 0;
  host.resetEpoch();
  // Reset closes residencies in descending mesid: the runtime first, then
  // the content decorator, then the mount observer (C47, C48, C107).
  assert.deepEqual(log, ['runtime-dispose:1:true:content-released', 'undecorate:epoch-reset', 'disconnect:1',
    'undecorate:epoch-reset', 'disconnect:0']);
  host.dispose();
  root.remove();
});
