// Clause-level audit of spec/takeover.md (T1–T72): each test guards a clause
// that no earlier test would catch if it broke. Every test was seen failing
// on a deliberate break of the behaviour it names.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as takeover from '../message-takeover.js';
import * as hostModule from '../takeover-host.js';
import { createMessageEditorHandle, TakeoverError, GENERATE_TAKEOVER_DISPATCH } from '../message-takeover.js';
import { runTakeover, installTakeoverContext } from '../takeover-host.js';
import { H, recorder, thrown, rejected, fakeHost, run } from './helpers.js';

const tick = () => new Promise((r) => setTimeout(r, 0));
const ARG = 'invalid_argument';
const INTERVAL = 'opts.flushIntervalMs must be a finite number between 0 and 2147483647; got ';

// ---- §3 creating a handle ----

test('T17: validation order between every adjacent pair of options', () => {
  const bad = {
    originalText: [1, 'opts.originalText must be a string; got number'],
    originalReasoning: [2, 'opts.originalReasoning must be a string; got number'],
    abortSignal: [{}, 'opts.abortSignal must be an AbortSignal'],
    flushIntervalMs: [-1, INTERVAL + '-1'],
    owner: [3, 'opts.owner must be a string; got number'],
    settleOnAbort: [4, 'opts.settleOnAbort must be a boolean; got number'],
  };
  const order = Object.keys(bad);
  for (let i = 0; i < order.length; i++) {
    // Every later option is also bad: the earlier one must be reported.
    const o = {};
    for (const k of order.slice(i)) o[k] = bad[k][0];
    const e = thrown(() => H(o));
    assert.equal(e.code, ARG, order[i]);
    assert.equal(e.message, bad[order[i]][1], order[i]);
  }
});

test('T13 T17: an object that passes instanceof AbortSignal but is not one is refused as a look-alike, in T17\'s order', () => {
  for (const sig of [Object.create(AbortSignal.prototype)]) {
    assert.ok(sig instanceof AbortSignal);
    const e = thrown(() => H({ abortSignal: sig }));
    assert.ok(e instanceof TakeoverError);
    assert.equal(e.code, ARG);
    assert.equal(e.message, 'opts.abortSignal must be an AbortSignal');
    // An earlier bad option is still reported first, and a later one after it.
    assert.equal(thrown(() => H({ originalText: 1, abortSignal: sig })).message, 'opts.originalText must be a string; got number');
    assert.equal(thrown(() => H({ abortSignal: sig, owner: 3 })).message, 'opts.abortSignal must be an AbortSignal');
  }
  H({}).discard(); // the next call works
});

test('T11 T14 T15 T16 T12: messages show display(value), JS number formatting included; undefined means the default', () => {
  const gen = 'opts.generationType required, one of normal, regenerate, swipe, continue; got ';
  for (const [v, shown] of [[5, '5'], [null, 'null'], [true, 'true'], [false, 'false'], [1n, 'bigint'], [() => {}, 'function'], [-0.5, '-0.5']]) {
    assert.equal(thrown(() => createMessageEditorHandle({ generationType: v })).message, gen + shown);
  }
  for (const [v, shown] of [[-1e-7, '-1e-7'], [1e21, '1e+21'], [-Infinity, '-Infinity'], [true, 'true'], [undefined, null], [{}, 'object'], ['5', '5'], [10n, 'bigint']]) {
    if (shown === null) continue;
    const e = thrown(() => H({ flushIntervalMs: v }));
    assert.equal(e.code, ARG);
    assert.equal(e.message, INTERVAL + shown);
  }
  assert.equal(thrown(() => H({ owner: null })).message, 'opts.owner must be a string; got object');
  assert.equal(thrown(() => H({ settleOnAbort: null })).message, 'opts.settleOnAbort must be a boolean; got object');
  assert.equal(thrown(() => H({ originalReasoning: false })).message, 'opts.originalReasoning must be a string; got boolean');
  const h = H({ originalText: undefined, originalReasoning: undefined, owner: undefined, settleOnAbort: undefined, abortSignal: undefined });
  assert.equal(h.getText(), '');
  assert.equal(h.getReasoning(), '');
  h.discard();
});

