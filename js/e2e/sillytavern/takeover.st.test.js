// tavern-core inside the real SillyTavern 1.18.0 (issue #11's acceptance
// list): the built extension and two test plugins installed by copying their
// folders, a streaming OpenAI-compatible mock as the model, headless
// Chromium driving the page like a user. One server and one page serve the
// scenarios in order (each starts from the chat the previous one left), so
// the suite pays SillyTavern's start-up once.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { existsSync, writeFileSync } from 'node:fs';
import {
  REPO, startSillyTavern, launchChromium, openSillyTavern, message, send, chooseOption, swipeRight,
  waitIdle, idle, chatState, shownText, turn, openGroupChat, readGroupChat, openChat, chatJsonl, CHARACTER, until,
} from './harness.js';
import { startMockLLM } from './mock-llm.js';
import { FIXED, PLANNER, CRITIC } from '../../test/fixtures/luker-style-plugin.js';

const EXT = join(REPO, 'dist/sillytavern/tavern-core');
const PLUGINS = join(REPO, 'js/e2e/sillytavern/plugins');
const LUKER_FIXTURE = join(REPO, 'js/test/fixtures/luker-style-plugin.js');
const GREETING = 'Hello, traveller.';
const PLUGIN_REPLY = 'Hello from the plugin.';

let mock; let st; let browser; let page; let errors; let reload;

before(async () => {
  assert.ok(existsSync(join(EXT, 'manifest.json')), 'run `make sillytavern` first');
  mock = await startMockLLM({ chunks: ['Mock ', 'reply ', 'from ', 'the ', 'model.'], delayMs: 20 });
  st = await startSillyTavern({
    mockUrl: mock.url,
    chat: { messages: [message(GREETING)] },
    extensions: [
      { name: 'tavern-core', dir: EXT },
      { name: 'tavern-test-hostile', dir: join(PLUGINS, 'hostile') },
      { name: 'tavern-test-luker-style', dir: join(PLUGINS, 'luker-style'), files: [LUKER_FIXTURE] },
      { name: 'tavern-test-seed-example', dir: join(PLUGINS, 'seed-example'), files: [join(REPO, 'js/test/fixtures/seed-example.js')] },
    ],
  });
  browser = await launchChromium();
  ({ page, errors, reload } = await openSillyTavern(st, { context: browser.context }));
  await recordEvents();
});

after(async () => {
  await browser?.close();
  await st?.stop();
  await mock?.close();
});

/** Records the SillyTavern events a takeover should (or must not) emit. */
async function recordEvents() {
  await page.evaluate(() => {
    const { eventSource, eventTypes: ev } = globalThis.SillyTavern.getContext();
    globalThis.__events = [];
    for (const name of ['MESSAGE_RECEIVED', 'CHARACTER_MESSAGE_RENDERED', 'MESSAGE_UPDATED', 'STREAM_TOKEN_RECEIVED', 'GENERATION_STOPPED', 'MESSAGE_DELETED',
      'STREAM_REASONING_DONE']) {
      eventSource.on(ev[name], (...args) => globalThis.__events.push([name, ...args.filter((a) => typeof a !== 'object')]));
    }
  });
}
// The saved chat once check(messages) holds: SillyTavern saves over HTTP
// after the page has moved on, so a test waits for the file, not for a time.
function savedUntil(check, name) {
  let last = null;
  return until(() => `the saved chat to change; its last messages: ${JSON.stringify(last?.slice(-3).map((m) => m.mes))}`, () => {
    try { last = st.readChat(name); } catch { return null; }
    return check(last) && last;
  });
}
const takeEvents = () => page.evaluate(() => globalThis.__events.splice(0));
const seed = (patch) => page.evaluate((p) => Object.assign(globalThis.__seedPlugin, p), patch);
const hostile = (mode) => page.evaluate((m) => { globalThis.__hostilePlugin.mode = m; }, mode);
const dispatches = () => page.evaluate(() => globalThis.__seedPlugin.dispatches.length);
const names = (events) => events.map((e) => e[0]);

test('the extension loads before later extensions and exposes the APIs (T66–T71, C11, C14)', async () => {
  const seen = await page.evaluate(() => globalThis.__hostilePlugin.atEvaluation);
  assert.deepEqual(seen, {
    chatSurface: 'object', managed: false, createMessageEditorHandle: 'function', TakeoverError: 'function',
    dispatch: 'generate_takeover_dispatch',
  });
  const exposure = await page.evaluate(async () => {
    const a = globalThis.SillyTavern.getContext();
    const b = globalThis.SillyTavern.getContext();
    const { getContext } = await import('/scripts/st-context.js');
    const imported = getContext();
    const { event_types } = await import('/scripts/events.js');
    const lib = await import('/scripts/extensions/third-party/tavern-core/lib/message-takeover.js');
    return {
      fresh: a !== b,
      same: a.createMessageEditorHandle === lib.createMessageEditorHandle && b.TakeoverError === lib.TakeoverError,
      importedSame: imported.createMessageEditorHandle === lib.createMessageEditorHandle && imported.TakeoverError === lib.TakeoverError,
      luker: globalThis.Luker.getContext().createMessageEditorHandle === lib.createMessageEditorHandle,
      constants: [a.eventTypes.GENERATE_TAKEOVER_DISPATCH, a.event_types.GENERATE_TAKEOVER_DISPATCH, event_types.GENERATE_TAKEOVER_DISPATCH, lib.GENERATE_TAKEOVER_DISPATCH],
      bare: typeof ({}).createMessageEditorHandle,
      api: Object.keys(window.__TAURITAVERN__.api.chatSurface),
    };
  });
  assert.deepEqual(exposure, {
    fresh: true, same: true, importedSame: true, luker: true,
    constants: Array(4).fill('generate_takeover_dispatch'),
    bare: 'undefined',
    api: ['protocolVersion', 'isManagedOwnershipRequired', 'registerParticipant', 'registerContentProcessor'],
  });
});

// Found by an extension author: in static mode no chat-surface host runs,
// so a registration (a forgotten isManagedOwnershipRequired() check) was
// accepted and nothing ever happened. It still is (C14, C15), and says so once.
test('a participant or processor registered in static mode is accepted, and the console says once that nothing will call it', async () => {
  const warnings = [];
  const onConsole = (m) => { if (m.type() === 'warning' && m.text().includes('[tavern-core] chat surface')) warnings.push(m.text()); };
  page.on('console', onConsole);
  try {
    const kinds = await page.evaluate(() => {
      const cs = window.__TAURITAVERN__.api.chatSurface;
      const p = cs.registerContentProcessor({ id: 'author/static-late', async prepare(ctx, base) { return base(); } });
      const q = cs.registerParticipant({ id: 'author/static-late-p', protocolVersion: 1, didMount() {} });
      return [typeof p.refresh, typeof q.fault, cs.isManagedOwnershipRequired()];
    });
    assert.deepEqual(kinds, ['function', 'function', false]);
    await page.waitForTimeout(200);
    assert.equal(warnings.length, 1, warnings.join('\n'));
    assert.match(warnings[0], /static mode/);
  } finally {
    page.off('console', onConsole);
  }
});

