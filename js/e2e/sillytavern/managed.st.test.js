// Managed mode inside the real SillyTavern 1.18.0 (issue #12's acceptance
// list): the built extension with chatSurface: 'managed' and the example
// participant (html-runtime) installed by copying their folders, a
// 10,000-message chat (every fifth message with an HTML-document block) and a
// dense 2,000-message chat (a block in every message), the mock model, and
// headless Chromium driving SillyTavern's own controls. The mutating actions
// are recorded and replayed on a vanilla SillyTavern (no extension at all),
// and the two chat files are compared.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import {
  REPO, CHARACTER, startSillyTavern, launchChromium, openSillyTavern, openChat, send, turn, waitIdle,
  openGroupChat, readGroupChat, until,
} from './harness.js';
import { startMockLLM } from './mock-llm.js';
import { makeMessages, chatFile } from '../st-managed/fixture.js';
import { ARTIFACTS } from '../browser.js';

const EXT = join(REPO, 'dist/sillytavern/tavern-core');
const EXAMPLE = join(REPO, 'dist/sillytavern/html-runtime');
const PLUGINS = join(REPO, 'js/e2e/sillytavern/plugins');
const SEED = join(REPO, 'js/test/fixtures/seed-example.js');
const SCROLL_RECORDER = join(REPO, 'js/e2e/sillytavern/scroll-recorder.js');
const LONG = 'long chat';
const DENSE = 'dense chat';
const EMPTIED = 'emptied chat';
const CUT = 'cut chat';
const BOUND = 33; // viewport window (≤ 32) plus the tail (C73)
const REPLY = ['The ', 'keeper ', 'sets ', 'down ', 'the ', 'lantern ', 'and ', 'answers ', 'slowly, ', 'word ', 'by ', 'word.'];

let mock;
let st;
let browser;
let page;
let errors;
const performed = []; // the mutating actions, replayed on vanilla SillyTavern

function writeChats(server) {
  const dir = join(server.userDir, 'chats', CHARACTER.chatDir);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, `${LONG}.jsonl`), chatFile(makeMessages({ count: 10000, character: CHARACTER.name })));
  writeFileSync(join(dir, `${DENSE}.jsonl`), chatFile(makeMessages({ count: 2000, htmlEvery: 1, htmlFirst: 0, seed: 7,
    character: CHARACTER.name }), { integrity: '22222222-0000-4000-8000-000000000000' }));
  writeFileSync(join(dir, `${EMPTIED}.jsonl`), chatFile(makeMessages({ count: 300, seed: 11, character: CHARACTER.name }),
    { integrity: '33333333-0000-4000-8000-000000000000' }));
  writeFileSync(join(dir, `${CUT}.jsonl`), chatFile(makeMessages({ count: 300, seed: 13, character: CHARACTER.name }),
    { integrity: '44444444-0000-4000-8000-000000000000' }));
}
const chatText = (server, name) => readFileSync(join(server.userDir, 'chats', CHARACTER.chatDir, `${name}.jsonl`), 'utf8');

async function startServer({ managed }) {
  const server = await startSillyTavern({
    mockUrl: mock.url,
    extensions: managed ? [{ name: 'tavern-core', dir: EXT }, { name: 'html-runtime', dir: EXAMPLE },
      { name: 'tavern-test-seed-example', dir: join(PLUGINS, 'seed-example'), files: [SEED] },
      { name: 'tavern-test-faulting-participant', dir: join(PLUGINS, 'faulting-participant') }] : [],
    settings: (s) => {
      if (managed) s.extension_settings = { ...s.extension_settings, 'tavern-core': { chatSurface: 'managed' } };
    },
  });
  writeChats(server);
  return server;
}

// Counters in the page: the most .mes, nodes under #chat and live runtime
// frames ever seen at once, and every placeholder seen.
async function watch(p) {
  await p.evaluate(() => {
    const chat = document.getElementById('chat');
    const w = { maxMes: 0, maxFrames: 0, placeholders: 0 };
    globalThis.__watch = w;
    const count = () => {
      w.maxMes = Math.max(w.maxMes, chat.querySelectorAll(':scope > .mes').length);
      w.maxFrames = Math.max(w.maxFrames, chat.querySelectorAll('iframe.html-runtime-frame').length);
      w.placeholders = Math.max(w.placeholders, chat.querySelectorAll('.html-runtime-placeholder').length);
    };
    new MutationObserver(count).observe(chat, { childList: true, subtree: true });
    count();
  });
}
const watched = () => page.evaluate(() => ({ ...globalThis.__watch }));
const snapshot = () => page.evaluate(() => {
  const s = globalThis.__tavernCoreExtension.managed.chat.host.snapshot();
  return { state: s.state, mounted: [...s.mounted], followingTail: s.followingTail, held: s.projectionHeld,
    active: s.runtime.active, fault: s.fault?.message ?? null };
});
const domCount = () => page.evaluate(() => ({
  mes: document.querySelectorAll('#chat > .mes').length,
  nodes: document.querySelectorAll('#chat *').length,
  last: document.querySelector('#chat > .mes:last-child')?.getAttribute('mesid'),
  lastMes: document.querySelector('#chat > .mes.last_mes')?.getAttribute('mesid'),
}));
const chatLength = (p = page) => p.evaluate(() => globalThis.SillyTavern.getContext().chat.length);
// A following check that fails leaves the page's scroll record
// (scroll-recorder.js) in artifacts/, and says where.
async function withScrollLog(name, check) {
  try {
    await check();
  } catch (e) {
    const file = join(ARTIFACTS, `managed-scroll-${name}.json`);
    mkdirSync(ARTIFACTS, { recursive: true });
    writeFileSync(file, JSON.stringify(await page.evaluate(() => globalThis.__scrollLog()).catch((err) => String(err)), null, 1));
    e.message += ` (what moved #chat: ${file})`;
    throw e;
  }
}
const frame = (p = page) => p.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));

