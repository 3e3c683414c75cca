// Temporary directories for a test file, removed when the file's tests end
// (pass or fail), so runs leave nothing behind in the system's temp dir.
import { after } from 'node:test';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const made = [];
after(() => {
  for (const d of made.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** A new directory under the system's temp dir named `prefix` + random. */
export function tempDir(prefix) {
  const d = mkdtempSync(join(tmpdir(), prefix));
  made.push(d);
  return d;
}
