// The SillyTavern 1.18 functions managed mode uses, behind the small
// interface controller.js expects. Only this file imports SillyTavern's
// modules; it is served from scripts/extensions/third-party/<folder>/managed/,
// hence the five `../`.
import {
  chat, eventSource, event_types, getCurrentChatId, messageFormatting, updateMessageElement, addCopyToCodeBlocks,
  refreshSwipeButtons, updateEditArrowClasses, isGenerating, swipeState, streamingProcessor, printMessages,
  setEditedMessageId, showSwipeButtons, chat_metadata,
} from '../../../../../script.js';
import { power_user, applyStylePins } from '../../../../power-user.js';
import { applyCharacterTagsToMessageDivs } from '../../../../tags.js';
import { SWIPE_STATE } from '../../../../constants.js';

export { eventSource, event_types, power_user };

/** The adapter controller.js drives SillyTavern through. */
export const st = {
  chat: () => chat,
  chatId: () => getCurrentChatId(),
  // Where the last prompt's context began (setInContextMessages).
  contextStart: () => chat_metadata.lastInContextMessageId,
  // SillyTavern's own element for a message: what addOneMessage inserts.
  renderMessage: (message, mesid) => updateMessageElement(message, { messageId: mesid })[0],
  // What SillyTavern puts into .mes_text (its getMessageTextHTML).
  formatMessage: (m, mesid) => messageFormatting(m.extra?.display_text || m.mes, m.name, m.is_system, m.is_user, mesid,
    m.extra?.uses_system_ui ? { MESSAGE_ALLOW_SYSTEM_UI: true } : {}, false),
  decorate: (content) => addCopyToCodeBlocks(content),
  tagMessages: (mesids) => applyCharacterTagsToMessageDivs({ mesIds: mesids }),
  refreshSwipes: () => refreshSwipeButtons(false, false),
  stylePins: () => applyStylePins(),
  editArrows: () => updateEditArrowClasses(),
  // Ends SillyTavern's message edit whose element is gone, as its cancel
  // would (messageEditCancel) minus the redraw.
  endEdit: () => {
    setEditedMessageId(undefined);
    showSwipeButtons();
  },
  // SillyTavern is still writing the last message: a reply is being
  // generated or streamed, or a swipe is animating. Never the user's own
  // message (the last one while the reply is requested, before its
  // placeholder): it is written whole, and made transient it was drawn
  // again once the reply began, taking what extensions added to it on
  // USER_MESSAGE_RENDERED with it.
  busy: (mesid) => mesid === chat.length - 1 && chat[mesid]?.is_user !== true &&
    (isGenerating() || swipeState !== SWIPE_STATE.NONE || (streamingProcessor !== null && !streamingProcessor.isFinished)),
  autoScroll: () => power_user.auto_scroll_chat_to_bottom === true, // managed mode reads the user's value instead
  emit: (event, ...args) => eventSource.emit(event, ...args),
  // SillyTavern's own print of the open chat (its truncation, "Show more
  // messages"), once managed mode stood down.
  printMessages: () => printMessages(),
};
