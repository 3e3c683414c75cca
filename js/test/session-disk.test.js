// The harness-like host on disk (issue 15, items 6 and 7): durable flushes
// (S109), torn tails detected with their offset and repaired as documented
// (S105), no append ever glued onto a line, packed rows and older v0 shapes
// read as the harness reads them (S106, S107), and lossless appends (S111).
import { test, mock } from 'node:test';
import assert from 'node:assert/strict';
import fs, { copyFileSync, readFileSync, writeFileSync, appendFileSync, readdirSync } from 'node:fs';
import { join, dirname } from 'node:path';
import { LiveSession, SessionHost, Agent, repairLog } from '../session-host.js';
import { validate, fold, openLog, planRepair, SessionLogError, EDITOR_PATHS, VERSION_HEADER } from '../session-log.js';
import { writeFileDurable, appendDurable, truncateDurable } from '../durable-file.js';
import { tempDir } from './temp-dir.js';

const FIX = new URL('../../testdata/sessionlog/', import.meta.url);
const ORIGIN = 'http://127.0.0.1:4000';
const VERSION = '1.3.0';
const T = (text) => ({ type: 'text', text });

function tmpCopy(name, as = 'session.jsonl') {
  const dir = tempDir('tavern-disk-');
  const p = join(dir, as);
  copyFileSync(new URL(name, FIX), p);
  return p;
}

function thrown(fn) {
  try { fn(); } catch (e) { return e; }
  throw new Error('expected a throw');
}

const editRequest = (text) => new Request(`${ORIGIN}${EDITOR_PATHS.edit}`, {
  method: 'POST',
  headers: { 'Content-Type': 'application/json', [VERSION_HEADER]: VERSION },
  body: JSON.stringify({ session: 'sF', target: { messageId: 'u1' }, text }),
});

// Records which paths were fsynced, by watching openSync and fsyncSync on
// node:fs's default export (the one durable-file.js calls).
function watchFsync(t) {
  const paths = new Map();
  const synced = [];
  const open = fs.openSync;
  const fsync = fs.fsyncSync;
  t.mock.method(fs, 'openSync', (p, ...rest) => {
    const fd = open(p, ...rest);
    paths.set(fd, String(p));
    return fd;
  });
  const spy = t.mock.method(fs, 'fsyncSync', (fd) => {
    fsync(fd);
    synced.push(paths.get(fd));
  });
  return { synced, spy };
}

test('S109: an edit answers 200 only after its event is fsynced to the session file', async (t) => {
  const path = tmpCopy('f.jsonl');
  const host = new SessionHost({ origin: ORIGIN, version: VERSION });
  host.load(path);
  host.mountEditor();
  const { synced } = watchFsync(t);
  const res = await host.fetch(editRequest('q1*'));
  assert.equal(res.status, 200);
  assert.deepEqual(synced, [path]);
  assert.equal(validate(readFileSync(path)).events, 21);
});

test('S109: a failed fsync leaves the file as it was, answers unconfirmed, and the next flush writes both', async (t) => {
  const path = tmpCopy('f.jsonl');
  const before = readFileSync(path);
  const host = new SessionHost({ origin: ORIGIN, version: VERSION });
  const session = host.load(path);
  host.mountEditor();
  const real = fs.fsyncSync;
  let fail = 1;
  t.mock.method(fs, 'fsyncSync', (fd) => {
    if (fail-- > 0) throw Object.assign(new Error('EIO: i/o error, fsync'), { code: 'EIO' });
    real(fd);
  });
  const r = await host.fetch(editRequest('lost?'));
  assert.equal(r.status, 500);
  const body = await r.json();
  assert.equal(body.error.code, 'internal');
  assert.match(body.error.message, /unconfirmed/);
  assert.deepEqual(readFileSync(path), before, 'the failed write was rolled back');
  assert.equal(session.length, 21); // the live session holds it, pending
  const again = await host.fetch(editRequest('kept'));
  assert.equal(again.status, 200);
  const disk = readFileSync(path);
  assert.deepEqual(validate(disk), { ok: true, version: 4, events: 22 });
  assert.deepEqual(fold(disk).messages[1].content, [T('kept')]);
});

