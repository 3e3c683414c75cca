// Content processors through the public JS API, managed mode
// (spec/chatsurface.md §12, §16 S73–S77, S80–S87). The page's chain is
// `outer` then `inner`, registered once before any projection (C113, C114);
// each test sets how they behave. Evaluations are counted by inner calls.
import { test, beforeEach } from 'node:test';
import assert from 'node:assert/strict';
import { makeRoot, frames, formatMessage, materializer, messages } from './chat-surface-fixture.js';
import { installChatSurfaceApi, createChatSurfaceHost } from '../chat-surface.js';

const api = installChatSurfaceApi(globalThis, { managed: true });

const log = [];
api.registerParticipant({
  id: 'P',
  protocolVersion: 1,
  prepareContent({ mesid, content }, claims) {
    log.push(`prep:${mesid}`);
    for (const pre of content.querySelectorAll('pre')) claims.claim(pre, ({ mesid: m }) => { log.push(`act:${m}`); return () => {}; });
  },
  didMount({ mesid }) { log.push(`mount:${mesid}`); },
  didCommitContent({ mesid }) { log.push(`commit:${mesid}`); },
});

const pass = (ctx, renderBase) => renderBase();
const behave = { outer: pass, inner: pass };
const calls = { outer: [], inner: [] };
const registration = api.registerContentProcessor({
  id: 'outer', prepare(ctx, renderBase) { calls.outer.push(ctx); return behave.outer(ctx, renderBase); },
});
api.registerContentProcessor({
  id: 'inner', prepare(ctx, renderBase) { calls.inner.push(ctx); return behave.inner(ctx, renderBase); },
});

function deferred() {
  let resolve;
  let reject;
  const promise = new Promise((res, rej) => { resolve = res; reject = rej; });
  return { promise, resolve, reject };
}
const settle = () => new Promise((r) => { setImmediate(r); });

let live; // the page holds one live host: a failed test's host is disposed before the next test
beforeEach(() => {
  live?.();
  behave.outer = pass;
  behave.inner = pass;
});
function setup(chat, opts = {}, hostOpts = {}) {
  live?.();
  calls.outer.length = 0;
  calls.inner.length = 0;
  log.length = 0;
  const root = makeRoot(opts);
  const sched = frames();
  const faults = [];
  const emits = [];
  const host = createChatSurfaceHost({
    root, getMessages: () => chat, materialize: materializer(), formatMessage,
    emit: (...args) => { emits.push(args); }, ...sched, onFault: (f) => faults.push(f), ...hostOpts,
  });
  const text = (m) => host.getMessageElement(m)?.querySelector('.mes_text');
  const done = () => {
    host.dispose();
    root.remove();
    live = undefined;
  };
  live = done;
  return { root, sched, host, faults, emits, text, done };
}

// An opened host rendering n new messages, one turn of the queue later.
async function rendering(n) {
  const chat = [];
  const s = setup(chat);
  await s.host.open();
  chat.push(...messages(n));
  const p = s.host.render();
  await settle();
  return { ...s, chat, p };
}

test('C113/C129: the registration is a frozen { refresh }, the same for every processor', () => {
  assert.ok(Object.isFrozen(registration));
  assert.deepEqual(Object.keys(registration), ['refresh']);
  assert.equal(typeof registration.refresh, 'function');
});

test('C129: refresh() without a live host resolves after clearing', async () => {
  assert.equal(await registration.refresh(), undefined);
});

