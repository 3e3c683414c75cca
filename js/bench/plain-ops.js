// Plain-JavaScript editor ops written to the same rules as tavern-core's
// (rules O1–O25): the baseline `make bench` compares the patch
// workloads against. Like plain-handle.js it is what a careful hand-written
// implementation would be: validate, build the new string with slice(), one
// setText per op; indexOf for matching; a Levenshtein row per window for the
// near-miss hint under O24's budget.

import { APPEND_TEXT, REASONING_VERSION } from './plain-handle.js';

export class PlainEditorOpsError extends Error {
  constructor(code, message, { details = null, cause = null } = {}) {
    super(message);
    this.name = 'EditorOpsError';
    this.code = code;
    this.cause = cause;
    this.details = details;
  }
}

const display = (v) => (typeof v === 'string' || typeof v === 'number' || v === undefined || v === null || typeof v === 'boolean'
  ? String(v) : typeof v);
const invalid = (reason, message, extra) => new PlainEditorOpsError('invalid_offset', message, { details: { reason, ...extra } });

function checkHandle(h) {
  if (h === null || typeof h !== 'object' || typeof h.getText !== 'function' || typeof h.getReasoning !== 'function'
    || typeof h.setText !== 'function' || typeof h.setReasoning !== 'function') {
    throw invalid('not_an_object', 'handle must be a message editor handle');
  }
}

function checkString(op, v) {
  if (typeof v !== 'string') throw invalid('not_a_string', `${op} requires a string, got ${typeof v}`);
}

function checkOffset(name, v, max) {
  if (typeof v !== 'number' || !Number.isInteger(v)) {
    throw invalid('not_integer', `${name} must be an integer, got ${display(v)}`, { [name]: v, max });
  }
  if (v < 0 || v > max) throw invalid('out_of_range', `${name} ${v} out of range [0, ${max}]`, { [name]: v, max });
  return v + 0; // -0 acts as 0
}

function checkRange(start, end, max) {
  const s = checkOffset('start', start, max);
  const e = checkOffset('end', end, max);
  if (e < s) throw invalid('end_before_start', `replaceRange end (${end}) must be >= start (${start})`, { start, end });
  return [s, e];
}

export function appendText(h, text) {
  checkHandle(h);
  checkString('appendText', text);
  if (typeof h[APPEND_TEXT] === 'function') h[APPEND_TEXT](text); // the host's own fast path
  else h.setText(h.getText() + text);
}

export function insertAt(h, offset, text) {
  checkHandle(h);
  checkString('insertAt', text);
  const cur = h.getText();
  const o = checkOffset('offset', offset, cur.length);
  h.setText(cur.slice(0, o) + text + cur.slice(o));
}

export function replaceRange(h, start, end, text) {
  checkHandle(h);
  checkString('replaceRange', text);
  const cur = h.getText();
  const [s, e] = checkRange(start, end, cur.length);
  h.setText(cur.slice(0, s) + text + cur.slice(e));
}

export function deleteRange(h, start, end) {
  checkHandle(h);
  const cur = h.getText();
  const [s, e] = checkRange(start, end, cur.length);
  h.setText(cur.slice(0, s) + cur.slice(e));
}

const NOT_FOUND = 'find string not present in current message body. The body may have been changed by an earlier patch — re-read getText() and produce a fresh `find` based on the current content.';
const AMBIGUOUS = 'find string is not unique in the current message body. Extend the `find` string to include surrounding context (a few lines before and/or after the target) until it matches exactly one location.';

// Levenshtein distance over code units, one reused row.
let row = new Uint32Array(64);
function distance(a, b) {
  const m = b.length;
  if (row.length < m + 1) row = new Uint32Array(m + 1);
  for (let j = 0; j <= m; j++) row[j] = j;
  for (let i = 1; i <= a.length; i++) {
    let diag = row[0];
    row[0] = i;
    const ca = a.charCodeAt(i - 1);
    for (let j = 1; j <= m; j++) {
      const up = row[j];
      row[j] = Math.min(up + 1, row[j - 1] + 1, diag + (ca === b.charCodeAt(j - 1) ? 0 : 1));
      diag = up;
    }
  }
  return row[m];
}

function nearest(text, find) {
  const n = text.length;
  const m = find.length;
  const w = Math.min(n, m);
  const W = n - w + 1;
  if (m > 65535 || W * m * w > 20_000_000) return undefined;
  let best = Infinity;
  let at = 0;
  for (let o = 0; o < W; o++) {
    const d = distance(find, text.slice(o, o + w));
    if (d < best) { best = d; at = o; if (d === 0) break; }
  }
  return { offset: at, text: text.slice(at, at + w), distance: best };
}

