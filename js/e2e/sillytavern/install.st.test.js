// Installing the extension the way a user gets it wrong, inside the real
// SillyTavern 1.18.0: the folder copied without lib/tavern-core.wasm (with
// managed mode saved from an earlier install). SillyTavern keeps working on
// its own, the settings block says which file is missing and how to fix it,
// and it does not ask for a reload that cannot help.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { REPO, startSillyTavern, launchChromium, openSillyTavern, message, send, turn, chatState } from './harness.js';
import { startMockLLM } from './mock-llm.js';

const EXT = join(REPO, 'dist/sillytavern/tavern-core');

let mock; let st; let browser; let page; let errors; let broken;

before(async () => {
  assert.ok(existsSync(join(EXT, 'manifest.json')), 'run `make sillytavern` first');
  broken = mkdtempSync(join(tmpdir(), 'tavern-st-broken-'));
  cpSync(EXT, broken, { recursive: true });
  rmSync(join(broken, 'lib', 'tavern-core.wasm'));
  mock = await startMockLLM({ chunks: ['Mock ', 'reply.'], delayMs: 10 });
  st = await startSillyTavern({
    mockUrl: mock.url,
    chat: { messages: [message('Hello, traveller.')] },
    extensions: [{ name: 'tavern-core', dir: broken }],
    settings: (s) => { s.extension_settings = { ...s.extension_settings, 'tavern-core': { chatSurface: 'managed' } }; },
  });
  browser = await launchChromium();
  ({ page, errors } = await openSillyTavern(st, { context: browser.context }));
});

after(async () => {
  await browser?.close();
  await st?.stop();
  await mock?.close();
  if (broken) rmSync(broken, { recursive: true, force: true });
});

test('a folder copied without lib/tavern-core.wasm: the panel names the file and the fix', async () => {
  const panel = await page.evaluate(() => ({
    status: document.querySelector('#tavern_core_status')?.textContent ?? null,
    note: document.querySelector('#tavern_core_chat_surface_note')?.textContent ?? null,
    takeover: document.querySelector('#tavern_core_takeover')?.disabled ?? null,
  }));
  assert.equal(panel.status, 'Core (WebAssembly): not loaded: lib/tavern-core.wasm is missing from extensions/tavern-core/. '
    + 'Copy the whole built folder (dist/sillytavern/tavern-core/, lib/ included) again and reload.');
  assert.equal(panel.note, 'This page: SillyTavern\'s own chat (the core did not load).', 'no reload is suggested for the saved managed mode');
  assert.equal(panel.takeover, true, 'the switches are off without the core');
});

test('without the core SillyTavern works as without the extension: a turn reaches the model', async () => {
  await turn(page, () => send(page, 'Still there?'));
  assert.equal(mock.completions.length, 1);
  assert.equal((await chatState(page)).at(-1).mes, 'Mock reply.');
  assert.equal(await page.evaluate(() => window.__TAURITAVERN__ === undefined), true, 'no half-installed API');
});

test('no page errors', () => {
  assert.deepEqual(errors.map(String), []);
});