test('S73/C115/C116: outer:in, inner:in, inner:out, outer:out; renderBase memoised; one frozen ctx', async () => {
  const order = [];
  let same;
  behave.outer = async (ctx, renderBase) => {
    order.push('outer:in');
    same = renderBase() === renderBase();
    const h = await renderBase();
    order.push('outer:out');
    return `<b>${h}</b>`;
  };
  behave.inner = async (ctx, renderBase) => {
    order.push('inner:in');
    const h = await renderBase();
    order.push('inner:out');
    return `<i>${h}</i>`;
  };
  const chat = messages(1);
  const { host, text, done } = setup(chat);
  const p = host.open();
  assert.ok(p instanceof Promise);
  assert.equal(await p, undefined);
  assert.deepEqual(order, ['outer:in', 'inner:in', 'inner:out', 'outer:out']);
  assert.equal(same, true);
  assert.equal(calls.inner.length, 1);
  assert.equal(text(0).innerHTML, '<b><i><p>m0</p></i></b>');
  const [ctx] = calls.outer;
  assert.equal(calls.inner[0], ctx, 'one ctx shared by all processors');
  assert.ok(Object.isFrozen(ctx));
  assert.deepEqual(Object.keys(ctx), ['message', 'mesid', 'signal']);
  assert.equal(ctx.message, chat[0]);
  assert.equal(ctx.mesid, 0);
  assert.ok(ctx.signal instanceof AbortSignal);
  assert.equal(ctx.signal.aborted, false);
  done();
});

test('results come back only through Promise callbacks, never synchronously', async () => {
  behave.outer = () => '<p>sync</p>';
  const { host, text, done } = setup(messages(1));
  const p = host.open();
  assert.equal(text(0).getAttribute('aria-busy'), 'true', 'a synchronous string is still delivered later');
  assert.equal(text(0).childNodes.length, 0);
  await p;
  assert.equal(text(0).innerHTML, '<p>sync</p>');
  assert.equal(text(0).hasAttribute('aria-busy'), false);
  done();
});

test('S74/C124/C125: pending content is empty and busy; the result commits, then the runtime is granted', async () => {
  const gate = deferred();
  behave.inner = async (ctx, renderBase) => { await gate.promise; return renderBase(); };
  const chat = [{ mes: 'm0<pre>x</pre>' }];
  const { host, text, sched, done } = setup(chat);
  const p = host.open();
  await settle();
  assert.equal(text(0).childNodes.length, 0);
  assert.equal(text(0).getAttribute('aria-busy'), 'true');
  assert.deepEqual(log, ['mount:0']);
  assert.deepEqual(host.snapshot().pendingPreparations, [0]);
  gate.resolve();
  await p;
  const want = document.createElement('div');
  want.innerHTML = formatMessage(chat[0]);
  assert.equal(text(0).innerHTML, want.innerHTML);
  assert.equal(text(0).hasAttribute('aria-busy'), false);
  assert.deepEqual(log, ['mount:0', 'prep:0', 'commit:0']);
  assert.deepEqual(host.snapshot().pendingPreparations, []);
  sched.flush();
  assert.deepEqual(log, ['mount:0', 'prep:0', 'commit:0', 'act:0']);
  done();
});

test('S75/C122: a completed message scrolled out and back is applied synchronously; new HTML re-evaluates', async () => {
  const chat = messages(100);
  const { host, text, sched, done } = setup(chat);
  await host.open();
  sched.flush();
  const evals = calls.inner.length;
  host.jumpToMessage(50);
  sched.flush();
  await settle();
  sched.flush();
  assert.equal(text(50).innerHTML, '<p>m50</p>');
  host.jumpToMessage(10);
  sched.flush();
  await settle();
  sched.flush();
  assert.ok(!host.snapshot().mounted.includes(50), 'scrolled out');
  const before = calls.inner.length;
  log.length = 0;
  host.jumpToMessage(50);
  assert.equal(text(50).innerHTML, '<p>m50</p>', 'applied in the same commit');
  assert.equal(text(50).hasAttribute('aria-busy'), false);
  assert.ok(log.includes('prep:50'));
  sched.flush();
  await settle();
  assert.equal(calls.inner.length, before, 'no new evaluation');
  assert.ok(evals > 0);
  done();
});

