// A Luker-style plugin (js/test/fixtures/luker-style-plugin.js) against the
// demo's SillyTavern-style host: oldString/newString patches, settleOnAbort
// without a signal, reasoning streamed into sections; and Luker's
// orchestrator, which relies on the host's auto-settle option. The seed's
// own example runs against the same host in takeover-seed-plugin.test.js;
// here both plugins share one host, first claimer wins.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createTavernHost } from '../demo/st-host.js';
import * as ops from '../editor-ops.js';
import { listUnsettledHandles } from '../takeover-host.js';
import { installLukerStylePlugin, defaultControl, FIXED, OWNER, PLANNER, CRITIC } from './fixtures/luker-style-plugin.js';

const SECTIONS = `### [${PLANNER}] (done)\nLook at the sky.\n\n### [${CRITIC}] (done)\nCheck spelling.`;

function setup({ control: over = {}, settleOnAbort = false } = {}) {
  const chat = [{ name: 'You', is_user: true, mes: 'hi', extra: {} }];
  const saves = [];
  const tavern = createTavernHost({ chat, save: async (c) => { saves.push(JSON.stringify(c)); }, render: () => {}, settleOnAbort });
  const Luker = { getContext: () => tavern.getContext() };
  const control = installLukerStylePlugin(Luker.getContext, { ops, control: { ...defaultControl(), ...over } });
  return { chat, saves, tavern, control };
}

// Press Stop once the plugin has written `n` reply chunks.
const stopAt = (n) => ({ onChunk(run) { if (run.chunks === n) this.stop(); } });
function withStop(s) {
  s.control.stop = () => s.tavern.stop();
  return s;
}

test('O17 O36 T16: a Luker-style plugin commits a normal turn: sections, streamed reply, oldString/newString fix', async () => {
  const { chat, saves, tavern, control } = setup();
  const res = await tavern.Generate('normal');
  assert.equal(res.status, 'committed');
  assert.equal(res.owner, OWNER);
  assert.equal(chat.at(-1).mes, FIXED);
  assert.equal(chat.at(-1).extra.reasoning, SECTIONS);
  assert.equal(saves.length, 1);
  assert.equal(tavern.locked, false);
  assert.equal(control.runs[0].error, null);
  assert.equal(listUnsettledHandles().filter((r) => r.owner === OWNER).length, 0);
});

test('T25 T60 O36: regenerate and swipe replace, continue keeps prefix and sections', async () => {
  const { chat, tavern } = setup();
  await tavern.Generate('normal');
  const r = await tavern.Generate('regenerate');
  assert.equal(r.status, 'committed');
  assert.equal(chat.at(-1).mes, FIXED);
  assert.equal(chat.at(-1).extra.reasoning, SECTIONS);
  const s = await tavern.Generate('swipe');
  assert.equal(s.status, 'committed');
  assert.equal(chat.at(-1).swipes.length, 2);
  const c = await tavern.Generate('continue');
  assert.equal(c.status, 'committed');
  assert.equal(chat.at(-1).mes, `${FIXED} The sky has a deep color tonight.`);
  // The thinking went into the existing sections.
  assert.equal(chat.at(-1).extra.reasoning,
    `### [${PLANNER}] (done)\nLook at the sky.Look at the sky.\n\n### [${CRITIC}] (done)\nCheck spelling.Check spelling.`);
});

test('T35 T59: Stop keeps the partial unsaved; the plugin aborts (settleOnAbort without a signal settles on nothing)', async () => {
  const { chat, saves, tavern, control } = withStop(setup({ control: stopAt(3) }));
  const res = await tavern.Generate('normal');
  assert.equal(res.status, 'aborted');
  assert.equal(chat.at(-1).mes, 'The sky has', 'the partial, cleaned');
  assert.equal(control.runs[0].chunks, 3);
  assert.equal(control.runs[0].error?.name, 'AbortError');
  assert.equal(saves.length, 0, 'an aborted turn is not persisted');
  assert.equal(chat.length, 2, 'the partial stays in the chat');
  assert.equal(tavern.locked, false);
});

test('T60: a backend failure discards and rolls back', async () => {
  const { chat, saves, tavern } = setup({ control: { failAt: 3 } });
  const res = await tavern.Generate('normal');
  assert.equal(res.status, 'discarded');
  assert.equal(chat.length, 1);
  assert.equal(saves.length, 0);
});

test('T34 T35 T69: Luker\'s orchestrator on a host with settleOnAbort: Stop settles it, streaming stops, nothing commits', async () => {
  const { saves, tavern, control } = withStop(setup({ settleOnAbort: true, control: { orchestrator: true, ...stopAt(3) } }));
  const res = await tavern.Generate('normal');
  assert.equal(res.status, 'aborted');
  const run = control.runs[0];
  assert.equal(run.outcome.status, 'aborted');
  await run.done;
  assert.equal(run.chunks, 3, 'it stopped streaming at the next write');
  assert.equal(run.afterStop, 1);
  assert.equal(saves.length, 0);
  assert.equal(tavern.locked, false);
});

test('T34: the same orchestrator on the default host keeps streaming after Stop and commits (the seed\'s rule)', async () => {
  const { saves, tavern, control } = withStop(setup({ control: { orchestrator: true, ...stopAt(3) } }));
  const res = await tavern.Generate('normal');
  assert.equal(res.status, 'committed');
  assert.equal(control.runs[0].chunks, 7);
  assert.equal(saves.length, 1);
});

test('T16 T69: a plugin\'s own settleOnAbort: false wins over the host\'s default', async () => {
  const { tavern, control } = withStop(setup({ settleOnAbort: true, control: { passSignal: true, settleOnAbort: false, ...stopAt(3) } }));
  let settledAtStop;
  control.onChunk = function (run) { if (run.chunks === 3) { this.stop(); settledAtStop = run.handle.isSettled(); } };
  const res = await tavern.Generate('normal');
  assert.equal(res.status, 'aborted', 'aborted by the plugin itself, not by the handle');
  assert.equal(settledAtStop, false);
  assert.equal(control.runs[0].error?.name, 'AbortError');
});

test('T50 T51: with the seed\'s example listening first, the Luker-style plugin is warned and loses', async (t) => {
  const warn = t.mock.method(console, 'warn', () => {});
  const { chat, tavern, control } = setup();
  // The seed example is registered after the Luker-style plugin here, so
  // the Luker-style plugin claims first; the seed's assignment is refused.
  const ctx = tavern.getContext();
  ctx.eventSource.on(ctx.eventTypes.GENERATE_TAKEOVER_DISPATCH, (eventData) => {
    const handle = ctx.createMessageEditorHandle({ generationType: eventData.type, abortSignal: eventData.abortSignal, owner: 'my-plugin' });
    eventData.takeoverHandle = handle;
    void handle.discard();
  });
  const res = await tavern.Generate('normal');
  assert.equal(res.owner, OWNER);
  assert.equal(res.status, 'committed');
  assert.equal(chat.at(-1).mes, FIXED);
  assert.ok(warn.mock.calls.some((c) => c.arguments[0] === `[takeover] takeoverHandle from "my-plugin" ignored: already claimed by "${OWNER}"`));
  assert.equal(control.runs.length, 1);
});
