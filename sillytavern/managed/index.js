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
import { flashHighlight } from '../../../../utils.js';
import { pinSettings } from './pinned-settings.js';

/**
 * Start managed mode. `api` is the installed chat-surface API (managed),
 * `createHost` is createChatSurfaceHost, `ready` resolves when extension
 * startup (startChatSurfaceExtensions) is done: no chat opens before it (C139).
 */
export function startManagedMode({ api, createHost, ready = Promise.resolve(), runtimeLimit }) {
  const userSettings = pinSettings(power_user);
  const root = document.getElementById('chat');
  const report = (e) => {
    console.error('[tavern-core] managed #chat:', e);
    globalThis.toastr?.error(String(e?.message ?? e), 'tavern-core: the bounded chat stopped', { timeOut: 10000 });
  };
  const chat = createManagedChat({ st: { ...st, autoScroll: () => userSettings.auto_scroll_chat_to_bottom === true }, root, api,
    createHost, runtimeLimit, onFault: report });

  let started = false;
  const opened = (chatId) => {
    try {
      chat.chatChanged(chatId)?.catch(report);
    } catch (e) {
      report(e);
    }
    endButton.update();
  };
  eventSource.makeFirst(event_types.CHAT_CHANGED, (chatId) => {
    if (!started) return ready.then(() => { started = true; opened(st.chatId()); });
    opened(chatId);
    return undefined;
  });
  ready.then(() => {
    started = true;
    if (st.chatId() !== undefined && chat.state === 'idle' && st.chat().length) opened(st.chatId());
  }, report);
  const kick = () => { chat.sync(); };
  for (const name of ['MESSAGE_SENT', 'MESSAGE_RECEIVED', 'MESSAGE_EDITED', 'MESSAGE_DELETED', 'MESSAGE_SWIPED',
    'MESSAGE_UPDATED', 'MESSAGE_SWIPE_DELETED', 'MORE_MESSAGES_LOADED', 'CHARACTER_MESSAGE_RENDERED',
    'USER_MESSAGE_RENDERED', 'STREAM_TOKEN_RECEIVED', 'GENERATION_ENDED', 'GENERATION_STOPPED']) {
    eventSource.on(event_types[name], kick);
  }

  const endButton = installEndButton(chat, root);
  overrideChatJump(chat);
  return { chat, userSettings };
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
  const go = () => { chat.scrollToEnd(); update(); };
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

// /chat-jump scrolls to a message; vanilla first renders every message from
// there to the first one shown (showMoreMessages). Managed mode jumps.
function overrideChatJump(chat) {
  SlashCommandParser.addCommandObject(SlashCommand.fromProps({
    name: 'chat-jump',
    aliases: ['chat-scrollto', 'floor-teleport'],
    callback: async (_, index) => {
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
