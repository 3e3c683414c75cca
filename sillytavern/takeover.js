// Message takeover in vanilla SillyTavern, without a core patch.
//
// SillyTavern 1.18 has no takeover hook, but it runs every extension's
// `generate_interceptor` inside Generate() (not for dry runs), awaits it, and
// lets it stop the normal path with abort(true). tavern-core's interceptor
// hands the turn to runTakeover (the Go driver): it emits
// GENERATE_TAKEOVER_DISPATCH on SillyTavern's own eventSource; an unclaimed
// turn returns untouched and SillyTavern carries on; a claimed one stops the
// normal path and is driven to its end with SillyTavern's own functions as
// the host (saveReply, updateMessageBlock, saveChat,
// deleteLastMessage, activateSendButtons, cleanUpMessage). The Stop button's
// GENERATION_STOPPED aborts the dispatch signal. Every routing decision is the
// driver's; this file only maps host callbacks onto SillyTavern.

export const INTERCEPTOR = 'tavernCoreGenerateInterceptor';

/**
 * @param {object} o
 * @param {object} o.st         SillyTavern's functions and state (see index.js)
 * @param {object} o.core       { runTakeover, installTakeoverContext }
 * @param {() => boolean} o.enabled   the settings toggle, read per turn
 * @param {() => boolean} o.settleOnAbort  the auto-settle toggle, read whenever a context is handed out
 */
