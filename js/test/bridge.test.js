// The bridge through the public API: exact strings (T1, T2, T5) as a
// property, and panic containment.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { sharedCore } from '../core.js';
import { createMessageEditorHandle, TakeoverError } from '../message-takeover.js';
import { H } from './helpers.js';

// Any UTF-16 string: lone surrogates, pairs, BMP text.
const unit = fc.oneof(
  fc.integer({ min: 0xd800, max: 0xdfff }),
  fc.integer({ min: 0, max: 0xffff }),
  fc.constantFrom(0x61, 0x0a, 0x22, 0x5c),
);
const jsString = fc.array(unit, { maxLength: 80 }).map((u) => String.fromCharCode(...u));
const sameUnits = (a, b) => a.length === b.length && [...Array(a.length).keys()].every((i) => a.charCodeAt(i) === b.charCodeAt(i));

test('T1: every JS string round-trips through set/get, onUpdate and complete', async () => {
  await fc.assert(fc.asyncProperty(jsString, jsString, async (text, reasoning) => {
    const h = H({ originalText: reasoning });
    const seen = [];
    h.setOnUpdate((t, r) => seen.push([t, r]));
    h.setText(text);
    h.setReasoning(reasoning);
    assert.ok(sameUnits(h.getText(), text));
    assert.ok(sameUnits(seen.at(-1)[0], text) && sameUnits(seen.at(-1)[1], reasoning));
    await h.commit();
    const out = await h.complete;
    assert.ok(sameUnits(out.finalText, text) && sameUnits(out.finalReasoning, reasoning));
  }), { numRuns: 300 });
});

test('T2: an emoji split across two setText calls rejoins exactly', () => {
  fc.assert(fc.property(jsString, fc.integer({ min: 0x10000, max: 0x10ffff }), jsString, (pre, cp, post) => {
    const emoji = String.fromCodePoint(cp);
    const h = H();
    h.setText(pre + emoji[0]);
    assert.equal(h.getText().charCodeAt(h.getText().length - 1), emoji.charCodeAt(0));
    h.setText(h.getText() + emoji[1] + post);
    assert.ok(sameUnits(h.getText(), pre + emoji + post));
  }), { numRuns: 300 });
});

test('T1 T26: error messages and details keep lone surrogates exactly', () => {
  fc.assert(fc.property(jsString.filter((s) => s.length > 0), jsString, (prefix, text) => {
    fc.pre(!text.startsWith(prefix));
    const h = createMessageEditorHandle({ generationType: 'continue', originalText: prefix });
    let err;
    try { h.setText(text); } catch (e) { err = e; }
    assert.ok(err instanceof TakeoverError);
    assert.equal(err.message, `setText in 'continue' must keep originalText prefix; got ${JSON.stringify(text.slice(0, 32))}…`);
    assert.ok(sameUnits(err.details.originalPrefix, prefix.slice(0, 64)));
    assert.ok(sameUnits(h.getText(), prefix));
  }), { numRuns: 300 });
});

test('T1: owner strings reach warnings exactly', (t) => {
  const warn = t.mock.method(console, 'warn', () => {});
  const owner = 'plug\uD800in';
  const h = H({ owner });
  h.setOnUpdate(() => { throw new Error('x'); });
  h.setText('a');
  assert.equal(warn.mock.calls[0].arguments[0], `[message-takeover] onUpdate threw during immediate flush (owner=${owner})`);
});

test('a Go panic surfaces as a JS error and the module keeps working', async () => {
  const core = await sharedCore();
  for (let i = 0; i < 3; i++) {
    assert.equal(core.ex.tc_panic(), -1);
    const err = core.takeError({ internal: TakeoverError });
    assert.ok(err instanceof TakeoverError);
    assert.equal(err.code, 'internal');
    assert.match(err.message, /assignment to entry in nil map/);
  }
  const h = H();
  h.setText('still alive');
  await h.commit();
  assert.equal((await h.complete).finalText, 'still alive');
});

test('long strings cross the buffer in chunks exactly', () => {
  const big = 'x\uD83D'.repeat(40000);
  const h = createMessageEditorHandle({ generationType: 'continue', originalText: big });
  let err;
  try { h.setText('nope'); } catch (e) { err = e; }
  assert.equal(err.details.originalPrefix, big.slice(0, 64));
  h.setText(big + 'tail');
  assert.equal(h.getText(), big + 'tail');
});

test('load(): the shared instance carries the takeover, host and editor-op APIs; wasmBytes makes another', async () => {
  const { load } = await import('../index.js');
  const { readFile } = await import('node:fs/promises');
  const a = await load();
  assert.equal(a, await load());
  assert.equal(a.createMessageEditorHandle, createMessageEditorHandle);
  for (const k of ['runTakeover', 'installTakeoverContext', 'listUnsettledHandles', 'appendText', 'pipeFrom', 'EditorOpsError']) {
    assert.equal(typeof a[k], 'function', k);
  }
  const b = await load({ wasmBytes: await readFile(new URL('../tavern-core.wasm', import.meta.url)) });
  assert.notEqual(b.TakeoverError, a.TakeoverError);
  const h = b.createMessageEditorHandle({ generationType: 'normal', flushIntervalMs: 0 });
  b.appendText(h, 'separate');
  assert.equal(h.getText(), 'separate');
  const e = (() => { try { h.setText(1); } catch (x) { return x; } })();
  assert.ok(e instanceof b.TakeoverError && !(e instanceof a.TakeoverError), 'T8: each instance throws its own classes');
});

test('describeThrown, the loader helper Go describes thrown values with while it recovers a panic, never throws (issue 13)', async () => {
  const { describeThrown } = await import('../go-runtime.js');
  const unprintable = Object.create(null);
  const cases = [
    [new TypeError('typed words'), 'typed words'],
    [{ message: 'shaped like one' }, 'shaped like one'],
    [{ message: 5 }, '[object Object]'],
    [{ get message() { throw unprintable; } }, '[object Object]'],
    [5, '5'], [null, 'null'], [undefined, 'undefined'], ['plain', 'plain'], [Symbol('s'), 'Symbol(s)'],
    [unprintable, null],
    [new Proxy({}, { get() { throw unprintable; } }), null],
    [{ toString() { throw new Error('no'); } }, null],
  ];
  for (const [v, want] of cases) assert.equal(describeThrown(v), want);
  const { proxy, revoke } = Proxy.revocable({}, {});
  revoke();
  assert.equal(describeThrown(proxy), null);
});
