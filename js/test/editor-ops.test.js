// Editor ops (spec/takeover.md §10–11, rules O1–O38, scenarios S4, S5,
// S29–S31, S34, S75–S83, S102–S140) through the public JS API only.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as editorOps from '../editor-ops.js';
import {
  EditorOpsError, appendText, appendReasoning, insertAt, replaceRange, deleteRange, applyPatch,
  patchBySemantic, pipeFrom, ensureReasoningSection, appendToReasoningSection, markReasoningSectionStatus,
} from '../editor-ops.js';
import { createMessageEditorHandle, TakeoverError } from '../message-takeover.js';

// ---- fixtures ----

/**
 * The spec's H(o) with text and reasoning set first, then the recorder cb
 * attached and cleared, so cb.calls counts only what the op under test does.
 */
function setup(text = '', o = {}, reasoning = '') {
  const h = createMessageEditorHandle({ generationType: 'normal', flushIntervalMs: 0, ...o });
  if (text !== (o.originalText ?? '')) h.setText(text);
  if (reasoning !== (o.originalReasoning ?? '')) h.setReasoning(reasoning);
  const calls = [];
  h.setOnUpdate((t, r) => { calls.push([t, r]); });
  calls.length = 0;
  return { h, calls };
}

async function settled(state, text = 'ab', reasoning = '') {
  const s = setup(text, {}, reasoning);
  if (state === 'committed') await s.h.commit();
  else if (state === 'aborted') await s.h.abort();
  else await s.h.discard();
  s.calls.length = 0;
  return s;
}

const NOT_FOUND = 'find string not present in current message body. The body may have been changed by an earlier patch — re-read getText() and produce a fresh `find` based on the current content.';
const AMBIGUOUS = 'find string is not unique in the current message body. Extend the `find` string to include surrounding context (a few lines before and/or after the target) until it matches exactly one location.';
const BAD_ID = 'section id must be a non-empty string without line breaks or "]"';
const BAD_STATUS = 'section status must be a string without line breaks';

function caught(fn) {
  let ret;
  try { ret = fn(); } catch (e) { return e; }
  assert.fail(`expected a throw, got ${String(ret)}`);
}

/** Deep-equal details, including the key order at every level. */
function sameDetails(actual, expected) {
  assert.deepEqual(actual, expected);
  const order = (a, e) => {
    if (e === null || typeof e !== 'object') return;
    assert.deepEqual(Object.keys(a), Object.keys(e), 'details key order');
    for (const k of Object.keys(e)) order(a[k], e[k]);
  };
  order(actual, expected);
}

/**
 * fn must throw an EditorOpsError (code, message, details exact) and leave
 * the handle's text, reasoning and onUpdate untouched.
 */
function opsFails(s, fn, code, message, details) {
  const { h, calls } = s;
  const text = h.getText();
  const reasoning = h.getReasoning();
  const e = caught(fn);
  assert.ok(e instanceof EditorOpsError, `expected EditorOpsError, got ${e?.name}: ${e?.message}`);
  assert.ok(e instanceof Error);
  assert.ok(!(e instanceof TakeoverError));
  assert.equal(e.name, 'EditorOpsError');
  assert.equal(e.code, code);
  if (message !== undefined) assert.equal(e.message, message);
  if (details !== undefined) sameDetails(e.details, details);
  assert.equal(e.cause, null);
  assert.equal(h.getText(), text, 'text untouched on failure');
  assert.equal(h.getReasoning(), reasoning, 'reasoning untouched on failure');
  assert.equal(calls.length, 0, 'no onUpdate on failure');
  return e;
}

/** fn must throw a TakeoverError with code (no write, no onUpdate). */
function takeoverFails(s, fn, code) {
  const { h, calls } = s;
  const text = h.getText();
  const reasoning = h.getReasoning();
  const e = caught(fn);
  assert.ok(e instanceof TakeoverError, `expected TakeoverError, got ${e?.name}: ${e?.message}`);
  assert.ok(!(e instanceof EditorOpsError));
  assert.equal(e.code, code);
  assert.equal(h.getText(), text);
  assert.equal(h.getReasoning(), reasoning);
  assert.equal(calls.length, 0);
  return e;
}

/** fn must return undefined and make exactly one write, seen by onUpdate. */
function writesOnce(s, fn, text, reasoning = s.h.getReasoning()) {
  assert.equal(fn(), undefined);
  assert.equal(s.h.getText(), text);
  assert.equal(s.h.getReasoning(), reasoning);
  assert.deepEqual(s.calls, [[text, reasoning]], 'exactly one write');
  s.calls.length = 0;
}

/** A duck-typed handle recording every call to its four methods. */
function duck(text = '', reasoning = '') {
  const log = [];
  const d = {
    text, reasoning, log,
    getText() { log.push(['getText']); return d.text; },
    getReasoning() { log.push(['getReasoning']); return d.reasoning; },
    setText(v) { log.push(['setText', v]); d.text = v; },
    setReasoning(v) { log.push(['setReasoning', v]); d.reasoning = v; },
  };
  return d;
}
const sets = (d) => d.log.filter(([m]) => m === 'setText' || m === 'setReasoning');

const units = (s) => Array.from({ length: s.length }, (_, i) => s.charCodeAt(i).toString(16));

// ---- O1, O2, T7, T8: the module and its errors ----

test('O1: editor-ops.js exports exactly the twelve names', () => {
  const names = ['EditorOpsError', 'appendText', 'appendReasoning', 'insertAt', 'replaceRange', 'deleteRange', 'applyPatch',
    'patchBySemantic', 'pipeFrom', 'ensureReasoningSection', 'appendToReasoningSection', 'markReasoningSectionStatus'];
  assert.deepEqual(Object.keys(editorOps).sort(), [...names].sort());
  for (const n of names) assert.equal(typeof editorOps[n], 'function', n);
});

test('S18 T7 O2: EditorOpsError has the TakeoverError shape', () => {
  let e = new EditorOpsError('c', 'm');
  assert.ok(e instanceof Error);
  assert.ok(e instanceof EditorOpsError);
  assert.equal(e.name, 'EditorOpsError');
  assert.equal(e.code, 'c');
  assert.equal(e.message, 'm');
  assert.equal(e.details, null);
  assert.equal(e.cause, null);
  e = new EditorOpsError('c', 'm', null);
  assert.equal(e.details, null);
  assert.equal(e.cause, null);
  const cause = new Error('x');
  const details = { reason: 'out_of_range' };
  e = new EditorOpsError('c', 'm', { details, cause });
  assert.equal(e.details, details);
  assert.equal(e.cause, cause);
});

test('T8 O2: a TakeoverError from the handle reaches the caller unchanged', async () => {
  const s = await settled('committed');
  const e = takeoverFails(s, () => insertAt(s.h, 0, 'x'), 'editor_committed');
  assert.equal(e.message, 'editor committed; mutation rejected');
  // A duck handle's own error object comes back as is, never wrapped.
  const boom = new Error('boom');
  const d = duck('ab');
  d.setText = () => { throw boom; };
  assert.equal(caught(() => appendText(d, 'x')), boom);
  assert.equal(caught(() => applyPatch(d, { kind: 'insert_at', offset: 0, text: 'x' })), boom);
  const getBoom = { getText() { throw boom; }, getReasoning() { return ''; }, setText() {}, setReasoning() {} };
  assert.equal(caught(() => insertAt(getBoom, 0, 'x')), boom);
});

// ---- O3: the handle ----

const OPS_WITH_BAD_ARGS = [
  ['appendText', (h) => appendText(h, 5)],
  ['appendReasoning', (h) => appendReasoning(h, 5)],
  ['insertAt', (h) => insertAt(h, 'x', 5)],
  ['replaceRange', (h) => replaceRange(h, -1, 'x', 5)],
  ['deleteRange', (h) => deleteRange(h, 'x', -1)],
  ['applyPatch', (h) => applyPatch(h, [null])],
  ['patchBySemantic', (h) => patchBySemantic(h, null)],
  ['ensureReasoningSection', (h) => ensureReasoningSection(h, 5, 5)],
  ['appendToReasoningSection', (h) => appendToReasoningSection(h, 5, 5)],
  ['markReasoningSectionStatus', (h) => markReasoningSectionStatus(h, 5, 5)],
];

test('S83 O3: a non-handle is rejected before every other argument', () => {
  const threeMethods = { getText() { return ''; }, getReasoning() { return ''; }, setText() {} };
  const notFns = { getText: 1, getReasoning: 1, setText: 1, setReasoning: 1 };
  for (const bad of [{}, null, undefined, 5, 'handle', true, Symbol('h'), threeMethods, notFns, []]) {
    for (const [name, call] of OPS_WITH_BAD_ARGS) {
      const e = caught(() => call(bad));
      assert.ok(e instanceof EditorOpsError, name);
      assert.equal(e.code, 'invalid_offset', name);
      assert.equal(e.message, 'handle must be a message editor handle', name);
      sameDetails(e.details, { reason: 'not_an_object' });
    }
  }
  const e = caught(() => insertAt({}, 0, 'x'));
  assert.equal(e.message, 'handle must be a message editor handle');
});

test('S83 O3 O5: a plain object with the four methods is accepted; setText gets the final text once', () => {
  const cases = [
    ['insertAt', (d) => insertAt(d, 1, 'X'), 'aXbc'],
    ['replaceRange', (d) => replaceRange(d, 1, 2, 'XY'), 'aXYc'],
    ['deleteRange', (d) => deleteRange(d, 0, 2), 'c'],
    ['appendText', (d) => appendText(d, '!'), 'abc!'],
    ['applyPatch', (d) => applyPatch(d, [{ kind: 'insert_at', offset: 0, text: '>' }, { kind: 'context_replace', find: 'b', replaceWith: 'B' }]), '>aBc'],
    ['patchBySemantic', (d) => patchBySemantic(d, { find: 'c', replaceWith: 'C' }), 'abC'],
  ];
  for (const [name, op, want] of cases) {
    const d = duck('abc', 'r');
    assert.equal(op(d), undefined, name);
    assert.deepEqual(sets(d), [['setText', want]], name);
    assert.equal(d.text, want);
    assert.equal(d.reasoning, 'r');
  }
  const d = duck('abc', 'r');
  appendReasoning(d, '+');
  assert.deepEqual(sets(d), [['setReasoning', 'r+']]);
});

test('S83 O3 O4: a duck handle failing validation is never written', () => {
  const d = duck('abc');
  assert.equal(caught(() => insertAt(d, 9, 'x')).code, 'invalid_offset');
  assert.equal(caught(() => applyPatch(d, [{ kind: 'insert_at', offset: 0, text: 'x' }, { kind: 'nope' }])).code, 'invalid_offset');
  assert.equal(caught(() => patchBySemantic(d, { find: 'zz' })).code, 'patch_not_found');
  assert.deepEqual(sets(d), []);
  assert.equal(d.text, 'abc');
});

