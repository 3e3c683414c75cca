// HTML runtime: an example chat-surface participant for SillyTavern, written
// against the ChatSurface contract (protocol v1) and nothing else.
//
// A fenced code block that holds a whole HTML document (```html with
// <!DOCTYPE html> or <html> first) is shown as a live, sandboxed iframe
// running that document.
//
// - Managed mode (window.__TAURITAVERN__.api.chatSurface says the host owns
//   the chat): the extension is only a participant. It claims each such
//   <pre> in prepareContent; the host grants a runtime when the block is
//   near the viewport (at most a few at a time) and the grant mounts the
//   iframe; a revoke removes the iframe, its listener and its observer, and
//   leaves an inert placeholder of the same height, so nothing moves. A
//   regrant starts from the placeholder's height, then the document's own
//   height report (postMessage) calibrates it.
// - Otherwise (vanilla SillyTavern, or tavern-core in static mode): the
//   legacy renderer mounts an iframe for every block SillyTavern renders.
//
// window.htmlRuntimeExample exposes counters for tests.

const ID = 'html-runtime/frames';
const stats = { live: 0, maxLive: 0, grants: 0, revokes: 0, abortedAtRevoke: 0, legacy: 0, heightReports: 0 };
globalThis.htmlRuntimeExample = { stats, managed: false };

/** Whether a <pre> holds an HTML document. */
function isHtmlDocument(pre) {
  const text = pre.textContent.trimStart().slice(0, 16).toLowerCase();
  return text.startsWith('<!doctype html') || text.startsWith('<html');
}

// The document, plus a reporter that tells the parent its height.
let nextFrame = 0;
function frameDocument(source, key) {
  const reporter = '<script>(() => { const post = () => parent.postMessage({ htmlRuntime: ' + JSON.stringify(key) +
    ', height: Math.ceil(document.documentElement.getBoundingClientRect().height) }, "*");' +
    ' new ResizeObserver(post).observe(document.documentElement); addEventListener("load", post); post(); })();<\/script>';
  return source.textContent + reporter;
}

function makeFrame(source, height, signal) {
  const key = `f${++nextFrame}`;
  const frame = document.createElement('iframe');
  frame.className = 'html-runtime-frame';
  frame.setAttribute('sandbox', 'allow-scripts');
  frame.setAttribute('title', 'HTML runtime');
  frame.style.height = `${Math.max(24, Math.round(height))}px`;
  frame.srcdoc = frameDocument(source, key);
  // The renderer's own height protocol: the document reports, the frame follows.
  addEventListener('message', (e) => {
    if (e.source === frame.contentWindow && e.data?.htmlRuntime === key && Number.isFinite(e.data.height)) {
      stats.heightReports++;
      frame.style.height = `${Math.max(24, e.data.height)}px`;
    }
  }, { signal });
  return frame;
}

// ---- managed mode: a participant ----
function mountRuntime({ source, signal }) {
  const host = source.parentElement; // the stable box the host orders runtimes by
  const placeholder = source.nextElementSibling?.classList.contains('html-runtime-placeholder') ? source.nextElementSibling : null;
  // A regrant first takes over the placeholder's height.
  const height = placeholder !== null ? placeholder.getBoundingClientRect().height : source.getBoundingClientRect().height;
  const frame = makeFrame(source, height, signal);
  placeholder?.remove();
  source.classList.add('html-runtime-source');
  source.after(frame);
  stats.grants++;
  stats.live++;
  stats.maxLive = Math.max(stats.maxLive, stats.live);
  let disposed = false;
  return {
    dispose() {
      if (disposed) return;
      disposed = true;
      stats.revokes++;
      if (signal.aborted) stats.abortedAtRevoke++; // the host aborts before it disposes
      const h = frame.getBoundingClientRect().height || height;
      frame.remove();
      const inert = document.createElement('div');
      inert.className = 'html-runtime-placeholder';
      inert.inert = true;
      inert.setAttribute('aria-hidden', 'true');
      inert.style.height = `${h}px`;
      if (source.parentElement === host) source.after(inert);
      stats.live--;
    },
  };
}

// ---- static mode: the legacy renderer ----
function startLegacyRenderer() {
  const ctx = globalThis.SillyTavern?.getContext?.();
  if (!ctx) return;
  const { eventSource, eventTypes } = ctx;
  const render = () => {
    for (const pre of document.querySelectorAll('#chat .mes_text pre:not(.html-runtime-source)')) {
      if (!isHtmlDocument(pre)) continue;
      pre.classList.add('html-runtime-source');
      const frame = makeFrame(pre, pre.getBoundingClientRect().height, undefined);
      pre.after(frame);
      stats.legacy++;
    }
  };
  for (const name of ['CHAT_CHANGED', 'MORE_MESSAGES_LOADED', 'CHARACTER_MESSAGE_RENDERED', 'USER_MESSAGE_RENDERED',
    'MESSAGE_UPDATED', 'MESSAGE_SWIPED', 'MESSAGE_EDITED']) {
    eventSource.on(eventTypes[name], () => setTimeout(render));
  }
  render();
}

// Ownership is decided once, while this module evaluates (the contract's rule).
const api = window.__TAURITAVERN__?.api?.chatSurface;
const managed = api?.isManagedOwnershipRequired?.() === true;
globalThis.htmlRuntimeExample.managed = managed;

if (!managed) {
  startLegacyRenderer();
}

const registration = managed ? api.registerParticipant({
  id: ID,
  protocolVersion: api.protocolVersion,
  prepareContent({ content }, claims) {
    for (const source of content.querySelectorAll('pre')) {
      if (!isHtmlDocument(source)) continue;
      claims.claim(source, ({ element, mesid, source, signal }) => {
        const runtime = mountRuntime({ element, mesid, source, signal });
        return () => runtime.dispose();
      });
    }
  },
}) : null;

globalThis.htmlRuntimeExample.registration = registration;