export function installSillyTavernTakeover({ st, core, enabled, settleOnAbort }) {
  const { chat, eventSource, event_types: ev } = st;
  exposeContext(st, core, settleOnAbort);

  let generation = 0; // bumped by every dispatched turn; older takeovers go stale (T61)
  // The turns whose interceptor call is still waiting. More than one: a
  // quiet run (an extension's generateQuietPrompt, such as Summarize) can
  // start while a claimed turn streams, and must not take the Stop button's
  // reach away from it.
  const open = new Set();
  // The newest real GENERATION_STARTED per type (a background quiet run must
  // not overwrite the user's turn): its options, and the reply a regenerate
  // is about to remove.
  const started = new Map();

  eventSource.on(ev.GENERATION_STARTED, (type, options, dryRun) => {
    if (dryRun) return;
    // Generate('regenerate') deletes the last reply before interceptors run;
    // remember it so the dispatch sees the slot the seed's plugins read.
    const last = chat[chat.length - 1];
    started.set(type ?? 'normal', { options: options ?? {}, removed: type === 'regenerate' && last && !last.is_user ? last : null });
  });
  // Stop, and leaving the chat, end the turns' waits and abort their signals.
  // (A chat left and reopened mid-turn has new message objects: the host's
  // slot is then not the turn's, and nothing is written to it.)
  // Stop's own GENERATION_STOPPED (stopGeneration emits it on every press)
  // is the turn's: a discard that follows does not announce it again.
  const stopAll = () => { for (const t of [...open]) t.stop(); };
  eventSource.on(ev.GENERATION_STOPPED, () => {
    if ([...open].some((t) => t.ownStop)) return; // a turn's own discard (T60), no Stop
    for (const t of open) t.stopAnnounced = true;
    stopAll();
  });
  eventSource.on(ev.CHAT_CHANGED, stopAll);
  // SillyTavern unblocks its UI when a quiet run ends unless one of its own
  // streams is still running (unblockGeneration); a claimed turn is not one
  // of those, so Send came back and Stop went away while the plugin still
  // streamed. GENERATION_ENDED (the Stop button hidden) is where that shows:
  // once SillyTavern's unblocking has run, lock again while a claimed turn
  // is live, as its own stream would have kept it locked.
  const live = () => [...open].some((t) => t.live);
  eventSource.on(ev.GENERATION_ENDED, () => {
    if (!live()) return;
    queueMicrotask(() => {
      if (!live()) return;
      st.setSendButtonState(true);
      st.deactivateSendButtons();
    });
  });

  globalThis[INTERCEPTOR] = async function tavernCoreGenerateInterceptor(coreChat, contextSize, abort, type) {
    if (!enabled()) return;
    const kind = type ?? 'normal';
    const start = started.get(kind);
    started.delete(kind);
    const controller = new AbortController();
    let release;
    const released = new Promise((r) => { release = r; });
    // live: claimed and not yet stopped or unlocked (the UI is this turn's).
    const turn = { live: false, stop() { turn.live = false; controller.abort(); release(); }, autoContinue: null, stopAnnounced: false, ownStop: false };
    const token = { turn: 0, chatId: st.getCurrentChatId() };
    let claimed = false;
    let onClaim;
    const claim = new Promise((r) => { onClaim = r; });

    // regenerate: put the removed reply back while listeners look, so
    // chat[chat.length - 1] is the slot being regenerated (T53).
    let restored = null;
    if (kind === 'regenerate' && start?.removed && !chat.includes(start.removed)) {
      restored = start.removed;
      chat.push(restored);
    }
    const streaming = st.isStreamingEnabled();
    const host = sillyTavernHost({
      st, type: kind, restored, turn, streaming, chatId: token.chatId,
      onClaimed() {
        claimed = true;
        // Stopped while the dispatch's listeners were still deciding: the
        // claim comes too late. Older turns go stale as after any dispatch,
        // and this one is never current (T61), so the driver makes no
        // placeholder: vanilla makes no reply after such a Stop either.
        if (controller.signal.aborted) generation++;
        else {
          turn.live = true;
          token.turn = ++generation;
        }
        onClaim();
      },
      // Liveness gates the unlock too (T61): a chat left and reopened keeps
      // it, so the UI this turn locked comes back; the slot check keeps the
      // writes out of the reopened chat.
      isCurrentGeneration: (t) => t.turn === generation && st.getCurrentChatId() === t.chatId,
    });
    const init = {
      type: kind,
      isContinue: kind === 'continue',
      forceName2: !!start?.options?.force_name2,
      isStreamingEnabled: streaming,
      finalPrompt: null, // not assembled yet when interceptors run (docs/sillytavern.md)
      generateData: { chat: coreChat, contextSize },
      abortSignal: controller.signal,
      dryRun: false,
      generationToken: token,
    };
    open.add(turn);
    const run = runTakeover(core, init, host);
    const first = await Promise.race([run, claim]);
    if (!claimed) {
      if (restored) {
        const i = chat.lastIndexOf(restored);
        if (i >= 0) chat.splice(i, 1);
      }
      if (first?.dispatched) generation++;
      open.delete(turn);
      return; // SillyTavern's normal path, untouched
    }
    abort(true);
    // The turn ends when the driver is done, or when the user presses Stop:
    // a plugin that ignores the signal must not keep the UI locked.
    await Promise.race([run, released]);
    turn.live = false;
    open.delete(turn);
    if (turn.autoContinue !== null) {
      const text = turn.autoContinue;
      // After Generate() has unblocked, as SillyTavern does after a stream.
      setTimeout(() => st.triggerAutoContinue(text, false), 0);
    }
  };
}

function runTakeover(core, init, host) {
  return core.runTakeover(init, host).catch((e) => {
    console.error('[tavern-core] runTakeover failed', e);
    return { dispatched: false, claimed: false };
  });
}

/**
 * GENERATE_TAKEOVER_DISPATCH, createMessageEditorHandle and TakeoverError on
 * every getContext() result (T69, T70): SillyTavern.getContext() is wrapped
 * so each fresh object gets them as own properties; the eventTypes object is
 * SillyTavern's shared event_types, so the constant is on every result and
 * on event_types too; and the getContext() extensions import from
 * scripts/extensions.js, which cannot be wrapped, is covered by an accessor
 * on Object.prototype that answers only for objects carrying SillyTavern's
 * eventSource and event_types (docs/sillytavern.md explains why). The
 * settings' auto-settle switch picks which createMessageEditorHandle a
 * context gets (installTakeoverContext's settleOnAbort option).
 */
