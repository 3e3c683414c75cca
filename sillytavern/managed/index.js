// Managed mode, wired into SillyTavern 1.18: the controller (controller.js)
// over SillyTavern's renderer (st-adapter.js), its events, its first render,
// /chat-jump, and a "to the end" button. The extension's entry calls
// `startManagedMode` while its module evaluates, when the saved setting asks
// for managed mode; the decision is fixed for the page (C12).
import { createManagedChat } from './controller.js';
import { st, eventSource, event_types, power_user } from './st-adapter.js';
import { SlashCommandParser } from '../../../../slash-commands/SlashCommandParser.js';
import { SlashCommand } from '../../../../slash-commands/SlashCommand.js';
import { ARGUMENT_TYPE, SlashCommandArgument } from '../../../../slash-commands/SlashCommandArgument.js';
import { flashHighlight, stringToRange } from '../../../../utils.js';
import { ReasoningHandler } from '../../../../reasoning.js';
import { pinSettings } from './pinned-settings.js';
import { createViewState } from './view-state.js';
import { extensionNames, extension_settings, getExtensionManifest } from '../../../../extensions.js';

/**
 * Start managed mode, while the extension's module evaluates: `api` is the
 * chat-surface API just installed with managed: true, `createHost` is
 * createChatSurfaceHost, `startExtensions` is startChatSurfaceExtensions.
 */
