// make bench: managed mode against vanilla SillyTavern's own rendering of the
// same chats, in one run, in the real frontend (SillyTavern 1.18.0 from the
// vendored tarball, headless Chromium). The chats are the fixture's: a
// 10,000-message chat with an HTML-document block in every fifth message, and
// a 2,000-message chat with one in every message (the chat-switch partner).
//
// Figures, for each side:
// - .mes in the DOM and nodes under #chat after open, and the most seen
//   while scrolling (vanilla can only scroll what it rendered: it gets "Show
//   more messages" clicks at the top, five at most, as a user would);
// - open-to-settled: openCharacterChat() called → the chat rendered and
//   #chat unchanged for two frames (managed: the host settled);
// - reading (wheel scrolling up through the last messages) and a
//   page-through of the whole chat (one viewport-sized jump per step, each
//   left to settle): frames, script time per frame (CDP ScriptDuration /
//   frames), long animation frames (> 50 ms, LoAF) and the longest;
// - JS heap after 2 and after 20 chat switches (after a forced GC): the
//   first figure against the second shows whether switching leaks.
// Usage: node --expose-gc bench/sillytavern-managed.js (make bench runs it
// when the tarball is present).
import { join } from 'node:path';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import {
  REPO, CHARACTER, sillyTavernTarball, startSillyTavern, launchChromium, openSillyTavern, openChat,
} from '../e2e/sillytavern/harness.js';
import { makeMessages, chatFile } from '../e2e/st-managed/fixture.js';

const EXT = join(REPO, 'dist/sillytavern/tavern-core');
const EXAMPLE = join(REPO, 'dist/sillytavern/html-runtime');
const LONG = 'bench long';
const DENSE = 'bench dense';
const STEPS = Number(process.env.BENCH_SCROLL_STEPS ?? 120);
const SWITCHES = 20;
const MORE_CLICKS = 5;

if (!sillyTavernTarball()) {
  console.log('sillytavern managed bench: skipped: no ../shared/vendor/SillyTavern-1.18.0.tar.gz and no ST_TARBALL=…');
  process.exit(0);
}
if (!existsSync(join(EXT, 'managed', 'controller.js'))) {
  console.error('run `make sillytavern` first');
  process.exit(1);
}
process.env.ST_HARNESS_QUIET ??= '1';

const long = chatFile(makeMessages({ count: 10000, character: CHARACTER.name }));
const dense = chatFile(makeMessages({ count: 2000, htmlEvery: 1, htmlFirst: 0, seed: 7, character: CHARACTER.name }),
  { integrity: '22222222-0000-4000-8000-000000000000' });

async function side(managed) {
  const st = await startSillyTavern({
    extensions: managed ? [{ name: 'tavern-core', dir: EXT }, { name: 'html-runtime', dir: EXAMPLE }] : [],
    settings: (s) => {
      if (managed) s.extension_settings = { ...s.extension_settings, 'tavern-core': { chatSurface: 'managed' } };
    },
  });
  const dir = join(st.userDir, 'chats', CHARACTER.chatDir);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, `${LONG}.jsonl`), long);
  writeFileSync(join(dir, `${DENSE}.jsonl`), dense);
  const browser = await launchChromium();
  try {
    const { page } = await openSillyTavern(st, { context: browser.context });
    await openChat(page, DENSE); // warm: code loaded, caches filled
    const cdp = await page.context().newCDPSession(page);
    await cdp.send('Performance.enable');
    const metric = async (name) => (await cdp.send('Performance.getMetrics')).metrics.find((m) => m.name === name)?.value ?? 0;
    await installProbes(page);

    const open = await openTimed(page, LONG, managed);
    const afterOpen = await dom(page);

    const r0 = await metric('ScriptDuration');
    const reading = await readUp(page);
    const r1 = await metric('ScriptDuration');
    reading.scriptPerFrame = ((r1 - r0) * 1000) / Math.max(1, reading.frames);
    await openTimed(page, LONG, managed); // back at the end for the page-through

    const script0 = await metric('ScriptDuration');
    const scroll = await scrollAcross(page, managed);
    const script1 = await metric('ScriptDuration');
    scroll.scriptPerFrame = ((script1 - script0) * 1000) / Math.max(1, scroll.frames);

    const heapNow = async () => {
      await cdp.send('HeapProfiler.collectGarbage');
      await cdp.send('HeapProfiler.collectGarbage');
      return metric('JSHeapUsedSize');
    };
    let heap2 = 0;
    for (let i = 0; i < SWITCHES; i++) {
      await openTimed(page, i % 2 ? LONG : DENSE, managed);
      if (i === 1) heap2 = await heapNow();
    }
    const heap = await heapNow();
    return { open, afterOpen, reading, scroll, heap, heap2 };
  } finally {
    await browser.close();
    await st.stop();
  }
}