test('T14 T40: an interval of 0 or -0 selects immediate mode; 2147483647 is accepted', (t) => {
  t.mock.timers.enable({ apis: ['setTimeout'] });
  for (const v of [0, -0]) {
    const h = createMessageEditorHandle({ generationType: 'normal', flushIntervalMs: v });
    const cb = recorder();
    h.setOnUpdate(cb);
    h.setText('now');
    assert.deepEqual(cb.calls, [['now', '']], String(v));
    h.discard();
  }
  const big = createMessageEditorHandle({ generationType: 'normal', flushIntervalMs: 2147483647 });
  const cb = recorder();
  big.setOnUpdate(cb);
  big.setText('later');
  assert.equal(cb.calls.length, 0);
  big.discard();
});

// ---- §4 the handle ----

test('T19: every method works detached; complete and abortSignal are read-only', async () => {
  const ac = new AbortController();
  const h = H({ abortSignal: ac.signal });
  const { getText, getReasoning, setText, setReasoning, appendReasoning, isSettled, commit, setOnUpdate } = h;
  const cb = recorder();
  setOnUpdate(cb);
  setText('t');
  setReasoning('r');
  appendReasoning('+');
  assert.equal(getText(), 't');
  assert.equal(getReasoning(), 'r+');
  assert.equal(isSettled(), false);
  await commit();
  assert.equal(isSettled(), true);
  assert.deepEqual(cb.calls, [['t', ''], ['t', 'r'], ['t', 'r+'], ['t', 'r+']]);
  const a = H();
  const { abort } = a;
  await abort();
  assert.equal((await a.complete).status, 'aborted');
  const d = H();
  const { discard } = d;
  await discard();
  assert.equal((await d.complete).status, 'discarded');

  const complete = h.complete;
  try { h.complete = Promise.resolve('x'); } catch { /* a getter-only accessor may throw in strict mode */ }
  try { h.abortSignal = new AbortController().signal; } catch { /* idem */ }
  assert.equal(h.complete, complete);
  assert.equal(h.abortSignal, ac.signal);
});

test('T21 T22 T23 T36: mutators and setOnUpdate return undefined', () => {
  const h = H();
  assert.equal(h.setText('a'), undefined);
  assert.equal(h.setReasoning('b'), undefined);
  assert.equal(h.appendReasoning('c'), undefined);
  assert.equal(h.appendReasoning(''), undefined);
  assert.equal(h.setOnUpdate(() => {}), undefined);
  assert.equal(h.setOnUpdate(null), undefined);
  h.discard();
});

test('T26: \\b \\t \\f \\r use short escapes; U+2029, >, & and DEL stay literal', () => {
  const h = H({ generationType: 'continue', originalText: 'Q' });
  const s = '\b\t\f\r\u2029>&\u007f\u001f';
  const e = thrown(() => h.setText(s));
  assert.equal(e.code, 'invalid_op_for_continue');
  assert.equal(e.message, 'setText in \'continue\' must keep originalText prefix; got "\\b\\t\\f\\r\u2029>&\u007f\\u001f"…');
  assert.equal(e.message, 'setText in \'continue\' must keep originalText prefix; got ' + JSON.stringify(s) + '…');
  // Exactly the first 32 code units are quoted.
  const e2 = thrown(() => h.setText('b'.repeat(40)));
  assert.equal(e2.message, 'setText in \'continue\' must keep originalText prefix; got "' + 'b'.repeat(32) + '"…');
  assert.deepEqual(Object.keys(e2.details), ['originalPrefix']);
});

// ---- §5 terminal states ----

