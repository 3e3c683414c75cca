// Chat surface benchmarks (issue 5), run by `make bench` after bench/run.js:
// opening a 10,000-message chat to settled, and a scroll sweep end to end,
// each measured per frame under happy-dom, side by side with the plain-JS
// window policy of bench/plain-window.js. Prints medians and the ratio
// tavern-core / plain JS.
//
// The processor row runs in a child process (BENCH_PART=processors), since
// processors must register before the page's first projection (C114): a
// 3-processor chain over the visible window, timed per message as
// refresh() re-processes every mounted message, against bench/plain-chain.js.
import '../test/happydom-preload.cjs';
import { makeRoot, formatMessage, materializer, messages } from '../test/chat-surface-fixture.js';
import { installChatSurfaceApi, createChatSurfaceHost } from '../chat-surface.js';
import { createPlainWindow } from './plain-window.js';
import { createPlainChain } from './plain-chain.js';
import { CHAIN } from './chain-processors.js';
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const PART = process.env.BENCH_PART ?? '';

// 15: with 7, one open of 10,000 messages more or less inside a V8 or Go
// collection swung the open ratio from 1.2 to 3.9 between runs on a quiet
// machine; 15 keep it within about ±0.3.
const RUNS = Number(process.env.BENCH_RUNS ?? 15);
const SWEEP = Number(process.env.BENCH_SWEEP ?? 100);
const median = (xs) => { const s = [...xs].sort((a, b) => a - b); return s[s.length >> 1]; };

const api = installChatSurfaceApi(globalThis, { managed: true });

function frames() {
  const q = new Map();
  let next = 0;
  return {
    requestAnimationFrame: (cb) => { q.set(++next, cb); return next; },
    cancelAnimationFrame: (id) => { q.delete(id); },
    setTimeout: (cb) => { q.set(++next, cb); return next; },
    clearTimeout: (id) => { q.delete(id); },
    // Runs queued callbacks one at a time, timing each (a frame or timer).
    flush(times) {
      while (q.size) {
        const [id, cb] = q.entries().next().value;
        q.delete(id);
        const t = performance.now();
        cb();
        times?.push(performance.now() - t);
      }
    },
  };
}

const chat = messages(10000);
const Event = globalThis.window.Event;

function core() {
  const root = makeRoot();
  const sched = frames();
  const host = createChatSurfaceHost({ root, getMessages: () => chat, materialize: materializer(), formatMessage, emit() {}, ...sched });
  return {
    root, sched,
    open() { host.open(); },
    reset() { host.resetEpoch(); },
    done() { host.dispose(); root.remove(); },
  };
}
function plain() {
  const root = makeRoot();
  const sched = frames();
  const w = createPlainWindow({ root, getMessages: () => chat, materialize: materializer(), ...sched });
  return { root, sched, open: () => w.open(), reset: () => w.reset(), done() { root.remove(); } };
}

// (1) open to settled: the open() call plus every frame until none is due.
function openToSettled(make) {
  const x = make();
  const t = performance.now();
  x.open();
  x.sched.flush();
  const ms = performance.now() - t;
  x.done();
  return ms;
}

// (2) a sweep from the end to the top: each step is a scroll notification
// and the frames it causes; the per-frame cost is the median over frames.
function sweep(make) {
  const x = make();
  x.open();
  x.sched.flush();
  const per = [];
  const t = performance.now();
  for (let i = 1; i <= SWEEP; i++) {
    const max = x.root.scrollHeight - x.root.clientHeight;
    x.root.scrollTop = Math.round((1 - i / SWEEP) * max);
    const t0 = performance.now();
    x.root.dispatchEvent(new Event('scroll'));
    const t1 = performance.now();
    const frameTimes = [];
    x.sched.flush(frameTimes);
    per.push(t1 - t0 + frameTimes.reduce((a, b) => a + b, 0));
  }
  const total = performance.now() - t;
  x.done();
  return { total, step: median(per) };
}

function row(name, a, b) {
  console.log(`${name.padEnd(58)} core ${a.toFixed(2).padStart(9)} ms   plain ${b.toFixed(2).padStart(9)} ms   ratio ${(a / b).toFixed(2)}`);
}

// Both sides must lay out the same view, or the ratio compares different
// work: the same messages mounted and the same scroll position once settled.
function settledView(make) {
  const x = make();
  x.open();
  x.sched.flush();
  const view = { mesids: [...x.root.querySelectorAll(':scope > .mes')].map((el) => el.getAttribute('mesid')).join(), S: x.root.scrollTop };
  x.done();
  return view;
}

