// Shared set-up for browser end-to-end tests: Debian's chromium driven by
// playwright-core against the demo server on 127.0.0.1. Never downloads a
// browser. Without chromium the suites skip, unless E2E=required.
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, mkdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startDemoServer } from '../demo/server.js';

export const CHROMIUM = process.env.CHROMIUM ?? '/usr/bin/chromium';
export const ARTIFACTS = fileURLToPath(new URL('../../artifacts/', import.meta.url));

/**
 * Polls check (sync or async) every `every` ms until it returns a truthy
 * value, and returns that value; past `ms` it fails, naming what it waited
 * for (`what`, or what `what()` says then). A test waits for the thing, not
 * for a time (docs/testing.md).
 */
export async function until(what, check, { ms = 15_000, every = 50 } = {}) {
  for (const end = Date.now() + ms; ;) {
    const v = await check();
    if (v) return v;
    if (Date.now() > end) assert.fail(`timed out after ${ms} ms waiting for ${typeof what === 'function' ? what() : what}`);
    await new Promise((r) => { setTimeout(r, every); });
  }
}

export function browserAvailable() {
  if (existsSync(CHROMIUM)) return true;
  if (process.env.E2E === 'required') throw new Error(`E2E=required but ${CHROMIUM} is missing (apt-get install chromium)`);
  return false;
}

export const CHROMIUM_ARGS = ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
  '--disable-background-networking', '--disable-component-update', '--disable-sync'];

/**
 * Headless Debian chromium with a fresh profile directory (playwright passes
 * it as --user-data-dir). Returns { context, close }; close also removes
 * the profile.
 */
export async function launchChromium({ prefix = 'tavern-e2e-', viewport } = {}) {
  const { chromium } = await import('playwright-core');
  const profile = mkdtempSync(join(tmpdir(), prefix));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS, ...(viewport ? { viewport } : {}),
  });
  return {
    context,
    async close() {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

export async function openDemo(t, { dataDir, viewport, editorChunkDelay } = {}) {
  const { server, url } = await startDemoServer({ port: 0, dataDir: dataDir ?? mkdtempSync(join(tmpdir(), 'tavern-demo-')), editorChunkDelay });
  const { context, close } = await launchChromium();
  t.after(async () => {
    await close();
    await new Promise((r) => server.close(r));
  });
  const page = context.pages()[0] ?? await context.newPage();
  if (viewport) await page.setViewportSize(viewport);
  const errors = [];
  page.on('pageerror', (e) => errors.push(e));
  page.on('console', (m) => { if (m.type() === 'error') errors.push(new Error(m.text())); });
  return { page, url, errors, server, context };
}

export async function screenshot(page, name) {
  mkdirSync(ARTIFACTS, { recursive: true });
  await page.screenshot({ path: join(ARTIFACTS, `${name}.png`), fullPage: true });
}