test('O3: a duck whose getter returns a non-string is not a handle, and is never written', () => {
  for (const v of [5, undefined, null, { length: 3 }, ['a']]) {
    const d = duck();
    d.text = v;
    d.reasoning = v;
    for (const call of [
      () => appendText(d, 'x'), () => insertAt(d, 0, 'x'), () => replaceRange(d, 0, 0, 'x'), () => deleteRange(d, 0, 0),
      () => applyPatch(d, [{ kind: 'insert_at', offset: 0, text: 'x' }]), () => applyPatch(d, []), () => patchBySemantic(d, { find: 'a' }),
      () => appendReasoning(d, 'x'), () => ensureReasoningSection(d, 'a'), () => appendToReasoningSection(d, 'a', 'x'),
      () => markReasoningSectionStatus(d, 'a', 'x'),
    ]) {
      const e = caught(call);
      assert.ok(e instanceof EditorOpsError);
      assert.equal(e.code, 'invalid_offset');
      assert.equal(e.message, 'handle must be a message editor handle');
      sameDetails(e.details, { reason: 'not_an_object' });
    }
    assert.deepEqual(sets(d), []);
  }
});

test('O3: ops through a duck wrapping a core handle match the core handle exactly', () => {
  const a = setup('Hello world.', {}, '');
  const b = setup('Hello world.', {}, '');
  const w = {
    getText: () => b.h.getText(), getReasoning: () => b.h.getReasoning(),
    setText: (v) => b.h.setText(v), setReasoning: (v) => b.h.setReasoning(v),
  };
  const script = [
    (h) => insertAt(h, 6, 'big '),
    (h) => replaceRange(h, 0, 5, 'Howdy'),
    (h) => deleteRange(h, 0, 0),
    (h) => appendText(h, ''),
    (h) => appendReasoning(h, 'r'),
    (h) => applyPatch(h, [{ kind: 'context_replace', find: 'big', replaceWith: 'wide' }, { kind: 'insert_at', offset: 0, text: '> ' }]),
    (h) => patchBySemantic(h, { find: 'o', occurrence: 2, replaceWith: '0' }),
    (h) => ensureReasoningSection(h, 'a'),
    (h) => appendToReasoningSection(h, 'a', 'x'),
    (h) => markReasoningSectionStatus(h, 'a', 'done'),
    (h) => insertAt(h, 999, 'x'),
    (h) => patchBySemantic(h, { find: 'o' }),
  ];
  for (const step of script) {
    const ea = (() => { try { step(a.h); } catch (e) { return e; } })();
    const eb = (() => { try { step(w); } catch (e) { return e; } })();
    assert.equal(ea?.code, eb?.code);
    assert.equal(ea?.message, eb?.message);
    assert.deepEqual(ea?.details, eb?.details);
  }
  assert.deepEqual(a.calls, b.calls);
  assert.equal(a.h.getText(), b.h.getText());
  assert.equal(a.h.getReasoning(), b.h.getReasoning());
});

test('O3 O5: a core handle whose methods a plugin wrapped is written through the wrappers, once per op', () => {
  // A spy or a filter on a core handle's own methods sees every op's one
  // write: the ops' shortcuts for core handles stand only while the four
  // methods are the handle's own.
  const { h } = setup('', {}, '');
  const seen = [];
  const setText = h.setText;
  const setReasoning = h.setReasoning;
  h.setText = (v) => { seen.push(['text', v]); setText(v.toUpperCase()); };
  h.setReasoning = (v) => { seen.push(['reasoning', v]); setReasoning(v); };
  appendText(h, 'ab'); // an append: the shortcut appends without setText
  insertAt(h, 2, 'c'); // an insert at the end is an append too
  appendReasoning(h, 'r');
  ensureReasoningSection(h, 'a'); // a new section is appended to the reasoning
  appendToReasoningSection(h, 'a', 'x');
  appendToReasoningSection(h, 'a', 'y'); // (a permit's one-crossing path)
  assert.deepEqual(seen.map(([f]) => f), ['text', 'text', 'reasoning', 'reasoning', 'reasoning', 'reasoning']);
  assert.deepEqual(seen.slice(0, 2), [['text', 'ab'], ['text', 'ABc']]);
  assert.equal(h.getText(), 'ABC');
  assert.equal(h.getReasoning(), seen.at(-1)[1]);
  // Methods restored: the handle is its own again, and the ops still write through it.
  h.setText = setText;
  h.setReasoning = setReasoning;
  appendText(h, 'd');
  assert.equal(h.getText(), 'ABCd');
});

test('O3: a wrapped getText is what the ops read', () => {
  const { h } = setup('abc');
  const getText = h.getText;
  h.getText = () => getText().toUpperCase();
  replaceRange(h, 0, 1, 'x');
  assert.equal(getText(), 'xBC');
});

// ---- O4, O5 ----

test('S82 O4 O9: invalid requests fail validation whatever the state; valid ones fail with the state', async () => {
  for (const state of ['committed', 'aborted', 'discarded']) {
    const s = await settled(state, 'ab');
    opsFails(s, () => insertAt(s.h, 9, 'x'), 'invalid_offset', 'offset 9 out of range [0, 2]', { reason: 'out_of_range', offset: 9, max: 2 });
    takeoverFails(s, () => insertAt(s.h, 0, 'x'), `editor_${state}`);
    takeoverFails(s, () => appendReasoning(s.h, ''), `editor_${state}`);
    takeoverFails(s, () => appendText(s.h, ''), `editor_${state}`);
    takeoverFails(s, () => deleteRange(s.h, 0, 0), `editor_${state}`);
    // The handle's own method ignores '' (T23); the op writes (O9).
    assert.equal(s.h.appendReasoning(''), undefined);
  }
});

test('S120 O4: on a committed handle a miss is patch_not_found and a match is editor_committed', async () => {
  const s = await settled('committed', 'abc');
  opsFails(s, () => patchBySemantic(s.h, { find: 'z' }), 'patch_not_found', NOT_FOUND);
  takeoverFails(s, () => patchBySemantic(s.h, { find: 'b' }), 'editor_committed');
});

test('S30 O4 T25: a continue violation comes from the write; the text is unchanged', () => {
  const s = setup('Hello world', { generationType: 'continue', originalText: 'Hello ' });
  writesOnce(s, () => replaceRange(s.h, 0, 5, 'Hello'), 'Hello world');
  const e = takeoverFails(s, () => deleteRange(s.h, 0, 1), 'invalid_op_for_continue');
  assert.ok(e.message.includes('got "ello world"…'), e.message);
  assert.equal(s.h.getText(), 'Hello world');
});

test('S31 O4: patchBySemantic breaking the continue prefix is a TakeoverError', () => {
  const s = setup('Hello world', { generationType: 'continue', originalText: 'Hello ' });
  const e = takeoverFails(s, () => patchBySemantic(s.h, { find: 'Hello', replaceWith: 'Bye' }), 'invalid_op_for_continue');
  sameDetails(e.details, { originalPrefix: 'Hello ' });
});

test('S29 T25: continue handles accept ops that keep the prefix', () => {
  let s = setup('', { generationType: 'continue', originalText: '' });
  writesOnce(s, () => replaceRange(s.h, 0, 0, 'anything'), 'anything');
  s = setup('aaa', { generationType: 'continue', originalText: 'aaa' });
  writesOnce(s, () => insertAt(s.h, 0, 'a'), 'aaaa');
});

test('O5: a successful op writes exactly once even when nothing changes, and returns undefined', () => {
  const s = setup('abcd', {}, '### [a] (x)\n');
  writesOnce(s, () => replaceRange(s.h, 1, 2, 'b'), 'abcd');
  writesOnce(s, () => deleteRange(s.h, 4, 4), 'abcd');
  writesOnce(s, () => insertAt(s.h, 2, ''), 'abcd');
  writesOnce(s, () => appendText(s.h, ''), 'abcd');
  writesOnce(s, () => appendReasoning(s.h, ''), 'abcd');
  writesOnce(s, () => patchBySemantic(s.h, { find: 'bc', replaceWith: 'bc' }), 'abcd');
  writesOnce(s, () => applyPatch(s.h, [{ kind: 'insert_at', offset: 0, text: 'x' }, { kind: 'delete_range', start: 0, end: 1 }]), 'abcd');
  writesOnce(s, () => markReasoningSectionStatus(s.h, 'a', 'x'), 'abcd', '### [a] (x)\n');
});

test('O5 T45: an op called from onUpdate during an op\'s write applies after it', () => {
  const s = setup('a');
  let first = true;
  s.h.setOnUpdate((t, r) => {
    s.calls.push([t, r]);
    if (first) { first = false; appendText(s.h, '!'); }
  });
  s.calls.length = 0;
  appendText(s.h, 'b');
  assert.deepEqual(s.calls, [['ab', ''], ['ab!', '']]);
});

// ---- O6: offsets ----

test('S76 O6: out-of-range offsets', () => {
  const s = setup('ab');
  opsFails(s, () => insertAt(s.h, 9, 'X'), 'invalid_offset', 'offset 9 out of range [0, 2]', { reason: 'out_of_range', offset: 9, max: 2 });
  opsFails(s, () => insertAt(s.h, -1, 'X'), 'invalid_offset', 'offset -1 out of range [0, 2]', { reason: 'out_of_range', offset: -1, max: 2 });
  opsFails(s, () => insertAt(s.h, 3, 'X'), 'invalid_offset', 'offset 3 out of range [0, 2]', { reason: 'out_of_range', offset: 3, max: 2 });
  opsFails(s, () => insertAt(s.h, Infinity, 'X'), 'invalid_offset', 'offset must be an integer, got Infinity', { reason: 'not_integer', offset: Infinity, max: 2 });
  opsFails(s, () => insertAt(s.h, -Infinity, 'X'), 'invalid_offset', 'offset must be an integer, got -Infinity', { reason: 'not_integer', offset: -Infinity, max: 2 });
});

test('S77 O6: integer-valued numbers pass, everything else is not_integer with display(v)', () => {
  let s = setup('ab');
  writesOnce(s, () => insertAt(s.h, 1.0, 'X'), 'aXb');
  s = setup('ab');
  writesOnce(s, () => insertAt(s.h, -0, 'X'), 'Xab');
  s = setup('ab');
  writesOnce(s, () => insertAt(s.h, 2, 'X'), 'abX');
  s = setup('ab');
  const cases = [
    [1.5, '1.5'], [NaN, 'NaN'], ['1', '1'], [null, 'null'], [undefined, 'undefined'], [true, 'true'], [false, 'false'],
    [{}, 'object'], [[1], 'object'], [() => 1, 'function'], [Symbol('s'), 'symbol'], [1n, 'bigint'], [1e-7, '1e-7'], [0.1, '0.1'],
  ];
  for (const [v, shown] of cases) {
    const e = opsFails(s, () => insertAt(s.h, v, 'X'), 'invalid_offset', `offset must be an integer, got ${shown}`);
    sameDetails(e.details, { reason: 'not_integer', offset: v, max: 2 });
    assert.ok(Object.is(e.details.offset, v), 'details.offset is the value as given');
  }
  opsFails(s, () => insertAt(s.h, 1e21, 'X'), 'invalid_offset', 'offset 1e+21 out of range [0, 2]', { reason: 'out_of_range', offset: 1e21, max: 2 });
  opsFails(s, () => insertAt(s.h, -1e21, 'X'), 'invalid_offset', 'offset -1e+21 out of range [0, 2]', { reason: 'out_of_range', offset: -1e21, max: 2 });
});

