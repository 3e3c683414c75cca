// The demo host: serves the demo page and the package on 127.0.0.1.
// `make demo` runs it; tests start it with `startDemoServer({ port: 0 })`.
import http from 'node:http';
import { mkdir, readFile, rename, stat, writeFile } from 'node:fs/promises';
import { extname, join, normalize, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { editorDemo, editorDemoHandles } from './editor-host.js';

const ROOT = resolve(fileURLToPath(new URL('..', import.meta.url)));
const TYPES = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.wasm': 'application/wasm',
  '.json': 'application/json',
  '.svg': 'image/svg+xml',
};

async function serveFile(res, path) {
  try {
    const info = await stat(path);
    if (!info.isFile()) throw new Error('not a file');
    res.writeHead(200, { 'content-type': TYPES[extname(path)] ?? 'application/octet-stream', 'cache-control': 'no-store' });
    res.end(await readFile(path));
  } catch {
    res.writeHead(404, { 'content-type': 'text/plain' });
    res.end('not found');
  }
}

const MAX_BODY = 8 << 20;

function readBody(req) {
  return new Promise((ok, fail) => {
    const parts = [];
    let size = 0;
    req.on('data', (c) => {
      size += c.length;
      if (size > MAX_BODY) { fail(new Error('body too large')); req.destroy(); return; }
      parts.push(c);
    });
    req.on('end', () => ok(Buffer.concat(parts).toString('utf8')));
    req.on('error', fail);
  });
}

// The demo chat, persisted as JSONL (one message per line) in dataDir.
function chatStore(dataDir) {
  const file = join(dataDir, 'chat.jsonl');
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
    async save(messages) {
      await mkdir(dataDir, { recursive: true });
      const tmp = `${file}.${process.pid}.tmp`;
      await writeFile(tmp, messages.map((m) => JSON.stringify(m)).join('\n') + (messages.length ? '\n' : ''));
      await rename(tmp, file); // a crash never leaves half a chat
    },
  };
}

async function chatRoute(req, res, store) {
  try {
    if (req.method === 'GET') {
      res.writeHead(200, { 'content-type': 'application/json', 'cache-control': 'no-store' });
      res.end(JSON.stringify(await store.load()));
      return;
    }
    if (req.method === 'PUT') {
      const messages = JSON.parse(await readBody(req));
      if (!Array.isArray(messages) || messages.some((m) => m === null || typeof m !== 'object' || typeof m.mes !== 'string')) {
        res.writeHead(400, { 'content-type': 'application/json' }).end(JSON.stringify({ error: 'a chat is an array of messages with a string mes' }));
        return;
      }
      await store.save(messages);
      res.writeHead(204).end();
      return;
    }
    res.writeHead(405, { allow: 'GET, PUT' }).end();
  } catch (err) {
    res.writeHead(400, { 'content-type': 'application/json' }).end(JSON.stringify({ error: String(err.message ?? err) }));
  }
}

export function startDemoServer({ port = 8787, host = '127.0.0.1', dataDir } = {}) {
  dataDir ??= resolve(ROOT, '..', 'demo-data');
  const store = chatStore(dataDir);
  const server = http.createServer((req, res) => {
    const url = new URL(req.url, 'http://localhost');
    if (url.pathname === '/api/chat') {
      chatRoute(req, res, store);
      return;
    }
    if (editorDemoHandles(url.pathname)) return editor(req, res); // message editor demo (editor.html)
    let path = decodeURIComponent(url.pathname);
    if (path === '/' || path === '/index.html') {
      res.writeHead(302, { location: '/demo/' }).end();
      return;
    }
    if (path === '/favicon.ico') {
      res.writeHead(204).end();
      return;
    }
    if (path.endsWith('/')) path += 'index.html';
    const file = normalize(join(ROOT, path));
    // Only files of the package, and never its dependencies' sources.
    if (!file.startsWith(ROOT + '/') || file.includes('/node_modules/')) {
      res.writeHead(403).end();
      return;
    }
    serveFile(res, file);
  });
  const editor = editorDemo({ server, dataDir });
  return new Promise((ok, fail) => {
    server.once('error', fail);
    server.listen(port, host, () => ok({ server, store, url: `http://${host}:${server.address().port}/` }));
  });
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { url, store } = await startDemoServer({ port: Number(process.env.PORT ?? 8787), dataDir: process.env.DEMO_DATA });
  console.log(`tavern-core demo on ${url} (Ctrl-C to stop); chat saved to ${store.file}`);
}
