// The session-log API for the harness host (Node only): validate, fold,
// transcript (+ overlay), plan an edit, open log handles, and mount the
// message editor's route. Ready on import (top-level await). Every rule
// lives in Go (wasm/host, sessionlog/); this file marshals JSON and throws
// the error Go described.
//
// Logs cross as UTF-8 (a string or the file's bytes) and results come back
// as JSON: JSON cannot carry lone surrogates losslessly anyway, so session
// logs are exact through UTF-8 JSON rather than the UTF-16 fast lane.
import { sharedHost } from './host-core.js';

const host = await sharedHost();

/** A refusal with the spec's stable code (S76, plus invalid-log/read-failed). */
export class SessionLogError extends Error {
  constructor(code, message, details = {}) {
    super(message);
    this.name = 'SessionLogError';
    this.code = code;
    if (details.rule) this.rule = details.rule;
    if (details.seq !== undefined) this.seq = details.seq;
    if (details.line) this.line = details.line;
    if (details.offset !== undefined) this.offset = details.offset;
  }
}

function unwrap(envelope) {
  const r = JSON.parse(envelope);
  if (r.ok) return r.value;
  throw new SessionLogError(r.error.code, r.error.message, r.error);
}

function call(name, id, input, args) {
  input = logIn(input);
  const lone = loneSurrogate(input);
  if (lone) throw new SessionLogError('invalid-log', lone.error, lone);
  return unwrap(host.call(name, id, bytesIn(input), args === undefined ? '' : JSON.stringify(args)));
}

// A log or event given as a string crosses as UTF-8, where a lone surrogate
// would arrive as U+FFFD: silently changed. No file can hold one (its bytes
// are UTF-8), so such a string is refused, at the line it is on (S6).
const LONE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
function loneSurrogate(input) {
  if (typeof input !== 'string' || input.isWellFormed()) return null;
  const at = input.search(LONE);
  const line = input.slice(0, at).split('\n').length;
  const unit = input.charCodeAt(at).toString(16).toUpperCase();
  return {
    line, rule: 'S6',
    error: `line ${line}: a lone surrogate (\\u${unit}) at character ${at}, which UTF-8 cannot carry: it would arrive changed`,
  };
}

// A log is its text or its bytes. Anything else used to be read as no log
// at all, refused as an empty one, or (a BigInt) as an internal error.
const arrayBufferLength = Object.getOwnPropertyDescriptor(ArrayBuffer.prototype, 'byteLength').get;
function logIn(log) {
  if (typeof log === 'string' || (log instanceof Uint8Array && ArrayBuffer.isView(log))) return log;
  // A Proxy of a Uint8Array passes instanceof, and copying it would read as
  // many elements as its length trap claims.
  if (log instanceof Uint8Array) throw new TypeError('a session log is a string or its bytes (a Uint8Array or an ArrayBuffer), not a Proxy of a Uint8Array');
  if (log instanceof ArrayBuffer) {
    // A Proxy of an ArrayBuffer passes instanceof too; the Uint8Array
    // constructor would then copy it as an array-like of the length its
    // trap claims. The byteLength getter answers real ArrayBuffers only.
    try { arrayBufferLength.call(log); } catch { throw new TypeError('a session log is a string or its bytes (a Uint8Array or an ArrayBuffer), not a Proxy of an ArrayBuffer'); }
    return new Uint8Array(log);
  }
  const kind = log === null ? 'null' : Array.isArray(log) ? 'an array' : typeof log;
  throw new TypeError(`a session log is a string or its bytes (a Uint8Array or an ArrayBuffer), not ${kind}`);
}

// Go sizes its copy of a log's bytes by their length: a subclass whose
// byteLength getter claims more than it holds, or an array with a length of
// its own, is copied here first (the Uint8Array constructor reads the real
// length), so no claimed number sizes anything. A Uint8Array or a Buffer as
// they come (isView: not a Proxy of one) are passed as is. Own properties
// are asked for by name: listing them lists every index, which throws past
// V8's limit (about 16.7 million) for a log of more than 16 MiB.
const plainBytes = new Set([Uint8Array.prototype, globalThis.Buffer?.prototype]);
function bytesIn(input) {
  if (!(input instanceof Uint8Array)) return input;
  // A view of a detached (transferred) buffer holds no bytes; Go's copy
  // from it threw through Go's frames.
  if (input.byteLength === 0) return '';
  if (ArrayBuffer.isView(input) && plainBytes.has(Object.getPrototypeOf(input)) &&
    !Object.hasOwn(input, 'byteLength') && !Object.hasOwn(input, 'length')) return input;
  return new Uint8Array(input);
}

