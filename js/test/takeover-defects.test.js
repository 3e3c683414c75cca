// Defects real plugins and hostile hosts hit (issue 14), each through the
// public API and named by the rule it breaks.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createMessageEditorHandle, TakeoverError } from '../message-takeover.js';
import { runTakeover, listUnsettledHandles } from '../takeover-host.js';
import * as ops from '../editor-ops.js';
import { H, recorder, thrown } from './helpers.js';

const listed = (owner) => listUnsettledHandles().filter((r) => r.owner === owner);

test('T13 T16 T17: settleOnAbort without an abortSignal uses the handle\'s own signal', async () => {
  const h = createMessageEditorHandle({ generationType: 'normal', settleOnAbort: true, owner: 'no-signal' });
  assert.ok(h.abortSignal instanceof AbortSignal);
  assert.equal(h.abortSignal.aborted, false);
  assert.equal(listed('no-signal').length, 1);
  h.setText('streamed');
  await h.commit();
  assert.deepEqual(await h.complete, { status: 'committed', finalText: 'streamed', finalReasoning: '' });
  assert.equal(listed('no-signal').length, 0);
  // The pre-aborted rule needs a given signal: without one nothing settles.
  const h2 = createMessageEditorHandle({ generationType: 'swipe', settleOnAbort: true, owner: 'no-signal' });
  assert.equal(h2.isSettled(), false);
  await h2.discard();
});

test('T10: a function is not an options object', () => {
  const fn = () => {};
  fn.generationType = 'normal';
  const e = thrown(() => createMessageEditorHandle(fn));
  assert.ok(e instanceof TakeoverError);
  assert.equal(e.code, 'invalid_argument');
  assert.equal(e.message, 'createMessageEditorHandle: opts must be an object; got function');
});

for (const [verb, state] of [['commit', 'committed'], ['abort', 'aborted']]) {
  test(`T29 T31 T44: inside the final flush of ${verb}() the handle is settled; a write throws editor_${state} and is warned once`, async (t) => {
    const warn = t.mock.method(console, 'warn', () => {});
    const h = H({ owner: 'ff', flushIntervalMs: 1000 });
    const seen = [];
    h.setOnUpdate((text) => {
      seen.push([text, h.isSettled()]);
      if (h.isSettled()) h.setText('late');
    });
    h.setText('x');
    await h[verb]();
    assert.deepEqual(seen, [['x', true]]);
    assert.equal(warn.mock.callCount(), 1);
    const [msg, err] = warn.mock.calls[0].arguments;
    assert.equal(msg, '[message-takeover] onUpdate threw during final flush (owner=ff)');
    assert.equal(err.code, `editor_${state}`);
    assert.deepEqual(await h.complete, { status: state, finalText: 'x', finalReasoning: '' });
    assert.equal(h.getText(), 'x');
  });
}

test('T31 T35: inside a signal-driven final flush the handle is settled too', async () => {
  const ac = new AbortController();
  const h = H({ abortSignal: ac.signal, settleOnAbort: true });
  const seen = [];
  h.setOnUpdate(() => seen.push(h.isSettled()));
  ac.abort();
  assert.deepEqual(seen, [true]);
  assert.equal((await h.complete).status, 'aborted');
});

test('T17: a signal whose addEventListener throws fails the create and leaves no trace', () => {
  const ac = new AbortController();
  const boom = new Error('no listeners here');
  ac.signal.addEventListener = () => { throw boom; };
  const e = thrown(() => H({ abortSignal: ac.signal, settleOnAbort: true, owner: 'ael' }));
  assert.equal(e, boom);
  assert.equal(listed('ael').length, 0);
  // The next create works, and one that does not listen is unaffected.
  const h = H({ abortSignal: ac.signal, owner: 'ael' });
  assert.equal(listed('ael').length, 1);
  h.discard();
});

