import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type Scenario, scriptedModel, type Transcript } from './script.ts';

// The loopback HTTP server both mock APIs run on. It also serves GET /canary, the page a fetch
// scenario asks for, and counts the hits. It stops itself after `lifetimeMs`, so a test that dies
// midway leaves nothing listening.

export interface MockServer {
  /** http://127.0.0.1:<port> */
  origin: string;
  canary: string;
  log: Transcript;
  close: () => Promise<void>;
}

export type Handler = (
  req: IncomingMessage,
  body: unknown,
  res: ServerResponse,
  model: ReturnType<typeof scriptedModel>,
) => boolean | undefined;

export const CANARY_TEXT = 'gateline-canary-7f3a';

export async function serve(scenario: Scenario, handle: Handler, lifetimeMs = 600_000): Promise<MockServer> {
  let canary = '';
  let model: ReturnType<typeof scriptedModel> | undefined;
  const server = createServer((req, res) => {
    let raw = '';
    req.on('data', (chunk) => {
      raw += chunk;
    });
    req.on('end', () => {
      const log = model?.log;
      if (!model || !log) return void res.writeHead(503).end();
      let body: unknown = {};
      try {
        body = raw ? JSON.parse(raw) : {};
      } catch {
        // not JSON
      }
      log.requests.push(`${req.method} ${req.url} ${raw.length}b`);
      if (req.url?.startsWith('/canary')) {
        log.canaryHits += 1;
        res.writeHead(200, { 'content-type': 'text/plain' });
        return void res.end(`${CANARY_TEXT}\n`);
      }
      if (handle(req, body, res, model)) return;
      res.writeHead(404, { 'content-type': 'application/json' });
      res.end('{"error":{"message":"not mocked"}}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const origin = `http://127.0.0.1:${port}`;
  canary = `${origin}/canary`;
  model = scriptedModel(scenario, canary);
  const close = () =>
    new Promise<void>((resolve) => {
      clearTimeout(timer);
      server.closeAllConnections();
      server.close(() => resolve());
    });
  const timer = setTimeout(() => void close(), lifetimeMs);
  timer.unref();
  return { origin, canary, log: model.log, close };
}

/** Writes one server-sent event. */
export function sse(res: ServerResponse, data: unknown, event?: string): void {
  res.write(`${event ? `event: ${event}\n` : ''}data: ${typeof data === 'string' ? data : JSON.stringify(data)}\n\n`);
}
