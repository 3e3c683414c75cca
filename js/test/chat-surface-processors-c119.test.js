// S78 (C119, a deviation): processor p changes the raw message after renderBase.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { makeRoot, frames, formatMessage, materializer, messages } from './chat-surface-fixture.js';
import { installChatSurfaceApi, createChatSurfaceHost } from '../chat-surface.js';

const api = installChatSurfaceApi(globalThis, { managed: true });
api.registerContentProcessor({
  id: 'p',
  async prepare(ctx, renderBase) {
    const html = await renderBase();
    ctx.message.mes = 'changed';
    return html;
  },
});

test('S78/C119: finishContent rejects with the wrapped C119 error; the epoch faults; content stays busy', async () => {
  const root = makeRoot();
  const faults = [];
  const host = createChatSurfaceHost({
    root, getMessages: () => chat, materialize: materializer(), formatMessage, emit() {}, ...frames(),
    onFault: (f) => faults.push(f),
  });
  const chat = messages(1);
  const opened = host.open().then(() => null, (e) => e);
  const e = await host.finishContent(0).then(() => null, (x) => x);
  assert.equal(e.message, 'ChatSurface content processor p failed for message 0');
  assert.equal(e.cause.message, 'ChatSurface content processor p changed message 0 after renderBase');
  assert.equal(await opened, e);
  assert.equal(host.getFault(), e);
  assert.deepEqual(faults, [e]);
  const text = host.getMessageElement(0).querySelector('.mes_text');
  assert.equal(text.innerHTML, '');
  assert.equal(text.getAttribute('aria-busy'), 'true');
  host.dispose();
  root.remove();
});
