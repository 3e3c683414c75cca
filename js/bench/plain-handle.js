// A plain-JavaScript handle written to the same rules as tavern-core's
// (rules T10–T45): the baseline `make bench` compares against.
// It is deliberately straightforward, like a careful hand-written plugin
// host would be.

class PlainTakeoverError extends Error {
  constructor(code, message, { cause = null, details = null } = {}) {
    super(message);
    this.name = 'TakeoverError';
    this.code = code;
    this.cause = cause;
    this.details = details;
  }
}

const TYPES = new Set(['normal', 'regenerate', 'swipe', 'continue']);

// The fast paths a careful hand-written host gives its own editor ops (as
// Luker's handle does): an append that keeps the continue prefix by
// construction, so it needs no startsWith over the whole text, and a count
// of reasoning writes, so the section ops can trust what they saw last.
export const APPEND_TEXT = Symbol('appendText');
export const REASONING_VERSION = Symbol('reasoningVersion');

export function createPlainHandle(opts) {
  if (opts === undefined) opts = {};
  if (opts === null || (typeof opts !== 'object' && typeof opts !== 'function')) {
    throw new PlainTakeoverError('invalid_argument', `createMessageEditorHandle: opts must be an object; got ${opts}`);
  }
  const { generationType, originalText = '', originalReasoning = '', abortSignal, flushIntervalMs = 33, owner = 'unknown', settleOnAbort = false } = opts;
  if (!TYPES.has(generationType)) throw new PlainTakeoverError('invalid_generation_type', `opts.generationType required; got ${generationType}`);
  if (typeof originalText !== 'string') throw new PlainTakeoverError('invalid_argument', 'opts.originalText must be a string');
  if (typeof originalReasoning !== 'string') throw new PlainTakeoverError('invalid_argument', 'opts.originalReasoning must be a string');
  if (abortSignal !== undefined && !(abortSignal instanceof AbortSignal)) throw new PlainTakeoverError('invalid_argument', 'opts.abortSignal must be an AbortSignal');
  if (typeof flushIntervalMs !== 'number' || !(flushIntervalMs >= 0 && flushIntervalMs <= 2147483647)) throw new PlainTakeoverError('invalid_argument', 'opts.flushIntervalMs');
  if (typeof owner !== 'string') throw new PlainTakeoverError('invalid_argument', 'opts.owner must be a string');
  if (typeof settleOnAbort !== 'boolean') throw new PlainTakeoverError('invalid_argument', 'opts.settleOnAbort must be a boolean');

  let text = originalText;
  let reasoning = originalReasoning;
  let state = 'open';
  let pending = false;
  let cb = null;
  let timer;
  let delivering = false;
  let signal = abortSignal;
  let rver = 0;
  let resolveComplete;
  const complete = new Promise((r) => { resolveComplete = r; });

  const deliver = (phase) => {
    const outer = delivering;
    delivering = true;
    try { cb(text, reasoning); } catch (err) {
      console.warn(`[message-takeover] onUpdate threw during ${phase} (owner=${owner})`, err);
    } finally { delivering = outer; }
  };
  const cancelTimer = () => { if (timer !== undefined) { clearTimeout(timer); timer = undefined; } };
  const write = () => {
    pending = true;
    if (!cb) return;
    if (flushIntervalMs === 0) {
      if (delivering) return;
      while (pending && cb && state === 'open') { pending = false; deliver('immediate flush'); }
      return;
    }
    if (timer === undefined) {
      timer = setTimeout(() => {
        timer = undefined;
        if (pending && cb && state === 'open') { pending = false; deliver('scheduled flush'); }
      }, flushIntervalMs);
    }
  };
  const rejectIfSettled = () => {
    if (state !== 'open') throw new PlainTakeoverError(`editor_${state}`, `editor ${state}; mutation rejected`);
  };
  const settle = (to) => {
    if (state === to) return Promise.resolve();
    if (state !== 'open') return Promise.reject(new PlainTakeoverError(`editor_${state}`, `cannot ${to} a ${state} handle`));
    state = to;
    cancelTimer();
    pending = false;
    if (to !== 'discarded' && cb) deliver('final flush');
    resolveComplete(to === 'discarded'
      ? { status: to, finalText: originalText, finalReasoning: originalReasoning }
      : { status: to, finalText: text, finalReasoning: reasoning });
    return Promise.resolve();
  };
  return {
    getText: () => text,
    getReasoning: () => reasoning,
    setText(v) {
      if (typeof v !== 'string') throw new PlainTakeoverError('invalid_argument', `setText requires string; got ${typeof v}`);
      rejectIfSettled();
      if (generationType === 'continue' && !v.startsWith(originalText)) {
        throw new PlainTakeoverError('invalid_op_for_continue', `setText in 'continue' must keep originalText prefix; got ${JSON.stringify(v.slice(0, 32))}…`);
      }
      text = v;
      write();
    },
    setReasoning(v) {
      if (typeof v !== 'string') throw new PlainTakeoverError('invalid_argument', `setReasoning requires string; got ${typeof v}`);
      rejectIfSettled();
      reasoning = v;
      rver++;
      write();
    },
    appendReasoning(d) {
      if (typeof d !== 'string') throw new PlainTakeoverError('invalid_argument', `appendReasoning requires string; got ${typeof d}`);
      if (d === '') return;
      rejectIfSettled();
      reasoning += d;
      rver++;
      write();
    },
    // The text already starts with originalText, so text + d does too.
    [APPEND_TEXT](d) {
      rejectIfSettled();
      text += d;
      write();
    },
    get [REASONING_VERSION]() { return rver; },
    isSettled: () => state !== 'open',
    commit: () => settle('committed'),
    abort: () => settle('aborted'),
    discard: () => settle('discarded'),
    setOnUpdate(fn) {
      if (typeof fn === 'function') {
        cb = fn;
        if (pending) { cancelTimer(); pending = false; deliver('attach flush'); }
      } else if (fn == null) { cb = null; cancelTimer(); } else {
        throw new PlainTakeoverError('invalid_argument', `setOnUpdate requires a function or null; got ${typeof fn}`);
      }
    },
    get complete() { return complete; },
    get abortSignal() { return (signal ??= new AbortController().signal); },
  };
}
