// `make size`: the browser module's size as a page downloads it.
import { readFileSync } from 'node:fs';
import zlib from 'node:zlib';

const path = process.argv[2] ?? new URL('../tavern-core.wasm', import.meta.url);
const b = readFileSync(path);
const br = zlib.brotliCompressSync(b, {
  params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 11, [zlib.constants.BROTLI_PARAM_SIZE_HINT]: b.length },
}).length;
const gz = zlib.gzipSync(b, { level: 9 }).length;
const kb = (n) => `${(n / 1024).toFixed(0)} KiB`;
console.log(`tavern-core.wasm: ${b.length} bytes raw (${kb(b.length)}), ${br} bytes brotli -q11 (${kb(br)}), ${gz} bytes gzip -9 (${kb(gz)})`);
