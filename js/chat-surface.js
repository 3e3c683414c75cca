// The chat surface (spec/chatsurface.md): `installChatSurfaceApi` for the
// frozen `window.__TAURITAVERN__.api.chatSurface`, and `createChatSurfaceHost`
// for the host page. Importable on its own (top-level await on the shared
// core). Every rule lives in Go (chatsurface/, wasm/browser/chatsurface.go);
// this file converts values, keeps the message-id WeakMap (C4), holds the JS
// values Go names by ref, creates AbortControllers, frozen contexts and
// Error objects, and runs frames and timers through the host's scheduler.
import { sharedCore } from './core.js';
// core.js's own imports, named here too: a browser asks for a module's
// imports only once it has the module, so the page gets the whole graph in
// two round trips instead of three, and the wasm fetch starts one sooner.
import './go-runtime.js';
import './takeover-api.js';
import './editor-ops-api.js';
import './takeover-host-api.js';
import { kindOf, textOf, reportToPage } from './codec.js';
import { allOrNothing } from './all-or-nothing.js';
import * as DOM from './chat-surface-dom.js';
import { SURFACE_EVENT as EVENT, SURFACE_OP as OP, SURFACE_START as START, CLASS, SURFACE_LIMIT, RESULT, RESULT_LAYOUT, VERSION_READ as VERSION, CLAIM, PROCESSOR_RESULT } from './protocol.js';

const core = await sharedCore();
const fx = core.surface; // the effects object Go filled with its entry points
const { FAIL, INTERNAL } = fx;
const ERRORS = { [CLASS.PLAIN_ERROR]: Error, [CLASS.TYPE_ERROR]: TypeError, [CLASS.RANGE_ERROR]: RangeError };

// ---- errors Go hands over ----
let pending; // the error Go asked to throw
fx.fail = (v) => { pending = v; };
function check(r) {
  if (r === FAIL) { const e = pending; pending = undefined; throw e; }
  if (r === INTERNAL) throw core.takeError({ internal: Error });
  return r;
}
fx.makeError = (cls, addr, n, hasCause, cause) => {
  const Ctor = ERRORS[cls] ?? Error;
  const msg = core.string(addr, n);
  return hasCause ? new Ctor(msg, { cause }) : new Ctor(msg);
};

// ---- values Go names by ref: hooks, activate functions, disposers, thrown values ----
const refs = new Map();
let nextRef = 0;
function addRef(v) { refs.set(++nextRef, v); return nextRef; }
fx.addRef = addRef;
fx.ref = (id) => refs.get(id);
fx.release = (id) => { refs.delete(id); };

// C6: a thrown value and its error value.
function errorValue(v) {
  let isErr = false;
  try { isErr = v instanceof Error; } catch { /* counts as false */ }
  if (isErr) return v;
  return new Error(textOf(v));
}
function recordThrow(v) {
  fx.tRef = addRef(v);
  const ev = errorValue(v);
  fx.tErr = ev === v ? fx.tRef : addRef(ev);
}
fx.hold = recordThrow;

// C5: undefined, thenable, function, disposable, other → kind | ref << shift.
const withRef = (kind, v) => kind | (addRef(v) << RESULT_LAYOUT.REF_SHIFT);
function classify(v) {
  if (v === undefined) return RESULT.UNDEFINED;
  const obj = v !== null && (typeof v === 'object' || typeof v === 'function');
  if (obj && typeof v.then === 'function') return RESULT.THENABLE;
  if (typeof v === 'function') return withRef(RESULT.FUNCTION, v);
  if (obj && typeof v.dispose === 'function') return withRef(RESULT.DISPOSABLE, v);
  return RESULT.OTHER;
}
function call(fn, ...args) {
  try { return classify(fn.call(undefined, ...args)); } catch (e) { recordThrow(e); return -1; }
}

// ---- String(v) into Go's buffer (exact UTF-16; a throw is kept, C6) ----
fx.toStr = (v) => {
  let s;
  try { s = String(v); } catch (e) { recordThrow(e); return -1; }
  return core.writeStr(s);
};
fx.keys = (o) => { try { return Object.keys(o); } catch (e) { recordThrow(e); return FAIL; } }; // a Proxy's ownKeys trap may throw (C6)
fx.get = (o, name) => { try { return o[name]; } catch (e) { recordThrow(e); return FAIL; } };
fx.isBigInt = (v) => typeof v === 'bigint';
fx.freezeDeep = function freezeDeep(o) {
  if (o !== null && typeof o === 'object' && !(o instanceof Error) && !Object.isFrozen(o)) {
    for (const k of Object.keys(o)) freezeDeep(o[k]);
    Object.freeze(o);
  }
  return o;
};