test('O6: start and end are named in messages and details', () => {
  const s = setup('ab');
  opsFails(s, () => replaceRange(s.h, 0, 3, 'x'), 'invalid_offset', 'end 3 out of range [0, 2]', { reason: 'out_of_range', end: 3, max: 2 });
  opsFails(s, () => replaceRange(s.h, 0, 0.5, 'x'), 'invalid_offset', 'end must be an integer, got 0.5', { reason: 'not_integer', end: 0.5, max: 2 });
  opsFails(s, () => deleteRange(s.h, 'a', 1), 'invalid_offset', 'start must be an integer, got a', { reason: 'not_integer', start: 'a', max: 2 });
  opsFails(s, () => deleteRange(s.h, 0, -1), 'invalid_offset', 'end -1 out of range [0, 2]', { reason: 'out_of_range', end: -1, max: 2 });
});

// ---- O7–O12: slicing ops ----

test('S78 S81 O7: text arguments must be strings', () => {
  const s = setup('ab');
  opsFails(s, () => replaceRange(s.h, 5, 1, 7), 'invalid_offset', 'replaceRange requires a string, got number', { reason: 'not_a_string' });
  opsFails(s, () => appendText(s.h, null), 'invalid_offset', 'appendText requires a string, got object', { reason: 'not_a_string' });
  opsFails(s, () => appendText(s.h), 'invalid_offset', 'appendText requires a string, got undefined', { reason: 'not_a_string' });
  opsFails(s, () => appendReasoning(s.h, 1n), 'invalid_offset', 'appendReasoning requires a string, got bigint', { reason: 'not_a_string' });
  opsFails(s, () => insertAt(s.h, 0, Symbol('x')), 'invalid_offset', 'insertAt requires a string, got symbol', { reason: 'not_a_string' });
  opsFails(s, () => insertAt(s.h, 0, new String('x')), 'invalid_offset', 'insertAt requires a string, got object', { reason: 'not_a_string' });
  opsFails(s, () => replaceRange(s.h, 0, 0, () => 'x'), 'invalid_offset', 'replaceRange requires a string, got function', { reason: 'not_a_string' });
  opsFails(s, () => appendText(s.h, true), 'invalid_offset', 'appendText requires a string, got boolean', { reason: 'not_a_string' });
});

test('S81 O8: appendText appends, and an empty string still writes once', () => {
  const s = setup('ab');
  writesOnce(s, () => appendText(s.h, 'cd'), 'abcd');
  writesOnce(s, () => appendText(s.h, ''), 'abcd');
});

test('O9: appendReasoning appends to the reasoning and writes on an empty delta', () => {
  const s = setup('t', {}, 'r');
  writesOnce(s, () => appendReasoning(s.h, ' more'), 't', 'r more');
  writesOnce(s, () => appendReasoning(s.h, ''), 't', 'r more');
});

test('S75 O10: insertAt inserts, prepends and appends', () => {
  let s = setup('Hello world.');
  writesOnce(s, () => insertAt(s.h, 6, 'beautiful '), 'Hello beautiful world.');
  s = setup('Hello world.');
  writesOnce(s, () => insertAt(s.h, 0, '> '), '> Hello world.');
  s = setup('Hello world.');
  writesOnce(s, () => insertAt(s.h, 12, '!'), 'Hello world.!');
});

test('O10: insertAt checks the text before the offset', () => {
  const s = setup('ab');
  opsFails(s, () => insertAt(s.h, 99, 5), 'invalid_offset', 'insertAt requires a string, got number', { reason: 'not_a_string' });
});

test('S4 T3 O10 O11: offsets count code units and may split a pair', () => {
  let s = setup('a😀b');
  assert.equal(s.h.getText().length, 4);
  writesOnce(s, () => replaceRange(s.h, 1, 3, 'E'), 'aEb');
  s = setup('a😀b');
  insertAt(s.h, 2, '|');
  assert.deepEqual(units(s.h.getText()), ['61', 'd83d', '7c', 'de00', '62']);
  assert.equal(s.calls.length, 1);
  s = setup('a😀b');
  writesOnce(s, () => deleteRange(s.h, 1, 2), 'a\uDE00b');
  writesOnce(s, () => insertAt(s.h, 1, '\uD83D'), 'a😀b');
});

test('S78 S79 O11: replaceRange checks text, start, end, then their order', () => {
  let s = setup('ab');
  opsFails(s, () => replaceRange(s.h, -1, 99, 'x'), 'invalid_offset', 'start -1 out of range [0, 2]', { reason: 'out_of_range', start: -1, max: 2 });
  opsFails(s, () => replaceRange(s.h, 1.5, 'z', 'x'), 'invalid_offset', 'start must be an integer, got 1.5', { reason: 'not_integer', start: 1.5, max: 2 });
  s = setup('abcd');
  opsFails(s, () => replaceRange(s.h, 3, 1, 'x'), 'invalid_offset', 'replaceRange end (1) must be >= start (3)', { reason: 'end_before_start', start: 3, end: 1 });
  opsFails(s, () => replaceRange(s.h, 3, 1.0, 'x'), 'invalid_offset', 'replaceRange end (1) must be >= start (3)', { reason: 'end_before_start', start: 3, end: 1 });
  opsFails(s, () => replaceRange(s.h, 1, -0, 'x'), 'invalid_offset', 'replaceRange end (0) must be >= start (1)', { reason: 'end_before_start', start: 1, end: -0 });
});

test('S80 O5 O11: start === end inserts', () => {
  const s = setup('abcd');
  writesOnce(s, () => replaceRange(s.h, 2, 2, 'X'), 'abXcd');
  writesOnce(s, () => replaceRange(s.h, 0, 5, ''), '');
});

test('S79 S80 O12: deleteRange skips the text check and speaks as replaceRange', () => {
  const s = setup('abcd');
  opsFails(s, () => deleteRange(s.h, 3, 1), 'invalid_offset', 'replaceRange end (1) must be >= start (3)', { reason: 'end_before_start', start: 3, end: 1 });
  writesOnce(s, () => deleteRange(s.h, 2, 2), 'abcd');
  writesOnce(s, () => deleteRange(s.h, 1, 3), 'ad');
  // An extra argument is not a text to check.
  writesOnce(s, () => deleteRange(s.h, 0, 1, 5), 'd');
});

// ---- O13–O16: applyPatch ----

test('S105 O13: an empty array does nothing, even on a settled handle', async () => {
  for (const state of ['committed', 'aborted', 'discarded']) {
    const s = await settled(state, 'ab');
    assert.equal(applyPatch(s.h, []), undefined);
    assert.equal(s.calls.length, 0);
  }
  const s = setup('ab');
  assert.equal(applyPatch(s.h, []), undefined);
  assert.equal(s.calls.length, 0);
  // The handle itself is still checked (O3 comes before everything).
  assert.equal(caught(() => applyPatch({}, [])).message, 'handle must be a message editor handle');
  const d = duck('ab');
  applyPatch(d, []);
  assert.deepEqual(sets(d), []);
});

test('S102 O14: replace_range and delete_range entries', () => {
  let s = setup('Hello, old world.');
  writesOnce(s, () => applyPatch(s.h, { kind: 'replace_range', start: 7, end: 10, text: 'new' }), 'Hello, new world.');
  s = setup('Hello, junk world.');
  writesOnce(s, () => applyPatch(s.h, { kind: 'delete_range', start: 5, end: 11 }), 'Hello world.');
});

test('S106 O14 O16: entries must be non-null objects', () => {
  const s = setup('abc');
  opsFails(s, () => applyPatch(s.h, null), 'invalid_offset', 'patch must be an object, got object', { reason: 'not_an_object', index: 0 });
  opsFails(s, () => applyPatch(s.h, 's'), 'invalid_offset', 'patch must be an object, got string', { reason: 'not_an_object', index: 0 });
  opsFails(s, () => applyPatch(s.h, undefined), 'invalid_offset', 'patch must be an object, got undefined', { reason: 'not_an_object', index: 0 });
  opsFails(s, () => applyPatch(s.h, 5), 'invalid_offset', 'patch must be an object, got number', { reason: 'not_an_object', index: 0 });
  opsFails(s, () => applyPatch(s.h, () => {}), 'invalid_offset', 'patch must be an object, got function', { reason: 'not_an_object', index: 0 });
  const valid = { kind: 'insert_at', offset: 0, text: 'x' };
  opsFails(s, () => applyPatch(s.h, [valid, null]), 'invalid_offset', 'patch must be an object, got object', { reason: 'not_an_object', index: 1 });
  opsFails(s, () => applyPatch(s.h, [valid, valid, [1]]), 'invalid_offset', 'unknown patch kind: undefined', { reason: 'unknown_kind', kind: undefined, index: 2 });
});

test('S107 O14: kinds, missing fields, ignored fields', () => {
  let s = setup('abc');
  opsFails(s, () => applyPatch(s.h, { kind: 'nonsense' }), 'invalid_offset', 'unknown patch kind: nonsense', { reason: 'unknown_kind', kind: 'nonsense', index: 0 });
  opsFails(s, () => applyPatch(s.h, {}), 'invalid_offset', 'unknown patch kind: undefined', { reason: 'unknown_kind', kind: undefined, index: 0 });
  opsFails(s, () => applyPatch(s.h, { kind: 'INSERT_AT', offset: 0, text: 'x' }), 'invalid_offset', 'unknown patch kind: INSERT_AT');
  opsFails(s, () => applyPatch(s.h, { kind: 7 }), 'invalid_offset', 'unknown patch kind: 7', { reason: 'unknown_kind', kind: 7, index: 0 });
  const k = { toString() { return 'insert_at'; } };
  const e = opsFails(s, () => applyPatch(s.h, { kind: k, offset: 0, text: 'x' }), 'invalid_offset', 'unknown patch kind: object');
  assert.equal(e.details.kind, k, 'details.kind is the value as given');
  opsFails(s, () => applyPatch(s.h, { kind: 'replace_range', start: 0, end: 1 }), 'invalid_offset', 'replaceRange requires a string, got undefined', { reason: 'not_a_string', index: 0 });
  opsFails(s, () => applyPatch(s.h, { kind: 'insert_at', offset: 9 }), 'invalid_offset', 'insertAt requires a string, got undefined', { reason: 'not_a_string', index: 0 });
  opsFails(s, () => applyPatch(s.h, { kind: 'insert_at', offset: 9, text: '' }), 'invalid_offset', 'offset 9 out of range [0, 3]', { reason: 'out_of_range', offset: 9, max: 3, index: 0 });
  opsFails(s, () => applyPatch(s.h, { kind: 'delete_range', start: 2, end: 1 }), 'invalid_offset', 'replaceRange end (1) must be >= start (2)', { reason: 'end_before_start', start: 2, end: 1, index: 0 });
  writesOnce(s, () => applyPatch(s.h, { kind: 'delete_range', start: 0, end: 1, text: 'ZZ' }), 'bc');
  s = setup('abc');
  writesOnce(s, () => applyPatch(s.h, { kind: 'insert_at', offset: 1, text: '-', start: 99, end: -5, find: 'zz', extra: {} }), 'a-bc');
  s = setup('abc');
  writesOnce(s, () => applyPatch(s.h, { kind: 'context_replace', find: 'b', replaceWith: 'B', start: 'x', text: 5 }), 'aBc');
});

