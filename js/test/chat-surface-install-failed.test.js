// C11: a failed install writes nothing and records nothing. Its own file:
// the page's virtualization decision is made once per core (C11, C14).
// Found by probing: Go recorded the decision before the facade's writes,
// so an install onto a frozen target left a decision no later install
// could change.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import './chat-surface-fixture.js';
import { installChatSurfaceApi } from '../chat-surface.js';

test('C11: an install whose writes throw takes them back and records no decision', () => {
  const frozen = Object.freeze({});
  assert.throws(() => installChatSurfaceApi(frozen, { managed: true }), TypeError);
  const tauri = {};
  const half = { __TAURITAVERN__: tauri };
  Object.defineProperty(tauri, 'api', { get: () => undefined, set: undefined, configurable: true, enumerable: true });
  assert.throws(() => installChatSurfaceApi(half, { managed: true }), TypeError);
  assert.deepEqual(Object.keys(half), ['__TAURITAVERN__']);
  const sealed = { __TAURITAVERN__: { api: Object.preventExtensions({}) } };
  assert.throws(() => installChatSurfaceApi(sealed, { managed: true }), TypeError);
  assert.deepEqual(Object.keys(sealed.__TAURITAVERN__.api), []);
  // No decision was recorded: static mode is still open to the page.
  const target = {};
  const api = installChatSurfaceApi(target, { managed: false });
  assert.equal(target.__TAURITAVERN__.api.chatSurface, api);
  assert.equal(api.isManagedOwnershipRequired(), false);
  assert.throws(() => installChatSurfaceApi({}, { managed: true }), /Chat virtualization changed during this page lifetime: false -> true/);
});
