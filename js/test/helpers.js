// Shared test fixtures: the spec's H(o) and a callback recorder.
import { createMessageEditorHandle } from '../message-takeover.js';

export function H(o = {}) {
  return createMessageEditorHandle({ generationType: 'normal', flushIntervalMs: 0, ...o });
}

export function recorder() {
  const calls = [];
  const cb = (t, r) => { calls.push([t, r]); };
  cb.calls = calls;
  return cb;
}

/** Run fn and return the error it throws (fails if it doesn't). */
export function thrown(fn) {
  try { fn(); } catch (e) { return e; }
  throw new Error('expected a throw');
}

export async function rejected(p) {
  try { await p; } catch (e) { return e; }
  throw new Error('expected a rejection');
}

export function codeUnits(s) {
  return Array.from({ length: s.length }, (_, i) => s.charCodeAt(i).toString(16));
}
