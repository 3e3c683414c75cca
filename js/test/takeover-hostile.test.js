// Takeover and editor ops against hostile callers and hosts: what a host
// callback returns, a getter that throws, an array that promises more than
// it holds, an onUpdate callback that edits mid-op. Each case was found by
// probing the API and seen failing before its fix.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createMessageEditorHandle, TakeoverError } from '../message-takeover.js';
import { runTakeover, installTakeoverContext } from '../takeover-host.js';
import { appendToReasoningSection, ensureReasoningSection, applyPatch, pipeFrom } from '../editor-ops.js';
import { fakeHost, run, rejected } from './helpers.js';

const quiet = async (t, fn) => {
  const logged = [];
  t.mock.method(console, 'error', (...a) => { logged.push(a); });
  t.mock.method(console, 'warn', () => {});
  await fn(logged);
};

// A host run whose winner writes 'x' then commits or aborts.
async function hostRun(over, end) {
  const st = fakeHost(over);
  let h;
  st.listeners.push((payload) => {
    h = createMessageEditorHandle({ generationType: 'normal', owner: 'p', flushIntervalMs: 0 });
    payload.takeoverHandle = h;
  });
  const p = run(st, 'normal');
  await new Promise((r) => setTimeout(r, 5));
  h.setText('x');
  if (end === 'commit') h.commit(); else h.abort();
  return { result: await p, log: st.log.map((x) => x[0]) };
}

test('T62 T54: a host callback returning a thenable whose then throws is that callback\'s failure: logged, the sequence goes on, unlockUI runs', async (t) => {
  await quiet(t, async (logged) => {
    const bad = { then() { throw new Error('then threw'); } };
    const c = await hostRun({ redraw() { return bad; } }, 'commit');
    assert.equal(c.result.status, 'committed');
    assert.deepEqual(c.log.slice(-5), ['persist', 'emit', 'emit', 'afterCommit', 'unlockUI']);
    assert.ok(logged.some((a) => a[1]?.message === 'then threw'));
    const a = await hostRun({ writeSlot() { return bad; } }, 'abort');
    assert.equal(a.result.status, 'aborted');
    assert.equal(a.log.at(-1), 'unlockUI');
  });
});

test('T62: a readSlot result whose text getter throws fails readSlot, read once; the run still resolves', async (t) => {
  await quiet(t, async (logged) => {
    let reads = 0;
    const r = await hostRun({ readSlot() { return { get text() { reads++; throw new Error('text getter'); }, reasoning: '' }; } }, 'commit');
    assert.equal(r.result.status, 'committed');
    assert.equal(reads, 1);
    assert.ok(logged.some((a) => a[1]?.message === 'text getter'));
    const revoked = Proxy.revocable({}, {});
    revoked.revoke();
    const v = await hostRun({ readSlot() { return revoked.proxy; } }, 'commit');
    assert.equal(v.result.status, 'committed');
  });
});

test('T53 T54: a getter of init or host that throws fails validation at its path, with the thrown value as cause (the only rejection)', async () => {
  const st = fakeHost();
  const boom = new Error('host trap');
  const signal = new AbortController().signal;
  const refused = async (p, message) => {
    const e = await rejected(p);
    assert.ok(e instanceof TakeoverError, String(e));
    assert.equal(e.code, 'invalid_argument');
    assert.equal(e.message, message);
    assert.equal(e.cause, boom);
  };
  const host = new Proxy(st.host, { get() { throw boom; } });
  let p;
  assert.doesNotThrow(() => { p = runTakeover({ type: 'normal', abortSignal: signal }, host); });
  await refused(p, 'runTakeover: host.emit must be a function');
  await refused(runTakeover({ type: 'normal', get abortSignal() { throw boom; } }, st.host), 'runTakeover: init.abortSignal must be an AbortSignal');
  await refused(runTakeover({ type: 'normal', abortSignal: signal }, { ...st.host, get writeSlot() { throw boom; } }), 'runTakeover: host.writeSlot must be a function');
  await refused(runTakeover({ type: 'normal', abortSignal: signal }, { ...st.host, get cleanupText() { throw boom; } }), 'runTakeover: host.cleanupText must be a function');
  await refused(runTakeover({ type: 'normal', abortSignal: signal }, { ...st.host, get eventTypes() { throw boom; } }), 'runTakeover: host.eventTypes must be an object');
  assert.deepEqual(st.log, [], 'nothing emitted, nothing called');
  // A field T54 does not check reads as absent: the turn runs, not dispatched.
  assert.deepEqual(await runTakeover({ get type() { throw boom; }, abortSignal: signal }, fakeHost().host), { dispatched: false, claimed: false });
  assert.deepEqual(await run(fakeHost(), 'normal'), { dispatched: true, claimed: false }); // the next run works
});

test('T69 T71: installTakeoverContext installs all three or nothing, and says so with invalid_argument', () => {
  const refusal = (where) => (e) => e instanceof TakeoverError && e.code === 'invalid_argument' && e.cause instanceof TypeError
    && e.message.startsWith(`installTakeoverContext: ${where} cannot be written (`) && e.message.endsWith('); nothing was installed');
  const ctx = { eventTypes: 5 };
  assert.throws(() => installTakeoverContext(ctx), refusal('context.eventTypes'));
  assert.deepEqual(Object.keys(ctx), ['eventTypes']);
  const frozen = { eventTypes: Object.freeze({ A: 'a' }) };
  assert.throws(() => installTakeoverContext(frozen), refusal('context.eventTypes'));
  assert.deepEqual(Object.keys(frozen), ['eventTypes']);
  const sealed = Object.preventExtensions({ eventTypes: { A: 'a' } });
  assert.throws(() => installTakeoverContext(sealed), refusal('context'));
  assert.deepEqual(Object.keys(sealed.eventTypes), ['A'], 'the event name written first is taken back');
  assert.throws(() => installTakeoverContext(Object.freeze({})), refusal('context'));
  const ok = installTakeoverContext({});
  assert.equal(typeof ok.createMessageEditorHandle, 'function');
  assert.equal(ok.eventTypes.GENERATE_TAKEOVER_DISPATCH, 'generate_takeover_dispatch');
});

