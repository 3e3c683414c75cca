// The spacers' default style (C74, docs/decisions.md): one zero-specificity
// rule per document, added when the first spacer is made. Its own file: the
// default is added once per document per process, and these tests need the
// first time. A page whose sheet list refuses the write (a throwing setter)
// keeps its own CSS in charge, and the host works on as if it had none.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { makeRoot, frames, formatMessage, materializer, messages } from './chat-surface-fixture.js';
import { installChatSurfaceApi, createChatSurfaceHost } from '../chat-surface.js';

installChatSurfaceApi(globalThis, { managed: true });

async function open(chat, place = () => {}) {
  const root = makeRoot({ height: 500 });
  place(root);
  const sched = frames();
  const host = createChatSurfaceHost({ root, getMessages: () => chat, materialize: materializer(), formatMessage, emit() {}, ...sched });
  const opened = host.open();
  sched.flush();
  await opened;
  sched.flush();
  return { root, sched, host };
}

test('C74 hostile host: a document whose sheets throw still opens, jumps and disposes; the default is tried once', async () => {
  let writes = 0;
  const boom = new Error('no sheets here');
  // (happy-dom's own getComputedStyle reads the list, so only a write throws)
  Object.defineProperty(document, 'adoptedStyleSheets', { configurable: true, get: () => [], set() { writes++; throw boom; } });
  try {
    const chat = messages(400);
    const x = await open(chat);
    assert.equal(x.host.snapshot().state, 'settled');
    assert.ok(x.root.querySelector(':scope > tt-chat-spacer[data-tt-chat-spacer="top"]'));
    assert.equal(x.host.jumpToMessage(200).getAttribute('mesid'), '200');
    x.sched.flush();
    assert.equal(x.host.snapshot().fault, null);
    assert.equal(writes, 1, 'tried once for the document, not per spacer');
    x.host.dispose();
    x.root.remove();
    const y = await open(chat); // the next host works too
    assert.equal(y.host.snapshot().state, 'settled');
    y.host.dispose();
    y.root.remove();
  } finally {
    delete document.adoptedStyleSheets;
  }
});

test('C74: a surface root inside a shadow root gets the spacer default in that shadow root', async () => {
  const shadowHost = document.createElement('div');
  document.body.append(shadowHost);
  const shadow = shadowHost.attachShadow({ mode: 'open' });
  const { root, host } = await open(messages(400), (r) => shadow.append(r));
  try {
    const spacer = root.querySelector(':scope > tt-chat-spacer');
    assert.ok(spacer);
    const rules = shadow.adoptedStyleSheets.flatMap((sh) => [...sh.cssRules].map((r) => r.cssText)).join('\n');
    assert.match(rules, /tt-chat-spacer/, 'document sheets do not reach a shadow tree');
    assert.equal(getComputedStyle(spacer).display, 'block');
  } finally {
    host.dispose();
    shadowHost.remove();
  }
});
