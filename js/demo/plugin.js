// The demo plugin, written the way the seed's example is: it listens for
// GENERATE_TAKEOVER_DISPATCH, claims the turn with a handle, and drives it
// from its own backend. Stop keeps the partial (abort); a hard failure
// rolls back (discard), and the reason goes to `onFailure`. Replies stream
// through editor-ops pipeFrom: a continue appends to the kept prefix (with a
// space between, and without repeating the reasoning line), the other types
// replace.
import { pipeFrom } from '../editor-ops.js';
import { streamReply } from './backend.js';

export function installDemoPlugin(context, { shouldTakeover = () => true, failNext = () => false, onFailure = () => {} } = {}) {
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
        let chunks = streamReply(prompt, eventData.abortSignal, { fail: failNext() });
        if (mode === 'append') chunks = continuation(chunks, handle.getText());
        await pipeFrom(handle, chunks, { mode, signal: eventData.abortSignal });
        await handle.commit();
      } catch (err) {
        if (err?.name === 'AbortError' || eventData.abortSignal.aborted) await handle.abort();
        else {
          onFailure(err);
          await handle.discard();
        }
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

// A continuation keeps the reply's reasoning as it is and starts its text
// with a space unless the kept text already ends in whitespace.
async function* continuation(chunks, kept) {
  let first = true;
  for await (const chunk of chunks) {
    if (chunk.type === 'reasoning') continue;
    if (first && chunk.type === 'text') {
      first = false;
      const gap = kept !== '' && !/\s$/.test(kept) && !/^\s/.test(chunk.delta) ? ' ' : '';
      yield { ...chunk, delta: gap + chunk.delta };
      continue;
    }
    yield chunk;
  }
}
