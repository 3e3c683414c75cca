// The demo host: serves the demo pages and the package on 127.0.0.1.
// `make demo` runs it; tests start it with `startDemoServer({ port: 0 })`.
//
// No request may take it down: every request runs inside one catch, bad
// URLs and bodies are answered 400, and a client that disconnects mid-body
// only ends its own request. The demo's own endpoints follow the editor
// route's transport rules (Host is this server, Origin absent or ours,
// writes are application/json); a loopback name other than the one the
// server prints (localhost, [::1], 127.x) is redirected to it, so the
// editor route's exact-host rule holds and the pages work whichever loopback
// name a user typed. Text and .wasm are served compressed (brotli or gzip,
// as the request accepts), once per file version.
import http from 'node:http';
import { createReadStream } from 'node:fs';
import { mkdir, open, readFile, rename, stat } from 'node:fs/promises';
import { extname, join, normalize, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import zlib from 'node:zlib';
import { editorDemo, editorDemoHandles } from './editor-host.js';
import { DEFAULT_PORT, withPort } from './port.js';

const ROOT = resolve(fileURLToPath(new URL('..', import.meta.url)));
const TYPES = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.wasm': 'application/wasm',
  '.json': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml',
};
const COMPRESSIBLE = new Set(['.html', '.js', '.mjs', '.css', '.wasm', '.json', '.svg']);

// The browser libraries the pages use, served from node_modules by name
// (nothing else under node_modules is reachable).
export const VENDOR = {
  '/vendor/showdown.js': 'node_modules/showdown/dist/showdown.min.js',
  '/vendor/purify.js': 'node_modules/dompurify/dist/purify.es.mjs',
};

class HttpError extends Error {
  constructor(status, message, headers = {}) { super(message); this.status = status; this.headers = headers; }
}

// ---- compression: one encoded copy per file version, shared by requests ----
const brotli = promisify(zlib.brotliCompress);
const gzip = promisify(zlib.gzip);
const encoded = new Map(); // `${path}\0${encoding}` -> { key, body: Promise<Buffer> }

function pickEncoding(accept = '') {
  const ok = (name) => new RegExp(`(^|[,\\s])${name}(?!;\\s*q=0(\\.0*)?(\\s|,|$))`, 'i').test(accept);
  if (ok('br')) return 'br';
  if (ok('gzip')) return 'gzip';
  return null;
}

function encodedBody(path, info, encoding) {
  const id = `${path}\0${encoding}`;
  const key = `${info.mtimeMs}:${info.size}`;
  let e = encoded.get(id);
  if (!e || e.key !== key) {
    const body = readFile(path).then((raw) => (encoding === 'br'
      ? brotli(raw, { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 9, [zlib.constants.BROTLI_PARAM_SIZE_HINT]: raw.length } })
      : gzip(raw, { level: 9 })));
    e = { key, body };
    encoded.set(id, e);
    body.catch(() => { if (encoded.get(id) === e) encoded.delete(id); });
  }
  return e.body;
}

