// registerContentProcessor's checks through the public API (S71, C113).
// Its own page: the processors registered here form this page's chain.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { makeRoot, frames, formatMessage, materializer, messages, thrown } from './chat-surface-fixture.js';
import { installChatSurfaceApi, createChatSurfaceHost } from '../chat-surface.js';

const api = installChatSurfaceApi(globalThis, { managed: false });

test('S71/C113: malformed definitions, duplicates (exact ids), a frozen { refresh }', () => {
  for (const def of [null, {}, { id: '   ', prepare() {} }, { id: 'a' }, { id: 5, prepare() {} }]) {
    const e = thrown(() => api.registerContentProcessor(def));
    assert.ok(e instanceof TypeError, JSON.stringify(def));
    assert.equal(e.message, 'ChatSurface content processor requires an id and prepare function');
  }
  const reg = api.registerContentProcessor({ id: 'a', prepare: (ctx, renderBase) => renderBase() });
  assert.ok(Object.isFrozen(reg));
  assert.deepEqual(Object.keys(reg), ['refresh']);
  const e = thrown(() => api.registerContentProcessor({ id: 'a', prepare() {} }));
  assert.equal(e.constructor, Error);
  assert.equal(e.message, 'ChatSurface content processor already registered: a');
  const calls = [];
  api.registerContentProcessor({ id: ' a', prepare: (ctx, renderBase) => { calls.push(ctx.mesid); return renderBase(); } });
  assert.deepEqual(calls, []);
});

test('C114: after the first projection registering fails; both processors run', async () => {
  const root = makeRoot();
  const chat = messages(2);
  const host = createChatSurfaceHost({
    root, getMessages: () => chat, materialize: materializer(), formatMessage, emit() {}, ...frames(),
  });
  await host.open();
  assert.equal(host.getMessageElement(1).querySelector('.mes_text').innerHTML, '<p>m1</p>');
  assert.equal(thrown(() => api.registerContentProcessor({ id: 'late', prepare() {} })).message,
    'ChatSurface content processors must register before the first projection');
  host.dispose();
  root.remove();
});
