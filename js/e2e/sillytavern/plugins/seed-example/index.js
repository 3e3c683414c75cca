// The seed's example takeover plugin, run unchanged inside real SillyTavern.
// Only what the example leaves to the reader is supplied above the marked
// block: `Luker` (tavern-core also provides globalThis.Luker; this keeps the
// example's name without depending on it), shouldTakeover and
// streamFromMyBackend, a stand-in backend the tests steer through
// globalThis.__seedPlugin.
const control = (globalThis.__seedPlugin = {
  claim: true,          // shouldTakeover's answer
  chunks: ['Hel', 'lo ', 'from ', 'the ', 'plugin.'],
  delayMs: 30,
  failAt: -1,           // throw a non-abort error before this chunk index
  dispatches: [],       // payload snapshots, for the tests
});
const Luker = globalThis.SillyTavern;

function shouldTakeover(eventData) {
  control.dispatches.push({ type: eventData.type, isContinue: eventData.isContinue, keys: Object.keys(eventData) });
  return control.claim;
}

async function* streamFromMyBackend(eventData) {
  const { chunks, delayMs, failAt } = control;
  for (const [i, c] of chunks.entries()) {
    await new Promise((resolve, reject) => {
      if (eventData.abortSignal.aborted) { reject(new DOMException('stopped', 'AbortError')); return; }
      const t = setTimeout(resolve, delayMs);
      eventData.abortSignal.addEventListener('abort', () => { clearTimeout(t); reject(new DOMException('stopped', 'AbortError')); }, { once: true });
    });
    if (i === failAt) throw new Error('backend broke');
    yield c;
  }
}

// ---- the seed's example, unchanged ----
const context = Luker.getContext();

context.eventSource.on(context.eventTypes.GENERATE_TAKEOVER_DISPATCH, async (eventData) => {
    if (!shouldTakeover(eventData)) return;

    // 對 continue / swipe / regenerate,從既有的 chat slot 讀取原始內容,
    // 讓核心在 discard 時能正確回滾。
    const { originalText, originalReasoning } = resolveOriginals(eventData.type, context.chat);

    const handle = context.createMessageEditorHandle({
        generationType: eventData.type,
        originalText,
        originalReasoning,
        abortSignal: eventData.abortSignal,
        owner: 'my-plugin',
    });
    eventData.takeoverHandle = handle;

    // 非同步驅動 editor。核心會 await handle.complete,負責推入佔位、
    // 訂閱 onUpdate 做即時重繪,並在終態把流程路由到對應清理 pipeline。
    void (async () => {
        try {
            for await (const chunk of streamFromMyBackend(eventData)) {
                handle.setText(handle.getText() + chunk);
            }
            await handle.commit();
        } catch (err) {
            if (err.name === 'AbortError' || eventData.abortSignal.aborted) {
                // 使用者點了停止。保留已經串流出來的部分,但跳過 finalize pipeline
                //  —— 見下面的「三種終態」一節。
                await handle.abort();
            } else {
                // 沒有可用 partial 的硬失敗。還原 slot 原狀。
                await handle.discard();
            }
        }
    })();
});

function resolveOriginals(type, chat) {
    if (type === 'normal') return { originalText: '', originalReasoning: '' };
    const slot = chat[chat.length - 1];
    return {
        originalText: String(slot?.mes ?? ''),
        originalReasoning: String(slot?.extra?.reasoning ?? ''),
    };
}
// ---- end of the seed's example ----