test('S75b/C122: when formatMessage yields different HTML, a new evaluation runs', async () => {
  const chat = messages(1);
  let n = 0;
  const { host, done } = setup(chat, {}, {
    formatMessage: (m) => `<p>${m.mes}${'!'.repeat(n)}</p>`,
    materialize: (m) => {
      const el = document.createElement('div');
      el.className = 'mes';
      el.innerHTML = `<div class="mes_text"><p>${m.mes}${'!'.repeat(n)}</p></div>`;
      return el;
    },
  });
  await host.open();
  assert.equal(calls.inner.length, 1);
  host.render({ replace: [0] });
  await settle();
  assert.equal(calls.inner.length, 1, 'same base: cached');
  n = 1;
  await host.render({ replace: [0] });
  assert.equal(calls.inner.length, 2, 'different base: evaluated again');
  assert.equal(host.getMessageElement(0).querySelector('.mes_text').innerHTML, '<p>m0!</p>');
  done();
});

test('S76/C123: cached results survive renumbering and reinsertion; edits and refresh() re-evaluate', async () => {
  const chat = [{ mes: 'a<pre>0</pre>' }, { mes: 'b' }];
  const all = [...chat];
  const { host, text, sched, done } = setup(chat);
  await host.open();
  sched.flush();
  assert.equal(calls.inner.length, 2);
  const pre0 = text(0).querySelector('pre');
  chat.splice(0, 2, all[1]);
  await host.render();
  chat.splice(0, 1, all[0], all[1]);
  await host.render();
  sched.flush();
  assert.equal(calls.inner.length, 2);
  assert.equal(pre0.isConnected, false);
  assert.notEqual(text(0).querySelector('pre'), pre0);
  chat.shift();
  await host.render();
  assert.equal(calls.inner.length, 2);
  chat[0].mes = 'edited';
  host.updateContent(0);
  await host.finishContent(0);
  assert.equal(calls.inner.length, 3);
  assert.equal(text(0).innerHTML, '<p>edited</p>');
  await registration.refresh();
  assert.equal(calls.inner.length, 4);
  done();
});

test('S77/C117: a change before renderBase re-formats the base; a remount or reinsertion runs no evaluation', async () => {
  behave.outer = (ctx, renderBase) => { ctx.message.mes = 'Y'; return renderBase(); };
  const chat = messages(2);
  const { host, text, done } = setup(chat);
  await host.open();
  assert.equal(text(0).innerHTML, '<p>Y</p>');
  assert.equal(calls.outer.length, 2);
  behave.outer = pass;
  await host.render({ replace: [0] });
  assert.equal(calls.outer.length, 2, 'remount: no evaluation');
  const m0 = chat.shift();
  await host.render();
  chat.push(m0);
  await host.render();
  assert.equal(calls.outer.length, 2, 'reinserted elsewhere: no evaluation');
  assert.equal(text(1).innerHTML, '<p>Y</p>');
  done();
});

test('C117/C119: a re-format that throws leaves the request its version, so the change fails the layer that made it', async () => {
  behave.inner = async (ctx, renderBase) => {
    ctx.message.mes = 'Y';
    try { return await renderBase(); } catch (e) { return `<p>fallback: ${e.message}</p>`; }
  };
  const fmt = (m, i) => { if (m.mes === 'Y') throw new Error('no format'); return formatMessage(m, i); };
  const { host, faults, done } = setup(messages(1), {}, { formatMessage: fmt });
  const err = await host.open().then(() => null, (e) => e);
  assert.equal(err?.message, 'ChatSurface content processor outer failed for message 0');
  assert.equal(err.cause.message, 'ChatSurface content processor inner failed for message 0');
  assert.equal(err.cause.cause.message, 'ChatSurface content processor inner changed message 0 after renderBase');
  assert.deepEqual(faults, [err]);
  done();
});

test('S80/C118/C127: an inner throw nests the causes; the epoch faults and nothing is prepared', async () => {
  behave.inner = () => { throw 'deep'; };
  const { host, text, faults, done } = setup(messages(1));
  const err = await host.open().then(() => null, (e) => e);
  assert.equal(err.message, 'ChatSurface content processor outer failed for message 0');
  assert.equal(err.cause.message, 'ChatSurface content processor inner failed for message 0');
  assert.equal(err.cause.cause, 'deep');
  assert.equal(host.getFault(), err);
  assert.deepEqual(faults, [err]);
  assert.equal(log.includes('prep:0'), false);
  assert.equal(text(0).textContent, '');
  assert.equal(text(0).getAttribute('aria-busy'), 'true');
  done();
});

