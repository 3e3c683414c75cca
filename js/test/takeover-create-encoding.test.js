// createMessageEditorHandle sends its common shape as numbers and names
// the owner it sent last instead of sending it again (tk_create_fast); the
// outcome must be the same as the full encoding's (T10–T18, T65).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createMessageEditorHandle } from '../message-takeover.js';
import { listUnsettledHandles } from '../takeover-host.js';
import { thrown } from './helpers.js';

const rowOf = (h) => { const rows = listUnsettledHandles(); return rows[rows.length - 1]; };

test('T11 T65: each generation type is the one Go records', () => {
  for (const g of ['normal', 'regenerate', 'swipe', 'continue']) {
    const h = createMessageEditorHandle({ generationType: g, owner: `gen-${g}` });
    assert.deepEqual([rowOf(h).generationType, rowOf(h).owner], [g, `gen-${g}`]);
    h.discard();
  }
});

test('T15 T17 T65: owners stay exact when they repeat, change, or a create fails in between', () => {
  const seq = [];
  const make = (owner, extra = {}) => createMessageEditorHandle({ generationType: 'normal', owner, ...extra });
  for (const owner of ['a', 'a', 'b', 'a\uD800', 'a\uD800', undefined, 'b']) {
    const h = make(owner);
    seq.push(rowOf(h).owner);
    h.discard();
  }
  assert.deepEqual(seq, ['a', 'a', 'b', 'a\uD800', 'a\uD800', 'unknown', 'b']);
  // A create that fails after the owner was read keeps nothing.
  assert.equal(thrown(() => make('c', { settleOnAbort: 'no' })).code, 'invalid_argument');
  const h = make('b');
  assert.equal(rowOf(h).owner, 'b');
  h.discard();
  const h2 = make('c');
  assert.equal(rowOf(h2).owner, 'c');
  h2.discard();
  assert.equal(thrown(() => make(7)).message, 'opts.owner must be a string; got number');
});

test('T12 T14 T25: the originals and the interval travel as kinds and numbers, exactly', async () => {
  const h = createMessageEditorHandle({ generationType: 'continue', originalText: 'Hi \uDC00', originalReasoning: 'r\uD83D', flushIntervalMs: 16.5 });
  assert.equal(h.getText(), 'Hi \uDC00');
  assert.equal(h.getReasoning(), 'r\uD83D');
  const e = thrown(() => h.setText('Hx'));
  assert.equal(e.code, 'invalid_op_for_continue');
  assert.deepEqual(e.details, { originalPrefix: 'Hi \uDC00' });
  h.setText('Hi \uDC00 there');
  await h.commit();
  assert.equal((await h.complete).finalText, 'Hi \uDC00 there');
  assert.equal(thrown(() => createMessageEditorHandle({ generationType: 'normal', flushIntervalMs: '0' })).message,
    'opts.flushIntervalMs must be a finite number between 0 and 2147483647; got 0');
});
