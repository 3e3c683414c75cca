// Loader for tavern-host.wasm, the harness host's module (Node only): the
// session-log entry and the message editor's route. It mirrors core.js's
// loader for the second binary and shares its Go runtime set-up.

import { ensureGoRuntime, describeThrown } from './go-runtime.js';

const IS_NODE = typeof process !== 'undefined' && !!process.versions?.node;

async function wasmBytes(options) {
  if (options.wasmBytes) return options.wasmBytes;
  const { readFile } = await import('node:fs/promises');
  return readFile(options.wasmURL ?? new URL('./tavern-host.wasm', import.meta.url));
}

/**
 * Instantiate a fresh host module: `{ call, mount }`, the two entry points
 * Go hands back (wasm/host/main_js.go). Most code wants `sharedHost()`.
 */
export async function instantiateHost(options = {}) {
  if (!IS_NODE) throw new Error('tavern-host.wasm runs under Node only');
  await ensureGoRuntime();
  const go = new globalThis.Go();
  // JS calls into Go run on one goroutine whose stack a collection would
  // shrink while it waits, only for the next large call to grow it again
  // (copystack was 6% of reading a small log): keep stacks as grown.
  go.env = { ...go.env, GODEBUG: 'gcshrinkstackoff=1' };
  const { instance } = await WebAssembly.instantiate(await wasmBytes(options), go.importObject);
  let api;
  globalThis.__tavernHostBoot = { ready(a) { api = a; }, bridge: { describe: describeThrown } }; // bridge/slowlane.go
  go.run(instance); // runs Go's main until it parks
  if (!api) throw new Error('tavern-host: module did not start');
  return { call: api.call, mount: api.mount };
}

let shared;
/** The host module instance every session-log module shares. */
export function sharedHost(options) {
  shared ??= instantiateHost(options);
  return shared;
}
