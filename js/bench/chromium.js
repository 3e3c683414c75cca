// Chat surface in headless Chromium (issue 13), run by `make bench`: a
// 10,000-message chat swept from the end towards the top by about nine
// average message heights per frame, three times over the same stretch (first
// through estimates, then through measured messages, where about nine new
// messages mount per frame, then that once more with both sides' code
// warm; each side's mounts per frame are counted and printed), per-frame main-thread script time (median and p95)
// of tavern-core's host without and with an iframe-mounting participant,
// and of the plain-JS window (bench/plain-window.js) side by side; frames
// over 50 ms; jumpToMessage; the 3-processor chain of the Node bench
// (bench/chain-processors.js) refreshed over the mounted messages, per
// message, against bench/plain-chain.js (also with ~3 KB messages); and load to first painted message (also with
// the module requested before the page builds its chat), cold (a fresh
// profile) and on a warm reload of the same page. The page is
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
const ARGS = ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
  '--disable-background-networking', '--disable-component-update', '--disable-sync'];
// Each configuration loads cold (the browser's HTTP cache and its cached
// compiled code cleared first) and then again in the same tab: a warm
// reload, every file a 304 from the HTTP cache. V8's own code cache is
// mostly not there yet on that second load (Chromium writes a script's on
// its second load, the wasm's only after enough of it is optimized).
const profile = mkdtempSync(join(tmpdir(), 'tavern-bench-profile-'));
const context = await chromium.launchPersistentContext(profile, {
  executablePath: CHROMIUM, headless: true, viewport: { width: 1100, height: 900 }, args: ARGS,
});
const median = (xs) => { const s = [...xs].sort((a, b) => a - b); return s[s.length >> 1]; };
// The server compresses each file once per version; do that before timing.
for (const f of ['dist/tavern-core.wasm', 'dist/tavern-core.js', 'dist/chat-surface.js']) await fetch(`${url}${f}`, { headers: { 'accept-encoding': 'br' } }).then((r) => r.arrayBuffer());
try {
  // mode: undefined runs the sweeps and jumps, 'chain' the chain's
  // refreshes, true nothing past the load.
  const run = async (page, query, mode) => {
    const loadOnly = mode !== undefined;
    const errors = [];
    const onError = (e) => errors.push(e);
    page.on('pageerror', onError);
    await page.goto(`${url}bench/chromium/surface.html?${query}`);
    await page.waitForSelector('body[data-ready=true]', { timeout: 60000 });
    const firstPaint = await page.waitForFunction(() => window.bench.firstPaint, null, { timeout: 60000 }).then((h) => h.jsonValue());
    const sweep = loadOnly ? null : await page.evaluate((n) => window.bench.sweep(n, 9), FRAMES);
    const jumps = loadOnly ? null : await page.evaluate(() => window.bench.jumps());
    const chain = mode === 'chain' ? await page.evaluate(() => window.bench.chain()) : null;
    if (chain && !chain.done) throw new Error(`${query}: the chain did not process every mounted message`);
    page.off('pageerror', onError);
    if (errors.length) throw errors[0];
    return { firstPaint, sweep, jumps, chain };
  };
  const configs = [['core', 'impl=core'], ['core+iframes', 'impl=core&participant=1'], ['plain', 'impl=plain'], ['core-chain', 'impl=core&chain=1', 'chain'], ['plain-chain', 'impl=plain&chain=1', 'chain'], ['core-chain-long', 'impl=core&chain=1&long=1', 'chain'], ['plain-chain-long', 'impl=plain&chain=1&long=1', 'chain'], ['core-early', 'impl=core&early=1', true], ['core-preload', 'impl=core&preload=1', true], ['core-both', 'impl=core&preload=1&early=1', true]];
  const results = Object.fromEntries(configs.map(([k]) => [k, []]));
  { // The browser's own first-page costs are not the page's: one untimed load.
    const page = await context.newPage();
    await run(page, 'impl=plain', true);
    await page.close();
  }
  for (let i = 0; i < RUNS; i++) {
    for (const [k, q, loadOnly] of configs) {
      const page = await context.newPage();
      await (await context.newCDPSession(page)).send('Network.clearBrowserCache');
      const cold = await run(page, q, loadOnly);
      const warm = await run(page, q, true);
      results[k].push({ ...cold, warmPaint: warm.firstPaint });
      await page.close();
    }
  }
  const m = (k, f) => median(results[k].map(f));
  const ms = (x) => `${x.toFixed(2).padStart(7)} ms`;
  const row = (name, a, b) => console.log(`${name.padEnd(58)} core ${ms(a)}${b === undefined ? '' : `   plain ${ms(b)}   ratio ${(a / b).toFixed(2)}`}`);
  const f1 = (x) => x.toFixed(1);
  console.log(`chromium: 10,000 messages, ${FRAMES} frames scrolled by ~9 average message heights (~${m('core', (r) => r.sweep.delta)} px), median of ${RUNS} runs`);
  for (const [pass, label] of [['measured', 'sweep over measured messages'], ['again', 'the same sweep again (warm)'], ['first', 'first sweep (estimates)']]) {
    const mpf = (k) => f1(m(k, (r) => r.sweep[pass].mountsPerFrame));
    console.log(`chromium: ${label}: messages mounted per frame  core ${mpf('core')}  +iframes ${mpf('core+iframes')}  plain ${mpf('plain')}`);
    row(`chromium: ${label}, script per frame (median)`, m('core', (r) => r.sweep[pass].median), m('plain', (r) => r.sweep[pass].median));
    row(`chromium: ${label}, script per frame (p95)`, m('core', (r) => r.sweep[pass].p95), m('plain', (r) => r.sweep[pass].p95));
    row(`chromium: ${label}, iframe participant (median)`, m('core+iframes', (r) => r.sweep[pass].median));
    row(`chromium: ${label}, iframe participant (p95)`, m('core+iframes', (r) => r.sweep[pass].p95));
    // Runtimes start once the view rests (docs/chatsurface.md, C64/C88):
    // how many started while it moved, how many in the 10 frames after, and
    // the heaviest of those frames.
    console.log(`${`chromium: ${label}, iframe runtimes started moving / at rest`.padEnd(58)} ${m('core+iframes', (r) => r.sweep[pass].runtimesMoving)} / ${m('core+iframes', (r) => r.sweep[pass].runtimesAtRest)}`);
    row(`chromium: ${label}, iframe participant, heaviest frame at rest`, m('core+iframes', (r) => r.sweep[pass].restMax));
    console.log(`${`chromium: ${label}, frames over 50 ms (core/+iframes/plain)`.padEnd(58)} ${m('core', (r) => r.sweep[pass].longFrames)} / ${m('core+iframes', (r) => r.sweep[pass].longFrames)} / ${m('plain', (r) => r.sweep[pass].longFrames)} of ${FRAMES}`);
  }
  row(`chromium: 3-processor refresh, per msg (${m('core-chain', (r) => r.chain.mounted)}/${m('plain-chain', (r) => r.chain.mounted)} mounted)`, m('core-chain', (r) => r.chain.median), m('plain-chain', (r) => r.chain.median));
  row(`chromium: … with ~3 KB messages (${m('core-chain-long', (r) => r.chain.mounted)}/${m('plain-chain-long', (r) => r.chain.mounted)} mounted)`, m('core-chain-long', (r) => r.chain.median), m('plain-chain-long', (r) => r.chain.median));
  row('chromium: jumpToMessage (median)', m('core', (r) => r.jumps.median));
  row('chromium: jumpToMessage with iframe participant (median)', m('core+iframes', (r) => r.jumps.median));
  row('chromium: load to first painted message, cold', m('core', (r) => r.firstPaint), m('plain', (r) => r.firstPaint));
  row('chromium: load to first painted message, warm reload', m('core', (r) => r.warmPaint), m('plain', (r) => r.warmPaint));
  row('chromium: … module requested first, cold', m('core-early', (r) => r.firstPaint), m('plain', (r) => r.firstPaint));
  row('chromium: … module requested first, warm reload', m('core-early', (r) => r.warmPaint), m('plain', (r) => r.warmPaint));
  row('chromium: … module and wasm preloaded by the page, cold', m('core-preload', (r) => r.firstPaint), m('plain', (r) => r.firstPaint));
  row('chromium: … module and wasm preloaded by the page, warm', m('core-preload', (r) => r.warmPaint), m('plain', (r) => r.warmPaint));
  row('chromium: … preloaded and requested first, cold', m('core-both', (r) => r.firstPaint), m('plain', (r) => r.firstPaint));
  row('chromium: … preloaded and requested first, warm', m('core-both', (r) => r.warmPaint), m('plain', (r) => r.warmPaint));
} finally {
  await context.close();
  await new Promise((r) => server.close(r));
  rmSync(profile, { recursive: true, force: true });
}