test('S109: a file changed behind the session\'s back is not written to', () => {
  const path = tmpCopy('f.jsonl');
  const s = LiveSession.load(path);
  appendFileSync(path, '{"type":"turn/start","seq":20,"time":1,"data":{"turn":3}}\n');
  s.append('turn/start', { turn: 3 });
  const e = thrown(() => s.flush());
  assert.match(e.message, /changed outside the host, so nothing was written/);
  assert.equal(e.code, 'changed-outside');
  assert.equal(validate(readFileSync(path)).events, 21);
  // The pending event was never acknowledged: the session drops it and holds
  // the file as it is, so the next write works instead of failing for good.
  assert.match(e.message, /dropped its 1 unsaved event\(s\) and now holds the file as it is \(21 events\)/);
  assert.equal(s.length, 21);
  assert.equal(s.snapshot().at(-1).data.turn, 3);
  s.append('turn/end', { turn: 3 });
  s.flush();
  assert.deepEqual(validate(readFileSync(path)), { ok: true, version: 4, events: 22 });
  // A file that is no longer a log this session can read stays refused.
  appendFileSync(path, '{"type":"turn/start"');
  s.append('turn/start', { turn: 4 });
  const torn = thrown(() => s.flush());
  assert.match(torn.message, /reloading it failed too \(.*torn.*\), so this session cannot write to it until it is loaded again/);
});

test('S109: two hosts serving one file: the one that lost the race says so and works on the file as it is', async () => {
  const path = tmpCopy('f.jsonl');
  const a = new SessionHost({ origin: ORIGIN, version: VERSION });
  const b = new SessionHost({ origin: ORIGIN, version: VERSION });
  a.load(path, { agent: new Agent() });
  b.load(path, { agent: new Agent() });
  a.mountEditor(); b.mountEditor();
  const send = async (h, messageId, text) => (await h.fetch(new Request(`${ORIGIN}${EDITOR_PATHS.edit}`, {
    method: 'POST', headers: { [VERSION_HEADER]: VERSION, 'Content-Type': 'application/json' },
    body: JSON.stringify({ session: 'sF', target: { messageId }, text }),
  }))).json();
  assert.equal((await send(a, 'u1', 'from A')).ok, true);
  const lost = await send(b, 'u2', 'from B');
  assert.equal(lost.error.code, 'internal');
  assert.match(lost.error.message, /unconfirmed.*changed outside the host.*dropped its 1 unsaved event/);
  const won = await send(b, 'u2', 'from B');
  assert.equal(won.ok, true, 'the next call works');
  const texts = fold(readFileSync(path)).messages.flatMap((m) => m.content.map((c) => c.text));
  assert.ok(texts.includes('from A') && texts.includes('from B'), texts.join(' | '));
});

test('S109: creating a session file and replacing a file are durable (file, then directory)', (t) => {
  const dir = tempDir('tavern-disk-');
  const { synced } = watchFsync(t);
  const path = join(dir, 'new.jsonl');
  const s = LiveSession.create(path, { type: 'session', version: 4, id: 'sN', createdAt: 1, cwd: '/w' });
  assert.equal(s.length, 0);
  assert.deepEqual(synced, [path, dir]);
  assert.throws(() => LiveSession.create(path, { type: 'session', version: 4, id: 'sN', createdAt: 1 }), /EEXIST/);
  synced.length = 0;
  const chat = join(dir, 'chat.jsonl');
  writeFileDurable(chat, 'a\n');
  writeFileDurable(chat, 'b\n');
  assert.equal(readFileSync(chat, 'utf8'), 'b\n');
  assert.equal(synced.filter((p) => p === dir).length, 2);
  assert.equal(synced.filter((p) => p.endsWith('.tmp')).length, 2);
  assert.deepEqual(readdirSync(dir).sort(), ['chat.jsonl', 'new.jsonl']);
});