async function installProbes(page) {
  await page.evaluate(() => {
    const g = globalThis;
    g.__bench = { long: [], frames: 0, maxMes: 0, maxNodes: 0 };
    new PerformanceObserver((list) => {
      for (const e of list.getEntries()) if (e.duration > 50) g.__bench.long.push(e.duration);
    }).observe({ type: 'long-animation-frame' });
    const chat = document.getElementById('chat');
    new MutationObserver(() => {
      g.__bench.maxMes = Math.max(g.__bench.maxMes, chat.querySelectorAll(':scope > .mes').length);
      g.__bench.dirty = true;
    }).observe(chat, { childList: true, subtree: true });
  });
}

const dom = (page) => page.evaluate(() => ({
  mes: document.querySelectorAll('#chat > .mes').length,
  nodes: document.querySelectorAll('#chat *').length,
}));

// openCharacterChat() → #chat quiet for two frames (and the host settled).
async function openTimed(page, name, managed) {
  return page.evaluate(async ({ avatar, name, managed }) => {
    const ctx = globalThis.SillyTavern.getContext();
    const frame = () => new Promise((r) => requestAnimationFrame(r));
    const t0 = performance.now();
    await ctx.openCharacterChat(name);
    let quiet = 0;
    for (let i = 0; i < 600 && quiet < 2; i++) {
      globalThis.__bench.dirty = false;
      await frame();
      const host = managed ? globalThis.__tavernCoreExtension.managed.chat.host?.snapshot() : null;
      const settled = !managed || (host?.state === 'settled' && !host.runtime.scheduled);
      quiet = !globalThis.__bench.dirty && settled ? quiet + 1 : 0;
    }
    void avatar;
    return performance.now() - t0;
  }, { avatar: CHARACTER.avatar, name, managed });
}

// Reading: 150 wheel notches of 120 px upwards from the end, 50 ms apart,
// as a user scrolls back through the last few dozen messages.
async function readUp(page) {
  await page.evaluate(() => { Object.assign(globalThis.__bench, { long: [] }); });
  await page.mouse.move(640, 400);
  const frames = page.evaluate(() => new Promise((resolve) => {
    let n = 0;
    const t = performance.now();
    const f = () => { n++; if (performance.now() - t < 150 * 50 + 500) requestAnimationFrame(f); else resolve(n); };
    requestAnimationFrame(f);
  }));
  for (let i = 0; i < 150; i++) {
    await page.mouse.wheel(0, -120);
    await page.waitForTimeout(50);
  }
  const n = await frames;
  const long = await page.evaluate(() => globalThis.__bench.long);
  return { frames: n, longFrames: long.length, longest: long.length ? Math.max(...long) : 0 };
}

