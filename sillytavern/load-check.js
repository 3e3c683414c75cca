// Why the core did not load, in words a SillyTavern user can act on. The
// browser's own error for a missing file is "Failed to execute 'compile' on
// 'WebAssembly': HTTP status code is not ok" or "Failed to fetch dynamically
// imported module", which names neither the file nor the fix; the usual
// cause is a folder copied without (part of) its lib/. So after a failure
// the files the core needs are asked for once, and the ones that are not
// there are named.

/** The files under the extension folder that loading the core fetches first (lib/ is the browser build, js/browser-build.js). */
export const CORE_FILES = ['lib/tavern-core.wasm', 'lib/wasm_exec.js', 'lib/tavern-core.js', 'lib/chat-surface.js', 'lib/takeover-host.js'];

/**
 * @param {unknown} error what the load threw
 * @param {object} o
 * @param {URL|string} o.base the extension folder's URL (ending in '/')
 * @param {string} o.folder its folder name, for the message
 * @param {typeof fetch} [o.fetch]
 * @returns {Promise<unknown>} an Error naming the missing files (the original as `cause`), or `error` itself
 */
export async function explainLoadFailure(error, { base, folder, fetch = globalThis.fetch }) {
  if (typeof fetch !== 'function') return error;
  const missing = [];
  await Promise.all(CORE_FILES.map(async (file) => {
    try {
      const res = await fetch(new URL(file, base), { method: 'HEAD', cache: 'no-store' });
      if (res.status === 404) missing.push(file);
    } catch { /* unreachable for another reason: keep the original error */ }
  }));
  if (missing.length === 0) return error;
  missing.sort((a, b) => CORE_FILES.indexOf(a) - CORE_FILES.indexOf(b));
  const names = missing.length === 1 ? missing[0] : `${missing.slice(0, -1).join(', ')} and ${missing.at(-1)}`;
  return new Error(`${names} ${missing.length === 1 ? 'is' : 'are'} missing from extensions/${folder}/. `
    + `Copy the whole built folder (dist/sillytavern/tavern-core/, lib/ included) again and reload.`, { cause: error });
}
