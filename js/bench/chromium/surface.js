// The chat surface bench page (js/bench/chromium.js drives it): a
// 10,000-message chat in the bounded view, either tavern-core's host
// (?impl=core, with ?participant=1 a participant that mounts an iframe
// runtime for every code block, as the demo's does; with ?early=1 the page
// requests the module before it builds its chat) or the plain-JS window of
// bench/plain-window.js (?impl=plain). With ?chain=1 each side also runs
// the 3-processor chain of bench/chain-processors.js (tavern-core's content
// processors, or bench/plain-chain.js). window.bench runs the sweeps and the
// chain's refreshes.

const q = new URLSearchParams(location.search);
const impl = q.get('impl') ?? 'core';
const withParticipant = q.get('participant') === '1';
const withChain = q.get('chain') === '1';
// ?long=1: messages of ~3 KB (400–440 words), as long as many a real chat's
// replies, instead of 6–46 words.
const long = q.get('long') === '1';
const { CHAIN } = withChain ? await import('../chain-processors.js') : {};
// ?early=1: the page asks for the module before it builds its chat, as a
// host that loads its extensions at start-up does (SillyTavern loads them
// before it fetches a chat); the module's fetch and compile then overlap
// the page's own work.
// The page loads the browser build (js/browser-build.js, `make browser`),
// as the demo and the SillyTavern extension do.
const MODULE = '../../dist/chat-surface.js';
const loading = impl === 'core' && q.get('early') === '1' ? import(MODULE) : null;
const root = document.getElementById('chat');

const WORDS = 'the a tavern lantern rain road keeper map song ember quiet river north story cellar bell stranger candle wind harbor'.split(' ');
let seed = 7;
const rnd = () => { seed = (seed * 1103515245 + 12345) & 0x7fffffff; return seed / 0x7fffffff; };
const chat = Array.from({ length: 10000 }, (_, i) => {
  const n = (long ? 400 : 6) + Math.floor(rnd() * 40);
  const m = { mes: `#${i}: ${Array.from({ length: n }, () => WORDS[Math.floor(rnd() * WORDS.length)]).join(' ')}.` };
  if (i % 7 === 3) m.code = `render(${i});`;
  return m;
});
const formatMessage = (m) => `<p>${m.mes}</p>${m.code ? `<div class="rt-host"><pre data-rt>${m.code}</pre></div>` : ''}`;
// Every materialize is counted: the sweep reports how many messages each
// side actually mounted per frame, so both are compared on the same work.
let mounts = 0;
// Runtimes the participant started, counted the same way: the sweep reports
// how many started while the view moved and how many once it rested.
let runtimes = 0;
function materialize(m, mesid) {
  mounts++;
  const el = document.createElement('div');
  el.className = 'mes';
  el.innerHTML = `<span class="mesIDDisplay"></span><div class="mes_text">${formatMessage(m, mesid)}</div>`;
  return el;
}

let view;
if (impl === 'core') {
  // Loaded only here, so the plain page's load time has no module in it.
  const { installChatSurfaceApi, createChatSurfaceHost } = await (loading ?? import(MODULE));
  const api = installChatSurfaceApi(window, { managed: true });
  if (withParticipant) {
    api.registerParticipant({
      id: 'bench/iframe-runtime',
      protocolVersion: 1,
      prepareContent({ content }, claims) {
        for (const source of content.querySelectorAll('pre[data-rt]')) {
          claims.claim(source, ({ source: pre, mesid }) => {
            runtimes++;
            const host = pre.parentElement;
            const h = pre.getBoundingClientRect().height || 40;
            const frame = document.createElement('iframe');
            frame.style.height = `${h}px`;
            frame.srcdoc = `<body style="margin:0;font:12px system-ui">runtime ${mesid}</body>`;
            host.append(frame);
            return () => { frame.remove(); };
          });
        }
      },
    });
  }
  let reg;
  if (withChain) for (const p of CHAIN) reg = api.registerContentProcessor(p); // before the first projection (C113)
  const host = createChatSurfaceHost({ root, getMessages: () => chat, materialize, formatMessage, emit() {} });
  view = { open: () => host.open(), jump: (t) => host.jumpToMessage(t), host, refresh: reg ? () => reg.refresh() : null };
  window.__benchHost = host;
} else {
  const { createPlainWindow } = await import('../plain-window.js');
  const w = createPlainWindow({ root, getMessages: () => chat, materialize, requestAnimationFrame: (cb) => requestAnimationFrame(cb) });
  let refresh = null;
  if (withChain) {
    const { createPlainChain } = await import('../plain-chain.js');
    const pc = createPlainChain({ processors: CHAIN, formatMessage, getMessages: () => chat });
    refresh = () => pc.refresh([...root.querySelectorAll(':scope > .mes')]);
  }
  view = { open: () => w.open(), jump: null, refresh };
}

