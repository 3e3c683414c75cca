// No processor registered (S72, C114, C122, C130, C131): content is prepared
// at once, registration closes at the first materialisation anyway, and the
// Promises of open(), render() and finishContent still settle.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { makeRoot, frames, formatMessage, materializer, messages, thrown } from './chat-surface-fixture.js';
import { installChatSurfaceApi, createChatSurfaceHost } from '../chat-surface.js';

const api = installChatSurfaceApi(globalThis, { managed: true });

test('S72/C114/C131: zero processors; late registration fails; finishContent emits after the update', async () => {
  const chat = messages(2);
  const root = makeRoot();
  const emits = [];
  const host = createChatSurfaceHost({
    root, getMessages: () => chat, materialize: materializer(), formatMessage,
    emit: (...a) => { emits.push(a); }, ...frames(),
  });
  const p = host.open();
  assert.ok(p instanceof Promise);
  assert.equal(await p, undefined);
  assert.equal(thrown(() => api.registerContentProcessor({ id: 'late', prepare() {} })).message,
    'ChatSurface content processors must register before the first projection');
  assert.equal(host.getMessageElement(0).querySelector('.mes_text').getAttribute('aria-busy'), null);
  assert.equal(await host.render(), undefined);
  host.updateContent(1, { transient: true });
  chat[1].mes = 'done';
  const f = host.finishContent(1, 'message_updated', 'x');
  assert.equal(host.getMessageElement(1).querySelector('.mes_text').innerHTML, '<p>done</p>', 'step 1 is synchronous');
  assert.deepEqual(emits, []);
  assert.equal(await f, undefined);
  assert.deepEqual(emits, [['message_updated', 1, 'x']]);
  assert.equal(await host.finishContent(0), undefined);
  assert.equal(emits.length, 1, 'no event, no emit');
  host.dispose();
  assert.equal(thrown(() => host.finishContent(0)).message, 'ChatSurface host is disposed');
  root.remove();
});
