// Injected into every page of the managed suite (addInitScript): records
// what moves #chat's scroll offset, so a failed following check can say who
// moved it. Writes to scrollTop and calls of scrollTo, scrollBy and
// scrollIntoView on #chat or its descendants (with a short stack), the
// root's scroll events, ResizeObserver deliveries for nodes in #chat and
// iframe height changes, each with [scrollTop, clientHeight, scrollHeight].
// globalThis.__scrollLog() returns the last entries.
(() => {
  const log = [];
  const t0 = performance.now();
  const push = (e) => {
    e.t = Math.round(performance.now() - t0);
    log.push(e);
    if (log.length > 3000) log.splice(0, 1000);
  };
  const chat = () => document.getElementById('chat');
  const inChat = (el) => { const c = chat(); return !!c && (el === c || c.contains(el)); };
  const at = () => { const c = chat(); return c ? [Math.round(c.scrollTop * 10) / 10, c.clientHeight, c.scrollHeight] : null; };
  const stack = () => (new Error().stack ?? '').split('\n').slice(3, 8).map((s) => s.trim().replace(/https?:\/\/[^/]+/, '')).join(' | ');
  const top = Object.getOwnPropertyDescriptor(Element.prototype, 'scrollTop');
  Object.defineProperty(Element.prototype, 'scrollTop', {
    configurable: true, enumerable: top.enumerable, get: top.get,
    set(v) {
      if (!inChat(this)) return top.set.call(this, v);
      const before = at();
      top.set.call(this, v);
      push({ write: `scrollTop=${v}`, el: this.id || this.className, before, at: at(), stack: stack() });
    },
  });
  for (const m of ['scrollTo', 'scrollBy', 'scrollIntoView']) {
    const f = Element.prototype[m];
    Element.prototype[m] = function (...a) {
      if (!inChat(this)) return f.apply(this, a);
      const before = at();
      const r = f.apply(this, a);
      push({ write: `${m}(${JSON.stringify(a)})`, el: this.id || this.className, before, at: at(), stack: stack() });
      return r;
    };
  }
  const following = () => { try { return globalThis.__tavernCoreExtension?.managed?.chat?.host?.snapshot().followingTail; } catch { return null; } };
  document.addEventListener('scroll', (e) => {
    if (e.target?.id === 'chat') push({ ev: 'scroll', at: at(), following: following() });
  }, true);
  const RO = globalThis.ResizeObserver;
  globalThis.ResizeObserver = class extends RO {
    constructor(cb) {
      super((entries, o) => {
        const mine = entries.filter((e) => inChat(e.target));
        if (mine.length) {
          push({ ev: 'resize', at: at(), sizes: mine.map((e) => `${e.target.getAttribute('mesid') ?? e.target.className}:${Math.round(e.borderBoxSize?.[0]?.blockSize ?? e.contentRect.height)}`).join(',') });
        }
        return cb(entries, o);
      });
    }
  };
  new MutationObserver((ms) => {
    const hs = ms.filter((m) => m.target.tagName === 'IFRAME' && inChat(m.target)).map((m) => m.target.style.height);
    if (hs.length) push({ ev: 'iframe-height', at: at(), heights: hs.join(',') });
  }).observe(document, { subtree: true, attributes: true, attributeFilter: ['style'] });
  globalThis.__scrollLog = () => log.slice(-400);
})();
