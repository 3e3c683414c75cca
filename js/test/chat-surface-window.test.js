// Chat surface scenarios through the public JS API, managed mode
// (spec/chatsurface.md §16 B, F, G): late registration after an empty
// projection, runtime admission (Rmax, one revoke + one grant per frame,
// box ordering, gesture suspension, synchronous content-released revokes),
// the bounded window math, holds, size changes and foreign removal.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { makeRoot, formatMessage, materializer, messages, thrown } from './chat-surface-fixture.js';
import { installChatSurfaceApi, createChatSurfaceHost } from '../chat-surface.js';

// A controllable ResizeObserver (C2: read from globalThis at creation).
const observers = [];
globalThis.ResizeObserver = class {
  constructor(cb) { this.cb = cb; this.targets = new Set(); observers.push(this); }
  observe(t) { this.targets.add(t); }
  unobserve(t) { this.targets.delete(t); }
  disconnect() { this.targets.clear(); }
};
const notifyResize = (els) => { for (const o of observers) { const hit = els.filter((e) => o.targets.has(e)); if (hit.length) o.cb(hit.map((target) => ({ target }))); } };

const api = installChatSurfaceApi(globalThis, { managed: true });

// Runtime participant: claims every <pre>; counts live runtimes.
const rt = { log: [], live: 0, max: 0, signals: [], boxReads: 0 };
let otherMount = null;
api.registerParticipant({
  id: 'rt',
  protocolVersion: 1,
  prepareContent({ content, mesid }, claims) {
    for (const pre of content.querySelectorAll('pre')) {
      claims.claim(pre, ({ signal, source }) => {
        rt.live++;
        rt.max = Math.max(rt.max, rt.live);
        rt.signals.push(signal);
        const k = source.dataset.k ?? mesid;
        rt.log.push(`grant:${k}`);
        return () => { rt.live--; rt.log.push(`revoke:${k}:${signal.reason}:${signal.aborted}`); };
      });
    }
  },
});
api.registerParticipant({ id: 'other', protocolVersion: 1, didMount(ctx) { return otherMount?.(ctx); } });

function scheduler() {
  const fq = new Map();
  const tq = new Map();
  let next = 0;
  const s = {
    requestAnimationFrame: (cb) => { fq.set(++next, cb); return next; },
    cancelAnimationFrame: (id) => { fq.delete(id); },
    setTimeout: (cb, ms) => { tq.set(++next, { cb, ms }); return next; },
    clearTimeout: (id) => { tq.delete(id); },
    get frames() { return fq.size; },
    get timers() { return [...tq.values()].map((t) => t.ms); },
    frame(after) {
      const batch = [...fq.values()];
      fq.clear();
      for (const cb of batch) { cb(); after?.(); }
      return batch.length;
    },
    fireTimers() { const b = [...tq.values()]; tq.clear(); for (const t of b) t.cb(); },
    flush(after) {
      for (let i = 0; fq.size + tq.size > 0; i++) {
        if (i > 10000) throw new Error('never settles');
        if (fq.size) s.frame(after); else s.fireTimers();
      }
    },
  };
  return s;
}

let cur;
function setup(chat, { height = 1000, size = () => 100, runtimeLimit } = {}) {
  if (cur) { try { cur.host.dispose(); } catch { /* disposal completes anyway */ } cur.root.remove(); }
  rt.log.length = 0; rt.live = 0; rt.max = 0; rt.signals.length = 0;
  otherMount = null;
  const root = makeRoot({ height, size });
  const sched = scheduler();
  const faults = [];
  const opts = { root, getMessages: () => chat, materialize: materializer(), formatMessage, emit() {}, ...sched, onFault: (f) => faults.push(f) };
  if (runtimeLimit !== undefined) opts.runtimeLimit = runtimeLimit;
  const host = createChatSurfaceHost(opts);
  cur = { root, sched, host, faults, chat };
  return cur;
}
const gesture = (root, top) => { root.scrollTop = top; root.dispatchEvent(new root.ownerDocument.defaultView.Event('scroll')); };
const spacer = (root, which) => root.querySelector(`tt-chat-spacer[data-tt-chat-spacer="${which}"]`)?.style.height ?? null;
const range = (a, b) => Array.from({ length: b - a + 1 }, (_, i) => a + i);
// Boxes (C63): a host element's rect, set per test.
function boxes(root, rects) {
  for (const el of root.querySelectorAll('.h')) {
    el.getBoundingClientRect = () => { rt.boxReads++; const [top, bottom] = rects[el.dataset.k]; return { top, bottom, height: bottom - top }; };
  }
}

