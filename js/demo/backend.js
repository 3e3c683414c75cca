// A stand-in model backend: streams a reply in small chunks with a short
// delay, honouring the abort signal like a real fetch stream would.
const REPLIES = [
  'The lantern swung as the tavern door opened, and the bard looked up from her lute. "Another traveller," she said, "and another story owed." 😀',
  'Rain drummed on the shutters. The innkeeper slid a mug across the counter and leaned in: "You did not come for the ale, did you?"',
];

function sleep(ms, signal) {
  return new Promise((resolve, reject) => {
    const t = setTimeout(resolve, ms);
    signal?.addEventListener('abort', () => { clearTimeout(t); reject(signal.reason ?? new DOMException('aborted', 'AbortError')); }, { once: true });
  });
}

export async function* streamReply(prompt, signal, { delayMs = Number(globalThis.DEMO_DELAY_MS ?? 40) } = {}) {
  const reply = REPLIES[prompt.length % REPLIES.length];
  yield { type: 'reasoning', delta: `Thinking about "${prompt.slice(0, 40)}"…` };
  // Split by code units so a pair can land across two chunks (T2).
  for (let i = 0; i < reply.length; i += 3) {
    await sleep(delayMs, signal);
    yield { type: 'text', delta: reply.slice(i, i + 3) };
  }
}
