// Managed mode after a participant fault (C23, C107, C108): every later
// resetEpoch rethrows it, so the controller stops for the page. Its own
// file: a participant fault is permanent for the page (here, the process).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { frames } from './chat-surface-fixture.js';
import { makeST } from './st-managed-fake.js';
import { installChatSurfaceApi, createChatSurfaceHost } from '../chat-surface.js';
import { createManagedChat } from '../../sillytavern/managed/controller.js';

const api = installChatSurfaceApi(globalThis, { managed: true });
const registration = api.registerParticipant({ id: 'test/faulty', protocolVersion: 1, didMount() {} });

test('C108: a reset that fails for the rest of the page stops the controller: no host is made again, and SillyTavern\'s later chats are left to it', async () => {
  const T = makeST({ count: 100 });
  const sched = frames();
  const faults = [];
  const c = createManagedChat({ st: T.st, root: T.root, api, createHost: createChatSurfaceHost, scheduler: sched,
    onFault: (e) => faults.push(e) });
  T.printMessages(1);
  await c.chatChanged('chat-a');
  sched.flush();
  assert.equal(c.state, 'open');
  const boom = new Error('participant broke');
  registration.fault(boom);
  assert.equal(c.state, 'faulted');
  assert.deepEqual(faults.map((e) => [e.message, e.cause]), [['ChatSurface participant test/faulty is faulted', boom]]);

  // The switch: SillyTavern printed the next chat; the reset rethrows.
  T.clearChat();
  T.printMessages(1);
  assert.throws(() => c.chatChanged('chat-b'), (e) => e === faults[0]);
  assert.equal(c.state, 'stopped');
  const host = c.host;
  // Later switches leave #chat to SillyTavern: nothing is thrown, removed or opened.
  T.clearChat();
  T.printMessages(5);
  const printed = [...T.root.children];
  assert.equal(c.chatChanged('chat-c'), undefined);
  sched.flush();
  assert.deepEqual([...T.root.children], printed);
  assert.equal(c.host, host);
  // The host's dispose rethrows its failed reset (C112); the controller is
  // let go all the same.
  assert.throws(() => c.dispose(), (e) => e === faults[0]);
  assert.equal(c.state, 'stopped');
  assert.equal(c.host, null);
  assert.throws(() => c.scrollToEnd(), /managed mode has stopped for this page/);
  assert.equal(c.host, null, 'no new host after dispose');
  T.root.remove();
});