test('T28: a rejected terminal call makes no onUpdate call and changes nothing', async () => {
  for (const first of ['commit', 'abort', 'discard']) {
    const h = H({ flushIntervalMs: 1000 });
    const cb = recorder();
    h.setOnUpdate(cb);
    await h[first]();
    const n = cb.calls.length;
    for (const second of ['commit', 'abort', 'discard']) {
      if (second === first) continue;
      await rejected(h[second]());
      assert.equal(cb.calls.length, n, `${first} then ${second}`);
    }
    assert.equal((await h.complete).status, { commit: 'committed', abort: 'aborted', discard: 'discarded' }[first]);
  }
});

test('T31 T32 T33: settling clears the pending mark: a callback attached later is never called', async (t) => {
  t.mock.timers.enable({ apis: ['setTimeout'] });
  for (const verb of ['commit', 'abort', 'discard']) {
    for (const interval of [0, 1000]) {
      const h = H({ flushIntervalMs: interval });
      h.setText('pending'); // no callback: stays pending
      await h[verb]();
      const cb = recorder();
      h.setOnUpdate(cb);
      t.mock.timers.tick(5000);
      assert.deepEqual(cb.calls, [], `${verb} interval ${interval}`);
    }
  }
});

test('T31: a terminal method called from inside a callback runs its final flush inside that call', () => {
  const h = H();
  const events = [];
  h.setOnUpdate((text) => {
    events.push('cb:' + text);
    if (!h.isSettled()) { h.commit(); events.push('committed'); }
  });
  h.setText('a');
  assert.deepEqual(events, ['cb:a', 'cb:a', 'committed']);
  assert.equal(h.isSettled(), true);
});

test('T35: a settleOnAbort handle registers at most one abort listener', async () => {
  const ac = new AbortController();
  let added = 0;
  const add = ac.signal.addEventListener.bind(ac.signal);
  ac.signal.addEventListener = (...a) => { added++; return add(...a); };
  const h = H({ abortSignal: ac.signal, settleOnAbort: true });
  h.setText('a');
  h.setOnUpdate(() => {});
  h.setText('b');
  assert.ok(added <= 1, `registered ${added} listeners`);
  ac.abort();
  assert.equal((await h.complete).status, 'aborted');
  ac.signal.addEventListener = add;
});

// ---- §6 update delivery ----

test('T37: without a callback a write starts no timer', (t) => {
  let scheduled = 0;
  const saved = globalThis.setTimeout;
  t.after(() => { globalThis.setTimeout = saved; });
  globalThis.setTimeout = (...a) => { scheduled++; return saved(...a); };
  const h = H({ flushIntervalMs: 50 });
  h.setText('a');
  h.setReasoning('b');
  h.appendReasoning('c');
  assert.equal(scheduled, 0);
  const cb = recorder();
  h.setOnUpdate(cb); // attach flush delivers the pending write
  assert.deepEqual(cb.calls, [['a', 'bc']]);
  h.setText('d'); // with a callback, one timer
  h.setText('e');
  assert.equal(scheduled, 1);
  globalThis.setTimeout = saved;
  h.discard();
});

test('T40: an immediate delivery sees the changed buffer and clears the pending mark', () => {
  const h = H();
  const seen = [];
  h.setOnUpdate((text, reasoning) => seen.push([text, reasoning, h.getText(), h.getReasoning()]));
  h.setText('x');
  h.setReasoning('y');
  assert.deepEqual(seen, [['x', '', 'x', ''], ['x', 'y', 'x', 'y']]);
  const cb2 = recorder();
  h.setOnUpdate(cb2);
  assert.equal(cb2.calls.length, 0, 'nothing pending after an immediate delivery');
  h.discard();
});

test('T44: immediate and attach flush warnings name the phase and the owner, with the thrown value', (t) => {
  const warn = t.mock.method(console, 'warn', () => {});
  const err = new Error('cb broke');
  const h = H({ owner: 'audit-44' });
  h.setText('pending');
  h.setOnUpdate(() => { throw err; });
  h.setText('now');
  assert.deepEqual(warn.mock.calls.map((c) => c.arguments), [
    ['[message-takeover] onUpdate threw during attach flush (owner=audit-44)', err],
    ['[message-takeover] onUpdate threw during immediate flush (owner=audit-44)', err],
  ]);
  assert.equal(h.getText(), 'now');
  h.discard();
});