test('O32: an iterator result whose done or value getter throws rejects pipeFrom with the thrown value', async () => {
  for (const which of ['done', 'value']) {
    const h = createMessageEditorHandle({ generationType: 'normal' });
    const boom = new Error(which);
    const result = which === 'done' ? { get done() { throw boom; }, value: 1 } : { done: false, get value() { throw boom; } };
    let returned = false;
    const stream = { [Symbol.asyncIterator]() { return { next: async () => result, return() { returned = true; return {}; } }; } };
    assert.equal(await rejected(pipeFrom(h, stream)), boom);
    assert.equal(returned, false, 'a malformed result does not close the iterator, as for await');
  }
});

test('O14 O15: a patch array whose length promises more than it holds fails at its first hole at once', () => {
  const h = createMessageEditorHandle({ generationType: 'normal', originalText: 'abc' });
  h.setText('abc');
  const sparse = [];
  sparse.length = 2 ** 32 - 1;
  const t0 = performance.now();
  assert.throws(() => applyPatch(h, sparse), (err) => err.details?.reason === 'not_an_object' && err.details.index === 0);
  assert.ok(performance.now() - t0 < 1000);
  const holes = [{ kind: 'insert_at', offset: 0, text: 'X' }];
  holes.length = 1e7;
  assert.throws(() => applyPatch(h, holes), (err) => err.details?.reason === 'not_an_object' && err.details.index === 1);
  assert.equal(h.getText(), 'abc', 'nothing applied');
  applyPatch(h, [{ kind: 'insert_at', offset: 0, text: 'X' }]);
  assert.equal(h.getText(), 'Xabc');
});

test('O3 O5: an onUpdate callback that rewrites the reasoning during a section append is not undone by the next append', () => {
  const ops = (h) => {
    ensureReasoningSection(h, 'a');
    appendToReasoningSection(h, 'a', 'p');
    appendToReasoningSection(h, 'a', 'q\n');
    appendToReasoningSection(h, 'a', 'secret\n'); // the callback masks this once, keeping the length
    ensureReasoningSection(h, 'a'); // a no-op
    appendToReasoningSection(h, 'a', 'z\n');
    return h.getReasoning();
  };
  const mask = (r) => r.replace('secret', '******');
  const h = createMessageEditorHandle({ generationType: 'normal', flushIntervalMs: 0 });
  let masked = false;
  h.setOnUpdate((text, reasoning) => { if (!masked && reasoning.includes('secret')) { masked = true; h.setReasoning(mask(reasoning)); } });
  let dmasked = false;
  const duck = { r: '', getText: () => '', setText() {}, getReasoning: () => duck.r,
    setReasoning(v) { duck.r = v; if (!dmasked && v.includes('secret')) { dmasked = true; duck.r = mask(v); } } };
  const want = ops(duck);
  assert.ok(want.includes('******z'));
  assert.equal(ops(h), want);
});

// T53, T54, T58, T62: init is read once, when the turn is described. A
// generationToken getter that threw on its second read (the first liveness
// check) rejected runTakeover mid-turn: the commit was never persisted and
// the UI stayed locked; a type getter that changed on its second read routed
// Go on one type and the host callbacks on another (hostile probe).
test('T53/T62: runTakeover reads each init field once; later getter behaviour cannot lose a commit or split its type', async () => {
  const plain = () => {
    const ac = new AbortController();
    return { type: 'normal', isContinue: false, forceName2: false, isStreamingEnabled: true, finalPrompt: 'p', generateData: {},
      abortSignal: ac.signal, generationToken: 1 };
  };
  const reads = {};
  const tricky = plain();
  for (const [key, second] of [['generationToken', () => { throw new Error('token read again'); }], ['type', () => ({ evil: 1 })],
    ['isContinue', () => { throw new Error('isContinue read again'); }]]) {
    const first = tricky[key];
    delete tricky[key];
    Object.defineProperty(tricky, key, { enumerable: true, get() { reads[key] = (reads[key] ?? 0) + 1; return reads[key] > 1 ? second() : first; } });
  }
  const st = fakeHost();
  let h;
  st.listeners.push((p) => { h = createMessageEditorHandle({ generationType: 'normal', flushIntervalMs: 0 }); p.takeoverHandle = h; });
  const done = runTakeover(tricky, st.host);
  await new Promise((r) => setTimeout(r, 10));
  h.setText('hello');
  h.commit();
  const r = await done;
  assert.equal(r.status, 'committed');
  assert.equal(r.text, 'hello');
  assert.deepEqual(reads, { generationToken: 1, type: 1, isContinue: 1 });
  const names = st.log.map((x) => x[0]);
  for (const n of ['persist', 'afterCommit', 'unlockUI']) assert.ok(names.includes(n), `${n} ran: ${names}`);
  for (const x of st.log.filter((e) => e[0] === 'persist' || e[0] === 'afterCommit')) assert.equal(x[2].type, 'normal');
});
