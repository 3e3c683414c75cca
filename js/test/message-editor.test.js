// The message editor widget through its JS facade, under happy-dom, against
// the real route (SessionHost over a copy of fixture F) as its fetch.
import './happydom-preload.cjs';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mountMessageEditor } from '../message-editor.js';
import { setup, ORIGIN, pkg } from './message-editor-fixture.js';

const key = (el, k, opts = {}) => el.dispatchEvent(new KeyboardEvent('keydown', { key: k, bubbles: true, cancelable: true, ...opts }));

test('the client version is the package version (S88)', async (t) => {
  const { root, fetch } = setup(t);
  const editor = await mountMessageEditor(root, { sessionId: 'sF', baseURL: ORIGIN, fetch });
  t.after(() => editor.destroy());
  assert.equal(editor.version, pkg.version);
});

test('mount validates its arguments', async () => {
  await assert.rejects(mountMessageEditor(null, { sessionId: 'sF' }), TypeError);
  await assert.rejects(mountMessageEditor(document.body, {}), TypeError);
  // A look-alike root was a contained Go fault ('internal') once mounted half.
  await assert.rejects(mountMessageEditor({ querySelectorAll() { return []; } }, { sessionId: 'sF' }), { name: 'TypeError', message: 'mountMessageEditor: root must be an element' });
  // A lone surrogate went out as U+FFFD: another session's URL.
  await assert.rejects(mountMessageEditor(document.body, { sessionId: 'a\uD800' }), { name: 'TypeError', message: 'mountMessageEditor: sessionId must not hold a lone surrogate' });
});

// Settles within ten seconds (a loaded machine's second is not a hang), or
// says it hung.
const settles = (p) => {
  let timer;
  const hung = new Promise((r) => { timer = setTimeout(() => r(['hung']), 10_000); });
  return Promise.race([Promise.resolve(p).then((v) => ['settled', v], (e) => ['rejected', e]), hung]).finally(() => clearTimeout(timer));
};

test('a response that cannot be read is a failed request: the call and whenIdle() settle (S98; they hung)', async (t) => {
  const cut = () => ({ status: 200, text: () => Promise.reject(new Error('body aborted')) });
  const cases = [
    ['a body read that fails', async () => cut(), 'body aborted'],
    ['a status getter that throws', async () => ({ get status() { throw new Error('st'); }, text: async () => '{}' }), 'st'],
    ['a fetch that rejects with a null-prototype object', () => Promise.reject(Object.create(null)), 'Object'],
    ['a null status', async () => ({ status: null, text: async () => '{}' }), 'no HTTP status (got null)'],
    ['a Symbol status', async () => ({ status: Symbol('x'), text: async () => '{}' }), 'no HTTP status (got Symbol(x))'],
    ['a fractional status', async () => ({ status: 200.5, text: async () => '{}' }), 'no HTTP status (got 200.5)'],
    ['a body whose toString throws', async () => ({ status: 200, text: async () => ({ toString() { throw new Error('ts'); } }) }), 'ts'],
  ];
  for (const [what, fetch, says] of cases) {
    const { root } = setup(t);
    const editor = await mountMessageEditor(root, { sessionId: 'sF', baseURL: ORIGIN, fetch });
    assert.deepEqual(await settles(editor.whenIdle()), ['settled', undefined], what);
    const [how, r] = await settles(editor.edit(2, 'x'));
    assert.equal(how, 'settled', what);
    assert.equal(r.ok, false, what);
    assert.match(r.error.message, new RegExp(says.replace(/[()]/g, '\\$&')), what);
    editor.destroy();
  }
});

test('destroy() from page code that edit() runs while reading its arguments rejects that edit (it hung)', async (t) => {
  const { root, fetch } = setup(t);
  const editor = await mountMessageEditor(root, { sessionId: 'sF', baseURL: ORIGIN, fetch });
  await editor.whenIdle();
  const ids = new Proxy(['img-A'], { get(target, k, r) { if (k === '0') editor.destroy(); return Reflect.get(target, k, r); } });
  const [how, e] = await settles(editor.edit(15, 'q2', { removeAttachments: ids }));
  assert.equal(how, 'rejected');
  assert.equal(e.message, 'message editor is destroyed');
});

