import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { dirname, join } from 'node:path';
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { locate } from '../../src/render/context.ts';
import { renderAll } from '../../src/render/render.ts';
import { run } from '../../src/up/cli.ts';
import { copyTree, git, gitRepo, REPO, read, testdir } from '../helpers.ts';
import { binOf, CACHE, installRunners } from './install.ts';

// `gateline up` end to end on the real Copilot CLI and Codex CLI, offline: each lane bound to them
// runs through src/up (argv allow-list, scrubbed environment, output parser, run records) against
// a loopback model that answers each role's prompt with a report and the verdict the pipeline
// reads. What each runner lets a role DO is behaviour.test.ts's; this is that the lanes run at all.

/** The role a request is for: the last gateline prompt header in it (a resumed session holds earlier ones). */
function roleOf(raw: string): string {
  const all = [...raw.matchAll(/gateline up: you are the ([a-z]+)/g)];
  return all.at(-1)?.[1] ?? 'unknown';
}

const REPLY: Record<string, string> = {
  planner: 'Plan: change nothing; the task is a dry run.',
  implementer: 'Done: nothing needed changing.',
  reviewer: 'The change is fine.\nVERDICT: APPROVE',
  verifier: 'Checked.\nVERDICT: PASS',
};

interface Mock {
  origin: string;
  roles: string[];
  paths: string[];
  close: () => Promise<void>;
}

const sse = (res: ServerResponse, data: unknown, event?: string) =>
  res.write(`${event ? `event: ${event}\n` : ''}data: ${typeof data === 'string' ? data : JSON.stringify(data)}\n\n`);

