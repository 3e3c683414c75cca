// Rules audit (spec/sessionlog.md §15): widget clauses no other JS test
// checks, through the facade under happy-dom against the real route.
import './happydom-preload.cjs';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mountMessageEditor } from '../message-editor.js';
import { setup, ORIGIN } from './message-editor-fixture.js';

function setVisibility(v) {
  Object.defineProperty(document, 'visibilityState', { value: v, configurable: true });
  document.dispatchEvent(new document.defaultView.Event('visibilitychange'));
}

test('S98: the widget reads state again when the page becomes visible, not when it is hidden', async (t) => {
  const { root, fetch, reads } = setup(t);
  const editor = await mountMessageEditor(root, { sessionId: 'sF', baseURL: ORIGIN, fetch });
  t.after(() => { editor.destroy(); delete document.visibilityState; });
  await editor.whenIdle();
  const before = reads();
  assert.ok(before >= 1);
  setVisibility('hidden');
  await editor.whenIdle();
  assert.equal(reads(), before, 'hidden: no read');
  setVisibility('visible');
  await editor.whenIdle();
  assert.equal(reads(), before + 1, 'visible: one more state read');
});