// ---- signals (C8) ----
// A signal's AbortController is made when the signal is first read: most
// processor requests' signals are never read, and under Node an
// AbortController with its signal was ~5 % of a 3-processor refresh. Until
// then an abort is recorded (the first one wins, as AbortController.abort
// does) and replayed on the controller made later, with the same reason.
const signals = new Map(); // id → { c: AbortController | undefined, aborted, reason }
let nextSignal = 0;
fx.newSignal = () => { signals.set(++nextSignal, { c: undefined, aborted: false, reason: undefined }); return nextSignal; };
const abortEntry = (e, reason) => {
  if (e === undefined) return;
  if (e.c !== undefined) e.c.abort(reason);
  else if (!e.aborted) { e.aborted = true; e.reason = reason; }
};
fx.abort = (id, reason) => { abortEntry(signals.get(id), reason); };
fx.releaseSignal = (id) => { signals.delete(id); ctxs.delete(id); requests.delete(id); };
fx.abortRequest = (id) => { abortEntry(signals.get(id), undefined); }; // reason: an AbortError DOMException (C126)
const signalOfEntry = (e) => {
  if (e.c === undefined) {
    e.c = new AbortController();
    if (e.aborted) e.c.abort(e.reason);
  }
  return e.c.signal;
};
const signalOf = (id) => { const e = signals.get(id); return e === undefined ? undefined : signalOfEntry(e); };
const signalLive = (id) => { const e = signals.get(id); return e !== undefined && (e.c === undefined ? !e.aborted : !e.c.signal.aborted); };

// ---- message ids (C4) ----
// The ids live in WeakMaps of at most 2^20 entries each, newest last: one
// V8 WeakMap of 3 million keys took 50 s to fill and 17 s to read (its
// table outgrows what the collector walks cheaply), 2 million took 1.3 s.
// Chats up to a million messages (over a page's life) use one.
const ID_SHARD = 1 << 20;
const messageIds = [new WeakMap()];
let nextMessage = 0;
let inShard = 0;
const isObject = (m) => m !== null && (typeof m === 'object' || typeof m === 'function');
function knownId(m) {
  for (let k = messageIds.length - 1; k >= 0; k--) {
    const id = messageIds[k].get(m);
    if (id !== undefined) return id;
  }
  return undefined;
}
function idOf(m) {
  let id = knownId(m);
  if (id === undefined) {
    if (inShard === ID_SHARD) { messageIds.push(new WeakMap()); inShard = 0; }
    inShard++;
    id = ++nextMessage;
    messageIds[messageIds.length - 1].set(m, id);
  }
  return id;
}

// ---- hosts ----
const hosts = new Map(); // host id → the host's JS callbacks and its DOM adapter
let nextHost = 0;
const { register, isElement } = DOM;

// chat[].length as an array length (ToLength): '3' is 3, -1 and NaN are 0.
function lengthOf(list) {
  const n = Math.trunc(Number(list.length));
  return n > 0 ? Math.min(n, Number.MAX_SAFE_INTEGER) : 0;
}
let idScratch = new Uint16Array(1024);
// The structural pass (fast lane): ids written into Go's buffer, two units
// each. -1:
// chat[fx.bad] is not an object; -2: the host threw; -3: the length fx.bad
// is over the limit, so Go allocates nothing for it (C146). No chat[] at
// all (undefined or null: a chat not loaded yet) is the surface's TypeError,
// faulting as a throw would.
fx.messages = (h) => {
  const H = hosts.get(h);
  let list;
  let n;
  try {
    list = H.getMessages.call(undefined);
    if (list == null) throw new TypeError('ChatSurface getMessages() must return chat[], not undefined or null');
    n = lengthOf(list);
  } catch (e) { recordThrow(e); return -2; }
  if (n > SURFACE_LIMIT.MAX_MESSAGES) { fx.bad = n; return -3; }
  // Collected here, then copied into Go's buffer at once: reading list[i]
  // may run page code (a getter, a Proxy) that calls into Go, which uses
  // that buffer too and may grow Go's memory.
  if (idScratch.length < 2 * n) idScratch = new Uint16Array(Math.max(2 * n, 2 * idScratch.length)); // n is within the limit: the room is bounded
  for (let i = 0; i < n; i++) {
    let m;
    try { m = list[i]; } catch (e) { recordThrow(e); return -2; }
    if (!isObject(m)) { fx.bad = i; return -1; }
    const id = idOf(m);
    idScratch[2 * i] = id & 0xffff;
    idScratch[2 * i + 1] = id >>> 16;
  }
  core.view(2 * n).set(idScratch.subarray(0, 2 * n));
  H.last = list;
  return n;
};

