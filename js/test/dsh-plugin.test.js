// The DeepSeek Harness plugin without the harness: the host half
// (dsh-plugin/host.js) applied to a context shaped like the harness's —
// webServer prefix routes served by a real Node http server, live sessions
// whose append runs the same Go validator and fold (S24), agents with
// followup or send — and the browser half's row tagging (dsh-plugin/browser.js)
// under happy-dom. The real harness runs in `make test-dsh`.
import './happydom-preload.cjs';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { readFileSync } from 'node:fs';
import * as plugin from '../../dsh-plugin/host.js';
import { rowTag, tagRows, adoptHostLook, start } from '../../dsh-plugin/browser.js';
import { openLog } from '../session-log.js';

const FIX = new URL('../../testdata/sessionlog/', import.meta.url);
const jsPkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
const pluginPkg = JSON.parse(readFileSync(new URL('../../dsh-plugin/package.json', import.meta.url), 'utf8'));

// A live session the way the harness exposes it: header, an immutable
// events snapshot, and append(type, data, opts) → the logged event. Every
// append is validated and folded by the real Go log first.
class HarnessSession {
  constructor(fixture) {
    const bytes = readFileSync(new URL(fixture, FIX));
    const lines = bytes.toString('utf8').trimEnd().split('\n');
    this.header = JSON.parse(lines[0]);
    this.id = this.header.id;
    this.log = openLog(bytes);
    this.list = lines.slice(1).map((l) => JSON.parse(l));
  }
  get events() { return Object.freeze([...this.list]); }
  append(type, data, opts = {}) {
    const event = { type, seq: this.list.length, time: 1790000999000, data, ...opts };
    this.log.append(JSON.stringify(event));
    this.list.push(event);
    return event;
  }
}

function harnessContext({ followup = true } = {}) {
  const prefixes = new Map();
  const disposers = [];
  const listeners = new Map();
  const session = new HarnessSession('legacy-v0.jsonl');
  const woken = [];
  const agent = { status: 'idle', session };
  if (followup) agent.followup = (m) => woken.push(['followup', m]);
  else agent.send = (m, target, wakeup) => woken.push(['send', m, target, wakeup]);
  let flushes = 0;
  const server = http.createServer((req, res) => {
    const path = new URL(req.url, 'http://x').pathname;
    let best;
    for (const [p, h] of prefixes) if ((path === p || path.startsWith(`${p}/`)) && (!best || p.length > best[0].length)) best = [p, h];
    if (!best) { res.writeHead(404); res.end(); return; }
    best[1](req, res);
  });
  const ctx = {
    webServer: {
      get port() { return server.address().port; },
      register(route) {
        if (prefixes.has(route.path)) throw new Error(`webserver: duplicate prefix route "${route.path}"`);
        prefixes.set(route.path, route.handler);
        return () => prefixes.delete(route.path);
      },
    },
    sessions: {
      get: (id) => (id === session.id ? session : undefined),
      flush: async (s) => { assert.equal(s, session); flushes++; return true; },
    },
    agents: { get: (id) => (id === session.id ? agent : undefined) },
    effect(execute) { disposers.push(execute()); },
    on(name, fn) { listeners.set(name, fn); },
  };
  return {
    ctx, session, agent, woken, server, prefixes,
    flushes: () => flushes,
    indexRows() { const t = []; listeners.get('webserver/index-inject')(t); return t; },
    dispose() { for (const d of disposers.splice(0).reverse()) d(); },
  };
}

async function started(h) {
  await new Promise((r) => h.server.listen(0, '127.0.0.1', r));
  plugin.apply(h.ctx);
  const url = `http://127.0.0.1:${h.server.address().port}`;
  const boot = h.indexRows()[0].value;
  return { url, boot };
}

