// Managed mode for SillyTavern (sillytavern/managed/controller.js) against a
// stand-in for SillyTavern's own #chat writers (st-managed-fake.js), with the
// real chat-surface core. Each SillyTavern action below writes #chat exactly
// as SillyTavern does; the controller must turn it into host calls without a
// fault (C79, C45), keep the bound (C73), keep SillyTavern's elements and
// editors, and keep runtimes under admission.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { frames } from './chat-surface-fixture.js';
import { makeST, tick, htmlDoc } from './st-managed-fake.js';
import { installChatSurfaceApi, createChatSurfaceHost } from '../chat-surface.js';
import { createManagedChat } from '../../sillytavern/managed/controller.js';
import { pinSettings, PINNED } from '../../sillytavern/managed/pinned-settings.js';

const api = installChatSurfaceApi(globalThis, { managed: true });

// A participant like the example extension: claims <pre> blocks holding an
// HTML document; a grant adds a frame, a revoke leaves a placeholder.
const rt = { live: 0, maxLive: 0, grants: 0, revokes: 0, mounts: 0, unmounts: 0 };
let registered = false;
function registerTestParticipant() {
  if (registered) return;
  registered = true;
  api.registerParticipant({
    id: 'test/html-runtime',
    protocolVersion: 1,
    prepareContent({ content }, claims) {
      for (const pre of content.querySelectorAll('pre')) {
        if (!pre.textContent.startsWith('<!DOCTYPE html>')) continue;
        claims.claim(pre, ({ source }) => {
          const frame = document.createElement('div');
          frame.className = 'frame';
          source.nextElementSibling?.classList.contains('placeholder') && source.nextElementSibling.remove();
          source.after(frame);
          rt.grants++; rt.live++; rt.maxLive = Math.max(rt.maxLive, rt.live);
          return () => {
            rt.revokes++; rt.live--;
            frame.remove();
            const p = document.createElement('div');
            p.className = 'placeholder';
            if (source.isConnected || source.parentNode) source.after(p);
          };
        });
      }
    },
    didMount() { rt.mounts++; return () => { rt.unmounts++; }; },
  });
}

function setup(t, opts = {}) {
  const T = makeST(opts);
  const sched = frames();
  const faults = [];
  const c = createManagedChat({ st: T.st, root: T.root, api, createHost: createChatSurfaceHost, scheduler: sched,
    onFault: (e) => faults.push(e) });
  registerTestParticipant();
  const done = () => { c.dispose(); T.root.remove(); };
  t.after(done);
  return { T, sched, c, faults };
}

// SillyTavern opened a chat: printMessages (truncated to the last message) ran.
async function opened(t, opts) {
  const s = setup(t, opts);
  s.T.printMessages(1);
  await s.c.chatChanged('chat-a');
  s.sched.flush();
  return s;
}

const mesids = (root) => [...root.querySelectorAll(':scope > .mes')].map((e) => Number(e.getAttribute('mesid')));
// Every mounted root shows the message now at its mesid.
function assertConsistent(T) {
  for (const el of T.mesEls()) {
    const i = Number(el.getAttribute('mesid'));
    const p = el.querySelector('.mes_text p');
    if (p) assert.equal(p.textContent, T.chat[i].mes.split('\n\n')[0], `root ${i}`);
  }
  assert.equal(T.root.querySelector('#show_more_messages'), null);
}

test('managed open over SillyTavern\'s first render: bounded, the printed tail adopted, Show more removed (C73, C77)', async (t) => {
  const s = setup(t, { count: 10000, htmlEvery: 3 });
  const { T, c, sched } = s;
  T.printMessages(1);
  const printed = T.find(9999);
  await c.chatChanged('chat-a');
  sched.flush();
  const ids = mesids(T.root);
  assert.ok(ids.length <= 33, `${ids.length} roots`);
  assert.equal(ids.at(-1), 9999);
  assert.equal(T.find(9999), printed, 'the element SillyTavern printed is the tail root');
  assert.equal(T.root.getAttribute('data-tt-chat-surface'), 'bounded');
  assert.equal(c.host.snapshot().state, 'settled');
  assert.ok(T.calls.render <= 66, `${T.calls.render} renders`);
  assert.ok(c.host.snapshot().runtime.active > 0 && c.host.snapshot().runtime.active <= 8);
  assertConsistent(T);
  assert.equal(c.host.getFault(), null);
});

