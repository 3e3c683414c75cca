// Go's wasm_exec.js runtime (globalThis.Go), installed once per realm. Both
// packages ship this file: tavern-core (core.js) and tavern-core-host
// (host-core.js), so the Node host needs nothing from the browser package.

const IS_NODE = typeof process !== 'undefined' && !!process.versions?.node;

let goRuntime; // Go's wasm_exec.js installs globalThis.Go once.

/** Installs Go's wasm_exec.js runtime (globalThis.Go) once per realm. */
export async function ensureGoRuntime() {
  if (globalThis.Go) return;
  goRuntime ??= (async () => {
    if (IS_NODE) {
      // wasm_exec.js needs these Node globals; Node 20 has them, but the
      // script expects `fs`/`crypto` on globalThis for its syscall shims.
      const { createRequire } = await import('node:module');
      const { fileURLToPath } = await import('node:url');
      const require = createRequire(import.meta.url);
      globalThis.fs ??= require('node:fs');
      globalThis.path ??= require('node:path');
      globalThis.crypto ??= require('node:crypto').webcrypto;
      // fileURLToPath, not .pathname: a package under "my consumer é/"
      // must not become a percent-encoded path that does not exist.
      require(fileURLToPath(new URL('./wasm_exec.js', import.meta.url)));
    } else {
      // The browser build (browser-build.js) bundles Go's script in place of
      // this import, so a page makes no request for it on the way to its
      // first message.
      await import(new URL('./wasm_exec.js', import.meta.url).href);
    }
  })();
  await goRuntime;
}

/**
 * A thrown value's message for Go's error texts (bridge.ThrownMessage): an
 * object's string `message`, else String(v), else null. It never throws: Go
 * calls it after recovering a panic, to describe what JavaScript threw, and
 * a throw here would unwind through Go's frames.
 */
export function describeThrown(v) {
  try {
    if (v !== null && (typeof v === 'object' || typeof v === 'function')) {
      const m = v.message;
      if (typeof m === 'string') return m;
    }
  } catch { /* a throwing getter: String(v) below */ }
  try { return String(v); } catch { return null; }
}
