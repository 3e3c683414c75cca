// Packs the two npm packages: `tavern-core` (browsers and Node: takeover,
// editor ops, host driver, chat surface, message editor widget;
// tavern-core.wasm) straight from js/, and `tavern-core-host` (Node only:
// session log, live-session host, editor route; tavern-host.wasm) from a
// staged copy of the files its manifest (js/host/package.json) lists, so
// browser users never download the host module.
//
//   node pack.js [outdir]     # prints the two tarball paths
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const JS = fileURLToPath(new URL('.', import.meta.url));

function npmPack(dir, outDir) {
  const [info] = JSON.parse(execFileSync('npm', ['pack', '--json', '--pack-destination', outDir], { cwd: dir, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }));
  return { tarball: join(outDir, info.filename), files: info.files.map((f) => f.path), size: info.size, unpackedSize: info.unpackedSize };
}

/** Pack both packages into outDir; returns { core, host } with each tarball's path and file list. */
export function packAll(outDir) {
  mkdirSync(outDir, { recursive: true });
  const core = npmPack(JS, outDir);
  const version = JSON.parse(readFileSync(join(JS, 'package.json'), 'utf8')).version;
  const manifest = JSON.parse(readFileSync(join(JS, 'host', 'package.json'), 'utf8'));
  const stage = mkdtempSync(join(tmpdir(), 'tavern-core-host-'));
  try {
    for (const f of manifest.files) copyFileSync(join(JS, f), join(stage, f));
    for (const f of ['README.md']) copyFileSync(join(JS, 'host', f), join(stage, f));
    copyFileSync(join(JS, 'LICENSE'), join(stage, 'LICENSE'));
    writeFileSync(join(stage, 'package.json'), JSON.stringify({ ...manifest, version }, null, 2) + '\n');
    return { core, host: npmPack(stage, outDir) };
  } finally {
    rmSync(stage, { recursive: true, force: true });
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const out = resolve(process.argv[2] ?? join(JS, '..', 'dist', 'npm'));
  const { core, host } = packAll(out);
  for (const p of [core, host]) console.log(`${p.tarball}  (${(p.size / 1e6).toFixed(2)} MB packed, ${p.files.length} files)`);
}
