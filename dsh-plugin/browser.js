// The browser half's module: mounts tavern-core's message editor widget on
// DeepSeek Harness's own transcript. The widget (Go, msgeditor) decides
// everything; this file only tells it which harness element is which row.
//
// The harness draws its chat as flow items ([data-chat-flow-key]) inside a
// column ([data-chat-flow]), keyed by its conversation nodes. The current
// session's node store (ctx.sessions.binding(id).session, the face the
// harness gives feature packages) maps each key to the event behind it; the
// adapter writes that seq on the element in the widget's host contract
// (data-seq, data-seq-part, data-part=body/actions; js/message-editor.d.ts):
//
//   user, steering, context  → data-seq = the message's event seq
//   assistant-step           → data-seq = its assistant/message seq
//   tool-call                → data-seq = its tool/result seq
//   turn-tail                → data-seq-part = the turn's closing reply
//                              (its copy/branch/like bar takes the regenerate
//                              button, and it hides with that reply)
//
// Tagging runs once per animation frame after the session list, the node
// store or the DOM changed. The widget's buttons adopt the harness's own
// action-button classes, so they share that bar's geometry and hover (S95).
import { mountMessageEditor } from './lib/message-editor.js';

const STYLE_ID = 'tavern-core-message-editor-style';
/** The mounted editor of the current session, for scripts and tests. */
export const HANDLE_GLOBAL = 'tavernCoreMessageEditor';

const isSeq = (v) => Number.isSafeInteger(v) && v >= 0;

// Row kinds whose content changes say nothing the editor's state does not
// (the model's replies and tools stream; user, steering and context rows
// are the widget's or follow the state).
const OWN_KINDS = new Set(['user', 'steering', 'context', 'assistant-step', 'turn-tail', 'tool-call', 'tool']);

const imageIds = (content) =>
  Array.isArray(content)
    ? content.filter((b) => b?.type === 'image' && b.attachment !== undefined).map((b) => (typeof b.attachment?.attachmentId === 'string' ? b.attachment.attachmentId : undefined))
    : [];

/** Where one harness node lands in the widget's host contract. */
export function rowTag(node) {
  const d = node?.data;
  switch (node?.kind) {
    case 'user':
    case 'steering':
      return { seq: d?.seq, body: true, actions: true, images: imageIds(d?.content) };
    case 'context':
      return { seq: d?.seq };
    case 'assistant-step':
      return { seq: d?.finalNode?.seq };
    // The harness's tool rows are 'tool-call' nodes whose root is the
    // call, then its tool/result (an interrupted call's synthetic result
    // has a fractional seq, no event's: isSeq leaves it untagged).
    case 'tool-call':
    case 'tool':
      return { seq: d?.root?.kind === 'tool-result' ? d.root.seq : undefined };
    case 'turn-tail':
      return { part: d?.closing?.finalNode?.seq, actions: true };
  }
  return {};
}

function setAttr(el, name, value) {
  if (value === undefined) {
    if (el.hasAttribute(name)) el.removeAttribute(name);
  } else if (el.getAttribute(name) !== value) {
    el.setAttribute(name, value);
  }
}

// The harness styles with CSS modules ("<hash>_bubble", "<hash>_actions"):
// the stable half of the class name finds the part. Never one of the
// widget's own elements: its live text adopts the bubble's classes
// (adoptHostLook) and sits before the bubble, so it matched first, took the
// body tag, and the widget drew the row around its own text.
const BUBBLE = '[class*="_bubble"]:not([data-tc-me])';
const ACTIONS = '[class*="_actions"]:not([data-tc-me])';
const GALLERY = '[class*="_gallery"]';

function markPart(el, selector, part) {
  const found = el.querySelector(selector);
  for (const old of el.querySelectorAll(`[data-part="${part}"]`)) if (old !== found) old.removeAttribute('data-part');
  if (found) setAttr(found, 'data-part', part);
}

/** Tag every flow item under root from the session's node store. */
export function tagRows(root, snapshot) {
  const nodes = snapshot?.chat?.nodes;
  for (const el of root.querySelectorAll('[data-chat-flow-key]')) {
    const t = rowTag(nodes?.get(el.getAttribute('data-chat-flow-key')));
    setAttr(el, 'data-seq', isSeq(t.seq) ? String(t.seq) : undefined);
    setAttr(el, 'data-seq-part', isSeq(t.part) ? String(t.part) : undefined);
    if (t.body) markPart(el, BUBBLE, 'body');
    if (t.actions) markPart(el, ACTIONS, 'actions');
    tagImages(el, t.images);
  }
}

