// The message editor's route through the Fetch path: the Go handler behind
// the host module's own Fetch ⇄ net/http bridge, mounted on the harness-like
// host (S76–S89). The Go httptest suite covers the handler natively; these
// check the same contract across the bridge and a real Node http server.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { copyFileSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { SessionHost, Agent } from '../session-host.js';
import { EDITOR_PATHS, VERSION_HEADER, validate, SessionLogError } from '../session-log.js';
import { tempDir } from './temp-dir.js';

const FIX = new URL('../../testdata/sessionlog/', import.meta.url);
const ORIGIN = 'http://127.0.0.1:4000';
const VERSION = '1.3.0';

function setup({ agent, authorize, fixture = 'f.jsonl', answerTimeoutMs } = {}) {
  const dir = tempDir('tavern-route-');
  const path = join(dir, 'session.jsonl');
  copyFileSync(new URL(fixture, FIX), path);
  const host = new SessionHost({ origin: ORIGIN, version: VERSION, authorize, answerTimeoutMs });
  const session = host.load(path, { agent: agent === undefined ? new Agent() : agent });
  const handle = host.mountEditor();
  return { host, session, path, handle, agent: host.agent(session.id) };
}

function request(op, { body, method, headers = {}, url } = {}) {
  const isState = op === 'state';
  const h = { [VERSION_HEADER]: VERSION, ...headers };
  if (!isState && !('Content-Type' in h)) h['Content-Type'] = 'application/json';
  for (const k of Object.keys(h)) if (h[k] === undefined) delete h[k];
  return new Request(url ?? `${ORIGIN}${EDITOR_PATHS[op]}${isState ? '?session=sF' : ''}`, {
    method: method ?? (isState ? 'GET' : 'POST'),
    headers: h,
    body: body === undefined ? undefined : (typeof body === 'string' ? body : JSON.stringify(body)),
    duplex: 'half',
  });
}

async function answer(res) {
  assert.equal(res.headers.get('content-type'), 'application/json; charset=utf-8');
  assert.equal(res.headers.get('cache-control'), 'no-store');
  return { status: res.status, ...(await res.json()) };
}

const send = async (t, op, opts) => answer(await t.host.fetch(request(op, opts)));
const edit = (target, text, extra = {}) => ({ body: { session: 'sF', target, text, ...extra } });

test('edit through Fetch writes C21, flushes to disk and wakes nobody (C21, S52)', async () => {
  const t = setup();
  const r = await send(t, 'edit', edit({ messageId: 'u1' }, 'q1*'));
  assert.deepEqual(r, { status: 200, ok: true, value: { unchanged: false, seq: 20, replacedSeq: 2, inFlight: false } });
  assert.deepEqual(t.agent.followups, []);
  const disk = readFileSync(t.path);
  assert.deepEqual(validate(disk), { ok: true, version: 4, events: 21 });
  const ev = JSON.parse(disk.toString().trimEnd().split('\n').at(-1));
  assert.deepEqual(ev.surfaceOp, { op: 'replace', startSeq: 2, endSeq: 2 });
  assert.deepEqual(ev.sourceEventSeqs, [2]);
  assert.deepEqual(ev.data.source.messageEdit, { originalEventSeq: 2, action: 'edit' });
  const st = await send(t, 'state');
  assert.equal(st.status, 200);
  assert.deepEqual(st.value.userRows[0], { seq: 2, id: 'u1', liveSeq: 20, text: 'q1*', attachments: [], edited: true, undoable: true, regenerable: false, shadowed: false });
  assert.equal(st.value.hostVersion, VERSION);
  assert.equal(st.value.formatVersion, 4);
  // C24: the same text again is unchanged and writes nothing.
  assert.deepEqual((await send(t, 'edit', edit({ messageId: 'u1' }, 'q1*'))).value, { unchanged: true });
  assert.equal(t.session.length, 21);
});

