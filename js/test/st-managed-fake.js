// A stand-in for SillyTavern 1.18's #chat writers, for the managed-mode
// controller tests (sillytavern/managed/controller.js). Each function does to
// the DOM and to chat[] what the SillyTavern function of the same name does
// (public/script.js), observable fact for observable fact, including its
// assumptions: updateViewMessageIds numbers every .mes from the first one as
// if they were contiguous, deleteMessage does nothing for a message that is
// not in the DOM, printMessages adds #show_more_messages.
import { makeRoot } from './chat-surface-fixture.js';

export const esc = (s) => s.replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c]);

// A tiny markdown: paragraphs, and ```html fences as <pre><code>.
export function formatMessage(m) {
  const text = m.extra?.display_text || m.mes;
  return text.split(/\n\n/).map((p) => {
    const f = /^```(\w*)\n([\s\S]*)\n```$/.exec(p);
    return f ? `<pre><code class="language-${f[1]}">${esc(f[2])}</code></pre>` : `<p>${esc(p)}</p>`;
  }).join('');
}

export function htmlDoc(i) { return `<!DOCTYPE html>\n<html><body>card ${i}</body></html>`; }

export function makeMessages(n, { htmlEvery = 0 } = {}) {
  return Array.from({ length: n }, (_, i) => {
    let mes = `m${i}`;
    if (htmlEvery && i % htmlEvery === 0) mes += `\n\n\`\`\`html\n${htmlDoc(i)}\n\`\`\``;
    return { name: i % 2 ? 'Char' : 'User', is_user: i % 2 === 0, mes, extra: {} };
  });
}

/**
 * The fake: `st` is the adapter controller.js expects; the other members act
 * like SillyTavern's own functions on the same #chat.
 */
