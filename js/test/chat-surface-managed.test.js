// Chat surface through the public JS API, managed (bounded) mode.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { makeRoot, frames, formatMessage, materializer, messages, thrown } from './chat-surface-fixture.js';
import { installChatSurfaceApi, createChatSurfaceHost } from '../chat-surface.js';

const api = installChatSurfaceApi(globalThis, { managed: true });

function setup(n, opts = {}) {
  const root = makeRoot(opts);
  const chat = messages(n);
  const mat = materializer();
  const sched = frames();
  const faults = [];
  const host = createChatSurfaceHost({
    root, getMessages: () => chat, materialize: mat, formatMessage, emit() {}, ...sched,
    onFault: (f) => faults.push(f),
  });
  const done = () => { host.dispose(); root.remove(); };
  return { root, chat, mat, sched, host, faults, done };
}

test('S1: managed install', () => {
  assert.equal(api.isManagedOwnershipRequired(), true);
  assert.equal(globalThis.__TAURITAVERN__.api.chatSurface, api);
});

test('S52/S94: 10,000 messages open bounded', async () => {
  const { root, mat, sched, host, done } = setup(10000);
  await host.open();
  sched.flush();
  const roots = root.querySelectorAll(':scope > .mes');
  assert.ok(roots.length <= 33, `${roots.length} roots`);
  const last = roots[roots.length - 1];
  assert.equal(last.getAttribute('mesid'), '9999');
  assert.ok(last.classList.contains('last_mes'));
  const top = root.querySelector('tt-chat-spacer[data-tt-chat-spacer="top"]');
  assert.equal(top?.getAttribute('aria-hidden'), 'true');
  assert.equal(root.getAttribute('data-tt-chat-surface'), 'bounded');
  assert.equal(root.hasAttribute('data-tt-chat-bootstrap'), false);
  const s = host.snapshot();
  assert.equal(s.state, 'settled');
  assert.ok(s.ranges.length <= 2);
  assert.ok(mat.counter.n <= 65, `${mat.counter.n} materialize calls`);
  done();
});

test('S53: 100 messages of 200 px open at the end', async () => {
  const { root, host, done } = setup(100, { size: () => 200 });
  await host.open();
  assert.deepEqual(host.snapshot().mounted, Array.from({ length: 7 }, (_, i) => 93 + i));
  assert.equal(root.querySelector('tt-chat-spacer[data-tt-chat-spacer="top"]').style.height, '18600px');
  assert.equal(root.querySelector('[data-tt-chat-spacer="middle"]'), null);
  assert.equal(root.scrollTop, 19000);
  done();
});

test('S56/S65: jump in a 10,000-message chat; out-of-range target', async () => {
  const { host, done } = setup(10000);
  await host.open();
  const el = host.jumpToMessage(10);
  assert.equal(el.getAttribute('mesid'), '10');
  const s = host.snapshot();
  assert.ok(s.mounted.length <= 33 && s.mounted.includes(9999) && s.mounted.includes(10));
  const e = thrown(() => host.jumpToMessage(10000));
  assert.ok(e instanceof RangeError);
  assert.equal(e.message, 'Chat virtualizer target 10000 is outside the structure');
  done();
});

test('S58/S67/S69: an unknown child faults; later calls throw with the fault as cause; reset recovers', async () => {
  const { root, host, faults, done } = setup(3);
  const foreign = document.createElement('div');
  foreign.id = 'ecosystem-root-write';
  root.append(foreign);
  const e = thrown(() => host.open());
  assert.equal(e.message, 'Bounded ChatSurface contains an unknown direct child: div');
  assert.equal(host.snapshot().state, 'faulted');
  assert.equal(host.getFault(), e);
  for (const f of [() => host.render(), () => host.updateContent(0), () => host.jumpToMessage(0),
    () => host.refreshLayout(), () => host.scrollToEnd()]) {
    const x = thrown(f);
    assert.equal(x.message, 'ChatSurface epoch is faulted');
    assert.equal(x.cause, host.getFault());
  }
  assert.deepEqual(faults, [e]);
  foreign.remove();
  host.resetEpoch();
  assert.equal(host.getFault(), null);
  assert.equal(host.snapshot().state, 'inactive');
  assert.equal(root.hasAttribute('data-tt-chat-surface'), false);
  await host.render();
  assert.equal(host.snapshot().state, 'settled');
  done();
});
