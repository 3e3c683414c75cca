// Rules audit (spec/sessionlog.md §15): widget clauses no other JS test
// checks, through the facade under happy-dom against the real route.
import './happydom-preload.cjs';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { mountMessageEditor } from '../message-editor.js';
import { SessionHost } from '../session-host.js';

const ORIGIN = 'http://127.0.0.1:4000';
const F = new URL('../../testdata/sessionlog/f.jsonl', import.meta.url);
const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));

function setup(t) {
  const dir = mkdtempSync(join(tmpdir(), 'tc-audit-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const path = join(dir, 'f.jsonl');
  copyFileSync(F, path);
  const host = new SessionHost({ origin: ORIGIN, version: pkg.version });
  host.load(path);
  host.mountEditor();
  const root = document.createElement('section');
  document.body.replaceChildren(root);
  for (const [seq, kind, text] of [[2, 'user', 'q1'], [3, 'context', 'CTX1'], [6, 'assistant', 'r1a'], [8, 'tool', 'out'],
    [11, 'assistant', 'r1b'], [15, 'user', 'q2\nmore'], [17, 'assistant', 'r2']]) {
    const row = document.createElement('article');
    row.dataset.seq = String(seq);
    row.className = kind;
    const body = document.createElement('div');
    body.dataset.part = 'body';
    body.textContent = text;
    const actions = document.createElement('div');
    actions.dataset.part = 'actions';
    row.append(body, actions);
    root.append(row);
  }
  let stateReads = 0;
  const fetch = (url, init) => {
    if (new URL(url).pathname.endsWith('/state')) stateReads++;
    return host.fetch(new Request(url, init));
  };
  return { root, fetch, reads: () => stateReads };
}

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