// ---- the mutating actions, through SillyTavern's own controls ----
// Each addresses messages from the end, so the replay hits the same ones.
async function clickIn(p, mesid, selector) {
  await p.evaluate(({ mesid, selector }) => {
    const el = document.querySelector(`#chat > .mes[mesid="${mesid}"] ${selector}`);
    if (!el) throw new Error(`no ${selector} in message ${mesid}`);
    el.click();
  }, { mesid, selector });
}
// SillyTavern saves some actions a second later (saveChatDebounced), and a
// chat switch cancels a save still waiting: an action is done when the
// file on disk holds what chat[] holds at its end (its length and its last
// messages' text and swipes), not after a time. serverOf: page → server.
const serverOf = new WeakMap();
async function savedToDisk(p) {
  const server = serverOf.get(p);
  const tail = (length, last) => JSON.stringify({ length, last: last.map((m) => [m.mes, m.swipe_id ?? null, m.swipes?.length ?? null]) });
  let id, disk, want;
  await until(() => `chat ${id} saved: on disk ${disk}, in memory ${want}`, async () => {
    const mem = await p.evaluate(() => {
      const ctx = globalThis.SillyTavern.getContext();
      return { id: ctx.getCurrentChatId(), length: ctx.chat.length, last: ctx.chat.slice(-6) };
    });
    id = mem.id;
    disk = null;
    try {
      const saved = server.readChat(mem.id);
      disk = tail(saved.length, saved.slice(-6));
    } catch { /* not written yet */ }
    want = tail(mem.length, mem.last);
    return disk === want;
  }, { ms: 20_000, every: 100 });
}
const ACTIONS = {
  async send(p, text) {
    await turn(p, () => send(p, text));
  },
  async edit(p, back, text) {
    const mesid = (await chatLength(p)) - 1 - back;
    await clickIn(p, mesid, '.mes_edit');
    await p.waitForSelector('#curEditTextarea');
    await p.fill('#curEditTextarea', text);
    await clickIn(p, mesid, '.mes_edit_done');
    await p.waitForFunction((id) => !document.querySelector(`#chat .mes[mesid="${id}"] .edit_textarea`), mesid);
    await savedToDisk(p);
  },
  async delete(p, back) {
    const mesid = (await chatLength(p)) - 1 - back;
    const n = await chatLength(p);
    await clickIn(p, mesid, '.mes_edit');
    await p.waitForSelector('#curEditTextarea');
    await clickIn(p, mesid, '.mes_edit_delete');
    const ok = p.locator('.popup:visible .popup-button-ok');
    await ok.first().waitFor({ timeout: 3000 }).then(() => ok.first().click(), () => {});
    await p.waitForFunction((len) => globalThis.SillyTavern.getContext().chat.length === len - 1, n);
    await savedToDisk(p);
  },
  async swipeRight(p) {
    await turn(p, () => p.click('#chat .last_mes .swipe_right'));
    await savedToDisk(p);
  },
  async swipeLeft(p) {
    const id = await p.evaluate(() => globalThis.SillyTavern.getContext().chat.at(-1).swipe_id);
    await p.click('#chat .last_mes .swipe_left');
    await p.waitForFunction((was) => globalThis.SillyTavern.getContext().chat.at(-1).swipe_id === was - 1 &&
      globalThis.SillyTavern.getContext().swipe.state() === 'none', id);
    await savedToDisk(p);
  },
  async switchChats(p) {
    await openChat(p, DENSE);
    await p.waitForTimeout(500);
    await openChat(p, LONG);
    await p.waitForTimeout(500);
  },
};
async function act(name, ...args) {
  performed.push([name, ...args]);
  await ACTIONS[name](page, ...args);
}

before(async () => {
  assert.ok(existsSync(join(EXT, 'managed', 'controller.js')) && existsSync(join(EXAMPLE, 'manifest.json')),
    'run `make sillytavern` first');
  mock = await startMockLLM({ chunks: REPLY, delayMs: 120 });
  st = await startServer({ managed: true });
  st.chatName = LONG;
  browser = await launchChromium();
  await browser.context.addInitScript({ path: SCROLL_RECORDER });
  ({ page, errors } = await openSillyTavern(st, { context: browser.context }));
  serverOf.set(page, st);
  // The seed's takeover plugin is installed but declines until the last scenario.
  await page.evaluate(() => { globalThis.__seedPlugin.claim = false; });
  await watch(page);
});

after(async () => {
  await browser?.close();
  await st?.stop();
  await mock?.close();
});

test('managed mode is on before later extensions evaluate; the settings panel says so (C14, C139)', async () => {
  const seen = await page.evaluate(() => ({
    api: globalThis.__TAURITAVERN__.api.chatSurface.isManagedOwnershipRequired(),
    example: globalThis.htmlRuntimeExample.managed,
    registered: !!globalThis.htmlRuntimeExample.registration,
    mode: document.querySelector('#tavern_core_chat_surface').value,
    note: document.querySelector('#tavern_core_chat_surface_note').textContent,
    startup: globalThis.__tavernCoreExtension.managed.startup,
  }));
  assert.deepEqual(seen, { api: true, example: true, registered: true, mode: 'managed', note: 'This page: managed.', startup: 'done' });
});

test('a 10,000-message chat opens bounded (C73, C146)', async () => {
  assert.equal(await chatLength(), 10000);
  const d = await domCount();
  assert.ok(d.mes <= BOUND, `${d.mes} .mes`);
  assert.equal(d.last, '9999');
  assert.equal(d.lastMes, '9999');
  assert.ok(d.nodes < 4000, `${d.nodes} nodes under #chat`);
  const s = await snapshot();
  assert.equal(s.state, 'settled');
  assert.equal(s.fault, null);
  assert.equal(await page.evaluate(() => document.getElementById('show_more_messages')), null);
});

test('after the open the view follows the tail, and still does once runtimes settle (C87, C88)', () => withScrollLog('open-follows', async () => {
  assert.equal((await snapshot()).followingTail, true);
  // Runtime frames and avatars settle to their heights after the open: the
  // view still follows, at the real bottom (C87). While they settle the
  // browser clamps the offset and the content grows again before the scroll
  // event: layout, not a gesture (C88 as changed).
  await page.waitForTimeout(2000);
  assert.equal((await snapshot()).followingTail, true);
  assert.ok(await page.evaluate(() => {
    const c = document.getElementById('chat');
    return c.scrollTop + c.clientHeight >= c.scrollHeight - 2;
  }), 'at the real bottom');
}));

// SillyTavern's bubble chat style gives every message a 5 px bottom margin
// (and padding): a <body> class, with no event. The host keeps computed
// margins until refreshLayout(); before the controller asked for one, the
// view at the end stopped short of the real end by the margins it missed.
test('switching SillyTavern\'s chat style to bubbles and back re-lays out the view: at the end it stays at the real end', async () => {
  const atEnd = () => page.evaluate(() => {
    const c = document.getElementById('chat');
    return c.scrollHeight - c.clientHeight - c.scrollTop;
  });
  const refreshes = () => page.evaluate(() => globalThis.__tavernCoreExtension.managed.chat.stats.layoutRefreshes);
  const before = await refreshes();
  for (const style of ['1', '0']) {
    const n = await refreshes();
    await page.evaluate((v) => { globalThis.$('#chat_display').val(v).trigger('change'); }, style);
    await page.waitForFunction((b) => globalThis.__tavernCoreExtension.managed.chat.stats.layoutRefreshes > b, n);
    for (let i = 0; i < 10; i++) await frame();
    assert.equal(await page.evaluate(() => document.body.classList.contains('bubblechat')), style === '1');
    assert.ok(await atEnd() <= 2, `${style === '1' ? 'bubbles' : 'default'}: ${await atEnd()} px short of the end`);
    const s = await snapshot();
    assert.equal(s.followingTail, true);
    assert.equal(s.fault, null);
  }
  assert.ok(await refreshes() >= before + 2, 'one refresh per switch at least');
  // A custom CSS margin in em, then the font scale slider, which writes
  // --fontScale into <html>'s inline style (and nothing else): without a
  // refresh the view stopped 24 px short of the end.
  const was = await page.evaluate(() => {
    const css = document.createElement('style');
    css.id = 'tavern-core-test-em';
    css.textContent = '#chat .mes { margin-bottom: 1em; }';
    document.head.append(css);
    return document.documentElement.style.getPropertyValue('--fontScale');
  });
  try {
    for (const scale of ['1.4', was || '1']) {
      const n = await refreshes();
      await page.evaluate((v) => { document.documentElement.style.setProperty('--fontScale', v); }, scale);
      await page.waitForFunction((b) => globalThis.__tavernCoreExtension.managed.chat.stats.layoutRefreshes > b, n);
      for (let i = 0; i < 10; i++) await frame();
      assert.ok(await atEnd() <= 2, `font scale ${scale}: ${await atEnd()} px short of the end`);
    }
  } finally {
    await page.evaluate(() => document.getElementById('tavern-core-test-em')?.remove());
  }
  for (let i = 0; i < 10; i++) await frame();
  assert.ok(await atEnd() <= 2, `${await atEnd()} px short of the end after the CSS went`);
});