test('T45: immediate re-entrant writes keep being delivered flat, one call after another', () => {
  const h = H();
  const log = [];
  let depth = 0;
  h.setOnUpdate((text) => {
    depth++;
    log.push([text, depth]);
    if (text.length < 4) h.setText(text + '!');
    depth--;
  });
  h.setText('a');
  assert.deepEqual(log, [['a', 1], ['a!', 1], ['a!!', 1], ['a!!!', 1]]);
  h.discard();
});

test('T45 T38: in timed mode a write from inside a callback starts a new window', (t) => {
  t.mock.timers.enable({ apis: ['setTimeout'] });
  const h = H({ flushIntervalMs: 10 });
  const cb = recorder();
  let once = true;
  h.setOnUpdate((a, b) => { cb(a, b); if (once) { once = false; h.setText('second'); } });
  h.setText('first');
  t.mock.timers.tick(10);
  assert.deepEqual(cb.calls, [['first', '']]);
  t.mock.timers.tick(9);
  assert.equal(cb.calls.length, 1);
  t.mock.timers.tick(1);
  assert.deepEqual(cb.calls, [['first', ''], ['second', '']]);
  h.discard();
});

// ---- §9 exposure ----

test('T66 T67 T69: exports; installTakeoverContext refuses every non-object context', () => {
  for (const k of ['createMessageEditorHandle', 'GENERATE_TAKEOVER_DISPATCH', 'TakeoverError']) assert.ok(k in takeover, k);
  for (const k of ['runTakeover', 'installTakeoverContext', 'listUnsettledHandles']) assert.equal(typeof hostModule[k], 'function', k);
  for (const v of [undefined, null, 5, 'ctx', true, Symbol('s'), () => {}]) {
    const e = thrown(() => installTakeoverContext(v));
    assert.ok(e instanceof TakeoverError);
    assert.equal(e.code, ARG);
    assert.equal(e.message, 'installTakeoverContext: context must be an object');
  }
  const et = { X: 'x' };
  const ctx = installTakeoverContext({ eventTypes: et });
  assert.equal(ctx.eventTypes, et, 'an existing eventTypes object is extended, not replaced');
});

// ---- §7–8 dispatch and driver ----

async function claimedRun(state, type, extra = {}, opts = {}) {
  let h;
  state.listeners.push((payload) => {
    h = createMessageEditorHandle({ generationType: type, owner: 'p', flushIntervalMs: 0, ...opts });
    payload.takeoverHandle = h;
  });
  const p = run(state, type, extra);
  await tick();
  await tick();
  return { p, h };
}

const names = (log) => log.map((e) => (e[0] === 'emit' ? `emit ${e[1]}` : e[0]));

test('T48: only dryRun === true suppresses the dispatch', async () => {
  for (const dryRun of [1, 'true', false, null, {}]) {
    const s = fakeHost();
    let emitted = 0;
    s.host.emit = async () => { emitted++; };
    assert.deepEqual(await run(s, 'normal', { dryRun }), { dispatched: true, claimed: false }, String(dryRun));
    assert.equal(emitted, 1);
  }
});

test('T47: payload flags come from init as given; takeoverHandle is an enumerable accessor', async () => {
  const s = fakeHost();
  let seen;
  s.listeners.push((payload) => { seen = payload; });
  await run(s, 'regenerate', { isContinue: 'ic', forceName2: 'fn', isStreamingEnabled: 0 });
  assert.equal(seen.type, 'regenerate');
  assert.equal(seen.isContinue, 'ic');
  assert.equal(seen.forceName2, 'fn');
  assert.equal(seen.isStreamingEnabled, 0);
  const d = Object.getOwnPropertyDescriptor(seen, 'takeoverHandle');
  assert.equal(typeof d.get, 'function');
  assert.equal(typeof d.set, 'function');
  assert.equal(d.enumerable, true);
});

