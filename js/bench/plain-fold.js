// Plain-JS baseline for the session-log benchmark: read a JSONL log, run
// the validator of the session-log rules (S5–S14, S21, V1–V23, same order and
// messages) and the positional fold of §5 (S25–S28), written from the spec
// alone. It is the yardstick for js/session-log.js, not a second
// implementation to ship: it has no transcript, overlay or planner, and
// none of the stored-file rules of docs/session-log.md (packed rows, the v0
// migration and load checks), which the benchmark's v4 log never meets.

const MAX_SAFE = Number.MAX_SAFE_INTEGER;

const KNOWN = new Set([
  'user/message', 'assistant/message', 'tool/result', 'system/message', 'developer/message',
  'turn/start', 'turn/end', 'step/start', 'step/end', 'request/header', 'request/context', 'tool/call',
  'agent/inbox/spliced', 'assistant/chunk', 'reasoning-chunks', 'text-chunks', 'tool-call-chunks',
  'compaction/start', 'compaction/summary', 'compaction/end', 'session/end-seed', 'session/title',
  'session/title-llm-request', 'approval/policy', 'approval/asked', 'approval/decided', 'permission/preset',
  'sandbox/mode', 'subagent/descriptor', 'tool/code-dispatch-start', 'tool/code-dispatch', 'todo/write',
  'tool-workflow/run-start', 'tool-workflow/run-end', 'tool-workflow/agent-start', 'tool-workflow/agent-end',
  'goal/change', 'llm/retry', 'llm/retry-started',
]);
const known = (t) => KNOWN.has(t) || t.startsWith('hook/');

// S9
function eligible(v, t) {
  switch (t) {
    case 'user/message': case 'assistant/message': case 'tool/result': return true;
    case 'system/message': return v >= 3;
    case 'developer/message': return v >= 4;
    default: return false;
  }
}

// S8
const isSeq = (x, v) => typeof x === 'number' && Number.isInteger(x) && x >= 0 && x <= MAX_SAFE && !(v >= 3 && Object.is(x, -0));

export class LogError extends Error {
  constructor(rule, seq, message) { super(message); this.rule = rule; this.seq = seq; }
}
const fail = (rule, seq, message) => { throw new LogError(rule, seq, message); };

function deepEqual(a, b) {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!deepEqual(a[i], b[i])) return false;
    return true;
  }
  if (Array.isArray(b)) return false;
  const ka = Object.keys(a);
  if (ka.length !== Object.keys(b).length) return false;
  for (const k of ka) if (!Object.hasOwn(b, k) || !deepEqual(a[k], b[k])) return false;
  return true;
}

// V20 where a tool result is a tool-result block (v0–v3): data compared with
// message.content reduced to its first block, that block's content blanked.
function withoutBlockContent(d) {
  const first = d.message.content[0];
  return { ...d, message: { ...d.message, content: [{ ...first, content: null }] } };
}

// V20 (v4): tool/result data equal in everything but message.content.
function withoutContent(d) {
  if (d === null || typeof d !== 'object' || Array.isArray(d)) return d;
  const out = { ...d };
  if (d.message && typeof d.message === 'object' && !Array.isArray(d.message)) {
    const { content, ...rest } = d.message;
    out.message = rest;
  }
  return out;
}

// V8–V13
function checkSources(type, src, present, idx, v) {
  if (!present) return null;
  if (v >= 3 && type === 'assistant/message') fail('V8', idx, 'assistant/message embeds its source stream and cannot carry sourceEventSeqs');
  if (!Array.isArray(src)) fail('V9', idx, `sourceEventSeqs on event at seq ${idx} must be an array when present`);
  if (src.length === 0) {
    if (v >= 3) fail('V10', idx, 'sourceEventSeqs must not be empty');
    if (type !== 'assistant/message') fail('V10', idx, 'sourceEventSeqs must not be empty except on assistant/message');
  }
  for (const x of src) if (!isSeq(x, v)) fail('V11', idx, `session event "${type}" sourceEventSeqs must densely contain non-negative safe integers`);
  if (new Set(src).size !== src.length) fail('V12', idx, 'sourceEventSeqs must not contain duplicates');
  for (const n of src) if (n >= idx) fail('V13', idx, `sourceEventSeqs must reference earlier events: ${n} >= current seq ${idx}`);
  return src;
}

