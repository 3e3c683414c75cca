// A plain-JS implementation of the content-processor chain policy (C115–C129
// subset), the baseline for the processor row of bench/chat-surface.js:
// processors chained in registration order (earliest outermost) with a
// memoised renderBase per layer, one frozen ctx per request, one global FIFO
// queue, results cached per message object under the C121 version and the
// base HTML (normalised through an innerHTML round trip, C51/C117, as the
// cache compares it), aborts on supersede and refresh, errors wrapped per
// layer, a changed message after a layer refused (C119), and a result written
// only while its request is current. No leases, participants or faults: what
// a page would write by hand.
const versionOf = (m) => JSON.stringify([m.mes, m.swipe_id ?? 0, m.extra?.display_text, m.name, m.is_user, m.is_system, m.role]);

export function createPlainChain({ processors, formatMessage, getMessages }) {
  const cache = new Map(); // message object → entry
  let tail = Promise.resolve();

  const scratch = document.createElement('div');
  const normalised = (html) => { scratch.innerHTML = html; const s = scratch.innerHTML; scratch.replaceChildren(); return s; };
  // The same HTML for the same root normalises as it did last time (the core
  // keeps that round trip per mounted message too: docs/chatsurface.md,
  // "Normalising the same HTML once"), so a refresh does not re-parse it.
  const lastRoundTrip = new WeakMap(); // root → { raw, norm }
  const normalisedFor = (el, html) => {
    const m = lastRoundTrip.get(el);
    if (m && m.raw === html) return m.norm;
    const norm = normalised(html);
    lastRoundTrip.set(el, { raw: html, norm });
    return norm;
  };

  function runChain(ctx, base, version) {
    const layer = (i) => {
      if (i === processors.length) return Promise.resolve(base);
      const p = processors[i];
      let memo;
      const renderBase = () => (memo ??= layer(i + 1));
      let r;
      try { r = p.prepare(ctx, renderBase); } catch (e) { r = Promise.reject(e); }
      return Promise.resolve(r).then((v) => {
        if (typeof v !== 'string') throw new TypeError('prepare must return an HTML string');
        if (versionOf(ctx.message) !== version) throw new Error(`content processor ${p.id} changed message ${ctx.mesid} after renderBase`);
        return v;
      }).catch((cause) => {
        throw new Error(`content processor ${p.id} failed for message ${ctx.mesid}`, { cause });
      });
    };
    return layer(0);
  }

  const current = (entry, message) => !entry.ctrl.signal.aborted && cache.get(message) === entry &&
    getMessages()[entry.mesid] === message;

  // Prepare one mounted root's content: apply a cached result synchronously,
  // or empty it (aria-busy) and queue a request. Resolves once settled.
  function prepare(el, mesid) {
    const message = getMessages()[mesid];
    const text = el.querySelector('.mes_text');
    const base = normalisedFor(el, formatMessage(message, mesid));
    const version = versionOf(message);
    const old = cache.get(message);
    if (old && !old.ctrl.signal.aborted && old.version === version && old.base === base && (old.result !== undefined || old.mesid === mesid)) {
      if (old.result !== undefined) { text.innerHTML = old.result; text.removeAttribute('aria-busy'); return Promise.resolve(); }
      return old.done;
    }
    old?.ctrl.abort();
    const entry = { version, base, mesid, result: undefined, ctrl: new AbortController() };
    cache.set(message, entry);
    text.replaceChildren();
    text.setAttribute('aria-busy', 'true');
    const ctx = Object.freeze({ message, mesid, signal: entry.ctrl.signal });
    entry.done = tail = tail.then(() => {
      if (entry.ctrl.signal.aborted) return undefined;
      return runChain(ctx, base, version).then((html) => {
        if (!current(entry, message)) return;
        entry.result = html;
        if (el.isConnected) { text.innerHTML = html; text.removeAttribute('aria-busy'); }
      }, (e) => { if (current(entry, message)) throw e; });
    });
    tail = tail.catch(() => {}); // a failure does not block the queue
    return entry.done;
  }

  return {
    prepare,
    // refresh(): drop every result (aborting pending requests), then
    // re-prepare each mounted root from chat[].
    refresh(roots) {
      for (const e of cache.values()) e.ctrl.abort();
      cache.clear();
      return Promise.all(roots.map((el) => prepare(el, Number(el.getAttribute('mesid'))))).then(() => {});
    },
  };
}
