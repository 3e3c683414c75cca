// Durable file writes for the Node host and the demo (issue 15, item 7):
// a write is acknowledged only after it is on disk. Each helper fsyncs the
// file, and the directory whenever a name appears (create, rename), since a
// new directory entry is not crash-durable until its directory is synced.
// node:fs's default export, not its named exports: tests can then watch
// and fail fsyncSync through node:test's mock.method.
import fs from 'node:fs';
import { dirname, basename, join } from 'node:path';

/** fsync a directory, making the names created or renamed in it durable. */
export function fsyncDir(dir) {
  const fd = fs.openSync(dir, 'r');
  try {
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
}

// The bytes to write: a Buffer, a typed array (read as its bytes) or a
// string (UTF-8). Anything else is refused: Buffer.from of an array-like
// would size a buffer by whatever length the object claims.
function bytesOf(data, what) {
  if (Buffer.isBuffer(data)) return data;
  if (typeof data === 'string') return Buffer.from(data);
  if (ArrayBuffer.isView(data)) return Buffer.from(data.buffer, data.byteOffset, data.byteLength);
  throw new TypeError(`${what}: data must be a string, a Buffer or a typed array`);
}

// A size the caller gives: a byte count, checked before it decides anything.
function byteCount(n, what) {
  if (!Number.isSafeInteger(n) || n < 0) throw new RangeError(`${what} must be a byte count (a non-negative integer); got ${typeof n === 'number' ? n : typeof n}`);
  return n;
}

function writeAll(fd, buf, position) {
  for (let done = 0; done < buf.length;) {
    done += fs.writeSync(fd, buf, done, buf.length - done, position + done);
  }
}

/**
 * Replace a file's contents atomically and durably: write a temporary file
 * beside it, fsync it, rename it over the target, fsync the directory. A
 * crash leaves either the old file or the new one, never half of either.
 */
export function writeFileDurable(path, data) {
  const tmp = join(dirname(path), `.${basename(path)}.${process.pid}.${Date.now()}.tmp`);
  writeNew(tmp, data);
  fs.renameSync(tmp, path);
  fsyncDir(dirname(path));
}

/** Create a file that must not exist yet, durably (file, then directory). */
export function createFileDurable(path, data) {
  writeNew(path, data);
  fsyncDir(dirname(path));
}

// writeNew creates path (which must not exist), writes data and fsyncs it;
// on failure nothing is left behind.
function writeNew(path, data) {
  const buf = bytesOf(data, 'writeFileDurable');
  const fd = fs.openSync(path, 'wx', 0o600);
  try {
    writeAll(fd, buf, 0);
    fs.fsyncSync(fd);
  } catch (err) {
    fs.closeSync(fd);
    fs.unlinkSync(path);
    throw err;
  }
  fs.closeSync(fd);
}

/**
 * Append at a known end of file and fsync. `size` is where the caller
 * believes the file ends: a file of another size was changed behind its
 * back, and nothing is written. On a failed write or fsync the file is cut
 * back to `size`, so a retry never duplicates or glues half a write.
 * Returns the new size.
 */
export function appendDurable(path, size, data) {
  byteCount(size, 'appendDurable: size');
  const buf = bytesOf(data, 'appendDurable');
  const fd = fs.openSync(path, 'r+');
  try {
    const actual = fs.fstatSync(fd).size;
    if (actual !== size) {
      const e = new Error(`${path} is ${actual} bytes on disk, not the ${size} this session wrote: it was changed outside the host, so nothing was written`);
      e.code = 'changed-outside';
      throw e;
    }
    try {
      writeAll(fd, buf, size);
      fs.fsyncSync(fd);
    } catch (err) {
      try {
        fs.ftruncateSync(fd, size);
        fs.fsyncSync(fd);
      } catch (rollback) {
        throw new AggregateError([err, rollback], `appending to ${path} failed and could not be rolled back`);
      }
      throw err;
    }
    return size + buf.length;
  } finally {
    fs.closeSync(fd);
  }
}

/**
 * Cut a file back to `size` bytes, after checking it is still `was` long,
 * and fsync. It only ever shortens: a size above `was` would pad the file
 * with zeros (a torn tail where the log was whole).
 */
export function truncateDurable(path, was, size) {
  byteCount(was, 'truncateDurable: was');
  byteCount(size, 'truncateDurable: size');
  if (size > was) throw new RangeError(`truncateDurable: size ${size} is above the file's ${was} bytes; it only cuts a file back`);
  const fd = fs.openSync(path, 'r+');
  try {
    if (fs.fstatSync(fd).size !== was) throw new Error(`${path} changed while it was being repaired`);
    fs.ftruncateSync(fd, size);
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
}