// A host-given list Go reads (render's replace, the capability
// requirements), copied into a plain array here, where a throwing getter or
// a Proxy is caught: Go never reads a host object itself (syscall/js's
// property reads do not catch, so a throw would unwind through Go's
// frames). null: not an array; -1: longer than max (fx.bad holds the
// length, so Go sizes nothing by it); -2: reading it threw (recorded).
fx.list = (v, max) => {
  try {
    if (!Array.isArray(v)) return null;
    const n = lengthOf(v);
    if (n > max) { fx.bad = n; return -1; }
    const out = new Array(n);
    for (let i = 0; i < n; i++) out[i] = v[i];
    return out;
  } catch (e) { recordThrow(e); return -2; }
};
fx.messageAt = (h, i) => {
  try {
    const m = hosts.get(h).getMessages.call(undefined)[i];
    return isObject(m) ? idOf(m) : 0;
  } catch (e) { recordThrow(e); return -1; }
};
fx.count = (h) => {
  try { return lengthOf(hosts.get(h).getMessages.call(undefined)); } catch (e) { recordThrow(e); return -1; }
};
// The live object with id at mesid (C4): chat[mesid] now, else the one seen
// at the last structural pass.
function messageOf(H, id, mesid) {
  const m = H.getMessages.call(undefined)[mesid];
  if (isObject(m) && knownId(m) === id) return m;
  return H.last?.find((x) => isObject(x) && knownId(x) === id);
}
// materialize (C30): the result is named for Go and described into its
// buffer — flags (1 a .mes, 2 parentless), root, first .mes_text and its
// parent (0 when none), then the content's innerHTML when asked. A value that
// is not a genuine element (a Proxy, a non-node) is root 0.
fx.materialize = (h, id, mesid, html) => {
  const H = hosts.get(h);
  let v;
  try { v = H.materialize.call(undefined, messageOf(H, id, mesid), mesid); } catch (e) { recordThrow(e); return -1; }
  let flags = 0;
  let root = 0;
  let content = 0;
  let parent = 0;
  let text = '';
  if (isElement(v)) {
    const el = DOM.element(v);
    // Read before anything is registered: a getter the page put on its
    // content that throws is the host's throw (C6), and leaves no ids.
    let up = null;
    try {
      if (el.content !== null) {
        up = el.content.parentNode;
        if (html) text = String(el.content.innerHTML);
      }
    } catch (e) { recordThrow(e); return -1; }
    root = register(v);
    flags = (el.mes ? 1 : 0) | (el.parentless ? 2 : 0);
    if (el.content !== null) {
      content = register(el.content);
      if (up !== null) parent = register(up);
    }
  }
  const u = core.view(7 + text.length);
  u[0] = flags;
  u[1] = root & 0xffff; u[2] = root >>> 16; u[3] = content & 0xffff; u[4] = content >>> 16; u[5] = parent & 0xffff; u[6] = parent >>> 16;
  for (let i = 0; i < text.length; i++) u[7 + i] = text.charCodeAt(i);
  return 7 + text.length;
};
fx.format = (h, id, mesid) => { // the HTML's length in Go's buffer, exactly; -1 when it threw
  const H = hosts.get(h);
  try { return core.writeStr(String(H.formatMessage.call(undefined, messageOf(H, id, mesid), mesid))); } catch (e) { recordThrow(e); return -1; }
};
// Hooks get nodes Go names by id (chat-surface-dom.js).
fx.prepare = (h, hook, mesid, contentId, seq, pidx) => {
  const content = hosts.get(h).dom.node(contentId);
  const claims = Object.freeze({
    claim(source, activate) { // through the fast lane: once per claimed source of every mount
      const live = hosts.has(h); // (once the host is gone Go answers C36's error: nothing to hold)
      const st = core.ex.cs_claim(h, seq, pidx, live && DOM.isNode(source) ? register(source) : 0, live && typeof activate === 'function' ? addRef(activate) : 0);
      if (st !== 0) check(st === CLAIM.FAILED ? FAIL : INTERNAL);
    },
  });
  return call(refs.get(hook), Object.freeze({ mesid, content }), claims);
};
fx.connected = (h, hook, mesid, el, co, sig) => {
  const d = hosts.get(h).dom;
  return call(refs.get(hook), Object.freeze({ mesid, element: d.node(el), content: d.node(co), signal: signalOf(sig) }));
};
fx.activate = (h, fn, src, mesid, el, co, sig) => {
  const d = hosts.get(h).dom;
  return call(refs.get(fn), Object.freeze({ source: d.node(src), mesid, element: d.node(el), content: d.node(co), signal: signalOf(sig) }));
};
// One DOM batch for host h (chatsurface/batch.go), in one crossing.
fx.apply = (h, addr, n) => {
  const H = hosts.get(h);
  return H ? H.dom.apply(addr, n, H.managed, recordThrow) : 0;
};
fx.dispose = (ref) => {
  const d = refs.get(ref);
  if (typeof d === 'function') return call(d);
  try { return classify(d.dispose()); } catch (e) { recordThrow(e); return -1; }
};
fx.onFault = (h, err) => {
  const f = hosts.get(h)?.onFault;
  if (typeof f === 'function') {
    try { f.call(undefined, err); } catch { /* the fault is recorded; a failing observer changes nothing */ }
  }
};
// ---- content processors (C113–C131) ----
// C121: the facade computes each request's version when the request is made
// and keeps it with the request's message object (C116) until Go releases
// the signal; Go asks only whether a later read is the same (VERSION_READ
// SAME or CHANGED, THREW with the throw recorded), so a message's text never
// crosses the boundary to be compared.
const versionOf = (m) => JSON.stringify([m.mes, m.swipe_id ?? 0, m.extra?.display_text, m.name, m.is_user, m.is_system, m.role]);
const requests = new Map(); // signal id → { m: message object, v: its version, next: a newer read (versionChanged) }
const same = (v, r) => (v === r?.v ? VERSION.SAME : VERSION.CHANGED);
// The version sameVersion last read, for the newRequest that may follow
// for the same message (C122: a new request keeps the version just read).
let lastRead = null;
// C122: may request req's entry serve the object at mesid now?
fx.sameVersion = (h, id, mesid, req) => {
  lastRead = null;
  try {
    const v = versionOf(messageOf(hosts.get(h), id, mesid));
    lastRead = { h, id, mesid, v };
    return same(v, requests.get(req));
  } catch (e) { recordThrow(e); return VERSION.THREW; }
};
// C117: has request req's own object changed since its version was read?
// The new read becomes its version only once Go has formatted the base
// afresh for it (adoptVersion).
fx.versionChanged = (req) => {
  const r = requests.get(req);
  try { const v = versionOf(r.m); r.next = v; return same(v, r); } catch (e) { recordThrow(e); return VERSION.THREW; }
};
fx.adoptVersion = (req) => {
  const r = requests.get(req);
  if (r !== undefined && r.next !== undefined) { r.v = r.next; r.next = undefined; }
};
// C125's "same object at mesid" (messageAt) and, when it holds, whether the
// request's object still has its version (C119), in one crossing:
// VERSION_READ.NOT_THERE when it does not hold (a throw of getMessages
// included, as Go's current() treats it).
const thereNow = (h, id, mesid) => {
  try {
    const m = hosts.get(h).getMessages.call(undefined)[mesid];
    return isObject(m) && idOf(m) === id;
  } catch { return false; }
};
const sameNow = (req) => { const r = requests.get(req); return same(versionOf(r.m), r); }; // (throws as versionOf)
fx.currentVersion = (h, id, mesid, req) => {
  if (!thereNow(h, id, mesid)) return VERSION.NOT_THERE;
  try { return sameNow(req); } catch (e) { recordThrow(e); return VERSION.THREW; }
};
// A processor request: its AbortController, holding its message object for
// the processors (C116) and its version, with the version sameVersion just
// read for the message.
fx.newRequest = (h, id, mesid) => {
  const sig = fx.newSignal();
  const read = lastRead;
  lastRead = null;
  let m;
  let v;
  try { m = messageOf(hosts.get(h), id, mesid); } catch { /* getMessages threw: the next version read reports it */ }
  if (read !== null && read.h === h && read.id === id && read.mesid === mesid) v = read.v;
  else try { v = versionOf(m); } catch { /* likewise */ }
  requests.set(sig, { m, v, next: undefined });
  return sig;
};
// C122's new request when no cache entry can be used: the version of the
// object at mesid, then (unless that threw) its request, in one crossing;
// the signal, or THREW.
fx.versionedRequest = (h, id, mesid) => {
  let m;
  let v;
  try { m = messageOf(hosts.get(h), id, mesid); v = versionOf(m); } catch (e) { recordThrow(e); return VERSION.THREW; }
  const sig = fx.newSignal();
  requests.set(sig, { m, v, next: undefined });
  return sig;
};
const ctxs = new Map(); // signal id → the request's one frozen ctx (C116)
const bases = new Map(); // processor call token → its renderBase Promise's resolvers
// One layer of one request: prepare(ctx, renderBase). Its outcome goes back
// to Go only from Promise callbacks, never synchronously.
fx.callProcessor = (h, token, prepare, msg, mesid, sig) => {
  let ctx = ctxs.get(sig);
  if (ctx === undefined) {
    // The signal is read through the request's entry, which the ctx keeps:
    // a processor reading it after Go released the request still gets it.
    const e = signals.get(sig);
    ctx = Object.freeze({ message: requests.get(sig)?.m, mesid, get signal() { return e === undefined ? undefined : signalOfEntry(e); } });
    ctxs.set(sig, ctx);
  }
  let base;
  const renderBase = () => {
    if (base !== undefined) return base;
    let resolve;
    let reject;
    base = new Promise((res, rej) => { resolve = res; reject = rej; });
    base.catch(() => {}); // handled: a processor may ignore a failed base
    bases.set(token, { resolve, reject });
    const first = core.ex.cs_render_base(h, token);
    if (first < 0) throw core.takeError({ internal: Error });
    if (first === 0) bases.delete(token);
    else if (first > 1) settleInline(first - 1);
    return base;
  };
  let r;
  try {
    // Promise.resolve reads a Promise's constructor: a getter there that
    // throws fails the layer like any throw (C118).
    r = Promise.resolve(refs.get(prepare).call(undefined, ctx, renderBase));
  } catch (e) { r = Promise.reject(e); }
  r.then(
    (v) => {
      bases.delete(token);
      if (typeof v !== 'string') { done(core.ex.cs_processor_done(h, token, kindOf(v), 0, VERSION.UNREAD)); return; }
      // C119's read (currentVersion) goes with a result for a live request.
      // Go takes it first thing, with no JS run since. A throw is left for
      // Go's own read to record.
      let cur = VERSION.UNREAD;
      if (signalLive(sig)) {
        if (!thereNow(h, msg, mesid)) cur = VERSION.NOT_THERE;
        else try { cur = sameNow(sig); } catch { /* Go reads again */ }
      }
      held.set(token, v); // (Go reads it only if it needs the text)
      try { done(core.ex.cs_processor_done(h, token, kindOf(v), PROCESSOR_RESULT.HELD, cur)); } finally { held.delete(token); }
    },
    (e) => { bases.delete(token); recordThrow(e); processed(core.ex.cs_processor_failed(h, token)); },
  );
};
// v is the error, or the length of the base's HTML in Go's buffer.
fx.settleBase = (token, isErr, v) => {
  const b = bases.get(token);
  if (b === undefined) return;
  bases.delete(token);
  if (isErr) b.reject(v); else b.resolve(core.string(core.ex.tc_buf(v), v));
};
// The base with the result kept for from (fx.heldText).
fx.settleBaseHeld = (token, from) => {
  const b = bases.get(token);
  if (b === undefined) return;
  bases.delete(token);
  b.resolve(held.get(from));
};
// A layer's string result, kept while its cs_processor_done runs: Go passes
// an inner layer's to the layer outside it without the text crossing
// (settleBaseHeld, or inline), and reads the outermost's (heldText).
const held = new Map(); // processor call token → its result
fx.heldText = (from) => core.writeStr(held.get(from));
// A fulfilment Go returned from the call instead (m units in its buffer:
// the token, then INLINE_HTML and the HTML, or INLINE_HELD and the token
// whose kept result it is).
function settleInline(m) {
  const addr = core.ex.tc_buf(m);
  const u = core.read(addr, 3);
  const token = u[0] | (u[1] << 16);
  const b = bases.get(token);
  if (b === undefined) return;
  bases.delete(token);
  if (u[2] === PROCESSOR_RESULT.INLINE_HELD) {
    const f = core.read(addr + 6, 2);
    b.resolve(held.get(f[0] | (f[1] << 16)));
  } else b.resolve(core.string(addr + 6, m - 3));
}
// A contained panic in a processor's call into Go has faulted the host;
// there is no caller to throw to, so its record is dropped.
const processed = (st) => { if (st !== 0) core.ex.tc_err(); };
const done = (st) => { if (st > 1) settleInline(st); else processed(st); };
// Promises Go settles by wait id: open()/render(), finishContent, refresh().
const waits = new Map();
let nextWait = 0;
function newWait(extra) {
  let resolve;
  let reject;
  const promise = new Promise((res, rej) => { resolve = res; reject = rej; });
  const w = ++nextWait;
  waits.set(w, { resolve, reject, ...extra });
  return [promise, w];
}
fx.settle = (w, emit, isErr, err) => {
  const W = waits.get(w);
  if (W === undefined) return;
  waits.delete(w);
  if (isErr) W.reject(err);
  else if (emit) {
    Promise.resolve()
      .then(() => W.emit.call(undefined, W.event, W.mesid, ...W.args))
      .then(() => W.resolve(), W.reject);
  } else W.resolve();
};

