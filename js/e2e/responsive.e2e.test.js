// Every demo page at a phone size (390×844) and a desktop size (1280×900),
// in Chromium: no sideways scrolling, and every control a user needs is
// inside the window's width (the takeover page's Swipe and Continue, the
// editor card's Save and Cancel, the chat surface's controls). A
// screenshot of each goes to artifacts/.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { browserAvailable, openDemo, screenshot } from './browser.js';

const skip = !browserAvailable() && 'chromium not installed (set E2E=required to fail instead)';
const SIZES = [{ width: 390, height: 844 }, { width: 1280, height: 900 }];

async function fits(page, selectors, label) {
  const r = await page.evaluate((sels) => ({
    scrollWidth: document.documentElement.scrollWidth,
    width: document.documentElement.clientWidth,
    boxes: sels.map((s) => {
      const el = document.querySelector(s);
      if (!el) return { s, missing: true };
      el.scrollIntoView({ block: 'nearest', inline: 'nearest' });
      const b = el.getBoundingClientRect();
      return { s, left: b.left, right: b.right, top: b.top, bottom: b.bottom, w: b.width, h: b.height };
    }),
    innerWidth: window.innerWidth,
    innerHeight: window.innerHeight,
  }), selectors);
  assert.ok(r.scrollWidth <= r.width, `${label}: the page scrolls sideways (${r.scrollWidth} > ${r.width})`);
  for (const b of r.boxes) {
    assert.ok(!b.missing, `${label}: ${b.s} is missing`);
    assert.ok(b.w > 0 && b.h > 0, `${label}: ${b.s} is not shown`);
    assert.ok(b.left >= 0 && b.right <= r.innerWidth + 0.5, `${label}: ${b.s} is cut off (${b.left}–${b.right} of ${r.innerWidth})`);
    assert.ok(b.top >= 0 && b.bottom <= r.innerHeight + 0.5, `${label}: ${b.s} cannot be brought on screen`);
  }
}

for (const viewport of SIZES) {
  const size = `${viewport.width}x${viewport.height}`;

  test(`takeover page at ${size}: usable, nothing cut off`, { skip, timeout: 120000 }, async (t) => {
    const { page, url, errors } = await openDemo(t, { viewport });
    await page.addInitScript(() => { globalThis.DEMO_DELAY_MS = 5; });
    const wasm = page.waitForResponse((r) => r.url().endsWith('/tavern-core.wasm'));
    await page.goto(url);
    const w = await wasm;
    assert.equal(w.headers()['content-encoding'], 'br', 'the browser gets the module brotli-compressed');
    assert.equal(w.headers()['content-type'], 'application/wasm');
    await page.waitForSelector('body[data-ready=true]');
    await page.fill('#input', 'A message long enough to wrap on a phone, with a_very_long_word_that_does_not_break_by_itself_at_all_anywhere.');
    await page.keyboard.press('Enter');
    await page.waitForFunction(() => document.querySelector('#status').dataset.status === 'normal:committed', null, { timeout: 30000 });
    await fits(page, ['#input', '#send', '#stop', '#regenerate', '#swipe', '#continue', '#chat .msg:last-child .swipe-right'], `takeover ${size}`);
    await screenshot(page, `responsive-takeover-${size}`);
    assert.deepEqual(errors.map(String), []);
  });

  test(`chat surface page at ${size}: usable, nothing cut off`, { skip, timeout: 120000 }, async (t) => {
    const { page, url, errors } = await openDemo(t, { viewport });
    await page.goto(`${url}demo/surface.html`);
    await page.waitForSelector('body[data-ready=true]');
    await fits(page, ['#chat-select', '#jump', '#go', '#end', '#world', '#chat', '#status'], `surface ${size}`);
    await screenshot(page, `responsive-surface-${size}`);
    assert.deepEqual(errors.map(String), []);
  });

  test(`editor page at ${size}: the edit card fits, Save and Cancel included`, { skip, timeout: 120000 }, async (t) => {
    const { page, url, errors } = await openDemo(t, { viewport });
    await page.goto(`${url}demo/editor.html`);
    await page.waitForSelector('body[data-ready=true]');
    await page.locator('#log [data-seq="2"] .tc-me-pencil').click();
    await page.locator('#log [data-seq="2"] .tc-me-input').waitFor();
    await fits(page, ['#log [data-seq="2"] .tc-me-input', '#log [data-seq="2"] .tc-me-save', '#log [data-seq="2"] .tc-me-cancel',
      '#log [data-seq="2"] .tc-me-card .tc-me-chip'], `editor card ${size}`);
    await screenshot(page, `responsive-editor-${size}`);
    await page.keyboard.press('Escape');
    await fits(page, ['#input', '#send', '#log [data-seq="13"] .tc-me-pencil'], `editor page ${size}`);
    assert.deepEqual(errors.map(String), []);
  });
}