test('T29 T30: a clearTimeout that throws while settling: settled all the same, complete resolves', async (t) => {
  const warn = t.mock.method(console, 'warn', () => {});
  const cb = recorder();
  for (const verb of ['commit', 'abort', 'discard']) {
    const h = H({ flushIntervalMs: 1000, owner: 'ct' });
    h.setOnUpdate(cb);
    h.setText(verb);
    const saved = globalThis.clearTimeout;
    globalThis.clearTimeout = () => { throw new Error('host clearTimeout broke'); };
    let p;
    try { p = h[verb](); } finally { globalThis.clearTimeout = saved; }
    assert.equal(h.isSettled(), true, verb);
    assert.equal(await p, undefined);
    const out = await h.complete;
    assert.equal(out.status, { commit: 'committed', abort: 'aborted', discard: 'discarded' }[verb]);
  }
  assert.deepEqual(cb.calls, [['commit', ''], ['abort', '']]);
  assert.ok(warn.mock.calls.every((c) => c.arguments[0] === '[message-takeover] clearTimeout threw (owner=ct)'));
  assert.equal(warn.mock.callCount(), 3);
});

test('T29 T44: a console.warn that throws while settling: settled all the same', async (t) => {
  t.mock.method(console, 'warn', () => { throw new Error('host console broke'); });
  const h = H({ owner: 'cw' });
  h.setOnUpdate(() => { throw new Error('plugin cb broke'); });
  const p = h.commit();
  assert.equal(h.isSettled(), true);
  assert.equal(await p, undefined);
  assert.equal((await h.complete).status, 'committed');
});

test('T40 T44: a write stands once its update was delivered, even when warning fails', (t) => {
  t.mock.method(console, 'warn', () => { throw new Error('host console broke'); });
  const h = H({ owner: 'w' });
  const seen = [];
  h.setOnUpdate((text) => { seen.push(text); throw new Error('plugin cb broke'); });
  h.setText('seen');
  assert.deepEqual(seen, ['seen']);
  assert.equal(h.getText(), 'seen', 'not rolled back after onUpdate saw it');
  h.discard();
});

test('T38 T39: a setTimeout that throws leaves the write standing and pending', async (t) => {
  const warn = t.mock.method(console, 'warn', () => {});
  const cb = recorder();
  const h = H({ flushIntervalMs: 50, owner: 'st' });
  h.setOnUpdate(cb);
  const saved = globalThis.setTimeout;
  globalThis.setTimeout = () => { throw new Error('host setTimeout broke'); };
  try { h.setText('a'); } finally { globalThis.setTimeout = saved; }
  assert.equal(h.getText(), 'a');
  assert.equal(warn.mock.calls[0].arguments[0], '[message-takeover] setTimeout threw; the update waits for the next write (owner=st)');
  await h.commit();
  assert.deepEqual(cb.calls, [['a', '']], 'the final flush delivers it');
});

test('T58 T62: runTakeover finishes when the host clearTimeout throws as the plugin commits', async (t) => {
  t.mock.method(console, 'warn', () => {});
  const log = [];
  let listener;
  const host = {
    emit: async (ev, payload) => { if (ev === 'generate_takeover_dispatch') await listener(payload); else log.push(ev); },
    acquirePlaceholder: () => 0,
    readSlot: () => ({ text: '', reasoning: '' }),
    writeSlot: (id, text) => log.push(`write ${text}`),
    redraw: () => {},
    persist: () => log.push('persist'),
    removeSlot: () => {},
    restoreSlot: () => {},
    unlockUI: () => log.push('unlock'),
  };
  let h;
  listener = (payload) => {
    h = createMessageEditorHandle({ generationType: 'normal', owner: 'p', flushIntervalMs: 1000 });
    payload.takeoverHandle = h;
  };
  const run = runTakeover({ type: 'normal', abortSignal: new AbortController().signal }, host);
  await new Promise((r) => setTimeout(r, 0));
  h.setText('done');
  const saved = globalThis.clearTimeout;
  globalThis.clearTimeout = () => { throw new Error('host clearTimeout broke'); };
  try { h.commit(); } finally { globalThis.clearTimeout = saved; }
  const res = await run;
  assert.equal(res.status, 'committed');
  assert.deepEqual(log.slice(-5), ['write done', 'persist', 'message_received', 'character_message_rendered', 'unlock']);
});

