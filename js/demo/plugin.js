// The demo plugin, written the way the seed's example is: it listens for
// GENERATE_TAKEOVER_DISPATCH, claims the turn with a handle, and drives it
// from its own backend. Stop keeps the partial (abort); a hard failure
// rolls back (discard). Replies stream through editor-ops pipeFrom: a
// continue appends to the kept prefix, the other types replace.
import { pipeFrom } from '../editor-ops.js';
import { streamReply } from './backend.js';

export function installDemoPlugin(context, { shouldTakeover = () => true, failNext = () => false } = {}) {
  context.eventSource.on(context.eventTypes.GENERATE_TAKEOVER_DISPATCH, async (eventData) => {
    if (!shouldTakeover(eventData)) return;
    const { originalText, originalReasoning } = resolveOriginals(eventData.type, context.chat);
    const handle = context.createMessageEditorHandle({
      generationType: eventData.type,
      originalText,
      originalReasoning,
      abortSignal: eventData.abortSignal,
      owner: 'demo-plugin',
    });
    eventData.takeoverHandle = handle;

    void (async () => {
      try {
        const prompt = context.chat.findLast((m) => m.is_user)?.mes ?? '';
        const mode = eventData.type === 'continue' ? 'append' : 'replace';
        if (mode === 'replace') handle.setReasoning('');
        await pipeFrom(handle, streamReply(prompt, eventData.abortSignal, { fail: failNext() }), { mode, signal: eventData.abortSignal });
        await handle.commit();
      } catch (err) {
        if (err?.name === 'AbortError' || eventData.abortSignal.aborted) await handle.abort();
        else await handle.discard();
      }
    })();
  });
}

function resolveOriginals(type, chat) {
  if (type === 'normal') return { originalText: '', originalReasoning: '' };
  const slot = chat[chat.length - 1];
  return {
    originalText: String(slot?.mes ?? ''),
    originalReasoning: String(slot?.extra?.reasoning ?? ''),
  };
}