test('S103 O15: entries apply in order to a scratch value; one write', () => {
  let s = setup('aaa bbb ccc');
  writesOnce(s, () => applyPatch(s.h, [
    { kind: 'replace_range', start: 0, end: 3, text: 'AAA' },
    { kind: 'insert_at', offset: 11, text: ' done' },
  ]), 'AAA bbb ccc done');
  s = setup('abc');
  writesOnce(s, () => applyPatch(s.h, [{ kind: 'insert_at', offset: 0, text: 'XX' }, { kind: 'delete_range', start: 0, end: 1 }]), 'Xabc');
  // Offsets are checked against the scratch length, not the original.
  s = setup('abc');
  writesOnce(s, () => applyPatch(s.h, [{ kind: 'insert_at', offset: 3, text: 'de' }, { kind: 'insert_at', offset: 5, text: '!' }]), 'abcde!');
  // A context_replace sees the earlier entries' result.
  s = setup('cat');
  writesOnce(s, () => applyPatch(s.h, [{ kind: 'insert_at', offset: 0, text: 'dog ' }, { kind: 'context_replace', find: 'dog cat', replaceWith: 'ok' }]), 'ok');
});

test('S104 O15 O16: a failing entry writes nothing and names its index', () => {
  const s = setup('abc');
  opsFails(s, () => applyPatch(s.h, [{ kind: 'insert_at', offset: 0, text: 'X' }, { kind: 'insert_at', offset: 99, text: 'Y' }]),
    'invalid_offset', 'offset 99 out of range [0, 4]', { reason: 'out_of_range', offset: 99, max: 4, index: 1 });
  assert.equal(s.h.getText(), 'abc');
});

test('S108 O15 O22: an ambiguity after an earlier entry names index 1; the text is unchanged', () => {
  const s = setup('cat cat cat');
  opsFails(s, () => applyPatch(s.h, [{ kind: 'insert_at', offset: 0, text: '>' }, { kind: 'context_replace', find: 'cat', replaceWith: 'dog' }]),
    'patch_ambiguous', AMBIGUOUS, { find: 'cat', replaceWith: 'dog', firstMatch: 1, secondMatch: 5, matchCount: 3, index: 1 });
});

test('S34 O15: the continue invariant is checked only on the final write', () => {
  const s = setup('abcdef', { generationType: 'continue', originalText: 'abc' });
  writesOnce(s, () => applyPatch(s.h, [{ kind: 'delete_range', start: 0, end: 1 }, { kind: 'insert_at', offset: 0, text: 'a' }]), 'abcdef');
  const e = takeoverFails(s, () => applyPatch(s.h, [{ kind: 'insert_at', offset: 0, text: 'a' }, { kind: 'delete_range', start: 1, end: 3 }]), 'invalid_op_for_continue');
  assert.ok(!('index' in (e.details ?? {})));
});

test('S109 O4 O15: a valid applyPatch on a committed handle is editor_committed without an index', async () => {
  const s = await settled('committed', 'abc');
  const e = takeoverFails(s, () => applyPatch(s.h, [{ kind: 'insert_at', offset: 0, text: 'x' }]), 'editor_committed');
  assert.ok(e.details === null || !('index' in e.details));
  opsFails(s, () => applyPatch(s.h, [{ kind: 'insert_at', offset: 0, text: 'x' }, { kind: 'bad' }]), 'invalid_offset', 'unknown patch kind: bad');
});

test('O16: every applyPatch EditorOpsError carries index; a lone patch is index 0', () => {
  const s = setup('abc');
  opsFails(s, () => applyPatch(s.h, { kind: 'context_replace', find: '' }), 'patch_not_found', 'context_replace.find must be a non-empty string', { find: '', index: 0 });
  opsFails(s, () => applyPatch(s.h, [{ kind: 'delete_range', start: 0, end: 3 }, { kind: 'context_replace', find: 'a', replaceWith: 'b' }]),
    'patch_not_found', NOT_FOUND, { find: 'a', replaceWith: 'b', matchCount: 0, nearest: { offset: 0, text: '', distance: 1 }, index: 1 });
  opsFails(s, () => applyPatch(s.h, [{ kind: 'context_replace', find: 'a', occurrence: 2 }]),
    'patch_not_found', 'occurrence 2 exceeds match count 1', { find: 'a', replaceWith: '', occurrence: 2, matchCount: 1, index: 0 });
});

// ---- O17–O25: context replace ----

const cr = (h, spec) => patchBySemantic(h, spec);

test('S110 O22: a unique match is replaced', () => {
  const s = setup('The cat sat on the mat.');
  writesOnce(s, () => cr(s.h, { find: 'cat', replaceWith: 'dog' }), 'The dog sat on the mat.');
});

test('S111 O22 O24: no match gives patch_not_found with the nearest window', () => {
  const s = setup('Hello world.');
  opsFails(s, () => cr(s.h, { find: 'xyzzy', replaceWith: 'foo' }), 'patch_not_found', NOT_FOUND,
    { find: 'xyzzy', replaceWith: 'foo', matchCount: 0, nearest: { offset: 0, text: 'Hello', distance: 5 } });
});

test('S112 O24: nearest windows', () => {
  let s = setup('Hello world.');
  opsFails(s, () => cr(s.h, { find: 'Hello wrld' }), 'patch_not_found', NOT_FOUND,
    { find: 'Hello wrld', replaceWith: '', matchCount: 0, nearest: { offset: 0, text: 'Hello worl', distance: 2 } });
  s = setup('abc');
  opsFails(s, () => cr(s.h, { find: 'abcdef' }), 'patch_not_found', NOT_FOUND,
    { find: 'abcdef', replaceWith: '', matchCount: 0, nearest: { offset: 0, text: 'abc', distance: 3 } });
  s = setup('');
  opsFails(s, () => cr(s.h, { find: 'xyz' }), 'patch_not_found', NOT_FOUND,
    { find: 'xyz', replaceWith: '', matchCount: 0, nearest: { offset: 0, text: '', distance: 3 } });
  // Ties go to the smallest offset; the best window may be late.
  s = setup('xxxx abd xxxx abc');
  opsFails(s, () => cr(s.h, { find: 'abz' }), 'patch_not_found', NOT_FOUND,
    { find: 'abz', replaceWith: '', matchCount: 0, nearest: { offset: 5, text: 'abd', distance: 1 } });
  s = setup('qqqqqqqq hello');
  opsFails(s, () => cr(s.h, { find: 'hallo' }), 'patch_not_found', NOT_FOUND,
    { find: 'hallo', replaceWith: '', matchCount: 0, nearest: { offset: 9, text: 'hello', distance: 1 } });
});

test('O24 T1: near-miss distances and windows are in code units, lone surrogates exact', () => {
  let s = setup('ab😁cd');
  // '😀' and '😁' share the high surrogate: one substitution.
  opsFails(s, () => cr(s.h, { find: 'b😀' }), 'patch_not_found', NOT_FOUND,
    { find: 'b😀', replaceWith: '', matchCount: 0, nearest: { offset: 1, text: 'b😁', distance: 1 } });
  s = setup('x\uDC00y');
  const e = opsFails(s, () => cr(s.h, { find: '\uD800y' }), 'patch_not_found', NOT_FOUND);
  sameDetails(e.details.nearest, { offset: 1, text: '\uDC00y', distance: 1 });
  assert.deepEqual(units(e.details.nearest.text), ['dc00', '79']);
  assert.deepEqual(units(e.details.find), ['d800', '79']);
});

test('S113 O24: over the work budget there is no nearest key', () => {
  const s = setup('a'.repeat(10000));
  const e = opsFails(s, () => cr(s.h, { find: 'b'.repeat(100), replaceWith: 'x' }), 'patch_not_found', NOT_FOUND);
  sameDetails(e.details, { find: 'b'.repeat(100), replaceWith: 'x', matchCount: 0 });
  assert.ok(!('nearest' in e.details));
});

test('O24: the budget boundary W·m·w = 20,000,000 is inclusive; m > 65535 has no hint', () => {
  const find = 'b'.repeat(100);
  // n = 2099, m = w = 100: W = 2000, 2000·100·100 = 20,000,000.
  let s = setup('a'.repeat(2099));
  let e = opsFails(s, () => cr(s.h, { find }), 'patch_not_found', NOT_FOUND);
  sameDetails(e.details.nearest, { offset: 0, text: 'a'.repeat(100), distance: 100 });
  s = setup('a'.repeat(2100));
  e = opsFails(s, () => cr(s.h, { find }), 'patch_not_found', NOT_FOUND);
  assert.ok(!('nearest' in e.details));
  // m > n: one window of length n.
  s = setup('abc');
  e = opsFails(s, () => cr(s.h, { find: 'x'.repeat(65535) }), 'patch_not_found', NOT_FOUND);
  sameDetails(e.details.nearest, { offset: 0, text: 'abc', distance: 65535 });
  e = opsFails(s, () => cr(s.h, { find: 'x'.repeat(65536) }), 'patch_not_found', NOT_FOUND);
  assert.ok(!('nearest' in e.details));
});

test('S114 O21 O22: several matches give patch_ambiguous; overlapping matches count', () => {
  let s = setup('cat cat');
  let e = opsFails(s, () => cr(s.h, { find: 'cat', replaceWith: 'dog' }), 'patch_ambiguous', AMBIGUOUS,
    { find: 'cat', replaceWith: 'dog', firstMatch: 0, secondMatch: 4, matchCount: 2 });
  assert.ok(e.message.includes('Extend the `find` string'));
  s = setup('aaa');
  opsFails(s, () => cr(s.h, { find: 'aa' }), 'patch_ambiguous', AMBIGUOUS, { find: 'aa', replaceWith: '', firstMatch: 0, secondMatch: 1, matchCount: 2 });
  s = setup('aaaaa');
  e = opsFails(s, () => cr(s.h, { find: 'aa', replaceWith: null }), 'patch_ambiguous', AMBIGUOUS,
    { find: 'aa', replaceWith: '', firstMatch: 0, secondMatch: 1, matchCount: 4 });
});

