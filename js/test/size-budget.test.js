// Issue 13: the browser module stays within its download budget, brotli
// at quality 11 as `make size` measures it (js/bench/size-budget.js). A
// change that takes it over fails here, not at the next size check.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { BROTLI_BUDGET, brotliSize } from '../bench/size-budget.js';

test('the browser module is within its brotli budget', () => {
  const size = brotliSize(readFileSync(new URL('../tavern-core.wasm', import.meta.url)));
  assert.ok(size <= BROTLI_BUDGET, `tavern-core.wasm is ${size} bytes brotli, over the budget of ${BROTLI_BUDGET} (make size says where the bytes are)`);
});