function exposeContext(st, core, settleOnAbort) {
  const { installTakeoverContext } = core;
  const install = (ctx) => installTakeoverContext(ctx, { settleOnAbort: settleOnAbort() });
  install({ eventTypes: st.event_types });
  const ST = globalThis.SillyTavern;
  const original = ST.getContext;
  const getContext = function getContext(...args) {
    return install(original.apply(this, args));
  };
  ST.getContext = getContext;
  // The seed's and Luker's examples call Luker.getContext().
  if (globalThis.Luker === undefined) globalThis.Luker = { getContext };
  const isContext = (o) => o !== null && typeof o === 'object' && Object.getPrototypeOf(o) === Object.prototype
    && Object.hasOwn(o, 'eventSource') && o.eventSource === st.eventSource && o.eventTypes === st.event_types;
  for (const key of ['createMessageEditorHandle', 'TakeoverError']) {
    if (key in Object.prototype) continue;
    Object.defineProperty(Object.prototype, key, {
      configurable: true,
      enumerable: false,
      get() { return isContext(this) ? install({})[key] : undefined; },
      set(v) { Object.defineProperty(this, key, { value: v, writable: true, enumerable: true, configurable: true }); },
    });
  }
}

// How long the turn's saves wait for a save of SillyTavern's own to end
// (its saveChatConditional gives up after its edit timeout too).
const SAVE_WAIT_MS = 5000;

// The type saveReply announces a reply that was not streamed with: it
// rewrites the one it was called with to 'normal' when the message before the
// reply is the user's or has no swipes (a regenerate, mostly), and calls a
// continue 'appendFinal'. A streamed reply keeps its own.
function notStreamedType(t, before) {
  if (t === 'continue') return 'appendFinal';
  return before !== undefined && (before.swipe_id === undefined || before.is_user) ? 'normal' : t;
}

/**
 * runTakeover's host (T53) over SillyTavern. Slot ids are chat indices.
 */