const frame = () => new Promise((r) => window.__untimedRaf(r));
const median = (xs) => { const s = [...xs].sort((a, b) => a - b); return s[s.length >> 1] ?? 0; };
const pct = (xs, p) => { const s = [...xs].sort((a, b) => a - b); return s[Math.min(s.length - 1, Math.floor(p * s.length))] ?? 0; };

window.bench = {
  impl,
  // From the end towards the top: each frame scrolls by `perFrame` average
  // message heights. Three passes over the same stretch: the first reaches
  // messages never measured (their 200 px estimate is what the scroll moves
  // through, so fewer than `perFrame` new messages mount per frame, and C86
  // keeps the view anchored while they shrink to their real size); then
  // back to the end and the same sweep again over messages now measured,
  // which mounts about `perFrame` new messages per frame, and that sweep a
  // third time, warm. Returns per pass
  // the script time per frame, the messages mounted per frame and the long
  // frames.
  async sweep(frames = 120, perFrame = 9) {
    for (let i = 0; i < 10; i++) await frame();
    const mes = [...root.querySelectorAll(':scope > .mes')];
    const avg = mes.reduce((s, e) => s + e.getBoundingClientRect().height, 0) / Math.max(1, mes.length);
    const delta = Math.round(avg * perFrame);
    const pass = async (untimed = 0) => {
      const script = [];
      const gaps = [];
      let last = await frame();
      window.__script = 0;
      mounts = 0;
      runtimes = 0;
      for (let i = 0; i < frames; i++) {
        root.scrollTop -= delta;
        const t = await frame();
        script.push(window.__script);
        window.__script = 0;
        gaps.push(t - last);
        last = t;
      }
      const mounted = mounts;
      const started = runtimes;
      // The first pass goes on untimed until the stretch the second pass
      // covers (frames × delta) is all measured.
      for (let i = 0; i < untimed; i++) { root.scrollTop -= delta; await frame(); }
      // The frames after the view comes to rest: the gesture's end commits,
      // then runtimes start, one per frame (C64).
      runtimes = 0;
      window.__script = 0;
      const rest = [];
      for (let i = 0; i < 10; i++) { await frame(); rest.push(window.__script); window.__script = 0; }
      return { median: median(script), p95: pct(script, 0.95), max: Math.max(...script), mountsPerFrame: mounted / frames, longFrames: gaps.filter((g) => g > 50).length, runtimesMoving: started, runtimesAtRest: runtimes, restMax: Math.max(...rest) };
    };
    const first = await pass(frames * 2);
    root.scrollTop = root.scrollHeight;
    for (let i = 0; i < 20; i++) await frame();
    const measured = await pass();
    // Once more over the same measured stretch: a user scrolls one page
    // many times, and by now both sides' code is optimized (V8 tiers
    // JavaScript and Go's wasm up as it runs).
    root.scrollTop = root.scrollHeight;
    for (let i = 0; i < 20; i++) await frame();
    const again = await pass();
    return { delta, frames, first, measured, again };
  },
  // refresh() of the chain over the mounted messages, n times: the time
  // until its Promise settles plus the script of the frames that follow it
  // (geometry commits of content that changed size), per message.
  async chain(n = 30) {
    if (!view.refresh) return null;
    const mounted = () => root.querySelectorAll(':scope > .mes').length;
    await view.refresh(); // the first turns the formatted content into processed content
    for (let i = 0; i < 5; i++) await frame();
    const per = [];
    const settled = [];
    for (let i = 0; i < n; i++) {
      const t0 = performance.now();
      await view.refresh();
      const t = performance.now() - t0;
      window.__script = 0;
      for (let k = 0; k < 2; k++) await frame();
      per.push((t + window.__script) / mounted());
      settled.push(t / mounted());
    }
    const done = root.querySelectorAll(':scope > .mes > .mes_text > .badge').length === mounted();
    return { median: median(per), settled: median(settled), mounted: mounted(), done };
  },
  async jumps(n = 15) {
    if (!view.jump) return null;
    const ts = [];
    for (let i = 0; i < n; i++) {
      const target = (i * 2713 + 500) % 9000;
      const t0 = performance.now();
      view.jump(target);
      ts.push(performance.now() - t0);
      for (let k = 0; k < 6; k++) await frame();
    }
    return { median: median(ts), p95: pct(ts, 0.95) };
  },
};

const opened = view.open();
// Load to first painted message: the frame after the first projection,
// from the navigation's start (performance's time origin).
window.__untimedRaf(() => window.__untimedRaf(() => { window.bench.firstPaint = performance.now(); }));
Promise.resolve(opened).then(() => { document.body.dataset.ready = 'true'; });
