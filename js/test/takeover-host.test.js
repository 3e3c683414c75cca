// Dispatch, driver and exposure scenarios (spec/takeover.md §7–9, S62–S101)
// through the public JS API, with the spec's fake host.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createMessageEditorHandle, TakeoverError, GENERATE_TAKEOVER_DISPATCH } from '../message-takeover.js';
import { runTakeover, installTakeoverContext, listUnsettledHandles } from '../takeover-host.js';
import * as ops from '../editor-ops.js';
import { fakeHost, run, P, G } from './helpers.js';

// A listener that claims with a fresh handle and hands it to the test once
// the driver has subscribed (after readSlot returned).
function claimer(state, opts = {}) {
  let resolveHandle;
  const ready = new Promise((r) => { resolveHandle = r; });
  state.listeners.push((payload) => {
    const h = createMessageEditorHandle({ generationType: payload.type, owner: 'p', flushIntervalMs: 0, ...opts });
    payload.takeoverHandle = h;
    resolveHandle(h);
  });
  return ready;
}

const tick = () => new Promise((r) => setTimeout(r, 0));

// A turn of `type` that a listener claims: resolves once the driver has
// subscribed (readSlot returned), with the run's promise and the handle.
async function claimedRun(state, type, opts) {
  const ready = claimer(state, opts);
  const p = run(state, type);
  const h = await ready;
  await tick();
  return { p, h };
}

test('S84 T56 T57 T58: the committed path in order', async () => {
  const s = fakeHost();
  const { p, h } = await claimedRun(s, 'normal');
  h.setText('  x  ');
  h.setReasoning('r');
  await h.commit();
  const res = await p;
  assert.deepEqual(s.log, [
    ['acquirePlaceholder', 'normal'], ['readSlot', 1], ['writeSlot', 1, '  x  ', ''], ['redraw', 1],
    ['writeSlot', 1, '  x  ', 'r'], ['redraw', 1], ['writeSlot', 1, '  x  ', 'r'], ['redraw', 1],
    ['cleanupText', '  x  ', { type: 'normal', isContinue: false }], ['writeSlot', 1, 'x', 'r'], ['redraw', 1],
    ['persist', 1, { type: 'normal' }], ['emit', 'message_received', 1, 'normal'],
    ['emit', 'character_message_rendered', 1, 'normal'], ['afterCommit', 1, { type: 'normal', text: 'x' }], ['unlockUI'],
  ]);
  assert.deepEqual(res, { dispatched: true, claimed: true, owner: 'p', status: 'committed', slotId: 1, text: 'x', stale: false });
});

test('S85 T41: writes made inside the listener arrive once, after readSlot', async () => {
  const s = fakeHost();
  let h;
  s.listeners.push((payload) => {
    h = createMessageEditorHandle({ generationType: 'normal', owner: 'p', flushIntervalMs: 0 });
    payload.takeoverHandle = h;
    h.setText('early');
    h.setText('earlier');
  });
  const p = run(s, 'normal');
  await tick();
  assert.deepEqual(s.log, [['acquirePlaceholder', 'normal'], ['readSlot', 1], ['writeSlot', 1, 'earlier', ''], ['redraw', 1]]);
  await h.discard();
  await p;
});

test('S86 T58: MESSAGE_RECEIVED waits for persist', async () => {
  let release;
  const s = fakeHost({ persist(id, o) { s.log.push(['persist', id, o]); return new Promise((r) => { release = r; }); } });
  const { p, h } = await claimedRun(s, 'normal');
  await h.commit();
  await tick();
  assert.deepEqual(s.log.at(-1)[0], 'persist');
  release();
  await p;
  assert.deepEqual(s.log.slice(-5).map((e) => e[0] + (e[1] ?? '')),
    ['persist1', 'emitmessage_received', 'emitcharacter_message_rendered', 'afterCommit1', 'unlockUI']);
});