// O17–O24 on cur: returns [start, end, replacement].
function contextReplace(cur, find, replaceWith, occurrence) {
  if (typeof find !== 'string' || find.length === 0) {
    throw new PlainEditorOpsError('patch_not_found', 'context_replace.find must be a non-empty string', { details: { find } });
  }
  let repl = replaceWith;
  if (repl === undefined || repl === null) repl = '';
  else if (typeof repl !== 'string') throw invalid('not_a_string', `context_replace.replaceWith must be a string, got ${typeof repl}`);
  const hasOcc = occurrence !== undefined && occurrence !== null;
  if (hasOcc) {
    if (typeof occurrence !== 'number' || !Number.isInteger(occurrence)) {
      throw invalid('not_integer', `occurrence must be an integer, got ${display(occurrence)}`, { occurrence });
    }
    if (occurrence < 1) throw invalid('out_of_range', `occurrence must be >= 1, got ${occurrence}`, { occurrence });
  }
  const p1 = cur.indexOf(find);
  if (p1 < 0) {
    const details = { find, replaceWith: repl, matchCount: 0 };
    const hint = nearest(cur, find);
    if (hint) details.nearest = hint;
    if (hasOcc) details.occurrence = occurrence;
    throw new PlainEditorOpsError('patch_not_found', NOT_FOUND, { details });
  }
  if (hasOcc) {
    let at = p1;
    let count = 1;
    while (count < occurrence) {
      const next = cur.indexOf(find, at + 1);
      if (next < 0) {
        throw new PlainEditorOpsError('patch_not_found', `occurrence ${occurrence} exceeds match count ${count}`,
          { details: { find, replaceWith: repl, occurrence, matchCount: count } });
      }
      at = next;
      count++;
    }
    return [at, at + find.length, repl];
  }
  const p2 = cur.indexOf(find, p1 + 1);
  if (p2 < 0) return [p1, p1 + find.length, repl];
  let count = 2;
  for (let at = cur.indexOf(find, p2 + 1); at >= 0; at = cur.indexOf(find, at + 1)) count++;
  throw new PlainEditorOpsError('patch_ambiguous', AMBIGUOUS,
    { details: { find, replaceWith: repl, firstMatch: p1, secondMatch: p2, matchCount: count } });
}

// Luker's newest spelling: oldString/newString stand in for a nullish
// find/replaceWith (messages here always say find/replaceWith).
const aliased = (p) => [p.find ?? p.oldString ?? p.find, p.replaceWith ?? p.newString ?? p.replaceWith];

function entry(cur, p) {
  if (p === null || typeof p !== 'object') throw invalid('not_an_object', `patch must be an object, got ${typeof p}`);
  switch (p.kind) {
    case 'replace_range': {
      checkString('replaceRange', p.text);
      const [s, e] = checkRange(p.start, p.end, cur.length);
      return cur.slice(0, s) + p.text + cur.slice(e);
    }
    case 'insert_at': {
      checkString('insertAt', p.text);
      const o = checkOffset('offset', p.offset, cur.length);
      return cur.slice(0, o) + p.text + cur.slice(o);
    }
    case 'delete_range': {
      const [s, e] = checkRange(p.start, p.end, cur.length);
      return cur.slice(0, s) + cur.slice(e);
    }
    case 'context_replace': {
      const [s, e, r] = contextReplace(cur, ...aliased(p), p.occurrence);
      return cur.slice(0, s) + r + cur.slice(e);
    }
    default:
      throw invalid('unknown_kind', `unknown patch kind: ${display(p.kind)}`, { kind: p.kind });
  }
}

export function applyPatch(h, input) {
  checkHandle(h);
  const list = Array.isArray(input) ? input : [input];
  if (list.length === 0) return;
  let scratch = h.getText();
  for (let k = 0; k < list.length; k++) {
    try { scratch = entry(scratch, list[k]); } catch (err) {
      if (err instanceof PlainEditorOpsError) err.details = { ...err.details, index: k };
      throw err;
    }
  }
  h.setText(scratch);
}

export function patchBySemantic(h, spec) {
  checkHandle(h);
  if (spec === null || typeof spec !== 'object') throw invalid('not_an_object', `patchBySemantic spec must be an object, got ${typeof spec}`);
  const cur = h.getText();
  const [s, e, r] = contextReplace(cur, ...aliased(spec), spec.occurrence);
  h.setText(cur.slice(0, s) + r + cur.slice(e));
}

