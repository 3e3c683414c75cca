// A small SillyTavern-style host for the demo: a chat[] of ST-shaped
// messages, an event source whose emit awaits listeners in order, a
// getContext() carrying the takeover API, and a Generate() that hands each
// turn to runTakeover (tavern-core's driver) and falls back to a normal
// reply when no plugin claims it. Rendering and saving are the page's.
import { createMessageEditorHandle } from '../message-takeover.js';
import { runTakeover, installTakeoverContext } from '../takeover-host.js';

export const event_types = {
  MESSAGE_RECEIVED: 'message_received',
  CHARACTER_MESSAGE_RENDERED: 'character_message_rendered',
  GENERATION_STOPPED: 'generation_stopped',
  MESSAGE_UPDATED: 'message_updated',
};

export class EventSource {
  constructor() { this.listeners = new Map(); }
  on(name, fn) {
    if (!this.listeners.has(name)) this.listeners.set(name, []);
    this.listeners.get(name).push(fn);
  }
  off(name, fn) {
    const l = this.listeners.get(name) ?? [];
    const i = l.indexOf(fn);
    if (i >= 0) l.splice(i, 1);
  }
  // Like SillyTavern's: listeners run one at a time, each awaited.
  async emit(name, ...args) {
    for (const fn of [...(this.listeners.get(name) ?? [])]) await fn(...args);
  }
}

// The "regex" post-processing step a committed reply goes through.
export function regexCleanup(text) {
  return text.replace(/[ \t]+\n/g, '\n').replace(/\n{3,}/g, '\n\n').trim();
}

/**
 * @param {object} o
 * @param {Array} o.chat            ST-shaped messages: { name, is_user, mes, extra: { reasoning }, swipes, swipe_id }
 * @param {(chat) => Promise} o.save persists the whole chat
 * @param {(i) => void} o.render     draws message i (or removes it when i >= chat.length)
 * @param {(locked) => void} [o.setLocked]
 * @param {(type, chat, signal) => AsyncIterable<string>} [o.fallback] the normal LLM path
 * @param {boolean} [o.settleOnAbort] the host's choice for the handles its context makes:
 *   true gives Luker's auto-settle on Stop (installTakeoverContext's option), false the seed's rule
 */
export function createTavernHost({ chat, save, render, setLocked = () => {}, fallback, settleOnAbort = false }) {
  const eventSource = new EventSource();
  const context = { chat, eventSource, eventTypes: { ...event_types } };
  installTakeoverContext(context, { settleOnAbort });
  let generation = 0;
  let controller = null;
  let locked = false;
  const lock = (v) => { locked = v; setLocked(v); };

  const slotText = (m) => ({ text: String(m?.mes ?? ''), reasoning: String(m?.extra?.reasoning ?? '') });
  const write = (i, text, reasoning) => {
    const m = chat[i];
    m.mes = text;
    m.extra = { ...(m.extra ?? {}), reasoning };
    if (m.swipes) m.swipes[m.swipe_id] = text;
  };

  async function Generate(type) {
    if (locked && type !== 'quiet') return { busy: true };
    const token = ++generation;
    controller = new AbortController();
    lock(true);
    const init = {
      type,
      isContinue: type === 'continue',
      forceName2: false,
      isStreamingEnabled: true,
      finalPrompt: chat.map((m) => `${m.name}: ${m.mes}`).join('\n'),
      generateData: { model: 'stand-in', temperature: 0.8 },
      abortSignal: controller.signal,
      generationToken: token,
    };
    const host = {
      emit: (name, ...args) => eventSource.emit(name, ...args),
      acquirePlaceholder(t) {
        if (t === 'normal') {
          chat.push({ name: 'Narrator', is_user: false, mes: '', extra: { reasoning: '' }, swipes: [''], swipe_id: 0 });
        } else if (t === 'swipe') {
          const m = chat.at(-1);
          m.swipes ??= [m.mes];
          m.swipes.push(m.mes);
          m.swipe_id = m.swipes.length - 1;
        }
        render(chat.length - 1);
        return chat.length - 1;
      },
      readSlot: (i) => slotText(chat[i]),
      writeSlot: (i, text, reasoning) => write(i, text, reasoning),
      redraw: (i) => { render(i); return eventSource.emit(event_types.MESSAGE_UPDATED, i); },
      persist: () => save(chat),
      removeSlot(i) { chat.splice(i, 1); render(i); },
      restoreSlot(i, text, reasoning) {
        const m = chat[i];
        if (m.swipes && m.swipes.length > 1 && m.swipe_id === m.swipes.length - 1) { m.swipes.pop(); m.swipe_id = m.swipes.length - 1; }
        write(i, text, reasoning);
        render(i);
      },
      unlockUI: () => lock(false),
      cleanupText: (text) => regexCleanup(text),
      afterCommit: () => {},
      isCurrentGeneration: (t) => t === generation,
    };
    const res = await runTakeover(init, host);
    if (!res.claimed && res.dispatched !== undefined && fallback) {
      await normalPath(type, init.abortSignal);
      return { dispatched: res.dispatched, claimed: false };
    }
    if (!res.claimed) lock(false);
    return res;
  }

  // The non-takeover path: write a plain reply (keeps the demo usable
  // without a plugin).
  async function normalPath(type, signal) {
    if (type === 'normal') chat.push({ name: 'Narrator', is_user: false, mes: '', extra: { reasoning: '' }, swipes: [''], swipe_id: 0 });
    const i = chat.length - 1;
    try {
      for await (const piece of fallback(type, chat, signal)) { write(i, chat[i].mes + piece, ''); render(i); }
      await save(chat);
    } catch { /* stopped */ }
    lock(false);
  }

  return {
    context,
    eventSource,
    Generate,
    stop() { controller?.abort(new DOMException('Stopped by the user', 'AbortError')); },
    get locked() { return locked; },
    getContext: () => context,
    createMessageEditorHandle,
  };
}