test('S12/C24: an empty projection leaves registration open', async () => {
  const chat = [];
  const { host } = setup(chat);
  await host.open();
  const log = [];
  api.registerParticipant({ id: 'late', protocolVersion: 1, didMount({ mesid }) { log.push(mesid); } });
  chat.push({ mes: 'first' });
  host.render();
  assert.deepEqual(log, [0]);
  assert.equal(thrown(() => api.registerParticipant({ id: 'later', protocolVersion: 1, didMount() {} })).message,
    'ChatSurface participants must register before the first projection');
});

const fourHosts = '<div class="h" data-k="0"><pre data-k="0">a</pre></div><div class="h" data-k="1"><pre data-k="1">b</pre></div>' +
  '<div class="h" data-k="2"><pre data-k="2">c</pre></div><div class="h" data-k="3"><pre data-k="3">d</pre></div>';

test('S44/C63/C64: box ordering; one revoke and one grant per frame', async () => {
  const { root, host, sched } = setup([{ mes: fourHosts }], { runtimeLimit: 2 });
  await host.open();
  const rects = { 0: [100, 200], 1: [300, 400], 2: [1100, 1200], 3: [1200, 1300] };
  boxes(root, rects);
  host.render(); // an unsuspended demand re-reads the boxes (C63)
  sched.flush();
  assert.deepEqual(rt.log.filter((l) => l.startsWith('grant')).sort(), ['grant:0', 'grant:1']);
  Object.assign(rects, { 0: [-300, -200], 1: [-200, -100], 2: [450, 550], 3: [700, 800] });
  rt.log.length = 0;
  host.render();
  assert.deepEqual(rt.log, [], 'nothing changes outside a frame (C61)');
  sched.frame();
  assert.deepEqual(rt.log, ['revoke:0:runtime-demand-revoked:true', 'grant:2']);
  sched.frame();
  assert.deepEqual(rt.log.slice(2), ['revoke:1:runtime-demand-revoked:true', 'grant:3']);
  const s = host.snapshot().runtime;
  assert.equal(s.active, 2);
  assert.equal(s.scheduled, false);
});

test('S45/C63: the box nearer the viewport centre wins; ties go by demand order', async () => {
  const two = '<div class="h" data-k="0"><pre data-k="0">a</pre></div><div class="h" data-k="1"><pre data-k="1">b</pre></div>';
  let { root, host, sched } = setup([{ mes: two }], { runtimeLimit: 1 });
  await host.open();
  boxes(root, { 0: [750, 850], 1: [460, 560] }); // centres 300 px and 10 px from 500
  host.render();
  sched.flush();
  assert.deepEqual(rt.log, ['grant:1']);
  ({ root, host, sched } = setup([{ mes: two }], { runtimeLimit: 1 }));
  await host.open();
  boxes(root, { 0: [350, 450], 1: [550, 650] }); // both 100 px from the centre
  host.render();
  sched.flush();
  assert.deepEqual(rt.log, ['grant:0']);
});