test('settings panel: version, core loaded, takeover and auto-settle switches, chat-surface mode, README link', async () => {
  const panel = await page.evaluate(() => {
    const root = document.getElementById('tavern_core_settings');
    return root && {
      version: root.querySelector('#tavern_core_version').textContent,
      status: root.querySelector('#tavern_core_status').textContent,
      takeover: root.querySelector('#tavern_core_takeover').checked,
      settle: root.querySelector('#tavern_core_settle_on_abort').checked,
      mode: root.querySelector('#tavern_core_chat_surface').value,
      link: root.querySelector('a').getAttribute('href'),
    };
  });
  assert.ok(panel, 'the panel is in the Extensions drawer');
  assert.equal(panel.version, '0.1.0');
  assert.match(panel.status, /loaded$/);
  assert.equal(panel.takeover, true);
  assert.equal(panel.settle, false, 'the seed\'s rule by default: plugins settle their own handles');
  assert.equal(panel.mode, 'static');
  assert.match(panel.link, /tavern-core\/README\.md$/);
  // The link opens the README's SillyTavern sections, bundled in the folder with the pages they cite.
  const help = await page.evaluate(async (href) => {
    const get = async (u) => { const r = await fetch(new URL(u, location.href)); return { ok: r.ok, text: await r.text() }; };
    const readme = await get(href);
    return { readme, doc: await get(new URL('docs/sillytavern.md', new URL(href, location.href)).href) };
  }, panel.link);
  assert.ok(help.readme.ok && help.readme.text.includes('\n## Use it in SillyTavern\n') && help.readme.text.includes('\n## Writing extensions for tavern-core in SillyTavern\n'));
  assert.ok(help.doc.ok && help.doc.text.startsWith('# tavern-core in SillyTavern'));
});

test('a claimed normal turn streams live and commits with no request to the model (T56–T58)', async () => {
  await seed({ claim: true, chunks: ['Hel', 'lo ', 'from ', 'the ', 'plugin.'], delayMs: 250, failAt: -1 });
  const before = await chatState(page);
  await turn(page, async () => {
    await send(page, 'Hi there');
    // Mid-stream: part of the reply is on screen while the turn is running.
    await page.waitForFunction((full) => {
      const t = document.querySelector('#chat .last_mes .mes_text')?.textContent.trim() ?? '';
      return t.startsWith('Hel') && t !== full && document.body.dataset.generating === 'true';
    }, PLUGIN_REPLY, { timeout: 15000 });
  });
  const chat = await chatState(page);
  assert.equal(chat.length, before.length + 2);
  assert.deepEqual(chat.slice(-2).map((m) => [m.mes, m.is_user]), [['Hi there', true], [PLUGIN_REPLY, false]]);
  assert.equal(await shownText(page), PLUGIN_REPLY);
  assert.equal(mock.completions.length, 0, 'the model was never asked');
  const events = await takeEvents();
  const id = chat.length - 1;
  // What a streamed model reply emits while it streams: tokens, each a new
  // text, none empty; no MESSAGE_UPDATED (SillyTavern's own listeners take
  // it for a user's edit: Translate would translate again per token).
  assert.ok(!events.some((e) => e[0] === 'MESSAGE_UPDATED'), JSON.stringify(events));
  const tokens = events.filter((e) => e[0] === 'STREAM_TOKEN_RECEIVED').map((e) => e[1]);
  assert.ok(tokens.length >= 2 && tokens.every((t, i) => t !== '' && t !== tokens[i - 1]), JSON.stringify(tokens));
  assert.equal(tokens.at(-1), PLUGIN_REPLY);
  const tail = events.filter((e) => e[0] === 'MESSAGE_RECEIVED' || e[0] === 'CHARACTER_MESSAGE_RENDERED');
  assert.deepEqual(tail.slice(-2), [['MESSAGE_RECEIVED', id, 'normal'], ['CHARACTER_MESSAGE_RENDERED', id, 'normal']]);
  assert.equal((await savedUntil((c) => c.at(-1)?.mes === PLUGIN_REPLY)).at(-1).mes, PLUGIN_REPLY, 'persisted with saveChat');
  // What a streamed model reply records: the time to its first token (the
  // first chunk came ~250 ms after the placeholder).
  const ttft = st.readChat().at(-1).extra?.time_to_first_token;
  assert.ok(typeof ttft === 'number' && ttft >= 200 && ttft < 5000, `time_to_first_token ${ttft}`);
  const payload = await page.evaluate(() => globalThis.__seedPlugin.dispatches.at(-1));
  assert.deepEqual(payload, {
    type: 'normal', isContinue: false,
    keys: ['type', 'isContinue', 'forceName2', 'isStreamingEnabled', 'finalPrompt', 'generateData', 'takeoverHandle', 'abortSignal'],
  });
});

test('the reply\'s generation timer covers the whole takeover, as a streamed reply\'s does', async () => {
  // The previous turn streamed 5 chunks 250 ms apart: at least a second
  // passed between the placeholder and the commit.
  const m = await page.evaluate(() => {
    const last = globalThis.SillyTavern.getContext().chat.at(-1);
    const el = document.querySelector('#chat .last_mes .mes_timer');
    return { started: new Date(last.gen_started).getTime(), finished: new Date(last.gen_finished).getTime(), timer: el?.textContent ?? null, title: el?.title ?? '' };
  });
  const seconds = (m.finished - m.started) / 1000;
  assert.ok(seconds >= 1, `gen_finished moved with the writes (${seconds} s)`);
  assert.equal(m.timer, `${seconds.toFixed(1)}s`, 'the header shows that time');
  assert.match(m.title, /Time to generate: /);
  // The time to the first token is in the title too, as formatGenerationTimer writes it.
  const ttft = st.readChat().at(-1).extra.time_to_first_token;
  assert.ok(m.title.split('\n').includes(`Time to first token: ${ttft / 1000} seconds`), m.title);
  const saved = st.readChat().at(-1);
  assert.equal(new Date(saved.gen_finished).getTime(), m.finished, 'and the chat file holds it');
  assert.equal(new Date(saved.swipe_info[saved.swipe_id].gen_finished).getTime(), m.finished, 'so does the swipe');
});

