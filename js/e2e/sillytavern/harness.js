// The real SillyTavern 1.18.0 for end-to-end tests, reusable by any suite:
//
//   const st = await startSillyTavern({ extensions: [{ name, dir }], chat, mock });
//   const { page, errors } = await openSillyTavern(st);
//   ...
//   await st.stop();
//
// The tarball (ST_TARBALL, else ../shared/vendor/SillyTavern-1.18.0.tar.gz)
// is extracted once per machine into $TAVERN_CACHE (default
// ~/.cache/tavern-core)/sillytavern-<sha256>/, `npm ci` runs there, and a
// first start fills a template data root (default content, webpack output).
// Every run then copies that template into a fresh temporary data root, so
// runs never share state and the cached tree stays untouched. The server
// listens on 127.0.0.1 on a free port, launches no browser, downloads no
// tokenizers or models and updates no extensions; it is stopped by its PID.
import { spawn, execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  cpSync, createReadStream, existsSync, mkdirSync, mkdtempSync, openSync, closeSync,
  readFileSync, renameSync, rmSync, writeFileSync, readdirSync,
} from 'node:fs';
import { createServer } from 'node:net';
import { homedir, tmpdir } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { MOCK_MODEL } from './mock-llm.js';
import { launchChromium as launchBrowser } from '../browser.js';

const HERE = dirname(fileURLToPath(import.meta.url));
export const REPO = resolve(HERE, '../../..');
/** Bumped when the cached layout changes, so old caches are rebuilt. */
const CACHE_LAYOUT = 'tavern-core-st-cache-1';
const ST_DIR = 'SillyTavern-1.18.0';
/** The character of the default content every chat fixture belongs to. */
export const CHARACTER = { name: 'Seraphina', avatar: 'default_Seraphina.png', chatDir: 'default_Seraphina' };

/** The SillyTavern tarball to test against, or null when there is none. */
export function sillyTavernTarball() {
  if (process.env.ST_TARBALL) {
    const p = resolve(process.env.ST_TARBALL);
    if (!existsSync(p)) throw new Error(`ST_TARBALL=${process.env.ST_TARBALL} does not exist`);
    return p;
  }
  const vendored = resolve(REPO, '../shared/vendor/SillyTavern-1.18.0.tar.gz');
  return existsSync(vendored) ? vendored : null;
}

async function sha256(file) {
  const h = createHash('sha256');
  for await (const chunk of createReadStream(file)) h.update(chunk);
  return h.digest('hex');
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

function alive(pid) {
  try { process.kill(pid, 0); return true; } catch { return false; }
}

/** A port that was free a moment ago on 127.0.0.1. */
export function freePort() {
  return new Promise((resolvePort, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolvePort(port));
    });
  });
}

function log(msg) {
  if (process.env.ST_HARNESS_QUIET !== '1') process.stderr.write(`[st-harness] ${msg}\n`);
}

// ---- one cached, installed tree per tarball ----

let prepared = null;

/**
 * Extract + npm ci + template data root, once per tarball hash (locked
 * against other processes doing the same). Returns { tree, template, sha }.
 */
export function prepareSillyTavern({ tarball = sillyTavernTarball() } = {}) {
  if (!tarball) throw new Error('no SillyTavern tarball (set ST_TARBALL)');
  prepared ??= prepare(tarball);
  return prepared;
}

