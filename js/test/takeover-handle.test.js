// Handle scenarios of spec/takeover.md §13 through the public JS API.
import { test, mock } from 'node:test';
import assert from 'node:assert/strict';
import { createMessageEditorHandle, TakeoverError, GENERATE_TAKEOVER_DISPATCH } from '../message-takeover.js';
import { load } from '../index.js';
import { H, recorder, thrown, rejected } from './helpers.js';

const { listUnsettledHandles } = await load();

test('S1 T1 T5: a lone high surrogate is kept, not replaced by U+FFFD', () => {
  const h = H();
  h.setText('\uD83D');
  assert.equal(h.getText().length, 1);
  assert.equal(h.getText().charCodeAt(0), 0xd83d);
});

test('S2 T2: a pair split across two writes rejoins', () => {
  const h = H();
  const cb = recorder();
  h.setOnUpdate(cb);
  h.setText('\uD83D');
  h.setText(h.getText() + '\uDE00');
  assert.equal(h.getText(), '😀');
  assert.deepEqual(cb.calls.at(-1), ['😀', '']);
});

test('S3 T1 T30: a discard reports originals exactly', async () => {
  const h = H({ originalText: 'a\uDC00b' });
  await h.discard();
  assert.equal((await h.complete).finalText, 'a\uDC00b');
});

test('S6 S7 T10 T11: generation type', () => {
  let e = thrown(() => createMessageEditorHandle());
  assert.equal(e.code, 'invalid_generation_type');
  assert.equal(e.message, 'opts.generationType required, one of normal, regenerate, swipe, continue; got undefined');
  for (const g of ['quiet', 'impersonate', 'Normal']) {
    e = thrown(() => createMessageEditorHandle({ generationType: g }));
    assert.equal(e.code, 'invalid_generation_type');
    assert.ok(e.message.endsWith(`got ${g}`));
  }
  e = thrown(() => createMessageEditorHandle({ generationType: Symbol('x') }));
  assert.ok(e.message.endsWith('got symbol'));
  e = thrown(() => createMessageEditorHandle({ generationType: { toString() { return 'normal'; } } }));
  assert.ok(e.message.endsWith('got object'));
});

test('S8 T10: non-object opts', () => {
  let e = thrown(() => createMessageEditorHandle(null));
  assert.ok(e instanceof TakeoverError);
  assert.equal(e.code, 'invalid_argument');
  assert.equal(e.message, 'createMessageEditorHandle: opts must be an object; got null');
  e = thrown(() => createMessageEditorHandle(42));
  assert.equal(e.message, 'createMessageEditorHandle: opts must be an object; got 42');
  e = thrown(() => createMessageEditorHandle('normal'));
  assert.equal(e.message, 'createMessageEditorHandle: opts must be an object; got normal');
});

test('S9 T12: originals must be strings', () => {
  let e = thrown(() => H({ originalText: null }));
  assert.equal(e.message, 'opts.originalText must be a string; got object');
  e = thrown(() => H({ originalReasoning: 123 }));
  assert.equal(e.message, 'opts.originalReasoning must be a string; got number');
});

test('S10 S11 T13: abort signals', () => {
  for (const v of [{ aborted: true }, null]) {
    const e = thrown(() => H({ abortSignal: v }));
    assert.equal(e.code, 'invalid_argument');
    assert.equal(e.message, 'opts.abortSignal must be an AbortSignal');
  }
  const ac = new AbortController();
  assert.equal(H({ abortSignal: ac.signal }).abortSignal, ac.signal);
  const h = H();
  assert.ok(h.abortSignal instanceof AbortSignal);
  assert.equal(h.abortSignal.aborted, false);
  assert.equal(h.abortSignal, h.abortSignal);
});

test('S12 T14: flushIntervalMs', () => {
  for (const v of [-5, NaN, Infinity, null, '0', 2147483648]) {
    const e = thrown(() => H({ flushIntervalMs: v }));
    assert.equal(e.code, 'invalid_argument');
    assert.equal(e.message, `opts.flushIntervalMs must be a finite number between 0 and 2147483647; got ${v}`);
  }
  H({ flushIntervalMs: 16.5 });
  H({ flushIntervalMs: -0 });
});