test('pencil, keys, save, undo and the refused model-reply edit (C67, C68, C33)', async (t) => {
  const { session, root, fetch, row } = setup(t);
  const editor = await mountMessageEditor(root, { sessionId: 'sF', baseURL: ORIGIN, fetch });
  t.after(() => editor.destroy());
  await editor.whenIdle();
  assert.ok(row(2).querySelector('.tc-me-pencil') && row(15).querySelector('.tc-me-pencil'));
  assert.equal(row(3).querySelector('[data-tc-me]'), null, 'context rows stay the host\'s');
  assert.deepEqual([...root.querySelectorAll('.tc-me-regenerate')].map((b) => b.closest('[data-seq]').dataset.seq), ['17']);
  assert.deepEqual([...row(15).querySelectorAll('.tc-me-chip')].map((c) => c.textContent), ['a.png', 'b.txt']);

  row(2).querySelector('.tc-me-pencil').click();
  const ta = row(2).querySelector('.tc-me-input');
  assert.equal(ta.value, 'q1');
  assert.equal(row(2).querySelector('.tc-me-save-regenerate'), null);
  key(ta, 'Escape');
  assert.equal(row(2).querySelector('.tc-me-card'), null);
  assert.equal(session.length, 20);

  row(2).querySelector('.tc-me-pencil').click();
  const ta2 = row(2).querySelector('.tc-me-input');
  ta2.value = 'q1*';
  key(ta2, 'Enter', { isComposing: true });
  key(ta2, 'Enter', { shiftKey: true });
  await editor.whenIdle();
  assert.equal(session.length, 20, 'no save during composition or on Shift+Enter');
  key(ta2, 'Enter');
  await editor.whenIdle();
  assert.equal(session.length, 21);
  assert.equal(row(2).querySelector('.tc-me-text').textContent, 'q1*');
  assert.ok(row(2).querySelector('.tc-me-badge') && row(2).querySelector('.tc-me-undo'));
  assert.equal(row(2).querySelector('[data-part=body]').style.display, 'none');

  row(2).querySelector('.tc-me-undo').click();
  await editor.whenIdle();
  assert.equal(session.length, 22);
  assert.equal(row(2).querySelector('.tc-me-text').textContent, 'q1');

  const refused = await editor.edit(6, 'x');
  assert.equal(refused.ok, false);
  assert.equal(refused.error.code, 'assistant-immutable');
  assert.match(row(6).querySelector('.tc-me-error').textContent, /^Model replies cannot be rewritten/);
  assert.equal(session.length, 22, 'nothing written');

  editor.destroy();
  assert.equal(root.querySelector('[data-tc-me]'), null);
  assert.equal(row(2).querySelector('[data-part=body]').style.display, '');
});

// The host draws a user row's attachments from the original message; the
// widget hides the ones the live revision no longer has (DeepSeek Harness
// kept showing a removed image's thumbnail).
test('S93: host-drawn attachments ([data-attachment-id]) hide when an edit removes them, and show again on undo and destroy()', async (t) => {
  const { root, fetch, row } = setup(t);
  const thumb = (id) => {
    const el = document.createElement('button');
    el.setAttribute('data-attachment-id', id);
    el.style.display = 'inline-block';
    return el;
  };
  const a = thumb('img-A');
  const b = thumb('file-B');
  row(15).prepend(a, b);
  const stray = thumb('img-A'); // outside any row: not the widget's
  root.append(stray);
  const editor = await mountMessageEditor(root, { sessionId: 'sF', baseURL: ORIGIN, fetch });
  t.after(() => editor.destroy());
  await editor.whenIdle();
  const shown = (el) => el.style.display !== 'none';
  assert.ok(shown(a) && shown(b), 'nothing hidden while the row has both');

  assert.equal((await editor.edit(15, 'q2\nmore', { removeAttachments: ['img-A'] })).ok, true);
  await editor.whenIdle();
  assert.ok(!shown(a) && shown(b) && shown(stray));
  assert.equal(a.style.getPropertyPriority('display'), 'important');

  // Tagged late (a thumbnail the host drew after the edit): hidden too.
  const late = document.createElement('span');
  row(15).append(late);
  late.setAttribute('data-attachment-id', 'img-A');
  await new Promise((r) => setTimeout(r, 0));
  assert.ok(!shown(late));

  assert.equal((await editor.undo(15)).ok, true);
  await editor.whenIdle();
  assert.ok(shown(a) && shown(late));
  assert.equal(a.style.display, 'inline-block', 'the host\'s own display comes back');

  assert.equal((await editor.edit(15, 'q2', { removeAttachments: ['img-A', 'file-B'] })).ok, true);
  await editor.whenIdle();
  assert.ok(!shown(a) && !shown(b));
  editor.destroy();
  assert.ok(shown(a) && shown(b) && shown(late));
  assert.equal(root.querySelector('[data-tc-hidden]'), null);
});