test('S46/S49/C65/C89/C66: a gesture suspends demand; grants resume one per frame after it settles; content release is synchronous', async () => {
  const chat = messages(60).map((m, i) => ({ mes: `${m.mes}<pre>${i}</pre>` }));
  const { root, host, sched } = setup(chat);
  await host.open();
  sched.flush();
  const active = host.snapshot().runtime.active;
  assert.ok(active > 0 && active <= 8);
  rt.log.length = 0;
  gesture(root, root.scrollTop - 20); // a small move: the mounted window still covers the view
  assert.equal(host.snapshot().state, 'gesture-scrolling');
  assert.deepEqual(sched.timers, [150], 'the settle timer (C88)');
  sched.frame();
  let s = host.snapshot().runtime;
  assert.equal(s.suspended, true);
  assert.equal(s.scheduled, false);
  assert.equal(s.active, active);
  assert.deepEqual(rt.log, [], 'no grant or revoke while suspended');
  // S49: with suspended demand, updateContent still revokes synchronously.
  const m = host.snapshot().runtime.candidates.find((c) => c.state === 'active').mesid;
  host.updateContent(m);
  assert.deepEqual(rt.log, [`revoke:${m}:content-released:true`]);
  rt.log.length = 0;
  // To the top in the same gesture: the view reaches past the mounted
  // window, so the frame commits (C89 as changed); unmounting revokes with
  // content-released (C66), demand stays suspended and grants nothing.
  gesture(root, 0);
  sched.frame();
  s = host.snapshot().runtime;
  assert.equal(s.suspended, true);
  assert.ok(host.snapshot().mounted.includes(0));
  assert.ok(rt.log.every((l) => /^revoke:\d+:content-released:true$/.test(l)), rt.log.join());
  rt.log.length = 0;
  sched.fireTimers(); // 150 ms after the last scroll: the gesture ends
  assert.equal(sched.frames, 1);
  sched.frame(); // the geometry commit
  assert.equal(host.snapshot().state, 'settled');
  assert.ok(host.snapshot().mounted.includes(0));
  for (let i = 0; i < 40 && sched.frames; i++) {
    const before = rt.log.length;
    sched.frame();
    const step = rt.log.slice(before);
    assert.ok(step.filter((l) => l.startsWith('grant')).length <= 1 && step.filter((l) => l.startsWith('revoke')).length <= 1, step.join());
    assert.ok(rt.live <= 8);
  }
  s = host.snapshot().runtime;
  assert.equal(s.suspended, false);
  assert.ok(s.active > 0 && s.active <= 8);
});

test('C88/C64 as changed: a move made before the admission frame, not yet notified, is a gesture there: nothing is granted until it ends', async () => {
  const chat = messages(60).map((m, i) => ({ mes: `${m.mes}<pre>${i}</pre>` }));
  const { root, host, sched } = setup(chat);
  await host.open();
  assert.equal(host.snapshot().runtime.scheduled, true, 'open leaves an admission frame pending');
  rt.log.length = 0;
  root.scrollTop -= 300; // script in an earlier frame callback; its notification comes later
  sched.frame();
  const s = host.snapshot();
  assert.equal(s.state, 'gesture-scrolling');
  assert.equal(s.runtime.suspended, true);
  assert.deepEqual(rt.log.filter((l) => l.startsWith('grant')), [], 'no grant for a view that moved');
  assert.deepEqual(sched.timers, [150], 'the settle timer (C88)');
  root.dispatchEvent(new root.ownerDocument.defaultView.Event('scroll')); // its notification: the same gesture
  sched.flush(); // frames, then the settle timer ends the gesture
  assert.equal(host.snapshot().state, 'settled');
  assert.ok(rt.log.some((l) => l.startsWith('grant')), `grants resume once it rests: ${rt.log}`);
  assert.equal(host.snapshot().followingTail, false);
});

test('C10/C88: a root whose scrollTop throws at the admission frame faults the epoch; the state is faulted, not a gesture', async () => {
  const chat = messages(60).map((m, i) => ({ mes: `${m.mes}<pre>${i}</pre>` }));
  const { root, host, sched, faults } = setup(chat);
  await host.open();
  assert.equal(host.snapshot().runtime.scheduled, true);
  const boom = new Error('scrollTop refused');
  const own = Object.getOwnPropertyDescriptor(root, 'scrollTop');
  Object.defineProperty(root, 'scrollTop', { get() { throw boom; }, set() {}, configurable: true });
  try {
    sched.frame();
  } finally {
    Object.defineProperty(root, 'scrollTop', own);
  }
  assert.equal(host.snapshot().state, 'faulted');
  assert.deepEqual(sched.timers, [], 'no settle timer from a read that failed');
  assert.equal(sched.frames, 0, 'and no frame');
  assert.deepEqual(faults, [boom]);
  assert.equal(host.snapshot().fault, boom);
  host.resetEpoch();
  await host.open();
  sched.flush();
  assert.equal(host.snapshot().state, 'settled', 'a new epoch works');
});

