// The buffer codec (bridge/codec.go): values and strings to and from the
// shared buffer in Go's memory, and error records. Every tag, brand and kind
// comes from protocol.js, generated from Go. Loader-free, so the facades
// import it without a cycle through core.js.
import { TAG as T, BRAND, KIND } from './protocol.js';

export { BRAND, KIND };

/** jsvalue.Kind of a JS value. */
export function kindOf(v) {
  return v === null ? KIND.null : KIND[typeof v];
}

/** String(v) for a message, never throwing: a value whose String() throws
 *  shows as its Object.prototype.toString tag, else as fallback. */
export function textOf(v, fallback = '') {
  try { return String(v); } catch {
    try { return Object.prototype.toString.call(v); } catch { return fallback; }
  }
}

/** An error no caller can be handed (a page observer's throw): the page's
 *  reportError where there is one, else the console. */
export function reportToPage(e) {
  if (typeof globalThis.reportError === 'function') globalThis.reportError(e); else console.error(e);
}

/** Whether v is an AbortSignal the platform can read: instanceof holds and
 *  its aborted getter works. An object made with
 *  Object.create(AbortSignal.prototype) passes instanceof and then throws
 *  on every read: the rules refuse it as the look-alike it is (T13, T54). */
export function isAbortSignal(v) {
  if (!(v instanceof AbortSignal)) return false;
  try {
    v.aborted; // eslint-disable-line no-unused-expressions
    return true;
  } catch {
    return false;
  }
}

const CHUNK = 8192;

export class Core {
  constructor(instance) {
    this.ex = instance.exports;
    this.memory = instance.exports.mem;
    this.f64scratch = new Float64Array(1);
    this.u16scratch = new Uint16Array(this.f64scratch.buffer);
    this.refs = [];   // per-call table of JS values Go may hand back
    this.pos = 0;     // encoder position in units
    this.addr = -1;   // shared buffer address and capacity (begin())
    this.cap = 4096;
    this.u16 = null;
    this.lastThrown = undefined;
    this.takeoverFx = null; // set by takeover-api.js before Go starts
    this.takeover = null;
    this.ops = null;
    this.takeoverHost = null;
    this.opsFx = null;
    // Objects kept alive so that V8 keeps the shapes of the facades' hot
    // classes across full GCs (takeover-api.js says why).
    this.shapeAnchors = [new Decoder(this, new Uint16Array(0))];
  }

  /** A Uint16Array over the shared buffer, n units long (grown if needed). */
  view(n) {
    const addr = this.ex.tc_buf(n); // may grow memory: read .buffer after
    return new Uint16Array(this.memory.buffer, addr, n);
  }

  /** A view of n units at addr that Go filled. */
  read(addr, n) {
    return new Uint16Array(this.memory.buffer, addr, n);
  }

  // ---- encoding (JS → Go) ----
  // Values are written straight into the shared buffer; begin() re-checks
  // the buffer's address, which moves when Go grows it or memory grows.
  begin() {
    this.refs.length = 0;
    this.pos = 0;
    const addr = this.ex.tc_buf(this.cap);
    if (addr !== this.addr || this.u16.buffer !== this.memory.buffer) this._remap(addr, this.cap);
  }

  _remap(addr, cap) {
    this.addr = addr;
    this.cap = cap;
    this.u16 = new Uint16Array(this.memory.buffer, addr, cap);
  }

  _room(n) {
    if (this.pos + n <= this.cap) return;
    let cap = this.cap * 2;
    while (cap < this.pos + n) cap *= 2;
    this._remap(this.ex.tc_buf(cap), cap);
  }

  _unit(u) { this._room(1); this.u16[this.pos++] = u; }
  _u32(n) { this._room(2); this.u16[this.pos++] = n & 0xffff; this.u16[this.pos++] = n >>> 16; }
  _f64(x) {
    this._room(4);
    this.f64scratch[0] = x;
    const s = this.u16scratch;
    const u = this.u16;
    u[this.pos++] = s[0]; u[this.pos++] = s[1]; u[this.pos++] = s[2]; u[this.pos++] = s[3];
  }
  _ref(v) { this.refs.push(v); return this.refs.length; }