// SillyTavern's appearance settings (chat style, avatars, custom CSS) write
// <body>'s class or <head>'s styles and tell no one; the host keeps computed
// margins until refreshLayout(), which the controller asks for, once a frame.
test('a body class or a stylesheet SillyTavern changes makes the host read computed styles afresh, once per frame', async (t) => {
  const { c, sched, faults } = await opened(t);
  const real = globalThis.getComputedStyle;
  let reads = 0;
  globalThis.getComputedStyle = function (el, ...a) { if (el.classList?.contains('mes')) reads++; return real.call(this, el, ...a); };
  try {
    c.refreshLayout();
    sched.flush();
    reads = 0;
    sched.flush();
    assert.equal(reads, 0, 'nothing changed: cached');
    assert.equal(c.stats.layoutRefreshes, 0);
    document.body.classList.add('bubblechat');
    document.body.classList.add('hideChatAvatars');
    await tick(); // (mutation records are delivered in a microtask)
    sched.flush();
    assert.equal(c.stats.layoutRefreshes, 1, 'two changes in one frame: one refresh');
    assert.ok(reads > 0, 'the mounted roots\' margins were read again');
    const style = document.createElement('style');
    style.id = 'custom-style';
    document.head.append(style);
    await tick();
    style.textContent = '.mes { margin-top: 4px; }';
    await tick();
    sched.flush();
    assert.equal(c.stats.layoutRefreshes, 2, 'custom CSS added and written before the frame: one refresh');
    // What SillyTavern writes in ordinary use changes no length: the swipe
    // buttons' class at every generation, a swipe animation's variables.
    document.body.classList.add('hideAllSwipeButtons');
    document.documentElement.style.setProperty('--slide-mes-x-start', '10px');
    await tick();
    sched.flush();
    document.body.classList.remove('hideAllSwipeButtons');
    document.documentElement.style.setProperty('--slide-mes-x-start', '');
    await tick();
    sched.flush();
    assert.equal(c.stats.layoutRefreshes, 2, 'no refresh for what changes no length');
    // The font scale slider writes a variable into <html>'s inline style.
    document.documentElement.style.setProperty('--fontScale', '1.4');
    await tick();
    sched.flush();
    assert.equal(c.stats.layoutRefreshes, 3, 'the font scale: one refresh');
    document.documentElement.style.removeProperty('--fontScale');
    await tick();
    sched.flush();
    assert.equal(c.stats.layoutRefreshes, 4);
    style.remove();
    document.body.classList.remove('bubblechat', 'hideChatAvatars');
    c.dispose();
    await tick();
    sched.flush();
    assert.equal(c.stats.layoutRefreshes, 4, 'none after dispose');
    assert.deepEqual(faults, []);
  } finally {
    globalThis.getComputedStyle = real;
  }
});

test('a message SillyTavern appends (addOneMessage) becomes the tail root, same element, view follows (C87)', async (t) => {
  const s = await opened(t, { count: 500 });
  const { T, c, sched } = s;
  const m = { name: 'User', is_user: true, mes: 'hello', extra: {} };
  T.chat.push(m);
  const el = T.addOneMessage(m);
  assert.equal(T.root.lastElementChild, el, 'SillyTavern\'s own code sees its element at once');
  await tick();
  sched.flush();
  assert.equal(T.find(500), el);
  assert.ok(el.classList.contains('last_mes'));
  assert.equal(T.mesEls().filter((e) => e.classList.contains('last_mes')).length, 1);
  assert.equal(c.host.snapshot().followingTail, true);
  assert.equal(c.host.getFault(), null);
  assertConsistent(T);
});