test('Stop keeps the partial as an aborted turn: shown, not saved, no MESSAGE_RECEIVED (T59)', async () => {
  await seed({ chunks: Array.from({ length: 40 }, (_, i) => `w${i} `), delayMs: 150 });
  const saved = st.readChat().length;
  await turn(page, async () => {
    await send(page, 'Tell me a long story');
    await page.waitForFunction(() => (document.querySelector('#chat .last_mes .mes_text')?.textContent ?? '').includes('w2'), null, { timeout: 15000 });
    await page.click('#mes_stop');
  });
  const chat = await chatState(page);
  const partial = chat.at(-1).mes;
  assert.match(partial, /^w0 w1 w2/);
  assert.ok(!partial.includes('w39'), 'stopped before the end');
  assert.equal(await shownText(page), partial.trim());
  // The placeholder hid the swipe counter; a stopped stream's shows again.
  assert.deepEqual(await page.evaluate(() => {
    const c = document.querySelector('#chat .last_mes .swipes-counter');
    return c && { hidden: c.hidden, text: c.textContent.replace(/\u200b/g, '').trim() }; // (formatSwipeCounter's zero-width spaces)
  }), { hidden: false, text: '1/1' });
  const events = names(await takeEvents());
  assert.ok(!events.includes('MESSAGE_RECEIVED'), 'the finalize pipeline is skipped');
  await savedUntil((c) => c.at(-1)?.mes === 'Tell me a long story');
  await page.waitForTimeout(300); // (and nothing after it)
  const file = st.readChat();
  assert.equal(file.length, saved + 1, 'only the user message was saved');
  assert.equal(file.at(-1).mes, 'Tell me a long story');
  assert.equal(mock.completions.length, 0);
});

test('the aborted partial stays in chat[] and a later save persists it (T59); SillyTavern saves its own stopped stream at once', async () => {
  const partial = (await chatState(page)).at(-1).mes;
  await page.evaluate(() => globalThis.SillyTavern.getContext().saveChat());
  assert.equal(st.readChat().at(-1).mes, partial);
  // SillyTavern's own path: a streamed reply stopped midway is finalized and saved.
  await seed({ claim: false });
  mock.setReply({ chunks: Array.from({ length: 40 }, (_, i) => `m${i} `), delayMs: 150 });
  await turn(page, async () => {
    await send(page, 'Model, tell me a long story');
    await page.waitForFunction(() => (document.querySelector('#chat .last_mes .mes_text')?.textContent ?? '').includes('m2'), null, { timeout: 15000 });
    await page.click('#mes_stop');
  });
  await page.waitForFunction(() => !globalThis.SillyTavern.getContext().chat.at(-1).is_user);
  const stopped = (await chatState(page)).at(-1).mes;
  assert.match(stopped, /^m0 m1 m2/);
  assert.equal((await savedUntil((c) => c.at(-1)?.mes === stopped)).at(-1).mes, stopped, 'SillyTavern saved its stopped stream by itself');
  assert.ok(names(await takeEvents()).includes('MESSAGE_RECEIVED'), 'and finalized it');
  mock.setReply({ chunks: ['Mock ', 'reply ', 'from ', 'the ', 'model.'], delayMs: 20 });
  await seed({ claim: true });
  mock.completions.length = 0;
});

test('regenerate is claimed and committed in place of the last reply, as a new message', async () => {
  await seed({ chunks: [' Again.'], delayMs: 30 });
  // The reply being regenerated has another swipe and old times: SillyTavern's
  // own regenerate makes a new message (one swipe, its own times).
  await page.evaluate(() => {
    const m = globalThis.SillyTavern.getContext().chat.at(-1);
    m.swipes = [m.mes, 'an older alternative'];
    m.swipe_id = 0;
    m.gen_started = new Date(Date.now() - 3_600_000);
  });
  const before = await chatState(page);
  const previous = before.at(-1).mes;
  const n = await dispatches();
  const regenAt = Date.now();
  await turn(page, () => chooseOption(page, 'option_regenerate'));
  assert.equal(await dispatches(), n + 1);
  const chat = await chatState(page);
  assert.equal(chat.length, before.length, 'the reply was replaced, not added');
  assert.deepEqual(chat.at(-1).swipes, [chat.at(-1).mes], 'one swipe: the other swipes went with the old reply');
  const started = await page.evaluate(() => new Date(globalThis.SillyTavern.getContext().chat.at(-1).gen_started).getTime());
  assert.ok(started >= regenAt - 1000, `gen_started is the regenerate's (${started - regenAt} ms)`);
  // The seed's plugin starts from the slot's text (its resolveOriginals).
  assert.ok(chat.at(-1).mes.startsWith(previous.trim()) && chat.at(-1).mes.endsWith('Again.'), chat.at(-1).mes);
  assert.equal(await page.evaluate(() => globalThis.__seedPlugin.dispatches.at(-1).type), 'regenerate');
  assert.equal((await savedUntil((c) => c.at(-1)?.mes === chat.at(-1).mes)).at(-1).mes, chat.at(-1).mes);
  assert.equal(mock.completions.length, 0);
});

// A reply equal to the one it regenerates (a deterministic or cached plugin)
// still reaches a STREAM_TOKEN_RECEIVED listener once, as a stream's chunks
// would; the commit's cleaned text is otherwise no token.
test('a regenerated reply equal to the old one is announced as one stream token', async () => {
  await seed({ chunks: [], delayMs: 30 });
  const previous = (await chatState(page)).at(-1).mes;
  await takeEvents();
  await turn(page, () => chooseOption(page, 'option_regenerate'));
  assert.equal((await chatState(page)).at(-1).mes, previous);
  const tokens = (await takeEvents()).filter((e) => e[0] === 'STREAM_TOKEN_RECEIVED').map((e) => e[1]);
  assert.deepEqual(tokens, [previous]);
});

test('swipe is claimed: the swipe counter moves and the new swipe is committed', async () => {
  await seed({ chunks: [' Swiped.'], delayMs: 30 });
  const before = (await chatState(page)).at(-1);
  await turn(page, () => swipeRight(page));
  const last = (await chatState(page)).at(-1);
  assert.equal(last.swipes.length, before.swipes.length + 1);
  assert.equal(last.swipe_id, last.swipes.length - 1);
  assert.equal(last.mes, `${before.mes} Swiped.`.trim());
  assert.equal(last.swipes[before.swipe_id], before.mes, 'the old swipe is kept');
  const counter = (await page.textContent('#chat .last_mes .swipes-counter')).replace(/\u200b/g, '');
  assert.equal(counter.trim(), `${last.swipes.length}/${last.swipes.length}`);
  assert.equal(await page.evaluate(() => globalThis.__seedPlugin.dispatches.at(-1).type), 'swipe');
  assert.equal(mock.completions.length, 0);
});

