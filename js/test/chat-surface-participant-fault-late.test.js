// S14 (C21, C23, C108): a participant fault after the freeze, in a page of
// its own (the fault is permanent for the page).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { makeRoot, frames, formatMessage, materializer, messages, thrown } from './chat-surface-fixture.js';
import { installChatSurfaceApi, createChatSurfaceHost } from '../chat-surface.js';

test('S14/C21/C23/C108: after the freeze the first participant fault wins and resets rethrow it', () => {
  const api = installChatSurfaceApi(globalThis, { managed: true });
  const a = api.registerParticipant({ id: 'a', protocolVersion: 1, didMount() {} });
  const b = api.registerParticipant({ id: 'b', protocolVersion: 1, didMount() {} });
  const chat = messages(3);
  const root = makeRoot();
  const sched = frames();
  const faults = [];
  const host = createChatSurfaceHost({ root, getMessages: () => chat, materialize: materializer(), formatMessage, emit() {}, ...sched, onFault: (f) => faults.push(f) });
  host.open();
  sched.flush();
  const e = new Error('e');
  a.fault(e);
  const f = host.getFault();
  assert.equal(f.message, 'ChatSurface participant a is faulted');
  assert.equal(f.cause, e);
  b.fault(new Error('x'));
  assert.equal(host.getFault(), f);
  assert.deepEqual(faults, [f]);
  const children = [...root.childNodes];
  assert.equal(thrown(() => host.resetEpoch()), f);
  assert.deepEqual([...root.childNodes], children);
  assert.notEqual(host.getFault(), null);
  assert.equal(thrown(() => host.resetEpoch()), f);
});