test('S47/C69/C107: 500 messages with runtimes: never more than 8 active; reset empties admission', async () => {
  const chat = messages(500).map((m) => ({ mes: `${m.mes}<pre>x</pre>` }));
  const { host, sched } = setup(chat);
  await host.open();
  const check = () => { assert.ok(rt.live <= 8 && host.snapshot().runtime.active <= 8); };
  sched.flush(check);
  assert.ok(host.snapshot().runtime.active > 0);
  const first = rt.signals.slice();
  host.jumpToMessage(5);
  sched.flush(check);
  assert.ok(first.some((sig) => sig.aborted), 'some first-generation signals aborted');
  assert.ok(rt.max <= 8);
  host.resetEpoch();
  assert.equal(host.snapshot().runtime.active, 0);
  assert.deepEqual(host.snapshot().runtime.candidates, []);
  assert.equal(rt.live, 0);
});

test('S48/C67/C45: a source removed before the frame; a source removed by another didMount', async () => {
  let { root, host, sched, faults } = setup([{ mes: '<pre>x</pre>' }]);
  await host.open();
  root.querySelector('pre').remove();
  sched.flush();
  assert.deepEqual(rt.log, [], 'activate not called');
  assert.equal(host.getFault()?.message, 'ChatSurface runtime source is not live: rt');
  assert.equal(faults.length, 1);
  assert.equal(faults[0], host.getFault());
  assert.equal(host.snapshot().state, 'faulted');
  ({ root, host, sched } = setup([{ mes: '<pre>x</pre>' }]));
  otherMount = ({ element }) => { element.querySelector('pre')?.remove(); };
  assert.equal(thrown(() => host.open()).message, 'ChatSurface message 0 runtime source ownership diverged');
});

test('S50/C62/C69: runtimeLimit 0 is refused; 2 caps ten visible candidates', async () => {
  const e = thrown(() => setup([], { runtimeLimit: 0 }));
  assert.ok(e instanceof TypeError);
  assert.equal(e.message, 'RuntimeAdmission maxActive must be a positive integer');
  cur = undefined;
  const chat = messages(10).map((m) => ({ mes: `${m.mes}<pre>x</pre>` }));
  const { host, sched } = setup(chat, { runtimeLimit: 2 });
  await host.open();
  sched.flush(() => assert.ok(rt.live <= 2));
  assert.equal(host.snapshot().runtime.active, 2);
  assert.equal(rt.max, 2);
});

test('S54/C82/C84: a gesture to the top with H = 20000 and 200 px roots', async () => {
  const { root, host, sched } = setup(messages(1000), { height: 20000, size: () => 200 });
  await host.open();
  sched.flush();
  gesture(root, 0);
  sched.flush();
  const s = host.snapshot();
  assert.equal(s.state, 'settled');
  assert.deepEqual(s.viewport, range(33, 64));
  assert.deepEqual(s.mounted, [...range(33, 64), 999]);
  assert.equal(s.ranges.length, 2);
  assert.equal(spacer(root, 'top'), '6600px');
  assert.equal(spacer(root, 'middle'), '186800px');
});

test('S55/C94: jumpToMessage(500) in 1000 roots of 200 px', async () => {
  const { root, host, sched } = setup(messages(1000), { size: () => 200 });
  await host.open();
  sched.flush();
  const el = host.jumpToMessage(500);
  assert.equal(el.getAttribute('mesid'), '500');
  const r = el.getBoundingClientRect();
  assert.ok(r.bottom > 0 && r.top < 1000, 'inside the viewport');
  assert.equal(root.scrollTop, 99600);
  assert.deepEqual(host.snapshot().mounted, [...range(496, 504), 999]);
  assert.equal(spacer(root, 'middle'), '98800px');
  assert.equal(host.snapshot().followingTail, false);
});

test('S57/C87/C31: while following, a pushed message becomes the mounted tail', async () => {
  const chat = messages(10000);
  const { root, host, sched } = setup(chat);
  await host.open();
  sched.flush();
  const old = host.getMessageElement(9999);
  chat.push({ mes: 'new' });
  host.render();
  sched.flush();
  const mounted = host.snapshot().mounted;
  assert.equal(mounted.at(-1), 10000);
  assert.ok(host.getMessageElement(10000).classList.contains('last_mes'));
  assert.equal(old.classList.contains('last_mes'), false);
  assert.equal(root.scrollTop, root.scrollHeight - 1000);
});

