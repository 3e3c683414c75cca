// The takeover demo in a real browser (Chromium), as a SillyTavern user
// meets it: a reply streams in live (with a cursor) and commits (persisted,
// still there after a reload); Stop keeps the partial without persisting
// it; a failing backend makes the plugin discard, the chat is restored and
// a toast says why; a chat that ends on the user's message is never a dead
// end; Continue joins with a space and keeps one reasoning line; swipes go
// back and forth (buttons and arrow keys); messages render as sanitized
// markdown; the composer stays on screen and the chat follows the stream
// unless the user scrolled up; a message the server cannot take stays in
// the box; a reply is announced once, when it settles.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { browserAvailable, openDemo, screenshot, until } from './browser.js';

const skip = !browserAvailable() && 'chromium not installed (set E2E=required to fail instead)';

const saved = (dir) => {
  try {
    return readFileSync(join(dir, 'chat.jsonl'), 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l));
  } catch { return []; }
};

async function open(t, { delay = 100, seed, viewport } = {}) {
  const dataDir = mkdtempSync(join(tmpdir(), 'tavern-demo-'));
  t.after(() => rmSync(dataDir, { recursive: true, force: true }));
  if (seed) writeFileSync(join(dataDir, 'chat.jsonl'), seed.map((m) => JSON.stringify(m)).join('\n') + '\n');
  const demo = await openDemo(t, { dataDir, viewport });
  // A slower stand-in backend leaves a busy machine seconds, not a fraction
  // of one, to land a click while the reply is still streaming.
  await demo.page.addInitScript((ms) => { globalThis.DEMO_DELAY_MS = ms; }, delay);
  await demo.page.goto(demo.url);
  await demo.page.waitForSelector('body[data-ready=true]');
  const { page } = demo;
  return {
    ...demo,
    dataDir,
    lastText: () => page.evaluate(() => window.demoTakeover.chat.at(-1).mes),
    count: () => page.locator('#chat .msg').count(),
    waitStatus: (s) => page.waitForFunction((want) => document.querySelector('#status').dataset.status === want, s, { timeout: 60000 }),
    statusText: () => page.locator('#status').textContent(),
    openOptions: () => page.evaluate(() => { document.querySelector('#composer details.opts').open = true; }),
  };
}

test('takeover demo: stream, stop, discard, commit and reload in Chromium (T56–T60)', { skip, timeout: 240000 }, async (t) => {
  const d = await open(t);
  const { page, dataDir, lastText, waitStatus } = d;
  await d.openOptions();
  assert.equal(await page.locator('#chat').getAttribute('aria-live'), null, 'the streaming chat is not a live region');

  // 1. A reply streams in live with a cursor, then commits and is persisted.
  await page.fill('#input', 'hello there!');
  await page.keyboard.press('Enter');
  await page.waitForFunction(() => window.demoTakeover.chat.at(-1)?.is_user === false && window.demoTakeover.chat.at(-1).mes.length > 10);
  assert.equal(await page.locator('#chat .msg.assistant.streaming').count(), 1, 'the streaming bubble carries the cursor class');
  const partial = await lastText();
  await waitStatus('normal:committed');
  assert.equal(await page.locator('#chat .msg.streaming').count(), 0, 'no cursor once settled');
  assert.equal(await d.statusText(), 'Reply saved.', 'the status speaks the user\'s language');
  const full = await lastText();
  assert.ok(full.startsWith(partial) && full.length > partial.length, 'the bubble grew while streaming');
  let disk = saved(dataDir);
  assert.equal(disk.length, 2);
  assert.equal(disk[1].mes, full, 'the committed reply is on disk (cleaned, as shown)');

  // 2. Continue, stopped midway: the partial stays on screen, nothing is persisted.
  await page.click('#continue');
  await page.waitForFunction((n) => window.demoTakeover.chat.at(-1).mes.length > n + 6, full.length);
  await page.click('#stop');
  await waitStatus('continue:aborted');
  const stopped = await lastText();
  assert.ok(stopped.startsWith(full + ' ') && stopped.length > full.length + 1, 'the partial continuation is kept, after a space');
  await new Promise((r) => setTimeout(r, 300));
  assert.equal(await lastText(), stopped, 'nothing is written after the stop');
  assert.equal(saved(dataDir)[1].mes, full, 'the aborted partial is not persisted');
  await screenshot(page, 'takeover-stopped');

  // 3. A swipe whose backend fails: the plugin discards, the slot is
  // restored, and a toast says why.
  await page.check('#fail');
  await page.click('#swipe');
  await waitStatus('swipe:discarded');
  assert.equal(await lastText(), stopped, 'the slot is restored to what it was');
  assert.equal(await d.count(), 2);
  assert.match(await page.locator('#toasts .toast.error').last().textContent(), /the backend dropped the connection/);
  await page.uncheck('#fail');

  // 4. A normal turn that fails: its placeholder is removed; the chat ends
  // on the user's message, and that is not a dead end.
  await page.check('#fail');
  await page.fill('#input', 'and now?');
  await page.keyboard.press('Enter');
  await waitStatus('normal:discarded');
  assert.equal(await d.count(), 3, 'only the user message was added');
  await page.uncheck('#fail');
  assert.equal(await page.locator('#regenerate').isEnabled(), true, 'Regenerate answers a trailing user message');
  assert.equal(await page.locator('#continue').isEnabled(), true);
  assert.equal(await page.locator('#swipe').isEnabled(), false, 'nothing to swipe');
  await page.click('#regenerate');
  await waitStatus('normal:committed');
  assert.equal(await d.count(), 4, 'Regenerate on the user message wrote a reply');

  // An empty Send asks for a reply too.
  await page.check('#fail');
  await page.fill('#input', 'one more');
  await page.keyboard.press('Enter');
  await waitStatus('normal:discarded');
  await page.uncheck('#fail');
  await page.fill('#input', '');
  await page.click('#send');
  await waitStatus('normal:committed');
  assert.equal(await d.count(), 6);
  assert.equal(saved(dataDir).length, 6);

  // 5. Regenerate writes the reply again; a reload shows the persisted chat.
  await page.click('#regenerate');
  await waitStatus('regenerate:committed');
  const regenerated = await lastText();
  disk = saved(dataDir);
  assert.equal(disk.at(-1).mes, regenerated);
  await page.reload();
  await page.waitForSelector('body[data-ready=true]');
  assert.equal(await lastText(), regenerated, 'the committed reply survives a reload');
  assert.equal(await d.count(), disk.length);
  await screenshot(page, 'takeover-demo');
  assert.deepEqual(d.errors.map(String), []);
});

