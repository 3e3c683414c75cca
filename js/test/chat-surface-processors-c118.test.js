// S79 (C118): processor bad resolves to a non-string.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { makeRoot, frames, formatMessage, materializer, messages } from './chat-surface-fixture.js';
import { installChatSurfaceApi, createChatSurfaceHost } from '../chat-surface.js';

const api = installChatSurfaceApi(globalThis, { managed: false });
api.registerContentProcessor({ id: 'bad', prepare: async () => 42 });

test('S79/C118: a non-string result fails with a wrapped TypeError; onFault once', async () => {
  const root = makeRoot();
  const chat = messages(1);
  const faults = [];
  const host = createChatSurfaceHost({
    root, getMessages: () => chat, materialize: materializer(), formatMessage, emit() {}, ...frames(),
    onFault: (f) => faults.push(f),
  });
  const e = await host.open().then(() => null, (x) => x);
  assert.equal(e.message, 'ChatSurface content processor bad failed for message 0');
  assert.ok(e.cause instanceof TypeError);
  assert.equal(e.cause.message, 'prepare must return an HTML string');
  assert.deepEqual(faults, [e]);
  host.dispose();
  root.remove();
});
