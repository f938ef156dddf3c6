import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { binOf, prefixOf } from './install.ts';

// How each real runner reports what it loaded, asked offline. Each function returns the tools
// the runner gives an agent (null: no list, i.e. every tool) so the tests can compare them with
// what the role's capabilities mean. The runners never see the user's home: HOME and every
// config folder point into `home`.

const BASE_PATH = `${dirname(process.execPath)}:/usr/bin:/bin`;

function run(command: string, args: string[], cwd: string, env: Record<string, string>, extra: { stdio?: ('pipe' | 'ignore')[] } = {}) {
  const result = spawnSync(command, args, { cwd, env: { PATH: BASE_PATH, ...env }, encoding: 'utf8', timeout: 90_000, stdio: extra.stdio });
  return { code: result.status, stdout: String(result.stdout ?? ''), stderr: String(result.stderr ?? ''), output: result.output };
}

/** opencode: `opencode debug agent <name>` prints the resolved agent, with a tool -> allowed map. */
export function opencodeAgent(dir: string, home: string, name: string): { tools: Record<string, boolean>; mode: string; model: string } {
  const env = {
    HOME: home,
    XDG_CONFIG_HOME: join(home, '.config'),
    XDG_DATA_HOME: join(home, '.local/share'),
    XDG_CACHE_HOME: join(home, '.cache'),
    XDG_STATE_HOME: join(home, '.local/state'),
    OPENCODE_DISABLE_MODELS_FETCH: '1',
    OPENCODE_DISABLE_AUTOUPDATE: '1',
  };
  const result = run(binOf('opencode'), ['debug', 'agent', name], dir, env);
  if (result.code !== 0) throw new Error(`opencode debug agent ${name} exited ${result.code}: ${result.stderr}`);
  const agent = JSON.parse(result.stdout) as {
    tools: Record<string, boolean>;
    mode: string;
    model?: { providerID: string; modelID: string };
  };
  return { tools: agent.tools, mode: agent.mode, model: agent.model ? `${agent.model.providerID}/${agent.model.modelID}` : '' };
}

/**
 * Claude Code: run the agent as the main agent in print mode against a dead local endpoint; the
 * first stream-json line (`system/init`) lists the tools it got, before any network call.
 */
export function claudeAgent(dir: string, home: string, name: string): { tools: string[]; model: string } {
  const env = {
    HOME: home,
    CLAUDE_CONFIG_DIR: join(home, '.claude'),
    DISABLE_AUTOUPDATER: '1',
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
    ANTHROPIC_API_KEY: 'offline',
    ANTHROPIC_BASE_URL: 'http://127.0.0.1:9',
    CLAUDE_CODE_MAX_RETRIES: '0',
  };
  const args = ['-p', 'hi', '--agent', name, '--output-format', 'stream-json', '--verbose', '--no-session-persistence'];
  const result = run(binOf('claude-code'), args, dir, env);
  const init = result.stdout
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as { type: string; subtype?: string; tools?: string[]; model?: string })
    .find((m) => m.type === 'system' && m.subtype === 'init');
  if (!init?.tools) throw new Error(`claude printed no init message for ${name}: ${result.stderr || result.stdout}`);
  return { tools: init.tools, model: init.model ?? '' };
}

export interface GeminiAgents {
  errors: string[];
  feedback: string[];
  agents: Record<string, { model?: string; declared: string[] | null; effective: string[] }>;
}

/** Gemini CLI: its own loader and executor, from its npm bundle (it has no listing command). */
export function geminiAgents(dir: string, home: string): GeminiAgents {
  const bundle = join(prefixOf('gemini-cli'), 'node_modules', '@google', 'gemini-cli', 'bundle');
  const script = join(import.meta.dirname, 'gemini-registry.mjs');
  const result = spawnSync(process.execPath, [script, bundle, dir], {
    cwd: dir,
    env: { PATH: BASE_PATH, HOME: home, GEMINI_CLI_HOME: home },
    encoding: 'utf8',
    timeout: 90_000,
    stdio: ['ignore', 'ignore', 'pipe', 'pipe'],
  });
  const json = String(result.output[3] ?? '');
  if (result.status !== 0 || !json) throw new Error(`gemini loader exited ${result.status}: ${result.stderr}`);
  return JSON.parse(json) as GeminiAgents;
}

/** Codex: the roles it offers to spawn (`debug prompt-input`) and its startup warnings (`doctor --json`). */
export function codexRoles(dir: string, home: string): { roles: Record<string, string>; warnings: string[] } {
  mkdirSync(home, { recursive: true });
  writeFileSync(join(home, 'config.toml'), `[projects.${JSON.stringify(dir)}]\ntrust_level = "trusted"\n`);
  const env = { HOME: home, CODEX_HOME: home };
  const prompt = run(binOf('codex'), ['debug', 'prompt-input', 'x'], dir, env);
  if (prompt.code !== 0) throw new Error(`codex debug prompt-input exited ${prompt.code}: ${prompt.stderr}`);
  let description = '';
  const walk = (node: unknown): void => {
    if (!node || typeof node !== 'object') return;
    const n = node as { name?: string; parameters?: { properties?: { agent_type?: { description?: string } } } };
    if (n.name === 'spawn_agent' && n.parameters) description = n.parameters.properties?.agent_type?.description ?? '';
    for (const value of Object.values(node)) walk(value);
  };
  walk(JSON.parse(prompt.stdout));
  const roles: Record<string, string> = {};
  for (const m of description.matchAll(/^([\w-]+): \{\n([\s\S]*?)\n\}/gm)) roles[m[1] as string] = m[2] as string;
  const doctor = run(binOf('codex'), ['doctor', '--json'], dir, env);
  const report = JSON.parse(doctor.stdout) as { checks?: Record<string, { details?: Record<string, string> }> };
  const warning = report.checks?.['config.load']?.details?.['startup warning'];
  return { roles, warnings: warning ? [warning] : [] };
}

export interface CopilotAgents {
  agents: { id: string; tools: string[] }[];
  warnings: string[];
  errors: string[];
}

/**
 * Copilot CLI: starts against a local mock provider (BYOK) and reports the custom agents it
 * loaded. Spawned asynchronously: the mock answers from this same process.
 */
export async function copilotAgents(dir: string, home: string, name: string, providerUrl: string): Promise<CopilotAgents> {
  const env = {
    PATH: BASE_PATH,
    HOME: home,
    COPILOT_HOME: join(home, '.copilot'),
    XDG_CONFIG_HOME: join(home, '.config'),
    XDG_CACHE_HOME: join(home, '.cache'),
    COPILOT_PROVIDER_BASE_URL: providerUrl,
    COPILOT_PROVIDER_API_KEY: 'offline',
    COPILOT_MODEL: 'gpt-4.1',
  };
  const args = [
    '-p',
    'hi',
    '--agent',
    name,
    '--trust-folder',
    '--no-auto-update',
    '--disable-client-telemetry',
    '--disable-builtin-mcps',
    '--output-format',
    'json',
  ];
  const child = spawn(binOf('copilot'), args, { cwd: dir, env, stdio: ['ignore', 'pipe', 'pipe'], timeout: 90_000 });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk) => {
    stdout += chunk;
  });
  child.stderr.on('data', (chunk) => {
    stderr += chunk;
  });
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  for (const line of stdout.split('\n').filter(Boolean)) {
    const event = JSON.parse(line) as { type?: string; data?: CopilotAgents };
    if (event.type === 'session.custom_agents_updated' && event.data) return event.data;
  }
  throw new Error(`copilot reported no custom agents for ${name} (exit ${code}): ${stderr.slice(0, 500)}`);
}
