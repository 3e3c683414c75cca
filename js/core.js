import { Core } from './codec.js';
import { ensureGoRuntime, describeThrown } from './go-runtime.js';
import { createTakeoverApi } from './takeover-api.js';
import { createEditorOpsApi } from './editor-ops-api.js';
import { createTakeoverHostApi } from './takeover-host-api.js';

// Loader: instantiates tavern-core.wasm under Node or in a browser and
// returns a core instance (codec.js) whose fast-lane exports and buffer
// codec the facades share. Facades hold no policy; this file only moves
// values.

const IS_NODE = typeof process !== 'undefined' && !!process.versions?.node;

// The Go runtime set-up is shared with the Node host package
// (host-core.js), which ships without this file.
export { ensureGoRuntime };

async function wasmSource(options) {
  if (options.wasmBytes) return options.wasmBytes;
  const url = options.wasmURL ?? new URL('./tavern-core.wasm', import.meta.url);
  if (IS_NODE && String(url).startsWith('file:')) {
    const { readFile } = await import('node:fs/promises');
    return readFile(new URL(url));
  }
  return fetch(url);
}

// The module compiles as its bytes arrive (compileStreaming needs no imports).
async function compile(options) {
  const src = await wasmSource(options);
  return src instanceof Response ? WebAssembly.compileStreaming(src) : WebAssembly.compile(src);
}

/**
 * Instantiate a fresh core. Most code wants the shared instance
 * (`sharedCore()`), which every tavern-core module uses.
 */
export async function instantiate(options = {}) {
  // Fetch and compile while Go's runtime script loads: neither waits for
  // the other (a page's load to its first message pays the longer, not both).
  const compiled = compile(options);
  compiled.catch(() => {}); // awaited below; a failure is thrown there
  await ensureGoRuntime();
  const go = new globalThis.Go();
  // A page's live Go heap is small, so at Go's default pace a collection
  // runs every 4 MB allocated: opening a 10,000-message chat ran several,
  // about a fifth of its profile. GOGC=400 lets the heap grow to five times
  // what is live (about 20 MB of wasm memory for that chat, from 8) before
  // the next (docs/architecture.md, "Load and the collector").
  go.env = { ...go.env, GOGC: '400' };
  const instance = await WebAssembly.instantiate(await compiled, go.importObject);
  const core = new Core(instance);
  core.takeover = createTakeoverApi(core);
  core.ops = createEditorOpsApi(core);
  core.takeoverHost = createTakeoverHostApi(core);
  let ready = false;
  globalThis.__tavernCoreBoot = {
    bridge: { // bridge/slowlane.go
      str: (v) => core.writeStr(typeof v === 'string' ? v : String(v)),
      text: (n) => core.string(core.ex.tc_buf(n), n),
      describe: describeThrown,
    },
    chatSurface: (core.surface = { FAIL: Object.freeze({}), INTERNAL: Object.freeze({}) }), // filled by chat-surface.js
    takeover: core.takeoverFx,
    ops: core.opsFx,
    editor: (core.editorBoot = {}), // filled by Go (wasm/browser/editor.go) for message-editor.js
    ready() { ready = true; },
  };
  go.run(instance); // runs Go's main until it parks
  if (!ready) throw new Error('tavern-core: module did not start');
  return core;
}

let shared;
/** The instance every module of the package shares (T68). */
export function sharedCore(options) {
  shared ??= instantiate(options);
  return shared;
}

// The codec used to live here; kept for importers of the old names.
export { Core, BRAND, KIND, kindOf } from './codec.js';
export { TAG as T } from './protocol.js';
// (Reached from here by every entry, so the browser build keeps it in the
// one shared module rather than a second chunk for the two DOM entries.)
export { addDefaultStyles } from './default-styles.js';