// Page from the bottom to the top in STEPS steps, one viewport-sized jump
// per step, letting each position settle (150 ms, the host's gesture end);
// vanilla clicks "Show more messages" when it reaches the top, at most
// MORE_CLICKS times.
async function scrollAcross(page, managed) {
  await page.evaluate(() => { Object.assign(globalThis.__bench, { long: [], frames: 0, maxMes: 0 }); });
  const r = await page.evaluate(async ({ steps, managed, clicks }) => {
    const chat = document.getElementById('chat');
    const b = globalThis.__bench;
    let frames = 0;
    let counting = true;
    const count = () => { if (counting) { frames++; requestAnimationFrame(count); } };
    requestAnimationFrame(count);
    const wait = (ms) => new Promise((res) => setTimeout(res, ms));
    let maxNodes = 0;
    let more = 0;
    const t0 = performance.now();
    const stride = () => Math.max(chat.clientHeight, chat.scrollHeight / steps);
    for (let i = 0; i < steps * 3 && (chat.scrollTop > 0 || (!managed && more < clicks)); i++) {
      if (chat.scrollTop <= 0) {
        const button = document.getElementById('show_more_messages');
        if (!button) break;
        button.click();
        more++;
        await wait(300);
        continue;
      }
      chat.scrollTop = Math.max(0, chat.scrollTop - stride());
      await wait(170);
      maxNodes = Math.max(maxNodes, chat.querySelectorAll('*').length);
    }
    await wait(300);
    counting = false;
    return { frames, ms: performance.now() - t0, maxNodes, more, top: chat.querySelector(':scope > .mes')?.getAttribute('mesid') };
  }, { steps: STEPS, managed, clicks: MORE_CLICKS });
  const b = await page.evaluate(() => ({ long: globalThis.__bench.long, maxMes: globalThis.__bench.maxMes }));
  return { ...r, maxMes: b.maxMes, longFrames: b.long.length, longest: b.long.length ? Math.max(...b.long) : 0 };
}

const mb = (x) => `${(x / 1048576).toFixed(1)} MB`;
const ms = (x) => `${Math.round(x)} ms`;

const t0 = Date.now();
const vanilla = await side(false);
const managed = await side(true);
const rows = [
  ['.mes after open', vanilla.afterOpen.mes, managed.afterOpen.mes],
  ['nodes under #chat after open', vanilla.afterOpen.nodes, managed.afterOpen.nodes],
  ['open-to-settled (10,000 messages)', ms(vanilla.open), ms(managed.open)],
  ['reading (150 wheel notches up): frames', vanilla.reading.frames, managed.reading.frames],
  ['reading: script time per frame', `${vanilla.reading.scriptPerFrame.toFixed(2)} ms`, `${managed.reading.scriptPerFrame.toFixed(2)} ms`],
  ['reading: long frames (> 50 ms)', vanilla.reading.longFrames, managed.reading.longFrames],
  ['reading: longest frame', ms(vanilla.reading.longest), ms(managed.reading.longest)],
  ['page-through: reached message', `#${vanilla.scroll.top} (${vanilla.scroll.more} Show more)`, `#${managed.scroll.top}`],
  ['page-through: most .mes at once', vanilla.scroll.maxMes, managed.scroll.maxMes],
  ['page-through: most nodes under #chat', vanilla.scroll.maxNodes, managed.scroll.maxNodes],
  ['page-through: frames', vanilla.scroll.frames, managed.scroll.frames],
  ['page-through: script time per frame', `${vanilla.scroll.scriptPerFrame.toFixed(2)} ms`, `${managed.scroll.scriptPerFrame.toFixed(2)} ms`],
  ['page-through: long frames (> 50 ms)', vanilla.scroll.longFrames, managed.scroll.longFrames],
  ['page-through: longest frame', ms(vanilla.scroll.longest), ms(managed.scroll.longest)],
  ['JS heap after 2 chat switches', mb(vanilla.heap2), mb(managed.heap2)],
  [`JS heap after ${SWITCHES} chat switches`, mb(vanilla.heap), mb(managed.heap)],
];
const w = [Math.max(...rows.map((r) => r[0].length)), 26, 26];
console.log(`SillyTavern 1.18.0, managed mode vs vanilla rendering (real frontend, headless Chromium; ${((Date.now() - t0) / 1000).toFixed(0)} s)`);
console.log(`${'figure'.padEnd(w[0])}  ${'vanilla'.padEnd(w[1])}  managed`);
for (const [k, a, z] of rows) console.log(`${k.padEnd(w[0])}  ${String(a).padEnd(w[1])}  ${z}`);
