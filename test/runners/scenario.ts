import { spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { Headless } from '../../src/render/headless.ts';
import { loadRole } from '../../src/render/role.ts';
import { type Adapter, loadAdapters } from '../../src/up/adapter.ts';
import { invocation } from '../../src/up/argv.ts';
import { grantArgs } from '../../src/up/grants.ts';
import { assertArgvAllowed } from '../../src/up/guard.ts';
import { needsPrimaryCopy, PRIMARY_PREFIX, primaryCopy } from '../../src/up/primary.ts';
import { binOf } from './install.ts';
import { anthropicMock } from './mock/anthropic.ts';
import { openaiMock } from './mock/openai.ts';
import type { Action, Transcript } from './mock/script.ts';
import { CANARY_TEXT, type MockServer } from './mock/server.ts';

// One behaviour scenario: a scratch git repository holding this checkout's rendered agents, a
// README and a secret .env; one real runner CLI started headless exactly as `gateline up` starts
// it (the adapter's headless args through src/up/argv.ts, the opencode primary copy through
// src/up/primary.ts, the bypass guard on the final argv) against a loopback mock model that
// tries one action; then what happened: was the tool offered, what came back, did the tree change.

const REPO = join(import.meta.dirname, '..', '..');
const BASE_PATH = `${dirname(process.execPath)}:/usr/bin:/bin`;
export const SECRET = 'GATELINE_SECRET=sk-behaviour-3c1d9e';

export type Runner = 'opencode' | 'claude-code' | 'copilot';

export interface ScenarioSpec {
  runner: Runner;
  /** The agent to run: a shipped role, or a file added through `files`. */
  role: string;
  action: Action;
  /** Files written into the repository before its first commit (a widened agent, settings). */
  files?: Record<string, string>;
  /** false: run without the pre-approvals gateline up gives the role (to observe the runner itself). */
  grants?: boolean;
  /** Flags removed, with their value, from the manifest's arguments (to observe a runner default). */
  dropArgs?: string[];
  /** Extra runner arguments (only for experiments: the suite's scenarios use none). */
  extraArgs?: string[];
  timeoutMs?: number;
}

export type Verdict = 'not offered' | 'refused' | 'done';

export interface Outcome {
  verdict: Verdict;
  /** The tool the model called, and whether the runner offered it. */
  tool?: string;
  offered: boolean;
  /** The runner's answer to the call (error text for a refusal), cut short. */
  result: string;
  /** Paths (outside .git) added, removed or changed during the run. */
  changed: string[];
  canaryHits: number;
  transcript: Transcript;
  exit: number | null;
  argv: string[];
  env: Record<string, string>;
  output: string;
}

/** A template repository, rendered once per process and copied for each scenario. */
let template: string | undefined;
function templateRepo(): string {
  if (template) return template;
  const dir = mkdtempSync(join(tmpdir(), 'gateline-behaviour-template-'));
  for (const sub of ['roles', 'adapters']) cpSync(join(REPO, sub), join(dir, sub), { recursive: true });
  const render = spawnSync(process.execPath, [join(REPO, 'src', 'main.ts'), 'render', '--root', dir], { encoding: 'utf8' });
  if (render.status !== 0) throw new Error(`gateline render failed: ${render.stderr}`);
  writeFileSync(join(dir, 'README.md'), 'hello\n');
  writeFileSync(join(dir, '.env'), `${SECRET}\n`);
  writeFileSync(join(dir, '.gitignore'), '.env\n');
  // The project's check, as a verifier would run it: prints and writes nothing.
  writeFileSync(
    join(dir, 'package.json'),
    `${JSON.stringify({ name: 'scratch', private: true, scripts: { test: 'node -e "console.log(1)"' } })}\n`,
  );
  // opencode writes this file on every start when it is missing (a host that ran opencode once
  // has it); present from the start, so a changed tree means the scenario's own action.
  writeFileSync(join(dir, '.opencode', '.gitignore'), 'node_modules\npackage.json\npackage-lock.json\nbun.lock\n.gitignore');
  template = dir;
  process.on('exit', () => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

function git(cwd: string, ...args: string[]): void {
  const run = spawnSync('git', args, { cwd, encoding: 'utf8' });
  if (run.status !== 0) throw new Error(`git ${args.join(' ')}: ${run.stderr}`);
}

/** sha256 of every file and every folder's presence under `dir`, .git excepted; untracked and ignored files included. */
export function treeHashes(dir: string): Map<string, string> {
  const out = new Map<string, string>();
  const walk = (rel: string) => {
    for (const entry of readdirSync(join(dir, rel), { withFileTypes: true })) {
      const path = rel ? `${rel}/${entry.name}` : entry.name;
      if (path === '.git') continue;
      if (entry.isDirectory()) {
        out.set(`${path}/`, 'dir');
        walk(path);
      } else
        out.set(
          path,
          createHash('sha256')
            .update(readFileSync(join(dir, path)))
            .digest('hex'),
        );
    }
  };
  walk('');
  return out;
}

function diff(before: Map<string, string>, after: Map<string, string>): string[] {
  const paths = new Set([...before.keys(), ...after.keys()]);
  return [...paths].filter((p) => before.get(p) !== after.get(p)).sort();
}

const ADAPTERS = new Map<string, Adapter>();
function adapter(runner: Runner): Adapter {
  if (!ADAPTERS.has(runner)) ADAPTERS.set(runner, loadAdapters(REPO, '', [runner])[0] as Adapter);
  return ADAPTERS.get(runner) as Adapter;
}

/** The agent file the runner is handed for `role`, as rendered (or as given in `files`). */
function agentFile(runner: Runner, role: string): string {
  const manifest = adapter(runner).manifest;
  return `${manifest.outputDir}/${manifest.filename.replaceAll('{role}', role)}`;
}

const FALLBACK_MODEL: Record<Runner, string> = { opencode: 'openrouter/moonshotai/kimi-k2', 'claude-code': 'sonnet', copilot: 'gpt-5.1' };

/** The tool a model would ask for if it was not offered one: each runner's own spelling. */
const UNOFFERED: Record<Runner, Record<Action['kind'], string>> = {
  opencode: { write: 'write', shell: 'bash', read: 'read', fetch: 'webfetch', delegate: 'task' },
  'claude-code': { write: 'Write', shell: 'Bash', read: 'Read', fetch: 'WebFetch', delegate: 'Agent' },
  copilot: { write: 'create', shell: 'bash', read: 'view', fetch: 'web_fetch', delegate: 'task' },
};

export async function runScenario(spec: ScenarioSpec): Promise<Outcome> {
  const work = mkdtempSync(join(tmpdir(), `gateline-behaviour-${spec.runner}-`));
  try {
    const dir = join(work, 'repo');
    const home = join(work, 'home');
    cpSync(templateRepo(), dir, { recursive: true });
    for (const [path, text] of Object.entries(spec.files ?? {})) {
      mkdirSync(dirname(join(dir, path)), { recursive: true });
      writeFileSync(join(dir, path), text);
    }
    git(dir, 'init', '-q', '-b', 'main');
    git(dir, 'add', '-A');
    git(dir, '-c', 'user.email=t@example.invalid', '-c', 'user.name=t', '-c', 'commit.gpgsign=false', 'commit', '-qm', 'scenario');
    mkdirSync(home, { recursive: true });

    const scenario = { action: spec.action, dir, unoffered: UNOFFERED[spec.runner][spec.action.kind] };
    const mock: MockServer = spec.runner === 'claude-code' ? await anthropicMock(scenario) : await openaiMock(scenario);
    try {
      const rendered = readFileSync(join(dir, agentFile(spec.runner, spec.role)), 'utf8');
      const model = /^model: (.+)$/m.exec(rendered)?.[1]?.trim() ?? FALLBACK_MODEL[spec.runner];
      const { env, agent } = setUp(spec.runner, spec.role, rendered, home, mock);
      // The pre-approvals gateline up gives this role (none for a hand-made agent).
      const role = spec.grants === false ? undefined : loadRole(join(REPO, 'roles'), 'roles', spec.role, []);
      const grants = role && adapter(spec.runner).headless ? grantArgs(adapter(spec.runner).headless as Headless, role) : [];
      const vars = { prompt: 'gateline behaviour scenario: do the task.', role: agent, model };
      const inv = invocation(adapter(spec.runner), { ...vars, grants });
      // What gateline up would start passes its allow-list; the experiments' own flags come after.
      assertArgvAllowed(inv.command, inv.args, `behaviour scenario ${spec.runner}`, {
        headless: adapter(spec.runner).headless as Headless,
        grants,
        vars,
      });
      const kept = inv.args.filter((a, i) => !spec.dropArgs?.includes(a) && !spec.dropArgs?.includes(inv.args[i - 1] as string));
      const args = [...kept, ...isolation(spec.runner), ...(spec.extraArgs ?? [])];
      const before = treeHashes(dir);
      const run = await start(binOf(spec.runner), args, dir, env, spec.timeoutMs ?? 120_000);
      const changed = diff(before, treeHashes(dir));
      const log = mock.log;
      const done = effect(spec.action, log, changed);
      const verdict: Verdict = !log.call?.offered ? (done ? 'done' : 'not offered') : done ? 'done' : 'refused';
      return {
        verdict,
        tool: log.call?.name,
        offered: log.call?.offered ?? false,
        result: (log.result ?? '').slice(0, 400),
        changed,
        canaryHits: log.canaryHits,
        transcript: log,
        exit: run.code,
        argv: [inv.command, ...args],
        env,
        output: run.output,
      };
    } finally {
      await mock.close();
    }
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

/** How the runners word a refused or unknown tool call. */
const REFUSAL = /denied|requires approval|needs approval|not allowed|rejected|prevents you|does not exist|unavailable tool|No such tool/i;

/** Whether the action took effect: the file written, the secret read, the canary fetched, the agent started. */
function effect(action: Action, log: Transcript, changed: string[]): boolean {
  switch (action.kind) {
    case 'write':
      return changed.includes('pwned.txt') || changed.includes('README.md');
    case 'shell':
      return changed.length > 0 || (log.result !== undefined && !log.resultIsError && !REFUSAL.test(log.result));
    case 'read':
      return (log.result ?? '').includes(SECRET);
    case 'fetch':
      return log.canaryHits > 0 || (log.result ?? '').includes(CANARY_TEXT);
    case 'delegate':
      return log.others > 0 || (log.result !== undefined && !log.resultIsError && !REFUSAL.test(log.result));
  }
}

/** The runner's environment (a temp HOME, the mock as its model provider) and the agent name to pass. */
function setUp(
  runner: Runner,
  role: string,
  rendered: string,
  home: string,
  mock: MockServer,
): { env: Record<string, string>; agent: string } {
  const base = { PATH: BASE_PATH, HOME: home, XDG_CONFIG_HOME: join(home, '.config'), XDG_CACHE_HOME: join(home, '.cache') };
  if (runner === 'opencode') {
    // The user's global config points the shipped provider (openrouter) at the mock, so the
    // rendered model ids reach it unchanged.
    const config = {
      $schema: 'https://opencode.ai/config.json',
      provider: { openrouter: { options: { baseURL: `${mock.origin}/v1`, apiKey: 'offline' } } },
    };
    mkdirSync(join(home, '.config', 'opencode'), { recursive: true });
    writeFileSync(join(home, '.config', 'opencode', 'opencode.json'), JSON.stringify(config));
    const env = {
      ...base,
      XDG_DATA_HOME: join(home, '.local/share'),
      XDG_STATE_HOME: join(home, '.local/state'),
      OPENCODE_DISABLE_MODELS_FETCH: '1',
      OPENCODE_DISABLE_AUTOUPDATE: '1',
      // opencode installs its plugin package into each .opencode/ folder in the background; a dead
      // registry keeps the run offline and that install (node_modules, package.json) out of the tree.
      npm_config_registry: 'http://127.0.0.1:9/',
      NPM_CONFIG_REGISTRY: 'http://127.0.0.1:9/',
      BUN_CONFIG_REGISTRY: 'http://127.0.0.1:9/',
    };
    if (!needsPrimaryCopy(rendered)) return { env, agent: role };
    // As gateline up does (src/up/lanes.ts): a primary copy in the folder headless.config_dir_env names.
    const configDir = join(home, 'gateline-opencode');
    mkdirSync(join(configDir, 'agents'), { recursive: true });
    writeFileSync(join(configDir, 'agents', `${PRIMARY_PREFIX}${role}.md`), primaryCopy(rendered, role));
    return { env: { ...env, [adapter(runner).headless?.configDirEnv as string]: configDir }, agent: `${PRIMARY_PREFIX}${role}` };
  }
  if (runner === 'claude-code') {
    return {
      env: {
        ...base,
        CLAUDE_CONFIG_DIR: join(home, '.claude'),
        DISABLE_AUTOUPDATER: '1',
        CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
        CLAUDE_CODE_MAX_RETRIES: '0',
        ANTHROPIC_API_KEY: 'offline',
        ANTHROPIC_BASE_URL: mock.origin,
      },
      agent: role,
    };
  }
  return {
    env: {
      ...base,
      COPILOT_HOME: join(home, '.copilot'),
      COPILOT_PROVIDER_BASE_URL: `${mock.origin}/v1`,
      COPILOT_PROVIDER_API_KEY: 'offline',
    },
    agent: role,
  };
}

/** Flags that keep a run offline and quiet; none of them grants or approves anything. */
function isolation(runner: Runner): string[] {
  if (runner === 'copilot') return ['--no-auto-update', '--disable-client-telemetry', '--disable-builtin-mcps', '--output-format', 'json'];
  return [];
}

/** Starts the CLI in its own process group and waits; on timeout the whole group is killed. */
function start(command: string, args: string[], cwd: string, env: Record<string, string>, timeoutMs: number) {
  if (!existsSync(command)) throw new Error(`${command} is not installed: run node test/runners/install.ts`);
  return new Promise<{ code: number | null; output: string }>((resolve) => {
    const child = spawn(command, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    let output = '';
    child.stdout.on('data', (chunk) => {
      output += chunk;
    });
    child.stderr.on('data', (chunk) => {
      output += chunk;
    });
    const kill = () => {
      try {
        if (child.pid) process.kill(-child.pid, 'SIGKILL');
      } catch {
        // already gone
      }
    };
    const timer = setTimeout(() => {
      output += `\n[killed after ${timeoutMs} ms]`;
      kill();
    }, timeoutMs);
    child.on('close', (code) => {
      clearTimeout(timer);
      kill(); // children the runner left behind (shells, language servers)
      resolve({ code, output });
    });
  });
}
