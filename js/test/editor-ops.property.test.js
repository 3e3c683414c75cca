// Property tests (O6–O24, T1, T3, T4): the editor ops against a straightforward
// plain-JS model over UTF-16 strings, including surrogate pairs and lone
// surrogates. Each op either gives the model's text with exactly one write,
// or the model's error (code, reason, index and match details) with the text
// untouched and no write.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { EditorOpsError, appendText, insertAt, replaceRange, deleteRange, applyPatch, patchBySemantic } from '../editor-ops.js';
import { createMessageEditorHandle } from '../message-takeover.js';

// ---- the model ----

class ModelError {
  constructor(code, details) { this.code = code; this.details = details; }
}
const isInt = (v) => typeof v === 'number' && Number.isInteger(v);

function offset(name, v, max) {
  if (!isInt(v)) throw new ModelError('invalid_offset', { reason: 'not_integer', [name]: v, max });
  if (v < 0 || v > max) throw new ModelError('invalid_offset', { reason: 'out_of_range', [name]: v, max });
  return v === 0 ? 0 : v;
}
function str(v) {
  if (typeof v !== 'string') throw new ModelError('invalid_offset', { reason: 'not_a_string' });
}
function range(s, e, max) {
  const a = offset('start', s, max);
  const b = offset('end', e, max);
  if (b < a) throw new ModelError('invalid_offset', { reason: 'end_before_start', start: s, end: e });
  return [a, b];
}