test('scroll across the whole chat, jump with /chat-jump, back with "to the end": the DOM stays bounded', async () => {
  const total = await page.evaluate(() => document.getElementById('chat').scrollHeight);
  for (let y = total; y > 0; y -= 25000) {
    await page.evaluate((top) => { document.getElementById('chat').scrollTop = top; }, y);
    await frame();
  }
  await page.evaluate(() => { document.getElementById('chat').scrollTop = 0; });
  await page.waitForFunction(() => globalThis.__tavernCoreExtension.managed.chat.host.snapshot().state === 'settled' &&
    document.querySelector('#chat > .mes[mesid="0"]'));
  assert.ok((await watched()).maxMes <= BOUND, `${(await watched()).maxMes} .mes at most`);
  assert.equal((await snapshot()).fault, null);

  await page.fill('#send_textarea', '/chat-jump 5000');
  await page.press('#send_textarea', 'Enter');
  await page.waitForFunction(() => {
    const el = document.querySelector('#chat > .mes[mesid="5000"]');
    if (!el) return false;
    const r = el.getBoundingClientRect();
    const c = document.getElementById('chat').getBoundingClientRect();
    return r.bottom > c.top && r.top < c.bottom;
  });
  assert.ok((await domCount()).mes <= BOUND);
  assert.equal((await snapshot()).followingTail, false);

  await page.waitForSelector('#tavern-core-to-end', { state: 'visible' });
  await page.click('#tavern-core-to-end');
  await page.waitForFunction(() => globalThis.__tavernCoreExtension.managed.chat.host.snapshot().followingTail);
  const d = await domCount();
  assert.equal(d.last, '9999');
  assert.ok(d.mes <= BOUND);
  assert.ok((await watched()).maxMes <= BOUND);
});

test('send a message: the reply streams at the tail, visible mid-stream, and the view follows it', async () => {
  const full = REPLY.join('');
  // An extension decorating the user's message on USER_MESSAGE_RENDERED, as
  // vanilla extensions do: the decoration stays through the reply (the
  // message is not SillyTavern's to write any more; it was made transient
  // and drawn again when the reply began).
  await page.evaluate(() => {
    const { eventSource, eventTypes: ev } = globalThis.SillyTavern.getContext();
    globalThis.__deco = (id) => {
      // (Inside the content's paragraph: a write of .mes_text's own
      // children is SillyTavern replacing the content, C45.)
      const t = document.querySelector(`#chat > .mes[mesid="${id}"] .mes_text p`);
      if (t) t.insertAdjacentHTML('afterbegin', '<span class="tt-test-deco">*</span>');
    };
    eventSource.on(ev.USER_MESSAGE_RENDERED, globalThis.__deco);
  });
  try {
    await act('send', 'Hello from the managed test');
  } finally {
    await page.evaluate(() => {
      const { eventSource, eventTypes: ev } = globalThis.SillyTavern.getContext();
      eventSource.removeListener(ev.USER_MESSAGE_RENDERED, globalThis.__deco);
    });
  }
  const n = await chatLength();
  assert.equal(await page.evaluate((id) => document.querySelector(`#chat > .mes[mesid="${id}"] .tt-test-deco`) !== null, n - 2), true,
    'the user message keeps what an extension added to it');
  assert.equal(n, 10002);
  const d = await domCount();
  assert.equal(d.last, String(n - 1));
  assert.equal(d.lastMes, String(n - 1));
  assert.equal(await page.evaluate(() => document.querySelector('#chat > .mes.last_mes .mes_text').textContent.trim()), full);
  assert.ok(d.mes <= BOUND);
  const s = await snapshot();
  assert.equal(s.followingTail, true);
  assert.equal(s.fault, null);
});

test('a second reply is seen streaming: partial text in the tail while generating', async () => {
  const full = REPLY.join('');
  const seen = new Set();
  await turn(page, async () => {
    performed.push(['send', 'And another question']);
    await send(page, 'And another question');
    await page.waitForFunction((f) => {
      const t = document.querySelector('#chat > .mes.last_mes .mes_text')?.textContent.trim() ?? '';
      return document.body.dataset.generating === 'true' && t.startsWith('The keeper') && t !== f;
    }, full, { timeout: 20000 });
    seen.add(await page.evaluate(() => document.querySelector('#chat > .mes.last_mes .mes_text').textContent.trim()));
    const visible = await page.evaluate(() => {
      const el = document.querySelector('#chat > .mes.last_mes');
      const r = el.getBoundingClientRect();
      const c = document.getElementById('chat').getBoundingClientRect();
      return r.bottom <= c.bottom + 2 && r.bottom > c.top;
    });
    assert.ok(visible, 'the streaming tail is in view');
  });
  assert.ok([...seen].every((t) => t !== full), 'a partial reply was on screen');
  assert.equal((await snapshot()).followingTail, true);
});

// SillyTavern marks the oldest message of the last prompt's context with
// .lastInContext (the context line) by counting rendered messages back from
// the end; with only the window rendered it missed (found by a tester,
// 2026-12-05). Ctrl+Shift+Up scrolls to it.
test('the context line is on the message SillyTavern means, mounted or not, and Ctrl+Shift+Up reaches it', async () => {
  const marked = () => page.evaluate(() => [...document.querySelectorAll('#chat > .mes.lastInContext')].map((e) => Number(e.getAttribute('mesid'))));
  // What vanilla would mark with every message rendered: the k-th counted
  // message from the end, k = chat.length - lastInContextMessageId.
  const target = await page.evaluate(() => {
    const { chat, chatMetadata } = globalThis.SillyTavern.getContext();
    const k = chat.length - chatMetadata.lastInContextMessageId;
    let seen = 0;
    for (let i = chat.length - 1; i >= 0; i--) if ((!chat[i].is_system || Array.isArray(chat[i].extra?.tool_invocations)) && ++seen === k) return i;
    return 0;
  });
  const mounted = (await snapshot()).mounted;
  assert.ok(!mounted.includes(target), `the context line's message ${target} is above the window (${mounted})`);
  assert.deepEqual(await marked(), [], 'no mounted message has a line that is not its own');
  await page.click('#chat');
  await page.keyboard.press('Control+Shift+ArrowUp');
  await page.waitForFunction((id) => {
    const el = document.querySelector(`#chat > .mes[mesid="${id}"]`);
    const c = document.getElementById('chat').getBoundingClientRect();
    const r = el?.getBoundingClientRect();
    return el?.classList.contains('lastInContext') && r.top < c.bottom && r.bottom > c.top;
  }, target, { timeout: 10000 });
  assert.deepEqual(await marked(), [target]);
  const toasts = await page.evaluate(() => [...document.querySelectorAll('#toast-container .toast')].map((t) => t.textContent));
  assert.ok(!toasts.some((t) => /Context line not found/.test(t)), String(toasts));
  await page.evaluate(() => globalThis.SillyTavern.getContext().executeSlashCommandsWithOptions('/chat-jump 20'));
  await page.evaluate((id) => globalThis.SillyTavern.getContext().executeSlashCommandsWithOptions(`/chat-jump ${id}`), target);
  await page.waitForFunction((id) => document.querySelector(`#chat > .mes[mesid="${id}"]`) !== null, target);
  assert.deepEqual(await marked(), [target], 'drawn again, it keeps the line');
  await page.evaluate(() => globalThis.__tavernCoreExtension.managed.chat.scrollToEnd());
});

