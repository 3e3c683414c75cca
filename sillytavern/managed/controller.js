// Managed mode for vanilla SillyTavern: #chat as a bounded projection of
// chat[], driven by tavern-core's chat-surface host (createChatSurfaceHost,
// rules C1–C148), while SillyTavern's own code keeps writing to #chat the
// way it always does.
//
// The mechanism (docs/sillytavern-managed.md has the full account):
//
// - Materialisation goes through SillyTavern's own renderer
//   (updateMessageElement, i.e. what addOneMessage uses), so every mounted
//   message is exactly the element SillyTavern would have drawn, with its
//   buttons, avatar, swipe counter, media and reasoning block.
// - SillyTavern cannot be stopped from writing to #chat (an extension cannot
//   rebind script.js's functions), so its writes are *absorbed*: one
//   MutationObserver, created before the host's own, sees every change of
//   #chat's children and of message contents. At the next microtask (and
//   before any host call or host frame) the controller puts the DOM back to
//   the host's committed projection by reverse-applying the records, then
//   tells the host what happened in host terms: a structural render()
//   (adopting the element SillyTavern rendered for a new message as its
//   root), updateContent() for a re-rendered message, updateContent(…,
//   {transient: true}) plus SillyTavern's own nodes put back for a message
//   being edited, streamed or swiped, finishContent() when that ends, and
//   setProjectionHeld() while an editor is open. The host therefore never
//   sees a DOM it did not commit (C79, C45), and SillyTavern's synchronous
//   code always sees the DOM it just wrote.
// - SillyTavern's own chat switch (clearChat + printMessages) ends the epoch;
//   CHAT_CHANGED opens the next one.
//
// This module only drives the host; every windowing, lease and admission
// decision stays in Go. It reaches SillyTavern only through the `st` adapter
// (st-adapter.js in the page, a fake in the tests).

const SPACER = 'TT-CHAT-SPACER';
const isMes = (n) => n.nodeType === 1 && n.classList.contains('mes');

// SillyTavern's decorations of message content (highlight.js and the copy
// button on code blocks) are applied while content is prepared, before any
// other participant sees it, as SillyTavern applies them before extensions
// see a rendered message. One participant per API (registration is
// page-wide and closes at the first projection, C17); it serves the latest
// controller.
const decorated = new WeakSet();
const decorator = {
  st: null,
  participant: {
    id: 'tavern-core/sillytavern',
    protocolVersion: 1,
    prepareContent({ content }) {
      if (content.querySelector('pre code:not([data-highlighted])')) decorator.st?.decorate(content);
    },
  },
};
const STYLE_ID = 'tavern-core-managed-style';
const EDITOR = '.edit_textarea, .reasoning_edit_textarea';
const POLL_MS = 120;
// <body> classes SillyTavern toggles that change no computed length, and
// the variables of <html>'s inline style that do (its font scale and chat
// width sliders; see the appearance observer).
const INERT_CLASSES = new Set(['hideAllSwipeButtons']);
const LENGTH_VARS = ['--fontScale', '--mainFontSize', '--sheldWidth'];
// A fault is recovered from at most once in this long (faulted()).
const RECOVER_MS = 5000;
const isProcessorFailure = (e) => String(e?.message).startsWith('ChatSurface content processor ');
// How long SillyTavern's own print may stand unmanaged after a clear that no
// CHAT_CHANGED follows (clear()).
const RESUME_MS = 1000;

/**
 * @param {object} o
 * @param {object} o.st SillyTavern adapter (see st-adapter.js for the members)
 * @param {HTMLElement} o.root #chat
 * @param {object} o.api the installed chat-surface API (managed)
 * @param {Function} o.createHost createChatSurfaceHost
 * @param {Function} [o.onFault] called with the host's fault
 * @param {number} [o.runtimeLimit]
 * @param {object} [o.scheduler] requestAnimationFrame, cancelAnimationFrame, setTimeout, clearTimeout
 *   (default: the page's)
 */