test('T45: deep cross-handle re-entry fails with reentry_too_deep at depth 64, and the module keeps working', (t) => {
  const warn = t.mock.method(console, 'warn', () => {});
  const N = 1000;
  const hs = Array.from({ length: N }, (_, i) => H({ owner: `n${i}` }));
  for (let i = 0; i < N - 1; i++) {
    const next = hs[i + 1];
    hs[i].setOnUpdate((text) => next.setText(text));
  }
  hs[N - 1].setOnUpdate(() => {});
  hs[0].setText('x');
  // setText on hs[k] is the (k+1)-th nested call: hs[63] is the 64th and
  // the last that runs.
  assert.equal(hs[63].getText(), 'x');
  assert.equal(hs[64].getText(), '', 'the refused write changed nothing');
  assert.equal(warn.mock.callCount(), 1);
  const [msg, err] = warn.mock.calls[0].arguments;
  assert.equal(msg, '[message-takeover] onUpdate threw during immediate flush (owner=n63)');
  assert.ok(err instanceof TakeoverError);
  assert.equal(err.code, 'reentry_too_deep');
  assert.deepEqual(err.details, { depth: 64 });
  // Callbacks, ops and settlement still work afterwards.
  const h = H();
  const cb = recorder();
  h.setOnUpdate(cb);
  ops.appendText(h, 'ok');
  h.commit();
  assert.deepEqual(cb.calls, [['ok', ''], ['ok', '']]);
  for (const x of hs) x.discard();
});

test('T45 O4: an editor op refused for depth writes nothing', (t) => {
  t.mock.method(console, 'warn', () => {});
  let caught;
  let depth = 0;
  const hs = Array.from({ length: 70 }, () => H());
  for (let i = 0; i < 69; i++) {
    hs[i].setOnUpdate(() => {
      depth = i + 1;
      try { ops.insertAt(hs[i + 1], 0, 'y'); } catch (e) { caught ??= e; }
    });
  }
  hs[0].setText('start');
  assert.ok(caught, 'some op was refused');
  assert.equal(caught.code, 'reentry_too_deep');
  assert.ok(caught instanceof ops.EditorOpsError);
  assert.equal(hs[depth].getText(), '', 'the refused op wrote nothing');
  for (const x of hs) x.discard();
});

// Re-entrant requests: a getter read while a request is described calls
// back into the core. The outer call must do exactly what it would without
// the getter's side effect (which also happens, once).
test('O4 O15 O25: patch getters that call other editor ops do not corrupt the outer request', () => {
  const inner = [
    ['appendText', (o) => ops.appendText(o, '+')],
    ['applyPatch', (o) => ops.applyPatch(o, [{ kind: 'insert_at', offset: 0, text: '>' }, { kind: 'context_replace', find: 'other', replaceWith: 'OTHER' }])],
    ['failing op', (o) => { try { ops.insertAt(o, 99, 'x'); } catch { /* expected */ } }],
    ['sections', (o) => ops.appendToReasoningSection(o, 's', 'r')],
    ['create', () => createMessageEditorHandle({ generationType: 'continue', originalText: 'zz', owner: 'inner' }).discard()],
    ['list', () => listUnsettledHandles()],
  ];
  const patches = [
    { kind: 'replace_range', start: 0, end: 5, text: 'HELLO' },
    { kind: 'insert_at', offset: 6, text: 'big ' },
    { kind: 'delete_range', start: 5, end: 11 },
    { kind: 'context_replace', find: 'world', replaceWith: 'there', occurrence: 1 },
  ];
  let cases = 0;
  for (const [name, act] of inner) {
    for (const base of patches) {
      for (const field of Object.keys(base)) {
        for (const via of ['applyPatch', 'applyPatch[]', 'patchBySemantic']) {
          if (via === 'patchBySemantic' && base.kind !== 'context_replace') continue;
          const h = H({ originalText: 'hello world' });
          h.setText('hello world');
          const other = H();
          other.setText('other');
          const cb = recorder();
          h.setOnUpdate(cb); // delivers the pending setText
          cb.calls.length = 0;
          let calls = 0;
          const p = { ...base };
          Object.defineProperty(p, field, { enumerable: true, get() { calls++; act(other); return base[field]; } });
          const expect = H();
          expect.setText('hello world');
          ops.applyPatch(expect, base);
          if (via === 'applyPatch') ops.applyPatch(h, p);
          else if (via === 'applyPatch[]') ops.applyPatch(h, [p]);
          else ops.patchBySemantic(h, p);
          const label = `${name} in ${field} via ${via}`;
          assert.equal(h.getText(), expect.getText(), label);
          assert.equal(cb.calls.length, 1, label);
          assert.equal(calls, 1, label);
          cases++;
          h.discard(); other.discard(); expect.discard();
        }
      }
    }
  }
  assert.ok(cases > 100);
});

