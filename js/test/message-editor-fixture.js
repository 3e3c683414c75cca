// The message editor's fixture (message-editor.test.js and the rules
// audit): the real route (SessionHost over a copy of fixture F) as fetch,
// and the transcript rows of F as a page would render them. reads() counts
// the widget's state reads.
import { copyFileSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SessionHost } from '../session-host.js';

export const ORIGIN = 'http://127.0.0.1:4000';
const F = new URL('../../testdata/sessionlog/f.jsonl', import.meta.url);
export const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));

export function setup(t) {
  const dir = mkdtempSync(join(tmpdir(), 'tc-me-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const path = join(dir, 'f.jsonl');
  copyFileSync(F, path);
  const host = new SessionHost({ origin: ORIGIN, version: pkg.version });
  const session = host.load(path);
  host.mountEditor();
  // One tab per test: the editor keeps typed drafts in session storage.
  globalThis.sessionStorage?.clear();
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
  return { host, session, root, fetch, row: (seq) => root.querySelector(`[data-seq="${seq}"]`), reads: () => stateReads };
}
