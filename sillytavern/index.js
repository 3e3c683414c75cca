// tavern-core as a SillyTavern third-party extension.
//
// The manifest declares `"hooks": {"activate": "activate"}` and a very low
// loading_order: SillyTavern then imports this module (waiting for its
// top-level await) and calls activate() before it evaluates any later
// extension. So by the time another extension's module runs, the core is
// loaded, window.__TAURITAVERN__.api.chatSurface is installed and every
// getContext() result carries the takeover API.
//
// The core is imported dynamically so that a failure to load it (a missing
// or broken tavern-core.wasm) still leaves SillyTavern working and the
// settings panel able to say what went wrong.
import {
  activateSendButtons, chat, cleanUpMessage, deactivateSendButtons, deleteLastMessage, deleteMessage,
  eventSource, event_types, getCurrentChatId, hideSwipeButtons, isChatSaving, isStreamingEnabled, saveChat,
  saveReply, saveSettingsDebounced, scrollChatToBottom, setSendButtonState, syncMesToSwipe,
  triggerAutoContinue, updateMessageBlock, updateSwipeCounter,
} from '../../../../script.js';
import { extension_settings } from '../../../extensions.js';
import { saveGroupChat, selected_group } from '../../../group-chats.js';
import { installSillyTavernTakeover } from './takeover.js';
import { mountSettingsPanel } from './settings.js';
import { explainLoadFailure } from './load-check.js';

const FOLDER = decodeURIComponent(new URL('.', import.meta.url).pathname.split('/').filter(Boolean).pop());
const DEFAULTS = Object.freeze({ takeover: true, settleOnAbort: false, chatSurface: 'static' });

const settings = (extension_settings[FOLDER] = { ...DEFAULTS, ...(extension_settings[FOLDER] ?? {}) });

/** What the settings panel reports; also `globalThis.__tavernCoreExtension` for diagnostics. */
export const status = {
  folder: FOLDER,
  version: null,
  loaded: false,
  error: null,
  chatSurface: null,
  takeover: false,
};
globalThis.__tavernCoreExtension = status;

const st = {
  chat, eventSource, event_types, activateSendButtons, cleanUpMessage, deactivateSendButtons,
  deleteLastMessage, deleteMessage, getCurrentChatId, hideSwipeButtons, isStreamingEnabled,
  saveReply, scrollChatToBottom, setSendButtonState, syncMesToSwipe, triggerAutoContinue, updateMessageBlock,
  updateSwipeCounter,
  // Whether SillyTavern is saving a chat now (a live binding), and the open
  // chat saved at once: saveChat and saveGroupChat build their request from
  // chat[] before their first await.
  isChatSaving: () => isChatSaving,
  saveOpenChat: () => (selected_group ? saveGroupChat(selected_group, true) : saveChat()),
};

// Ask for the module the entries share and for the wasm now, beside the
// entries: the wasm downloads and compiles off the main thread while the
// modules load, instead of after them (docs/architecture.md, "Load"). The
// loader's fetch() takes the preloaded response (same URL, mode and
// credentials). A page without <head> just loads in order.
try {
  for (const [rel, file] of [['modulepreload', './lib/tavern-core.js'], ['preload', './lib/tavern-core.wasm']]) {
    const link = Object.assign(document.createElement('link'), { rel, href: new URL(file, import.meta.url).href });
    if (rel === 'preload') Object.assign(link, { as: 'fetch', crossOrigin: 'anonymous' });
    document.head.append(link);
  }
} catch { /* loads in order */ }

try {
  const [surface, takeoverHost] = await Promise.all([
    import('./lib/chat-surface.js'),
    import('./lib/takeover-host.js'),
  ]);
  // The chat-surface mode is fixed for the page (C12), from the saved
  // setting. Static: SillyTavern renders the chat itself, so
  // chat-surface-aware extensions keep their own renderers. Managed: #chat
  // is a bounded projection driven by tavern-core (managed/, docs/
  // sillytavern-managed.md), and isManagedOwnershipRequired() is true before
  // any later extension evaluates.
  let managedMode = null;
  if (settings.chatSurface === 'managed') {
    try {
      managedMode = await import('./managed/index.js');
    } catch (e) {
      status.managedError = e;
      console.error('[tavern-core] managed mode did not load; the chat surface stays static', e);
    }
  }
  // Static mode runs no chat-surface host here: SillyTavern renders the
  // chat, and registered participants and processors are never called
  // (C14, C15). An extension that registers anyway (its managed-mode check
  // forgotten) is told once, instead of nothing happening.
  let told = false;
  const onRegister = managedMode !== null ? undefined : (kind) => {
    if (told) return;
    told = true;
    console.warn(`[tavern-core] chat surface: a ${kind} registered on a page in static mode, where SillyTavern renders the chat and no participant or processor is called. Check isManagedOwnershipRequired() and keep your own renderer, or turn on managed mode (Extensions → tavern-core → Chat surface) and reload.`);
  };
  const api = surface.installChatSurfaceApi(globalThis, { managed: managedMode !== null, onRegister });
  status.chatSurface = managedMode !== null ? 'managed' : 'static';
  if (managedMode !== null) {
    status.managed = managedMode.startManagedMode({
      api, createHost: surface.createChatSurfaceHost, startExtensions: surface.startChatSurfaceExtensions,
    });
  }
  installSillyTavernTakeover({
    st,
    core: { runTakeover: takeoverHost.runTakeover, installTakeoverContext: takeoverHost.installTakeoverContext },
    enabled: () => settings.takeover !== false,
    settleOnAbort: () => settings.settleOnAbort === true,
  });
  status.takeover = true;
  status.loaded = true;
} catch (e) {
  status.error = await explainLoadFailure(e, { base: new URL('.', import.meta.url), folder: FOLDER });
  console.error('[tavern-core] the core did not load; SillyTavern runs without it', status.error);
}

/** The manifest's activate hook: everything above has run by now. */
export async function activate() {
  try {
    const res = await fetch(new URL('./manifest.json', import.meta.url));
    status.version = (await res.json()).version ?? null;
  } catch { /* the panel shows "unknown" */ }
  mountSettingsPanel({ status, settings, save: saveSettingsDebounced, readme: new URL('./README.md', import.meta.url).href });
}