test('S59/S60/C94/C96: a held projection refuses to leave and defers the gesture commit', async () => {
  const { root, host, sched } = setup(messages(1000));
  await host.open();
  sched.flush();
  host.setProjectionHeld(true);
  const e = thrown(() => host.jumpToMessage(5));
  assert.equal(e.message, 'Bounded ChatSurface cannot leave an active message editor');
  assert.equal(host.getFault(), null);
  assert.equal(host.jumpToMessage(998).getAttribute('mesid'), '998');
  const before = host.snapshot().mounted;
  gesture(root, 0);
  sched.flush();
  assert.deepEqual(host.snapshot().mounted, before, 'held: unchanged');
  assert.equal(host.snapshot().state, 'gesture-scrolling', 'the owed commit completes the gesture (C89)');
  host.setProjectionHeld(false);
  sched.flush();
  assert.ok(host.snapshot().mounted.includes(0));
  assert.equal(host.snapshot().state, 'settled');
});

test('S61/C28/C73: shift and pops down to an empty chat', async () => {
  const chat = [{ mes: 'first' }, { mes: 'second' }, { mes: 'third' }];
  const { root, host } = setup(chat);
  await host.open();
  chat.shift();
  host.render();
  const texts = () => [...root.querySelectorAll(':scope > .mes .mes_text')].map((t) => t.textContent);
  assert.deepEqual(host.snapshot().mounted, [0, 1]);
  assert.deepEqual(texts(), ['second', 'third']);
  chat.pop();
  host.render();
  assert.deepEqual(texts(), ['second']);
  chat.pop();
  host.render();
  assert.deepEqual(host.snapshot().mounted, []);
  assert.equal(root.querySelectorAll('tt-chat-spacer').length, 0);
});

test('S62/C86/C87: a size change above the anchor keeps the view; a growing tail is followed', async () => {
  const sizes = new Map();
  const { root, host, sched } = setup(messages(1000), { size: (i) => sizes.get(i) ?? 100 });
  await host.open();
  sched.flush();
  host.jumpToMessage(500);
  sched.flush();
  const first = () => [...root.querySelectorAll(':scope > .mes')].find((el) => el.getBoundingClientRect().bottom > 0);
  const anchor = first();
  const a = Number(anchor.getAttribute('mesid'));
  const top0 = anchor.getBoundingClientRect().top;
  const s0 = root.scrollTop;
  sizes.set(a - 1, 150);
  notifyResize([host.getMessageElement(a - 1)]);
  sched.frame();
  assert.equal(root.scrollTop, s0 + 50);
  assert.equal(host.getMessageElement(a).getBoundingClientRect().top, top0);
  host.scrollToEnd();
  sched.flush();
  sizes.set(999, 400);
  notifyResize([host.getMessageElement(999)]);
  sched.frame();
  assert.equal(root.scrollTop, root.scrollHeight - 1000);
});

test('S63/C97: refreshLayout during a gesture waits for its end, and keeps the anchor', async () => {
  const { root, host, sched } = setup(messages(1000));
  await host.open();
  sched.flush();
  host.jumpToMessage(500);
  sched.flush();
  gesture(root, root.scrollTop - 130);
  host.refreshLayout();
  const mounted = host.snapshot().mounted;
  sched.frame();
  assert.deepEqual(host.snapshot().mounted, mounted, 'nothing runs during the gesture');
  assert.equal(host.snapshot().state, 'gesture-scrolling');
  const anchor = [...root.querySelectorAll(':scope > .mes')].find((el) => el.getBoundingClientRect().bottom > 0);
  const top0 = anchor.getBoundingClientRect().top;
  sched.flush();
  assert.equal(host.snapshot().state, 'settled');
  assert.equal(anchor.getBoundingClientRect().top, top0);
});

test('S64/C86/C26: deleting message 0 keeps the anchor message in place', async () => {
  const chat = messages(1000);
  const { root, host, sched } = setup(chat);
  await host.open();
  sched.flush();
  host.jumpToMessage(500);
  sched.flush();
  const anchor = [...root.querySelectorAll(':scope > .mes')].find((el) => el.getBoundingClientRect().bottom > 0);
  const text = anchor.querySelector('.mes_text').textContent;
  const top0 = anchor.getBoundingClientRect().top;
  chat.shift();
  host.render();
  sched.flush();
  const now = [...root.querySelectorAll(':scope > .mes')].find((el) => el.querySelector('.mes_text').textContent === text);
  assert.equal(now.getBoundingClientRect().top, top0);
});