function lev(a, b) {
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) {
      row[j] = Math.min(prev[j] + 1, row[j - 1] + 1, prev[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    prev = row;
  }
  return prev[b.length];
}

function matches(text, find) {
  const out = [];
  for (let i = 0; i + find.length <= text.length; i++) if (text.slice(i, i + find.length) === find) out.push(i);
  return out;
}

function contextReplace(text, find, replaceWith, occurrence) {
  if (typeof find !== 'string' || find === '') throw new ModelError('patch_not_found', { find });
  let repl = replaceWith ?? '';
  if (typeof repl !== 'string') throw new ModelError('invalid_offset', { reason: 'not_a_string' });
  const hasOcc = occurrence !== undefined && occurrence !== null;
  if (hasOcc && !isInt(occurrence)) throw new ModelError('invalid_offset', { reason: 'not_integer', occurrence });
  if (hasOcc && occurrence < 1) throw new ModelError('invalid_offset', { reason: 'out_of_range', occurrence });
  const ms = matches(text, find);
  if (ms.length === 0) {
    const d = { find, replaceWith: repl, matchCount: 0 };
    const n = text.length;
    const m = find.length;
    const w = Math.min(n, m);
    const W = n - w + 1;
    if (m <= 65535 && W * m * w <= 20_000_000) {
      let best = { offset: 0, text: '', distance: Infinity };
      for (let o = 0; o < W; o++) {
        const dist = lev(find, text.slice(o, o + w));
        if (dist < best.distance) best = { offset: o, text: text.slice(o, o + w), distance: dist };
      }
      d.nearest = best;
    }
    if (hasOcc) d.occurrence = occurrence;
    throw new ModelError('patch_not_found', d);
  }
  let at;
  if (hasOcc) {
    if (occurrence > ms.length) {
      throw new ModelError('patch_not_found', { find, replaceWith: repl, occurrence, matchCount: ms.length });
    }
    at = ms[occurrence - 1];
  } else if (ms.length > 1) {
    throw new ModelError('patch_ambiguous', { find, replaceWith: repl, firstMatch: ms[0], secondMatch: ms[1], matchCount: ms.length });
  } else {
    at = ms[0];
  }
  return text.slice(0, at) + repl + text.slice(at + find.length);
}

function entry(text, p) {
  if (p === null || typeof p !== 'object') throw new ModelError('invalid_offset', { reason: 'not_an_object' });
  switch (p.kind) {
    case 'replace_range': { str(p.text); const [s, e] = range(p.start, p.end, text.length); return text.slice(0, s) + p.text + text.slice(e); }
    case 'insert_at': { str(p.text); const o = offset('offset', p.offset, text.length); return text.slice(0, o) + p.text + text.slice(o); }
    case 'delete_range': { const [s, e] = range(p.start, p.end, text.length); return text.slice(0, s) + text.slice(e); }
    case 'context_replace': return contextReplace(text, p.find, p.replaceWith, p.occurrence);
    default: throw new ModelError('invalid_offset', { reason: 'unknown_kind', kind: p.kind });
  }
}

/** The model of one op on text: the new text, or a ModelError. */
function model(text, op) {
  try {
    switch (op.op) {
      case 'appendText': str(op.text); return text + op.text;
      case 'insertAt': { str(op.text); const o = offset('offset', op.offset, text.length); return text.slice(0, o) + op.text + text.slice(o); }
      case 'replaceRange': { str(op.text); const [s, e] = range(op.start, op.end, text.length); return text.slice(0, s) + op.text + text.slice(e); }
      case 'deleteRange': { const [s, e] = range(op.start, op.end, text.length); return text.slice(0, s) + text.slice(e); }
      case 'patchBySemantic': return contextReplace(text, op.spec.find, op.spec.replaceWith, op.spec.occurrence);
      case 'applyPatch': {
        let t = text;
        for (let k = 0; k < op.patches.length; k++) {
          try { t = entry(t, op.patches[k]); } catch (e) { e.details = { ...e.details, index: k }; throw e; }
        }
        return op.patches.length === 0 ? null : t; // null: no write at all
      }
      default: throw new Error(`unknown op ${op.op}`);
    }
  } catch (e) {
    if (e instanceof ModelError) return e;
    throw e;
  }
}

function run(h, op) {
  switch (op.op) {
    case 'appendText': return appendText(h, op.text);
    case 'insertAt': return insertAt(h, op.offset, op.text);
    case 'replaceRange': return replaceRange(h, op.start, op.end, op.text);
    case 'deleteRange': return deleteRange(h, op.start, op.end);
    case 'patchBySemantic': return patchBySemantic(h, op.spec);
    case 'applyPatch': return applyPatch(h, op.patches);
    default: throw new Error(op.op);
  }
}

// ---- arbitraries ----

// A small alphabet makes matches, ambiguity and near misses common: ASCII,
// a pair (😀 = D83D DE00), lone halves, and a BMP letter; sometimes any unit.
const unit = fc.oneof(
  { weight: 8, arbitrary: fc.constantFrom(0x61, 0x62, 0x63, 0x20, 0xd83d, 0xde00, 0xdc00, 0xe9) },
  { weight: 1, arbitrary: fc.integer({ min: 0, max: 0xffff }) },
);
const text16 = (maxLength) => fc.array(unit, { maxLength }).map((us) => String.fromCharCode(...us));
const pairs = fc.array(fc.constantFrom('a', 'b', '😀', '\uD83D', '\uDE00', 'ab', ' '), { maxLength: 6 }).map((a) => a.join(''));
const anyText = fc.oneof(text16(24), pairs);
const findArb = fc.oneof(
  { weight: 6, arbitrary: fc.oneof(text16(4), pairs).filter((s) => s.length > 0) },
  { weight: 1, arbitrary: fc.constantFrom('', null, undefined, 0, {}) },
);
const off = fc.oneof(
  { weight: 10, arbitrary: fc.integer({ min: -2, max: 30 }) },
  { weight: 1, arbitrary: fc.constantFrom(1.5, NaN, '1', null, undefined, -0, Infinity, 1e21) },
);
const maybeText = fc.oneof({ weight: 12, arbitrary: anyText }, { weight: 1, arbitrary: fc.constantFrom(null, 5, undefined) });
const occurrence = fc.oneof(
  { weight: 4, arbitrary: fc.constant(undefined) },
  { weight: 4, arbitrary: fc.integer({ min: 1, max: 4 }) },
  { weight: 1, arbitrary: fc.constantFrom(0, -1, 1.5, '2', null) },
);
const replaceWith = fc.oneof({ weight: 10, arbitrary: anyText }, { weight: 1, arbitrary: fc.constantFrom(undefined, null, 7) });

const patch = fc.oneof(
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('replace_range'), start: off, end: off, text: maybeText }) },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('insert_at'), offset: off, text: maybeText }) },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('delete_range'), start: off, end: off }) },
  { weight: 4, arbitrary: fc.record({ kind: fc.constant('context_replace'), find: findArb, replaceWith, occurrence }, { requiredKeys: ['kind', 'find'] }) },
  { weight: 1, arbitrary: fc.constantFrom(null, 'x', { kind: 'nope' }, {}) },
);

