// The takeover kernel's facade (spec/takeover.md §2–6). Every rule lives in
// Go (takeover/); this file marshals arguments, keeps each handle's strings
// (so a streamed rope is never read per call), creates Promises, runs timers
// and calls callbacks when Go asks.

import { BRAND, kindOf } from './core.js';

export const GENERATE_TAKEOVER_DISPATCH = 'generate_takeover_dispatch';

const STATUS = ['open', 'committed', 'aborted', 'discarded'];
const NO_OPTS = undefined;

// Per-handle state the facade holds for Go.
class Slot {
  constructor(text, reasoning) {
    this.text = text;
    this.reasoning = reasoning;
    this.origText = text;
    this.origReasoning = reasoning;
    this.cb = null;
    this.timer = undefined;
    this.resolve = null;
  }
  field(f) {
    return f === 0 ? this.text : f === 1 ? this.reasoning : f === 2 ? this.origText : this.origReasoning;
  }
}

export function createTakeoverApi(core) {
  const ex = core.ex;
  const slots = new Map();

  class TakeoverError extends Error {
    constructor(code, message, options) {
      super(message);
      const { cause = null, details = null } = options ?? {};
      this.name = 'TakeoverError';
      this.code = code;
      this.cause = cause;
      this.details = details;
    }
  }
  const classes = { 0: TakeoverError, internal: TakeoverError };
  const fail = () => core.takeError(classes);

  const released = new FinalizationRegistry((id) => {
    slots.delete(id);
    ex.tk_release(id);
  });

  // Effects Go calls through the slow lane (wasm/browser/takeover.go).
  const fx = {
    pull(id, f, n, addr) { return core.writeAt(addr, slots.get(id).field(f), n); },
    startTimer(id, ms, token) {
      const s = slots.get(id);
      s.timer = globalThis.setTimeout(() => { s.timer = undefined; ex.tk_timer(id, token); }, ms);
    },
    cancelTimer(id) {
      const s = slots.get(id);
      globalThis.clearTimeout(s.timer);
      s.timer = undefined;
    },
    deliver(id) {
      const s = slots.get(id);
      const cb = s.cb;
      try {
        cb(s.text, s.reasoning);
        return 0;
      } catch (err) {
        core.lastThrown = err;
        return 1;
      }
    },
    warn(n, addr) {
      const thrown = core.lastThrown;
      core.lastThrown = undefined;
      console.warn(core.string(addr, n), thrown);
    },
  };
  core.takeoverFx = fx;

  function outcomeOf(slot, packed) {
    return {
      status: STATUS[(packed >> 4) & 3],
      finalText: slot.field((packed >> 2) & 3),
      finalReasoning: slot.field(packed & 3),
    };
  }

  // A terminal call's packed result: resolve `complete` now when Go says
  // this call settled the handle.
  function terminal(slot, st) {
    if (st < 0) return Promise.reject(fail());
    if (st & 0x100) slot.resolve(outcomeOf(slot, st));
    return Promise.resolve(undefined);
  }

  function describeSignal(sig) {
    return sig instanceof AbortSignal ? (sig.aborted ? BRAND.ABORTED_SIGNAL : BRAND.SIGNAL) : BRAND.PLAIN;
  }

  function createMessageEditorHandle(opts) {
    const isObj = opts !== null && (typeof opts === 'object' || typeof opts === 'function');
    const o = isObj ? opts : NO_OPTS;
    const originalText = o?.originalText;
    const originalReasoning = o?.originalReasoning;
    const signal = o?.abortSignal;
    core.begin();
    core.value(opts);
    core.value(o?.generationType);
    core.value(originalText);
    core.value(originalReasoning);
    core.value(signal, describeSignal(signal));
    core.value(o?.flushIntervalMs);
    core.value(o?.owner);
    core.value(o?.settleOnAbort);
    core.f64(Date.now());
    const st = ex.tk_create(core.flush());
    core.refs.length = 0;
    if (st < 0) throw fail();
    return makeHandle(st >> 2, st, originalText ?? '', originalReasoning ?? '', signal);
  }

  function makeHandle(id, flags, text, reasoning, givenSignal) {
    const slot = new Slot(text, reasoning);
    slots.set(id, slot);
    const complete = new Promise((resolve) => { slot.resolve = resolve; });
    let signal = givenSignal;

    const handle = {
      getText: () => slot.text,
      getReasoning: () => slot.reasoning,
      setText(v) {
        const prev = slot.text;
        slot.text = v;
        const st = ex.tk_set(id, 0, kindOf(v), typeof v === 'string' ? v.length : 0);
        if (st !== 0) { slot.text = prev; throw fail(); }
      },
      setReasoning(v) {
        const prev = slot.reasoning;
        slot.reasoning = v;
        const st = ex.tk_set(id, 1, kindOf(v), 0);
        if (st !== 0) { slot.reasoning = prev; throw fail(); }
      },
      appendReasoning(delta) {
        const prev = slot.reasoning;
        const isStr = typeof delta === 'string';
        if (isStr) slot.reasoning = prev + delta;
        const st = ex.tk_append_reasoning(id, kindOf(delta), isStr ? delta.length : 0);
        if (st !== 0) { slot.reasoning = prev; throw fail(); }
      },
      isSettled: () => ex.tk_settled(id) === 1,
      commit: () => terminal(slot, ex.tk_settle(id, 1)),
      abort: () => terminal(slot, ex.tk_settle(id, 2)),
      discard: () => terminal(slot, ex.tk_settle(id, 3)),
      setOnUpdate(fn) {
        const prev = slot.cb;
        slot.cb = typeof fn === 'function' ? fn : null;
        if (ex.tk_on_update(id, kindOf(fn)) !== 0) { slot.cb = prev; throw fail(); }
      },
      get complete() { return complete; },
      // A handle without a given signal gets one that never aborts; it is
      // made on first read, and the same object is returned ever after.
      get abortSignal() { return (signal ??= new AbortController().signal); },
    };
    // No method uses `this`, so detached calls work (T19).
    core.handleIds.set(handle, id);
    released.register(handle, id);

    if (flags & 1) slot.resolve(outcomeOf(slot, ex.tk_outcome(id)));
    if (flags & 2) {
      signal.addEventListener('abort', () => {
        const st = ex.tk_signal_abort(id);
        if (st < 0) { console.error(fail()); return; }
        if (st & 0x100) slot.resolve(outcomeOf(slot, st));
      }, { once: true });
    }
    return handle;
  }

  function listUnsettledHandles() {
    const n = ex.tk_list(Date.now());
    if (n < 0) throw fail();
    const d = core.decoder(n);
    const count = d.f64();
    const rows = [];
    for (let i = 0; i < count; i++) {
      rows.push({ owner: d.str(), generationType: d.str(), ageMs: d.f64(), claimed: d.unit() === 1 });
    }
    return rows;
  }

  return {
    TakeoverError,
    GENERATE_TAKEOVER_DISPATCH,
    createMessageEditorHandle,
    listUnsettledHandles,
    handleId: (h) => core.handleIds.get(h),
    slotOf: (id) => slots.get(id),
    fail,
  };
}
