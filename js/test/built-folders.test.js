// What the built folders a user copies or installs carry for that user, who
// has no repository beside them: the SillyTavern extension's README.md (the
// settings panel's help link) and the DeepSeek Harness plugin's README.md
// hold the README's sections for that host, every docs/ page those sections
// cite travels with them, and no relative link points outside the folder
// (docs/bundle.mjs). And when the extension's core does not load because
// files are missing, the panel names them (sillytavern/load-check.js).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BUNDLES, REPO, bundleReadme, sections, writeBundle } from '../../docs/bundle.mjs';
import { CORE_FILES, explainLoadFailure } from '../../sillytavern/load-check.js';

test('bundle: sections() takes a README section up to the next one, and refuses a missing heading', () => {
  const md = '# T\n\nintro\n\n## A\n\na text\n\n### A.1\n\nmore\n\n## B\n\nb text\n\n## C\n\nc\n';
  assert.deepEqual(sections(md, ['B', 'A']), ['## B\n\nb text', '## A\n\na text\n\n### A.1\n\nmore']);
  assert.throws(() => sections(md, ['Missing']), /README\.md has no "## Missing" section/);
});

for (const [name, bundle] of Object.entries(BUNDLES)) {
  test(`bundle ${name}: its README holds the README's sections, and every docs/ page they cite travels with it`, (t) => {
    const out = mkdtempSync(join(tmpdir(), `tavern-bundle-${name}-`));
    t.after(() => rmSync(out, { recursive: true, force: true }));
    writeBundle(bundle, out);
    const text = readFileSync(join(out, 'README.md'), 'utf8');
    const readme = readFileSync(join(REPO, 'README.md'), 'utf8');
    assert.equal(text, bundleReadme(bundle));
    for (const s of sections(readme, bundle.sections)) assert.ok(text.includes(s), `${name}: the README section "${s.split('\n')[0]}" is in the bundle verbatim`);
    const cited = new Set([...text.matchAll(/\bdocs\/([a-z0-9-]+\.md)\b/g)].map((m) => m[1]));
    for (const page of cited) assert.ok(existsSync(join(out, 'docs', page)), `${name}: README.md cites docs/${page}, which the bundle must carry`);
    for (const page of bundle.docs) assert.ok(existsSync(join(out, 'docs', page)));
    // Relative markdown links must stay inside the folder.
    for (const [, target] of text.matchAll(/\]\(([^)#\s]+)[^)]*\)/g)) {
      if (/^[a-z]+:/.test(target)) continue;
      assert.ok(!target.startsWith('../') && existsSync(join(out, target)), `${name}: link ${target} does not resolve inside the folder`);
    }
    // So must the bundled pages' links to each other (they cited pages left behind).
    for (const page of readdirSync(join(out, 'docs'))) {
      const doc = readFileSync(join(out, 'docs', page), 'utf8');
      for (const [, target] of doc.matchAll(/\]\(([a-z0-9-]+\.md)(?:#[^)]*)?\)/g)) {
        assert.ok(existsSync(join(out, 'docs', target)), `${name}: docs/${page} links ${target}, which the bundle must carry`);
      }
      for (const [, cited] of doc.matchAll(/\bdocs\/([a-z0-9-]+\.md)\b/g)) {
        if (existsSync(join(REPO, 'docs', cited))) assert.ok(existsSync(join(out, 'docs', cited)), `${name}: docs/${page} cites docs/${cited}`);
      }
    }
  });
}

test('bundle: the DeepSeek Harness package ships its docs/ (package.json "files")', () => {
  const pkg = JSON.parse(readFileSync(join(REPO, 'dsh-plugin', 'package.json'), 'utf8'));
  assert.ok(pkg.files.includes('docs/'), 'npm pack of dist/dsh-plugin keeps docs/');
  assert.ok(pkg.files.includes('README.md'));
});

// A fetch over a folder holding only the files in `present`.
const folder = (present) => async (url, init) => {
  assert.equal(init?.method, 'HEAD');
  const path = new URL(url).pathname.replace(/^\/ext\//, '');
  return { status: present.includes(path) ? 200 : 404 };
};
const base = 'http://127.0.0.1/ext/';
const browserError = new TypeError("Failed to execute 'compile' on 'WebAssembly': HTTP status code is not ok");

test('load check: a missing lib/tavern-core.wasm is named, with the fix, and the browser error kept as cause', async () => {
  const e = await explainLoadFailure(browserError, { base, folder: 'tavern-core', fetch: folder(CORE_FILES.filter((f) => f !== 'lib/tavern-core.wasm')) });
  assert.equal(e.message, 'lib/tavern-core.wasm is missing from extensions/tavern-core/. Copy the whole built folder (dist/sillytavern/tavern-core/, lib/ included) again and reload.');
  assert.equal(e.cause, browserError);
});

test('load check: several missing files are all named, in load order', async () => {
  const e = await explainLoadFailure(browserError, { base, folder: 'tc', fetch: folder(['lib/tavern-core.js', 'lib/takeover-host.js']) });
  assert.match(e.message, /^lib\/tavern-core\.wasm, lib\/wasm_exec\.js and lib\/chat-surface\.js are missing from extensions\/tc\/\. /);
});

test('load check: with every file present, or when the server cannot be asked, the original error stands', async () => {
  assert.equal(await explainLoadFailure(browserError, { base, folder: 'tc', fetch: folder(CORE_FILES) }), browserError);
  const offline = async () => { throw new TypeError('Failed to fetch'); };
  assert.equal(await explainLoadFailure(browserError, { base, folder: 'tc', fetch: offline }), browserError);
  assert.equal(await explainLoadFailure(browserError, { base, folder: 'tc', fetch: null }), browserError);
});
