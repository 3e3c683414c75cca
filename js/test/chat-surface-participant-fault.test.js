// Participant faults are page-wide and permanent (C21–C23), so each case
// runs in a page (a node:test process) of its own: S13 here, before the
// freeze; S14, after it, in chat-surface-participant-fault-late.test.js.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { makeRoot, frames, formatMessage, materializer, messages, thrown } from './chat-surface-fixture.js';
import { installChatSurfaceApi, createChatSurfaceHost } from '../chat-surface.js';

test('S13/C22: a fault before the first projection is thrown by it; nothing mounts', () => {
  const api = installChatSurfaceApi(globalThis, { managed: false });
  const a = api.registerParticipant({ id: 'a', protocolVersion: 1, didMount() {} });
  const { fault } = a; // detached (S10)
  assert.equal(fault('boom'), undefined);
  const chat = messages(2);
  const root = makeRoot();
  const host = createChatSurfaceHost({ root, getMessages: () => chat, materialize: materializer(), formatMessage, emit() {}, ...frames() });
  const e = thrown(() => host.render());
  assert.equal(e.message, 'ChatSurface participant a is faulted');
  assert.equal(e.cause.message, 'boom');
  assert.equal(root.querySelectorAll('.mes').length, 0);
  assert.equal(host.getFault(), e);
  // C23/C107: permanent for the page: every reset rethrows it.
  assert.equal(thrown(() => host.resetEpoch()), e);
  assert.equal(thrown(() => host.resetEpoch()), e);
  // C21: fault never throws, whatever it gets.
  assert.equal(a.fault(Object.create(null)), undefined);
});