test('regenerate wakes once; a second one is busy until the trigger lands (C47, C48, C49)', async () => {
  const t = setup();
  const r = await send(t, 'regenerate', { body: { session: 'sF', target: { messageId: 'u2' }, text: 'Q2' } });
  assert.deepEqual(r.value, { seq: 20, shadowedSeqs: [15, 17], triggerId: 'tavern-core-message-editor:trigger:20' });
  assert.deepEqual(t.agent.followups, [{
    id: 'tavern-core-message-editor:trigger:20', role: 'user',
    content: [{ type: 'text', text: 'Please respond to the message above.' }],
    source: { kind: 'plugin:tavern-core-message-editor' },
  }]);
  const busy = await send(t, 'regenerate', { body: { session: 'sF', target: { messageId: 'u2' } } });
  assert.equal(busy.status, 409);
  assert.equal(busy.error.code, 'agent-busy');
  assert.equal((await send(t, 'state')).value.wakePending, true);
  // The harness delivers the trigger and answers (C49).
  const s = t.session;
  s.append('turn/start', { turn: 3 });
  s.append('user/message', t.agent.followups[0], { surfaceOp: 'append', sourceEventSeqs: [21] });
  s.append('step/start', { turn: 3, step: 1 });
  s.append('assistant/message', { turn: 3, step: 1, message: { id: 'a4', role: 'assistant', content: [{ type: 'text', text: 'r2b' }], source: { kind: 'model', provider: 'p', model: 'm' } }, stream: [] }, { surfaceOp: 'append' });
  const st = (await send(t, 'state')).value;
  assert.equal(st.wakePending, false);
  assert.deepEqual(st.hiddenSeqs, [17, 22]);
  assert.equal(st.assistantRows.find((a) => a.seq === 24).regenerable, true);
});

test('S65: a wake pending with an agent the session no longer has ends (unloaded and loaded again); an unknown status is busy', async () => {
  const t = setup();
  assert.equal((await send(t, 'regenerate', { body: { session: 'sF', target: { messageId: 'u2' } } })).value.seq, 20);
  const agent = t.agent;
  assert.equal((await send(t, 'regenerate', { body: { session: 'sF', target: { messageId: 'u2' } } })).error.code, 'agent-busy');
  assert.equal((await send(t, 'state')).value.wakePending, true, 'the same agent: still pending');
  t.host.unload('sF');
  t.host.load(t.path, { agent: new Agent() });
  const st = (await send(t, 'state')).value;
  assert.deepEqual([st.wakePending, st.agentRunning], [false, false]);
  const again = await send(t, 'regenerate', { body: { session: 'sF', target: { messageId: 'u2' } } });
  assert.equal(again.status, 200, JSON.stringify(again.error));
  assert.equal(t.host.agent('sF').followups.length, 1, 'the new agent is woken');
  assert.equal(agent.followups.length, 1);
  for (const status of ['busy', 'IDLE']) {
    const u = setup();
    u.agent.status = status;
    const r = await send(u, 'regenerate', { body: { session: 'sF', target: { messageId: 'u2' } } });
    assert.equal(r.error?.code, 'agent-busy', status);
    assert.equal(u.agent.followups.length, 0);
  }
});

test('status table across the bridge (S86); refusals write nothing (S76)', async () => {
  const t = setup();
  const before = readFileSync(t.path);
  const cases = [
    [edit({ messageId: 'u1' }, ''), 400, 'empty-message'],
    [edit({ messageId: 'rc1' }, 'x'), 400, 'not-user-message'],
    [{ body: '{"session":' }, 400, 'bad-request'],
    [{ body: { session: 'sF', target: { messageId: 'u1' }, text: 'x', extra: 1 } }, 400, 'bad-request'],
    [{ ...edit({ messageId: 'u1' }, 'x'), headers: { 'Content-Type': 'text/plain' } }, 400, 'bad-request'],
    [{ ...edit({ messageId: 'u1' }, 'x'), headers: { [VERSION_HEADER]: undefined } }, 400, 'bad-request'],
    [edit({ messageId: 'nope' }, 'x'), 404, 'message-not-found'],
    [edit({ messageId: 'a1' }, 'x'), 409, 'assistant-immutable'],
    [{ body: { session: 'sX', target: { messageId: 'u1' }, text: 'x' } }, 409, 'session-not-loaded'],
    [{ ...edit({ messageId: 'u1' }, 'x'), headers: { Origin: 'https://evil.example' } }, 403, 'forbidden'],
    [{ ...edit({ messageId: 'u1' }, 'x'), headers: { Host: 'evil.example' } }, 403, 'forbidden'],
  ];
  for (const [opts, status, code] of cases) {
    const r = await send(t, 'edit', opts);
    assert.equal(r.status, status, `${code}: ${r.error?.message}`);
    assert.equal(r.ok, false);
    assert.equal(r.error.code, code);
  }
  const get = await answer(await t.host.fetch(request('edit', { method: 'GET' })));
  assert.equal(get.status, 405);
  assert.equal(get.error.code, 'method-not-allowed');
  const skew = await send(t, 'edit', { ...edit({ messageId: 'u1' }, 'x'), headers: { [VERSION_HEADER]: '1.2.0' } });
  assert.equal(skew.status, 409);
  assert.equal(skew.error.code, 'version-skew');
  assert.equal(skew.error.message, 'The host runs tavern-core-message-editor 1.3.0 but this page runs 1.2.0. Restart DeepSeek Harness to load the new version; no data was changed.');
  assert.equal(t.session.length, 20);
  assert.deepEqual(readFileSync(t.path), before);
  assert.deepEqual(t.agent.followups, []);
  // The same origin, or no Origin with the right Host, is processed (C63).
  assert.equal((await send(t, 'edit', { ...edit({ messageId: 'u1' }, 'ok'), headers: { Origin: ORIGIN } })).status, 200);
});