test('S5 S115 T4 O22: matching is exact: case, normalisation', () => {
  let s = setup('cafe\u0301');
  assert.equal('é'.length, 1);
  assert.equal('e\u0301'.length, 2);
  opsFails(s, () => cr(s.h, { find: 'café' }), 'patch_not_found', NOT_FOUND);
  s = setup('Hello World.');
  opsFails(s, () => cr(s.h, { find: 'hello world.' }), 'patch_not_found', NOT_FOUND);
  // A lone high surrogate matches the first half of a pair.
  s = setup('a😀b');
  writesOnce(s, () => cr(s.h, { find: '\uD83D', replaceWith: '<' }), 'a<\uDE00b');
});

test('S116 O17: find must be a non-empty string; details.find is the value as given', () => {
  const s = setup('a0b');
  const obj = { toString() { return 'a'; } };
  for (const spec of [{ find: '' }, { find: null }, {}, { find: 0 }, { find: obj }, { find: ['a'] }, { find: new String('a') }]) {
    const e = opsFails(s, () => cr(s.h, spec), 'patch_not_found', 'context_replace.find must be a non-empty string', { find: spec.find });
    assert.ok(Object.is(e.details.find, spec.find));
    assert.deepEqual(Object.keys(e.details), ['find']);
  }
});

test('S117 O18: replaceWith', () => {
  let s = setup('abc');
  writesOnce(s, () => cr(s.h, { find: 'b' }), 'ac');
  s = setup('abc');
  writesOnce(s, () => cr(s.h, { find: 'b', replaceWith: null }), 'ac');
  s = setup('abc');
  writesOnce(s, () => cr(s.h, { find: 'abc', replaceWith: '' }), '');
  s = setup('abc');
  opsFails(s, () => cr(s.h, { find: 'b', replaceWith: {} }), 'invalid_offset', 'context_replace.replaceWith must be a string, got object', { reason: 'not_a_string' });
  opsFails(s, () => cr(s.h, { find: 'b', replaceWith: 5 }), 'invalid_offset', 'context_replace.replaceWith must be a string, got number', { reason: 'not_a_string' });
  opsFails(s, () => applyPatch(s.h, { kind: 'context_replace', find: 'b', replaceWith: false }), 'invalid_offset',
    'context_replace.replaceWith must be a string, got boolean', { reason: 'not_a_string', index: 0 });
});

test('S118 O19 O21 O23: occurrence', () => {
  let s = setup('cat cat');
  writesOnce(s, () => cr(s.h, { find: 'cat', replaceWith: 'dog', occurrence: 2 }), 'cat dog');
  s = setup('cat cat');
  writesOnce(s, () => cr(s.h, { find: 'cat', replaceWith: 'dog', occurrence: 1 }), 'dog cat');
  s = setup('cat cat');
  opsFails(s, () => cr(s.h, { find: 'cat', replaceWith: 'dog', occurrence: 3 }), 'patch_not_found', 'occurrence 3 exceeds match count 2',
    { find: 'cat', replaceWith: 'dog', occurrence: 3, matchCount: 2 });
  opsFails(s, () => cr(s.h, { find: 'cat', occurrence: 0 }), 'invalid_offset', 'occurrence must be >= 1, got 0', { reason: 'out_of_range', occurrence: 0 });
  opsFails(s, () => cr(s.h, { find: 'cat', occurrence: -0 }), 'invalid_offset', 'occurrence must be >= 1, got 0', { reason: 'out_of_range', occurrence: -0 });
  opsFails(s, () => cr(s.h, { find: 'cat', occurrence: -3 }), 'invalid_offset', 'occurrence must be >= 1, got -3', { reason: 'out_of_range', occurrence: -3 });
  for (const [v, shown] of [[1.5, '1.5'], ['2', '2'], [NaN, 'NaN'], [Infinity, 'Infinity'], [true, 'true'], [{}, 'object'], [1n, 'bigint']]) {
    const e = opsFails(s, () => cr(s.h, { find: 'cat', occurrence: v }), 'invalid_offset', `occurrence must be an integer, got ${shown}`);
    sameDetails(e.details, { reason: 'not_integer', occurrence: v });
    assert.ok(Object.is(e.details.occurrence, v));
  }
  s = setup('aaa');
  writesOnce(s, () => cr(s.h, { find: 'aa', occurrence: 2, replaceWith: 'b' }), 'ab');
  // undefined and null mean absent: the ambiguity rule applies.
  s = setup('cat cat');
  opsFails(s, () => cr(s.h, { find: 'cat', occurrence: null }), 'patch_ambiguous', AMBIGUOUS,
    { find: 'cat', replaceWith: '', firstMatch: 0, secondMatch: 4, matchCount: 2 });
  opsFails(s, () => cr(s.h, { find: 'cat', occurrence: undefined }), 'patch_ambiguous');
  // 1.0 is an integer.
  writesOnce(s, () => cr(s.h, { find: 'cat', occurrence: 1.0, replaceWith: 'x' }), 'x cat');
});

test('O23: a miss with occurrence adds details.occurrence after the O22 keys', () => {
  const s = setup('Hello');
  opsFails(s, () => cr(s.h, { find: 'zz', replaceWith: 'y', occurrence: 2 }), 'patch_not_found', NOT_FOUND,
    { find: 'zz', replaceWith: 'y', matchCount: 0, nearest: { offset: 0, text: 'He', distance: 2 }, occurrence: 2 });
  const big = setup('a'.repeat(10000));
  opsFails(big, () => cr(big.h, { find: 'b'.repeat(100), occurrence: 1 }), 'patch_not_found', NOT_FOUND,
    { find: 'b'.repeat(100), replaceWith: '', matchCount: 0, occurrence: 1 });
});

test('O20: find, then replaceWith, then occurrence, then matching', () => {
  const s = setup('abc');
  opsFails(s, () => cr(s.h, { find: '', replaceWith: 5, occurrence: 'x' }), 'patch_not_found', 'context_replace.find must be a non-empty string');
  opsFails(s, () => cr(s.h, { find: 'zz', replaceWith: 5, occurrence: 'x' }), 'invalid_offset', 'context_replace.replaceWith must be a string, got number');
  opsFails(s, () => cr(s.h, { find: 'zz', replaceWith: 'y', occurrence: 0 }), 'invalid_offset', 'occurrence must be >= 1, got 0');
});

test('O22 T1: details.find and replaceWith are the strings as given, lone surrogates kept', () => {
  const s = setup('\uD800\uD800 x');
  const find = '\uD800';
  const e = opsFails(s, () => cr(s.h, { find, replaceWith: '\uDFFF' }), 'patch_ambiguous', AMBIGUOUS,
    { find, replaceWith: '\uDFFF', firstMatch: 0, secondMatch: 1, matchCount: 2 });
  assert.deepEqual(units(e.details.replaceWith), ['dfff']);
});

test('S119 O25: patchBySemantic ignores kind and other fields; its spec must be an object', () => {
  let s = setup('abc');
  writesOnce(s, () => patchBySemantic(s.h, { kind: 'insert_at', offset: 0, text: 'Q', find: 'b', replaceWith: 'B' }), 'aBc');
  s = setup('abc');
  opsFails(s, () => patchBySemantic(s.h, null), 'invalid_offset', 'patchBySemantic spec must be an object, got object', { reason: 'not_an_object' });
  opsFails(s, () => patchBySemantic(s.h, 'b'), 'invalid_offset', 'patchBySemantic spec must be an object, got string', { reason: 'not_an_object' });
  opsFails(s, () => patchBySemantic(s.h), 'invalid_offset', 'patchBySemantic spec must be an object, got undefined', { reason: 'not_an_object' });
  opsFails(s, () => patchBySemantic(s.h, () => {}), 'invalid_offset', 'patchBySemantic spec must be an object, got function', { reason: 'not_an_object' });
  // Its errors carry no index.
  opsFails(s, () => patchBySemantic(s.h, { kind: 'nonsense', find: 'zz', replaceWith: 'y' }), 'patch_not_found', NOT_FOUND,
    { find: 'zz', replaceWith: 'y', matchCount: 0, nearest: { offset: 0, text: 'ab', distance: 2 } });
  opsFails(s, () => patchBySemantic(s.h, { find: 'b', occurrence: 0 }), 'invalid_offset', 'occurrence must be >= 1, got 0', { reason: 'out_of_range', occurrence: 0 });
});

test('T1 O8 O22: large arguments and texts cross exactly', () => {
  const chunk = 'x\uD83D😀\uDE00é';
  const big = chunk.repeat(20000);
  const s = setup('head|tail');
  writesOnce(s, () => insertAt(s.h, 5, big), `head|${big}tail`);
  writesOnce(s, () => cr(s.h, { find: `|${big}t`, replaceWith: '#' }), 'head#ail');
  writesOnce(s, () => appendText(s.h, big), `head#ail${big}`);
  writesOnce(s, () => applyPatch(s.h, [{ kind: 'delete_range', start: 8, end: 8 + big.length }, { kind: 'context_replace', find: '#', replaceWith: big }]), `head${big}ail`);
});

// ---- O26–O32: pipeFrom ----

const text = (delta) => ({ type: 'text', delta });
const reasoningChunk = (delta) => ({ type: 'reasoning', delta });
async function* gen(...chunks) { for (const c of chunks) yield c; }
const tick = () => new Promise((r) => setImmediate(r));

/** A hand-driven async iterator: each next() waits for the test to feed it. */
function manualStream() {
  const waiting = [];
  const log = [];
  const it = {
    next() {
      log.push('next');
      return new Promise((resolve, reject) => waiting.push({ resolve, reject }));
    },
    return(v) { log.push('return'); return Promise.resolve({ done: true, value: v }); },
  };
  const stream = { [Symbol.asyncIterator]() { log.push('iterator'); return it; } };
  const feed = async (r) => { while (!waiting.length) await tick(); waiting.shift().resolve(r); await tick(); };
  const fail = async (e) => { while (!waiting.length) await tick(); waiting.shift().reject(e); await tick(); };
  return { stream, it, log, feed, fail, waiting };
}

/** pipeFrom must reject with a value, never throwing synchronously. */
async function pipeRejects(call) {
  let p;
  assert.doesNotThrow(() => { p = call(); });
  assert.ok(p instanceof Promise);
  try { await p; } catch (e) { return e; }
  assert.fail('expected a rejection');
}

test('S121 O29 O30: text deltas append; the call resolves undefined and never settles the handle', async () => {
  const s = setup('pre: ');
  const p = pipeFrom(s.h, gen(text('hello'), text(', '), text('world.')));
  assert.ok(p instanceof Promise);
  assert.equal(await p, undefined);
  assert.equal(s.h.getText(), 'pre: hello, world.');
  assert.deepEqual(s.calls, [['pre: hello', ''], ['pre: hello, ', ''], ['pre: hello, world.', '']]);
  assert.equal(s.h.isSettled(), false);
});

test('S122 O29: reasoning deltas go to the reasoning', async () => {
  const s = setup('');
  await pipeFrom(s.h, gen(reasoningChunk('think a. '), text('visible'), reasoningChunk('think b.')));
  assert.equal(s.h.getText(), 'visible');
  assert.equal(s.h.getReasoning(), 'think a. think b.');
  assert.equal(s.calls.length, 3);
});