test('takeover demo: Continue joins with a space and keeps one reasoning line', { skip, timeout: 120000 }, async (t) => {
  const seed = [
    { name: 'You', is_user: true, mes: 'Tell me a story.', extra: {} },
    { name: 'Narrator', is_user: false, mes: 'Once upon a time', extra: { reasoning: 'Thinking about "Tell me a story."…' }, swipes: ['Once upon a time'], swipe_id: 0 },
  ];
  const d = await open(t, { delay: 5, seed });
  await d.page.click('#continue');
  await d.waitStatus('continue:committed');
  const m = await d.page.evaluate(() => window.demoTakeover.chat.at(-1));
  assert.match(m.mes, /^Once upon a time [A-Z]/, `joined with one space: ${m.mes.slice(0, 40)}`);
  assert.equal(m.extra.reasoning, 'Thinking about "Tell me a story."…', 'the reasoning line is not repeated');
  assert.equal(await d.page.locator('#chat .msg.assistant .reasoning-text').textContent(), m.extra.reasoning);
  assert.deepEqual(d.errors.map(String), []);
});

test('takeover demo: ← / → swipe controls and arrow keys move between versions (SillyTavern swipes)', { skip, timeout: 120000 }, async (t) => {
  const d = await open(t, { delay: 5 });
  const { page, dataDir } = d;
  await page.fill('#input', 'swipe me');
  await page.keyboard.press('Enter');
  await d.waitStatus('normal:committed');
  const first = await d.lastText();
  const counter = () => page.locator('#chat .msg.assistant:last-child .swipe-counter').textContent();
  assert.equal(await counter(), '1/1');
  assert.equal(await page.locator('#chat .msg:last-child .swipe-left').isDisabled(), true);
  // → on the last version makes a new one.
  await page.click('#chat .msg:last-child .swipe-right');
  await d.waitStatus('swipe:committed');
  const second = await d.lastText();
  assert.notEqual(second, first);
  assert.equal(await counter(), '2/2');
  // ← goes back, and the choice is saved.
  await page.click('#chat .msg:last-child .swipe-left');
  assert.equal(await counter(), '1/2');
  assert.equal(await d.lastText(), first);
  await page.waitForFunction(() => document.querySelector('#status').dataset.status === 'swipe:moved');
  // The status comes before the save (an fsync, a rename and another fsync):
  // wait for the file, not for a time.
  await until('the swipe saved', () => saved(dataDir).at(-1)?.swipe_id === 0);
  assert.equal(saved(dataDir).at(-1).mes, first);
  // The arrow keys do the same while the message box is empty.
  await page.locator('#input').focus();
  await page.keyboard.press('ArrowRight');
  await page.waitForFunction(() => window.demoTakeover.chat.at(-1).swipe_id === 1);
  assert.equal(await d.lastText(), second);
  await page.keyboard.press('ArrowLeft');
  await page.waitForFunction(() => window.demoTakeover.chat.at(-1).swipe_id === 0);
  // …but not while typing.
  await page.fill('#input', 'typing');
  await page.keyboard.press('ArrowRight');
  assert.equal(await page.evaluate(() => window.demoTakeover.chat.at(-1).swipe_id), 0);
  await page.fill('#input', '');
  await page.keyboard.press('ArrowRight');
  await page.keyboard.press('ArrowRight');
  await d.waitStatus('swipe:committed');
  assert.equal(await counter(), '3/3');
  assert.equal(saved(dataDir).at(-1).swipes.length, 3);
  assert.deepEqual(d.errors.map(String), []);
});

