// Luker's newest context_replace spelling (oldString/newString) through the
// public API, beside the spec's find/replaceWith (O17, O18, O22, O25).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as ops from '../editor-ops.js';
import { H, recorder, thrown } from './helpers.js';

function on(text) {
  const h = H();
  h.setText(text);
  return h;
}

test('O22 O25: oldString/newString replace like find/replaceWith', () => {
  const h = on('The cat sat on the mat.');
  ops.applyPatch(h, { kind: 'context_replace', oldString: 'cat', newString: 'dog' });
  assert.equal(h.getText(), 'The dog sat on the mat.');
  ops.patchBySemantic(h, { oldString: 'mat', newString: 'rug' });
  assert.equal(h.getText(), 'The dog sat on the rug.');
  ops.applyPatch(h, [{ kind: 'insert_at', offset: 0, text: '> ' }, { kind: 'context_replace', oldString: 'sat', newString: 'lay', occurrence: 1 }]);
  assert.equal(h.getText(), '> The dog lay on the rug.');
});

test('O17 O18: when both spellings are given, find/replaceWith win; a nullish spec field falls back', () => {
  const h = on('The cat sat.');
  const cb = recorder();
  h.setOnUpdate(cb);
  cb.calls.length = 0; // the attach flush
  ops.applyPatch(h, { kind: 'context_replace', find: 'cat', replaceWith: 'dog', oldString: 'sat', newString: 'ran' });
  assert.equal(h.getText(), 'The dog sat.');
  ops.applyPatch(h, { kind: 'context_replace', find: null, oldString: 'dog', replaceWith: undefined, newString: 'cow' });
  assert.equal(h.getText(), 'The cow sat.');
  ops.patchBySemantic(h, { find: 'cow', oldString: 'sat', newString: 'X' });
  assert.equal(h.getText(), 'The X sat.', 'find from one spelling, the replacement from the other');
  assert.equal(cb.calls.length, 3);
});

test('O17 O18 O22: errors name the field that was read; details keep the spec\'s keys', () => {
  const h = on('cat cat');
  let e = thrown(() => ops.applyPatch(h, { kind: 'context_replace', oldString: '', newString: 'x' }));
  assert.equal(e.code, 'patch_not_found');
  assert.equal(e.message, 'context_replace.oldString must be a non-empty string');
  assert.deepEqual(e.details, { find: '', index: 0 });
  e = thrown(() => ops.patchBySemantic(h, { oldString: 'cat', newString: 7 }));
  assert.equal(e.code, 'invalid_offset');
  assert.equal(e.message, 'context_replace.newString must be a string, got number');
  e = thrown(() => ops.applyPatch(h, { kind: 'context_replace', oldString: 'cat', newString: 'dog' }));
  assert.equal(e.code, 'patch_ambiguous');
  assert.deepEqual(e.details, { find: 'cat', replaceWith: 'dog', firstMatch: 0, secondMatch: 4, matchCount: 2, index: 0 });
  e = thrown(() => ops.patchBySemantic(h, { oldString: 'cow' }));
  assert.equal(e.code, 'patch_not_found');
  assert.equal(e.details.find, 'cow');
  assert.equal(e.details.replaceWith, '');
  // Neither spelling: the spec's message, the value as given (S116).
  e = thrown(() => ops.patchBySemantic(h, { find: null }));
  assert.equal(e.message, 'context_replace.find must be a non-empty string');
  assert.equal(e.details.find, null);
  assert.equal(h.getText(), 'cat cat', 'nothing was written');
});