test('S13 S14 T15 T16 T17: owner, settleOnAbort and validation order', () => {
  assert.equal(thrown(() => H({ owner: 5 })).message, 'opts.owner must be a string; got number');
  assert.equal(thrown(() => H({ settleOnAbort: 'yes' })).message, 'opts.settleOnAbort must be a boolean; got string');
  assert.equal(thrown(() => createMessageEditorHandle({ generationType: 'x', originalText: 5 })).code, 'invalid_generation_type');
  // T17: a failed call leaves no listener and no listing entry.
  const before = listUnsettledHandles().length;
  const ac = new AbortController();
  let added = 0;
  const add = ac.signal.addEventListener.bind(ac.signal);
  ac.signal.addEventListener = (...a) => { added++; return add(...a); };
  thrown(() => H({ abortSignal: ac.signal, settleOnAbort: true, owner: 1 }));
  assert.equal(added, 0);
  assert.equal(listUnsettledHandles().length, before);
});

test('S15 S16 T18 T19: fresh handle and detached methods', () => {
  const h = H();
  assert.equal(h.getText(), '');
  assert.equal(h.getReasoning(), '');
  assert.equal(h.isSettled(), false);
  assert.equal(h.complete, h.complete);
  assert.ok(listUnsettledHandles().some((r) => r.owner === 'unknown'));
  const { setText, getText } = h;
  setText('x');
  assert.equal(getText(), 'x');
  for (const m of ['getText', 'getReasoning', 'setText', 'setReasoning', 'appendReasoning', 'isSettled', 'commit', 'abort', 'discard', 'setOnUpdate']) {
    assert.equal(typeof h[m], 'function', m);
  }
});

test('S17 S19 T6 T8: TakeoverError', () => {
  const e = new TakeoverError('c', 'm');
  assert.equal(e.name, 'TakeoverError');
  assert.equal(e.code, 'c');
  assert.equal(e.message, 'm');
  assert.equal(e.cause, null);
  assert.equal(e.details, null);
  assert.ok(e instanceof Error);
  const cause = new Error('x');
  const e2 = new TakeoverError('c', 'm', { cause, details: { x: 1 } });
  assert.equal(e2.cause, cause);
  assert.deepEqual(e2.details, { x: 1 });
  assert.equal(new TakeoverError('c', 'm', null).details, null);
  assert.ok(thrown(() => H().setText(1)) instanceof TakeoverError);
});

test('S20 S21 T21 T22: setText and setReasoning', () => {
  const h = H();
  h.setText('hello');
  h.setText('hello world');
  assert.equal(h.getText(), 'hello world');
  let e = thrown(() => h.setText(123));
  assert.equal(e.code, 'invalid_argument');
  assert.equal(e.message, 'setText requires string; got number');
  e = thrown(() => h.setReasoning(null));
  assert.equal(e.message, 'setReasoning requires string; got object');
  assert.equal(h.getText(), 'hello world');
  assert.equal(h.getReasoning(), '');
});

test('S22 S26 T21 T33: type check precedes the state check', async () => {
  const h = H();
  await h.commit();
  assert.equal(thrown(() => h.setText(123)).code, 'invalid_argument');
  const c = H({ generationType: 'continue', originalText: 'abc' });
  await c.commit();
  assert.equal(thrown(() => c.setText('zzz')).code, 'editor_committed');
  let e = thrown(() => h.setText('a'));
  assert.equal(e.code, 'editor_committed');
  assert.equal(e.message, 'editor committed; mutation rejected');
  const a = H();
  await a.abort();
  assert.equal(thrown(() => a.setText('a')).code, 'editor_aborted');
  const d = H();
  await d.discard();
  assert.equal(thrown(() => d.setReasoning('a')).code, 'editor_discarded');
  assert.equal(thrown(() => d.appendReasoning('x')).code, 'editor_discarded');
});

