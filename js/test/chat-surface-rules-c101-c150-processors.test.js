// Content processor rules C113–C131 (spec/chatsurface.md §12) in static
// mode: clauses no other suite pins down. One processor, registered with an
// untrimmed id and an extra field before any projection (C113); each test
// sets what it does.
import { test, beforeEach } from 'node:test';
import assert from 'node:assert/strict';
import { makeRoot, frames, formatMessage, materializer, messages, thrown } from './chat-surface-fixture.js';
import { installChatSurfaceApi, createChatSurfaceHost } from '../chat-surface.js';

const api = installChatSurfaceApi(globalThis, { managed: false });
const log = [];
const hook = {}; // extra participant behaviour per test
api.registerParticipant({
  id: 'P',
  protocolVersion: 1,
  prepareContent({ mesid, content }) { log.push(`prep:${mesid}:${content.innerHTML}`); },
  didMount({ mesid }) { log.push(`mount:${mesid}`); },
  didCommitContent({ mesid, signal }) {
    log.push(`commit:${mesid}`);
    hook.commit?.(mesid);
    return () => log.push(`content-closed:${mesid}:${signal.reason}`);
  },
});
const pass = (ctx, renderBase) => renderBase();
let behave = pass;
const calls = [];
const ID = ' proc ';
const REG = api.registerContentProcessor({
  id: ID, foo: 1, refresh: 'ignored', prepare(ctx, renderBase) { calls.push(ctx); return behave(ctx, renderBase); },
});

function deferred() {
  let resolve;
  let reject;
  const promise = new Promise((res, rej) => { resolve = res; reject = rej; });
  return { promise, resolve, reject };
}
const settle = () => new Promise((r) => { setImmediate(r); });

let live;
beforeEach(() => {
  live?.();
  behave = pass;
  for (const k of Object.keys(hook)) delete hook[k];
});
function setup(chat, hostOpts = {}) {
  live?.();
  calls.length = 0;
  log.length = 0;
  const root = makeRoot();
  const faults = [];
  const emits = [];
  const formats = [];
  const host = createChatSurfaceHost({
    root, getMessages: () => chat, materialize: materializer(),
    formatMessage: (m, mesid) => { formats.push([m, mesid]); return formatMessage(m, mesid); },
    emit: (...args) => { emits.push(args); }, ...frames(), onFault: (f) => faults.push(f), ...hostOpts,
  });
  const text = (m) => host.getMessageElement(m)?.querySelector('.mes_text');
  const done = () => {
    try { host.dispose(); } catch { /* a failing reset still disposes */ }
    root.remove();
    live = undefined;
  };
  live = done;
  return { root, host, faults, emits, formats, text, done };
}

test('C113: the id is kept untrimmed (failures name it exactly); other fields are ignored', async () => {
  const chat = messages(1);
  const { host, done } = setup(chat);
  behave = () => 5;
  const e = await host.render().then(() => null, (x) => x);
  assert.equal(e.message, `ChatSurface content processor ${ID} failed for message 0`);
  assert.equal(e.cause.message, 'prepare must return an HTML string');
  done();
});

test('C117: a change before renderBase re-formats the base with formatMessage(message, mesid), normalised through innerHTML', async () => {
  const chat = messages(2);
  const { host, text, formats, done } = setup(chat);
  const bases = [];
  behave = async (ctx, renderBase) => {
    if (ctx.mesid === 1) ctx.message.mes = '<b>Y';
    const b = await renderBase();
    bases.push(b);
    return b;
  };
  formats.length = 0;
  await host.render();
  // Message 0's base is the content HTML captured at the start; message 1's
  // is formatMessage's '<p><b>Y</p>' after an innerHTML round trip.
  assert.deepEqual(bases, ['<p>m0</p>', '<p><b>Y</b></p>']);
  assert.ok(formats.some(([m, mesid]) => m === chat[1] && mesid === 1), 'formatMessage(message, mesid)');
  assert.equal(text(1).innerHTML, '<p><b>Y</b></p>');
  assert.equal(host.getFault(), null);
  done();
});