test('oversized bodies are refused before or while reading (C64)', async () => {
  const t = setup();
  const pad = (n) => {
    const base = JSON.stringify({ session: 'sF', target: { messageId: 'u1' }, text: '' });
    return base.replace('"text":""', `"text":"${'x'.repeat(n - base.length)}"`);
  };
  const exact = pad(65536);
  assert.equal(Buffer.byteLength(exact), 65536);
  assert.equal((await send(t, 'edit', { body: exact })).status, 200);
  const over = await send(t, 'edit', { body: pad(65537) });
  assert.equal(over.status, 413);
  assert.equal(over.error.code, 'too-large');
  // A body without Content-Length is read through the limit: the stream
  // is cancelled after 65,537 bytes, never buffered whole.
  let pulled = 0;
  const stream = new ReadableStream({
    pull(c) {
      pulled += 16384;
      if (pulled > 1 << 22) { c.close(); return; }
      c.enqueue(new Uint8Array(16384).fill(0x20));
    },
  });
  const streamed = await answer(await t.host.fetch(new Request(`${ORIGIN}${EDITOR_PATHS.edit}`, {
    method: 'POST', body: stream, duplex: 'half',
    headers: { 'Content-Type': 'application/json', [VERSION_HEADER]: VERSION },
  })));
  assert.equal(streamed.status, 413);
  assert.ok(pulled < 1 << 20, `pulled ${pulled} bytes`);
  assert.equal(t.session.length, 21);
});

test('compaction lock, live v0 and v4 served, v1–v3 and unknown formats refused, missing agent (C38, C61, S20)', async () => {
  const t = setup();
  t.session.append('compaction/start', { compactionId: 'k1', turn: null });
  const locked = await send(t, 'edit', edit({ messageId: 'u2' }, 'x'));
  assert.equal(locked.status, 423);
  assert.equal(locked.error.code, 'compaction-open');
  assert.equal((await send(t, 'state')).value.compactionOpen, true);

  const noAgent = setup({ agent: null });
  assert.equal((await send(noAgent, 'edit', edit({ messageId: 'u1' }, 'x'))).error.code, 'session-not-loaded');

  // Live v0 (the real harness 0.1.x) and v4 sessions are served, each in
  // its own spelling; v1–v3 are refused and nothing is written (S20, C61).
  const dir = tempDir('tavern-route-');
  const user = '{"type":"user/message","seq":0,"time":1,"data":{"id":"u1","role":"user","content":[{"type":"text","text":"q"}],"source":{"kind":"user"}},"surfaceOp":"append"}\n';
  for (const [v, op] of [[0, { op: 'replace', start: 0, end: 0 }], [1, null], [2, null], [3, null], [4, { op: 'replace', startSeq: 0, endSeq: 0 }]]) {
    const p = join(dir, `v${v}.jsonl`);
    writeFileSync(p, `{"type":"session","version":${v},"id":"sF","createdAt":0,"cwd":"/w"}\n${user}`);
    const vhost = new SessionHost({ origin: ORIGIN, version: VERSION });
    vhost.load(p);
    vhost.mountEditor();
    const r = await answer(await vhost.fetch(request('edit', edit({ messageId: 'u1' }, 'x'))));
    if (op === null) {
      assert.equal(r.status, 409, JSON.stringify(r));
      assert.equal(r.error.code, 'unsupported-format');
      assert.equal(readFileSync(p, 'utf8').trimEnd().split('\n').length, 2, `v${v}: nothing written`);
      continue;
    }
    assert.equal(r.status, 200, JSON.stringify(r));
    assert.deepEqual(JSON.parse(readFileSync(p, 'utf8').trimEnd().split('\n').at(-1)).surfaceOp, op);
  }
  // A version no reader knows is unsupported-format too.
  const routes = new Map();
  const unknown = {
    origin: ORIGIN, version: VERSION, authorize: () => true,
    session: () => ({ headerVersion: 5, snapshot: () => [], append() { throw new Error('must not append'); } }),
    agent: () => new Agent(),
  };
  const { mountEditorRoute } = await import('../session-log.js');
  mountEditorRoute(unknown, routes);
  const r = await answer(await routes.get(EDITOR_PATHS.edit)(request('edit', edit({ messageId: 'u1' }, 'x'))));
  assert.equal(r.status, 409);
  assert.equal(r.error.code, 'unsupported-format');
  // A version that is no integer is no version (it was read as 0 or 4).
  for (const headerVersion of [NaN, 4.5, Infinity, '4']) {
    const odd = new Map();
    mountEditorRoute({ ...unknown, session: () => ({ headerVersion, snapshot: () => [], append() { throw new Error('must not append'); } }) }, odd);
    const o = await answer(await odd.get(EDITOR_PATHS.edit)(request('edit', edit({ messageId: 'u1' }, 'x'))));
    assert.equal(o.error?.code, 'unsupported-format', String(headerVersion));
    assert.match(o.error?.message ?? '', /names no log format version/, 'no "version -1"');
  }
  // A host whose version getter throws failed, which is internal, not an
  // unknown format; the next request works.
  let broken = true;
  const throwing = new Map();
  mountEditorRoute({ ...unknown, session: () => ({ get headerVersion() { if (broken) throw new Error('disk gone'); return 5; }, snapshot: () => [], append() { throw new Error('must not append'); } }) }, throwing);
  const e = await answer(await throwing.get(EDITOR_PATHS.edit)(request('edit', edit({ messageId: 'u1' }, 'x'))));
  assert.equal(e.status, 500);
  assert.equal(e.error?.code, 'internal');
  assert.match(e.error?.message ?? '', /disk gone/);
  broken = false;
  const next = await answer(await throwing.get(EDITOR_PATHS.edit)(request('edit', edit({ messageId: 'u1' }, 'x'))));
  assert.equal(next.error?.code, 'unsupported-format');
});

