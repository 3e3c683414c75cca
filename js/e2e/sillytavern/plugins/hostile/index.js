// A takeover plugin that misbehaves on request, to show it cannot wedge
// SillyTavern's UI: globalThis.__hostilePlugin.mode is
//   'off'          — declines (the default; the next listener decides)
//   'throw'        — claims, then its listener throws
//   'never'        — claims and never settles its handle, ignoring the signal
//   'throw-before' — throws before claiming
//   'discard-on-stop' — claims, and discards its handle when the signal aborts
//                   (a plugin with nothing worth keeping from a stopped run)
//   'discard-now'  — claims, then gives up by itself (discards, no Stop); records
//                   whether its signal aborted after that (control.signalAfterDiscard)
//   'slow-claim'   — decides for control.slowMs, then claims (even when Stop
//                   came meanwhile), writes, and aborts its handle on the signal
// It loads before the seed example, so when it claims it wins (T50).
const control = (globalThis.__hostilePlugin = { mode: 'off', handles: [] });
const ctx = SillyTavern.getContext();
// What a later extension sees while its module evaluates (tavern-core has
// loading_order -100 and an activate hook, so it must be fully loaded).
control.atEvaluation = {
  chatSurface: typeof window.__TAURITAVERN__?.api?.chatSurface,
  managed: window.__TAURITAVERN__?.api?.chatSurface?.isManagedOwnershipRequired?.(),
  createMessageEditorHandle: typeof ctx.createMessageEditorHandle,
  TakeoverError: typeof ctx.TakeoverError,
  dispatch: ctx.eventTypes.GENERATE_TAKEOVER_DISPATCH,
};

ctx.eventSource.on(ctx.eventTypes.GENERATE_TAKEOVER_DISPATCH, (eventData) => {
  const { mode } = control;
  if (mode === 'off') return undefined;
  if (mode === 'slow-claim') return new Promise((r) => { setTimeout(r, control.slowMs ?? 1500); }).then(() => claim(eventData, mode));
  return claim(eventData, mode);
});

function claim(eventData, mode) {
  if (mode === 'throw-before') throw new Error('hostile plugin: throws before claiming');
  // discard-on-stop settles the handle itself, whatever the host's auto-settle switch says.
  const own = mode === 'discard-on-stop' ? { settleOnAbort: false } : {};
  const handle = ctx.createMessageEditorHandle({ generationType: eventData.type, owner: 'hostile', abortSignal: eventData.abortSignal, ...own });
  control.handles.push(handle);
  eventData.takeoverHandle = handle;
  handle.setText('partial from a plugin that never finishes');
  if (mode === 'throw') throw new Error('hostile plugin: throws after claiming');
  if (mode === 'discard-on-stop') eventData.abortSignal.addEventListener('abort', () => { void handle.discard(); }, { once: true });
  if (mode === 'discard-now') {
    control.signalAfterDiscard = undefined;
    setTimeout(async () => {
      await handle.discard();
      setTimeout(() => { control.signalAfterDiscard = eventData.abortSignal.aborted; }, 200);
    }, 100);
  }
  if (mode === 'slow-claim') {
    const stop = () => { void handle.abort(); };
    if (eventData.abortSignal.aborted) stop();
    else eventData.abortSignal.addEventListener('abort', stop, { once: true });
  }
  // 'never': nothing settles the handle.
  return undefined;
}