test('continue is claimed and keeps the prefix', async () => {
  await seed({ chunks: [' More.'], delayMs: 30 });
  const before = (await chatState(page)).at(-1).mes;
  await takeEvents();
  await turn(page, () => chooseOption(page, 'option_continue'));
  const after = (await chatState(page)).at(-1).mes;
  assert.ok(after.startsWith(before), 'prefix kept');
  assert.equal(after, `${before} More.`);
  // STREAM_TOKEN_RECEIVED carries the generated text, as SillyTavern's
  // continued stream does: not the text continued.
  const tokens = (await takeEvents()).filter((e) => e[0] === 'STREAM_TOKEN_RECEIVED').map((e) => e[1]);
  assert.ok(tokens.length > 0 && tokens.every((t) => !t.startsWith(before)), JSON.stringify(tokens));
  assert.equal(tokens.at(-1).trim(), 'More.');
  assert.equal(await page.evaluate(() => globalThis.__seedPlugin.dispatches.at(-1).isContinue), true);
  assert.equal((await savedUntil((c) => c.at(-1)?.mes === after)).at(-1).mes, after);
  assert.equal(mock.completions.length, 0);
});

test('a discarded turn restores the chat (T60): normal removes the placeholder, swipe returns to the old swipe', async () => {
  await seed({ chunks: ['a', 'b', 'c', 'd'], delayMs: 40, failAt: 2 });
  const before = await chatState(page);
  await turn(page, () => send(page, 'This one fails'));
  let chat = await chatState(page);
  assert.deepEqual(chat.map((m) => m.mes), [...before.map((m) => m.mes), 'This one fails'], 'the placeholder is gone, the user message stays');
  assert.ok(names(await takeEvents()).includes('GENERATION_STOPPED'));
  // A reply to swipe on, then a swipe that fails.
  await seed({ failAt: -1, chunks: ['Fine.'] });
  await turn(page, () => send(page, 'Try again'));
  const reply = (await chatState(page)).at(-1);
  assert.equal(reply.mes, 'Fine.');
  await seed({ failAt: 1, chunks: ['x', 'y', 'z'] });
  await turn(page, () => swipeRight(page));
  chat = await chatState(page);
  assert.equal(chat.at(-1).mes, 'Fine.');
  assert.deepEqual(chat.at(-1).swipes, reply.swipes);
  assert.equal(chat.at(-1).swipe_id, reply.swipe_id);
  assert.equal(await shownText(page), 'Fine.');
  const counter = (await page.textContent('#chat .last_mes .swipes-counter')).replace(/\u200b/g, '');
  assert.equal(counter.trim(), `${reply.swipes.length}/${reply.swipes.length}`);
  await seed({ failAt: -1 });
});

// A plugin whose backend call cannot be cancelled runs on after Stop (T61
// leaves its turn current: no newer one started). Once the user has made the
// slot theirs, its late writes, save and events must not land on it.
const lateTurn = async (start, then, { delayMs = 150, count = 14 } = {}) => {
  const kept = (await chatState(page)).at(-1);
  await page.waitForTimeout(300);
  const saved = st.readChat().at(-1);
  await seed({ chunks: Array.from({ length: count }, (_, i) => `late${i} `), delayMs, ignoreAbort: true });
  const started = Date.now();
  await start();
  await page.waitForFunction(() => (document.querySelector('#chat .last_mes .mes_text')?.textContent ?? '').includes('late1'), null, { timeout: 15000 });
  await then(kept);
  // The backend's chunks, then the plugin's commit (or its abort, when a
  // write to its handle is refused first).
  await page.waitForTimeout(Math.max(0, started + count * delayMs - Date.now()) + 1200);
  await seed({ ignoreAbort: false });
  return { kept, saved };
};

test('Stop, then swipe back: a plugin that runs on after Stop writes nothing over the reply swiped back to (T61)', async () => {
  await seed({ chunks: ['Saved ', 'reply.'], delayMs: 20 });
  await turn(page, () => send(page, 'Say something worth keeping'));
  const { kept } = await lateTurn(() => swipeRight(page), async (k) => {
    await page.click('#mes_stop');
    await waitIdle(page);
    await page.click('#chat .last_mes .swipe_left');
    await page.waitForFunction((t) => document.querySelector('#chat .last_mes .mes_text')?.textContent.trim() === t, k.mes);
  });
  assert.equal(kept.mes, 'Saved reply.');
  const last = (await chatState(page)).at(-1);
  assert.equal(last.swipe_id, 0);
  assert.equal(last.mes, 'Saved reply.');
  assert.equal(last.swipes[0], 'Saved reply.');
  assert.equal(await shownText(page), 'Saved reply.');
  const file = st.readChat().at(-1);
  assert.equal(file.swipes[0], 'Saved reply.', 'the file keeps the reply');
  assert.ok(file.swipe_id !== 1 || file.mes !== 'Saved reply.');
  assert.ok(await idle(page), 'the UI is the user\'s');
});

test('leaving the chat and coming back mid-turn: the reopened chat is not written (T61)', async () => {
  writeFileSync(join(st.userDir, 'chats', CHARACTER.chatDir, 'elsewhere.jsonl'), chatJsonl([message('Another chat.')]));
  await takeEvents();
  // Chunks far apart: the plugin writes nothing while the other chat is
  // open; back in this one, its messages are new objects, not the turn's.
  await lateTurn(() => send(page, 'Answer slowly'), async () => {
    await openChat(page, 'elsewhere');
    await openChat(page, st.chatName);
  }, { delayMs: 2500, count: 4 });
  const chat = await chatState(page);
  const file = st.readChat();
  assert.deepEqual(chat.map((m) => m.mes), file.map((m) => m.mes), 'the reopened chat is the file');
  assert.ok(chat.every((m) => !m.mes.includes('late2')), 'no late text in it');
  const late = (await takeEvents()).filter((e) => (e[0] === 'MESSAGE_RECEIVED' || e[0] === 'CHARACTER_MESSAGE_RENDERED') && e[1] >= chat.length);
  assert.deepEqual(late, [], 'no event names a message the chat does not have');
  await waitIdle(page);
});

