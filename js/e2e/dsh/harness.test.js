// The message editor inside the real DeepSeek Harness 0.1.1 (format v0):
// `dsh plugin add` of the built plugin into a fresh DSH_HOME, `dsh web`,
// the harness's own mock model, headless Chromium on its own web UI. Run by
// `make test-dsh` (js/e2e/dsh/run.sh), which builds the harness cache first.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CHROMIUM, browserAvailable, screenshot } from '../browser.js';
import {
  CACHE, PLUGIN_DIR, freshHome, pluginAdd, readLog, startGate, startHarness, startMockModel,
} from './harness.js';

const ready = CACHE && PLUGIN_DIR && browserAvailable();

const EDITOR = '/api/plugins/tavern-core-message-editor';
const FLOW = '[data-chat-flow]';
const userRow = (page, i) => page.locator(`${FLOW} [data-chat-flow-kind=user]`).nth(i);
const lastUserRecord = (log) => log.records.filter((r) => r.type === 'user/message').at(-1);

async function openUI(context, url) {
  const page = await context.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(e));
  page.on('console', (m) => { if (m.type() === 'error') errors.push(new Error(m.text())); });
  await page.goto(url);
  await page.waitForSelector('textarea', { timeout: 60_000 });
  const notice = page.getByRole('button', { name: 'Continue' });
  if (await notice.count()) await notice.click();
  assert.equal(await page.getByText('Failed to load plugins').count(), 0);
  return { page, errors };
}

// A fresh DSH_HOME has no workspace yet: pick the working directory the way
// a user does, through the harness's directory dialog.
async function chooseWorkspace(page, dir) {
  await page.getByText('Choose workspace').click();
  const dialog = page.getByRole('dialog');
  await dialog.getByRole('button', { name: 'Edit path' }).click();
  const input = dialog.locator('input').first();
  await input.fill(dir);
  await input.press('Enter');
  await dialog.getByRole('button', { name: 'Open' }).click();
  await dialog.waitFor({ state: 'detached' });
  // The composer is re-created for the chosen workspace.
  await page.locator('textarea[placeholder="Describe what you want to build"]').waitFor({ timeout: 30_000 });
}

async function send(page, text, turn) {
  const box = page.locator('textarea').first();
  await box.fill(text);
  await box.press('Enter');
  // From the start page the first Enter opens the session and carries the
  // draft (and its images) into that session's composer; Enter there sends.
  const sent = page.locator(`${FLOW} [data-chat-flow-kind=user]`).filter({ hasText: text });
  for (let i = 0; i < 20 && await sent.count() === 0; i++) {
    await page.waitForTimeout(250);
    const again = page.locator('textarea').first();
    if (await sent.count() === 0 && await again.inputValue() === text) await again.press('Enter');
  }
  await page.waitForSelector(`[data-chat-flow-key="9:turn-tail${turn}"]`, { timeout: 60_000 });
}

// Paste a small PNG into the composer: the harness's own image intake.
async function pasteImage(page, name) {
  await page.locator('textarea').first().evaluate(async (box, fileName) => {
    const c = document.createElement('canvas');
    c.width = 4;
    c.height = 4;
    c.getContext('2d').fillRect(0, 0, 4, 4);
    const blob = await new Promise((r) => c.toBlob(r, 'image/png'));
    const dt = new DataTransfer();
    dt.items.add(new File([blob], fileName, { type: 'image/png' }));
    box.dispatchEvent(new ClipboardEvent('paste', { clipboardData: dt, bubbles: true, cancelable: true }));
  }, name);
}

// The default model takes text only; the harness's vision model takes the image.
async function chooseModel(page, name) {
  await page.getByText('DeepSeek-V4-Flash').first().click();
  await page.getByText('Model', { exact: true }).click();
  await page.getByText(name).first().click();
  await page.getByText(name).first().waitFor();
}

async function openEditor(page, row) {
  await row.hover();
  await row.locator('.tc-me-pencil').click();
  return row.locator('.tc-me-input');
}

test('the message editor in DeepSeek Harness: edit, attachments, undo, regenerate, refusals, restart, transport (S20, S44–S75, S85, S90–S98)', { skip: !ready && 'no harness cache (run make test-dsh)', timeout: 600_000 }, async (t) => {
  const { chromium } = await import('playwright-core');
  const model = await startMockModel();
  t.after(() => model.stop());
  const gate = await startGate(model.url);
  t.after(() => gate.close());
  const paths = freshHome();
  t.after(() => paths.remove());
  pluginAdd(paths, PLUGIN_DIR, gate.url);
  let harness = await startHarness(paths, gate.url);
  t.after(() => harness.stop());
  const profile = mkdtempSync(join(tmpdir(), 'tavern-dsh-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
      '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
  t.after(async () => { await context.close(); rmSync(profile, { recursive: true, force: true }); });

  let { page, errors } = await openUI(context, harness.url);
  // Each step leaves a screenshot in artifacts/ when it fails.
  let shots = 0;
  const step = (name, fn) => t.test(name, async () => {
    try {
      await fn();
    } catch (err) {
      await screenshot(page, `dsh-failed-${++shots}`).catch(() => {});
      throw err;
    }
  });

  await step('two messages, the first with an image; the widget mounts on the harness transcript', async () => {
    await chooseWorkspace(page, paths.cwd);
    await chooseModel(page, 'DeepSeek-V4-Flash-Vision-Exp');
    await pasteImage(page, 'pixel.png');
    await page.locator('img[alt="pixel.png"]').waitFor({ timeout: 30_000 });
    await send(page, 'first message', 1);
    await send(page, 'second message', 2);
    await page.locator(`${FLOW} .tc-me-pencil`).nth(1).waitFor({ state: 'attached', timeout: 30_000 });
    assert.equal(await page.locator(`${FLOW} .tc-me-pencil`).count(), 2, 'a pencil on each user row');
    assert.equal(await page.locator(`${FLOW} .tc-me-regenerate`).count(), 1, 'regenerate only on the last reply');
    assert.equal(await page.locator('[data-chat-flow-key="9:turn-tail2"] .tc-me-regenerate').count(), 1, 'in the copy/branch/like bar');
    const log = readLog(paths);
    assert.equal(log.header.version, 0, 'DeepSeek Harness 0.1.1 writes format v0');
  });
});
