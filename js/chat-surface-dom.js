// The chat surface's DOM adapter (chatsurface/batch.go): the only writer of
// the surface's DOM. Go decides each step as one batch — roots to remove and
// where to insert the rest, the attributes of every root, spacer heights,
// content to swap, the scroll offset, observers — followed by the reads it
// needs; apply() runs the batch in one crossing and hands the results back.
// It decides nothing: every op does what its code says.
//
// Nodes are named by ids: positive for nodes the page hands over (the root,
// materialize results, claimed sources), registered here with a count of
// the holds Go took; negative for nodes Go creates, per host.
import { DOM_OP as OP, DOM_FLAG as F, DOM_NAME, DOM_SELECTOR, DOM_SPACER, SURFACE_LIMIT } from './protocol.js';
import { addDefaultStyles } from './default-styles.js';

// READ_CHILDREN reads no more children of a root than any chat could need.
const MAX_CHILDREN = 2 * SURFACE_LIMIT.MAX_MESSAGES;
const byId = new Map(); // id → { node, holds }
const ids = new WeakMap(); // node → id
let nextId = 0;

/** Name a node for Go, taking one hold (0 for a value that is not one). */
export function register(node) {
  let id = ids.get(node);
  if (id === undefined || id < 0) { // (a node Go made keeps its own id in its host)
    id = ++nextId;
    ids.set(node, id);
    byId.set(id, { node, holds: 1 });
  } else {
    const e = byId.get(id);
    if (e) e.holds++; else byId.set(id, { node, holds: 1 });
  }
  return id;
}
/** The id a node already has (0: none). */
export const idOf = (node) => (byId.has(ids.get(node)) ? ids.get(node) : 0);
export const nodeTableSize = () => byId.size;

// Platform methods, called on the node: an object whose own properties lie
// (a Proxy, an overriding subclass) cannot redirect them.
const P = {};
function platform() {
  if (P.matches) return;
  // A browser's querySelector is native: over a real SillyTavern message
  // (56 elements before .mes_text) Chromium answers in 0.45 µs where a walk
  // in JavaScript takes 8.9. happy-dom's is JavaScript that parses and
  // caches per query; uncached (a frame has written since) it takes about
  // 100 µs there against the walk's 40, so under happy-dom the walk stays.
  P.native = globalThis.happyDOM === undefined;
  const E = globalThis.Element.prototype;
  const N = globalThis.Node.prototype;
  P.matches = E.matches;
  P.query = E.querySelector;
  P.getAttr = E.getAttribute;
  P.attrNames = E.getAttributeNames;
  P.setAttr = E.setAttribute;
  P.removeAttr = E.removeAttribute;
  P.remove = E.remove;
  P.replaceChildren = E.replaceChildren;
  P.insertBefore = N.insertBefore;
  P.contains = N.contains;
  P.cloneNode = N.cloneNode;
}

// The fixed selectors (DOM_SELECTOR) as predicates: ".class", "#id", "tag",
// and lists of them, for tests of one element and for first()'s walk under
// happy-dom, where matching by hand keeps its query caches (which hold nodes
// until the job ends) and its parser out of every frame.
// A class is looked up in the class attribute: classList would make (and,
// in some DOMs, re-parse) a token list per element visited.
const isSpace = (c) => c === 32 || c === 9 || c === 10 || c === 12 || c === 13;
function hasClass(el, c) {
  if (P.getAttr === undefined) platform();
  const s = P.getAttr.call(el, 'class');
  if (s === null) return false;
  for (let i = s.indexOf(c); i >= 0; i = s.indexOf(c, i + 1)) {
    const end = i + c.length;
    if ((i === 0 || isSpace(s.charCodeAt(i - 1))) && (end === s.length || isSpace(s.charCodeAt(end)))) return true;
  }
  return false;
}
function predicate(sel) {
  const parts = sel.split(',').map((x) => x.trim()).filter(Boolean).map((x) => {
    if (x[0] === '.') { const c = x.slice(1); return (el) => hasClass(el, c); }
    if (x[0] === '#') { const id = x.slice(1); return (el) => el.id === id; }
    return (el) => el.localName === x;
  });
  if (parts.length === 1) return parts[0]; // most: no list to walk per element
  return (el) => parts.some((f) => f(el));
}
const PRED = DOM_SELECTOR.map((s) => (s ? predicate(s) : () => false));
const SEL_MES_TEXT = DOM_SELECTOR.indexOf('.mes_text');
const SEL_ID_DISPLAY = DOM_SELECTOR.indexOf('.mesIDDisplay');
const MES = PRED[DOM_SELECTOR.indexOf('.mes')];
const MES_TEXT = PRED[SEL_MES_TEXT];
const STYLE_PINS = PRED[DOM_SELECTOR.indexOf('.style-pins')];

