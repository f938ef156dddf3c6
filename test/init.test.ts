import { spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { cpSync, existsSync, mkdirSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { parse } from 'yaml';
import { hashTree } from '../src/shared/integrity.ts';
import { buildLock, type Lock, stringifyLock } from '../src/shared/lock.ts';
import { CLEAN_ENV, git, gitRepo, install, packageAt, REPO, read, snapshot, testdir } from './helpers.ts';

const node = process.execPath;
const core = (dir: string, ...args: string[]) =>
  spawnSync(node, [join(dir, '.gateline/core/src/main.ts'), ...args], { cwd: dir, encoding: 'utf8' });
const lockOf = (dir: string, prefix = '.gateline') => JSON.parse(read(dir, `${prefix}/framework-lock.json`)) as Lock;

describe('create-gateline --yes in a fresh repository', () => {
  it('vendors the core, writes lock, stubs, workflow and hook, renders, and lists every file', async () => {
    const dir = gitRepo();
    const run = await install(dir, ['--yes']);
    expect(run.code, run.stderr).toBe(0);
    for (const path of [
      '.gateline/core/package.json',
      '.gateline/core/src/main.ts',
      '.gateline/core/src/gateline.mjs',
      '.gateline/core/roles/reviewer.md',
      '.gateline/core/adapters/opencode/manifest.json',
      '.gateline/core/registry/models.yaml',
      '.gateline/overlays/_all.md',
      '.gateline/overlays/verifier.md',
      '.github/workflows/gateline-render-check.yml',
      '.git/hooks/pre-commit',
      '.claude/agents/reviewer.md',
      '.opencode/agents/reviewer.md',
      '.gemini/agents/implementer.md',
    ]) {
      expect(existsSync(join(dir, path)), path).toBe(true);
      // The many files of the vendored core are folded into one line of the list.
      if (!path.startsWith('.git/') && !path.startsWith('.gateline/core/')) expect(run.stdout).toContain(`  ${path}`);
    }
    expect(run.stdout).toMatch(/^ {2}\.gateline\/core\/ \(\d+ file\(s\) of the vendored core\)$/m);
    expect(JSON.parse(read(dir, '.gateline/core/package.json'))).toEqual({
      name: 'gateline-core',
      version: '0.1.0',
      private: true,
      type: 'module',
    });
    expect(core(dir, 'render', '--check').status).toBe(0);
    const validate = core(dir, 'validate');
    expect(validate.stdout).toMatch(/core matches the lock/);
    expect(validate.status).toBe(0);
  });

  it('writes a deterministic lock: sorted keys, no timestamps, integrity over the vendored files', async () => {
    const a = gitRepo();
    const b = gitRepo();
    await install(a, ['--yes']);
    await install(b, ['--yes']);
    const text = read(a, '.gateline/framework-lock.json');
    expect(text).toBe(read(b, '.gateline/framework-lock.json'));
    const lock = JSON.parse(text) as Lock;
    expect(Object.keys(lock)).toEqual([...Object.keys(lock)].sort());
    expect(lock).toMatchObject({
      lockVersion: 1,
      version: '0.1.0',
      core: 'core',
      adapters: ['claude-code', 'codex', 'copilot', 'gemini-cli', 'opencode'],
    });
    expect(lock.source).toEqual({ type: 'embedded', package: 'create-gateline@0.1.0' });
    expect(lock.files).toEqual(hashTree(join(a, '.gateline/core')));
    expect(text).not.toMatch(/20\d\d-\d\d-\d\d/);
  });

  it('the workflow checks out, sets up Node 24 and runs the core with no install step', async () => {
    const dir = gitRepo();
    await install(dir, ['--yes', '--prefix', '.agents']);
    const wf = parse(read(dir, '.github/workflows/gateline-render-check.yml'));
    expect(wf.permissions).toEqual({ contents: 'read' });
    const steps = wf.jobs['render-check'].steps as { uses?: string; run?: string; with?: Record<string, unknown> }[];
    expect(steps[0]).toEqual({ uses: 'actions/checkout@v7', with: { 'persist-credentials': false } });
    expect(steps[1]?.uses).toBe('actions/setup-node@v7');
    expect(steps[1]?.with?.['node-version']).toBe(24);
    expect(steps.map((s) => s.run).filter(Boolean)).toEqual([
      'node .agents/core/src/gateline.mjs render --check',
      'node .agents/core/src/gateline.mjs validate',
    ]);
    expect(JSON.stringify(wf)).not.toMatch(/npm (ci|install)/);
    // Each run: line works as CI runs it (a shell, Node 24 on PATH, nothing installed), here with
    // the default prefix: the lines name no --prefix, so under another prefix they find no lock.
    const plain = gitRepo();
    await install(plain, ['--yes']);
    const lines = parse(read(plain, '.github/workflows/gateline-render-check.yml')).jobs['render-check'].steps as { run?: string }[];
    for (const run of lines.flatMap((s) => s.run ?? [])) {
      const ci = spawnSync('sh', ['-c', run], { cwd: plain, encoding: 'utf8', env: CLEAN_ENV });
      expect(ci.status, `${run}\n${ci.stderr}`).toBe(0);
    }
  });

  it('--adapter selects runners; an unknown one is refused with the list', async () => {
    const dir = gitRepo();
    expect((await install(dir, ['--yes', '--adapter', 'opencode'])).code).toBe(0);
    expect(lockOf(dir).adapters).toEqual(['opencode']);
    expect(existsSync(join(dir, '.claude'))).toBe(false);
    const bad = await install(gitRepo(), ['--yes', '--adapter', 'cursor']);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/unknown adapter 'cursor': choose from claude-code, codex, copilot, gemini-cli, opencode/);
  });

  it('refuses a folder that is not a git repository, or is inside one', async () => {
    const plain = testdir();
    const run = await install(plain, ['--yes']);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/is not a git repository: run git init there first/);
    expect(snapshot(plain)).toEqual({});
    const repo = gitRepo({ 'pkg/readme.md': 'x\n' });
    const before = snapshot(repo);
    const inner = await install(join(repo, 'pkg'), ['--yes']);
    expect(inner.code).toBe(1);
    expect(inner.stderr).toMatch(/installs at the root of a git repository/);
    expect(snapshot(repo)).toEqual(before);
  });

  it('usage errors exit 2', async () => {
    const dir = gitRepo();
    expect((await install(dir, ['--hook', 'svn'])).code).toBe(2);
    expect((await install(dir, ['--nope'])).code).toBe(2);
    expect((await install(dir, ['a', 'b'])).code).toBe(2);
    expect((await install(dir, ['--help'])).stdout).toMatch(/npm create gateline@latest -- \[dir\]/);
    expect((await install(dir, ['--version'])).stdout.trim()).toBe('0.1.0');
  });
});