test('deleting a mounted message with SillyTavern\'s deleteMessage (renumbering every root from the first) stays consistent (C79, C28)', async (t) => {
  const s = await opened(t, { count: 1000 });
  const { T, c, sched } = s;
  c.jumpToMessage(500);
  sched.flush();
  assert.ok(c.host.snapshot().ranges.length === 2);
  const unmountsBefore = rt.unmounts;
  const gone = T.chat[500];
  assert.equal(T.deleteMessage(500), true);
  await tick();
  sched.flush();
  assert.equal(c.host.getFault(), null);
  assert.ok(!T.chat.includes(gone));
  assert.ok(rt.unmounts > unmountsBefore, 'the deleted message\'s leases closed');
  assert.equal(mesids(T.root).at(-1), 998);
  assertConsistent(T);
  assert.equal(T.deleteMessage(20), false, 'an unmounted message cannot be deleted (SillyTavern finds no element)');
});

test('editing a mounted message with SillyTavern\'s editor: transient, held, editor kept and focused; done re-renders and reclaims (C55, C96, C131)', async (t) => {
  const s = await opened(t, { count: 60, htmlEvery: 2 });
  const { T, c, sched } = s;
  const i = 58;
  assert.ok(T.find(i).querySelector('.frame'), 'runtime granted before the edit');
  const revokes = rt.revokes;
  const ta = T.messageEdit(i);
  await tick();
  sched.flush();
  assert.equal(c.host.getFault(), null);
  assert.equal(c.host.snapshot().projectionHeld, true);
  assert.equal(T.find(i).querySelector('.edit_textarea'), ta, 'the editor is SillyTavern\'s element');
  assert.equal(document.activeElement, ta);
  assert.ok(rt.revokes > revokes, 'the message\'s runtime was revoked');
  assert.equal(T.find(i).querySelector('.frame'), null);
  ta.value = `edited\n\n\`\`\`html\n${htmlDoc(99)}\n\`\`\``;
  T.messageEditDone(i);
  await tick();
  sched.flush();
  assert.equal(c.host.getFault(), null);
  assert.equal(c.host.snapshot().projectionHeld, false);
  const el = T.find(i);
  assert.equal(el.querySelector('.mes_text p').textContent, 'edited');
  assert.ok(el.querySelector('pre code[data-highlighted]'), 'SillyTavern\'s decorations applied to the new content');
  assert.ok(el.querySelector('.frame'), 'the new content\'s block got a runtime');
  assertConsistent(T);
});

test('SillyTavern re-rendering a message that holds a runtime (updateMessageBlock) does not fault; the new content is claimed (C45, C51)', async (t) => {
  const s = await opened(t, { count: 40, htmlEvery: 1 });
  const { T, c, sched } = s;
  const i = 35; // near the viewport's centre: admitted (C63)
  assert.ok(T.find(i).querySelector('.frame'));
  T.chat[i].mes = `changed\n\n\`\`\`html\n${htmlDoc(7)}\n\`\`\``;
  T.updateMessageBlock(i);
  await tick();
  sched.flush();
  assert.equal(c.host.getFault(), null);
  assert.equal(T.find(i).querySelector('.mes_text p').textContent, 'changed');
  assert.ok(T.find(i).querySelector('.frame'));
  assert.ok(rt.live <= 8);
});

