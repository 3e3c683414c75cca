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
import fs, { mkdtempSync, readFileSync, rmSync, copyFileSync, appendFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { isDeepStrictEqual } from 'node:util';
import * as core from '../session-log.js';
import * as plain from './plain-fold.js';
import { LiveSession } from '../session-host.js';
import { sharedHost } from '../host-core.js';

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

// Wall time of one run; the CPU time of the process (all its threads) is
// kept beside it, since on a busy machine it is the steadier of the two.
const cpuTimes = new Map();
async function time(fn, key) {
  await turn();
  globalThis.gc?.();
  await turn();
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  fn();
  const wall = performance.now() - t0;
  const c = process.cpuUsage(c0);
  if (key) (cpuTimes.get(key) ?? cpuTimes.set(key, []).get(key)).push((c.user + c.system) / 1000);
  return wall;
}

async function bench(name, coreFn, plainFn) {
  for (let i = 0; i < WARMUP; i++) { coreFn(); plainFn?.(); }
  const a = [];
  const b = [];
  for (let i = 0; i < RUNS; i++) {
    // Alternate so drift in the machine hits both sides alike.
    if (plainFn && i % 2 === 0) b.push(await time(plainFn, `${name}/plain`));
    a.push(await time(coreFn, `${name}/core`));
    if (plainFn && i % 2 === 1) b.push(await time(plainFn, `${name}/plain`));
  }
  const c = median(a);
  if (!plainFn) {
    console.log(`${name.padEnd(44)} core ${c.toFixed(2).padStart(9)} ms`);
    return c;
  }
  const p = median(b);
  const cc = median(cpuTimes.get(`${name}/core`));
  const pc = median(cpuTimes.get(`${name}/plain`));
  console.log(`${name.padEnd(44)} core ${c.toFixed(2).padStart(9)} ms   plain ${p.toFixed(2).padStart(9)} ms   ratio ${(c / p).toFixed(2)}` +
    `   (cpu ${cc.toFixed(0)} / ${pc.toFixed(0)} ms, ratio ${(cc / pc).toFixed(2)})`);
  return c;
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

// Where the core's time goes: copying the bytes into Go (a log whose first
// line is refused at once costs the copy and nothing else), reading and
// validating every event (validate minus the copy), and the fold's answer
// (its messages pasted from the log's bytes in Go, JSON.parse in JS).
const host = await sharedHost();
const refusedAtOnce = Buffer.concat([Buffer.from('[]\n'), bytes.subarray(bytes.indexOf(10) + 1)]);
if (JSON.parse(host.call('validate', 0, refusedAtOnce, '{}')).value.ok !== false) throw new Error('copy probe broke');
await bench('  of which: copy 17.6 MB into Go', () => host.call('validate', 0, refusedAtOnce, '{}'));
const cpu = (k) => median(cpuTimes.get(k));
const cCopy = cpu('  of which: copy 17.6 MB into Go/core');
const cValidate = cpu('validate 100k (verdict only)/core');
const cFold = cpu('validate+fold 100k → surface+messages/core');
console.log(`  of which (cpu): copy in ${cCopy.toFixed(0)} ms, read + validate ${(cValidate - cCopy).toFixed(0)} ms, ` +
  `fold answer (messages pasted in Go, JSON.parse in JS) ${(cFold - cValidate).toFixed(0)} ms`);

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

// Durable appends (S109): what an fsync adds per append. The host's
// append + flush (validated in Go, written at the known end, fsynced),
// the same with fsync stubbed out, and a plain-JS append of the same line
// without any fsync (what the host did before).
const APPENDS = Number(process.env.BENCH_APPENDS ?? 200);
const fixture = fileURLToPath(new URL('../../testdata/sessionlog/f.jsonl', import.meta.url));
async function perAppend(name, run) {
  const dir = mkdtempSync(join(tmpdir(), 'tavern-benchappend-'));
  const path = join(dir, 'session.jsonl');
  copyFileSync(fixture, path);
  try {
    const t = await time(() => run(path));
    return t / APPENDS;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
const chunk = (n) => ({ turn: 9, step: 1, chunk: { type: 'text-delta', index: 0, text: `token ${n}` } });
const durable = (path) => {
  const s = LiveSession.load(path);
  for (let i = 0; i < APPENDS; i++) { s.append('assistant/chunk', chunk(i)); s.flush(); }
  s.close();
};
const plainAppend = (path) => {
  let seq = 20;
  for (let i = 0; i < APPENDS; i++) {
    appendFileSync(path, JSON.stringify({ type: 'assistant/chunk', seq: seq++, time: Date.now(), data: chunk(i) }) + '\n');
  }
};
const runs = Math.max(3, RUNS >> 1);
const dur = [];
const nofsync = [];
const pl = [];
for (let r = 0; r < runs; r++) {
  dur.push(await perAppend('durable', durable));
  const real = fs.fsyncSync;
  fs.fsyncSync = () => {};
  try { nofsync.push(await perAppend('no fsync', durable)); } finally { fs.fsyncSync = real; }
  pl.push(await perAppend('plain', plainAppend));
}
const us = (ms) => `${(ms * 1000).toFixed(0).padStart(6)} µs`;
console.log(`durable append (${APPENDS}× append + flush, median of ${runs}):`);
console.log(`  core: validate + write + fsync            ${us(median(dur))} per append   plain JS (stringify + appendFileSync, no fsync) ${us(median(pl))}   ratio ${(median(dur) / median(pl)).toFixed(1)}`);
console.log(`  core without the fsync                     ${us(median(nofsync))} per append   → the fsync costs ${us(median(dur) - median(nofsync))} per append`);