test('S87 T59: abort writes the partial, redraws and unlocks; nothing else', async () => {
  const s = fakeHost();
  const { p, h } = await claimedRun(s, 'normal');
  h.setText('part ');
  h.setReasoning('r');
  const before = s.log.length;
  await h.abort();
  const res = await p;
  assert.deepEqual(s.log.slice(before + 2), [
    ['cleanupText', 'part ', { type: 'normal', isContinue: false }], ['writeSlot', 1, 'part', 'r'], ['redraw', 1], ['unlockUI'],
  ]);
  assert.equal(res.status, 'aborted');
  assert.equal(res.text, 'part');
  // A writeSlot that never settles does not hold redraw or unlock back.
  const s2 = fakeHost();
  let writes = 0;
  s2.host.writeSlot = (...a) => { s2.log.push(['writeSlot', ...a]); writes++; return writes > 0 ? new Promise(() => {}) : undefined; };
  const { p: p2, h: h2 } = await claimedRun(s2, 'normal', { flushIntervalMs: 1000 });
  h2.setText('x');
  await h2.abort();
  await p2;
  assert.deepEqual(s2.log.slice(-3).map((e) => e[0]), ['writeSlot', 'redraw', 'unlockUI']);
});

test('S88 T60: discard of a normal turn removes the slot', async () => {
  const s = fakeHost();
  const { p, h } = await claimedRun(s, 'normal');
  h.setText('x');
  const before = s.log.length;
  await h.discard();
  const res = await p;
  assert.deepEqual(s.log.slice(before), [['removeSlot', 1], ['emit', 'generation_stopped'], ['unlockUI']]);
  assert.equal(res.text, null);
  assert.equal(s.chat.length, 1);
});

test('S89 T60: discard of a continue restores the snapshot, not the originals', async () => {
  const s = fakeHost();
  s.chat.push({ text: 'Hello ', reasoning: 'r0' });
  let h;
  s.listeners.push((payload) => {
    h = createMessageEditorHandle({ generationType: 'continue', originalText: 'Hel', owner: 'p', flushIntervalMs: 0 });
    payload.takeoverHandle = h;
  });
  const p = run(s, 'continue');
  await tick();
  h.setText('Hello world');
  await h.discard();
  await p;
  assert.deepEqual(s.log.slice(-3), [['restoreSlot', 1, 'Hello ', 'r0'], ['emit', 'generation_stopped'], ['unlockUI']]);
});

test('S90 T62: a failing removeSlot is logged; stop and unlock still happen', async (t) => {
  const error = t.mock.method(console, 'error', () => {});
  const err = new Error('nope');
  const s = fakeHost({ removeSlot() { throw err; } });
  const { p, h } = await claimedRun(s, 'normal');
  await h.discard();
  await p;
  assert.deepEqual(error.mock.calls[0].arguments, ['[takeover] removeSlot failed', err]);
  assert.deepEqual(s.log.slice(-2), [['emit', 'generation_stopped'], ['unlockUI']]);
});

test('S91 S92 T61: a stale generation writes nothing and keeps the lock', async () => {
  const s = fakeHost();
  const { p, h } = await claimedRun(s, 'normal');
  s.live = false;
  const before = s.log.length;
  h.setText('z');
  await h.commit();
  const res = await p;
  assert.deepEqual(s.log.slice(before), []);
  assert.deepEqual(res, { dispatched: true, claimed: true, owner: 'p', status: 'committed', slotId: 1, text: null, stale: true });

  const s2 = fakeHost();
  const { p: p2, h: h2 } = await claimedRun(s2, 'normal');
  s2.live = false;
  const before2 = s2.log.length;
  h2.setText('z');
  await h2.abort();
  await p2;
  assert.deepEqual(s2.log.slice(before2), []);
});

test('S93 T61: stale during persist: both emits, no afterCommit, no unlock', async () => {
  const s = fakeHost();
  s.host.persist = (id, o) => { s.log.push(['persist', id, o]); s.live = false; };
  const { p, h } = await claimedRun(s, 'normal');
  await h.commit();
  const res = await p;
  assert.deepEqual(s.log.slice(-3).map((e) => e[0] + (e[1] ?? '')), ['persist1', 'emitmessage_received', 'emitcharacter_message_rendered']);
  assert.equal(res.stale, true);
});

test('S94 T61: stale at claim time: no placeholder; resolves after the plugin settles', async () => {
  const s = fakeHost();
  s.live = false;
  const { p, h } = await claimedRun(s, 'normal');
  await h.commit();
  const res = await p;
  assert.deepEqual(s.log, []);
  assert.equal(res.stale, true);
  assert.equal(res.slotId, null);
});