async function prepare(tarball) {
  const sha = await sha256(tarball);
  const base = process.env.TAVERN_CACHE ?? join(homedir(), '.cache', 'tavern-core');
  const dir = join(base, `sillytavern-${sha}`);
  const ready = join(dir, '.ready');
  const result = { tree: join(dir, 'tree', ST_DIR), template: join(dir, 'template-data'), sha, dir };
  const isReady = () => existsSync(ready) && readFileSync(ready, 'utf8') === CACHE_LAYOUT;
  if (isReady()) return result;
  mkdirSync(base, { recursive: true });
  const lock = `${dir}.lock`;
  for (;;) {
    try {
      mkdirSync(lock);
      writeFileSync(join(lock, 'pid'), String(process.pid));
      break;
    } catch (e) {
      if (e.code !== 'EEXIST') throw e;
      let holder = 0;
      try { holder = Number(readFileSync(join(lock, 'pid'), 'utf8')); } catch { /* being written */ }
      if (holder && !alive(holder)) { rmSync(lock, { recursive: true, force: true }); continue; }
      if (isReady()) return result;
      await sleep(500);
    }
  }
  try {
    if (isReady()) return result;
    const t0 = Date.now();
    const tmp = `${dir}.tmp-${process.pid}`;
    rmSync(tmp, { recursive: true, force: true });
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(join(tmp, 'tree'), { recursive: true });
    log(`extracting ${tarball} into the cache (${tmp})`);
    execFileSync('tar', ['-xzf', tarball, '-C', join(tmp, 'tree')], { stdio: 'inherit' });
    log('npm ci in the SillyTavern tree');
    execFileSync('npm', ['ci', '--no-audit', '--no-fund', '--loglevel=error'], {
      cwd: join(tmp, 'tree', ST_DIR), stdio: ['ignore', 'inherit', 'inherit'], env: { ...process.env, CI: 'true' },
    });
    renameSync(tmp, dir);
    log('first start: default content and the webpack bundle into the template data root');
    // The first start compiles the webpack bundle: ~20 s on an idle machine,
    // minutes on a loaded one.
    const first = await launchServer({ tree: result.tree, dataRoot: result.template, runDir: dir, timeoutMs: 900000 });
    await first.stop();
    rmSync(join(dir, 'config.yaml'), { force: true });
    writeFileSync(ready, CACHE_LAYOUT);
    log(`cache ready in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
    return result;
  } finally {
    rmSync(lock, { recursive: true, force: true });
  }
}

// ---- configuration ----

/** config.yaml from the tree's default with the keys a test server needs. */
function writeConfig(tree, file, { port, dataRoot }) {
  let y = readFileSync(join(tree, 'default', 'config.yaml'), 'utf8');
  const set = (re, line) => {
    if (!re.test(y)) throw new Error(`config.yaml: ${re} not found`);
    y = y.replace(re, line);
  };
  set(/^dataRoot: .*$/m, `dataRoot: ${JSON.stringify(dataRoot)}`);
  set(/^listen: .*$/m, 'listen: false');
  set(/^port: .*$/m, `port: ${port}`);
  set(/^(browserLaunch:\n(?:\s+#.*\n)*\s+enabled:) .*$/m, '$1 false');
  set(/^enableDownloadableTokenizers: .*$/m, 'enableDownloadableTokenizers: false');
  set(/^(\s+autoUpdate:) true$/m, '$1 false');
  set(/^(\s+autoDownload:) true$/m, '$1 false');
  set(/^enableServerPluginsAutoUpdate: .*$/m, 'enableServerPluginsAutoUpdate: false');
  writeFileSync(file, y);
}

async function waitForHttp(url, proc, timeoutMs) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (proc.exitCode !== null || proc.signalCode !== null) throw new Error(`SillyTavern exited (${proc.exitCode ?? proc.signalCode}) before it served ${url}`);
    try {
      const res = await fetch(url, { signal: AbortSignal.timeout(2000) });
      if (res.ok) return;
    } catch { /* not up yet */ }
    if (Date.now() > deadline) throw new Error(`SillyTavern did not serve ${url} within ${timeoutMs} ms`);
    await sleep(150);
  }
}

const live = new Set();
process.on('exit', () => { for (const p of live) { try { process.kill(p.pid, 'SIGKILL'); } catch { /* gone */ } } });

async function launchServer({ tree, dataRoot, runDir, timeoutMs = 240000 }) {
  const port = await freePort();
  const config = join(runDir, 'config.yaml');
  writeConfig(tree, config, { port, dataRoot });
  const logFile = join(runDir, 'server.log');
  const fd = openSync(logFile, 'a');
  const proc = spawn(process.execPath, ['server.js', '--configPath', config, '--dataRoot', dataRoot, '--port', String(port)], {
    cwd: tree, env: { ...process.env, NODE_ENV: 'production' }, stdio: ['ignore', fd, fd],
  });
  closeSync(fd);
  live.add(proc);
  const exited = new Promise((r) => proc.once('exit', r));
  const url = `http://127.0.0.1:${port}/`;
  const stop = async () => {
    if (proc.exitCode === null && proc.signalCode === null) {
      proc.kill('SIGTERM');
      const t = setTimeout(() => { try { proc.kill('SIGKILL'); } catch { /* gone */ } }, 5000);
      await exited;
      clearTimeout(t);
    }
    live.delete(proc);
  };
  try {
    await waitForHttp(url, proc, timeoutMs);
  } catch (e) {
    await stop();
    let tail = '';
    try { tail = readFileSync(logFile, 'utf8').slice(-4000); } catch { /* none */ }
    throw new Error(`${e.message}\n--- server.log ---\n${tail}`);
  }
  return { url, port, pid: proc.pid, proc, stop, logFile };
}

// ---- a test server ----

/**
 * The settings a test needs on top of the default content: Chat Completion
 * → Custom (OpenAI-compatible) at the mock, streaming on, no onboarding,
 * the fixture's character selected.
 */
function seedSettings(userDir, { mockUrl, streaming = true, settings }) {
  const file = join(userDir, 'settings.json');
  const s = JSON.parse(readFileSync(file, 'utf8'));
  s.firstRun = false;
  s.main_api = 'openai';
  s.active_character = CHARACTER.avatar;
  s.oai_settings = {
    ...s.oai_settings,
    chat_completion_source: 'custom',
    custom_url: mockUrl ?? 'http://127.0.0.1:9/v1',
    custom_model: MOCK_MODEL,
    stream_openai: streaming,
  };
  s.power_user = { ...s.power_user, auto_swipe: false, auto_connect: true, auto_load_chat: true };
  settings?.(s);
  writeFileSync(file, JSON.stringify(s, null, 4));
}

/** A chat file in SillyTavern's JSONL layout: header line, then messages. */
export function chatJsonl(messages, { userName = 'User', characterName = CHARACTER.name, metadata = {} } = {}) {
  const header = { user_name: userName, character_name: characterName, create_date: '2026-01-01@00h00m00s', chat_metadata: metadata };
  return [header, ...messages].map((m) => JSON.stringify(m)).join('\n') + '\n';
}

/** An ST-shaped message. */
export function message(mes, { user = false, name = user ? 'User' : CHARACTER.name, ...rest } = {}) {
  const m = { name, is_user: user, is_system: false, send_date: '2026-01-01@00h00m00s', mes, extra: {}, ...rest };
  if (!user) { m.swipes ??= [mes]; m.swipe_id ??= 0; m.swipe_info ??= [{ send_date: m.send_date, extra: {} }]; }
  return m;
}

/**
 * Start a fresh SillyTavern.
 * @param {object} o
 * @param {{ name: string, dir: string, files?: string[] }[]} [o.extensions] folders copied to
 *   data/default-user/extensions/<name>, plus any extra files copied into them
 * @param {{ name?: string, messages: object[] } | null} [o.chat] a chat of the fixture character, opened by openSillyTavern
 * @param {string} [o.mockUrl] the OpenAI-compatible base URL (ending in /v1)
 * @param {boolean} [o.streaming]
 * @param {(settings: object) => void} [o.settings] last changes to settings.json
 */
export async function startSillyTavern({ extensions = [], chat = null, mockUrl, streaming = true, settings } = {}) {
  const { tree, template } = await prepareSillyTavern();
  const runDir = mkdtempSync(join(tmpdir(), 'tavern-st-'));
  const dataRoot = join(runDir, 'data');
  cpSync(template, dataRoot, { recursive: true });
  const userDir = join(dataRoot, 'default-user');
  seedSettings(userDir, { mockUrl, streaming, settings });
  for (const ext of extensions) {
    const to = join(userDir, 'extensions', ext.name);
    cpSync(ext.dir, to, { recursive: true });
    for (const f of ext.files ?? []) cpSync(f, join(to, basename(f)));
  }
  let chatName = null;
  if (chat) {
    chatName = chat.name ?? 'tavern-core fixture';
    const dir = join(userDir, 'chats', CHARACTER.chatDir);
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, `${chatName}.jsonl`), chatJsonl(chat.messages, chat));
  }
  const server = await launchServer({ tree, dataRoot, runDir });
  return {
    ...server,
    runDir,
    dataRoot,
    userDir,
    chatName,
    /** The saved chat file's messages (header dropped). */
    readChat(name = chatName) {
      const lines = readFileSync(join(userDir, 'chats', CHARACTER.chatDir, `${name}.jsonl`), 'utf8').split('\n').filter(Boolean);
      return lines.slice(1).map((l) => JSON.parse(l));
    },
    chatFiles: () => readdirSync(join(userDir, 'chats', CHARACTER.chatDir)),
    async stop() {
      await server.stop();
      if (process.env.ST_KEEP !== '1') rmSync(runDir, { recursive: true, force: true });
    },
  };
}