/** OpenAI chat completions (Copilot CLI's BYOK) and Responses (Codex) on loopback, text only. */
async function verdictMock(): Promise<Mock> {
  const roles: string[] = [];
  const paths: string[] = [];
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    let raw = '';
    req.on('data', (c) => {
      raw += c;
    });
    req.on('end', () => {
      const url = req.url ?? '';
      paths.push(`${req.method} ${url}`);
      if (url.endsWith('/models')) {
        res.writeHead(200, { 'content-type': 'application/json' });
        return void res.end(JSON.stringify({ object: 'list', data: [] }));
      }
      const body = (raw ? JSON.parse(raw) : {}) as { stream?: boolean; model?: string };
      const role = roleOf(raw);
      roles.push(role);
      const text = REPLY[role] ?? 'ok';
      const model = body.model ?? 'mock';
      if (url.includes('/chat/completions')) {
        const usage = { prompt_tokens: 100, completion_tokens: 10, total_tokens: 110 };
        if (!body.stream) {
          res.writeHead(200, { 'content-type': 'application/json' });
          const message = { role: 'assistant', content: text };
          return void res.end(
            JSON.stringify({
              id: 'c1',
              object: 'chat.completion',
              created: 0,
              model,
              choices: [{ index: 0, message, finish_reason: 'stop' }],
              usage,
            }),
          );
        }
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        const chunk = (delta: object, finish: string | null) => ({
          id: 'c1',
          object: 'chat.completion.chunk',
          created: 0,
          model,
          choices: [{ index: 0, delta, finish_reason: finish }],
        });
        sse(res, chunk({ role: 'assistant', content: text }, null));
        sse(res, chunk({}, 'stop'));
        sse(res, { id: 'c1', object: 'chat.completion.chunk', created: 0, model, choices: [], usage });
        sse(res, '[DONE]');
        return void res.end();
      }
      if (url.includes('/v1/messages/count_tokens')) {
        res.writeHead(200, { 'content-type': 'application/json' });
        return void res.end('{"input_tokens":10}');
      }
      if (url.includes('/v1/messages')) {
        const usage = { input_tokens: 100, output_tokens: 10, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 };
        const message = {
          id: 'msg_1',
          type: 'message',
          role: 'assistant',
          model,
          content: [] as unknown[],
          stop_reason: null,
          stop_sequence: null,
          usage,
        };
        if (!body.stream) {
          res.writeHead(200, { 'content-type': 'application/json' });
          return void res.end(JSON.stringify({ ...message, content: [{ type: 'text', text }], stop_reason: 'end_turn' }));
        }
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        sse(res, { type: 'message_start', message }, 'message_start');
        sse(res, { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } }, 'content_block_start');
        sse(res, { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text } }, 'content_block_delta');
        sse(res, { type: 'content_block_stop', index: 0 }, 'content_block_stop');
        sse(
          res,
          { type: 'message_delta', delta: { stop_reason: 'end_turn', stop_sequence: null }, usage: { output_tokens: 10 } },
          'message_delta',
        );
        sse(res, { type: 'message_stop' }, 'message_stop');
        return void res.end();
      }
      if (url.includes('/responses')) {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        const item = {
          type: 'message',
          id: 'msg_1',
          role: 'assistant',
          status: 'completed',
          content: [{ type: 'output_text', text, annotations: [] }],
        };
        const response = { id: 'resp_1', object: 'response', model, status: 'in_progress', output: [] as unknown[] };
        sse(res, { type: 'response.created', response }, 'response.created');
        sse(
          res,
          { type: 'response.output_item.added', output_index: 0, item: { ...item, status: 'in_progress', content: [] } },
          'response.output_item.added',
        );
        sse(
          res,
          { type: 'response.output_text.delta', item_id: 'msg_1', output_index: 0, content_index: 0, delta: text },
          'response.output_text.delta',
        );
        sse(res, { type: 'response.output_item.done', output_index: 0, item }, 'response.output_item.done');
        const usage = {
          input_tokens: 100,
          input_tokens_details: { cached_tokens: 0 },
          output_tokens: 10,
          output_tokens_details: { reasoning_tokens: 0 },
          total_tokens: 110,
        };
        sse(
          res,
          { type: 'response.completed', response: { ...response, status: 'completed', output: [item], usage } },
          'response.completed',
        );
        return void res.end();
      }
      res.writeHead(404, { 'content-type': 'application/json' });
      res.end('{"error":{"message":"not mocked"}}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return { origin, roles, paths, close };
}

function sink() {
  let text = '';
  const stream = new Writable({
    write(chunk, _enc, done) {
      text += String(chunk);
      done();
    },
  });
  return { stream, text: () => text };
}

/** A git repository holding this checkout's roles, adapters and registry, rendered and committed. */
function project(edit?: (dir: string) => void): string {
  const dir = gitRepo();
  for (const sub of ['roles', 'adapters', 'registry']) copyTree(join(REPO, sub), join(dir, sub));
  edit?.(dir);
  expect(renderAll(locate(dir)).ok).toBe(true);
  writeFileSync(join(dir, 'README.md'), 'hello\n');
  git(dir, 'add', '-A');
  git(dir, 'commit', '-qm', 'project');
  return dir;
}

let mock: Mock;
const homes: string[] = [];

beforeAll(async () => {
  installRunners();
  mock = await verdictMock();
}, 900_000);

afterAll(async () => {
  await mock?.close();
  for (const h of homes) rmSync(h, { recursive: true, force: true });
});

/** PATH with only the real runner CLIs, Node and the system tools; homes in temp (Codex's in the cache: see behaviour.test.ts). */
function runnerEnv(): Record<string, string> {
  const bin = testdir();
  for (const [name, command] of [
    ['copilot', 'copilot'],
    ['codex', 'codex'],
    ['opencode', 'opencode'],
    ['claude-code', 'claude'],
  ])
    symlinkSync(binOf(name as string), join(bin, command as string));
  const home = testdir();
  const codexHome = mkdtempSync(join(CACHE, 'codex-home-'));
  homes.push(codexHome);
  writeFileSync(
    join(codexHome, 'config.toml'),
    [
      'model_provider = "mock"',
      '[model_providers.mock]',
      'name = "mock"',
      `base_url = "${mock.origin}/v1"`,
      'wire_api = "responses"',
      'env_key = "MOCK_API_KEY"',
      '',
    ].join('\n'),
  );
  mkdirSync(join(home, '.copilot'), { recursive: true });
  // opencode: the shipped provider (openrouter) pointed at the mock, as behaviour.test.ts does.
  mkdirSync(join(home, '.config', 'opencode'), { recursive: true });
  const provider = { openrouter: { options: { baseURL: `${mock.origin}/v1`, apiKey: 'offline' } } };
  writeFileSync(join(home, '.config', 'opencode', 'opencode.json'), JSON.stringify({ provider }));
  return {
    XDG_CONFIG_HOME: join(home, '.config'),
    XDG_CACHE_HOME: join(home, '.cache'),
    XDG_DATA_HOME: join(home, '.local/share'),
    XDG_STATE_HOME: join(home, '.local/state'),
    OPENCODE_DISABLE_MODELS_FETCH: '1',
    OPENCODE_DISABLE_AUTOUPDATE: '1',
    npm_config_registry: 'http://127.0.0.1:9/',
    NPM_CONFIG_REGISTRY: 'http://127.0.0.1:9/',
    BUN_CONFIG_REGISTRY: 'http://127.0.0.1:9/',
    CLAUDE_CONFIG_DIR: join(home, '.claude'),
    DISABLE_AUTOUPDATER: '1',
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
    CLAUDE_CODE_MAX_RETRIES: '0',
    ANTHROPIC_API_KEY: 'offline',
    ANTHROPIC_BASE_URL: mock.origin,
    PATH: `${bin}:${dirname(process.execPath)}:/usr/bin:/bin`,
    HOME: home,
    NO_COLOR: '1',
    COPILOT_HOME: join(home, '.copilot'),
    COPILOT_PROVIDER_BASE_URL: `${mock.origin}/v1`,
    COPILOT_PROVIDER_API_KEY: 'offline',
    COPILOT_OFFLINE: 'true',
    COPILOT_AUTO_UPDATE: 'false',
    CODEX_HOME: codexHome,
    MOCK_API_KEY: 'offline',
    // Planted: each would widen the runner if it reached it (scrub_env drops them).
    COPILOT_ALLOW_ALL: 'true',
    CODEX_PERMISSION_PROFILE: 'danger',
    OPENCODE_PERMISSION: '{"*":"allow"}',
    CLAUDE_CODE_EVEN_MORE_DANGEROUSLY_SKIP_PERMISSIONS: '1',
  };
}

async function up(cwd: string, args: string[], env: Record<string, string>) {
  const out = sink();
  const err = sink();
  const code = await run(args, { stdout: out.stream, stderr: err.stream, cwd, env });
  return { code, stdout: out.text(), stderr: err.text() };
}

/** Each step's command.json and result.json from the run record. */
function steps(dir: string): { label: string; command: { command: string; args: string[] } }[] {
  const runs = join(dir, '.gateline/runs');
  const [id] = readdirSync(runs).filter((d) => d !== '.gitignore');
  const root = join(runs, id as string);
  return readdirSync(root)
    .filter((d) => /^\d\d-/.test(d))
    .sort()
    .map((label) => ({ label, command: JSON.parse(readFileSync(join(root, label, 'command.json'), 'utf8')) }));
}

describe('gateline up on the real runner CLIs, one run per lane type (loopback model)', () => {
  it('opencode (a primary copy) and Claude Code (its agent file): the four roles run and the verifier passes', async () => {
    const dir = project();
    const r = await up(dir, ['task', '--adapter', 'opencode', '--adapter', 'claude-code', '--timeout', '240'], runnerEnv());
    expect(r.code, `${r.stderr}\n${r.stdout}`).toBe(0);
    const ran = steps(dir);
    expect(ran.map((s) => `${s.label} ${s.command.command}`)).toEqual([
      '01-planner opencode',
      '02-implementer opencode',
      '03-reviewer claude',
      '04-verifier claude',
    ]);
    expect(ran[0]?.command.args).toContain('gateline-planner');
    expect(ran[2]?.command.args).toContain('reviewer');
    expect(read(dir, 'README.md')).toBe('hello\n');
  }, 600_000);

  it('copilot: the four roles run on their agent files and the verifier passes', async () => {
    const dir = project();
    const r = await up(dir, ['task', '--adapter', 'copilot', '--timeout', '240'], runnerEnv());
    expect(r.code, `${r.stderr}\n${r.stdout}`).toBe(0);
    const ran = steps(dir);
    expect(ran.map((s) => s.label)).toEqual(['01-planner', '02-implementer', '03-reviewer', '04-verifier']);
    for (const s of ran) {
      expect(s.command.command).toBe('copilot');
      expect(s.command.args).toContain('--agent');
    }
    expect(mock.roles).toEqual(expect.arrayContaining(['planner', 'implementer', 'reviewer', 'verifier']));
    expect(read(dir, 'README.md')).toBe('hello\n');
  }, 600_000);

  it('codex: the implementer runs on codex exec (accepted unnarrowed), the rest on copilot, and the verifier passes', async () => {
    // Codex runs only the implementer (openai); the verifier's pin needs a non-openai model on copilot.
    const dir = project((d) => {
      const file = join(d, 'adapters/copilot/manifest.json');
      writeFileSync(file, read(d, 'adapters/copilot/manifest.json').replace('"balanced": "gpt-5.1"', '"balanced": "claude-haiku-4.5"'));
    });
    const before = mock.roles.length;
    const r = await up(
      dir,
      ['task', '--adapter', 'codex', '--adapter', 'copilot', '--accept-unnarrowed', 'codex', '--timeout', '240'],
      runnerEnv(),
    );
    expect(r.code, `${r.stderr}\n${r.stdout}`).toBe(0);
    const ran = steps(dir);
    expect(ran.map((s) => `${s.label} ${s.command.command}`)).toEqual([
      '01-planner copilot',
      '02-implementer codex',
      '03-reviewer copilot',
      '04-verifier copilot',
    ]);
    expect(ran[1]?.command.args.slice(0, 2)).toEqual(['exec', '--json']);
    expect(mock.roles.slice(before)).toContain('implementer');
    expect(mock.paths.some((p) => p.includes('/responses'))).toBe(true);
  }, 600_000);
});