test('T17: option getters that call back into the core do not corrupt the create', () => {
  let made;
  const opts = {
    get generationType() { made = createMessageEditorHandle({ generationType: 'swipe', owner: 'inner' }); return 'continue'; },
    get originalText() { ops.applyPatch(H(), { kind: 'insert_at', offset: 0, text: 'q' }); return 'prefix'; },
    get owner() { listUnsettledHandles(); return 'outer'; },
  };
  const h = createMessageEditorHandle(opts);
  assert.equal(thrown(() => h.setText('nope')).code, 'invalid_op_for_continue');
  h.setText('prefix and more');
  assert.ok(listed('outer').length === 1 && listed('inner').length === 1);
  assert.equal(listed('outer')[0].generationType, 'continue');
  h.discard(); made.discard();
});

test('T54: host getters that call back into the core do not corrupt runTakeover\'s validation', async () => {
  const host = {
    emit: async () => {},
    get acquirePlaceholder() { ops.appendText(H(), 'x'); return () => 0; },
    readSlot: () => ({}), writeSlot: () => {}, redraw: () => {}, persist: () => {},
    removeSlot: () => {}, restoreSlot: () => {}, unlockUI: () => {},
    get cleanupText() { createMessageEditorHandle({ generationType: 'normal' }).discard(); return 42; },
  };
  const err = await runTakeover({ type: 'normal', abortSignal: new AbortController().signal }, host).then(() => null, (e) => e);
  assert.equal(err?.code, 'invalid_argument');
  assert.equal(err.message, 'runTakeover: host.cleanupText must be a function');
});

test('O29: chunk getters that call back into the core do not corrupt pipeFrom', async () => {
  const h = H();
  const other = H();
  const chunk = { type: 'text', get delta() { ops.appendText(other, '!'); return 'ab'; } };
  await ops.pipeFrom(h, [chunk, chunk]);
  assert.equal(h.getText(), 'abab');
  assert.equal(other.getText(), '!!');
});

test('T45: an onUpdate that writes in every call (a normaliser) does not freeze the page; the update goes out at commit', async (t) => {
  const warn = t.mock.method(console, 'warn', () => {});
  const h = H({ owner: 'norm' });
  let calls = 0;
  h.setOnUpdate((text) => { calls++; h.setText(text.trim()); });
  h.setText(' a ');
  assert.equal(calls, 1001);
  assert.equal(h.getText(), 'a');
  assert.deepEqual(warn.mock.calls.map((c) => c.arguments[0]), ['[message-takeover] onUpdate wrote again in each of 1000 deliveries in a row; the update waits for the next write (owner=norm)']);
  h.setOnUpdate(null);
  await h.commit();
  assert.equal((await h.complete).finalText, 'a');
});
