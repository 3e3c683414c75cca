// The message editor inside the real DeepSeek Harness 0.1.1 (format v0):
// `dsh plugin add` of the built plugin into a fresh DSH_HOME, `dsh web`,
// the harness's own mock model, headless Chromium on its own web UI. Run by
// `make test-dsh` (js/e2e/dsh/run.sh), which builds the harness cache first.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { browserAvailable, launchChromium, screenshot, until } from '../browser.js';
import {
  CACHE, PLUGIN_DIR, freshHome, pluginAdd, readLog, startGate, startHarness, startMockModel,
} from './harness.js';

const ready = CACHE && PLUGIN_DIR && browserAvailable();
const REPO = fileURLToPath(new URL('../../..', import.meta.url));

const EDITOR = '/api/plugins/tavern-core-message-editor';
const FLOW = '[data-chat-flow]';
const userRow = (page, i) => page.locator(`${FLOW} [data-chat-flow-kind=user]`).nth(i);
const lastUserRecord = (log) => log.records.filter((r) => r.type === 'user/message').at(-1);

async function openUI(context, url) {
  const page = await context.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(e));
  page.on('console', (m) => { if (m.type() === 'error') errors.push(new Error(m.text())); });
  await page.goto(url);
  await page.waitForSelector('textarea', { timeout: 60_000 });
  // A fresh DSH_HOME greets with a notice once; it may render after the composer.
  const notice = page.getByRole('button', { name: 'Continue' });
  if (await notice.waitFor({ timeout: 5_000 }).then(() => true, () => false)) {
    await notice.click();
    await notice.waitFor({ state: 'detached' });
  }
  assert.equal(await page.getByText('Failed to load plugins').count(), 0);
  return { page, errors };
}

// A fresh DSH_HOME has no workspace yet: pick the working directory the way
// a user does, through the harness's directory dialog.
async function chooseWorkspace(page, dir) {
  await page.getByText('Choose workspace').click();
  const dialog = page.getByRole('dialog');
  await dialog.getByRole('button', { name: 'Edit path' }).click();
  const input = dialog.locator('input').first();
  await input.fill(dir);
  await input.press('Enter');
  await dialog.getByRole('button', { name: 'Open' }).click();
  await dialog.waitFor({ state: 'detached' });
  // The composer is re-created for the chosen workspace.
  await page.locator('textarea[placeholder="Describe what you want to build"]').waitFor({ timeout: 30_000 });
}

async function send(page, text, turn) {
  const box = page.locator('textarea').first();
  await box.fill(text);
  await box.press('Enter');
  // From the start page the first Enter opens the session and carries the
  // draft (and its images) into that session's composer; Enter there sends.
  const sent = page.locator(`${FLOW} [data-chat-flow-kind=user]`).filter({ hasText: text });
  for (let i = 0; i < 20 && await sent.count() === 0; i++) {
    await page.waitForTimeout(250);
    const again = page.locator('textarea').first();
    if (await sent.count() === 0 && await again.inputValue() === text) await again.press('Enter');
  }
  await page.waitForSelector(`[data-chat-flow-key="9:turn-tail${turn}"]`, { timeout: 60_000 });
}

// Paste a small PNG into the composer: the harness's own image intake.
async function pasteImage(page, name) {
  await page.locator('textarea').first().evaluate(async (box, fileName) => {
    const c = document.createElement('canvas');
    c.width = 4;
    c.height = 4;
    c.getContext('2d').fillRect(0, 0, 4, 4);
    const blob = await new Promise((r) => c.toBlob(r, 'image/png'));
    const dt = new DataTransfer();
    dt.items.add(new File([blob], fileName, { type: 'image/png' }));
    box.dispatchEvent(new ClipboardEvent('paste', { clipboardData: dt, bubbles: true, cancelable: true }));
  }, name);
}

// The default model takes text only; the harness's vision model takes the image.
async function chooseModel(page, name) {
  await page.getByText('DeepSeek-V4-Flash').first().click();
  await page.getByText('Model', { exact: true }).click();
  await page.getByText(name).first().click();
  await page.getByText(name).first().waitFor();
}

