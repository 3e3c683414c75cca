// The demo server as a hostile network meets it: no request takes it down,
// the demo's own endpoints follow the editor route's Host/Origin rules,
// other loopback names are redirected to the one it prints, a busy port says
// what to do, and text and .wasm go out compressed with the right headers.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import net from 'node:net';
import { spawn, spawnSync } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import zlib from 'node:zlib';
import http from 'node:http';
import { startDemoServer } from '../demo/server.js';
import { tempDir } from './temp-dir.js';

const SERVER = fileURLToPath(new URL('../demo/server.js', import.meta.url));
const PORT_CHECK = fileURLToPath(new URL('../demo/port.js', import.meta.url));
const WASM = fileURLToPath(new URL('../tavern-core.wasm', import.meta.url));

async function demo(t) {
  const dataDir = tempDir('tavern-demo-server-');
  const { server, url } = await startDemoServer({ port: 0, dataDir });
  t.after(async () => {
    server.closeAllConnections?.();
    await new Promise((r) => server.close(r));
    rmSync(dataDir, { recursive: true, force: true });
  });
  const { port } = server.address();
  return { server, url, port, dataDir, authority: `127.0.0.1:${port}`, origin: `http://127.0.0.1:${port}` };
}

/** Send raw bytes, read until the server closes or answers one response. */
function raw(port, text, { end = true } = {}) {
  return new Promise((resolve, reject) => {
    const sock = net.connect(port, '127.0.0.1');
    let out = '';
    sock.setEncoding('latin1');
    sock.on('data', (d) => {
      out += d;
      if (/transfer-encoding: chunked/i.test(out) && out.endsWith('0\r\n\r\n')) { sock.destroy(); resolve(out); }
      if (/\r\n\r\n/.test(out) && !/transfer-encoding: chunked/i.test(out.split('\r\n\r\n')[0])) {
        const len = /content-length: (\d+)/i.exec(out)?.[1];
        if (len === undefined || out.split('\r\n\r\n').slice(1).join('\r\n\r\n').length >= Number(len)) { sock.destroy(); resolve(out); }
      }
    });
    sock.on('end', () => resolve(out));
    sock.on('close', () => resolve(out));
    sock.on('error', (e) => (out ? resolve(out) : reject(e)));
    sock.write(text, 'latin1');
    if (end) sock.setTimeout(5000, () => sock.destroy());
  });
}
const statusOf = (reply) => Number(/^HTTP\/1\.1 (\d{3})/.exec(reply)?.[1]);