test('a streamed reply: the placeholder mounts transient, every write shows, the final text is prepared (C55, C56, C87)', async (t) => {
  const s = await opened(t, { count: 200 });
  const { T, c, sched } = s;
  T.flags.generating = true;
  const m = { name: 'Char', is_user: false, mes: '...', extra: {} };
  T.chat.push(m);
  const el = T.addOneMessage(m);
  await tick();
  sched.flush();
  assert.equal(T.find(200), el);
  for (const part of ['Once', 'Once upon', 'Once upon a time']) {
    T.streamWrite(part);
    await tick();
    sched.flush();
    assert.equal(T.find(200).querySelector('.mes_text').textContent, part, 'the write is visible mid-stream');
    assert.equal(c.host.getFault(), null);
  }
  const grants = rt.grants;
  T.streamWrite(`Once upon a time\n\n\`\`\`html\n${htmlDoc(1)}\n\`\`\``);
  assert.equal(rt.grants, grants, 'no runtime while streaming');
  T.flags.generating = false;
  c.sync(); // MESSAGE_RECEIVED
  sched.flush();
  assert.equal(c.host.getFault(), null);
  assert.ok(T.find(200).querySelector('.frame'), 'the finished reply\'s block has a runtime');
  assert.equal(c.host.snapshot().followingTail, true);
  assert.equal(mesids(T.root).at(-1), 200);
});

test('SillyTavern clearing #chat ends the epoch; the next CHAT_CHANGED opens a new one (C107)', async (t) => {
  const s = await opened(t, { count: 300, htmlEvery: 5 });
  const { T, c, sched } = s;
  T.clearChat();
  await tick();
  assert.equal(c.state, 'idle');
  assert.equal(T.root.hasAttribute('data-tt-chat-surface'), false);
  assert.equal(T.root.children.length, 0);
  assert.equal(rt.live, 0);
  const next = Array.from({ length: 50 }, (_, i) => ({ name: 'User', is_user: true, mes: `b${i}`, extra: {} }));
  T.chat.splice(0, T.chat.length, ...next);
  T.printMessages(1);
  await c.chatChanged('chat-b');
  sched.flush();
  assert.equal(c.state, 'open');
  assert.equal(c.stats.resumes, 0, 'CHAT_CHANGED opened it; nothing opens it again');
  assert.equal(mesids(T.root).at(-1), 49);
  assert.equal(T.find(49).textContent.includes('b49'), true);
  assertConsistent(T);
});

// SillyTavern appends 60 messages one by one (addOneMessage): the epoch
// stays open and the view bounded.
async function appendSixty({ T, c, sched }) {
  for (let i = 0; i < 60; i++) {
    const m = { name: 'User', is_user: true, mes: `n${i}`, extra: {} };
    T.chat.push(m);
    T.addOneMessage(m);
    await tick();
    sched.flush();
  }
  assert.equal(c.state, 'open');
  assert.equal(c.host.snapshot().messageCount, 60);
  assert.ok(T.mesEls().length < 60, `bounded: ${T.mesEls().length} mounted`);
}

// Found in the real SillyTavern: once a chat had no messages, the first
// message added (or deleting every message) was taken for SillyTavern
// clearing #chat, and the chat went on unbounded, with no notice, until the
// next chat switch.
for (const count of [3, 300]) {
  test(`deleting every message of a ${count}-message chat keeps the epoch; messages added after stay bounded (C73, C93)`, async (t) => {
    const s = await opened(t, { count });
    const { T, c, sched } = s;
    T.chat.splice(0, T.chat.length); // delete mode "from here to the end" from message 0, /cut 0-…
    for (const el of T.mesEls()) el.remove();
    await tick();
    sched.flush();
    assert.equal(c.state, 'open');
    assert.equal(c.host.snapshot().messageCount, 0);
    assert.equal(c.host.getFault(), null);
    await appendSixty(s);
    assert.equal(mesids(T.root).at(-1), 59);
    assert.equal(c.stats.clears, 0);
    assertConsistent(T);
  });
}

test('an empty chat opens managed and stays so as its first messages arrive (C73)', async (t) => {
  const s = await opened(t, { count: 0 });
  const { T, c, sched } = s;
  assert.equal(c.state, 'open');
  await appendSixty(s);
  assertConsistent(T);
});

