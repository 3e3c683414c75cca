// Packs the two npm packages: `tavern-core` (browsers and Node: takeover,
// editor ops, host driver, chat surface, message editor widget;
// tavern-core.wasm; manifest js/package.json) and `tavern-core-host` (Node
// only: session log, live-session host, editor route; tavern-host.wasm;
// manifest js/host/package.json), each from a staged copy of the files its
// manifest lists plus its README, the LICENSE and its docs/ pages, so
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

/**
 * The docs/ pages each tarball carries: a package user has no repository
 * beside it, and the package READMEs send them here.
 */
export const PACKAGE_DOCS = {
  'tavern-core': ['api.md', 'errors.md', 'packages.md', 'takeover.md', 'chatsurface.md'],
  'tavern-core-host': ['api.md', 'errors.md', 'packages.md', 'session-log.md', 'live-sessions.md'],
};

// A package staged from its manifest's files, its README, the LICENSE and
// its docs; the published manifest keeps neither the dev dependencies nor
// the scripts, which name files the package does not ship.
function packStaged(manifest, readme, outDir) {
  const stage = mkdtempSync(join(tmpdir(), `${manifest.name}-`));
  try {
    for (const f of manifest.files) copyFileSync(join(JS, f), join(stage, f));
    copyFileSync(readme, join(stage, 'README.md'));
    copyFileSync(join(JS, 'LICENSE'), join(stage, 'LICENSE'));
    mkdirSync(join(stage, 'docs'));
    for (const d of PACKAGE_DOCS[manifest.name]) copyFileSync(join(JS, '..', 'docs', d), join(stage, 'docs', d));
    const { devDependencies, scripts, ...published } = manifest;
    published.files = [...manifest.files, 'docs/'];
    writeFileSync(join(stage, 'package.json'), JSON.stringify(published, null, 2) + '\n');
    return npmPack(stage, outDir);
  } finally {
    rmSync(stage, { recursive: true, force: true });
  }
}

/** Pack both packages into outDir; returns { core, host } with each tarball's path and file list. */
export function packAll(outDir) {
  mkdirSync(outDir, { recursive: true });
  const coreManifest = JSON.parse(readFileSync(join(JS, 'package.json'), 'utf8'));
  const hostManifest = JSON.parse(readFileSync(join(JS, 'host', 'package.json'), 'utf8'));
  return {
    core: packStaged(coreManifest, join(JS, 'README.md'), outDir),
    host: packStaged({ ...hostManifest, version: coreManifest.version }, join(JS, 'host', 'README.md'), outDir),
  };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const out = resolve(process.argv[2] ?? join(JS, '..', 'dist', 'npm'));
  const { core, host } = packAll(out);
  for (const p of [core, host]) console.log(`${p.tarball}  (${(p.size / 1e6).toFixed(2)} MB packed, ${p.files.length} files)`);
}