// Frames and timers: the host's four scheduler functions, captured at
// creation (C140); ids are the facade's, so any native handle type works.
// They are host code: a throw is recorded for Go (-1), which faults with it.
// A host function that calls back before it returns (a requestAnimationFrame
// that runs the frame at once) would reach Go inside the call that asked
// for it, where the frame is refused and then never asked for again: such a
// callback runs in a microtask, after the call.
function schedule(h, table, start, fire) {
  const H = hosts.get(h);
  const id = ++H.nextTimer;
  const run = () => { table(H).delete(id); fire(h, id); };
  let starting = true;
  let native;
  try { native = start(H, () => { if (starting) queueMicrotask(run); else run(); }); } catch (e) { recordThrow(e); return -1; } finally { starting = false; }
  table(H).set(id, native);
  return id;
}
function cancel(h, table, stop, id) {
  const H = hosts.get(h);
  if (!H || !table(H).has(id)) return 0;
  const native = table(H).get(id);
  table(H).delete(id);
  try { stop(H, native); } catch (e) { recordThrow(e); return -1; }
  return 0;
}
const frames = (H) => H.frames;
const timers = (H) => H.timers;
// Into Go through the fast lane (cs_event). There is no caller to throw to:
// a contained panic has already faulted the host (onFault), and its record
// is dropped.
const event = (h, kind, arg = 0) => { if (core.ex.cs_event(h, kind, arg) !== 0) core.ex.tc_err(); };
const enter = (kind) => (h, id) => { event(h, kind, id); };
fx.requestFrame = (h) => schedule(h, frames, (H, cb) => H.raf.call(globalThis, cb), enter(EVENT.FRAME));
// (cancelFrame and clearTimeout return 0, or -1 when the host's function threw.)
fx.cancelFrame = (h, id) => cancel(h, frames, (H, n) => H.caf.call(globalThis, n), id);
fx.setTimeout = (h, ms) => schedule(h, timers, (H, cb) => H.st.call(globalThis, cb, ms), enter(EVENT.TIMER));
fx.clearTimeout = (h, id) => cancel(h, timers, (H, n) => H.ct.call(globalThis, n), id);
// Go dropped a disposed host: the host object now names the tomb Go keeps
// for every disposed host of its kind.
fx.disposed = (h, tomb) => {
  const H = hosts.get(h);
  if (H) { H.self.id = tomb; hosts.delete(h); H.dom.close(); if (H.root) H.dom.release(H.root); }
};

