// The plugin's browser half, in the form the harness's client-module loader
// takes: a classic script that registers a factory under the package name.
// (A plain ES module here breaks the whole web UI: the loader expects the
// registration, and every entry must activate.) The factory returns a
// cordis plugin whose apply never throws and never waits: it starts the
// editor (browser.js, an ES module served by the host half) in the
// background, so a failure here leaves the harness's own UI untouched.
window.__ModuleLoader__.load({
  id: 'tavern-core-message-editor',
  factory: () => {
    const BOOT_GLOBAL = '__TAVERN_CORE_MESSAGE_EDITOR__';
    function apply(ctx) {
      const boot = globalThis[BOOT_GLOBAL];
      if (!boot || typeof boot.assets !== 'string' || typeof boot.token !== 'string') {
        console.warn('tavern-core message editor: the host half did not hand over its boot data; the editor stays off.');
        return;
      }
      let stopped = false;
      let running;
      import(`${boot.assets}/browser.js`)
        .then((m) => { if (!stopped) running = m.start({ sessions: ctx.sessions, boot }); })
        .catch((err) => console.error('tavern-core message editor: could not start', err));
      ctx.effect(() => () => {
        stopped = true;
        running?.stop();
      }, 'tavern-core-message-editor: widget');
    }
    return { name: 'tavern-core-message-editor', inject: ['sessions'], apply };
  },
});