test('S123 O28: replace mode clears the text synchronously, then appends', async () => {
  let s = setup('old draft');
  const p = pipeFrom(s.h, gen(text('new '), text('draft')), { mode: 'replace' });
  assert.equal(s.h.getText(), '');
  assert.deepEqual(s.calls, [['', '']]);
  await p;
  assert.equal(s.h.getText(), 'new draft');
  s = setup('old draft');
  await pipeFrom(s.h, gen(), { mode: 'replace' });
  assert.equal(s.h.getText(), '');
  assert.equal(s.calls.length, 1);
  s = setup('kept');
  await pipeFrom(s.h, gen(), { mode: 'append' });
  assert.equal(s.h.getText(), 'kept');
  assert.equal(s.calls.length, 0);
});

test('S124 O29: only text/reasoning objects with a string delta are applied', async () => {
  const s = setup('p');
  await pipeFrom(s.h, gen(null, 'str', 5, undefined, { type: 'text' }, { type: 'text', delta: 5 }, { type: 'text', delta: new String('x') },
    { type: 'mystery', delta: 'x' }, { type: 'TEXT', delta: 'b' }, { type: new String('text'), delta: 'c' }, Object.assign(() => {}, text('f')),
    text('a')));
  assert.equal(s.h.getText(), 'pa');
  assert.deepEqual(s.calls, [['pa', '']]);
});

test('O29: an empty delta still makes one write; deltas keep lone surrogates', async () => {
  const s = setup('x');
  await pipeFrom(s.h, gen(text(''), reasoningChunk(''), text('\uD83D'), text('\uDE00'), text('\uDC00')));
  assert.deepEqual(s.calls, [['x', ''], ['x', ''], ['x\uD83D', ''], ['x😀', ''], ['x😀\uDC00', '']]);
  assert.deepEqual(units(s.h.getText()), ['78', 'd83d', 'de00', 'dc00']);
});

test('S126 O29: writes made by others between chunks are kept', async () => {
  const s = setup('');
  const m = manualStream();
  const p = pipeFrom(s.h, m.stream);
  await m.feed({ done: false, value: text('a') });
  s.h.setText(s.h.getText() + 'X');
  s.h.setReasoning('R');
  await m.feed({ done: false, value: text('b') });
  await m.feed({ done: true, value: undefined });
  await p;
  assert.equal(s.h.getText(), 'aXb');
  assert.equal(s.h.getReasoning(), 'R');
});

test('S125 O26 O27: opts and mode', async () => {
  const s = setup('t');
  let e = await pipeRejects(() => pipeFrom(s.h, gen(text('x')), { mode: 'prepend' }));
  assert.ok(e instanceof EditorOpsError);
  assert.equal(e.code, 'invalid_offset');
  assert.equal(e.message, 'pipeFrom: unknown mode prepend');
  sameDetails(e.details, { reason: 'unknown_mode', mode: 'prepend' });
  e = await pipeRejects(() => pipeFrom(s.h, gen(text('x')), { mode: null }));
  assert.equal(e.message, 'pipeFrom: unknown mode null');
  sameDetails(e.details, { reason: 'unknown_mode', mode: null });
  const modeObj = {};
  e = await pipeRejects(() => pipeFrom(s.h, gen(text('x')), { mode: modeObj }));
  assert.equal(e.message, 'pipeFrom: unknown mode object');
  assert.equal(e.details.mode, modeObj);
  e = await pipeRejects(() => pipeFrom(s.h, gen(text('x')), { mode: 'Replace' }));
  assert.equal(e.message, 'pipeFrom: unknown mode Replace');
  for (const opts of [5, 'append', true, () => ({})]) {
    e = await pipeRejects(() => pipeFrom(s.h, gen(text('x')), opts));
    assert.equal(e.message, `pipeFrom: opts must be an object, got ${typeof opts}`);
    sameDetails(e.details, { reason: 'not_an_object' });
  }
  assert.equal(s.h.getText(), 't');
  assert.equal(s.calls.length, 0);
  await pipeFrom(s.h, gen(text('1')), { mode: undefined });
  await pipeFrom(s.h, gen(text('2')), null);
  await pipeFrom(s.h, gen(text('3')));
  await pipeFrom(s.h, gen(text('4')), {});
  assert.equal(s.h.getText(), 't1234');
});

test('O27: signal must be an AbortSignal; stream must be iterable; validation order', async () => {
  const s = setup('t');
  for (const signal of [null, {}, { aborted: false, addEventListener() {} }, new AbortController(), Object.create(AbortSignal.prototype)]) {
    const e = await pipeRejects(() => pipeFrom(s.h, gen(), { signal }));
    assert.equal(e.message, 'pipeFrom: signal must be an AbortSignal');
    sameDetails(e.details, { reason: 'not_an_object' });
  }
  // Order: handle, opts, mode, signal, stream.
  let e = await pipeRejects(() => pipeFrom({}, 42, 5));
  assert.equal(e.message, 'handle must be a message editor handle');
  e = await pipeRejects(() => pipeFrom(s.h, 42, 5));
  assert.equal(e.message, 'pipeFrom: opts must be an object, got number');
  e = await pipeRejects(() => pipeFrom(s.h, 42, { mode: 'x', signal: {} }));
  assert.equal(e.message, 'pipeFrom: unknown mode x');
  e = await pipeRejects(() => pipeFrom(s.h, 42, { signal: {} }));
  assert.equal(e.message, 'pipeFrom: signal must be an AbortSignal');
  e = await pipeRejects(() => pipeFrom(s.h, 42));
  assert.equal(e.message, 'pipeFrom: stream is not iterable');
  assert.equal(s.calls.length, 0);
});

test('S131 O27 O28: arrays of chunks, arrays of promises; non-iterables reject', async () => {
  const s = setup('');
  await pipeFrom(s.h, [text('a'), text('b')]);
  await pipeFrom(s.h, [Promise.resolve(text('c')), text('d'), Promise.resolve(reasoningChunk('r'))]);
  assert.equal(s.h.getText(), 'abcd');
  assert.equal(s.h.getReasoning(), 'r');
  for (const stream of [42, null, undefined, {}, { [Symbol.asyncIterator]: 5 }, { [Symbol.iterator]: 'x' }]) {
    const e = await pipeRejects(() => pipeFrom(s.h, stream));
    assert.ok(e instanceof EditorOpsError);
    assert.equal(e.code, 'invalid_offset');
    assert.equal(e.message, 'pipeFrom: stream is not iterable');
    sameDetails(e.details, { reason: 'not_an_object' });
  }
  // A string is iterable: its characters are skipped (not chunk objects).
  await pipeFrom(s.h, 'xyz');
  assert.equal(s.h.getText(), 'abcd');
});

test('O28: the iterator is obtained synchronously and an async iterator is preferred', () => {
  const s = setup('');
  const log = [];
  const stream = {
    [Symbol.asyncIterator]() { log.push('async'); return gen(); },
    [Symbol.iterator]() { log.push('sync'); return [][Symbol.iterator](); },
  };
  const p = pipeFrom(s.h, stream);
  assert.deepEqual(log, ['async']);
  return p;
});

test('S127 O32: a stream failure rejects with the same value; applied deltas stay; return() not called', async () => {
  const s = setup('');
  const boom = { boom: true };
  let returned = 0;
  const stream = {
    [Symbol.asyncIterator]() {
      let i = 0;
      return {
        next() { if (i++ === 0) return Promise.resolve({ done: false, value: text('a') }); throw boom; },
        return() { returned++; return Promise.resolve({ done: true }); },
      };
    },
  };
  assert.equal(await rejection(pipeFrom(s.h, stream)), boom);
  assert.equal(s.h.getText(), 'a');
  assert.equal(returned, 0);
  // An async generator that throws.
  const s2 = setup('');
  async function* g() { yield text('a'); throw boom; }
  assert.equal(await rejection(pipeFrom(s2.h, g())), boom);
  assert.equal(s2.h.getText(), 'a');
});

async function rejection(p) {
  try { await p; } catch (e) { return e; }
  assert.fail('expected a rejection');
}

test('O32: next() rejecting, a malformed result, and a throwing [Symbol.asyncIterator] are stream failures', async () => {
  const s = setup('');
  const m = manualStream();
  const p = rejection(pipeFrom(s.h, m.stream));
  const err = new Error('next failed');
  await m.fail(err);
  assert.equal(await p, err);
  assert.ok(!m.log.includes('return'));
  for (const bad of [5, null, undefined, 'x']) {
    const m2 = manualStream();
    const p2 = rejection(pipeFrom(s.h, m2.stream));
    await m2.feed(bad);
    const e = await p2;
    assert.ok(e instanceof TypeError, String(e));
    assert.ok(!m2.log.includes('return'));
  }
  const thrower = new Error('no iterator');
  const e = await rejection(pipeFrom(s.h, { [Symbol.asyncIterator]() { throw thrower; } }));
  assert.equal(e, thrower);
  // A sync iterator's rejected value is a stream failure too.
  const s2 = setup('');
  const rej = new Error('chunk failed');
  const e2 = await rejection(pipeFrom(s2.h, [text('a'), Promise.reject(rej), text('b')]));
  assert.equal(e2, rej);
  assert.equal(s2.h.getText(), 'a');
  assert.equal(s.calls.length, 0);
});

test('S128 O32: a handle settled mid-stream rejects with its TakeoverError; return() once, not awaited', async () => {
  const ac = new AbortController();
  const s = setup('', { abortSignal: ac.signal, settleOnAbort: true });
  const m = manualStream();
  m.it.return = () => { m.log.push('return'); return new Promise(() => {}); }; // never settles: must not be awaited
  const p = rejection(pipeFrom(s.h, m.stream));
  await m.feed({ done: false, value: text('a') });
  await m.feed({ done: false, value: text('b') });
  ac.abort();
  assert.equal(s.h.isSettled(), true);
  await m.feed({ done: false, value: text('c') });
  const e = await p;
  assert.ok(e instanceof TakeoverError);
  assert.equal(e.code, 'editor_aborted');
  assert.equal(m.log.filter((x) => x === 'return').length, 1);
  assert.equal(s.h.getText(), 'ab');
  assert.equal((await s.h.complete).finalText, 'ab');
});

test('O32: a throwing return() after a handle failure is ignored', async () => {
  const s = await settled('committed', 'x');
  let returned = 0;
  const stream = {
    [Symbol.asyncIterator]() {
      return { next: async () => ({ done: false, value: text('a') }), return() { returned++; throw new Error('ignored'); } };
    },
  };
  const e = await rejection(pipeFrom(s.h, stream));
  assert.equal(e.code, 'editor_committed');
  assert.equal(returned, 1);
});