test('auth hook: sync or async, refusal is 401 after the origin check (S85)', async () => {
  let allow = false;
  const t = setup({ authorize: async (req) => { assert.ok(req instanceof Request); return allow; } });
  const denied = await send(t, 'edit', edit({ messageId: 'u1' }, 'x'));
  assert.equal(denied.status, 401);
  assert.equal(denied.error.code, 'unauthorized');
  // Transport order: a foreign origin is forbidden before auth runs.
  assert.equal((await send(t, 'edit', { ...edit({ messageId: 'u1' }, 'x'), headers: { Origin: 'https://evil.example' } })).status, 403);
  allow = true;
  assert.equal((await send(t, 'edit', edit({ messageId: 'u1' }, 'x'))).status, 200);
});

test('a rejected append, a failed flush, a failed followup are internal (C60, C66)', async () => {
  const t = setup();
  const realAppend = t.session.append.bind(t.session);
  t.session.append = () => { throw new Error('X-harness-refused'); };
  const rejected = await send(t, 'edit', edit({ messageId: 'u1' }, 'x'));
  assert.equal(rejected.status, 500);
  assert.equal(rejected.error.code, 'internal');
  assert.match(rejected.error.message, /X-harness-refused/);
  assert.equal(t.session.length, 20);
  t.session.append = realAppend;

  t.session.flush = async () => { throw new Error('disk full'); };
  const unflushed = await send(t, 'edit', edit({ messageId: 'u1' }, 'y'));
  assert.equal(unflushed.status, 500);
  assert.match(unflushed.error.message, /unconfirmed/);
  assert.equal(t.session.length, 21);

  const f = setup({ agent: new Agent({ onFollowup: () => Promise.reject(new Error('agent gone')) }) });
  const woke = await send(f, 'regenerate', { body: { session: 'sF', target: { messageId: 'u2' } } });
  assert.equal(woke.status, 500);
  assert.match(woke.error.message, /could not be woken/);
  assert.equal(f.session.length, 21);
});