test('S105: a torn tail is refused with its byte offset, and the host does not serve the session', async () => {
  const path = tmpCopy('f.jsonl');
  const committed = readFileSync(path).length;
  appendFileSync(path, '{"type":"user/message","seq":20,"time":1,"data":{"id":"u9","ro');
  const e = thrown(() => LiveSession.load(path));
  assert.ok(e instanceof SessionLogError);
  assert.equal(e.code, 'torn-tail');
  assert.equal(e.offset, committed);
  assert.equal(e.line, 22);
  assert.match(e.message, new RegExp(`^line 22: torn tail at byte offset ${committed}: `));
  assert.deepEqual(validate(readFileSync(path)), {
    ok: false, code: 'torn-tail', rule: 'S105', seq: null, line: 22, offset: committed, error: e.message,
  });
  const host = new SessionHost({ origin: ORIGIN, version: VERSION });
  assert.throws(() => host.load(path), { code: 'torn-tail' });
  host.mountEditor();
  const r = await host.fetch(editRequest('x'));
  assert.equal(r.status, 409);
  assert.equal((await r.json()).error.code, 'session-not-loaded');
});

test('S105: the harness\'s compressed session.jsonl.zstd is refused by name, unchanged, not as invalid JSON', () => {
  const path = tmpCopy('f.jsonl.zstd', 'session.jsonl.zstd');
  const before = readFileSync(path);
  for (const load of [() => LiveSession.load(path), () => repairLog(path), () => openLog(before)]) {
    const e = thrown(load);
    assert.ok(e instanceof SessionLogError);
    assert.equal(e.code, 'unsupported-format');
    assert.match(e.message, /compressed session file \(Zstandard frames/);
    assert.match(e.message, /tavern-log/);
  }
  // validate answers it as a verdict, as documented (it threw).
  const v = validate(before);
  assert.equal(v.ok, false);
  assert.equal(v.code, 'unsupported-format');
  assert.match(v.error, /compressed session file/);
  assert.ok(readFileSync(path).equals(before), 'nothing was written');
  assert.deepEqual(readdirSync(dirname(path)), ['session.jsonl.zstd']);
});

test('S105: repair keeps a copy of the torn file, truncates it at the offset, and the session loads again', () => {
  const path = tmpCopy('f.jsonl');
  const whole = readFileSync(path);
  const torn = Buffer.concat([whole, Buffer.from('{"type":"turn/sta')]);
  writeFileSync(path, torn);
  const plan = planRepair(torn, path, { now: 7 });
  assert.deepEqual(plan, {
    action: 'truncate', truncateTo: whole.length, copy: `${path}.torn-${whole.length}-7`,
    tail: { offset: whole.length, torn: true, tornBytes: 17, tornLine: 22 }, events: 20,
  });
  const s = LiveSession.load(path, { repairTornTail: true });
  assert.equal(s.repaired.action, 'truncate');
  assert.deepEqual(readFileSync(s.repaired.copy), torn, 'the copy holds every byte of the original');
  assert.deepEqual(readFileSync(path), whole);
  assert.equal(s.length, 20);
  s.append('turn/start', { turn: 3 });
  s.flush();
  assert.equal(validate(readFileSync(path)).events, 21);
  // A sound file needs no repair; an invalid one is refused unchanged.
  assert.equal(repairLog(path).action, 'none');
  const bad = tmpCopy('f.jsonl');
  const broken = Buffer.concat([readFileSync(bad).subarray(0, 50), Buffer.from('\n{"type":"x"')]);
  writeFileSync(bad, broken);
  assert.throws(() => repairLog(bad), SessionLogError);
  assert.deepEqual(readFileSync(bad), broken);
  assert.deepEqual(readdirSync(dirname(bad)), ['session.jsonl']);
});

test('S105: a last line without its newline is kept, and the next append never glues onto it', () => {
  const path = tmpCopy('f.jsonl');
  const whole = readFileSync(path);
  writeFileSync(path, whole.subarray(0, whole.length - 1));
  const s = LiveSession.load(path);
  assert.equal(s.length, 20);
  s.append('turn/start', { turn: 3 });
  s.flush();
  const disk = readFileSync(path, 'utf8');
  assert.ok(disk.startsWith(whole.toString()), 'the old line ends where it did, now with its newline');
  assert.deepEqual(validate(disk), { ok: true, version: 4, events: 21 });
  assert.equal(disk.split('\n').length, 23);
});

test('S106, S107: packed chunk rows and older v0 shapes are served as the harness holds them', () => {
  const packed = LiveSession.load(tmpCopy('packed-v0.jsonl'));
  assert.equal(packed.length, 41);
  const unpacked = readFileSync(new URL('packed-v0.unpacked.jsonl', FIX), 'utf8').trim().split('\n').slice(1).map((l) => JSON.parse(l));
  assert.deepEqual(packed.snapshot(), unpacked);
  packed.append('turn/start', { turn: 2 });
  packed.flush();
  const after = openLog(readFileSync(packed.path));
  assert.equal(after.length, 42);
  assert.deepEqual(after.tail, { offset: readFileSync(packed.path).length });

  const legacy = LiveSession.load(tmpCopy('legacy-flat-v0.jsonl'));
  const ev = legacy.snapshot();
  assert.equal(ev[1].data.id, 'legacy-message:sLeg:1');
  assert.equal(ev[8].type, 'user/message');
  assert.deepEqual(ev[0].data, { turn: 1 });
  // The file keeps its own shape; only what the session holds is migrated.
  assert.match(readFileSync(legacy.path, 'utf8'), /"type":"steering\/message"/);
});

test('S111: an append that JSON.stringify would change is refused and writes nothing', () => {
  const path = tmpCopy('f.jsonl');
  const s = LiveSession.load(path);
  for (const data of [{ turn: -0 }, { turn: NaN }, { turn: Infinity }, { turn: 1, x: undefined }, { turn: 1, d: new Date(0) },
    { turn: 1, m: new Map() }, { turn: 1, a: [1, , 3] }, { turn: 1, f() {} }, { turn: 1n }]) {
    const e = thrown(() => s.append('turn/start', data));
    assert.ok(e instanceof SessionLogError, String(e));
    assert.equal(e.code, 'invalid-log');
    assert.equal(e.message, 'session event "turn/start" carries non-JSON-serializable data');
  }
  assert.equal(s.length, 20);
  s.flush();
  assert.equal(validate(readFileSync(path)).events, 20);
  // The log handle refuses a -0 spelled in JSON text too (Go's rule).
  const log = openLog(readFileSync(path));
  const e = thrown(() => log.append('{"type":"turn/start","seq":20,"time":1,"data":{"turn":-0}}'));
  assert.equal(e.code, 'invalid-log');
  assert.equal(e.rule, 'S111');
  assert.equal(log.length, 20);
});

// Found by an audit against the specification: S111's check ran before the
// validator, so a v4 seq of -0 was refused in S111's words instead of V11's.
test('S8 S21 V11 S111: a -0 seq is V11 on v4 and S111 (the append rule) on v0, from check and append alike', () => {
  const ev = (seq) => `{"type":"user/message","seq":${seq},"time":1,"data":{"id":"q","role":"user","content":[{"type":"text","text":"x"}],"source":{"kind":"user"}},"surfaceOp":"append","sourceEventSeqs":[-0]}`;
  const v4 = openLog(readFileSync(new URL('f.jsonl', FIX)));
  for (const op of ['check', 'append']) {
    const e = thrown(() => v4[op](ev(20)));
    assert.equal(e.code, 'invalid-log');
    assert.equal(e.message, 'session event "user/message" sourceEventSeqs must densely contain non-negative safe integers', op);
  }
  assert.equal(v4.length, 20);
  const v0 = openLog(readFileSync(new URL('legacy-v0.jsonl', FIX)));
  const n = v0.length;
  for (const op of ['check', 'append']) {
    const e = thrown(() => v0[op](ev(n)));
    assert.equal(e.rule, 'S111', op);
    assert.equal(e.message, 'session event "user/message" carries non-JSON-serializable surface metadata (negative zero)');
  }
  assert.equal(v0.length, n);
});

// Found by probing: the helpers took caller numbers on trust. A missing
// size emptied the log, a size above it padded it with zeros (a torn tail
// where it was whole), and an array-like claiming 2^20 entries appended
// 1 MiB of zeros and answered the new size.
test('S109: the durable helpers check the sizes and data they are given before they touch the file', () => {
  const dir = tempDir('tc-durable-');
  const path = join(dir, 'log.jsonl');
  writeFileSync(path, 'abc\n');
  for (const [f, err] of [
    [() => truncateDurable(path, 4), RangeError],
    [() => truncateDurable(path, 4, -1), RangeError],
    [() => truncateDurable(path, 4, 4 + 4096), RangeError],
    [() => truncateDurable(path, 4, 2 ** 40), RangeError],
    [() => truncateDurable(path, 4, 1.5), RangeError],
    [() => appendDurable(path, '4', 'x'), RangeError],
    [() => appendDurable(path, 4, { length: 2 ** 20 }), TypeError],
    [() => appendDurable(path, 4, [1, 2]), TypeError],
  ]) assert.throws(f, err);
  assert.equal(readFileSync(path, 'utf8'), 'abc\n', 'untouched');
  assert.equal(appendDurable(path, 4, new Uint16Array([0x4241])), 6, 'a typed array is its bytes');
  truncateDurable(path, 6, 4);
  assert.equal(readFileSync(path, 'utf8'), 'abc\n');
});

// Found by make bench: bytes were passed as they came only after listing
// their own property names, which lists every index and throws past V8's
// limit (about 16.7 million), so a 17 MB log given as bytes was a RangeError.
test('validate and fold take a log of more than 16 MiB as bytes (a Buffer, a Uint8Array, one with an own length)', () => {
  const header = '{"type":"session","version":4,"id":"big","createdAt":0}\n';
  const text = 'x'.repeat(17 * 1024 * 1024);
  const line = JSON.stringify({ type: 'user/message', seq: 0, time: 1, data: { id: 'u1', role: 'user', content: [{ type: 'text', text }], source: { kind: 'user' } }, surfaceOp: 'append' });
  const buf = Buffer.from(header + line + '\n');
  const plain = new Uint8Array(buf.buffer, buf.byteOffset, buf.byteLength);
  const owned = new Uint8Array(buf);
  Object.defineProperty(owned, 'length', { value: 3 });
  for (const bytes of [buf, plain, owned]) {
    const v = validate(bytes);
    assert.equal(v.ok, true, JSON.stringify(v).slice(0, 300));
    assert.equal(v.events, 1);
  }
  const f = fold(plain);
  assert.equal(f.messages.length, 1);
  assert.equal(f.messages[0].content[0].text.length, text.length);
});

test('a Proxy of a byte array or of an ArrayBuffer is refused before anything is read, and a log of more than 1 GiB before it is copied; the module keeps working', () => {
  const header = '{"type":"session","version":4,"id":"x","createdAt":0}\n';
  let reads = 0;
  const proxy = new Proxy(new Uint8Array(Buffer.from(header)), {
    get: (t, k) => { reads++; return k === 'length' ? 1e9 : Reflect.get(t, k); },
  });
  for (const fn of [validate, fold, openLog]) {
    assert.throws(() => fn(proxy), { name: 'TypeError', message: 'a session log is a string or its bytes (a Uint8Array or an ArrayBuffer), not a Proxy of a Uint8Array' });
  }
  assert.equal(reads, 0);
  // The same for a Proxy of an ArrayBuffer: its length trap sizes nothing.
  const bufferProxy = new Proxy(new TextEncoder().encode(header).buffer, {
    get: (t, k) => { reads++; return k === 'length' ? 1e9 : Reflect.get(t, k); },
  });
  for (const fn of [validate, fold, openLog]) {
    assert.throws(() => fn(bufferProxy), { name: 'TypeError', message: 'a session log is a string or its bytes (a Uint8Array or an ArrayBuffer), not a Proxy of an ArrayBuffer' });
  }
  assert.equal(reads, 0);
  assert.equal(validate(new TextEncoder().encode(header).buffer).ok, true, 'a real ArrayBuffer is read');
  // Not zeroed: the pages are never touched, so this costs no memory.
  const huge = Buffer.allocUnsafe(2 ** 30 + 1);
  for (const fn of [validate, fold, openLog]) {
    assert.throws(() => fn(huge), (e) => e instanceof SessionLogError && e.code === 'read-failed' &&
      e.message === 'the log is 1073741825 bytes; at most 1073741824 can be read');
  }
  assert.equal(validate(Buffer.from(header)).ok, true);
});

test('openLog and validate read a byte array\'s real length, whatever its byteLength getter claims', () => {
  class Liar extends Uint8Array { get byteLength() { return 2 ** 40; } get length() { return 2 ** 40; } }
  const header = '{"type":"session","version":4,"id":"x","createdAt":0}\n';
  const v = validate(new Liar(Buffer.from(header)));
  assert.equal(v.ok, true);
  assert.equal(v.events, 0);
  assert.equal(validate(header).ok, true, 'the next call works');
});
