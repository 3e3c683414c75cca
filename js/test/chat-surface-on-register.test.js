// installChatSurfaceApi's onRegister option: a host page told of each
// accepted registration (SillyTavern's static mode, which runs no host, says
// so once). Its own process: the API installs once per page (C11).
import './happydom-preload.cjs';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { installChatSurfaceApi } from '../chat-surface.js';

const told = [];
let fail = false;
const api = installChatSurfaceApi(globalThis, {
  managed: false,
  onRegister(kind) { told.push(kind); if (fail) throw new Error('observer failed'); },
});

test('C14/C15: onRegister is told of each accepted registration, not of refused ones; its throw changes nothing', (t) => {
  const reg = api.registerParticipant({ id: 'p1', protocolVersion: 1, didMount() {} });
  assert.equal(typeof reg.fault, 'function');
  assert.throws(() => api.registerParticipant({ id: 'p1', protocolVersion: 1, didMount() {} })); // a duplicate id
  const proc = api.registerContentProcessor({ id: 'c1', async prepare(ctx, base) { return base(); } });
  assert.equal(typeof proc.refresh, 'function');
  assert.deepEqual(told, ['participant', 'processor']);
  fail = true;
  const errors = t.mock.method(console, 'error', () => {});
  const again = api.registerContentProcessor({ id: 'c2', async prepare(ctx, base) { return base(); } });
  assert.equal(typeof again.refresh, 'function', 'the registration stands');
  assert.deepEqual(told, ['participant', 'processor', 'processor']);
  assert.equal(errors.mock.callCount() + (typeof globalThis.reportError === 'function' ? 1 : 0) >= 1, true);
  // A second install (the same page) keeps the first one's observer.
  assert.equal(installChatSurfaceApi(globalThis, { managed: false, onRegister() { throw new Error('not this one'); } }), api);
});