// Table sizes, Go's and the facade's, for leak checks: on the core
// instance only, never on the public API (C13).
core.chatSurfaceTables = () => {
  const t = fx.tables();
  let frameCount = 0;
  let timerCount = 0;
  for (const H of hosts.values()) { frameCount += H.frames.size; timerCount += H.timers.size; }
  return { ...t, nodes: DOM.nodeTableSize(), requests: requests.size, refs: refs.size, waits: waits.size, bases: bases.size, held: held.size, contexts: ctxs.size, signals: signals.size, jsHosts: hosts.size, frames: frameCount, timers: timerCount };
};

// ---- the extension API (C11–C16) ----
function isManagedOwnershipRequired() { return fx.managed(); }
// The page's install option onRegister (installChatSurfaceApi): told of
// each accepted registration, "participant" or "processor". A host page whose
// static mode runs no chat-surface host says so there; what it does cannot
// change the registration.
let onRegister = null;
function registered(kind) {
  if (typeof onRegister !== 'function') return;
  try { onRegister(kind); } catch (e) { reportToPage(e); }
}
function registerParticipant(definition) {
  const index = check(fx.register(definition));
  registered('participant');
  return Object.freeze({ fault(error) { fx.fault(index, error); } });
}
// refresh()'s two steps enter Go through the fast lane (cs_refresh): true
// when a live host took the step.
function refreshStep(phase, w = 0) {
  const st = core.ex.cs_refresh(phase, w);
  if (st < 0) throw core.takeError({ internal: Error });
  return st === 1;
}
function refresh() {
  let resolve;
  let reject;
  const promise = new Promise((res, rej) => { resolve = res; reject = rej; });
  if (!refreshStep(0)) { resolve(); return promise; }
  queueMicrotask(() => {
    const [p, w] = newWait({});
    p.then(resolve, reject);
    let live;
    try { live = refreshStep(1, w); } catch (e) { waits.delete(w); reject(e); return; }
    if (!live) { waits.delete(w); resolve(); }
  });
  return promise;
}
const processorRegistration = Object.freeze({ refresh });
function registerContentProcessor(definition) {
  check(fx.processor(definition));
  registered('processor');
  return processorRegistration;
}
const api = Object.freeze({ protocolVersion: 1, isManagedOwnershipRequired, registerParticipant, registerContentProcessor });