test('T61: every liveness check passes init.generationToken', async () => {
  const token = { gen: 7 };
  const s = fakeHost();
  const { p, h } = await claimedRun(s, 'normal', { generationToken: token });
  h.setText('x');
  await h.commit();
  await p;
  // step 2, one live update, step 8, afterCommit, unlockUI
  assert.ok(s.tokens.length >= 5, `checks: ${s.tokens.length}`);
  assert.ok(s.tokens.every((x) => x === token));
});

test('T58: cleanupText gets init.isContinue as given', async () => {
  const s = fakeHost();
  const { p, h } = await claimedRun(s, 'swipe', { isContinue: 'as-given' });
  h.setText(' t ');
  await h.commit();
  await p;
  assert.deepEqual(s.log.find((e) => e[0] === 'cleanupText'), ['cleanupText', ' t ', { type: 'swipe', isContinue: 'as-given' }]);
});

test('T56 T60: snapshot fields that are not strings become \'\'; rollback uses them', async () => {
  for (const snap of [{ text: 5, reasoning: null }, 7, null, { text: 'kept', reasoning: {} }]) {
    const s = fakeHost({ readSlot(id) { s.log.push(['readSlot', id]); return snap; } });
    s.chat.push({ text: 'prev', reasoning: 'pr' });
    const { p, h } = await claimedRun(s, 'swipe');
    h.setText('changed');
    await h.discard();
    await p;
    const want = snap && typeof snap.text === 'string' ? snap.text : '';
    assert.deepEqual(s.log.find((e) => e[0] === 'restoreSlot'), ['restoreSlot', 1, want, ''], JSON.stringify(snap));
  }
});

test('T56: onClaimed gets the payload and is awaited before the liveness check and acquirePlaceholder', async () => {
  const order = [];
  let release;
  let seen;
  const s = fakeHost({
    onClaimed(payload) { seen = payload; order.push('onClaimed'); return new Promise((r) => { release = r; }); },
    isCurrentGeneration() { order.push('live?'); return true; },
    acquirePlaceholder() { order.push('acquire'); return 0; },
  });
  const { p, h } = await claimedRun(s, 'normal');
  assert.deepEqual(order, ['onClaimed']);
  assert.equal(seen.takeoverHandle, h);
  assert.deepEqual(Object.keys(seen)[0], 'type');
  release();
  await tick();
  assert.deepEqual(order.slice(0, 3), ['onClaimed', 'live?', 'acquire']);
  await h.commit();
  await p;
});

test('T62: a failing persist, emit, afterCommit or onClaimed is logged and the next step runs', async (t) => {
  const error = t.mock.method(console, 'error', () => {});
  const full = ['acquirePlaceholder', 'readSlot', 'writeSlot', 'redraw', 'cleanupText', 'writeSlot', 'redraw', 'persist',
    'emit message_received', 'emit character_message_rendered', 'afterCommit', 'unlockUI'];
  const cases = {
    persist: (err) => ({ persist() { throw err; } }),
    afterCommit: (err) => ({ afterCommit() { return Promise.reject(err); } }),
    onClaimed: (err) => ({ onClaimed() { throw err; } }),
    'emit message_received': (err) => ({}),
  };
  for (const [step, over] of Object.entries(cases)) {
    error.mock.resetCalls();
    const err = new Error(step);
    const s = fakeHost(over(err));
    if (step.startsWith('emit')) {
      const inner = s.host.emit;
      s.host.emit = async (ev, ...a) => { await inner(ev, ...a); if (ev === 'message_received') throw err; };
    }
    const { p, h } = await claimedRun(s, 'normal');
    await h.commit();
    const res = await p;
    assert.deepEqual(error.mock.calls.map((c) => c.arguments), [[`[takeover] ${step} failed`, err]], step);
    const want = full.filter((n) => !(n === step && ['persist', 'afterCommit'].includes(step)));
    assert.deepEqual(names(s.log), want, step);
    assert.equal(res.status, 'committed');
    assert.equal(res.stale, false);
  }
});

