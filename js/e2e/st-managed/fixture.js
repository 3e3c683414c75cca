// Long SillyTavern chats for the managed-mode tests and `make bench`: a
// deterministic generator of chat files in the exact shape SillyTavern 1.18
// writes (`data/<user>/chats/<character>/<file>.jsonl`: a header line with
// `chat_metadata`, then one message per line).
//
// Messages are already normalised the way SillyTavern normalises them when it
// renders them (a non-user message carries `swipes`, `swipe_id` and
// `swipe_info`), so merely viewing a message never changes the file: the
// chat-file comparison against vanilla then checks what actions wrote, not
// which messages happened to be rendered. Message 0 holds no macros for the
// same reason (SillyTavern substitutes macros into chat[0].mes when it
// formats it).
//
// Every `htmlEvery`-th message carries a fenced ```html block holding a whole
// HTML document: the example participant (sillytavern/examples/html-runtime)
// claims the `<pre>` SillyTavern's markdown makes of it.

const WORDS = ('the a lantern rain road keeper map song ember quiet river north story cellar bell stranger ' +
  'candle wind harbor letter night window inn fire hill bridge dawn traveler coin silver old wooden door ' +
  'smiles softly whispers leans closer forest path glimmer storm tavern mug warm hearth shadow').split(' ');

function rng(seed) {
  let x = seed >>> 0 || 1;
  return () => {
    x ^= x << 13; x >>>= 0;
    x ^= x >>> 17;
    x ^= x << 5; x >>>= 0;
    return x / 0x100000000;
  };
}

function sentence(rnd, min, max) {
  const n = min + Math.floor(rnd() * (max - min));
  const words = Array.from({ length: n }, () => WORDS[Math.floor(rnd() * WORDS.length)]);
  words[0] = words[0][0].toUpperCase() + words[0].slice(1);
  return words.join(' ') + '.';
}

// SillyTavern's send_date format (humanized, `getMessageTimeStamp()`).
const MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September',
  'October', 'November', 'December'];
function sendDate(ms) {
  const d = new Date(ms);
  let h = d.getUTCHours();
  const ampm = h >= 12 ? 'pm' : 'am';
  h = h % 12 || 12;
  const mm = String(d.getUTCMinutes()).padStart(2, '0');
  return `${MONTHS[d.getUTCMonth()]} ${d.getUTCDate()}, ${d.getUTCFullYear()} ${h}:${mm}${ampm}`;
}

/** The HTML document a runtime block holds: small, self-contained, deterministic. */
export function runtimeDocument(i) {
  const hue = (i * 47) % 360;
  return [
    '<!DOCTYPE html>',
    '<html>',
    `<head><meta charset="utf-8"><title>card ${i}</title>`,
    `<style>body{margin:0;font:13px sans-serif;background:hsl(${hue} 40% 20%);color:#eee}` +
      '.card{padding:12px;border-radius:8px}</style></head>',
    `<body><div class="card"><b>Status card #${i}</b><p>HP ${(i * 7) % 100}/100 · Gold ${(i * 13) % 500}</p></div>`,
    `<script>document.body.dataset.card = '${i}';</script></body>`,
    '</html>',
  ].join('\n');
}

/**
 * Messages of a chat: `count` messages alternating user / character, every
 * `htmlEvery`-th one (counting from `htmlFirst`) with an HTML-document block.
 * The last message is the character's, with two swipes, so swiping works.
 */
export function makeMessages({ count = 10000, htmlEvery = 5, htmlFirst = 3, seed = 12, user = 'User',
  character = 'Seraphina', start = Date.UTC(2026, 0, 1, 9, 0) } = {}) {
  const rnd = rng(seed);
  const out = new Array(count);
  for (let i = 0; i < count; i++) {
    const isUser = (count - 1 - i) % 2 === 1; // the last message is the character's
    const time = start + i * 60000;
    const date = sendDate(time);
    const paragraphs = 1 + Math.floor(rnd() * 3);
    let mes = '';
    for (let p = 0; p < paragraphs; p++) {
      if (p) mes += '\n\n';
      mes += isUser ? sentence(rnd, 4, 18) : `*${sentence(rnd, 4, 10)}* "${sentence(rnd, 6, 22)}" ${sentence(rnd, 5, 16)}`;
    }
    if (i >= htmlFirst && (i - htmlFirst) % htmlEvery === 0) {
      mes += `\n\n\`\`\`html\n${runtimeDocument(i)}\n\`\`\``;
    }
    if (i === 0) mes = `Welcome, traveler. ${sentence(rnd, 6, 12)}`;
    const m = { name: isUser ? user : character, is_user: isUser, is_system: false, send_date: date, mes, extra: {} };
    if (!isUser) {
      m.extra = { api: 'openai', model: 'mock-model' };
      const swipes = [mes];
      if (i === count - 1) swipes.push(`*${sentence(rnd, 4, 10)}* An alternative reply.`);
      m.swipe_id = 0;
      m.swipes = swipes;
      m.swipe_info = swipes.map(() => ({ send_date: date, extra: {} }));
    }
    out[i] = m;
  }
  return out;
}

/** Whether a message carries a runtime block (the fixture's rule, for tests). */
export const hasRuntimeBlock = (m) => /```html\n<!DOCTYPE html>/.test(m.mes);

/** The JSONL text of a chat file: header line, then one message per line. */
export function chatFile(messages, { integrity = '00000000-0000-4000-8000-000000000000', metadata = {} } = {}) {
  const header = { chat_metadata: { integrity, ...metadata }, user_name: 'unused', character_name: 'unused' };
  return [header, ...messages].map((x) => JSON.stringify(x)).join('\n');
}