/** The first descendant of x (in document order) matching selector sel, or null. */
function first(x, sel) {
  if (P.matches === undefined) platform();
  return P.native ? P.query.call(x, DOM_SELECTOR[sel]) : walk(x, PRED[sel]);
}
function walk(x, pred) {
  let n = x.firstElementChild;
  while (n !== null) {
    if (pred(n)) return n;
    const c = n.firstElementChild; // each step is read once: happy-dom finds a sibling by index
    if (c !== null) { n = c; continue; }
    let s = n.nextElementSibling;
    while (s === null) {
      n = n.parentElement;
      if (n === x || n === null) return null;
      s = n.nextElementSibling;
    }
    n = s;
  }
  return null;
}

/** Is v an element this adapter can work with (C30)? */
export function isElement(v) {
  platform();
  try { return v !== null && typeof v === 'object' && P.contains.call(v, v) === true && v.nodeType === 1; } catch { return false; }
}

/** Is v a DOM node (a brand check: a Proxy or a look-alike is not)? */
export function isNode(v) {
  platform();
  try { return v !== null && typeof v === 'object' && P.contains.call(v, v) === true; } catch { return false; }
}

/** What C30 needs of a materialize result that is an element. */
export function element(v) {
  try {
    return { mes: MES(v), parentless: v.parentNode === null, content: first(v, SEL_MES_TEXT) };
  } catch {
    return { mes: false, parentless: false, content: null };
  }
}

// The ops that may change a child list or a root's attributes: a read of
// the root's children after one of them in the same batch is never
// answered "unchanged" (READ_CHILDREN_CHANGED).
const TREE_WRITES = new Uint8Array(64);
for (const op of [OP.REMOVE, OP.INSERT, OP.ROOT_ATTRS, OP.SET_ATTR, OP.REMOVE_ATTR, OP.SET_HTML, OP.SWAP]) TREE_WRITES[op] = 1;

// Computed lengths by style signature (SurfaceDOM.apply), for the page,
// from one host's creation or refreshLayout() to the next. Bounded:
// SillyTavern writes each message's minute into a `timestamp` attribute, so
// nearly every root of a real chat has a signature of its own, and a page
// that scrolls through thousands of messages would otherwise keep one entry
// for each.
const styles = new Map();
export const STYLE_CACHE_MAX = 512;
export const styleCacheSize = () => styles.size;
// A new host may follow a change of the page's styles (a theme, a chat
// style): the facade forgets the page's computed lengths when it creates one.
// Not at every open(): under happy-dom each computed style read holds memory
// until the job yields, and the leak test's 2,000 opens that never yield grew
// by 16 MB. An open epoch's host learns of style changes by refreshLayout().
export const forgetStyles = () => { styles.clear(); };

// An element's style signature: its tag, the property asked first and its
// attributes in order, but mesid and the virtual index. By names and
// getAttribute, which in Chromium costs a tenth of walking x.attributes
// (that makes an Attr node per attribute, kept on the element); the walk
// stays for what getAttribute cannot tell apart: a name with upper case (it
// lower-cases the name asked on HTML elements) or one name twice (in two
// namespaces).
const UPPER = /[A-Z]/;
export function signature(x, first) {
  platform();
  let key = `${x.localName}\0${first}`;
  const names = P.attrNames.call(x);
  for (let i = 0; i < names.length; i++) {
    const k = names[i];
    if (UPPER.test(k) || names.indexOf(k) !== i) return signatureOfAttrs(x, first);
    if (k !== 'mesid' && k !== 'data-tt-virtual-index') key += `\0${k}=${P.getAttr.call(x, k)}`;
  }
  return key;
}
export function signatureOfAttrs(x, first) {
  let key = `${x.localName}\0${first}`;
  for (const a of x.attributes) if (a.name !== 'mesid' && a.name !== 'data-tt-virtual-index') key += `\0${a.name}=${a.value}`;
  return key;
}