test('S95 T64 T65: a handle that never settles keeps runTakeover pending; the diagnostic names it', async (t) => {
  t.mock.timers.enable({ apis: ['setTimeout', 'Date'], now: 5000 });
  const s = fakeHost();
  let h;
  s.listeners.push((payload) => {
    h = createMessageEditorHandle({ generationType: 'normal', owner: 'never', flushIntervalMs: 0 });
    payload.takeoverHandle = h;
  });
  let settled = false;
  const p = run(s, 'normal').then(() => { settled = true; });
  for (let i = 0; i < 10; i++) await null;
  t.mock.timers.tick(600000);
  for (let i = 0; i < 10; i++) await null;
  assert.equal(settled, false);
  assert.deepEqual(listUnsettledHandles().filter((r) => r.owner === 'never'), [{ owner: 'never', generationType: 'normal', ageMs: 600000, claimed: true }]);
  await h.discard();
  await p;
});

test('S96 T35 T59: settleOnAbort handles follow the user stop', async () => {
  const s = fakeHost();
  let h;
  s.listeners.push((payload) => {
    h = createMessageEditorHandle({ generationType: 'normal', owner: 'p', abortSignal: payload.abortSignal, settleOnAbort: true });
    payload.takeoverHandle = h;
  });
  const p = run(s, 'normal');
  await tick();
  h.setText('partial');
  s.ac.abort();
  assert.equal((await p).status, 'aborted');
});

test('S97 T58 T62: a throwing cleanupText falls back to finalText', async (t) => {
  const error = t.mock.method(console, 'error', () => {});
  const s = fakeHost({ cleanupText() { throw new Error('regex broke'); } });
  const { p, h } = await claimedRun(s, 'normal');
  h.setText(' raw ');
  await h.commit();
  assert.equal((await p).text, ' raw ');
  assert.equal(error.mock.calls[0].arguments[0], '[takeover] cleanupText failed');
  assert.ok(s.log.some((e) => e[0] === 'writeSlot' && e[2] === ' raw '));
});

test('S98 T54: validation rejects before anything is emitted', async () => {
  const s = fakeHost();
  let emitted = 0;
  s.host.emit = () => { emitted++; };
  delete s.host.writeSlot;
  let e = await run(s, 'normal').catch((x) => x);
  assert.ok(e instanceof TakeoverError);
  assert.equal(e.code, 'invalid_argument');
  assert.equal(e.message, 'runTakeover: host.writeSlot must be a function');
  e = await runTakeover({ type: 'normal', abortSignal: {} }, fakeHost().host).catch((x) => x);
  assert.equal(e.message, 'runTakeover: init.abortSignal must be an AbortSignal');
  e = await runTakeover(null, fakeHost().host).catch((x) => x);
  assert.equal(e.message, 'runTakeover: init must be an object');
  e = await runTakeover({ type: 'normal', abortSignal: new AbortController().signal }, null).catch((x) => x);
  assert.equal(e.message, 'runTakeover: host must be an object');
  e = await runTakeover({ type: 'normal', abortSignal: new AbortController().signal }, { ...fakeHost().host, eventTypes: 'x' }).catch((x) => x);
  assert.equal(e.message, 'runTakeover: host.eventTypes must be an object');
  // "An object" as T10 reads it: a function is not one.
  const signal = new AbortController().signal;
  const counted = () => ({ ...fakeHost().host, emit: () => { emitted++; } });
  e = await runTakeover(Object.assign(() => {}, { type: 'normal', abortSignal: signal }), counted()).catch((x) => x);
  assert.equal(e.message, 'runTakeover: init must be an object');
  e = await runTakeover({ type: 'normal', abortSignal: signal }, Object.assign(() => {}, counted())).catch((x) => x);
  assert.equal(e.message, 'runTakeover: host must be an object');
  e = await runTakeover({ type: 'normal', abortSignal: signal }, { ...counted(), eventTypes: () => {} }).catch((x) => x);
  assert.equal(e.message, 'runTakeover: host.eventTypes must be an object');
  assert.equal(emitted, 0);
});

