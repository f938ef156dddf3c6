import type { OutputFormat } from '../render/headless.ts';

// What each runner prints in headless mode (shapes verified against the pinned CLIs: docs/adapters.md):
// - Claude Code `--output-format json`: one result object {type: 'result', result, session_id,
//   total_cost_usd, usage, is_error, subtype}.
// - opencode `--format json`: JSONL, every line {type, timestamp, sessionID, ...}; text parts carry
//   the answer; each step_finish part has cost (USD) and tokens {input, output, reasoning, cache}.
// - Gemini CLI `--output-format json`: {session_id, response, stats, error?}; no USD.
// - Codex `exec --json`: JSONL; thread.started {thread_id}, item.completed {item: agent_message},
//   turn.completed {usage}; no USD.
// Anything else is read as plain text.

export interface Parsed {
  /** The role's report. */
  text: string;
  session?: string;
  /** USD, when the runner reports it (its own estimate: basis runner-reported). */
  costUsd?: number;
  tokens?: { input: number; output: number };
  /** An error the runner reported in its own output (it may still exit 0). */
  error?: string;
}

/** Output that does not have the runner's shape. A step catches it by type to record the run as unparseable. */
export class OutputError extends Error {
  override name = 'OutputError';
}

export function parseOutput(format: OutputFormat, stdout: string, sessionField?: string): Parsed {
  if (stdout.trim() === '') throw new OutputError('it printed nothing on stdout');
  switch (format) {
    case 'claude-json':
      return claude(object(stdout));
    case 'opencode-jsonl':
      return opencode(jsonLines(stdout), sessionField ?? 'sessionID');
    case 'gemini-json':
      return gemini(object(stdout));
    case 'codex-jsonl':
      return codex(jsonLines(stdout));
    case 'text':
      return { text: stdout.trim() };
  }
}

function claude(o: Record<string, unknown>): Parsed {
  if (o.type !== 'result')
    throw new OutputError(`expected Claude Code's result object ("type": "result"), got type ${JSON.stringify(o.type)}`);
  const usage = (o.usage ?? {}) as Record<string, unknown>;
  const parsed: Parsed = {
    text: typeof o.result === 'string' ? o.result : '',
    session: str(o.session_id),
    costUsd: num(o.total_cost_usd),
    tokens:
      o.usage === undefined
        ? undefined
        : {
            input: n(usage.input_tokens) + n(usage.cache_creation_input_tokens) + n(usage.cache_read_input_tokens),
            output: n(usage.output_tokens),
          },
  };
  if (o.is_error === true) {
    // A failed API call comes back as subtype 'success' with is_error: the text alone says what happened.
    const subtype = str(o.subtype) === 'success' ? undefined : str(o.subtype);
    parsed.error = [subtype, parsed.text].filter(Boolean).join(': ') || 'error';
  } else if (typeof o.result !== 'string') throw new OutputError('the result object has no "result" text');
  return parsed;
}

function opencode(lines: Record<string, unknown>[], sessionField: string): Parsed {
  const texts: string[] = [];
  let session: string | undefined;
  let cost: number | undefined;
  let tokens: { input: number; output: number } | undefined;
  let error: string | undefined;
  for (const line of lines) {
    session ??= str(line[sessionField]);
    const part = (line.part ?? {}) as Record<string, unknown>;
    if (line.type === 'text' && typeof part.text === 'string') texts.push(part.text);
    else if (line.type === 'step_finish') {
      // Summed over every step: opencode reports each step's cost, not a running total.
      const c = num(part.cost);
      if (c !== undefined) cost = (cost ?? 0) + c;
      const t = (part.tokens ?? {}) as Record<string, unknown>;
      const cache = (t.cache ?? {}) as Record<string, unknown>;
      tokens = {
        input: (tokens?.input ?? 0) + n(t.input) + n(cache.read) + n(cache.write),
        output: (tokens?.output ?? 0) + n(t.output) + n(t.reasoning),
      };
    } else if (line.type === 'error') error = message(line.error);
  }
  return { text: texts.join('\n').trim(), session, costUsd: cost, tokens, error };
}