describe('re-runs, dry runs and files in the way', () => {
  it('a second run on the same version changes nothing, byte for byte and mtime for mtime, and says so', async () => {
    const dir = gitRepo();
    await install(dir, ['--yes']);
    const before = snapshot(dir);
    const again = await install(dir, ['--yes']);
    expect(again.code).toBe(0);
    expect(again.stdout).toMatch(/already installed .* nothing to change/);
    expect(snapshot(dir)).toEqual(before);
  });

  it('a re-run repairs an edited vendored core', async () => {
    const dir = gitRepo();
    await install(dir, ['--yes']);
    writeFileSync(join(dir, '.gateline/core/roles/reviewer.md'), 'tampered\n');
    expect(core(dir, 'validate').status).toBe(1);
    const run = await install(dir, ['--yes']);
    expect(run.stdout).toContain('.gateline/core/roles/reviewer.md');
    expect(core(dir, 'validate').status).toBe(0);
  });

  it('--dry-run lists what would change and writes nothing', async () => {
    const dir = gitRepo({ 'README.md': 'hi\n' });
    const before = snapshot(dir);
    const run = await install(dir, ['--yes', '--dry-run']);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/write \d+ file\(s\) of the vendored core/);
    expect(run.stdout).toMatch(/render \.claude\/agents\/reviewer\.md/);
    expect(run.stdout).toMatch(/--dry-run: nothing was written/);
    expect(snapshot(dir)).toEqual(before);
  });

  it('never overwrites a file it did not write without --force', async () => {
    const dir = gitRepo({ '.github/workflows/gateline-render-check.yml': 'name: mine\n' });
    writeFileSync(join(dir, '.git/hooks/pre-commit'), '#!/bin/sh\necho mine\n');
    const before = snapshot(dir);
    const run = await install(dir, ['--yes']);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(
      /in the way and were not written by create-gateline:\n\s+\.github\/workflows\/gateline-render-check\.yml\n\s+\.git\/hooks\/pre-commit/,
    );
    expect(run.stderr).toMatch(/--force/);
    expect(snapshot(dir)).toEqual(before);
    const forced = await install(dir, ['--yes', '--force']);
    expect(forced.code, forced.stderr).toBe(0);
    expect(read(dir, '.github/workflows/gateline-render-check.yml')).toMatch(/Managed by create-gateline/);
  });

  it('never overwrites a hand-written agent file, even with --force', async () => {
    const dir = gitRepo({ '.claude/agents/reviewer.md': '---\nname: reviewer\ndescription: mine\n---\nMine.\n' });
    const before = snapshot(dir);
    const run = await install(dir, ['--yes', '--force']);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/the first render would fail:\n\s+\.claude\/agents\/reviewer\.md: was written by hand/);
    expect(snapshot(dir)).toEqual(before);
  });

  it('never writes through a symlink that leaves the repository, even with --force', async () => {
    const outside = testdir();
    const dir = gitRepo();
    symlinkSync(outside, join(dir, '.gateline'));
    const run = await install(dir, ['--yes', '--force']);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(
      /'\.gateline' is a symbolic link that leaves the repository: create-gateline writes only inside the repository/,
    );
    expect(snapshot(outside)).toEqual({});
  });

  it('keeps existing overlays untouched', async () => {
    const dir = gitRepo({ '.gateline/overlays/_all.md': 'Run make check.\n' });
    expect((await install(dir, ['--yes'])).code).toBe(0);
    expect(read(dir, '.gateline/overlays/_all.md')).toBe('Run make check.\n');
    expect(read(dir, '.claude/agents/planner.md')).toContain('Run make check.');
  });
});

