// The npm package as a consumer meets it: `npm pack`, install the tarball
// into a project outside the repo whose path has a space and a non-ASCII
// letter, import every documented subpath under Node, and type-check a
// TypeScript file that uses each one under `strict`.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, mkdirSync, writeFileSync, readFileSync, readdirSync, rmSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const JS = fileURLToPath(new URL('..', import.meta.url));
const ROOT = join(JS, '..');
const TSC = join(JS, 'node_modules', 'typescript', 'bin', 'tsc');
const NODE_TYPES = join(JS, 'node_modules', '@types');
const manifest = JSON.parse(readFileSync(join(JS, 'package.json'), 'utf8'));

const run = (cmd, args, cwd) => execFileSync(cmd, args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });

/** Every `tavern-core/<subpath>` the README and docs/ mention. */
function documentedSubpaths() {
  const files = [join(ROOT, 'README.md')];
  const docs = join(ROOT, 'docs');
  if (existsSync(docs)) for (const f of readdirSync(docs, { recursive: true })) if (String(f).endsWith('.md')) files.push(join(docs, f));
  const found = new Set();
  for (const f of files) {
    for (const m of readFileSync(f, 'utf8').matchAll(/\btavern-core\/([A-Za-z0-9_.-]+\.(?:js|wasm))/g)) found.add('./' + m[1]);
  }
  return [...found].sort();
}

test('every documented tavern-core subpath is exported, once, with types for each .js', () => {
  const exported = Object.keys(manifest.exports);
  for (const sub of documentedSubpaths()) assert.ok(exported.includes(sub), `${sub} is documented but not exported`);
  for (const [sub, target] of Object.entries(manifest.exports)) {
    if (!sub.endsWith('.js') && sub !== '.') continue;
    if (sub === './wasm_exec.js') continue; // Go's runtime script, no API
    assert.equal(typeof target, 'object', `${sub} has no types entry`);
    assert.ok(existsSync(join(JS, target.types)), `${sub}: ${target.types} is missing`);
    assert.ok(existsSync(join(JS, target.default)), `${sub}: ${target.default} is missing`);
  }
  // JSON.parse keeps the last of duplicate keys, which is how a types
  // entry once got overridden: count the keys in the text.
  const text = readFileSync(join(JS, 'package.json'), 'utf8');
  for (const sub of exported) {
    const n = text.split(`"${sub}":`).length - 1;
    assert.equal(n, 1, `${sub} appears ${n} times in exports`);
  }
});

// A use of each subpath's types that only compiles when they resolved.
const TS_USES = {
  '.': `import { load, type TavernCore } from 'tavern-core';
const core: Promise<TavernCore> = load();
void core;`,
  './message-takeover.js': `import { createMessageEditorHandle, TakeoverError, GENERATE_TAKEOVER_DISPATCH, type MessageEditorHandle } from 'tavern-core/message-takeover.js';
const h: MessageEditorHandle = createMessageEditorHandle({ generationType: 'normal', owner: 'consumer' });
const d: 'generate_takeover_dispatch' = GENERATE_TAKEOVER_DISPATCH;
void h; void d; void TakeoverError;`,
  './editor-ops.js': `import { appendText, applyPatch, EditorOpsError, type Patch } from 'tavern-core/editor-ops.js';
const p: Patch = { kind: 'insert_at', offset: 0, text: 'x' };
void appendText; void applyPatch; void EditorOpsError; void p;`,
  './takeover-host.js': `import { runTakeover, installTakeoverContext, listUnsettledHandles } from 'tavern-core/takeover-host.js';
const n: number = listUnsettledHandles().length;
void runTakeover; void installTakeoverContext; void n;`,
  './chat-surface.js': `import { installChatSurfaceApi, createChatSurfaceHost, CHAT_SURFACE_RENDERER_CAPABILITIES, type ChatSurfaceApi } from 'tavern-core/chat-surface.js';
const f: (t: object, o: { managed: boolean }) => ChatSurfaceApi = installChatSurfaceApi;
void f; void createChatSurfaceHost; void CHAT_SURFACE_RENDERER_CAPABILITIES.length;`,
  './message-editor.js': `import { mountMessageEditor, type MessageEditor } from 'tavern-core/message-editor.js';
const m: (root: Element, o: { sessionId: string }) => Promise<MessageEditor> = mountMessageEditor;
void m;`,
  './session-log.js': `import { validate, fold, openLog, mountEditorRoute, SessionLogError, EDITOR_PATHS } from 'tavern-core/session-log.js';
const edit: string = EDITOR_PATHS.edit;
void validate; void fold; void openLog; void mountEditorRoute; void SessionLogError; void edit;`,
  './session-host.js': `import { SessionHost, LiveSession, Agent } from 'tavern-core/session-host.js';
const host: SessionHost = new SessionHost();
void host; void LiveSession; void Agent;`,
};

test('the packed tarball installs outside the repo (space and é in the path), imports every subpath and type-checks strictly', { timeout: 300_000 }, () => {
  const tmp = mkdtempSync(join(tmpdir(), 'tavern pack é-'));
  try {
    const packed = JSON.parse(run('npm', ['pack', '--json', '--pack-destination', tmp], JS));
    const tarball = join(tmp, packed[0].filename);
    const files = packed[0].files.map((f) => f.path);
    for (const f of ['README.md', 'LICENSE', 'package.json']) assert.ok(files.includes(f), `tarball lacks ${f}`);
    for (const target of Object.values(manifest.exports)) {
      for (const p of typeof target === 'string' ? [target] : Object.values(target)) {
        assert.ok(files.includes(p.slice(2)), `export target ${p} is not in the tarball`);
      }
    }

    const app = join(tmp, 'my consumer é');
    mkdirSync(app);
    writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'consumer', private: true, type: 'module' }));
    run('npm', ['install', '--offline', '--no-audit', '--no-fund', '--ignore-scripts', tarball], app);

    // Node: every .js subpath imports (wasm loads from the odd path).
    const jsSubs = Object.keys(manifest.exports).filter((s) => s === '.' || (s.endsWith('.js') && s !== './wasm_exec.js'));
    assert.deepEqual(jsSubs.sort(), Object.keys(TS_USES).sort(), 'TS_USES must cover every .js export');
    const spec = (s) => (s === '.' ? 'tavern-core' : 'tavern-core/' + s.slice(2));
    writeFileSync(join(app, 'check.mjs'), `
${jsSubs.map((s, i) => `import * as m${i} from '${spec(s)}';`).join('\n')}
import { createMessageEditorHandle } from 'tavern-core/message-takeover.js';
import { validate } from 'tavern-core/session-log.js';
const h = createMessageEditorHandle({ generationType: 'normal', owner: 'consumer' });
h.setText('hello');
await h.commit();
const out = await h.complete;
console.log(JSON.stringify({ n: [${jsSubs.map((_, i) => `Object.keys(m${i}).length`).join(', ')}], status: out.status, text: out.finalText, valid: validate('').ok }));
`);
    const result = JSON.parse(run(process.execPath, ['check.mjs'], app).trim().split('\n').pop());
    assert.equal(result.status, 'committed');
    assert.equal(result.text, 'hello');
    for (const [i, n] of result.n.entries()) assert.ok(n > 0, `${jsSubs[i]} exports nothing`);

    // TypeScript, strict, against the installed package's own .d.ts.
    writeFileSync(join(app, 'check.ts'), jsSubs.map((s) => TS_USES[s]).join('\n') + '\nexport {};\n');
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