export function createManagedChat({ st, root, api, createHost, onFault, runtimeLimit, scheduler = globalThis }) {
  const raf = (cb) => scheduler.requestAnimationFrame.call(globalThis, cb);
  const caf = (id) => scheduler.cancelAnimationFrame.call(globalThis, id);
  const later = (cb, ms) => scheduler.setTimeout.call(globalThis, cb, ms);
  const unlater = (id) => scheduler.clearTimeout.call(globalThis, id);
  let host = null;
  // stopped: resetEpoch failed, as it will for the rest of the page (C108):
  // no epoch can open again.
  let state = 'idle'; // idle | open | faulted | stopped
  let syncing = false;
  let inHost = 0; // >0 while a host call or host frame runs
  let held = false;
  const adopt = new Map(); // message object → the .mes SillyTavern rendered for it
  const transient = new Set(); // message objects this controller marked transient
  let mirror = { count: 0, els: [], objs: [], mesids: [] }; // the committed projection, as last read
  let newly = []; // mesids materialised during the current host call
  let pollId = 0;
  let resumeArmed = false; // a clear that CHAT_CHANGED has not followed yet (clear())
  let resumeId = 0;
  const stats = { absorbed: 0, undone: 0, adopted: 0, rendered: 0, contentUpdates: 0, transients: 0, finishes: 0,
    resyncs: 0, clears: 0, resumes: 0, opens: 0, maxMes: 0, lastError: null, layoutRefreshes: 0, recoveries: 0, editorsLost: 0,
    // Where time goes (performance.now): SillyTavern's renderer, the fix-ups
    // after host writes, and host frames in total.
    renderMs: 0, frameMs: 0, fixupMs: 0, frames: 0 };
  const now = () => globalThis.performance?.now() ?? 0;

  // Before the host exists: our observer must be notified before the host's
  // own (observers are notified in creation order), so that the DOM is back
  // to the committed projection when the host's observer compares it (C79).
  const mo = new MutationObserver((records) => {
    if (syncing) return;
    if (state === 'open') absorb(records);
    else if (resumeArmed && records.some((r) => r.target === root && [...r.addedNodes].some(isMes))) armResume();
  });
  mo.observe(root, { childList: true, subtree: true, attributes: true, attributeFilter: ['mesid', 'is_system'], attributeOldValue: true });

  decorator.st = st;
  if (!decorated.has(api)) {
    decorated.add(api);
    api.registerParticipant(decorator.participant);
  }

  const doc = root.ownerDocument;
  installStyle();

  // SillyTavern's appearance settings (chat style, avatars, timestamps, a
  // theme's or the user's custom CSS) change <body>'s classes or <head>'s
  // styles and tell no one. The host keeps computed margins, padding and gaps
  // until refreshLayout() (docs/chatsurface.md, "Computed styles"), so a
  // bubble-chat switch left every measured message at its old margins: a
  // change there asks for one, at most once per frame, while an epoch is open.
  // Not every write there is one: SillyTavern toggles hideAllSwipeButtons on
  // <body> at every generation's start and end (refreshSwipeButtons), and
  // writes CSS variables into <html>'s inline style for every swipe's
  // animation; of <html>'s variables only the font scale and the chat width
  // change lengths (an independent tester's custom CSS in em or % stopped
  // 12–53 px short of the end after those sliders).
  let looksId = 0;
  const html = doc.documentElement;
  const lengthVars = () => LENGTH_VARS.map((v) => html.style.getPropertyValue(v)).join('\n');
  let htmlVars = lengthVars();
  const classes = (v) => new Set(String(v ?? '').split(/\s+/).filter(Boolean));
  const changesLooks = (r) => {
    if (r.target === html) {
      const now = lengthVars();
      if (now === htmlVars) return false;
      htmlVars = now;
      return true;
    }
    if (r.target !== doc.body || r.attributeName !== 'class') return true;
    const was = classes(r.oldValue);
    const is = classes(doc.body.className);
    for (const c of is) if (!was.has(c) && !INERT_CLASSES.has(c)) return true;
    for (const c of was) if (!is.has(c) && !INERT_CLASSES.has(c)) return true;
    return false;
  };
  const looks = new MutationObserver((records) => {
    let changed = false;
    for (const r of records) if (changesLooks(r)) changed = true; // (each read: htmlVars stays current)
    if (!changed) return;
    if (looksId !== 0 || state !== 'open') return;
    looksId = raf(() => {
      looksId = 0;
      if (state !== 'open' || host === null) return;
      stats.layoutRefreshes++;
      try { refreshLayout(); } catch (e) { stats.lastError = e; } // (a faulted epoch reports itself)
    });
  });
  if (doc.body) looks.observe(doc.body, { attributes: true, attributeFilter: ['class', 'style'], attributeOldValue: true });
  if (doc.head) looks.observe(doc.head, { childList: true, subtree: true, characterData: true, attributes: true });
  looks.observe(html, { attributes: true, attributeFilter: ['style'] });

  function installStyle() {
    if (doc.getElementById(STYLE_ID)) return;
    const style = doc.createElement('style');
    style.id = STYLE_ID;
    // Spacers are flex items of SillyTavern's column-flex #chat: they must not
    // shrink, or the scroll height would lie. The chat surface's own default
    // says the same at zero specificity (chat-surface-dom.js, spacerDefaults);
    // this rule's id selector holds against a theme's rules for #chat's children.
    style.textContent = '#chat > tt-chat-spacer { display: block; flex: none; }';
    doc.head.append(style);
  }

  // ---- the host ----
  function ensureHost() {
    if (host) return host;
    if (state === 'stopped') throw new Error('tavern-core managed mode has stopped for this page; reload it to use managed mode again');
    const wrapFrame = (cb) => (...a) => {
      const t = now();
      beforeHost();
      inHost++;
      try { cb(...a); } finally {
        inHost--;
        afterHost();
        stats.frames++;
        stats.frameMs += now() - t;
      }
    };
    host = createHost({
      root,
      getMessages: () => st.chat(),
      materialize,
      formatMessage: (m, mesid) => st.formatMessage(m, mesid),
      emit: (event, ...args) => st.emit(event, ...args),
      managed: true,
      runtimeLimit,
      onFault: faulted,
      requestAnimationFrame: (cb) => raf(wrapFrame(cb)),
      cancelAnimationFrame: caf,
      setTimeout: (cb, ms) => later(wrapFrame(cb), ms),
      clearTimeout: unlater,
    });
    return host;
  }

  // A call into the host from this controller.
  function call(fn) {
    inHost++;
    try { return fn(); } finally { inHost--; afterHost(); }
  }

  function materialize(message, mesid) {
    let el = adopt.get(message);
    if (el !== undefined && el.parentNode === null) {
      adopt.delete(message);
      stats.adopted++;
    } else {
      const t = now();
      el = st.renderMessage(message, mesid);
      st.restoreView(el, message, mesid); // what vanilla's one element per message would still show (view-state.js)
      stats.rendered++;
      stats.renderMs += now() - t;
    }
    // C30: the content the host receives is exactly formatMessage's HTML.
    // SillyTavern's renderer also decorates code blocks; prepared content is
    // decorated again by the decorator participant (top of this file), after
    // any content processor ran.
    const content = el.querySelector('.mes_text');
    if (content !== null && !transient.has(message) && content.querySelector('pre code') !== null) {
      const t = now();
      content.innerHTML = st.formatMessage(message, mesid);
      stats.renderMs += now() - t;
    }
    newly.push(mesid);
    return el;
  }

  function beforeHost() {
    if (inHost === 0 && !syncing) {
      const recs = mo.takeRecords();
      if (recs.length) absorb(recs);
    }
  }

  // After the host wrote: its own records are not foreign; then the
  // SillyTavern fix-ups that depend on which roots are mounted.
  function afterHost() {
    if (inHost !== 0) return;
    mo.takeRecords();
    const before = mirror;
    readMirror();
    if (state === 'open') {
      const t = now();
      fixups(before, mirror);
      stats.fixupMs += now() - t;
    }
    mo.takeRecords();
  }

  function readMirror() {
    const chat = st.chat();
    const els = [];
    const objs = [];
    const mesids = [];
    for (const el of root.children) {
      if (isMes(el)) {
        const i = Number(el.getAttribute('mesid'));
        els.push(el);
        mesids.push(i);
        objs.push(chat[i]);
      }
    }
    mirror = { count: chat.length, els, objs, mesids };
    stats.maxMes = Math.max(stats.maxMes, els.length);
  }

  // SillyTavern invariants that its own code keeps by rendering in place.
  let pins = null; // whether message 0 was mounted at the last applyStylePins
  function fixups(before, after) {
    const added = newly;
    newly = [];
    if (added.length) st.tagMessages(added);
    const tail = after.els.at(-1);
    const contiguous = after.mesids.length < 2 || after.mesids.at(-1) - after.mesids[0] === after.mesids.length - 1;
    const wasContiguous = before.mesids.length < 2 || before.mesids.at(-1) - before.mesids[0] === before.mesids.length - 1;
    // refreshSwipeButtons numbers roots from the first one: it is right only
    // while the mounted roots are one contiguous range. When they are not,
    // the tail is off screen, and it is refreshed once they are again.
    if (contiguous && (tail !== before.els.at(-1) || !wasContiguous || added.length)) st.refreshSwipes();
    // applyStylePins copies message 0's <style> blocks while message 0 is not
    // shown: it depends only on that (and formats message 0, so not per frame).
    const zeroIn = after.mesids[0] === 0;
    if (after.els.length && (pins !== zeroIn)) {
      pins = zeroIn;
      st.stylePins();
    }
    if (held) st.editArrows();
  }

  // ---- absorbing SillyTavern's writes ----
  function rootOf(node) {
    let n = node;
    while (n !== null && n.parentNode !== root) n = n.parentNode;
    return n !== null && isMes(n) ? n : null;
  }
  const contentOf = (r) => r.querySelector('.mes_text');
  const isSpacer = (n) => n.nodeName === SPACER;
  const isPins = (n) => n.nodeType === 1 && n.classList.contains('style-pins');

  function absorb(records) {
    if (state !== 'open' || syncing) return;
    syncing = true;
    try {
      absorbOpen(records);
    } catch (e) {
      stats.lastError = e;
      resync(e);
    } finally {
      syncing = false;
    }
  }

  function absorbOpen(records) {
    const committed = new Set(mirror.els);
    const undo = [];
    const touched = new Map(); // committed root → its content element, for wholesale content writes
    const added = new Set();
    let structural = false;
    let cleared = false;
    let reprinted = false; // printMessages ran without a clear (it adds #show_more_messages)
    const lost = new Map(); // mesid → object, for each committed root removed
    const hidden = new Set(); // committed roots whose is_system SillyTavern set (/hide, the eye button)
    let prepended = Infinity;
    for (const r of records) {
      if (r.type === 'attributes') {
        if (r.attributeName === 'is_system') {
          if (committed.has(r.target)) hidden.add(r.target);
          continue;
        }
        if (r.target.parentNode === root && r.target.getAttribute('mesid') !== r.oldValue) { structural = true; undo.push(r); }
        continue;
      }
      if (r.target === root) {
        const relevant = [...r.addedNodes, ...r.removedNodes].some((n) => !isPins(n));
        if (!relevant) continue; // SillyTavern's .style-pins may come and go (C76)
        structural = true;
        undo.push(r);
        for (const n of r.removedNodes) {
          if (isSpacer(n)) cleared = true;
          else if (committed.has(n)) {
            const k = mirror.els.indexOf(n);
            lost.set(mirror.mesids[k], mirror.objs[k]);
          }
        }
        for (const n of r.addedNodes) {
          if (n.nodeType === 1 && n.id === 'show_more_messages') reprinted = true;
          if (isMes(n) && !committed.has(n)) {
            added.add(n);
            // Messages rendered above the first mounted one: showMoreMessages.
            const id = Number(n.getAttribute('mesid'));
            if (id < (mirror.mesids[0] ?? 0)) prepended = Math.min(prepended, id);
          }
        }
        continue;
      }
      // Inside a message: only writes that replace a committed root's
      // content children matter (C45); deeper edits and decorations do not.
      const rr = rootOf(r.target);
      if (rr === null || !committed.has(rr)) continue;
      const content = contentOf(rr);
      if (r.target !== content) continue;
      const obj = mirror.objs[mirror.els.indexOf(rr)];
      if (transient.has(obj)) { touched.set(rr, content); continue; }
      for (const n of r.addedNodes) added.add(n);
      if ([...r.removedNodes].some((n) => !added.has(n)) || r.addedNodes.length) {
        touched.set(rr, content);
        undo.push(r);
      }
    }
    if (!undo.length && !touched.size && !structureChanged()) {
      rerequest(hidden);
      settle();
      return;
    }
    stats.absorbed++;
    // SillyTavern's state after its writes, to put back where it is the owner.
    const stRoot = [...root.childNodes];
    const stContent = new Map();
    for (const [rr, content] of touched) stContent.set(rr, { nodes: [...content.childNodes], focus: focusIn(content) });
    const chat = st.chat();
    // A committed root SillyTavern replaced by its own new element for the
    // same message (/message-role, /message-name, an extension re-rendering
    // one): the host would keep its root, so it remounts that mesid with
    // SillyTavern's element (C93's replace).
    const replace = [];
    for (const n of added) {
      if (isMes(n) && n.parentNode === root) {
        const id = Number(n.getAttribute('mesid'));
        const m = chat[id];
        if (m !== undefined) adopt.set(m, n);
        if (m !== undefined && lost.get(id) === m) replace.push(id);
      }
    }
    // printMessages without a clear (an extension after changing chat[] in
    // place) re-renders the messages vanilla shows: every mounted one here.
    if (reprinted) replace.push(...mirror.mesids);
    // SillyTavern's clearChat removes every child of #chat, spacers included.
    // In a view without spacers it shows as every committed root gone while
    // chat[] still holds the chat: deleting every message empties chat[]
    // first, and a first message appended to an empty view removes nothing.
    // Both stay in the epoch (a render of what chat[] now holds).
    if (lost.size > 0 && chat.length > 0 && ![...root.childNodes].some((n) => committed.has(n))) cleared = true;
    undoRecords(undo);
    if (cleared) {
      clear(stRoot);
      return;
    }
    const h = ensureHost();
    if (structural || structureChanged()) {
      // A new message SillyTavern is still writing mounts as transient (C56).
      const tail = chat.length - 1;
      const grew = chat.length > mirror.count;
      const oldTail = mirror.objs.at(-1);
      if (tail >= 0 && st.busy(tail, null) && !transient.has(chat[tail])) markTransient(tail);
      call(() => (replace.length ? h.render({ replace }) : h.render()));
      // A new last message scrolls to the end, as vanilla's addOneMessage
      // does; a message inserted above it (a copy, /sendas at=) does not.
      // Nor does anything while an editor is open: the end would unmount the
      // message being edited, and the user's text with it (vanilla keeps
      // every message it scrolls past). The end button shows instead.
      if (grew && chat[tail] !== oldTail && mirror.objs.at(-1) === chat[tail] && st.autoScroll() && !editorWouldLeave()) {
        call(() => h.scrollToEnd());
      }
      if (Number.isFinite(prepended) && !held && prepended < chat.length) call(() => h.jumpToMessage(prepended));
    }
    for (const [rr, saved] of stContent) {
      const k = mirror.els.indexOf(rr);
      if (k < 0) continue; // remounted by the structural render
      const mesid = mirror.mesids[k];
      const obj = mirror.objs[k];
      const editing = saved.nodes.some((n) => n.nodeType === 1 && (n.matches(EDITOR) || n.querySelector(EDITOR)));
      if (editing || st.busy(mesid, rr)) {
        if (!transient.has(obj)) {
          markTransient(mesid);
          redo(rr, saved);
        }
      } else if (transient.has(obj)) {
        finish(mesid, obj);
      } else {
        stats.contentUpdates++;
        call(() => h.updateContent(mesid));
      }
      hidden.delete(rr); // (updated above)
    }
    rerequest(hidden);
    settle();
    adopt.clear();
    mo.takeRecords();
  }

  // SillyTavern's hide (hideChatMessageRange) sets chat[i].is_system and the
  // root's attribute, and tells no one. is_system is part of a message's
  // version (C121): a processor request still running for it would fail
  // C119's check when it settles and fault the epoch. The host's edit must
  // supersede it (updateContent, C119); a message already prepared keeps its
  // content (its next materialisation sees the new version, C122).
  function rerequest(roots) {
    for (const rr of roots) {
      const k = mirror.els.indexOf(rr);
      if (k < 0 || transient.has(mirror.objs[k])) continue;
      if (contentOf(rr)?.getAttribute('aria-busy') !== 'true') continue;
      const mesid = mirror.mesids[k];
      call(() => host.updateContent(mesid));
    }
  }

  function undoRecords(list) {
    for (let i = list.length - 1; i >= 0; i--) {
      const r = list[i];
      if (r.type === 'attributes') {
        if (r.oldValue === null) r.target.removeAttribute('mesid');
        else r.target.setAttribute('mesid', r.oldValue);
        continue;
      }
      for (let k = r.addedNodes.length - 1; k >= 0; k--) {
        const n = r.addedNodes[k];
        if (n.parentNode === r.target) r.target.removeChild(n);
      }
      const before = r.nextSibling !== null && r.nextSibling.parentNode === r.target ? r.nextSibling
        : r.previousSibling !== null && r.previousSibling.parentNode === r.target ? r.previousSibling.nextSibling
          : r.previousSibling === null ? r.target.firstChild : null;
      for (const n of r.removedNodes) r.target.insertBefore(n, before);
    }
    stats.undone += list.length;
  }

  function focusIn(el) {
    const a = el.ownerDocument.activeElement;
    if (a === null || !el.contains(a)) return null;
    const f = { el: a };
    if (typeof a.selectionStart === 'number') {
      f.start = a.selectionStart; f.end = a.selectionEnd; f.dir = a.selectionDirection; f.top = a.scrollTop;
    }
    return f;
  }

  // Put SillyTavern's own nodes back into a message the host now holds as
  // transient raw content (C55): they are what SillyTavern is editing or
  // streaming into.
  function redo(rr, saved) {
    const content = contentOf(rr);
    content.replaceChildren(...saved.nodes);
    const f = saved.focus;
    if (f !== null && f.el.isConnected) {
      f.el.focus({ preventScroll: true });
      if (f.start !== undefined) { f.el.setSelectionRange(f.start, f.end, f.dir); f.el.scrollTop = f.top; }
    }
    mo.takeRecords();
  }

  function markTransient(mesid) {
    const obj = st.chat()[mesid];
    transient.add(obj);
    stats.transients++;
    call(() => host.updateContent(mesid, { transient: true }));
  }

  function finish(mesid, obj) {
    transient.delete(obj);
    stats.finishes++;
    let p;
    call(() => { p = host.finishContent(mesid); });
    p.catch(() => {}); // a failure faults the epoch and reaches onFault
  }

  // Transient messages whose editing, streaming or swiping is over get their
  // final content; the editor hold follows the DOM.
  function settle() {
    const chat = st.chat();
    for (const obj of [...transient]) {
      const k = mirror.objs.indexOf(obj);
      if (k < 0) {
        const i = chat.indexOf(obj);
        transient.delete(obj);
        if (i >= 0) call(() => host.updateContent(i, { transient: false }));
        continue;
      }
      const rr = mirror.els[k];
      if (rr.querySelector(EDITOR) === null && !st.busy(mirror.mesids[k], rr)) finish(mirror.mesids[k], obj);
    }
    const edRoot = editorRoot();
    const h = edRoot !== null;
    if (h !== held) {
      held = h;
      call(() => host.setProjectionHeld(h));
    }
    editorLost(edRoot);
    poll();
  }

  // The mounted root holding an open editor, or null.
  function editorRoot() {
    const ed = root.querySelector(`:scope > .mes :is(${EDITOR})`);
    if (ed === null) return null;
    let el = ed;
    while (el.parentNode !== root) el = el.parentNode;
    return el;
  }

  // Whether the end would take the view away from an open editor: the end
  // mounts the last message with the window above it, so only an editor on
  // the last message is sure to stay.
  function editorWouldLeave() {
    const el = editorRoot();
    return el !== null && Number(el.getAttribute('mesid')) !== st.chat().length - 1;
  }

  // SillyTavern's message editor is one page-wide state (the message being
  // edited) over that message's element. If the element leaves the DOM while
  // the message stays in chat[] (the host remounted it under a new mesid, or
  // a commit this controller could not hold moved the window away), the
  // editor is gone, but SillyTavern would still take the message for being
  // edited: its next edit "saved" it from whatever its element then showed
  // (markdown lost), or threw for a message with no element. So the edit is
  // ended for it, as its cancel would, and the user is told. A deleted
  // message needs nothing: SillyTavern ends the edit itself.
  let editing = null; // { el, obj, text: whether SillyTavern's message editor (not the reasoning's) was open }
  function editorLost(edRoot) {
    const was = editing;
    editing = null;
    if (edRoot !== null) {
      editing = { el: edRoot, obj: st.chat()[Number(edRoot.getAttribute('mesid'))], text: edRoot.querySelector('.edit_textarea') !== null };
    }
    if (was === null || was.el === edRoot || was.el.isConnected || !was.text) return;
    const mesid = st.chat().indexOf(was.obj);
    if (mesid < 0) return;
    stats.editorsLost++;
    st.editorLost(mesid);
  }

  // A swipe or a generation can end without writing #chat; while a message
  // is transient for one of those, look again every few frames. (An editor
  // always ends with a write, which the observer sees.) A plain page timer:
  // this is the controller's own clock, not the host's (C10).
  function poll() {
    if (pollId !== 0) return;
    const waiting = mirror.objs.some((o, k) => transient.has(o) && mirror.els[k].querySelector(EDITOR) === null);
    if (waiting) pollId = setTimeout(() => { pollId = 0; sync(); }, POLL_MS);
  }

  function structureChanged() {
    const chat = st.chat();
    if (chat.length !== mirror.count) return true;
    for (let k = 0; k < mirror.objs.length; k++) if (chat[mirror.mesids[k]] !== mirror.objs[k]) return true;
    return false;
  }

  // SillyTavern cleared #chat (a chat switch, a reload): the epoch ends and
  // the DOM is SillyTavern's until CHAT_CHANGED opens the next one. Some
  // of SillyTavern's clears are followed by its own print and no
  // CHAT_CHANGED (a character's edited greeting re-rendered, an assistant
  // note imported, a group deleted): once it has printed messages and no
  // CHAT_CHANGED came for RESUME_MS, an epoch opens over what it printed.
  function clear(stRoot) {
    stats.clears++;
    reset();
    root.replaceChildren(...stRoot.filter((n) => !isSpacer(n)));
    mo.takeRecords();
    resumeArmed = true;
    if ([...root.children].some(isMes)) armResume();
  }

  function armResume() {
    if (resumeId !== 0) unlater(resumeId);
    resumeId = later(resume, RESUME_MS);
  }

  function disarmResume() {
    resumeArmed = false;
    if (resumeId !== 0) unlater(resumeId);
    resumeId = 0;
  }

  function resume() {
    resumeId = 0;
    if (!resumeArmed || state !== 'idle' || syncing) return;
    resumeArmed = false;
    stats.resumes++;
    syncing = true;
    try {
      mo.takeRecords();
      openEpoch()?.catch((e) => { stats.lastError = e; onFault?.(e); });
    } catch (e) {
      faulted(e);
    } finally {
      syncing = false;
    }
  }

  // The bounded view stopped (C106); a controller that stopped for the page
  // stays stopped.
  //
  // A content processor's failure faults the epoch (C127): the view stops,
  // messages still pending stay blank, until the next chat switch. The
  // failure may be SillyTavern's own doing (its /hide changes a message that
  // is not mounted and tells no one, so a request still running for it fails
  // C119's check) or a processor's passing trouble (a network error): the
  // view reopens once at the same place. A processor failing again within
  // RECOVER_MS leaves the epoch faulted, as any other fault does.
  let recoveredAt = -Infinity;
  function faulted(e) {
    if (state !== 'stopped') state = 'faulted';
    stats.lastError = e;
    const recover = state === 'faulted' && isProcessorFailure(e) && now() - recoveredAt > RECOVER_MS;
    onFault?.(e, { recovering: recover });
    if (!recover) return;
    recoveredAt = now();
    later(() => {
      if (state !== 'faulted') return;
      stats.recoveries++;
      syncing = true;
      try {
        resync(e)?.catch(() => {}); // (a failure of the new epoch reaches onFault)
      } finally {
        syncing = false;
      }
    }, 0);
  }

  function reset() {
    pins = null;
    transient.clear();
    adopt.clear();
    held = false;
    editing = null;
    if (host !== null) {
      try {
        call(() => host.resetEpoch()); // throws a participant fault (C107): the caller reports it
      } catch (e) {
        state = 'stopped';
        throw e;
      }
    }
    state = 'idle';
    mirror = { count: 0, els: [], objs: [], mesids: [] };
  }

  // The last resort when absorbing failed: a new epoch at the same place.
  // It adopts the elements mounted now whose message the mirror says is
  // still at their mesid (their attributes may be stale: absorbing failed),
  // and what was transient (an edit, a stream) stays transient, so an open
  // editor keeps its text and the hold.
  function resync(cause) {
    stats.resyncs++;
    console.error('[tavern-core] managed #chat: resynchronising after', cause);
    const mid = mirror.mesids.length >> 1;
    let anchor = mirror.mesids.length ? mirror.mesids[mid] : null;
    const anchorObj = mirror.objs[mid];
    // Elements whose message is still at their mesid: a shifted one is
    // rendered afresh, as absorbing would have (C28), and an editor in it
    // ends (SillyTavern's edit names the old mesid).
    const chatNow = st.chat();
    const known = new Map();
    mirror.els.forEach((el, k) => { if (chatNow[mirror.mesids[k]] === mirror.objs[k]) known.set(el, mirror.objs[k]); });
    const carry = new Set(transient);
    // SillyTavern's edit outlives the epoch (unlike at a chat switch, where
    // it ends the edit itself): if the new epoch does not adopt the edited
    // element, settle() ends the edit (editorLost).
    const ed = editing;
    try {
      reset();
      editing = ed;
      const at = anchorObj === undefined ? -1 : chatNow.indexOf(anchorObj);
      if (at >= 0) anchor = at;
      const p = openEpoch(anchor, known, carry);
      // open() and the jump commit synchronously (C130): the new epoch's
      // roots are in place, the edited one adopted with its editor (held
      // again) or not (the edit ends).
      try {
        settle();
      } catch (e) {
        p?.catch(() => {});
        throw e;
      }
      return p;
    } catch (e) {
      faulted(e);
      return undefined;
    }
  }

  // A new epoch over what SillyTavern just printed (CHAT_CHANGED), whose
  // elements are for the messages at their mesids; or, from resync(), over
  // the elements `known` maps to their messages, with the messages of
  // `carry` transient again.
  function openEpoch(jumpTo = null, known = null, carry = null) {
    const chat = st.chat();
    // (The reset before a resync unmounted the known elements.)
    if (known !== null) for (const [el, m] of known) if (el.parentNode === null) adopt.set(m, el);
    for (const el of [...root.children]) {
      if (isMes(el)) {
        const m = known !== null ? known.get(el) : chat[Number(el.getAttribute('mesid'))];
        if (m !== undefined) adopt.set(m, el);
        el.remove();
      } else if (!isPins(el)) {
        el.remove(); // #show_more_messages (C77) and anything else SillyTavern left
      }
    }
    mo.takeRecords();
    const h = ensureHost();
    state = 'open';
    stats.opens++;
    const tail = chat.length - 1;
    if (tail >= 0 && st.busy(tail, null)) markTransient(tail);
    if (carry !== null) {
      for (const m of carry) {
        const i = transient.has(m) ? -1 : chat.indexOf(m);
        if (i >= 0) markTransient(i);
      }
    }
    let p;
    call(() => { p = h.open(); });
    if (jumpTo !== null && jumpTo < chat.length) call(() => h.jumpToMessage(jumpTo));
    adopt.clear();
    return p;
  }

  function refreshLayout() { sync(); call(() => ensureHost().refreshLayout()); }

  function sync() {
    if (syncing) return;
    const recs = mo.takeRecords();
    if (state !== 'open') return;
    if (recs.length || structureChanged() || transient.size) absorb(recs);
  }

  return {
    /** SillyTavern printed a chat (CHAT_CHANGED): end the epoch, open the next. */
    chatChanged(chatId) {
      if (state === 'stopped') return undefined;
      disarmResume();
      syncing = true;
      try {
        if (state === 'open') absorbOpen(mo.takeRecords());
        reset();
        if (chatId === undefined || chatId === null) return undefined;
        return openEpoch();
      } finally {
        syncing = false;
      }
    },
    /** Absorb pending writes now (SillyTavern events call this). */
    sync,
    jumpToMessage(mesid) { sync(); return call(() => ensureHost().jumpToMessage(mesid)); },
    /**
     * To the end of the chat, following it; false (and nothing moves) while
     * an open editor would leave the view (C96's hold, as jumpToMessage's).
     */
    scrollToEnd() {
      sync();
      if (state === 'open' && editorWouldLeave()) return false;
      call(() => ensureHost().scrollToEnd());
      return true;
    },
    refreshLayout,
    get host() { return host; },
    get state() { return state; },
    stats,
    dispose() {
      mo.disconnect();
      looks.disconnect();
      if (looksId !== 0) caf(looksId);
      if (pollId) clearTimeout(pollId);
      disarmResume();
      const h = host;
      host = null;
      state = 'stopped';
      h?.dispose();
    },
  };
}
