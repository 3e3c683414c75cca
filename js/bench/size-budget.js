// The browser module's download budget (issue 13): what `make size` prints
// and js/test/size-budget.test.js holds the build to.
import zlib from 'node:zlib';

export const BROTLI_BUDGET = 700000;

/** The module as a page downloads it: brotli at quality 11. */
export function brotliSize(bytes) {
  return zlib.brotliCompressSync(bytes, {
    params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 11, [zlib.constants.BROTLI_PARAM_SIZE_HINT]: bytes.length },
  }).length;
}
