// The browser build (browser-build.js): every public entry keeps its file
// and its exports, the entries share one module and so one core (T68), and
// the build loads and works. The built modules run here under Node (their
// loader has a Node branch), which is enough to check names and identity;
// the demo pages and the e2e suite load the same build in Chromium.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { ASSETS, ENTRIES, SHARED, buildBrowser } from '../browser-build.js';

const out = mkdtempSync(join(tmpdir(), 'tavern-browser-build-'));
process.on('exit', () => rmSync(out, { recursive: true, force: true }));
const written = await buildBrowser(out);
const built = (name) => import(pathToFileURL(join(out, name)).href);

test('browser build: the entries, one shared module and the assets, nothing else', () => {
  assert.deepEqual(readdirSync(out).sort(), [...ENTRIES, SHARED, ...ASSETS].sort());
  assert.deepEqual(written.sort(), readdirSync(out).sort());
  for (const a of ASSETS) assert.ok(readFileSync(join(out, a)).equals(readFileSync(new URL(`../${a}`, import.meta.url))), a);
  for (const e of ENTRIES) {
    const text = readFileSync(join(out, e), 'utf8');
    const imports = [...text.matchAll(/^import\b[^;]*?from\s*"([^"]+)"/gms)].map((m) => m[1]);
    assert.deepEqual([...new Set(imports)], [`./${SHARED}`], `${e} imports only the shared module`);
  }
});

test('browser build: each entry exports what its source module exports', async () => {
  for (const e of ENTRIES) {
    const [a, b] = [await import(`../${e}`), await built(e)];
    assert.deepEqual(Object.keys(b).sort(), Object.keys(a).sort(), e);
  }
});

test('browser build: T68 the entries share one core (a handle from message-takeover.js works with editor-ops.js and load())', async () => {
  const takeover = await built('message-takeover.js');
  const ops = await built('editor-ops.js');
  const { load } = await built('index.js');
  const api = await load();
  assert.equal(api.createMessageEditorHandle, takeover.createMessageEditorHandle);
  assert.equal(api.EditorOpsError, ops.EditorOpsError);
  const h = takeover.createMessageEditorHandle({ generationType: 'normal', flushIntervalMs: 0 });
  ops.appendText(h, 'one core');
  assert.equal(h.getText(), 'one core');
  const source = await import('../message-takeover.js');
  assert.notEqual(source.TakeoverError, takeover.TakeoverError, 'the build is its own copy of the package, not the source modules');
});