test('with streaming off, a claimed reply is saved and announced as a reply that was not streamed', async () => {
  const toggle = (on) => page.evaluate((v) => { globalThis.$('#stream_toggle').prop('checked', v).trigger('change'); }, on);
  await toggle(false);
  try {
    await seed({ chunks: ['Not ', 'streamed.'], delayMs: 20 });
    await takeEvents();
    await turn(page, () => send(page, 'No streaming, please'));
    const events = names(await takeEvents());
    assert.ok(!events.includes('STREAM_TOKEN_RECEIVED'), events.join(' '));
    assert.ok(events.includes('MESSAGE_RECEIVED'));
    const file = (await savedUntil((c) => c.at(-1)?.mes === 'Not streamed.')).at(-1);
    assert.equal(file.mes, 'Not streamed.');
    assert.equal('time_to_first_token' in (file.extra ?? {}), false, 'no time to first token, as SillyTavern\'s');
    // A bystander that rewrites the reply on MESSAGE_RECEIVED (a translator,
    // a regex script): saveReply announces a reply that was not streamed
    // before drawing it, so the rewrite is what shows; the type is the one
    // saveReply announces (a regenerated reply is 'normal', a continued one
    // 'appendFinal'); and SillyTavern saves after the events.
    await page.evaluate(() => {
      const { eventSource, eventTypes: ev, chat } = globalThis.SillyTavern.getContext();
      globalThis.__rx = (id) => { if (globalThis.__rxOn && !chat[id].is_user) chat[id].mes += ' [rx]'; };
      globalThis.__rxOn = true;
      eventSource.on(ev.MESSAGE_RECEIVED, globalThis.__rx);
    });
    await takeEvents();
    await turn(page, () => chooseOption(page, 'option_regenerate'));
    await page.waitForTimeout(300);
    const rewritten = (await chatState(page)).at(-1).mes;
    assert.match(rewritten, /streamed\. \[rx\]$/);
    assert.equal(await shownText(page), rewritten, 'the rewrite is on screen');
    assert.equal(st.readChat().at(-1).mes, rewritten, 'and on disk');
    const saved = st.readChat().at(-1);
    assert.equal(saved.swipes[saved.swipe_id], rewritten, 'in its swipe too, as saveReply copies it after the events');
    const id = (await chatState(page)).length - 1;
    const got = (await takeEvents()).filter((e) => e[0] === 'MESSAGE_RECEIVED' || e[0] === 'CHARACTER_MESSAGE_RENDERED');
    assert.deepEqual(got, [['MESSAGE_RECEIVED', id, 'normal'], ['CHARACTER_MESSAGE_RENDERED', id, 'normal']]);
    await page.evaluate(() => { globalThis.__rxOn = false; });
    await seed({ chunks: [' More.'], delayMs: 20 });
    await turn(page, () => chooseOption(page, 'option_continue'));
    const cont = (await takeEvents()).filter((e) => e[0] === 'MESSAGE_RECEIVED').map((e) => e[2]);
    assert.deepEqual(cont, ['appendFinal']);
  } finally {
    await page.evaluate(() => {
      const { eventSource, eventTypes: ev } = globalThis.SillyTavern.getContext();
      if (globalThis.__rx) eventSource.removeListener(ev.MESSAGE_RECEIVED, globalThis.__rx);
    });
    await toggle(true);
  }
});

test('a streamed claimed reply rewritten by a MESSAGE_RECEIVED listener is saved as rewritten, as a model\'s reply is', async () => {
  await seed({ chunks: ['Rewrite ', 'me.'], delayMs: 20 });
  await page.evaluate(() => {
    const { eventSource, eventTypes: ev, chat } = globalThis.SillyTavern.getContext();
    globalThis.__rx2 = (id) => { if (!chat[id].is_user) chat[id].mes += ' [rx]'; };
    eventSource.on(ev.MESSAGE_RECEIVED, globalThis.__rx2);
  });
  try {
    await turn(page, () => send(page, 'Rewrite this one'));
    assert.equal((await savedUntil((c) => c.at(-1)?.mes === 'Rewrite me. [rx]')).at(-1).mes, 'Rewrite me. [rx]');
  } finally {
    await page.evaluate(() => {
      const { eventSource, eventTypes: ev } = globalThis.SillyTavern.getContext();
      eventSource.removeListener(ev.MESSAGE_RECEIVED, globalThis.__rx2);
    });
  }
});

test('a declined turn takes SillyTavern\'s normal path and reaches the model exactly once (T55)', async () => {
  await seed({ claim: false });
  const asked = mock.completions.length;
  const n = await dispatches();
  await turn(page, () => send(page, 'Ask the model'));
  await page.waitForFunction(() => globalThis.SillyTavern.getContext().chat.at(-1).mes === 'Mock reply from the model.', null, { timeout: 15000 });
  assert.equal(mock.completions.length, asked + 1);
  assert.equal(await dispatches(), n + 1, 'offered once, declined');
  assert.equal(mock.completions.at(-1).stream, true);
  await seed({ claim: true });
});

test('quiet and impersonate runs are never offered; dry runs are not either (T48)', async () => {
  const n = await dispatches();
  const asked = mock.completions.length;
  await page.evaluate(() => globalThis.SillyTavern.getContext().generateQuietPrompt({ quietPrompt: 'Say something quietly' }));
  await turn(page, () => chooseOption(page, 'option_impersonate'));
  await page.waitForFunction(() => document.querySelector('#send_textarea').value.length > 0, null, { timeout: 15000 });
  await page.fill('#send_textarea', '');
  assert.equal(await dispatches(), n, 'no dispatch for quiet, impersonate or the dry runs after them');
  assert.equal(mock.completions.length, asked + 2);
});

// A quiet run (an extension's generateQuietPrompt, as Summarize does) that
// ends while a claimed turn streams: SillyTavern unblocks its UI unless one
// of its own streams runs, and the interceptor of the quiet run took the
// Stop button's reach from the claimed turn. Send came back mid-stream and
// Stop did nothing.
test('a quiet run ending while a claimed turn streams leaves the UI locked, and Stop still stops the turn (T59, T61)', async () => {
  await seed({ chunks: Array.from({ length: 40 }, (_, i) => `q${i} `), delayMs: 150 });
  const asked = mock.completions.length;
  await turn(page, async () => {
    await send(page, 'A long one, please');
    await page.waitForFunction(() => (document.querySelector('#chat .last_mes .mes_text')?.textContent ?? '').includes('q1'), null, { timeout: 15000 });
    await page.evaluate(() => globalThis.SillyTavern.getContext().generateQuietPrompt({ quietPrompt: 'Summarize quietly' }));
    await page.waitForTimeout(200);
    assert.equal(await idle(page), false, 'still generating: Stop shown, Send hidden');
    assert.ok(!(await chatState(page)).at(-1).mes.includes('q39'));
    await page.click('#mes_stop');
  });
  assert.equal(mock.completions.length, asked + 1, 'the quiet run reached the model');
  const partial = (await chatState(page)).at(-1).mes;
  assert.match(partial, /^q0 q1/);
  await page.waitForTimeout(1500);
  assert.ok(!(await chatState(page)).at(-1).mes.includes('q39'), 'Stop aborted the turn');
  await page.evaluate(() => globalThis.SillyTavern.getContext().saveChat()); // (the aborted partial, saved as the next turn would)
  await seed({ chunks: ['x', 'y', 'z'], delayMs: 40 }); // (as the turns before left it)
});

