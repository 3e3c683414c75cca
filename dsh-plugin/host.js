// The DeepSeek Harness plugin's host half: a cordis plugin (named
// name/inject/apply exports, mounted by the cordis.patch.yml insert row) that
// loads tavern-host.wasm and serves the message editor's route over the
// harness's live sessions and agents. Every rule lives in Go
// (sessionlog/route); this file adapts the harness's objects to the route's
// host port, registers the routes on the harness's web server and hands the
// browser half its credential.
//
// Three facts of the harness shape it (docs/dsh-plugin.md):
// - ctx.webServer.register({kind:'prefix'}) routes bypass the harness's own
//   /api Host/Origin fence, so the Go route does its own (S85.1);
// - the harness has no auth layer, so each boot mints a token that only the
//   web UI's own index page carries (an index-inject row) and the route
//   refuses requests without it (S85.2);
// - the browser half is served from disk under the package name, so its
//   assets (the widget's wasm and JS) come from a prefix route of ours.
import { randomBytes, timingSafeEqual } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { mountEditorRoute, EDITOR_PATHS } from './lib/session-log.js';
import { toNodeListener } from './lib/session-host.js';

const manifest = JSON.parse(readFileSync(new URL('./package.json', import.meta.url), 'utf8'));

/** The cordis plugin name and the package name the browser half is served under. */
export const name = manifest.name;
/** Harness services the host half needs. */
export const inject = ['webServer', 'sessions', 'agents'];

/** The build's version: the route's host version and the widget's client version (S88). */
export const VERSION = JSON.parse(readFileSync(new URL('./lib/package.json', import.meta.url), 'utf8')).version;
/** The route's paths share this prefix (S82); the four exact paths answer, nothing else. */
export const ROUTE_PREFIX = '/api/plugins/tavern-core-message-editor';
/** Where the browser half loads its module, the widget's JS and tavern-core.wasm from. */
export const ASSET_PREFIX = `/plugins/${name}/assets`;
/** The index page global that carries the per-boot credential to the browser half. */
export const BOOT_GLOBAL = '__TAVERN_CORE_MESSAGE_EDITOR__';
/** The request header the browser half sends the credential in. */
export const AUTH_HEADER = 'X-Tavern-Core-Auth';

// One route table per process: a second active instance answers the S82
// "already active" failure instead of registering twice.
const routes = new Map();

const mediaTypes = { '.js': 'text/javascript; charset=utf-8', '.wasm': 'application/wasm' };

// The browser half's files: its module, and the widget's runtime from lib/
// (ES modules, wasm_exec.js, tavern-core.wasm). The host's own wasm and
// anything else stay unserved.
function assetPath(pathname) {
  const rest = pathname.slice(ASSET_PREFIX.length);
  if (rest === '/browser.js') return new URL('./browser.js', import.meta.url);
  const m = /^\/lib\/([a-z0-9_-]+\.js|tavern-core\.wasm)$/.exec(rest);
  return m ? new URL(`./lib/${m[1]}`, import.meta.url) : null;
}

async function serveAsset(req, res) {
  if (req.method !== 'GET' && req.method !== 'HEAD') {
    res.writeHead(405, { allow: 'GET, HEAD' });
    res.end();
    return;
  }
  let path;
  try {
    path = assetPath(decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname));
  } catch {
    path = null;
  }
  if (!path) {
    res.writeHead(404);
    res.end();
    return;
  }
  try {
    const body = await readFile(path);
    const ext = path.pathname.slice(path.pathname.lastIndexOf('.'));
    // Fresh from disk on every load, so an upgraded package meets the
    // running host's version check (S88) instead of a cached copy.
    res.writeHead(200, { 'content-type': mediaTypes[ext], 'cache-control': 'no-cache', 'content-length': body.length });
    res.end(req.method === 'HEAD' ? undefined : body);
  } catch {
    res.writeHead(404);
    res.end();
  }
}

/** A constant-time comparison of the request's credential with the boot's. */
export function credentialCheck(token) {
  const want = Buffer.from(token);
  return (request) => {
    const got = Buffer.from(request.headers.get(AUTH_HEADER) ?? '');
    return got.length === want.length && timingSafeEqual(got, want);
  };
}

/**
 * The route's host port (spec S2) over the harness: live sessions from
 * ctx.sessions, their agents from ctx.agents, never a load or resume.
 */
export function harnessPort(ctx, token) {
  const authorize = credentialCheck(token);
  // One port object per harness agent: the route tells a resumed session's
  // new agent from the one its pending wake went to by it (S65).
  const agents = new WeakMap();
  return {
    // The harness prints and opens http://127.0.0.1:<port>; the route
    // answers on that one origin (S85.1).
    get origin() { return `http://127.0.0.1:${ctx.webServer.port}`; },
    version: VERSION,
    authorize,
    session(id) {
      const s = ctx.sessions.get(id);
      if (!s) return undefined;
      return {
        get headerVersion() { return s.header?.version; },
        // session.events is the harness's immutable snapshot: one
        // consistent read, taken synchronously (S80, S81).
        snapshot: () => s.events,
        append: (type, data, opts) => s.append(type, data, opts).seq,
        // The harness's durability checkpoint: resolves once every
        // persistence listener has written (and fsynced) the event (S52).
        flush: () => ctx.sessions.flush(s),
      };
    },
    agent(id) {
      const a = ctx.agents.get(id);
      const s = ctx.sessions.get(id);
      if (!a || (s && a.session !== s)) return undefined;
      let p = agents.get(a);
      if (!p) {
        agents.set(a, p = {
          get status() { return a.status; },
          // The harness's own wake-up (S64): followup where offered, else a
          // waking send to the next turn.
          followup: (message) => (typeof a.followup === 'function'
            ? a.followup(message)
            : a.send(message, 'next-turn', true)),
        });
      }
      return p;
    },
  };
}

/** Mount the editor route, its assets and the credential on a harness context. */
export function apply(ctx) {
  const token = randomBytes(32).toString('base64url');
  const port = harnessPort(ctx, token);
  mountEditorRoute(port, routes); // throws already-active (S82)
  ctx.effect(() => () => { for (const p of Object.values(EDITOR_PATHS)) routes.delete(p); }, 'tavern-core-message-editor: route table');
  const listener = toNodeListener((request) => {
    const route = routes.get(new URL(request.url).pathname);
    // Only the exact paths answer (S82); anything else under the prefix is
    // a plain 404, as a host without the route would give.
    return route ? route(request) : Promise.resolve(new Response(null, { status: 404 }));
  });
  ctx.effect(() => ctx.webServer.register({ kind: 'prefix', path: ROUTE_PREFIX, handler: listener }), 'tavern-core-message-editor: editor route');
  ctx.effect(() => ctx.webServer.register({ kind: 'prefix', path: ASSET_PREFIX, handler: serveAsset }), 'tavern-core-message-editor: assets');
  // Only the web UI's own index page carries the token: a page of another
  // origin cannot read it, and a rebound host name still fails the Host check.
  ctx.on('webserver/index-inject', (table) => {
    // `origin` lets the page say where the editor works when it was opened
    // under another name (localhost, a LAN name), instead of a refusal.
    table.push({ kind: 'global', name: BOOT_GLOBAL, value: { token, version: VERSION, assets: ASSET_PREFIX, authHeader: AUTH_HEADER, origin: port.origin } });
  });
}
