// The demo's port: read from PORT, and what to tell a user who cannot have
// it. `node demo/port.js` checks PORT before `make demo` rebuilds js/dist,
// so a second `make demo` on a busy port stops before it touches the files
// the running demo serves.
import net from 'node:net';
import { fileURLToPath } from 'node:url';

export const DEFAULT_PORT = 8787;

/** PORT as a port number, or an Error that says what is wrong with it. */
export function parsePort(value) {
  if (value === undefined || value === '') return DEFAULT_PORT;
  const n = Number(value);
  if (!/^\d+$/.test(value.trim()) || !Number.isInteger(n) || n > 65535) {
    return new Error(`PORT must be a whole number from 0 to 65535 (0: any free port), got ${JSON.stringify(value)}: PORT=${DEFAULT_PORT} make demo`);
  }
  return n;
}

/** The message for a port that cannot be had, with what to do about it. */
export function listenFailure(err, port) {
  if (err?.code === 'EADDRINUSE') {
    return `Port ${port} is already in use (another demo still running?). Stop it, or pick another port: PORT=${Number(port) + 1} make demo`;
  }
  if (err?.code === 'EACCES') return `Port ${port} needs privileges here; pick one above 1023: PORT=${DEFAULT_PORT} make demo`;
  return `The demo server could not start: ${err?.message ?? err}`;
}

/** Resolves once port could be listened on at 127.0.0.1 (and is free again), or rejects with the listen error. */
export function checkPort(port) {
  return new Promise((ok, fail) => {
    const s = net.createServer();
    s.once('error', fail);
    s.listen(port, '127.0.0.1', () => s.close(() => ok()));
  });
}

/** A command line's start: listen(port) on PORT, or the reason it cannot, and exit 1. */
export async function withPort(listen) {
  const port = parsePort(process.env.PORT);
  if (port instanceof Error) {
    console.error(port.message);
    process.exit(1);
  }
  try {
    await listen(port);
  } catch (err) {
    console.error(listenFailure(err, port));
    process.exit(1);
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await withPort(checkPort);