/**
 * JSON text of an event given as an object, refusing what JSON.stringify
 * would silently change: -0, NaN and infinities, undefined, functions,
 * symbols, BigInts, holes, and non-plain objects such as Date or Map. The
 * harness's append refuses the same (S111); once stringified, Go could no
 * longer tell, so this one check lives at the edge.
 */
export function losslessJSON(value, subject = 'session event') {
  const refuse = () => { throw new SessionLogError('invalid-log', `${subject} carries non-JSON-serializable data`, { rule: 'S111' }); };
  return JSON.stringify(value, function replacer(key, v) {
    const orig = this[key];
    switch (typeof orig) {
      case 'number':
        if (!Number.isFinite(orig) || Object.is(orig, -0)) refuse();
        break;
      case 'undefined': case 'function': case 'symbol': case 'bigint':
        refuse();
        break;
      case 'object': {
        if (orig === null) break;
        const proto = Object.getPrototypeOf(orig);
        if (Array.isArray(orig)) {
          if (proto !== Array.prototype || Object.keys(orig).length !== orig.length) refuse();
        } else if (proto !== Object.prototype && proto !== null) {
          refuse();
        }
        break;
      }
    }
    return v;
  });
}

const encode = (event) => (typeof event === 'string' ? event : losslessJSON(event));

/** Validate a whole log: a verdict, not a throw, for an invalid log. */
export function validate(log, options = {}) {
  try {
    return call('validate', 0, log, { options });
  } catch (e) {
    // call's one refusal of a log before Go reads it (S6) is a verdict here.
    if (!(e instanceof SessionLogError) || e.code !== 'invalid-log' || e.rule !== 'S6') throw e;
    return { ok: false, code: e.code, error: e.message, line: e.line, rule: e.rule, seq: null };
  }
}

/** The surface and the derived model messages (S25–S28). */
export function fold(log, options = {}) {
  return call('fold', 0, log, { options });
}

/** Transcript rows and the overlay (S30–S34); `options.env` is the agent state. */
export function transcript(log, { env, ...options } = {}) {
  return call('transcript', 0, log, { options, env });
}

// S6: an event's time is epoch milliseconds. A request that gives none is
// planned now, as `tavern-log plan-edit` plans it (it was 0: an event dated
// 1970 would have been appended by a caller that forgot the field).
const stamped = (request) => (request !== null && typeof request === 'object' && !Array.isArray(request)
  && request.time === undefined ? { ...request, time: Date.now() } : request);

/** Plan one editor write without writing it (S44–S75). */
export function plan(log, request, options = {}) {
  return call('plan', 0, log, { options, request: stamped(request) });
}

const handles = new FinalizationRegistry((id) => host.call('log.close', id, '', ''));