const op = fc.oneof(
  fc.record({ op: fc.constant('appendText'), text: maybeText }),
  fc.record({ op: fc.constant('insertAt'), offset: off, text: maybeText }),
  fc.record({ op: fc.constant('replaceRange'), start: off, end: off, text: maybeText }),
  fc.record({ op: fc.constant('deleteRange'), start: off, end: off }),
  fc.record({ op: fc.constant('patchBySemantic'), spec: fc.record({ find: findArb, replaceWith, occurrence }, { requiredKeys: ['find'] }) }),
  fc.record({ op: fc.constant('applyPatch'), patches: fc.array(patch, { maxLength: 5 }) }),
);

// ---- properties ----

function check(initial, ops) {
  const h = createMessageEditorHandle({ generationType: 'normal', flushIntervalMs: 0 });
  h.setText(initial);
  const calls = [];
  h.setOnUpdate((t) => { calls.push(t); });
  calls.length = 0;
  let cur = initial;
  for (const o of ops) {
    const want = model(cur, o);
    let got;
    let err;
    try { got = run(h, o); } catch (e) { err = e; }
    if (want instanceof ModelError) {
      assert.ok(err instanceof EditorOpsError, `${o.op}: expected ${want.code}, got ${err ? err.message : 'success'}`);
      assert.equal(err.code, want.code);
      for (const [k, v] of Object.entries(want.details)) assert.deepEqual(err.details[k], v, `${o.op} details.${k}`);
      assert.deepEqual(Object.keys(err.details).sort(), Object.keys(want.details).sort());
      assert.equal(h.getText(), cur, 'text untouched on failure');
      assert.equal(calls.length, 0, 'no write on failure');
    } else {
      assert.equal(err, undefined, `${o.op}: unexpected ${err?.code} ${err?.message}`);
      assert.equal(got, undefined);
      if (want === null) {
        assert.equal(calls.length, 0);
      } else {
        assert.equal(h.getText(), want);
        assert.deepEqual(calls, [want], 'exactly one write');
        cur = want;
      }
    }
    calls.length = 0;
  }
}

test('O6–O16 T1 T3: random op sequences match the plain-JS model', () => {
  fc.assert(fc.property(anyText, fc.array(op, { maxLength: 8 }), check), { numRuns: 600 });
});

test('O15 O21–O24 T4: applyPatch arrays with context_replace and occurrence match the model', () => {
  const crOnly = fc.record({ kind: fc.constant('context_replace'), find: fc.oneof(text16(3), pairs).filter((s) => s.length > 0), replaceWith: anyText, occurrence });
  fc.assert(fc.property(text16(30), fc.array(fc.oneof(crOnly, patch), { minLength: 1, maxLength: 6 }),
    (t, patches) => check(t, [{ op: 'applyPatch', patches }])), { numRuns: 600 });
});

test('T1 T3: slicing ops on arbitrary code-unit strings equal String.prototype.slice', () => {
  fc.assert(fc.property(fc.array(fc.integer({ min: 0, max: 0xffff }), { maxLength: 40 }).map((u) => String.fromCharCode(...u)),
    fc.nat(), fc.nat(), fc.array(fc.integer({ min: 0, max: 0xffff }), { maxLength: 8 }).map((u) => String.fromCharCode(...u)),
    (t, a, b, ins) => {
      const s = a % (t.length + 1);
      const e = s + (b % (t.length - s + 1));
      check(t, [{ op: 'replaceRange', start: s, end: e, text: ins }, { op: 'insertAt', offset: s, text: ins }, { op: 'deleteRange', start: s, end: s }]);
    }), { numRuns: 400 });
});