test('S23 S24 S25 T23 T24: identical writes and appendReasoning', async () => {
  const h = H({ originalText: 'x' });
  const cb = recorder();
  h.setOnUpdate(cb);
  h.setText('x');
  assert.deepEqual(cb.calls, [['x', '']]);
  const r = H({ originalReasoning: 'seed' });
  const cb2 = recorder();
  r.setOnUpdate(cb2);
  r.appendReasoning(' more');
  assert.equal(r.getReasoning(), 'seed more');
  assert.deepEqual(cb2.calls, [['', 'seed more']]);
  r.appendReasoning('');
  assert.equal(cb2.calls.length, 1);
  await r.commit();
  r.appendReasoning('');
  assert.equal(thrown(() => r.appendReasoning(5)).code, 'invalid_argument');
  assert.equal(thrown(() => r.appendReasoning(5)).message, 'appendReasoning requires string; got number');
});

test('S27 T20 T30: buffers survive a discard', async () => {
  const h = H({ originalText: 'o' });
  h.setText('n');
  await h.discard();
  assert.equal(h.getText(), 'n');
  assert.equal((await h.complete).finalText, 'o');
});

test('S28 T25 T26: continue prefix', () => {
  const h = H({ generationType: 'continue', originalText: 'Hello ' });
  const e = thrown(() => h.setText('Bye there'));
  assert.ok(e instanceof TakeoverError);
  assert.equal(e.code, 'invalid_op_for_continue');
  assert.equal(e.message, 'setText in \'continue\' must keep originalText prefix; got "Bye there"…');
  assert.deepEqual(e.details, { originalPrefix: 'Hello ' });
  assert.equal(h.getText(), 'Hello ');
  h.setText('Hello world');
  h.setText('Hello ');
  assert.equal(h.getText(), 'Hello ');
});

test('S29 S33 T25: where the invariant does not apply', () => {
  H({ generationType: 'continue', originalText: '' }).setText('anything');
  H({ generationType: 'swipe', originalText: 'o' }).setText('anything');
  H({ generationType: 'regenerate', originalText: 'o' }).setText('anything');
  H({ generationType: 'continue', originalText: 'o' }).setReasoning('anything');
});

test('S32 T26: the violation message escapes like JSON.stringify', () => {
  const h = H({ generationType: 'continue', originalText: 'P' });
  const e = thrown(() => h.setText('a'.repeat(31) + '😀z'));
  assert.ok(e.message.includes('got "' + 'a'.repeat(31) + '\\ud83d"…'));
  const x = H({ generationType: 'continue', originalText: 'x'.repeat(100) });
  assert.equal(thrown(() => x.setText('y')).details.originalPrefix.length, 64);
  const q = H({ generationType: 'continue', originalText: 'Q' });
  const m = thrown(() => q.setText('"\\\n\u2028<\u0001\uDC00')).message;
  assert.ok(m.endsWith('got ' + JSON.stringify('"\\\n\u2028<\u0001\uDC00') + '…'));
});

test('S35 S36 T28 T30: outcomes', async () => {
  const h = H();
  h.setText('done');
  h.setReasoning('rsn');
  assert.equal(await h.commit(), undefined);
  assert.deepEqual(await h.complete, { status: 'committed', finalText: 'done', finalReasoning: 'rsn' });
  const a = H({ originalText: 'orig', originalReasoning: 'origR' });
  a.setText('cur');
  a.setReasoning('curR');
  await a.abort();
  assert.deepEqual(await a.complete, { status: 'aborted', finalText: 'cur', finalReasoning: 'curR' });
  const d = H({ originalText: 'orig', originalReasoning: 'origR' });
  d.setText('cur');
  await d.discard();
  assert.deepEqual(await d.complete, { status: 'discarded', finalText: 'orig', finalReasoning: 'origR' });
});

