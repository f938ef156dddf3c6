import { createHash } from 'node:crypto';
import { chmodSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { diagnose, gatherDoctor } from '../src/probe/doctor.ts';
import { runDoctor } from '../src/probe/doctor-cli.ts';
import { type Inspected, inspect, probe, runnerCommands } from '../src/probe/probe.ts';
import { locate } from '../src/render/context.ts';
import { gitRepo, install, REPO, read, snapshot, testdir } from './helpers.ts';

/** The shipped adapters' runners, as their manifests describe them. */
const SHIPPED = runnerCommands(join(REPO, 'adapters'));

// Fake runner CLIs: tiny scripts on a temporary PATH that print a version, as the real ones do.
function fakeRunners(versions: Record<string, string>): string {
  const bin = testdir();
  for (const [command, version] of Object.entries(versions)) {
    writeFileSync(join(bin, command), `#!/bin/sh\necho "${version}"\n`);
    chmodSync(join(bin, command), 0o755);
  }
  return bin;
}

function collect(): { stream: Writable; text: () => string } {
  let text = '';
  const stream = new Writable({
    write(chunk, _e, done) {
      text += String(chunk);
      done();
    },
  });
  return { stream, text: () => text };
}

/** PATH with the fake runners, Node 24 and the basic tools, and nothing else a developer may have installed. */
const envWith = (bin: string, extra: Record<string, string> = {}) => ({
  ...process.env,
  PATH: `${bin}:${dirname(process.execPath)}:/usr/bin:/bin`,
  ...extra,
});

const seen = (over: Partial<Inspected> = {}): Inspected => ({
  node: '24.21.0',
  git: true,
  runners: { 'claude-code': { ...SHIPPED['claude-code'], command: 'claude', version: SHIPPED['claude-code']?.proven } },
  hook: 'git',
  nodeProject: false,
  packageScript: false,
  githubActions: false,
  gitignoreMissing: [],
  ...over,
});

describe('probe (pure)', () => {
  it('an old Node is a finding with how to get 24, never an autofix', () => {
    const node = probe(seen({ node: '20.20.2' })).findings.find((f) => f.id === 'node');
    expect(node).toMatchObject({ ok: false, message: expect.stringMatching(/Node 20\.20\.2 on PATH is too old/) });
    expect(node?.fix).toMatch(/nvm install 24/);
    expect(node?.autofix).toBeUndefined();
    expect(probe(seen({ node: '24.0.0' })).findings.find((f) => f.id === 'node')?.ok).toBe(true);
    expect(probe(seen({ node: 'none' })).findings.find((f) => f.id === 'node')?.message).toMatch(/no node on PATH/);
  });

  it('a missing or old runner says how to install the proven version; a present one counts as installed', () => {
    const result = probe(
      seen({
        runners: {
          'claude-code': { ...SHIPPED['claude-code'], command: 'claude', version: '2.1.332' },
          opencode: { ...SHIPPED.opencode, command: 'opencode', version: '1.2.0' },
          codex: { ...SHIPPED.codex, command: 'codex' },
        },
      }),
    );
    expect(result.installed).toEqual(['claude-code', 'opencode']);
    expect(result.findings.find((f) => f.id === 'runner:opencode')).toMatchObject({
      ok: false,
      fix: 'upgrade it: npm install -g opencode-ai@1.18.33',
    });
    expect(result.findings.find((f) => f.id === 'runner:codex')).toMatchObject({
      ok: false,
      fix: 'install it: npm install -g @openai/codex@0.171.0',
    });
    expect(result.findings.find((f) => f.id === 'runner:claude-code')?.ok).toBe(true);
  });

  it('offers git init, a package script and .gitignore lines as fixes it can make', () => {
    const result = probe(seen({ git: false, nodeProject: true, gitignoreMissing: ['/.gateline/runs/'] }));
    expect(result.findings.filter((f) => f.autofix).map((f) => f.autofix)).toEqual(['git-init', 'package-script', 'gitignore']);
    expect(probe(seen({ nodeProject: true, packageScript: true })).findings.find((f) => f.id === 'package-script')?.ok).toBe(true);
  });
});

describe('inspect (looks at the disk and PATH)', () => {
  it('finds runner versions, the hook manager, a Node project and GitHub Actions', async () => {
    const bin = fakeRunners({ claude: '2.1.332 (Claude Code)', opencode: '1.18.0' });
    const dir = gitRepo({
      'package.json': '{"scripts":{}}\n',
      'lefthook.yml': 'pre-commit: {}\n',
      '.github/workflows/ci.yml': 'name: ci\n',
    });
    const found = await inspect(
      dir,
      { 'claude-code': { command: 'claude' }, opencode: { command: 'opencode' }, codex: { command: 'codex' } },
      '.gateline',
      envWith(bin),
    );
    expect(found.runners).toEqual({
      'claude-code': { command: 'claude', version: '2.1.332' },
      opencode: { command: 'opencode', version: '1.18.0' },
      codex: { command: 'codex', version: undefined },
    });
    expect(Number(found.node.split('.')[0])).toBeGreaterThanOrEqual(24);
    expect(found).toMatchObject({
      git: true,
      hook: 'lefthook',
      nodeProject: true,
      packageScript: false,
      githubActions: true,
      gitignoreMissing: ['/.gateline/runs/'],
    });
    const plain = await inspect(testdir(), {}, '.gateline', envWith(bin));
    expect(plain).toMatchObject({ git: false, hook: 'git', nodeProject: false, githubActions: false });
  });
});

describe('create-gateline looks before it asks', () => {
  it('shows what it found and preselects the adapters whose runners are installed', async () => {
    const bin = fakeRunners({ claude: '2.1.332 (Claude Code)', opencode: '1.18.33' });
    const dir = gitRepo();
    const run = await install(dir, ['--yes'], { env: envWith(bin) });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/\+ claude 2\.1\.332/);
    expect(run.stdout).toMatch(/! gemini \(gemini-cli\) is not on PATH\n\s+install it: npm install -g @google\/gemini-cli@0\.61\.0/);
    expect(JSON.parse(read(dir, '.gateline/framework-lock.json')).adapters).toEqual(['claude-code', 'opencode']);
  });

  it('with no runner installed, preselects every shipped adapter', async () => {
    const dir = gitRepo();
    expect((await install(dir, ['--yes'])).code).toBe(0);
    expect(JSON.parse(read(dir, '.gateline/framework-lock.json')).adapters).toHaveLength(5);
  });

  it('without consent (no flag, no TTY) it fixes nothing: a non-repository stops the install untouched', async () => {
    const dir = testdir({ 'package.json': '{\n    "name": "app"\n}\n' });
    const before = snapshot(dir);
    const run = await install(dir, ['--yes']);
    expect(run.code).toBe(1);
    expect(run.stdout).toMatch(/! not a git repository\n\s+run git init \(create-gateline can do it: --git-init\)/);
    expect(snapshot(dir)).toEqual(before);
  });

  it('with --git-init, --package-script and --gitignore it makes those fixes', async () => {
    const dir = testdir({ 'package.json': '{\n    "name": "app"\n}\n', '.gitignore': 'node_modules' });
    const run = await install(dir, ['--yes', '--git-init', '--package-script', '--gitignore']);
    expect(run.code, run.stderr).toBe(0);
    expect(read(dir, 'package.json')).toBe(
      '{\n    "name": "app",\n    "scripts": {\n        "gateline": "node .gateline/core/src/gateline.mjs"\n    }\n}\n',
    );
    expect(read(dir, '.gitignore')).toBe('node_modules\n# gateline\n/.gateline/runs/\n');
    expect(run.stdout).toContain('  package.json');
    const again = await install(dir, ['--yes', '--package-script', '--gitignore']);
    expect(again.stdout).toMatch(/nothing to change/);
  });

  it('a failed install after git init removes the repository it made', async () => {
    const dir = testdir({ '.github/workflows': 'a file where a folder is needed\n' });
    const before = snapshot(dir);
    const run = await install(dir, ['--yes', '--git-init']);
    expect(run.code).toBe(1);
    expect(snapshot(dir)).toEqual(before);
  });
});