test('a session the host does not serve yet (a restart) is asked for again until it is: then the controls appear (S87, S98)', async (t) => {
  const { root, fetch, row } = setup(t);
  let refused = 0;
  const early = async (url, init) => {
    if (new URL(url).pathname.endsWith('/state') && refused < 2) {
      refused++;
      return new Response(JSON.stringify({ ok: false, error: { code: 'session-not-loaded', message: 'Session sF is not loaded.' } }), { status: 409, headers: { 'Content-Type': 'application/json' } });
    }
    return fetch(url, init);
  };
  const editor = await mountMessageEditor(root, { sessionId: 'sF', baseURL: ORIGIN, fetch: early });
  t.after(() => editor.destroy());
  await editor.whenIdle();
  assert.equal(row(2).querySelector('.tc-me-pencil'), null, 'not loaded: the stock transcript, no controls');
  const deadline = Date.now() + 5000;
  while (!row(2).querySelector('.tc-me-pencil') && Date.now() < deadline) await new Promise((r) => { setTimeout(r, 50); });
  assert.equal(refused, 2);
  assert.ok(row(2).querySelector('.tc-me-pencil'), 'the controls appeared without a reload or a row change');
});

test('a destroyed editor asks nothing more', async (t) => {
  const { root } = setup(t);
  let asked = 0;
  const never = async () => { asked++; return new Response('{"ok":false,"error":{"code":"session-not-loaded","message":"no"}}', { status: 409 }); };
  const editor = await mountMessageEditor(root, { sessionId: 'sF', baseURL: ORIGIN, fetch: never });
  await editor.whenIdle();
  editor.destroy();
  const after = asked;
  await new Promise((r) => { setTimeout(r, 700); });
  assert.equal(asked, after, 'the pending re-read was cleared');
});

test('version skew disables every control (C69)', async (t) => {
  const { root, fetch } = setup(t);
  const stale = (url, init) => {
    const r = new Request(url, init);
    const h = new Headers(r.headers);
    h.set('X-Tavern-Core-Version', '0.0.1');
    return fetch(url, { ...init, headers: h });
  };
  const editor = await mountMessageEditor(root, { sessionId: 'sF', baseURL: ORIGIN, fetch: stale });
  t.after(() => editor.destroy());
  await editor.whenIdle();
  assert.match(document.querySelector('.tc-me-banner').textContent, /Restart DeepSeek Harness/);
  const notFound = await mountMessageEditor(document.createElement('div'), { sessionId: 'sF', baseURL: ORIGIN, fetch: async () => new Response('nope', { status: 404 }) });
  t.after(() => notFound.destroy());
  const r = await notFound.edit(2, 'x');
  assert.equal(r.error.code, 'version-skew');
});

// A host like DeepSeek Harness: rows are tagged after the host inserted
// them, a reply's action bar sits in a separate element tagged
// data-seq-part, and rows without controls get no element of ours (S95, S96,
// S98).
test('rows tagged late, row parts, and no empty action bars (S95, S96, S98)', async (t) => {
  const { session, root, fetch } = setup(t);
  root.replaceChildren();
  const make = (kind, text, actions) => {
    const row = document.createElement('article');
    row.className = kind;
    const body = document.createElement('div');
    body.textContent = text;
    row.append(body);
    if (actions) {
      const bar = document.createElement('div');
      bar.className = 'host-actions';
      row.append(bar);
    }
    root.append(row);
    return row;
  };
  const u2 = make('user', 'q2\nmore', true);
  const tool = make('tool', 'out', false);
  const a3 = make('assistant', 'r2', false);
  const tail = make('tail', '', true);
  const editor = await mountMessageEditor(root, { sessionId: 'sF', baseURL: ORIGIN, fetch });
  t.after(() => editor.destroy());
  await editor.whenIdle();
  assert.equal(root.querySelector('[data-tc-me]'), null, 'untagged rows are the host\'s');

  // Tag the rows the way the harness adapter does, after insertion.
  u2.dataset.seq = '15';
  u2.firstChild.dataset.part = 'body';
  u2.lastChild.dataset.part = 'actions';
  tool.dataset.seq = '8';
  a3.dataset.seq = '17';
  tail.dataset.seqPart = '17';
  tail.lastChild.dataset.part = 'actions';
  await new Promise((r) => setTimeout(r, 0));
  await editor.whenIdle();
  assert.ok(u2.querySelector('.host-actions .tc-me-pencil'), 'pencil in the host bar once tagged');
  assert.ok(tail.querySelector('.host-actions .tc-me-regenerate'), 'the reply\'s button sits in its part\'s bar');
  assert.equal(a3.querySelector('[data-tc-me]'), null);
  assert.equal(tool.querySelector('[data-tc-me]'), null, 'no empty action bar on a row without controls');

  // Regenerating the turn hides the reply together with its part.
  tail.querySelector('.tc-me-regenerate').click();
  await editor.whenIdle();
  assert.equal(session.length, 21);
  assert.equal(a3.style.display, 'none');
  assert.equal(tail.style.display, 'none');
  assert.equal(u2.style.display, '');
  editor.destroy();
  assert.equal(tail.style.display, '', 'destroy restores the parts');
});