/** Install `target.__TAURITAVERN__.api.chatSurface` (C11, C12). */
export function installChatSurfaceApi(target, options) {
  const managed = options !== null && typeof options === 'object' ? options.managed : undefined;
  // Steps 1–2 before the target is looked at (a getter there runs page
  // code), then step 3 with what it holds; a failure there takes back a
  // first install's record.
  const first = check(fx.install(managed, undefined, undefined));
  let tauri;
  let apiProp;
  try {
    tauri = target.__TAURITAVERN__;
    apiProp = tauri !== null && typeof tauri === 'object' ? tauri.api : undefined;
    check(fx.install(managed, tauri, apiProp));
  } catch (err) {
    if (first) fx.forget();
    throw err;
  }
  // Go accepted: write steps 4–5. A write that throws (a frozen target)
  // takes back the ones before it, and a first install's record: a failed
  // install writes nothing and records nothing (C11).
  const w = allOrNothing();
  try {
    let t = tauri;
    if (t === undefined || t === null) w.put(target, '__TAURITAVERN__', t = {});
    let a = apiProp;
    if (a === undefined || a === null) w.put(t, 'api', a = {});
    w.put(a, 'chatSurface', api);
  } catch (err) {
    w.rollback();
    if (first) fx.forget();
    throw err;
  }
  if (first) {
    let f = null;
    try { f = options?.onRegister; } catch { /* a throwing getter: no observer */ }
    onRegister = typeof f === 'function' ? f : null;
  }
  return api;
}

