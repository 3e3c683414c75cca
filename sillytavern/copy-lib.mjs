// Copies the browser modules the extension loads into <out>/lib: the entry
// modules and every module they import relatively (followed, so a module
// added to js/ later is never missing), plus tavern-core.wasm and Go's
// wasm_exec.js. Usage: node sillytavern/copy-lib.mjs <js dir> <out dir>
import { copyFileSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const [src, out] = process.argv.slice(2);
const ENTRIES = ['index.js', 'message-takeover.js', 'takeover-host.js', 'editor-ops.js', 'chat-surface.js'];
const ASSETS = ['tavern-core.wasm', 'wasm_exec.js'];
const IMPORT = /(?:\bfrom\s*|\bimport\s*\(\s*)'(\.\/[^']+\.js)'/g;

mkdirSync(join(out, 'lib'), { recursive: true });
const seen = new Set();
const queue = [...ENTRIES];
while (queue.length) {
  const name = queue.shift();
  if (seen.has(name)) continue;
  seen.add(name);
  const text = readFileSync(join(src, name), 'utf8');
  for (const [, rel] of text.matchAll(IMPORT)) queue.push(rel.slice(2));
  copyFileSync(join(src, name), join(out, 'lib', name));
}
for (const a of ASSETS) copyFileSync(join(src, a), join(out, 'lib', a));
console.log(`sillytavern: ${seen.size} modules + ${ASSETS.join(', ')} in ${join(out, 'lib')}`);
