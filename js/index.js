// tavern-core's entry point: `const core = await load()`.
import { sharedCore, instantiate } from './core.js';

function publicApi(core) {
  const t = core.takeover;
  const { runTakeover, installTakeoverContext } = core.takeoverHost;
  return Object.freeze({
    createMessageEditorHandle: t.createMessageEditorHandle,
    TakeoverError: t.TakeoverError,
    GENERATE_TAKEOVER_DISPATCH: t.GENERATE_TAKEOVER_DISPATCH,
    listUnsettledHandles: t.listUnsettledHandles,
    runTakeover,
    installTakeoverContext,
    ...core.ops, // EditorOpsError and the editor ops
  });
}

const apis = new WeakMap();
function apiOf(core) {
  let api = apis.get(core);
  if (!api) apis.set(core, (api = publicApi(core)));
  return api;
}

/**
 * Load tavern-core. Without options this is the package's shared instance,
 * the same one `message-takeover.js` and the other modules use. With
 * `{ wasmURL }` or `{ wasmBytes }` it instantiates a separate core.
 */
export async function load(options) {
  const core = options && (options.wasmURL || options.wasmBytes) ? await instantiate(options) : await sharedCore();
  return apiOf(core);
}