describe('inputs the installer refuses, each with a sentence and nothing written', () => {
  const cases: [string, () => string, string[], RegExp][] = [
    [
      'core.hooksPath pointing outside the repository (relative)',
      () => {
        const dir = gitRepo();
        git(dir, 'config', 'core.hooksPath', '../shared-hooks');
        return dir;
      },
      ['--yes', '--hook', 'git'],
      /git runs hooks from .*shared-hooks\/pre-commit, outside this repository/,
    ],
    [
      'core.hooksPath pointing outside the repository (absolute)',
      () => {
        const dir = gitRepo();
        git(dir, 'config', 'core.hooksPath', join(testdir(), 'abs-hooks'));
        return dir;
      },
      ['--yes'],
      /outside this repository \(core\.hooksPath, or a linked worktree\)/,
    ],
    [
      'a husky hook whose gateline block lost its end marker',
      () =>
        gitRepo({
          '.husky/pre-commit': 'npm test\n# >>> gateline (managed by create-gateline)\nnode old/gateline.mjs validate\nnpm run lint\n',
        }),
      ['--yes'],
      /in the way and were not written by create-gateline:\n\s+\.husky\/pre-commit/,
    ],
    ['a prefix with a space', () => gitRepo(), ['--yes', '--prefix', 'my gl'], /--prefix must be a folder name of letters/],
    ['a prefix that looks like a flag', () => gitRepo(), ['--yes', '--prefix=-x'], /--prefix must be a folder name/],
    [
      "a prefix inside opencode's agent folder",
      () => gitRepo(),
      ['--yes', '--prefix', '.opencode/agents'],
      /--prefix '\.opencode\/agents' is inside \.opencode\/agents, where opencode discovers agents/,
    ],
    [
      "a prefix above Claude Code's agent folder",
      () => gitRepo(),
      ['--yes', '--prefix', '.claude'],
      /is above \.claude\/agents, where Claude Code/,
    ],
    [
      'a prefix inside a discovery folder, in another case',
      () => gitRepo(),
      ['--yes', '--prefix', '.GitHub/Agents/core'],
      /is inside \.github\/agents/,
    ],
    [
      'a prefix holding an agent folder below a subfolder',
      () => gitRepo(),
      ['--yes', '--prefix', 'tools/.opencode/agents'],
      /is inside \.opencode\/agents, where opencode/,
    ],
    [
      'a lefthook config that is not valid YAML',
      () => gitRepo({ 'lefthook.yml': 'pre-commit: [a, b\n' }),
      ['--yes'],
      /lefthook\.yml: cannot add the gateline hook \(.*\); fix the file, or choose another --hook style/,
    ],
    [
      'a lefthook config whose pre-commit is a list',
      () => gitRepo({ 'lefthook.yml': 'pre-commit: [a, b]\n' }),
      ['--yes'],
      /lefthook\.yml: cannot add the gateline hook/,
    ],
    [
      'a pre-commit config that is a list',
      () => gitRepo({ '.pre-commit-config.yaml': '- a\n- b\n' }),
      ['--yes'],
      /\.pre-commit-config\.yaml: cannot add the gateline hook \(the top level is not a mapping\)/,
    ],
    [
      'an overlay path that is a folder',
      () => gitRepo({ '.gateline/overlays/_all.md/x': 'x\n' }),
      ['--yes'],
      /\.gateline\/overlays\/_all\.md is a folder where create-gateline needs a file: move it away/,
    ],
    [
      '--package-script with a package.json that is not JSON',
      () => gitRepo({ 'package.json': '{ "name": \n' }),
      ['--yes', '--package-script'],
      /package\.json is not valid JSON .*: fix it, or leave out --package-script/,
    ],
    [
      'a file where a rendered agent folder is needed',
      () => gitRepo({ '.gemini': 'not a folder\n' }),
      ['--yes'],
      /the first render would fail:\n\s+\.gemini\/agents: cannot be used as the output folder \(ENOTDIR\)/,
    ],
  ];
  for (const [name, make, args, message] of cases) {
    it(name, async () => {
      const dir = make();
      const before = snapshot(dir);
      const run = await install(dir, args);
      expect(run.code, run.stdout).toBe(1);
      expect(run.stderr).toMatch(message);
      expect(run.stderr).not.toMatch(/\n\s+at /);
      expect(snapshot(dir)).toEqual(before);
    });
  }
});

