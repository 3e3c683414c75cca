// C4: message ids across the facade's WeakMap shards (2^20 ids each; one
// V8 WeakMap of millions of keys slows down by orders of magnitude). A chat
// longer than a shard keeps every object's id: an object seen before the
// boundary is found again after it, a new object gets a new id, and the
// same object twice is still refused.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { makeRoot, frames, formatMessage, materializer, thrown } from './chat-surface-fixture.js';
import { installChatSurfaceApi, createChatSurfaceHost } from '../chat-surface.js';

installChatSurfaceApi(globalThis, { managed: true });

test('C4: ids stay stable across the WeakMap shard boundary', { timeout: 120000 }, async () => {
  const n = (1 << 20) + 64;
  const chat = Array.from({ length: n }, (_, i) => ({ mes: `m${i}` }));
  const root = makeRoot();
  const sched = frames();
  const host = createChatSurfaceHost({ root, getMessages: () => chat, materialize: materializer(), formatMessage, emit() {}, ...sched });
  try {
    await host.open();
    sched.flush();
    // Roots of unchanged objects are kept by a render (C29): in the second
    // shard (the tail) and in the first (message 0, after a jump).
    const tail = host.getMessageElement(n - 1);
    assert.ok(tail, 'the tail is mounted');
    const first = host.jumpToMessage(0);
    sched.flush();
    await host.render();
    sched.flush();
    assert.ok(host.getMessageElement(0) === first && host.getMessageElement(n - 1) === tail, 'the same objects, the same roots');
    // The first object (first shard) moves to the end: it is found again.
    chat.push(chat.shift());
    await host.render();
    sched.flush();
    assert.equal(host.snapshot().messageCount, n);
    assert.equal(host.getMessageElement(n - 1).querySelector('.mes_text').textContent, 'm0');
    chat.push({ mes: 'new' });
    await host.render();
    sched.flush();
    assert.equal(host.getMessageElement(n).querySelector('.mes_text').textContent, 'new');
    chat.push(chat[5]); // an object of the first shard, twice
    assert.match(thrown(() => host.render()).message, /must not contain the same object more than once/);
  } finally {
    host.dispose();
    root.remove();
  }
});
