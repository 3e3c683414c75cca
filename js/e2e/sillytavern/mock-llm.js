// A streaming OpenAI-compatible model on 127.0.0.1 for the SillyTavern
// suite: GET /v1/models lists one model; POST /v1/chat/completions answers
// with SSE `data: {"choices":[{"delta":{"content":…}}]}` lines and
// `data: [DONE]` (or one JSON body when `stream` is false). Every completion
// request is recorded, so a test can say how many turns reached the model.
import { createServer } from 'node:http';

export const MOCK_MODEL = 'tavern-mock';

/**
 * @param {object} [o]
 * @param {string[]} [o.chunks] the reply, streamed one chunk per tick
 * @param {number} [o.delayMs] pause between chunks
 */
export async function startMockLLM({ chunks = ['Mock ', 'reply ', 'from ', 'the ', 'model.'], delayMs = 20 } = {}) {
  const completions = [];
  let reply = { chunks, delayMs };
  const server = createServer((req, res) => {
    const url = new URL(req.url, 'http://127.0.0.1');
    if (req.method === 'GET' && url.pathname.endsWith('/models')) {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ object: 'list', data: [{ id: MOCK_MODEL, object: 'model', owned_by: 'tavern-core' }] }));
      return;
    }
    if (req.method === 'POST' && url.pathname.endsWith('/chat/completions')) {
      let raw = '';
      req.setEncoding('utf8');
      req.on('data', (d) => { raw += d; });
      req.on('end', () => {
        let body = null;
        try { body = JSON.parse(raw); } catch { /* recorded as null */ }
        completions.push(body);
        const { chunks: parts, delayMs: delay } = reply;
        if (!body?.stream) {
          res.writeHead(200, { 'content-type': 'application/json' });
          res.end(JSON.stringify({
            id: 'mock', object: 'chat.completion', model: MOCK_MODEL,
            choices: [{ index: 0, message: { role: 'assistant', content: parts.join('') }, finish_reason: 'stop' }],
          }));
          return;
        }
        res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
        let i = 0;
        let timer = null;
        const tick = () => {
          if (res.destroyed) return;
          if (i < parts.length) {
            const delta = { choices: [{ index: 0, delta: { content: parts[i++] }, finish_reason: null }] };
            res.write(`data: ${JSON.stringify(delta)}\n\n`);
            timer = setTimeout(tick, delay);
            return;
          }
          res.write(`data: ${JSON.stringify({ choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] })}\n\n`);
          res.end('data: [DONE]\n\n');
        };
        res.on('close', () => clearTimeout(timer));
        tick();
      });
      return;
    }
    res.writeHead(404, { 'content-type': 'application/json' });
    res.end('{"error":{"message":"not found"}}');
  });
  await new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  const { port } = server.address();
  return {
    url: `http://127.0.0.1:${port}/v1`,
    /** Completion requests received so far (parsed bodies). */
    completions,
    /** Change the reply for the next requests. */
    setReply(next) { reply = { ...reply, ...next }; },
    close: () => new Promise((resolve) => { server.closeAllConnections?.(); server.close(() => resolve()); }),
  };
}
