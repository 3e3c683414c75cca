// The message-editor demo's host side (Node): one live session persisted as
// JSONL in the demo's data directory, managed by js/session-host.js, with a
// stand-in model that streams its text and calls a tool, and the editor's
// route mounted next to the demo's own transcript/send endpoints. After a
// restart the session is loaded from disk again; a turn cut short by the
// restart is closed and answered.
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';

export const SESSION_ID = 'demo-editor';
export const TRIGGER_KIND = 'plugin:tavern-core-message-editor';
const EDITOR_PREFIX = '/api/plugins/tavern-core-message-editor/';
const DEMO_PREFIX = '/api/demo-editor/';
const VERSION = '0.1.0'; // the host build's version (js/package.json)

const T = (text) => ({ type: 'text', text });
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** Does this demo host serve `pathname`? */
export function editorDemoHandles(pathname) {
  return pathname.startsWith(EDITOR_PREFIX) || pathname.startsWith(DEMO_PREFIX);
}

/**
 * The demo's editor host for a node:http `server` (its address gives the
 * host origin the route checks Host/Origin against) and a data directory.
 * Returns a node:http listener for the paths editorDemoHandles accepts.
 */
export function editorDemo({ server, dataDir, origin, chunkDelay = 25 }) {
  let ready;
  let state; // { host, session, agent, model, listener }
  server.on('close', () => { if (state) state.model.stop(); });
  const init = async () => {
    const { SessionHost, Agent } = await import('../session-host.js');
    const host = new SessionHost({ origin: origin?.() ?? `http://127.0.0.1:${server.address().port}`, version: VERSION });
    const path = join(dataDir, 'editor-session.jsonl');
    const fresh = !existsSync(path);
    if (fresh) {
      mkdirSync(dataDir, { recursive: true });
      const { createFileDurable } = await import('../durable-file.js');
      createFileDurable(path, JSON.stringify({ type: 'session', version: 4, id: SESSION_ID, createdAt: Date.now(),
        cwd: '/demo', isSeeded: false, delegationDepth: 0, agentPreset: 'standard' }) + '\n');
    }
    const model = new StandInModel({ chunkDelay });
    const agent = new Agent({ onFollowup: (message) => model.wake(message) });
    // A write cut short by a crash is repaired on start, keeping a copy.
    const session = host.load(path, { agent, repairTornTail: true });
    if (session.repaired?.action === 'truncate') {
      console.log(`editor demo: the session file ended in a torn write; kept a copy at ${session.repaired.copy} and truncated it at byte ${session.repaired.truncateTo}`);
    }
    model.attach(session, agent);
    if (fresh) seed(session);
    model.recover();
    host.mountEditor();
    state = { host, session, agent, model, listener: host.listener(), path };
    return state;
  };
  const listener = async (req, res) => {
    let s;
    try {
      s = await (ready ??= init());
    } catch (err) {
      ready = undefined;
      return json(res, 500, { error: `editor demo host failed to start: ${err?.message ?? err}` });
    }
    const url = new URL(req.url, 'http://localhost');
    if (!url.pathname.startsWith(DEMO_PREFIX)) return s.listener(req, res);
    try {
      if (url.pathname === DEMO_PREFIX + 'transcript' && req.method === 'GET') {
        return json(res, 200, await transcriptView(s));
      }
      if (url.pathname === DEMO_PREFIX + 'send' && req.method === 'POST') {
        let body;
        try {
          body = JSON.parse(await readSmall(req));
        } catch {
          return json(res, 400, { error: 'the body is not JSON' });
        }
        if (typeof body?.text !== 'string' || body.text.trim() === '') return json(res, 400, { error: 'text is required' });
        if (s.agent.status === 'running') return json(res, 409, { error: 'the model is still answering' });
        s.model.send(body.text);
        return json(res, 202, { ok: true });
      }
      json(res, 404, { error: 'not found' });
    } catch (err) {
      json(res, 500, { error: String(err?.message ?? err) });
    }
  };
  listener.state = () => (ready ??= init());
  return listener;
}

function json(res, status, value) {
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store' });
  res.end(JSON.stringify(value));
}

function readSmall(req) {
  return new Promise((ok, fail) => {
    let s = '';
    req.setEncoding('utf8');
    req.on('data', (c) => { s += c; if (s.length > 65536) { fail(new Error('body too large')); req.destroy(); } });
    req.on('end', () => ok(s));
    req.on('error', fail);
    req.on('aborted', () => fail(new Error('request aborted')));
  });
}

// The host's own ("stock") transcript: rows built from append-origin events
// only (S30), with the original text. The widget draws the overlay on top.
async function transcriptView({ session, agent, model }) {
  const { transcript } = await import('../session-log.js');
  const events = session.snapshot();
  const jsonl = [JSON.stringify(session.header), ...events.map((e) => JSON.stringify(e))].join('\n');
  const { rows } = transcript(jsonl, { live: true });
  const cut = interruptedRows(events, rows);
  return {
    sessionId: session.id,
    agent: agent.status,
    streaming: model.streaming,
    rows: rows.map((r) => ({ ...rowView(r, events[r.seq]), ...(cut.has(r.seq) ? { interrupted: true } : {}) })),
  };
}