// Found by a tester in the real harness: a user message edited while the
// model answered it showed both texts, ours unstyled at the row's top and
// the harness's bubble below. The harness re-creates a message's bubble
// when the message becomes durable and its adapter tags the new one a frame
// later; the widget drew the row while no body was tagged (its view went to
// the row's top, nothing hidden) and, the row otherwise intact, never drew
// it again once the body was tagged.
test('S96: a user row\'s body tagged, or replaced, after the row was drawn: the live text moves beside it and the body hides', async (t) => {
  const { root, fetch, row } = setup(t);
  const u = row(15);
  const first = u.querySelector('[data-part=body]');
  delete first.dataset.part;
  const editor = await mountMessageEditor(root, { sessionId: 'sF', baseURL: ORIGIN, fetch });
  t.after(() => editor.destroy());
  await editor.whenIdle();
  const placed = () => {
    const body = u.querySelector('[data-part=body]');
    const view = u.querySelector('.tc-me-body');
    return { views: u.querySelectorAll('.tc-me-body').length, beside: view?.nextElementSibling === body, hidden: body?.style.display === 'none', text: view?.querySelector('.tc-me-text')?.textContent };
  };
  assert.equal(u.querySelectorAll('.tc-me-body').length, 1, 'drawn without a body: at the row\'s top');
  first.dataset.part = 'body';
  await new Promise((r) => setTimeout(r, 0));
  await editor.whenIdle();
  assert.deepEqual(placed(), { views: 1, beside: true, hidden: true, text: 'q2\nmore' });
  // The host re-creates the body (untagged), then tags the new one.
  const fresh = document.createElement('div');
  fresh.textContent = 'q2\nmore';
  u.querySelector('[data-part=body]').replaceWith(fresh);
  await new Promise((r) => setTimeout(r, 0));
  fresh.dataset.part = 'body';
  await new Promise((r) => setTimeout(r, 0));
  await editor.whenIdle();
  assert.deepEqual(placed(), { views: 1, beside: true, hidden: true, text: 'q2\nmore' });
  editor.destroy();
  assert.equal(fresh.style.display, '', 'destroy shows the host\'s body again');
});

// Found by probing: edit(2.7) wrote over seq 2, a text object was saved as
// its String(), a string seq threw an internal error, and a removeAttachments
// claiming 1e9 entries ran Go out of memory for the rest of the page.
test('ill-typed calls are refused as the route refuses them (S76 bad-request), nothing sent, and the next call works', async (t) => {
  const { session, root, fetch } = setup(t);
  let sent = 0;
  const counted = (url, init) => { sent++; return fetch(url, init); };
  const editor = await mountMessageEditor(root, { sessionId: 'sF', baseURL: ORIGIN, fetch: counted });
  t.after(() => editor.destroy());
  await editor.whenIdle();
  const before = { sent, length: session.length };
  const huge = [];
  huge.length = 1e9;
  for (const [call, message] of [
    [() => editor.edit(2.7, 'x'), 'seq must be a non-negative integer; got 2.7'],
    [() => editor.edit('2', 'x'), 'seq must be a non-negative integer; got string'],
    [() => editor.edit(-1, 'x'), 'seq must be a non-negative integer; got -1'],
    [() => editor.undo(undefined), 'seq must be a non-negative integer; got undefined'],
    [() => editor.edit(2, { toString() { return 'OBJ'; } }), 'text must be a string; got object'],
    [() => editor.edit(15, 'q2', { removeAttachments: { length: 1e9 } }), 'removeAttachments must be an array of at most 1024 attachment ids'],
    [() => editor.edit(15, 'q2', { removeAttachments: huge }), 'removeAttachments must be an array of at most 1024 attachment ids'],
    [() => editor.edit(15, 'q2', { removeAttachments: 'img-A' }), 'removeAttachments must be an array of at most 1024 attachment ids'],
    [() => editor.edit(15, 'q2', { removeAttachments: [1] }), 'removeAttachments[0] must be an attachment id (a string); got number'],
    [() => editor.regenerate(17, { text: 5 }), 'text must be a string; got number'],
  ]) {
    assert.deepEqual(await call(), { ok: false, error: { code: 'bad-request', message } });
  }
  assert.deepEqual({ sent, length: session.length }, before, 'nothing sent, nothing written');
  const ok = await editor.edit(2, 'q1 again');
  assert.equal(ok.ok, true);
  assert.equal(session.length, before.length + 1);
});

