// The seed's example plugin, as written there (fixtures/seed-example.js;
// only Luker, shouldTakeover and streamFromMyBackend are supplied), against the demo's SillyTavern-style
// host: claims, streams, commits; a user stop keeps the partial; a hard
// failure discards and rolls back.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createTavernHost } from '../demo/st-host.js';
import { installSeedExample } from './fixtures/seed-example.js';

function setup({ fail = false, chunks = ['Hel', 'lo', ' there', '.'], delay = 1 } = {}) {
  const chat = [{ name: 'You', is_user: true, mes: 'hi', extra: {} }];
  const saves = [];
  const tavern = createTavernHost({ chat, save: async (c) => { saves.push(JSON.stringify(c)); }, render: () => {} });
  const Luker = { getContext: () => tavern.getContext() };
  const shouldTakeover = () => true;
  async function* streamFromMyBackend(eventData) {
    for (const [i, c] of chunks.entries()) {
      await new Promise((resolve, reject) => {
        const t = setTimeout(resolve, delay);
        eventData.abortSignal.addEventListener('abort', () => { clearTimeout(t); reject(new DOMException('stopped', 'AbortError')); }, { once: true });
      });
      if (fail && i === 2) throw new Error('backend broke');
      yield c;
    }
  }

  installSeedExample({ Luker, shouldTakeover, streamFromMyBackend });

  return { chat, saves, tavern };
}

test('seed example: normal turn commits through the demo host (T56 T58)', async () => {
  const { chat, saves, tavern } = setup();
  const res = await tavern.Generate('normal');
  assert.equal(res.status, 'committed');
  assert.equal(res.owner, 'my-plugin');
  assert.equal(chat.at(-1).mes, 'Hello there.');
  assert.equal(saves.length, 1, 'persisted once, on commit');
  assert.equal(tavern.locked, false);
});

test('seed example: continue keeps the prefix; a stop keeps the partial, unsaved (T59)', async () => {
  const { chat, saves, tavern } = setup({ delay: 20 });
  await tavern.Generate('normal');
  const p = tavern.Generate('continue');
  await new Promise((r) => setTimeout(r, 50));
  tavern.stop();
  const res = await p;
  assert.equal(res.status, 'aborted');
  assert.ok(chat.at(-1).mes.startsWith('Hello there.') && chat.at(-1).mes.length > 'Hello there.'.length);
  assert.equal(saves.length, 1, 'the aborted partial is not persisted');
  assert.equal(tavern.locked, false);
});

test('seed example: a hard failure discards and the chat is rolled back (T60)', async () => {
  const { chat, saves, tavern } = setup({ fail: true });
  const res = await tavern.Generate('normal');
  assert.equal(res.status, 'discarded');
  assert.equal(chat.length, 1);
  assert.equal(saves.length, 0);
  const ok = setup();
  await ok.tavern.Generate('normal');
  ok.chat.at(-1).mes = 'Before.';
  const failing = setup({ fail: true });
  failing.chat.push({ name: 'Narrator', is_user: false, mes: 'Before.', extra: { reasoning: 'r' }, swipes: ['Before.'], swipe_id: 0 });
  const sw = await failing.tavern.Generate('swipe');
  assert.equal(sw.status, 'discarded');
  assert.equal(failing.chat.at(-1).mes, 'Before.');
  assert.equal(failing.chat.at(-1).extra.reasoning, 'r');
  assert.deepEqual(failing.chat.at(-1).swipes, ['Before.']);
});

test('demo host: an unclaimed turn takes the normal path (T55)', async () => {
  const chat = [{ name: 'You', is_user: true, mes: 'hi', extra: {} }];
  const tavern = createTavernHost({
    chat, save: async () => {}, render: () => {},
    fallback: async function* () { yield 'plain'; yield ' reply'; },
  });
  const res = await tavern.Generate('normal');
  assert.deepEqual(res, { dispatched: true, claimed: false });
  assert.equal(chat.at(-1).mes, 'plain reply');
  assert.equal(tavern.locked, false);
});