function request(port, path, { method = 'GET', headers = {}, body } = {}) {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, path, method, headers }, (res) => {
      const parts = [];
      res.on('data', (c) => parts.push(c));
      res.on('end', () => resolve({ status: res.statusCode, headers: res.headers, body: Buffer.concat(parts) }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

test('demo server: no request crashes it (bad percent-encoding, odd targets, broken bodies)', async (t) => {
  const { port, authority } = await demo(t);
  const H = `Host: ${authority}\r\n`;
  const cases = [
    [`GET /%E0%A4%A HTTP/1.1\r\n${H}\r\n`, 400],
    [`GET /demo/%E0%A4%A.js HTTP/1.1\r\n${H}\r\n`, 400],
    [`GET /%00 HTTP/1.1\r\n${H}\r\n`, 400],
    [`GET /demo/..%2f..%2f..%2fetc/passwd HTTP/1.1\r\n${H}\r\n`, 403],
    [`GET /../../etc/passwd HTTP/1.1\r\n${H}\r\n`, 403],
    [`GET /node_modules/happy-dom/package.json HTTP/1.1\r\n${H}\r\n`, 403],
    [`GET //evil.example/x HTTP/1.1\r\n${H}\r\n`, 400],
    [`GET http://evil.example/demo/ HTTP/1.1\r\n${H}\r\n`, 400],
    [`OPTIONS * HTTP/1.1\r\n${H}\r\n`, 400],
    [`GET /demo/\\..\\server.js HTTP/1.1\r\n${H}\r\n`, 400],
    [`PUT /api/chat HTTP/1.1\r\n${H}Content-Type: application/json\r\nContent-Length: 4\r\n\r\n[{"x`, 400],
    [`PUT /api/chat HTTP/1.1\r\n${H}Content-Type: application/json\r\nContent-Length: 999999999\r\n\r\n`, 413],
    [`PUT /api/chat HTTP/1.1\r\n${H}Content-Type: application/json\r\nContent-Length: 4\r\n\r\nnull`, 400],
    [`POST /api/demo-editor/send HTTP/1.1\r\n${H}Content-Type: application/json\r\nContent-Length: 4\r\n\r\nnull`, 400],
    [`POST /api/demo-editor/send HTTP/1.1\r\n${H}Content-Type: application/json\r\nContent-Length: 3\r\n\r\n{"t`, 400],
    [`DELETE /api/chat HTTP/1.1\r\n${H}\r\n`, 415],
    [`POST /demo/index.html HTTP/1.1\r\n${H}Content-Length: 0\r\n\r\n`, 405],
    [`GET /demo/ HTTP/1.1\r\n\r\n`, 400], // no Host at all (Node refuses it)
    [`GARBAGE\r\n\r\n`, 400],
    [`GET / HTTP/1.1\r\nHost: ${authority}\r\nX: ${'a'.repeat(20000)}\r\n${'Y: b\r\n'.repeat(2000)}\r\n`, 431],
  ];
  for (const [text, want] of cases) {
    const reply = await raw(port, text);
    assert.equal(statusOf(reply), want, `${JSON.stringify(text.slice(0, 70))} → ${reply.split('\r\n')[0]}`);
  }
  // A client that sends half a body and vanishes.
  const sock = net.connect(port, '127.0.0.1');
  await new Promise((r) => sock.on('connect', r));
  sock.write(`PUT /api/chat HTTP/1.1\r\n${H}Content-Type: application/json\r\nContent-Length: 100\r\n\r\n[{"mes":`);
  await new Promise((r) => setTimeout(r, 50));
  sock.destroy();
  await new Promise((r) => setTimeout(r, 50));
  // Still serving.
  const ok = await request(port, '/demo/', { headers: { host: authority } });
  assert.equal(ok.status, 200);
  assert.equal((await request(port, '/api/chat', { headers: { host: authority } })).status, 200);
});

test('demo server: the demo endpoints refuse foreign Host and Origin and non-JSON writes (like the editor route)', async (t) => {
  const { port, authority, origin } = await demo(t);
  const chat = JSON.stringify([{ name: 'You', is_user: true, mes: 'mine', extra: {} }]);
  assert.equal((await request(port, '/api/chat', { method: 'PUT', headers: { host: authority, origin, 'content-type': 'application/json' }, body: chat })).status, 204);

  // A cross-site text/plain form post (no preflight) runs nothing.
  let r = await request(port, '/api/demo-editor/send', { method: 'POST', headers: { host: authority, origin: 'http://evil.example', 'content-type': 'text/plain' }, body: '{"text":"hi"}' });
  assert.equal(r.status, 403);
  r = await request(port, '/api/demo-editor/send', { method: 'POST', headers: { host: authority, 'content-type': 'text/plain' }, body: '{"text":"hi"}' });
  assert.equal(r.status, 415, 'a write must be application/json, which a cross-site page cannot send without a preflight');
  r = await request(port, '/api/demo-editor/send', { method: 'POST', headers: { host: authority, 'sec-fetch-site': 'cross-site', 'content-type': 'application/json' }, body: '{"text":"hi"}' });
  assert.equal(r.status, 403);
  // A rebinding page (foreign Host) can neither read nor overwrite the chat.
  for (const host of ['evil.example', `evil.example:${port}`, 'localhost:1', `127.0.0.1:${port + 1}`]) {
    r = await request(port, '/api/chat', { headers: { host } });
    assert.equal(r.status, 403, host);
    r = await request(port, '/api/chat', { method: 'PUT', headers: { host, 'content-type': 'application/json' }, body: '[]' });
    assert.equal(r.status, 403, host);
    r = await request(port, '/api/demo-editor/transcript', { headers: { host } });
    assert.equal(r.status, 403, host);
  }
  r = await request(port, '/api/chat', { method: 'PUT', headers: { host: authority, origin: 'http://evil.example', 'content-type': 'application/json' }, body: '[]' });
  assert.equal(r.status, 403);
  r = await request(port, '/api/chat', { headers: { host: authority } });
  assert.deepEqual(JSON.parse(r.body), JSON.parse(chat), 'the chat is untouched');
  r = await request(port, '/api/demo-editor/transcript', { headers: { host: authority, origin } });
  assert.equal(r.status, 200);
  assert.equal(JSON.parse(r.body).rows.filter((x) => x.kind === 'user').length, 2, 'no model turn ran');
});

test('demo server: other loopback names for this port are redirected to the printed address', async (t) => {
  const { port, origin } = await demo(t);
  for (const host of [`localhost:${port}`, `LOCALHOST:${port}`, `[::1]:${port}`, `127.0.0.2:${port}`, `app.localhost:${port}`]) {
    const r = await request(port, '/demo/editor.html?x=1', { headers: { host } });
    assert.equal(r.status, 308, host);
    assert.equal(r.headers.location, `${origin}/demo/editor.html?x=1`, host);
    const w = await request(port, '/api/chat', { method: 'PUT', headers: { host, 'content-type': 'application/json' }, body: '[]' });
    assert.equal(w.status, 403, `${host}: a write is not redirected`);
  }
});

test('demo server: .wasm and text are served compressed with the right headers', async (t) => {
  const { port, authority } = await demo(t);
  const want = readFileSync(WASM);
  let r = await request(port, '/tavern-core.wasm', { headers: { host: authority, 'accept-encoding': 'gzip, deflate, br' } });
  assert.equal(r.status, 200);
  assert.equal(r.headers['content-type'], 'application/wasm');
  assert.equal(r.headers['content-encoding'], 'br');
  assert.equal(r.headers.vary, 'accept-encoding');
  assert.equal(Number(r.headers['content-length']), r.body.length);
  assert.ok(r.body.length < want.length / 3, `brotli: ${r.body.length} of ${want.length}`);
  assert.ok(zlib.brotliDecompressSync(r.body).equals(want));

  r = await request(port, '/tavern-core.wasm', { headers: { host: authority, 'accept-encoding': 'gzip, br;q=0' } });
  assert.equal(r.headers['content-encoding'], 'gzip');
  assert.ok(zlib.gunzipSync(r.body).equals(want));

  r = await request(port, '/tavern-core.wasm', { headers: { host: authority } });
  assert.equal(r.headers['content-encoding'], undefined);
  assert.ok(r.body.equals(want));

  r = await request(port, '/demo/demo.js', { headers: { host: authority, 'accept-encoding': 'br' } });
  assert.equal(r.headers['content-encoding'], 'br');
  assert.match(r.headers['content-type'], /^text\/javascript/);
});

test('demo server: files are revalidated (no-cache + ETag) and an unchanged one is a 304', async (t) => {
  const { port, authority } = await demo(t);
  const br = { host: authority, 'accept-encoding': 'br' };
  const r = await request(port, '/tavern-core.wasm', { headers: br });
  assert.equal(r.headers['cache-control'], 'no-cache');
  const etag = r.headers.etag;
  assert.match(etag, /^"[^"]+"$/);
  let again = await request(port, '/tavern-core.wasm', { headers: { ...br, 'if-none-match': etag } });
  assert.equal(again.status, 304);
  assert.equal(again.body.length, 0);
  assert.equal(again.headers.etag, etag);
  again = await request(port, '/tavern-core.wasm', { headers: { ...br, 'if-none-match': `"other", W/${etag}` } });
  assert.equal(again.status, 304, 'a weak tag in a list matches');
  // Another encoding is another entity: its tag differs, so a cached brotli
  // body is never revalidated for a client that asked for gzip.
  const gz = await request(port, '/tavern-core.wasm', { headers: { host: authority, 'accept-encoding': 'gzip', 'if-none-match': etag } });
  assert.equal(gz.status, 200);
  assert.notEqual(gz.headers.etag, etag);
  const api = await request(port, '/api/chat', { headers: { host: authority } });
  assert.equal(api.headers['cache-control'], 'no-store', 'the API is never cached');
});

test('demo server: a busy port says which port and how to pick another', async (t) => {
  const { port } = await demo(t);
  const child = spawn(process.execPath, [SERVER], { env: { ...process.env, PORT: String(port), DEMO_DATA: tempDir('tavern-demo-busy-') }, stdio: ['ignore', 'pipe', 'pipe'] });
  let err = '';
  child.stderr.on('data', (d) => { err += d; });
  const code = await new Promise((r) => child.on('exit', r));
  assert.equal(code, 1);
  assert.match(err, new RegExp(`Port ${port} is already in use`));
  assert.match(err, /PORT=\d+ make demo/);
  assert.doesNotMatch(err, /at Server\.|node:net/, 'no stack trace');
});

test('demo server: a PORT that is not a port number is refused with what it must be', () => {
  for (const bad of ['abc', '-1', '1.5', '70000', '0x10']) {
    const r = spawnSync(process.execPath, [SERVER], { env: { ...process.env, PORT: bad, DEMO_DATA: tempDir('tavern-demo-port-') }, encoding: 'utf8', timeout: 30000 });
    assert.equal(r.status, 1, bad);
    assert.match(r.stderr, /PORT must be a whole number from 0 to 65535/, bad);
    assert.doesNotMatch(r.stderr, /NaN|at Server\.|node:net/, 'no raw Node error');
  }
});

test('demo server: make demo checks a busy port before it rebuilds what a running demo serves (demo/port.js)', async (t) => {
  const { port } = await demo(t);
  const r = spawnSync(process.execPath, [PORT_CHECK], { env: { ...process.env, PORT: String(port) }, encoding: 'utf8', timeout: 30000 });
  assert.equal(r.status, 1);
  assert.match(r.stderr, new RegExp(`Port ${port} is already in use`));
  const free = spawnSync(process.execPath, [PORT_CHECK], { env: { ...process.env, PORT: '0' }, encoding: 'utf8', timeout: 30000 });
  assert.equal(free.status, 0, free.stderr);
});