test('S66/C79: foreign removal of a mounted root faults the bounded epoch', async () => {
  const { host, sched, faults } = setup(messages(20));
  await host.open();
  sched.flush();
  host.getMessageElement(19).remove();
  await new Promise((r) => setTimeout(r, 0));
  assert.equal(host.getFault()?.message, 'ChatSurface committed DOM projection is inconsistent');
  assert.equal(faults.length, 1);
  assert.equal(host.snapshot().state, 'faulted');
});

// C45 at a content update: every mounted root is checked, in mounted order,
// content before sources; a fault names the first root that fails.
test('C45: a root whose first .mes_text is not its content faults the next content update', async () => {
  const probe = async (diverge) => {
    const { root, host, sched } = setup([{ mes: 'a' }, { mes: 'b' }, { mes: 'c' }]);
    await host.open();
    sched.flush();
    const mes = (m) => root.querySelector(`.mes[mesid="${m}"]`);
    diverge(mes);
    const e = thrown(() => host.updateContent(0));
    assert.equal(host.getFault(), e);
    assert.equal(host.snapshot().state, 'faulted');
    return e.message;
  };
  const foreignText = () => Object.assign(document.createElement('div'), { className: 'mes_text' });
  // another .mes_text before the content, in two roots: the first is named
  assert.equal(await probe((mes) => { mes(2).prepend(foreignText()); mes(1).prepend(foreignText()); }),
    'ChatSurface message 1 content ownership diverged');
  // the content replaced
  assert.equal(await probe((mes) => { mes(2).querySelector('.mes_text').replaceWith(foreignText()); }),
    'ChatSurface message 2 content ownership diverged');
  // the content no longer a .mes_text, and no other is
  assert.equal(await probe((mes) => { mes(2).querySelector('.mes_text').className = 'text'; }),
    'ChatSurface message 2 content ownership diverged');
  // a later .mes_text (inside the content) changes nothing
  const { root, host, sched } = setup([{ mes: 'a' }, { mes: 'b' }]);
  await host.open();
  sched.flush();
  root.querySelector('.mes[mesid="1"] .mes_text').append(foreignText());
  assert.equal(host.updateContent(0), true);
  assert.equal(host.getFault(), null);
});

test('C45: a claimed source removed from a mounted message faults the next content update; a new epoch recovers', async () => {
  const probe = async (diverge) => {
    const { root, host, sched } = setup([{ mes: 'a' }, { mes: '<pre>x</pre>' }, { mes: '<pre>y</pre>' }]);
    await host.open();
    sched.flush();
    diverge((m) => root.querySelector(`.mes[mesid="${m}"]`));
    const e = thrown(() => host.updateContent(0));
    assert.equal(host.getFault(), e);
    return { e, root, host, sched };
  };
  let r = await probe((mes) => { mes(2).querySelector('pre').remove(); mes(1).querySelector('pre').remove(); });
  assert.equal(r.e.message, 'ChatSurface message 1 runtime source ownership diverged');
  // moved out of its content (still connected) counts as gone
  r = await probe((mes) => { mes(2).append(mes(2).querySelector('pre')); });
  assert.equal(r.e.message, 'ChatSurface message 2 runtime source ownership diverged');
  // a root's content is checked before its sources
  r = await probe((mes) => { const t = mes(1).querySelector('.mes_text'); t.before(Object.assign(document.createElement('div'), { className: 'mes_text' })); });
  assert.equal(r.e.message, 'ChatSurface message 1 content ownership diverged');
  const { root, host, sched } = r;
  host.resetEpoch();
  assert.equal(host.getFault(), null);
  await host.open();
  sched.flush();
  assert.equal(host.snapshot().state, 'settled');
  assert.equal(root.querySelectorAll('.mes pre').length, 2, 'the new epoch mounted both sources');
  assert.equal(host.updateContent(0), true);
  assert.equal(host.getFault(), null);
});
