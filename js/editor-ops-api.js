// The editor ops' facade (spec/takeover.md §10–11). Go (takeover/editops)
// validates every argument and computes the edit; this file describes the
// arguments, reads the handle's value, applies the returned pieces with one
// setText/setReasoning through the handle, and runs pipeFrom's iteration.

import {
  CLASS, EO_CHUNK, EO_HANDLE as KIND, EO_LIMIT, EO_OP as OP, EO_PATCH_FIELD as PATCH_FIELDS, EO_PIPE, EO_TARGET, TK_FIELD, TK_WRITE,
} from './protocol.js';
import { isAbortSignal } from './codec.js';

// An edit's target doubles as the handle's field (EO_TARGET's values are
// TK_FIELD's: a protocol test checks it).
const REASONING = EO_TARGET.REASONING;

export function createEditorOpsApi(core) {
  const ex = core.ex;
  const { TakeoverError, slotOf, appendTo, appendVia, storeReasoning, fail: takeoverFail } = core.takeover;

  class EditorOpsError extends Error {
    constructor(code, message, options) {
      super(message);
      const { details = null, cause = null } = options ?? {};
      this.name = 'EditorOpsError';
      this.code = code;
      this.cause = cause;
      this.details = details;
    }
  }
  const classes = { [CLASS.TAKEOVER_ERROR]: TakeoverError, [CLASS.EDITOR_OPS_ERROR]: EditorOpsError, internal: EditorOpsError };
  const fail = () => core.takeError(classes);

  // The value Go may read during the op (Units / IndexOf, and the section
  // layout's ReadUnits / IndexUnits into and from Go's own memory).
  let cur = '';
  core.opsFx = {
    units(n, addr) { return core.writeAt(addr, cur, n); },
    indexOf(ref, from) { return cur.indexOf(core.refs[ref - 1], from); },
    read(from, n, addr) {
      const u = core.read(addr, n);
      for (let i = 0; i < n; i++) u[i] = cur.charCodeAt(from + i);
    },
    find(addr, n, from) { return cur.indexOf(core.string(addr, n), from); },
  };

  // A core handle's slot, while its four methods are its own. A plugin may
  // wrap them (a spy, a filter): then every write goes through them, as on
  // any other handle (O3: the ops act through those methods; O5: exactly
  // one setText or setReasoning call).
  function ownSlot(h) {
    const slot = slotOf(h);
    if (slot === undefined) return undefined;
    const f = slot.fns;
    return h.getText === f[0] && h.getReasoning === f[1] && h.setText === f[2] && h.setReasoning === f[3] ? slot : undefined;
  }

  function kindOf(h) {
    if (ownSlot(h)) return KIND.CORE;
    if (h !== null && typeof h === 'object' && typeof h.getText === 'function' && typeof h.getReasoning === 'function'
      && typeof h.setText === 'function' && typeof h.setReasoning === 'function') return KIND.DUCK;
    return KIND.NONE;
  }

  function read(h, kind, reasoning) {
    if (kind === KIND.NONE) return '';
    return reasoning ? h.getReasoning() : h.getText();
  }

  // Encode the handle (and whether a duck's getter gave a string), the
  // current value's length and, for an open core handle, its id and
  // reasoning version (Go keeps its section layout), then the arguments.
  function begin(h, kind, value) {
    const str = typeof value === 'string';
    const slot = kind === KIND.CORE ? ownSlot(h) : undefined;
    core.begin();
    core.unit(kind === KIND.DUCK && !str ? KIND.DUCK_NON_STRING : kind);
    core.f64(str ? value.length : 0);
    core.f64(slot && slot.ref > 0 ? slot.ref : 0);
    core.f64(slot ? slot.rver : 0);
    lag(slot);
  }

  // The length of what was appended under a permit, handed to Go before it
  // looks at the layout again (wasm/browser/editops.go catchUp); the permit
  // ends, and the op may grant a new one. A permit whose chain another
  // write broke sends nothing, and Go reads the text afresh.
  function lag(slot) { encodeLag(takeLag(slot)); }
  function takeLag(slot) {
    const intact = slot !== undefined && slot.rpermit !== null && slot.rpermitVer === slot.rver && slot.rlag > 0;
    const out = intact ? [slot.rlagFrom, slot.rlag] : [0, 0];
    if (slot !== undefined) { slot.rpermit = null; slot.rlag = 0; }
    return out;
  }
  function encodeLag([from, n]) {
    core.f64(from);
    core.f64(n);
  }

  function grant(slot, id) {
    slot.rpermit = id;
    slot.rpermitVer = slot.rlagFrom = slot.rver;
    slot.rlag = 0;
  }

  // Run op; returns the edit record's decoder, or throws the op's error.
  function run(op) {
    const n = ex.eo_op(op, core.flush());
    if (n < 0) throw fail();
    return core.decoder(n);
  }

  // A run of the value before the edit. A run that is all of it, or one of
  // the two strings the reasoning was kept cut into, is taken whole: slicing
  // a rope makes V8 copy all of it.
  function run0(value, from, to, cut) {
    if (from === 0 && to === value.length) return value;
    if (cut !== null) {
      if (from === 0 && to === cut.head.length) return cut.head;
      if (from === cut.head.length && to === value.length) return cut.tail;
    }
    return value.slice(from, to);
  }

  // The result's runs cut in two at `at`.
  function cutAt(runs, at, ver) {
    let head = '';
    let pos = 0;
    let i = 0;
    for (; i < runs.length && pos + runs[i].length < at; i++) { head += runs[i]; pos += runs[i].length; }
    const r = runs[i] ?? '';
    const k = at - pos;
    head += k === r.length ? r : r.slice(0, k);
    let tail = k === r.length ? '' : r.slice(k);
    for (i++; i < runs.length; i++) tail += runs[i];
    return { ver, head, tail };
  }

  // Apply an edit record to the value it was computed on: one write, or
  // none for a no-op (O5). An append to a core handle goes through its own
  // append (appendTo); the reasoning stays cut where Go expects the next
  // append (Edit.Split).
  function apply(h, kind, value, d) {
    const target = d.unit();
    if (d.unit() === 1) return;
    const appends = d.unit() === 1;
    const split = d.f64();
    const permit = d.unit() === 1;
    const count = d.f64();
    const pieces = [];
    for (let i = 0; i < count; i++) pieces.push(d.f64(), d.f64(), d.f64());
    const ins = [];
    for (let i = d.f64(); i > 0; i--) ins.push(d.value());
    core.refs.length = 0;
    const slot = kind === KIND.CORE ? ownSlot(h) : undefined;
    const reasoning = target === REASONING;
    const cut = slot && reasoning && slot.rsplit?.ver === slot.rver ? slot.rsplit : null;
    const runs = [];
    for (let i = 0; i < pieces.length; i += 3) {
      runs.push(pieces[i] === 0 ? run0(value, pieces[i + 1], pieces[i + 2], cut) : ins[pieces[i] - 1].slice(pieces[i + 1], pieces[i + 2]));
    }
    const ver = slot?.rver;
    if (appends && slot) {
      appendTo(slot, target, ins[0]);
    } else {
      let out = '';
      for (const r of runs) out += r;
      if (reasoning) h.setReasoning(out);
      else h.setText(out);
    }
    if (slot && reasoning) slot.rsplit = split > 0 && slot.rver === ver + 1 ? cutAt(runs, split, ver + 1) : null;
    return permit && slot !== undefined && slot.rver === ver + 1; // the permit is for the value this op wrote
  }

  // Returns whether Go granted a permit (apply).
  function textOp(op, h, args, reasoning = false) {
    const kind = kindOf(h);
    const value = read(h, kind, reasoning);
    begin(h, kind, value);
    for (const a of args) core.value(a);
    cur = value;
    let d;
    try { d = run(op); } finally { cur = ''; }
    return apply(h, kind, value, d);
  }

  // A patch's fields, read (getters run) before anything is encoded: a
  // getter may call back into the core, which uses the same request buffer.
  function readPatch(p) {
    const obj = p !== null && typeof p === 'object';
    const out = [p];
    for (const f of PATCH_FIELDS) out.push(obj ? p[f] : undefined);
    return out;
  }

  // On a core handle an append is one crossing that checks the argument
  // and writes (wasm/browser/editops.go eo_append).
  const judges = [EO_TARGET.TEXT, EO_TARGET.REASONING].map((field) => (ref, k, n) => ex.eo_append(ref, field, k, n));
  function opAppend(op, field, h, text) {
    const slot = ownSlot(h);
    if (slot === undefined) { textOp(op, h, [text], field === REASONING); return undefined; }
    appendVia(slot, field, text, judges[field], fail, true);
    if (field === REASONING) slot.rsplit = null;
    return undefined;
  }
  const appendText = (h, text) => opAppend(OP.APPEND_TEXT, EO_TARGET.TEXT, h, text);
  const appendReasoning = (h, text) => opAppend(OP.APPEND_REASONING, REASONING, h, text);
  const insertAt = (h, offset, text) => { textOp(OP.INSERT_AT, h, [offset, text]); };
  const replaceRange = (h, start, end, text) => { textOp(OP.REPLACE_RANGE, h, [start, end, text]); };
  const deleteRange = (h, start, end) => { textOp(OP.DELETE_RANGE, h, [start, end]); };

  function applyPatch(h, input) {
    const kind = kindOf(h);
    const value = read(h, kind, false);
    // Entries are read in order up to the first that is not an object: O14
    // fails there (O15: nothing after a failing entry matters), so an array
    // whose length promises more than it holds costs only what it holds.
    // Past EO_LIMIT.MAX_PATCH_ENTRIES nothing more is read: Go refuses the
    // next entry as one past the bound, after checking those before it.
    const MAX = EO_LIMIT.MAX_PATCH_ENTRIES;
    const entries = [];
    let total = 1; // the list's length, as Go reports it past the bound
    if (Array.isArray(input)) {
      const n = input.length; // (read once: a Proxy's length may change)
      for (let i = 0; i < n && i < MAX; i++) {
        const p = input[i];
        entries.push(readPatch(p));
        if (p === null || typeof p !== 'object') break;
      }
      total = entries.length === MAX && n > MAX ? Math.min(Number(n), 2 ** 53) : entries.length;
    } else entries.push(readPatch(input));
    begin(h, kind, value);
    core.f64(total);
    core.f64(entries.length);
    for (const fields of entries) for (const v of fields) core.value(v);
    cur = value;
    let d;
    try { d = run(OP.APPLY_PATCH); } finally { cur = ''; }
    apply(h, kind, value, d);
  }

  function patchBySemantic(h, spec) {
    const kind = kindOf(h);
    const value = read(h, kind, false);
    const fields = readPatch(spec);
    begin(h, kind, value);
    for (const v of fields) core.value(v);
    cur = value;
    let d;
    try { d = run(OP.PATCH_BY_SEMANTIC); } finally { cur = ''; }
    apply(h, kind, value, d);
  }

  function ensureReasoningSection(h, id, status) {
    const statusField = status !== null && typeof status === 'object' ? status.status : undefined;
    textOp(OP.ENSURE_SECTION, h, [id, status, statusField], true);
  }
  // A sub-agent streaming into the last section: on an open core handle Go
  // first tries the one-crossing case (eo_section_append: the delta is
  // inserted where the last append said the next one lands, at the cut
  // kept there, else at the end); anything else takes the general op.
  // While Go's permit for this id stands (Edit.Permit), a delta without a
  // line break is appended here and its length handed to Go later (lag): the write
  // is the handle's own append, and no crossing at all while the kernel
  // says appends are quiet.
  const appendJudge = (ref, k, n) => ex.tk_append(ref, TK_FIELD.REASONING, n);
  function appendToReasoningSection(h, id, text) {
    const slot = ownSlot(h);
    if (slot !== undefined && slot.ref > 0 && typeof text === 'string') {
      if (slot.rpermit === id && slot.rpermitVer === slot.rver && text !== '' && text.indexOf('\n') < 0) {
        slot.rlag += text.length;
        slot.rpermitVer = slot.rver + 1; // the version this append makes
        slot.rsplit = null;
        appendVia(slot, REASONING, text, appendJudge, takeoverFail, true);
        return undefined;
      }
      if (appendAtCut(slot, id, text)) return undefined;
    }
    if (textOp(OP.APPEND_TO_SECTION, h, [id, text], true)) grant(slotOf(h), id); // (true only for an own slot)
    return undefined;
  }
  // The one-crossing case; false: take the general op. Apart from the
  // function above so that the permit path, called per token, allocates
  // no context for this closure's variables.
  function appendAtCut(slot, id, text) {
    const ver = slot.rver;
    const before = slot.reasoning;
    const cut = slot.rsplit !== null && slot.rsplit.ver === ver ? slot.rsplit : null;
    const head = cut === null ? before : cut.head;
    const tail = cut === null ? '' : cut.tail;
    const lagged = takeLag(slot); // before the store below changes the version
    const st = storeReasoning(slot, head + text + tail, () => {
      core.begin();
      core.value(id);
      core.value(text);
      encodeLag(lagged);
      core.f64(head.length);
      cur = before;
      try {
        return ex.eo_section_append(slot.ref, ver, core.flush()); // refs stay for an error's details
      } finally { cur = ''; }
    }, fail);
    if (st === TK_WRITE.SECTION_FALLBACK) return false;
    if (st !== TK_WRITE.SECTION_NOOP) {
      // The cut and the permit describe the value this op wrote (version
      // ver + 1); an onUpdate callback that set the reasoning since made
      // another one, which the next op must read afresh (O3, O5).
      if (slot.rver !== ver + 1) { slot.rsplit = null; return true; }
      const k = st >>> TK_WRITE.SECTION_SPLIT_SHIFT; // the next cut's offset into the delta
      slot.rsplit = { ver: slot.rver, head: head + text.slice(0, k), tail: text.slice(k) + tail };
      if (st & TK_WRITE.SECTION_PERMIT) grant(slot, id);
    }
    return true;
  }
  const markReasoningSectionStatus = (h, id, status) => { textOp(OP.MARK_SECTION, h, [id, status], true); };

  // pipeFrom (O26–O32): Go validates and classifies each value; this runs
  // the iteration, the signal and the writes.
  function pipeFrom(h, stream, opts) {
    return new Promise((resolve, reject) => {
      const kind = kindOf(h);
      const o = opts !== null && typeof opts === 'object' ? opts : undefined;
      const mode = o?.mode;
      const signal = o?.signal;
      const iterable = stream != null && (typeof stream[Symbol.asyncIterator] === 'function' || typeof stream[Symbol.iterator] === 'function');
      const isSignal = isAbortSignal(signal); // may run a Proxy trap: before encoding; a look-alike is not one
      core.begin();
      core.unit(kind);
      core.f64(0);
      core.f64(0);
      core.f64(0);
      lag(undefined);
      core.value(opts);
      core.value(mode);
      core.value(signal);
      core.unit(isSignal ? 1 : 0);
      core.unit(iterable ? 1 : 0);
      const m = ex.eo_op(OP.CHECK_PIPE, core.flush());
      if (m < 0) { reject(fail()); return; }
      core.refs.length = 0;
      // The signal is the page's: its own getters and methods may throw.
      // What a getter throws is the abort's reason; the pipe always settles.
      const abortReason = () => {
        try { return signal.reason ?? new DOMException('The operation was aborted.', 'AbortError'); } catch (err) { return err; }
      };
      if (signal?.aborted) { reject(abortReason()); return; }
      try {
        if (m === EO_PIPE.REPLACE) h.setText('');
      } catch (err) { reject(err); return; }

      let it;
      let sync = false;
      try {
        if (typeof stream[Symbol.asyncIterator] === 'function') it = stream[Symbol.asyncIterator]();
        else { it = stream[Symbol.iterator](); sync = true; }
      } catch (err) { reject(err); return; }

      let done = false;
      const closeIterator = () => {
        try {
          const r = it.return?.();
          if (r && typeof r.then === 'function') r.then(undefined, () => {});
        } catch { /* ignored: O31, O32 */ }
      };
      const finish = (fn, value) => {
        if (done) return;
        done = true;
        try { signal?.removeEventListener('abort', onAbort); } catch { /* the listener stays, inert: done */ }
        fn(value);
      };
      const onAbort = () => { if (!done) { finish(reject, abortReason()); closeIterator(); } };
      try { signal?.addEventListener('abort', onAbort, { once: true }); } catch (err) { finish(reject, err); closeIterator(); return; }

      const write = (v) => {
        const obj = v !== null && typeof v === 'object';
        const type = obj ? v.type : undefined;
        const delta = obj ? v.delta : undefined;
        core.begin();
        core.unit(kind);
        core.f64(0);
        core.f64(0);
        core.f64(0);
        lag(undefined);
        core.value(v);
        core.value(type);
        core.value(typeof delta === 'string' ? '' : delta); // only its kind matters here
        const target = ex.eo_op(OP.CLASSIFY_CHUNK, core.flush());
        core.refs.length = 0;
        const slot = kind === KIND.CORE ? ownSlot(h) : undefined;
        if (target === EO_CHUNK.TEXT) { if (slot) appendTo(slot, TK_FIELD.TEXT, delta); else h.setText(h.getText() + delta); }
        else if (target === EO_CHUNK.REASONING) { if (slot) appendTo(slot, TK_FIELD.REASONING, delta); else h.setReasoning(h.getReasoning() + delta); }
      };

      const step = async () => {
        while (!done) {
          let r;
          let end;
          let v;
          try {
            r = await it.next();
            if (r === null || (typeof r !== 'object' && typeof r !== 'function')) throw new TypeError(`Iterator result ${String(r)} is not an object`);
            if (done) return; // aborted while waiting
            // done and value are read as for await reads them: a getter that
            // throws is the stream's failure, and the iterator is not closed (O32).
            end = r.done;
            if (!end) v = r.value;
          } catch (err) { finish(reject, err); return; }
          if (end) { finish(resolve, undefined); return; }
          if (sync) {
            try { v = await v; } catch (err) { finish(reject, err); return; }
            if (done) return;
          }
          let aborted;
          try { aborted = signal?.aborted; } catch (err) { finish(reject, err); closeIterator(); return; }
          if (aborted) { onAbort(); return; }
          try { write(v); } catch (err) { finish(reject, err); closeIterator(); return; }
        }
      };
      step().catch((err) => { finish(reject, err); closeIterator(); });
    });
  }

  return {
    EditorOpsError, appendText, appendReasoning, insertAt, replaceRange, deleteRange, applyPatch,
    patchBySemantic, pipeFrom, ensureReasoningSection, appendToReasoningSection, markReasoningSectionStatus,
  };
}
