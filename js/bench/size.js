// `make size`: the browser module's size as a page downloads it and, given
// a build with symbols as the second argument, where the code bytes are, per
// package (the function bodies of the wasm code section, named by its name
// section; `go tool nm` does not read wasm).
import { readFileSync } from 'node:fs';
import zlib from 'node:zlib';
import { BROTLI_BUDGET, brotliSize } from './size-budget.js';

const path = process.argv[2] ?? new URL('../tavern-core.wasm', import.meta.url);
const b = readFileSync(path);
const br = brotliSize(b);
const gz = zlib.gzipSync(b, { level: 9 }).length;
const kb = (n) => `${(n / 1024).toFixed(0)} KiB`;
console.log(`tavern-core.wasm: ${b.length} bytes raw (${kb(b.length)}), ${br} bytes brotli -q11 (${kb(br)}; budget ${BROTLI_BUDGET}${br > BROTLI_BUDGET ? ', OVER' : ''}), ${gz} bytes gzip -9 (${kb(gz)})`);

if (process.argv[3]) {
  const w = readFileSync(process.argv[3]);
  let p = 8;
  const leb = () => { let r = 0; let s = 0; let x; do { x = w[p++]; r |= (x & 0x7f) << s; s += 7; } while (x & 0x80); return r >>> 0; };
  let imported = 0;
  const bodies = [];
  const names = new Map();
  while (p < w.length) {
    const id = w[p++];
    const len = leb();
    const end = p + len;
    if (id === 2) { // imports: count the functions, which come first in the index space
      for (let n = leb(), i = 0; i < n; i++) {
        const skip = () => { const l = leb(); p += l; }; skip(); skip();
        const kind = w[p++];
        if (kind === 0) { leb(); imported++; } else if (kind === 1) { p++; const f = leb(); leb(); if (f & 1) leb(); } else if (kind === 2) { const f = leb(); leb(); if (f & 1) leb(); } else p += 2;
      }
    } else if (id === 10) {
      for (let n = leb(), i = 0; i < n; i++) { const l = leb(); bodies.push(l); p += l; }
    } else if (id === 0) {
      const nl = leb();
      const name = w.subarray(p, p + nl).toString();
      p += nl;
      if (name === 'name') {
        while (p < end) {
          const sub = w[p++];
          const sl = leb();
          const se = p + sl;
          if (sub === 1) for (let n = leb(), i = 0; i < n; i++) { const idx = leb(); const l = leb(); names.set(idx, w.subarray(p, p + l).toString()); p += l; }
          p = se;
        }
      }
    }
    p = end;
  }
  const pkgs = new Map();
  const fns = [];
  let total = 0;
  bodies.forEach((size, i) => {
    const fn = (names.get(i + imported) ?? '?').replace(/\(.*$/, '');
    fns.push([fn, size]);
    const slash = fn.lastIndexOf('/');
    const dot = fn.indexOf('.', slash + 1);
    const pkg = dot > 0 ? fn.slice(0, dot) : fn;
    pkgs.set(pkg, (pkgs.get(pkg) ?? 0) + size);
    total += size;
  });
  console.log(`code: ${total} bytes in ${bodies.length} functions; by package (Go's names, / as _):`);
  for (const [pkg, size] of [...pkgs].sort((x, y) => y[1] - x[1]).slice(0, 16)) {
    console.log(`  ${String(size).padStart(9)}  ${(100 * size / total).toFixed(1).padStart(4)} %  ${pkg}`);
  }
  // SIZE_TOP=n also lists the n largest functions.
  const top = Number(process.env.SIZE_TOP ?? 0);
  if (top > 0) {
    console.log(`the ${top} largest functions:`);
    for (const [fn, size] of fns.sort((x, y) => y[1] - x[1]).slice(0, top)) console.log(`  ${String(size).padStart(9)}  ${fn}`);
  }
}
