// Types for js/durable-file.js: writes acknowledged only once on disk (S109).
export function fsyncDir(dir: string): void;
/** Temporary file, fsync, rename over path, fsync the directory. */
export function writeFileDurable(path: string, data: string | Uint8Array): void;
/** Create a file that must not exist, fsync it and its directory. */
export function createFileDurable(path: string, data: string | Uint8Array): void;
/** Append at the known end `size`, fsync; rolled back on failure. Returns the new size. A file that is not `size` bytes long (another writer) throws an Error with code `changed-outside`, writing nothing. */
export function appendDurable(path: string, size: number, data: string | Uint8Array): number;
/** Cut path (still `was` bytes long) back to `size` ≤ `was`, fsync; a size or count that is not a non-negative integer, or a size above `was`, throws RangeError first. */
export function truncateDurable(path: string, was: number, size: number): void;
