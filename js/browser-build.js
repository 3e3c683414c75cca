// The browser build of the package: `node browser-build.js <out dir>` writes
// its public entry modules (the package's "exports" that pages load), one
// shared module holding everything they have in common (tavern-core.js),
// tavern-core.wasm and Go's wasm_exec.js. The demo (js/dist/), the bench
// page and the SillyTavern extension (lib/) load this build.
//
// Why: a page that imports the unbundled modules fetches them in two
// waves of ten small files, and the wasm fetch starts only when the last
// has been evaluated; here an entry needs one more request, and the wasm
// fetch starts one round trip after it (docs/architecture.md, "Load").
// Every entry keeps its own file, names and semantics (an extension's
// `import … from '…/lib/message-takeover.js'` is unchanged), and the state
// they share (the one core instance, T68) lives once, in tavern-core.js, so
// importing several entries never makes a second instance. esbuild is the
// bundler (a dev dependency); nothing is minified, so stacks stay readable.
import { build } from 'esbuild';
import { copyFileSync, mkdirSync, readFileSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const JS = dirname(fileURLToPath(import.meta.url));
/** The entries pages load (package.json "exports", less the Node-only and the non-JS ones). */
export const ENTRIES = ['index.js', 'message-takeover.js', 'takeover-host.js', 'editor-ops.js', 'chat-surface.js', 'message-editor.js'];
/** The module the entries share, and the files copied beside it. */
export const SHARED = 'tavern-core.js';
export const ASSETS = ['tavern-core.wasm', 'wasm_exec.js'];

/** Writes the browser build into `out`; returns the file names written. */
export async function buildBrowser(out) {
  mkdirSync(out, { recursive: true });
  const result = await build({
    absWorkingDir: JS,
    entryPoints: ENTRIES,
    outdir: out,
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'browser',
    target: 'es2022', // top-level await
    // The shared module has a fixed name: the SillyTavern load check names
    // it, and a build that would need a second shared module fails below.
    chunkNames: SHARED.replace(/\.js$/, ''),
    // core.js and go-runtime.js import these only under Node.
    external: ['node:*'],
    charset: 'utf8',
    legalComments: 'none',
    logLevel: 'silent',
    metafile: true,
    write: true,
  });
  for (const w of result.warnings) {
    // The wasm_exec.js import is computed on purpose (Go's script, a copy
    // beside the build); any other warning fails the build.
    if (!/wasm_exec/.test(w.text + (w.location?.lineText ?? ''))) throw new Error(`browser build: ${w.text}`);
  }
  const written = Object.keys(result.metafile.outputs).map((p) => basename(p));
  const expected = new Set([...ENTRIES, SHARED]);
  const extra = written.filter((n) => !expected.has(n));
  if (extra.length || written.length !== expected.size) {
    throw new Error(`browser build: expected ${[...expected].join(', ')}; esbuild wrote ${written.join(', ')}`);
  }
  for (const a of ASSETS) copyFileSync(join(JS, a), join(out, a));
  return [...written, ...ASSETS];
}

if (process.argv[1] && fileURLToPath(import.meta.url) === resolve(process.argv[1])) {
  const out = process.argv[2];
  if (!out) throw new Error('usage: node js/browser-build.js <out dir>');
  const files = await buildBrowser(resolve(out));
  const size = (f) => readFileSync(join(resolve(out), f)).length;
  console.log(`browser build: ${files.map((f) => `${f} (${size(f)} B)`).join(', ')} in ${out}`);
}