// Results are collected here, then copied into Go's buffer at once.
let res = new Uint16Array(1024);
let rp = 0;
const f64 = new Float64Array(1);
const f64u = new Uint16Array(f64.buffer);
function room(n) {
  if (rp + n <= res.length) return;
  let c = res.length * 2;
  while (c < rp + n) c *= 2;
  const r = new Uint16Array(c);
  r.set(res.subarray(0, rp));
  res = r;
}
const unit = (u) => { room(1); res[rp++] = u; };
const num = (x) => { room(4); f64[0] = x; res[rp++] = f64u[0]; res[rp++] = f64u[1]; res[rp++] = f64u[2]; res[rp++] = f64u[3]; };
const id32 = (id) => { room(2); res[rp++] = id & 0xffff; res[rp++] = (id >>> 16) & 0xffff; };
const str = (s) => {
  const n = s.length;
  room(n + 2);
  res[rp++] = n & 0xffff; res[rp++] = n >>> 16;
  for (let i = 0; i < n; i++) res[rp++] = s.charCodeAt(i);
};
const length = (s) => Number.parseFloat(s); // C2: Go maps a non-finite value to 0

/** One host's side: the nodes Go created, the observers, the listeners. */
export class SurfaceDOM {
  constructor(core, events) {
    platform();
    this.core = core;
    this.created = new Map(); // negative id → node
    this.events = events; // { scroll, scrollend, mutation, resize(ids) }: into Go
    const RO = globalThis.ResizeObserver;
    const MO = globalThis.MutationObserver;
    // C85: a notified root is re-measured here first, and reaches Go only
    // if its border box is not the one Go last read for it (Go would find
    // the same size and do nothing). A mounted root's initial notification,
    // which follows every commit that mounts it, so costs Go nothing.
    this.heights = new WeakMap(); // node → bottom − top of Go's last read of it
    this.resize = typeof RO === 'function' ? new RO((entries) => {
      const out = [];
      for (const e of entries) {
        const id = idOf(e.target);
        if (!id) continue;
        if (this.sameHeight(e.target, e)) continue;
        out.push(id);
      }
      if (out.length) events.resize(out);
    }) : null;
    // Two observers: the root's child list, and the mesid and class
    // attributes of its children (C79: which children are .mes roots, and
    // their mesids). The second watches the subtree, as an observer must,
    // but only records about the root's own children count, so content
    // changes inside messages (streaming) never wake Go. A record that
    // counts also makes the root "changed" for READ_CHILDREN_CHANGED until
    // Go has read the children again: records Go did not cause arrive only
    // between batches (a batch drops its own at its end).
    this.dirty = true;
    const onMutation = (records) => {
      if (!this.counts(records)) return;
      this.dirty = true;
      events.mutation();
    };
    this.mutation = typeof MO === 'function' ? [new MO(onMutation), new MO(onMutation)] : [];
    // The core's first read of a scroll notification (C88) is made here and
    // goes with it: scrollTop, clientHeight, scrollHeight.
    this.onScroll = () => events.scroll(this.scrollRead());
    this.onScrollEnd = () => events.scrollend(this.scrollRead());
    this.listening = null;
    this.margins = styles; // style signature → computed lengths, page-wide
  }

  /** Whether x's border box is still the height of Go's last read of it.
   *  The notification's own box is looked at first: it was laid out for
   *  this notification, so reading it forces no layout, where
   *  getBoundingClientRect would when a write followed the frame's layout
   *  (an observer before this one, a commit). Only when the two differ (a
   *  transform, a zoom or a vertical writing mode can make them) is the
   *  border box read. A root whose getBoundingClientRect throws answers
   *  false: Go reads it in a contained batch and faults the epoch (C10),
   *  and the observer callback throws nothing into the page. */
  sameHeight(x, entry) {
    const h = this.heights.get(x);
    if (h === undefined) return false;
    try {
      if (entry?.borderBoxSize?.[0]?.blockSize === h) return true;
      const r = x.getBoundingClientRect();
      return r.bottom - r.top === h;
    } catch { return false; }
  }

  node(id) {
    const n = id < 0 ? this.created.get(id) : byId.get(id)?.node;
    if (n === undefined) throw new Error(`tavern-core: unknown node id ${id}`);
    return n;
  }