test('a clear that no CHAT_CHANGED follows (an edited greeting re-rendered) is managed again once SillyTavern has printed', async (t) => {
  const s = await opened(t, { count: 1 });
  const { T, c, sched } = s;
  const greeting = { name: 'Char', is_user: false, mes: 'a new greeting', extra: {} };
  T.chat.splice(0, T.chat.length, greeting); // what saving a character's first message does
  T.clearChat();
  await tick();
  assert.equal(c.state, 'idle');
  T.printMessages(1);
  await tick();
  assert.equal(c.state, 'idle', 'SillyTavern\'s print stands a while: a CHAT_CHANGED may still come');
  sched.flush(); // it did not
  assert.equal(c.state, 'open');
  assert.equal(c.stats.resumes, 1);
  assert.equal(c.host.getFault(), null);
  assert.equal(T.find(0).textContent.includes('a new greeting'), true);
  const m = { name: 'User', is_user: true, mes: 'hello', extra: {} };
  T.chat.push(m);
  const el = T.addOneMessage(m);
  await tick();
  sched.flush();
  assert.equal(c.host.getMessageElement(1), el, 'the next message is the host\'s');
  assertConsistent(T);
});

test('a foreign direct child of #chat is removed, .style-pins are kept, nothing faults (C76)', async (t) => {
  const s = await opened(t, { count: 100 });
  const { T, c, sched } = s;
  const banner = document.createElement('div');
  banner.className = 'banner';
  T.root.append(banner);
  const pins = document.createElement('div');
  pins.className = 'style-pins';
  T.root.prepend(pins);
  await tick();
  sched.flush();
  assert.equal(banner.parentNode, null);
  assert.equal(pins.parentNode, T.root);
  c.jumpToMessage(10);
  sched.flush();
  assert.equal(c.host.getFault(), null);
});

test('showMoreMessages (what /chat-render and Show more run) does not grow the DOM: the view jumps to the first requested message', async (t) => {
  const s = await opened(t, { count: 1000 });
  const { T, c, sched } = s;
  const first = mesids(T.root)[0];
  T.showMoreMessages(50);
  await tick();
  sched.flush();
  assert.equal(c.host.getFault(), null);
  assert.ok(mesids(T.root).includes(first - 50));
  assert.ok(T.mesEls().length <= 33);
  assertConsistent(T);
});

test('chat[] changed with no DOM write (insertAfter an unmounted message): the next sync renders it (C93)', async (t) => {
  const s = await opened(t, { count: 1000 });
  const { T, c, sched } = s;
  c.jumpToMessage(300);
  sched.flush();
  const m = { name: 'System', is_user: false, mes: 'inserted', extra: {} };
  T.chat.splice(100, 0, m);
  T.addOneMessageAfter(m, 99);
  await tick();
  c.sync();
  sched.flush();
  assert.equal(c.host.getFault(), null);
  assertConsistent(T);
  c.jumpToMessage(100);
  assert.equal(T.find(100).querySelector('.mes_text p').textContent, 'inserted');
});

// /message-role and /message-name (and extensions) re-render one message by
// putting SillyTavern's new element in place of the old: the same object at
// the same mesid, so the host kept its root and the old look stayed.
test('C93: a mounted root SillyTavern replaces with a new element for the same message remounts with that element', async (t) => {
  const { T, c, sched } = await opened(t, { count: 100 });
  const before = c.host.snapshot().mounted;
  const i = 97;
  assert.ok(before.includes(i));
  T.chat[i].name = 'Bram';
  T.chat[i].mes = 'renamed';
  const old = T.find(i);
  const fresh = T.st.renderMessage(T.chat[i], i);
  fresh.classList.add('from-st');
  old.after(fresh);
  old.remove();
  c.sync();
  sched.flush();
  assert.equal(c.host.getFault(), null);
  assert.equal(T.find(i), fresh, 'SillyTavern\'s element is the mounted root');
  assert.equal(fresh.querySelector('.name_text').textContent, 'Bram');
  assert.equal(fresh.querySelector('.mes_text p').textContent, 'renamed');
  assert.deepEqual(c.host.snapshot().mounted, before);
  assertConsistent(T);
});

