// Set-up for the real-harness suite: the built DeepSeek Harness from the
// cache harness-cache.sh fills (its own Node 24 + pnpm, never the machine's
// Node), the harness's own mock model behind a small recording gate, a
// fresh DSH_HOME, `dsh plugin add` of the built plugin, `dsh web` on
// 127.0.0.1 and Debian's Chromium. Every process is stopped by its PID.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export const CACHE = process.env.DSH_CACHE_DIR;
export const PLUGIN_DIR = process.env.DSH_PLUGIN_DIR;
export const TREE = CACHE && join(CACHE, 'tree');
export const NODE24 = CACHE && join(CACHE, 'toolchain', 'bin', 'node');
const TOOLCHAIN_BIN = CACHE && join(CACHE, 'toolchain', 'bin');
const CLI = TREE && join(TREE, 'apps', 'cli', 'lib', 'bin.js');

/** The harness's environment: its Node and pnpm first on PATH, only here. */
function harnessEnv(extra = {}) {
  return {
    ...process.env,
    PATH: `${TOOLCHAIN_BIN}:${process.env.PATH}`,
    DSH_TELEMETRY_DISABLED: '1',
    // pnpm inside `dsh plugin add` must not phone the registry for updates.
    npm_config_update_notifier: 'false',
    ...extra,
  };
}