export function startManagedMode({ api, createHost, startExtensions, runtimeLimit }) {
  const pins = pinSettings(power_user);
  const root = document.getElementById('chat');
  const report = (e, { recovering = false } = {}) => {
    console.error('[tavern-core] managed #chat:', e);
    if (recovering) globalThis.toastr?.warning(String(e?.message ?? e), 'tavern-core: the bounded chat reopened after a content processor failed', { timeOut: 10000 });
    else globalThis.toastr?.error(String(e?.message ?? e), 'tavern-core: the bounded chat stopped', { timeOut: 10000 });
  };
  const view = createViewState({ root, chat: st.chat, contextStart: st.contextStart, managing: () => state.startup === 'done' });
  const chat = createManagedChat({
    st: {
      ...st,
      restoreView: view.restore,
      autoScroll: () => pins.saved.auto_scroll_chat_to_bottom === true,
      editorLost: (mesid) => {
        st.endEdit();
        globalThis.toastr?.warning(`The editor of message ${mesid} closed when the message left the view; its unsaved text is lost.`,
          'tavern-core', { timeOut: 10000 });
      },
    },
    root, api, createHost, runtimeLimit, onFault: report,
  });
  const state = { chat, userSettings: pins.saved, startup: 'pending', startupError: null };

  // C139: participants register, chatSurface hooks run and the capability
  // gate is checked before the first projection. SillyTavern activates every
  // enabled extension (awaiting activate hooks) before it emits
  // EXTENSION_SETTINGS_LOADED, and before it opens any chat.
  let ready;
  const startup = () => {
    ready ??= startExtensions(extensionList()).then(() => { state.startup = 'done'; }, (e) => {
      // C135: no bounded epoch; SillyTavern's own rendering stays, unpinned.
      state.startup = 'failed';
      state.startupError = e;
      pins.restore();
      chat.dispose();
      report(e);
      throw e;
    });
    return ready;
  };
  eventSource.on(event_types.EXTENSION_SETTINGS_LOADED, () => { startup().catch(() => {}); });

  const open = (chatId) => {
    if (state.startup !== 'done') return undefined;
    try {
      chat.chatChanged(chatId)?.catch(report);
    } catch (e) {
      report(e);
      if (chat.state === 'stopped') return standDown();
    }
    endButton.update();
    return undefined;
  };
  // The chat switch's resetEpoch failed, as it will for the rest of the page
  // (a participant fault, C23, C108): no bounded epoch can open again, and
  // with the settings still pinned SillyTavern would show every chat as its
  // last message. Managed mode stands down until the page reloads: the
  // user's settings come back and SillyTavern renders this chat and the
  // next ones itself (docs/sillytavern-managed.md, "After a fault").
  const standDown = async () => {
    state.startup = 'stopped';
    pins.restore();
    try {
      chat.dispose();
    } catch (e) {
      console.error('[tavern-core] managed #chat: dispose after the failed reset', e);
    }
    endButton.update();
    globalThis.toastr?.warning('SillyTavern shows chats itself (not bounded) until you reload the page.',
      'tavern-core: managed mode stopped', { timeOut: 10000 });
    // The failed reset left the epoch's marks (C108: the DOM untouched);
    // SillyTavern's "Show more messages" needs the browser's scroll anchoring.
    root.removeAttribute('data-tt-chat-surface');
    root.removeAttribute('data-tt-chat-bootstrap');
    root.style.removeProperty('overflow-anchor');
    root.replaceChildren(); // what SillyTavern printed under the pinned truncation
    await st.printMessages();
  };
  eventSource.makeFirst(event_types.CHAT_CHANGED, (chatId) => startup().then(() => open(chatId), () => {}));
  const kick = () => { if (state.startup === 'done') chat.sync(); };
  for (const name of ['MESSAGE_SENT', 'MESSAGE_RECEIVED', 'MESSAGE_EDITED', 'MESSAGE_DELETED', 'MESSAGE_SWIPED',
    'MESSAGE_UPDATED', 'MESSAGE_SWIPE_DELETED', 'MORE_MESSAGES_LOADED', 'CHARACTER_MESSAGE_RENDERED',
    'USER_MESSAGE_RENDERED', 'STREAM_TOKEN_RECEIVED', 'GENERATION_ENDED', 'GENERATION_STOPPED']) {
    eventSource.on(event_types[name], kick);
  }

  // Vanilla scrolls to the bottom when a streamed reply starts, whatever the
  // type (StreamingProcessor.onStartStreaming), if the user's auto-scroll
  // setting allows it; that scroll is pinned off here, and the host follows
  // only a chat that grew, so a Continue (or a regenerate or swipe) started
  // while reading far up would stream out of sight. Go to the end instead.
  eventSource.on(event_types.GENERATION_STARTED, (type, _options, dryRun) => {
    if (dryRun || !WRITES_CHAT.has(type ?? 'normal') || !pins.saved.auto_scroll_chat_to_bottom || state.startup !== 'done') return;
    try {
      chat.scrollToEnd();
    } catch (e) {
      report(e);
    }
    endButton.update();
  });

  // Vanilla redraws the last message after a swipe to another of its
  // alternatives with scroll: true (addOneMessage → scrollChatToBottom,
  // under the auto-scroll setting), so the new swipe is in view even when
  // the swipe was made from far up (an arrow key, a phone's swipe gesture).
  // That scroll is pinned off here: go to the end instead. A swipe that
  // generates goes there at GENERATION_STARTED above; a swipe of an earlier
  // message does not scroll, in vanilla either.
  eventSource.on(event_types.MESSAGE_SWIPED, (mesId) => {
    if (state.startup !== 'done' || !pins.saved.auto_scroll_chat_to_bottom || Number(mesId) !== st.chat().length - 1) return;
    try {
      chat.scrollToEnd();
    } catch (e) {
      report(e);
    }
    endButton.update();
  });

  const endButton = installEndButton(chat, root);
  const managing = () => state.startup === 'done';
  overrideChatJump(chat, managing);
  eventSource.on(event_types.APP_READY, () => mountTargetsFirst(chat, root, managing));
  eventSource.on(event_types.APP_READY, () => reasoningRangesReachEveryMessage(view, root, managing));
  redrawsOfUnmountedMessagesDoNothing(managing);
  blockEditMoves(root, managing);
  editLastUserMessageAnywhere(chat, root, managing);
  contextLineAnywhere(chat, root, view, managing);
  showSavedTruncation(pins.saved);
  return state;
}

const WRAPPED = Symbol('tavern-core: wrapped for managed mode');

// Replaces the function obj[key] with make(it), once.
function wrapOnce(obj, key, make) {
  const original = obj?.[key];
  if (typeof original !== 'function' || original[WRAPPED]) return;
  const wrapped = make(original);
  wrapped[WRAPPED] = true;
  obj[key] = wrapped;
}