const luker = (patch) => page.evaluate((p) => Object.assign(globalThis.__lukerPlugin, p), patch);
const lukerRun = () => page.evaluate(() => {
  const r = globalThis.__lukerPlugin.runs.at(-1);
  return r && { type: r.type, status: r.outcome?.status ?? null, chunks: r.chunks, error: r.error ? String(r.error.name ?? r.error) : null };
});
const setSwitch = (id, on) => page.evaluate(({ id, on }) => {
  const box = document.getElementById(id);
  box.checked = on;
  box.dispatchEvent(new Event('input'));
}, { id, on });

/** Sends text, presses Stop once two reply chunks are on screen, returns the settled run. */
async function stopLukerMidReply(text) {
  await turn(page, async () => {
    const n = await page.evaluate(() => globalThis.__lukerPlugin.runs.length);
    await send(page, text);
    await page.waitForFunction((k) => {
      const runs = globalThis.__lukerPlugin.runs;
      return runs.length > k && runs.at(-1).chunks >= 2
        && (document.querySelector('#chat .last_mes .mes_text')?.textContent ?? '').startsWith('The sky');
    }, n, { timeout: 20000 });
    await page.click('#mes_stop');
  });
  await page.waitForFunction(() => globalThis.__lukerPlugin.runs.at(-1).outcome !== null, null, { timeout: 10000 });
  return lukerRun();
}

test('the Luker-style plugin runs unchanged: reasoning sections, appendText, an oldString/newString patch', async () => {
  await luker({ claim: true, orchestrator: false, failAt: -1 });
  const asked = mock.completions.length;
  await turn(page, () => send(page, 'Luker, describe the sky'));
  const last = (await chatState(page)).at(-1);
  assert.equal(last.mes, FIXED);
  assert.equal(last.reasoning, `### [${PLANNER}] (done)\nLook at the sky.\n\n### [${CRITIC}] (done)\nCheck spelling.`);
  // As a model's reasoning: typed, and timed from its start to the text's.
  const extra = await page.evaluate(() => globalThis.SillyTavern.getContext().chat.at(-1).extra);
  assert.equal(extra.reasoning_type, 'model');
  assert.ok(typeof extra.reasoning_duration === 'number' && extra.reasoning_duration >= 0, `reasoning_duration ${extra.reasoning_duration}`);
  assert.deepEqual(await lukerRun(), { type: 'normal', status: 'committed', chunks: 7, error: null });
  assert.equal(await shownText(page), FIXED);
  assert.equal(mock.completions.length, asked);
  assert.equal((await savedUntil((c) => c.at(-1)?.mes === FIXED)).at(-1).mes, FIXED);
});

// The handle of a regenerate starts from the old reply (its originals): the
// first writes carry that reply and its reasoning, which are not the
// plugin's first token. They were taken for it: the thinking time was 0 and
// the header said "Thought for some time".
test('the Luker-style plugin regenerates: the reasoning is timed from the plugin\'s own, not the old reply\'s', async () => {
  await luker({ claim: true, orchestrator: false, failAt: -1 });
  await takeEvents();
  await turn(page, () => chooseOption(page, 'option_regenerate'));
  const extra = await page.evaluate(() => globalThis.SillyTavern.getContext().chat.at(-1).extra);
  // As SillyTavern's reasoning handler: once, when the text begins.
  const done = (await takeEvents()).filter((e) => e[0] === 'STREAM_REASONING_DONE');
  assert.equal(done.length, 1, JSON.stringify(done));
  assert.equal(done[0][1], extra.reasoning);
  assert.equal(done[0][2], extra.reasoning_duration);
  assert.equal(extra.reasoning_type, 'model');
  assert.ok(typeof extra.reasoning_duration === 'number' && extra.reasoning_duration > 0, `reasoning_duration ${extra.reasoning_duration}`);
  assert.ok(typeof extra.time_to_first_token === 'number' && extra.time_to_first_token > 0, `time_to_first_token ${extra.time_to_first_token}`);
  assert.deepEqual(await lukerRun(), { type: 'regenerate', status: 'committed', chunks: 7, error: null });
  // A plugin that builds on the originals (no setText('') first): its first
  // writes are the old reply's text and reasoning, not its first token.
  await luker({ keepOriginals: true });
  await turn(page, () => chooseOption(page, 'option_regenerate'));
  const kept = await page.evaluate(() => globalThis.SillyTavern.getContext().chat.at(-1).extra);
  assert.ok(kept.reasoning_duration > 0 && kept.time_to_first_token > 0, JSON.stringify(kept));
  await luker({ keepOriginals: false });
});

// SillyTavern's reasoning handler times a reply stopped while it reasons to
// the stop; the takeover left reasoning_duration null ("Thinking...").
test('the Luker-style plugin stopped while it reasons: the reasoning is timed to the stop', async () => {
  await luker({ claim: true, orchestrator: false, failAt: -1, delayMs: 300 });
  await turn(page, async () => {
    await send(page, 'Luker, think for a while');
    await page.waitForFunction(() => (globalThis.SillyTavern.getContext().chat.at(-1).extra?.reasoning ?? '').includes('Look'), null, { timeout: 20000 });
    await page.click('#mes_stop');
  });
  await page.waitForFunction(() => globalThis.__lukerPlugin.runs.at(-1).outcome !== null, null, { timeout: 10000 });
  const last = await page.evaluate(() => { const m = globalThis.SillyTavern.getContext().chat.at(-1); return { mes: m.mes, extra: m.extra }; });
  assert.equal(last.mes, '');
  assert.ok(last.extra.reasoning_duration > 0, `reasoning_duration ${last.extra.reasoning_duration}`);
  assert.equal((await lukerRun()).status, 'aborted');
  await luker({ delayMs: 40 });
  await page.evaluate(() => globalThis.SillyTavern.getContext().saveChat()); // (the aborted partial, saved as the next turn would)
});

test('the Luker-style plugin: Stop keeps the partial (its backend honours the signal)', async () => {
  await luker({ delayMs: 300 });
  const run = await stopLukerMidReply('Luker, again');
  assert.equal(run.status, 'aborted');
  assert.ok(run.chunks >= 2 && run.chunks < 7, `partial: ${run.chunks} chunks`);
  assert.match((await chatState(page)).at(-1).mes, /^The sky/);
});

test('Luker\'s orchestrator relies on auto-settle: with the panel switch on, Stop settles its handle', async () => {
  await setSwitch('tavern_core_settle_on_abort', true);
  await luker({ orchestrator: true, delayMs: 300 });
  const run = await stopLukerMidReply('Orchestrate');
  assert.equal(run.status, 'aborted', 'settled by the host option, not by the plugin');
  assert.ok(run.chunks >= 2 && run.chunks < 7, `partial: ${run.chunks} chunks`);
  assert.match((await chatState(page)).at(-1).mes, /^The sky/);
  await setSwitch('tavern_core_settle_on_abort', false);
  await luker({ claim: false, orchestrator: false, delayMs: 40 });
});