/** Start a child and resolve once a stdout line matches; stop() kills it by PID. */
function startChild(cmd, args, { cwd, env, ready, name }) {
  const child = spawn(cmd, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  const exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  const started = new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${name} did not start in 120 s:\n${out}\n${err}`)), 120_000);
    child.stdout.on('data', (b) => {
      out += b;
      const m = ready.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve(m);
      }
    });
    child.stderr.on('data', (b) => { err += b; });
    exited.then(({ code, signal }) => {
      clearTimeout(timer);
      reject(new Error(`${name} exited (${code ?? signal}) before it was ready:\n${out}\n${err}`));
    });
  });
  return {
    child,
    started,
    output: () => ({ out, err }),
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      process.kill(child.pid, 'SIGTERM');
      const t = setTimeout(() => { if (child.exitCode === null) process.kill(child.pid, 'SIGKILL'); }, 15_000);
      await exited;
      clearTimeout(t);
    },
  };
}

/** The harness's mock model (packages/test-support/llm-mock-server). */
export async function startMockModel() {
  const p = startChild(NODE24, ['--import', 'tsx', 'packages/test-support/llm-mock-server/src/bin.ts',
    '--port', '0', '--api-key', 'mock-key', '--sequence', 'success', '--repeat-last'], {
    cwd: TREE, env: harnessEnv(), ready: /"type":"ready","baseURL":"(http:\/\/127\.0\.0\.1:\d+)\/v1"/, name: 'mock model',
  });
  const m = await p.started;
  return { url: m[1], stop: () => p.stop() };
}

/**
 * A recording gate in front of the mock model: every request body is kept
 * (the model's view of the conversation, i.e. the harness's own fold), and
 * while hold() is on, chat requests wait for release() — a busy
 * agent and an open compaction without timing tricks. Title requests pass.
 */
export async function startGate(target) {
  const requests = [];
  const held = [];
  let holding = false;
  const waiters = [];
  const notify = () => { for (const w of waiters.splice(0)) w(); };
  const server = http.createServer(async (req, res) => {
    try {
      const chunks = [];
      for await (const c of req) chunks.push(c);
      const raw = Buffer.concat(chunks);
      let body;
      try { body = JSON.parse(raw.toString('utf8')); } catch { body = undefined; }
      const chat = req.url.endsWith('/chat/completions');
      const title = JSON.stringify(body?.messages ?? '').includes('Create a concise title');
      const record = { path: req.url, body, chat, title, held: false };
      requests.push(record);
      if (holding && chat && !title) {
        record.held = true;
        notify();
        await new Promise((resolve) => held.push(resolve));
      }
      notify();
      // "TOOL:<name>:<json arguments>" in the user's message: the model
      // answers with that one tool call (the mock model makes none); the
      // request after the tool's result goes on to the mock.
      // (The harness appends its runtime context as user messages after the
      // user's own: the trailing run of user messages is looked through.)
      const msgs = chat && !title && Array.isArray(body?.messages) ? body.messages : [];
      let wanted = null;
      for (let i = msgs.length - 1; i >= 0 && msgs[i]?.role === 'user' && !wanted; i--) {
        wanted = /TOOL:([\w.-]+):(\{.*?\})/.exec(textOf(msgs[i].content));
      }
      if (wanted) {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        const sse = (o) => res.write(`data: ${JSON.stringify(o)}\n\n`);
        const call = { index: 0, id: `call_${requests.length}`, type: 'function', function: { name: wanted[1], arguments: wanted[2] } };
        sse({ choices: [{ index: 0, delta: { role: 'assistant', content: `calling ${wanted[1]}` }, finish_reason: null }] });
        sse({ choices: [{ index: 0, delta: { tool_calls: [call] }, finish_reason: null }] });
        sse({ choices: [{ index: 0, delta: {}, finish_reason: 'tool_calls' }], usage: { prompt_tokens: 10, completion_tokens: 5 } });
        res.end('data: [DONE]\n\n');
        return;
      }
      const headers = {};
      for (const [k, v] of Object.entries(req.headers)) if (!['host', 'content-length', 'connection'].includes(k)) headers[k] = v;
      const up = await fetch(target + req.url, { method: req.method, headers, body: req.method === 'GET' ? undefined : raw });
      const out = {};
      for (const [k, v] of up.headers) if (!['content-length', 'content-encoding', 'transfer-encoding', 'connection'].includes(k)) out[k] = v;
      res.writeHead(up.status, out);
      if (up.body) for await (const c of up.body) res.write(c);
      res.end();
    } catch (err) {
      if (!res.headersSent) res.writeHead(502);
      res.end(String(err));
    }
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${server.address().port}`;
  const until = async (pred, what) => {
    const deadline = Date.now() + 60_000;
    while (!pred()) {
      if (Date.now() > deadline) throw new Error(`gate: timed out waiting for ${what}`);
      await new Promise((r) => { waiters.push(r); setTimeout(r, 200); });
    }
  };
  return {
    url,
    requests,
    /** The conversation's chat requests (not the title generator's, not file uploads). */
    conversation: () => requests.filter((r) => r.chat && !r.title),
    hold() { holding = true; },
    release() { holding = false; for (const r of held.splice(0)) r(); },
    waitHeld: () => until(() => held.length > 0, 'a held model request'),
    close: () => new Promise((r) => { server.closeAllConnections(); server.close(r); }),
  };
}

const textOf = (content) => (typeof content === 'string' ? content
  : Array.isArray(content) ? content.map((p) => (typeof p?.text === 'string' ? p.text : '')).join('') : '');

/** A fresh DSH_HOME and working directory for one run. */
export function freshHome() {
  const dir = mkdtempSync(join(tmpdir(), 'tavern-dsh-'));
  return { dir, home: join(dir, 'home'), cwd: join(dir, 'work'), remove: () => rmSync(dir, { recursive: true, force: true }) };
}

/** `dsh plugin --profile web add <dir>`: the command a harness user runs. */
export function pluginAdd({ home, cwd }, dir, modelURL) {
  spawnSync('mkdir', ['-p', cwd]);
  const r = spawnSync(NODE24, [CLI, 'plugin', '--profile', 'web', 'add', dir], {
    cwd, env: harnessEnv({ DSH_HOME: home, DEEPSEEK_BASE_URL: `${modelURL}/v1`, DEEPSEEK_API_KEY: 'mock-key' }), encoding: 'utf8',
  });
  if (r.status !== 0) throw new Error(`dsh plugin add failed (${r.status}):\n${r.stdout}\n${r.stderr}`);
  return r;
}

/** `dsh web --no-open --host 127.0.0.1 --port 0`; resolves to {url, stop}. */
export async function startHarness({ home, cwd }, modelURL) {
  const p = startChild(NODE24, [CLI, 'web', '--no-open', '--host', '127.0.0.1', '--port', '0'], {
    cwd,
    env: harnessEnv({ DSH_HOME: home, DEEPSEEK_BASE_URL: `${modelURL}/v1`, DEEPSEEK_API_KEY: 'mock-key' }),
    ready: /dsh web: (http:\/\/127\.0\.0\.1:\d+)/,
    name: 'dsh web',
  });
  const m = await p.started;
  return { url: m[1], pid: p.child.pid, stop: () => p.stop(), output: p.output };
}

/**
 * A session's log file under DSH_HOME (zstd frames by default): the one
 * with the given id, or the only one there is.
 */
export function sessionFile({ home }, id) {
  const root = join(home, 'sessions');
  const files = [];
  const walk = (d) => {
    for (const e of readdirSync(d)) {
      const p = join(d, e);
      if (statSync(p).isDirectory()) walk(p);
      else if (/^session\.jsonl(\.zstd)?$/.test(e)) files.push(p);
    }
  };
  if (existsSync(root)) walk(root);
  const picked = id === undefined ? files : files.filter((f) => f.split('/').at(-2) === id);
  if (picked.length !== 1) throw new Error(`expected one session log${id ? ` for ${id}` : ''} under ${root}, found ${picked.length}: ${files.join(', ')}`);
  return picked[0];
}

/**
 * The log as records: decompressed with the harness's Node 24 (zlib zstd).
 * One read of the file serves both `bytes` and `records`, so they describe
 * the same log even while the harness appends; a read that caught a frame
 * being written (it does not decompress) is taken again.
 */
export function readLog(paths, id) {
  const file = sessionFile(paths, id);
  for (let attempt = 1; ; attempt++) {
    const bytes = readFileSync(file);
    const r = spawnSync(NODE24, ['-e', `const z=require('zlib');const b=require('fs').readFileSync(0);
process.stdout.write(process.argv[1].endsWith('.zstd')?z.zstdDecompressSync(b):b)`, file], { input: bytes, encoding: 'utf8', maxBuffer: 1 << 28 });
    if (r.status !== 0) {
      if (attempt < 10) { Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 100); continue; }
      throw new Error(r.stderr);
    }
    const lines = r.stdout.split('\n').filter((l) => l.trim() !== '');
    return { header: JSON.parse(lines[0]), records: lines.slice(1).map((l) => JSON.parse(l)), file, bytes };
  }
}