  /** The node of an id, or null (for results handed to the page). */
  nodeOrNull(id) {
    return (id < 0 ? this.created.get(id) : byId.get(id)?.node) ?? null;
  }

  release(id) {
    if (id < 0) { this.created.delete(id); return; }
    const e = byId.get(id);
    if (e && --e.holds <= 0) byId.delete(id);
  }

  // An id for a read result: Go's own nodes by their id, others as
  // unregistered, null as 0.
  idFor(n) {
    if (n === null || n === undefined) return 0;
    const id = ids.get(n);
    if (id !== undefined && (id < 0 ? this.created.get(id) === n : byId.has(id))) return id;
    return F.UNREGISTERED;
  }

  make(id, el) {
    this.created.set(id, el);
    ids.set(el, id);
  }

  close() {
    this.resize?.disconnect();
    for (const m of this.mutation) m.disconnect();
    if (this.listening) this.listen(this.listening, false);
    this.created.clear();
  }

  /**
   * READ_SCROLL of the listened root, as [scrollTop, clientHeight,
   * scrollHeight]; null when none, or when a getter threw: Go then reads
   * them itself through a batch, where a throw is contained and faults the
   * epoch (C10), instead of escaping into the page's event dispatch.
   */
  scrollRead() {
    const x = this.listening;
    if (x === null) return null;
    try { return [x.scrollTop, x.clientHeight, x.scrollHeight]; } catch { return null; }
  }

  /** READ_CHILDREN's answer for x: per element child its id, flags, mesid or tag. */
  children(x) {
    const kids = x.children;
    // The count is what was written: a collection is read up to its first
    // hole, never by a length a host can make lie (-1, 1.5, 2^32 − 1).
    room(2);
    const at = rp;
    rp += 2;
    let n = 0;
    for (let k; n < MAX_CHILDREN && (k = kids[n]) != null; n++) {
      const mes = MES(k);
      id32(this.idFor(k));
      unit((mes ? F.MES : 0) | (STYLE_PINS(k) ? F.STYLE_PINS : 0));
      if (mes) {
        const v = P.getAttr.call(k, 'mesid');
        if (v === null) unit(0); else { unit(1); str(v); }
      } else str(k.localName);
    }
    res[at] = n & 0xffff;
    res[at + 1] = n >>> 16;
  }

  /** Whether any of the records is about the listened root's children. A
   *  node whose parentNode getter throws counts: Go then reads the children
   *  in a contained batch, and the observer callback throws nothing. */
  counts(records) {
    const root = this.listening;
    try {
      for (const r of records) if (r.type === 'childList' || r.target.parentNode === root) return true;
    } catch { return true; }
    return false;
  }

  /** Whether any of the records that count (counts) is about a node no op
   *  of the running batch touched. */
  foreign(records) {
    const root = this.listening;
    if (root === null) return false;
    try {
      // Indexed: a NodeList's iterator is several times dearer than its
      // items in Chromium, and every commit brings ~16 of these records.
      for (let i = 0; i < records.length; i++) {
        const r = records[i];
        if (r.type === 'childList') {
          if (r.target !== root) continue;
          const a = r.addedNodes;
          for (let k = 0; k < a.length; k++) if (!touched.has(a[k])) return true;
          const d = r.removedNodes;
          for (let k = 0; k < d.length; k++) if (!touched.has(d[k])) return true;
        } else if (r.target.parentNode === root && !touched.has(r.target)) return true;
      }
    } catch { return true; }
    return false;
  }

  listen(root, on, managed) {
    this.dirty = true;
    if (on) {
      if (managed) {
        root.addEventListener('scroll', this.onScroll);
        root.addEventListener('scrollend', this.onScrollEnd);
        // The viewport's own height (C80's H): a window resized, a composer
        // below the chat growing. Go re-lays out at the next frame.
        this.resize?.observe(root, { box: 'border-box' });
      }
      this.mutation[0]?.observe(root, { childList: true });
      this.mutation[1]?.observe(root, { subtree: true, attributes: true, attributeFilter: ['mesid', 'class'] });
      this.listening = root;
      this.managed = managed;
      return;
    }
    root.removeEventListener('scroll', this.onScroll);
    root.removeEventListener('scrollend', this.onScrollEnd);
    this.resize?.unobserve(root);
    for (const m of this.mutation) m.disconnect();
    this.listening = null;
  }

