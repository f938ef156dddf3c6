import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

// A chat-completions endpoint on loopback that answers "ok" to everything: enough for a runner
// that insists on a model provider (Copilot CLI with BYOK) to start, load its agents and report
// them. It records each request body, so tests can read the tools a runner offered the model.

export interface Mock {
  url: string;
  requests: unknown[];
  close: () => Promise<void>;
}

export async function openaiMock(): Promise<Mock> {
  const requests: unknown[] = [];
  const server: Server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk) => {
      body += chunk;
    });
    req.on('end', () => {
      let parsed: { model?: string; stream?: boolean } = {};
      try {
        parsed = JSON.parse(body);
      } catch {
        // not JSON: a GET
      }
      requests.push({ url: req.url, body: parsed });
      if (req.url?.endsWith('/models')) {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ object: 'list', data: [{ id: 'gpt-4.1', object: 'model' }] }));
        return;
      }
      if (!req.url?.includes('/chat/completions')) {
        res.writeHead(404).end('{}');
        return;
      }
      const choice = { index: 0, message: { role: 'assistant', content: 'ok' }, finish_reason: 'stop' };
      const usage = { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 };
      if (!parsed.stream) {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ id: 'c1', object: 'chat.completion', created: 0, model: parsed.model, choices: [choice], usage }));
        return;
      }
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      const chunk = (delta: object, finish: string | null, extra = {}) =>
        `data: ${JSON.stringify({ id: 'c1', object: 'chat.completion.chunk', created: 0, model: parsed.model, choices: [{ index: 0, delta, finish_reason: finish }], ...extra })}\n\n`;
      res.write(chunk({ role: 'assistant', content: 'ok' }, null));
      res.write(chunk({}, 'stop', { usage }));
      res.end('data: [DONE]\n\n');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}/v1`, requests, close: () => new Promise((resolve) => server.close(() => resolve())) };
}
