// Streaming into reasoning sections on a core handle takes shortcuts: Go
// keeps the section layout between ops, appends go through the handle's own
// append, the value stays cut where the next append lands, and a standing
// permit lets plain appends skip Go until the next other op (O33–O38,
// issue 14). Whatever the shortcut, the results, errors and onUpdate calls
// must equal the general path's, which a duck-typed handle always takes.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as ops from '../editor-ops.js';
import { H } from './helpers.js';

function rng(seed) {
  let s = seed >>> 0;
  return (n) => { s ^= s << 13; s >>>= 0; s ^= s >>> 17; s ^= s << 5; s >>>= 0; return s % n; };
}

// A duck-typed handle over plain strings: the core's general path.
function duck(reasoning) {
  const d = { text: '', reasoning, writes: 0 };
  return Object.assign(d, {
    getText: () => d.text,
    getReasoning: () => d.reasoning,
    setText(v) { d.text = v; d.writes++; },
    setReasoning(v) { d.reasoning = v; d.writes++; },
  });
}

const IDS = ['a', 'b', ' a ', 'planner-0'];
const DELTAS = ['x', 'abcd', 'tok ', '\n', 'a\n', '\n\n', '### [b]', '\n### [a] y\n', '##', '# [', 'z]', '',
  '\n#', '\n##', '\n### ', '[b]', '# [a]', ' [b] q'];

const codeOf = (fn) => { try { fn(); return null; } catch (e) { return e.code; } };

test('O36 O38: a core handle streaming into sections equals the general path, whatever else writes', () => {
  for (let round = 0; round < 120; round++) {
    const r = rng(round + 1);
    const seed = ['', '### [a]\n', 'intro\n', '### [b] (x)\nbody'][r(4)];
    const immediate = r(2) === 0;
    const h = H({ originalReasoning: seed, flushIntervalMs: immediate ? 0 : 33 });
    const d = duck(seed);
    let updates = 0;
    let reenter = false;
    h.setOnUpdate(() => {
      updates++;
      if (reenter) { reenter = false; h.appendReasoning('!'); d.reasoning += '!'; }
    });
    for (let step = 0; step < 60; step++) {
      const id = IDS[r(IDS.length)];
      const what = r(20);
      let a;
      let b;
      if (what < 12) {
        const delta = DELTAS[r(DELTAS.length)];
        a = codeOf(() => ops.appendToReasoningSection(h, id, delta));
        b = codeOf(() => ops.appendToReasoningSection(d, id, delta));
      } else if (what < 14) {
        a = codeOf(() => ops.ensureReasoningSection(h, id));
        b = codeOf(() => ops.ensureReasoningSection(d, id));
      } else if (what < 16) {
        const st = ['done', '', null][r(3)];
        a = codeOf(() => ops.markReasoningSectionStatus(h, id, st));
        b = codeOf(() => ops.markReasoningSectionStatus(d, id, st));
      } else if (what === 16) {
        h.setReasoning(h.getReasoning() + 'w'); d.reasoning += 'w';
      } else if (what === 17) {
        h.appendReasoning('\nq'); d.reasoning += '\nq';
      } else if (what === 18) {
        ops.appendReasoning(h, 'y'); d.reasoning += 'y';
      } else if (immediate) {
        reenter = true; // this delivery writes reasoning from inside onUpdate
        ops.appendText(h, 't');
      }
      assert.equal(a, b, `round ${round} step ${step}: error codes`);
      assert.equal(h.getReasoning(), d.reasoning, `round ${round} step ${step}`);
    }
    h.discard();
    if (immediate) assert.ok(updates > 0);
  }
});

// The same stream into a core handle and a duck: `count` appends of
// delta(i) to id(i) (and, when given, other writes between), a mark, one
// more append; both end with the same reasoning.
function streamBoth({ seed = '', count, delta, id, between = () => {}, last }) {
  const h = H({ originalReasoning: seed });
  const d = duck(seed);
  for (const x of [h, d]) { ops.ensureReasoningSection(x, 'critic-0'); ops.ensureReasoningSection(x, 'planner-0'); }
  for (let i = 0; i < count; i++) {
    for (const x of [h, d]) ops.appendToReasoningSection(x, id(i), delta(i));
    between(i, h, d);
  }
  for (const x of [h, d]) { ops.markReasoningSectionStatus(x, 'planner-0', 'done'); ops.appendToReasoningSection(x, 'planner-0', last); }
  assert.equal(h.getReasoning(), d.reasoning);
  h.commit();
}

test('O36: a long stream through a standing permit, then a mark, then more', () => {
  streamBoth({
    count: 3000,
    delta: (i) => (i % 97 === 0 ? 'line\n' : 'tok '),
    id: (i) => (i % 500 === 250 ? 'critic-0' : 'planner-0'),
    last: 'after',
  });
});

test('O36: deltas ending in line breaks stream before the trailing run, over a long seed, as the general path does', () => {
  const deltas = ['ab\n', 'tok ', '\n', 'x\n\n', 'y'];
  streamBoth({
    seed: `### [notes]\n${'n'.repeat(100_000)}\n`,
    count: 2000,
    delta: (i) => deltas[i % deltas.length],
    id: (i) => (i % 700 === 350 ? 'critic-0' : 'planner-0'),
    between: (i, h, d) => { if (i % 500 === 499) { h.appendReasoning('\n'); d.reasoning += '\n'; } },
    last: 'after\n',
  });
});

test('O36 T33: a permit does not outlive the handle: appends after commit throw editor_committed', () => {
  const h = H();
  ops.appendToReasoningSection(h, 'a', 'one');
  ops.appendToReasoningSection(h, 'a', 'two');
  h.commit();
  assert.equal(codeOf(() => ops.appendToReasoningSection(h, 'a', 'three')), 'editor_committed');
  assert.equal(h.getReasoning(), '### [a] (running)\nonetwo');
});