function replaceEndpoints(op, v) {
  const [sk, ek] = v >= 3 ? ['startSeq', 'endSeq'] : ['start', 'end'];
  if (Object.keys(op).length !== 3 || op.op !== 'replace' || !(sk in op) || !(ek in op)) return null;
  const s = op[sk]; const e = op[ek];
  return isSeq(s, v) && isSeq(e, v) ? [s, e] : null;
}

/**
 * A log being folded: events, the surface (seqs in fold order) and the
 * replacement generation. `append` validates and folds one event (S21, S25).
 */
export class PlainLog {
  constructor(version, { live = false } = {}) {
    this.version = version;
    this.live = live;
    this.events = [];
    this.nodes = [];
    this.generation = 0;
  }

  append(ev) {
    const idx = this.events.length;
    const v = this.version;
    // 1. Contiguity (V1)
    if (!isSeq(ev.seq, v) || ev.seq !== idx) fail('V1', idx, `session event seq ${ev.seq} is not contiguous; expected ${idx}`);
    const type = String(ev.type);
    if (v >= 3 && !known(type)) {
      if (ev.ignorable !== true && !this.live) fail('V22', idx, `session event "${type}" has an unknown type and is not marked ignorable`);
      this.events.push(ev);
      return;
    }
    // 2. Eligibility and marker (V2–V6)
    const hasSO = 'surfaceOp' in ev; const hasSrc = 'sourceEventSeqs' in ev;
    if (!eligible(v, type)) {
      if (hasSO) fail('V2', idx, `session event "${type}" is not surface-eligible and cannot carry surfaceOp`);
      if (hasSrc) fail('V3', idx, `session event "${type}" is not surface-eligible and cannot carry sourceEventSeqs`);
      this.events.push(ev);
      return;
    }
    if (!hasSO) fail('V4', idx, `session event "${type}" is surface-eligible and requires a surfaceOp marker`);
    const op = ev.surfaceOp;
    let ends = null;
    if (typeof op === 'string') {
      if (op !== 'append') fail('V5', idx, `session event "${type}" carries an invalid surfaceOp`);
    } else if (op !== null && typeof op === 'object' && !Array.isArray(op)) {
      ends = replaceEndpoints(op, v);
      if (!ends) fail('V6', idx, `session event "${type}" carries an invalid replace surfaceOp`);
    } else {
      fail('V5', idx, `session event "${type}" carries an invalid surfaceOp`);
    }
    // 3. V7
    if (ends && v >= 3 && (ends[0] >= idx || ends[1] >= idx)) fail('V7', idx, `surface replace at seq ${idx}: startSeq and endSeq must reference earlier events`);
    // 4. Event-local sources (after the lookup for a legacy replacement)
    let src = null;
    if (v >= 3 || !ends) src = checkSources(type, ev.sourceEventSeqs, hasSrc, idx, v);
    if (!ends) {
      this.events.push(ev);
      this.nodes.push(idx);
      return;
    }
    // 5. Replacement: positions (V14–V16), coverage, tool/result, head
    const [s, e] = ends;
    const si = this.nodes.indexOf(s);
    if (si < 0) fail('V14', idx, `surface replace: start seq ${s} not found in surface`);
    const ei = this.nodes.indexOf(e);
    if (ei < 0) fail('V15', idx, `surface replace: end seq ${e} not found in surface`);
    if (si > ei) fail('V16', idx, `surface replace: start seq ${s} (index ${si}) is after end seq ${e} (index ${ei})`);
    if (v < 3) src = checkSources(type, ev.sourceEventSeqs, hasSrc, idx, v);
    const cited = new Set(src ?? []);
    const missing = [];
    for (let i = si; i <= ei; i++) if (!cited.has(this.nodes[i])) missing.push(this.nodes[i]);
    if (missing.length) fail('V17', idx, `surface replace: sourceEventSeqs must include every shadowed surface node; missing ${missing.join(', ')}`);
    if (type === 'tool/result') {
      if (si !== ei) fail('V18', idx, 'tool/result surface replacement must rewrite exactly one current node');
      const target = this.events[this.nodes[si]];
      if (target.type !== 'tool/result') fail('V19', idx, 'tool/result surface replacement must target a current tool/result');
      const same = v <= 3
        ? (() => { try { return deepEqual(withoutBlockContent(target.data), withoutBlockContent(ev.data)); } catch { return false; } })()
        : deepEqual(withoutContent(target.data), withoutContent(ev.data));
      if (!same) fail('V20', idx, 'tool/result surface replacement may change only content');
    }
    if (v >= 3 && si === 0 && this.events[this.nodes[0]].type === 'system/message' && (type !== 'system/message' || ei !== 0)) {
      fail('V21', idx, 'surface replace: node 0 holds the system prompt and may be rewritten only by a system/message over exactly that node');
    }
    this.events.push(ev);
    this.nodes.splice(si, ei - si + 1, idx);
    this.generation++;
  }

