// `make bench`: each workload side by side with the plain-JS baseline in
// one process. Prints the median of several runs and the ratio
// tavern-core / plain JS (lower is better; targets in the issues).
import { createMessageEditorHandle } from '../message-takeover.js';
import { createPlainHandle } from './plain-handle.js';
import * as coreOps from '../editor-ops.js';
import * as plainOps from './plain-ops.js';

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

// BENCH_CLOCK=cpu times each run by the process's CPU time instead of the
// wall clock: on a machine shared with other work, preemption inflates
// wall-clock runs at random, while CPU time still compares the two sides.
const CPU_CLOCK = process.env.BENCH_CLOCK === 'cpu';
const now = CPU_CLOCK ? () => { const u = process.cpuUsage(); return (u.user + u.system) / 1000; } : () => performance.now();

async function measure(fn) {
  await turn();
  globalThis.gc?.();
  await turn();
  const t0 = now();
  await fn();
  return now() - t0;
}

const results = [];
async function bench(name, core, plain, { runs = RUNS, warmup = WARMUP } = {}) {
  if (only && !name.startsWith(only)) return;
  // Warm up both: V8 first runs wasm from its baseline tier and optimises
  // hot functions later, so a short warm-up would measure the compiler.
  for (let i = 0; i < warmup; i++) { await core(); await plain(); }
  const a = [];
  const b = [];
  for (let i = 0; i < runs; i++) {
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

// Editor-op workloads (issue 3): each op through the public API on a handle
// of its own kind, against plain-ops.js on a plain handle.

// A seeded PRNG so both sides and every run see the same workload.
function rng(seed) {
  let s = seed >>> 0;
  return (n) => { s ^= s << 13; s >>>= 0; s ^= s >>> 17; s ^= s << 5; s >>>= 0; return s % n; };
}
const WORDS = ['the', 'quick', 'brown', 'fox', 'jumps', 'over', 'lazy', 'dog', 'and', 'then', 'runs', 'into',
  'forest', 'where', 'old', 'trees', 'whisper', 'about', 'rain', 'light', 'shadow', 'river'];
// About n units of prose with a unique marker "#<id>#" every few words.
function prose(n, seed) {
  const r = rng(seed);
  const parts = [];
  let len = 0;
  let markers = 0;
  while (len < n) {
    let w;
    if (r(8) === 0) w = `#${100000 + markers++}# `;
    else w = WORDS[r(WORDS.length)] + (r(10) === 0 ? '.\n' : ' ');
    parts.push(w);
    len += w.length;
  }
  return { text: parts.join(''), markers };
}

// 10,000 patches valid in sequence: replace_range / insert_at / delete_range
// at random places, and context_replace turning a marker "#id#" into "@id@"
// (each used once, so every match is unique). A marker that an earlier range
// edit cut is skipped, so slightly fewer than 10,000 patches remain.
function mixedPatches(count, seed) {
  const { text, markers } = prose(200_000, seed);
  const r = rng(seed + 1);
  const perm = Array.from({ length: markers }, (_, i) => i);
  for (let i = markers - 1; i > 0; i--) { const j = r(i + 1); [perm[i], perm[j]] = [perm[j], perm[i]]; }
  const out = [];
  let t = text;
  let used = 0;
  for (let i = 0; i < count; i++) {
    const n = t.length;
    switch (i % 4) {
      case 0: { const s = r(n - 20); out.push({ kind: 'replace_range', start: s, end: s + 3, text: 'xyz' }); t = t.slice(0, s) + 'xyz' + t.slice(s + 3); break; }
      case 1: { const o = r(n); out.push({ kind: 'insert_at', offset: o, text: 'ins ' }); t = t.slice(0, o) + 'ins ' + t.slice(o); break; }
      case 2: { const s = r(n - 20); out.push({ kind: 'delete_range', start: s, end: s + 2 }); t = t.slice(0, s) + t.slice(s + 2); break; }
      default: {
        const id = 100000 + perm[used++];
        const find = `#${id}#`;
        const at = t.indexOf(find);
        if (at < 0 || t.indexOf(find, at + 1) >= 0) break; // cut by an earlier edit
        out.push({ kind: 'context_replace', find, replaceWith: `@${id}@` });
        t = t.slice(0, at) + `@${id}@` + t.slice(at + find.length);
      }
    }
  }
  return { text, patches: out, final: t };
}
const MIXED = mixedPatches(10_000, 7);

function patchesOneByOne(create, ops) {
  return async () => {
    const h = create({ generationType: 'normal', owner: 'bench', originalText: MIXED.text });
    h.setText(MIXED.text);
    h.setOnUpdate(() => {});
    for (const p of MIXED.patches) ops.applyPatch(h, p);
    await h.commit();
    if (h.getText() !== MIXED.final) throw new Error('mixed patch bench broke');
  };
}

function patchesBatch(create, ops) {
  return async () => {
    const h = create({ generationType: 'normal', owner: 'bench' });
    h.setText(MIXED.text);
    h.setOnUpdate(() => {});
    ops.applyPatch(h, MIXED.patches);
    await h.commit();
    if (h.getText() !== MIXED.final) throw new Error('batch patch bench broke');
  };
}

// A unique 24-unit find near the end of 1 MB, replaced back and forth 200
// times (every search scans ~1 MB of a freshly edited string).
const MB = (() => {
  const { text } = prose(1 << 20, 3);
  const at = text.length - 100;
  return text.slice(0, at) + 'the unique target phrase' + text.slice(at + 24);
})();
function contextReplace1M(create, ops) {
  return async () => {
    const h = create({ generationType: 'normal', owner: 'bench' });
    h.setText(MB);
    h.setOnUpdate(() => {});
    for (let i = 0; i < 100; i++) {
      ops.patchBySemantic(h, { find: 'the unique target phrase', replaceWith: 'THE UNIQUE TARGET PHRASE' });
      ops.applyPatch(h, { kind: 'context_replace', find: 'THE UNIQUE TARGET PHRASE', replaceWith: 'the unique target phrase' });
    }
    await h.commit();
    if (h.getText() !== MB) throw new Error('context replace bench broke');
  };
}

// patch_not_found on 200 KB with the near-miss search: a 10-unit find keeps
// W·m·w just under O24's budget of 20,000,000.
const NEAR = prose(200_000, 5).text;
function nearMiss(create, ops) {
  return async () => {
    const h = create({ generationType: 'normal', owner: 'bench' });
    h.setText(NEAR);
    try {
      ops.patchBySemantic(h, { find: 'quick brwn', replaceWith: 'x' });
    } catch (err) {
      if (err.code !== 'patch_not_found' || !err.details.nearest) throw err;
      await h.discard();
      return;
    }
    throw new Error('near-miss bench broke');
  };
}

// (d) and (e) take seconds per run on either side: fewer runs.
const HEAVY = { runs: Math.min(RUNS, 5), warmup: Math.min(WARMUP, 2) };
await bench(`(d) ${MIXED.patches.length} mixed patches, one applyPatch each, 200 KB`, patchesOneByOne(createMessageEditorHandle, coreOps), patchesOneByOne(createPlainHandle, plainOps), HEAVY);
await bench(`(e) the same ${MIXED.patches.length} patches as one applyPatch array`, patchesBatch(createMessageEditorHandle, coreOps), patchesBatch(createPlainHandle, plainOps), HEAVY);
await bench('(f) context_replace, unique match in 1 MB, x200', contextReplace1M(createMessageEditorHandle, coreOps), contextReplace1M(createPlainHandle, plainOps));
await bench('(g) patch_not_found + near-miss on 200 KB (absolute time)', nearMiss(createMessageEditorHandle, coreOps), nearMiss(createPlainHandle, plainOps));

// Reasoning sections (issue 14): a sub-agent streaming its thinking into
// the last section, token by token, the way Luker's orchestrator does.
const PLANNER = 'planner-0';
function sectionStream(create, ops, { appends, delta, seed = 0 }) {
  const SEED = seed ? `### [notes]\n${'n'.repeat(seed)}\n` : '';
  return async () => {
    const h = create({ generationType: 'normal', owner: 'bench', originalReasoning: SEED });
    let updates = 0;
    h.setOnUpdate(() => { updates++; });
    ops.ensureReasoningSection(h, 'critic-0');
    ops.ensureReasoningSection(h, PLANNER);
    for (let i = 0; i < appends; i++) ops.appendToReasoningSection(h, PLANNER, delta);
    ops.markReasoningSectionStatus(h, PLANNER, 'done');
    await h.commit();
    const r = h.getReasoning();
    if (r.length < appends * delta.length || !r.includes(`### [${PLANNER}] (done)`) || updates < 1) throw new Error('section bench broke');
  };
}

// handle.appendReasoning, the handle's own fast path (T23).
function appendReasoningStream(create) {
  return async () => {
    const h = create({ generationType: 'normal', owner: 'bench' });
    h.setOnUpdate(() => {});
    for (let i = 0; i < 20000; i++) h.appendReasoning('abcd');
    await h.commit();
    if (h.getReasoning().length !== 80000) throw new Error('appendReasoning bench broke');
  };
}

// Continue over a 1 MB original: each write must keep the prefix (T25).
const ORIGINAL = 'o'.repeat(1 << 20);
function continueAppend(create, ops) {
  return async () => {
    const h = create({ generationType: 'continue', owner: 'bench', originalText: ORIGINAL });
    let updates = 0;
    h.setOnUpdate(() => { updates++; });
    for (let i = 0; i < 65536; i++) ops.appendText(h, CHUNK);
    await h.commit();
    if (h.getText().length !== 2 << 20 || updates !== 1) throw new Error('continue bench broke');
  };
}
// The raw plugin idiom on a continue handle: every write is a new rope
// whose prefix must be read, so both sides pay V8's flatten per write.
function continueIdiom(create) {
  return async () => {
    const h = create({ generationType: 'continue', owner: 'bench', originalText: ORIGINAL });
    h.setOnUpdate(() => {});
    for (let i = 0; i < 256; i++) h.setText(h.getText() + CHUNK);
    await h.commit();
    if (h.getText().length !== (1 << 20) + 256 * 16) throw new Error('continue idiom bench broke');
  };
}

await bench('(h) 20,000 four-char appends to the last reasoning section', sectionStream(createMessageEditorHandle, coreOps, { appends: 20000, delta: 'abcd' }), sectionStream(createPlainHandle, plainOps, { appends: 20000, delta: 'abcd' }));
await bench('(i) 1,000 appends to the last section of 100 KB reasoning', sectionStream(createMessageEditorHandle, coreOps, { appends: 1000, delta: 'abcd', seed: 100_000 }), sectionStream(createPlainHandle, plainOps, { appends: 1000, delta: 'abcd', seed: 100_000 }));
await bench('(j) 5,000 appends of "ab\\n" to the last section (trailing newlines)', sectionStream(createMessageEditorHandle, coreOps, { appends: 5000, delta: 'ab\n' }), sectionStream(createPlainHandle, plainOps, { appends: 5000, delta: 'ab\n' }));
await bench('(k) handle.appendReasoning, 20,000 four-char deltas', appendReasoningStream(createMessageEditorHandle), appendReasoningStream(createPlainHandle));
await bench('(l) continue: appendText 1 MB in 16-char chunks over 1 MB', continueAppend(createMessageEditorHandle, coreOps), continueAppend(createPlainHandle, plainOps), HEAVY);
await bench('(m) continue: setText(getText() + chunk), 256 chunks over 1 MB', continueIdiom(createMessageEditorHandle), continueIdiom(createPlainHandle), HEAVY);

const worst = Math.max(...results.map((r) => r.ratio));
console.log(`worst ratio ${worst.toFixed(2)} over ${results.length} workloads (median of ${RUNS} runs each, ${CPU_CLOCK ? 'CPU time' : 'wall clock'})`);
