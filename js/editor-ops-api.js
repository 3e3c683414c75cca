// The editor ops' facade (spec/takeover.md §10–11). Go (takeover/editops)
// validates every argument and computes the edit; this file describes the
// arguments, reads the handle's value, applies the returned pieces with one
// setText/setReasoning through the handle, and runs pipeFrom's iteration.

const OP = {
  appendText: 0, appendReasoning: 1, insertAt: 2, replaceRange: 3, deleteRange: 4, applyPatch: 5,
  patchBySemantic: 6, ensureSection: 7, appendToSection: 8, markSection: 9, checkPipe: 10, classifyChunk: 11,
};
const KIND = { NONE: 0, CORE: 1, DUCK: 2, DUCK_NON_STRING: 3 }; // editops.HandleKind
// Read in this order by Go (wasm/browser/editops.go readPatch); oldString
// and newString are Luker's newest spelling of find and replaceWith.
const PATCH_FIELDS = ['kind', 'start', 'end', 'offset', 'text', 'find', 'replaceWith', 'occurrence', 'oldString', 'newString'];
const REASONING = 1; // editops.Target

export function createEditorOpsApi(core) {
  const ex = core.ex;
  const { TakeoverError, slotOf } = core.takeover;

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
  const classes = { 0: TakeoverError, 1: EditorOpsError, internal: EditorOpsError };
  const fail = () => core.takeError(classes);

  // The value Go may read during the op (Units / IndexOf).
  let cur = '';
  core.opsFx = {
    units(n, addr) { return core.writeAt(addr, cur, n); },
    indexOf(ref, from) { return cur.indexOf(core.refs[ref - 1], from); },
  };

  function kindOf(h) {
    if (slotOf(h)) return KIND.CORE;
    if (h !== null && typeof h === 'object' && typeof h.getText === 'function' && typeof h.getReasoning === 'function'
      && typeof h.setText === 'function' && typeof h.setReasoning === 'function') return KIND.DUCK;
    return KIND.NONE;
  }

  function read(h, kind, reasoning) {
    if (kind === KIND.NONE) return '';
    return reasoning ? h.getReasoning() : h.getText();
  }

  // Encode the handle (and whether a duck's getter gave a string) and the
  // current value's length, then the arguments.
  function begin(h, kind, value) {
    const str = typeof value === 'string';
    core.begin();
    core.unit(kind === KIND.DUCK && !str ? KIND.DUCK_NON_STRING : kind);
    core.f64(str ? value.length : 0);
  }

  // Run op; returns the edit record's decoder, or throws the op's error.
  function run(op) {
    const n = ex.eo_op(op, core.flush());
    if (n < 0) throw fail();
    return core.decoder(n);
  }

  // Apply an edit record to the value it was computed on: one write, or
  // none for a no-op (O5).
  function apply(h, value, d) {
    const target = d.unit();
    if (d.unit() === 1) return;
    const count = d.f64();
    const pieces = [];
    for (let i = 0; i < count; i++) pieces.push(d.f64(), d.f64(), d.f64());
    const ins = [];
    for (let i = d.f64(); i > 0; i--) ins.push(d.value());
    core.refs.length = 0;
    let out = '';
    for (let i = 0; i < pieces.length; i += 3) {
      const src = pieces[i] === 0 ? value : ins[pieces[i] - 1];
      out += src.slice(pieces[i + 1], pieces[i + 2]);
    }
    if (target === REASONING) h.setReasoning(out);
    else h.setText(out);
  }

  function textOp(op, h, args, reasoning = false) {
    const kind = kindOf(h);
    const value = read(h, kind, reasoning);
    begin(h, kind, value);
    for (const a of args) core.value(a);
    cur = value;
    let d;
    try { d = run(op); } finally { cur = ''; }
    apply(h, value, d);
  }

  // A patch's fields, read (getters run) before anything is encoded: a
  // getter may call back into the core, which uses the same request buffer.
  function readPatch(p) {
    const obj = p !== null && typeof p === 'object';
    const out = [p];
    for (const f of PATCH_FIELDS) out.push(obj ? p[f] : undefined);
    return out;
  }

  const appendText = (h, text) => textOp(OP.appendText, h, [text]);
  const appendReasoning = (h, text) => textOp(OP.appendReasoning, h, [text], true);
  const insertAt = (h, offset, text) => textOp(OP.insertAt, h, [offset, text]);
  const replaceRange = (h, start, end, text) => textOp(OP.replaceRange, h, [start, end, text]);
  const deleteRange = (h, start, end) => textOp(OP.deleteRange, h, [start, end]);

  function applyPatch(h, input) {
    const kind = kindOf(h);
    const value = read(h, kind, false);
    const entries = Array.isArray(input) ? Array.from(input, readPatch) : [readPatch(input)];
    begin(h, kind, value);
    core.f64(entries.length);
    for (const fields of entries) for (const v of fields) core.value(v);
    cur = value;
    let d;
    try { d = run(OP.applyPatch); } finally { cur = ''; }
    apply(h, value, d);
  }

  function patchBySemantic(h, spec) {
    const kind = kindOf(h);
    const value = read(h, kind, false);
    const fields = readPatch(spec);
    begin(h, kind, value);
    for (const v of fields) core.value(v);
    cur = value;
    let d;
    try { d = run(OP.patchBySemantic); } finally { cur = ''; }
    apply(h, value, d);
  }

  function ensureReasoningSection(h, id, status) {
    const statusField = status !== null && typeof status === 'object' ? status.status : undefined;
    textOp(OP.ensureSection, h, [id, status, statusField], true);
  }
  const appendToReasoningSection = (h, id, text) => textOp(OP.appendToSection, h, [id, text], true);
  const markReasoningSectionStatus = (h, id, status) => textOp(OP.markSection, h, [id, status], true);

  // pipeFrom (O26–O32): Go validates and classifies each value; this runs
  // the iteration, the signal and the writes.
  function pipeFrom(h, stream, opts) {
    return new Promise((resolve, reject) => {
      const kind = kindOf(h);
      const o = opts !== null && typeof opts === 'object' ? opts : undefined;
      const mode = o?.mode;
      const signal = o?.signal;
      const iterable = stream != null && (typeof stream[Symbol.asyncIterator] === 'function' || typeof stream[Symbol.iterator] === 'function');
      const isSignal = signal instanceof AbortSignal; // may run a Proxy trap: before encoding
      core.begin();
      core.unit(kind);
      core.f64(0);
      core.value(opts);
      core.value(mode);
      core.value(signal);
      core.unit(isSignal ? 1 : 0);
      core.unit(iterable ? 1 : 0);
      const m = ex.eo_op(OP.checkPipe, core.flush());
      if (m < 0) { reject(fail()); return; }
      core.refs.length = 0;
      const abortReason = () => signal.reason ?? new DOMException('The operation was aborted.', 'AbortError');
      if (signal?.aborted) { reject(abortReason()); return; }
      try {
        if (m === 1) h.setText('');
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
        signal?.removeEventListener('abort', onAbort);
        fn(value);
      };
      const onAbort = () => { if (!done) { finish(reject, abortReason()); closeIterator(); } };
      signal?.addEventListener('abort', onAbort, { once: true });

      const write = (v) => {
        const obj = v !== null && typeof v === 'object';
        const type = obj ? v.type : undefined;
        const delta = obj ? v.delta : undefined;
        core.begin();
        core.unit(kind);
        core.f64(0);
        core.value(v);
        core.value(type);
        core.value(typeof delta === 'string' ? '' : delta); // only its kind matters here
        const target = ex.eo_op(OP.classifyChunk, core.flush());
        core.refs.length = 0;
        if (target === 1) h.setText(h.getText() + delta);
        else if (target === 2) h.setReasoning(h.getReasoning() + delta);
      };

      const step = async () => {
        while (!done) {
          let r;
          try {
            r = await it.next();
            if (r === null || (typeof r !== 'object' && typeof r !== 'function')) throw new TypeError(`Iterator result ${String(r)} is not an object`);
          } catch (err) { finish(reject, err); return; }
          if (done) return; // aborted while waiting
          if (r.done) { finish(resolve, undefined); return; }
          let v = r.value;
          if (sync) {
            try { v = await v; } catch (err) { finish(reject, err); return; }
            if (done) return;
          }
          if (signal?.aborted) { onAbort(); return; }
          try { write(v); } catch (err) { finish(reject, err); closeIterator(); return; }
        }
      };
      step();
    });
  }

  return {
    EditorOpsError, appendText, appendReasoning, insertAt, replaceRange, deleteRange, applyPatch,
    patchBySemantic, pipeFrom, ensureReasoningSection, appendToReasoningSection, markReasoningSectionStatus,
  };
}
