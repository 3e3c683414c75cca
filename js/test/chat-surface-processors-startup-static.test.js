// startChatSurfaceExtensions in static mode (S92, C136, C137).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import './chat-surface-fixture.js';
import { installChatSurfaceApi, startChatSurfaceExtensions } from '../chat-surface.js';

installChatSurfaceApi(globalThis, { managed: false });

test('S92/C136/C137: static mode resolves without importing or activating; malformed tables reject', async () => {
  const calls = [];
  const opts = (requirements) => ({
    extensions: [{ name: 'X', manifest: { hooks: { chatSurface: 'registerChatSurface' } } }, { name: 'JS-Slash-Runner', manifest: {} }],
    importExtension: () => { calls.push('import'); },
    activateExtension: () => { calls.push('activate'); },
    requirements,
  });
  assert.equal(await startChatSurfaceExtensions(opts(undefined)), undefined);
  assert.deepEqual(calls, []);
  let e = await startChatSurfaceExtensions(opts('x')).then(() => null, (x) => x);
  assert.ok(e instanceof TypeError);
  assert.equal(e.message, 'ChatSurface capability requirements must be an array');
  e = await startChatSurfaceExtensions(opts([{ extensionName: 1 }])).then(() => null, (x) => x);
  assert.ok(e instanceof TypeError);
  assert.equal(e.message, 'ChatSurface renderer capability is malformed');
  assert.deepEqual(calls, []);
});
