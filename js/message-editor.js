// The message editor widget for pages (spec S90–S98). The widget itself is
// Go (msgeditor + wasm/browser/editor.go, drawn with dom/v2); this facade
// only mounts it, performs the HTTP requests Go asks for with `fetch`, and
// turns programmatic calls into promises, answering ill-typed ones with the
// route's bad-request before they reach Go. It holds no other policy.
import { sharedCore } from './core.js';
import { textOf, reportToPage as report } from './codec.js';
import { addDefaultStyles } from './default-styles.js';

// More attachment ids than any message holds: a longer list is refused
// before anything is read from it.
const MAX_REMOVED = 1024;

// The widget's looks where the page has none (S90's outlined card and pill
// buttons, S93's struck-through chip, a message's line breaks), at zero
// specificity (:where) so any page rule wins: the DeepSeek Harness adapter
// and the demo style the same classes their own way.
const WIDGET_CSS = `
:where(.tc-me-text) { white-space: pre-wrap; }
:where(.tc-me-card) { display: flex; flex-direction: column; gap: 8px; padding: 10px; border-radius: 12px;
  border: 1px solid color-mix(in srgb, currentColor 25%, transparent); }
:where(.tc-me-input) { font: inherit; color: inherit; background: transparent; width: 100%; min-height: 3.5em;
  box-sizing: border-box; resize: vertical; }
:where(.tc-me-buttons) { display: flex; flex-wrap: wrap; gap: 8px; justify-content: flex-end; }
:where(.tc-me-pill) { border-radius: 999px; padding: 4px 14px; cursor: pointer; }
:where(.tc-me-pill:disabled, .tc-me-act:disabled) { opacity: .5; cursor: default; }
:where(.tc-me-chips) { display: flex; flex-wrap: wrap; gap: 6px; }
:where(.tc-me-chip) { border-radius: 6px; padding: 2px 8px; }
:where(.tc-me-chip.tc-me-marked) { text-decoration: line-through; opacity: .6; }
:where(.tc-me-error) { color: #c62828; }
:where(.tc-me-badge, .tc-me-note) { font-size: .85em; opacity: .75; }
`;
/**
 * Mount the editor over a host-rendered transcript. Rows are elements
 * inside `root` with `data-seq` (the original event's seq), a
 * `[data-part=body]` child and a `[data-part=actions]` bar.
 */