test('a reload shows the committed chat', async () => {
  const before = (await chatState(page)).map((m) => m.mes);
  await page.waitForTimeout(500);
  await reload();
  await recordEvents();
  const after = (await chatState(page)).map((m) => m.mes);
  assert.deepEqual(after, before.slice(0, after.length));
  assert.ok(after.includes(PLUGIN_REPLY));
  assert.ok(after.includes('Fine.'));
});

for (const mode of ['never', 'throw']) {
  test(`a plugin that ${mode === 'never' ? 'never settles' : 'throws after claiming'} cannot wedge the UI: Stop brings the send button back`, async () => {
    await hostile(mode);
    await turn(page, async () => {
      await send(page, `Hostile ${mode}`);
      await page.waitForFunction(() => (document.querySelector('#chat .last_mes .mes_text')?.textContent ?? '').includes('never finishes'));
      assert.equal(await idle(page), false, 'the turn is running');
      await page.click('#mes_stop');
    });
    await hostile('off');
    await seed({ claim: true, chunks: ['Recovered.'], delayMs: 20, failAt: -1 });
    await turn(page, () => send(page, 'Still there?'));
    assert.equal((await chatState(page)).at(-1).mes, 'Recovered.');
  });
}

// SillyTavern's Stop announces GENERATION_STOPPED itself (stopGeneration);
// a plugin that then discards runs T60's path, whose generation_stopped is
// the same stop: listeners (group auto-mode, /inject's cleanup, the
// reasoning timer) hear it once, as after a model's reply is stopped.
test('Stop, then the plugin discards: the slot is rolled back and GENERATION_STOPPED is heard once (T60)', async () => {
  await hostile('discard-on-stop');
  await takeEvents();
  await turn(page, async () => {
    await send(page, 'Hostile discard');
    await page.waitForFunction(() => (document.querySelector('#chat .last_mes .mes_text')?.textContent ?? '').includes('never finishes'));
    await page.click('#mes_stop');
  });
  await page.waitForFunction(() => globalThis.SillyTavern.getContext().chat.at(-1).mes === 'Hostile discard');
  await page.waitForTimeout(300);
  const stopped = names(await takeEvents()).filter((n) => n === 'GENERATION_STOPPED');
  assert.equal(stopped.length, 1, 'one stop, one announcement');
  assert.equal(await shownText(page), 'Hostile discard', 'the placeholder is gone');
  // A discard with no Stop (the plugin gives up by itself) still announces it
  // (T60), and is no Stop of the turn's: the plugin's signal does not abort.
  await hostile('discard-now');
  await turn(page, () => send(page, 'Give up'));
  await page.waitForFunction(() => globalThis.__hostilePlugin.signalAfterDiscard !== undefined);
  assert.equal(await page.evaluate(() => globalThis.__hostilePlugin.signalAfterDiscard), false, 'no Stop was pressed');
  assert.equal((await chatState(page)).at(-1).mes, 'Give up');
  assert.equal(names(await takeEvents()).filter((n) => n === 'GENERATION_STOPPED').length, 1);
  await hostile('off');
  await seed({ claim: true, chunks: ['a', 'b'], delayMs: 20, failAt: 1 });
  await turn(page, () => send(page, 'Fail midway'));
  await page.waitForFunction(() => globalThis.SillyTavern.getContext().chat.at(-1).mes === 'Fail midway');
  assert.equal(names(await takeEvents()).filter((n) => n === 'GENERATION_STOPPED').length, 1);
  await seed({ failAt: -1 });
});

// Stop pressed while a dispatch listener is still deciding: SillyTavern
// makes no reply after such a Stop, and a claim that comes after it must not
// make one either (T61: the stopped turn is never current, so no placeholder).
test('a claim that comes after Stop makes no reply: no placeholder, nothing saved, the UI back', async () => {
  await hostile('slow-claim');
  await page.evaluate(() => { globalThis.__hostilePlugin.slowMs = 1500; });
  const asked = mock.completions.length;
  await takeEvents();
  await turn(page, async () => {
    await send(page, 'Slow decision');
    await page.waitForFunction(() => globalThis.SillyTavern.getContext().chat.at(-1)?.mes === 'Slow decision');
    await page.waitForTimeout(300);
    await page.click('#mes_stop');
  });
  await page.waitForFunction(() => globalThis.__hostilePlugin.handles.at(-1)?.isSettled?.() === true, null, { timeout: 10000 });
  await page.waitForTimeout(500);
  const chat = await chatState(page);
  assert.equal(chat.at(-1).mes, 'Slow decision', 'no reply after the user message');
  assert.equal(await shownText(page), 'Slow decision');
  assert.equal(st.readChat().at(-1).mes, 'Slow decision');
  assert.ok(!names(await takeEvents()).includes('MESSAGE_DELETED'), 'no placeholder made and removed');
  assert.equal(mock.completions.length, asked, 'the model was not asked either');
  assert.equal(await idle(page), true);
  await hostile('off');
});

test('a plugin that throws before claiming leaves the turn to the model', async () => {
  await hostile('throw-before');
  await seed({ claim: false });
  const asked = mock.completions.length;
  await turn(page, () => send(page, 'Throwing listener'));
  await page.waitForFunction(() => globalThis.SillyTavern.getContext().chat.at(-1).mes === 'Mock reply from the model.', null, { timeout: 15000 });
  assert.equal(mock.completions.length, asked + 1);
  await hostile('off');
  await seed({ claim: true });
});

test('the takeover toggle in the panel turns takeover off and on', async () => {
  const asked = mock.completions.length;
  const n = await dispatches();
  await setSwitch('tavern_core_takeover', false);
  await turn(page, () => send(page, 'Takeover is off'));
  await page.waitForFunction(() => globalThis.SillyTavern.getContext().chat.at(-1).mes === 'Mock reply from the model.', null, { timeout: 15000 });
  assert.equal(await dispatches(), n, 'not offered');
  assert.equal(mock.completions.length, asked + 1);
  await setSwitch('tavern_core_takeover', true);
});

// A group chat: SillyTavern's generateGroupWrapper calls Generate() once per
// activated member (list order here), and each member's turn reaches the
// interceptor as a normal turn (docs/sillytavern.md). A claimed member reply
// must carry the member's identity exactly as a model-made one does, show
// under the member's name, and land in the group's chat file.
const GROUP_CHAT = 'tavern-core group';
const groupMessages = () => page.evaluate(() => globalThis.SillyTavern.getContext().chat.map((m) => ({
  name: m.name, is_user: !!m.is_user, mes: m.mes, original_avatar: m.original_avatar ?? null, force_avatar: m.force_avatar ?? null,
})));
const identity = ({ name, is_user, original_avatar, force_avatar }) => ({ name, is_user, original_avatar, force_avatar });
const shownNames = () => page.evaluate(() => [...document.querySelectorAll('#chat .mes')].map((el) => [Number(el.getAttribute('mesid')), el.querySelector('.name_text')?.textContent.trim()]));