// /reasoning-expand and -collapse over a range reach the messages that are
// not mounted, as they reach every rendered one in vanilla.
test('/reasoning-expand and /reasoning-collapse over a range reach messages mounted later', async () => {
  const n = await chatLength();
  const open = (id) => page.evaluate((i) => document.querySelector(`#chat > .mes[mesid="${i}"] details.mes_reasoning_details`)?.open ?? null, id);
  const run = (cmd) => page.evaluate((c) => globalThis.SillyTavern.getContext().executeSlashCommandsWithOptions(c), cmd);
  const jump = async (id) => {
    await run(`/chat-jump ${id}`);
    await page.waitForFunction((i) => document.querySelector(`#chat > .mes[mesid="${i}"]`) !== null, id);
  };
  await run(`/reasoning-expand ${n - 300}-${n - 1}`);
  await jump(n - 250);
  assert.equal(await open(n - 250), true, 'expanded while it was not mounted');
  await run(`/reasoning-collapse ${n - 300}-${n - 1}`);
  assert.equal(await open(n - 250), false, 'mounted: collapsed by SillyTavern\'s own command');
  await page.evaluate(() => globalThis.__tavernCoreExtension.managed.chat.scrollToEnd());
  await page.waitForTimeout(300);
  await jump(n - 280);
  assert.equal(await open(n - 280), false, 'collapsed while not mounted, after being expanded while not mounted');
  const toasts = await page.evaluate(() => [...document.querySelectorAll('#toast-container .toast')].map((t) => t.textContent));
  assert.ok(!toasts.some((t) => /No reasoning blocks found/.test(t)), String(toasts));
  await page.evaluate(() => globalThis.__tavernCoreExtension.managed.chat.scrollToEnd());
});

test('edit a mounted message with SillyTavern\'s editor: held while open, re-rendered after', async () => {
  const mesid = (await chatLength()) - 2;
  await clickIn(page, mesid, '.mes_edit');
  await page.waitForSelector('#curEditTextarea');
  assert.equal((await snapshot()).held, true, 'the window is pinned while the editor is open (C96)');
  // Moving the edited message would remount it under the open editor: refused.
  const order = await page.evaluate(() => globalThis.SillyTavern.getContext().chat.slice(-3).map((m) => m.mes));
  await clickIn(page, mesid, '.mes_edit_up');
  await page.waitForTimeout(300);
  assert.deepEqual(await page.evaluate(() => globalThis.SillyTavern.getContext().chat.slice(-3).map((m) => m.mes)), order);
  assert.ok(await page.evaluate((id) => !!document.querySelector(`#chat > .mes[mesid="${id}"] #curEditTextarea`), mesid));
  await page.fill('#curEditTextarea', 'Edited with SillyTavern\'s own editor');
  await clickIn(page, mesid, '.mes_edit_done');
  performed.push(['edit', 1, 'Edited with SillyTavern\'s own editor']);
  await page.waitForFunction((id) => !document.querySelector(`#chat .mes[mesid="${id}"] .edit_textarea`), mesid);
  await savedToDisk(page);
  assert.equal((await snapshot()).held, false);
  assert.equal(await page.evaluate((id) => document.querySelector(`#chat > .mes[mesid="${id}"] .mes_text`).textContent.trim(), mesid),
    'Edited with SillyTavern\'s own editor');
  assert.equal((await snapshot()).fault, null);
});

test('swipe the last message with SillyTavern\'s arrows: a new swipe, then back', async () => {
  await act('swipeRight');
  const last = await page.evaluate(() => {
    const m = globalThis.SillyTavern.getContext().chat.at(-1);
    return { id: m.swipe_id, n: m.swipes.length, counter: document.querySelector('#chat .last_mes .swipes-counter').textContent.replace(/\u200b/g, '').trim() };
  });
  assert.deepEqual(last, { id: 1, n: 2, counter: '2/2' });
  await act('swipeLeft');
  const back = await page.evaluate(() => globalThis.SillyTavern.getContext().chat.at(-1).swipe_id);
  assert.equal(back, 0);
  assert.equal((await snapshot()).fault, null);
  // From far up (the arrow keys swipe the last message wherever the view
  // is, as a phone's swipe gesture does): vanilla brings the view to the end
  // to show the new swipe (found by a tester, 2026-12-05).
  const n = await chatLength();
  await page.evaluate((id) => globalThis.SillyTavern.getContext().executeSlashCommandsWithOptions(`/chat-jump ${id}`), n - 200);
  await page.waitForFunction((id) => document.querySelector(`#chat > .mes[mesid="${id}"]`) !== null, n - 200);
  assert.equal((await snapshot()).followingTail, false);
  await page.click(`#chat > .mes[mesid="${n - 200}"] .mes_text`);
  await page.keyboard.press('ArrowRight');
  await page.waitForFunction(() => globalThis.SillyTavern.getContext().chat.at(-1).swipe_id === 1 && globalThis.SillyTavern.getContext().swipe.state() === 'none');
  await page.waitForFunction(() => {
    const c = document.getElementById('chat');
    return c.scrollHeight - c.clientHeight - c.scrollTop < 2 && document.querySelector('#chat > .mes.last_mes') !== null;
  }, null, { timeout: 10000 });
  assert.equal((await snapshot()).followingTail, true, 'at the end, following, with the new swipe in view');
  await ACTIONS.swipeLeft(page); // (back where it was: nothing for the vanilla replay)
  assert.equal(await page.evaluate(() => globalThis.SillyTavern.getContext().chat.at(-1).swipe_id), 0);
});

test('delete a mounted message with SillyTavern\'s controls', async () => {
  const n = await chatLength();
  await act('delete', 3);
  assert.equal(await chatLength(), n - 1);
  const d = await domCount();
  assert.equal(d.last, String(n - 2));
  assert.ok(d.mes <= BOUND);
  // Every mounted root shows the message now at its mesid.
  const mismatches = await page.evaluate(() => {
    const chat = globalThis.SillyTavern.getContext().chat;
    return [...document.querySelectorAll('#chat > .mes')].filter((el) => {
      const m = chat[Number(el.getAttribute('mesid'))];
      return el.querySelector('.ch_name .name_text').textContent !== m.name ||
        el.getAttribute('is_user') !== String(m.is_user);
    }).length;
  });
  assert.equal(mismatches, 0);
  assert.equal((await snapshot()).fault, null);
});

test('switch chats and back; in the dense chat runtimes never exceed 8 live and revoked ones leave placeholders (C69, C70, C107)', async () => {
  performed.push(['switchChats']);
  await openChat(page, DENSE);
  await page.waitForFunction(() => globalThis.__tavernCoreExtension.managed.chat.host.snapshot().state === 'settled');
  assert.equal(await chatLength(), 2000);
  await page.evaluate(() => { Object.assign(globalThis.__watch, { maxFrames: 0, placeholders: 0 }); });
  for (let k = 0; k < 60; k++) {
    await page.mouse.move(640, 400);
    await page.mouse.wheel(0, -400);
    await page.waitForTimeout(40);
  }
  await page.waitForTimeout(600);
  const w = await watched();
  assert.ok(w.maxFrames <= 8, `${w.maxFrames} live frames at once`);
  assert.ok(w.maxFrames > 0, 'runtimes were granted');
  assert.ok(w.placeholders > 0, 'a revoked runtime left a placeholder');
  assert.ok(w.maxMes <= BOUND);
  const stats = await page.evaluate(() => globalThis.htmlRuntimeExample.stats);
  assert.ok(stats.maxLive <= 8 && stats.revokes > 0 && stats.abortedAtRevoke === stats.revokes, JSON.stringify(stats));
  await openChat(page, LONG);
  await page.waitForFunction(() => globalThis.__tavernCoreExtension.managed.chat.host.snapshot().state === 'settled');
  const d = await domCount();
  assert.equal(d.last, String((await chatLength()) - 1));
  assert.ok(d.mes <= BOUND);
  assert.equal((await snapshot()).fault, null);
});