function call(url, path, { method = 'POST', headers = {}, body } = {}) {
  return fetch(url + path, {
    method,
    headers: { 'Content-Type': 'application/json', 'X-Tavern-Core-Version': plugin.VERSION, ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
}

test('one version across the package, the route and the widget (S88)', () => {
  assert.equal(plugin.VERSION, jsPkg.version);
  assert.equal(pluginPkg.version, jsPkg.version);
  assert.equal(plugin.name, pluginPkg.name);
  assert.equal(pluginPkg.dsh.bundle.patch, './cordis.patch.yml');
  assert.equal(pluginPkg.dsh.client.platform, 'web');
  assert.match(readFileSync(new URL('../../dsh-plugin/cordis.patch.yml', import.meta.url), 'utf8'), /- id: tavern-core-message-editor\n\s+name: tavern-core-message-editor/);
  // The browser half registers under the package name (the harness serves it so).
  assert.match(readFileSync(new URL('../../dsh-plugin/client.js', import.meta.url), 'utf8'), new RegExp(`id: '${pluginPkg.name}'`));
});

test('the host half serves a live v0 session: credential, origin, v0 writes, flush, wake (S20, S52, S64, S85)', async (t) => {
  const h = harnessContext();
  t.after(() => { h.dispose(); h.server.close(); });
  const { url, boot } = await started(h);
  const row = h.indexRows()[0];
  assert.equal(row.kind, 'global');
  assert.equal(row.name, plugin.BOOT_GLOBAL);
  assert.deepEqual(Object.keys(boot).sort(), ['assets', 'authHeader', 'origin', 'token', 'version']);
  assert.equal(boot.origin, url, 'the one origin the route answers on');
  assert.ok(boot.token.length >= 40, 'a per-boot random token');
  const auth = { [boot.authHeader]: boot.token };
  const edit = { session: 'sL', target: { messageId: 'lu1' }, text: 'hi' };

  assert.equal((await call(url, `${plugin.ROUTE_PREFIX}/edit`, { body: edit })).status, 401, 'no credential');
  assert.equal((await call(url, `${plugin.ROUTE_PREFIX}/edit`, { body: edit, headers: { [boot.authHeader]: `${boot.token.slice(1)}x` } })).status, 401, 'a wrong one');
  assert.equal((await call(url, `${plugin.ROUTE_PREFIX}/edit`, { body: edit, headers: { ...auth, Origin: 'https://evil.example' } })).status, 403);
  assert.equal(h.session.list.length, 12, 'refusals write nothing');

  const ok = await call(url, `${plugin.ROUTE_PREFIX}/edit`, { body: edit, headers: { ...auth, Origin: url } });
  assert.deepEqual(await ok.json(), { ok: true, value: { unchanged: false, seq: 12, replacedSeq: 0, inFlight: false } });
  assert.deepEqual(h.session.list[12].surfaceOp, { op: 'replace', start: 0, end: 0 });
  assert.equal(h.flushes(), 1, 'flushed through ctx.sessions.flush before answering');

  const reply = await call(url, `${plugin.ROUTE_PREFIX}/edit`, { body: { session: 'sL', target: { messageId: 'la1' }, text: 'x' }, headers: auth });
  assert.equal(reply.status, 409);
  assert.equal((await reply.json()).error.code, 'assistant-immutable');

  const regen = await call(url, `${plugin.ROUTE_PREFIX}/regenerate`, { body: { session: 'sL', target: { messageId: 'la1' } }, headers: auth });
  assert.equal(regen.status, 200);
  assert.equal(h.woken.length, 1);
  assert.equal(h.woken[0][0], 'followup');
  assert.deepEqual(h.woken[0][1].source, { kind: 'plugin', plugin: 'tavern-core-message-editor' });

  h.agent.status = 'running';
  const state = await (await call(url, `${plugin.ROUTE_PREFIX}/state?session=sL`, { method: 'GET', headers: auth })).json();
  assert.equal(state.value.formatVersion, 0);
  assert.equal(state.value.agentRunning, true);
  assert.equal((await call(url, `${plugin.ROUTE_PREFIX}/state?session=nope`, { method: 'GET', headers: auth })).status, 409);
  // Only the exact paths answer; a plain 404 elsewhere under the prefix (S82).
  const other = await call(url, `${plugin.ROUTE_PREFIX}/edit/more`, { headers: auth, body: edit });
  assert.equal(other.status, 404);
  assert.equal(await other.text(), '');
});

test('an agent without followup is woken through send(…, next-turn, true) (S64)', async (t) => {
  const h = harnessContext({ followup: false });
  t.after(() => { h.dispose(); h.server.close(); });
  const { url, boot } = await started(h);
  const r = await call(url, `${plugin.ROUTE_PREFIX}/regenerate`, { body: { session: 'sL', target: { messageId: 'lu1' } }, headers: { [boot.authHeader]: boot.token } });
  assert.equal(r.status, 200);
  assert.equal(h.woken[0][0], 'send');
  assert.equal(h.woken[0][2], 'next-turn');
  assert.equal(h.woken[0][3], true);
});

test('assets: the browser half and the widget runtime only, fresh from disk', async (t) => {
  const h = harnessContext();
  t.after(() => { h.dispose(); h.server.close(); });
  const { url, boot } = await started(h);
  assert.equal(boot.assets, plugin.ASSET_PREFIX);
  const get = (p, method = 'GET') => fetch(`${url}${plugin.ASSET_PREFIX}${p}`, { method });
  const js = await get('/browser.js');
  assert.equal(js.status, 200);
  assert.equal(js.headers.get('content-type'), 'text/javascript; charset=utf-8');
  assert.equal(js.headers.get('cache-control'), 'no-cache');
  for (const p of ['/lib/message-editor.js', '/lib/core.js', '/lib/wasm_exec.js']) assert.equal((await get(p)).status, 200, p);
  const wasm = await get('/lib/tavern-core.wasm');
  assert.equal(wasm.headers.get('content-type'), 'application/wasm');
  for (const p of ['/lib/tavern-host.wasm', '/host.js', '/lib/../host.js', '/lib/%2e%2e%2fhost.js', '/package.json', '/lib/package.json']) {
    assert.equal((await get(p)).status, 404, p);
  }
  assert.equal((await get('/browser.js', 'POST')).status, 405);
});

test('one active instance per harness: a second one fails with the S82 message, a disposed one frees the paths (S82)', async (t) => {
  const h = harnessContext();
  t.after(() => { h.dispose(); h.server.close(); });
  await started(h);
  const other = harnessContext();
  t.after(() => other.server.close());
  assert.throws(() => plugin.apply(other.ctx), /tavern-core-message-editor is already active in this host/);
  h.dispose();
  plugin.apply(other.ctx);
  other.dispose();
});

// The browser half's map from harness nodes to the widget's host contract.
test('harness rows are tagged from the session\'s node store (S90, S95, S96)', () => {
  assert.deepEqual(rowTag({ kind: 'user', data: { seq: 7 } }), { seq: 7, body: true, actions: true, images: [] });
  assert.deepEqual(rowTag({ kind: 'steering', data: { seq: 9 } }), { seq: 9, body: true, actions: true, images: [] });
  const img = (attachmentId) => ({ type: 'image', attachment: { attachmentId, mediaType: 'image/png' } });
  assert.deepEqual(
    rowTag({ kind: 'user', data: { seq: 7, content: [img('a'), { type: 'text', text: 'q' }, { type: 'image' }, img('b'), img(5)] } }).images,
    ['a', 'b', undefined],
    'the images the harness draws, in content order (an image block without an attachment is not drawn)',
  );
  assert.deepEqual(rowTag({ kind: 'context', data: { seq: 8 } }), { seq: 8 });
  assert.deepEqual(rowTag({ kind: 'assistant-step', data: { finalNode: { seq: 20 } } }), { seq: 20 });
  assert.deepEqual(rowTag({ kind: 'assistant-step', data: {} }), { seq: undefined }, 'a streaming step has no reply yet');
  assert.deepEqual(rowTag({ kind: 'tool', data: { root: { kind: 'tool-result', seq: 12 } } }), { seq: 12 });
  // The harness's own kind for tool rows (they stayed untagged, so a
  // regenerated turn's old tool calls stayed on screen).
  assert.deepEqual(rowTag({ kind: 'tool-call', data: { root: { kind: 'tool-result', seq: 44 } } }), { seq: 44 });
  assert.deepEqual(rowTag({ kind: 'tool-call', data: { root: { callId: 'c1', name: 'glob' } } }), { seq: undefined }, 'a running call');
  assert.deepEqual(rowTag({ kind: 'turn-tail', data: { closing: { finalNode: { seq: 20 } } } }), { part: 20, actions: true });
  assert.deepEqual(rowTag({ kind: 'compaction' }), {});
  assert.deepEqual(rowTag(undefined), {});

  const root = document.createElement('div');
  root.innerHTML = `
    <div data-chat-flow-key="13:input-messageu1"><div class="x_userRow"><div class="x_userStack"><div class="g_gallery"><button>a</button><button>b</button></div><div class="h_bubble"><div class="t_text">q</div></div></div>
      <div class="h_actions"><span>21:17</span><button class="h_action">Copy</button></div></div></div>
    <div data-chat-flow-key="14:assistant-step1:1"><p>r</p></div>
    <div data-chat-flow-key="9:turn-tail1"><div class="h_actions"><button class="h_action">Copy</button><div><button>Good</button></div><span class="end">time</span></div></div>
    <div data-chat-flow-key="5:other" data-seq="99"></div>
    <div data-chat-flow-key="15:tool-call" data-seq="19"></div>`;
  const nodes = new Map([
    ['13:input-messageu1', { kind: 'user', data: { seq: 7, content: [img('ia'), { type: 'text', text: 'q' }, img('ib')] } }],
    ['14:assistant-step1:1', { kind: 'assistant-step', data: { finalNode: { seq: 20 } } }],
    ['15:tool-call', { kind: 'tool-call', data: { root: { kind: 'tool-result', seq: 19.2 } } }],
    ['9:turn-tail1', { kind: 'turn-tail', data: { closing: { finalNode: { seq: 20 } } } }],
    ['5:other', { kind: 'retry', data: {} }],
  ]);
  tagRows(root, { chat: { nodes } });
  const [user, step, tail, other] = root.children;
  assert.equal(user.getAttribute('data-seq'), '7');
  assert.equal(user.querySelector('[data-part=body]').className, 'h_bubble');
  assert.equal(user.querySelector('[data-part=actions]').className, 'h_actions');
  assert.equal(step.getAttribute('data-seq'), '20');
  assert.equal(tail.getAttribute('data-seq-part'), '20');
  assert.equal(tail.hasAttribute('data-seq'), false);
  assert.equal(other.hasAttribute('data-seq'), false, 'a stale tag is removed');
  assert.equal(root.lastElementChild.hasAttribute('data-seq'), false, 'an interrupted call\'s synthetic seq is no event\'s');
  const thumbs = () => [...user.querySelectorAll('.g_gallery > *')].map((b) => b.getAttribute('data-attachment-id'));
  assert.deepEqual(thumbs(), ['ia', 'ib'], 'each thumbnail carries its attachment id');
  nodes.set('13:input-messageu1', { kind: 'user', data: { seq: 7, content: [img('ic')] } });
  tagRows(root, { chat: { nodes } });
  assert.deepEqual(thumbs(), ['ic', null], 'tags follow the node store');

  // The widget's buttons take the harness's classes and sit after its own
  // buttons, before the trailing time stamp.
  // An element of the widget's (data-tc-me).
  const widgetEl = (tag, className) => {
    const el = document.createElement(tag);
    el.className = className;
    el.setAttribute('data-tc-me', '');
    return el;
  };
  const bar = tail.querySelector('[data-part=actions]');
  const ours = widgetEl('button', 'tc-me-act tc-me-regenerate');
  bar.append(ours);
  adoptHostLook(root);
  assert.ok(ours.classList.contains('h_action') && ours.classList.contains('tc-me-regenerate'));
  assert.deepEqual([...bar.children].map((c) => c.className.split(' ')[0]), ['h_action', '', 'tc-me-act', 'end']);

  // The widget's live text adopts the bubble's classes and sits before it:
  // the next tagging keeps the body tag on the harness's bubble (it moved to
  // the live text, and the row showed both texts).
  const bubble = user.querySelector('.h_bubble');
  const view = widgetEl('div', 'tc-me-body');
  bubble.before(view);
  adoptHostLook(root);
  assert.ok(view.classList.contains('h_bubble'), 'the live text looks like the bubble');
  tagRows(root, { chat: { nodes } });
  assert.deepEqual([...user.querySelectorAll('[data-part=body]')], [bubble]);
  assert.deepEqual([...user.querySelectorAll('[data-part=actions]')], [user.querySelector('.h_actions')]);
});

test('opened under another name than the route\'s origin, the page says where the editor works and sends nothing (S85.1)', async (t) => {
  // happy-dom's page is http://127.0.0.1/; dsh web printed another address.
  assert.equal(globalThis.location.origin, 'http://127.0.0.1');
  const page = document.createElement('main');
  page.innerHTML = '<div data-chat-flow><div data-chat-flow-key="13:input-messageu1"></div></div>';
  document.body.append(page);
  const realFetch = globalThis.fetch;
  let requests = 0;
  globalThis.fetch = async () => { requests++; throw new Error('no request expected'); };
  const subscribers = [];
  const sessions = {
    list: { getSnapshot: () => ({ current: 'sL' }), subscribe: (fn) => { subscribers.push(fn); return () => {}; } },
    binding: () => { throw new Error('nothing is mounted on the wrong origin'); },
  };
  const running = start({ sessions, boot: { token: 't', authHeader: 'X-Tavern-Core-Auth', assets: '/a', version: '0', origin: 'http://127.0.0.1:4173' } });
  t.after(() => { running.stop(); page.remove(); globalThis.fetch = realFetch; });
  const frame = () => new Promise((r) => requestAnimationFrame(() => r()));
  await frame();
  await frame();
  const note = () => page.querySelector('.tc-me-elsewhere');
  assert.ok(note(), 'a note above the chat');
  assert.equal(note().nextElementSibling, page.querySelector('[data-chat-flow]'));
  assert.equal(note().textContent, 'Editing and regenerating messages works at http://127.0.0.1:4173, the address dsh web printed; this page was opened as http://127.0.0.1.');
  assert.equal(note().querySelector('a').getAttribute('href'), 'http://127.0.0.1:4173/');
  // The harness re-renders its column: the note comes back, once.
  note().remove();
  const flow = page.querySelector('[data-chat-flow]');
  flow.replaceWith(flow.cloneNode(true));
  await frame();
  await frame();
  assert.equal(page.querySelectorAll('.tc-me-elsewhere').length, 1);
  assert.equal(note().nextElementSibling, page.querySelector('[data-chat-flow]'));
  assert.equal(page.querySelectorAll('.tc-me-pencil').length, 0);
  assert.equal(requests, 0, 'no request that the route would refuse');
  running.stop();
  assert.equal(note(), null, 'stop removes it');
});
