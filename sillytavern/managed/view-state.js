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
// - a reasoning block the user opened or closed.
// Nothing here writes chat[] or SillyTavern's own state.
const REASONING = 'details.mes_reasoning_details';

/**
 * @param {object} o
 * @param {HTMLElement} o.root #chat
 * @param {() => object[]} o.chat SillyTavern's chat[]
 */
export function createViewState({ root, chat }) {
  const doc = root.ownerDocument;
  // SillyTavern shows #dialogue_del_mes (display: block) while delete mode
  // is on and hides it when the mode ends either way.
  const deleteBar = () => doc.getElementById('dialogue_del_mes');
  const deleting = () => {
    const d = deleteBar();
    return d !== null && d.style.display !== '' && d.style.display !== 'none';
  };
  let from = -1; // the first message selected for deletion (SillyTavern's this_del_mes)
  const opened = new WeakMap(); // message object → whether the user left its reasoning block open

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
    },
    dispose() {
      bar.disconnect();
      root.removeEventListener('click', onClick, true);
      root.removeEventListener('toggle', onToggle, true);
    },
  };
}
