// A takeover plugin that misbehaves on request, to show it cannot wedge
// SillyTavern's UI: globalThis.__hostilePlugin.mode is
//   'off'          — declines (the default; the next listener decides)
//   'throw'        — claims, then its listener throws
//   'never'        — claims and never settles its handle, ignoring the signal
//   'throw-before' — throws before claiming
//   'discard-on-stop' — claims, and discards its handle when the signal aborts
//                   (a plugin with nothing worth keeping from a stopped run)
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
  if (mode === 'off') return;
  if (mode === 'throw-before') throw new Error('hostile plugin: throws before claiming');
  // discard-on-stop settles the handle itself, whatever the host's auto-settle switch says.
  const settle = mode === 'discard-on-stop' ? { settleOnAbort: false } : {};
  const handle = ctx.createMessageEditorHandle({ generationType: eventData.type, owner: 'hostile', abortSignal: eventData.abortSignal, ...settle });
  control.handles.push(handle);
  eventData.takeoverHandle = handle;
  handle.setText('partial from a plugin that never finishes');
  if (mode === 'throw') throw new Error('hostile plugin: throws after claiming');
  if (mode === 'discard-on-stop') eventData.abortSignal.addEventListener('abort', () => { void handle.discard(); }, { once: true });
  // 'never': nothing settles the handle.
});