test('S37 S38 S39 T28: the terminal table', async () => {
  const table = {
    commit: { abort: 'cannot abort a committed handle', discard: 'cannot discard a committed handle' },
    abort: { commit: 'cannot commit an aborted handle', discard: 'cannot discard an aborted handle' },
    discard: { commit: 'cannot commit a discarded handle', abort: 'cannot abort a discarded handle' },
  };
  const codes = { commit: 'editor_committed', abort: 'editor_aborted', discard: 'editor_discarded' };
  for (const [first, others] of Object.entries(table)) {
    const h = H();
    const cb = recorder();
    h.setOnUpdate(cb);
    await h[first]();
    const n = cb.calls.length;
    const outcome = await h.complete;
    assert.equal(await h[first](), undefined);
    assert.equal(cb.calls.length, n);
    for (const [second, message] of Object.entries(others)) {
      let p;
      assert.doesNotThrow(() => { p = h[second](); });
      const e = await rejected(p);
      assert.ok(e instanceof TakeoverError);
      assert.equal(e.code, codes[first]);
      assert.equal(e.message, message);
    }
    assert.deepEqual(await h.complete, outcome);
  }
});

test('S40 S41 T27 T29 T31: effects are synchronous, reactions later', async () => {
  const log = [];
  const h = H();
  h.setOnUpdate(() => log.push('cb'));
  h.complete.then(() => log.push('complete'));
  h.commit();
  assert.equal(h.isSettled(), true);
  log.push('after');
  await h.complete;
  await null;
  assert.deepEqual(log, ['cb', 'after', 'complete']);
});

test('S42 S43 S44 T31 T32: final flush', async (t) => {
  t.mock.timers.enable({ apis: ['setTimeout'] });
  for (const verb of ['commit', 'abort']) {
    const h = H({ flushIntervalMs: 1000 });
    const cb = recorder();
    h.setOnUpdate(cb);
    h.setText('flushed');
    assert.equal(cb.calls.length, 0);
    await h[verb]();
    assert.deepEqual(cb.calls, [['flushed', '']]);
    t.mock.timers.tick(2000);
    assert.equal(cb.calls.length, 1);
  }
  const h = H();
  const cb = recorder();
  h.setOnUpdate(cb);
  await h.commit();
  await h.commit();
  assert.deepEqual(cb.calls, [['', '']]);
  const d = H({ flushIntervalMs: 1000 });
  const cb2 = recorder();
  d.setOnUpdate(cb2);
  d.setText('p');
  await d.discard();
  t.mock.timers.tick(2000);
  assert.equal(cb2.calls.length, 0);
});

test('S45 T31 T44: a write from the final flush is caught and warned', async (t) => {
  const warn = t.mock.method(console, 'warn', () => {});
  const h = H({ owner: 'my-plugin' });
  h.setOnUpdate(() => h.setText('late'));
  await h.commit();
  assert.equal(warn.mock.callCount(), 1);
  const [msg, err] = warn.mock.calls[0].arguments;
  assert.equal(msg, '[message-takeover] onUpdate threw during final flush (owner=my-plugin)');
  assert.equal(err.code, 'editor_committed');
  assert.equal((await h.complete).finalText, '');
});

test('S46 S47 T35: settleOnAbort settles inside the abort event', async (t) => {
  const ac = new AbortController();
  const h = H({ abortSignal: ac.signal, settleOnAbort: true });
  h.setText('partial');
  h.setReasoning('partial-r');
  ac.abort();
  assert.equal(h.isSettled(), true);
  assert.deepEqual(await h.complete, { status: 'aborted', finalText: 'partial', finalReasoning: 'partial-r' });
  t.mock.timers.enable({ apis: ['setTimeout'] });
  const ac2 = new AbortController();
  const h2 = H({ abortSignal: ac2.signal, settleOnAbort: true, flushIntervalMs: 1000 });
  const log = [];
  h2.setOnUpdate((a, b) => log.push(['cb', a, b]));
  h2.complete.then(() => log.push('complete'));
  h2.setText('x');
  ac2.abort();
  await h2.complete;
  await null;
  assert.deepEqual(log, [['cb', 'x', ''], 'complete']);
});