  /**
   * S28: one message per node, none for an empty system/developer/assistant
   * and none that is not an object (never a null message).
   */
  messages() {
    const out = [];
    const isObject = (m) => m !== null && typeof m === 'object' && !Array.isArray(m);
    for (const seq of this.nodes) {
      const ev = this.events[seq];
      const msg = ev.type === 'user/message' ? ev.data : ev.data?.message;
      if (!isObject(msg)) continue;
      if (ev.type === 'user/message' || ev.type === 'tool/result') { out.push(msg); continue; }
      const c = msg.content;
      const empty = c == null || (Array.isArray(c) ? c.length === 0 : c === '');
      if (!empty) out.push(msg);
    }
    return out;
  }
}

// S5
function header(h) {
  if (h === null || typeof h !== 'object' || Array.isArray(h) || h.type !== 'session') {
    fail('S5', -1, 'session log header must be a JSON object with type "session"');
  }
  if (!('version' in h)) return 0;
  if (!isSeq(h.version, 0) || h.version > 4) fail('V23', -1, `unsupported session format version ${h.version}`);
  return h.version;
}

/** Read, validate and fold a JSONL log; throws LogError on the first problem. */
export function readLog(text, options = {}) {
  let log = null;
  let start = 0;
  let lineNo = 0;
  while (start < text.length) {
    let end = text.indexOf('\n', start);
    if (end < 0) end = text.length;
    const line = text.slice(start, end);
    start = end + 1;
    lineNo++;
    if (line.trim() === '') continue;
    const value = JSON.parse(line);
    if (log === null) { log = new PlainLog(header(value), options); continue; }
    if (value === null || typeof value !== 'object' || Array.isArray(value)) fail('S6', log.events.length, `line ${lineNo}: session event must be a JSON object`);
    log.append(value);
  }
  if (log === null) fail('S5', -1, 'session log is empty: the header line is missing');
  return log;
}

/** The fold view js/session-log.js's fold() answers: surface and messages. */
export function fold(text, options) {
  const log = readLog(text, options);
  return { version: log.version, surface: log.nodes.slice(), messages: log.messages(), length: log.events.length };
}

/** The validate() verdict. */
export function validate(text, options) {
  try {
    const log = readLog(text, options);
    return { ok: true, version: log.version, events: log.events.length };
  } catch (e) {
    if (e instanceof LogError) return { ok: false, error: e.message, rule: e.rule, seq: e.seq };
    throw e;
  }
}