  /**
   * Run the batch of n units at addr in Go's memory; the results go into
   * Go's buffer and their length is returned. A command that throws ends the
   * batch: onThrow records the value and -1 is returned.
   */
  apply(addr, n, managed, onThrow) {
    // The decoder's state is module-wide (RUN): a batch that page code
    // reaches from inside this one (a custom element's reaction to an
    // insert calling the host) gets its own, and this one's comes back
    // after it, its view of Go's memory made afresh (Go may have grown it).
    const outer = cur === null ? null : [addr0, len0, p, cur, curManaged, wrote, res, rp, touched];
    if (outer !== null) { res = new Uint16Array(64); touched = new Set(); } else if (touched.size > 0) touched.clear();
    addr0 = addr;
    len0 = n;
    c = new Uint16Array(this.core.memory.buffer, addr, n);
    p = 0;
    cur = this;
    curManaged = managed;
    wrote = 0;
    rp = 0;
    try {
      // Records waiting now were made by someone else since the last batch.
      if (this.listening !== null) for (const m of this.mutation) if (this.counts(m.takeRecords())) this.dirty = true;
      while (p < n) {
        const op = c[p++];
        wrote |= TREE_WRITES[op];
        const run = RUN[op];
        if (run === undefined) throw new Error('tavern-core: bad DOM op');
        run();
        // Page code the op ran (a custom element's reaction) may have
        // called into Go, and Go may have grown its memory: the batch is
        // where it was, under a new buffer.
        if (c.length === 0) c = new Uint16Array(cur.core.memory.buffer, addr0, n);
      }
      // The batch's own changes are known to Go: their records would only
      // pile up (holding every removed subtree) while the page never yields,
      // and would wake Go for nothing. Foreign changes made before the batch
      // were found by the operation's own check (C79, C112a step 4). Only a
      // tree write makes a record the observers take (child lists, mesid and
      // class), so a batch of reads leaves them as they are. Page code the
      // batch ran (a custom element's reaction) may have changed the root's
      // children too: a record about a node no op of the batch touched is
      // such a change, reported as the observer would have (C79, C101).
      if (wrote !== 0) {
        let foreign = false;
        for (const m of this.mutation) if (this.foreign(m.takeRecords())) foreign = true;
        if (foreign) {
          this.dirty = true;
          const events = this.events;
          queueMicrotask(() => { if (this.listening !== null) events.mutation(); });
        }
      }
      if (rp > 0) this.core.view(rp).set(res.subarray(0, rp)); // (a batch of writes answers nothing)
      return rp;
    } catch (e) {
      onThrow(e);
      return -1;
    } finally {
      if (outer === null) cur = null;
      else {
        [addr0, len0, p, cur, curManaged, wrote, res, rp, touched] = outer;
        c = new Uint16Array(cur.core.memory.buffer, addr0, len0);
      }
    }
  }
}

// ---- the batch being applied (SurfaceDOM.apply) ----
// One small function per op over module-wide decoder state, not one switch
// in apply: V8 optimizes each small function after a few calls, while the
// switch needed ~100 refreshes' worth of ticks first and fell back to the
// interpreter whenever a new host's first batches brought an op or a node
// class it had not seen, so every new host ran its first hundred refreshes
// 1.5-4x slower (docs/architecture.md, "Ninth round").
let c = new Uint16Array(0); // the batch's units
let addr0 = 0; // where they are in Go's memory, and how many
let len0 = 0;
let p = 0; // the next unit to read
let cur = null; // the SurfaceDOM applying it (null: none)
let curManaged = false;
let wrote = 0; // 1 once a tree write of the batch has run (TREE_WRITES)
let touched = new Set(); // nodes the batch's tree writes changed (SurfaceDOM.foreign)
const u = () => c[p++];
const i32 = () => { const v = c[p] | (c[p + 1] << 16); p += 2; return v; };
const node = () => cur.node(i32());
const nodeOr0 = () => { const id = i32(); return id === 0 ? null : cur.node(id); };
const f = () => { f64u[0] = c[p]; f64u[1] = c[p + 1]; f64u[2] = c[p + 2]; f64u[3] = c[p + 3]; p += 4; return f64[0]; };
const s = () => {
  const len = c[p] | (c[p + 1] << 16);
  p += 2;
  let out = '';
  for (let i = 0; i < len; i += 8192) out += String.fromCharCode.apply(null, c.subarray(p + i, p + Math.min(len, i + 8192)));
  p += len;
  return out;
};
const name = () => DOM_NAME[u()];
const doc = () => (cur.listening?.ownerDocument ?? globalThis.document);
// Computed lengths, once per style signature: roots that look alike to CSS
// (same tag, classes and attributes but their numbers) compute alike, until
// Go says styles may have changed (FORGET_STYLES: refreshLayout). A
// computed style is the dearest read there is.
function styled(x, a, b, d) {
  const seen = cur.margins;
  const key = signature(x, a);
  let m = seen.get(key);
  if (m === undefined) {
    const cs = globalThis.getComputedStyle(x);
    m = [length(cs.getPropertyValue(a)), length(cs.getPropertyValue(b))];
    if (d !== undefined) m.push(length(cs.getPropertyValue(d)));
    if (seen.size >= STYLE_CACHE_MAX) seen.clear(); // (a generation: cheaper than an LRU, as good here)
    seen.set(key, m);
  }
  return m;
}
function rect(x) {
  const r = x.getBoundingClientRect();
  cur.heights.set(x, r.bottom - r.top);
  num(r.top); num(r.bottom);
}