test('S48 S49 S50 T34 T35: pre-aborted signals and the default', async () => {
  const ac = new AbortController();
  ac.abort();
  const h = H({ abortSignal: ac.signal, settleOnAbort: true, originalText: 'o' });
  assert.deepEqual(await h.complete, { status: 'aborted', finalText: 'o', finalReasoning: '' });
  assert.equal(thrown(() => h.setText('o1')).code, 'editor_aborted');
  const cb = recorder();
  h.setOnUpdate(cb);
  assert.equal(cb.calls.length, 0);

  const ac2 = new AbortController();
  const c = H({ abortSignal: ac2.signal, settleOnAbort: true });
  await c.commit();
  ac2.abort();
  assert.equal((await c.complete).status, 'committed');
  const ac3 = new AbortController();
  const a = H({ abortSignal: ac3.signal, settleOnAbort: true });
  ac3.abort();
  assert.equal(await a.abort(), undefined);
  assert.equal((await rejected(a.commit())).code, 'editor_aborted');

  const ac4 = new AbortController();
  const d = H({ abortSignal: ac4.signal });
  ac4.abort();
  assert.equal(d.isSettled(), false);
  d.setText('works');
  assert.equal(H({ abortSignal: ac4.signal }).isSettled(), false);
});

test('S51 S52 S54 T38 T40: immediate mode and the trailing-edge throttle', (t) => {
  const h = H();
  let inside = false;
  h.setOnUpdate(() => { inside = true; });
  h.setText('x');
  assert.equal(inside, true);

  t.mock.timers.enable({ apis: ['setTimeout'] });
  const d = createMessageEditorHandle({ generationType: 'normal' });
  const cb = recorder();
  d.setOnUpdate(cb);
  for (const v of ['1', '2', '3', '4', '5']) d.setText(v);
  t.mock.timers.tick(32);
  assert.equal(cb.calls.length, 0);
  t.mock.timers.tick(1);
  assert.deepEqual(cb.calls, [['5', '']]);

  const m = H({ flushIntervalMs: 10 });
  const cb3 = recorder();
  m.setOnUpdate(cb3);
  m.setText('a');
  m.setReasoning('r1');
  m.setText('b');
  t.mock.timers.tick(10);
  assert.deepEqual(cb3.calls, [['b', 'r1']]);
});

test('S53 T38: deliveries land at 30, 65 and 100 ms', (t) => {
  t.mock.timers.enable({ apis: ['setTimeout', 'Date'], now: 0 });
  const s = H({ flushIntervalMs: 30 });
  const at = [];
  s.setOnUpdate((text) => at.push([Date.now(), text]));
  for (let ms = 0; ms <= 200; ms++) {
    if (ms % 7 === 0 && ms <= 98) s.setText(String(ms));
    t.mock.timers.tick(1);
  }
  // A debounce would give one call at 128 instead.
  assert.deepEqual(at, [[30, '28'], [65, '63'], [100, '98']]);
});

test('S55 S56 S57 S58 T36 T41 T42: attach and detach', (t) => {
  t.mock.timers.enable({ apis: ['setTimeout'] });
  const h = H();
  h.setText('a');
  h.setText('b');
  const cb = recorder();
  h.setOnUpdate(cb);
  assert.deepEqual(cb.calls, [['b', '']]);
  const cb2 = recorder();
  h.setOnUpdate(cb2);
  assert.equal(cb2.calls.length, 0);

  const x = H({ flushIntervalMs: 1000 });
  const c1 = recorder();
  const c2 = recorder();
  x.setOnUpdate(c1);
  x.setText('a');
  x.setOnUpdate(c2);
  assert.deepEqual(c2.calls, [['a', '']]);
  t.mock.timers.tick(1000);
  assert.equal(c1.calls.length, 0);
  assert.equal(c2.calls.length, 1);

  const y = H({ flushIntervalMs: 10 });
  const c3 = recorder();
  y.setOnUpdate(c3);
  y.setText('a');
  y.setOnUpdate(null);
  t.mock.timers.tick(25);
  assert.equal(c3.calls.length, 0);
  const c4 = recorder();
  y.setOnUpdate(c4);
  assert.deepEqual(c4.calls, [['a', '']]);

  const e = thrown(() => y.setOnUpdate(5));
  assert.equal(e.code, 'invalid_argument');
  assert.equal(e.message, 'setOnUpdate requires a function or null; got number');
  y.setOnUpdate(undefined);
  y.setText('z');
  t.mock.timers.tick(100);
  assert.equal(c4.calls.length, 1);
});

