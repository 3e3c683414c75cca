// C119/C125's read of the message as a layer settles, which the facade makes
// ahead of Go and sends with the result: a throwing version, an object that
// left its mesid, and a getMessages that throws then must come out as they
// did when Go asked for them itself.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { makeRoot, frames, formatMessage, materializer } from './chat-surface-fixture.js';
import { installChatSurfaceApi, createChatSurfaceHost } from '../chat-surface.js';

const api = installChatSurfaceApi(globalThis, { managed: true });
const boom = new Error('boom');
let chat = [];
let throwing = false;
const seen = [];
api.registerContentProcessor({
  id: 'p',
  async prepare(ctx, renderBase) {
    const html = await renderBase();
    seen[ctx.mesid] = html;
    const m = ctx.message;
    if (m.act === 'trap') Object.defineProperty(m, 'mes', { get() { throw boom; } });
    if (m.act === 'replace') chat[ctx.mesid] = { mes: 'replaced' };
    if (m.act === 'getMessages') throwing = true;
    // Exactly 2^22 units: the shared buffer holds the HTML exactly, so the
    // version read after it grows the buffer.
    if (m.act === 'big') return html + 'x'.repeat(2 ** 22 - html.length);
    return `${html}!`;
  },
});

function open(list) {
  chat = list;
  throwing = false;
  const root = makeRoot();
  const faults = [];
  const host = createChatSurfaceHost({
    root, materialize: materializer(), formatMessage, emit() {}, ...frames(),
    getMessages: () => { if (throwing) throw new Error('getMessages'); return chat; },
    onFault: (f) => faults.push(f),
  });
  const opened = host.open().then(() => null, (e) => e);
  return { root, host, faults, opened, text: () => host.getMessageElement(0).querySelector('.mes_text') };
}

test('C119/C118: a version read that throws as the layer settles fails it, the thrown value its cause', async () => {
  const x = open([{ mes: 'a', act: 'trap' }]);
  const e = await x.host.finishContent(0).then(() => null, (err) => err);
  assert.equal(e.message, 'ChatSurface content processor p failed for message 0');
  assert.equal(e.cause, boom);
  assert.equal(await x.opened, e);
  assert.deepEqual(x.faults, [e]);
  assert.equal(x.text().getAttribute('aria-busy'), 'true');
  x.host.dispose();
  x.root.remove();
});

test('C125/C126: a result whose object left its mesid before it settled is dropped, nothing faults', async () => {
  const x = open([{ mes: 'a', act: 'replace' }]);
  assert.equal(await x.host.finishContent(0), undefined);
  assert.equal(await x.opened, null);
  assert.deepEqual(x.faults, []);
  assert.equal(x.host.getFault(), null);
  assert.equal(x.text().innerHTML, '', 'never written');
  assert.equal(x.text().getAttribute('aria-busy'), 'true');
  x.host.dispose();
  x.root.remove();
});

test('C125: getMessages throwing as the layer settles makes the request not current: dropped, no fault', async () => {
  const x = open([{ mes: 'a', act: 'getMessages' }]);
  assert.equal(await x.host.finishContent(0), undefined);
  assert.deepEqual(x.faults, []);
  assert.equal(x.text().innerHTML, '');
  x.host.dispose();
  x.root.remove();
});

test('C115/C119: the base and the version cross exactly, lone surrogates and pairs included', async () => {
  const mes = 'a\uD800b\uD83D\uDE00\uDC00 é';
  const x = open([{ mes }]);
  await x.host.finishContent(0);
  assert.equal(seen[0], `<p>${mes}</p>`, 'renderBase gave the base exactly');
  assert.equal(x.text().innerHTML, `<p>${mes}</p>!`);
  assert.deepEqual(x.faults, [], 'the same version read back is not a C119 change');
  x.host.dispose();
  x.root.remove();
});

test('C119: a result that fills the shared buffer exactly keeps its HTML when the version read after it grows the buffer', async () => {
  const x = open([{ mes: 'b\u00e9', act: 'big' }]);
  await x.host.finishContent(0);
  assert.deepEqual(x.faults, [], 'the version arrived intact: no C119 change');
  const html = x.text().innerHTML;
  assert.equal(html.length, 2 ** 22);
  assert.ok(html.startsWith('<p>b\u00e9</p>xxx') && html.endsWith('xxx'));
  x.host.dispose();
  x.root.remove();
});