// printMessages() without a clear (an extension after changing chat[] in
// place): vanilla re-renders the messages it shows, so every mounted one
// here is rendered again from chat[].
test('printMessages without a clear re-renders every mounted message from chat[]', async (t) => {
  const { T, c, sched } = await opened(t, { count: 100 });
  const mounted = c.host.snapshot().mounted;
  const i = mounted[1];
  T.chat[i].mes = 'changed in place';
  T.printMessages(1); // redisplayChat from the last message, #show_more_messages appended
  c.sync();
  sched.flush();
  assert.equal(c.host.getFault(), null);
  assert.equal(T.find(i).querySelector('.mes_text p').textContent, 'changed in place');
  assert.deepEqual(c.host.snapshot().mounted, mounted);
  assertConsistent(T);
});

test('a host fault reaches onFault and stops absorbing; the next chat opens afresh (C103, C106, C107)', async (t) => {
  const s = await opened(t, { count: 100 });
  const { T, c, sched, faults } = s;
  const render = T.st.renderMessage;
  T.st.renderMessage = () => { throw new Error('renderer broke'); };
  assert.throws(() => c.jumpToMessage(10), { message: 'renderer broke' });
  sched.flush();
  assert.equal(faults.length, 1);
  assert.equal(faults[0].message, 'renderer broke');
  assert.equal(c.state, 'faulted');
  T.st.renderMessage = render;
  const m = { name: 'User', is_user: true, mes: 'after fault', extra: {} };
  T.chat.push(m);
  T.addOneMessage(m);
  await tick();
  assert.equal(T.root.lastElementChild.textContent.includes('after fault'), true, 'SillyTavern still works on the stopped view');
  T.clearChat();
  T.printMessages(1);
  await c.chatChanged('chat-a');
  sched.flush();
  assert.equal(c.state, 'open');
  assert.equal(c.host.getFault(), null);
  assertConsistent(T);
});

test('runtimes stay within the admission budget while scrolling a dense chat; revokes leave placeholders (C69, C70)', async (t) => {
  const s = await opened(t, { count: 400, htmlEvery: 1, height: 2000 });
  const { T, c, sched } = s;
  rt.maxLive = rt.live;
  const placeholders = new Set();
  for (let k = 0; k < 40; k++) {
    T.root.scrollTop -= 250;
    T.root.dispatchEvent(new window.Event('scroll'));
    sched.flush();
    assert.ok(rt.live <= 8, `${rt.live} live`);
    assert.ok(T.mesEls().length <= 33);
    for (const p of T.root.querySelectorAll('.placeholder')) placeholders.add(p);
  }
  assert.ok(rt.maxLive <= 8);
  assert.ok(placeholders.size > 0, 'a revoked runtime left a placeholder');
  assert.equal(c.host.getFault(), null);
});

// A 1,000-message chat, the view at message 500, SillyTavern's editor open
// on it (and absorbed: transient, held).
async function editingAt500(t) {
  const s = await opened(t, { count: 1000 });
  s.c.jumpToMessage(500);
  s.sched.flush();
  const edited = s.T.chat[500];
  const ta = s.T.messageEdit(500);
  await tick();
  s.sched.flush();
  return { ...s, edited, ta };
}