test('S80: a host answer that never settles holds no lock for good: past answerTimeoutMs the edit is unconfirmed and the next one goes ahead', async () => {
  const never = () => new Promise(() => {});
  const t = setup({ answerTimeoutMs: 150 });
  // A flush that never settles: the change is in the live session, not confirmed on disk.
  const realFlush = t.session.flush.bind(t.session);
  t.session.flush = never;
  const hung = await send(t, 'edit', edit({ messageId: 'u1' }, 'x'));
  assert.equal(hung.status, 500);
  assert.equal(hung.error.code, 'internal');
  assert.match(hung.error.message, /persisting it failed, so it is unconfirmed: it did not answer within 150ms/);
  t.session.flush = realFlush;
  const next = await send(t, 'edit', edit({ messageId: 'u1' }, 'y'));
  assert.equal(next.status, 200, 'the session\'s next edit is not stuck behind the first');
  // An append that never answers: handed over, so neither saved nor not.
  const realAppend = t.session.append.bind(t.session);
  t.session.append = never;
  const unanswered = await send(t, 'edit', edit({ messageId: 'u1' }, 'z'));
  assert.equal(unanswered.status, 500);
  assert.match(unanswered.error.message, /^The harness took the change but it did not answer within 150ms, so it is unconfirmed/);
  t.session.append = realAppend;
  assert.equal((await send(t, 'edit', edit({ messageId: 'u1' }, 'w'))).status, 200);
  // An authorize that never answers is a refusal, not a request held open.
  const a = setup({ answerTimeoutMs: 150, authorize: never });
  assert.equal((await send(a, 'edit', edit({ messageId: 'u1' }, 'x'))).status, 401);
  // A followup that never answers: the model was not woken, as a rejected one.
  const f = setup({ answerTimeoutMs: 150, agent: new Agent({ onFollowup: never }) });
  const woke = await send(f, 'regenerate', { body: { session: 'sF', target: { messageId: 'u2' } } });
  assert.equal(woke.status, 500);
  assert.match(woke.error.message, /could not be woken: it did not answer within 150ms/);
  // The host's timeout is checked when the route is mounted.
  for (const bad of [0, -1, NaN, '100', 2 ** 31]) {
    assert.throws(() => new SessionHost({ answerTimeoutMs: bad }).mountEditor(), /answerTimeoutMs must be a number of milliseconds/);
  }
});

test('a host that throws or rejects with values that are not Errors gets coded answers, and the module keeps serving (issue 13)', async () => {
  const unprintable = Object.create(null);
  const hostile = new Proxy({}, { get() { throw unprintable; } });
  // followup() rejecting with what String() cannot convert: the route's
  // internal answer names it instead of the module exiting.
  for (const reason of [unprintable, hostile, 5, null]) {
    const f = setup({ agent: new Agent({ onFollowup: () => Promise.reject(reason) }) });
    const woke = await send(f, 'regenerate', { body: { session: 'sF', target: { messageId: 'u2' } } });
    assert.equal(woke.status, 500);
    assert.equal(woke.error.code, 'internal');
    const said = reason === null ? 'null' : typeof reason === 'number' ? String(reason) : 'a thrown value that cannot be converted to a string';
    assert.match(woke.error.message, new RegExp(`could not be woken: ${said}\\.`));
    assert.equal((await send(f, 'edit', edit({ messageId: 'u1' }, 'still serving'))).status, 200);
  }
  const t = setup();
  const realAppend = t.session.append.bind(t.session);
  for (const [append, said] of [
    [() => { throw 5; }, /: 5$|\b5\b/],
    [() => { throw hostile; }, /cannot be converted to a string/],
    [() => ({ get then() { throw unprintable; } }), /cannot be converted to a string/], // a thenable whose then getter throws
  ]) {
    t.session.append = append;
    const r = await send(t, 'edit', edit({ messageId: 'u1' }, 'x'));
    assert.equal(r.status, 500);
    assert.equal(r.error.code, 'internal');
    assert.match(r.error.message, said);
  }
  t.session.append = realAppend;
  // A throwing session lookup is a session the host does not serve (S78);
  // a throwing auth hook refuses (S85.2).
  const realSession = t.host.session.bind(t.host);
  t.host.session = () => { throw unprintable; };
  assert.equal((await send(t, 'edit', edit({ messageId: 'u1' }, 'x'))).error.code, 'session-not-loaded');
  t.host.session = realSession;
  const a = setup({ authorize: () => { throw hostile; } });
  assert.equal((await send(a, 'edit', edit({ messageId: 'u1' }, 'x'))).status, 401);
  // And the next ordinary request is served.
  const ok = await send(t, 'edit', edit({ messageId: 'u1' }, 'after all that'));
  assert.equal(ok.status, 200, ok.error?.message);
});