test('T62: a failing readSlot, restoreSlot or unlockUI is logged; the run still finishes', async (t) => {
  const error = t.mock.method(console, 'error', () => {});
  // readSlot fails: live updates and the commit path go on.
  let err = new Error('readSlot');
  let s = fakeHost({ readSlot() { throw err; } });
  let { p, h } = await claimedRun(s, 'normal');
  h.setText('x');
  await h.commit();
  await p;
  assert.deepEqual(error.mock.calls.map((c) => c.arguments), [['[takeover] readSlot failed', err]]);
  assert.ok(s.log.some((e) => e[0] === 'writeSlot' && e[2] === 'x'), 'live updates still write');
  assert.deepEqual(names(s.log).slice(-4), ['emit message_received', 'emit character_message_rendered', 'afterCommit', 'unlockUI']);
  // restoreSlot fails: stop and unlock still happen.
  error.mock.resetCalls();
  err = new Error('restoreSlot');
  s = fakeHost({ restoreSlot() { return Promise.reject(err); } });
  s.chat.push({ text: 'prev', reasoning: '' });
  ({ p, h } = await claimedRun(s, 'swipe'));
  await h.discard();
  await p;
  assert.deepEqual(error.mock.calls.map((c) => c.arguments), [['[takeover] restoreSlot failed', err]]);
  assert.deepEqual(names(s.log).slice(-2), ['emit generation_stopped', 'unlockUI']);
  // unlockUI fails: the run resolves with its result.
  error.mock.resetCalls();
  err = new Error('unlockUI');
  s = fakeHost({ unlockUI() { s.log.push(['unlockUI']); throw err; } });
  ({ p, h } = await claimedRun(s, 'normal'));
  h.setText(' y ');
  await h.commit();
  assert.deepEqual(await p, { dispatched: true, claimed: true, owner: 'p', status: 'committed', slotId: 1, text: 'y', stale: false });
  assert.deepEqual(error.mock.calls.map((c) => c.arguments), [['[takeover] unlockUI failed', err]]);
});

test('T57 T62: rejections of unawaited live writeSlot and redraw are logged', async (t) => {
  const error = t.mock.method(console, 'error', () => {});
  const ws = new Error('ws');
  const rd = new Error('rd');
  const s = fakeHost({ writeSlot() { return Promise.reject(ws); }, redraw() { return Promise.reject(rd); } });
  const { p, h } = await claimedRun(s, 'normal');
  error.mock.resetCalls();
  h.setText('x');
  await tick();
  assert.deepEqual(error.mock.calls.map((c) => c.arguments), [['[takeover] writeSlot failed', ws], ['[takeover] redraw failed', rd]]);
  await h.discard();
  await p;
});

test('T53 T61: a host without optional members: no cleanup, liveness defaults to true', async () => {
  const s = fakeHost();
  for (const k of ['cleanupText', 'afterCommit', 'onClaimed', 'isCurrentGeneration', 'eventTypes']) delete s.host[k];
  const { p, h } = await claimedRun(s, 'normal');
  h.setText(' raw ');
  await h.commit();
  assert.deepEqual(await p, { dispatched: true, claimed: true, owner: 'p', status: 'committed', slotId: 1, text: ' raw ', stale: false });
  assert.deepEqual(names(s.log).slice(-5), ['redraw', 'persist', 'emit message_received', 'emit character_message_rendered', 'unlockUI']);
  assert.deepEqual(s.log.filter((e) => e[0] === 'writeSlot').at(-1), ['writeSlot', 1, ' raw ', '']);
});