// Wall-clock fields differ between any two runs; everything else must not.
// The header's chat_metadata keys are compared in sorted order: SillyTavern
// adds them as its features first touch the chat (timedWorldInfo at the
// first world-info scan, tainted at the first send), so their order depends
// on timing between any two runs, vanilla or not.
const TIME_KEYS = new Set(['send_date', 'gen_started', 'gen_finished', 'time_to_first_token', 'reasoning_duration']);
const sortKeys = (o) => Object.fromEntries(Object.keys(o).sort().map((k) => [k, o[k]]));
function normalised(text) {
  return text.split('\n').map((line, i) => JSON.stringify(JSON.parse(line), (k, v) => {
    if (TIME_KEYS.has(k)) return '<time>';
    if (i === 0 && k === 'chat_metadata') return sortKeys(v);
    return v;
  }));
}

test('the chat file on disk is exactly what vanilla SillyTavern writes for the same actions', async () => {
  await savedToDisk(page);
  const managedLong = chatText(st, LONG);
  const managedDense = chatText(st, DENSE);
  assert.ok(performed.length >= 6, JSON.stringify(performed));
  // The actions did write: two turns (4 messages) less one deletion, the edit, the swipes.
  const lines = managedLong.split('\n');
  assert.equal(lines.length, 1 + 10000 + 4 - 1);
  assert.ok(lines.some((l) => JSON.parse(l).mes === 'Edited with SillyTavern\'s own editor'));
  assert.equal(JSON.parse(lines.at(-1)).swipes.length, 2);
  const vanilla = await startServer({ managed: false });
  vanilla.chatName = LONG;
  const b = await launchChromium();
  try {
    const v = await openSillyTavern(vanilla, { context: b.context });
    serverOf.set(v.page, vanilla);
    for (const [name, ...args] of performed) await ACTIONS[name](v.page, ...args);
    await waitIdle(v.page);
    await savedToDisk(v.page);
    const vanillaLong = chatText(vanilla, LONG);
    const a = normalised(managedLong);
    const z = normalised(vanillaLong);
    assert.equal(a.length, z.length, 'same number of lines');
    for (let i = 0; i < z.length; i++) assert.equal(a[i], z[i], `line ${i + 1}`);
    assert.deepEqual(normalised(managedDense), normalised(chatText(vanilla, DENSE)));
  } finally {
    await b.close();
    await vanilla.stop();
  }
});

// SillyTavern highlights a reply's code block after the stream, which
// resizes its root; deleting the reply before the next frame rendered a
// layout one message shorter with that size still to apply (C85): the core
// panicked, the controller started a new epoch and every root on screen was
// rebuilt (cards reloaded, decorations lost). Outside the vanilla replay.
test('a reply with a code block deleted at once: the other roots stay, no resynchronisation (C28, C85)', async () => {
  const logged = [];
  const onConsole = (m) => { if (m.type() === 'error') logged.push(m.text()); };
  page.on('console', onConsole);
  try {
    mock.setReply({ chunks: ['Here:\n\n', '```js\nconst x = 1;\n```', '\n\nDone.'], delayMs: 40 });
    await ACTIONS.send(page, 'Show me code');
    await page.waitForFunction(() => document.querySelector('#chat .last_mes .mes_text pre code') !== null);
    const n = await chatLength();
    await page.evaluate(() => { globalThis.__kept = new WeakSet(document.querySelectorAll('#chat > .mes:not(.last_mes)')); });
    await ACTIONS.delete(page, 0);
    assert.equal(await chatLength(), n - 1);
    const kept = await page.evaluate(() => [...document.querySelectorAll('#chat > .mes')].filter((el) => globalThis.__kept.has(el)).length);
    const d = await domCount();
    // (The window may mount one message above and remount the new last one.)
    assert.ok(kept >= d.mes - 2, `${kept} of ${d.mes} roots kept`);
    assert.equal((await snapshot()).fault, null);
    assert.deepEqual(logged.filter((t) => /tavern-core/.test(t)), []);
    await ACTIONS.delete(page, 0); // the question too: the chat is as it was
  } finally {
    page.off('console', onConsole);
    mock.setReply({ chunks: REPLY, delayMs: 120 });
  }
});

test('a turn taken over by the seed\'s plugin streams and commits at the tail in managed mode (T56–T58)', async () => {
  await page.evaluate(() => Object.assign(globalThis.__seedPlugin, { claim: true, chunks: ['Hel', 'lo ', 'from ', 'the ', 'plugin.'], delayMs: 250 }));
  const asked = mock.completions.length;
  await turn(page, async () => {
    await send(page, 'Over to the plugin');
    await page.waitForFunction(() => {
      const t = document.querySelector('#chat > .mes.last_mes .mes_text')?.textContent.trim() ?? '';
      return document.body.dataset.generating === 'true' && t.startsWith('Hel') && t !== 'Hello from the plugin.';
    }, null, { timeout: 20000 });
  });
  assert.equal(await page.evaluate(() => document.querySelector('#chat > .mes.last_mes .mes_text').textContent.trim()), 'Hello from the plugin.');
  assert.equal(await page.evaluate(() => globalThis.SillyTavern.getContext().chat.at(-1).mes), 'Hello from the plugin.');
  assert.equal(mock.completions.length, asked, 'the model was not asked');
  const d = await domCount();
  assert.equal(d.last, String((await chatLength()) - 1));
  assert.ok(d.mes <= BOUND);
  assert.equal((await snapshot()).fault, null);
});

test('Continue started while reading far up brings the view to the tail, as vanilla\'s streamed continue scrolls to the bottom', () => withScrollLog('continue-follows', async () => {
  await page.evaluate(() => Object.assign(globalThis.__seedPlugin, { claim: false }));
  mock.setReply({ chunks: REPLY.map((w) => w.toUpperCase()), delayMs: 120 });
  await page.fill('#send_textarea', '/chat-jump 3000');
  await page.press('#send_textarea', 'Enter');
  await page.waitForSelector('#chat > .mes[mesid="3000"]');
  await page.waitForFunction(() => !globalThis.__tavernCoreExtension.managed.chat.host.snapshot().followingTail);
  const before = await page.evaluate(() => globalThis.SillyTavern.getContext().chat.at(-1).mes);
  await turn(page, async () => {
    await page.click('#options_button');
    await page.click('#option_continue');
    // While it streams, the tail is in view and followed.
    await page.waitForFunction((b) => {
      const el = document.querySelector('#chat > .mes.last_mes');
      const t = el?.querySelector('.mes_text')?.textContent.trim() ?? '';
      if (document.body.dataset.generating !== 'true' || t.length <= b.trim().length) return false;
      const r = el.getBoundingClientRect();
      const c = document.getElementById('chat').getBoundingClientRect();
      return r.bottom <= c.bottom + 2 && r.bottom > c.top && globalThis.__tavernCoreExtension.managed.chat.host.snapshot().followingTail;
    }, before, { timeout: 20000 });
  });
  assert.ok((await page.evaluate(() => globalThis.SillyTavern.getContext().chat.at(-1).mes)).startsWith(before.trim()));
  assert.equal(await page.locator('#chat > .mes[mesid="3000"]').count(), 0, 'the window moved to the end');
  assert.ok((await domCount()).mes <= BOUND);
  assert.equal((await snapshot()).fault, null);
  mock.setReply({ chunks: REPLY, delayMs: 120 });
}));