test('a handler called with what is not a Fetch Request, or whose body stream misbehaves, answers the internal envelope; the module keeps serving (issue 13)', async () => {
  const t = setup();
  const U = Object.create(null);
  const url = `${ORIGIN}${EDITOR_PATHS.edit}`;
  const headers = new Headers({ [VERSION_HEADER]: VERSION, 'Content-Type': 'application/json' });
  const body = JSON.stringify({ session: 'sF', target: { messageId: 'u1' }, text: 'x' });
  const streamOf = (...chunks) => new ReadableStream({ start(c) { for (const x of chunks) c.enqueue(x); c.close(); } });
  const like = (over) => ({ url, method: 'POST', headers, body: streamOf(new TextEncoder().encode(body)), ...over });
  const throwingHeaders = Object.defineProperty(like({}), 'headers', { get() { throw U; } });
  // The request itself is unusable: the internal envelope.
  for (const [i, req] of [
    new Proxy({}, { get() { throw U; } }), // every getter throws
    throwingHeaders,
    like({ headers: [new Proxy([], { get() { throw U; } })] }), // an entry whose reads throw
    like({ headers: [['X-Tavern-Core-Version', 5]] }), // not string pairs
    // Read by their iterator, never by a length: Array.from over this ran
    // Node out of memory (hostile probe); and at most 2,000 fields.
    like({ headers: { length: 2 ** 32 - 1 } }),
    like({ headers: Array.from({ length: 2001 }, (_, i) => [`x-h${i}`, 'v']) }),
    like({ headers: { * [Symbol.iterator]() { for (;;) yield ['x-again', 'v']; } } }),
  ].entries()) {
    const r = await answer(await t.handle(req));
    assert.equal(r.status, 500, `case ${i}: ${JSON.stringify(r)}`);
    assert.equal(r.error.code, 'internal', `case ${i}`);
  }
  // Its body cannot be read: the route's bad-request for an unreadable body.
  for (const [i, [req, said]] of [
    [like({ body: streamOf('not bytes') }), /not a Uint8Array/],
    [like({ body: streamOf(new Proxy(new Uint8Array(4), {})) }), /not a Uint8Array/], // looks like bytes, is not
    [like({ body: { getReader: () => ({ read: async () => ({ get done() { throw U; } }), cancel() {} }) } }), /cannot be converted/],
    [like({ body: { getReader: () => ({ read: async () => ({ done: false, value: new Uint8Array(2 << 20) }), cancel() {} }) } }), /over 1048576 bytes/],
  ].entries()) {
    const r = await answer(await t.handle(req));
    assert.equal(r.status, 400, `case ${i}: ${JSON.stringify(r)}`);
    assert.equal(r.error.code, 'bad-request', `case ${i}`);
    assert.match(r.error.message, said);
  }
  assert.equal(t.session.length, 20, 'nothing was written');
  const ok = await send(t, 'edit', edit({ messageId: 'u1' }, 'still serving'));
  assert.equal(ok.status, 200, ok.error?.message);
});

test('concurrent edits run one at a time, each on the other\'s result (C62)', async () => {
  const t = setup();
  const [a, b] = await Promise.all([
    send(t, 'edit', edit({ messageId: 'u1' }, 'A')),
    send(t, 'edit', edit({ messageId: 'u1' }, 'B')),
  ]);
  assert.equal(a.value.seq, 20);
  assert.equal(b.value.seq, 21);
  const events = t.session.snapshot();
  assert.deepEqual(events[21].surfaceOp, { op: 'replace', startSeq: 20, endSeq: 20 });
  assert.equal((await send(t, 'state')).value.userRows[0].text, 'B');
});

test('activation registers the four exact paths once (S82, C65)', () => {
  const t = setup();
  assert.deepEqual([...t.host.routes.keys()].sort(), Object.values(EDITOR_PATHS).sort());
  const e = (() => { try { t.host.mountEditor(); } catch (err) { return err; } })();
  assert.ok(e instanceof SessionLogError);
  assert.equal(e.code, 'already-active');
  assert.equal(e.message, 'tavern-core-message-editor is already active in this host');
  // A registry whose reads throw is refused with a code, not thrown through Go (issue 13).
  const hostile = new Proxy(new Map(), { get() { throw Object.create(null); } });
  const h = new SessionHost({ origin: ORIGIN, version: VERSION });
  h.routes = hostile;
  const r = (() => { try { h.mountEditor(); } catch (err) { return err; } })();
  assert.ok(r instanceof SessionLogError, String(r));
  assert.equal(r.code, 'bad-request');
  assert.equal(r.message, 'the route registry needs has(path) and set(path, fn)');
});