export function makeST({ count = 100, htmlEvery = 0, height = 1000, size = () => 100 } = {}) {
  const root = makeRoot({ height, size });
  const chat = makeMessages(count, { htmlEvery });
  const calls = { render: 0, decorate: 0, refreshSwipes: 0, tagMessages: [], stylePins: 0, editArrows: 0, emits: [], restored: [], editorsLost: [] };
  const flags = { generating: false, swiping: false, autoScroll: true, chatId: 'chat-a' };

  function renderMessage(m, mesid) {
    calls.render++;
    const el = document.createElement('div');
    el.className = 'mes';
    el.setAttribute('mesid', String(mesid));
    el.innerHTML = '<div class="mes_block"><div class="ch_name"><span class="name_text"></span>' +
      '<span class="mesIDDisplay"></span></div><div class="mes_text"></div>' +
      '<div class="mes_buttons"><div class="mes_edit"></div></div></div>';
    el.querySelector('.name_text').textContent = m.name;
    el.querySelector('.mesIDDisplay').textContent = `#${mesid}`;
    const content = el.querySelector('.mes_text');
    content.innerHTML = formatMessage(m);
    decorate(content);
    return el;
  }
  // addCopyToCodeBlocks: highlight.js marks each code, a copy button follows.
  function decorate(el) {
    calls.decorate++;
    for (const code of el.querySelectorAll('pre code')) {
      code.setAttribute('data-highlighted', 'yes');
      code.classList.add('hljs');
      const b = document.createElement('i');
      b.className = 'fa-solid fa-copy code-copy';
      code.append(b);
    }
  }
  const mesEls = () => [...root.querySelectorAll(':scope > .mes')];
  const find = (i) => root.querySelector(`:scope > .mes[mesid="${i}"]`);

  const st = {
    chat: () => chat,
    chatId: () => flags.chatId,
    renderMessage,
    formatMessage: (m) => formatMessage(m),
    decorate,
    tagMessages: (ids) => { calls.tagMessages.push(...ids); },
    refreshSwipes: () => { calls.refreshSwipes++; },
    stylePins: () => { calls.stylePins++; },
    editArrows: () => { calls.editArrows++; },
    busy: (mesid) => mesid === chat.length - 1 && (flags.generating || flags.swiping),
    autoScroll: () => flags.autoScroll,
    restoreView: (el, m, mesid) => { calls.restored.push(mesid); },
    editorLost: (mesid) => { calls.editorsLost.push(mesid); },
    emit: (...a) => { calls.emits.push(a); },
  };

  const ST = {
    root, chat, st, calls, flags, find, mesEls,
    // addOneMessage(mes): the caller pushed it; the element goes at the end.
    addOneMessage(m) {
      const i = chat.indexOf(m);
      const el = renderMessage(m, i);
      root.append(el);
      for (const e of mesEls()) e.classList.remove('last_mes');
      mesEls().at(-1)?.classList.add('last_mes');
      return el;
    },
    // addOneMessage(mes, {insertAfter}): nothing happens when the target is
    // not in the DOM (jQuery inserts after no element).
    addOneMessageAfter(m, after) {
      const el = renderMessage(m, after + 1);
      find(after)?.after(el);
      return el;
    },
    updateViewMessageIds(start) {
      const ids = mesEls().map((e) => Number(e.getAttribute('mesid')));
      const min = start ?? Math.min(...ids);
      mesEls().forEach((e, k) => {
        e.setAttribute('mesid', String(min + k));
        e.querySelector('.mesIDDisplay').textContent = `#${min + k}`;
      });
    },
    deleteMessage(i) {
      const el = find(i);
      if (el === null) return false;
      const min = Math.min(...mesEls().map((e) => Number(e.getAttribute('mesid'))));
      chat.splice(i, 1);
      el.remove();
      ST.updateViewMessageIds([0, min].includes(i) ? i : null);
      return true;
    },
    messageEdit(i) {
      const el = find(i);
      const text = el.querySelector('.mes_text');
      text.replaceChildren();
      const ta = document.createElement('textarea');
      ta.id = 'curEditTextarea';
      ta.className = 'edit_textarea mdHotkeys';
      ta.value = chat[i].mes;
      text.append(ta);
      ta.focus();
      return ta;
    },
    messageEditDone(i, value) {
      const el = find(i);
      chat[i].mes = value ?? el.querySelector('.edit_textarea').value;
      const text = el.querySelector('.mes_text');
      text.replaceChildren();
      text.insertAdjacentHTML('beforeend', formatMessage(chat[i]));
      decorate(el);
    },
    updateMessageBlock(i) {
      const el = find(i);
      el.querySelector('.mes_text').innerHTML = formatMessage(chat[i]);
      decorate(el);
    },
    clearChat() { for (const c of [...root.children]) c.remove(); },
    printMessages(truncation = 1) {
      if (chat.length > truncation) {
        const more = document.createElement('div');
        more.id = 'show_more_messages';
        more.textContent = 'Show more messages';
        root.append(more);
      }
      // redisplayChat: the element at the start and every .mes after it go
      // (nothing after a clear), then the messages from the start.
      const start = Math.max(0, chat.length - truncation);
      const from = mesEls().findIndex((e) => e.getAttribute('mesid') === String(start));
      if (from >= 0) for (const e of mesEls().slice(from)) e.remove();
      for (let i = start; i < chat.length; i++) root.append(renderMessage(chat[i], i));
      mesEls().at(-1)?.classList.add('last_mes');
    },
    // showMoreMessages(count): renders the `count` messages before the first
    // shown one and puts them in front.
    showMoreMessages(count) {
      const first = Number(mesEls()[0].getAttribute('mesid'));
      const from = Math.max(0, first - count);
      const els = [];
      for (let i = from; i < first; i++) els.push(renderMessage(chat[i], i));
      root.prepend(...els);
    },
    // The streamed reply: StreamingProcessor writes .mes_text's innerHTML.
    streamWrite(text) {
      const m = chat.at(-1);
      m.mes = text;
      find(chat.length - 1).querySelector('.mes_text').innerHTML = formatMessage(m);
    },
  };
  return ST;
}

export const tick = () => new Promise((r) => setTimeout(r, 0));