test('T54: every required member, and every optional member that is present, must be a function', async () => {
  const required = ['emit', 'acquirePlaceholder', 'readSlot', 'writeSlot', 'redraw', 'persist', 'removeSlot', 'restoreSlot', 'unlockUI'];
  const optional = ['cleanupText', 'afterCommit', 'onClaimed', 'isCurrentGeneration'];
  for (const k of [...required, ...optional]) {
    const s = fakeHost();
    let emitted = 0;
    const emit = s.host.emit;
    s.host.emit = (...a) => { emitted++; return emit(...a); };
    s.host[k] = required.includes(k) && k !== 'emit' ? undefined : 'not a function';
    const e = await rejected(run(s, 'normal'));
    assert.ok(e instanceof TakeoverError, k);
    assert.equal(e.code, ARG);
    assert.equal(e.message, `runTakeover: host.${k} must be a function`);
    assert.equal(emitted, 0);
  }
  // Optional members may be absent or undefined.
  const s = fakeHost({ cleanupText: undefined, afterCommit: undefined, onClaimed: undefined, isCurrentGeneration: undefined });
  assert.deepEqual(await run(s, 'normal'), { dispatched: true, claimed: false });
});

test('T54: an init.abortSignal made with Object.create(AbortSignal.prototype) is refused up front, nothing emitted', async () => {
  const s = fakeHost();
  let emitted = 0;
  const emit = s.host.emit;
  s.host.emit = (...a) => { emitted++; return emit(...a); };
  const e = await rejected(run(s, 'normal', { abortSignal: Object.create(AbortSignal.prototype) }));
  assert.ok(e instanceof TakeoverError);
  assert.equal(e.code, ARG);
  assert.equal(e.message, 'runTakeover: init.abortSignal must be an AbortSignal');
  assert.equal(emitted, 0);
});

test('T54 T62: callbacks that throw never make runTakeover reject', async (t) => {
  t.mock.method(console, 'error', () => {});
  const boom = () => { throw new Error('boom'); };
  const s = fakeHost({ acquirePlaceholder: boom, readSlot: boom, writeSlot: boom, redraw: boom, persist: boom, unlockUI: boom, cleanupText: boom, afterCommit: boom, onClaimed: boom });
  const inner = s.host.emit;
  s.host.emit = async (ev, ...a) => { await inner(ev, ...a); throw new Error('emit'); };
  const { p, h } = await claimedRun(s, 'normal');
  h.setText('x');
  await h.commit();
  const res = await p;
  assert.equal(res.status, 'committed');
  assert.equal(res.slotId, null);
});

test('T62: a failed acquirePlaceholder on the aborted path: stop and unlock, no slot operation', async (t) => {
  t.mock.method(console, 'error', () => {});
  const s = fakeHost({ acquirePlaceholder() { s.log.push(['acquirePlaceholder']); throw new Error('no'); } });
  const { p, h } = await claimedRun(s, 'normal');
  h.setText('x');
  await h.abort();
  const res = await p;
  assert.deepEqual(names(s.log), ['acquirePlaceholder', 'emit generation_stopped', 'unlockUI']);
  assert.equal(res.status, 'aborted');
  assert.equal(res.slotId, null);
  assert.equal(res.text, null);
});

test('T52 T55: the driver never subscribes to or waits for a losing handle', async (t) => {
  t.mock.method(console, 'warn', () => {});
  const s = fakeHost();
  let win;
  let lose;
  s.listeners.push((payload) => {
    win = createMessageEditorHandle({ generationType: 'normal', owner: 'W', flushIntervalMs: 0 });
    payload.takeoverHandle = win;
  });
  s.listeners.push((payload) => {
    lose = createMessageEditorHandle({ generationType: 'normal', owner: 'L', flushIntervalMs: 0 });
    payload.takeoverHandle = lose;
  });
  const p = run(s, 'normal');
  await tick();
  await tick();
  lose.setText('from the loser');
  const cb = recorder();
  lose.setOnUpdate(cb); // the driver did not take the loser's callback slot
  await win.commit();
  const res = await p; // resolves although the loser is still open
  assert.equal(res.owner, 'W');
  assert.equal(lose.isSettled(), false);
  assert.ok(!s.log.some((e) => e[0] === 'writeSlot' && e[2] === 'from the loser'));
  assert.deepEqual(cb.calls, [['from the loser', '']]);
  await lose.discard();
});

