// Writes a built folder's README.md and docs/ from the repository's own
// text: an introduction file, then the named `## ` sections of the
// repository README, then copies of the docs/ pages those sections cite.
// The SillyTavern extension and the DeepSeek Harness plugin are copied or
// installed without the repository beside them, so their help has to travel
// with them, and this keeps one source for it.
//
//   node docs/bundle.mjs <sillytavern|dsh-plugin> <out dir>
import { copyFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const REPO = resolve(dirname(fileURLToPath(import.meta.url)), '..');

/** What each built folder carries. */
export const BUNDLES = {
  // dist/sillytavern/tavern-core/: the settings panel's help link opens its README.md.
  sillytavern: {
    intro: 'sillytavern/README.md',
    sections: ['Use it in SillyTavern', 'Writing extensions for tavern-core in SillyTavern'],
    docs: ['sillytavern.md', 'sillytavern-managed.md', 'api.md', 'errors.md'],
  },
  // dist/dsh-plugin/: the package a harness user installs (its "files" include docs/).
  'dsh-plugin': {
    intro: 'dsh-plugin/README.md',
    sections: ['Use it in DeepSeek Harness'],
    docs: ['dsh-plugin.md', 'live-sessions.md'],
  },
};

/** The named `## ` sections of a markdown text, in the given order; throws if one is missing. */
export function sections(markdown, names) {
  const lines = markdown.split('\n');
  return names.map((name) => {
    const start = lines.indexOf(`## ${name}`);
    if (start < 0) throw new Error(`README.md has no "## ${name}" section (a built folder's help is made from it)`);
    let end = start + 1;
    while (end < lines.length && !lines[end].startsWith('## ')) end++;
    return lines.slice(start, end).join('\n').trimEnd();
  });
}

/** The README.md text of a built folder: its introduction, then its README sections. */
export function bundleReadme({ intro, sections: names }, readme = readFileSync(join(REPO, 'README.md'), 'utf8')) {
  return [readFileSync(join(REPO, intro), 'utf8').trimEnd(), ...sections(readme, names)].join('\n\n') + '\n';
}

/** The docs/ pages a text cites: relative links between pages (`(errors.md)`) and `docs/x.md`. */
export function citedPages(text) {
  const pages = [...text.matchAll(/\]\(([a-z0-9-]+\.md)(?:#[^)]*)?\)|\bdocs\/([a-z0-9-]+\.md)\b/g)].map((m) => m[1] ?? m[2]);
  return [...new Set(pages)].filter((p) => existsSync(join(REPO, 'docs', p)));
}

/** The bundle's pages and every page they cite, transitively: a link in the help never dead-ends. */
export function bundlePages(bundle) {
  const pages = new Set(bundle.docs);
  for (const page of pages) for (const cited of citedPages(readFileSync(join(REPO, 'docs', page), 'utf8'))) pages.add(cited);
  return [...pages];
}

/** Writes <out>/README.md and <out>/docs/<page> for each of the bundle's pages; returns the pages. */
export function writeBundle(bundle, out) {
  writeFileSync(join(out, 'README.md'), bundleReadme(bundle));
  mkdirSync(join(out, 'docs'), { recursive: true });
  const pages = bundlePages(bundle);
  for (const d of pages) copyFileSync(join(REPO, 'docs', d), join(out, 'docs', d));
  return pages;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === resolve(process.argv[1])) {
  const [name, out] = process.argv.slice(2);
  const bundle = BUNDLES[name];
  if (!bundle || !out) throw new Error(`usage: node docs/bundle.mjs <${Object.keys(BUNDLES).join('|')}> <out dir>`);
  const pages = writeBundle(bundle, out);
  console.log(`${out}: README.md (${bundle.sections.map((n) => `"${n}"`).join(', ')}) and docs/${pages.join(', docs/')}`);
}