// ---- the browser ----

export { CHROMIUM, CHROMIUM_ARGS, until } from '../browser.js';

/** Headless Debian chromium with a fresh profile. Returns { context, close }. */
export const launchChromium = () => launchBrowser({ prefix: 'tavern-st-profile-', viewport: { width: 1280, height: 900 } });

/**
 * Open SillyTavern in a page, wait until it is ready (waitForApp), open
 * the fixture chat, and collect page errors.
 * Returns { page, errors, reload() }.
 */
export async function openSillyTavern(st, { context, page } = {}) {
  page ??= context.pages().find((p) => p.url() === 'about:blank') ?? await context.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(e));
  const ready = async () => {
    await page.goto(st.url, { waitUntil: 'domcontentloaded' });
    await waitForApp(page);
    if (st.chatName) await openChat(page, st.chatName);
  };
  await ready();
  return { page, errors, reload: ready };
}

/**
 * Waits for the app to finish loading (extensions activated, settings in).
 * No onboarding popup asks for a name: every test's settings turn firstRun
 * off (seedSettings). SillyTavern's loading overlay is itself a popup,
 * closed only after the preloader goes (scripts/action-loader.js), so the
 * app is ready when no popup is open either; clicking an OK button seen
 * in that moment waited for a popup that was already going.
 */