test('takeover demo: messages render as markdown, sanitized (showdown + DOMPurify)', { skip, timeout: 120000 }, async (t) => {
  const d = await open(t, { delay: 5 });
  const { page } = d;
  const gif = 'data:image/gif;base64,R0lGODlhAQABAIAAAAAAAP///ywAAAAAAQABAAACAUwAOw==';
  await page.fill('#input', `*waves* **hello** <b>bold</b> <img src="${gif}" onerror="window.pwned=1"> <script>window.pwned=2</script> [x](javascript:window.pwned=3)`);
  await page.keyboard.press('Enter');
  await d.waitStatus('normal:committed');
  const r = await page.evaluate(() => {
    const el = document.querySelector('#chat .msg.user .text');
    return {
      em: el.querySelector('em')?.textContent,
      strong: el.querySelector('strong')?.textContent,
      b: el.querySelector('b')?.textContent,
      imgOnerror: el.querySelector('img')?.getAttribute('onerror') ?? null,
      scripts: el.querySelectorAll('script').length,
      hrefs: [...el.querySelectorAll('a')].map((a) => a.getAttribute('href')),
      pwned: window.pwned,
      raw: el.textContent,
    };
  });
  assert.equal(r.em, 'waves', '*action* italics');
  assert.equal(r.strong, 'hello');
  assert.equal(r.b, 'bold', 'plain HTML formatting is kept');
  assert.equal(r.imgOnerror, null, 'event handlers are stripped');
  assert.equal(r.scripts, 0);
  assert.ok(r.hrefs.every((h) => h === null || !h.startsWith('javascript:')), `no javascript: links: ${r.hrefs}`);
  assert.equal(r.pwned, undefined);
  assert.ok(!r.raw.includes('*waves*'), 'no raw markdown');
  assert.deepEqual(d.errors.map(String), []);
});

test('takeover demo: the composer stays on screen and the chat follows the stream unless the user scrolled up', { skip, timeout: 120000 }, async (t) => {
  const seed = [];
  for (let i = 0; i < 30; i++) seed.push({ name: i % 2 ? 'Narrator' : 'You', is_user: i % 2 === 0, mes: `Message ${i}: ${'a fairly long line of text '.repeat(4)}`, extra: {} });
  const d = await open(t, { delay: 120, seed, viewport: { width: 1280, height: 900 } });
  const { page } = d;
  const inView = (sel) => page.evaluate((s) => {
    const r = document.querySelector(s).getBoundingClientRect();
    return r.top >= 0 && r.bottom <= window.innerHeight && r.left >= 0 && r.right <= window.innerWidth;
  }, sel);
  await page.fill('#input', 'a long chat now');
  await page.keyboard.press('Enter');
  await page.waitForFunction(() => window.demoTakeover.chat.at(-1).is_user === false && window.demoTakeover.chat.at(-1).mes.length > 20);
  assert.ok(await inView('#stop'), 'Stop is on screen while the reply streams');
  assert.ok(await page.locator('#stop').isEnabled());
  const bottomGap = () => page.evaluate(() => document.documentElement.scrollHeight - (window.scrollY + window.innerHeight));
  await page.waitForFunction(() => window.demoTakeover.chat.at(-1).mes.length > 40);
  assert.ok(await bottomGap() < 80, 'the chat follows the streaming reply');
  // The user scrolls up: the stream no longer pulls the page down.
  await page.mouse.wheel(0, -1500);
  await page.waitForFunction(() => window.scrollY < document.documentElement.scrollHeight - window.innerHeight - 400);
  const y = await page.evaluate(() => window.scrollY);
  const n = await d.lastText().then((s) => s.length);
  await page.waitForFunction((len) => window.demoTakeover.chat.at(-1).mes.length > len + 9, n);
  assert.equal(await page.evaluate(() => window.scrollY), y, 'not yanked back down');
  assert.ok(await inView('#stop'), 'Stop is still on screen');
  await page.click('#stop');
  await d.waitStatus('normal:aborted');
  assert.deepEqual(d.errors.map(String), []);
});