test('C118: an outer processor that catches a failed renderBase recovers the request', async () => {
  behave.inner = async () => { throw new Error('inner broke'); };
  behave.outer = async (ctx, renderBase) => { try { return await renderBase(); } catch { return '<p>fallback</p>'; } };
  const { host, text, faults, done } = setup(messages(1));
  await host.open();
  assert.equal(text(0).innerHTML, '<p>fallback</p>');
  assert.deepEqual(faults, []);
  assert.equal(host.getFault(), null);
  done();
});

test('S81/C120: one FIFO queue; a failure does not block it', async () => {
  const order = [];
  const g0 = deferred();
  behave.outer = async (ctx, renderBase) => {
    order.push(`start${ctx.mesid}`);
    if (ctx.mesid === 0) await g0.promise;
    else await settle();
    const h = await renderBase();
    order.push(`end${ctx.mesid}`);
    return h;
  };
  const { done, p } = await rendering(2);
  await settle();
  assert.deepEqual(order, ['start0']);
  g0.resolve();
  await p;
  assert.deepEqual(order, ['start0', 'end0', 'start1', 'end1']);
  done();

  const order2 = [];
  const chat2 = [];
  const s = setup(chat2);
  await s.host.open();
  chat2.push(...messages(2));
  behave.outer = async (ctx, renderBase) => {
    order2.push(`start${ctx.mesid}`);
    if (ctx.mesid === 0) throw new Error('zero fails');
    return renderBase();
  };
  const e = await s.host.render().then(() => null, (x) => x);
  assert.equal(e.message, 'ChatSurface content processor outer failed for message 0');
  await settle();
  await settle();
  assert.deepEqual(order2, ['start0', 'start1']);
  s.done();
});

test('S82/C126/C125: a renumbered pending request aborts; a new one starts; the old result is never written', async () => {
  const gates = [];
  behave.outer = (ctx) => { const d = deferred(); gates.push({ ctx, d }); return d.promise; };
  const chat = [];
  const { host, text, done } = setup(chat);
  await host.open();
  chat.push(...messages(2));
  const p = host.render();
  await settle();
  assert.equal(gates.length, 1);
  gates[0].d.resolve('<p>zero</p>');
  await settle();
  await settle();
  assert.equal(gates.length, 2);
  const old = gates[1];
  assert.equal(old.ctx.mesid, 1);
  chat.shift();
  const p2 = host.render();
  assert.equal(old.ctx.signal.aborted, true);
  assert.equal(old.ctx.signal.reason.name, 'AbortError');
  old.d.resolve('<p>stale</p>');
  assert.equal(await p, undefined, 'an abort never rejects');
  await settle();
  assert.equal(gates.length, 3);
  assert.equal(gates[2].ctx.mesid, 0);
  assert.equal(gates[2].ctx.message, old.ctx.message);
  assert.notEqual(text(0).innerHTML, '<p>stale</p>');
  gates[2].d.resolve('<p>fresh</p>');
  await p2;
  assert.equal(text(0).innerHTML, '<p>fresh</p>');
  done();
});

