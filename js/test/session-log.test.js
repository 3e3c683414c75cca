// The session-log API of the host module (js/session-log.js) on the spec's
// fixtures and on real harness logs. Rule names are spec/sessionlog.md's.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { readFileSync, existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import {
  validate, fold, transcript, plan, openLog, SessionLogError,
} from '../session-log.js';

const FIX = new URL('../../testdata/sessionlog/', import.meta.url);
const F = readFileSync(new URL('f.jsonl', FIX));
const Fk = readFileSync(new URL('compaction.jsonl', FIX));
const Fst = readFileSync(new URL('steering.jsonl', FIX));
const L = readFileSync(new URL('legacy-v0.jsonl', FIX));
const T = (text) => ({ type: 'text', text });

function thrown(fn) {
  try { fn(); } catch (e) { return e; }
  throw new Error('expected a throw');
}

test('validate answers a verdict for valid and invalid logs (C16, S102)', () => {
  assert.deepEqual(validate(F), { ok: true, version: 4, events: 20 });
  assert.deepEqual(validate(F.toString('utf8')), { ok: true, version: 4, events: 20 });
  const bad = validate('{"type":"session","version":7,"id":"x"}\n');
  assert.equal(bad.ok, false);
  assert.equal(bad.error, 'unsupported session format version 7');
  assert.equal(bad.code, 'invalid-log');
  const v0 = validate('{"type":"session","id":"x"}\n');
  assert.deepEqual(v0, { ok: true, version: 0, events: 0 });
});

test('S6: a log or event given as a string with a lone surrogate is refused, not changed to U+FFFD on its way to Go', () => {
  const text = F.toString('utf8');
  const line = '{"type":"user/message","seq":20,"time":1,"data":{"id":"x","role":"user","content":[{"type":"text","text":"A\ud800B"}],"source":{"kind":"user"}},"surfaceOp":"append"}';
  assert.equal(JSON.parse(line).data.content[0].text, 'A\ud800B', 'JSON keeps it');
  const v = validate(text + line + '\n');
  assert.equal(v.ok, false);
  assert.equal(v.code, 'invalid-log');
  assert.equal(v.line, 22);
  assert.match(v.error, /^line 22: a lone surrogate \(\\uD800\)/);
  assert.equal(thrown(() => fold(text + line + '\n')).code, 'invalid-log');
  const log = openLog(text);
  const e = thrown(() => log.append(line));
  assert.ok(e instanceof SessionLogError);
  assert.equal(e.code, 'invalid-log');
  assert.equal(log.length, 20, 'nothing appended');
  assert.equal(log.append(line.replace('\ud800', '\u{1F600}')), 20, 'the next append works');
  assert.deepEqual(validate(text + line.replace('\ud800', '\ud83d\ude00') + '\n'), { ok: true, version: 4, events: 21 }, 'a pair is fine');
});

test('S6 S103: a v4 event without an epoch-milliseconds time or without data is invalid; a snapshot import dates it 0', () => {
  const head = '{"type":"session","version":4,"id":"s","createdAt":1}\n';
  const user = '"type":"user/message","seq":0,"surfaceOp":"append","data":{"id":"u","role":"user","content":[],"source":{"kind":"user"}}';
  for (const [line, why] of [[`{${user}}`, 'not none'], [`{${user},"time":"now"}`, 'not "now"'], ['{"type":"turn/start","seq":0,"time":1}', 'it has no data']]) {
    const r = validate(head + line + '\n');
    assert.equal(r.ok, false, line);
    assert.equal(r.rule, 'S6');
    assert.ok(r.error.startsWith('session event at seq 0 has an invalid event envelope: ') && r.error.endsWith(why), r.error);
  }
  assert.equal(validate(head + `{${user}}\n`, { importSnapshot: true }).ok, true);
  const log = openLog(head);
  try {
    assert.throws(() => log.append({ type: 'turn/start', seq: 0, data: {} }), (e) => e instanceof SessionLogError && e.rule === 'S6');
    assert.equal(log.append({ type: 'turn/start', seq: 0, time: 2, data: {} }), 0, 'nothing half-applied: the next append is seq 0');
  } finally { log.close(); }
});