test('C121/C122: the version is [mes, swipe_id ?? 0, extra.display_text, name, is_user, is_system, role]', async () => {
  const chat = [{ mes: 'm0' }];
  const { host, text, done } = setup(chat);
  await host.render();
  assert.equal(calls.length, 1);
  // Changes outside the version, with the same HTML, reuse the result
  // synchronously (C122): no request, content prepared in the same call.
  for (const change of [(m) => { m.swipe_id = 0; }, (m) => { m.extra = { foo: 1 }; }, (m) => { m.send_date = 'x'; },
    (m) => { m.swipes = ['a']; }]) {
    change(chat[0]);
    host.updateContent(0);
    assert.equal(calls.length, 1, String(change));
    assert.equal(text(0).innerHTML, '<p>m0</p>');
    assert.equal(text(0).hasAttribute('aria-busy'), false);
  }
  let n = 1;
  for (const change of [(m) => { m.swipe_id = 1; }, (m) => { m.extra.display_text = 'shown'; }, (m) => { m.name = 'Bob'; },
    (m) => { m.is_user = true; }, (m) => { m.is_system = false; }, (m) => { m.role = 'assistant'; }]) {
    change(chat[0]);
    host.updateContent(0);
    assert.equal(calls.length, ++n, String(change));
    assert.equal(text(0).getAttribute('aria-busy'), 'true');
    await host.finishContent(0);
    assert.equal(text(0).innerHTML, '<p>m0</p>');
  }
  assert.equal(host.getFault(), null);
  done();
});

test('C119/C121: changing a version field other than mes (name) after renderBase fails the processor', async () => {
  const chat = messages(1);
  const { host, faults, done } = setup(chat);
  behave = async (ctx, renderBase) => { const b = await renderBase(); ctx.message.name = 'changed'; return b; };
  const e = await host.render().then(() => null, (x) => x);
  assert.equal(e.message, `ChatSurface content processor ${ID} failed for message 0`);
  assert.equal(e.cause.message, `ChatSurface content processor ${ID} changed message 0 after renderBase`);
  assert.deepEqual(faults, [e]);
  done();
});

test('C122: an update of a pending message with nothing changed keeps the pending request', async () => {
  const chat = messages(1);
  const { host, text, done } = setup(chat);
  const gate = deferred();
  behave = async (ctx, renderBase) => { await gate.promise; return renderBase(); };
  const p = host.render();
  assert.equal(calls.length, 1);
  assert.equal(host.updateContent(0), true);
  assert.equal(calls.length, 1, 'no new request');
  assert.equal(calls[0].signal.aborted, false);
  assert.deepEqual(host.snapshot().pendingPreparations, [0]);
  gate.resolve();
  assert.equal(await p, undefined);
  assert.equal(text(0).innerHTML, '<p>m0</p>');
  assert.equal(calls.length, 1);
  done();
});

test('C123: the host never writes extra.display_text', async () => {
  const chat = [{ mes: 'a' }, { mes: 'b', extra: { display_text: 'kept' } }];
  const { host, text, done } = setup(chat);
  behave = async (ctx, renderBase) => `<i>${await renderBase()}</i>`;
  await host.render();
  assert.equal('extra' in chat[0], false);
  assert.deepEqual(chat[1].extra, { display_text: 'kept' });
  assert.equal(text(0).innerHTML, '<i><p>a</p></i>');
  done();
});

test('C125: a result commits under content-commit: prepareContent on the result, the old content closes with content-update, then didCommitContent', async () => {
  const chat = messages(1);
  const { host, done } = setup(chat);
  await host.render();
  const gate = deferred();
  behave = async (ctx, renderBase) => { await gate.promise; return `<em>${await renderBase()}</em>`; };
  chat[0].mes = 'edited';
  log.length = 0;
  host.updateContent(0);
  const before = log.slice();
  gate.resolve();
  await host.finishContent(0);
  // Whether the old content closes when the update starts or at the commit,
  // it closes with content-update, and prepareContent sees the result.
  assert.deepEqual([...before, ...log.slice(before.length)].filter((l) => !l.startsWith('mount')), [
    ...(before.length ? ['content-closed:0:content-update'] : []),
    'prep:0:<em><p>edited</p></em>',
    ...(before.length ? [] : ['content-closed:0:content-update']),
    'commit:0',
  ]);
  done();
});

test('C110/C125: a host call made from a hook of a result commit reenters content-commit and faults', async () => {
  const chat = messages(1);
  const { host, faults, done } = setup(chat);
  let seen;
  hook.commit = () => { try { host.render(); } catch (e) { seen = e; } };
  await host.render().catch(() => {});
  assert.ok(seen);
  assert.equal(seen.message, 'ChatSurface mutation render reentered during content-commit');
  assert.equal(host.getFault(), seen);
  assert.deepEqual(faults, [seen]);
  done();
});

test('C126/C130: a Promise waiting on a superseded request fulfils when that request settles, not with the later one', async () => {
  const chat = messages(1);
  const { host, text, done } = setup(chat);
  const gates = [deferred(), deferred()];
  let k = 0;
  behave = async (ctx, renderBase) => { await gates[k++].promise; return renderBase(); };
  const first = host.render();
  let firstDone = false;
  first.then(() => { firstDone = true; });
  chat[0].mes = 'edited';
  host.updateContent(0); // supersedes and aborts the first request
  assert.equal(calls[0].signal.aborted, true);
  gates[0].resolve();
  assert.equal(await first, undefined);
  assert.equal(firstDone, true);
  assert.equal(calls.length, 2, 'the edit started a second request');
  assert.equal(text(0).getAttribute('aria-busy'), 'true');
  gates[1].resolve();
  await host.finishContent(0);
  assert.equal(text(0).innerHTML, '<p>edited</p>');
  done();
});

