// Property writes that happen all or not at all, for the installers
// (installTakeoverContext, installChatSurfaceApi): when one write throws (a
// frozen or non-extensible object, a setter-less accessor), rollback()
// takes back the writes before it, last first, and the caller rethrows.

/** A set of writes: put(o, k, v) writes o[k] = v and remembers how to undo it. */
export function allOrNothing() {
  const undo = [];
  return {
    put(o, k, v) {
      const had = Object.getOwnPropertyDescriptor(o, k);
      o[k] = v;
      undo.push(() => { if (had) Object.defineProperty(o, k, had); else delete o[k]; });
    },
    rollback() {
      for (let i = undo.length - 1; i >= 0; i--) {
        try { undo[i](); } catch { /* the failed write's error is the one thrown */ }
      }
    },
  };
}