// A user row's thumbnails: the harness's gallery holds one child per image
// block, in content order. Each carries its attachment id, so the widget can
// hide the ones an edit removed (the harness keeps drawing the original).
function tagImages(el, ids = []) {
  const children = el.querySelector(GALLERY)?.children ?? [];
  for (let i = 0; i < children.length; i++) setAttr(children[i], 'data-attachment-id', ids[i]);
}

function addClasses(el, from) {
  if (el.hasAttribute('data-tc-adopted') || !from) return;
  for (const c of from.classList) el.classList.add(c);
  el.setAttribute('data-tc-adopted', '');
}

/**
 * Give the widget's elements the harness's own look where it has one: its
 * action-button classes, and a place right after the harness's own buttons
 * (before the bar's trailing time stamp), next to copy / branch / like.
 */
export function adoptHostLook(root) {
  for (const bar of root.querySelectorAll('[data-part=actions]')) {
    const natives = bar.querySelectorAll('button:not([data-tc-me])');
    for (const b of bar.querySelectorAll('button.tc-me-act')) addClasses(b, natives[0]);
    let anchor = natives[natives.length - 1];
    while (anchor && anchor.parentElement !== bar) anchor = anchor.parentElement;
    if (!anchor) continue;
    const ours = [...bar.children].filter((c) => c.hasAttribute('data-tc-me'));
    let at = anchor;
    for (const el of ours) {
      if (at.nextElementSibling !== el) at.after(el);
      at = el;
    }
  }
  for (const body of root.querySelectorAll('[data-part=body]')) {
    const view = body.previousElementSibling;
    if (view?.classList.contains('tc-me-body')) {
      addClasses(view, body);
      const text = view.querySelector('.tc-me-text');
      if (text) addClasses(text, body.firstElementChild);
    }
  }
}

const CSS = `
.tc-me-badge{font-size:12px;opacity:.7;padding:0 4px;align-self:center}
.tc-me-undo{font-size:12px}
.tc-me-card{border:1px solid color-mix(in srgb,currentColor 22%,transparent);border-radius:12px;padding:10px;
  background:var(--color-bg-layer-1,Canvas);color:inherit;display:flex;flex-direction:column;gap:8px;min-width:min(36rem,70vw)}
.tc-me-input{font:inherit;color:inherit;background:transparent;border:0;outline:0;resize:vertical;width:100%;min-height:3.5em}
.tc-me-buttons{display:flex;gap:8px;justify-content:flex-end}
.tc-me-pill{font:inherit;font-size:13px;border-radius:999px;padding:4px 14px;cursor:pointer;
  border:1px solid color-mix(in srgb,currentColor 25%,transparent);background:transparent;color:inherit}
.tc-me-save{color:Canvas;background:CanvasText;border-color:CanvasText}
.tc-me-pill:disabled{opacity:.5;cursor:default}
.tc-me-chips{display:flex;flex-wrap:wrap;gap:6px}
.tc-me-chip{font-size:12px;border-radius:6px;padding:2px 8px;border:1px solid color-mix(in srgb,currentColor 25%,transparent);background:transparent;color:inherit}
button.tc-me-chip{cursor:pointer}
.tc-me-chip.tc-me-marked{text-decoration:line-through;opacity:.6}
.tc-me-error{color:#c62828;font-size:13px}
.tc-me-note{font-size:12px;opacity:.7}
.tc-me-banner{font-size:13px;padding:6px 12px;margin:6px auto;max-width:48rem;border-radius:8px;
  background:color-mix(in srgb,#c62828 10%,transparent)}
`;

function installStyle(doc) {
  if (doc.getElementById(STYLE_ID)) return;
  const style = doc.createElement('style');
  style.id = STYLE_ID;
  style.textContent = CSS;
  doc.head.append(style);
}

/**
 * Start the adapter. `sessions` is the harness's client ctx.sessions face;
 * `boot` the host half's index global ({token, authHeader, ...}). Returns
 * {stop}.
 */
