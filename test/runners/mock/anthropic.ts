import type { ServerResponse } from 'node:http';
import type { Reply, Result, Scenario, Tool } from './script.ts';
import { type MockServer, serve, sse } from './server.ts';

// An Anthropic Messages endpoint on loopback (SSE or plain JSON, `tool_use` blocks) driven by the
// scripted model. Base URL: the origin itself (clients add /v1/messages).

interface MessagesBody {
  model?: string;
  stream?: boolean;
  tools?: { name?: string; input_schema?: Tool['schema'] }[];
  messages?: { role?: string; content?: unknown }[];
}

interface Block {
  type?: string;
  tool_use_id?: string;
  content?: unknown;
  is_error?: boolean;
  text?: string;
}

export async function anthropicMock(scenario: Scenario, lifetimeMs?: number): Promise<MockServer> {
  return serve(
    scenario,
    (req, raw, res, model) => {
      const url = req.url ?? '';
      if (url.includes('/v1/messages/count_tokens')) {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end('{"input_tokens":10}');
        return true;
      }
      if (!url.includes('/v1/messages')) return false;
      const body = raw as MessagesBody;
      // Server-side tools (web search) have a type and no input schema: not ours to script.
      const tools: Tool[] = (body.tools ?? []).filter((t) => t.name).map((t) => ({ name: t.name ?? '', schema: t.input_schema ?? {} }));
      const reply = model.next(tools, resultOf(body, 'call_gateline_1'));
      if (body.stream) stream(res, body.model ?? 'mock', reply);
      else whole(res, body.model ?? 'mock', reply);
      return true;
    },
    lifetimeMs,
  );
}

function resultOf(body: MessagesBody, id: string): Result | undefined {
  for (const message of body.messages ?? []) {
    if (!Array.isArray(message.content)) continue;
    for (const block of message.content as Block[]) {
      if (block.type === 'tool_result' && block.tool_use_id === id)
        return { text: textOf(block.content), isError: block.is_error === true };
    }
  }
  return undefined;
}

function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) return (content as Block[]).map((b) => b.text ?? '').join('');
  return '';
}

const usage = { input_tokens: 10, output_tokens: 5, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 };

function content(reply: Reply): object[] {
  return reply.call
    ? [{ type: 'tool_use', id: reply.call.id, name: reply.call.name, input: reply.call.args }]
    : [{ type: 'text', text: reply.text ?? '' }];
}

function whole(res: ServerResponse, model: string, reply: Reply): void {
  res.writeHead(200, { 'content-type': 'application/json' });
  res.end(
    JSON.stringify({
      id: 'msg_gateline',
      type: 'message',
      role: 'assistant',
      model,
      content: content(reply),
      stop_reason: reply.call ? 'tool_use' : 'end_turn',
      stop_sequence: null,
      usage,
    }),
  );
}

function stream(res: ServerResponse, model: string, reply: Reply): void {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  const message = {
    id: 'msg_gateline',
    type: 'message',
    role: 'assistant',
    model,
    content: [],
    stop_reason: null,
    stop_sequence: null,
    usage,
  };
  sse(res, { type: 'message_start', message }, 'message_start');
  if (reply.call) {
    const start = { type: 'tool_use', id: reply.call.id, name: reply.call.name, input: {} };
    sse(res, { type: 'content_block_start', index: 0, content_block: start }, 'content_block_start');
    const delta = { type: 'input_json_delta', partial_json: JSON.stringify(reply.call.args) };
    sse(res, { type: 'content_block_delta', index: 0, delta }, 'content_block_delta');
  } else {
    sse(res, { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } }, 'content_block_start');
    sse(res, { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: reply.text ?? '' } }, 'content_block_delta');
  }
  sse(res, { type: 'content_block_stop', index: 0 }, 'content_block_stop');
  const stop = reply.call ? 'tool_use' : 'end_turn';
  sse(res, { type: 'message_delta', delta: { stop_reason: stop, stop_sequence: null }, usage: { output_tokens: 5 } }, 'message_delta');
  sse(res, { type: 'message_stop' }, 'message_stop');
  res.end();
}