// A fetch over the route that holds operations (not state reads) until
// released: go() answers them, cut() lets the host write them and then
// fails the fetch (a connection lost on the way back), fail() fails them
// unsent.
function gated(fetch) {
  const held = [];
  let sent = 0;
  const g = (url, init) => {
    if (new URL(url).pathname.endsWith('/state')) return fetch(url, init);
    sent++;
    return new Promise((resolve, reject) => held.push({
      go: () => fetch(url, init).then(resolve, reject),
      cut: () => fetch(url, init).then(() => reject(new TypeError('network cut'))),
      fail: () => reject(new TypeError('Failed to fetch')),
    }));
  };
  const each = (how) => Promise.all(held.splice(0).map((h) => h[how]()));
  return { fetch: g, sent: () => sent, go: () => each('go'), cut: () => each('cut'), fail: () => each('fail') };
}
const flush = () => new Promise((r) => { setTimeout(r, 0); });

// An editor mounted over fixture F whose requests go through gated(), idle.
async function gatedEditor(t) {
  const s = setup(t);
  const g = gated(s.fetch);
  const editor = await mountMessageEditor(s.root, { sessionId: 'sF', baseURL: ORIGIN, fetch: g.fetch });
  t.after(() => editor.destroy());
  await editor.whenIdle();
  return { ...s, g, editor };
}

