// Chat surface in headless Chromium (issue 13), run by `make bench`: a
// 10,000-message chat swept from the end towards the top at about nine new
// messages per frame, per-frame main-thread script time (median and p95)
// of tavern-core's host without and with an iframe-mounting participant,
// and of the plain-JS window (bench/plain-window.js) side by side; frames
// over 50 ms; jumpToMessage; and load to first painted message (also with
// the module requested before the page builds its chat). The page is
// bench/chromium/surface.html, served by the demo server on 127.0.0.1.
// Skipped (with a note) when Debian's chromium is missing.
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startDemoServer } from '../demo/server.js';

const CHROMIUM = process.env.CHROMIUM ?? '/usr/bin/chromium';
if (!existsSync(CHROMIUM)) {
  console.log(`chromium: skipped (${CHROMIUM} is missing; apt-get install chromium)`);
  process.exit(0);
}
const RUNS = Number(process.env.BENCH_RUNS ?? 3);
const FRAMES = Number(process.env.BENCH_FRAMES ?? 120);
const { chromium } = await import('playwright-core');
const { server, url } = await startDemoServer({ port: 0, dataDir: mkdtempSync(join(tmpdir(), 'tavern-bench-')) });
const profile = mkdtempSync(join(tmpdir(), 'tavern-bench-profile-'));
const context = await chromium.launchPersistentContext(profile, {
  executablePath: CHROMIUM, headless: true, viewport: { width: 1100, height: 900 },
  args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
    '--disable-background-networking', '--disable-component-update', '--disable-sync'],
});
const median = (xs) => { const s = [...xs].sort((a, b) => a - b); return s[s.length >> 1]; };
try {
  const run = async (query, loadOnly) => {
    const page = await context.newPage();
    const errors = [];
    page.on('pageerror', (e) => errors.push(e));
    await page.goto(`${url}bench/chromium/surface.html?${query}`);
    await page.waitForSelector('body[data-ready=true]', { timeout: 60000 });
    const firstPaint = await page.waitForFunction(() => window.bench.firstPaint, null, { timeout: 60000 }).then((h) => h.jsonValue());
    const sweep = loadOnly ? null : await page.evaluate((n) => window.bench.sweep(n, 9), FRAMES);
    const jumps = loadOnly ? null : await page.evaluate(() => window.bench.jumps());
    await page.close();
    if (errors.length) throw errors[0];
    return { firstPaint, sweep, jumps };
  };
  const configs = [['core', 'impl=core'], ['core+iframes', 'impl=core&participant=1'], ['plain', 'impl=plain'], ['core-early', 'impl=core&early=1', true]];
  const results = Object.fromEntries(configs.map(([k]) => [k, []]));
  for (let i = 0; i < RUNS; i++) for (const [k, q, loadOnly] of configs) results[k].push(await run(q, loadOnly));
  const m = (k, f) => median(results[k].map(f));
  const ms = (x) => `${x.toFixed(2).padStart(7)} ms`;
  const row = (name, a, b) => console.log(`${name.padEnd(58)} core ${ms(a)}${b === undefined ? '' : `   plain ${ms(b)}   ratio ${(a / b).toFixed(2)}`}`);
  console.log(`chromium: 10,000 messages, ${FRAMES} frames at ~9 new messages per frame (~${m('core', (r) => r.sweep.delta)} px), median of ${RUNS} runs`);
  row('chromium: sweep, script per frame (median)', m('core', (r) => r.sweep.median), m('plain', (r) => r.sweep.median));
  row('chromium: sweep, script per frame (p95)', m('core', (r) => r.sweep.p95), m('plain', (r) => r.sweep.p95));
  row('chromium: sweep with iframe participant, per frame (median)', m('core+iframes', (r) => r.sweep.median));
  row('chromium: sweep with iframe participant, per frame (p95)', m('core+iframes', (r) => r.sweep.p95));
  console.log(`${'chromium: frames over 50 ms per sweep (core / +iframes / plain)'.padEnd(58)} ${m('core', (r) => r.sweep.longFrames)} / ${m('core+iframes', (r) => r.sweep.longFrames)} / ${m('plain', (r) => r.sweep.longFrames)} of ${FRAMES}`);
  row('chromium: jumpToMessage (median)', m('core', (r) => r.jumps.median));
  row('chromium: jumpToMessage with iframe participant (median)', m('core+iframes', (r) => r.jumps.median));
  row('chromium: load to first painted message', m('core', (r) => r.firstPaint), m('plain', (r) => r.firstPaint));
  row('chromium: load to first paint, module requested first', m('core-early', (r) => r.firstPaint), m('plain', (r) => r.firstPaint));
} finally {
  await context.close();
  await new Promise((r) => server.close(r));
  rmSync(profile, { recursive: true, force: true });
}
