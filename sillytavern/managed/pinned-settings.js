// Two of SillyTavern's settings are pinned while managed mode runs; the
// user's own values are kept (the settings controls write them, and they are
// what settings.json receives):
// - chat_truncation: SillyTavern renders that many messages of every chat it
//   opens (printMessages) before anyone can intervene, and managed mode
//   replaces them at once, so that render is cut to the last message;
// - auto_scroll_chat_to_bottom: the host alone moves the scroll position
//   (following the tail, C86–C87); SillyTavern's own scroll-to-bottom would
//   look like a user's scroll gesture to it. The user's value still decides
//   whether a new message scrolls the view to the end.
export const PINNED = { chat_truncation: 1, auto_scroll_chat_to_bottom: false };
// Returns the user's values and `restore()`, which puts them back as plain
// properties (managed mode could not start).
export function pinSettings(power_user) {
  const saved = {};
  for (const [key, value] of Object.entries(PINNED)) {
    saved[key] = power_user[key];
    Object.defineProperty(power_user, key, {
      configurable: true,
      enumerable: true,
      get: () => value,
      set: (v) => { saved[key] = v; },
    });
  }
  Object.defineProperty(power_user, 'toJSON', {
    configurable: true,
    enumerable: false,
    value() {
      const out = {};
      for (const k of Object.keys(this)) out[k] = this[k];
      return Object.assign(out, saved);
    },
  });
  const restore = () => {
    for (const key of Object.keys(PINNED)) {
      Object.defineProperty(power_user, key, { configurable: true, enumerable: true, writable: true, value: saved[key] });
    }
    delete power_user.toJSON;
  };
  return { saved, restore };
}