test('through a real Node http server on 127.0.0.1: edit, cross-origin, skew, oversized', async () => {
  const dir = tempDir('tavern-route-');
  const path = join(dir, 'session.jsonl');
  copyFileSync(new URL('f.jsonl', FIX), path);
  const server = http.createServer();
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  const origin = `http://127.0.0.1:${server.address().port}`;
  const host = new SessionHost({ origin, version: VERSION });
  host.load(path);
  host.mountEditor();
  server.on('request', host.listener());
  try {
    const post = (body, headers = {}) => fetch(`${origin}${EDITOR_PATHS.edit}`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', [VERSION_HEADER]: VERSION, ...headers },
      body,
    });
    const body = JSON.stringify({ session: 'sF', target: { messageId: 'u1' }, text: 'over http' });
    const ok = await post(body, { Origin: origin });
    assert.equal(ok.status, 200);
    assert.equal((await ok.json()).value.seq, 20);
    assert.equal((await post(body, { Origin: 'https://evil.example' })).status, 403);
    const skew = await post(body, { [VERSION_HEADER]: '0.0.1' });
    assert.equal(skew.status, 409);
    assert.equal((await skew.json()).error.code, 'version-skew');
    const big = await post(JSON.stringify({ session: 'sF', target: { messageId: 'u1' }, text: 'x'.repeat(70000) }));
    assert.equal(big.status, 413);
    const state = await fetch(`${origin}${EDITOR_PATHS.state}?session=sF`, { headers: { [VERSION_HEADER]: VERSION } });
    assert.equal((await state.json()).value.userRows[0].text, 'over http');
    const miss = await fetch(`${origin}${EDITOR_PATHS.edit}/x`, { method: 'POST' });
    assert.equal(miss.status, 404); // exact paths only; the client reads this as skew (S88)
    assert.deepEqual(validate(readFileSync(path)), { ok: true, version: 4, events: 21 });
  } finally {
    await new Promise((r) => server.close(r));
  }
});

test('S85.2: only true authorizes; "false", {}, 1 and a promise of "yes" are refusals (issue 15)', async () => {
  let answerWith;
  const t = setup({ authorize: () => answerWith });
  for (const v of ['false', 'true', {}, [], 1, 'yes', null, undefined, Promise.resolve('yes'), Promise.resolve({})]) {
    answerWith = v;
    const r = await send(t, 'edit', edit({ messageId: 'u1' }, 'x'));
    assert.equal(r.status, 401, `authorize answered ${String(v)}`);
    assert.equal(r.error.code, 'unauthorized');
  }
  assert.equal(t.session.length, 20);
  answerWith = Promise.resolve(true);
  assert.equal((await send(t, 'edit', edit({ messageId: 'u1' }, 'x'))).status, 200);
});

test('S85.1, S83: empty Origin, other key spellings, duplicate keys, bad UTF-8 and lone surrogates are refused (issue 15)', async () => {
  const t = setup();
  const empty = await send(t, 'edit', { ...edit({ messageId: 'u1' }, 'x'), headers: { Origin: '' } });
  assert.equal(empty.status, 403);
  assert.equal(empty.error.code, 'forbidden');
  const bodies = [
    '{"Session":"sF","target":{"messageId":"u1"},"text":"x"}',
    '{"session":"sF","target":{"messageId":"u1"},"TEXT":"x"}',
    '{"session":"sF","target":{"messageId":"u1"},"text":"x","text":"y"}',
    '{"session":"sF","target":{"messageId":"u1"},"text":"\\ud800"}',
    Buffer.concat([Buffer.from('{"session":"sF","target":{"messageId":"u1"},"text":"'), Buffer.from([0xc3, 0x28]), Buffer.from('"}')]),
  ];
  for (const body of bodies) {
    const r = await send(t, 'edit', { body });
    assert.equal(r.status, 400, String(body));
    assert.equal(r.error.code, 'bad-request');
  }
  // JSON.stringify escapes a lone surrogate, so a client cannot slip one in.
  const lone = await send(t, 'edit', edit({ messageId: 'u1' }, 'a\ud800b'));
  assert.equal(lone.status, 400);
  assert.equal(t.session.length, 20);
});

test('S85.1 over node:http: a malformed Host gets the 403 envelope, not a plain-text 500 (issue 15)', async () => {
  const { connect } = await import('node:net');
  const dir = tempDir('tavern-route-');
  const path = join(dir, 'session.jsonl');
  copyFileSync(new URL('f.jsonl', FIX), path);
  const server = http.createServer();
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address();
  const host = new SessionHost({ origin: `http://127.0.0.1:${port}`, version: VERSION });
  host.load(path);
  host.mountEditor();
  server.on('request', host.listener());
  const raw = (hostHeader) => new Promise((resolve, reject) => {
    const body = JSON.stringify({ session: 'sF', target: { messageId: 'u1' }, text: 'x' });
    const s = connect(port, '127.0.0.1', () => {
      s.end(`POST ${EDITOR_PATHS.edit} HTTP/1.1\r\nHost: ${hostHeader}\r\nContent-Type: application/json\r\n` +
        `${VERSION_HEADER}: ${VERSION}\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`);
    });
    let out = '';
    s.on('data', (d) => { out += d; });
    s.on('end', () => resolve(out));
    s.on('error', reject);
  });
  try {
    for (const h of ['[::1', 'a b', 'évil', `127.0.0.1:${port}@evil`]) {
      const out = await raw(h);
      const [head, body] = out.split('\r\n\r\n');
      assert.match(head, /^HTTP\/1\.1 403/, `Host ${h}: ${head}`);
      assert.match(head, /content-type: application\/json; charset=utf-8/i);
      assert.equal(JSON.parse(body).error.code, 'forbidden');
    }
    assert.deepEqual(validate(readFileSync(path)), { ok: true, version: 4, events: 20 });
  } finally {
    await new Promise((r) => server.close(r));
  }
});