// The last row of every turn that ended without completing (a restart cut
// the model short, recover() closed it): the page says so on that row.
function interruptedRows(events, rows) {
  const seqs = rows.map((r) => r.seq);
  const out = new Set();
  let start = -1;
  for (const e of events) {
    if (e.type === 'turn/start') start = e.seq;
    if (e.type === 'turn/end' && e.data?.reason?.kind !== 'completed') {
      const last = seqs.filter((s) => s > start && s < e.seq).at(-1);
      if (last !== undefined) out.add(last);
    }
  }
  return out;
}

function rowView(row, ev) {
  const msg = ev.type === 'user/message' ? ev.data : ev.data?.message;
  const content = Array.isArray(msg?.content) ? msg.content : [];
  const out = { seq: row.seq, kind: row.kind, text: content.filter((b) => b.type === 'text').map((b) => b.text).join('\n') };
  const attachments = content.filter((b) => b.type === 'image' || b.type === 'file')
    .map((b) => b.attachment?.name ?? b.attachment?.mediaType ?? b.type);
  if (attachments.length) out.attachments = attachments;
  const calls = content.filter((b) => b.type === 'tool-call').map((b) => `${b.name}(${b.arguments})`);
  if (calls.length) out.toolCalls = calls;
  if (row.kind === 'context') out.source = msg?.source?.kind;
  return out;
}

// The conversation the demo starts with: an exchange with attachments and a
// tool call, then a short second exchange.
function seed(s) {
  const model = { kind: 'model', provider: 'demo', model: 'stand-in' };
  s.append('turn/start', { turn: 1 });
  s.append('system/message', { turn: 1, step: 1, message: { id: 'sys', role: 'system', content: [T('You are the tavern-core demo model.')], source: { kind: 'system-prompt' } } }, { surfaceOp: 'append' });
  s.append('user/message', { id: 'u1', role: 'user', source: { kind: 'user' }, content: [
    T('Plan a weekend in Lisbon for two.'),
    { type: 'image', attachment: { attachmentId: 'img-map', mediaType: 'image/png', bytes: 16, width: 2, height: 2, name: 'lisbon-map.png' } },
    { type: 'file', attachment: { attachmentId: 'file-budget', mediaType: 'text/plain', bytes: 7, name: 'budget.txt' } },
  ] }, { surfaceOp: 'append' });
  s.append('step/start', { turn: 1, step: 1 });
  s.append('assistant/message', { turn: 1, step: 1, message: { id: 'a1', role: 'assistant', source: model,
    content: [T('Let me check the weather first.'), { type: 'tool-call', id: 'c1', name: 'weather', arguments: '{"city":"Lisbon"}' }] },
  stream: [], usage: { inputTokens: 30, outputTokens: 12 } }, { surfaceOp: 'append' });
  const call = s.append('tool/call', { turn: 1, step: 1, callId: 'c1', name: 'weather', arguments: '{"city":"Lisbon"}' });
  s.append('tool/result', { turn: 1, step: 1, message: { id: 't1', role: 'tool', toolCallId: 'c1', isError: false,
    content: [T('Sunny, 24 °C')], source: { kind: 'tool', callId: 'c1' } } }, { surfaceOp: 'append', sourceEventSeqs: [call] });
  s.append('step/end', { turn: 1, step: 1 });
  s.append('step/start', { turn: 1, step: 2 });
  s.append('assistant/message', { turn: 1, step: 2, message: { id: 'a2', role: 'assistant', source: model,
    content: [T('Sunny weekend ahead: Alfama and Belém on Saturday, Sintra on Sunday.')] },
  stream: [], usage: { inputTokens: 50, outputTokens: 20 } }, { surfaceOp: 'append' });
  s.append('step/end', { turn: 1, step: 2 });
  s.append('turn/end', { turn: 1, reason: { kind: 'completed' } });
  s.append('turn/start', { turn: 2 });
  s.append('user/message', { id: 'u2', role: 'user', source: { kind: 'user' }, content: [T('What should we eat?')] }, { surfaceOp: 'append' });
  s.append('step/start', { turn: 2, step: 1 });
  s.append('assistant/message', { turn: 2, step: 1, message: { id: 'a3', role: 'assistant', source: model,
    content: [T('Pastéis de nata in Belém and grilled sardines in Alfama.')] },
  stream: [], usage: { inputTokens: 60, outputTokens: 14 } }, { surfaceOp: 'append' });
  s.append('step/end', { turn: 2, step: 1 });
  s.append('turn/end', { turn: 2, reason: { kind: 'completed' } });
  s.flush();
}

