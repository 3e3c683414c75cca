// Loaded before anything else on the demo pages: every form here is handled
// by the page's module, never submitted by the browser. Until that module
// has loaded (the wasm can take seconds on a busy machine), Enter in the
// composer or a Jump would otherwise reload the page and lose what was typed.
addEventListener('submit', (ev) => ev.preventDefault(), true);
