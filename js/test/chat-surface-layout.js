// A small layout engine for the hostile-host suites (issue 13): message
// roots whose height follows their content, a scrollTop that the "browser"
// clamps when the content shrinks (firing the scroll event a browser fires),
// and a ResizeObserver that reports observed roots whose observed box
// changed, the first observation included: the content box by default, the
// border box when asked, as browsers do (a root's data-pad is padding, in its
// border box only). tick() is one layout pass.
import './chat-surface-fixture.js'; // its getBoundingClientRect asks root.__rect

const observers = new Set();
export class LayoutResizeObserver {
  constructor(cb) { this.cb = cb; this.seen = new Map(); observers.add(this); }
  observe(el, { box = 'content-box' } = {}) { if (!this.seen.has(el)) this.seen.set(el, { box, h: undefined }); }
  unobserve(el) { this.seen.delete(el); }
  disconnect() { this.seen.clear(); observers.delete(this); }
  check() {
    const entries = [];
    for (const [el, o] of this.seen) {
      const content = el.parentNode?.__heightOf?.(el) ?? 0;
      const now = o.box === 'border-box' ? content + padOf(el) : content;
      if (now !== o.h) { o.h = now; entries.push({ target: el, borderBoxSize: [{ blockSize: content + padOf(el), inlineSize: 0 }], contentBoxSize: [{ blockSize: content, inlineSize: 0 }] }); }
    }
    if (entries.length) this.cb(entries, this);
  }
}

const padOf = (el) => Number(el.dataset?.pad) || 0;

// Default content-driven height: 20 px for an empty (pending) .mes_text,
// else 100 px plus the data-h of every element inside.
export function contentHeight(el) {
  const text = el.querySelector('.mes_text');
  if (!text || text.childNodes.length === 0) return 20;
  let h = 100;
  for (const x of el.querySelectorAll('[data-h]')) h += Number(x.dataset.h);
  return h;
}

export function layoutRoot({ height = 1000, heightOf = contentHeight } = {}) {
  const root = document.createElement('div');
  root.id = 'chat';
  document.body.append(root);
  root.__heightOf = heightOf;
  const sizeOf = (el) => {
    if (el.localName === 'tt-chat-spacer') return Number.parseFloat(el.style.height) || 0;
    if (el.classList?.contains('mes')) return heightOf(el) + padOf(el);
    return 0;
  };
  const total = () => { let t = 0; for (const c of root.children) t += sizeOf(c); return t; };
  let stored = 0;
  const max = () => Math.max(0, total() - height);
  Object.defineProperty(root, 'clientHeight', { get: () => height, configurable: true });
  Object.defineProperty(root, 'scrollHeight', { get: total, configurable: true });
  let moved = false; // a scroll event is due at the next frame
  Object.defineProperty(root, 'scrollTop', {
    get: () => Math.min(stored, max()), // layout clamps what a read sees at once
    set: (v) => {
      const was = stored;
      stored = Math.max(0, Math.min(Number(v) || 0, max()));
      moved ||= stored !== was;
    },
    configurable: true,
  });
  root.getBoundingClientRect = () => ({ top: 0, bottom: height, height });
  root.__rect = (el) => {
    let top = el;
    while (top && top.parentNode !== root) top = top.parentNode;
    if (!top) return { top: 0, bottom: 0, height: 0 };
    let y = 0;
    for (const c of root.children) { if (c === top) break; y += sizeOf(c); }
    const s = root.scrollTop;
    const h = sizeOf(top);
    return { top: y - s, bottom: y - s + h, height: h };
  };
  const Event = root.ownerDocument.defaultView.Event;
  // The rendering steps of one frame, as a browser orders them: the scroll
  // event for offsets that moved since the last frame, then the frame
  // callbacks (run by browser()), then layout (clamping the stored offset,
  // whose event comes at the next frame) and resize notifications.
  root.scrollSteps = () => { if (moved) { moved = false; root.dispatchEvent(new Event('scroll')); } };
  root.layout = () => {
    if (stored > max()) { stored = max(); moved = true; }
    for (const o of [...observers]) o.check();
  };
  return root;
}

// A browser's event loop for one root: timers are tasks on a virtual clock
// (16 ms per frame), frame() runs the rendering steps of one frame.
export function browser(root) {
  const rafs = new Map();
  const timers = new Map();
  let next = 0;
  let now = 0;
  return {
    requestAnimationFrame: (cb) => { rafs.set(++next, cb); return next; },
    cancelAnimationFrame: (id) => { rafs.delete(id); },
    setTimeout: (cb, ms) => { timers.set(++next, { cb, at: now + (Number(ms) || 0) }); return next; },
    clearTimeout: (id) => { timers.delete(id); },
    frame() {
      now += 16;
      for (const [id, t] of [...timers]) if (t.at <= now && timers.delete(id)) t.cb();
      root.scrollSteps();
      const cbs = [...rafs.values()];
      rafs.clear();
      for (const cb of cbs) cb(now);
      root.layout();
    },
  };
}
