// The seed's example takeover plugin (js/test/fixtures/seed-example.js,
// copied beside this file by the suite), run unchanged inside real
// SillyTavern. Only what the example leaves to the reader is supplied:
// `Luker` (tavern-core also provides globalThis.Luker; this keeps the
// example's name without depending on it), shouldTakeover and
// streamFromMyBackend, a stand-in backend the tests steer through
// globalThis.__seedPlugin.
import { installSeedExample } from './seed-example.js';

const control = (globalThis.__seedPlugin = {
  claim: true,          // shouldTakeover's answer (or a function of the payload giving it)
  chunks: ['Hel', 'lo ', 'from ', 'the ', 'plugin.'],
  delayMs: 30,
  failAt: -1,           // throw a non-abort error before this chunk index
  ignoreAbort: false,   // a backend call that cannot be cancelled: it runs on after Stop
  finished: 0,          // streams that ran to their end
  dispatches: [],       // payload snapshots, for the tests
});
const Luker = globalThis.SillyTavern;

function shouldTakeover(eventData) {
  control.dispatches.push({ type: eventData.type, isContinue: eventData.isContinue, keys: Object.keys(eventData) });
  return typeof control.claim === 'function' ? control.claim(eventData) : control.claim;
}

async function* streamFromMyBackend(eventData) {
  const { chunks, delayMs, failAt, ignoreAbort } = control;
  for (const [i, c] of chunks.entries()) {
    await new Promise((resolve, reject) => {
      if (ignoreAbort) { setTimeout(resolve, delayMs); return; }
      if (eventData.abortSignal.aborted) { reject(new DOMException('stopped', 'AbortError')); return; }
      const t = setTimeout(resolve, delayMs);
      eventData.abortSignal.addEventListener('abort', () => { clearTimeout(t); reject(new DOMException('stopped', 'AbortError')); }, { once: true });
    });
    if (i === failAt) throw new Error('backend broke');
    yield c;
  }
  control.finished++;
}

installSeedExample({ Luker, shouldTakeover, streamFromMyBackend });
