// A harness-like host for the message editor (Node only): live sessions
// whose events persist as JSONL on disk, agents with a status and a
// followup path, and the editor's route mounted as a Fetch handler. It is
// the host side a real harness provides (spec S2); tests and the demo use
// it, and it shows what a host must implement. Every append goes through
// the same Go validator and fold the editor uses (S24), so a refused
// append writes nothing, in memory or on disk.
//
// On disk (S105, S109): a flush is durable before it returns (the file is
// fsynced; a new file's directory too), it writes at the end this session
// knows and never glues onto a line (a final line that lacks its newline
// gets one first), and a failed flush leaves the file as it was. A file
// whose last write did not finish (a torn tail) is refused with its byte
// offset; `repairLog` — or `load(path, { repairTornTail: true })` — keeps a
// copy and truncates it, as `tavern-log repair` does.
import { readFileSync } from 'node:fs';
import { Readable } from 'node:stream';
import { openLog, mountEditorRoute, losslessJSON, planRepair, SessionLogError } from './session-log.js';
import { appendDurable, createFileDurable, truncateDurable } from './durable-file.js';

/**
 * Repair a log file whose last write did not finish (S105): the plan comes
 * from Go (`planRepair`, the same as `tavern-log repair`); a torn last line
 * is cut off after the whole file is copied to `plan.copy`, a missing final
 * newline is added. Throws SessionLogError, changing nothing, when the log
 * is invalid anywhere else. Returns the plan that was carried out.
 */
export function repairLog(path) {
  const bytes = readFileSync(path);
  const plan = planRepair(bytes, path);
  if (plan.action === 'truncate') {
    createFileDurable(plan.copy, bytes);
    truncateDurable(path, bytes.length, plan.truncateTo);
  } else if (plan.action === 'terminate') {
    appendDurable(path, bytes.length, '\n');
  }
  return plan;
}

/** A loaded session: a validated log in memory plus its JSONL file. */
export class LiveSession {
  #log;
  #events;
  #pending = [];
  #closed = false;
  #size; // bytes of the file this session has read or durably written
  #needsNewline; // the file ends in a complete line without its newline

  /**
   * Load a JSONL log from disk; throws SessionLogError for an invalid log,
   * with code `torn-tail` and `offset` when its last write did not finish.
   * `repairTornTail: true` repairs such a file first (repairLog); the plan
   * carried out is then `session.repaired`.
   */
  static load(path, { repairTornTail = false, ...options } = {}) {
    const repaired = repairTornTail ? repairLog(path) : undefined;
    const session = new LiveSession(path, readFileSync(path), options);
    if (repaired) session.repaired = repaired;
    return session;
  }

  /** Create a new session file holding only its header, durably, and load it. */
  static create(path, header, options = {}) {
    createFileDurable(path, losslessJSON(header, 'session header') + '\n');
    return LiveSession.load(path, options);
  }

  constructor(path, bytes, { clock = Date.now } = {}) {
    this.#adopt(bytes);
    this.path = path;
    this.id = this.header.id;
    this.clock = clock;
  }