test('a group chat opens bounded too; both members\' replies, one model-made and one taken over, mount at the tail under their names', async () => {
  const chatId = 'managed group';
  const group = await openGroupChat(page, chatId);
  await page.waitForFunction(() => globalThis.__tavernCoreExtension.managed.chat.host.snapshot().state === 'settled', null, { timeout: 20000 });
  const opened = await snapshot();
  assert.equal(opened.fault, null);
  // Seraphina's turn is the model's, Bram's the plugin's (its shouldTakeover
  // asks the turn's speaker, SillyTavern's name2, through the context).
  await page.evaluate(() => Object.assign(globalThis.__seedPlugin, { claim: () => globalThis.SillyTavern.getContext().name2 === 'Bram', chunks: ['Maps ', 'for ', 'all.'], delayMs: 60 }));
  mock.setReply({ chunks: REPLY, delayMs: 20 });
  const asked = mock.completions.length;
  const base = await chatLength();
  await send(page, 'Hello, table');
  await page.waitForFunction((k) => globalThis.SillyTavern.getContext().chat.length >= k, base + 3, { timeout: 30000 });
  await waitIdle(page);
  const chat = await page.evaluate(() => globalThis.SillyTavern.getContext().chat.slice(-3).map((m) => [m.name, m.mes, m.original_avatar ?? null]));
  assert.deepEqual(chat, [['User', 'Hello, table', null], [CHARACTER.name, REPLY.join(''), CHARACTER.avatar], ['Bram', 'Maps for all.', group.avatar]]);
  assert.equal(mock.completions.length, asked + 1, 'only Seraphina\'s turn reached the model');
  const shown = await page.evaluate((from) => [...document.querySelectorAll('#chat > .mes')].filter((el) => Number(el.getAttribute('mesid')) >= from)
    .map((el) => [el.querySelector('.name_text')?.textContent.trim(), el.querySelector('.mes_text').textContent.trim()]), base);
  assert.deepEqual(shown, [['User', 'Hello, table'], [CHARACTER.name, REPLY.join('')], ['Bram', 'Maps for all.']]);
  const s = await snapshot();
  assert.equal(s.fault, null);
  assert.equal(s.followingTail, true);
  assert.equal(s.mounted.at(-1), base + 2);
  assert.ok((await domCount()).mes <= BOUND);
  // The saved group chat, once SillyTavern's save lands (a poll, not a time).
  const want = JSON.stringify([['User', 'Hello, table'], [CHARACTER.name, REPLY.join('')], ['Bram', 'Maps for all.']]);
  const savedTail = () => JSON.stringify(readGroupChat(st, chatId).slice(-3).map((m) => [m.name, m.mes]));
  await until(() => `the group chat saved; its last messages: ${savedTail()}`, () => savedTail() === want);
  assert.equal(savedTail(), want);
  await page.evaluate(() => Object.assign(globalThis.__seedPlugin, { claim: false }));
});

// Deleting every message used to end the managed view for that chat with no
// notice (taken for SillyTavern clearing #chat), and every message added
// after rendered unbounded until the next chat switch.
test('a chat emptied with /cut stays managed; the messages added after mount bounded', async () => {
  await openChat(page, EMPTIED);
  await page.waitForFunction(() => globalThis.__tavernCoreExtension.managed.chat.host.snapshot().state === 'settled', null, { timeout: 20000 });
  const run = (c) => page.evaluate((c) => globalThis.SillyTavern.getContext().executeSlashCommandsWithOptions(c), c);
  await run('/cut 0-299');
  await page.waitForFunction(() => globalThis.SillyTavern.getContext().chat.length === 0, null, { timeout: 30000 });
  for (let i = 0; i < 40; i++) await run(`/sys note ${i}`);
  await page.waitForFunction(() => document.querySelector('#chat > .mes.last_mes')?.getAttribute('mesid') === '39', null, { timeout: 20000 });
  await frame();
  const state = await page.evaluate(() => ({
    controller: globalThis.__tavernCoreExtension.managed.chat.state,
    bounded: document.getElementById('chat').hasAttribute('data-tt-chat-surface'),
    count: globalThis.__tavernCoreExtension.managed.chat.host.snapshot().messageCount,
  }));
  assert.deepEqual(state, { controller: 'open', bounded: true, count: 40 });
  const d = await domCount();
  assert.ok(d.mes < 40 && d.mes <= BOUND, `${d.mes} mounted`);
  assert.equal(d.last, '39');
  assert.equal((await snapshot()).fault, null);
});

// /message-role and /message-name re-render a message by putting a new
// element in place of the old one: the same message at the same mesid, so
// the host kept its root and the old look stayed until a remount.
test('a message SillyTavern re-renders as a new element (/message-role, /message-name) shows the new look (C93 replace)', async () => {
  await openChat(page, LONG);
  await page.waitForFunction(() => globalThis.__tavernCoreExtension.managed.chat.host.snapshot().state === 'settled', null, { timeout: 20000 });
  const run = (c) => page.evaluate((c) => globalThis.SillyTavern.getContext().executeSlashCommandsWithOptions(c), c);
  await run('/message-role at=9997 user');
  await run('/message-name at=9998 Bram');
  await page.waitForFunction(() => document.querySelector('#chat > .mes[mesid="9997"]')?.getAttribute('is_user') === 'true' &&
    document.querySelector('#chat > .mes[mesid="9998"] .name_text')?.textContent.trim() === 'Bram', null, { timeout: 10000 });
  assert.equal((await snapshot()).fault, null);
  assert.equal(await page.evaluate(() => globalThis.__tavernCoreExtension.managed.chat.state), 'open');
});