// SillyTavern's commands that delete a message look it up in #chat by its
// id and throw when it is not there. In vanilla every message from the first
// one shown to the last is rendered; here the messages between the window
// and the last one are not, so `/del 2` or `/cut 300` while reading far up
// failed with a TypeError and deleted nothing (they look above the first
// message shown only, through showMoreMessages). Managed mode first jumps to
// the message, as /chat-jump does, then runs SillyTavern's own command: the
// view shows where the deletion happened. The command object is kept (its
// help, arguments and aliases); only its callback is wrapped, once, after
// SillyTavern registered it (APP_READY).
function mountTargetsFirst(chat, root, managing) {
  const first = {
    // The range's start, which /cut deletes each time; read as /cut reads
    // it, so a range it refuses moves nothing.
    cut: (_args, text) => stringToRange(text, 0, st.chat().length - 1)?.start ?? NaN,
    // /del N cuts the last N messages.
    del: (_args, text) => {
      const n = Number(text);
      return /^\s*\d+\s*$/.test(String(text ?? '')) && n >= 1 && n <= st.chat().length ? st.chat().length - n : NaN;
    },
  };
  for (const [name, target] of Object.entries(first)) {
    wrapOnce(SlashCommandParser.commands[name], 'callback', (vanilla) => function (args, value) {
      if (managing()) {
        const n = target(args, value);
        if (Number.isInteger(n) && n >= 0 && n < st.chat().length && !mountFirst(chat, root, n, (e) => globalThis.toastr?.warning(String(e.message)))) {
          return '';
        }
      }
      return vanilla.call(this, args, value);
    });
  }
}

// /reasoning-expand, -collapse and -toggle act on the reasoning blocks of a
// message or a range, found in #chat by their ids: in vanilla every
// message shown has its block, here only the mounted ones do, so
// `/reasoning-expand 150-199` opened the ten on screen and left the rest as
// they were, and a collapse after it left open the ones it could not reach.
// Managed mode remembers the state of each message of the range for when it
// mounts (view-state.js), and SillyTavern's own command does the mounted
// ones; with none of them mounted it is not run, so it does not warn "No
// reasoning blocks found" about messages vanilla would have shown. A change
// of the auto-expand setting sets every block SillyTavern rendered, which
// here is every block: what was remembered is forgotten.
function reasoningRangesReachEveryMessage(view, root, managing) {
  const act = {
    'reasoning-expand': () => true,
    'reasoning-collapse': () => false,
    'reasoning-toggle': (m) => !view.isOpen(m, power_user.reasoning?.auto_expand === true),
  };
  for (const [name, next] of Object.entries(act)) {
    wrapOnce(SlashCommandParser.commands[name], 'callback', (vanilla) => function (args, value) {
      if (!managing()) return vanilla.call(this, args, value);
      const messages = st.chat();
      const text = String(value ?? '');
      const range = text ? stringToRange(text, 0, messages.length - 1) : { start: messages.length - 1, end: messages.length - 1 };
      if (!range || messages.length === 0) return vanilla.call(this, args, value); // (its own warning)
      const shown = new Set([...root.querySelectorAll(':scope > .mes')].map((el) => Number(el.getAttribute('mesid'))));
      let mounted = false;
      for (let i = range.start; i <= range.end; i++) {
        if (shown.has(i)) mounted = true;
        else view.remember(messages[i], next(messages[i]));
      }
      return mounted ? vanilla.call(this, args, value) : '';
    });
  }
  document.getElementById('reasoning_auto_expand')?.addEventListener('change', () => view.forgetReasoning(), true);
}

// updateMessageBlock(id), the way SillyTavern and its extensions redraw a
// message after changing chat[] (Translate, /reasoning-set, a script's
// edit), ends in ReasoningHandler.initHandleMessage, which throws when the
// message has no element: in vanilla for messages older than those rendered,
// here for every message outside the window, the ones between it and the
// last message included. The caller then stopped half-way (Translate's
// "translate chat" at the first one, an extension before its saveChat). A
// message that is not mounted has nothing to redraw: it is drawn from chat[]
// when it mounts. So, in managed mode, initHandleMessage of a message with no
// element does nothing, as the rest of updateMessageBlock does.
function redrawsOfUnmountedMessagesDoNothing(managing) {
  wrapOnce(ReasoningHandler?.prototype, 'initHandleMessage', (vanilla) => function (target, ...rest) {
    if (managing()) {
      const el = typeof target === 'number' ? document.querySelector(`#chat [mesid="${target}"]`)
        : target instanceof HTMLElement ? target : globalThis.jQuery?.(target)?.[0];
      if (!el) return undefined;
    }
    return vanilla.call(this, target, ...rest);
  });
}

