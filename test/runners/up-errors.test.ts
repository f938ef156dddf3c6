import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { run } from '../../src/up/cli.ts';
import { binOf, installRunners } from './install.ts';

// `gateline up` itself, in-process, with the real runner CLIs on PATH and their model provider
// pointed at a loopback server that refuses every key (HTTP 401, not retried): the first role
// fails as a runner whose provider is unusable fails, and gateline must print the runner's own
// words for it. The planner is read-only, so this also
// proves the tree check does not mistake what a runner writes on start (opencode's
// `.opencode/.gitignore`, self-ignored) for the role changing the tree.

const REPO = join(import.meta.dirname, '..', '..');
const REFUSAL = 'gateline test: the provider refused the key';
let work = '';
let server: Server | undefined;
let origin = '';

beforeAll(async () => {
  installRunners();
  work = mkdtempSync(join(tmpdir(), 'gateline-up-runners-'));
  // One error body both providers' clients read: Anthropic's {type, error} and OpenAI's {error: {message}}.
  server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      res.writeHead(401, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ type: 'error', error: { type: 'authentication_error', message: REFUSAL } }));
    });
  });
  await new Promise<void>((resolve) => server?.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => {
  server?.close();
  rmSync(work, { recursive: true, force: true });
});

function scratch(name: string): { dir: string; home: string; bin: string } {
  const dir = join(work, name, 'repo');
  const home = join(work, name, 'home');
  const bin = join(work, name, 'bin');
  for (const d of [dir, home, bin]) mkdirSync(d, { recursive: true });
  for (const sub of ['roles', 'adapters', 'registry']) cpSync(join(REPO, sub), join(dir, sub), { recursive: true });
  const render = spawnSync(process.execPath, [join(REPO, 'src', 'main.ts'), 'render', '--root', dir], { encoding: 'utf8' });
  expect(render.status, render.stderr).toBe(0);
  writeFileSync(join(dir, 'README.md'), 'hello\n');
  const git = (...args: string[]) => expect(spawnSync('git', args, { cwd: dir }).status).toBe(0);
  git('init', '-q', '-b', 'main');
  git('add', '-A');
  git('-c', 'user.email=t@example.invalid', '-c', 'user.name=t', '-c', 'commit.gpgsign=false', 'commit', '-qm', 'start');
  for (const runner of ['opencode', 'claude-code']) {
    const exe = binOf(runner);
    symlinkSync(exe, join(bin, exe.split('/').pop() as string));
  }
  return { dir, home, bin };
}

async function up(dir: string, args: string[], env: Record<string, string>) {
  let stdout = '';
  let stderr = '';
  const sink = (add: (s: string) => void) =>
    new Writable({
      write(chunk, _enc, done) {
        add(String(chunk));
        done();
      },
    });
  const code = await run(args, {
    stdout: sink((s) => {
      stdout += s;
    }),
    stderr: sink((s) => {
      stderr += s;
    }),
    cwd: dir,
    env: { NO_COLOR: '1', ...env },
  });
  return { code, stdout, stderr };
}

describe('gateline up with a real runner whose provider refuses it', () => {
  it("opencode: the failure carries the provider's message from its JSON output; its start-up files do not trip the tree check", async () => {
    const { dir, home, bin } = scratch('opencode');
    mkdirSync(join(home, '.config', 'opencode'), { recursive: true });
    const provider = { openrouter: { options: { baseURL: `${origin}/v1`, apiKey: 'offline' } } };
    writeFileSync(join(home, '.config', 'opencode', 'opencode.json'), JSON.stringify({ provider }));
    const r = await up(dir, ['add a line', '--adapter', 'opencode', '--timeout', '100'], {
      PATH: `${bin}:${dirname(process.execPath)}:/usr/bin:/bin`,
      HOME: home,
      XDG_CONFIG_HOME: join(home, '.config'),
      XDG_CACHE_HOME: join(home, '.cache'),
      XDG_DATA_HOME: join(home, '.local/share'),
      XDG_STATE_HOME: join(home, '.local/state'),
      OPENCODE_DISABLE_MODELS_FETCH: '1',
      OPENCODE_DISABLE_AUTOUPDATE: '1',
      npm_config_registry: 'http://127.0.0.1:9/',
      BUN_CONFIG_REGISTRY: 'http://127.0.0.1:9/',
    });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`planner: the runner 'opencode' (adapter opencode) exited with code 1: ${REFUSAL}`);
    expect(r.stderr).not.toMatch(/changed the tree/);
    const runs = readdirSync(join(dir, '.gateline/runs')).filter((f) => f !== '.gitignore');
    expect(JSON.parse(readFileSync(join(dir, '.gateline/runs', runs[0] as string, 'summary.json'), 'utf8')).status).toBe('crashed');
  });

  it('claude-code: the failure carries its own "API Error" from its result object, without a misleading "success:"', async () => {
    const { dir, home, bin } = scratch('claude');
    const r = await up(dir, ['add a line', '--adapter', 'claude-code', '--timeout', '100'], {
      PATH: `${bin}:${dirname(process.execPath)}:/usr/bin:/bin`,
      HOME: home,
      CLAUDE_CONFIG_DIR: join(home, '.claude'),
      DISABLE_AUTOUPDATER: '1',
      CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
      CLAUDE_CODE_MAX_RETRIES: '0',
      ANTHROPIC_BASE_URL: origin,
      ANTHROPIC_API_KEY: 'offline',
    });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(
      /planner: the runner 'claude' \(adapter claude-code\) exited with code 1: .*API Error: 401 gateline test: the provider refused the key/,
    );
    expect(r.stderr).not.toMatch(/code 1: success/);
    expect(r.stderr).not.toMatch(/changed the tree/);
  });
});
