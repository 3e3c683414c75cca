// `make bench`: each workload side by side with the plain-JS baseline in
// one process. Prints the median of several runs and the ratio
// tavern-core / plain JS (lower is better; targets in the issues).
import { createMessageEditorHandle } from '../message-takeover.js';
import { createPlainHandle } from './plain-handle.js';

const RUNS = Number(process.env.BENCH_RUNS ?? 9);
const WARMUP = Number(process.env.BENCH_WARMUP ?? 5);
const only = process.argv[2];

function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  return s[s.length >> 1];
}

// Between runs: let the event loop turn (FinalizationRegistry callbacks,
// which release Go-side handle entries, run as tasks) and collect.
const turn = () => new Promise((r) => setImmediate(r));

async function measure(fn) {
  await turn();
  globalThis.gc?.();
  await turn();
  const t0 = performance.now();
  await fn();
  return performance.now() - t0;
}

const results = [];
async function bench(name, core, plain) {
  if (only && !name.startsWith(only)) return;
  // Warm up both: V8 first runs wasm from its baseline tier and optimises
  // hot functions later, so a short warm-up would measure the compiler.
  for (let i = 0; i < WARMUP; i++) { await core(); await plain(); }
  const a = [];
  const b = [];
  for (let i = 0; i < RUNS; i++) {
    // Alternate so drift in the machine hits both sides alike.
    if (i % 2) { a.push(await measure(core)); b.push(await measure(plain)); } else { b.push(await measure(plain)); a.push(await measure(core)); }
  }
  const row = { name, core: median(a), plain: median(b) };
  row.ratio = row.core / row.plain;
  results.push(row);
  console.log(`${name.padEnd(58)} core ${row.core.toFixed(2).padStart(9)} ms   plain ${row.plain.toFixed(2).padStart(9)} ms   ratio ${row.ratio.toFixed(2)}`);
}

// (a) Stream 1 MB in 16-character chunks through the plugin idiom, with an
// onUpdate attached at the default 33 ms.
const CHUNK = 'abcdefghijklmnop';
function streamMB(create) {
  return async () => {
    const h = create({ generationType: 'normal', owner: 'bench' });
    let updates = 0;
    h.setOnUpdate(() => { updates++; });
    for (let i = 0; i < 65536; i++) h.setText(h.getText() + CHUNK);
    await h.commit();
    if (h.getText().length !== 1 << 20 || updates !== 1) throw new Error('stream bench broke');
  };
}

// (b) 100,000 setText calls of ~40 characters.
const LINES = Array.from({ length: 64 }, (_, i) => `line ${i}: the quick brown fox jumps over`.slice(0, 40));
function setTexts(create) {
  return async () => {
    const h = create({ generationType: 'normal' });
    h.setOnUpdate(() => {});
    for (let i = 0; i < 100000; i++) h.setText(LINES[i & 63]);
    await h.commit();
  };
}

// (c) Create and commit 10,000 handles.
function createCommit(create) {
  return async () => {
    const all = [];
    for (let i = 0; i < 10000; i++) {
      const h = create({ generationType: 'normal', owner: 'bench' });
      h.setText('reply');
      all.push(h.commit());
    }
    await Promise.all(all);
  };
}

await bench('(a) stream 1 MB in 16-char chunks, onUpdate @33ms', streamMB(createMessageEditorHandle), streamMB(createPlainHandle));
await bench('(b) 100,000 setText calls of ~40 chars', setTexts(createMessageEditorHandle), setTexts(createPlainHandle));
await bench('(c) create and commit 10,000 handles', createCommit(createMessageEditorHandle), createCommit(createPlainHandle));

const worst = Math.max(...results.map((r) => r.ratio));
console.log(`worst ratio ${worst.toFixed(2)} over ${results.length} workloads (median of ${RUNS} runs each)`);