test('S99 T49 T62: a rejecting emit is logged and the claim stands', async (t) => {
  const error = t.mock.method(console, 'error', () => {});
  const s = fakeHost();
  const ready = claimer(s);
  const inner = s.host.emit;
  s.host.emit = async (ev, ...a) => { await inner(ev, ...a); if (ev === GENERATE_TAKEOVER_DISPATCH) throw new Error('emit broke'); };
  const p = run(s, 'normal');
  const h = await ready;
  await tick();
  await h.commit();
  assert.equal((await p).claimed, true);
  assert.equal(error.mock.calls[0].arguments[0], '[takeover] emit generate_takeover_dispatch failed');
});

test('S100 T56: a type mismatch warns once and routing follows the dispatch type', async (t) => {
  const warn = t.mock.method(console, 'warn', () => {});
  const s = fakeHost();
  s.chat.push({ text: 'prev', reasoning: '' });
  let h;
  s.listeners.push((payload) => {
    h = createMessageEditorHandle({ generationType: 'normal', owner: 'p', flushIntervalMs: 0 });
    payload.takeoverHandle = h;
  });
  const p = run(s, 'continue');
  await tick();
  await h.discard();
  await p;
  assert.deepEqual(warn.mock.calls.map((c) => c.arguments), [['[takeover] handle generationType "normal" differs from dispatch type "continue" (owner=p)']]);
  assert.ok(s.log.some((e) => e[0] === 'restoreSlot'));
});

test('S101 T62: a failed acquirePlaceholder means no slot operations', async (t) => {
  t.mock.method(console, 'error', () => {});
  const s = fakeHost({ acquirePlaceholder() { s.log.push(['acquirePlaceholder']); throw new Error('no'); } });
  const { p, h } = await claimedRun(s, 'normal');
  h.setText('x');
  await h.commit();
  const res = await p;
  assert.deepEqual(s.log, [['acquirePlaceholder'], ['emit', 'generation_stopped'], ['unlockUI']]);
  assert.equal(res.slotId, null);
});

test('S62 S63 T46 T48 T55: what dispatches', async () => {
  assert.equal(GENERATE_TAKEOVER_DISPATCH, 'generate_takeover_dispatch');
  for (const type of ['quiet', 'impersonate', 'weird']) {
    const s = fakeHost();
    let emitted = 0;
    s.host.emit = () => { emitted++; };
    assert.deepEqual(await run(s, type), { dispatched: false, claimed: false });
    assert.equal(emitted, 0);
  }
  const s = fakeHost();
  assert.deepEqual(await run(s, 'normal', { dryRun: true }), { dispatched: false, claimed: false });
});

test('S64 S65 T47: the payload and an unclaimed dispatch', async () => {
  const s = fakeHost();
  let seen;
  s.listeners.push((payload) => { seen = payload; });
  const res = await run(s, 'swipe');
  assert.deepEqual(Object.keys(seen), ['type', 'isContinue', 'forceName2', 'isStreamingEnabled', 'finalPrompt', 'generateData', 'takeoverHandle', 'abortSignal']);
  assert.equal(seen.takeoverHandle, null);
  assert.equal(seen.generateData, G);
  assert.equal(seen.finalPrompt, P);
  assert.equal(seen.abortSignal, s.ac.signal);
  assert.equal(seen.type, 'swipe');
  assert.deepEqual(res, { dispatched: true, claimed: false });
  assert.deepEqual(s.log, []);
});

test('S66 S67 S68 T50 T51 T52: first claimer wins; others are warned', async (t) => {
  const warn = t.mock.method(console, 'warn', () => {});
  const s = fakeHost();
  let hA;
  let hB;
  s.listeners.push((p) => {
    hA = createMessageEditorHandle({ generationType: 'normal', owner: 'A', flushIntervalMs: 0 });
    p.takeoverHandle = hA;
    p.takeoverHandle = hA; // S67: silently ignored
  });
  s.listeners.push((p) => {
    hB = createMessageEditorHandle({ generationType: 'normal', owner: 'B' });
    p.takeoverHandle = hB;
    p.takeoverHandle = {};
    p.takeoverHandle = null;
    p.takeoverHandle = { getText() {}, getReasoning() {}, setText() {}, setReasoning() {} };
    assert.equal(p.takeoverHandle, hA);
  });
  const pr = run(s, 'normal');
  await tick();
  const notHandle = '[takeover] takeoverHandle assignment ignored: value is not a message editor handle';
  assert.deepEqual(warn.mock.calls.map((c) => c.arguments), [
    ['[takeover] takeoverHandle from "B" ignored: already claimed by "A"'], [notHandle], [notHandle], [notHandle],
  ]);
  const rowB = listUnsettledHandles().filter((r) => r.owner === 'B');
  assert.deepEqual(rowB, [{ owner: 'B', generationType: 'normal', ageMs: rowB[0].ageMs, claimed: false }]);
  assert.equal(listUnsettledHandles().find((r) => r.owner === 'A').claimed, true);
  await hA.commit();
  await hB.discard();
  await pr;
});