/** Whether an If-None-Match header names this entity tag (weak comparison, RFC 9110 13.1.2). */
function notModified(header, etag) {
  if (typeof header !== 'string') return false;
  if (header.trim() === '*') return true;
  return header.split(',').some((t) => t.trim().replace(/^W\//, '') === etag);
}

async function serveFile(req, res, path) {
  let info;
  try {
    info = await stat(path);
  } catch {
    info = null;
  }
  if (!info?.isFile()) throw new HttpError(404, 'not found');
  const ext = extname(path);
  // Files may be cached but are revalidated on every use (no-cache): a
  // rebuilt file is never served stale, and an unchanged one is a 304, so
  // a reload skips the download and Chromium reuses the compiled wasm it
  // cached for that response (docs/architecture.md, "Load").
  const encoding = COMPRESSIBLE.has(ext) && info.size > 1024 ? pickEncoding(req.headers['accept-encoding']) : null;
  const etag = `"${info.size.toString(36)}-${Math.trunc(info.mtimeMs).toString(36)}${encoding ? `-${encoding}` : ''}"`;
  const headers = { 'content-type': TYPES[ext] ?? 'application/octet-stream', 'cache-control': 'no-cache', etag, 'x-content-type-options': 'nosniff' };
  if (COMPRESSIBLE.has(ext)) headers.vary = 'accept-encoding';
  if (notModified(req.headers['if-none-match'], etag)) {
    res.writeHead(304, headers);
    res.end();
    return;
  }
  if (encoding) {
    const body = await encodedBody(path, info, encoding);
    res.writeHead(200, { ...headers, 'content-encoding': encoding, 'content-length': body.length });
    res.end(req.method === 'HEAD' ? undefined : body);
    return;
  }
  res.writeHead(200, { ...headers, 'content-length': info.size });
  if (req.method === 'HEAD') { res.end(); return; }
  const stream = createReadStream(path);
  stream.on('error', () => res.destroy());
  stream.pipe(res);
}

const MAX_BODY = 8 << 20;

function readBody(req, limit = MAX_BODY) {
  return new Promise((ok, fail) => {
    if (Number(req.headers['content-length']) > limit) { fail(new HttpError(413, 'body too large')); return; }
    const parts = [];
    let size = 0;
    req.on('data', (c) => {
      size += c.length;
      if (size > limit) { fail(new HttpError(413, 'body too large')); req.destroy(); return; }
      parts.push(c);
    });
    req.on('end', () => ok(Buffer.concat(parts).toString('utf8')));
    req.on('error', fail);
    req.on('aborted', () => fail(new HttpError(400, 'request aborted')));
  });
}

// The demo chat, persisted as JSONL (one message per line) in dataDir.
function chatStore(dataDir) {
  const file = join(dataDir, 'chat.jsonl');
  let queue = Promise.resolve();
  return {
    file,
    async load() {
      try {
        const text = await readFile(file, 'utf8');
        return text.split('\n').filter((l) => l.trim() !== '').map((l) => JSON.parse(l));
      } catch (err) {
        if (err.code === 'ENOENT') return [];
        throw err;
      }
    },
    save(messages) {
      // One save at a time, each durable before it is acknowledged.
      const run = queue.then(async () => {
        await mkdir(dataDir, { recursive: true });
        const tmp = `${file}.${process.pid}.tmp`;
        const fh = await open(tmp, 'w');
        try {
          await fh.writeFile(messages.map((m) => JSON.stringify(m)).join('\n') + (messages.length ? '\n' : ''));
          await fh.sync();
        } finally {
          await fh.close();
        }
        await rename(tmp, file); // a crash never leaves half a chat
        const dir = await open(dataDir, 'r');
        try { await dir.sync(); } finally { await dir.close(); }
      });
      queue = run.catch(() => {});
      return run;
    },
  };
}

async function chatRoute(req, res, store) {
  if (req.method === 'GET' || req.method === 'HEAD') {
    return json(res, 200, await store.load());
  }
  if (req.method === 'PUT') {
    let messages;
    try {
      messages = JSON.parse(await readBody(req));
    } catch (err) {
      if (err instanceof HttpError) throw err;
      throw new HttpError(400, 'the body is not JSON');
    }
    if (!Array.isArray(messages) || messages.some((m) => m === null || typeof m !== 'object' || typeof m.mes !== 'string')) {
      throw new HttpError(400, 'a chat is an array of messages with a string mes');
    }
    await store.save(messages);
    res.writeHead(204).end();
    return undefined;
  }
  throw new HttpError(405, 'use GET or PUT', { allow: 'GET, PUT' });
}

function json(res, status, value, headers = {}) {
  const body = Buffer.from(JSON.stringify(value));
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store', 'content-length': body.length, ...headers });
  res.end(body);
}

// ---- hosts and origins ----
const LOOPBACK = /^(localhost|[a-z0-9-]+\.localhost|127(\.\d{1,3}){3}|\[::1\]|\[::ffff:127(\.\d{1,3}){3}\])\.?$/i;

/** Split a Host header into name and port ("" when absent). */
function splitHost(value) {
  const m = /^(\[[^\]]*\]|[^:]*)(?::(\d*))?$/.exec(value ?? '');
  return m ? { name: m[1], port: m[2] ?? '' } : null;
}

/**
 * The transport rule of the editor route (S85 step 1) for every request:
 * `Host` must be this server's authority. Another loopback name for the same
 * port is redirected to it (GET/HEAD) or refused; any other host is refused.
 * The demo's API also refuses a foreign Origin and non-JSON writes (S83:
 * the JSON content type forces a CORS preflight for cross-site attempts).
 */
function checkHost(req, authority, origin, path) {
  const host = req.headers.host;
  if (host === authority) return;
  const h = splitHost(host);
  const port = authority.slice(authority.lastIndexOf(':') + 1);
  if (h && LOOPBACK.test(h.name) && (h.port === port || (h.port === '' && port === '80'))) {
    if (req.method === 'GET' || req.method === 'HEAD') throw new HttpError(308, `moved to ${origin}`, { location: origin + path });
    throw new HttpError(403, `this server answers as ${origin}; use that address`);
  }
  throw new HttpError(403, `request host ${JSON.stringify(host ?? '')} is not this host (${authority})`);
}

function checkApiRequest(req, origin) {
  const o = req.headers.origin;
  if (o !== undefined && o !== origin) throw new HttpError(403, `cross-origin request from ${JSON.stringify(o)} refused`);
  if (req.headers['sec-fetch-site'] === 'cross-site') throw new HttpError(403, 'cross-site request refused');
  if (req.method !== 'GET' && req.method !== 'HEAD') {
    const type = String(req.headers['content-type'] ?? '');
    if (!/^application\/json\s*(;\s*charset=utf-8\s*)?$/i.test(type)) throw new HttpError(415, 'send application/json');
  }
}

/** The path of a request-target, or an HttpError for one that is not a path. */
function requestPath(target) {
  if (typeof target !== 'string' || !target.startsWith('/') || target.startsWith('//')) throw new HttpError(400, 'bad request target');
  const raw = target.split(/[?#]/, 1)[0];
  let path;
  try {
    path = decodeURIComponent(raw);
  } catch {
    throw new HttpError(400, 'bad percent-encoding in the path');
  }
  if (path.includes('\0') || path.includes('\\')) throw new HttpError(400, 'bad characters in the path');
  return { raw, path, search: target.slice(raw.length) };
}

function fail(res, err) {
  if (res.headersSent) { res.destroy(); return; }
  const status = err instanceof HttpError ? err.status : 500;
  const message = err instanceof HttpError ? err.message : 'internal error';
  if (!(err instanceof HttpError)) console.error('demo server:', err);
  json(res, status, { error: message }, err.headers ?? {});
}

export function startDemoServer({ port = DEFAULT_PORT, host = '127.0.0.1', dataDir, editorChunkDelay } = {}) {
  dataDir ??= resolve(ROOT, '..', 'demo-data');
  const store = chatStore(dataDir);
  let authority;
  let origin;
  const server = http.createServer();
  const editor = editorDemo({ server, dataDir, origin: () => origin, chunkDelay: editorChunkDelay });

  async function handle(req, res) {
    const { raw, path: decoded, search } = requestPath(req.url);
    checkHost(req, authority, origin, raw + search);
    if (raw === '/api/chat') {
      checkApiRequest(req, origin);
      return chatRoute(req, res, store);
    }
    if (editorDemoHandles(raw)) {
      checkApiRequest(req, origin);
      return editor(req, res); // message editor demo (editor.html)
    }
    if (req.method !== 'GET' && req.method !== 'HEAD') throw new HttpError(405, 'use GET', { allow: 'GET, HEAD' });
    let path = decoded;
    if (path === '/' || path === '/index.html') throw new HttpError(302, 'moved', { location: '/demo/' });
    if (path === '/favicon.ico') { res.writeHead(204).end(); return undefined; }
    if (VENDOR[path]) return serveFile(req, res, join(ROOT, VENDOR[path]));
    if (path.endsWith('/')) path += 'index.html';
    const file = normalize(join(ROOT, path));
    // Only files of the package, and never its dependencies' sources.
    if (!file.startsWith(ROOT + sep) || file.split(sep).includes('node_modules')) throw new HttpError(403, 'forbidden');
    return serveFile(req, res, file);
  }

  server.on('request', (req, res) => {
    req.on('error', () => {}); // a reset client ends its own request only
    res.on('error', () => {});
    try {
      handle(req, res).catch((err) => fail(res, err));
    } catch (err) {
      fail(res, err);
    }
  });
  server.on('clientError', (err, socket) => {
    const status = err?.code === 'HPE_HEADER_OVERFLOW' ? '431 Request Header Fields Too Large' : '400 Bad Request';
    if (socket.writable && !socket.writableEnded) socket.end(`HTTP/1.1 ${status}\r\nconnection: close\r\ncontent-length: 0\r\n\r\n`);
    else socket.destroy();
  });
  return new Promise((ok, fail) => {
    server.once('error', fail);
    server.listen(port, host, () => {
      server.off('error', fail);
      const a = server.address();
      authority = `${a.family === 'IPv6' ? `[${a.address}]` : a.address}:${a.port}`;
      origin = `http://${authority}`;
      ok({ server, store, url: `${origin}/` });
    });
  });
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  await withPort(async (port) => {
    const { url, store } = await startDemoServer({ port, dataDir: process.env.DEMO_DATA });
    console.log(`tavern-core demo on ${url} (Ctrl-C to stop); chat saved to ${store.file}`);
  });
}