// The turn's saves (persist, and afterCommit's after the events) save only
// the chat the reply is in. SillyTavern's saveChatConditional saves whatever
// chat is open after its 100 ms wait: a chat opened meanwhile and still
// loading was saved empty, over its own file.
test('a chat opened as a claimed reply finishes keeps its messages: the turn saves only its own chat', async () => {
  const other = 'slow to load';
  writeFileSync(join(st.userDir, 'chats', CHARACTER.chatDir, `${other}.jsonl`),
    chatJsonl([message('Slow first.'), message('Slow question', { user: true }), message('Slow answer.')]));
  await seed({ claim: true, chunks: ['Switch ', 'now.'], delayMs: 20, failAt: -1 });
  await page.route('**/api/chats/get', async (route) => { await new Promise((r) => setTimeout(r, 400)); await route.continue(); });
  try {
    await page.evaluate((to) => {
      const ctx = globalThis.SillyTavern.getContext();
      const leave = () => {
        ctx.eventSource.removeListener(ctx.eventTypes.CHARACTER_MESSAGE_RENDERED, leave);
        setTimeout(() => ctx.openCharacterChat(to), 0);
      };
      ctx.eventSource.on(ctx.eventTypes.CHARACTER_MESSAGE_RENDERED, leave);
    }, other);
    await send(page, 'Reply, then I leave');
    await page.waitForFunction((to) => globalThis.SillyTavern.getContext().getCurrentChatId() === to
      && globalThis.SillyTavern.getContext().chat.length > 0, other, { timeout: 30000 });
    await waitIdle(page);
    const kept = ['Slow first.', 'Slow question', 'Slow answer.'];
    assert.deepEqual((await savedUntil((c) => JSON.stringify(c.map((m) => m.mes)) === JSON.stringify(kept), other)).map((m) => m.mes), kept, 'the other chat keeps its messages');
    assert.equal((await savedUntil((c) => c.at(-1)?.mes === 'Switch now.')).at(-1).mes, 'Switch now.', 'the reply is saved in its own chat');
    await page.waitForTimeout(1000); // (and neither changes after)
    assert.deepEqual(st.readChat(other).map((m) => m.mes), kept);
    assert.equal(st.readChat().at(-1).mes, 'Switch now.');
  } finally {
    await page.unroute('**/api/chats/get');
    await openChat(page, st.chatName);
  }
});

test('a group chat: each member\'s turn is offered, a claimed reply carries the member\'s identity as a model-made one does, shows under its name and is saved in the group chat', async () => {
  await seed({ claim: false });
  const group = await openGroupChat(page, GROUP_CHAT);
  const members = [['Seraphina', 'default_Seraphina.png'], ['Bram', group.avatar]];
  // A group's turn is over when SillyTavern's group wrapper finishes, not
  // when the send button is back: every member's generation shows it again
  // between members, and a send before the wrapper ends is dropped by
  // SillyTavern itself (it is still group-generating). So each send is
  // preceded by a listener for GROUP_WRAPPER_FINISHED. On a timeout the
  // error says where the chat and the UI stood.
  const expectGroupTurn = () => page.evaluate(() => {
    const c = globalThis.SillyTavern.getContext();
    globalThis.__groupTurnDone = false;
    c.eventSource.once(c.eventTypes.GROUP_WRAPPER_FINISHED, () => { globalThis.__groupTurnDone = true; });
  });
  const wait = (n) => page.waitForFunction((k) => globalThis.__groupTurnDone === true && globalThis.SillyTavern.getContext().chat.length >= k
    && document.body.dataset.generating !== 'true', n, { timeout: 30000 })
    .catch(async (e) => {
      const state = await page.evaluate(() => {
        const c = globalThis.SillyTavern.getContext();
        return { groupTurnDone: globalThis.__groupTurnDone, generating: document.body.dataset.generating, length: c.chat.length,
          tail: c.chat.slice(-4).map((m) => [m.name, m.is_user, m.mes]), dispatches: globalThis.__seedPlugin.dispatches.length };
      }).catch((x) => String(x));
      throw new Error(`${e.message}: waiting for ${n} messages; ${JSON.stringify(state)}`);
    });
  // The model answers for both members: what SillyTavern itself writes.
  const base = (await groupMessages()).length;
  let asked = mock.completions.length;
  let n = await dispatches();
  await expectGroupTurn();
  await send(page, 'Hello, table');
  await wait(base + 3);
  await waitIdle(page);
  const byModel = (await groupMessages()).slice(base);
  assert.deepEqual(byModel.map((m) => [m.name, m.is_user, m.mes]), [
    ['User', true, 'Hello, table'], ['Seraphina', false, 'Mock reply from the model.'], ['Bram', false, 'Mock reply from the model.'],
  ]);
  assert.equal(mock.completions.length, asked + 2);
  assert.equal(await dispatches(), n + 2, 'each member\'s turn was offered');
  // The plugin claims both members' turns.
  await seed({ claim: true, chunks: ['Hello ', 'from ', 'the ', 'plugin.'], delayMs: 20, failAt: -1 });
  asked = mock.completions.length;
  n = await dispatches();
  await expectGroupTurn();
  await send(page, 'Again, table');
  await wait(base + 6);
  await waitIdle(page);
  const byPlugin = (await groupMessages()).slice(base + 3);
  assert.deepEqual(byPlugin.map((m) => [m.name, m.is_user, m.mes]), [
    ['User', true, 'Again, table'], ['Seraphina', false, PLUGIN_REPLY], ['Bram', false, PLUGIN_REPLY],
  ]);
  assert.equal(mock.completions.length, asked, 'no request to the model');
  assert.equal(await dispatches(), n + 2);
  for (const i of [1, 2]) {
    assert.deepEqual(identity(byPlugin[i]), identity(byModel[i]), `${members[i - 1][0]}: the same identity fields as SillyTavern's own reply`);
    assert.equal(byPlugin[i].original_avatar, members[i - 1][1]);
  }
  const shown = new Map(await shownNames());
  assert.equal(shown.get(base + 4), 'Seraphina');
  assert.equal(shown.get(base + 5), 'Bram');
  assert.equal(await shownText(page, base + 5), PLUGIN_REPLY);
  // Saved in the group's own chat file.
  await page.waitForTimeout(500);
  const saved = readGroupChat(st, GROUP_CHAT);
  assert.deepEqual(saved.slice(-3).map((m) => [m.name, m.mes, m.original_avatar ?? null]), [
    ['User', 'Again, table', null], ['Seraphina', PLUGIN_REPLY, 'default_Seraphina.png'], ['Bram', PLUGIN_REPLY, group.avatar],
  ]);
});

test('no page errors', () => {
  assert.deepEqual(errors.map((e) => String(e)), []);
});
