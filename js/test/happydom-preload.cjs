// Preload (`node --require`) that gives Node a DOM: a happy-dom Window whose
// properties Node lacks (HTMLDocument, HTMLDivElement, MutationObserver,
// ResizeObserver, getComputedStyle, requestAnimationFrame, …) are copied onto
// globalThis, plus globalThis.window / document. Node's own globals (timers,
// fetch, URL, performance, …) are left alone. Used by `make test-domjs`
// (go test -exec) and by the chat-surface node suites.
'use strict';
const path = require('node:path');

function loadHappyDOM() {
  try { return require('happy-dom'); } catch { /* fall through */ }
  // go test runs the binary from the package directory: resolve from js/.
  return require(require.resolve('happy-dom', { paths: [path.join(__dirname, '..')] }));
}

if (!globalThis.__happyDOMWindow) {
  const { Window } = loadHappyDOM();
  const window = new Window({ url: 'http://127.0.0.1/' });
  const copied = [];
  for (const name of Object.getOwnPropertyNames(window)) {
    if (name in globalThis) continue;
    const desc = Object.getOwnPropertyDescriptor(window, name);
    if (!desc) continue;
    let value;
    try { value = window[name]; } catch { continue; }
    if (typeof value === 'function' && !/^[A-Z]/.test(name)) value = value.bind(window);
    Object.defineProperty(globalThis, name, { value, writable: true, configurable: true });
    copied.push(name);
  }
  globalThis.window = window;
  globalThis.document = window.document;
  globalThis.__happyDOMWindow = window;
  globalThis.__happyDOMCopied = copied;
}
