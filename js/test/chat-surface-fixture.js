// Shared fixture for the chat-surface suites (spec/chatsurface.md §16): a
// happy-dom document, a #chat root with a tiny block layout (happy-dom does
// none), fake frames, and the formatMessage/materialize pair.
import './happydom-preload.cjs';

export function makeRoot({ height = 1000, size = () => 100 } = {}) {
  const root = document.createElement('div');
  root.id = 'chat';
  document.body.append(root);
  let scroll = 0;
  const heightOf = (el) => {
    if (el.localName === 'tt-chat-spacer') return Number.parseFloat(el.style.height) || 0;
    if (el.classList?.contains('mes')) return size(Number(el.getAttribute('mesid')), el);
    return 0;
  };
  const total = () => [...root.children].reduce((s, c) => s + heightOf(c), 0);
  Object.defineProperty(root, 'clientHeight', { get: () => height, configurable: true });
  Object.defineProperty(root, 'scrollHeight', { get: total, configurable: true });
  Object.defineProperty(root, 'scrollTop', {
    get: () => scroll,
    set: (v) => { scroll = Math.max(0, Math.min(v, total() - height)); },
    configurable: true,
  });
  root.getBoundingClientRect = () => ({ top: 0, bottom: height, height });
  root.__rect = (el) => {
    let top = el;
    while (top && top.parentNode !== root) top = top.parentNode;
    if (!top) return { top: 0, bottom: 0, height: 0 };
    let y = 0;
    for (const c of root.children) { if (c === top) break; y += heightOf(c); }
    const h = heightOf(top);
    return { top: y - scroll, bottom: y - scroll + h, height: h };
  };
  return root;
}

// One getBoundingClientRect for every element, asking the root it sits in.
const proto = globalThis.Element.prototype;
proto.getBoundingClientRect = function rect() {
  let r = this;
  while (r && !r.__rect) r = r.parentNode;
  return r ? r.__rect(this) : { top: 0, bottom: 0, height: 0 };
};

export function frames() {
  const q = new Map();
  let next = 0;
  const s = {
    requestAnimationFrame: (cb) => { q.set(++next, cb); return next; },
    cancelAnimationFrame: (id) => { q.delete(id); },
    setTimeout: (cb) => { q.set(++next, cb); return next; },
    clearTimeout: (id) => { q.delete(id); },
    flush() {
      for (let i = 0; q.size > 0; i++) {
        if (i > 10000) throw new Error('frames never settle');
        const [id, cb] = q.entries().next().value;
        q.delete(id);
        cb();
      }
    },
  };
  return s;
}

export const formatMessage = (m) => `<p>${m.mes}</p>`;

export function materializer(counter = { n: 0 }) {
  const f = (m, mesid) => {
    counter.n++;
    const el = document.createElement('div');
    el.className = 'mes';
    el.innerHTML = `<div class="mesIDDisplay"></div><div class="mes_text">${formatMessage(m, mesid)}</div>`;
    return el;
  };
  f.counter = counter;
  return f;
}

export const messages = (n) => Array.from({ length: n }, (_, i) => ({ mes: `m${i}` }));

export function thrown(fn) {
  try { fn(); } catch (e) { return e; }
  throw new Error('expected a throw');
}
