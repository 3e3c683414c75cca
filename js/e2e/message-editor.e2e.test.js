// The message editor in a real browser (Chromium) against the demo host: a
// live session persisted as JSONL, a stand-in model on the followup path.
// Keyboard editing, Esc, Enter, attachment removal, undo, save & regenerate
// of the last exchange, a refused edit of a model reply, a reload and a
// server restart; the log on disk validates and folds to what the screen
// shows.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { browserAvailable, openDemo, screenshot } from './browser.js';
import { startDemoServer } from '../demo/server.js';

const skip = !browserAvailable() && 'chromium not installed (set E2E=required to fail instead)';

const S53 = 'Model replies cannot be rewritten in this session format: a surface replacement must list every node it shadows in sourceEventSeqs, and assistant/message refuses that field, so no valid write exists. Nothing was saved.';

test('message editor: edit, cancel, remove, undo, regenerate, refusal, reload, restart', { skip, timeout: 120000 }, async (t) => {
  const { validate, fold } = await import('../session-log.js');
  const dataDir = mkdtempSync(join(tmpdir(), 'tavern-editor-'));
  t.after(() => rmSync(dataDir, { recursive: true, force: true }));
  const file = join(dataDir, 'editor-session.jsonl');
  const disk = () => readFileSync(file, 'utf8');
  const events = () => disk().split('\n').filter(Boolean).slice(1).map((l) => JSON.parse(l));
  const { page, url, errors } = await openDemo(t, { dataDir });

  const row = (seq) => page.locator(`#log [data-seq="${seq}"]`);
  const shownText = (seq) => row(seq).locator('.tc-me-text').textContent();
  const ready = async () => {
    await page.waitForSelector('body[data-ready=true]');
    await page.waitForSelector('#log [data-seq="2"] .tc-me-pencil');
  };
  await page.goto(`${url}demo/editor.html`);
  await ready();

  // The seeded session: two exchanges; the arrow only on the last reply.
  assert.equal(await shownText(2), 'Plan a weekend in Lisbon for two.');
  assert.deepEqual(await row(2).locator('.tc-me-chip').allTextContents(), ['lisbon-map.png', 'budget.txt']);
  assert.equal(await row(15).locator('.tc-me-regenerate').count(), 1);
  assert.equal(await row(4).locator('.tc-me-regenerate').count(), 0);
  assert.equal(await row(9).locator('.tc-me-regenerate').count(), 0);
  assert.equal(await row(4).locator('.tc-me-pencil').count(), 0, 'no pencil on model replies');
  let n = events().length;

  // 1. Pencil → inline editor; type with the keyboard; Shift+Enter is a
  // newline; Esc cancels and writes nothing.
  await row(2).locator('.tc-me-pencil').click();
  const ta = row(2).locator('.tc-me-input');
  await ta.waitFor();
  assert.ok(await ta.evaluate((el) => document.activeElement === el), 'the textarea has the focus');
  assert.equal(await row(2).locator('.tc-me-save-regenerate').count(), 0, 'not the last exchange');
  await page.keyboard.press('End');
  await page.keyboard.type(' Quietly.');
  await page.keyboard.press('Shift+Enter');
  await page.keyboard.type('Second line');
  assert.equal(await ta.inputValue(), 'Plan a weekend in Lisbon for two. Quietly.\nSecond line');
  await screenshot(page, 'message-editor-open');
  assert.equal(events().length, n, 'Shift+Enter saved nothing');
  await page.keyboard.press('Escape');
  await row(2).locator('.tc-me-card').waitFor({ state: 'detached' });
  assert.equal(await shownText(2), 'Plan a weekend in Lisbon for two.');
  assert.equal(events().length, n, 'Esc wrote nothing');

  // 2. Enter saves a cold edit.
  await row(2).locator('.tc-me-pencil').click();
  await ta.waitFor();
  await page.keyboard.press('Control+A');
  await page.keyboard.type('Plan a weekend in Porto for two.');
  await page.keyboard.press('Enter');
  await row(2).locator('.tc-me-badge').waitFor();
  assert.equal(await shownText(2), 'Plan a weekend in Porto for two.');
  assert.equal(await row(2).locator('.tc-me-undo').count(), 1);
  let ev = events();
  assert.equal(ev.length, n + 1);
  assert.deepEqual(ev.at(-1).data.source.messageEdit, { originalEventSeq: 2, action: 'edit' });
  n = ev.length;

  // 3. A chip marks an attachment for removal; Save drops it.
  await row(2).locator('.tc-me-pencil').click();
  await row(2).locator('.tc-me-card .tc-me-chip', { hasText: 'lisbon-map.png' }).click();
  await row(2).locator('.tc-me-chip.tc-me-marked').waitFor();
  await screenshot(page, 'message-editor-chip-marked');
  await row(2).locator('.tc-me-save').click();
  await page.waitForFunction(() => document.querySelectorAll('#log [data-seq="2"] .tc-me-body .tc-me-chip').length === 1);
  assert.deepEqual(await row(2).locator('.tc-me-chip').allTextContents(), ['budget.txt']);
  ev = events();
  assert.equal(ev.length, n + 1);
  assert.deepEqual(ev.at(-1).data.content.map((b) => b.type), ['text', 'file']);
  n = ev.length;

  // 4. Undo restores the original text and attachments.
  await screenshot(page, 'message-editor-edited');
  await row(2).locator('.tc-me-undo').click();
  await row(2).locator('.tc-me-badge').waitFor({ state: 'detached' });
  assert.equal(await shownText(2), 'Plan a weekend in Lisbon for two.');
  assert.deepEqual(await row(2).locator('.tc-me-chip').allTextContents(), ['lisbon-map.png', 'budget.txt']);
  ev = events();
  assert.equal(ev.length, n + 1);
  assert.equal(ev.at(-1).data.source.messageEdit.action, 'undo');
  n = ev.length;

  // 5. Save & regenerate on the last exchange: the old answer leaves the
  // screen and the folded surface; the model answers the new question.
  await row(13).locator('.tc-me-pencil').click();
  await row(13).locator('.tc-me-input').waitFor();
  await page.keyboard.press('Control+A');
  await page.keyboard.type('What should we eat near Sintra?');
  await row(13).locator('.tc-me-save-regenerate').click();
  await row(15).waitFor({ state: 'hidden' });
  assert.equal(await page.getByText('Pastéis de nata').isVisible(), false, 'the old answer is gone from the screen');
  const answer = 'Here is my answer to "What should we eat near Sintra?": start early, book ahead, and enjoy it.';
  await page.locator('#log .row.assistant', { hasText: answer }).waitFor({ timeout: 20000 });
  await page.waitForSelector('body[data-agent=idle]');
  // The arrow now sits on the new turn's replies only (both steps of it).
  await page.waitForFunction(() => document.querySelectorAll('#log .tc-me-regenerate').length > 0);
  const arrows = await page.evaluate(() => [...document.querySelectorAll('#log .tc-me-regenerate')].map((b) => Number(b.closest('[data-seq]').dataset.seq)));
  assert.ok(arrows.every((s) => s > 15), `arrows on ${arrows}`);
  assert.equal(await shownText(13), 'What should we eat near Sintra?');
  assert.equal(await row(13).locator('.tc-me-undo').count(), 0, 'no undo after a regeneration');
  for (const ctx of await page.locator('#log .row.context').all()) assert.equal(await ctx.isVisible(), false, 'the trigger is hidden');
  await screenshot(page, 'message-editor-regenerated');
  let folded = fold(disk()).messages;
  assert.ok(!folded.some((m) => m.id === 'a3'), 'the old answer is gone from the fold');
  assert.ok(folded.some((m) => m.role === 'assistant' && m.content.some((b) => b.text === answer)));

  // 6. Editing a model reply is refused clearly, inline, and writes nothing.
  n = events().length;
  const refused = await page.evaluate(() => globalThis.demoEditor.edit(9, 'A rewritten reply'));
  assert.deepEqual(refused, { ok: false, error: { code: 'assistant-immutable', message: S53 } });
  assert.equal(await row(9).locator('.tc-me-error').textContent(), S53);
  assert.equal(events().length, n, 'nothing written');
  await screenshot(page, 'message-editor-refusal');

  // 7. One more cold edit, then a reload shows everything persisted.
  await row(2).locator('.tc-me-pencil').click();
  await row(2).locator('.tc-me-input').waitFor();
  await page.keyboard.press('Control+A');
  await page.keyboard.type('Plan a weekend in Porto.');
  await page.keyboard.press('Enter');
  await row(2).locator('.tc-me-badge').waitFor();
  const persisted = async () => {
    assert.equal(await shownText(2), 'Plan a weekend in Porto.');
    assert.equal(await row(2).locator('.tc-me-badge').count(), 1);
    assert.equal(await shownText(13), 'What should we eat near Sintra?');
    assert.equal(await row(15).isVisible(), false);
    assert.equal(await page.getByText('Pastéis de nata').isVisible(), false);
    assert.equal(await page.locator('#log .row.assistant', { hasText: answer }).isVisible(), true);
  };
  await page.reload();
  await ready();
  await persisted();

  // 8. A server restart restores the session from disk.
  const again = await startDemoServer({ port: 0, dataDir });
  t.after(() => new Promise((r) => again.server.close(r)));
  await page.goto(`${again.url}demo/editor.html`);
  await ready();
  await persisted();
  await screenshot(page, 'message-editor-after-restart');

  // The log on disk validates and folds to what the screen shows.
  assert.deepEqual(validate(disk()), { ok: true, version: 4, events: events().length });
  folded = fold(disk()).messages;
  const text = (m) => m.content.filter((b) => b.type === 'text').map((b) => b.text).join('\n');
  const screen = await page.evaluate(() => [...document.querySelectorAll('#log [data-seq]')]
    .filter((el) => el.checkVisibility())
    .map((el) => ({ kind: el.dataset.kind, text: (el.querySelector('.tc-me-text') ?? el.querySelector('[data-part=body] .text')).textContent })));
  const model = folded.filter((m) => m.role !== 'system' && !(m.role === 'user' && m.source?.kind !== 'user'))
    .map((m) => ({ kind: m.role, text: text(m) }))
    .filter((m) => m.kind !== 'assistant' || m.text !== '');
  assert.deepEqual(screen.map((r) => ({ kind: r.kind === 'tool' ? 'tool' : r.kind, text: r.text })), model);
  // Chromium logs the refused request (409) as a failed resource; nothing else.
  assert.deepEqual(errors.map(String).filter((e) => !e.includes('status of 409')), []);
});