// Helper-found (2026-12-05): with an editor open far up, a new message, a
// copy or the end button moved the view to the end, which unmounted the
// message being edited: the typed text was gone and SillyTavern still took
// the message for being edited (its next edit "saved" the message from its
// displayed text, markdown lost, or threw for a message with no element).
test('C96: with an editor open far up, a new last message does not take the view to the end; the end button refuses; the editor stays', async (t) => {
  const { T, c, sched, ta } = await editingAt500(t);
  ta.value = 'typed, not saved';
  assert.equal(c.host.snapshot().projectionHeld, true);
  const m = { name: 'User', is_user: true, mes: 'sent while editing', extra: {} };
  T.chat.push(m);
  T.addOneMessage(m);
  await tick();
  sched.flush();
  assert.equal(c.host.getFault(), null);
  assert.equal(T.find(500)?.querySelector('.edit_textarea'), ta, 'the editor and its text stay mounted');
  assert.equal(ta.value, 'typed, not saved');
  assert.equal(mesids(T.root).at(-1), 1000, 'the new message is the tail root');
  assert.equal(c.host.snapshot().followingTail, false);
  assert.equal(c.scrollToEnd(), false, 'the end would unmount the editor: refused');
  sched.flush();
  assert.equal(T.find(500)?.querySelector('.edit_textarea'), ta);
  assert.deepEqual(T.calls.editorsLost, []);
  T.messageEditDone(500);
  await tick();
  sched.flush();
  assert.equal(c.scrollToEnd(), true, 'once the edit is saved, the end is reachable');
  sched.flush();
  assert.equal(c.host.snapshot().followingTail, true);
  assert.equal(T.find(500), null);
  assertConsistent(T);
});

test('a message inserted above the last one (the editor\'s "copy", /sendas at=) does not scroll to the end, as in vanilla', async (t) => {
  const { T, c, sched, ta } = await editingAt500(t);
  const clone = { ...T.chat[500], mes: 'the copy', extra: {} };
  T.chat.splice(501, 0, clone);
  T.addOneMessageAfter(clone, 500);
  T.updateViewMessageIds();
  await tick();
  sched.flush();
  assert.equal(c.host.getFault(), null);
  assert.equal(T.find(500)?.querySelector('.edit_textarea'), ta, 'still editing 500');
  assert.equal(T.find(501)?.querySelector('.mes_text p')?.textContent, 'the copy');
  assert.equal(c.host.snapshot().followingTail, false);
  assert.deepEqual(T.calls.editorsLost, []);
  // With no editor, an insertion above the tail does not move the view either.
  T.messageEditDone(500);
  await tick();
  sched.flush();
  const top = T.root.scrollTop;
  const other = { name: 'Char', is_user: false, mes: 'inserted', extra: {} };
  T.chat.splice(502, 0, other);
  T.addOneMessageAfter(other, 501);
  T.updateViewMessageIds();
  await tick();
  sched.flush();
  assert.equal(c.host.snapshot().followingTail, false);
  assert.ok(Math.abs(T.root.scrollTop - top) < 300, `the view stayed (${top} → ${T.root.scrollTop})`);
  assertConsistent(T);
});

test('an editor whose message is remounted anyway (its mesid changed) ends SillyTavern\'s edit and says so', async (t) => {
  const { T, c, sched, edited } = await editingAt500(t);
  // chat[] changed with no DOM write: a message inserted far above.
  T.chat.splice(10, 0, { name: 'Char', is_user: false, mes: 'inserted above', extra: {} });
  c.sync();
  sched.flush();
  assert.equal(c.host.getFault(), null);
  assert.equal(T.root.querySelector('.edit_textarea'), null, 'the remounted message has no editor');
  assert.deepEqual(T.calls.editorsLost, [T.chat.indexOf(edited)]);
  assert.equal(c.host.snapshot().projectionHeld, false);
  assert.equal(c.stats.editorsLost, 1);
  // A deleted message's editor needs nothing: SillyTavern ends that edit itself.
  T.messageEdit(501);
  await tick();
  sched.flush();
  assert.equal(T.deleteMessage(501), true);
  await tick();
  sched.flush();
  assert.deepEqual(T.calls.editorsLost, [501]);
  assertConsistent(T);
});

