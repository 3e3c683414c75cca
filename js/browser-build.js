// The browser build of the package: `node browser-build.js <out dir>` writes
// its public entry modules (the package's "exports" that pages load), one
// shared module holding everything they have in common (tavern-core.js,
// Go's wasm_exec.js included) and tavern-core.wasm; wasm_exec.js is copied
// beside them too, for pages and checks that name it. The demo (js/dist/),
// the bench page and the SillyTavern extension (lib/) load this build.
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

// Go's wasm_exec.js goes into the shared module: go-runtime.js imports it in
// a browser from a URL beside itself (the unbundled package), which cost a
// page one more request, started only once the shared module had run, and
// measured on the way to the first message (docs/architecture.md, "Load").
// A require() of it makes esbuild wrap it to run on first use, so a page
// that imports an entry and never loads the core still installs nothing.
const GO_IMPORT = "await import(new URL('./wasm_exec.js', import.meta.url).href);";
const bundleGoScript = {
  name: 'tavern-core-go-script',
  setup(b) {
    b.onLoad({ filter: /[\\/]go-runtime\.js$/ }, (args) => {
      const src = readFileSync(args.path, 'utf8');
      if (!src.includes(GO_IMPORT)) throw new Error('browser build: go-runtime.js no longer imports wasm_exec.js as expected');
      return { contents: src.replace(GO_IMPORT, "require('./wasm_exec.js');"), loader: 'js' };
    });
  },
};

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
    plugins: [bundleGoScript],
  });
  if (result.warnings.length) throw new Error(`browser build: ${result.warnings[0].text}`);
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