// Found by testers: SillyTavern's /del N and /cut N look for their message
// in #chat only above the first one shown, and updateMessageBlock (which
// /reasoning-set, Translate and extensions call after changing chat[])
// throws for a message with no element. A message between the window and
// the last one is not mounted, so each threw a TypeError and the caller
// stopped half-way. Managed mode jumps to a message /del or /cut deletes,
// and a redraw of an unmounted message does nothing (it is drawn from
// chat[] when it mounts).
test('/del, /cut, /reasoning-set and updateMessageBlock on a message between the window and the last one act on it, as in vanilla', async () => {
  await openChat(page, CUT);
  const settled = () => page.waitForFunction(() => globalThis.__tavernCoreExtension.managed.chat.host.snapshot().state === 'settled', null, { timeout: 20000 });
  await settled();
  const run = (c) => page.evaluate(async (c) => {
    const r = await globalThis.SillyTavern.getContext().executeSlashCommandsWithOptions(c);
    return { pipe: r.pipe, isError: r.isError, message: r.errorMessage ?? null };
  }, c);
  const chatNow = () => page.evaluate(() => globalThis.SillyTavern.getContext().chat.map((m) => ({ mes: m.mes, reasoning: m.extra?.reasoning ?? '' })));
  const mounted = (id) => page.evaluate((id) => document.querySelector(`#chat > .mes[mesid="${id}"]`) !== null, id);
  await run('/chat-jump 100');
  await settled();
  assert.equal(await mounted(298), false, 'the message /del 2 starts at is outside the window');
  const before = await chatNow();
  let r = await run('/del 2');
  assert.deepEqual({ isError: r.isError, message: r.message }, { isError: false, message: null });
  assert.deepEqual((await chatNow()).map((m) => m.mes), before.slice(0, 298).map((m) => m.mes));
  await run('/chat-jump 100');
  await settled();
  assert.equal(await mounted(250), false);
  // A range SillyTavern refuses moves nothing.
  r = await run('/cut 250-99999');
  assert.equal(await mounted(250), false, 'no jump for a refused range');
  assert.equal((await chatNow()).length, 298);
  r = await run('/cut 250');
  assert.equal(r.isError, false, r.message);
  assert.equal(r.pipe, `${before[250].mes}\n`);
  assert.deepEqual((await chatNow()).map((m) => m.mes), [...before.slice(0, 250), ...before.slice(251, 298)].map((m) => m.mes));

  // At the end: /reasoning-set and an extension's redraw of unmounted messages.
  await run('/chat-jump 296');
  await settled();
  assert.equal(await mounted(200), false);
  r = await run('/reasoning-set at=200 Fresh thoughts');
  assert.deepEqual({ pipe: r.pipe, isError: r.isError }, { pipe: 'Fresh thoughts', isError: false });
  assert.equal((await chatNow())[200].reasoning, 'Fresh thoughts');
  assert.equal(await mounted(200), false, 'the view stays where it was, as in vanilla');
  const redraw = await page.evaluate(async () => {
    const { updateMessageBlock } = await import('/script.js');
    const ctx = globalThis.SillyTavern.getContext();
    ctx.chat[190].mes = 'Rewritten by an extension.';
    try {
      updateMessageBlock(190, ctx.chat[190]);
    } catch (e) {
      return String(e);
    }
    await ctx.eventSource.emit(ctx.eventTypes.MESSAGE_UPDATED, 190);
    await ctx.saveChat();
    return 'ok';
  });
  assert.equal(redraw, 'ok');
  await run('/chat-jump 200');
  await page.waitForFunction(() => document.querySelector('#chat > .mes[mesid="200"] .mes_reasoning')?.textContent.includes('Fresh thoughts'), null, { timeout: 10000 });
  await run('/chat-jump 190');
  await page.waitForFunction(() => document.querySelector('#chat > .mes[mesid="190"] .mes_text')?.textContent.includes('Rewritten by an extension.'), null, { timeout: 10000 });
  assert.equal((await snapshot()).fault, null);
  assert.equal(await page.evaluate(() => globalThis.__tavernCoreExtension.managed.chat.state), 'open');
});

// The view settled (the host's state), and a slash command run as typed.
const settledView = () => page.waitForFunction(() => globalThis.__tavernCoreExtension.managed.chat.host.snapshot().state === 'settled', null, { timeout: 20000 });
const slash = (c) => page.evaluate((c) => globalThis.SillyTavern.getContext().executeSlashCommandsWithOptions(c), c);

// Found by a tester (2026-12-05): with SillyTavern's editor open far up, a
// new message (a send, /sys), the "to the end" button or the editor's own
// "copy" moved the view to the end, unmounting the message being edited:
// the typed text was gone, and SillyTavern, still taking that message for
// being edited, "saved" it from its displayed text at the next pencil
// click (markdown lost) or threw a TypeError when it was not mounted.
test('an editor open far up stays open with its text while messages arrive and "to the end" is pressed (C96)', async () => {
  await openChat(page, LONG);
  await settledView();
  // A message with markdown to lose, far from the end.
  const M = await page.evaluate(() => globalThis.SillyTavern.getContext().chat.findIndex((m, i) => i >= 5000 && /\*/.test(m.mes)));
  assert.ok(M >= 5000 && M < 6000, `message ${M}`);
  await slash(`/chat-jump ${M}`);
  await settledView();
  const orig = await page.evaluate((M) => globalThis.SillyTavern.getContext().chat[M].mes, M);
  await clickIn(page, M, '.mes_edit');
  await page.waitForSelector('#curEditTextarea');
  await page.fill('#curEditTextarea', `${orig} (typed)`);
  const n = await chatLength();
  await slash('/sys A narrator line, sent while editing.');
  await page.waitForFunction((n) => globalThis.SillyTavern.getContext().chat.length === n + 1, n);
  await page.waitForTimeout(500);
  const editor = () => page.evaluate(() => {
    const ta = document.querySelector('#curEditTextarea');
    return ta === null ? null : { mesid: ta.closest('#chat > .mes')?.getAttribute('mesid'), value: ta.value };
  });
  assert.deepEqual(await editor(), { mesid: String(M), value: `${orig} (typed)` });
  assert.equal((await domCount()).last, String(n), 'the new message is the tail');
  await page.waitForSelector('#tavern-core-to-end', { state: 'visible' });
  await page.click('#tavern-core-to-end');
  await page.waitForTimeout(500);
  assert.deepEqual(await editor(), { mesid: String(M), value: `${orig} (typed)` }, 'the end button refused to leave the editor');
  assert.equal((await snapshot()).held, true);
  // SillyTavern's own next pencil click saves the open edit first, as in vanilla.
  await clickIn(page, M + 1, '.mes_edit');
  await page.waitForFunction((M) => document.querySelector('#curEditTextarea')?.closest('#chat > .mes')?.getAttribute('mesid') === String(M + 1), M);
  assert.equal(await page.evaluate((M) => globalThis.SillyTavern.getContext().chat[M].mes, M), `${orig} (typed)`);
  await clickIn(page, M + 1, '.mes_edit_cancel');
  await page.waitForFunction(() => document.querySelector('#curEditTextarea') === null);
  await page.click('#tavern-core-to-end');
  await page.waitForFunction(() => globalThis.__tavernCoreExtension.managed.chat.host.snapshot().followingTail === true);
  assert.equal((await snapshot()).fault, null);
});

// /sendas at= splices the message into chat[], saves, tells MESSAGE_RECEIVED and
// reloads the chat. Which of two paths ends the edit depends on timing: the
// controller, absorbing MESSAGE_RECEIVED, remounts the edited message under its
// new mesid and ends SillyTavern's edit itself (editorsLost 1); or the reload's
// clearChat() gets there first and cancels the edit (editorsLost 0). What the
// user sees must be the same either way, and that is what this checks. (The
// controller's own ending is checked in js/test/st-managed.test.js.)
test('an editor whose message is remounted under a new mesid (/sendas at= above it) is ended cleanly: the next edit works', async () => {
  const M = 4000;
  await slash(`/chat-jump ${M}`);
  await settledView();
  const orig = await page.evaluate((M) => globalThis.SillyTavern.getContext().chat[M].mes, M);
  const lost = await page.evaluate(() => globalThis.__tavernCoreExtension.managed.chat.stats.editorsLost);
  await clickIn(page, M, '.mes_edit');
  await page.waitForSelector('#curEditTextarea');
  await slash(`/sendas name=Bram at=10 Inserted far above.`);
  await page.waitForFunction(() => document.querySelector('#curEditTextarea') === null && !globalThis.__tavernCoreExtension.managed.chat.host.snapshot().projectionHeld);
  await settledView();
  assert.ok(await page.evaluate(() => globalThis.__tavernCoreExtension.managed.chat.stats.editorsLost) - lost <= 1);
  // SillyTavern no longer takes the message for being edited: the next pencil
  // click edits its own message, and nothing is "saved" from a display.
  // Picked and clicked in one evaluate: runtimes still start at the tail
  // after the state reads settled, and a message measured taller can
  // unmount another between two round trips.
  const other = await page.evaluate(() => {
    const mes = document.querySelector('#chat > .mes:not(.last_mes)');
    mes.querySelector('.mes_edit').click();
    return Number(mes.getAttribute('mesid'));
  });
  await page.waitForFunction((id) => document.querySelector('#curEditTextarea')?.closest('#chat > .mes')?.getAttribute('mesid') === String(id), other);
  await clickIn(page, other, '.mes_edit_cancel');
  await page.waitForFunction(() => document.querySelector('#curEditTextarea') === null);
  assert.equal(await page.evaluate((M) => globalThis.SillyTavern.getContext().chat[M + 1].mes, M), orig, 'the edited message is unchanged');
  assert.equal((await snapshot()).fault, null);
});

