import { execFileSync, spawn } from 'node:child_process';
import { chmodSync, copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { locate } from '../src/render/context.ts';
import type { Headless } from '../src/render/headless.ts';
import { renderAll } from '../src/render/render.ts';
import type { Role } from '../src/render/role.ts';
import { type Adapter, loadAdapters } from '../src/up/adapter.ts';
import { run } from '../src/up/cli.ts';
import { grantArgs } from '../src/up/grants.ts';
import { openRecord } from '../src/up/record.ts';
import { loadRegistry } from '../src/up/registry.ts';
import { runStep, StepError } from '../src/up/step.ts';
import { loadWorkspace } from '../src/up/workspace.ts';
import { checkout, copyTree, git, gitRepo, host, REPO, read, testdir } from './helpers.ts';

// `gateline up` end to end, in-process, against fake runners: small Node scripts on a temp PATH
// that print each runner's real headless output shape (as its pinned version prints it) and log the argv
// they were given. The fake opencode also resolves --agent the way opencode does (a frontmatter
// name overrides the file name; a subagent-mode or unknown agent falls back to the default
// agent), so a run that would silently lose its narrowing is caught.

const FAKE = String.raw`
const fs = require('node:fs');
const path = require('node:path');
const argv = process.argv.slice(2);
const script = JSON.parse(fs.readFileSync(process.env.FAKE_SCRIPT, 'utf8'));
const log = process.env.FAKE_LOG;
const flag = (name) => { const i = argv.indexOf(name); return i >= 0 ? argv[i + 1] : undefined; };
const prompt = argv.find((a) => a.includes('gateline up:')) || '';
const role = (/you are the ([a-z-]+)/.exec(prompt) || [])[1] || 'unknown';
const earlier = fs.existsSync(log) ? fs.readFileSync(log, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l)) : [];
const call = earlier.filter((e) => e.role === role).length;
const entry = { runner: RUNNER, argv, role, call, pid: process.pid, cwd: process.cwd(), configDir: process.env.OPENCODE_CONFIG_DIR || null, envNames: Object.keys(process.env) };
if (RUNNER === 'opencode') {
  const agents = {};
  const dirs = [path.join(process.cwd(), '.opencode', 'agents')];
  if (process.env.OPENCODE_CONFIG_DIR) dirs.push(path.join(process.env.OPENCODE_CONFIG_DIR, 'agents'));
  for (const dir of dirs) {
    if (!fs.existsSync(dir)) continue;
    for (const f of fs.readdirSync(dir).filter((f) => f.endsWith('.md'))) {
      const text = fs.readFileSync(path.join(dir, f), 'utf8');
      const fm = text.split('---')[1] || '';
      const id = (/^name: (.+)$/m.exec(fm) || [])[1] || f.slice(0, -3);
      agents[id] = { file: path.join(dir, f), text, mode: (/^mode: (.+)$/m.exec(fm) || [])[1] || 'all' };
    }
  }
  const found = agents[flag('--agent')];
  entry.agent = flag('--agent');
  entry.agentText = found ? found.text : null;
  entry.fallback = !found || found.mode === 'subagent';
}
fs.appendFileSync(log, JSON.stringify(entry) + '\n');
const fail = (script.fail || []).find((f) => f.runner === RUNNER && f.role === role && (f.call === undefined || f.call === call));
const mode = fail ? fail.mode : 'ok';
const texts = script.reports[role] || ['(nothing)'];
const text = texts[Math.min(call, texts.length - 1)];
const out = (s) => process.stdout.write(s);
if (mode === 'hang') {
  setInterval(() => {}, 1000);
} else if (mode === 'crash') {
  process.stderr.write('fake ' + RUNNER + ': panic: out of tokens\n');
  process.exit(3);
} else if (mode === 'garbage') {
  out('Thinking...\nthis is not the output you are looking for\n');
} else if (RUNNER === 'claude') {
  out(JSON.stringify({ type: 'result', subtype: 'success', is_error: false, duration_ms: 12, num_turns: 2, result: text,
    session_id: flag('--resume') || 'cc-' + role + '-' + call, total_cost_usd: 0.125,
    usage: { input_tokens: 1000, cache_creation_input_tokens: 0, cache_read_input_tokens: 500, output_tokens: 200 },
    modelUsage: {}, permission_denials: [], uuid: 'u' }) + '\n');
} else if (RUNNER === 'opencode') {
  const sessionID = flag('--session') || 'ses_' + role + '_' + call;
  const line = (o) => out(JSON.stringify({ timestamp: 1, sessionID, ...o }) + '\n');
  line({ type: 'step_start', part: { type: 'step-start' } });
  line({ type: 'tool_use', part: { type: 'tool', tool: 'read' } });
  line({ type: 'step_finish', part: { type: 'step-finish', cost: 0.01, tokens: { input: 400, output: 50, reasoning: 0, cache: { read: 0, write: 0 } } } });
  line({ type: 'text', part: { type: 'text', text } });
  line({ type: 'step_finish', part: { type: 'step-finish', cost: 0.0025, tokens: { input: 100, output: 25, reasoning: 5, cache: { read: 20, write: 0 } } } });
} else if (RUNNER === 'gemini') {
  out(JSON.stringify({ session_id: 'gm-' + role + '-' + call, response: text,
    stats: { models: { [flag('--model')]: { api: { totalRequests: 1 }, tokens: { prompt: 2000000, candidates: 400000, total: 2400000, cached: 0, thoughts: 0, tool: 0 } } },
      tools: { totalCalls: 0 }, files: {} } }, null, 2) + '\n');
}
`;

const HAPPY = {
  planner: ['PLAN\n1. change a.ts\nAcceptance: tests pass'],
  implementer: ['IMPLEMENTED first try', 'IMPLEMENTED after review'],
  reviewer: ['VERDICT: REQUEST_CHANGES\n## Findings\n1. [major] a.ts:1 - off by one', 'VERDICT: APPROVE\n## Findings\nNone'],
  verifier: ['VERDICT: PASS\n## Criteria\n1. tests pass'],
};

interface Fail {
  runner: string;
  role: string;
  mode: 'hang' | 'crash' | 'garbage';
  call?: number;
}

interface Entry {
  runner: string;
  argv: string[];
  role: string;
  call: number;
  pid: number;
  configDir: string | null;
  envNames: string[];
  agent?: string;
  agentText?: string | null;
  fallback?: boolean;
}

/** Fake runners in a temp bin folder, and the env that puts them first on PATH. */
function fakes({
  runners = ['claude', 'opencode', 'gemini'],
  reports = HAPPY as Record<string, string[]>,
  fail = [] as Fail[],
  path = true,
} = {}) {
  const dir = testdir();
  const bin = join(dir, 'bin');
  mkdirSync(bin);
  for (const runner of runners) {
    writeFileSync(join(bin, runner), `#!${process.execPath}\nconst RUNNER = ${JSON.stringify(runner)};\n${FAKE}`);
    chmodSync(join(bin, runner), 0o755);
  }
  const script = join(dir, 'script.json');
  writeFileSync(script, JSON.stringify({ reports, fail }));
  const log = join(dir, 'argv.log');
  const env = { PATH: path ? `${bin}:${process.env.PATH}` : bin, FAKE_SCRIPT: script, FAKE_LOG: log, HOME: dir };
  const entries = (): Entry[] =>
    existsSync(log)
      ? read(dir, 'argv.log')
          .split('\n')
          .filter(Boolean)
          .map((l) => JSON.parse(l))
      : [];
  return { env, entries };
}

/** A framework checkout with the registry and fresh agent files. */
function repo(edit?: (dir: string) => void): string {
  const dir = checkout();
  copyTree(join(REPO, 'registry'), join(dir, 'registry'));
  edit?.(dir);
  expect(renderAll(locate(dir)).ok).toBe(true);
  return dir;
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

async function up(cwd: string, args: string[], env: Record<string, string> = {}, signal?: AbortSignal) {
  const out = sink();
  const err = sink();
  const code = await run(args, { stdout: out.stream, stderr: err.stream, cwd, env: { NO_COLOR: '1', ...env }, signal });
  return { code, stdout: out.text(), stderr: err.text() };
}

const BYPASS = [
  '--dangerously-skip-permissions',
  '--allow-dangerously-skip-permissions',
  '--dangerously-bypass-approvals-and-sandbox',
  '--yolo',
  '-y',
  '--auto',
  'bypassPermissions',
  'yolo',
  'auto_edit',
  'danger-full-access',
  '--allow-all-tools',
];

/** Flags whose value is a bypass only for them: `never` is a word elsewhere. */
const BYPASS_AFTER: Record<string, RegExp> = {
  '--ask-for-approval': /^never$/,
  '-a': /^never$/,
  '--settings': /bypassPermissions/,
};

/** No runner ever received a permission-bypassing flag, in any spelling: `--f=v`, `-fv`, `-f=v` or `--f v`. */
function expectNoBypass(entries: Entry[]) {
  expect(entries.length).toBeGreaterThan(0);
  for (const e of entries) {
    for (const [i, arg] of e.argv.entries()) {
      const where = `${e.runner} ${e.argv.join(' ')}`;
      const short = /^-[A-Za-z]./.test(arg) ? [arg.slice(0, 2), arg.slice(2).replace(/^=/, '')] : undefined;
      const long =
        arg.startsWith('--') && arg.includes('=') ? [arg.slice(0, arg.indexOf('=')), arg.slice(arg.indexOf('=') + 1)] : undefined;
      const [flag, value] = short ?? long ?? [arg, e.argv[i + 1]];
      for (const part of [arg, flag, short || long ? value : undefined]) expect(BYPASS, where).not.toContain(part);
      expect(value !== undefined && BYPASS_AFTER[flag as string]?.test(value), where).not.toBe(true);
    }
  }
}

/** Claude Code's deny rules for secret files, as the shipped manifest passes them. */
const CLAUDE_SECRETS = JSON.stringify({ permissions: { deny: ['Read(./.env)', 'Read(./.env.*)'] } });

/** The command prefixes a shipped role lists, read from its spec. */
const commandsOf = (role: string) => (/^commands: \[(.*)\]$/m.exec(read(REPO, `roles/${role}.md`))?.[1] ?? '').split(', ');

function runDir(dir: string): string {
  const runs = readdirSync(join(dir, '.gateline/runs')).filter((f) => f !== '.gitignore');
  expect(runs).toHaveLength(1);
  return join(dir, '.gateline/runs', runs[0] as string);
}

const permissionBlock = (text: string) => /permission:\n(?: {2}.*\n)+/.exec(text)?.[0];

describe('gateline up --plan', () => {
  it('with one adapter: every role on it, the vendor pins advisory, one advisory line per pinned role, nothing run', async () => {
    const dir = repo();
    const f = fakes();
    const r = await up(dir, ['--plan', '--adapter', 'claude-code'], f.env);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(
      [
        'role         adapter      model   vendor     pin       run',
        'planner      claude-code  opus    anthropic  n/a       ok',
        'implementer  claude-code  sonnet  anthropic  n/a       ok',
        'reviewer     claude-code  opus    anthropic  advisory  ok',
        'verifier     claude-code  sonnet  anthropic  advisory  ok',
        '',
      ].join('\n'),
    );
    expect(r.stderr.match(/vendor-pin advisory: the reviewer/g)).toHaveLength(1);
    expect(r.stderr.match(/vendor-pin advisory: the verifier/g)).toHaveLength(1);
    expect(r.stderr.match(/vendor-pin advisory/g)).toHaveLength(2);
    expect(f.entries()).toEqual([]);
    expect(existsSync(join(dir, '.gateline'))).toBe(false);
  });

  it('with two adapters: the reviewer and verifier go to the other vendor; --json gives the same as data', async () => {
    const dir = repo();
    const f = fakes();
    const r = await up(dir, ['--plan', '--adapter', 'opencode', '--adapter', 'claude-code'], f.env);
    expect(r.code).toBe(0);
    expect(r.stderr).toBe('');
    expect(r.stdout).toMatch(/reviewer +claude-code +opus +anthropic +ok/);
    expect(r.stdout).toMatch(/implementer +opencode +openrouter\/moonshotai\/kimi-k2 +moonshotai +n\/a/);
    const json = await up(dir, ['--plan', '--json', '--adapter', 'opencode', '--adapter', 'claude-code'], f.env);
    const data = JSON.parse(json.stdout);
    expect(data).toMatchObject({ ok: true, mode: 'framework', adapters: ['opencode', 'claude-code'], advisories: [] });
    const lane = { run: 'ok', problems: [] };
    expect(data.bindings).toEqual([
      { role: 'planner', adapter: 'opencode', model: 'openrouter/moonshotai/kimi-k2', vendor: 'moonshotai', pin: 'n/a', ...lane },
      { role: 'implementer', adapter: 'opencode', model: 'openrouter/moonshotai/kimi-k2', vendor: 'moonshotai', pin: 'n/a', ...lane },
      { role: 'reviewer', adapter: 'claude-code', model: 'opus', vendor: 'anthropic', pin: 'ok', ...lane },
      { role: 'verifier', adapter: 'claude-code', model: 'sonnet', vendor: 'anthropic', pin: 'ok', ...lane },
    ]);
  });

  it('a --bind that puts the reviewer on the implementer vendor is a VendorPinError: exit 1, both sides named, nothing run', async () => {
    const dir = repo();
    const f = fakes();
    const r = await up(
      dir,
      [
        'fix it',
        '--adapter',
        'claude-code',
        '--adapter',
        'opencode',
        '--bind',
        'implementer=claude-code',
        '--bind',
        'reviewer=claude-code',
      ],
      f.env,
    );
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/vendor pin violated: the reviewer must not share a model vendor with the implementer/);
    expect(r.stderr).toMatch(/implementer: +adapter claude-code, model sonnet, vendor anthropic/);
    expect(r.stderr).toMatch(/reviewer: +adapter claude-code, model opus, vendor anthropic/);
    expect(r.stderr).toMatch(/Fix: add an --adapter .* or change --bind reviewer=claude-code/);
    expect(f.entries()).toEqual([]);
  });

  it('usage errors exit 2', async () => {
    const dir = repo();
    expect((await up(dir, ['--plan', '--adapter', 'claude-code', '--frobnicate'])).code).toBe(2);
    expect((await up(dir, ['--plan'])).stderr).toMatch(/no --adapter given/);
    expect((await up(dir, ['--adapter', 'claude-code'])).stderr).toMatch(/no task given/);
    expect((await up(dir, ['--plan', '--adapter', 'nope'])).stderr).toMatch(/unknown adapter 'nope'/);
    expect((await up(dir, ['--plan', '--adapter', 'claude-code', '--bind', 'reviewer'])).stderr).toMatch(/--bind must be ROLE=ADAPTER/);
    expect((await up(dir, ['--plan', '--adapter', 'claude-code', '--bind', 'reviewer=opencode'])).stderr).toMatch(
      /'opencode' is not one of the --adapter values/,
    );
    expect((await up(dir, ['--plan', '--adapter', 'claude-code', '--bind', 'boss=claude-code'])).stderr).toMatch(/'boss' is not a role/);
    expect((await up(dir, ['x', '--adapter', 'claude-code', '--rounds', 'two'])).stderr).toMatch(/--rounds must be a whole number/);
    expect((await up(dir, ['x', '--adapter', 'claude-code', '--timeout', '0'])).stderr).toMatch(/--timeout must be a positive number/);
    for (const args of [['--plan'], ['x', '--adapter', 'claude-code', '--rounds', 'two']]) {
      expect((await up(dir, args)).code).toBe(2);
    }
    expect((await up(dir, ['--help'])).stdout).toMatch(/^Usage: gateline up/);
  });

  it('an unknown adapter is a problem with the inputs: exit 1, as in the installer, with the same message', async () => {
    const dir = repo();
    const r = await up(dir, ['--plan', '--adapter', 'claude-code', '--adapter', 'nope']);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/unknown adapter 'nope' \(known: claude-code, codex, copilot, gemini-cli, opencode\)/);
  });

  it('a profile named like an Object method (toString) has no model, rather than a function for one', async () => {
    const dir = checkout();
    copyTree(join(REPO, 'registry'), join(dir, 'registry'));
    writeFileSync(
      join(dir, 'roles/reviewer.md'),
      read(dir, 'roles/reviewer.md').replace('capability_profile: deep', 'capability_profile: toString'),
    );
    const r = await up(dir, ['--plan', '--adapter', 'claude-code']);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(
      /adapters\/claude-code\/manifest\.json: no model for the reviewer: its capability_profile 'toString' is not in model_map/,
    );
    expect(r.stderr).not.toMatch(/native code/);
  });

  it("stops when the registry and a manifest's model_vendors name different vendors for one model", async () => {
    const dir = checkout();
    copyTree(join(REPO, 'registry'), join(dir, 'registry'));
    const registry = read(dir, 'registry/models.yaml');
    writeFileSync(join(dir, 'registry/models.yaml'), registry.replace('  opus:\n    vendor: anthropic', '  opus:\n    vendor: openai'));
    const registryLine = registry.split('\n').indexOf('  opus:') + 1;
    const manifestLine =
      read(dir, 'adapters/claude-code/manifest.json')
        .split('\n')
        .findIndex((l) => l.includes('"opus": "anthropic"')) + 1;
    const r = await up(dir, ['--plan', '--adapter', 'claude-code']);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain(
      `adapters/claude-code/manifest.json:${manifestLine}: model_vendors says model 'opus' is from vendor 'anthropic', ` +
        `but registry/models.yaml:${registryLine} says 'openai'`,
    );
    // Only the configured adapters are compared: opencode names no Anthropic model.
    expect((await up(dir, ['--plan', '--adapter', 'opencode'])).stderr).not.toMatch(/model_vendors says/);
  });

  it('in a host, reads the manifests, roles and registry of the vendored core and only the adapters the lock selects', async () => {
    const dir = host({}, { adapters: ['claude-code', 'opencode'] });
    const manifest = join(dir, '.gateline/core/adapters/claude-code/manifest.json');
    writeFileSync(manifest, read(dir, '.gateline/core/adapters/claude-code/manifest.json').replace('"deep": "opus"', '"deep": "haiku"'));
    const r = await up(join(dir), ['--plan', '--adapter', 'claude-code'], fakes().env);
    expect(r.stdout).toMatch(/planner +claude-code +haiku +anthropic +n\/a +refused/);
    // The run would refuse it: the agent files are not rendered.
    expect(r.stderr).toMatch(/\.claude\/agents\/planner\.md: is missing/);
    expect(r.code).toBe(1);
    const other = await up(dir, ['--plan', '--adapter', 'gemini-cli']);
    expect(other.code).toBe(1);
    expect(other.stderr).toMatch(
      /\.gateline\/framework-lock\.json: does not select adapter 'gemini-cli'.*re-run the installer with --adapter gemini-cli/,
    );
  });
});