export async function mountMessageEditor(root, options = {}) {
  const { sessionId, baseURL, fetch: fetchImpl = globalThis.fetch.bind(globalThis) } = options;
  if (!isNode(root) || typeof root.querySelectorAll !== 'function') throw new TypeError('mountMessageEditor: root must be an element');
  if (typeof sessionId !== 'string' || sessionId === '') throw new TypeError('mountMessageEditor: sessionId must be a non-empty string');
  // A lone surrogate has no URL form: it would name another session.
  if (LONE_SURROGATE.test(sessionId)) throw new TypeError('mountMessageEditor: sessionId must not hold a lone surrogate');
  const core = await (options.core ?? sharedCore());
  if (typeof core.editorBoot?.mount !== 'function') throw new Error('tavern-core: this module has no message editor');
  addDefaultStyles(root, WIDGET_CSS);
  const base = baseURL ?? globalThis.location?.href;
  const waiters = new Map();
  const idle = [];
  let inflight = 0;
  let nextToken = 0;
  let destroyed = false;
  let handle;

  // Another tab's edit changes no row of this page, so none of S98's
  // triggers would fire here: an operation that succeeded tells the other
  // editors of the same session on this origin (BroadcastChannel), which
  // read the state again. An untouched draft then follows the message, and
  // a typed one is not saved over the change unseen (msgeditor's base).
  let origin = String(base);
  try { origin = new URL(base).origin; } catch { /* no URL: the base as given names the host */ }
  const key = `${origin}\n${sessionId}`;
  const channel = typeof globalThis.BroadcastChannel === 'function' ? new globalThis.BroadcastChannel(CHANNEL) : null;
  if (channel !== null) {
    channel.unref?.(); // (Node: an editor never destroyed must not keep the process alive)
    channel.onmessage = (e) => {
      if (destroyed || e?.data?.key !== key) return;
      try { check(handle.refresh()); } catch (err) { report(err); }
    };
  }
  const tellOthers = () => {
    try { channel?.postMessage({ key }); } catch { /* a closed channel: nobody to tell */ }
  };

  const settleIdle = () => {
    if (inflight === 0) for (const r of idle.splice(0)) r();
  };
  const fx = {
    // Every request is answered, once: a response whose status or body
    // cannot be read (a connection cut mid-body, a getter that throws, a
    // status that is no HTTP status) is a failed request, as a failed fetch
    // is, so the calls and whenIdle() waiting on it settle.
    request(id, method, path, headers, body) {
      inflight++;
      const answer = (status, text) => {
        inflight--;
        try {
          // Also after destroy(): Go still settles the calls this request
          // carries (it draws and sends nothing more).
          check(handle.response(id, status, text));
        } catch (e) {
          report(e); // (a contained fault: nobody to throw to)
        } finally {
          settleIdle();
        }
      };
      Promise.resolve()
        .then(() => fetchImpl(new URL(path, base).href, { method, headers, body, credentials: 'same-origin', cache: 'no-store' }))
        .then(async (r) => {
          const status = r.status;
          if (!(typeof status === 'number' && Number.isInteger(status) && status >= 100 && status <= 599)) {
            return [0, `the response has no HTTP status (got ${describe(status)})`];
          }
          const text = await r.text();
          return [status, typeof text === 'string' ? text : String(text)];
        })
        .then(([status, text]) => {
          answer(status, text);
          if (method === 'POST' && status === 200) tellOthers();
        }, (err) => answer(0, describe(err?.message ?? err)));
    },
    // The tab's session storage, where the widget keeps typed drafts. The
    // page's hazards stay here: a storage that is off or refused (a
    // sandboxed frame's getter throws SecurityError) or full answers null
    // and keeps nothing, since a throw would unwind through Go's frames.
    storage(op, key, value) {
      try {
        const s = globalThis.sessionStorage;
        if (op === 'get') {
          const v = s.getItem(key);
          return typeof v === 'string' ? v : null;
        }
        if (op === 'set') s.setItem(key, value); else s.removeItem(key);
      } catch { /* drafts are kept only while the page lives */ }
      return null;
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

  // A request the route would refuse as ill-typed (S76, bad-request) is
  // answered here, as the route answers, with nothing sent: no caller's
  // number is coerced into another row's seq, and no claimed length sizes
  // anything. The ids cross as a plain array read once.
  const refused = (message) => Promise.resolve({ ok: false, error: { code: 'bad-request', message } });
  const call = (name, seq, text, hasText, removeAttachments) => {
    if (destroyed) return Promise.reject(new Error('message editor is destroyed'));
    if (typeof seq !== 'number' || !Number.isSafeInteger(seq) || seq < 0) return refused(`seq must be a non-negative integer; got ${typeof seq === 'number' ? String(seq) : typeof seq}`);
    if (hasText && typeof text !== 'string') return refused(`text must be a string; got ${typeof text}`);
    let ids = null;
    if (removeAttachments !== undefined && removeAttachments !== null) {
      const n = Array.isArray(removeAttachments) ? removeAttachments.length : -1;
      if (!(n >= 0 && n <= MAX_REMOVED)) return refused(`removeAttachments must be an array of at most ${MAX_REMOVED} attachment ids`);
      ids = [];
      for (let i = 0; i < n; i++) {
        const id = removeAttachments[i];
        if (typeof id !== 'string') return refused(`removeAttachments[${i}] must be an attachment id (a string); got ${id === null ? 'null' : typeof id}`);
        ids.push(id);
      }
    }
    // Reading the ids may have run page code that destroyed the editor.
    if (destroyed) return Promise.reject(new Error('message editor is destroyed'));
    const token = ++nextToken;
    const done = new Promise((resolve) => waiters.set(token, resolve));
    check(handle.call(name, seq, hasText ? text : undefined, ids, token));
    return done;
  };

  return {
    version: handle.version(),
    refresh() {
      if (!destroyed) check(handle.refresh());
      return this.whenIdle();
    },
    whenIdle() { return inflight === 0 ? Promise.resolve() : new Promise((r) => idle.push(r)); },
    edit(seq, text, { removeAttachments } = {}) { return call('edit', seq, text, true, removeAttachments); },
    undo(seq) { return call('undo', seq, undefined, false, undefined); },
    regenerate(seq, { text, removeAttachments } = {}) {
      return call('regenerate', seq, text, text !== undefined, removeAttachments);
    },
    // Calls in flight are not failed here: the host may still write them,
    // so they settle with its answer when it arrives.
    destroy() {
      if (destroyed) return;
      check(handle.destroy());
      destroyed = true;
      channel?.close();
    },
  };
}

const CHANNEL = 'tavern-core-message-editor';

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

// An element, document or fragment the widget can listen on and observe:
// by the platform's own method where it checks (browsers), and by shape.
function isNode(v) {
  try {
    return v !== null && typeof v === 'object' && globalThis.Node.prototype.contains.call(v, v) === true &&
      typeof v.addEventListener === 'function' && (v.nodeType === 1 || v.nodeType === 9 || v.nodeType === 11);
  } catch { return false; }
}

// A value as text for a message; never throws.
const describe = (v) => textOf(v, 'a value that cannot be shown');

function check(r) {
  if (r && typeof r === 'object' && typeof r.internal === 'string') throw new Error(r.internal);
  return r;
}