export async function waitForApp(page) {
  await page.waitForFunction(() => !!globalThis.SillyTavern?.getContext && !document.getElementById('preloader') &&
    !document.getElementById('loader') && !document.querySelector('dialog.popup[open]'), null, { timeout: 120000 });
  await page.waitForFunction(() => document.querySelector('#send_textarea') && document.body.dataset.generating !== 'true', null, { timeout: 60000 });
}

/** Opens the fixture character's chat by file name (without .jsonl). */
export async function openChat(page, chatName) {
  await page.evaluate(async ({ avatar, chatName }) => {
    const ctx = globalThis.SillyTavern.getContext();
    const id = ctx.characters.findIndex((c) => c.avatar === avatar);
    if (id < 0) throw new Error(`character ${avatar} missing`);
    if (String(ctx.characterId) !== String(id)) await ctx.selectCharacterById(id);
    if (ctx.getCurrentChatId() !== chatName) await ctx.openCharacterChat(chatName);
  }, { avatar: CHARACTER.avatar, chatName });
  await page.waitForFunction((n) => globalThis.SillyTavern.getContext().getCurrentChatId() === n, chatName);
}

/**
 * Creates a second character ("Bram") and a group of the fixture character
 * and Bram in list order (each user message gets a reply from both), with
 * one chat named chatId, through SillyTavern's own endpoints, and opens it.
 * Returns { id, avatar } (the group's id, Bram's avatar file).
 */
export async function openGroupChat(page, chatId) {
  const group = await page.evaluate(async ({ chatId, avatar }) => {
    const ctx = globalThis.SillyTavern.getContext();
    const post = async (url, body) => {
      const r = await fetch(url, { method: 'POST', headers: ctx.getRequestHeaders(), body: JSON.stringify(body) });
      if (!r.ok) throw new Error(`${url}: ${r.status}`);
      return r;
    };
    const bram = await (await post('/api/characters/create', { ch_name: 'Bram', description: 'A keeper of maps.', first_mes: 'Maps, anyone?' })).text();
    await ctx.getCharacters();
    const g = await (await post('/api/groups/create', {
      name: 'Tavern table', members: [avatar, bram], activation_strategy: 1, chat_id: chatId, chats: [chatId],
    })).json();
    const groups = await import('/scripts/group-chats.js');
    await groups.getGroups();
    await groups.openGroupById(g.id);
    return { id: g.id, avatar: bram };
  }, { chatId, avatar: CHARACTER.avatar });
  await page.waitForFunction((n) => globalThis.SillyTavern.getContext().getCurrentChatId() === n, chatId);
  return group;
}

