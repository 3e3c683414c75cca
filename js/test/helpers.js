// Shared test fixtures: the spec's H(o) and a callback recorder.
import { createMessageEditorHandle, GENERATE_TAKEOVER_DISPATCH } from '../message-takeover.js';
import { runTakeover } from '../takeover-host.js';

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

// The spec's fake host: emit runs listeners one after another, awaiting
// each; chat starts with one user entry; every callback but
// isCurrentGeneration appends to log; the tokens isCurrentGeneration was
// asked about are kept in order.
export function fakeHost(over = {}) {
  const log = [];
  const listeners = [];
  const state = { live: true, log, listeners, chat: [{ text: 'user says hi', reasoning: '' }], tokens: [] };
  const rec = (name, ...args) => log.push([name, ...args]);
  state.host = {
    async emit(ev, ...args) {
      if (ev === GENERATE_TAKEOVER_DISPATCH) {
        for (const l of listeners) await l(...args);
        return;
      }
      rec('emit', ev, ...args);
    },
    acquirePlaceholder(type) {
      rec('acquirePlaceholder', type);
      if (type === 'normal') state.chat.push({ text: '', reasoning: '' });
      return state.chat.length - 1;
    },
    readSlot(id) { rec('readSlot', id); return { ...state.chat[id] }; },
    writeSlot(id, text, reasoning) { rec('writeSlot', id, text, reasoning); state.chat[id] = { text, reasoning }; },
    redraw(id) { rec('redraw', id); },
    persist(id, o) { rec('persist', id, o); },
    removeSlot(id) { rec('removeSlot', id); state.chat.splice(id, 1); },
    restoreSlot(id, text, reasoning) { rec('restoreSlot', id, text, reasoning); state.chat[id] = { text, reasoning }; },
    unlockUI() { rec('unlockUI'); },
    cleanupText(text, o) { rec('cleanupText', text, o); return text.trim(); },
    afterCommit(id, o) { rec('afterCommit', id, o); },
    isCurrentGeneration(token) { state.tokens.push(token); return state.live; },
    ...over,
  };
  return state;
}

// runTakeover as the driver's host calls it: a normal turn's init with
// prompt P and data G, the turn's AbortController kept on state.ac.
export const P = { prompt: 'P' };
export const G = { data: 'G' };

export function run(state, type, extra = {}) {
  state.ac = new AbortController();
  return runTakeover({
    type, isContinue: type === 'continue', forceName2: false, isStreamingEnabled: true,
    finalPrompt: P, generateData: G, abortSignal: state.ac.signal, generationToken: 1, ...extra,
  }, state.host);
}
