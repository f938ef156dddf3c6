import type { Reply, Result, Scenario, Tool } from './script.ts';
import { type MockServer, serve, sse } from './server.ts';

// An OpenAI-compatible chat-completions endpoint on loopback (streaming SSE and plain JSON, tool
// calls) driven by the scripted model. Base URL: `${origin}/v1`.

interface ChatBody {
  model?: string;
  stream?: boolean;
  tools?: { type?: string; function?: { name?: string; parameters?: Tool['schema'] } }[];
  messages?: { role?: string; tool_call_id?: string; content?: unknown }[];
}

export async function openaiMock(scenario: Scenario, lifetimeMs?: number): Promise<MockServer> {
  return serve(
    scenario,
    (req, raw, res, model) => {
      const url = req.url ?? '';
      if (url.endsWith('/models')) {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ object: 'list', data: [{ id: 'gpt-4.1', object: 'model' }] }));
        return true;
      }
      if (!url.includes('/chat/completions')) return false;
      const body = raw as ChatBody;
      const tools: Tool[] = (body.tools ?? []).map((t) => ({ name: t.function?.name ?? '', schema: t.function?.parameters ?? {} }));
      const reply = model.next(tools, resultOf(body, 'call_gateline_1'));
      if (body.stream) stream(res, body.model ?? 'mock', reply);
      else whole(res, body.model ?? 'mock', reply);
      return true;
    },
    lifetimeMs,
  );
}

function resultOf(body: ChatBody, id: string): Result | undefined {
  const message = (body.messages ?? []).find((m) => m.role === 'tool' && m.tool_call_id === id);
  if (!message) return undefined;
  return { text: textOf(message.content), isError: false };
}

function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) return content.map((part) => (typeof part === 'string' ? part : String(part?.text ?? ''))).join('');
  return JSON.stringify(content ?? '');
}

const usage = { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 };

function whole(res: import('node:http').ServerResponse, model: string, reply: Reply): void {
  const message = reply.call
    ? {
        role: 'assistant',
        content: null,
        tool_calls: [
          { id: reply.call.id, type: 'function', function: { name: reply.call.name, arguments: JSON.stringify(reply.call.args) } },
        ],
      }
    : { role: 'assistant', content: reply.text ?? '' };
  const finish = reply.call ? 'tool_calls' : 'stop';
  res.writeHead(200, { 'content-type': 'application/json' });
  res.end(
    JSON.stringify({
      id: 'chatcmpl-1',
      object: 'chat.completion',
      created: 0,
      model,
      choices: [{ index: 0, message, finish_reason: finish }],
      usage,
    }),
  );
}

function stream(res: import('node:http').ServerResponse, model: string, reply: Reply): void {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  const chunk = (delta: object, finish: string | null, extra = {}) => ({
    id: 'chatcmpl-1',
    object: 'chat.completion.chunk',
    created: 0,
    model,
    choices: [{ index: 0, delta, finish_reason: finish }],
    ...extra,
  });
  if (reply.call) {
    const call = { index: 0, id: reply.call.id, type: 'function', function: { name: reply.call.name, arguments: '' } };
    sse(res, chunk({ role: 'assistant', content: null, tool_calls: [call] }, null));
    sse(res, chunk({ tool_calls: [{ index: 0, function: { arguments: JSON.stringify(reply.call.args) } }] }, null));
    sse(res, chunk({}, 'tool_calls'));
  } else {
    sse(res, chunk({ role: 'assistant', content: reply.text ?? '' }, null));
    sse(res, chunk({}, 'stop'));
  }
  sse(res, { id: 'chatcmpl-1', object: 'chat.completion.chunk', created: 0, model, choices: [], usage });
  sse(res, '[DONE]');
  res.end();
}
