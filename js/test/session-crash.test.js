// Crash safety of the harness-like host (issue 15, items 6–8): a host
// process is killed with SIGKILL while an agent streams appends and editor
// requests are in flight. Every edit it acknowledged is in the log after
// the crash, with its text. The log loads, or its last line is torn and it
// is refused with the offset and recovered by the host's repair option,
// keeping a copy. The test tears the last line itself in two rounds; the
// kill can tear it too, since Linux checks for a fatal signal between the
// pages a write copies, so a SIGKILL can stop a write part-way (never an
// acknowledged one: a write is acknowledged after its fsync). S4, S105,
// S109.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { copyFileSync, readFileSync, appendFileSync } from 'node:fs';
import { join } from 'node:path';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { LiveSession } from '../session-host.js';
import { openLog, validate, EDITOR_PATHS, VERSION_HEADER, SessionLogError } from '../session-log.js';
import { tempDir } from './temp-dir.js';

const FIX = new URL('../../testdata/sessionlog/', import.meta.url);
const SERVER = fileURLToPath(new URL('./session-crash-server.js', import.meta.url));

async function startHost(path, repair = false) {
  const child = spawn(process.execPath, [SERVER, path, ...(repair ? ['--repair'] : [])], { stdio: ['ignore', 'pipe', 'inherit'] });
  // Read the ready line without ending the stream (breaking out of an
  // async iteration would destroy the pipe).
  const line = await new Promise((resolve, reject) => {
    let buf = '';
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (c) => {
      buf += c;
      if (buf.includes('\n')) resolve(buf.split('\n')[0]);
    });
    child.once('exit', (code) => reject(new Error(`host exited (${code}) before it was ready`)));
  });
  return { child, ...JSON.parse(line) };
}

// Sends edits of u1, two at a time, until the host dies; returns the ones
// answered 200 ({seq, text}). A request that fails before the kill (a
// connection the client reused as it closed) is sent again, a few times at
// most: only the kill may end the round.
async function editUntilDeath(port, round, killAfter, kill) {
  const acked = [];
  let i = 0;
  let alive = true;
  let killed = false;
  let failedAlive = 0;
  const one = async () => {
    while (alive) {
      const text = `round ${round} edit ${i++}`;
      try {
        const res = await fetch(`http://127.0.0.1:${port}${EDITOR_PATHS.edit}`, {
          method: 'POST',
          headers: { 'Content-Type': 'application/json', [VERSION_HEADER]: '1.3.0' },
          body: JSON.stringify({ session: 'sF', target: { messageId: 'u1' }, text }),
        });
        const body = await res.json();
        if (res.status === 200) {
          acked.push({ seq: body.value.seq, text });
          // Kill once enough edits landed, while the next ones are in
          // flight: a count, not a clock, so a loaded machine only slows
          // the test down.
          if (acked.length === killAfter) setTimeout(() => { killed = true; kill(); }, Math.floor(Math.random() * 40));
        }
        else assert.fail(`edit refused: ${res.status} ${JSON.stringify(body)}`);
      } catch (err) {
        if (err?.code === 'ERR_ASSERTION') throw err;
        if (process.env.CRASH_DEBUG) console.error(err, err?.cause);
        if (killed) alive = false; // the connection died with the host
        else if (++failedAlive > 20) throw new Error(`round ${round}: edits keep failing while the host lives: ${err?.cause?.message ?? err}`);
        else await new Promise((r) => { setTimeout(r, 20); });
      }
    }
  };
  return { acked, run: Promise.all([one(), one()]), stop: () => { alive = false; } };
}

function checkAcked(bytes, acked) {
  const log = openLog(bytes);
  const lines = log.encode().split('\n');
  for (const { seq, text } of acked) {
    assert.ok(seq < log.length, `acknowledged seq ${seq} missing (log has ${log.length})`);
    const ev = JSON.parse(lines[seq + 1]);
    assert.equal(ev.type, 'user/message');
    assert.deepEqual(ev.data.content, [{ type: 'text', text }], `seq ${seq}`);
  }
  log.close();
}

test('S4 S105 S109: SIGKILL during streaming appends and edits loses no acknowledged edit; a torn tail is recovered', { timeout: 120_000 }, async () => {
  const dir = tempDir('tavern-crash-');
  const path = join(dir, 'session.jsonl');
  copyFileSync(new URL('f.jsonl', FIX), path);
  let total = 0;
  let tears = 0;
  let torn = null; // the tear the next host must repair: { offset, tail }
  for (let round = 0; round < 6; round++) {
    const host = await startHost(path, torn !== null);
    if (torn !== null) {
      // The host's repair option cut the torn line, keeping a copy with
      // every byte of the file as it was.
      assert.equal(host.repaired.action, 'truncate');
      assert.equal(host.repaired.truncateTo, torn.offset);
      const copy = readFileSync(host.repaired.copy);
      assert.equal(copy.length, host.repaired.truncateTo + host.repaired.tail.tornBytes);
      if (torn.tail) assert.ok(copy.toString('utf8').endsWith(torn.tail));
      torn = null;
    }
    const dead = once(host.child, 'exit');
    const edits = await editUntilDeath(host.port, round, 2 + Math.floor(Math.random() * 5), () => process.kill(host.child.pid, 'SIGKILL'));
    // A refused edit fails the round at once, not at the test's timeout.
    await Promise.race([dead, edits.run]).catch((err) => { host.child.kill('SIGKILL'); throw err; });
    await dead;
    edits.stop();
    await edits.run;
    assert.ok(edits.acked.length > 0, `round ${round}: no edit was acknowledged before the kill`);
    total += edits.acked.length;

    // The file validates, or the kill tore its last line: then every
    // acknowledged edit is in the bytes before the tear.
    const bytes = readFileSync(path);
    const v = validate(bytes);
    if (!v.ok) {
      assert.equal(v.code, 'torn-tail', `round ${round}: after the kill: ${v.error}`);
      torn = { offset: v.offset };
      tears++;
    }
    checkAcked(torn ? bytes.subarray(0, torn.offset) : bytes, edits.acked);

    if (torn === null && (round === 2 || round === 4)) {
      // A write torn by a crash: the last line stops mid-record.
      const tail = '{"type":"user/message","seq":';
      appendFileSync(path, tail);
      torn = { offset: bytes.length, tail };
      tears++;
    }
    if (torn !== null) {
      let err;
      try { LiveSession.load(path); } catch (e) { err = e; }
      assert.ok(err instanceof SessionLogError);
      assert.equal(err.code, 'torn-tail');
      assert.equal(err.offset, torn.offset);
    }
  }
  assert.ok(tears >= 2, `${tears} torn tails repaired`);
  assert.ok(total >= 6, `${total} acknowledged edits`);
  // After the last crash every acknowledged edit of every round is there.
  const bytes = readFileSync(path);
  const final = openLog(torn ? bytes.subarray(0, torn.offset) : bytes);
  assert.ok(final.length > 20 + total);
  final.close();
});