// The generation types whose reply lands in the chat (quiet and impersonate
// do not).
const WRITES_CHAT = new Set(['normal', 'regenerate', 'swipe', 'continue']);

// The enabled extensions in activation order, for startChatSurfaceExtensions.
// SillyTavern has already run every `activate` hook, so a manifest is handed
// over with its chatSurface hook only: nothing is activated twice, and a
// required renderer without that hook counts as activated (it was).
function extensionList() {
  const disabled = new Set(extension_settings.disabledExtensions ?? []);
  const list = extensionNames.filter((n) => !disabled.has(n)).map((name) => {
    const manifest = getExtensionManifest(name) ?? {};
    const chatSurface = manifest.hooks?.chatSurface;
    return { name, manifest: { ...manifest, hooks: chatSurface === undefined ? {} : { chatSurface } } };
  });
  list.sort((a, b) => (Number(a.manifest.loading_order) || 0) - (Number(b.manifest.loading_order) || 0));
  return {
    extensions: list,
    importExtension: (ext) => import(`/scripts/extensions/${ext.name}/${ext.manifest.js}`),
    activateExtension: () => undefined,
  };
}

// "To the end": shown at the bottom right of #chat while the view does not
// follow the tail.
function installEndButton(chat, root) {
  const button = document.createElement('div');
  button.id = 'tavern-core-to-end';
  button.className = 'fa-solid fa-angles-down interactable';
  button.title = 'To the end of the chat';
  button.setAttribute('role', 'button');
  button.tabIndex = 0;
  Object.assign(button.style, { position: 'fixed', zIndex: '31', padding: '8px', borderRadius: '50%', cursor: 'pointer',
    background: 'var(--SmartThemeBlurTintColor)', opacity: '0.85', display: 'none' });
  document.body.append(button);
  const LEAVE_EDITOR = 'Save or cancel the edit first: the end of the chat would take the message you are editing out of view.';
  const go = () => {
    if (!chat.scrollToEnd()) globalThis.toastr?.info(LEAVE_EDITOR, 'tavern-core');
    update();
  };
  button.addEventListener('click', go);
  button.addEventListener('keydown', (e) => { if (e.key === 'Enter' || e.key === ' ') go(); });
  let frame = 0;
  function update() {
    const s = chat.host?.snapshot();
    const show = !!s && s.state !== 'inactive' && !s.followingTail && s.mounted.length > 0;
    button.style.display = show ? 'block' : 'none';
    if (show) {
      const r = root.getBoundingClientRect();
      button.style.left = `${r.right - 56}px`;
      button.style.top = `${r.bottom - 44}px`;
    }
  }
  const later = () => { if (frame === 0) frame = requestAnimationFrame(() => { frame = 0; update(); }); };
  root.addEventListener('scroll', later, { passive: true });
  window.addEventListener('resize', later, { passive: true });
  return { update };
}

// The editor's "move up / move down" swap chat[] entries under an open
// editor: both messages change mesid, which remounts both roots (C28) and
// would drop the editor SillyTavern still thinks is open. Refused in
// managed mode, before SillyTavern's handler runs (capture phase).
function blockEditMoves(root, managing) {
  root.addEventListener('click', (e) => {
    const b = e.target instanceof Element ? e.target.closest('.mes_edit_up, .mes_edit_down') : null;
    if (b === null || !managing()) return;
    e.stopImmediatePropagation();
    e.preventDefault();
    globalThis.toastr?.info('Moving a message while editing it is not available in tavern-core\'s managed mode. ' +
      'Save the edit first; to reorder messages, turn managed mode off in the tavern-core settings.', 'tavern-core');
  }, true);
}