function sillyTavernHost({ st, type, restored, turn, streaming, chatId, onClaimed, isCurrentGeneration }) {
  const { chat, eventSource, event_types: ev } = st;
  let swipeBefore = null; // the swipe count before the placeholder swipe
  let timesBefore = null; // a continued message's generation times, for a discard
  // What a streamed reply's message records (StreamingProcessor and its
  // reasoning handler): the time to the first token, and how long the
  // reasoning ran before the text began, so the header says "Thought for
  // 2.1s" rather than "for some time".
  let placedAt = 0;
  let firstToken = false;
  let thinkFrom = null;
  let thinkTo = null;
  // The text and reasoning a handle starts from (its originals: the reply
  // being regenerated, the swipe swiped from, the message continued): the
  // first writes carry them, and they are not the plugin's first token.
  let orig = { text: '', reasoning: '' };
  let lastToken = ''; // the last STREAM_TOKEN_RECEIVED's text (the originals are none)
  let tokens = 0; // STREAM_TOKEN_RECEIVED emitted
  let committing = false; // cleanupText ran: the commit's redraws follow (T58)
  let announced = null; // a reply not streamed: the type saveReply would announce (notStreamedType)
  let counted = false; // afterCommit showed the slot's swipe counter
  let slot = null;
  // The slot is the message acquirePlaceholder made or took, showing the
  // swipe it showed then. Once the user has swiped it, deleted it or
  // reloaded the chat (after Stop the UI is theirs), a plugin's late writes,
  // saves, removals and events for it would land on what they made of it:
  // they are dropped. A message that moved (one above it deleted) is
  // followed.
  let slotMsg = null;
  let slotSwipe = 0;
  const take = (id) => {
    slot = id;
    slotMsg = chat[id] ?? null;
    slotSwipe = slotMsg?.swipe_id ?? 0;
    return id;
  };
  const at = (id) => { // { m, id }: the slot as it is now, or null when it is not the turn's any more
    if (slotMsg === null || id !== slot) return chat[id] ? { m: chat[id], id } : null;
    const i = chat[id] === slotMsg ? id : chat.indexOf(slotMsg);
    return i < 0 || (slotMsg.swipe_id ?? 0) !== slotSwipe ? null : { m: slotMsg, id: i };
  };
  // A reply that ends while still reasoning (Stop, or a commit with no text)
  // is timed to its end, as SillyTavern's reasoning handler finishes it.
  const endThinking = () => {
    const s = slot === null ? null : at(slot);
    if (thinkFrom === null || thinkTo !== null || !s?.m.extra) return false;
    thinkTo = Date.now();
    s.m.extra.reasoning_duration = thinkTo - thinkFrom;
    st.syncMesToSwipe(s.id);
    return true;
  };

  // The chat the reply is in, saved. Not through saveChatConditional: it
  // saves whatever chat is open once its 100 ms wait is over, and a chat
  // opened meanwhile and still loading was saved empty, over its own file.
  // This waits for a save of SillyTavern's own to end, then saves only if
  // the turn's chat is still open and holds the reply, checked in the same
  // turn as the save reads chat[].
  const saveTurnChat = async () => {
    for (let waited = 0; st.isChatSaving() && waited < SAVE_WAIT_MS; waited += 10) {
      await new Promise((r) => setTimeout(r, 10));
    }
    if (st.isChatSaving() || st.getCurrentChatId() !== chatId || (slot !== null && !at(slot))) return;
    await st.saveOpenChat();
  };

  const redrawNow = (id) => {
    const s = at(id);
    if (s) {
      st.updateMessageBlock(s.id, s.m);
      showGenerationTime(s.id, s.m);
    }
    return s;
  };

  return {
    eventTypes: ev,
    emit(name, ...args) {
      if (name === ev.GENERATION_STOPPED) {
        // T60's generation_stopped after Stop: SillyTavern announced it already.
        if (turn.stopAnnounced) return undefined;
        // A discard with no Stop: SillyTavern's listeners hear it (T60), but
        // it is no Stop of this turn's, whose signal stays as it was (a
        // plugin answering its abort would act on a Stop never pressed).
        turn.ownStop = true;
        return Promise.resolve(eventSource.emit(name, ...args)).finally(() => { turn.ownStop = false; });
      }
      const reply = name === ev.MESSAGE_RECEIVED || name === ev.CHARACTER_MESSAGE_RENDERED;
      // The events that name the reply name it where it is, if it is still
      // the turn's.
      if (slot !== null && args[0] === slot && reply) {
        const s = at(slot);
        if (!s) return undefined;
        args[0] = s.id;
      }
      if (!reply || streaming) return eventSource.emit(name, ...args);
      // A reply not streamed is announced as saveReply announces one: with
      // the type saveReply gives it (notStreamedType), and drawn anew between
      // the two events (saveReply's addOneMessage), so what a
      // MESSAGE_RECEIVED listener changed is what the page shows.
      args[1] = announced ?? args[1];
      if (name !== ev.MESSAGE_RECEIVED) return eventSource.emit(name, ...args);
      return (async () => {
        await eventSource.emit(name, ...args);
        if (slot !== null) redrawNow(slot);
      })();
    },
    onClaimed,
    isCurrentGeneration,

    async acquirePlaceholder(t) {
      placedAt = Date.now();
      const last = chat.length - 1;
      const was = (m) => ({ text: m?.mes ?? '', reasoning: m?.extra?.reasoning ?? '' });
      if (t === 'continue' && last >= 0) { // the slot is the message being continued
        timesBefore = { gen_started: chat[last].gen_started, gen_finished: chat[last].gen_finished };
        orig = was(chat[last]);
        announced = notStreamedType(t, chat[last]);
        return take(last);
      }
      if (t === 'regenerate' && restored && chat[last] === restored) {
        // The reply SillyTavern deleted was back only for the listeners to
        // read: the regenerated reply is a new message, as SillyTavern's
        // own stream makes it (one swipe, its own times), not that
        // message with its other swipes and old times.
        orig = was(restored);
        chat.pop();
      }
      if (t === 'swipe' && last >= 0) {
        swipeBefore = chat[last].swipes?.length ?? null;
        orig = was(chat[last]);
      }
      // What StreamingProcessor does for a streamed reply: a '...' message
      // (normal, regenerate) or a new swipe on the last one (swipe).
      if (t !== 'continue') lastToken = orig.text; // (a continue's tokens leave its text out)
      announced = notStreamedType(t, chat[chat.length - 1]);
      await st.saveReply({ type: t, getMessage: '...', fromStreaming: true });
      st.hideSwipeButtons({ hideCounters: true });
      st.scrollChatToBottom({ waitForFrame: true });
      return take(chat.length - 1);
    },

    readSlot(id) {
      const m = at(id)?.m;
      return { text: m?.mes ?? '', reasoning: m?.extra?.reasoning ?? '' };
    },

    writeSlot(id, text, reasoning) {
      const s = at(id);
      if (!s) return;
      const m = s.m;
      m.mes = text;
      if (!m.extra || typeof m.extra !== 'object') m.extra = {};
      m.extra.reasoning = reasoning;
      // A streamed reply's end time moves with every token (StreamingProcessor
      // does the same), so the message's timer and the saved gen_finished say
      // how long the plugin took, not when the placeholder appeared.
      const now = new Date();
      m.gen_finished = now;
      const newText = text !== '' && text !== orig.text;
      const newReasoning = reasoning !== '' && reasoning !== orig.reasoning;
      if (!firstToken && (newText || newReasoning)) {
        firstToken = true;
        // (A reply not streamed records none, as SillyTavern's.)
        if (streaming) m.extra.time_to_first_token = now.getTime() - placedAt;
      }
      if (reasoning !== '' && type !== 'continue') { // (a continued message keeps its own)
        if (newReasoning) thinkFrom ??= now.getTime();
        const done = newText && thinkFrom !== null && thinkTo === null;
        if (done) thinkTo = now.getTime();
        m.extra.reasoning_type = 'model';
        m.extra.reasoning_duration = thinkTo === null ? null : thinkTo - thinkFrom;
        // What SillyTavern's reasoning handler emits when the text begins
        // (not awaited: writeSlot is synchronous, T59).
        if (done) eventSource.emit(ev.STREAM_REASONING_DONE, reasoning, thinkTo - thinkFrom, s.id, 'done');
      }
      st.syncMesToSwipe(s.id);
    },

    // Live redraws emit what a streamed reply emits, and only that:
    // STREAM_TOKEN_RECEIVED with the generated text, as SillyTavern's stream
    // does (a continue's without the text continued), once per new text
    // (never empty, never the same text twice), and only while the turn is
    // live and streamed: after Stop, the partial's redraw is no new token (a
    // text-to-speech listener would read on past the stop), and a reply not
    // streamed has no tokens. The commit's redraw of the cleaned reply is no
    // token (SillyTavern's stream never emits its cleaned text) unless none
    // was emitted at all: a reply equal to the one it regenerates still
    // reaches a text-to-speech listener once. No MESSAGE_UPDATED: SillyTavern
    // emits it for a user's edit, and its own listeners act on it (Translate
    // translates the message again, Summarize and the reasoning parser run),
    // which per token would be a request per token.
    async redraw(id) {
      const s = redrawNow(id);
      if (!s || !turn.live || !streaming) return;
      const text = type === 'continue' && s.m.mes.startsWith(orig.text) ? s.m.mes.slice(orig.text.length) : s.m.mes;
      if (text === '' || (committing ? tokens > 0 : text === lastToken)) return;
      lastToken = text;
      tokens++;
      await eventSource.emit(ev.STREAM_TOKEN_RECEIVED, text);
    },

    persist: () => {
      if (slot !== null && !at(slot)) return undefined; // nothing of the turn's to save
      endThinking();
      return saveTurnChat();
    },

    async removeSlot(id) {
      const s = at(id);
      if (!s) return;
      if (s.id === chat.length - 1) {
        await st.deleteLastMessage();
        markLast();
      } else await st.deleteMessage(s.id);
    },

    async restoreSlot(id, text, reasoning) {
      const s = at(id);
      if (!s) return;
      id = s.id;
      const m = s.m;
      if (type === 'swipe' && Array.isArray(m.swipes) && swipeBefore !== null && m.swipes.length > swipeBefore) {
        // Drop the placeholder swipe and show the one the user swiped from.
        m.swipes.length = swipeBefore;
        if (Array.isArray(m.swipe_info)) m.swipe_info.length = Math.min(m.swipe_info.length, swipeBefore);
        m.swipe_id = Math.max(0, swipeBefore - 1);
        slotSwipe = m.swipe_id; // (the turn's own move: the slot stays the turn's)
        m.mes = m.swipes[m.swipe_id] ?? '';
        const info = m.swipe_info?.[m.swipe_id];
        if (info?.extra && typeof info.extra === 'object') m.extra = structuredClone(info.extra);
        // The times go back with the swipe, as SillyTavern's own swipe does.
        if (info && typeof info === 'object') {
          for (const k of ['send_date', 'gen_started', 'gen_finished']) if (k in info) m[k] = info[k];
        }
        redrawNow(id);
        await st.updateSwipeCounter(id);
        return;
      }
      m.mes = text;
      if (!m.extra || typeof m.extra !== 'object') m.extra = {};
      m.extra.reasoning = reasoning;
      if (timesBefore !== null) Object.assign(m, timesBefore);
      st.syncMesToSwipe(id);
      redrawNow(id);
    },

    unlockUI: async () => {
      turn.live = false; // (before: activateSendButtons emits GENERATION_ENDED)
      if (endThinking()) redrawNow(slot); // an aborted partial's header
      // acquirePlaceholder hid the swipe counter; afterCommit shows it again,
      // and an aborted reply (T59: no afterCommit) shows it here, as a
      // stopped stream's does.
      const s = counted || slot === null ? null : at(slot);
      try {
        if (s) await st.updateSwipeCounter(s.id);
      } finally {
        st.activateSendButtons(); // (whatever the counter did: the UI comes back)
      }
    },

    cleanupText: (text, { isContinue }) => {
      committing = true;
      return st.cleanUpMessage({
        getMessage: text, isImpersonate: false, isContinue, displayIncompleteSentences: false, includeUserPromptBias: false,
      });
    },

    // After the events, as SillyTavern finishes a reply: the swipe counter,
    // then a save, so that what MESSAGE_RECEIVED and CHARACTER_MESSAGE_RENDERED
    // listeners changed (a translation, a regex, a memory note) is on disk
    // as it is after a model's reply. (persist saved the reply before the
    // events, T58.)
    async afterCommit(id, { text }) {
      const s = at(id);
      if (!s) return;
      // (saveReply, for a reply not streamed, copies the message into its
      // swipe after the events; a stream's finalize did before them.)
      if (!streaming) st.syncMesToSwipe(s.id);
      await st.updateSwipeCounter(s.id);
      counted = true;
      turn.autoContinue = text;
      await saveTurnChat();
    },
  };
}

