// The tavern-core block in SillyTavern's Extensions drawer: version, whether
// the core loaded (and why not), the takeover and auto-settle toggles, the chat-surface mode
// and where the instructions are. Built with the DOM (no template fetch) in
// SillyTavern's own inline-drawer markup so it looks like the built-in blocks.

const CHAT_SURFACE_MODES = [
  { value: 'static', label: 'Static: SillyTavern renders the chat' },
  { value: 'managed', label: 'Managed: a bounded chat, whatever its length' },
];

function el(tag, attrs = {}, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k === 'class') e.className = v;
    else if (k === 'text') e.textContent = v;
    else e.setAttribute(k, v);
  }
  e.append(...children);
  return e;
}

/**
 * @param {object} o
 * @param {object} o.status   index.js's status object
 * @param {object} o.settings extension_settings['tavern-core'] (mutated)
 * @param {() => void} o.save saveSettingsDebounced
 * @param {string} o.readme   URL of the bundled README
 */
export function mountSettingsPanel({ status, settings, save, readme }) {
  const parent = document.getElementById('extensions_settings2') ?? document.getElementById('extensions_settings');
  if (!parent || document.getElementById('tavern_core_settings')) return;

  const coreLine = status.loaded
    ? el('span', { class: 'tavern-core-ok', text: 'loaded' })
    : el('span', { class: 'tavern-core-error', text: `not loaded: ${errorText(status.error)}` });

  const takeover = el('input', { type: 'checkbox', id: 'tavern_core_takeover' });
  takeover.checked = settings.takeover !== false;
  takeover.disabled = !status.loaded;
  takeover.addEventListener('input', () => { settings.takeover = takeover.checked; save(); });

  const settle = el('input', { type: 'checkbox', id: 'tavern_core_settle_on_abort' });
  settle.checked = settings.settleOnAbort === true;
  settle.disabled = !status.loaded;
  settle.addEventListener('input', () => { settings.settleOnAbort = settle.checked; save(); });

  const mode = el('select', { id: 'tavern_core_chat_surface', class: 'text_pole' });
  for (const m of CHAT_SURFACE_MODES) mode.append(el('option', { value: m.value, text: m.label }));
  mode.value = settings.chatSurface;
  mode.disabled = !status.loaded || CHAT_SURFACE_MODES.length < 2;
  const modeNote = el('div', { class: 'tavern-core-row', id: 'tavern_core_chat_surface_note' });
  const note = () => {
    const now = status.chatSurface ?? 'none';
    // Without the core a reload changes nothing: SillyTavern renders the
    // chat itself until the core loads.
    if (!status.loaded) modeNote.textContent = 'This page: SillyTavern\'s own chat (the core did not load).';
    else modeNote.textContent = settings.chatSurface === now
      ? `This page: ${now}.`
      : `This page: ${now}. Reload the page for ${settings.chatSurface} to take effect.`;
    if (status.managedError) modeNote.textContent += ` Managed mode failed to load: ${errorText(status.managedError)}`;
  };
  note();
  mode.addEventListener('change', () => { settings.chatSurface = mode.value; save(); note(); });

  const body = el('div', { class: 'inline-drawer-content' },
    el('div', { class: 'tavern-core-row' }, el('span', { text: 'Version: ' }), el('span', { id: 'tavern_core_version', text: status.version ?? 'unknown' })),
    el('div', { class: 'tavern-core-row', id: 'tavern_core_status' }, el('span', { text: 'Core (WebAssembly): ' }), coreLine),
    el('label', { class: 'checkbox_label', for: 'tavern_core_takeover' }, takeover, el('span', { text: 'Message takeover (plugins may answer turns instead of the model)' })),
    el('label', { class: 'checkbox_label', for: 'tavern_core_settle_on_abort', title: 'Handles made after this is changed settle as aborted when Stop is pressed, unless the plugin chooses otherwise. Off follows the takeover spec: the plugin settles its own handle.' },
      settle, el('span', { text: 'Stop settles takeover handles (Luker\'s behaviour)' })),
    el('label', { for: 'tavern_core_chat_surface', text: 'Chat surface (applies after a reload):' }),
    mode,
    modeNote,
    el('div', { class: 'tavern-core-row' }, el('a', { href: readme, target: '_blank', rel: 'noopener', text: 'How to use tavern-core in SillyTavern' })),
  );
  const header = el('div', { class: 'inline-drawer-toggle inline-drawer-header' },
    el('b', { text: 'tavern-core' }),
    el('div', { class: 'inline-drawer-icon fa-solid fa-circle-chevron-down down' }));
  parent.append(el('div', { id: 'tavern_core_settings' }, el('div', { class: 'inline-drawer' }, header, body)));
}

function errorText(e) {
  if (e instanceof Error) return e.message || e.name;
  try { return String(e); } catch { return 'unknown error'; }
}