describe('failures and Ctrl-C while writing leave the repository exactly as it was', () => {
  it('a file where a folder is needed is found before anything is written', async () => {
    const dir = gitRepo({ '.github/workflows': 'a file where a folder is needed\n' });
    const before = snapshot(dir);
    const run = await install(dir, ['--yes']);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/\.github\/workflows\/gateline-render-check\.yml cannot be read \(ENOTDIR\): move it away/);
    expect(run.stderr).not.toMatch(/\n\s+at /);
    expect(snapshot(dir)).toEqual(before);
    expect(existsSync(join(dir, '.gateline'))).toBe(false);
  });

  it('a real Ctrl-C (SIGINT to the process group) while the first render runs rolls back files and folders, and exits 130', async () => {
    const dir = gitRepo({ 'README.md': 'hi\n' });
    const before = snapshot(dir);
    // Its own process group, as a terminal's foreground job: Ctrl-C reaches the installer and the
    // render child it started alike.
    const child = spawn(node, [join(REPO, 'src/bin/create-gateline.ts'), '--yes'], {
      cwd: dir,
      env: CLEAN_ENV,
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const group = child.pid as number;
    onTestFinished(() => {
      if (child.exitCode === null && child.signalCode === null) process.kill(-group, 'SIGKILL');
    });
    let stdout = '';
    let stderr = '';
    let sent = false;
    child.stderr.on('data', (chunk) => {
      stderr += String(chunk);
    });
    child.stdout.on('data', (chunk) => {
      stdout += String(chunk);
      if (!sent && stdout.includes('rendering the agent files')) {
        sent = true;
        process.kill(-group, 'SIGINT');
      }
    });
    const [code] = (await once(child, 'exit')) as [number | null, string | null];
    expect(sent, stdout).toBe(true);
    expect(code, stderr).toBe(130);
    expect(stderr).toMatch(/interrupted: every change was rolled back/);
    expect(snapshot(dir)).toEqual(before);
  });

  it('a real SIGINT to the installer alone (not its group), a few milliseconds into the first render, rolls back files and folders, and exits 130', async () => {
    const dir = gitRepo({ 'README.md': 'hi\n' });
    const before = snapshot(dir);
    // The real create-gateline bin in a child process, sent a real SIGINT a few milliseconds after
    // the render child is spawned: it is killed mid-way.
    const child = spawn(node, [join(REPO, 'src/bin/create-gateline.ts'), '--yes'], { cwd: dir, env: CLEAN_ENV });
    let stderr = '';
    child.stderr.on('data', (chunk) => {
      stderr += String(chunk);
    });
    child.stdout.on('data', (chunk) => {
      if (String(chunk).includes('rendering the agent files')) setTimeout(() => child.kill('SIGINT'), 5);
    });
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    expect(code).toBe(130);
    expect(stderr).toMatch(/^create-gateline: interrupted: every change was rolled back/);
    expect(stderr).not.toMatch(/\n\s+at /);
    expect(snapshot(dir)).toEqual(before);
  });
});

/** A copy of this package at another version, as a newer or older installer would be. */
describe('upgrades', () => {
  it('a newer installer upgrades the core and the lock, keeps overlays, and re-renders', async () => {
    const dir = gitRepo();
    const old = packageAt('0.0.9', (root) =>
      writeFileSync(join(root, 'roles/reviewer.md'), read(root, 'roles/reviewer.md').replace('# Reviewer', '# Reviewer (old)')),
    );
    expect((await install(dir, ['--yes'], { packageRoot: old })).code).toBe(0);
    expect(read(dir, '.claude/agents/reviewer.md')).toContain('# Reviewer (old)');
    writeFileSync(join(dir, '.gateline/overlays/reviewer.md'), 'Check the changelog.\n');
    expect(core(dir, 'render').status).toBe(0);
    const run = await install(dir, ['--yes']);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/Moved gateline 0\.0\.9 -> 0\.1\.0/);
    expect(lockOf(dir).version).toBe('0.1.0');
    expect(read(dir, '.gateline/overlays/reviewer.md')).toBe('Check the changelog.\n');
    const reviewer = read(dir, '.claude/agents/reviewer.md');
    expect(reviewer).not.toContain('(old)');
    expect(reviewer).toContain('Check the changelog.');
    expect(core(dir, 'validate').status).toBe(0);
  });

  it('keeps the adapters of the existing lock unless told otherwise', async () => {
    const dir = gitRepo();
    await install(dir, ['--yes', '--adapter', 'gemini-cli'], { packageRoot: packageAt('0.0.9') });
    await install(dir, ['--yes']);
    expect(lockOf(dir).adapters).toEqual(['gemini-cli']);
  });

  it('an upgrade from a hand-built older lock removes core files the new core no longer has', async () => {
    const dir = gitRepo();
    await install(dir, ['--yes']);
    const coreDir = join(dir, '.gateline/core');
    writeFileSync(join(coreDir, 'src/legacy.ts'), 'export {};\n');
    const lock = buildLock(hashTree(coreDir), { ...lockOf(dir), version: '0.0.1' });
    writeFileSync(join(dir, '.gateline/framework-lock.json'), stringifyLock(lock));
    const run = await install(dir, ['--yes']);
    expect(run.code, run.stderr).toBe(0);
    expect(existsSync(join(coreDir, 'src/legacy.ts'))).toBe(false);
    expect(core(dir, 'validate').status).toBe(0);
  });

  it('a downgrade or a major upgrade needs --force without a TTY', async () => {
    const dir = gitRepo();
    await install(dir, ['--yes'], { packageRoot: packageAt('2.0.0') });
    const before = snapshot(dir);
    const down = await install(dir, ['--yes']);
    expect(down.code).toBe(1);
    expect(down.stderr).toMatch(/this downgrades gateline from 2\.0\.0 to 0\.1\.0\. Re-run with --force/);
    expect(snapshot(dir)).toEqual(before);
    expect((await install(dir, ['--yes', '--force'])).code).toBe(0);
    const afterDowngrade = snapshot(dir);
    const major = await install(dir, ['--yes'], { packageRoot: packageAt('1.0.0') });
    expect(major.code).toBe(1);
    expect(snapshot(dir)).toEqual(afterDowngrade);
    expect(major.stderr).toMatch(/major upgrade, 0\.1\.0 -> 1\.0\.0/);
    expect((await install(dir, ['--yes', '--force'], { packageRoot: packageAt('1.0.0') })).code).toBe(0);
    expect(lockOf(dir).version).toBe('1.0.0');
  });
});