// deleteLastMessage removes the last message's element and leaves no
// message marked last_mes (SillyTavern's other deletions mark the new last
// one, updateViewMessageIds): the message a rolled-back turn leaves last is
// marked, so its swipe arrows and .last_mes selectors find it.
function markLast() {
  const all = globalThis.document?.querySelectorAll('#chat .mes');
  if (!all?.length) return;
  for (const el of all) el.classList.remove('last_mes');
  all[all.length - 1].classList.add('last_mes');
}

/**
 * The message header's generation timer (`.mes_timer`), in SillyTavern's
 * format ("2.7s", and the queued / received times in its title).
 * updateMessageBlock redraws only the text, and the timer SillyTavern drew
 * with the placeholder would otherwise stay at the placeholder's age.
 */
function showGenerationTime(id, m) {
  const el = globalThis.document?.querySelector(`#chat .mes[mesid="${id}"] .mes_timer`);
  const start = new Date(m.gen_started ?? NaN);
  const end = new Date(m.gen_finished ?? NaN);
  const seconds = (end.getTime() - start.getTime()) / 1000;
  if (!el || !(seconds >= 0)) return;
  el.textContent = `${seconds.toFixed(1)}s`;
  const moment = globalThis.moment;
  const at = (d) => (typeof moment === 'function' ? moment(d).format('HH:mm:ss D MMM YYYY') : d.toISOString());
  const x = m.extra ?? {};
  el.title = [
    `Generation queued: ${at(start)}`, `Reply received: ${at(end)}`, `Time to generate: ${seconds} seconds`,
    x.time_to_first_token ? `Time to first token: ${x.time_to_first_token / 1000} seconds` : '',
    x.reasoning_duration > 0 ? `Time to think: ${x.reasoning_duration / 1000} seconds` : '',
    x.token_count > 0 ? `Token rate: ${Number(x.token_count / seconds).toFixed(3)} t/s` : '',
  ].filter((line) => line).join('\n');
}