test('validate reports the first violation with its seq and rule (V1, C02)', () => {
  const lines = F.toString('utf8').trimEnd().split('\n');
  lines.push(JSON.stringify({ type: 'turn/start', seq: 21, time: 1, data: { turn: 3 } }));
  const r = validate(lines.join('\n'));
  assert.equal(r.ok, false);
  assert.equal(r.error, 'session event seq 21 is not contiguous; expected 20');
  assert.equal(r.seq, 20);
  assert.equal(r.rule, 'V1');
});

test('fold F: surface and derived messages (C01)', () => {
  const r = fold(F);
  assert.deepEqual(r.surface, [1, 2, 3, 6, 8, 11, 15, 17]);
  assert.deepEqual(r.messages.map((m) => m.id), ['s', 'u1', 'rc1', 'a1', 't1', 'a2', 'u2', 'a3']);
  assert.equal(r.version, 4);
});

test('fold of an invalid log throws SessionLogError with code invalid-log (C15)', () => {
  const lines = F.toString('utf8').trimEnd().split('\n');
  lines.push(JSON.stringify({ type: 'x/custom', seq: 20, time: 1, data: {} }));
  const e = thrown(() => fold(lines.join('\n')));
  assert.ok(e instanceof SessionLogError);
  assert.equal(e.code, 'invalid-log');
  assert.equal(e.message, 'session event "x/custom" has an unknown type and is not marked ignorable');
  // The live-snapshot fold treats it as log-only (S14).
  assert.deepEqual(fold(lines.join('\n'), { live: true }).surface, [1, 2, 3, 6, 8, 11, 15, 17]);
});

test('transcript and overlay of F (C17, C20)', () => {
  const r = transcript(F);
  assert.deepEqual(r.rows.map((x) => `${x.kind} ${x.seq}`),
    ['user 2', 'context 3', 'assistant 6', 'tool 8', 'assistant 11', 'user 15', 'assistant 17']);
  const [u1, u2] = r.overlay.userRows;
  assert.deepEqual(u1, { seq: 2, id: 'u1', liveSeq: 2, text: 'q1', attachments: [], edited: false, undoable: false, regenerable: false, shadowed: false });
  assert.equal(u2.text, 'q2\nmore');
  assert.deepEqual(u2.attachments.map((a) => a.attachmentId), ['img-A', 'file-B']);
  assert.equal(u2.regenerable, true);
  assert.deepEqual(r.overlay.assistantRows.map((a) => a.regenerable), [false, false, true]);
  // The agent's state reaches the overlay (S32: regenerable needs idle).
  const busy = transcript(F, { env: { agentRunning: true } });
  assert.equal(busy.overlay.userRows[1].regenerable, false);
});

test('transcript of Fst and Fk: steering row and compaction marker (C18, C19)', () => {
  assert.equal(transcript(Fst).rows.find((x) => x.seq === 10).kind, 'steering');
  const k = transcript(Fk);
  const kinds = k.rows.map((x) => `${x.kind} ${x.seq}`);
  assert.ok(kinds.indexOf('compaction-marker 22') > kinds.indexOf('assistant 11'));
  assert.ok(kinds.indexOf('compaction-marker 22') < kinds.indexOf('user 15'));
  assert.equal(k.overlay.userRows.find((x) => x.seq === 2).shadowed, true);
});

test('plan edit u1 writes exactly the C21 event', () => {
  const r = plan(F, { op: 'edit', target: { messageId: 'u1' }, text: 'q1*', time: 7 });
  assert.equal(r.unchanged, false);
  assert.equal(r.replacedSeq, 2);
  assert.equal(r.wake, false);
  assert.deepEqual(r.events, [{
    type: 'user/message', seq: 20, time: 7,
    data: { id: 'u1', role: 'user', content: [T('q1*')], source: { kind: 'user', messageEdit: { originalEventSeq: 2, action: 'edit' } } },
    surfaceOp: { op: 'replace', startSeq: 2, endSeq: 2 },
    sourceEventSeqs: [2],
  }]);
});