/** An open, validated log held in Go; appends are validated and folded. */
export class SessionLog {
  #id;
  constructor(info) {
    this.#id = info.id;
    this.version = info.version;
    this.length = info.length;
    /** How the bytes it was read from end: {offset, unterminated?, torn?, tornBytes?, tornLine?} (S105). */
    this.tail = info.tail;
    handles.register(this, info.id, this);
  }
  #call(name, input = '', args) { return call(name, this.#id, input, args); }
  /** Validate and fold one event at seq = length; all or nothing (S22). */
  append(event) {
    const r = this.#call('log.append', encode(event));
    this.length = r.length;
    return r.seq;
  }
  /** Validate a candidate event without appending it (S21). */
  check(event) { this.#call('log.check', encode(event)); }
  fold() { return this.#call('log.fold'); }
  transcript(env) { return this.#call('log.transcript', '', env ?? {}); }
  plan(request) { return this.#call('log.plan', '', stamped(request)); }
  /** The log as JSONL, header first. */
  encode() { return this.#call('log.encode'); }
  close() {
    handles.unregister(this);
    host.call('log.close', this.#id, '', '');
  }
}

/**
 * Plan the repair of a log file's bytes (S105), as `tavern-log repair`
 * does: `{action: 'none'|'terminate'|'truncate', truncateTo?, copy?, tail,
 * events}`. Throws SessionLogError when the log is invalid anywhere but in
 * a torn last line. The caller does the file work (session-host.js).
 */
export function planRepair(log, path, { now = Date.now(), ...options } = {}) {
  return call('repair-plan', 0, log, { options, path, now });
}

/** Read and validate a log, keeping it open for appends. */
export function openLog(log, options = {}) {
  return new SessionLog(call('open', 0, log, { options }));
}

// How long the route waits for each answer of the host (append, flush,
// followup, authorize) before it gives up: a promise that never settles
// would hold the session's lock, and every later edit of that session
// would wait behind it for good (S80). An append given up on is answered
// as unconfirmed, never as saved.
export const DEFAULT_ANSWER_TIMEOUT_MS = 30_000;
function answerTimeoutOf(h) {
  const ms = h.answerTimeoutMs;
  if (ms === undefined) return DEFAULT_ANSWER_TIMEOUT_MS;
  if (typeof ms !== 'number' || !(ms > 0) || ms > 2 ** 31 - 1) {
    throw new TypeError(`mountEditorRoute: answerTimeoutMs must be a number of milliseconds in (0, 2147483647], not ${typeof ms === 'number' ? ms : typeof ms}`);
  }
  return ms;
}

// The port Go's route talks to (wasm/host/port_js.go): the host's objects,
// with event parts crossing as JSON text.
function goPort(h) {
  // One port object per agent of the host, so Go can tell a reloaded
  // session's new agent from the one a pending wake went to (S65).
  const agents = new WeakMap();
  const agentPort = (a) => {
    if (typeof a !== 'object' && typeof a !== 'function') {
      return { status: () => a.status, followup: (m) => a.followup(JSON.parse(m)) };
    }
    let p = agents.get(a);
    if (!p) agents.set(a, p = { status: () => a.status, followup: (m) => a.followup(JSON.parse(m)) });
    return p;
  };
  return {
    answerTimeoutMs: answerTimeoutOf(h),
    origin: () => String(h.origin),
    version: () => String(h.version),
    authorize: (request) => h.authorize(request),
    session(id) {
      const s = h.session(id);
      if (s == null) return null;
      const port = {
        headerVersion: () => s.headerVersion,
        events: () => JSON.stringify(s.snapshot()),
        append: (type, data, surfaceOp, sourceEventSeqs) =>
          s.append(type, JSON.parse(data), { surfaceOp: JSON.parse(surfaceOp), sourceEventSeqs }),
        agent() {
          const a = h.agent(id);
          // S78: a live agent *with* followup; without one the session is
          // not loaded (a regenerate would write and then fail to wake it).
          if (a == null || typeof a.followup !== 'function') return null;
          return agentPort(a);
        },
      };
      if (typeof s.flush === 'function') port.flush = () => s.flush();
      return port;
    },
  };
}

/**
 * Activate the message editor's route on a host (S82): registers the four
 * exact paths in `routes` (a Map or anything with has/set) and returns the
 * handler, `(Request) => Promise<Response>`. Throws SessionLogError
 * `already-active` when the paths are taken.
 */
export function mountEditorRoute(editorHost, routes) {
  const r = host.mount(goPort(editorHost), routes);
  if (typeof r === 'string') unwrap(r);
  return r;
}

/** The route's exact paths (S82) and headers. */
export const EDITOR_PATHS = Object.freeze({
  edit: '/api/plugins/tavern-core-message-editor/edit',
  undo: '/api/plugins/tavern-core-message-editor/undo',
  regenerate: '/api/plugins/tavern-core-message-editor/regenerate',
  state: '/api/plugins/tavern-core-message-editor/state',
});
export const VERSION_HEADER = 'X-Tavern-Core-Version';