test('every message the controller renders afresh passes through restoreView (view-state.js); adopted ones do not', async (t) => {
  const s = await opened(t, { count: 300 });
  const { T, c, sched } = s;
  T.calls.restored.length = 0;
  c.jumpToMessage(100);
  sched.flush();
  const ids = mesids(T.root).filter((i) => i !== 299);
  assert.ok(ids.length > 5);
  for (const i of ids) assert.ok(T.calls.restored.includes(i), `message ${i} restored`);
  const m = { name: 'User', is_user: true, mes: 'appended', extra: {} };
  T.chat.push(m);
  T.calls.restored.length = 0;
  T.addOneMessage(m);
  await tick();
  sched.flush();
  assert.ok(!T.calls.restored.includes(300), 'SillyTavern\'s own element is adopted as it is');
});

test('pinned settings read as managed mode needs; the user\'s values are what is saved', () => {
  const power_user = { chat_truncation: 100, auto_scroll_chat_to_bottom: true, other: 1 };
  const { saved, restore } = pinSettings(power_user);
  assert.equal(power_user.chat_truncation, PINNED.chat_truncation);
  assert.equal(power_user.auto_scroll_chat_to_bottom, false);
  power_user.chat_truncation = 50; // the settings slider
  assert.equal(power_user.chat_truncation, PINNED.chat_truncation);
  assert.equal(saved.chat_truncation, 50);
  const json = JSON.parse(JSON.stringify({ power_user }));
  assert.deepEqual(json.power_user, { chat_truncation: 50, auto_scroll_chat_to_bottom: true, other: 1 });
  restore();
  assert.equal(power_user.chat_truncation, 50);
  assert.equal(power_user.auto_scroll_chat_to_bottom, true);
  assert.deepEqual(Object.keys(power_user), ['chat_truncation', 'auto_scroll_chat_to_bottom', 'other']);
  assert.equal(JSON.stringify(power_user), '{"chat_truncation":50,"auto_scroll_chat_to_bottom":true,"other":1}');
});

// A resynchronisation (absorbing failed, a new epoch at the same place)
// renders the messages afresh, adopting the elements whose message kept its
// mesid: an edited message that kept it keeps its editor and the hold (C96);
// one that did not is lost, and SillyTavern's edit is ended as when it is
// remounted (above).
test('a resynchronisation keeps an editor whose message kept its mesid, and ends SillyTavern\'s edit of one that did not', async (t) => {
  const { T, c, sched, edited } = await editingAt500(t);
  // Absorbing fails once: SillyTavern's chat[] read throws at its second
  // read (the first is sync()'s structure check, outside absorbing).
  const failOnce = () => {
    const chatOf = T.st.chat;
    let reads = 0;
    T.st.chat = (...a) => { if (++reads === 2) { T.st.chat = chatOf; throw new Error('absorbing failed'); } return chatOf(...a); };
  };
  failOnce();
  c.sync(); // the edited message is transient: absorbing runs
  sched.flush();
  assert.equal(c.stats.resyncs, 1);
  const ed = T.root.querySelector('.edit_textarea');
  assert.notEqual(ed, null, 'the editor was adopted');
  assert.equal(ed.closest('.mes').getAttribute('mesid'), '500');
  assert.equal(c.host.snapshot().projectionHeld, true);
  assert.deepEqual(T.calls.editorsLost, []);
  failOnce();
  T.chat.splice(10, 0, { name: 'Char', is_user: false, mes: 'inserted above', extra: {} });
  c.sync();
  sched.flush();
  await tick();
  sched.flush();
  assert.equal(c.stats.resyncs, 2);
  assert.equal(c.host.getFault(), null);
  assert.equal(T.root.querySelector('.edit_textarea'), null);
  assert.deepEqual(T.calls.editorsLost, [T.chat.indexOf(edited)]);
  assert.equal(c.host.snapshot().projectionHeld, false);
  assertConsistent(T);
});
