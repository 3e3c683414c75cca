// The takeover kernel's facade (spec/takeover.md §2–6). Every rule lives in
// Go (takeover/); this file marshals arguments, keeps each handle's strings
// (so a streamed rope is never read per call), creates Promises, runs timers
// and calls callbacks when Go asks.

import { BRAND, isAbortSignal, kindOf } from './codec.js';
import {
  CLASS, TK_CREATE, TK_FAST, TK_FAST_FIELD, TK_FAST_OWNER, TK_FAST_SIGNAL, TK_FIELD, TK_GEN, TK_PACK, TK_STATE, TK_STATE_NAME, TK_WRITE,
} from './protocol.js';

export const GENERATE_TAKEOVER_DISPATCH = 'generate_takeover_dispatch';

// tk_create_fast takes the index of the generation type.
const GEN_INDEX = new Map(TK_GEN.map((g, i) => [g, i]));

// One field of tk_create_fast's kinds.
const fast = (field, code) => code << (TK_FAST.BITS * field);

function heard(slot, st) {
  slot.quiet = st === TK_WRITE.QUIET;
  slot.quietAppend = st === TK_WRITE.QUIET || st === TK_WRITE.QUIET_APPEND;
}

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
    this.quietAppend = false; // … reasoning writes and editor-op appends, at least
    this.ref = 0; // open: Go's id; settled: -(remnant) (wasm/browser/takeover.go)
    // Counts every store of the reasoning: Go keeps the section layout of
    // one version (wasm/browser/editops.go), and the editor ops keep the
    // value cut in two where Go said the next append lands (rsplit).
    this.rver = 0;
    this.rsplit = null; // { ver, head, tail } with head + tail === reasoning at rver
    // Go's standing answer that appending a non-empty delta without a line
    // break to section `rpermit` is a plain append (Edit.Permit), valid at
    // version rpermitVer; rlag counts the units appended so since Go's
    // layout was at rlagFrom (editor-ops-api.js).
    this.rpermit = null;
    this.rpermitVer = -1;
    this.rlag = 0;
    this.rlagFrom = 0;
    // The handle's own getText, getReasoning, setText, setReasoning: the
    // editor ops take their shortcuts only while the handle still has them.
    this.fns = null;
  }
  field(f) {
    return f === TK_FIELD.TEXT ? this.text : f === TK_FIELD.REASONING ? this.reasoning
      : f === TK_FIELD.ORIGINAL_TEXT ? this.origText : this.origReasoning;
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
  const classes = { [CLASS.TAKEOVER_ERROR]: TakeoverError, internal: TakeoverError };
  const fail = () => core.takeError(classes);

  // Effects Go calls through the slow lane (wasm/browser/takeover.go).
  // A host function that throws is answered with 1 (the thrown value kept
  // for a warning), never thrown into Go; Go decides what follows.
  const threw = (err) => { core.lastThrown = err; return 1; };
  const fx = {
    pull(id, f, n, addr) { return core.writeAt(addr, slots.get(id).field(f), n); },
    keepsPrefix(id) { const s = slots.get(id); return s.text.startsWith(s.origText) ? 1 : 0; },
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
      status: TK_STATE_NAME[(packed >> TK_PACK.STATUS_SHIFT) & TK_PACK.MASK],
      finalText: slot.field((packed >> TK_PACK.TEXT_FROM_SHIFT) & TK_PACK.MASK),
      finalReasoning: slot.field(packed & TK_PACK.MASK),
    };
  }

  // Any call other than a write withdraws the "quiet" answer, before and
  // after: the kernel's state may change under it.
  function call(slot, fn, arg) {
    slot.quiet = slot.quietAppend = false;
    const st = fn(slot.ref, arg);
    slot.quiet = slot.quietAppend = false;
    return st;
  }

  // When Go reports that a call settled the handle: resolve `complete`, and
  // from now on refer to the handle by the remnant Go handed back (the
  // kernel has dropped it; its state decides every later call). The final
  // flush reports it first, so the call's own answer finds it done.
  function settled(slot, st) {
    if (slot.ref < 0) return;
    slots.delete(slot.ref);
    slot.ref = -(st >> TK_PACK.REMNANT_SHIFT);
    slot.resolve(outcomeOf(slot, st));
  }

  function terminal(slot, st) {
    if (st < 0) return Promise.reject(fail());
    if (st & TK_PACK.SETTLED) settled(slot, st);
    return Promise.resolve(undefined);
  }

  function describeSignal(sig) {
    if (!isAbortSignal(sig)) return BRAND.PLAIN; // a look-alike too (T13)
    return sig.aborted ? BRAND.ABORTED_SIGNAL : BRAND.SIGNAL;
  }

  // createMessageEditorHandle, for a host default of settleOnAbort
  // (installTakeoverContext's option; the exported function has none).
  // Every option is read before anything is encoded: a getter may call
  // back into the core, which uses the same request buffer. The common
  // shape crosses as numbers (tk_create_fast); the rest as values.
  let lastOwner; // the owner string Go last kept (Kernel.LastOwner)
  // Date.now() as T65 reads it: a page that replaced it with one answering
  // NaN (or a fraction) gets the last whole reading, so ageMs stays an
  // integer ≥ 0 (Go clamps a clock that went back).
  let lastClock = 0;
  const clock = () => {
    const t = Math.floor(Date.now());
    if (Number.isFinite(t)) lastClock = t;
    return lastClock;
  };
  clock();
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
      const now = clock();
      const textLen = typeof originalText === 'string' ? originalText.length : 0;
      const gen = typeof generationType === 'string' ? GEN_INDEX.get(generationType) : undefined;
      let st;
      if (o !== undefined && gen !== undefined && (flushIntervalMs === undefined || typeof flushIntervalMs === 'number')) {
        let ownerCode = TK_FAST_OWNER.NONE;
        if (typeof owner === 'string') {
          if (owner === lastOwner) ownerCode = TK_FAST_OWNER.LAST;
          else {
            ownerCode = TK_FAST_OWNER.NEW;
            const u = core.view(owner.length);
            for (let i = 0; i < owner.length; i++) u[i] = owner.charCodeAt(i);
          }
        } else if (owner !== undefined) ownerCode = TK_FAST_OWNER.KIND + kindOf(owner);
        const sig = signal === undefined ? TK_FAST_SIGNAL.ABSENT : signalBrand === BRAND.SIGNAL ? TK_FAST_SIGNAL.GIVEN
          : signalBrand === BRAND.ABORTED_SIGNAL ? TK_FAST_SIGNAL.ABORTED : TK_FAST_SIGNAL.INVALID;
        const kinds = fast(TK_FAST_FIELD.TEXT, kindOf(originalText)) | fast(TK_FAST_FIELD.REASONING, kindOf(originalReasoning))
          | fast(TK_FAST_FIELD.SIGNAL, sig) | fast(TK_FAST_FIELD.INTERVAL, kindOf(flushIntervalMs))
          | fast(TK_FAST_FIELD.OWNER, ownerCode) | fast(TK_FAST_FIELD.SETTLE, kindOf(settleOnAbort))
          | (settleOnAbort === true ? 1 << TK_FAST.SETTLE_VALUE : 0);
        st = ex.tk_create_fast(gen, kinds, flushIntervalMs ?? 0, now, textLen, typeof owner === 'string' ? owner.length : 0, hostSettle);
      } else {
        core.begin();
        core.value(opts);
        core.value(generationType);
        // The originals stay here (Go pulls or compares them when a rule
        // needs them): only their kinds, and the text's length, cross.
        core.value(typeof originalText === 'string' ? '' : originalText);
        core.f64(textLen);
        core.value(typeof originalReasoning === 'string' ? '' : originalReasoning);
        core.value(signal, signalBrand);
        core.value(flushIntervalMs);
        core.value(owner);
        core.value(settleOnAbort);
        core.f64(now);
        st = ex.tk_create(core.flush(), hostSettle);
        core.refs.length = 0;
      }
      if (st < 0) throw fail();
      if (typeof owner === 'string') lastOwner = owner;
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
        const st = ex.tk_set(slot.ref, TK_FIELD.TEXT, kindOf(v), typeof v === 'string' ? v.length : 0);
        if (st < 0) { slot.text = prev; throw fail(); }
        heard(slot, st);
      };
      this.setReasoning = (v) => {
        const prev = slot.reasoning;
        slot.reasoning = v;
        slot.rver++;
        if (slot.quietAppend && typeof v === 'string') return;
        const st = ex.tk_set(slot.ref, TK_FIELD.REASONING, kindOf(v), 0);
        if (st < 0) { slot.reasoning = prev; slot.rver++; throw fail(); }
        heard(slot, st);
      };
      slot.fns = [this.getText, this.getReasoning, this.setText, this.setReasoning];
      this.appendReasoning = (delta) => {
        const prev = slot.reasoning;
        const isStr = typeof delta === 'string';
        if (isStr) { slot.reasoning = prev + delta; slot.rver++; }
        if (slot.quietAppend && isStr) return;
        const st = ex.tk_append_reasoning(slot.ref, kindOf(delta), isStr ? delta.length : 0);
        if (st < 0) { slot.reasoning = prev; slot.rver++; throw fail(); }
        heard(slot, st);
      };
      // Go hands back a remnant ref exactly when the handle settles.
      this.isSettled = () => slot.ref <= 0;
      this.commit = () => terminal(slot, call(slot, ex.tk_settle, TK_STATE.COMMITTED));
      this.abort = () => terminal(slot, call(slot, ex.tk_settle, TK_STATE.ABORTED));
      this.discard = () => terminal(slot, call(slot, ex.tk_settle, TK_STATE.DISCARDED));
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
  // One handle and slot live as long as the core, never handed out. V8
  // keeps an object shape (map) only while an object uses it: once every
  // handle has been collected, a full GC drops the shapes of handles and
  // slots, which throws away the optimized code of every method that
  // checks them ("weak objects" deopt), and the next handle's writes run
  // unoptimized until V8 recompiles them. That was a generation started
  // after a full GC: most of a 20,000-append stream (docs/takeover.md).
  core.shapeAnchors.push(new MessageEditorHandle(new Slot('', ''), undefined));

  function makeHandle(st, text, reasoning, signal, owner) {
    const slot = new Slot(text, reasoning);
    slot.owner = owner; // as given (a string or undefined): claims name it
    slot.complete = new Promise((resolve) => { slot.resolve = resolve; });
    const atCreate = (st & TK_CREATE.SETTLED) !== 0;
    if (atCreate) {
      settled(slot, st >> TK_CREATE.TERMINAL_SHIFT); // created already aborted (T35)
    } else {
      slot.ref = st >> TK_CREATE.ID_SHIFT;
      slots.set(slot.ref, slot);
    }
    const handle = new MessageEditorHandle(slot, signal);
    if (!atCreate && (st & TK_CREATE.LISTENS)) {
      const onAbort = () => {
        if (slot.ref <= 0) return; // settled: the kernel no longer knows it
        const r = call(slot, ex.tk_signal_abort);
        if (r < 0) console.error(fail());
        else if (r & TK_PACK.SETTLED) settled(slot, r);
      };
      try {
        signal.addEventListener('abort', onAbort, { once: true });
        // Aborted by page code while the later options were read (a getter):
        // the event fired before this listener, so the handle settles now,
        // as one created already aborted is (T35).
        if (signal.aborted) onAbort();
      } catch (err) {
        // The create fails as a whole (T17): Go forgets the handle.
        slots.delete(slot.ref);
        ex.tk_release(slot.ref);
        throw err;
      }
    }
    return handle;
  }

  // An editor op's own append of v to a core handle (field: a TK_FIELD,
  // text or reasoning): the write setText/setReasoning(current + v) stands
  // for. The value is stored first; judge(ref, kind, length) asks Go, which
  // checks and writes without reading the value (Handle.CheckAppend) and
  // answers a write status (TK_WRITE.MASK, maybe with SECTION_PERMIT), an
  // error (failWith() is thrown), or nothing written (NOT_WRITTEN,
  // returned). Either way but a write, the
  // store is taken back. mayskip: while Go's last answer was "quiet" for
  // appends, a string append is a no-op for the kernel and skips the call.
  function appendVia(slot, field, v, judge, failWith, mayskip) {
    const isStr = typeof v === 'string';
    const text = field === TK_FIELD.TEXT;
    const prev = text ? slot.text : slot.reasoning;
    if (isStr) {
      if (text) slot.text = prev + v;
      else { slot.reasoning = prev + v; slot.rver++; }
      if (mayskip && slot.quietAppend) return 0;
    }
    const st = judge(slot.ref, kindOf(v), isStr ? v.length : 0);
    if (st >= 0 && (st & TK_WRITE.NOT_WRITTEN) === 0) { heard(slot, st & TK_WRITE.MASK); return st; } // a write (maybe a permit)
    if (isStr) {
      if (text) slot.text = prev;
      else { slot.reasoning = prev; slot.rver--; } // nothing ran since the store
    }
    if (st < 0) throw failWith();
    return st;
  }
  // An editor op's own store of next as the reasoning, judged by Go
  // (judge() answers as appendVia's judge does) and taken back unless it
  // was a write.
  function storeReasoning(slot, next, judge, failWith) {
    const prev = slot.reasoning;
    slot.reasoning = next;
    slot.rver++;
    const st = judge();
    if (st >= 0 && (st & TK_WRITE.NOT_WRITTEN) === 0) { heard(slot, st & TK_WRITE.MASK); return st; }
    slot.reasoning = prev;
    slot.rver--; // nothing ran since the store
    if (st < 0) throw failWith();
    return st;
  }
  const appendTo = (slot, field, delta) => appendVia(slot, field, delta, (ref, k, n) => ex.tk_append(ref, field, n), fail, true);

  function listUnsettledHandles() {
    const n = ex.tk_list(clock());
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
    appendTo,
    appendVia,
    storeReasoning,
    slotOf: (h) => MessageEditorHandle.slotOf(h),
    fail,
  };
}