// ---- startChatSurfaceExtensions (C133–C139) ----

/** The default requirements table (C138): frozen, in order. */
export const CHAT_SURFACE_RENDERER_CAPABILITIES = check(fx.startup(START.DEFAULTS));

/**
 * Activate the enabled extensions in order, awaiting each startup hook
 * (`hooks.chatSurface`, else `hooks.activate`: chatsurface.StartupHook) or
 * required activation, then check the capability gate (C133–C137). Every
 * failure rejects; nothing throws synchronously.
 */
export async function startChatSurfaceExtensions(options) {
  const { extensions, importExtension, activateExtension, requirements } = options;
  const reqs = requirements === undefined ? CHAT_SURFACE_RENDERER_CAPABILITIES : requirements;
  const call = check(fx.startup(START.VALIDATE, reqs));
  try {
    if (!fx.managed()) return; // C136: static mode validates only
    const names = [];
    for (const ext of extensions) {
      names.push(ext.name);
      const hooks = ext.manifest?.hooks;
      const declared = [hooks?.chatSurface, hooks?.activate];
      const key = check(fx.startup(START.HOOK, declared[0], declared[1])); // 1-based position, 0: none
      if (key !== 0) {
        const hook = declared[key - 1];
        const ns = await importExtension.call(undefined, ext);
        const fn = ns[hook];
        if (typeof fn !== 'function') check(fx.startup(START.HOOK_ERROR, String(ext.name), hook, key));
        await fn.call(undefined);
      } else if (check(fx.startup(START.REQUIRED, call, ext.name))) {
        await activateExtension.call(undefined, ext);
      }
    }
    check(fx.startup(START.GATE, call, names));
  } finally {
    fx.startup(START.DONE, call);
  }
}

// C143's snapshot as Go wrote it in the shared buffer (its length first),
// with the fault Go returned: a new, deeply frozen object.
function readSnapshot(fault) {
  const head = core.view(2);
  const d = core.decoder(2 + (head[0] | (head[1] << 16)));
  d.u32();
  const num = () => d.f64();
  const ints = () => Array.from({ length: num() }, num);
  const bit = () => d.unit() === 1;
  const mode = d.str();
  const state = d.str();
  const messageCount = num();
  const mounted = ints();
  const ranges = Array.from({ length: num() }, () => ({ start: num(), end: num() }));
  const viewport = ints();
  const followingTail = bit();
  const projectionHeld = bit();
  const runtime = { mode: d.str(), maxActive: num(), active: num(), pending: num(), scheduled: bit(), suspended: bit() };
  runtime.candidates = Array.from({ length: num() }, () => ({ participantId: d.str(), mesid: num(), state: d.str() }));
  const pendingPreparations = ints();
  return fx.freezeDeep({ mode, state, messageCount, mounted, ranges, viewport, followingTail, projectionHeld, runtime, pendingPreparations, fault });
}

const scrollF64 = new Float64Array(1);
const scrollU16 = new Uint16Array(scrollF64.buffer);

// The options createHost reads, each once, into a plain object Go is given
// instead of the host's (a getter that throws does so here, to the caller,
// before anything is registered; Go never reads a host object itself).
const HOST_OPTIONS = ['root', 'getMessages', 'materialize', 'formatMessage', 'emit', 'managed', 'onFault',
  'requestAnimationFrame', 'cancelAnimationFrame', 'setTimeout', 'clearTimeout', 'runtimeLimit'];