describe('pre-commit hooks', () => {
  const emptyOverlay = (dir: string) => writeFileSync(join(dir, '.gateline/overlays/_all.md'), '');

  it('git: the plain hook refuses a commit with an emptied overlay and allows it once restored', async () => {
    const dir = gitRepo();
    expect((await install(dir, ['--yes', '--hook', 'git'])).code).toBe(0);
    expect(statSync(join(dir, '.git/hooks/pre-commit')).mode & 0o111).toBe(0o111);
    const stub = read(dir, '.gateline/overlays/_all.md');
    git(dir, 'add', '-A');
    emptyOverlay(dir);
    git(dir, 'add', '-A');
    const refused = spawnSync('git', ['commit', '-qm', 'x'], {
      cwd: dir,
      encoding: 'utf8',
      env: { ...process.env, PATH: `${join(node, '..')}:${process.env.PATH}` },
    });
    expect(refused.status).toBe(1);
    expect(refused.stderr).toMatch(/\.gateline\/overlays\/_all\.md: overlay is empty/);
    writeFileSync(join(dir, '.gateline/overlays/_all.md'), stub);
    git(dir, 'add', '-A');
    const ok = spawnSync('git', ['commit', '-qm', 'x'], {
      cwd: dir,
      encoding: 'utf8',
      env: { ...process.env, PATH: `${join(node, '..')}:${process.env.PATH}` },
    });
    expect(ok.status, ok.stderr).toBe(0);
  });

  it('auto picks husky when the repository has it, and adds a block next to the user lines', async () => {
    const dir = gitRepo({ '.husky/pre-commit': 'echo user-hook\n', 'package.json': '{"devDependencies":{"husky":"9.1.7"}}\n' });
    const run = await install(dir, ['--yes']);
    expect(run.code, run.stderr).toBe(0);
    const hook = read(dir, '.husky/pre-commit');
    expect(hook).toBe(
      'echo user-hook\n# >>> gateline (managed by create-gateline)\nnode .gateline/core/src/gateline.mjs validate --staged\n# <<< gateline\n',
    );
    expect(existsSync(join(dir, '.git/hooks/pre-commit'))).toBe(false);
    await install(dir, ['--yes']);
    expect(read(dir, '.husky/pre-commit')).toBe(hook);
    const sh = (env = {}) =>
      spawnSync('sh', ['-e', '.husky/pre-commit'], {
        cwd: dir,
        encoding: 'utf8',
        env: { ...process.env, PATH: `${join(node, '..')}:${process.env.PATH}`, ...env },
      });
    git(dir, 'add', '-A'); // the hook judges what is staged
    expect(sh().status).toBe(0);
    emptyOverlay(dir);
    expect(sh().status).toBe(0); // not staged: not part of the commit
    git(dir, 'add', '-A');
    expect(sh().status).toBe(1);
  });

  it('auto picks lefthook and adds a command to its config, keeping the others', async () => {
    const dir = gitRepo({ 'lefthook.yml': '# team hooks\npre-commit:\n  commands:\n    lint:\n      run: npm run lint\n' });
    expect((await install(dir, ['--yes'])).code).toBe(0);
    const text = read(dir, 'lefthook.yml');
    expect(text).toContain('# team hooks');
    const config = parse(text);
    expect(config['pre-commit'].commands.lint.run).toBe('npm run lint');
    expect(config['pre-commit'].commands['gateline-validate'].run).toBe('node .gateline/core/src/gateline.mjs validate --staged');
    git(dir, 'add', '-A');
    const run = spawnSync('sh', ['-c', config['pre-commit'].commands['gateline-validate'].run], { cwd: dir, encoding: 'utf8' });
    expect(run.status, run.stderr).toBe(0);
  });

  it('auto picks the pre-commit framework and adds a local system hook', async () => {
    const dir = gitRepo({
      '.pre-commit-config.yaml':
        'repos:\n  - repo: https://github.com/pre-commit/pre-commit-hooks\n    rev: v5.0.0\n    hooks:\n      - id: trailing-whitespace\n',
    });
    expect((await install(dir, ['--yes'])).code).toBe(0);
    const config = parse(read(dir, '.pre-commit-config.yaml'));
    expect(config.repos).toHaveLength(2);
    expect(config.repos[1]).toEqual({
      repo: 'local',
      hooks: [
        {
          id: 'gateline-validate',
          name: 'gateline validate',
          entry: 'node .gateline/core/src/gateline.mjs validate --staged',
          language: 'system',
          pass_filenames: false,
          always_run: true,
        },
      ],
    });
    await install(dir, ['--yes', '--force']);
    expect(parse(read(dir, '.pre-commit-config.yaml')).repos).toHaveLength(2);
  });

  it('--hook none writes no hook', async () => {
    const dir = gitRepo();
    expect((await install(dir, ['--yes', '--hook', 'none'])).code).toBe(0);
    expect(existsSync(join(dir, '.git/hooks/pre-commit'))).toBe(false);
  });

  it('the hook says clearly when Node is older than 24', async (ctx) => {
    const old =
      ['/usr/bin/node', '/usr/local/bin/node'].find(
        (n) => existsSync(n) && Number(spawnSync(n, ['-p', 'process.versions.node.split(".")[0]'], { encoding: 'utf8' }).stdout) < 24,
      ) ?? ctx.skip('no Node older than 24 at /usr/bin/node or /usr/local/bin/node to try it with');
    const dir = gitRepo();
    await install(dir, ['--yes']);
    const run = spawnSync(old, ['.gateline/core/src/gateline.mjs', 'validate'], { cwd: dir, encoding: 'utf8' });
    expect(run.status).toBe(1);
    expect(run.stderr).toMatch(/gateline: needs Node 24 or later, but the node on PATH is v\d+/);
    expect(run.stderr).not.toMatch(/\n\s+at /);
  });
});