export function start({ sessions, boot, document: doc = globalThis.document }) {
  const authFetch = (url, init = {}) => {
    const headers = new Headers(init.headers);
    headers.set(boot.authHeader, boot.token);
    return fetch(url, { ...init, headers });
  };
  let stopped = false;
  let scheduled = false;
  let sessionId;
  let root = null;
  let face;
  let unsubscribeFace = () => {};
  let editor;
  let generation = 0;
  let observed; // the agent's status and the flow's row keys at the last sync
  // The route answers on one origin only (S85.1), the address dsh web prints.
  // Opened under another name (localhost, a LAN name) every request would be
  // refused with "request host … is not this host": say where to go instead,
  // and send nothing.
  const here = globalThis.location?.origin;
  const elsewhere = typeof boot.origin === 'string' && typeof here === 'string' && boot.origin !== here;
  let notice = null;

  function showElsewhere(flow) {
    if (!flow?.parentNode) return;
    if (!notice) {
      notice = doc.createElement('div');
      notice.className = 'tc-me-banner tc-me-elsewhere';
      notice.setAttribute('role', 'note');
      notice.setAttribute('data-tc-me', '');
      const link = doc.createElement('a');
      const { pathname, search, hash } = globalThis.location;
      link.href = boot.origin + pathname + search + hash;
      link.textContent = boot.origin;
      notice.append('Editing and regenerating messages works at ', link,
        ', the address dsh web printed; this page was opened as ', here, '.');
    }
    if (notice.nextElementSibling !== flow) flow.parentNode.insertBefore(notice, flow);
  }

  const schedule = () => {
    if (scheduled || stopped) return;
    scheduled = true;
    requestAnimationFrame(() => {
      scheduled = false;
      try {
        sync();
      } catch (err) {
        console.error('tavern-core message editor:', err);
      }
    });
  };

  function unmount() {
    generation++;
    if (editor) {
      editor.destroy();
      editor = undefined;
    }
    if (globalThis[HANDLE_GLOBAL]) delete globalThis[HANDLE_GLOBAL];
  }

  function remount(id, nextRoot) {
    unmount();
    observed = undefined;
    unsubscribeFace();
    unsubscribeFace = () => {};
    sessionId = id;
    root = nextRoot;
    face = id === undefined ? undefined : sessions.binding(id)?.session;
    if (face) unsubscribeFace = face.subscribe(schedule);
    if (!face || !root) return;
    tagRows(root, face.getSnapshot());
    const mine = generation;
    mountMessageEditor(root, { sessionId: id, baseURL: globalThis.location.origin, fetch: authFetch })
      .then((e) => {
        if (stopped || mine !== generation) {
          e.destroy();
          return;
        }
        editor = e;
        globalThis[HANDLE_GLOBAL] = e;
      })
      .catch((err) => console.error('tavern-core message editor: could not mount', err));
  }

  function sync() {
    if (stopped) return;
    if (elsewhere) {
      showElsewhere(doc.querySelector('[data-chat-flow]'));
      return;
    }
    const id = sessions.list.getSnapshot()?.current;
    const nextRoot = doc.querySelector('[data-chat-flow]');
    const nextFace = id === undefined ? undefined : sessions.binding(id)?.session;
    if (id !== sessionId || nextRoot !== root || nextFace !== face) remount(id, nextRoot);
    if (!root || !face) return;
    const snapshot = face.getSnapshot();
    tagRows(root, snapshot);
    adoptHostLook(root);
    // The agent went idle or started, or a row the widget does not tag
    // arrived (a compaction, a command) or changed: what may be edited or
    // regenerated may have changed without the tagged rows changing, so the
    // widget reads the route's state again (S98). A command's row keeps its
    // key from start to end ("Compacting context…" becomes "Compacted 4
    // history items", when the rows above leave the model's view), so its
    // text counts too; the rows that stream (replies, tools) count by key
    // only, or every token would read the state again.
    const keys = [...root.querySelectorAll('[data-chat-flow-key]')].map((el) => {
      const key = el.getAttribute('data-chat-flow-key');
      if (OWN_KINDS.has(el.getAttribute('data-chat-flow-kind'))) return key;
      const text = el.textContent ?? '';
      return `${key} ${text.length} ${text.slice(0, 80)}`;
    }).join('\n');
    const seen = `${snapshot?.running}|${keys}`;
    if (editor && observed !== undefined && seen !== observed) editor.refresh();
    observed = seen;
  }

  installStyle(doc);
  const unsubscribeList = sessions.list.subscribe(schedule);
  const observer = new MutationObserver(schedule);
  observer.observe(doc.body, { childList: true, subtree: true });
  schedule();

  return {
    stop() {
      stopped = true;
      observer.disconnect();
      unsubscribeList();
      unsubscribeFace();
      unmount();
      notice?.remove();
      doc.getElementById(STYLE_ID)?.remove();
    },
  };
}