// S82: all four routes or none. A registry whose set threw on the third
// path kept the first two, and every later mount was already-active, so the
// editor stayed half-mounted for the host's life (hostile probe).
test('S82: a registry whose set throws midway is left as it was; mounting again works', async () => {
  const { mountEditorRoute } = await import('../session-log.js');
  const host = new SessionHost({ origin: ORIGIN, version: VERSION });
  let refuse = true;
  const routes = new Map();
  const set = routes.set.bind(routes);
  routes.set = (k, f) => { if (refuse && routes.size === 2) throw new Error('set refused'); return set(k, f); };
  assert.throws(() => mountEditorRoute(host, routes), (e) => e.code === 'internal' && /set refused/.test(e.message));
  assert.equal(routes.size, 0, 'nothing half-mounted');
  refuse = false;
  mountEditorRoute(host, routes);
  assert.deepEqual([...routes.keys()].sort(), Object.values(EDITOR_PATHS).sort());
  assert.throws(() => mountEditorRoute(host, routes), (e) => e.code === 'already-active');
});

// A BigInt is the one JS value Go's syscall/js cannot type (Value.Type
// panics on it): wherever a host handed one in, the answer was `internal`.
test('S76: a BigInt from the host (registry, request, header version, agent status, auth answer) gets a coded answer, not internal', async () => {
  const { mountEditorRoute } = await import('../session-log.js');
  assert.throws(() => mountEditorRoute(new SessionHost({ origin: ORIGIN, version: VERSION }), 10n),
    (e) => e instanceof SessionLogError && e.code === 'bad-request');
  const routes = new Map();
  const base = {
    origin: ORIGIN, version: VERSION, authorize: () => true,
    session: () => ({ headerVersion: 4, snapshot: () => [], append() { throw new Error('must not append'); } }),
    agent: () => new Agent(),
  };
  mountEditorRoute(base, routes);
  const handler = routes.get(EDITOR_PATHS.edit);
  // A handler given no Request is the host's own fault (500), named as such.
  const notRequest = await answer(await handler(10n));
  assert.equal(notRequest.status, 500);
  assert.equal(notRequest.error.message, 'the route handler takes a Fetch Request, got bigint');
  const cases = [
    [{ session: () => ({ ...base.session(), headerVersion: 4n }) }, 'unsupported-format'],
    [{ authorize: () => 1n }, 'unauthorized'],
  ];
  for (const [patch, code] of cases) {
    const r = new Map();
    mountEditorRoute({ ...base, ...patch }, r);
    const a = await answer(await r.get(EDITOR_PATHS.edit)(request('edit', edit({ messageId: 'u1' }, 'x'))));
    assert.equal(a.error?.code, code, JSON.stringify(a));
  }
  // An agent whose status is a BigInt is busy (an unknown status, S65).
  const t = setup({ agent: Object.assign(new Agent(), { status: 5n }) });
  const regen = await send(t, 'regenerate', { body: { session: 'sF', target: { messageId: 'u2' } } });
  assert.equal(regen.error?.code, 'agent-busy', JSON.stringify(regen));
});

test('S78: an agent without a followup function is not a loaded session: every operation refuses and nothing is written', async () => {
  for (const agent of [{ status: 'idle' }, { status: 'idle', followup: 5 }]) {
    const t = setup({ agent });
    for (const [op, body] of [
      ['regenerate', { session: 'sF', target: { messageId: 'u2' } }],
      ['edit', { session: 'sF', target: { messageId: 'u1' }, text: 'x' }],
    ]) {
      const r = await send(t, op, { body });
      assert.equal(r.status, 409, `${op}: ${r.error?.message}`);
      assert.equal(r.error.code, 'session-not-loaded');
    }
    assert.equal(t.session.length, 20);
    assert.deepEqual(validate(readFileSync(t.path)), { ok: true, version: 4, events: 20 });
  }
});