describe('--from: vendoring from a git repository with degit', () => {
  /** A git repository holding a gateline core at version 0.2.0, tagged v0.2.0. */
  function upstream(): { dir: string; hash: string } {
    const dir = gitRepo();
    for (const entry of ['src', 'roles', 'adapters', 'registry']) cpSync(join(REPO, entry), join(dir, entry), { recursive: true });
    writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'gateline', version: '0.2.0', type: 'module' }));
    git(dir, 'add', '-A');
    git(dir, 'commit', '-qm', 'core 0.2.0');
    git(dir, 'tag', 'v0.2.0');
    return { dir, hash: git(dir, 'rev-parse', 'HEAD') };
  }

  /** degit's git client and tarball fetch, pointed at a local repository instead of GitHub. */
  function localDegit(repo: string) {
    return {
      git: {
        async fetchRefs() {
          return git(repo, 'ls-remote', repo)
            .split('\n')
            .map((line) => {
              const [hash = '', ref = ''] = line.split('\t');
              if (ref === 'HEAD') return { type: 'HEAD', hash };
              const [, kind = '', name = ''] = /^refs\/(heads|tags)\/(.+)$/.exec(ref) ?? [];
              return { type: kind === 'tags' ? 'tag' : 'branch', name, hash };
            });
        },
        async clone() {
          throw new Error('clone is not used: the tarball path is');
        },
      },
      async fetch(url: string, dest: string) {
        const hash = /archive\/([0-9a-f]{40})\.tar\.gz$/.exec(url)?.[1];
        if (!hash) throw new Error(`unexpected url ${url}`);
        mkdirSync(join(dest, '..'), { recursive: true });
        git(repo, 'archive', '--format=tar.gz', `--prefix=gateline-${hash}/`, '-o', dest, hash);
      },
    };
  }

  it('vendors the tagged tree and records the resolved commit', async () => {
    const up = upstream();
    const dir = gitRepo();
    const run = await install(dir, ['--yes', '--from', 'acme/gateline#v0.2.0'], { degit: localDegit(up.dir) });
    expect(run.code, run.stderr).toBe(0);
    const lock = lockOf(dir);
    expect(lock.source).toEqual({ type: 'degit', repo: 'acme/gateline#v0.2.0', commit: up.hash });
    expect(lock.version).toBe('0.2.0');
    expect(core(dir, 'validate').status).toBe(0);
  });

  it('an unreachable source is a clear message, not a stack, and writes nothing', async () => {
    const dir = gitRepo();
    const before = snapshot(dir);
    const offline = {
      git: {
        async fetchRefs(): Promise<never> {
          throw Object.assign(new Error('could not fetch https://github.com/acme/gateline'), { code: 'COULD_NOT_FETCH' });
        },
        async clone(): Promise<never> {
          throw new Error('offline');
        },
      },
    };
    const run = await install(dir, ['--yes', '--from', 'acme/gateline'], { degit: offline });
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(
      /--from acme\/gateline: could not fetch the core \(MISSING_REF: .*\)\. Check the source and your network; without --from/,
    );
    expect(run.stderr).not.toMatch(/\n\s+at /);
    expect(snapshot(dir)).toEqual(before);
  });
});