test('S129 O31: aborting while next() is pending rejects with the reason; return() once; no later chunk applies', async () => {
  const s = setup('');
  const ac2 = new AbortController();
  const m = manualStream();
  const p = rejection(pipeFrom(s.h, m.stream, { signal: ac2.signal }));
  await m.feed({ done: false, value: text('a') });
  while (!m.waiting.length) await tick();
  ac2.abort('stop');
  assert.equal(await p, 'stop');
  assert.deepEqual(m.log.filter((x) => x === 'return'), ['return']);
  // The chunk that was on its way is not applied.
  m.waiting.shift().resolve({ done: false, value: text('late') });
  await tick();
  assert.equal(s.h.getText(), 'a');
  assert.equal(s.calls.length, 1);
  assert.equal(s.h.isSettled(), false);
});

test('S129 O28 O31: an already-aborted signal rejects before clearing the text or obtaining an iterator', async () => {
  const s = setup('keep');
  const ac = new AbortController();
  ac.abort('early');
  let called = 0;
  const stream = { [Symbol.asyncIterator]() { called++; return gen(text('x')); } };
  const e = await rejection(pipeFrom(s.h, stream, { signal: ac.signal, mode: 'replace' }));
  assert.equal(e, 'early');
  assert.equal(s.h.getText(), 'keep');
  assert.equal(s.calls.length, 0);
  assert.equal(called, 0);
  const ac3 = new AbortController();
  ac3.abort();
  const e3 = await rejection(pipeFrom(s.h, [text('x')], { signal: ac3.signal }));
  assert.ok(e3 instanceof DOMException);
  assert.equal(e3.name, 'AbortError');
  assert.equal(e3, ac3.signal.reason);
  assert.equal(s.h.getText(), 'keep');
});

test('O31: an abort during a sync iterator\'s awaited value applies nothing after it', async () => {
  const s = setup('');
  const ac = new AbortController();
  let release;
  const pending = new Promise((r) => { release = r; });
  let returned = 0;
  const it = [text('a'), pending, text('c')][Symbol.iterator]();
  it.return = () => { returned++; return { done: true }; };
  const p = rejection(pipeFrom(s.h, { [Symbol.iterator]: () => it }, { signal: ac.signal }));
  await tick();
  const reason = new Error('stopped');
  ac.abort(reason);
  release(text('b'));
  assert.equal(await p, reason);
  await tick();
  assert.equal(s.h.getText(), 'a');
  assert.equal(returned, 1);
});

test('O31: aborting from inside onUpdate stops the pipe after that write', async () => {
  const ac = new AbortController();
  const s = setup('');
  s.h.setOnUpdate((t) => { s.calls.push(t); if (t === 'ab') ac.abort('enough'); });
  const e = await rejection(pipeFrom(s.h, gen(text('a'), text('b'), text('c')), { signal: ac.signal }));
  assert.equal(e, 'enough');
  assert.equal(s.h.getText(), 'ab');
});

test('S130 O28: replace mode on a continue or committed handle rejects and never iterates', async () => {
  let s = setup('prefix more', { generationType: 'continue', originalText: 'prefix' });
  let iterated = 0;
  const stream = { [Symbol.asyncIterator]() { iterated++; return gen(text('x')); } };
  let e = await pipeRejects(() => pipeFrom(s.h, stream, { mode: 'replace' }));
  assert.ok(e instanceof TakeoverError);
  assert.equal(e.code, 'invalid_op_for_continue');
  assert.equal(s.h.getText(), 'prefix more');
  assert.equal(iterated, 0);
  s = await settled('committed', 'done');
  e = await pipeRejects(() => pipeFrom(s.h, stream, { mode: 'replace' }));
  assert.ok(e instanceof TakeoverError);
  assert.equal(e.code, 'editor_committed');
  assert.equal(iterated, 0);
  // In append mode a settled handle fails at the first accepted chunk.
  e = await rejection(pipeFrom(s.h, [null, text('x')]));
  assert.equal(e.code, 'editor_committed');
});

test('O26 O3: pipeFrom works on duck handles through their methods', async () => {
  const d = duck('a', 'r');
  await pipeFrom(d, gen(text('b'), reasoningChunk('s')), { mode: 'replace' });
  assert.deepEqual(sets(d), [['setText', ''], ['setText', 'b'], ['setReasoning', 'rs']]);
});

// ---- O33–O38: reasoning sections ----

test('S132 O35: ensureReasoningSection creates once', () => {
  let s = setup('');
  writesOnce(s, () => ensureReasoningSection(s.h, 'subagent-0'), '', '### [subagent-0] (running)\n');
  assert.equal(ensureReasoningSection(s.h, 'subagent-0'), undefined);
  assert.equal(s.calls.length, 0);
  s = setup('', {}, '### [main]\nstart\n');
  writesOnce(s, () => ensureReasoningSection(s.h, 'subagent-0'), '', '### [main]\nstart\n\n### [subagent-0] (running)\n');
  // Trailing line breaks are removed before the separator.
  s = setup('', {}, 'notes\n\n\n');
  writesOnce(s, () => ensureReasoningSection(s.h, 'a'), '', 'notes\n\n### [a] (running)\n');
  s = setup('', {}, '\n\n');
  writesOnce(s, () => ensureReasoningSection(s.h, 'a'), '', '### [a] (running)\n');
});

test('S133 O36: appending to an earlier section keeps the blank line before the next', () => {
  const s = setup('');
  ensureReasoningSection(s.h, 'a');
  ensureReasoningSection(s.h, 'b');
  s.calls.length = 0;
  writesOnce(s, () => appendToReasoningSection(s.h, 'a', 'X'), '', '### [a] (running)\nX\n\n### [b] (running)\n');
  writesOnce(s, () => appendToReasoningSection(s.h, 'a', 'Y'), '', '### [a] (running)\nXY\n\n### [b] (running)\n');
});

test('S134 O36: interleaved appends', () => {
  const s = setup('');
  ensureReasoningSection(s.h, 'critic-0');
  ensureReasoningSection(s.h, 'planner-1');
  appendToReasoningSection(s.h, 'critic-0', 'c1');
  appendToReasoningSection(s.h, 'planner-1', 'p1');
  appendToReasoningSection(s.h, 'critic-0', ' c2');
  appendToReasoningSection(s.h, 'planner-1', ' p2');
  assert.equal(s.h.getReasoning(), '### [critic-0] (running)\nc1 c2\n\n### [planner-1] (running)\np1 p2');
  assert.equal(s.calls.length, 6);
});

test('S135 O36: missing sections, trailing newlines, a header on the last line', () => {
  let s = setup('');
  writesOnce(s, () => appendToReasoningSection(s.h, 'c', 'hi'), '', '### [c] (running)\nhi');
  s = setup('', {}, '### [a] (running)\nfoo\n');
  writesOnce(s, () => appendToReasoningSection(s.h, 'a', 'bar'), '', '### [a] (running)\nfoobar\n');
  s = setup('', {}, '### [a] (running)');
  writesOnce(s, () => appendToReasoningSection(s.h, 'a', 'x'), '', '### [a] (running)\nx');
  s = setup('', {}, 'pre\n');
  writesOnce(s, () => appendToReasoningSection(s.h, 'c', 'hi'), '', 'pre\n\n### [c] (running)\nhi');
  // Streaming 'a\n' then 'b' gives 'ab\n' (as the reference).
  s = setup('', {}, '### [s]\n');
  appendToReasoningSection(s.h, 's', 'a\n');
  appendToReasoningSection(s.h, 's', 'b');
  assert.equal(s.h.getReasoning(), '### [s]\nab\n');
});

test('O36: separators before the next header', () => {
  // Empty body right before the next header: a blank line is added.
  let s = setup('', {}, '### [a] (running)\n### [b]\n');
  writesOnce(s, () => appendToReasoningSection(s.h, 'a', 'X'), '', '### [a] (running)\nX\n\n### [b]\n');
  // One blank line only: it becomes the separator, not part of the body.
  s = setup('', {}, '### [a] (running)\n\n### [b]\n');
  writesOnce(s, () => appendToReasoningSection(s.h, 'a', 'X'), '', '### [a] (running)\nX\n\n### [b]\n');
  // A body ending in one \n before the next header gets a blank line.
  s = setup('', {}, '### [a]\nfoo\n### [b]\n');
  writesOnce(s, () => appendToReasoningSection(s.h, 'a', 'X'), '', '### [a]\nfooX\n\n### [b]\n');
  // Two or more line breaks are kept as they are.
  s = setup('', {}, '### [a]\nfoo\n\n\n### [b]\n');
  writesOnce(s, () => appendToReasoningSection(s.h, 'a', 'X'), '', '### [a]\nfooX\n\n\n### [b]\n');
});

test('S136 O34: ids are trimmed when written and when looked up', () => {
  const s = setup('');
  ensureReasoningSection(s.h, ' a ');
  ensureReasoningSection(s.h, 'a\t');
  assert.equal(s.h.getReasoning(), '### [a] (running)\n');
  assert.equal(s.calls.length, 1);
  appendToReasoningSection(s.h, ' a ', 'x');
  assert.equal(s.h.getReasoning(), '### [a] (running)\nx');
});

test('O34: trimming follows String.prototype.trim (U+FEFF trimmed, U+0085 kept)', () => {
  let s = setup('');
  ensureReasoningSection(s.h, '\uFEFF\u00A0a\u3000');
  assert.equal(s.h.getReasoning(), '### [a] (running)\n');
  s = setup('');
  ensureReasoningSection(s.h, '\u0085a');
  assert.equal(s.h.getReasoning(), '### [\u0085a] (running)\n');
  s = setup('');
  ensureReasoningSection(s.h, 'a', ' queued\t');
  assert.equal(s.h.getReasoning(), '### [a] (queued)\n');
});

test('S137 O33: headers count only at the start of a line, and only for the exact id', () => {
  let s = setup('', {}, 'x ### [a] (running)\n');
  writesOnce(s, () => ensureReasoningSection(s.h, 'a'), '', 'x ### [a] (running)\n\n### [a] (running)\n');
  s = setup('', {}, '### [ab] (running)\n');
  writesOnce(s, () => ensureReasoningSection(s.h, 'a'), '', '### [ab] (running)\n\n### [a] (running)\n');
  // A line that begins with the header counts, whatever follows; the first one wins.
  s = setup('', {}, 'intro\n### [a] trailing words\nbody\n\n### [a] (dup)\n');
  ensureReasoningSection(s.h, 'a');
  assert.equal(s.calls.length, 0);
  writesOnce(s, () => appendToReasoningSection(s.h, 'a', '+'), '', 'intro\n### [a] trailing words\nbody+\n\n### [a] (dup)\n');
});