  /** Describe v; brand is the facade's description of an object. */
  value(v, brand = BRAND.PLAIN) {
    switch (typeof v) {
      case 'undefined': this._unit(T.UNDEFINED); break;
      case 'boolean': this._unit(v ? T.TRUE : T.FALSE); break;
      case 'number': this._unit(T.NUMBER); this._f64(v); break;
      case 'string': this._unit(T.STRING); this._u32(this._ref(v)); this._str(v); break;
      case 'function': this._unit(T.FUNCTION); this._u32(this._ref(v)); break;
      case 'symbol': this._unit(T.SYMBOL); this._u32(this._ref(v)); break;
      case 'bigint': this._unit(T.BIGINT); this._u32(this._ref(v)); break;
      default:
        if (v === null) { this._unit(T.NULL); break; }
        this._unit(T.OBJECT); this._unit(brand); this._u32(this._ref(v));
    }
  }
  f64(x) { this._f64(x); }
  unit(u) { this._unit(u); }
  _str(s) {
    const n = s.length;
    this._u32(n);
    this._room(n);
    const u = this.u16;
    let p = this.pos;
    for (let i = 0; i < n; i++) u[p++] = s.charCodeAt(i);
    this.pos = p;
  }

  /** The encoded length, for the export that reads it. */
  flush() { return this.pos; }

  /**
   * Write all of s into the shared buffer (grown as needed) and return its
   * length; Go reads the units at its buffer's address afterwards. The slow
   * lane's exact string read (bridge.String) calls this.
   */
  writeStr(s) {
    const n = s.length;
    const u = this.view(n);
    for (let i = 0; i < n; i++) u[i] = s.charCodeAt(i);
    return n;
  }

  /** Write a string's first n units at addr (Go reserved the room). */
  writeAt(addr, s, n) {
    const m = Math.min(n, s.length);
    const u = this.read(addr, m);
    for (let i = 0; i < m; i++) u[i] = s.charCodeAt(i);
    return m;
  }

  // ---- decoding (Go → JS) ----
  /** Decode a string of n units at addr exactly (lone surrogates kept). */
  string(addr, n) {
    const u = this.read(addr, n);
    if (n <= CHUNK) return String.fromCharCode.apply(null, u);
    let s = '';
    for (let i = 0; i < n; i += CHUNK) s += String.fromCharCode.apply(null, u.subarray(i, i + CHUNK));
    return s;
  }

  decoder(n) { return new Decoder(this, this.view(n)); }

  /** Read the pending error record and build the JS error (T6–T8). */
  takeError(classes) {
    const n = this.ex.tc_err();
    const d = this.decoder(n);
    const cls = d.unit();
    const code = d.str();
    const message = d.str();
    const details = d.value();
    const cause = d.value();
    this.refs.length = 0;
    const Ctor = classes[cls] ?? classes.internal;
    if (Ctor === TypeError || Ctor === Error) {
      const e = new Ctor(message);
      e.code = code;
      if (details !== null) e.details = details;
      return e;
    }
    return new Ctor(code, message, { details, cause });
  }
}

class Decoder {
  constructor(core, u) {
    this.core = core;
    this.u = u;
    this.p = 0;
  }
  unit() { return this.u[this.p++]; }
  u32() { const lo = this.u[this.p++]; return (lo | (this.u[this.p++] << 16)) >>> 0; }
  f64() {
    const s = this.core.u16scratch;
    for (let i = 0; i < 4; i++) s[i] = this.u[this.p++];
    return this.core.f64scratch[0];
  }
  str() {
    const n = this.u32();
    const s = this.core.string(this.u.byteOffset + this.p * 2, n);
    this.p += n;
    return s;
  }
  value() {
    switch (this.unit()) {
      case T.UNDEFINED: return undefined;
      case T.NULL: return null;
      case T.FALSE: return false;
      case T.TRUE: return true;
      case T.NUMBER: return this.f64();
      case T.STRING: { const ref = this.u32(); const s = this.str(); return ref ? this.core.refs[ref - 1] : s; }
      case T.RECORD: {
        const n = this.u32();
        const o = {};
        for (let i = 0; i < n; i++) { const k = this.str(); o[k] = this.value(); }
        return o;
      }
      case T.REF: return this.core.refs[this.u32() - 1];
      default: throw new Error('tavern-core: bad value tag');
    }
  }
}