test('S6: a plan request without a time is stamped now, as tavern-log plan-edit does; a given time is kept', () => {
  const before = Date.now();
  const r = plan(F, { op: 'edit', target: { messageId: 'u1' }, text: 'q1*' });
  const after = Date.now();
  assert.ok(r.events[0].time >= before && r.events[0].time <= after, `time ${r.events[0].time}`);
  const log = openLog(F);
  try {
    const t = log.plan({ op: 'undo', target: { messageId: 'u2' } , time: undefined });
    assert.fail(`nothing to undo, yet planned ${JSON.stringify(t)}`);
  } catch (e) { assert.equal(e.code, 'nothing-to-undo'); }
  const p = log.plan({ op: 'edit', target: { messageId: 'u1' }, text: 'x' });
  assert.ok(p.events[0].time >= before, 'the handle stamps too');
  assert.equal(log.plan({ op: 'edit', target: { messageId: 'u1' }, text: 'x', time: 0 }).events[0].time, 0, 'an explicit 0 is kept');
  log.close();
});

test('S44 S4: a plan whose text holds a lone surrogate is refused, never planned as U+FFFD; a pair is kept', () => {
  const refused = (fn) => assert.throws(fn, (e) => e instanceof SessionLogError && e.code === 'bad-request' && /lone surrogate, \\u(d800|dfff)/.test(e.message));
  refused(() => plan(F, { op: 'edit', target: { messageId: 'u1' }, text: 'a\uD800b', time: 1 }));
  const log = openLog(F);
  try {
    refused(() => log.plan({ op: 'edit', target: { messageId: 'u1' }, text: 'x\uDFFF', time: 1 }));
    assert.equal(log.plan({ op: 'edit', target: { messageId: 'u1' }, text: 'x', time: 1 }).events.length, 1, 'the handle works after');
  } finally { log.close(); }
  assert.equal(plan(F, { op: 'edit', target: { messageId: 'u1' }, text: 'a\uD83D\uDE00', time: 1 }).events[0].data.content[0].text, 'a\uD83D\uDE00');
});

test('plan: unchanged, attachments, empty message (C24, C26, C27, C28, C29)', () => {
  assert.deepEqual(plan(F, { op: 'edit', target: { messageId: 'u2' }, text: 'q2\nmore' }), { unchanged: true, events: [] });
  const r = plan(F, { op: 'edit', target: { messageId: 'u2' }, text: 'q2\nmore', removeAttachments: ['img-A'] });
  assert.deepEqual(r.events[0].data.content.map((b) => b.type), ['text', 'file']);
  assert.equal(thrown(() => plan(F, { op: 'edit', target: { messageId: 'u1' }, text: '' })).code, 'empty-message');
  assert.equal(thrown(() => plan(F, { op: 'edit', target: { messageId: 'u2' }, removeAttachments: ['img-Z'], text: 'x' })).code, 'bad-request');
});

test('plan refusals carry the spec codes and the exact S53 message (C32–C35, C44, C52)', () => {
  const e = thrown(() => plan(F, { op: 'edit', target: { messageId: 'a1' }, text: 'x' }));
  assert.equal(e.code, 'assistant-immutable');
  assert.equal(e.message, 'Model replies cannot be rewritten in this session format: a surface replacement must list every node it shadows in sourceEventSeqs, and assistant/message refuses that field, so no valid write exists. Nothing was saved.');
  assert.equal(thrown(() => plan(F, { op: 'edit', target: { messageId: 'rc1' }, text: 'x' })).code, 'not-user-message');
  assert.equal(thrown(() => plan(F, { op: 'edit', target: { seq: 999 }, text: 'x' })).code, 'message-not-found');
  assert.equal(thrown(() => plan(F, { op: 'edit', target: { messageId: 'u1', seq: 2 }, text: 'x' })).code, 'bad-request');
  assert.equal(thrown(() => plan(F, { op: 'undo', target: { messageId: 'u2' } })).code, 'nothing-to-undo');
  assert.equal(thrown(() => plan(F, { op: 'regenerate', target: { messageId: 'u1' } })).code, 'regenerate-not-last');
  assert.equal(thrown(() => plan(F, { op: 'regenerate', target: { messageId: 'u2' }, agentRunning: true })).code, 'agent-busy');
  assert.equal(thrown(() => plan(F, { op: 'frobnicate', target: { messageId: 'u1' } })).code, 'bad-request');
  assert.equal(thrown(() => plan(F, { op: 'edit', target: { messageId: 'u1' }, text: 'x', extra: 1 })).code, 'bad-request');
});