// The facade makes a request's AbortController when ctx.signal is first read:
// a signal read before the abort fires its listeners; one first read after
// the abort is already aborted, with C8's AbortError; one first read after the
// request completed (and Go released it) is live. Each read is the same object.
test('C8/C116: ctx.signal read before the abort, after it, and after the request completed', async () => {
  const gates = [];
  behave.outer = (ctx) => { const d = deferred(); gates.push({ ctx, d }); return d.promise; };
  const { host, chat, done, p } = await rendering(2);
  gates[0].d.resolve('<p>zero</p>');
  await settle();
  await settle();
  assert.equal(gates.length, 2);
  const unread = gates[1].ctx; // message 1's request: its signal not read yet
  chat.shift();
  const p2 = host.render(); // renumbered: the request aborts (C126)
  assert.equal(unread.signal.aborted, true, 'first read after the abort: already aborted');
  assert.equal(unread.signal.reason.name, 'AbortError');
  assert.equal(unread.signal, unread.signal, 'one signal per request');
  gates[1].d.resolve('<p>stale</p>');
  await p;
  await settle();
  assert.equal(gates.length, 3, 'the new request for the message now at 0');
  const early = gates[2].ctx.signal; // read while pending
  const heard = [];
  early.addEventListener('abort', () => heard.push(early.reason.name));
  const r = registration.refresh(); // aborts every pending request (C129)
  assert.deepEqual(heard, ['AbortError']);
  gates[2].d.resolve('<p>stale again</p>');
  await settle();
  for (const g of gates.slice(3)) g.d.resolve('<p>fresh</p>');
  await r;
  await p2;
  const first = gates[0].ctx.signal; // message 0's request completed long ago (Go released it)
  assert.ok(first instanceof AbortSignal);
  assert.equal(first.aborted, false, 'a completed request was never aborted');
  assert.equal(gates[0].ctx.signal, first);
  done();
});

test('S83/C128: marking a pending message transient aborts it; the late result is ignored', async () => {
  const gate = deferred();
  behave.outer = () => gate.promise;
  const chat = messages(1);
  const { host, text, done } = setup(chat);
  const p = host.open();
  await settle();
  const [ctx] = calls.outer;
  chat[0].mes = 'streaming';
  host.updateContent(0, { transient: true });
  assert.equal(ctx.signal.aborted, true);
  assert.equal(text(0).textContent, 'streaming');
  gate.resolve('<p>late</p>');
  await p;
  await settle();
  assert.equal(text(0).textContent, 'streaming');
  assert.equal(calls.outer.length, 1);
  done();
});

test('S84/C126: resetEpoch aborts the pending request; a new chat is processed without a fault', async () => {
  const gate = deferred();
  behave.outer = () => gate.promise;
  let chat = messages(1);
  const { host, text, faults, done } = setup(null, {}, { getMessages: () => chat });
  behave.outer = () => gate.promise;
  host.open();
  await settle();
  const [ctx] = calls.outer;
  host.resetEpoch();
  assert.equal(ctx.signal.aborted, true);
  behave.outer = pass;
  chat = [{ mes: 'new chat' }];
  await host.open();
  gate.resolve('<p>old</p>');
  await settle();
  assert.equal(text(0).innerHTML, '<p>new chat</p>');
  assert.deepEqual(faults, []);
  assert.equal(host.getFault(), null);
  done();
});

test('S85/C129: refresh() skips a message being edited; finishContent and refresh() re-evaluate it', async () => {
  const chat = messages(1);
  const { host, text, done } = setup(chat);
  await host.open();
  calls.inner.length = 0;
  host.updateContent(0, { transient: true });
  const el = host.getMessageElement(0);
  const ta = document.createElement('textarea');
  ta.className = 'edit_textarea';
  ta.value = 'draft';
  el.append(ta);
  await registration.refresh();
  assert.equal(host.getMessageElement(0), el);
  assert.equal(el.querySelector('.edit_textarea'), ta);
  assert.equal(ta.value, 'draft');
  assert.equal(calls.inner.length, 0);
  ta.remove();
  await host.finishContent(0);
  assert.equal(calls.inner.length, 1);
  log.length = 0;
  await registration.refresh();
  assert.equal(host.getMessageElement(0), el);
  assert.equal(log.includes('mount:0'), false, 'the mount lease is kept');
  assert.equal(calls.inner.length, 2);
  assert.equal(text(0).innerHTML, '<p>m0</p>');
  done();
});

