// Each published module exports at run time exactly the values its .d.ts
// declares: a name the types promise but the module lacks compiles and then
// fails at import (index.d.ts once re-exported message-takeover.js's values,
// which index.js does not export), and a name the module exports without
// types is one TypeScript users cannot reach.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import ts from 'typescript';

const JS = fileURLToPath(new URL('..', import.meta.url));

/** [types file, module file] of every module either package exports. */
function modules() {
  const out = [];
  for (const manifest of ['package.json', 'host/package.json']) {
    const { exports } = JSON.parse(readFileSync(join(JS, manifest), 'utf8'));
    for (const target of Object.values(exports)) {
      if (typeof target === 'object') out.push([join(JS, target.types), join(JS, target.default)]);
    }
  }
  return out;
}

/** Names the declaration file exports with a value's meaning. */
function valueNames(program, file) {
  const checker = program.getTypeChecker();
  const source = program.getSourceFile(file);
  return checker.getExportsOfModule(checker.getSymbolAtLocation(source))
    .filter((sym) => ((sym.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(sym) : sym).flags & ts.SymbolFlags.Value) !== 0)
    .map((sym) => sym.name);
}

const OPTIONS = {
  strict: true, noEmit: true, module: ts.ModuleKind.NodeNext, moduleResolution: ts.ModuleResolutionKind.NodeNext,
  target: ts.ScriptTarget.ES2022, lib: ['lib.es2022.d.ts', 'lib.dom.d.ts'], types: ['node'],
};

/**
 * The values a TypeScript user can import from each module: each candidate
 * used as a value in a scratch file (never written: the compiler host
 * serves it), and those TypeScript refuses dropped (an `export type *`
 * leaves no trace on the symbol itself).
 */
function declaredValues(list) {
  const first = ts.createProgram(list.map(([d]) => d), OPTIONS);
  const candidates = list.map(([d]) => valueNames(first, d));
  const scratch = join(JS, 'test', '__types-exports-check.ts');
  const text = list.map(([d], i) => `import * as m${i} from ${JSON.stringify(d.replace(/\.d\.ts$/, '.js'))};\n`
    + candidates[i].map((n) => `void m${i}.${n};\n`).join('')).join('');
  const host = ts.createCompilerHost(OPTIONS);
  const read = host.readFile.bind(host);
  host.readFile = (f) => (f === scratch ? text : read(f));
  host.fileExists = ((exists) => (f) => f === scratch || exists(f))(host.fileExists.bind(host));
  const program = ts.createProgram([scratch, ...list.map(([d]) => d)], OPTIONS, host);
  const refused = new Set();
  for (const d of ts.getPreEmitDiagnostics(program, program.getSourceFile(scratch))) {
    const line = text.slice(0, d.start).split('\n').length - 1;
    // 1361/1362: "cannot be used as a value because it was exported using
    // 'export type'"; 2339: no such property (what `export type *` gives).
    if (d.code === 1361 || d.code === 1362 || d.code === 2339) refused.add(text.split('\n')[line]);
    else assert.fail(`scratch file: ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`);
  }
  return candidates.map((names, i) => names.filter((n) => !refused.has(`void m${i}.${n};`)).sort());
}

test('every published module exports the values its types declare, and no others', async () => {
  const list = modules();
  assert.ok(list.length >= 8, 'both packages\' modules are found');
  const values = declaredValues(list);
  for (const [i, [types, file]] of list.entries()) {
    const declared = values[i];
    const actual = Object.keys(await import(pathToFileURL(file).href)).sort();
    assert.deepEqual(declared, actual, `${types.slice(JS.length)} against ${file.slice(JS.length)}`);
  }
});