test('T51: assigning undefined is ignored with the not-a-handle warning', async (t) => {
  const warn = t.mock.method(console, 'warn', () => {});
  const s = fakeHost();
  s.listeners.push((payload) => { payload.takeoverHandle = undefined; assert.equal(payload.takeoverHandle, null); });
  assert.deepEqual(await run(s, 'normal'), { dispatched: true, claimed: false });
  assert.deepEqual(warn.mock.calls.map((c) => c.arguments), [['[takeover] takeoverHandle assignment ignored: value is not a message editor handle']]);
});

test('T49 T51: the claim window also closes when the dispatch emit rejects', async (t) => {
  const warn = t.mock.method(console, 'warn', () => {});
  const error = t.mock.method(console, 'error', () => {});
  const s = fakeHost();
  let saved;
  let h;
  s.listeners.push((payload) => {
    saved = payload;
    h = createMessageEditorHandle({ generationType: 'normal', owner: 'first', flushIntervalMs: 0 });
    payload.takeoverHandle = h;
  });
  s.host.emit = async (ev, ...a) => {
    if (ev !== GENERATE_TAKEOVER_DISPATCH) { s.log.push(['emit', ev, ...a]); return; }
    for (const l of s.listeners) await l(...a);
    throw new Error('emit broke');
  };
  const p = run(s, 'normal');
  await tick();
  await tick();
  assert.equal(error.mock.calls[0].arguments[0], '[takeover] emit generate_takeover_dispatch failed');
  // The driver is still waiting on the winner, but the window is closed.
  const late = createMessageEditorHandle({ generationType: 'normal', owner: 'late' });
  saved.takeoverHandle = late;
  assert.equal(saved.takeoverHandle, h);
  assert.deepEqual(warn.mock.calls.at(-1).arguments, ['[takeover] takeoverHandle from "late" ignored: dispatch already closed']);
  await h.commit();
  assert.equal((await p).owner, 'first');
  await late.discard();
});

test('T64: the driver schedules no timers', async (t) => {
  const s = fakeHost();
  let scheduled = 0;
  const saved = globalThis.setTimeout;
  const savedI = globalThis.setInterval;
  t.after(() => { globalThis.setTimeout = saved; globalThis.setInterval = savedI; });
  let h;
  s.listeners.push((payload) => {
    h = createMessageEditorHandle({ generationType: 'normal', owner: 'p', flushIntervalMs: 0 });
    payload.takeoverHandle = h;
  });
  globalThis.setTimeout = (...a) => { scheduled++; return saved(...a); };
  globalThis.setInterval = (...a) => { scheduled++; return savedI(...a); };
  const p = run(s, 'normal');
  for (let i = 0; i < 20; i++) await null;
  h.setText('x');
  await h.commit();
  await p;
  globalThis.setTimeout = saved;
  globalThis.setInterval = savedI;
  assert.equal(scheduled, 0);
});

test('T53: a GENERATION_STOPPED override names the stop event', async () => {
  const s = fakeHost();
  s.host.eventTypes = { GENERATION_STOPPED: 'gs' };
  const { p, h } = await claimedRun(s, 'regenerate');
  await h.discard();
  await p;
  assert.deepEqual(names(s.log).slice(-3), ['removeSlot', 'emit gs', 'unlockUI']);
});

test('T41 T45: in immediate mode, writes made by the attach-flush callback are delivered right after it returns', () => {
  const h = H();
  h.setText('a');
  const ev = [];
  h.setOnUpdate((t, r) => {
    ev.push(`${t}/${r}`);
    if (t === 'a') h.setText('b');
    else if (t === 'b' && r === '') h.appendReasoning('r');
  });
  ev.push('returned');
  assert.deepEqual(ev, ['a/', 'b/', 'b/r', 'returned']);
});