test('S59 T43 T44: a throwing callback is warned and delivery goes on', (t) => {
  t.mock.timers.enable({ apis: ['setTimeout'] });
  const warn = t.mock.method(console, 'warn', () => {});
  const h = H({ flushIntervalMs: 10 });
  const err = new Error('cb broke');
  let n = 0;
  let args;
  h.setOnUpdate(function (...a) { args = [this, ...a]; n++; if (n === 1) throw err; });
  h.setText('a');
  t.mock.timers.tick(10);
  assert.deepEqual(warn.mock.calls[0].arguments, ['[message-takeover] onUpdate threw during scheduled flush (owner=unknown)', err]);
  assert.deepEqual(args, [undefined, 'a', '']);
  h.setText('b');
  t.mock.timers.tick(10);
  assert.equal(n, 2);
});

test('S60 T45: re-entrant writes are delivered after the callback returns', () => {
  const h = H();
  const log = [];
  let first = true;
  h.setOnUpdate((text, r) => {
    log.push('enter', [text, r]);
    if (first) { first = false; h.setText(h.getText() + '!'); }
    log.push('exit');
  });
  h.setText('a');
  assert.deepEqual(log, ['enter', ['a', ''], 'exit', 'enter', ['a!', ''], 'exit']);
});

test('S61 T33 T39: timers are looked up at scheduling time', async (t) => {
  const h = H({ flushIntervalMs: 50 });
  const cb = recorder();
  h.setOnUpdate(cb);
  t.mock.timers.enable({ apis: ['setTimeout'] });
  h.setText('a');
  t.mock.timers.tick(50);
  assert.deepEqual(cb.calls, [['a', '']]);
  h.setText('b');
  await h.commit();
  t.mock.timers.tick(1000);
  assert.deepEqual(cb.calls, [['a', ''], ['b', '']]);
});

test('S62 T46: the dispatch constant', () => {
  assert.equal(GENERATE_TAKEOVER_DISPATCH, 'generate_takeover_dispatch');
});

test('T65: listUnsettledHandles reports open handles in creation order', async (t) => {
  t.mock.timers.enable({ apis: ['Date'], now: 1000 });
  const a = H({ owner: 'list-a' });
  t.mock.timers.tick(250);
  const b = H({ owner: 'list-b', generationType: 'swipe' });
  const rows = listUnsettledHandles().filter((r) => r.owner.startsWith('list-'));
  assert.deepEqual(rows, [
    { owner: 'list-a', generationType: 'normal', ageMs: 250, claimed: false },
    { owner: 'list-b', generationType: 'swipe', ageMs: 0, claimed: false },
  ]);
  assert.notEqual(listUnsettledHandles(), listUnsettledHandles());
  await a.commit();
  await b.discard();
  assert.equal(listUnsettledHandles().filter((r) => r.owner.startsWith('list-')).length, 0);
});

