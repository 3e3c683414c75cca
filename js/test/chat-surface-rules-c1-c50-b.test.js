// C21/C23 in a page of their own (a participant fault is permanent for the
// page): a fault recorded while the epoch already holds another keeps that
// one, yet every reset rethrows the participant fault; its cause is the
// error value of a null-prototype object.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { makeRoot, frames, formatMessage, materializer, messages, thrown } from './chat-surface-fixture.js';
import { installChatSurfaceApi, createChatSurfaceHost } from '../chat-surface.js';

test('C21/C23: an earlier epoch fault stays; resets rethrow the participant fault, whose cause is the error value', () => {
  const api = installChatSurfaceApi(globalThis, { managed: false });
  const a = api.registerParticipant({ id: 'a', protocolVersion: 1, didMount() {} });
  const b = api.registerParticipant({ id: 'b', protocolVersion: 1, didMount() {} });
  let chat = messages(2);
  const root = makeRoot();
  const faults = [];
  const host = createChatSurfaceHost({ root, getMessages: () => chat, materialize: materializer(), formatMessage, emit() {}, ...frames(), onFault: (f) => faults.push(f) });
  host.render();
  const m = chat[0];
  chat = [m, m];
  const first = thrown(() => host.render());
  assert.equal(first.message, 'ChatSurface messages must not contain the same object more than once');
  assert.equal(a.fault(Object.create(null)), undefined);
  assert.equal(host.getFault(), first, 'C23/C103: the epoch keeps its first fault');
  assert.deepEqual(faults, [first]);
  // Only the first call has an effect; fault never throws, whatever it gets.
  const hostile = new Proxy({}, { get() { throw new Error('get'); }, getPrototypeOf() { throw new Error('proto'); } });
  assert.equal(b.fault(hostile), undefined);
  const f = thrown(() => host.resetEpoch());
  assert.equal(f.constructor, Error);
  assert.equal(f.message, 'ChatSurface participant a is faulted');
  assert.ok(f.cause instanceof Error);
  assert.equal(f.cause.message, '[object Object]');
  assert.equal(host.getFault(), first, 'the reset did not run: the epoch keeps its fault');
  assert.equal(thrown(() => host.resetEpoch()), f);
  chat = messages(1);
  assert.equal(thrown(() => host.render()).message, 'ChatSurface epoch is faulted');
});