test('plan regenerate u2 and regenerate-turn a3 (C47, C51)', () => {
  const r = plan(F, { op: 'regenerate', target: { messageId: 'u2' }, text: 'Q2' });
  assert.equal(r.wake, true);
  assert.deepEqual(r.shadowedSeqs, [15, 17]);
  assert.deepEqual(r.events[0].surfaceOp, { op: 'replace', startSeq: 15, endSeq: 17 });
  assert.equal(r.trigger.id, 'tavern-core-message-editor:trigger:20');
  const t = plan(F, { op: 'regenerate-turn', target: { messageId: 'a3' } });
  assert.deepEqual(t.events[0].data.content.map((b) => b.type), ['text', 'image', 'text', 'file']);
  assert.equal(thrown(() => plan(F, { op: 'regenerate-turn', target: { messageId: 'u2' } })).code, 'bad-request');
});

test('legacy v0: fold and the start/end spelling (L1, L2)', () => {
  assert.deepEqual(fold(L).surface, [0, 1, 7, 9]);
  const r = plan(L, { op: 'edit', target: { messageId: 'lu1' }, text: 'hi' });
  assert.deepEqual(r.events[0].surfaceOp, { op: 'replace', start: 0, end: 0 });
});

test('an open log validates and folds appends all or nothing (S21, S22, C07, C21, C23)', () => {
  const log = openLog(F);
  assert.equal(log.length, 20);
  const bad = { type: 'user/message', seq: 20, time: 1, data: { id: 'x', role: 'user', content: [T('x')], source: { kind: 'user' } }, surfaceOp: 'append', sourceEventSeqs: [2, 2] };
  const e = thrown(() => log.append(bad));
  assert.equal(e.message, 'sourceEventSeqs must not contain duplicates');
  assert.equal(e.rule, 'V12');
  assert.equal(log.length, 20);
  assert.deepEqual(log.fold().surface, [1, 2, 3, 6, 8, 11, 15, 17]);
  // Apply the planned edit, then edit again: the second write cites 20.
  const p1 = log.plan({ op: 'edit', target: { messageId: 'u1' }, text: 'q1*' });
  assert.equal(log.append(p1.events[0]), 20);
  const p2 = log.plan({ op: 'edit', target: { seq: 2 }, text: 'q1**' });
  assert.deepEqual(p2.events[0].surfaceOp, { op: 'replace', startSeq: 20, endSeq: 20 });
  assert.equal(log.append(p2.events[0]), 21);
  assert.deepEqual(log.fold().surface, [1, 21, 3, 6, 8, 11, 15, 17]);
  assert.equal(log.transcript().overlay.userRows[0].text, 'q1**');
  assert.doesNotThrow(() => log.check(log.plan({ op: 'undo', target: { messageId: 'u1' } }).events[0]));
  // The log re-encodes and re-validates.
  assert.deepEqual(validate(log.encode()), { ok: true, version: 4, events: 22 });
  log.close();
  assert.equal(thrown(() => log.fold()).code, 'bad-request');
});

test('text survives UTF-8 JSON exactly, astral and CJK included', () => {
  const text = '改好了 🎉 "quoted" <b>&amp;</b>\u2028';
  const r = plan(F, { op: 'edit', target: { messageId: 'u1' }, text });
  assert.equal(r.events[0].data.content[0].text, text);
});

