// The first demo in a real browser: a plugin streams a reply into a chat
// bubble through a handle; Stop keeps the partial (abort), Discard rolls
// the placeholder back, and a reply left alone commits.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { browserAvailable, openDemo, screenshot } from './browser.js';

const skip = !browserAvailable() && 'chromium not installed (set E2E=required to fail instead)';

test('takeover demo: stream, stop, discard, commit in Chromium', { skip, timeout: 60000 }, async (t) => {
  const { page, url, errors } = await openDemo(t);
  await page.goto(url);
  await page.waitForSelector('body[data-ready=true]');

  const assistant = () => page.locator('#chat .msg.assistant');
  const send = async (text) => {
    await page.fill('#input', text);
    await page.keyboard.press('Enter');
  };

  // 1. A reply streams in live, then commits.
  await send('hello there!'); // an even length picks the reply with an emoji
  await page.waitForFunction(() => document.querySelector('#chat .msg.assistant .text')?.textContent.length > 10);
  const partial = await assistant().first().locator('.text').textContent();
  await page.waitForFunction(() => document.querySelector('#chat .msg.assistant')?.dataset.status === 'committed', null, { timeout: 20000 });
  const full = await assistant().first().locator('.text').textContent();
  assert.ok(full.startsWith(partial) && full.length > partial.length, 'the bubble grew while streaming');
  assert.ok(full.includes('😀'), 'a surrogate pair split across chunks rejoined');
  assert.match(await assistant().first().locator('.reasoning').textContent(), /Thinking about "hello there!"/);

  // 2. Stop midway keeps the partial reply.
  await send('tell me about the rain');
  await page.waitForFunction(() => document.querySelectorAll('#chat .msg.assistant')[1]?.querySelector('.text').textContent.length > 6);
  await page.click('#stop');
  await page.waitForFunction(() => document.querySelectorAll('#chat .msg.assistant')[1]?.dataset.status === 'aborted');
  const stopped = await assistant().nth(1).locator('.text').textContent();
  assert.ok(stopped.length > 0, 'the partial reply is kept');
  await new Promise((r) => setTimeout(r, 300));
  assert.equal(await assistant().nth(1).locator('.text').textContent(), stopped, 'nothing is written after the stop');
  assert.equal(await page.textContent('#status'), 'last reply: aborted');
  await screenshot(page, 'takeover-stopped');

  // 3. Discard rolls the placeholder back.
  const before = await page.locator('#chat .msg').count();
  await send('one more');
  await page.waitForFunction((n) => document.querySelectorAll('#chat .msg').length === n + 2, before);
  await page.click('#discard');
  await page.waitForFunction(() => document.querySelector('#status').textContent === 'last reply: discarded');
  assert.equal(await page.locator('#chat .msg.assistant').count(), 2, 'the discarded reply is gone');
  assert.equal(await page.locator('#chat .msg').count(), before + 1, 'only the user message remains');
  await screenshot(page, 'takeover-discarded');
  assert.deepEqual(errors, []);
});