test('T65: ageMs stays an integer >= 0 when Date.now() answers NaN or a fraction', async (t) => {
  const real = Date.now;
  t.after(() => { Date.now = real; });
  Date.now = () => NaN;
  const a = H({ owner: 'clock-a' });
  Date.now = () => real() + 0.75;
  const b = H({ owner: 'clock-b' });
  for (const r of listUnsettledHandles().filter((x) => x.owner.startsWith('clock-'))) {
    assert.ok(Number.isInteger(r.ageMs) && r.ageMs >= 0, `${r.owner}: ${r.ageMs}`);
  }
  Date.now = () => NaN;
  for (const r of listUnsettledHandles().filter((x) => x.owner.startsWith('clock-'))) {
    assert.ok(Number.isInteger(r.ageMs) && r.ageMs >= 0, `${r.owner}: ${r.ageMs}`);
  }
  Date.now = real;
  await a.commit();
  await b.commit();
});

test('T35: a signal aborted by page code while the later options are read settles the handle at creation', async () => {
  for (const late of ['owner', 'flushIntervalMs', 'settleOnAbort']) {
    const ac = new AbortController();
    const opts = { generationType: 'normal', originalText: 'orig', originalReasoning: 'r', abortSignal: ac.signal, settleOnAbort: true, owner: 'racer' };
    Object.defineProperty(opts, late, { get() { ac.abort(); return late === 'flushIntervalMs' ? 40 : late === 'settleOnAbort' ? true : 'racer'; } });
    const h = createMessageEditorHandle(opts);
    assert.equal(ac.signal.aborted, true);
    assert.equal(h.isSettled(), true, late);
    assert.deepEqual(await h.complete, { status: 'aborted', finalText: 'orig', finalReasoning: 'r' });
    assert.equal(listUnsettledHandles().filter((r) => r.owner === 'racer').length, 0);
  }
});

test('T65: thousands of handles created and settled one after another keep working', async () => {
  for (let i = 0; i < 3000; i++) {
    const h = H({ owner: 'churn' });
    h.setText(String(i));
    await h.commit();
    assert.equal((await h.complete).finalText, String(i));
  }
  assert.equal(listUnsettledHandles().filter((r) => r.owner === 'churn').length, 0);
});

test('T9: the kernel raises its six codes, each where the rules put it, and no other', async () => {
  const KERNEL = new Set(['invalid_generation_type', 'invalid_argument', 'editor_committed', 'editor_aborted', 'editor_discarded', 'invalid_op_for_continue']);
  const seen = new Set();
  const code = (e) => {
    assert.ok(e instanceof TakeoverError, `a TakeoverError, not ${e}`);
    assert.ok(KERNEL.has(e.code), `a kernel code, not ${e.code}`);
    seen.add(e.code);
    return e.code;
  };
  assert.equal(code(thrown(() => createMessageEditorHandle({ generationType: 'quiet' }))), 'invalid_generation_type');
  assert.equal(code(thrown(() => H({ originalText: 5 }))), 'invalid_argument');
  assert.equal(code(thrown(() => H().setText(5))), 'invalid_argument');
  const c = H({ generationType: 'continue', originalText: 'Hello' });
  assert.equal(code(thrown(() => c.setText('Bye'))), 'invalid_op_for_continue');
  for (const [first, want] of [['commit', 'editor_committed'], ['abort', 'editor_aborted'], ['discard', 'editor_discarded']]) {
    const h = H();
    await h[first]();
    assert.equal(code(thrown(() => h.setText('late'))), want);
  }
  assert.deepEqual([...seen].sort(), [...KERNEL].sort());
  // Hostile arguments across the handle's entry points: every refusal
  // carries one of the six.
  const bad = [undefined, null, 5, -0, NaN, 2n, Symbol('s'), {}, [], () => {}, new Proxy({}, {}), Object.create(null)];
  for (const v of bad) {
    for (const f of [
      () => createMessageEditorHandle(v),
      () => createMessageEditorHandle({ generationType: v }),
      () => H({ originalText: v }), () => H({ originalReasoning: v }), () => H({ flushIntervalMs: v }),
      () => H({ signal: v }), () => H({ settleOnAbort: v }),
      () => H().setText(v), () => H().setReasoning(v), () => H().appendReasoning(v),
      () => H().setOnUpdate(v),
    ]) {
      try { f(); } catch (e) { code(e); }
    }
  }
});