test('S68: only values that are not handles: unclaimed', async (t) => {
  t.mock.method(console, 'warn', () => {});
  const s = fakeHost();
  s.listeners.push((p) => { p.takeoverHandle = {}; });
  assert.deepEqual(await run(s, 'normal'), { dispatched: true, claimed: false });
});

test('S69 T49 T51: a late awaited claim counts; one after the emit does not', async (t) => {
  const warn = t.mock.method(console, 'warn', () => {});
  const s = fakeHost();
  let h;
  let saved;
  s.listeners.push(async (p) => {
    await new Promise((r) => setTimeout(r, 10));
    h = createMessageEditorHandle({ generationType: 'normal', owner: 'slow', flushIntervalMs: 0 });
    p.takeoverHandle = h;
    saved = p;
  });
  const pr = run(s, 'normal');
  await new Promise((r) => setTimeout(r, 30));
  const late = createMessageEditorHandle({ generationType: 'normal', owner: 'late' });
  saved.takeoverHandle = late;
  assert.deepEqual(warn.mock.calls.at(-1).arguments, ['[takeover] takeoverHandle from "late" ignored: dispatch already closed']);
  await h.commit();
  assert.equal((await pr).owner, 'slow');
  await late.discard();
});

test('S70 S71 T51 T52: a handle that won before is refused; a discarded winner is driven', async (t) => {
  const warn = t.mock.method(console, 'warn', () => {});
  const s = fakeHost();
  const { p, h } = await claimedRun(s, 'normal');
  await h.commit();
  await p;
  const s2 = fakeHost();
  s2.listeners.push((payload) => { payload.takeoverHandle = h; });
  assert.deepEqual(await run(s2, 'normal'), { dispatched: true, claimed: false });
  assert.deepEqual(warn.mock.calls.at(-1).arguments, ['[takeover] takeoverHandle from "p" ignored: handle already claimed by another dispatch']);

  const s3 = fakeHost();
  s3.listeners.push(async (payload) => {
    const d = createMessageEditorHandle({ generationType: 'normal', owner: 'd' });
    await d.discard();
    payload.takeoverHandle = d;
  });
  const res = await run(s3, 'normal');
  assert.equal(res.status, 'discarded');
  assert.deepEqual(s3.log, [['acquirePlaceholder', 'normal'], ['readSlot', 1], ['removeSlot', 1], ['emit', 'generation_stopped'], ['unlockUI']]);
});

test('T53: eventTypes overrides name the emitted events', async () => {
  const s = fakeHost();
  s.host.eventTypes = { MESSAGE_RECEIVED: 'mr', CHARACTER_MESSAGE_RENDERED: 'cmr' };
  const { p, h } = await claimedRun(s, 'normal');
  await h.commit();
  await p;
  assert.deepEqual(s.log.filter((e) => e[0] === 'emit').map((e) => e[1]), ['mr', 'cmr']);
});

test('T63: unlockUI at most once per runTakeover', async () => {
  for (const verb of ['commit', 'abort', 'discard']) {
    const s = fakeHost();
    const { p, h } = await claimedRun(s, 'regenerate');
    await h[verb]();
    await p;
    assert.equal(s.log.filter((e) => e[0] === 'unlockUI').length, 1, verb);
  }
});