function gemini(o: Record<string, unknown>): Parsed {
  if (!('response' in o) && !('error' in o)) throw new OutputError('expected Gemini CLI\'s JSON object with "response"');
  const stats = (o.stats ?? {}) as Record<string, unknown>;
  let tokens: Parsed['tokens'];
  if (stats.models && typeof stats.models === 'object') {
    // The json formatter reports per model: tokens {prompt, candidates, thoughts, cached, total}.
    tokens = { input: 0, output: 0 };
    for (const model of Object.values(stats.models as Record<string, { tokens?: Record<string, unknown> }>)) {
      tokens.input += n(model.tokens?.prompt);
      tokens.output += n(model.tokens?.candidates) + n(model.tokens?.thoughts);
    }
  } else if (stats.input_tokens !== undefined || stats.output_tokens !== undefined) {
    tokens = { input: n(stats.input_tokens), output: n(stats.output_tokens) };
  }
  const parsed: Parsed = { text: typeof o.response === 'string' ? o.response : '', session: str(o.session_id), tokens };
  if (o.error !== undefined && o.error !== null) parsed.error = message(o.error);
  return parsed;
}

function codex(lines: Record<string, unknown>[]): Parsed {
  const texts: string[] = [];
  let session: string | undefined;
  let tokens: Parsed['tokens'];
  let error: string | undefined;
  for (const line of lines) {
    if (line.type === 'thread.started') session ??= str(line.thread_id);
    const item = (line.item ?? {}) as Record<string, unknown>;
    if (line.type === 'item.completed' && item.type === 'agent_message' && typeof item.text === 'string') texts.push(item.text);
    if (line.type === 'turn.completed') {
      // cached_input_tokens is part of input_tokens in OpenAI's usage, so it is not added again.
      const usage = (line.usage ?? {}) as Record<string, unknown>;
      tokens = { input: (tokens?.input ?? 0) + n(usage.input_tokens), output: (tokens?.output ?? 0) + n(usage.output_tokens) };
    }
    if (line.type === 'turn.failed' || line.type === 'error') error = message(line.error ?? line.message);
  }
  return { text: texts.join('\n').trim(), session, tokens, error };
}

function object(stdout: string): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(stdout);
  } catch {
    // A runner may print a notice before its JSON: read from the first line that opens an object.
    const at = stdout.search(/^\{/m);
    try {
      value = at < 0 ? undefined : JSON.parse(stdout.slice(at));
    } catch {
      value = undefined;
    }
    if (value === undefined) throw new OutputError('stdout is not one JSON object');
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new OutputError('stdout is JSON but not an object');
  return value as Record<string, unknown>;
}

function jsonLines(stdout: string): Record<string, unknown>[] {
  return stdout
    .split('\n')
    .map((line, i) => [line.trim(), i + 1] as const)
    .filter(([line]) => line !== '')
    .map(([line, number]) => {
      let value: unknown;
      try {
        value = JSON.parse(line);
      } catch {
        throw new OutputError(`line ${number} of stdout is not JSON: ${line.slice(0, 80)}`);
      }
      if (typeof value !== 'object' || value === null || typeof (value as { type?: unknown }).type !== 'string') {
        throw new OutputError(`line ${number} of stdout is not a JSON event with a "type"`);
      }
      return value as Record<string, unknown>;
    });
}

function message(error: unknown): string {
  if (typeof error === 'string') return error;
  const e = (error ?? {}) as Record<string, unknown>;
  const data = (e.data ?? {}) as Record<string, unknown>;
  return str(data.message) ?? str(e.message) ?? str(e.name) ?? JSON.stringify(error);
}

const str = (v: unknown) => (typeof v === 'string' && v !== '' ? v : undefined);
const num = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);
const n = (v: unknown) => num(v) ?? 0;