describe('gateline doctor', () => {
  /** A healthy host: installed, every selected runner at its proven version, Codex trusting it, Gemini agents acknowledged. */
  async function healthy(adapters = ['claude-code', 'codex', 'gemini-cli']) {
    const dir = gitRepo();
    const home = testdir();
    expect((await install(dir, ['--yes', ...adapters.flatMap((a) => ['--adapter', a])])).code).toBe(0);
    const bin = fakeRunners({ claude: '2.1.332 (Claude Code)', codex: 'codex-cli 0.171.0', gemini: '0.61.0' });
    mkdirSync(join(home, '.codex'), { recursive: true });
    writeFileSync(join(home, '.codex/config.toml'), `[projects."${dir}"]\ntrust_level = "trusted"\n`);
    const acks: Record<string, string> = {};
    for (const role of adapters.includes('gemini-cli') ? ['planner', 'implementer'] : []) {
      acks[role] = createHash('sha256')
        .update(readFileSync(join(dir, `.gemini/agents/${role}.md`)))
        .digest('hex');
    }
    mkdirSync(join(home, '.gemini/acknowledgments'), { recursive: true });
    writeFileSync(join(home, '.gemini/acknowledgments/agents.json'), JSON.stringify({ [dir]: acks }));
    return { dir, env: envWith(bin, { HOME: home, CODEX_HOME: join(home, '.codex') }), bin, home };
  }
  const findings = async (dir: string, env: NodeJS.ProcessEnv) => diagnose(await gatherDoctor(locate(dir), env));
  const failing = async (dir: string, env: NodeJS.ProcessEnv) => (await findings(dir, env)).filter((f) => !f.ok);

  it('a healthy host: every finding ok, exit 0, and --json gives the same as data', async () => {
    const { dir, env } = await healthy();
    expect(await failing(dir, env)).toEqual([]);
    const out = collect();
    expect(await runDoctor(['--json'], { stdout: out.stream, stderr: out.stream, cwd: dir, env })).toBe(0);
    const data = JSON.parse(out.text());
    expect(data.ok).toBe(true);
    expect(data.findings.map((f: { id: string }) => f.id)).toEqual([
      'node',
      'git',
      'runner:claude-code',
      'runner:codex',
      'runner:gemini-cli',
      'hook',
      'workflow',
      'validate',
      'gemini-ack',
      'codex-trust',
      'unmanaged-agents',
    ]);
  });

  it('lists the agents the runners load that gateline does not render, with their tools, and stays healthy', async () => {
    const { dir, env } = await healthy(['claude-code']);
    writeFileSync(join(dir, '.claude/agents/mine.md'), '---\nname: mine\ndescription: Mine.\n---\nMine.\n');
    const found = (await findings(dir, env)).find((f) => f.id === 'unmanaged-agents');
    expect(found).toEqual({
      id: 'unmanaged-agents',
      ok: true,
      message:
        "the runners also load 1 agent(s) gateline does not render or narrow:\n      .claude/agents/mine.md (Claude Code, name 'mine'): all tools (no 'tools' key: the runner's default is every tool)",
    });
  });

  it('an old Node (fed through the probe inputs) is reported with the fix', async () => {
    const { dir, env } = await healthy(['claude-code']);
    const inputs = await gatherDoctor(locate(dir), env);
    const bad = diagnose({ ...inputs, seen: { ...inputs.seen, node: '22.1.0' } }).filter((f) => !f.ok);
    expect(bad).toEqual([expect.objectContaining({ id: 'node', fix: expect.stringMatching(/nvm install 24/) })]);
  });

  it('a missing runner and an older one than the proven version', async () => {
    const { dir, home } = await healthy();
    const env = envWith(fakeRunners({ claude: '2.0.1 (Claude Code)', gemini: '0.61.0' }), { HOME: home, CODEX_HOME: join(home, '.codex') });
    const bad = await failing(dir, env);
    // A runner missing here is said, not failed: its agents are rendered for whoever uses it.
    expect(bad.map((f) => f.id)).toEqual(['runner:claude-code']);
    expect(bad[0]?.fix).toBe('upgrade it: npm install -g @anthropic-ai/claude-code@2.1.332');
    const all = await findings(dir, env);
    expect(all.find((f) => f.id === 'runner:codex')).toMatchObject({
      ok: true,
      message: expect.stringMatching(/not on PATH on this machine/),
    });
    expect(all.map((f) => f.id)).not.toContain('codex-trust');
  });

  it('the hook: missing, not executable, not calling validate', async () => {
    const { dir, env } = await healthy(['claude-code']);
    const hook = join(dir, '.git/hooks/pre-commit');
    chmodSync(hook, 0o644);
    expect(await failing(dir, env)).toEqual([expect.objectContaining({ id: 'hook', fix: 'chmod +x .git/hooks/pre-commit' })]);
    writeFileSync(hook, '#!/bin/sh\necho hi\n', { mode: 0o755 });
    expect((await failing(dir, env))[0]?.message).toMatch(/does not run `node \.gateline\/core\/src\/gateline\.mjs validate --staged`/);
    rmSync(hook);
    expect((await failing(dir, env))[0]).toMatchObject({
      id: 'hook',
      message: expect.stringMatching(/missing/),
      fix: expect.stringMatching(/--hook git/),
    });
  });

  it('the workflow: missing, or edited', async () => {
    const { dir, env } = await healthy(['claude-code']);
    const wf = join(dir, '.github/workflows/gateline-render-check.yml');
    writeFileSync(wf, read(dir, '.github/workflows/gateline-render-check.yml').replaceAll('render --check', 'render'));
    expect((await failing(dir, env))[0]?.message).toMatch(/was edited and no longer runs render --check/);
    rmSync(wf);
    expect((await failing(dir, env))[0]?.message).toMatch(/is missing: CI does not check the renders/);
  });

  it('a problem validate finds (a stale agent file) is a finding', async () => {
    const { dir, env } = await healthy(['claude-code']);
    writeFileSync(join(dir, '.claude/agents/reviewer.md'), `${read(dir, '.claude/agents/reviewer.md')}edited\n`);
    const bad = await failing(dir, env);
    expect(bad).toEqual([
      expect.objectContaining({ id: 'validate', message: expect.stringMatching(/\.claude\/agents\/reviewer\.md: is stale/) }),
    ]);
  });

  it('runner-side steps: unacknowledged Gemini agents and an untrusted Codex project', async () => {
    const { dir, bin } = await healthy();
    const env = envWith(bin, { HOME: testdir(), CODEX_HOME: testdir() });
    const bad = await failing(dir, env);
    expect(bad.map((f) => f.id)).toEqual(['gemini-ack', 'codex-trust']);
    expect(bad[0]?.message).toMatch(/2 are new or changed: .*planner/);
    expect(bad[1]?.fix).toContain(`[projects."${dir}"]`);
    const out = collect();
    expect(await runDoctor([], { stdout: out.stream, stderr: out.stream, cwd: dir, env })).toBe(1);
    expect(out.text()).toMatch(/FIX {2}Codex reads project agents only in a trusted project/);
    expect(out.text()).toMatch(/2 thing\(s\) to fix/);
  });
});
