// Managed mode for SillyTavern with a content processor (C113–C131): the
// processed display replaces SillyTavern's render on mount, after
// SillyTavern re-renders a message, and when a stream or an edit ends;
// transient content is never processed (C55, C128). Its own file: processors
// register before the page's first materialisation (C114).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { frames } from './chat-surface-fixture.js';
import { makeST, tick } from './st-managed-fake.js';
import { installChatSurfaceApi, createChatSurfaceHost } from '../chat-surface.js';
import { createManagedChat } from '../../sillytavern/managed/controller.js';

const api = installChatSurfaceApi(globalThis, { managed: true });
const seen = [];
api.registerContentProcessor({
  id: 'test/badge',
  async prepare({ message }, renderBase) {
    const base = await renderBase();
    seen.push(message.mes);
    return `<div class="processed">${base}</div>`;
  },
});

async function settle(sched) {
  for (let i = 0; i < 5; i++) { await tick(); sched.flush(); }
}

test('processors run for mounted messages, after SillyTavern re-renders one, and when a stream ends; never for transient content (C122, C125, C128)', async (t) => {
  const T = makeST({ count: 300, htmlEvery: 4 });
  const sched = frames();
  const c = createManagedChat({ st: T.st, root: T.root, api, createHost: createChatSurfaceHost, scheduler: sched });
  t.after(() => { c.dispose(); T.root.remove(); });
  T.printMessages(1);
  await c.chatChanged('chat-a');
  await settle(sched);
  assert.equal(c.host.getFault(), null);
  for (const el of T.mesEls()) {
    assert.ok(el.querySelector('.mes_text > .processed'), `message ${el.getAttribute('mesid')} processed`);
  }
  // A code block's base is formatMessage's HTML, decorated after the processor (C30).
  const withCode = T.mesEls().find((el) => el.querySelector('pre'));
  assert.ok(withCode.querySelector('.processed pre code[data-highlighted]'));
  assert.equal(withCode.querySelectorAll('.code-copy').length, withCode.querySelectorAll('pre code').length);

  T.chat[298].mes = 'rewritten by an extension';
  T.updateMessageBlock(298);
  await settle(sched);
  assert.equal(T.find(298).querySelector('.mes_text > .processed p').textContent, 'rewritten by an extension');

  T.flags.generating = true;
  const m = { name: 'Char', is_user: false, mes: '...', extra: {} };
  T.chat.push(m);
  T.addOneMessage(m);
  await settle(sched);
  T.streamWrite('streaming');
  await settle(sched);
  assert.equal(T.find(300).querySelector('.processed'), null, 'no processor while streaming');
  assert.equal(T.find(300).querySelector('.mes_text').textContent, 'streaming');
  assert.ok(!seen.includes('streaming'));
  T.streamWrite('final reply');
  T.flags.generating = false;
  c.sync();
  await settle(sched);
  assert.equal(T.find(300).querySelector('.mes_text > .processed p').textContent, 'final reply');
  assert.equal(c.host.getFault(), null);
  assert.equal(c.host.snapshot().pendingPreparations.length, 0);
});
