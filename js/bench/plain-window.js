// A plain-JS implementation of the bounded window policy (C73–C91 subset),
// the baseline for bench/chat-surface.js: V ∪ {T} with at most 32 viewport
// messages, overscan 2, spacers, measured sizes by message object with a
// 200 px estimate, Fenwick prefix sums, following the tail, one geometry
// commit per frame, and (C85) another commit at the next frame when a
// mounted root measures differently from the size its commit used, and
// C86's anchor kept while sizes change — so both sides mount the same roots
// in the same frames. Mounted roots get C31's
// attributes (mesid, last_mes, the #n of .mesIDDisplay), so both sides lay
// out the same content. It reads the computed lengths C80 and C85 lay out
// with (the root's padding and row gap, each root's margins), as cheaply as
// a page would by hand: the root's once per open, the margins once per class
// list. No participants, leases or admission: it is what a page would write
// by hand, so the ratio shows what the Go core costs.
const EST = 200;
const MAXV = 32;

class Fenwick {
  constructor(sizes) {
    const n = sizes.length;
    this.n = n;
    this.size = Float64Array.from(sizes);
    this.tree = new Float64Array(n + 1);
    for (let i = 0; i < n; i++) {
      this.tree[i + 1] += sizes[i];
      const j = i + 1 + ((i + 1) & -(i + 1));
      if (j <= n) this.tree[j] += this.tree[i + 1];
    }
  }
  prefix(i) { let s = 0; for (let k = i; k > 0; k -= k & -k) s += this.tree[k]; return s; } // sum of [0, i)
  set(i, v) { const d = v - this.size[i]; this.size[i] = v; for (let k = i + 1; k <= this.n; k += k & -k) this.tree[k] += d; }
  // last index with prefix(i) <= s
  find(s) {
    let pos = 0;
    let rem = s;
    for (let step = 1 << Math.floor(Math.log2(this.n || 1)); step > 0; step >>= 1) {
      if (pos + step <= this.n && this.tree[pos + step] <= rem) { pos += step; rem -= this.tree[pos]; }
    }
    return Math.min(pos, this.n - 1);
  }
}

export function createPlainWindow({ root, getMessages, materialize, requestAnimationFrame }) {
  let chat = [];
  let fw;
  const sizes = new WeakMap();
  const mounted = new Map(); // mesid → element
  let following = true;
  let top = null;
  let middle = null;
  let frame = 0;
  let lastS = 0;
  // C80: start(0) = Ps, each size followed by the row gap G, total ends
  // with Pe. The tree holds size + G, so the prefix sums carry the gaps.
  let Ps = 0;
  let Pe = 0;
  let G = 0;
  const margins = new Map(); // class list → [top, bottom] (C85)
  const px = (v) => Number.parseFloat(v) || 0; // C2: normal, "" count as 0
  function marginsOf(el) {
    let m = margins.get(el.className);
    if (m === undefined) {
      const cs = getComputedStyle(el);
      m = px(cs.getPropertyValue('margin-top')) + px(cs.getPropertyValue('margin-bottom'));
      margins.set(el.className, m);
    }
    return m;
  }
  const spacer = (kind) => {
    const el = document.createElement('tt-chat-spacer');
    el.setAttribute('data-tt-chat-spacer', kind);
    el.setAttribute('aria-hidden', 'true');
    return el;
  };
  const start = (i) => Ps + fw.prefix(i);
  const total = () => (chat.length ? start(chat.length) - G : Ps) + Pe;
  function visible(S, H) {
    const n = chat.length;
    const a = Math.max(0, fw.find(S - Ps));
    let b = fw.find(S + H - Ps);
    if (b < a) b = a;
    return [a, Math.min(n - 1, b)];
  }
  function windowAt(S, H) {
    const n = chat.length;
    const [a, b] = visible(S, H);
    let s = Math.max(0, a - 2);
    let e = Math.min(n - 1, b + 2);
    if (e - s + 1 > MAXV) {
      const c = (a + b) >> 1;
      const L = Math.min(n, MAXV);
      s = Math.min(Math.max(c - (L >> 1), 0), n - L);
      e = s + L - 1;
    }
    return [s, e];
  }
  function commit([s, e]) {
    const T = chat.length - 1;
    const want = new Set();
    for (let i = s; i <= e; i++) want.add(i);
    if (T >= 0) want.add(T);
    for (const [i, el] of mounted) if (!want.has(i)) { el.remove(); mounted.delete(i); }
    const order = [...want].sort((x, y) => x - y);
    if (!top) top = spacer('top');
    top.style.height = `${fw.prefix(order[0])}px`;
    root.prepend(top);
    let prev = top;
    for (const i of order) {
      let el = mounted.get(i);
      if (!el) {
        el = materialize(chat[i], i);
        el.setAttribute('mesid', String(i));
        const display = el.querySelector('.mesIDDisplay'); // C31, as the core writes it
        if (display) display.textContent = `#${i}`;
        mounted.set(i, el);
      }
      if (i === T && e < T - 1) {
        if (!middle) middle = spacer('middle');
        middle.style.height = `${start(T) - start(e + 1)}px`;
        prev.after(middle);
        prev = middle;
      } else if (i === T && middle) { middle.remove(); middle = null; }
      if (prev.nextSibling !== el) prev.after(el);
      el.classList.toggle('last_mes', i === T);
      prev = el;
    }
    let changed = false;
    for (const [i, el] of mounted) { // measure (C85)
      const h = el.getBoundingClientRect().height + marginsOf(el);
      if (h + G !== fw.size[i]) { sizes.set(chat[i], h); fw.set(i, h + G); changed = true; }
    }
    return changed;
  }
  function writeS(S) { root.scrollTop = S; lastS = root.scrollTop; }
  function geometry() {
    frame = 0;
    const H = root.clientHeight;
    const end = () => Math.max(0, total() - H);
    const S = following ? end() : root.scrollTop;
    // C86's anchor: the message at S keeps its offset from S while the
    // messages just measured change the sizes above it.
    const a = following ? 0 : fw.find(S - Ps);
    const offset = S - start(a);
    const changed = commit(windowAt(S, H));
    writeS(following ? end() : Math.min(Math.max(0, start(a) + offset), end()));
    if (changed && !frame) frame = requestAnimationFrame(geometry); // C85
  }
  root.addEventListener('scroll', () => {
    if (Math.abs(root.scrollTop - lastS) <= 1.5) return;
    following = root.scrollTop + root.clientHeight >= total() - 5;
    if (!frame) frame = requestAnimationFrame(geometry);
  });
  return {
    open() {
      chat = getMessages();
      const cs = getComputedStyle(root);
      Ps = px(cs.getPropertyValue('padding-top'));
      Pe = px(cs.getPropertyValue('padding-bottom'));
      G = px(cs.getPropertyValue('row-gap'));
      fw = new Fenwick(chat.map((m) => (sizes.get(m) ?? EST) + G));
      following = true;
      geometry();
      geometry();
    },
    reset() {
      for (const el of mounted.values()) el.remove();
      mounted.clear();
      top?.remove(); middle?.remove(); top = middle = null;
    },
    get mounted() { return mounted.size; },
  };
}