test('S72 S73 T69 T70 T71: installTakeoverContext', () => {
  const ctx = { eventTypes: { X: 'x' } };
  assert.equal(installTakeoverContext(ctx), ctx);
  assert.equal(ctx.createMessageEditorHandle, createMessageEditorHandle);
  assert.equal(ctx.TakeoverError, TakeoverError);
  assert.equal(ctx.eventTypes.GENERATE_TAKEOVER_DISPATCH, 'generate_takeover_dispatch');
  assert.equal(ctx.eventTypes.X, 'x');
  const snapshot = { ...ctx, eventTypes: { ...ctx.eventTypes } };
  installTakeoverContext(ctx);
  assert.deepEqual({ ...ctx, eventTypes: { ...ctx.eventTypes } }, snapshot);
  const bare = {};
  installTakeoverContext(bare);
  assert.deepEqual(bare.eventTypes, { GENERATE_TAKEOVER_DISPATCH: 'generate_takeover_dispatch' });
  const e = (() => { try { installTakeoverContext(null); } catch (x) { return x; } })();
  assert.ok(e instanceof TakeoverError);
  assert.equal(e.code, 'invalid_argument');
  assert.equal(e.message, 'installTakeoverContext: context must be an object');
  assert.equal(typeof {}.createMessageEditorHandle, 'undefined');
  // S19: errors are instances of the installed class.
  const err = (() => { try { createMessageEditorHandle({ generationType: 'normal' }).setText(1); } catch (x) { return x; } })();
  assert.ok(err instanceof ctx.TakeoverError);
});

test('T69 T34 T35: installTakeoverContext(ctx, { settleOnAbort: true }) hands out Luker\'s auto-settling handles', async () => {
  const luker = installTakeoverContext({}, { settleOnAbort: true });
  const make = luker.createMessageEditorHandle;
  assert.notEqual(make, createMessageEditorHandle, 'a host-level variant');
  assert.equal(installTakeoverContext({}, { settleOnAbort: true }).createMessageEditorHandle, make, 'one variant per core');
  assert.equal(luker.TakeoverError, TakeoverError);
  assert.equal(luker.eventTypes.GENERATE_TAKEOVER_DISPATCH, 'generate_takeover_dispatch');
  const ac = new AbortController();
  const h = make({ generationType: 'normal', abortSignal: ac.signal, owner: 'luker' });
  h.setText('partial');
  ac.abort();
  assert.equal(h.isSettled(), true, 'settled by the signal, as in Luker');
  assert.deepEqual(await h.complete, { status: 'aborted', finalText: 'partial', finalReasoning: '' });
  assert.equal((await rejectedWith(h.commit())).code, 'editor_aborted');
  // A plugin's explicit false still wins; a pre-aborted signal settles at once.
  const ac2 = new AbortController();
  const keep = make({ generationType: 'normal', abortSignal: ac2.signal, settleOnAbort: false });
  ac2.abort();
  assert.equal(keep.isSettled(), false);
  await keep.discard();
  assert.equal(make({ generationType: 'swipe', abortSignal: ac2.signal }).isSettled(), true);
  // Validation is the exported function's, settleOnAbort included.
  assert.equal(rejectedSync(() => make({ generationType: 'normal', settleOnAbort: 1 })).message, 'opts.settleOnAbort must be a boolean; got number');
  // The default, {} and { settleOnAbort: false } install the exported function; a re-install switches.
  for (const o of [undefined, {}, { settleOnAbort: false }]) {
    assert.equal(installTakeoverContext({}, o).createMessageEditorHandle, createMessageEditorHandle);
  }
  const ctx = installTakeoverContext({}, { settleOnAbort: true });
  installTakeoverContext(ctx);
  assert.equal(ctx.createMessageEditorHandle, createMessageEditorHandle);
  // Bad options are refused before anything is installed.
  for (const [o, msg] of [
    [null, 'installTakeoverContext: options must be an object; got null'],
    [true, 'installTakeoverContext: options must be an object; got true'],
    [{ settleOnAbort: 'yes' }, 'installTakeoverContext: options.settleOnAbort must be a boolean; got string'],
  ]) {
    const bare = {};
    const e = rejectedSync(() => installTakeoverContext(bare, o));
    assert.ok(e instanceof TakeoverError);
    assert.equal(e.code, 'invalid_argument');
    assert.equal(e.message, msg);
    assert.deepEqual(bare, {});
  }
});

const rejectedSync = (fn) => { try { fn(); } catch (e) { return e; } throw new Error('expected a throw'); };
const rejectedWith = (p) => p.then(() => { throw new Error('expected a rejection'); }, (e) => e);

test('S74 T68: usable synchronously after import; editor ops accept the handle', () => {
  const h = createMessageEditorHandle({ generationType: 'normal', flushIntervalMs: 0 });
  ops.appendText(h, 'ok');
  assert.equal(h.getText(), 'ok');
});
