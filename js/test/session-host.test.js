// The harness-like host adapter (js/session-host.js): live sessions that
// enforce the append contract with the editor's own validator (S24), persist
// as JSONL, and refuse without writing anything.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { LiveSession, SessionHost, Agent } from '../session-host.js';
import { validate, fold, SessionLogError } from '../session-log.js';
import { tempDir } from './temp-dir.js';

const FIX = new URL('../../testdata/sessionlog/', import.meta.url);
const T = (text) => ({ type: 'text', text });

function tmpCopy(name) {
  const dir = tempDir('tavern-session-');
  const p = join(dir, name);
  copyFileSync(new URL(name, FIX), p);
  return p;
}

function thrown(fn) {
  try { fn(); } catch (e) { return e; }
  throw new Error('expected a throw');
}

test('a loaded session appends valid events and persists them on flush', () => {
  const path = tmpCopy('f.jsonl');
  const s = LiveSession.load(path, { clock: () => 1790000999000 });
  assert.equal(s.id, 'sF');
  assert.equal(s.headerVersion, 4);
  assert.equal(s.length, 20);
  const seq = s.append('user/message',
    { id: 'u1', role: 'user', content: [T('q1*')], source: { kind: 'user' } },
    { surfaceOp: { op: 'replace', startSeq: 2, endSeq: 2 }, sourceEventSeqs: [2] });
  assert.equal(seq, 20);
  assert.equal(s.snapshot()[20].time, 1790000999000);
  // Not on disk until flushed.
  assert.equal(validate(readFileSync(path)).events, 20);
  s.flush();
  const disk = readFileSync(path);
  assert.deepEqual(validate(disk), { ok: true, version: 4, events: 21 });
  assert.deepEqual(fold(disk).surface, [1, 20, 3, 6, 8, 11, 15, 17]);
  // The persisted file re-loads as a live session.
  assert.equal(LiveSession.load(path).length, 21);
});

test('refused appends write nothing, in memory or on disk (S22, S24)', () => {
  const path = tmpCopy('f.jsonl');
  const before = readFileSync(path);
  const s = LiveSession.load(path);
  const cases = [
    // C05: surface-eligible without a marker.
    [['user/message', { id: 'x', role: 'user', content: [T('x')], source: { kind: 'user' } }, {}],
      'session event "user/message" is surface-eligible and requires a surfaceOp marker'],
    // C04: marker on a log-only type.
    [['turn/start', { turn: 3 }, { surfaceOp: 'append' }],
      'session event "turn/start" is not surface-eligible and cannot carry surfaceOp'],
    // C10: a range that is not on the surface.
    [['user/message', { id: 'x', role: 'user', content: [T('x')], source: { kind: 'user' } }, { surfaceOp: { op: 'replace', startSeq: 4, endSeq: 4 }, sourceEventSeqs: [4] }],
      'surface replace: start seq 4 not found in surface'],
    // C08: the S53 impossibility, enforced by the session itself.
    [['assistant/message', { turn: 1, step: 1, message: { id: 'a1', role: 'assistant', content: [T('x')], source: { kind: 'model' } } }, { surfaceOp: { op: 'replace', startSeq: 6, endSeq: 6 } }],
      'surface replace: sourceEventSeqs must include every shadowed surface node; missing 6'],
  ];
  for (const [args, message] of cases) {
    const e = thrown(() => s.append(...args));
    assert.ok(e instanceof SessionLogError);
    assert.equal(e.message, message);
    assert.equal(s.length, 20);
  }
  s.flush();
  assert.deepEqual(readFileSync(path), before);
  // A valid append still lands at the next seq afterwards.
  assert.equal(s.append('turn/start', { turn: 3 }), 20);
});

test('an invalid file is not loaded', () => {
  const dir = tempDir('tavern-session-');
  const p = join(dir, 'bad.jsonl');
  writeFileSync(p, '{"type":"session","version":4,"id":"b"}\n{"type":"turn/start","seq":1,"time":0,"data":{}}\n');
  const e = thrown(() => LiveSession.load(p));
  assert.equal(e.code, 'invalid-log');
  assert.equal(e.message, 'session event seq 1 is not contiguous; expected 0');
  // S5: a header without an id cannot be served (it was registered under "undefined").
  for (const header of ['{"type":"session","version":4,"createdAt":1}', '{"type":"session","version":4,"id":"","createdAt":1}', '{"type":"session","version":4,"id":7,"createdAt":1}']) {
    writeFileSync(p, `${header}\n`);
    const host = new SessionHost();
    const n = thrown(() => host.load(p));
    assert.equal(n.code, 'invalid-log', header);
    assert.equal(n.rule, 'S5');
    assert.equal(host.sessions.size, 0);
  }
});

test('the host only knows loaded sessions; unloading refuses further appends (S78)', () => {
  const host = new SessionHost();
  assert.equal(host.session('sF'), undefined);
  const s = host.load(tmpCopy('f.jsonl'));
  assert.equal(host.session('sF'), s);
  assert.ok(host.agent('sF') instanceof Agent);
  assert.equal(host.agent('sF').status, 'idle');
  host.unload('sF');
  assert.equal(host.session('sF'), undefined);
  assert.equal(host.agent('sF'), undefined);
  assert.match(thrown(() => s.append('turn/start', { turn: 3 })).message, /not loaded/);
});

test('snapshots are copies: holding one across appends is safe', () => {
  const s = LiveSession.load(tmpCopy('f.jsonl'));
  const snap = s.snapshot();
  snap[2].data.content[0].text = 'mutated';
  s.append('turn/start', { turn: 3 });
  assert.equal(snap.length, 20);
  assert.equal(s.snapshot()[2].data.content[0].text, 'q1');
});
