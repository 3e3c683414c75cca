// A harness-like host for the message editor (Node only): live sessions
// whose events persist as JSONL on disk, agents with a status and a
// followup path, and the editor's route mounted as a Fetch handler. It is
// the host side a real harness provides (spec S2); tests and the demo use
// it, and it shows what a host must implement. Every append goes through
// the same Go validator and fold the editor uses (S24), so a refused
// append writes nothing, in memory or on disk.
import { readFileSync, appendFileSync } from 'node:fs';
import { Readable } from 'node:stream';
import { openLog, mountEditorRoute } from './session-log.js';

/** A loaded session: a validated log in memory plus its JSONL file. */
export class LiveSession {
  #log;
  #events;
  #pending = [];
  #closed = false;

  /** Load a JSONL log from disk; throws SessionLogError for an invalid log. */
  static load(path, options = {}) {
    return new LiveSession(path, readFileSync(path), options);
  }

  constructor(path, bytes, { clock = Date.now } = {}) {
    this.#log = openLog(bytes);
    const lines = bytes.toString('utf8').split('\n').filter((l) => l.trim() !== '');
    this.header = JSON.parse(lines[0]);
    this.#events = lines.slice(1).map((l) => JSON.parse(l));
    this.path = path;
    this.id = this.header.id;
    this.clock = clock;
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
    const line = JSON.stringify(event);
    this.#log.append(line);
    this.#events.push(JSON.parse(line));
    this.#pending.push(line);
    return event.seq;
  }

  /** Persist appended events to the JSONL file. */
  flush() {
    if (this.#pending.length === 0) return;
    appendFileSync(this.path, this.#pending.join('\n') + '\n');
    this.#pending = [];
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
  constructor({ origin = 'http://127.0.0.1:4000', version = '0.1.0', authorize } = {}) {
    this.origin = origin;
    this.version = version;
    this.authorizeHook = authorize;
    this.routes = new Map();
    this.sessions = new Map();
    this.agents = new Map();
  }

  /** Load a session from disk and give it an agent (unless `agent: null`). */
  load(path, { agent = new Agent(), clock } = {}) {
    const s = LiveSession.load(path, { clock });
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
