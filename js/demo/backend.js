// A stand-in model backend: streams a reply as { type, delta } chunks with
// a short delay, honouring the abort signal like a real fetch stream.
const REPLIES = [
  'The lantern swung as the tavern door opened, and the bard looked up from her lute. "Another traveller," she said, "and another story owed." 😀',
  'Rain drummed on the shutters. The innkeeper slid a mug across the counter and leaned in: "You did not come for the ale, did you?"',
  'A log cracked in the hearth. Somewhere upstairs a door closed softly, and the room fell quiet enough to hear the candles burn.',
];
let turn = 0;

function sleep(ms, signal) {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) { reject(signal.reason ?? new DOMException('aborted', 'AbortError')); return; }
    const t = setTimeout(resolve, ms);
    signal?.addEventListener('abort', () => { clearTimeout(t); reject(signal.reason ?? new DOMException('aborted', 'AbortError')); }, { once: true });
  });
}

export async function* streamReply(prompt, signal, { delayMs = Number(globalThis.DEMO_DELAY_MS ?? 40), fail = false } = {}) {
  const reply = REPLIES[(prompt.length + turn++) % REPLIES.length];
  yield { type: 'reasoning', delta: `Thinking about "${prompt.slice(0, 40)}"…` };
  // Split by code units so a pair can land across two chunks (T2).
  for (let i = 0; i < reply.length; i += 3) {
    await sleep(delayMs, signal);
    if (fail && i > 30) throw new Error('the backend dropped the connection');
    yield { type: 'text', delta: reply.slice(i, i + 3) };
  }
}

// The normal (non-takeover) path's stand-in.
export async function* plainReply(type, chat, signal) {
  for (const word of 'Nobody took this turn over, so the host answered by itself.'.split(/(?= )/)) {
    await sleep(30, signal);
    yield word;
  }
}