/**
 * A stand-in for the model and the harness's agent loop: a turn appends the
 * prompt (a user message or the editor's trigger), streams a first step's
 * text ending in a tool call, runs the tool, and streams the answer, which
 * quotes the latest user-kind message as the model sees it (the fold).
 */
class StandInModel {
  constructor({ chunkDelay }) {
    this.chunkDelay = chunkDelay;
    this.streaming = null;
    this.stopped = false;
    this.n = 0;
  }

  attach(session, agent) { this.session = session; this.agent = agent; }
  stop() { this.stopped = true; }

  append(type, data, opts) {
    // A stopped server's model writes nothing more, as a killed harness.
    if (this.stopped) throw new Error('stopped');
    const seq = this.session.append(type, data, opts);
    this.session.flush(); // every event is on disk as soon as it is in the log
    return seq;
  }

  nextTurn() {
    let turn = 0;
    for (const e of this.session.snapshot()) if (e.type === 'turn/start') turn = Math.max(turn, e.data.turn);
    return turn + 1;
  }

  /** The followup path (S64): the trigger opens a new turn. */
  wake(message) {
    this.agent.status = 'running';
    setTimeout(() => this.turn(message), 0);
  }

  send(text) {
    this.agent.status = 'running';
    const id = `u-${Date.now().toString(36)}-${++this.n}`;
    setTimeout(() => this.turn({ id, role: 'user', content: [T(text)], source: { kind: 'user' } }), 0);
  }

  /** After a restart: close a turn that was cut short and answer its prompt. */
  recover() {
    const events = this.session.snapshot();
    let open = null;
    for (const e of events) {
      if (e.type === 'turn/start') open = e.data.turn;
      if (e.type === 'turn/end') open = null;
    }
    if (open !== null) this.append('turn/end', { turn: open, reason: { kind: 'error' } });
    const last = [...events].reverse().find((e) => e.surfaceOp !== undefined);
    if (last?.type === 'user/message' && last.data?.source?.kind === TRIGGER_KIND) {
      this.agent.status = 'running';
      setTimeout(() => this.turn(null), 0);
    }
  }

  async stream(text) {
    this.streaming = '';
    for (const word of text.split(/(?<= )/)) {
      if (this.stopped) throw new Error('stopped');
      this.streaming += word;
      await sleep(this.chunkDelay);
    }
    this.streaming = null;
  }

  async question() {
    const { fold } = await import('../session-log.js');
    const jsonl = [JSON.stringify(this.session.header), ...this.session.snapshot().map((e) => JSON.stringify(e))].join('\n');
    const { messages } = fold(jsonl, { live: true });
    const user = messages.filter((m) => m.role === 'user' && m.source?.kind === 'user').at(-1);
    return (user?.content ?? []).filter((b) => b.type === 'text').map((b) => b.text).join('\n') || '(an attachment)';
  }

  async turn(prompt) {
    const s = this.session;
    try {
      const turn = this.nextTurn();
      if (prompt) {
        this.append('turn/start', { turn });
        this.append('user/message', prompt, { surfaceOp: 'append' });
      }
      const q = await this.question();
      const n = ++this.n;
      const model = { kind: 'model', provider: 'demo', model: 'stand-in' };
      this.append('step/start', { turn, step: 1 });
      const first = `Looking that up for "${q.split('\n')[0]}".`;
      await this.stream(first);
      const callId = `call-${n}`;
      const args = JSON.stringify({ query: q.slice(0, 80) });
      this.append('assistant/message', { turn, step: 1, message: { id: `m-${n}-1`, role: 'assistant', source: model,
        content: [T(first), { type: 'tool-call', id: callId, name: 'search', arguments: args }] },
      stream: [], usage: { inputTokens: 40, outputTokens: 10 } }, { surfaceOp: 'append' });
      const call = this.append('tool/call', { turn, step: 1, callId, name: 'search', arguments: args });
      this.append('tool/result', { turn, step: 1, message: { id: `t-${n}`, role: 'tool', toolCallId: callId, isError: false,
        content: [T(`3 results for ${JSON.stringify(q.slice(0, 40))}`)], source: { kind: 'tool', callId } } },
      { surfaceOp: 'append', sourceEventSeqs: [call] });
      this.append('step/end', { turn, step: 1 });
      this.append('step/start', { turn, step: 2 });
      const answer = `Here is my answer to "${q.replace(/\s+/g, ' ')}": start early, book ahead, and enjoy it.`;
      await this.stream(answer);
      this.append('assistant/message', { turn, step: 2, message: { id: `m-${n}-2`, role: 'assistant', source: model,
        content: [T(answer)] }, stream: [], usage: { inputTokens: 60, outputTokens: 18 } }, { surfaceOp: 'append' });
      this.append('step/end', { turn, step: 2 });
      this.append('turn/end', { turn, reason: { kind: 'completed' } });
    } catch (err) {
      this.streaming = null;
      if (!this.stopped) console.error('stand-in model:', err);
    } finally {
      this.agent.status = 'idle';
      void s;
    }
  }
}