  // Take the log the file's bytes hold as this session's (nothing pending);
  // on a reload, only if it is still the session with this id.
  #adopt(bytes, id) {
    const log = openLog(bytes);
    // The events as the harness holds them in memory: packed chunk rows
    // expanded, older v0 shapes migrated (Go's reader decides both).
    const lines = log.encode().split('\n');
    lines.pop();
    const header = JSON.parse(lines[0]);
    // The host serves a session by its id (S5): without one, no request
    // could name it (it was registered under "undefined").
    if (typeof header.id !== 'string' || header.id === '') {
      log.close();
      throw new SessionLogError('invalid-log', 'the session header has no id (a non-empty string), so no request could name this session', { rule: 'S5', line: 1 });
    }
    if (id !== undefined && header.id !== id) {
      log.close();
      throw new Error(`it now holds session ${JSON.stringify(header.id)}`);
    }
    this.header = header;
    this.#events = lines.slice(1).map((l) => JSON.parse(l));
    this.#log?.close();
    this.#log = log;
    this.#size = bytes.length;
    this.#needsNewline = log.tail?.unterminated === true;
    this.#pending = [];
  }

  get headerVersion() { return this.#log.version; }
  get length() { return this.#events.length; }

  /** A consistent copy of the events, safe to hold across appends. */
  snapshot() { return structuredClone(this.#events); }

  /**
   * The harness append contract: the envelope is built here (seq = length),
   * validated and folded in Go, and only then kept. Throws and writes
   * nothing when the event is refused.
   */
  append(type, data, { surfaceOp, sourceEventSeqs } = {}) {
    if (this.#closed) throw new Error(`session ${this.id} is not loaded`);
    const event = { type, seq: this.#events.length, time: this.clock(), data };
    if (surfaceOp !== undefined) event.surfaceOp = surfaceOp;
    if (sourceEventSeqs !== undefined) event.sourceEventSeqs = sourceEventSeqs;
    const line = losslessJSON(event, `session event "${type}"`);
    this.#log.append(line);
    this.#events.push(JSON.parse(line));
    this.#pending.push(line);
    return event.seq;
  }

  /**
   * Persist appended events: written at the end this session knows and
   * fsynced before it returns, so whatever a caller acknowledges after it
   * survives a crash or a power loss. On failure nothing of the write stays
   * in the file and the events stay pending for the next flush.
   */
  flush() {
    if (this.#pending.length === 0) return;
    const text = (this.#needsNewline ? '\n' : '') + this.#pending.join('\n') + '\n';
    try {
      this.#size = appendDurable(this.path, this.#size, text);
    } catch (err) {
      if (err?.code === 'changed-outside') this.#reload(err);
      throw err;
    }
    this.#needsNewline = false;
    this.#pending = [];
  }

  // Another writer changed the file: the events pending here were never
  // acknowledged and can no longer be written after what this session
  // read, so the session takes the file as it is now, and the next call
  // works on it instead of failing the same way for good. The error says
  // so; a file that no longer reads as this session's log stays refused.
  #reload(err) {
    const dropped = this.#pending.length;
    try {
      this.#adopt(readFileSync(this.path), this.id);
    } catch (cause) {
      err.message += `; reloading it failed too (${cause.message}), so this session cannot write to it until it is loaded again`;
      return;
    }
    err.message += `; this session dropped its ${dropped} unsaved event(s) and now holds the file as it is (${this.#events.length} events)`;
  }

  close() {
    this.#closed = true;
    this.#log.close();
  }
}

/** A session's live agent: a status and the followup path (S2, S64). */
export class Agent {
  constructor({ status = 'idle', onFollowup } = {}) {
    this.status = status;
    this.followups = [];
    this.onFollowup = onFollowup;
  }
  followup(message) {
    this.followups.push(message);
    return this.onFollowup?.(message);
  }
}

/**
 * The host: loaded sessions, their agents, exact routes and the auth hook.
 * `origin` is the host's own origin; `version` its build's version.
 */
export class SessionHost {
  constructor({ origin = 'http://127.0.0.1:4000', version = '0.1.0', authorize, answerTimeoutMs } = {}) {
    this.origin = origin;
    this.version = version;
    this.authorizeHook = authorize;
    this.answerTimeoutMs = answerTimeoutMs; // (undefined: the route's default)
    this.routes = new Map();
    this.sessions = new Map();
    this.agents = new Map();
  }

  /**
   * Load a session from disk and give it an agent (unless `agent: null`).
   * A torn file is refused (SessionLogError `torn-tail`), so its session is
   * never served, unless `repairTornTail: true` (LiveSession.load).
   */
  load(path, { agent = new Agent(), clock, repairTornTail } = {}) {
    const s = LiveSession.load(path, { clock, repairTornTail });
    this.sessions.set(s.id, s);
    if (agent) this.agents.set(s.id, agent);
    return s;
  }

  unload(id) {
    this.sessions.get(id)?.close();
    this.sessions.delete(id);
    this.agents.delete(id);
  }

  // The port the editor sees (S2): only loaded sessions exist.
  session(id) { return this.sessions.get(id); }
  agent(id) { return this.agents.get(id); }
  authorize(request) { return this.authorizeHook ? this.authorizeHook(request) : true; }

  /** Activate the editor route; returns its `(Request) => Promise<Response>`. */
  mountEditor() { return mountEditorRoute(this, this.routes); }

  /** Dispatch a Fetch Request to the exact route registered for its path. */
  fetch(request) {
    const route = this.routes.get(new URL(request.url).pathname);
    return route ? route(request) : Promise.resolve(new Response('not found', { status: 404 }));
  }

  /** A Node `http` request listener over `fetch`. */
  listener() { return toNodeListener((r) => this.fetch(r)); }
}

// The Fetch Request's URL. A Host that does not make a URL (`[::1`,
// `a b`) must still reach the route, whose transport check answers 403 in
// its JSON envelope (S85.1), so such a request is addressed to a reserved
// authority that is never a host's origin (.invalid, RFC 6761) and keeps
// its raw Host header, which the bridge checks.
function requestURL(req) {
  const host = req.headers.host;
  const path = typeof req.url === 'string' && req.url.startsWith('/') ? req.url : '/';
  try {
    const url = new URL(`http://${host}${path}`);
    if (host !== undefined && url.host === host.toLowerCase()) return url;
  } catch { /* fall through */ }
  try {
    return new URL(path, 'http://host.invalid');
  } catch {
    return new URL('http://host.invalid/');
  }
}

/** Adapt a `(Request) => Promise<Response>` to a Node http listener. */
export function toNodeListener(handle) {
  return async (req, res) => {
    try {
      const headers = new Headers();
      for (let i = 0; i < req.rawHeaders.length; i += 2) headers.append(req.rawHeaders[i], req.rawHeaders[i + 1]);
      const url = requestURL(req);
      const hasBody = req.method !== 'GET' && req.method !== 'HEAD';
      const request = new Request(url, {
        method: req.method,
        headers,
        body: hasBody ? Readable.toWeb(req) : undefined,
        duplex: 'half',
      });
      const response = await handle(request);
      const body = Buffer.from(await response.arrayBuffer());
      res.writeHead(response.status, { ...Object.fromEntries(response.headers), 'content-length': body.length });
      res.end(body);
    } catch (err) {
      res.writeHead(500, { 'content-type': 'text/plain' });
      res.end(String(err?.message ?? err));
    }
  };
}