/** Create the host controller (C140–C143). */
export function createChatSurfaceHost(options) {
  const given = options !== null && typeof options === 'object' ? options : {};
  const o = {};
  for (const k of HOST_OPTIONS) o[k] = given[k];
  const id = ++nextHost;
  const self = { id };
  const pick = (name) => (o[name] === undefined ? globalThis[name] : o[name]);
  // Notifications of the root into Go; a failure there is the host's fault
  // (contained in Go), never an exception into the page's event dispatch.
  // A scroll read goes in the shared buffer as float64s (four units each).
  const withRead = (kind, v) => {
    if (v === null) { event(id, kind); return; }
    const u = core.view(12);
    for (let i = 0; i < 3; i++) {
      scrollF64[0] = v[i];
      for (let k = 0; k < 4; k++) u[4 * i + k] = scrollU16[k];
    }
    event(id, kind, 1);
  };
  const events = {
    scroll: (v) => { withRead(EVENT.SCROLL, v); },
    scrollend: (v) => { withRead(EVENT.SCROLL_END, v); },
    mutation: () => { event(id, EVENT.MUTATION); },
    resize: (ids) => {
      const u = core.view(2 * ids.length);
      for (let i = 0; i < ids.length; i++) { u[2 * i] = ids[i] & 0xffff; u[2 * i + 1] = ids[i] >>> 16; }
      event(id, EVENT.RESIZE, ids.length);
    },
  };
  const H = {
    getMessages: o.getMessages, materialize: o.materialize, formatMessage: o.formatMessage, emit: o.emit,
    onFault: o.onFault, raf: pick('requestAnimationFrame'), caf: pick('cancelAnimationFrame'),
    st: pick('setTimeout'), ct: pick('clearTimeout'),
    frames: new Map(), timers: new Map(), nextTimer: 0, pass: undefined, last: undefined, self,
    dom: new DOM.SurfaceDOM(core, events), root: isElement(o.root) ? register(o.root) : 0, managed: fx.managed(),
  };
  hosts.set(id, H);
  DOM.forgetStyles(); // (a new host may follow a change of the page's styles)
  try { check(fx.createHost(o, H.root, id)); } catch (e) {
    hosts.delete(id);
    H.dom.close();
    if (H.root) H.dom.release(H.root);
    throw e;
  }
  const nodeOf = (n) => (n ? hosts.get(self.id)?.dom.nodeOrNull(n) ?? null : null);
  const op = (code, a, b, w, threw) => check(fx.op(self.id, code, a, b, w, threw));
  // An operation whose Promise Go settles once its requests settle (C130).
  const waited = (code, a, b, threw) => {
    const [promise, w] = newWait({});
    try { op(code, a, b, w, threw); } catch (e) { waits.delete(w); throw e; }
    return promise;
  };
  // An options object's fields, read here; a getter that throws is
  // recorded for Go, which throws it after C112a's checks (threw = 1).
  const fields = (opts, read) => {
    if (opts === null || typeof opts !== 'object') return [read({}), 0];
    try { return [read(opts), 0]; } catch (e) { recordThrow(e); return [read({}), 1]; }
  };
  return Object.freeze({
    open() { return waited(OP.OPEN); },
    render(opts) {
      const [[replace, first], threw] = fields(opts, (r) => [Array.isArray(r.replace) ? r.replace : undefined, r.first]);
      return waited(OP.RENDER, replace, first, threw);
    },
    updateContent(mesid, opts) {
      const [transient, threw] = fields(opts, (r) => r.transient);
      return op(OP.UPDATE, mesid, transient, 0, threw);
    },
    finishContent(mesid, event, ...args) {
      const [promise, w] = newWait({ emit: o.emit, event, args, mesid }); // read once, at creation (C140)
      try { check(fx.finish(self.id, mesid, event !== undefined, w)); } catch (e) { waits.delete(w); throw e; }
      return promise;
    },
    jumpToMessage(mesid) { return nodeOf(op(OP.JUMP, mesid)); },
    scrollToEnd() { op(OP.SCROLL_TO_END); },
    setProjectionHeld(held) { op(OP.HELD, held); },
    refreshLayout() { op(OP.REFRESH_LAYOUT); },
    resetEpoch() { op(OP.RESET); },
    getMessageElement(mesid) { return nodeOf(op(OP.ELEMENT, mesid)); },
    getFault() { return op(OP.FAULT); },
    snapshot() { return readSnapshot(op(OP.SNAPSHOT)); },
    dispose() { op(OP.DISPOSE); },
  });
}
