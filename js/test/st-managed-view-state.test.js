// Managed mode's view state (sillytavern/managed/view-state.js): what
// SillyTavern keeps only in a message's element (delete mode's checkboxes
// and selection, an opened reasoning block), put back on the element
// managed mode renders when the message mounts again. Found by a tester in
// the real SillyTavern (2026-12-05): in delete mode, messages mounted after
// the mode began had no checkbox and lost the selection's highlight.
import './happydom-preload.cjs';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createViewState, contextLineIndex } from '../../sillytavern/managed/view-state.js';

const flush = () => new Promise((r) => setTimeout(r, 0));

// SillyTavern's message template, the parts this module touches.
function mes(mesid) {
  const el = document.createElement('div');
  el.className = 'mes';
  el.setAttribute('mesid', String(mesid));
  el.innerHTML = '<div class="for_checkbox"></div><input type="checkbox" class="del_checkbox">' +
    '<div class="mes_block"><details class="mes_reasoning_details"><summary>Thought</summary>…</details>' +
    '<div class="mes_text">text</div></div>';
  return el;
}

function setup(t, options = {}) {
  document.body.replaceChildren();
  const bar = document.createElement('div');
  bar.id = 'dialogue_del_mes';
  const root = document.createElement('div');
  root.id = 'chat';
  document.body.append(root, bar);
  const chat = Array.from({ length: 20 }, (_, i) => ({ mes: `m${i}` }));
  const view = createViewState({ root, chat: () => chat, ...options });
  t.after(() => view.dispose());
  for (let i = 10; i < 20; i++) root.append(mes(i));
  // SillyTavern's delete mode, as script.js starts and ends it.
  const enter = () => {
    bar.style.display = 'block';
    for (const box of document.querySelectorAll('.del_checkbox')) {
      box.style.display = 'grid';
      box.parentNode.querySelector('.for_checkbox').style.display = 'none';
    }
  };
  const leave = () => {
    bar.style.display = 'none';
    for (const box of document.querySelectorAll('.del_checkbox')) {
      box.style.display = 'none';
      box.parentNode.querySelector('.for_checkbox').style.display = 'block';
      box.parentNode.classList.remove('selected');
      box.checked = false;
    }
  };
  const find = (i) => root.querySelector(`:scope > .mes[mesid="${i}"]`);
  return { root, chat, view, enter, leave, find };
}

test('delete mode: a message mounted during it gets its checkbox, and the selection when it is at or after the clicked one', async (t) => {
  const { chat, view, enter, leave, find } = setup(t);
  const outside = mes(3);
  view.restore(outside, chat[3], 3);
  assert.equal(outside.querySelector('.del_checkbox').style.display, '', 'no delete mode: untouched');

  enter();
  await flush();
  const before = mes(4);
  view.restore(before, chat[4], 4);
  assert.equal(before.querySelector('.del_checkbox').style.display, 'grid', 'clickable, as SillyTavern shows it');
  assert.equal(before.querySelector('.for_checkbox').style.display, 'none');
  assert.equal(before.classList.contains('selected'), false, 'nothing selected yet');

  find(15).querySelector('.mes_text').click(); // a click anywhere in the message selects it
  for (const [i, selected] of [[14, false], [15, true], [18, true]]) {
    const el = mes(i);
    view.restore(el, chat[i], i);
    assert.equal(el.classList.contains('selected'), selected, `message ${i}`);
    assert.equal(el.querySelector('.del_checkbox').checked, selected, `message ${i}'s checkbox`);
  }

  leave();
  await flush();
  const after = mes(18);
  view.restore(after, chat[18], 18);
  assert.equal(after.querySelector('.del_checkbox').style.display, '', 'the mode ended: untouched');
  assert.equal(after.classList.contains('selected'), false);

  enter();
  await flush();
  const again = mes(18);
  view.restore(again, chat[18], 18);
  assert.equal(again.classList.contains('selected'), false, 'a new delete mode starts with no selection');
  assert.equal(again.querySelector('.del_checkbox').style.display, 'grid');
});

test('a click outside delete mode, or outside #chat\'s own messages, selects nothing', async (t) => {
  const { root, chat, view, enter, find } = setup(t);
  find(12).click();
  enter();
  await flush();
  const nested = mes(2); // a .mes inside a message (a quoted card), not one of #chat's own
  find(13).querySelector('.mes_text').append(nested);
  nested.click();
  const el = mes(16);
  view.restore(el, chat[16], 16);
  assert.equal(el.classList.contains('selected'), false);
  assert.equal(root.querySelectorAll('.selected').length, 0);
});

