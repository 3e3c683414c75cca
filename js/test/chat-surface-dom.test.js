// The DOM adapter's style signature (chat-surface-dom.js): the key under
// which a root's computed margins are cached page-wide (C85). Read by names
// and getAttribute, it must be the key the walk of x.attributes gives, or
// roots CSS tells apart would share margins.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import './happydom-preload.cjs';
import { signature, signatureOfAttrs } from '../chat-surface-dom.js';

test('C85: the style signature by attribute names is the attributes walk\'s, mesid and the virtual index left out', () => {
  const els = [];
  const div = (f) => { const e = document.createElement('div'); f(e); els.push(e); return e; };
  div(() => {});
  div((e) => { e.className = 'mes last_mes'; e.setAttribute('mesid', '7'); e.setAttribute('data-tt-virtual-index', '7'); });
  div((e) => { e.id = 'chat'; e.setAttribute('style', 'padding: 2px'); e.setAttribute('data-tt-chat-surface', 'bounded'); });
  div((e) => { e.setAttribute('is_user', 'true'); e.setAttribute('class', 'mes'); e.setAttribute('mesid', '1'); });
  // names getAttribute cannot find as they are: upper case, one name twice
  div((e) => { e.setAttributeNS(null, 'dataX', 'a'); e.className = 'mes'; });
  div((e) => { e.setAttributeNS('urn:a', 'p:k', '1'); e.setAttributeNS('urn:b', 'p:k', '2'); });
  div((e) => { e.setAttributeNS('urn:a', 'p:k', '1'); e.setAttributeNS('urn:b', 'p:k', '3'); });
  const svg = document.createElementNS('http://www.w3.org/2000/svg', 'svg');
  svg.setAttribute('viewBox', '0 0 1 1');
  els.push(svg);
  for (const e of els) assert.equal(signature(e, 'margin-top'), signatureOfAttrs(e, 'margin-top'));
  assert.notEqual(signature(els[5], 'margin-top'), signature(els[6], 'margin-top'));
  assert.equal(signature(els[1], 'margin-top'), 'div\0margin-top\0class=mes last_mes');
});