if (!PART) {
  const a = settledView(core);
  const b = settledView(plain);
  if (a.mesids !== b.mesids || a.S !== b.S) throw new Error(`the plain window settles elsewhere: core ${JSON.stringify(a)}, plain ${JSON.stringify(b)}`);
  // Warm-up: 60 opens per side, so both medians are of warm code. V8 runs
  // Go's functions in its baseline wasm compiler (Liftoff) until each is
  // hot: the core's first ~40 opens took 2.5-3.5x their later time (1.8x
  // with --no-liftoff), so the 2 warm-ups this had caught the core mid
  // tier-up and the plain side mid-JIT, and the ratio swung 1.6-2.1 from
  // run to run. A page's first opens are the Chromium load row's.
  for (let i = 0; i < 60; i++) { openToSettled(core); openToSettled(plain); }
  const oa = [];
  const ob = [];
  for (let i = 0; i < RUNS; i++) {
    if (i % 2) { oa.push(openToSettled(core)); ob.push(openToSettled(plain)); } else { ob.push(openToSettled(plain)); oa.push(openToSettled(core)); }
  }
  row('chat surface: open 10,000 messages to settled', median(oa), median(ob));
  const sa = [];
  const sb = [];
  for (let i = 0; i < Math.max(3, RUNS >> 1); i++) { sa.push(sweep(core)); sb.push(sweep(plain)); }
  row(`chat surface: scroll sweep, ${SWEEP} steps, per step (frames)`, median(sa.map((r) => r.step)), median(sb.map((r) => r.step)));
  row(`chat surface: scroll sweep, ${SWEEP} steps, end to end`, median(sa.map((r) => r.total)), median(sb.map((r) => r.total)));
  execFileSync(process.execPath, [...process.execArgv, fileURLToPath(import.meta.url)],
    { stdio: 'inherit', env: { ...process.env, BENCH_PART: 'processors' } });
}

// ---- (3) a 3-processor chain over the visible window ----
// The same chain for both (bench/chain-processors.js).
const REFRESHES = Number(process.env.BENCH_REFRESHES ?? 30);

async function processorRows() {
  let reg;
  for (const p of CHAIN) reg = api.registerContentProcessor(p); // before the first projection (C113)
  const pchat = Array.from({ length: 10000 }, (_, i) => ({ mes: `m${i}: {{char}} watches the {{weather}} and the rain` }));

  async function coreChain() {
    const root = makeRoot();
    const sched = frames();
    const host = createChatSurfaceHost({ root, getMessages: () => pchat, materialize: materializer(), formatMessage, emit() {}, ...sched });
    const opened = host.open();
    sched.flush();
    await opened;
    sched.flush();
    const n = host.snapshot().mounted.length;
    const per = [];
    for (let i = 0; i < REFRESHES; i++) {
      const t = performance.now();
      await reg.refresh();
      sched.flush();
      per.push((performance.now() - t) / n);
    }
    const ok = root.querySelectorAll('.mes_text > .badge').length === n;
    host.dispose();
    root.remove();
    if (!ok) throw new Error('core: not every mounted message was processed');
    return { n, per: median(per) };
  }
  async function plainChain() {
    const root = makeRoot();
    const sched = frames();
    const w = createPlainWindow({ root, getMessages: () => pchat, materialize: materializer(), ...sched });
    const chain = createPlainChain({ processors: CHAIN, formatMessage, getMessages: () => pchat });
    w.open();
    sched.flush();
    const roots = () => [...root.querySelectorAll(':scope > .mes')];
    await chain.refresh(roots());
    const n = roots().length;
    const per = [];
    for (let i = 0; i < REFRESHES; i++) {
      const t = performance.now();
      await chain.refresh(roots());
      sched.flush();
      per.push((performance.now() - t) / n);
    }
    const ok = root.querySelectorAll('.mes_text > .badge').length === n;
    w.reset();
    root.remove();
    if (!ok) throw new Error('plain: not every mounted message was processed');
    return { n, per: median(per) };
  }
  await coreChain(); await plainChain(); // warm-up
  const a = [];
  const b = [];
  let n = '';
  for (let i = 0; i < Math.max(3, RUNS >> 1); i++) {
    const x = await coreChain();
    const y = await plainChain();
    a.push(x.per); b.push(y.per); n = `${x.n}/${y.n}`;
  }
  // Per message, so windows of slightly different size still compare.
  row(`chat surface: 3-processor refresh, per msg (${n} mounted)`, median(a), median(b));
}
if (PART === 'processors') await processorRows();
