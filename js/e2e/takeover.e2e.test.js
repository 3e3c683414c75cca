// The takeover demo in a real browser (Chromium): a reply streams in live
// and commits (persisted, still there after a reload); Stop keeps the
// partial without persisting it; a failing backend makes the plugin
// discard, and the chat is restored.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { browserAvailable, openDemo, screenshot } from './browser.js';

const skip = !browserAvailable() && 'chromium not installed (set E2E=required to fail instead)';

const saved = (dir) => {
  try {
    return readFileSync(join(dir, 'chat.jsonl'), 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l));
  } catch { return []; }
};

test('takeover demo: stream, stop, discard, commit and reload in Chromium', { skip, timeout: 180000 }, async (t) => {
  const dataDir = mkdtempSync(join(tmpdir(), 'tavern-demo-'));
  t.after(() => rmSync(dataDir, { recursive: true, force: true }));
  const { page, url, errors } = await openDemo(t, { dataDir });
  // A slower stand-in backend leaves a busy machine seconds, not a fraction
  // of one, to land the Stop click while the reply is still streaming.
  await page.addInitScript(() => { globalThis.DEMO_DELAY_MS = 100; });
  await page.goto(url);
  await page.waitForSelector('body[data-ready=true]');
  const lastText = () => page.evaluate(() => [...document.querySelectorAll('#chat .msg')].at(-1).querySelector('.text').textContent);
  const waitStatus = (s) => page.waitForFunction((want) => document.querySelector('#status').textContent === want, s, { timeout: 60000 });

  // 1. A reply streams in live, then commits and is persisted.
  await page.fill('#input', 'hello there!');
  await page.keyboard.press('Enter');
  await page.waitForFunction(() => [...document.querySelectorAll('#chat .msg.assistant .text')].at(-1)?.textContent.length > 10);
  const partial = await lastText();
  await waitStatus('normal: committed');
  const full = await lastText();
  assert.ok(full.startsWith(partial) && full.length > partial.length, 'the bubble grew while streaming');
  let disk = saved(dataDir);
  assert.equal(disk.length, 2);
  assert.equal(disk[1].mes, full, 'the committed reply is on disk (cleaned, as shown)');

  // 2. Continue, stopped midway: the partial stays on screen, nothing is persisted.
  await page.click('#continue');
  await page.waitForFunction((n) => [...document.querySelectorAll('#chat .msg .text')].at(-1).textContent.length > n + 6, full.length);
  await page.click('#stop');
  await waitStatus('continue: aborted');
  const stopped = await lastText();
  assert.ok(stopped.startsWith(full) && stopped.length > full.length, 'the partial continuation is kept');
  await new Promise((r) => setTimeout(r, 300));
  assert.equal(await lastText(), stopped, 'nothing is written after the stop');
  assert.equal(saved(dataDir)[1].mes, full, 'the aborted partial is not persisted');
  await screenshot(page, 'takeover-stopped');

  // 3. A swipe whose backend fails: the plugin discards, the slot is restored.
  await page.check('#fail');
  await page.click('#swipe');
  await waitStatus('swipe: discarded');
  assert.equal(await lastText(), stopped, 'the slot is restored to what it was');
  assert.equal(await page.locator('#chat .msg').count(), 2);
  await page.uncheck('#fail');

  // 4. A normal turn that fails: its placeholder is removed.
  await page.check('#fail');
  await page.fill('#input', 'and now?');
  await page.keyboard.press('Enter');
  await waitStatus('normal: discarded');
  assert.equal(await page.locator('#chat .msg').count(), 3, 'only the user message was added');
  await page.uncheck('#fail');

  // 5. A new turn commits; regenerate writes it again; a reload shows the
  // persisted chat.
  await page.fill('#input', 'tell me more');
  await page.keyboard.press('Enter');
  await waitStatus('normal: committed');
  await page.click('#regenerate');
  await waitStatus('regenerate: committed');
  const regenerated = await lastText();
  disk = saved(dataDir);
  assert.equal(disk.at(-1).mes, regenerated);
  await page.reload();
  await page.waitForSelector('body[data-ready=true]');
  assert.equal(await lastText(), regenerated, 'the committed reply survives a reload');
  assert.equal(await page.locator('#chat .msg').count(), disk.length);
  await screenshot(page, 'takeover-demo');
  assert.deepEqual(errors.map(String), []);
});