const RUN = [];
RUN[OP.REMOVE] = () => { const x = node(); const from = nodeOr0(); touched.add(x); if (x.parentNode !== null && (from === null || x.parentNode === from)) P.remove.call(x); };
RUN[OP.INSERT] = () => { const parent = node(); const x = node(); const ref = nodeOr0(); touched.add(x); P.insertBefore.call(parent, x, ref); };
RUN[OP.ROOT_ATTRS] = () => {
  const x = node();
  touched.add(x);
  const m = String(i32() >>> 0);
  const flags = u();
  // Go sends every committed root at every commit (C31): a value already
  // right is not written again, so no layout, no record.
  if (P.getAttr.call(x, 'mesid') !== m) P.setAttr.call(x, 'mesid', m);
  if ((flags & F.ROOT_VIRTUAL) && P.getAttr.call(x, 'data-tt-virtual-index') !== m) P.setAttr.call(x, 'data-tt-virtual-index', m);
  const d = first(x, SEL_ID_DISPLAY);
  if (d !== null && d.textContent !== `#${m}`) d.textContent = `#${m}`;
  const last = (flags & F.ROOT_LAST) !== 0;
  if (hasClass(x, 'last_mes') !== last) x.classList.toggle('last_mes', last);
};
RUN[OP.SET_ATTR] = () => { const x = node(); const k = name(); touched.add(x); P.setAttr.call(x, k, s()); };
RUN[OP.REMOVE_ATTR] = () => { const x = node(); touched.add(x); P.removeAttr.call(x, name()); };
// An inline style crosses with its priority as CSS text ("auto !important"),
// so a value read and written back is the one the page had (C72, C107).
RUN[OP.SET_STYLE] = () => {
  const x = node(); const k = name(); const v = s();
  const important = v.endsWith(' !important');
  if (v === '') x.style.removeProperty(k); else x.style.setProperty(k, important ? v.slice(0, -11) : v, important ? 'important' : '');
};
// Spacers are elements no stylesheet knows: without a rule they are inline
// boxes, their heights count for nothing, the scroll height lies and a jump
// cannot reach its message. Each document, or the root's shadow root, gets
// one default the page's own CSS always overrides (default-styles.js;
// flex: none for a column-flex root such as SillyTavern's #chat).
const SPACER_CSS = ':where(tt-chat-spacer) { display: block; flex: none; }';
RUN[OP.SPACER] = () => {
  const id = i32(); const kind = DOM_SPACER[u()]; // (read first: a custom element's constructor is page code)
  addDefaultStyles(cur.listening ?? doc(), SPACER_CSS);
  const el = doc().createElement('tt-chat-spacer');
  P.setAttr.call(el, 'data-tt-chat-spacer', kind);
  P.setAttr.call(el, 'aria-hidden', 'true');
  cur.make(id, el);
};
RUN[OP.HEIGHT] = () => { const x = node(); x.style.setProperty('height', `${f()}px`); };
RUN[OP.CLONE] = () => { const id = i32(); cur.make(id, P.cloneNode.call(node(), false)); };
RUN[OP.DIV] = () => { const id = i32(); cur.make(id, doc().createElement('div')); };
RUN[OP.SET_HTML] = () => { // (emptying needs no parser: the same change, one record; a template's innerHTML is its content's)
  const x = node(); const v = s();
  if (v === '' && x.localName !== 'template') P.replaceChildren.call(x); else x.innerHTML = v;
};
RUN[OP.SWAP] = () => {
  const from = node(); const to = node();
  P.replaceChildren.call(to, ...from.childNodes);
  const busy = P.getAttr.call(from, 'aria-busy');
  if (busy === null) P.removeAttr.call(to, 'aria-busy'); else P.setAttr.call(to, 'aria-busy', busy);
};
RUN[OP.SCROLL] = () => { const x = node(); x.scrollTop = f(); };
// The border box, which C85 measures: the default content box misses a
// root whose padding or border alone changes.
RUN[OP.OBSERVE] = () => { const x = node(); if (u()) cur.resize?.observe(x, { box: 'border-box' }); else cur.resize?.unobserve(x); };
RUN[OP.LISTEN] = () => { const x = node(); cur.listen(x, u() !== 0, curManaged); };
RUN[OP.RELEASE] = () => { cur.release(i32()); };
RUN[OP.FORGET_STYLES] = () => { cur.margins.clear(); };
RUN[OP.READ_SCROLL] = () => { const x = node(); num(x.scrollTop); num(x.clientHeight); num(x.scrollHeight); };
RUN[OP.READ_VIEW] = () => {
  const x = node();
  num(x.scrollTop); num(x.clientHeight); num(x.scrollHeight);
  const m = styled(x, 'padding-top', 'padding-bottom', 'row-gap');
  num(m[0]); num(m[1]); num(m[2]);
};
RUN[OP.READ_BOX] = () => {
  const x = node();
  rect(x);
  const m = styled(x, 'margin-top', 'margin-bottom');
  num(m[0]); num(m[1]);
};
RUN[OP.READ_RECT] = () => { rect(node()); };
RUN[OP.READ_HOST_RECT] = () => {
  const host = node().parentElement;
  if (host === null) { unit(0); num(0); num(0); return; }
  const r = host.getBoundingClientRect();
  unit(1); num(r.top); num(r.bottom);
};
RUN[OP.READ_HTML] = () => { str(node().innerHTML); };
RUN[OP.READ_ATTR] = () => {
  const x = node(); const v = P.getAttr.call(x, name());
  if (v === null) unit(0); else { unit(1); str(v); }
};
RUN[OP.READ_STYLE] = () => {
  const x = node(); const k = name(); const v = x.style.getPropertyValue(k);
  str(v && x.style.getPropertyPriority(k) ? `${v} !important` : v);
};
RUN[OP.READ_CHILDREN_CHANGED] = () => {
  const x = node();
  const d = cur;
  if (!d.dirty && wrote === 0 && x === d.listening && d.mutation.length === 2) { unit(0); return; }
  if (x === d.listening) d.dirty = false;
  unit(1);
  d.children(x);
};
RUN[OP.READ_CHILDREN] = () => { cur.children(node()); };
RUN[OP.READ_NODE] = () => {
  const x = node();
  const el = x.nodeType === 1;
  unit((el ? F.ELEMENT : 0) | (x.isConnected ? F.CONNECTED : 0) |
    (el && MES(x) ? F.MES : 0) | (el && MES_TEXT(x) ? F.MES_TEXT : 0));
  id32(cur.idFor(x.parentNode));
};
RUN[OP.QUERY] = () => {
  const x = node(); const sel = u();
  if (!(sel > 0 && sel < DOM_SELECTOR.length)) throw new Error('tavern-core: bad selector');
  id32(cur.idFor(first(x, sel)));
};
RUN[OP.CONTAINS] = () => { const a = node(); const b = node(); unit(P.contains.call(a, b) ? 1 : 0); };
RUN[OP.OWNERSHIP] = () => { // C45 over every mounted root; the operands are read to the end
  const count = i32();
  let held = count;
  let source = 0;
  for (let i = 0; i < count; i++) {
    const root = node(); const content = node(); const k = i32();
    if (held === count && first(root, SEL_MES_TEXT) !== content) held = i;
    for (let j = 0; j < k; j++) {
      const src = node();
      if (held === count && !(src.isConnected && P.contains.call(content, src))) { held = i; source = 1; }
    }
  }
  id32(held); unit(source);
};