test('delete mode: messages mounted while it is on can be selected, and the selection shows on every mounted message after it', async () => {
  await slash('/chat-jump 3000');
  await settledView();
  await page.click('#options_button');
  await page.click('#option_delete_mes');
  await page.waitForSelector('#dialogue_del_mes', { state: 'visible' });
  const marks = () => page.evaluate(() => [...document.querySelectorAll('#chat > .mes')].map((e) => ({
    id: Number(e.getAttribute('mesid')), box: getComputedStyle(e.querySelector('.del_checkbox')).display !== 'none',
    selected: e.classList.contains('selected'), checked: e.querySelector('.del_checkbox').checked,
  })));
  await page.evaluate(() => document.querySelector('#chat > .mes[mesid="3002"]').click());
  const scrollBy = async (dy) => {
    await page.evaluate((dy) => { document.getElementById('chat').scrollTop += dy; }, dy);
    await page.waitForTimeout(600);
    await settledView();
  };
  await scrollBy(-8000);
  let seen = await marks();
  assert.ok(seen.every((m) => m.box), `every mounted message shows its checkbox: ${JSON.stringify(seen)}`);
  assert.ok(!seen.some((m) => m.id < 3002 && m.selected));
  await scrollBy(8000);
  seen = (await marks()).filter((m) => m.id >= 3002);
  assert.ok(seen.length > 1 && seen.every((m) => m.selected && m.checked && m.box), JSON.stringify(seen));
  // A message that mounted only after delete mode began is selectable.
  await scrollBy(-8000);
  const picked = await page.evaluate(() => {
    const els = [...document.querySelectorAll('#chat > .mes')].filter((e) => !e.classList.contains('last_mes'));
    const e = els[Math.floor(els.length / 2)];
    e.click();
    return Number(e.getAttribute('mesid'));
  });
  assert.ok(picked < 2990, `picked ${picked}`);
  seen = await marks();
  assert.ok(seen.filter((m) => m.id >= picked).every((m) => m.selected), JSON.stringify(seen));
  assert.ok(seen.filter((m) => m.id < picked).every((m) => !m.selected));
  // Cancel: nothing deleted, and later mounts show no checkbox.
  const n = await chatLength();
  await page.click('#dialogue_del_mes_cancel');
  await scrollBy(-8000);
  seen = await marks();
  assert.ok(seen.every((m) => !m.box && !m.selected), JSON.stringify(seen));
  assert.equal(await chatLength(), n);
  assert.equal((await snapshot()).fault, null);
});

test('Ctrl+Up in the empty chat bar edits the chat\'s last user message while reading far up, as in vanilla', async () => {
  await slash('/chat-jump 2000');
  await settledView();
  const lastUser = await page.evaluate(() => globalThis.SillyTavern.getContext().chat.findLastIndex((m) => m.is_user));
  assert.equal(await page.evaluate((i) => document.querySelector(`#chat > .mes[mesid="${i}"]`) === null, lastUser), true,
    'the last user message is not mounted');
  await page.fill('#send_textarea', '');
  await page.focus('#send_textarea');
  await page.keyboard.press('Control+ArrowUp');
  await page.waitForSelector('#curEditTextarea');
  assert.equal(await page.evaluate(() => document.querySelector('#curEditTextarea').closest('#chat > .mes').getAttribute('mesid')), String(lastUser));
  await clickIn(page, lastUser, '.mes_edit_cancel');
  await page.waitForFunction(() => document.querySelector('#curEditTextarea') === null);
  assert.equal((await snapshot()).fault, null);
});

test('the "# of messages to load" slider shows the value it saves, not the one managed mode pins', async () => {
  const shown = await page.evaluate(() => {
    const slider = document.getElementById('chat_truncation');
    slider.value = '60';
    slider.dispatchEvent(new Event('input', { bubbles: true }));
    return { counter: document.getElementById('chat_truncation_counter').value,
      saved: globalThis.__tavernCoreExtension.managed.userSettings.chat_truncation,
      pinned: globalThis.SillyTavern.getContext().powerUserSettings.chat_truncation };
  });
  assert.deepEqual(shown, { counter: '60', saved: 60, pinned: 1 });
});

// A participant fault is permanent for the page (C23): every later
// resetEpoch rethrows it (C108), so no bounded epoch opens again. With the
// settings still pinned, SillyTavern showed every later chat as its last
// message ("Show more" adding one at a time) until a reload. Managed mode
// stands down instead: the user's settings come back and SillyTavern shows
// chats itself. Last in the file: nothing bounded follows it.
test('after a participant fault the next chat switch hands the chat back to SillyTavern, with the user\'s settings (C23, C108)', async () => {
  await openChat(page, LONG);
  await page.waitForFunction(() => globalThis.__tavernCoreExtension.managed.chat.host.snapshot().state === 'settled', null, { timeout: 20000 });
  const truncation = await page.evaluate(() => globalThis.__tavernCoreExtension.managed.userSettings.chat_truncation);
  assert.ok(truncation > 1, `the user's chat_truncation is ${truncation}`);
  await page.evaluate(() => globalThis.__faultingParticipant.fault(new Error('the participant lost its worker')));
  assert.equal(await page.evaluate(() => globalThis.__tavernCoreExtension.managed.chat.state), 'faulted');
  await openChat(page, DENSE);
  await page.waitForFunction((n) => document.querySelectorAll('#chat > .mes').length === n, truncation, { timeout: 30000 });
  const seen = await page.evaluate(() => {
    const ctx = globalThis.SillyTavern.getContext();
    const root = document.getElementById('chat');
    return {
      controller: globalThis.__tavernCoreExtension.managed.chat.state,
      bounded: root.hasAttribute('data-tt-chat-surface'),
      anchoring: root.style.getPropertyValue('overflow-anchor'),
      truncation: ctx.powerUserSettings.chat_truncation,
      first: root.querySelector(':scope > .mes')?.getAttribute('mesid'),
      last: root.querySelector(':scope > .mes:last-of-type')?.getAttribute('mesid'),
      showMore: root.firstElementChild?.id,
    };
  });
  assert.deepEqual(seen, { controller: 'stopped', bounded: false, anchoring: '', truncation, first: String(2000 - truncation), last: '1999',
    showMore: 'show_more_messages' });
  // SillyTavern's own "Show more messages" and /chat-jump work again.
  await page.click('#show_more_messages');
  await page.waitForFunction((n) => document.querySelectorAll('#chat > .mes').length === 2 * n, truncation, { timeout: 30000 });
  await page.evaluate(() => globalThis.SillyTavern.getContext().executeSlashCommandsWithOptions('/chat-jump 1500'));
  assert.equal(await page.evaluate(() => document.querySelector('#chat > .mes[mesid="1500"]') !== null), true);
});

test('no page errors', () => {
  assert.deepEqual(errors.map((e) => e.message), []);
});

