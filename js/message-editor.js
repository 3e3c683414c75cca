// The message editor widget for pages (spec S90–S98). The widget itself is
// Go (msgeditor + wasm/browser/editor.go, drawn with dom/v2); this facade
// only mounts it, performs the HTTP requests Go asks for with `fetch`, and
// turns programmatic calls into promises. It holds no policy.
import { sharedCore } from './core.js';

/**
 * Mount the editor over a host-rendered transcript. Rows are elements
 * inside `root` with `data-seq` (the original event's seq), a
 * `[data-part=body]` child and a `[data-part=actions]` bar.
 */
export async function mountMessageEditor(root, options = {}) {
  const { sessionId, baseURL, fetch: fetchImpl = globalThis.fetch.bind(globalThis) } = options;
  if (!root || typeof root.querySelectorAll !== 'function') throw new TypeError('mountMessageEditor: root must be an element');
  if (typeof sessionId !== 'string' || sessionId === '') throw new TypeError('mountMessageEditor: sessionId must be a non-empty string');
  const core = await (options.core ?? sharedCore());
  if (typeof core.editorBoot?.mount !== 'function') throw new Error('tavern-core: this module has no message editor');
  const base = baseURL ?? globalThis.location?.href;
  const waiters = new Map();
  const idle = [];
  let inflight = 0;
  let nextToken = 0;
  let destroyed = false;
  let handle;

  const settleIdle = () => {
    if (inflight === 0) for (const r of idle.splice(0)) r();
  };
  const fx = {
    request(id, method, path, headers, body) {
      inflight++;
      Promise.resolve()
        .then(() => fetchImpl(new URL(path, base).href, { method, headers, body, credentials: 'same-origin', cache: 'no-store' }))
        .then(async (r) => [r.status, await r.text()], (err) => [0, String(err?.message ?? err)])
        .then(([status, text]) => {
          inflight--;
          if (!destroyed) check(handle.response(id, status, text));
          settleIdle();
        });
    },
    settle(token, ok, code, message, body) {
      const resolve = waiters.get(token);
      waiters.delete(token);
      if (!resolve) return;
      if (ok) {
        try { resolve(JSON.parse(body)); } catch { resolve({ ok: true, value: undefined }); }
      } else {
        resolve({ ok: false, error: { code, message } });
      }
    },
  };
  handle = check(core.editorBoot.mount(root, sessionId, fx));

  const call = (name, seq, text, removeAttachments) => {
    if (destroyed) return Promise.reject(new Error('message editor is destroyed'));
    const token = ++nextToken;
    const done = new Promise((resolve) => waiters.set(token, resolve));
    check(handle.call(name, seq, text, removeAttachments ?? null, token));
    return done;
  };

  return {
    version: handle.version(),
    refresh() { check(handle.refresh()); return this.whenIdle(); },
    whenIdle() { return inflight === 0 ? Promise.resolve() : new Promise((r) => idle.push(r)); },
    edit(seq, text, { removeAttachments } = {}) { return call('edit', seq, String(text), removeAttachments); },
    undo(seq) { return call('undo', seq, undefined, undefined); },
    regenerate(seq, { text, removeAttachments } = {}) {
      return call('regenerate', seq, text === undefined ? undefined : String(text), removeAttachments);
    },
    destroy() {
      if (destroyed) return;
      check(handle.destroy());
      destroyed = true;
      for (const resolve of waiters.values()) resolve({ ok: false, error: { code: 'internal', message: 'message editor destroyed' } });
      waiters.clear();
    },
  };
}

function check(r) {
  if (r && typeof r === 'object' && typeof r.internal === 'string') throw new Error(r.internal);
  return r;
}
