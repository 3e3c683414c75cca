// A harness-like host process for session-crash.test.js: serves the editor
// route for one session file while a stand-in agent streams log-only chunk
// events into the same session, flushing each one. The test kills it with
// SIGKILL at random moments. Usage: node session-crash-server.js FILE [--repair]
import http from 'node:http';
import { SessionHost } from '../session-host.js';

const [path, flag] = process.argv.slice(2);
const server = http.createServer();
await new Promise((r) => server.listen(0, '127.0.0.1', r));
const { port } = server.address();
const host = new SessionHost({ origin: `http://127.0.0.1:${port}`, version: '1.3.0' });
const session = host.load(path, { repairTornTail: flag === '--repair' });
host.mountEditor();
server.on('request', host.listener());

// The agent streams: one durable append every 10 ms.
let n = 0;
setInterval(() => {
  session.append('assistant/chunk', { turn: 9, step: 1, chunk: { type: 'text-delta', index: 0, text: `t${n++}` } });
  session.flush();
}, 10);

process.stdout.write(JSON.stringify({ port, repaired: session.repaired ?? null, length: session.length }) + '\n');