test('S138 O37: markReasoningSectionStatus rewrites the header line', () => {
  let s = setup('', {}, '### [subagent-0] (running)\nbody');
  writesOnce(s, () => markReasoningSectionStatus(s.h, 'subagent-0', ''), '', '### [subagent-0]\nbody');
  writesOnce(s, () => markReasoningSectionStatus(s.h, 'subagent-0', 'error: timeout'), '', '### [subagent-0] (error: timeout)\nbody');
  writesOnce(s, () => markReasoningSectionStatus(s.h, 'subagent-0', 'error: timeout'), '', '### [subagent-0] (error: timeout)\nbody');
  writesOnce(s, () => markReasoningSectionStatus(s.h, ' subagent-0 ', null), '', '### [subagent-0]\nbody');
  writesOnce(s, () => markReasoningSectionStatus(s.h, 'subagent-0'), '', '### [subagent-0]\nbody');
  s = setup('', {}, '### [a] (running)\n### [b] (running)');
  writesOnce(s, () => markReasoningSectionStatus(s.h, 'b', 'done'), '', '### [a] (running)\n### [b] (done)');
  s = setup('', {}, '### [a] (x)');
  opsFails(s, () => markReasoningSectionStatus(s.h, 'nope', 'done'), 'invalid_offset', 'section "nope" not found', { reason: 'bad_section', id: 'nope' });
  // The message and details name the trimmed id.
  opsFails(s, () => markReasoningSectionStatus(s.h, ' nope ', 'done'), 'invalid_offset', 'section "nope" not found', { reason: 'bad_section', id: 'nope' });
});

test('S139 O34 O35: bad ids, status forms', () => {
  const s = setup('');
  const obj = {};
  for (const id of ['', '   ', 5, 'a\nb', 'a]b', 'a\rb', null, undefined, obj, '\uFEFF']) {
    for (const op of [() => ensureReasoningSection(s.h, id), () => appendToReasoningSection(s.h, id, 'x'), () => markReasoningSectionStatus(s.h, id, 'x')]) {
      const e = opsFails(s, op, 'invalid_offset', BAD_ID, { reason: 'bad_section', id });
      assert.ok(Object.is(e.details.id, id), 'details.id is the value as given');
    }
  }
  let t = setup('');
  writesOnce(t, () => ensureReasoningSection(t.h, 'a', { status: 'queued' }), '', '### [a] (queued)\n');
  t = setup('');
  writesOnce(t, () => ensureReasoningSection(t.h, 'a', null), '', '### [a]\n');
  t = setup('');
  writesOnce(t, () => ensureReasoningSection(t.h, 'a', ''), '', '### [a]\n');
  t = setup('');
  writesOnce(t, () => ensureReasoningSection(t.h, 'a', 'queued'), '', '### [a] (queued)\n');
  t = setup('');
  writesOnce(t, () => ensureReasoningSection(t.h, 'a', {}), '', '### [a] (running)\n');
  t = setup('');
  writesOnce(t, () => ensureReasoningSection(t.h, 'a', { status: null }), '', '### [a]\n');
});

test('O34: statuses must be strings without line breaks', () => {
  const s = setup('', {}, '### [a] (x)\n');
  for (const status of ['a\nb', 'a\rb', 5, true, {}, Symbol('s')]) {
    const e = opsFails(s, () => markReasoningSectionStatus(s.h, 'a', status), 'invalid_offset', BAD_STATUS);
    assert.equal(e.details.reason, 'bad_section');
    sameDetails(e.details, { reason: 'bad_section', status });
  }
  opsFails(s, () => ensureReasoningSection(s.h, 'b', 'x\ny'), 'invalid_offset', BAD_STATUS, { reason: 'bad_section', status: 'x\ny' });
  opsFails(s, () => ensureReasoningSection(s.h, 'b', { status: 5 }), 'invalid_offset', BAD_STATUS, { reason: 'bad_section', status: 5 });
  // Checked even when the section exists (the status comes before the lookup).
  opsFails(s, () => ensureReasoningSection(s.h, 'a', 7), 'invalid_offset', BAD_STATUS);
});

test('S140 O36: the delta must be a string; an empty one is a no-op, even when settled', async () => {
  let s = setup('');
  opsFails(s, () => appendToReasoningSection(s.h, 'a', 123), 'invalid_offset', 'appendToReasoningSection requires a string delta, got number', { reason: 'not_a_string' });
  opsFails(s, () => appendToReasoningSection(s.h, 'a'), 'invalid_offset', 'appendToReasoningSection requires a string delta, got undefined', { reason: 'not_a_string' });
  assert.equal(appendToReasoningSection(s.h, 'a', ''), undefined);
  assert.equal(s.calls.length, 0);
  s = await settled('committed', '', '### [a]\n');
  appendToReasoningSection(s.h, 'a', '');
  appendToReasoningSection(s.h, 'missing', '');
  ensureReasoningSection(s.h, 'a');
  assert.equal(s.calls.length, 0);
  takeoverFails(s, () => appendToReasoningSection(s.h, 'a', 'x'), 'editor_committed');
  takeoverFails(s, () => ensureReasoningSection(s.h, 'b'), 'editor_committed');
  takeoverFails(s, () => markReasoningSectionStatus(s.h, 'a', 'done'), 'editor_committed');
});

test('O38: check order: handle, delta, id, status, lookup', () => {
  const s = setup('', {}, '### [a]\n');
  opsFails(s, () => appendToReasoningSection(s.h, 5, 5), 'invalid_offset', 'appendToReasoningSection requires a string delta, got number');
  opsFails(s, () => appendToReasoningSection(s.h, '', ''), 'invalid_offset', BAD_ID);
  opsFails(s, () => ensureReasoningSection(s.h, 'a]', 5), 'invalid_offset', BAD_ID);
  opsFails(s, () => markReasoningSectionStatus(s.h, '', 'a\nb'), 'invalid_offset', BAD_ID);
  opsFails(s, () => markReasoningSectionStatus(s.h, 'missing', 'a\nb'), 'invalid_offset', BAD_STATUS);
});

test('O38: section ops touch only the reasoning, never the text or the continue prefix', () => {
  const s = setup('Hello there', { generationType: 'continue', originalText: 'Hello ' });
  writesOnce(s, () => ensureReasoningSection(s.h, 'a'), 'Hello there', '### [a] (running)\n');
  writesOnce(s, () => appendToReasoningSection(s.h, 'a', 'x'), 'Hello there', '### [a] (running)\nx');
  writesOnce(s, () => markReasoningSectionStatus(s.h, 'a', 'ok'), 'Hello there', '### [a] (ok)\nx');
  const d = duck('T', '');
  ensureReasoningSection(d, 'a');
  appendToReasoningSection(d, 'a', 'x');
  appendToReasoningSection(d, 'b', 'y');
  markReasoningSectionStatus(d, 'a', 'done');
  ensureReasoningSection(d, 'a');
  assert.ok(d.log.every(([m]) => m === 'getReasoning' || m === 'setReasoning'), JSON.stringify(d.log));
  assert.equal(sets(d).length, 4);
  assert.equal(d.reasoning, '### [a] (done)\nx\n\n### [b] (running)\ny');
});

test('O33 T1: section bodies and ids keep lone surrogates exactly', () => {
  const s = setup('');
  ensureReasoningSection(s.h, '\uD83D');
  appendToReasoningSection(s.h, '\uD83D', '\uDE00');
  assert.deepEqual(units(s.h.getReasoning()), units('### [\uD83D] (running)\n\uDE00'));
});

test('O13 O15: a list of more than 100,000 entries fails at entry 100,000, after the ones before it; nothing else is read or written', () => {
  const { h, calls } = setup('abc');
  let reads = 0;
  const entry = { get kind() { reads++; return 'insert_at'; }, offset: 0, text: 'x' };
  const full = new Array(100001).fill(entry);
  for (const [list, length] of [
    [new Array(4e6).fill(entry), 4e6],
    // A length the array does not hold (a Proxy is an array to Array.isArray).
    [new Proxy(full, { get: (t, k) => (k === 'length' ? 1e9 : Reflect.get(t, k)) }), 1e9],
  ]) {
    reads = 0;
    const e = caught(() => applyPatch(h, list));
    assert.ok(e instanceof EditorOpsError);
    assert.equal(e.code, 'invalid_offset');
    assert.equal(e.message, `applyPatch takes at most 100000 entries, got ${length}`);
    assert.deepEqual({ ...e.details }, { reason: 'too_many_entries', count: length, max: 100000, index: 100000 });
    assert.equal(reads, 100000);
  }
  // An entry before the bound that fails is reported first (O15).
  const bad = new Array(4e6).fill(entry);
  bad[7] = { kind: 'nope' };
  assert.equal(caught(() => applyPatch(h, bad)).details.index, 7);
  assert.equal(h.getText(), 'abc');
  assert.deepEqual(calls, []);
  // At the bound the list applies, as one write.
  applyPatch(h, full.slice(0, 100000));
  assert.equal(h.getText().length, 100003);
  assert.equal(calls.length, 1);
});

test('O26 O31: a signal whose own methods or getters throw still settles the pipe, and the next pipe works', async () => {
  const { h } = setup('');
  const gen = async function* () { yield { type: 'text', delta: 'a' }; yield { type: 'text', delta: 'b' }; };
  const unhandled = [];
  const onUnhandled = (e) => unhandled.push(e);
  process.on('unhandledRejection', onUnhandled);
  try {
    // removeEventListener throws when the pipe finishes: it still resolves.
    let c = new AbortController();
    Object.defineProperty(c.signal, 'removeEventListener', { value() { throw new Error('remove'); } });
    await pipeFrom(h, gen(), { signal: c.signal });
    assert.equal(h.getText(), 'ab');
    // aborted reads once, then throws: the pipe rejects with what it threw.
    c = new AbortController();
    let n = 0;
    const late = new Error('aborted getter');
    Object.defineProperty(c.signal, 'aborted', { get() { if (++n > 1) throw late; return false; } });
    assert.equal(await pipeFrom(h, gen(), { signal: c.signal }).then(() => 'resolved', (e) => e), late);
    // An abort mid-stream whose reason getter throws rejects with that throw.
    c = new AbortController();
    const bad = new Error('reason getter');
    Object.defineProperty(c.signal, 'reason', { get() { throw bad; } });
    const slow = async function* () { yield { type: 'text', delta: 'x' }; await new Promise((r) => setTimeout(r, 5)); yield { type: 'text', delta: 'y' }; };
    const p = pipeFrom(h, slow(), { signal: c.signal });
    setTimeout(() => c.abort(), 1);
    assert.equal(await p.then(() => 'resolved', (e) => e), bad);
    await new Promise((r) => setTimeout(r, 20));
    assert.deepEqual(unhandled, []);
    h.setText('');
    await pipeFrom(h, gen());
    assert.equal(h.getText(), 'ab');
  } finally { process.off('unhandledRejection', onUnhandled); }
});

test('O15: entries after a context_replace that follows an edit are read as sent (the text read for the match reuses the shared buffer)', () => {
  const body = `${'lorem ipsum '.repeat(150)}target here`;
  const { h } = setup(body);
  applyPatch(h, [
    { kind: 'insert_at', offset: 0, text: '>' },
    { kind: 'context_replace', find: 'target', replaceWith: 'TARGET' },
    { kind: 'insert_at', offset: 1, text: '<' },
    { kind: 'delete_range', start: 2, end: 3 },
  ]);
  assert.equal(h.getText(), `><${'lorem ipsum '.repeat(150).slice(1)}TARGET here`);
});
