// A node:test reporter for `make test`: one line per test as it finishes
// (with its file and duration), a note every 30 s while a slow test runs,
// skip reasons spelled out, failures in full, and a closing
// "<label>: N passed, N failed, N skipped" line.
//
//   node --test --test-reporter=./test/progress-reporter.js test/*.test.js
//
// TEST_LABEL names the suite in the closing line (default "node").
import { Transform } from 'node:stream';
import { relative } from 'node:path';
import { inspect } from 'node:util';

const QUIET_MS = 30_000;

const secs = (ms) => (ms >= 10_000 ? `${Math.round(ms / 1000)} s` : `${(ms / 1000).toFixed(1)} s`);
const where = (file) => (file ? relative(process.cwd(), file) : '');

function describeError(err) {
  const cause = err?.cause ?? err;
  const lines = [];
  if (cause?.code === 'ERR_ASSERTION' || cause?.name === 'AssertionError') {
    lines.push(cause.message);
  } else {
    lines.push(cause?.stack ?? inspect(cause));
  }
  if (cause?.stack && !lines[0].includes(cause.stack)) {
    lines.push(...cause.stack.split('\n').filter((l) => /^\s+at /.test(l)).slice(0, 6));
  }
  return lines.join('\n').split('\n').map((l) => `      ${l}`).join('\n');
}

function progressReporter() {
  const label = process.env.TEST_LABEL || 'node';
  const start = Date.now();
  const counts = { pass: 0, fail: 0, skip: 0, todo: 0 };
  const running = new Map(); // "file\0name" -> started at
  const failures = [];
  let last = Date.now();
  let timer;
  const stream = new Transform({
    writableObjectMode: true,
    transform(event, _enc, done) {
      last = Date.now();
      const { type, data = {} } = event;
      const key = `${data.file}\0${data.name}`;
      const isFile = data.name === data.file;
      const stamp = `[${secs(Date.now() - start).padStart(6)}]`;
      const title = `${where(data.file)} › ${data.name}`;
      switch (type) {
        case 'test:dequeue':
          // A file counts as running too: a child busy in synchronous work
          // may not have sent its test's own events yet.
          running.set(key, Date.now());
          break;
        case 'test:complete':
          if (isFile) running.delete(key);
          break;
        case 'test:pass':
        case 'test:fail': {
          running.delete(key);
          if (isFile && type === 'test:pass') break;
          const ms = data.details?.duration_ms ?? 0;
          if (data.skip !== undefined) {
            counts.skip++;
            const why = typeof data.skip === 'string' ? data.skip : 'no reason given';
            this.push(`${stamp} - skip ${title}: ${why}\n`);
          } else if (data.todo !== undefined) {
            counts.todo++;
            const how = type === 'test:pass' ? 'passed' : `failed: ${String(data.details?.error?.cause?.message ?? data.details?.error?.message ?? '').split('\n')[0]}`;
            this.push(`${stamp} - todo ${title} (${data.todo || 'todo'}): ${how}\n`);
          } else if (type === 'test:pass') {
            // Suites (describe) pass as a whole after their tests: count tests only.
            if (data.details?.type === 'suite') break;
            counts.pass++;
            this.push(`${stamp} ✔ ${title} (${secs(ms)})\n`);
          } else {
            if (data.details?.type === 'suite' && data.details?.error?.failureType === 'subtestsFailed') break;
            counts.fail++;
            const why = describeError(data.details?.error);
            failures.push({ title, why });
            this.push(`${stamp} ✖ ${title} (${secs(ms)})\n${why}\n`);
          }
          break;
        }
        case 'test:stdout':
        case 'test:stderr':
          this.push(String(data.message).replace(/^(?=.)/gm, '      | '));
          break;
        default:
          break;
      }
      done();
    },
    flush(done) {
      clearInterval(timer);
      const took = secs(Date.now() - start);
      // Each failure again with its cause: a log cut to its tail (as CI
      // shows it) must still say why.
      if (failures.length) this.push(`\nfailed:\n${failures.map(({ title, why }) => `  ✖ ${title}\n${why.split('\n').slice(0, 4).join('\n')}`).join('\n')}\n`);
      this.push(`\n${label}: ${counts.pass} passed, ${counts.fail} failed, ${counts.skip} skipped` +
        `${counts.todo ? `, ${counts.todo} todo` : ''} (${took})\n`);
      done();
    },
  });
  timer = setInterval(() => {
    if (Date.now() - last < QUIET_MS || running.size === 0) return;
    last = Date.now();
    const now = Date.now();
    const entries = [...running].map(([k, t]) => [...k.split('\0'), t]);
    const slow = entries
      .filter(([file, name]) => name !== file || !entries.some(([f, n]) => f === file && n !== file))
      .map(([file, name, t]) => `${name === file ? where(file) : `${where(file)} › ${name}`} (${secs(now - t)})`);
    stream.push(`[${secs(now - start).padStart(6)}] … still running: ${slow.join('; ')}\n`);
  }, 5_000);
  timer.unref();
  return stream;
}
export default progressReporter();
