// Session-log benchmark (issue 7, deliverable 6): validate and fold a
// 100,000-event log through js/session-log.js (Go in tavern-host.wasm) and,
// side by side in this process, through the plain-JS fold in plain-fold.js.
// Prints medians, the ratio tavern-core / plain JS, and memory.
//
// The log is the one BenchmarkValidateFold100k uses, written by the Go test
// TestWriteBenchLog (sessionlog/bench_test.go) into a temporary file, so
// both languages measure the same bytes; BENCH_SESSIONLOG=FILE uses an
// existing log instead. Run with --expose-gc (make bench does).
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { isDeepStrictEqual } from 'node:util';
import * as core from '../session-log.js';
import * as plain from './plain-fold.js';

const RUNS = Number(process.env.BENCH_RUNS ?? 7);
const WARMUP = Number(process.env.BENCH_WARMUP ?? 2);

function loadLog() {
  if (process.env.BENCH_SESSIONLOG) return readFileSync(process.env.BENCH_SESSIONLOG);
  const dir = mkdtempSync(join(tmpdir(), 'tavern-benchlog-'));
  const file = join(dir, 'bench-100k.jsonl');
  try {
    execFileSync('go', ['test', '-count=1', '-run', '^TestWriteBenchLog$', './sessionlog/'], {
      cwd: fileURLToPath(new URL('../..', import.meta.url)),
      env: { ...process.env, TAVERN_BENCHLOG: file },
      stdio: ['ignore', 'ignore', 'inherit'],
    });
    return readFileSync(file);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const median = (xs) => [...xs].sort((a, b) => a - b)[xs.length >> 1];
const turn = () => new Promise((r) => setImmediate(r));
const MB = (n) => `${(n / 2 ** 20).toFixed(1)} MB`;
const dMB = (n) => (n < 0 ? '' : '+') + MB(n);

async function time(fn) {
  await turn();
  globalThis.gc?.();
  await turn();
  const t0 = performance.now();
  fn();
  return performance.now() - t0;
}

async function bench(name, coreFn, plainFn) {
  for (let i = 0; i < WARMUP; i++) { coreFn(); plainFn?.(); }
  const a = [];
  const b = [];
  for (let i = 0; i < RUNS; i++) {
    // Alternate so drift in the machine hits both sides alike.
    if (plainFn && i % 2 === 0) b.push(await time(plainFn));
    a.push(await time(coreFn));
    if (plainFn && i % 2 === 1) b.push(await time(plainFn));
  }
  const c = median(a);
  if (!plainFn) {
    console.log(`${name.padEnd(44)} core ${c.toFixed(2).padStart(9)} ms`);
    return;
  }
  const p = median(b);
  console.log(`${name.padEnd(44)} core ${c.toFixed(2).padStart(9)} ms   plain ${p.toFixed(2).padStart(9)} ms   ratio ${(c / p).toFixed(2)}`);
}

// Memory of one run with its result kept alive: the JS heap delta, the
// ArrayBuffer/external delta and the RSS delta. Go's heap lives in the
// wasm linear memory, which grows once and is never returned, so for the
// core side the RSS delta of the first run is the number that matters.
async function memory(name, fn) {
  await turn();
  globalThis.gc?.();
  const m0 = process.memoryUsage();
  const result = fn();
  const m1 = process.memoryUsage();
  globalThis.gc?.();
  const m2 = process.memoryUsage();
  console.log(`${name.padEnd(44)} heap ${dMB(m1.heapUsed - m0.heapUsed)} (after gc ${dMB(m2.heapUsed - m0.heapUsed)})   ` +
    `arrayBuffers ${dMB(m1.arrayBuffers - m0.arrayBuffers)}   rss ${dMB(m1.rss - m0.rss)} (rss now ${MB(m2.rss)})`);
  return result;
}

const bytes = loadLog();
const text = () => bytes.toString('utf8');
const lines = bytes.reduce((n, c) => n + (c === 10), 0);
console.log(`session log: ${lines - 1} events, ${MB(bytes.length)}; runs ${RUNS}, warm-up ${WARMUP}`);

// Both sides start from the file's bytes: the core facade hands them to Go
// as they are, the plain side decodes them to a string first.
const coreFold = () => core.fold(bytes);
const plainFold = () => plain.fold(text());
const coreValidate = () => core.validate(bytes);
const plainValidate = () => plain.validate(text());

console.log('memory (first run each, plain first):');
const p = await memory('  plain validate+fold → surface+messages', plainFold);
const c = await memory('  core  validate+fold → surface+messages', coreFold);
if (!isDeepStrictEqual(c.surface, p.surface) || !isDeepStrictEqual(c.messages, p.messages)) {
  throw new Error('core and plain folds disagree');
}
if (!coreValidate().ok || !plainValidate().ok) throw new Error('bench log is invalid');
console.log(`folds agree: ${c.surface.length} nodes, ${c.messages.length} messages, ${c.length} events`);

console.log('time (median):');
await bench('validate 100k (verdict only)', coreValidate, plainValidate);
await bench('validate+fold 100k → surface+messages', coreFold, plainFold);

// Planning needs an open log; there is no plain-JS planner to compare with.
const log = core.openLog(bytes);
// The target: the log's last prompt (an original user message).
let lastPrompt = -1;
const all = text().split('\n');
for (let i = all.length - 1; i > 0 && lastPrompt < 0; i--) {
  const ev = all[i] && JSON.parse(all[i]);
  if (ev?.type === 'user/message' && ev.surfaceOp === 'append' && ev.data.source?.kind === 'user') lastPrompt = ev.seq;
}
const request = { op: 'edit', target: { seq: lastPrompt }, text: 'edited', removeAttachments: ['img-A'] };
if (log.plan(request).events.length !== 1) throw new Error('plan bench broke');
await bench('plan edit on the open 100k log (core only)', () => log.plan(request));
await bench('openLog 100k (core only)', () => core.openLog(bytes).close());
log.close();