async function openEditor(page, row) {
  await row.hover();
  await row.locator('.tc-me-pencil').click();
  return row.locator('.tc-me-input');
}

test('the message editor in DeepSeek Harness: edit, attachments, undo, regenerate, refusals, restart, transport (S20, S44–S75, S85, S90–S98)', { skip: !ready && 'no harness cache (run make test-dsh)', timeout: 600_000 }, async (t) => {
  const model = await startMockModel();
  t.after(() => model.stop());
  const gate = await startGate(model.url);
  t.after(() => gate.close());
  const paths = freshHome();
  t.after(() => paths.remove());
  pluginAdd(paths, PLUGIN_DIR, gate.url);
  let harness = await startHarness(paths, gate.url);
  t.after(() => harness.stop());
  const { context, close } = await launchChromium({ prefix: 'tavern-dsh-chromium-' });
  t.after(close);

  let { page, errors } = await openUI(context, harness.url);
  let sessionId;
  // Each step leaves a screenshot in artifacts/ when it fails.
  // The steps build on each other: after a failure the rest are skipped.
  let failed = false;
  const step = (name, fn) => t.test(name, { skip: failed && 'an earlier step failed' }, async () => {
    try {
      await fn();
    } catch (err) {
      failed = true;
      await screenshot(page, 'dsh-failed').catch(() => {});
      throw err;
    }
  });

  await step('two messages, the first with an image; the widget mounts on the harness transcript', async () => {
    await chooseWorkspace(page, paths.cwd);
    await chooseModel(page, 'DeepSeek-V4-Flash-Vision-Exp');
    await pasteImage(page, 'pixel.png');
    await page.locator('img[alt="pixel.png"]').waitFor({ timeout: 30_000 });
    await send(page, 'first message', 1);
    await send(page, 'second message', 2);
    await page.locator(`${FLOW} .tc-me-pencil`).nth(1).waitFor({ state: 'attached', timeout: 30_000 });
    // The button follows the agent going idle after the turn's last row.
    await page.locator(`${FLOW} .tc-me-regenerate`).first().waitFor({ state: 'attached', timeout: 30_000 });
    assert.equal(await page.locator(`${FLOW} .tc-me-pencil`).count(), 2, 'a pencil on each user row');
    assert.equal(await page.locator(`${FLOW} .tc-me-regenerate`).count(), 1, 'regenerate only on the last reply');
    assert.equal(await page.locator('[data-chat-flow-key="9:turn-tail2"] .tc-me-regenerate').count(), 1, 'in the copy/branch/like bar');
    const log = readLog(paths);
    sessionId = log.header.id;
    assert.equal(log.header.version, 0, 'DeepSeek Harness 0.1.1 writes format v0');
    assert.deepEqual(await userRow(page, 0).locator('.tc-me-chip').allTextContents(), ['pixel.png']);
  });

  // The original events the rows stand for.
  const originals = () => {
    const log = readLog(paths, sessionId);
    const users = log.records.filter((r) => r.type === 'user/message' && r.surfaceOp === 'append' && r.data.source.kind === 'user');
    const replies = log.records.filter((r) => r.type === 'assistant/message' && r.surfaceOp === 'append');
    return { log, first: users[0], second: users[1], replies };
  };
  const textOf = (content) => content.filter((b) => b.type === 'text').map((b) => b.text).join('\n');

  await step('cold edit of the first message: shown in the transcript, written as a v0 replace, no model call (C21, S50, S96)', async () => {
    const { first } = originals();
    const calls = gate.conversation().length;
    const row = userRow(page, 0);
    const input = await openEditor(page, row);
    assert.equal(await input.inputValue(), 'first message');
    await input.fill('first message, edited');
    await input.press('Enter');
    await row.locator('.tc-me-text', { hasText: 'first message, edited' }).waitFor();
    await row.locator('.tc-me-badge').waitFor();
    assert.equal(await row.locator('.tc-me-undo').count(), 1);
    const ev = lastUserRecord(readLog(paths, sessionId));
    assert.deepEqual(ev.surfaceOp, { op: 'replace', start: first.seq, end: first.seq });
    assert.deepEqual(ev.sourceEventSeqs, [first.seq]);
    assert.deepEqual(ev.data.source.messageEdit, { originalEventSeq: first.seq, action: 'edit' });
    assert.equal(textOf(ev.data.content), 'first message, edited');
    assert.ok(ev.data.content.some((b) => b.type === 'image'), 'the image is kept');
    assert.equal(gate.conversation().length, calls, 'a cold edit spends no tokens');
  });

  await step('remove the attachment, then undo both edits (C27, S69–S75, S93, S94)', async () => {
    const { first } = originals();
    const row = userRow(page, 0);
    const thumbnail = row.locator('img[alt="pixel.png"]');
    await thumbnail.waitFor({ state: 'visible' });
    await openEditor(page, row);
    await row.locator('button.tc-me-chip', { hasText: 'pixel.png' }).click();
    assert.equal(await row.locator('button.tc-me-chip.tc-me-marked').count(), 1);
    await row.locator('.tc-me-save').click();
    await row.locator('.tc-me-card').waitFor({ state: 'detached' });
    await row.locator('.tc-me-text', { hasText: 'first message, edited' }).waitFor();
    // The text shows on ok:true; the chips follow the state read after it.
    await row.locator('.tc-me-chip').waitFor({ state: 'detached' });
    // The harness keeps drawing the original message's thumbnail: the
    // widget hides it (it stayed on screen).
    await thumbnail.waitFor({ state: 'hidden' });
    const removed = lastUserRecord(readLog(paths, sessionId));
    assert.ok(!removed.data.content.some((b) => b.type === 'image'));

    await row.hover();
    await row.locator('.tc-me-undo').click();
    await row.locator('.tc-me-text', { hasText: /^first message$/ }).waitFor();
    await row.locator('.tc-me-badge').waitFor({ state: 'detached' });
    assert.deepEqual(await row.locator('.tc-me-chip').allTextContents(), ['pixel.png']);
    await thumbnail.waitFor({ state: 'visible' });
    const undone = lastUserRecord(readLog(paths, sessionId));
    assert.deepEqual(undone.data.content, first.data.content, 'undo writes the original content back');
    assert.equal(undone.data.source.messageEdit.action, 'undo');

    // Edit once more, so a cold edit is on disk for the restart below.
    const input = await openEditor(page, row);
    await input.fill('first message, edited');
    await input.press('Enter');
    await row.locator('.tc-me-text', { hasText: 'first message, edited' }).waitFor();
  });

  await step('save & regenerate the last exchange; busy and model-reply refusals while it runs; a new reply streams in (C47, C57, C33, S64)', async () => {
    const { second, replies } = originals();
    const row = userRow(page, 1);
    gate.hold();
    const input = await openEditor(page, row);
    await input.fill('second message, regenerated');
    await row.locator('.tc-me-save-regenerate').click();
    await gate.waitHeld();
    // The old answer leaves the transcript at once; the model is working.
    await page.locator('[data-chat-flow-key="14:assistant-step2:1"]').waitFor({ state: 'hidden' });
    await page.locator('[data-chat-flow-key="9:turn-tail2"]').waitFor({ state: 'hidden' });
    await row.locator('.tc-me-text', { hasText: 'second message, regenerated' }).waitFor();
    const copy = readLog(paths, sessionId).records.filter((r) => r.type === 'user/message' && r.surfaceOp !== 'append').at(-1);
    assert.equal(copy.surfaceOp.op, 'replace');
    assert.equal(copy.surfaceOp.start, second.seq);
    assert.equal(copy.data.source.messageEdit.action, 'regenerate');

    const busy = await page.evaluate((seq) => globalThis.tavernCoreMessageEditor.regenerate(seq), second.seq);
    assert.equal(busy.error?.code, 'agent-busy');
    await row.locator('.tc-me-error').waitFor();
    const reply = await page.evaluate((seq) => globalThis.tavernCoreMessageEditor.edit(seq, 'rewritten'), replies[0].seq);
    assert.equal(reply.error?.code, 'assistant-immutable');
    assert.match(reply.error.message, /^Model replies cannot be rewritten in a live session/);
    await page.locator('[data-chat-flow-key="14:assistant-step1:1"] .tc-me-error').waitFor();

    const held = gate.conversation().at(-1);
    gate.release();
    await page.waitForSelector('[data-chat-flow-key="9:turn-tail3"]', { timeout: 60_000 });
    await page.locator('[data-chat-flow-key="14:assistant-step3:1"]', { hasText: 'mock response recovered' }).waitFor();
    // The trigger the editor woke the model with is a context row, hidden (S33).
    const trigger = page.locator('[data-chat-flow-key^="13:input-messagetavern-core-message-editor:trigger:"]');
    await trigger.waitFor({ state: 'hidden' });
    assert.equal(await trigger.count(), 1);

    // The model's history — the harness's own fold — holds the edits and
    // not the regenerated answer.
    const history = held.body.messages.map((m) => (typeof m.content === 'string' ? m.content : JSON.stringify(m.content)));
    const all = history.join('\n');
    assert.match(all, /first message, edited/);
    assert.match(all, /second message, regenerated/);
    assert.doesNotMatch(all.replaceAll('second message, regenerated', ''), /second message/);
    assert.equal(held.body.messages.filter((m) => m.role === 'assistant').length, 1, 'only the first exchange\'s reply remains');
  });

  await step('a cross-origin request, a rebound host and one without the credential are refused; the log is byte-identical (S85)', async () => {
    const { log, first } = originals();
    const boot = await page.evaluate(() => globalThis.__TAVERN_CORE_MESSAGE_EDITOR__);
    const body = JSON.stringify({ session: log.header.id, target: { seq: first.seq }, text: 'from elsewhere' });
    const base = { 'Content-Type': 'application/json', 'X-Tavern-Core-Version': boot.version };
    const post = (headers) => fetch(`${harness.url}${EDITOR}/edit`, { method: 'POST', headers: { ...base, ...headers }, body });
    const cross = await post({ [boot.authHeader]: boot.token, Origin: 'https://evil.example' });
    assert.equal(cross.status, 403);
    assert.equal((await cross.json()).error.code, 'forbidden');
    const anonymous = await post({});
    assert.equal(anonymous.status, 401);
    assert.equal((await anonymous.json()).error.code, 'unauthorized');
    const forged = await post({ [boot.authHeader]: 'x'.repeat(boot.token.length) });
    assert.equal(forged.status, 401);
    const rebound = await rawRequest(harness.url, `${EDITOR}/edit`, { ...base, [boot.authHeader]: boot.token, Host: 'evil.example' }, body);
    assert.equal(rebound.status, 403);
    assert.ok(readLog(paths, sessionId).bytes.equals(log.bytes), 'nothing was written');
    // The same credential on the right origin is accepted (a read).
    const state = await fetch(`${harness.url}${EDITOR}/state?session=${encodeURIComponent(log.header.id)}`, { headers: { ...base, [boot.authHeader]: boot.token } });
    assert.equal(state.status, 200);
  });

  await step('the web UI opened as localhost says where the editor works and sends it nothing (S85.1)', async () => {
    const other = harness.url.replace('127.0.0.1', 'localhost');
    const ui = await openUI(context, other);
    const refused = [];
    ui.page.on('response', (r) => { if (r.url().includes(EDITOR)) refused.push(r.status()); });
    await ui.page.getByText('mock response recovered').first().click();
    const note = ui.page.locator('.tc-me-elsewhere');
    await note.waitFor({ timeout: 30_000 });
    assert.equal(await note.textContent(),
      `Editing and regenerating messages works at ${harness.url}, the address dsh web printed; this page was opened as ${other}.`);
    assert.ok((await note.locator('a').getAttribute('href')).startsWith(`${harness.url}/`));
    await userRow(ui.page, 0).waitFor();
    assert.equal(await ui.page.locator('.tc-me-pencil').count(), 0);
    assert.deepEqual(refused, [], 'no editor request from the wrong origin');
    assert.deepEqual(ui.errors.map(String), []);
    await ui.page.close();
  });

  await step('restart the harness: every edit survives its validating load path (S3, S42)', async () => {
    const mine = errors.filter((e) => /tavern-core/.test(String(e.message)));
    assert.deepEqual(mine, [], 'no errors from the editor before the restart');
    await page.close();
    await harness.stop();
    harness = await startHarness(paths, gate.url);
    ({ page, errors } = await openUI(context, harness.url));
    await page.getByText('mock response recovered').first().click();
    const first = userRow(page, 0);
    const second = userRow(page, 1);
    await first.locator('.tc-me-text', { hasText: 'first message, edited' }).waitFor({ timeout: 60_000 });
    await first.locator('.tc-me-badge').waitFor();
    await second.locator('.tc-me-text', { hasText: 'second message, regenerated' }).waitFor();
    assert.equal(await second.locator('.tc-me-undo').count(), 0, 'a regenerated prompt has no undo');
    assert.equal(await page.locator('[data-chat-flow-key="14:assistant-step2:1"]:visible').count(), 0, 'the old answer stays hidden');
    // And the editor keeps working on the reloaded session.
    const input = await openEditor(page, first);
    await input.fill('first message, edited after restart');
    await input.press('Enter');
    await first.locator('.tc-me-text', { hasText: 'first message, edited after restart' }).waitFor();
  });

  // Types text into the composer and sends it, the model held until released.
  const sendHeld = async (text) => {
    gate.hold();
    const box = page.locator('textarea').first();
    await box.fill(text);
    await box.press('Enter');
    await gate.waitHeld();
  };

  await step('an edit while a compaction is in progress is refused inline and writes nothing (C38, S77)', async () => {
    await sendHeld('/compact');
    const open = readLog(paths, sessionId);
    assert.ok(open.records.some((r) => r.type === 'compaction/start'), 'the compaction has started');
    const row = userRow(page, 1);
    const input = await openEditor(page, row);
    await input.fill('edited during compaction');
    await input.press('Enter');
    await row.locator('.tc-me-error', { hasText: /compaction/i }).waitFor();
    assert.equal(await input.inputValue(), 'edited during compaction', 'the editor stays open with the text');
    assert.ok(readLog(paths, sessionId).bytes.equals(open.bytes), 'nothing was written');
    await input.press('Escape');
    await screenshot(page, 'dsh-editor');
    gate.release();
    await waitFor(() => readLog(paths, sessionId).records.some((r) => r.type === 'compaction/end'), 'compaction/end');
    // The compaction's row keeps its key from "Compacting context…" to
    // "Compacted …": the rows it took out of the model's view lose their
    // pencil and undo without a reload, and keep their badge (S90, S94, S98;
    // they kept both until the page was reloaded).
    const first = userRow(page, 0);
    await first.locator('.tc-me-pencil').waitFor({ state: 'detached', timeout: 15_000 });
    assert.equal(await first.locator('.tc-me-undo').count(), 0);
    const mine = errors.filter((e) => /tavern-core/.test(String(e.message)));
    assert.deepEqual(mine, [], 'no errors from the editor');
  });

  // The harness draws a tool call as a 'tool-call' row; the adapter tagged
  // only 'tool', so a regenerated turn's old tool call stayed on screen
  // above a reply that never called it (found in the real harness).
  await step('regenerating a turn that called a tool hides its tool row with it (S67, S96)', async () => {
    const since = (n) => readLog(paths, sessionId).records.slice(n);
    const start = readLog(paths, sessionId).records.length;
    const box = page.locator('textarea').first();
    await box.fill('TOOL:glob:{"pattern":"*"}');
    await box.press('Enter');
    await waitFor(() => { const r = since(start); return r.some((e) => e.type === 'tool/result') && r.at(-1).type === 'turn/end'; }, 'the tool turn');
    const result = since(start).find((r) => r.type === 'tool/result');
    const tool = page.locator(`${FLOW} [data-chat-flow-kind=tool-call][data-seq="${result.seq}"]`);
    await tool.waitFor({ timeout: 20_000 });
    const regenerate = page.locator(`${FLOW} .tc-me-regenerate`).last();
    await regenerate.waitFor({ state: 'attached', timeout: 20_000 });
    const calls = gate.conversation().length;
    const end = readLog(paths, sessionId).records.length;
    await regenerate.click({ force: true });
    await waitFor(() => { const r = since(end); return r.some((e) => e.data?.source?.messageEdit?.action === 'regenerate') && r.at(-1).type === 'turn/end'; },
      'the regenerated turn');
    await tool.waitFor({ state: 'hidden', timeout: 10_000 });
    assert.ok(!JSON.stringify(gate.conversation()[calls].body.messages).includes('tool_calls'), 'the model no longer sees the call');
  });

  // Found by a tester: the message the model was answering, edited, showed
  // both texts once its turn ended (the widget's at the row's top, the
  // harness's bubble below): the harness re-creates the bubble when the
  // message becomes durable, and the adapter tagged the widget's own text,
  // which adopts the bubble's classes, as the body.
  await step('a message edited while the model answers it shows only the edited text, in the bubble\'s place (S96)', async () => {
    await sendHeld('a message the model is answering');
    const row = page.locator(`${FLOW} [data-chat-flow-kind=user]`).filter({ hasText: 'a message the model is answering' }).last();
    const input = await openEditor(page, row);
    await input.fill('edited while the model answers');
    await input.press('Enter');
    await row.locator('.tc-me-text', { hasText: 'edited while the model answers' }).waitFor();
    const end = readLog(paths, sessionId).records.length;
    gate.release();
    await waitFor(() => readLog(paths, sessionId).records.slice(end).some((r) => r.type === 'turn/end'), 'the turn\'s end');
    const drawn = () => row.evaluate((el) => {
      const views = [...el.querySelectorAll('.tc-me-body')];
      const body = el.querySelector('[data-part=body]');
      return {
        views: views.length,
        beside: views[0]?.nextElementSibling === body && body !== null,
        hostShown: body !== null && getComputedStyle(body).display !== 'none',
        text: views[0]?.querySelector('.tc-me-text')?.textContent,
      };
    });
    const want = { views: 1, beside: true, hostShown: false, text: 'edited while the model answers' };
    const deadline = Date.now() + 10_000;
    let got = await drawn();
    while (JSON.stringify(got) !== JSON.stringify(want) && Date.now() < deadline) {
      await page.waitForTimeout(200);
      got = await drawn();
    }
    assert.deepEqual(got, want);
  });

  // Found by a tester: a tab opened before another tab's edit wrote its old
  // text back on an untouched Enter, and never caught up while visible.
  await step('a second tab: another tab\'s edit reaches its open editor, and an untouched Enter there writes nothing (S48, S98)', async () => {
    const b = await openUI(context, harness.url);
    try {
      // The session's entry in the sidebar: the start page has no transcript.
      await b.page.getByText('mock response recovered', { exact: true }).first().click();
      // (By seq: an open editor's text is no row text a filter can find.)
      const byText = b.page.locator(`${FLOW} [data-chat-flow-kind=user]`).filter({ hasText: 'edited while the model answers' }).last();
      // The widget mounts once the session's view settles (a remount drops
      // an editor opened before it): open it then.
      await byText.locator('.tc-me-pencil').waitFor({ state: 'attached', timeout: 30_000 });
      const seq = await byText.getAttribute('data-seq');
      const rowB = b.page.locator(`${FLOW} [data-seq="${seq}"]`);
      await b.page.waitForTimeout(1500);
      const inputB = await openEditor(b.page, rowB);
      assert.equal(await inputB.inputValue(), 'edited while the model answers');
      const rowA = page.locator(`${FLOW} [data-seq="${seq}"]`);
      const inputA = await openEditor(page, rowA);
      await inputA.fill('edited in the first tab');
      await inputA.press('Enter');
      await rowA.locator('.tc-me-text', { hasText: 'edited in the first tab' }).waitFor();
      const n = readLog(paths, sessionId).records.length;
      await waitFor(async () => (await inputB.inputValue()) === 'edited in the first tab', 'the second tab\'s untouched draft following the edit');
      await inputB.press('Enter');
      await rowB.locator('.tc-me-card').waitFor({ state: 'detached' });
      assert.equal(readLog(paths, sessionId).records.length, n, 'the untouched Enter wrote nothing');
      assert.deepEqual(b.errors.filter((e) => /tavern-core/.test(String(e.message))), []);
    } catch (err) {
      await screenshot(b.page, 'dsh-second-tab').catch(() => {});
      throw err;
    } finally {
      await b.page.close();
    }
  });

  await step('tavern-log reads the harness\'s own compressed session file as its plaintext; a torn last frame is refused and repaired (S102, S105)', async () => {
    const log = readLog(paths, sessionId);
    assert.match(log.file, /\.jsonl\.zstd$/, 'the harness writes Zstandard frames by default');
    const dir = mkdtempSync(join(tmpdir(), 'tavern-dsh-log-'));
    t.after(() => rmSync(dir, { recursive: true, force: true }));
    const bin = join(dir, 'tavern-log');
    const built = spawnSync('go', ['build', '-o', bin, './cmd/tavern-log'], { cwd: REPO, encoding: 'utf8' });
    assert.equal(built.status, 0, built.stderr);
    const cli = (args, input) => {
      const r = spawnSync(bin, args, { input, encoding: 'utf8', maxBuffer: 1 << 28 });
      return { code: r.status, doc: r.stdout ? JSON.parse(r.stdout) : null, stderr: r.stderr };
    };
    // One snapshot of the bytes, compressed and as plaintext (the harness's Node 24 decompressed it).
    const file = join(dir, 'session.jsonl.zstd');
    writeFileSync(file, log.bytes);
    const plain = [JSON.stringify(log.header), ...log.records.map((r) => JSON.stringify(r))].join('\n') + '\n';
    for (const cmd of ['validate', 'fold', 'transcript']) {
      const z = cli([cmd, file]);
      const p = cli([cmd, '-'], plain);
      assert.equal(z.code, 0, `${cmd}: ${z.stderr}`);
      assert.equal(p.code, 0, `${cmd} of the plaintext: ${p.stderr}`);
      assert.deepEqual(z.doc, p.doc, `${cmd}: the compressed file reads as its plaintext`);
    }
    const events = cli(['validate', file]).doc.events;
    assert.ok(events > 20, `the scenario's events: ${events}`);
    // The last append did not finish: two bytes of its checksum are missing.
    writeFileSync(file, log.bytes.subarray(0, log.bytes.length - 2));
    const torn = cli(['validate', file]);
    assert.equal(torn.code, 1);
    assert.equal(torn.doc.code, 'torn-tail');
    const repaired = cli(['repair', file]);
    assert.equal(repaired.code, 0, repaired.stderr);
    assert.equal(repaired.doc.repair.action, 'truncate');
    assert.equal(repaired.doc.repair.truncateTo, torn.doc.offset);
    const after = cli(['validate', file]);
    assert.equal(after.code, 0, after.stderr);
    assert.equal(after.doc.events, repaired.doc.repair.events);
    assert.ok(after.doc.events <= events && after.doc.events >= events - 50, `kept ${after.doc.events} of ${events}`);
  });
});

const waitFor = (pred, what) => until(what, pred, { ms: 60_000, every: 250 });

// fetch cannot forge Host; node:http can, as a rebinding page's browser would.
function rawRequest(base, path, headers, body) {
  const u = new URL(base);
  return new Promise((resolve, reject) => {
    const req = http.request({ host: u.hostname, port: u.port, path, method: 'POST', headers }, (res) => {
      res.resume();
      res.on('end', () => resolve({ status: res.statusCode }));
    });
    req.on('error', reject);
    req.end(body);
  });
}
