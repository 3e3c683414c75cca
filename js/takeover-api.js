// The takeover kernel's facade (spec/takeover.md §2–6). Every rule lives in
// Go (takeover/); this file marshals arguments, keeps each handle's strings
// (so a streamed rope is never read per call), creates Promises, runs timers
// and calls callbacks when Go asks.

import { BRAND, kindOf } from './codec.js';

export const GENERATE_TAKEOVER_DISPATCH = 'generate_takeover_dispatch';

const STATUS = ['open', 'committed', 'aborted', 'discarded'];
const WRITE_QUIET = 1; // wasm/browser/takeover.go writeQuiet

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
    this.complete = null;
    this.owner = undefined;
    this.quiet = false; // Go said string writes are no-ops for now
    this.ref = 0; // open: Go's id; settled: -(remnant) (wasm/browser/takeover.go)
  }
  field(f) {
    return f === 0 ? this.text : f === 1 ? this.reasoning : f === 2 ? this.origText : this.origReasoning;
  }
}

export function createTakeoverApi(core) {
  const ex = core.ex;
  const slots = new Map(); // open handle id → Slot, for Go's effects

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

  // Effects Go calls through the slow lane (wasm/browser/takeover.go).
  // A host function that throws is answered with 1 (the thrown value kept
  // for a warning), never thrown into Go; Go decides what follows.
  const threw = (err) => { core.lastThrown = err; return 1; };
  const fx = {
    pull(id, f, n, addr) { return core.writeAt(addr, slots.get(id).field(f), n); },
    startTimer(id, ms, token) {
      const s = slots.get(id);
      try {
        s.timer = globalThis.setTimeout(() => { s.timer = undefined; call(s, ex.tk_timer, token); }, ms);
        return 0;
      } catch (err) { return threw(err); }
    },
    cancelTimer(id) {
      const s = slots.get(id);
      const t = s.timer;
      s.timer = undefined;
      try { globalThis.clearTimeout(t); return 0; } catch (err) { return threw(err); }
    },
    // `settling` is non-zero for the final flush: the settlement Go has
    // already made, applied before the callback runs (T31).
    deliver(id, settling) {
      const s = slots.get(id);
      if (settling) settled(s, settling);
      const cb = s.cb; // called as a plain function (T43)
      try {
        cb(s.text, s.reasoning);
        return 0;
      } catch (err) { return threw(err); }
    },
    warn(n, addr) {
      const thrown = core.lastThrown;
      core.lastThrown = undefined;
      try { console.warn(core.string(addr, n), thrown); } catch { /* nowhere left to report it */ }
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

  // Any call other than a write withdraws the "quiet" answer, before and
  // after: the kernel's state may change under it.
  function call(slot, fn, arg) {
    slot.quiet = false;
    const st = fn(slot.ref, arg);
    slot.quiet = false;
    return st;
  }

  // When Go reports that a call settled the handle: resolve `complete`, and
  // from now on refer to the handle by the remnant Go handed back (the
  // kernel has dropped it; its state decides every later call). The final
  // flush reports it first, so the call's own answer finds it done.
  function settled(slot, st) {
    if (slot.ref < 0) return;
    slots.delete(slot.ref);
    slot.ref = -(st >> 9);
    slot.resolve(outcomeOf(slot, st));
  }

  function terminal(slot, st) {
    if (st < 0) return Promise.reject(fail());
    if (st & 0x100) settled(slot, st);
    return Promise.resolve(undefined);
  }

  function describeSignal(sig) {
    return sig instanceof AbortSignal ? (sig.aborted ? BRAND.ABORTED_SIGNAL : BRAND.SIGNAL) : BRAND.PLAIN;
  }

  // createMessageEditorHandle, for a host default of settleOnAbort
  // (installTakeoverContext's option; the exported function has none).
  // Every option is read before anything is encoded: a getter may call
  // back into the core, which uses the same request buffer.
  function handleFactory(hostSettle) {
    return function createMessageEditorHandle(opts) {
      const o = opts !== null && typeof opts === 'object' ? opts : undefined;
      const generationType = o?.generationType;
      const originalText = o?.originalText;
      const originalReasoning = o?.originalReasoning;
      const signal = o?.abortSignal;
      const signalBrand = describeSignal(signal);
      const flushIntervalMs = o?.flushIntervalMs;
      const owner = o?.owner;
      const settleOnAbort = o?.settleOnAbort;
      const now = Date.now();
      core.begin();
      core.value(opts);
      core.value(generationType);
      core.value(originalText);
      core.value(originalReasoning);
      core.value(signal, signalBrand);
      core.value(flushIntervalMs);
      core.value(owner);
      core.value(settleOnAbort);
      core.f64(now);
      const st = ex.tk_create(core.flush(), hostSettle);
      core.refs.length = 0;
      if (st < 0) throw fail();
      return makeHandle(st, originalText ?? '', originalReasoning ?? '', signal, owner);
    };
  }
  const createMessageEditorHandle = handleFactory(0);
  let createSettling; // made on first use

  // The handle. Its methods are closures (no method uses `this`, so
  // detached calls work, T19); the slot sits in a private field, which
  // also brands the object as made by this core instance.
  class MessageEditorHandle {
    #slot;
    #signal;
    constructor(slot, signal) {
      this.#slot = slot;
      this.#signal = signal;
      this.getText = () => slot.text;
      this.getReasoning = () => slot.reasoning;
      // Store first, tell Go, restore if Go refuses: the string itself is
      // never read here (DESIGN: the streaming path stays O(chunk)). While
      // Go's last answer was "quiet", string writes are no-ops for the
      // kernel and skip the crossing (Handle.Quiet).
      this.setText = (v) => {
        const prev = slot.text;
        slot.text = v;
        if (slot.quiet && typeof v === 'string') return;
        const st = ex.tk_set(slot.ref, 0, kindOf(v), typeof v === 'string' ? v.length : 0);
        if (st < 0) { slot.text = prev; throw fail(); }
        slot.quiet = st === WRITE_QUIET;
      };
      this.setReasoning = (v) => {
        const prev = slot.reasoning;
        slot.reasoning = v;
        if (slot.quiet && typeof v === 'string') return;
        const st = ex.tk_set(slot.ref, 1, kindOf(v), 0);
        if (st < 0) { slot.reasoning = prev; throw fail(); }
        slot.quiet = st === WRITE_QUIET;
      };
      this.appendReasoning = (delta) => {
        const prev = slot.reasoning;
        const isStr = typeof delta === 'string';
        if (isStr) slot.reasoning = prev + delta;
        if (slot.quiet && isStr) return;
        const st = ex.tk_append_reasoning(slot.ref, kindOf(delta), isStr ? delta.length : 0);
        if (st < 0) { slot.reasoning = prev; throw fail(); }
        slot.quiet = st === WRITE_QUIET;
      };
      // Go hands back a remnant ref exactly when the handle settles.
      this.isSettled = () => slot.ref <= 0;
      this.commit = () => terminal(slot, call(slot, ex.tk_settle, 1));
      this.abort = () => terminal(slot, call(slot, ex.tk_settle, 2));
      this.discard = () => terminal(slot, call(slot, ex.tk_settle, 3));
      this.setOnUpdate = (fn) => {
        const prev = slot.cb;
        slot.cb = typeof fn === 'function' ? fn : null;
        if (call(slot, ex.tk_on_update, kindOf(fn)) !== 0) { slot.cb = prev; throw fail(); }
      };
    }
    get complete() { return this.#slot.complete; }
    // A handle without a given signal gets one that never aborts, made on
    // first read; the same object is returned ever after (T13).
    get abortSignal() { return (this.#signal ??= new AbortController().signal); }
    static slotOf(h) { return h !== null && typeof h === 'object' && #slot in h ? h.#slot : undefined; }
  }

  function makeHandle(st, text, reasoning, signal, owner) {
    const slot = new Slot(text, reasoning);
    slot.owner = owner; // as given (a string or undefined): claims name it
    slot.complete = new Promise((resolve) => { slot.resolve = resolve; });
    if (st & 1) {
      settled(slot, st >> 1); // created already aborted (T35)
    } else {
      slot.ref = st >> 2;
      slots.set(slot.ref, slot);
    }
    const handle = new MessageEditorHandle(slot, signal);
    if (!(st & 1) && (st & 2)) {
      try {
        signal.addEventListener('abort', () => {
          if (slot.ref <= 0) return; // settled: the kernel no longer knows it
          const r = call(slot, ex.tk_signal_abort);
          if (r < 0) console.error(fail());
          else if (r & 0x100) settled(slot, r);
        }, { once: true });
      } catch (err) {
        // The create fails as a whole (T17): Go forgets the handle.
        slots.delete(slot.ref);
        ex.tk_release(slot.ref);
        throw err;
      }
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
    // The variant whose settleOnAbort defaults to true (one function per
    // core, so installing a context twice changes nothing).
    settlingCreate: () => (createSettling ??= handleFactory(1)),
    listUnsettledHandles,
    slotOf: (h) => MessageEditorHandle.slotOf(h),
    fail,
  };
}