describe("the host's overlay narrows what gateline up grants", () => {
  it('a reviewer narrowed to two commands is pre-approved for those two only; a widening overlay is refused', () => {
    const dir = host(
      { '.gateline/overlays/reviewer.md': '---\ncommands: [git status, git diff]\n---\n' },
      { adapters: ['claude-code', 'opencode'] },
    );
    const ws = loadWorkspace({ start: dir, adapters: ['claude-code'], forced: {} });
    const reviewer = ws.roles.find((r) => r.name === 'reviewer') as Role;
    const claude = ws.adapters[0] as Adapter;
    expect(grantArgs(claude.headless as Headless, reviewer)).toEqual([
      '--allowedTools',
      'Bash(git status:*)',
      '--allowedTools',
      'Bash(git diff:*)',
    ]);
    writeFileSync(join(dir, '.gateline/overlays/reviewer.md'), '---\ncommands: [git status, sh]\n---\n');
    expect(() => loadWorkspace({ start: dir, adapters: ['claude-code'], forced: {} })).toThrow(
      /'sh' is not among the commands of role 'reviewer'/,
    );
  });
});

describe('gateline up "<task>"', () => {
  it('opencode + claude-code: runs the four roles, resumes the opencode implementer by its sessionID, meters the runner-reported cost', async () => {
    const dir = repo();
    const f = fakes();
    const r = await up(dir, ['add a feature', '--adapter', 'opencode', '--adapter', 'claude-code'], f.env);
    expect(r.stderr).not.toMatch(/error/i);
    expect(r.code).toBe(0);
    const entries = f.entries();
    expect(entries.map((e) => `${e.runner}:${e.role}`)).toEqual([
      'opencode:planner',
      'opencode:implementer',
      'claude:reviewer',
      'opencode:implementer',
      'claude:reviewer',
      'claude:verifier',
    ]);
    // The resume continues the session the first implementer run printed, on the same primary agent.
    const resumed = entries[3] as Entry;
    expect(resumed.argv).toEqual(expect.arrayContaining(['--session', 'ses_implementer_0', '--agent', 'gateline-implementer']));
    expect(resumed.argv.slice(0, 9)).toEqual([
      'run',
      '--format',
      'json',
      '--agent',
      'gateline-implementer',
      '--model',
      'openrouter/moonshotai/kimi-k2',
      '--session',
      'ses_implementer_0',
    ]);
    expect(resumed.argv.find((a) => a.startsWith('gateline up:'))).toMatch(/reviewer requested changes \(round 1 of 2\)[\s\S]*off by one/);
    expect((entries[1] as Entry).argv).not.toContain('--session');
    // Each role got the reports before it.
    const verifierPrompt = (entries[5] as Entry).argv[1] as string;
    expect(verifierPrompt).toMatch(/# Task\n\nadd a feature/);
    expect(verifierPrompt).toMatch(/## planner \(opencode, openrouter\/moonshotai\/kimi-k2\)\n\nPLAN/);
    expect(verifierPrompt).toMatch(/## implementer \(opencode, .*\)\n\nIMPLEMENTED after review/);
    expect(verifierPrompt).toMatch(/## reviewer \(claude-code, opus\)\n\nVERDICT: APPROVE/);
    expect((entries[2] as Entry).argv).toEqual([
      '-p',
      expect.stringMatching(/^gateline up: you are the reviewer/),
      '--agent',
      'reviewer',
      '--model',
      'opus',
      '--output-format',
      'json',
      '--settings',
      CLAUDE_SECRETS,
      // The reviewer lists its commands: one pre-approval each, never the whole Bash.
      ...commandsOf('reviewer').flatMap((c) => ['--allowedTools', `Bash(${c}:*)`]),
    ]);
    expectNoBypass(entries);
    // Summary: opencode's step_finish costs summed (0.0125 a run), Claude Code's total_cost_usd.
    expect(r.stdout).toMatch(/planner +opencode +openrouter\/moonshotai\/kimi-k2 +1 +520 +80 +\$0\.0125 +runner-reported/);
    expect(r.stdout).toMatch(/implementer +opencode +\S+ +2 +1040 +160 +\$0\.0250 +runner-reported/);
    expect(r.stdout).toMatch(/reviewer +claude-code +opus +2 +3000 +400 +\$0\.2500 +runner-reported/);
    expect(r.stdout).toMatch(/total +6 +.* +\$0\.4125 +runner-reported/);
    expect(r.stdout).toMatch(/VERDICT: PASS: the verifier says PASS/);
    expect(r.stderr).not.toMatch(/vendor-pin advisory/);
  });

  it('runs opencode roles as a primary copy with the identical permission map, never the subagent file', async () => {
    const dir = repo();
    const f = fakes();
    expect((await up(dir, ['task', '--adapter', 'opencode', '--adapter', 'claude-code'], f.env)).code).toBe(0);
    const opencode = f.entries().filter((e) => e.runner === 'opencode');
    expect(opencode).toHaveLength(3);
    for (const e of opencode) {
      expect(e.fallback, `${e.role} fell back to opencode's default agent`).toBe(false);
      expect(e.agent).toBe(`gateline-${e.role}`);
      expect(e.configDir).toBeTruthy();
      const rendered = read(dir, `.opencode/agents/${e.role}.md`);
      expect(permissionBlock(e.agentText ?? '')).toBe(permissionBlock(rendered));
      expect(permissionBlock(rendered)).toMatch(/^permission:\n {2}"\*": deny\n/);
      expect(e.agentText).toMatch(/^mode: primary$/m);
      expect(e.agentText?.replace('mode: primary', 'mode: subagent').replace(`name: gateline-${e.role}`, `name: ${e.role}`)).toBe(rendered);
    }
    // The temporary config folder is gone; the copies are kept in the run record.
    expect(existsSync(opencode[0]?.configDir as string)).toBe(false);
    expect(readFileSync(join(runDir(dir), 'primary-agents/gateline-implementer.md'), 'utf8')).toMatch(/name: gateline-implementer/);
  });

  it('refuses to run a subagent file when the manifest names no config folder variable for its primary copy', async () => {
    const dir = repo((d) => {
      const path = join(d, 'adapters/opencode/manifest.json');
      const manifest = JSON.parse(readFileSync(path, 'utf8'));
      delete manifest.headless.config_dir_env;
      writeFileSync(path, JSON.stringify(manifest, null, 2));
    });
    const f = fakes();
    const r = await up(dir, ['task', '--adapter', 'opencode', '--adapter', 'claude-code'], f.env);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(
      /adapters\/opencode\/manifest\.json: \.opencode\/agents\/\w+\.md is a subagent[\s\S]*'headless\.config_dir_env'/,
    );
    expect(f.entries()).toEqual([]);
  });

  it('the fake opencode does catch a run on the subagent file (so the check above can fail)', () => {
    const dir = repo();
    const f = fakes();
    const opencode = join(f.env.PATH.split(':')[0] as string, 'opencode');
    execFileSync(opencode, ['run', '--format', 'json', '--agent', 'reviewer', 'gateline up: you are the reviewer'], {
      cwd: dir,
      env: f.env,
    });
    expect(f.entries()[0]).toMatchObject({ agent: 'reviewer', fallback: true });
  });

  it('claude-code alone: a vendor-pin advisory once per pinned role, resume with -p --resume <session_id>', async () => {
    const dir = repo();
    const f = fakes();
    const r = await up(dir, ['task', '--adapter', 'claude-code'], f.env);
    expect(r.code).toBe(0);
    expect(r.stderr.match(/vendor-pin advisory: the reviewer/g)).toHaveLength(1);
    expect(r.stderr.match(/vendor-pin advisory: the verifier/g)).toHaveLength(1);
    const entries = f.entries();
    expect(entries.map((e) => e.role)).toEqual(['planner', 'implementer', 'reviewer', 'implementer', 'reviewer', 'verifier']);
    const resumed = entries[3] as Entry;
    expect(resumed.argv[resumed.argv.indexOf('--resume') + 1]).toBe('cc-implementer-0');
    // The implementer may edit, write and run commands headless: pre-approved, in capability order.
    expect(resumed.argv.slice(resumed.argv.indexOf('--resume') + 2)).toEqual([
      '--allowedTools',
      'Edit',
      '--allowedTools',
      'NotebookEdit',
      '--allowedTools',
      'Write',
      '--allowedTools',
      'Bash',
    ]);
    expect(resumed.argv).toEqual(expect.arrayContaining(['--agent', 'implementer', '--model', 'sonnet']));
    expectNoBypass(entries);
    const bindings = JSON.parse(readFileSync(join(runDir(dir), 'bindings.json'), 'utf8'));
    expect(bindings.advisories).toHaveLength(2);
    expect(bindings.bindings[2]).toMatchObject({ role: 'reviewer', pin: 'advisory', how: '--agent reviewer: .claude/agents/reviewer.md' });
  });

  it('refuses a runner that takes no agent file unless the user accepts unnarrowed tools: nothing runs', async () => {
    const dir = repo();
    const f = fakes();
    const r = await up(dir, ['task', '--adapter', 'gemini-cli', '--adapter', 'opencode'], f.env);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(
      /adapters\/gemini-cli\/manifest\.json: cannot run the planner narrowed on gemini-cli: it takes no agent file[\s\S]*--accept-unnarrowed gemini-cli/,
    );
    expect(f.entries()).toEqual([]);
  });

  it('a {role} inside a prompt template is no agent flag: such a runner is refused unless accepted, and then says so', async () => {
    const templated = () =>
      repo((d) => {
        const file = join(d, 'adapters/gemini-cli/manifest.json');
        writeFileSync(
          file,
          read(d, 'adapters/gemini-cli/manifest.json')
            .replace('"-p", "{prompt}"', '"-p", "(as {role}) {prompt}"')
            .replace('"-p": ["{prompt}"]', '"-p": ["(as {role}) {prompt}"]'),
        );
      });
    const f = fakes();
    // Gemini CLI renders the planner and implementer only; Claude Code takes the reviewer and verifier.
    const both = ['--adapter', 'gemini-cli', '--adapter', 'claude-code'];
    const refused = await up(templated(), ['task', ...both], f.env);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(
      /cannot run the planner narrowed on gemini-cli: it takes no agent file[\s\S]*--accept-unnarrowed gemini-cli/,
    );
    expect(f.entries()).toEqual([]);

    const dir = templated();
    const r = await up(dir, ['task', ...both, '--accept-unnarrowed', 'gemini-cli'], f.env);
    expect(r.code).toBe(0);
    const bindings = JSON.parse(readFileSync(join(runDir(dir), 'bindings.json'), 'utf8'));
    const onGemini = bindings.bindings.filter((b: { adapter: string }) => b.adapter === 'gemini-cli');
    expect(onGemini.map((b: { role: string }) => b.role)).toEqual(['planner', 'implementer']);
    for (const b of onGemini) expect(b.how, b.role).toMatch(/^instructions in the prompt \(no agent flag\)/);
    const gemini = f.entries().filter((e) => e.runner === 'gemini');
    expect(gemini.length).toBeGreaterThan(0);
    for (const e of gemini) {
      expect(e.argv).not.toContain('--agent');
      expect(e.argv[1]).toMatch(new RegExp(`^\\(as ${e.role}\\) gateline up: you are the ${e.role}`));
      if (e.call === 0) expect(e.argv[1]).toMatch(/# Your role's instructions/);
    }
  });

  it('runs the primary copy whenever the rendered file says mode: subagent, whatever the command is called (a path to a copy)', async () => {
    const f = fakes();
    const copy = join(testdir(), 'oc');
    copyFileSync(join(f.env.PATH.split(':')[0] as string, 'opencode'), copy);
    chmodSync(copy, 0o755);
    const dir = repo((d) => {
      const file = join(d, 'adapters/opencode/manifest.json');
      writeFileSync(
        file,
        read(d, 'adapters/opencode/manifest.json').replace('"command": "opencode"', `"command": ${JSON.stringify(copy)}`),
      );
    });
    const r = await up(dir, ['task', '--adapter', 'opencode', '--adapter', 'claude-code'], f.env);
    expect(r.code).toBe(0);
    const opencode = f.entries().filter((e) => e.runner === 'opencode');
    expect(opencode.map((e) => e.role)).toEqual(['planner', 'implementer', 'implementer']);
    for (const e of opencode) {
      expect(e.fallback, `${e.role} fell back to opencode's default agent`).toBe(false);
      expect(e.agent).toBe(`gateline-${e.role}`);
      expect(e.configDir).toBeTruthy();
      expect(e.agentText).toMatch(/^mode: primary$/m);
    }
    const bindings = JSON.parse(readFileSync(join(runDir(dir), 'bindings.json'), 'utf8'));
    expect(bindings.bindings[0].how).toBe('--agent gateline-planner: a primary copy of .opencode/agents/planner.md, same permission map');
  });

  it('gemini-cli + opencode: role instructions in the Gemini prompt, a fresh implementer run instead of a resume, estimated cost', async () => {
    const dir = repo();
    const f = fakes();
    const r = await up(dir, ['task', '--adapter', 'gemini-cli', '--adapter', 'opencode', '--accept-unnarrowed', 'gemini-cli'], f.env);
    expect(r.code).toBe(0);
    const entries = f.entries();
    expect(entries.map((e) => `${e.runner}:${e.role}`)).toEqual([
      'gemini:planner',
      'gemini:implementer',
      'opencode:reviewer',
      'gemini:implementer',
      'opencode:reviewer',
      'opencode:verifier',
    ]);
    const second = entries[3] as Entry;
    expect(second.argv).not.toContain('--resume');
    expect(second.argv).not.toContain('--agent');
    const prompt = second.argv[1] as string;
    expect(prompt).toMatch(/# Your role's instructions[\s\S]*# Implementer\n\nYou are the implementer/);
    expect(prompt).toMatch(
      /round 1 of 2[\s\S]*## implementer \(gemini-cli, gemini-3.5-flash\)\n\nIMPLEMENTED first try[\s\S]*## reviewer \(opencode/,
    );
    expect(
      r.stderr.match(/gemini-cli takes no agent file, so the implementer's instructions go in its prompt and its tools are NOT narrowed/g),
    ).toHaveLength(1);
    const bindings = JSON.parse(readFileSync(join(runDir(dir), 'bindings.json'), 'utf8'));
    expect(bindings.bindings[1].how).toMatch(/^instructions in the prompt \(no agent flag\)/);
    // 2M tokens in at $2.00/M + 0.4M out at $12.00/M = $8.80 for the planner (gemini-3.1-pro-preview).
    expect(r.stdout).toMatch(/planner +gemini-cli +gemini-3.1-pro-preview +1 +2000000 +400000 +\$8\.8000 +estimated/);
    // 2 x (2M x $0.30 + 0.4M x $2.50) = $3.20 for the implementer (gemini-3.5-flash).
    expect(r.stdout).toMatch(/implementer +gemini-cli +gemini-3.5-flash +2 +4000000 +800000 +\$3\.2000 +estimated/);
    expect(r.stdout).toMatch(/verifier +opencode +\S+ +1 +520 +80 +\$0\.0125 +runner-reported/);
    expect(r.stdout).toMatch(/total +6 +\d+ +\d+ +\$12\.0375 +estimated/);
    expectNoBypass(entries);
  });

  it('stops after --rounds rounds when the reviewer keeps requesting changes, without running the verifier', async () => {
    const dir = repo();
    const f = fakes({ reports: { ...HAPPY, reviewer: ['VERDICT: REQUEST_CHANGES\n1. still wrong'] } });
    const r = await up(dir, ['task', '--adapter', 'claude-code', '--rounds', '1'], f.env);
    expect(r.code).toBe(1);
    expect(f.entries().map((e) => e.role)).toEqual(['planner', 'implementer', 'reviewer', 'implementer', 'reviewer']);
    expect(r.stdout).toMatch(/the reviewer still requests changes after 1 round\(s\) of changes; the verifier was not run/);
    expect(r.stderr.match(/vendor-pin advisory: the reviewer/g)).toHaveLength(1);
  });

  it("the verifier's verdict decides: FAIL or no verdict exits 1", async () => {
    const dir = repo();
    const failing = fakes({ reports: { ...HAPPY, reviewer: ['VERDICT: APPROVE'], verifier: ['VERDICT: FAIL\n1. criterion 2 fails'] } });
    const r = await up(dir, ['task', '--adapter', 'claude-code'], failing.env);
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/VERDICT: FAIL: the verifier says FAIL/);
    expect(failing.entries().map((e) => e.role)).toEqual(['planner', 'implementer', 'reviewer', 'verifier']);
    const silent = fakes({ reports: { ...HAPPY, reviewer: ['looks fine'], verifier: ['all good, I think'] } });
    const s = await up(dir, ['task', '--adapter', 'claude-code'], silent.env);
    expect(s.code).toBe(1);
    expect(s.stderr).toMatch(/reviewer: no VERDICT line; going on to the verifier/);
    expect(s.stdout).toMatch(/no verdict: the verifier gave no VERDICT line, which counts as FAIL/);
    const json = await up(dir, ['task', '--adapter', 'claude-code', '--json'], failing.env);
    expect(json.code).toBe(1);
    expect(JSON.parse(json.stdout)).toMatchObject({
      status: 'fail',
      verdict: 'FAIL',
      exitCode: 1,
      total: { costUsd: 0.5, basis: 'runner-reported' },
    });
  });

  it('writes the run record: bindings, each step (prompt, command, transcript, result, cost), summary; runs/ is ignored by git', async () => {
    const dir = gitRepo();
    for (const sub of ['roles', 'adapters', 'registry']) copyTree(join(REPO, sub), join(dir, sub));
    expect(renderAll(locate(dir)).ok).toBe(true);
    const f = fakes();
    expect((await up(dir, ['task', '--adapter', 'claude-code', '--adapter', 'opencode'], f.env)).code).toBe(0);
    const run = runDir(dir);
    expect(readdirSync(run).sort()).toEqual([
      '01-planner',
      '02-implementer',
      '03-reviewer',
      '04-implementer',
      '05-reviewer',
      '06-verifier',
      'bindings.json',
      'primary-agents',
      'summary.json',
    ]);
    expect(readdirSync(join(run, '04-implementer')).sort()).toEqual([
      'command.json',
      'cost.json',
      'prompt.md',
      'result.json',
      'stderr.txt',
      'stdout.txt',
    ]);
    expect(JSON.parse(readFileSync(join(run, '04-implementer/command.json'), 'utf8'))).toMatchObject({
      command: 'claude',
      resumed: true,
      session: 'cc-implementer-0',
    });
    expect(JSON.parse(readFileSync(join(run, '01-planner/cost.json'), 'utf8'))).toEqual({
      tokensIn: 1500,
      tokensOut: 200,
      costUsd: 0.125,
      basis: 'runner-reported',
    });
    expect(readFileSync(join(run, '03-reviewer/stdout.txt'), 'utf8')).toMatch(/"type":"step_start"/);
    const summary = JSON.parse(readFileSync(join(run, 'summary.json'), 'utf8'));
    expect(summary).toMatchObject({ status: 'pass', verdict: 'PASS', exitCode: 0 });
    expect(summary.steps).toHaveLength(6);
    expect(summary.roles.map((r: { role: string; runs: number }) => `${r.role}:${r.runs}`)).toEqual([
      'planner:1',
      'implementer:2',
      'reviewer:2',
      'verifier:1',
    ]);
    expect(read(dir, '.gateline/runs/.gitignore')).toMatch(/^\*$/m);
    expect(git(dir, 'status', '--porcelain', '--untracked-files=all')).not.toMatch(/\.gateline/);
    expect(git(dir, 'check-ignore', `${run.slice(dir.length + 1)}/summary.json`)).toBeTruthy();
  });

  it('refuses to run on stale agent files: run gateline render first', async () => {
    const dir = repo();
    writeFileSync(join(dir, 'roles/reviewer.md'), read(dir, 'roles/reviewer.md').replace('# Reviewer', '# Reviewer (changed)'));
    const f = fakes();
    const r = await up(dir, ['task', '--adapter', 'claude-code'], f.env);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/\.claude\/agents\/reviewer\.md: is stale/);
    expect(r.stderr).toMatch(/run gateline render first/);
    expect(f.entries()).toEqual([]);
  });
});

describe("the runner's environment", () => {
  it("drops every variable the runner's manifest names in scrub_env, keeps the rest, and sets gateline's own after", async () => {
    const dir = repo();
    const f = fakes();
    const scrub = (name: string) => (loadAdapters(dir, '', [name])[0]?.headless?.scrubEnv ?? []) as string[];
    const planted = Object.fromEntries([...scrub('opencode'), ...scrub('claude-code')].map((n) => [n, 'planted']));
    expect(Object.keys(planted)).toContain('OPENCODE_PERMISSION');
    expect(Object.keys(planted)).toContain('CLAUDE_CODE_EVEN_MORE_DANGEROUSLY_SKIP_PERMISSIONS');
    const r = await up(dir, ['task', '--adapter', 'opencode', '--adapter', 'claude-code'], { ...f.env, ...planted, GATELINE_KEPT: '1' });
    expect(r.code, r.stderr).toBe(0);
    const byRunner = { opencode: scrub('opencode'), claude: scrub('claude-code') };
    for (const e of f.entries()) {
      const names = byRunner[e.runner as keyof typeof byRunner];
      expect(names.filter((n) => e.envNames.includes(n) && !(n === 'OPENCODE_CONFIG_DIR' && e.configDir !== 'planted'))).toEqual([]);
      expect(e.envNames).toContain('GATELINE_KEPT');
      if (e.runner === 'opencode') expect(e.configDir).not.toBe('planted');
    }
  });
});

describe('gateline up failures', () => {
  it('a missing runner: refused before any runner starts, by the plan and the run alike, naming the role and the runner', async () => {
    const dir = repo();
    const f = fakes({ runners: ['claude'], path: false });
    const args = ['--adapter', 'claude-code', '--adapter', 'opencode'];
    const missing =
      /adapters\/opencode\/manifest\.json: reviewer: the runner 'opencode' \(adapter opencode\) was not found on PATH: install opencode-ai, or put it on PATH/;
    const r = await up(dir, ['task', ...args], f.env);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(missing);
    expect(f.entries()).toEqual([]);
    expect(JSON.parse(readFileSync(join(runDir(dir), 'summary.json'), 'utf8'))).toMatchObject({ status: 'error', exitCode: 1 });
    const plan = await up(dir, ['--plan', ...args], f.env);
    expect(plan.code).toBe(1);
    expect(plan.stdout).toMatch(/implementer +claude-code +sonnet +anthropic +n\/a +ok/);
    expect(plan.stdout).toMatch(/reviewer +opencode +\S+ +\S+ +ok +refused/);
    expect(plan.stderr).toMatch(missing);
  });

  it('a crashing runner: exit 1 with its exit code and the tail of its stderr', async () => {
    const dir = repo();
    const f = fakes({ fail: [{ runner: 'claude', role: 'implementer', mode: 'crash' }] });
    const r = await up(dir, ['task', '--adapter', 'claude-code'], f.env);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(
      /implementer: the runner 'claude' \(adapter claude-code\) exited with code 3: fake claude: panic: out of tokens/,
    );
    expect(readFileSync(join(runDir(dir), '02-implementer/stderr.txt'), 'utf8')).toMatch(/panic/);
    expect(f.entries().map((e) => e.role)).toEqual(['planner', 'implementer']);
  });

  it('a runner that hangs is stopped at --timeout: exit 1', async () => {
    const dir = repo();
    const f = fakes({ fail: [{ runner: 'opencode', role: 'planner', mode: 'hang' }] });
    const started = Date.now();
    const r = await up(dir, ['task', '--adapter', 'opencode', '--adapter', 'claude-code', '--timeout', '0.5'], f.env);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/planner: the runner 'opencode' \(adapter opencode\) timed out after 0.5 s \(--timeout\) and was stopped/);
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(alive(f.entries()[0]?.pid as number)).toBe(false);
    expect(JSON.parse(readFileSync(join(runDir(dir), 'summary.json'), 'utf8')).status).toBe('timed out');
  });

  it('output that does not parse: exit 1 pointing at the raw transcript', async () => {
    const dir = repo();
    for (const [runner, adapter] of [
      ['gemini', 'gemini-cli'],
      ['opencode', 'opencode'],
      ['claude', 'claude-code'],
    ] as const) {
      const f = fakes({ fail: [{ runner, role: 'planner', mode: 'garbage' }] });
      // Gemini CLI renders no reviewer or verifier: Claude Code takes them; the planner fails first.
      const others = adapter === 'gemini-cli' ? ['--adapter', 'claude-code'] : [];
      const r = await up(dir, ['task', '--adapter', adapter, ...others, '--accept-unnarrowed', adapter], f.env);
      expect(r.code).toBe(1);
      expect(r.stderr).toMatch(
        new RegExp(
          `planner: the runner '${runner}' \\(adapter ${adapter}\\) printed output gateline cannot read \\(.+\\); the raw output is in stdout.txt`,
        ),
      );
    }
  });

  it('an aborted signal (what the bin does on Ctrl-C) stops the running runner and exits 130, keeping the record', async () => {
    const dir = repo();
    const f = fakes({ fail: [{ runner: 'claude', role: 'implementer', mode: 'hang' }] });
    // The real `gateline` bin in a child process, sent a real SIGINT as a terminal's Ctrl-C does.
    const child = spawn(process.execPath, [join(REPO, 'src/bin/gateline.ts'), 'up', 'task', '--adapter', 'claude-code'], {
      cwd: dir,
      env: { ...process.env, NO_COLOR: '1', ...f.env },
    });
    let stderr = '';
    child.stderr.on('data', (chunk) => {
      stderr += String(chunk);
    });
    const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
    while (!f.entries().some((e) => e.role === 'implementer')) await new Promise((resolve) => setTimeout(resolve, 20));
    const pid = (f.entries().find((e) => e.role === 'implementer') as Entry).pid;
    expect(alive(pid)).toBe(true);
    child.kill('SIGINT');
    const r = { code: await exited, stderr };
    expect(r.code).toBe(130);
    expect(r.stderr).toMatch(/interrupted: the runners were stopped/);
    expect(r.stderr).not.toMatch(/\n\s+at /);
    expect(alive(pid)).toBe(false);
    expect(JSON.parse(readFileSync(join(runDir(dir), 'summary.json'), 'utf8'))).toMatchObject({ status: 'interrupted', exitCode: 130 });
  });

  it('never passes a permission-bypassing flag: one in a headless block stops the run before any runner starts', async () => {
    const dir = repo();
    writeFileSync(
      join(dir, 'adapters/claude-code/manifest.json'),
      read(dir, 'adapters/claude-code/manifest.json').replace('"--settings",', '"--permission-mode", "bypassPermissions", "--settings",'),
    );
    const f = fakes();
    const r = await up(dir, ['task', '--adapter', 'opencode', '--adapter', 'claude-code'], f.env);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(
      /adapters\/claude-code\/manifest\.json:\d+: 'headless' 'args' uses '--permission-mode', which 'flags' does not declare/,
    );
    expect(f.entries()).toEqual([]);
  });
});

describe('gateline up --json failures: one JSON object on stdout, the same exit codes', () => {
  /** stdout must be exactly one JSON object. */
  const one = (stdout: string) => {
    expect(stdout.trim().split('\n')).toHaveLength(1);
    return JSON.parse(stdout);
  };

  it('usage errors: exit 2, {ok:false, problems}', async () => {
    const dir = repo();
    for (const args of [
      ['--plan', '--json'],
      ['--plan', '--json', '--adapter', 'claude-code', '--frobnicate'],
      ['--json', '--adapter', 'claude-code'],
      ['x', '--json', '--adapter', 'claude-code', '--rounds', 'two'],
      ['--plan', '--json', '--adapter', 'claude-code', '--bind', 'boss=claude-code'],
    ]) {
      const r = await up(dir, args);
      expect(r.code, args.join(' ')).toBe(2);
      expect(one(r.stdout)).toEqual({ ok: false, problems: [{ file: 'gateline up', message: expect.any(String) }] });
      expect(r.stderr).toBe('');
    }
    expect(one((await up(dir, ['--plan', '--json'])).stdout).problems[0].message).toMatch(/^no --adapter given/);
    expect(one((await up(dir, ['--json', '--adapter', 'claude-code', '--frobnicate'])).stdout).problems[0].message).toMatch(
      /Unknown option '--frobnicate'$/,
    );
  });

  it('problems with the inputs: exit 1, each problem with its file and line', async () => {
    const dir = repo();
    const unknown = await up(dir, ['--plan', '--json', '--adapter', 'nope']);
    expect(unknown.code).toBe(1);
    expect(one(unknown.stdout)).toEqual({
      ok: false,
      problems: [{ file: '--adapter', message: "unknown adapter 'nope' (known: claude-code, codex, copilot, gemini-cli, opencode)" }],
    });
    writeFileSync(join(dir, 'roles/reviewer.md'), read(dir, 'roles/reviewer.md').replace('# Reviewer', '# Reviewer (changed)'));
    const stale = await up(dir, ['task', '--json', '--adapter', 'claude-code']);
    expect(stale.code).toBe(1);
    expect(one(stale.stdout)).toMatchObject({
      ok: false,
      problems: expect.arrayContaining([{ file: '.claude/agents/reviewer.md', message: 'is stale' }]),
    });
    expect(stale.stderr).not.toMatch(/is stale/);
  });

  it('a pin violation points at the pin in the registry', async () => {
    const dir = repo();
    const pinLine = read(dir, 'registry/models.yaml').split('\n').indexOf('  reviewer:') + 1;
    const r = await up(dir, [
      '--plan',
      '--json',
      '--adapter',
      'claude-code',
      '--adapter',
      'opencode',
      '--bind',
      'implementer=claude-code',
      '--bind',
      'reviewer=claude-code',
    ]);
    expect(r.code).toBe(1);
    expect(one(r.stdout)).toEqual({
      ok: false,
      problems: [{ file: 'registry/models.yaml', line: pinLine, message: expect.stringMatching(/^vendor pin violated: the reviewer/) }],
    });
  });

  it('a bypass flag in a headless block points at the manifest line; nothing runs', async () => {
    const dir = repo();
    writeFileSync(
      join(dir, 'adapters/claude-code/manifest.json'),
      read(dir, 'adapters/claude-code/manifest.json').replace('"--output-format", "json"', '"--output-format", "json", "-y"'),
    );
    // The edit lands in resume_args, whose args are on one line.
    const line =
      read(dir, 'adapters/claude-code/manifest.json')
        .split('\n')
        .findIndex((l) => l.includes('"resume_args"')) + 1;
    const f = fakes();
    const r = await up(dir, ['task', '--json', '--adapter', 'claude-code'], f.env);
    expect(r.code).toBe(1);
    const data = one(r.stdout);
    expect(data).toMatchObject({ ok: false });
    expect(data.problems).toEqual([
      {
        file: 'adapters/claude-code/manifest.json',
        line,
        rule: 'argv-is-allow-listed',
        message: "'resume_args' uses '-y', which 'flags' does not declare",
      },
    ]);
    expect(f.entries()).toEqual([]);
  });

  it('a failed runner: the run summary with ok:false and the problem at its error.txt; an aborted signal keeps exit 130', async () => {
    const dir = repo();
    const f = fakes({ fail: [{ runner: 'claude', role: 'implementer', mode: 'crash' }] });
    const r = await up(dir, ['task', '--json', '--adapter', 'claude-code'], f.env);
    expect(r.code).toBe(1);
    const data = one(r.stdout);
    expect(data).toMatchObject({ ok: false, status: 'crashed', exitCode: 1 });
    expect(data.problems).toEqual([
      {
        file: expect.stringMatching(/^\.gateline\/runs\/[^/]+\/02-implementer\/error\.txt$/),
        message: expect.stringMatching(/exited with code 3/),
      },
    ]);
    expect(JSON.parse(readFileSync(join(runDir(dir), 'summary.json'), 'utf8'))).toEqual(data);

    const controller = new AbortController();
    controller.abort();
    const interrupted = await up(dir, ['task', '--json', '--adapter', 'claude-code'], f.env, controller.signal);
    expect(interrupted.code).toBe(130);
    expect(one(interrupted.stdout)).toEqual({
      ok: false,
      problems: [{ file: 'gateline up', message: expect.stringMatching(/interrupted/) }],
    });
  });

  it('a verdict of FAIL is a failure too; a PASS is ok:true', async () => {
    const dir = repo();
    const failing = fakes({ reports: { ...HAPPY, reviewer: ['VERDICT: APPROVE'], verifier: ['VERDICT: FAIL'] } });
    const r = await up(dir, ['task', '--json', '--adapter', 'claude-code'], failing.env);
    expect(r.code).toBe(1);
    expect(one(r.stdout)).toMatchObject({ ok: false, verdict: 'FAIL', problems: [{ message: 'the verifier says FAIL' }] });
    const passing = await up(dir, ['task', '--json', '--adapter', 'claude-code'], fakes().env);
    expect(passing.code).toBe(0);
    const data = one(passing.stdout);
    expect(data).toMatchObject({ ok: true, verdict: 'PASS' });
    expect(data).not.toHaveProperty('problems');
  });
});

describe('the final argv check', () => {
  it('runStep throws before starting a runner whose argv holds a bypass flag, even past the preflight', async () => {
    const dir = repo();
    const f = fakes();
    const [adapter] = loadAdapters(dir, '', ['claude-code']);
    const yolo = {
      ...(adapter as Adapter),
      headless: {
        command: 'claude',
        args: ['-p', '{prompt}', '--dangerously-skip-permissions'],
        output: 'claude-json' as const,
        grants: {},
        flags: { '-p': ['{prompt}'] },
        positionals: [],
        approvalNames: {},
        scrubEnv: [],
      },
    };
    const record = openRecord(dir, '.gateline');
    const binding = { role: 'implementer', adapter: 'claude-code', model: 'sonnet', vendor: 'anthropic', pin: 'n/a' as const };
    const registry = loadRegistry(join(dir, 'registry/models.yaml'), 'registry/models.yaml');
    const step = runStep(
      { label: '01-implementer', binding, adapter: yolo, prompt: 'gateline up: you are the implementer', agent: 'implementer' },
      { root: dir, env: f.env, timeoutMs: 5000, record, registry },
    );
    await expect(step).rejects.toThrow(StepError);
    await expect(step).rejects.toMatchObject({ kind: 'refused' });
    await expect(step).rejects.toThrow(/refusing to run 'claude' with '--dangerously-skip-permissions'/);
    expect(f.entries()).toEqual([]);
    expect(readFileSync(join(record.dir, '01-implementer/error.txt'), 'utf8')).toMatch(/^refused: /);
  });
});

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