// Real logs from the reference harness's test snapshots (S17, S103): they
// lack seq/time, so they are read with importSnapshot.
const REAL = new URL('../../../shared/data/dsh-logs/', import.meta.url);
function realLogs() {
  const out = [];
  const walk = (dir) => {
    for (const name of readdirSync(dir)) {
      const p = join(dir, name);
      if (statSync(p).isDirectory()) walk(p);
      else if (name.endsWith('.jsonl')) out.push(p);
    }
  };
  walk(fileURLToPath(REAL));
  return out.sort();
}

// Runs whenever ../shared/data sits beside the checkout, as in CI; the
// skip says so plainly otherwise.
const REAL_SKIP = !existsSync(REAL) && `SKIPPED: the shared real harness logs are not beside this checkout (${fileURLToPath(REAL)}); CI runs this test`;

test('S17 S102 S106: every shared real harness log validates, folds (surface an array) and plans through the API', { skip: REAL_SKIP }, () => {
  const files = realLogs();
  assert.equal(files.length, 128);
  let planned = 0;
  for (const file of files) {
    const bytes = readFileSync(file);
    const v = validate(bytes, { importSnapshot: true });
    assert.equal(v.ok, true, `${file}: ${v.error}`);
    const f = fold(bytes, { importSnapshot: true });
    assert.ok(Array.isArray(f.surface) && f.messages.every((m) => m !== null && typeof m === 'object'), file);
    const t = transcript(bytes, { importSnapshot: true });
    assert.equal(t.overlay.userRows.length, t.rows.filter((r) => r.kind === 'user' || r.kind === 'steering').length, file);
    // Cold-edit the last user row that is still on the surface; the planned
    // event must append cleanly to the same log (S23).
    const row = t.overlay.userRows.filter((r) => !r.shadowed).at(-1);
    if (!row) continue;
    const log = openLog(bytes, { importSnapshot: true });
    try {
      const p = plan(bytes, { op: 'edit', target: { seq: row.seq }, text: `${row.text} (edited)` }, { importSnapshot: true });
      assert.equal(p.events.length, 1, file);
      assert.equal(log.append(p.events[0]), f.length, file);
      planned++;
    } catch (e) {
      // A log may leave a compaction open; that is the only expected refusal.
      assert.equal(e.code, 'compaction-open', `${file}: ${e.code} ${e.message}`);
    } finally {
      log.close();
    }
  }
  assert.ok(planned > 10, `planned ${planned}`);
});

// A view of a transferred (detached) buffer: Go's copy from it threw a
// TypeError through Go's frames (hostile probe). It holds no bytes, so it
// reads as an empty log, and the next call works.
test('S1: a Uint8Array whose buffer was transferred reads as no bytes; nothing throws through Go', () => {
  const bytes = new Uint8Array(readFileSync(new URL('f.jsonl', FIX)));
  const good = validate(bytes.slice());
  assert.equal(good.ok, true);
  structuredClone(bytes.buffer, { transfer: [bytes.buffer] });
  assert.equal(bytes.byteLength, 0);
  for (let i = 0; i < 50; i++) assert.deepEqual(validate(bytes), validate(''));
  assert.deepEqual(validate(new Uint8Array(readFileSync(new URL('f.jsonl', FIX)))), good);
});

// S1: a log is its text or its bytes. A number, an object or undefined was
// read as no log (refused as an empty one) and a BigInt as an internal error.
test('S1: a log that is neither text nor bytes is a TypeError; an ArrayBuffer is its bytes', () => {
  for (const v of [undefined, null, 42, 10n, {}, [F.toString('utf8')], Symbol('log'), () => F]) {
    for (const f of [validate, fold, transcript, (l) => plan(l, { op: 'edit', target: { messageId: 'u1' }, text: 'x' }), openLog]) {
      assert.throws(() => f(v), (e) => e instanceof TypeError && /a session log is a string or its bytes/.test(e.message), `${f.name} ${typeof v}`);
    }
  }
  const ab = new Uint8Array(F).buffer;
  assert.deepEqual(validate(ab), validate(F));
  assert.deepEqual(fold(ab), fold(F));
  assert.equal(openLog(ab).length, 20);
});
