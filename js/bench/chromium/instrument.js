// Loaded before anything else: every callback the chat view gets from the
// browser (frames, timers, scroll listeners, observers) is timed, and the
// time is added to window.__script. The bench reads it per frame: the
// main-thread script time of the view, forced style and layout included.
(() => {
  window.__script = 0;
  const timed = (f) => function timedCallback(...a) {
    const t = performance.now();
    try { return f.apply(this, a); } finally { window.__script += performance.now() - t; }
  };
  const raf = window.requestAnimationFrame.bind(window);
  const st = window.setTimeout.bind(window);
  window.requestAnimationFrame = (cb) => raf(timed(cb));
  window.setTimeout = (cb, ms, ...a) => st(typeof cb === 'function' ? timed(cb) : cb, ms, ...a);
  window.__untimedRaf = raf;
  const add = EventTarget.prototype.addEventListener;
  const wrapped = new WeakMap();
  EventTarget.prototype.addEventListener = function addEventListener(type, fn, opts) {
    if ((type === 'scroll' || type === 'scrollend') && typeof fn === 'function') {
      let w = wrapped.get(fn);
      if (!w) { w = timed(fn); wrapped.set(fn, w); }
      return add.call(this, type, w, opts);
    }
    return add.call(this, type, fn, opts);
  };
  const remove = EventTarget.prototype.removeEventListener;
  EventTarget.prototype.removeEventListener = function removeEventListener(type, fn, opts) {
    return remove.call(this, type, wrapped.get(fn) ?? fn, opts);
  };
  for (const name of ['ResizeObserver', 'MutationObserver']) {
    const O = window[name];
    window[name] = class extends O { constructor(cb) { super(timed(cb)); } };
  }
})();
