// The npm packages as a consumer meets them: pack `tavern-core` and
// `tavern-core-host` (js/pack.js), install the tarballs into a project
// outside the repo whose path has a space and a non-ASCII letter, import
// every documented subpath under Node, and type-check a TypeScript file that
// uses each one under `strict`. The browser package carries no Node-only
// file and no tavern-host.wasm.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, mkdirSync, writeFileSync, readFileSync, readdirSync, rmSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { packAll, PACKAGE_DOCS } from '../pack.js';

const JS = fileURLToPath(new URL('..', import.meta.url));
const ROOT = join(JS, '..');
const TSC = join(JS, 'node_modules', 'typescript', 'bin', 'tsc');
const NODE_TYPES = join(JS, 'node_modules', '@types');
const manifests = {
  'tavern-core': JSON.parse(readFileSync(join(JS, 'package.json'), 'utf8')),
  'tavern-core-host': JSON.parse(readFileSync(join(JS, 'host', 'package.json'), 'utf8')),
};
/** 'tavern-core/x.js' -> ['tavern-core', './x.js']; 'tavern-core' -> [..., '.'] */
const split = (spec) => {
  const [, name, sub] = /^(tavern-core(?:-host)?)(?:\/(.+))?$/.exec(spec);
  return [name, sub ? './' + sub : '.'];
};
const specOf = (name, sub) => (sub === '.' ? name : `${name}/${sub.slice(2)}`);
/** Every [package, subpath] the manifests export that is a module (.js or the root). */
const moduleExports = () => Object.entries(manifests).flatMap(([name, m]) =>
  Object.keys(m.exports).filter((s) => s === '.' || (s.endsWith('.js') && s !== './wasm_exec.js')).map((s) => specOf(name, s)));

const run = (cmd, args, cwd) => execFileSync(cmd, args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });

/** Every `tavern-core/<subpath>` and `tavern-core-host/<subpath>` the READMEs and docs/ mention. */
function documentedSubpaths() {
  const files = [join(ROOT, 'README.md'), join(JS, 'README.md'), join(JS, 'host', 'README.md')];
  const docs = join(ROOT, 'docs');
  if (existsSync(docs)) for (const f of readdirSync(docs, { recursive: true })) if (String(f).endsWith('.md')) files.push(join(docs, f));
  const found = new Set();
  for (const f of files) {
    for (const m of readFileSync(f, 'utf8').matchAll(/\b(tavern-core(?:-host)?\/[A-Za-z0-9_.-]+\.(?:js|wasm))/g)) found.add(m[1]);
  }
  return [...found].sort();
}

test('every documented subpath is exported, once, with types for each .js', () => {
  for (const spec of documentedSubpaths()) {
    const [name, sub] = split(spec);
    assert.ok(Object.keys(manifests[name].exports).includes(sub), `${spec} is documented but not exported`);
  }
  for (const [name, manifest] of Object.entries(manifests)) {
    for (const [sub, target] of Object.entries(manifest.exports)) {
      if (!sub.endsWith('.js') && sub !== '.') continue;
      if (sub === './wasm_exec.js') continue; // Go's runtime script, no API
      assert.equal(typeof target, 'object', `${name} ${sub} has no types entry`);
      assert.ok(existsSync(join(JS, target.types)), `${name} ${sub}: ${target.types} is missing`);
      assert.ok(existsSync(join(JS, target.default)), `${name} ${sub}: ${target.default} is missing`);
    }
    // JSON.parse keeps the last of duplicate keys, which is how a types
    // entry once got overridden: count the keys in the text.
    const text = readFileSync(join(JS, ...(name === 'tavern-core' ? [] : ['host']), 'package.json'), 'utf8');
    for (const sub of Object.keys(manifest.exports)) {
      const n = text.split(`"${sub}":`).length - 1;
      assert.equal(n, 1, `${name} ${sub} appears ${n} times in exports`);
    }
  }
});

// A use of each subpath's types that only compiles when they resolved.
const TS_USES = {
  'tavern-core': `import { load, type TavernCore } from 'tavern-core';
const core: Promise<TavernCore> = load();
void core;`,
  'tavern-core/message-takeover.js': `import { createMessageEditorHandle, TakeoverError, GENERATE_TAKEOVER_DISPATCH, type MessageEditorHandle } from 'tavern-core/message-takeover.js';
const h: MessageEditorHandle = createMessageEditorHandle({ generationType: 'normal', owner: 'consumer' });
const d: 'generate_takeover_dispatch' = GENERATE_TAKEOVER_DISPATCH;
void h; void d; void TakeoverError;`,
  'tavern-core/editor-ops.js': `import { appendText, applyPatch, EditorOpsError, type Patch } from 'tavern-core/editor-ops.js';
const p: Patch = { kind: 'insert_at', offset: 0, text: 'x' };
void appendText; void applyPatch; void EditorOpsError; void p;`,
  'tavern-core/takeover-host.js': `import { runTakeover, installTakeoverContext, listUnsettledHandles } from 'tavern-core/takeover-host.js';
const n: number = listUnsettledHandles().length;
void runTakeover; void installTakeoverContext; void n;`,
  'tavern-core/chat-surface.js': `import { installChatSurfaceApi, createChatSurfaceHost, CHAT_SURFACE_RENDERER_CAPABILITIES, type ChatSurfaceApi } from 'tavern-core/chat-surface.js';
const f: (t: object, o: { managed: boolean }) => ChatSurfaceApi = installChatSurfaceApi;
void f; void createChatSurfaceHost; void CHAT_SURFACE_RENDERER_CAPABILITIES.length;`,
  'tavern-core/message-editor.js': `import { mountMessageEditor, type MessageEditor } from 'tavern-core/message-editor.js';
const m: (root: Element, o: { sessionId: string }) => Promise<MessageEditor> = mountMessageEditor;
void m;`,
  'tavern-core-host/session-log.js': `import { validate, fold, openLog, mountEditorRoute, SessionLogError, EDITOR_PATHS } from 'tavern-core-host/session-log.js';
const edit: string = EDITOR_PATHS.edit;
void validate; void fold; void openLog; void mountEditorRoute; void SessionLogError; void edit;`,
  'tavern-core-host/session-host.js': `import { SessionHost, LiveSession, Agent } from 'tavern-core-host/session-host.js';
const host: SessionHost = new SessionHost();
void host; void LiveSession; void Agent;`,
};