test('S92: Enter, Save, Esc and Cancel while a save is in flight send nothing more and keep the editor; an answer lost after the write shows the host\'s state (S98)', async (t) => {
  const { session, row, g, editor } = await gatedEditor(t);
  row(2).querySelector('.tc-me-pencil').click();
  row(2).querySelector('.tc-me-input').value = 'A';
  key(row(2).querySelector('.tc-me-input'), 'Enter');
  await flush();
  key(row(2).querySelector('.tc-me-input'), 'Enter');
  row(2).querySelector('.tc-me-save').dispatchEvent(new MouseEvent('click', { bubbles: true }));
  key(row(2).querySelector('.tc-me-input'), 'Escape');
  row(2).querySelector('.tc-me-cancel').dispatchEvent(new MouseEvent('click', { bubbles: true }));
  await flush();
  assert.equal(g.sent(), 1, 'one request');
  assert.ok(row(2).querySelector('.tc-me-card'), 'Esc and Cancel do not drop a save in flight');
  await g.cut();
  await editor.whenIdle();
  assert.equal(session.length, 21, 'the host wrote it');
  assert.match(row(2).querySelector('.tc-me-error').textContent, /^The host's answer did not arrive: network cut\. It may have been saved/);
  assert.equal(row(2).querySelector('.tc-me-input').value, 'A', 'the editor keeps the text');
  key(row(2).querySelector('.tc-me-input'), 'Escape');
  assert.equal(row(2).querySelector('.tc-me-text').textContent, 'A', 'the row shows what the host has, not the old text');
  assert.ok(row(2).querySelector('.tc-me-undo'));
});

test('S4: destroy() while calls are in flight: they settle with the host\'s answer, whenIdle() settles and refresh() stays quiet (they said internal while the write landed)', async (t) => {
  const { session, root, g, editor } = await gatedEditor(t);
  const errors = [];
  const was = console.error;
  console.error = (...a) => errors.push(a.join(' '));
  t.after(() => { console.error = was; });
  const edit = editor.edit(2, 'landed');
  const regen = editor.regenerate(17);
  const lost = editor.undo(15);
  await flush();
  editor.destroy();
  const idle = editor.whenIdle();
  assert.equal(root.querySelector('[data-tc-me]'), null);
  const refreshed = editor.refresh();
  await g.go();
  assert.deepEqual(await settles(refreshed), ['settled', undefined]);
  const [e, r, u] = await Promise.all([settles(edit), settles(regen), settles(lost)]);
  assert.deepEqual([e[0], e[1].ok, e[1].value.seq], ['settled', true, 20]);
  assert.deepEqual([r[0], r[1].ok, r[1].value.shadowedSeqs], ['settled', true, [15, 17]]);
  assert.deepEqual([u[0], u[1].ok, u[1].error.code], ['settled', false, 'nothing-to-undo']);
  assert.deepEqual(await settles(idle), ['settled', undefined]);
  assert.equal(session.length, 22);
  assert.equal(root.querySelector('[data-tc-me]'), null, 'nothing drawn after destroy');
  assert.deepEqual(errors, [], 'no call into a released function');
  await assert.rejects(editor.edit(2, 'x'), { message: 'message editor is destroyed' });
});

test('S97: the root detached or its rows replaced while a save is in flight: the answer lands on the rows present, a refusal keeps the draft, and the banner shows once the root is back', async (t) => {
  const { session, root, row, g, editor } = await gatedEditor(t);
  const save = (text) => {
    row(2).querySelector('.tc-me-pencil').click();
    row(2).querySelector('.tc-me-input').value = text;
    key(row(2).querySelector('.tc-me-input'), 'Enter');
  };
  // Detached mid-save, answered, attached again.
  save('A');
  await flush();
  const parent = root.parentNode;
  root.remove();
  await g.go();
  await editor.whenIdle();
  parent.append(root);
  assert.equal(session.length, 21);
  assert.equal(row(2).querySelector('.tc-me-text').textContent, 'A');
  // The host redraws every row mid-save; the save is refused.
  save('B');
  await flush();
  const fresh = [...root.children].map((old) => {
    const r = document.createElement('article');
    r.dataset.seq = old.dataset.seq;
    r.innerHTML = '<div data-part="body">stock</div><div data-part="actions"></div>';
    return r;
  });
  root.replaceChildren(...fresh);
  await flush();
  assert.equal(row(2).querySelector('.tc-me-input').readOnly, true, 'the redrawn editor is still busy');
  await g.fail();
  await editor.whenIdle();
  assert.equal(session.length, 21);
  assert.equal(row(2).querySelector('.tc-me-input').value, 'B');
  assert.match(row(2).querySelector('.tc-me-error').textContent, /^The host's answer did not arrive/);
  // A host without the route answers while the root is detached.
  const other = document.createElement('section');
  const r9 = document.createElement('div');
  r9.dataset.seq = '2';
  other.append(r9);
  document.body.append(other);
  let release;
  const late = new Promise((r) => { release = r; });
  const skew = await mountMessageEditor(other, { sessionId: 'sF', baseURL: ORIGIN, fetch: async () => { await late; return new Response('nope', { status: 404 }); } });
  t.after(() => skew.destroy());
  other.remove();
  release();
  await skew.whenIdle();
  document.body.append(other);
  const r3 = document.createElement('div');
  r3.dataset.seq = '3';
  other.append(r3); // a row change draws again
  await flush();
  await skew.whenIdle();
  assert.equal(other.previousSibling?.className, 'tc-me-banner');
  assert.match(other.previousSibling.textContent, /Restart DeepSeek Harness/);
});

// Two tabs on one session (C62: the last save wins). Another tab's edit
// changes no row here, so the page learns of it from the other tab
// (BroadcastChannel) and reads the state again (S98): an untouched draft
// follows the message, so an unchanged Enter writes nothing (S48), and a
// typed draft is not saved over the change until the user saves again.
test('S48/S98: another tab\'s edit reaches an open editor: an untouched draft follows it, a typed one asks before replacing it', async (t) => {
  const { session, root, fetch } = setup(t);
  const rootB = root.cloneNode(true);
  document.body.append(rootB);
  const a = await mountMessageEditor(root, { sessionId: 'sF', baseURL: ORIGIN, fetch });
  // Tab B's state reads, counted: it reads again when the other tab's word reaches it.
  let readsB = 0;
  const fetchB = (url, init) => {
    if (new URL(url).pathname.endsWith('/state')) readsB++;
    return fetch(url, init);
  };
  const b = await mountMessageEditor(rootB, { sessionId: 'sF', baseURL: ORIGIN, fetch: fetchB });
  t.after(() => { a.destroy(); b.destroy(); });
  await a.whenIdle();
  await b.whenIdle();
  const rowA = () => root.querySelector('[data-seq="2"]');
  const rowB = () => rootB.querySelector('[data-seq="2"]');
  // Waits until tab B has read the state again since `since`, and is idle.
  const told = async (since) => {
    for (const end = Date.now() + 10_000; readsB <= since;) {
      if (Date.now() > end) assert.fail('tab B never heard of the other tab\'s edit');
      await new Promise((r) => { setTimeout(r, 10); });
    }
    await b.whenIdle();
  };

  rowB().querySelector('.tc-me-pencil').click();
  assert.equal(rowB().querySelector('.tc-me-input').value, 'q1');
  await b.whenIdle();
  let since = readsB;
  rowA().querySelector('.tc-me-pencil').click();
  rowA().querySelector('.tc-me-input').value = 'A-edit';
  key(rowA().querySelector('.tc-me-input'), 'Enter');
  await a.whenIdle();
  assert.equal(session.length, 21);
  await told(since);
  assert.equal(rowB().querySelector('.tc-me-input')?.value, 'A-edit', 'the untouched draft followed the message');
  key(rowB().querySelector('.tc-me-input'), 'Enter');
  await b.whenIdle();
  assert.equal(session.length, 21, 'an unchanged Enter wrote nothing');
  assert.equal(rowB().querySelector('.tc-me-card'), null);

  rowB().querySelector('.tc-me-pencil').click();
  rowB().querySelector('.tc-me-input').value = 'B-edit';
  rowB().querySelector('.tc-me-input').dispatchEvent(new window.Event('input', { bubbles: true }));
  await b.whenIdle();
  since = readsB;
  rowA().querySelector('.tc-me-pencil').click();
  rowA().querySelector('.tc-me-input').value = 'A-again';
  key(rowA().querySelector('.tc-me-input'), 'Enter');
  await a.whenIdle();
  assert.equal(session.length, 22);
  await told(since);
  assert.equal(rowB().querySelector('.tc-me-input').value, 'B-edit', 'the typed draft stays');
  key(rowB().querySelector('.tc-me-input'), 'Enter');
  await b.whenIdle();
  assert.equal(session.length, 22, 'not saved over a change it had not seen');
  assert.match(rowB().querySelector('.tc-me-error').textContent, /changed elsewhere/);
  key(rowB().querySelector('.tc-me-input'), 'Enter');
  await b.whenIdle();
  assert.equal(session.length, 23, 'the second Enter replaces it');
  assert.equal(rowB().querySelector('.tc-me-text').textContent, 'B-edit');
});

// Found in the real harness: an open draft was gone after a session switch
// or a reload. What the user typed is kept in the tab's session storage and
// the editor reopens with it; a closed editor leaves nothing behind.
test('a typed draft survives a remount (a session switch, a reload); Esc forgets it', async (t) => {
  const { session, root, fetch } = setup(t);
  sessionStorage.clear();
  let editor = await mountMessageEditor(root, { sessionId: 'sF', baseURL: ORIGIN, fetch });
  await editor.whenIdle();
  const row = () => root.querySelector('[data-seq="2"]');
  row().querySelector('.tc-me-pencil').click();
  const ta = row().querySelector('.tc-me-input');
  ta.value = 'half-written \uD83D\uDE00 and \uD800';
  ta.dispatchEvent(new window.Event('input', { bubbles: true }));
  assert.match(sessionStorage.getItem('tavern-core-message-editor:drafts:sF'), /half-written/);
  editor.destroy();
  assert.equal(row().querySelector('.tc-me-card'), null);
  editor = await mountMessageEditor(root, { sessionId: 'sF', baseURL: ORIGIN, fetch });
  t.after(() => editor.destroy());
  await editor.whenIdle();
  assert.equal(row().querySelector('.tc-me-input')?.value, 'half-written \uD83D\uDE00 and \uD800', 'the editor reopened with the draft, exactly');
  key(row().querySelector('.tc-me-input'), 'Escape');
  assert.equal(sessionStorage.getItem('tavern-core-message-editor:drafts:sF'), null);
  assert.equal(session.length, 20, 'nothing was saved');
});

// A page whose storage throws (off, a sandboxed frame, a full quota): the
// editor works as before, drafts kept only while the page lives.
test('drafts: a sessionStorage that throws changes nothing else; the next calls work', async (t) => {
  const { session, root, fetch } = setup(t);
  const desc = Object.getOwnPropertyDescriptor(globalThis, 'sessionStorage');
  Object.defineProperty(globalThis, 'sessionStorage', { configurable: true, get() { throw new Error('storage refused'); } });
  t.after(() => { if (desc) Object.defineProperty(globalThis, 'sessionStorage', desc); else delete globalThis.sessionStorage; });
  const editor = await mountMessageEditor(root, { sessionId: 'sF', baseURL: ORIGIN, fetch });
  t.after(() => editor.destroy());
  await editor.whenIdle();
  const row = () => root.querySelector('[data-seq="2"]');
  row().querySelector('.tc-me-pencil').click();
  const ta = row().querySelector('.tc-me-input');
  ta.value = 'saved anyway';
  ta.dispatchEvent(new window.Event('input', { bubbles: true }));
  key(ta, 'Enter');
  await editor.whenIdle();
  assert.equal(session.length, 21);
  assert.equal(row().querySelector('.tc-me-text').textContent, 'saved anyway');
  assert.equal((await editor.undo(2)).ok, true, 'the next call works');
});

test('S90 S93: the widget brings zero-specificity defaults (a marked chip is struck through, a message keeps its line breaks) that page CSS overrides', async (t) => {
  const { root, fetch } = setup(t);
  const editor = await mountMessageEditor(root, { sessionId: 'sF', baseURL: ORIGIN, fetch });
  t.after(() => editor.destroy());
  const chip = document.createElement('button');
  chip.className = 'tc-me-chip tc-me-marked';
  const text = document.createElement('div');
  text.className = 'tc-me-text';
  root.append(chip, text);
  t.after(() => { chip.remove(); text.remove(); });
  assert.match(getComputedStyle(chip).textDecoration, /line-through/);
  assert.equal(getComputedStyle(text).whiteSpace, 'pre-wrap');
  const page = document.createElement('style');
  page.textContent = '.tc-me-chip { text-decoration: none; }';
  document.head.append(page);
  t.after(() => page.remove());
  assert.doesNotMatch(getComputedStyle(chip).textDecoration, /line-through/);
  // One sheet per document, however many editors.
  const sheets = document.adoptedStyleSheets.length;
  const second = await mountMessageEditor(root, { sessionId: 'sF', baseURL: ORIGIN, fetch });
  second.destroy();
  assert.equal(document.adoptedStyleSheets.length, sheets);
});

test('S90: a widget inside a shadow root gets its defaults in that shadow root, once', async (t) => {
  const { root, fetch } = setup(t);
  const shadowHost = document.createElement('div');
  document.body.append(shadowHost);
  t.after(() => shadowHost.remove());
  const shadow = shadowHost.attachShadow({ mode: 'open' });
  shadow.append(root);
  const before = shadow.adoptedStyleSheets.length;
  const editor = await mountMessageEditor(root, { sessionId: 'sF', baseURL: ORIGIN, fetch });
  t.after(() => editor.destroy());
  assert.equal(shadow.adoptedStyleSheets.length, before + 1, 'document sheets do not reach a shadow tree');
  assert.match([...shadow.adoptedStyleSheets.at(-1).cssRules].map((r) => r.cssText).join('\n'), /tc-me-marked/);
  const chip = document.createElement('button');
  chip.className = 'tc-me-chip tc-me-marked';
  root.append(chip);
  assert.match(getComputedStyle(chip).textDecoration, /line-through/);
  const second = await mountMessageEditor(root, { sessionId: 'sF', baseURL: ORIGIN, fetch });
  second.destroy();
  assert.equal(shadow.adoptedStyleSheets.length, before + 1, 'one sheet per tree');
});

test('S91: Regenerate this turn hides the reply that had the focus; the row above takes it (it fell to the body)', async (t) => {
  const { root, fetch, row } = setup(t);
  const editor = await mountMessageEditor(root, { sessionId: 'sF', baseURL: ORIGIN, fetch });
  t.after(() => editor.destroy());
  await editor.whenIdle();
  const regen = row(17).querySelector('.tc-me-regenerate');
  regen.focus();
  regen.click();
  await editor.whenIdle();
  assert.equal(row(17).style.display, 'none');
  const focused = document.activeElement;
  assert.notEqual(focused, document.body);
  const at = focused.closest('[data-seq]');
  assert.ok(at && Number(at.dataset.seq) < 17 && at.style.display !== 'none', `focus on a visible row above, not ${focused.outerHTML}`);
  assert.ok(focused.matches('.tc-me-pencil'), 'its pencil first');
});

test('S91: the focus stays on the row after Undo, whose button is disabled and then gone (it fell to the body)', async (t) => {
  const { root, fetch, row } = setup(t);
  const editor = await mountMessageEditor(root, { sessionId: 'sF', baseURL: ORIGIN, fetch });
  t.after(() => editor.destroy());
  await editor.whenIdle();
  await editor.edit(2, 'q1*');
  await editor.whenIdle();
  const undo = row(2).querySelector('.tc-me-undo');
  undo.focus();
  undo.click();
  await editor.whenIdle();
  assert.equal(row(2).querySelector('.tc-me-undo'), null);
  assert.equal(document.activeElement, row(2).querySelector('.tc-me-pencil'));
});