test('takeover demo: a message the server cannot take stays in the box, with a note', { skip, timeout: 120000 }, async (t) => {
  const d = await open(t, { delay: 5 });
  const { page, server } = d;
  await page.fill('#input', 'first');
  await page.keyboard.press('Enter');
  await d.waitStatus('normal:committed');
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
  // The failed requests' console errors are expected from here on.
  const before = d.errors.length;
  await page.fill('#input', 'this must not be lost');
  await page.keyboard.press('Enter');
  await d.waitStatus('normal:unsent');
  assert.equal(await page.inputValue('#input'), 'this must not be lost', 'the draft is kept');
  assert.equal(await d.count(), 2, 'no bubble for an unsent message');
  assert.match(await page.locator('#toasts .toast.error').last().textContent(), /not sent: the demo server is not reachable/);
  assert.ok(d.errors.slice(before).every((e) => /Failed to load resource|ERR_CONNECTION_REFUSED|Failed to fetch/.test(String(e))));
  assert.deepEqual(d.errors.slice(0, before).map(String), []);
});

test('takeover demo: a failure toast lasts until the next turn, and a second failure replaces it', { skip, timeout: 120000 }, async (t) => {
  const d = await open(t, { delay: 5 });
  const { page } = d;
  const errorToasts = () => page.locator('#toasts .toast.error').allTextContents();
  await d.openOptions();
  await page.check('#fail');
  await page.fill('#input', 'this one fails');
  await page.keyboard.press('Enter');
  await d.waitStatus('normal:discarded');
  assert.equal((await errorToasts()).length, 1);
  await new Promise((r) => setTimeout(r, 500));
  assert.equal((await errorToasts()).length, 1, 'an error is not timed out before it is read');
  // Failing again: one toast, the new one.
  await page.click('#regenerate');
  await d.waitStatus('normal:discarded');
  assert.equal((await errorToasts()).length, 1, 'the second failure replaced the first');
  // A turn that works: the failure is history.
  await page.uncheck('#fail');
  await page.click('#regenerate');
  await d.waitStatus('normal:committed');
  assert.deepEqual(await errorToasts(), [], 'no stale failure over a chat that has since worked');
  assert.deepEqual(d.errors.map(String), []);
});

test('takeover demo: a reply is announced once, when it settles (not per streamed chunk)', { skip, timeout: 120000 }, async (t) => {
  const d = await open(t, { delay: 20 });
  const { page } = d;
  await page.evaluate(() => {
    window.liveChanges = 0;
    const live = [...document.querySelectorAll('[aria-live]')].filter((el) => el.getAttribute('aria-live') !== 'off');
    for (const el of live) new MutationObserver((rs) => { window.liveChanges += rs.length; }).observe(el, { childList: true, characterData: true, subtree: true });
    window.liveRegions = live.map((el) => el.id);
  });
  await page.fill('#input', 'announce this');
  await page.keyboard.press('Enter');
  await d.waitStatus('normal:committed');
  const r = await page.evaluate(() => ({ changes: window.liveChanges, regions: window.liveRegions, text: document.querySelector('#announce').textContent, reply: window.demoTakeover.chat.at(-1).mes }));
  assert.deepEqual(r.regions.sort(), ['announce', 'toasts']);
  assert.ok(r.changes <= 3, `${r.changes} live-region changes for one reply`);
  assert.equal(r.text, `Narrator replied: ${r.reply}`);
  assert.deepEqual(d.errors.map(String), []);
});

// Every form on the demo pages is the page module's: before it has loaded
// (the wasm held back here), Send or a Jump submitted the
// form the browser's way, reloading the page and losing what was typed.
test('demo pages: what is typed before the page has loaded stays, and the page does not reload', { skip, timeout: 120000 }, async (t) => {
  const dataDir = mkdtempSync(join(tmpdir(), 'tavern-demo-'));
  t.after(() => rmSync(dataDir, { recursive: true, force: true }));
  const demo = await openDemo(t, { dataDir });
  const { page } = demo;
  let release;
  const held = new Promise((r) => { release = r; });
  await page.route('**/*.wasm', async (route) => { await held; await route.continue(); });
  const navigations = [];
  page.on('framenavigated', (f) => { if (f === page.mainFrame()) navigations.push(f.url()); });
  await page.goto(demo.url);
  await page.fill('#input', 'typed while loading');
  await page.click('#send');
  await page.waitForTimeout(300);
  assert.equal(await page.inputValue('#input'), 'typed while loading', 'the draft is kept');
  await page.goto(new URL('surface.html', page.url()).href);
  await page.fill('#jump', '42');
  await page.click('#go');
  await page.waitForTimeout(300);
  assert.equal(await page.inputValue('#jump'), '42');
  release();
  await page.waitForSelector('body[data-ready=true]');
  assert.deepEqual(navigations.map((u) => new URL(u).pathname + new URL(u).search), ['/demo/', '/demo/surface.html'], 'no reload by a submitted form');
  assert.deepEqual(demo.errors.map(String), []);
});