test('S86/C131: finishContent emits the rendered event only after the content committed', async () => {
  const gate = deferred();
  behave.outer = async (ctx, renderBase) => { await gate.promise; return renderBase(); };
  const chat = messages(1);
  const { host, text, emits, done } = setup(chat);
  host.open();
  const p = host.finishContent(0, 'character_message_rendered', 'first_message');
  await settle();
  assert.deepEqual(emits, []);
  assert.equal(text(0).textContent, '');
  gate.resolve();
  assert.equal(await p, undefined);
  assert.equal(text(0).innerHTML, '<p>m0</p>');
  assert.deepEqual(emits.at(-1), ['character_message_rendered', 0, 'first_message']);
  done();
});

test('S86b/C131/C126: an object replaced before completion never emits', async () => {
  const gate = deferred();
  const chat = messages(1);
  const s = setup(chat);
  behave.outer = async (ctx, renderBase) => { await gate.promise; return renderBase(); };
  s.host.open();
  const p = s.host.finishContent(0, 'character_message_rendered');
  chat[0] = { mes: 'other' };
  s.host.render();
  gate.resolve();
  assert.equal(await p, undefined);
  await settle();
  assert.deepEqual(s.emits, []);
  s.done();
});

test('S87/C129/C125: a failure during refresh() rejects it; a late result of a scrolled-out message writes nothing', async () => {
  const chat = messages(1);
  const s = setup(chat);
  await s.host.open();
  behave.inner = async () => { throw new Error('refresh broke'); };
  const e = await registration.refresh().then(() => null, (x) => x);
  assert.equal(e?.message, 'ChatSurface content processor outer failed for message 0');
  assert.equal(e.cause.message, 'ChatSurface content processor inner failed for message 0');
  assert.equal(s.host.getFault(), e);
  s.done();

  behave.inner = pass;
  const chat2 = messages(100);
  const t = setup(chat2);
  const gate = deferred();
  behave.outer = async (ctx, renderBase) => { if (ctx.mesid === 50) await gate.promise; return renderBase(); };
  await t.host.open();
  t.sched.flush();
  t.host.jumpToMessage(50);
  t.sched.flush();
  await settle();
  assert.equal(t.text(50).getAttribute('aria-busy'), 'true');
  t.host.jumpToMessage(10);
  t.sched.flush();
  assert.ok(!t.host.snapshot().mounted.includes(50), 'scrolled out while pending');
  gate.resolve();
  await settle();
  await settle();
  const evals = calls.inner.length;
  t.host.jumpToMessage(50);
  assert.equal(t.text(50).innerHTML, '<p>m50</p>', 'applied synchronously on remount');
  assert.equal(t.text(50).hasAttribute('aria-busy'), false);
  await settle();
  assert.equal(calls.inner.length, evals, 'no evaluation');
  assert.equal(t.host.getFault(), null);
  t.done();
});

test('tables: processor waits, renderBase Promises, contexts and signals do not grow', async () => {
  const { sharedCore } = await import('../core.js');
  const core = await sharedCore();
  const cycle = async () => {
    const chat = messages(3);
    const s = setup(chat);
    await s.host.open();
    chat[1].mes = 'x';
    s.host.updateContent(1);
    await s.host.finishContent(1, 'ev');
    await registration.refresh();
    s.host.updateContent(2, { transient: true });
    await s.host.finishContent(2);
    s.done();
  };
  for (let i = 0; i < 5; i++) await cycle();
  const before = core.chatSurfaceTables();
  for (let i = 0; i < 200; i++) await cycle();
  const after = core.chatSurfaceTables();
  for (const k of ['waits', 'bases', 'held', 'contexts', 'signals', 'refs', 'thrown', 'memo', 'hosts', 'jsHosts']) {
    assert.ok(after[k] <= before[k], `${k}: ${before[k]} → ${after[k]}`);
  }
  assert.equal(after.waits, 0);
  assert.equal(after.bases, 0);
  assert.equal(after.held, 0, 'a kept result lives only as long as its cs_processor_done');
});
