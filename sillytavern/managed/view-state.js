// What SillyTavern keeps only in a rendered message's element, and would
// lose when managed mode renders the message again (it scrolled out and
// back, or its mesid changed). Vanilla renders a message once and keeps its
// element, so this state simply stays there; here it is remembered and put
// on the new element before it mounts:
// - delete mode ("Delete messages" in the options menu): SillyTavern shows
//   every rendered message's checkbox when the mode starts, and a click on a
//   message selects it and every later one. A message mounted afterwards
//   had no checkbox (it could not be clicked) and no selection, so the
//   screen no longer showed what would be deleted;
// - a reasoning block the user opened or closed, or a /reasoning-expand,
//   -collapse or -toggle over a range opened or closed (remember);
// - the context line: the class lastInContext SillyTavern puts on the
//   oldest message in the model's context when it builds a prompt
//   (setInContextMessages), found by counting rendered messages back from
//   the end. Here only the window is rendered, so the count landed on the
//   wrong message, or on the first one mounted, and no message mounted
//   later had the line: Ctrl+Shift+Up said "Context line not found".
// Nothing here writes chat[] or SillyTavern's own state.
const REASONING = 'details.mes_reasoning_details';
const CONTEXT = 'lastInContext';

// The messages setInContextMessages counts: `.mes:not([is_system="true"]),
// .mes.toolCall` (a hidden message is a system one).
const counted = (m) => m !== null && typeof m === 'object' && (!m.is_system || Array.isArray(m.extra?.tool_invocations));

/**
 * The index of the message SillyTavern means by the context line it just
 * placed: it stored lastInContextMessageId = max(0, chat.length - k) for the
 * k-th counted message from the end; with fewer than k, the first message
 * shown (here every message is, in the sense of vanilla's rendering: 0).
 * -1 for an empty chat.
 */
export function contextLineIndex(messages, lastId) {
  const n = messages.length;
  const k = Number.isInteger(lastId) && lastId > 0 ? n - lastId : Infinity;
  let seen = 0;
  for (let i = n - 1; i >= 0; i--) if (counted(messages[i]) && ++seen === k) return i;
  return n > 0 ? 0 : -1;
}

/**
 * @param {object} o
 * @param {HTMLElement} o.root #chat
 * @param {() => object[]} o.chat SillyTavern's chat[]
 * @param {() => unknown} [o.contextStart] chat_metadata.lastInContextMessageId
 * @param {() => boolean} [o.managing] false once SillyTavern renders #chat itself again
 */
export function createViewState({ root, chat, contextStart = () => undefined, managing = () => true }) {
  const doc = root.ownerDocument;
  // SillyTavern shows #dialogue_del_mes (display: block) while delete mode
  // is on and hides it when the mode ends either way.
  const deleteBar = () => doc.getElementById('dialogue_del_mes');
  const deleting = () => {
    const d = deleteBar();
    return d !== null && d.style.display !== '' && d.style.display !== 'none';
  };
  let from = -1; // the first message selected for deletion (SillyTavern's this_del_mes)
  let opened = new WeakMap(); // message object → whether the user left its reasoning block open

  // The mode starting or ending clears the selection, as SillyTavern's does.
  const bar = new MutationObserver(() => { from = -1; });
  const watchBar = () => {
    const d = deleteBar();
    if (d !== null) bar.observe(d, { attributes: true, attributeFilter: ['style'] });
    return d !== null;
  };
  if (!watchBar()) doc.addEventListener('DOMContentLoaded', watchBar, { once: true });

  // SillyTavern's own click handler (on the document, later in the event's
  // path) selects the clicked message and every one after it.
  const onClick = (e) => {
    if (!deleting() || !(e.target instanceof Element)) return;
    const mes = e.target.closest('.mes');
    if (mes === null || mes.parentNode !== root) return;
    const box = mes.querySelector(':scope > .del_checkbox');
    if (box === null || box.style.display === 'none' || box.style.display === '') return;
    const id = Number(mes.getAttribute('mesid'));
    if (Number.isInteger(id) && id >= 0) from = id;
  };
  root.addEventListener('click', onClick, true);

  // `toggle` does not bubble; the capture phase still passes #chat.
  const onToggle = (e) => {
    const d = e.target;
    if (!(d instanceof Element) || !d.matches(REASONING)) return;
    const mes = d.closest('.mes');
    if (mes === null || mes.parentNode !== root) return;
    const m = chat()[Number(mes.getAttribute('mesid'))];
    if (m !== null && typeof m === 'object') opened.set(m, d.open);
  };
  root.addEventListener('toggle', onToggle, true);

  // The context line. SillyTavern writes it synchronously, all in one go
  // (every .mes loses the class, one gains it), and has just stored the
  // message's id: seen here at the next microtask, before the generation
  // goes on, the chat is still the one it counted.
  let context = null; // the message object with the line
  const has = (classes, c) => typeof classes === 'string' && ` ${classes} `.includes(` ${c} `);
  const lines = new MutationObserver((records) => {
    // Placed: one of #chat's messages went from without the class to with
    // it. Other class changes (last_mes, selected, a highlight) are not.
    const placed = records.some((r) => r.target.parentNode === root && !has(r.oldValue, CONTEXT) && r.target.classList.contains(CONTEXT));
    if (!placed || !managing()) return; // (rendering everything again, SillyTavern's count is right)
    try {
      const messages = chat();
      const i = contextLineIndex(messages, contextStart());
      context = i >= 0 ? messages[i] : null;
      for (const el of root.children) {
        if (!el.classList.contains('mes')) continue;
        const m = messages[Number(el.getAttribute('mesid'))];
        el.classList.toggle(CONTEXT, context !== null && m === context);
      }
    } catch (e) { // (a chat[] that cannot be read: the line stays where SillyTavern put it)
      console.warn('[tavern-core] managed #chat: the context line could not be placed:', e);
    }
    lines.takeRecords(); // (its own writes)
  });
  lines.observe(root, { subtree: true, attributes: true, attributeFilter: ['class'], attributeOldValue: true });

  return {
    /** Puts the remembered state on `el`, SillyTavern's new element for chat[mesid]. */
    restore(el, message, mesid) {
      if (deleting()) {
        const box = el.querySelector(':scope > .del_checkbox');
        const label = el.querySelector(':scope > .for_checkbox');
        if (box !== null) box.style.display = 'grid';
        if (label !== null) label.style.display = 'none';
        if (from >= 0 && mesid >= from) {
          el.classList.add('selected');
          if (box !== null) box.checked = true;
        }
      }
      if (message !== null && typeof message === 'object' && opened.has(message)) {
        const d = el.querySelector(REASONING);
        if (d !== null) d.open = opened.get(message);
      }
      if (context !== null && message === context) el.classList.add(CONTEXT);
    },
    /** The mesid of the message with the context line, or -1. */
    contextIndex() { return context === null ? -1 : chat().indexOf(context); },
    /** Whether the message's reasoning block shows open; `dflt` when nobody opened or closed it. */
    isOpen(message, dflt) { return opened.has(message) ? opened.get(message) : dflt; },
    /** Opens or closes a message's reasoning block for when it mounts. */
    remember(message, open) {
      if (message !== null && typeof message === 'object') opened.set(message, open);
    },
    /** Every block as SillyTavern renders it again (its auto-expand setting changed). */
    forgetReasoning() { opened = new WeakMap(); },
    dispose() {
      lines.disconnect();
      bar.disconnect();
      root.removeEventListener('click', onClick, true);
      root.removeEventListener('toggle', onToggle, true);
    },
  };
}