test('C130: render() waits for every message it mounted and rejects with the first failure', async () => {
  const chat = messages(3);
  const { host, done } = setup(chat);
  const gate = deferred();
  behave = async (ctx, renderBase) => {
    if (ctx.mesid === 1) await gate.promise;
    if (ctx.mesid === 1) throw new Error('one');
    if (ctx.mesid === 2) throw new Error('two');
    return renderBase();
  };
  let settled = false;
  const p = host.render().finally(() => { settled = true; });
  await settle();
  assert.equal(settled, false, 'message 1 is still pending');
  gate.resolve();
  const e = await p.then(() => null, (x) => x);
  assert.equal(e.message, `ChatSurface content processor ${ID} failed for message 1`);
  assert.equal(e.cause.message, 'one');
  assert.equal(host.getFault(), e);
  done();
});

test('C129: refresh() skips transient messages and messages with a .reasoning_edit_textarea; with nothing mounted it resolves', async () => {
  const chat = messages(3);
  const { host, done } = setup(chat);
  await host.render();
  host.updateContent(0, { transient: true });
  const ta = document.createElement('textarea');
  ta.className = 'reasoning_edit_textarea';
  host.getMessageElement(1).append(ta);
  calls.length = 0;
  await REG.refresh();
  assert.deepEqual(calls.map((c) => c.mesid), [2]);
  assert.equal(host.getMessageElement(1).querySelector('.reasoning_edit_textarea'), ta);
  host.resetEpoch();
  calls.length = 0;
  assert.equal(await REG.refresh(), undefined);
  assert.equal(calls.length, 0);
  done();
});

test('C131: step 1 errors throw synchronously; a failed request rejects and emits nothing', async () => {
  const chat = messages(2);
  const { host, emits, faults, done } = setup(chat);
  await host.render();
  host.updateContent(1, { transient: true });
  chat.reverse(); // no render(): the transient object is now at 0, where 0's root is mounted
  const e = thrown(() => host.finishContent(0, 'ev'));
  assert.equal(e.message, 'ChatSurface message 0 changed structure before content reconciliation');
  chat.reverse();
  assert.deepEqual(emits, []);
  host.resetEpoch();
  faults.length = 0;
  behave = async () => { throw new Error('bad'); };
  host.render().catch(() => {});
  const r = await host.finishContent(0, 'character_message_rendered').then(() => null, (x) => x);
  assert.equal(r.message, `ChatSurface content processor ${ID} failed for message 0`);
  await settle();
  assert.deepEqual(emits, []);
  done();
});

test('C131: the transient update is synchronous; emit is awaited, and its rejection rejects finishContent', async () => {
  const chat = messages(1);
  const emitted = [];
  let answer;
  const { host, text, done } = setup(chat, {
    emit: (...a) => { emitted.push(a); answer = deferred(); return answer.promise; },
  });
  await host.render();
  host.updateContent(0, { transient: true });
  chat[0].mes = 'streamed';
  host.updateContent(0, { transient: true });
  assert.equal(text(0).innerHTML, '<p>streamed</p>');
  assert.equal(calls.length, 1);
  let finished = false;
  const p = host.finishContent(0, 'character_message_rendered', 'x').then(() => { finished = true; });
  assert.equal(calls.length, 2, 'step 1 updated the message within the call');
  assert.equal(text(0).getAttribute('aria-busy'), 'true');
  await settle();
  assert.equal(text(0).innerHTML, '<p>streamed</p>');
  assert.deepEqual(emitted, [['character_message_rendered', 0, 'x']]);
  assert.equal(finished, false, 'waits for emit\'s Promise');
  answer.resolve();
  await p;
  assert.equal(finished, true);
  const boom = new Error('listener failed');
  const p2 = host.finishContent(0, 'message_updated');
  await settle();
  answer.reject(boom);
  assert.equal(await p2.then(() => null, (x) => x), boom);
  assert.equal(host.getFault(), null);
  done();
});

test('C111: processor results, refresh() and transient updates never call emit', async () => {
  const chat = messages(2);
  const { host, emits, done } = setup(chat);
  await host.render();
  chat[0].mes = 'edited';
  host.updateContent(0);
  await host.finishContent(0);
  host.updateContent(1, { transient: true });
  host.updateContent(1);
  await REG.refresh();
  await host.finishContent(1);
  assert.ok(calls.length >= 5);
  assert.deepEqual(emits, []);
  done();
});