// Files only a Node host needs: never in the browser package.
const NODE_ONLY = ['tavern-host.wasm', 'session-log.js', 'session-host.js', 'host-core.js', 'durable-file.js'];

test('the packed tarballs install outside the repo (space and é in the path), import every subpath and type-check strictly', { timeout: 300_000 }, () => {
  const tmp = mkdtempSync(join(tmpdir(), 'tavern pack é-'));
  try {
    const packed = packAll(join(tmp, 'tarballs'));
    for (const [name, p] of [['tavern-core', packed.core], ['tavern-core-host', packed.host]]) {
      for (const f of ['README.md', 'LICENSE', 'package.json']) assert.ok(p.files.includes(f), `${name} tarball lacks ${f}`);
      for (const target of Object.values(manifests[name].exports)) {
        for (const t of typeof target === 'string' ? [target] : Object.values(target)) {
          assert.ok(p.files.includes(t.slice(2)), `${name}: export target ${t} is not in the tarball`);
        }
      }
    }
    // Each carries the docs its README cites, and a published manifest without dev-only fields.
    for (const [name, p, readme] of [['tavern-core', packed.core, join(JS, 'README.md')], ['tavern-core-host', packed.host, join(JS, 'host', 'README.md')]]) {
      for (const d of PACKAGE_DOCS[name]) assert.ok(p.files.includes(`docs/${d}`), `${name} tarball lacks docs/${d}`);
      for (const [, d] of readFileSync(readme, 'utf8').matchAll(/\bdocs\/([a-z0-9-]+\.md)/g)) {
        assert.ok(p.files.includes(`docs/${d}`), `${name}'s README cites docs/${d}, which it does not ship`);
      }
    }
    for (const f of NODE_ONLY) assert.ok(!packed.core.files.includes(f), `the browser package ships ${f}`);
    assert.ok(!packed.host.files.includes('tavern-core.wasm'), 'the host package ships the browser module');

    const app = join(tmp, 'my consumer é');
    mkdirSync(app);
    writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'consumer', private: true, type: 'module' }));
    run('npm', ['install', '--offline', '--no-audit', '--no-fund', '--ignore-scripts', packed.core.tarball, packed.host.tarball], app);
    for (const name of Object.keys(manifests)) {
      const published = JSON.parse(readFileSync(join(app, 'node_modules', name, 'package.json'), 'utf8'));
      assert.equal(published.version, manifests['tavern-core'].version);
      assert.equal(published.devDependencies, undefined, `${name} publishes no devDependencies`);
      assert.equal(published.scripts, undefined, `${name} publishes no scripts (they name files it does not ship)`);
      assert.ok(existsSync(join(app, 'node_modules', name, 'docs', 'api.md')));
    }

    // Node: every module subpath imports (the wasm loads from the odd path).
    const specs = moduleExports();
    assert.deepEqual([...specs].sort(), Object.keys(TS_USES).sort(), 'TS_USES must cover every module export');
    writeFileSync(join(app, 'check.mjs'), `
${specs.map((s, i) => `import * as m${i} from '${s}';`).join('\n')}
import { createMessageEditorHandle } from 'tavern-core/message-takeover.js';
import { validate } from 'tavern-core-host/session-log.js';
const h = createMessageEditorHandle({ generationType: 'normal', owner: 'consumer' });
h.setText('hello');
await h.commit();
const out = await h.complete;
console.log(JSON.stringify({ n: [${specs.map((_, i) => `Object.keys(m${i}).length`).join(', ')}], status: out.status, text: out.finalText, valid: validate('').ok }));
`);
    const result = JSON.parse(run(process.execPath, ['check.mjs'], app).trim().split('\n').pop());
    assert.equal(result.status, 'committed');
    assert.equal(result.text, 'hello');
    for (const [i, n] of result.n.entries()) assert.ok(n > 0, `${specs[i]} exports nothing`);

    // TypeScript, strict, against the installed packages' own .d.ts.
    writeFileSync(join(app, 'check.ts'), specs.map((s) => TS_USES[s]).join('\n') + '\nexport {};\n');
    writeFileSync(join(app, 'tsconfig.json'), JSON.stringify({
      compilerOptions: {
        strict: true, noEmit: true, skipLibCheck: false, noUncheckedIndexedAccess: true, exactOptionalPropertyTypes: true,
        module: 'nodenext', moduleResolution: 'nodenext', target: 'es2022', lib: ['es2022', 'dom'],
        types: ['node'], typeRoots: [NODE_TYPES],
      },
      files: ['check.ts'],
    }));
    try {
      run(process.execPath, [TSC, '-p', app], app);
    } catch (e) {
      assert.fail(`tsc failed:\n${e.stdout}${e.stderr}`);
    }
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
});