// ---- reasoning sections (O33–O38) ----

const trimJS = (v) => v.trim();
function sectionId(id) {
  const t = typeof id === 'string' ? trimJS(id) : '';
  if (!t || /[\n\r\]]/.test(t)) throw invalid('bad_section', 'section id must be a non-empty string without line breaks or "]"', { id });
  return t;
}
function sectionStatus(st, def) {
  if (st === undefined) return def;
  if (st === null) return '';
  if (typeof st === 'string' && !/[\n\r]/.test(st.trim())) return st.trim();
  throw invalid('bad_section', 'section status must be a string without line breaks', { status: st });
}
const headerOf = (id, status) => (status ? `### [${id}] (${status})` : `### [${id}]`);

// The first line that begins with "### [id]", or -1.
function findSection(r, id) {
  const mark = `### [${id}]`;
  for (let at = r.indexOf(mark); at >= 0; at = r.indexOf(mark, at + 1)) {
    if (at === 0 || r.charCodeAt(at - 1) === 10) return at;
  }
  return -1;
}
function nextHeader(r, from) {
  for (let at = r.indexOf('### [', from); at >= 0; at = r.indexOf('### [', at + 1)) {
    if (at === 0 || r.charCodeAt(at - 1) === 10) return at;
  }
  return r.length;
}
function withSection(r, id, status) {
  let end = r.length;
  while (end > 0 && r.charCodeAt(end - 1) === 10) end--;
  return r.slice(0, end) + (end > 0 ? '\n\n' : '') + headerOf(id, status) + '\n';
}

// What the last append to a section left, per handle: valid while the
// handle's reasoning version is unchanged. When the section is the last one
// and its body runs to the end of the text, an append is appendReasoning.
// The id as given (raw) is kept too: the same string again needs no trim
// and no check, as tavern-core's permit compares it as given.
const lastAppend = new WeakMap();

export function ensureReasoningSection(h, id, status) {
  checkHandle(h);
  const sid = sectionId(id);
  const st = sectionStatus(status !== null && typeof status === 'object' ? status.status : status, 'running');
  const r = h.getReasoning();
  if (findSection(r, sid) >= 0) return;
  h.setReasoning(withSection(r, sid, st));
}

export function appendToReasoningSection(h, id, text) {
  checkHandle(h);
  if (typeof text !== 'string') throw invalid('not_a_string', `appendToReasoningSection requires a string delta, got ${typeof text}`);
  const seen = lastAppend.get(h);
  const sid = seen !== undefined && seen.raw === id ? seen.id : sectionId(id);
  if (text === '') return;
  const ver = h[REASONING_VERSION];
  if (seen && ver !== undefined && seen.ver === ver && seen.id === sid && !text.includes('\n') && typeof h.appendReasoning === 'function') {
    h.appendReasoning(text);
    seen.ver = h[REASONING_VERSION];
    return;
  }
  const r = h.getReasoning();
  let out;
  let tailEnd = false;
  const hs = findSection(r, sid);
  if (hs < 0) {
    out = withSection(r, sid, 'running') + text;
    tailEnd = true;
  } else {
    const he = r.indexOf('\n', hs);
    if (he < 0) {
      out = `${r}\n${text}`;
      tailEnd = true;
    } else {
      const ns = nextHeader(r, he + 1);
      let ce = ns;
      while (ce > he + 1 && r.charCodeAt(ce - 1) === 10) ce--;
      if (ns === r.length) {
        out = r.slice(0, ce) + text + r.slice(ce);
        tailEnd = ce === r.length;
      } else {
        out = r.slice(0, ce) + text + (ns - ce >= 2 ? r.slice(ce, ns) : '\n\n') + r.slice(ns);
      }
    }
  }
  h.setReasoning(out);
  // The body now ends the text (no newline after it, no header inside it).
  if (tailEnd && !text.includes('\n')) lastAppend.set(h, { ver: h[REASONING_VERSION], id: sid, raw: id });
  else lastAppend.delete(h);
}

export function markReasoningSectionStatus(h, id, status) {
  checkHandle(h);
  const sid = sectionId(id);
  const st = sectionStatus(status, '');
  const r = h.getReasoning();
  const hs = findSection(r, sid);
  if (hs < 0) throw invalid('bad_section', `section "${sid}" not found`, { id: sid });
  let he = r.indexOf('\n', hs);
  if (he < 0) he = r.length;
  h.setReasoning(r.slice(0, hs) + headerOf(sid, st) + r.slice(he));
}
