// The DOM adapter finds a root's .mes_text (C45, C53), its .mesIDDisplay
// (C31) and the QUERY selectors with the engine's own querySelector in
// browsers and with a walk in JavaScript under happy-dom
// (chat-surface-dom.js, first()). The browser path runs in Chromium in the
// e2e suites; this file runs the managed-mode scenarios of
// chat-surface-window.test.js (C45's checks among them) through it under
// happy-dom too, so both paths answer every scenario alike.
await import('./happydom-preload.cjs');
delete globalThis.happyDOM; // before the adapter's first DOM use: it decides once
await import('./chat-surface-window.test.js');