// Ctrl+Up in the empty chat bar edits the last user message: SillyTavern's
// hotkey (RossAscends-mods.js) clicks the edit button of the last
// div[is_user="true"] in the page. Here that message need not be mounted
// (the window can be anywhere above the end), and the hotkey edited the
// last user message of the window instead. So the message is mounted first,
// as /chat-jump would, before SillyTavern's handler (on the document) runs.
function editLastUserMessageAnywhere(chat, root, managing) {
  const bar = () => document.getElementById('send_textarea');
  window.addEventListener('keydown', (e) => {
    if (!e.ctrlKey || e.key !== 'ArrowUp' || !managing()) return;
    const b = bar();
    if (b === null || document.activeElement !== b || b.value !== '') return;
    // SillyTavern's hotkey also waits for the last message's swipe arrows (no
    // generation or edit under way) unless that message is a system one.
    const swipes = document.querySelectorAll('.swipe_right');
    const idle = (swipes.length > 0 && getComputedStyle(swipes[swipes.length - 1]).display === 'flex') ||
      document.querySelector('.last_mes')?.getAttribute('is_system') === 'true';
    if (!idle) return;
    const messages = st.chat();
    let i = messages.length - 1;
    while (i >= 0 && messages[i]?.is_user !== true) i--;
    // (Refused: SillyTavern's hotkey finds what is mounted.)
    if (i >= 0) mountFirst(chat, root, i, (err) => console.warn('[tavern-core] managed #chat: Ctrl+Up could not bring the last user message into view:', err));
  }, true);
}

// Ctrl+Shift+Up scrolls to the context line: SillyTavern's hotkey
// (RossAscends-mods.js) animates #chat to the element with lastInContext,
// and says "Context line not found" when there is none. Here that message
// need not be mounted, so it is mounted first, as /chat-jump would, before
// SillyTavern's handler (on the document) runs.
function contextLineAnywhere(chat, root, view, managing) {
  window.addEventListener('keydown', (e) => {
    if (!e.ctrlKey || !e.shiftKey || e.key !== 'ArrowUp' || !managing()) return;
    const i = view.contextIndex();
    if (i >= 0) mountFirst(chat, root, i, (err) => console.warn('[tavern-core] managed #chat: Ctrl+Shift+Up could not bring the context line into view:', err));
  }, true);
}

// Mounts message i, as /chat-jump would, unless it is mounted, for a
// SillyTavern command or hotkey that looks for its element next. False
// when an open editor holds the window (C96), after `refused(error)`.
function mountFirst(chat, root, i, refused) {
  if (root.querySelector(`:scope > .mes[mesid="${i}"]`) !== null) return true;
  try {
    chat.jumpToMessage(i);
    return true;
  } catch (e) {
    refused(e);
    return false;
  }
}

// The "# of messages to load" slider writes chat_truncation and shows what
// it reads back, which managed mode pins to 1 (pinned-settings.js): the
// number beside the slider showed 1 whatever the user chose. The user's
// value is what is saved, so that is what the number shows.
function showSavedTruncation(saved) {
  const slider = document.getElementById('chat_truncation');
  const counter = () => document.getElementById('chat_truncation_counter');
  slider?.addEventListener('input', () => {
    const c = counter();
    if (c !== null) c.value = String(saved.chat_truncation);
  });
}

// /chat-jump scrolls to a message; vanilla first renders every message from
// there to the first one shown (showMoreMessages). Managed mode jumps; once
// it stood down, SillyTavern's own command runs.
function overrideChatJump(chat, managing) {
  const vanilla = SlashCommandParser.commands['chat-jump'];
  SlashCommandParser.addCommandObject(SlashCommand.fromProps({
    name: 'chat-jump',
    aliases: ['chat-scrollto', 'floor-teleport'],
    callback: async (args, index) => {
      if (!managing() && vanilla) return vanilla.callback(args, index);
      const n = Number(index);
      const count = st.chat().length;
      if (!Number.isInteger(n) || n < 0 || n >= count) {
        globalThis.toastr?.warning(`Invalid message index: ${index}. Please enter a number between 0 and ${count}.`);
        return '';
      }
      try {
        const el = chat.jumpToMessage(n);
        flashHighlight($(el), 2000);
      } catch (e) {
        globalThis.toastr?.warning(String(e.message));
      }
      return '';
    },
    unnamedArgumentList: [SlashCommandArgument.fromProps({
      description: 'The message index (0-based) to scroll to.', typeList: [ARGUMENT_TYPE.NUMBER], isRequired: true,
    })],
    helpString: '<div>Scrolls the chat view to the specified message index. Index starts at 0. ' +
      '(tavern-core managed mode: jumps without rendering the messages in between.)</div>',
  }));
}
