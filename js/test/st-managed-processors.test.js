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

// A processor that waits while a test holds its gate (a slow translator).
let gate = null;
api.registerContentProcessor({
  id: 'test/gate',
  async prepare(ctx, renderBase) {
    const base = await renderBase();
    if (gate !== null) await gate.promise;
    return base;
  },
});

// A processor whose backend fails while a test says so.
let failing = false;
api.registerContentProcessor({
  id: 'test/flaky',
  async prepare(ctx, renderBase) {
    const base = await renderBase();
    if (failing) throw new Error('backend down');
    return base;
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

// An opened 300-message chat whose message 297 was just re-rendered by
// SillyTavern, its processor request held at the gate.
async function heldAt297(t, chatId, onFault) {
  const T = makeST({ count: 300 });
  const sched = frames();
  const c = createManagedChat({ st: T.st, root: T.root, api, createHost: createChatSurfaceHost, scheduler: sched, onFault });
  t.after(() => { failing = false; gate?.resolve(); gate = null; c.dispose(); T.root.remove(); });
  T.printMessages(1);
  await c.chatChanged(chatId);
  await settle(sched);
  let release;
  gate = { promise: new Promise((r) => { release = r; }), resolve: () => release() };
  T.chat[297].mes = 'said again';
  T.updateMessageBlock(297);
  await settle(sched);
  assert.equal(T.find(297).querySelector('.mes_text').getAttribute('aria-busy'), 'true', 'its request is running');
  return { T, sched, c };
}

// SillyTavern's hide (/hide, the eye button) sets chat[i].is_system and the
// root's is_system attribute and tells no one; is_system is in the version
// (C121). A request still running for the message then failed C119's check
// when it settled and faulted the epoch: every message on screen stayed
// blank. The controller supersedes it (updateContent, C119).
test('a message hidden while its processor runs is prepared again, no fault (C119, C121)', async (t) => {
  const { T, sched, c } = await heldAt297(t, 'chat-hide');
  T.chat[297].is_system = true;
  T.find(297).setAttribute('is_system', 'true');
  await settle(sched);
  gate.resolve();
  gate = null;
  await settle(sched);
  assert.equal(c.host.getFault(), null);
  assert.equal(T.find(297).querySelector('.mes_text > .processed p').textContent, 'said again');
  assert.equal(T.find(297).getAttribute('is_system'), 'true');
  // A prepared message hidden keeps its content as it is (nothing to supersede).
  const shown = T.find(296).querySelector('.mes_text > .processed');
  T.chat[296].is_system = true;
  T.find(296).setAttribute('is_system', 'true');
  await settle(sched);
  assert.equal(T.find(296).querySelector('.mes_text > .processed'), shown);
  assert.equal(c.host.getFault(), null);
});

// A message that is not mounted has nothing in the DOM, so hiding it while
// its request runs cannot be seen: the request fails C119's check and faults
// the epoch (C127). The controller reopens the view once at the same place;
// a processor failing again at once leaves the epoch faulted.
test('a processor failure reopens the view once at the same place; failing again at once, it stays faulted (C127, C107)', async (t) => {
  const faults = [];
  const { T, sched, c } = await heldAt297(t, 'chat-recover', (e, o) => faults.push([e.message, o?.recovering]));
  c.jumpToMessage(100);
  await settle(sched);
  assert.equal(T.find(297), null, 'scrolled out while its request runs');
  T.chat[297].is_system = true; // /hide 297: no root, no attribute to see
  gate.resolve();
  gate = null;
  await settle(sched);
  assert.equal(faults.length, 1);
  assert.match(faults[0][0], /^ChatSurface content processor \S+ failed for message 297$/);
  assert.equal(faults[0][1], true, 'reported as recovering');
  assert.equal(c.stats.recoveries, 1);
  assert.equal(c.state, 'open');
  assert.equal(c.host.getFault(), null);
  assert.ok(c.host.snapshot().mounted.includes(100), `reopened where the view was: ${c.host.snapshot().mounted}`);
  for (const el of T.mesEls()) assert.notEqual(el.querySelector('.mes_text').getAttribute('aria-busy'), 'true', `message ${el.getAttribute('mesid')} prepared`);
  // A backend that keeps failing: one recovery, then the epoch stays faulted.
  failing = true;
  T.chat[299].mes = 'again';
  T.updateMessageBlock(299);
  await settle(sched);
  await settle(sched);
  assert.equal(c.stats.recoveries, 1, 'not twice within RECOVER_MS');
  assert.equal(c.state, 'faulted');
  assert.equal(faults.at(-1)[1], false);
});