/** A group chat file's messages (header dropped). */
export function readGroupChat(st, chatId) {
  return readFileSync(join(st.userDir, 'group chats', `${chatId}.jsonl`), 'utf8').split('\n').filter(Boolean).slice(1).map((l) => JSON.parse(l));
}

// ---- driving the chat like a user ----

/** True once SillyTavern is not generating and the send button is back. */
export function idle(page) {
  return page.evaluate(() => document.body.dataset.generating !== 'true'
    && getComputedStyle(document.getElementById('mes_stop')).display === 'none'
    && getComputedStyle(document.getElementById('send_but')).display !== 'none');
}

/** Waits until SillyTavern is idle (see idle()). */
export async function waitIdle(page, timeout = 30000) {
  await page.waitForFunction(() => document.body.dataset.generating !== 'true'
    && getComputedStyle(document.getElementById('mes_stop')).display === 'none'
    && getComputedStyle(document.getElementById('send_but')).display !== 'none', null, { timeout });
}

/**
 * Runs `action` (which starts a generation) and waits for that generation to
 * be over: SillyTavern emitted GENERATION_STARTED for a real (not dry) run,
 * then GENERATION_ENDED (the Stop button went away), and the UI is idle.
 */
export async function turn(page, action, { timeout = 30000 } = {}) {
  const mark = await page.evaluate(() => {
    const g = globalThis;
    if (!g.__turnCounters) {
      const { eventSource, eventTypes: ev } = g.SillyTavern.getContext();
      g.__turnCounters = { started: 0, ended: 0 };
      eventSource.on(ev.GENERATION_STARTED, (_type, _opts, dryRun) => { if (!dryRun) g.__turnCounters.started++; });
      eventSource.on(ev.GENERATION_ENDED, () => { g.__turnCounters.ended++; });
    }
    return { ...g.__turnCounters };
  });
  await action();
  await page.waitForFunction((m) => globalThis.__turnCounters.started > m.started && globalThis.__turnCounters.ended > m.ended, mark, { timeout });
  await waitIdle(page, timeout);
}

/**
 * Types a message and presses Send until SillyTavern takes it. Right after a
 * turn its UI can look idle while `is_send_press` is still set, and then
 * sendTextareaMessage() returns without a word, leaving the text in the box
 * (seen on a fast run: the next turn never started). A taken send empties
 * the box, so pressing again only while the text is still there cannot
 * send it twice.
 */
export async function send(page, text) {
  await page.fill('#send_textarea', text);
  for (let i = 0; ; i++) {
    await page.click('#send_but');
    const taken = await page.waitForFunction((t) => document.getElementById('send_textarea').value !== t, text, { timeout: 1000 })
      .then(() => true, () => false);
    if (taken) return;
    if (i === 10) throw new Error(`SillyTavern did not take the message ${JSON.stringify(text)}`);
  }
}

/** Opens the options menu (the ☰ left of the input) and picks an entry. */
export async function chooseOption(page, id) {
  await page.click('#options_button');
  await page.click(`#${id}`);
}

/** Swipes the last message to the right (a new swipe when on the last one). */
export async function swipeRight(page) {
  await page.click('#chat .last_mes .swipe_right');
}

/** The chat as SillyTavern holds it: [{ mes, is_user, swipes, swipe_id, reasoning }]. */
export function chatState(page) {
  return page.evaluate(() => globalThis.SillyTavern.getContext().chat.map((m) => ({
    mes: m.mes, is_user: !!m.is_user, swipes: m.swipes ? [...m.swipes] : null, swipe_id: m.swipe_id ?? null,
    reasoning: m.extra?.reasoning ?? '',
  })));
}

/** The rendered text of message mesid (default: the last one). */
export function shownText(page, mesid = null) {
  return page.evaluate((id) => {
    const el = id === null ? document.querySelector('#chat .last_mes .mes_text') : document.querySelector(`#chat .mes[mesid="${id}"] .mes_text`);
    return el ? el.textContent.trim() : null;
  }, mesid);
}