test('a reasoning block the user opened or closed is opened or closed again when its message mounts anew', async (t) => {
  const { chat, view, find } = setup(t);
  const d = find(12).querySelector('details');
  d.open = true;
  d.dispatchEvent(new window.Event('toggle'));
  const shut = find(13).querySelector('details');
  shut.open = false;
  shut.dispatchEvent(new window.Event('toggle'));

  const again = mes(12);
  view.restore(again, chat[12], 12);
  assert.equal(again.querySelector('details').open, true);
  const closed = mes(13);
  closed.querySelector('details').open = true; // SillyTavern's auto-expand
  view.restore(closed, chat[13], 13);
  assert.equal(closed.querySelector('details').open, false, 'the user closed it');
  const untouched = mes(14);
  view.restore(untouched, chat[14], 14);
  assert.equal(untouched.querySelector('details').open, false, 'never toggled: as SillyTavern rendered it');
  // The state follows the message object, not the mesid.
  const moved = mes(11);
  view.restore(moved, chat[12], 11);
  assert.equal(moved.querySelector('details').open, true);
});

// The context line (found by a tester in the real SillyTavern, 2026-12-05):
// SillyTavern's setInContextMessages counts rendered messages back from the
// end; with only the window rendered the class landed on the wrong message,
// and messages mounted later never had it.
test('contextLineIndex counts messages back from the end as SillyTavern counts rendered ones', () => {
  const plain = Array.from({ length: 10 }, () => ({}));
  assert.equal(contextLineIndex(plain, 4), 4, 'k = 10 - 4 = 6th from the end');
  assert.equal(contextLineIndex(plain, 0), 0, 'the whole chat in context: the first message');
  assert.equal(contextLineIndex(plain, undefined), 0, 'never stored: the first message, as vanilla\'s fallback');
  assert.equal(contextLineIndex([], 0), -1);
  const mixed = plain.map((m, i) => (i === 8 || i === 6 ? { is_system: true } : i === 7 ? { is_system: true, extra: { tool_invocations: [] } } : m));
  // k = 4 counted from the end: 9, 7 (a tool call), 5, 4; 8 and 6 are hidden/system.
  assert.equal(contextLineIndex(mixed, 6), 4);
});

test('the context line goes to the message SillyTavern means, mounted now or later; other class changes leave it', async (t) => {
  let lastId;
  const { root, chat, view } = setup(t, { contextStart: () => lastId });
  const marked = () => [...root.querySelectorAll(':scope > .mes.lastInContext')].map((e) => e.getAttribute('mesid'));
  // SillyTavern, with 15 messages in context: every .mes loses the class,
  // the 15th rendered one from the end would get it; with 10 rendered, the
  // first rendered one does (its fallback). It stores 20 - 15 = 5.
  const place = (k) => {
    for (const el of root.querySelectorAll('.mes')) el.classList.remove('lastInContext');
    lastId = Math.max(0, chat.length - k);
    const all = [...root.querySelectorAll(':scope > .mes')];
    (all.at(-k) ?? all[0]).classList.add('lastInContext');
  };
  place(15);
  await flush();
  assert.deepEqual(marked(), [], 'message 5 is not mounted: no mounted message has the line');
  assert.equal(view.contextIndex(), 5);
  const five = mes(5);
  view.restore(five, chat[5], 5);
  assert.equal(five.classList.contains('lastInContext'), true, 'message 5 has it when it mounts');
  const six = mes(6);
  view.restore(six, chat[6], 6);
  assert.equal(six.classList.contains('lastInContext'), false);

  place(4); // 16: mounted
  await flush();
  assert.deepEqual(marked(), ['16']);
  root.querySelector('[mesid="16"]').classList.toggle('last_mes');
  root.querySelector('[mesid="12"]').classList.add('selected');
  await flush();
  assert.deepEqual(marked(), ['16'], 'other class changes do not move it');
  const again = mes(16); // drawn again (scrolled out and back)
  view.restore(again, chat[16], 16);
  assert.equal(again.classList.contains('lastInContext'), true);
  chat.splice(0, 1); // the message moves: the line follows the message, not the mesid
  assert.equal(view.contextIndex(), 15);
});

test('remember, isOpen and forgetReasoning: a range command\'s state for messages not mounted', (t) => {
  const { chat, view } = setup(t);
  assert.equal(view.isOpen(chat[3], false), false, 'nobody touched it: the default');
  assert.equal(view.isOpen(chat[3], true), true);
  view.remember(chat[3], true);
  assert.equal(view.isOpen(chat[3], false), true);
  const el = mes(3);
  view.restore(el, chat[3], 3);
  assert.equal(el.querySelector('details').open, true);
  view.forgetReasoning();
  const after = mes(3);
  view.restore(after, chat[3], 3);
  assert.equal(after.querySelector('details').open, false, 'as SillyTavern renders it');
  view.remember(null, true); // not a message: nothing
});

test('once SillyTavern renders #chat itself again (managed mode stood down), its context line is left where it put it', async (t) => {
  const { root, view } = setup(t, { contextStart: () => 5, managing: () => false });
  root.querySelector('[mesid="10"]').classList.add('lastInContext'); // vanilla's fallback: the first one shown
  await flush();
  assert.deepEqual([...root.querySelectorAll('.lastInContext')].map((e) => e.getAttribute('mesid')), ['10']);
  assert.equal(view.contextIndex(), -1);
});
