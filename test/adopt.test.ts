import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CLEAN_ENV, gitRepo, install, read } from './helpers.ts';

// Adopting gateline in a repository shaped like the ones users have: every command gateline
// prints or writes into the host works there, offline, and says "needs Node 24" on an old Node.

const sh = (command: string, cwd: string, env: NodeJS.ProcessEnv = CLEAN_ENV) => {
  const run = spawnSync('sh', ['-c', command], { cwd, encoding: 'utf8', env: { ...env, NO_COLOR: '1' } });
  return { code: run.status, stdout: run.stdout, stderr: run.stderr };
};

/** A Node older than 24 on this machine, for the "needs Node 24" checks. */
const OLD_NODE = ['/usr/bin/node', '/usr/local/bin/node'].find(
  (n) => existsSync(n) && Number(spawnSync(n, ['-p', 'process.versions.node.split(".")[0]'], { encoding: 'utf8' }).stdout) < 24,
);

/** Every file under `dir` outside .git and the vendored core, with its text. */
function hostFiles(dir: string, rel = ''): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of readdirSync(join(dir, rel))) {
    const path = rel ? `${rel}/${name}` : name;
    if (path === '.git' || path === '.gateline/core') continue;
    if (statSync(join(dir, path)).isDirectory()) Object.assign(out, hostFiles(dir, path));
    else out[path] = readFileSync(join(dir, path), 'utf8');
  }
  return out;
}

describe('the commands gateline advertises in a host (issue 13 items 1, 8, 9)', () => {
  it('none is `npx gateline`; the printed render command, the package script and the header command all run offline', async () => {
    const dir = gitRepo({ 'package.json': '{\n  "name": "app",\n  "private": true\n}\n' });
    const run = await install(dir, ['--yes', '--package-script', '--hook', 'git']);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).not.toMatch(/npx gateline\b/);
    for (const [path, text] of Object.entries(hostFiles(dir))) expect(text, path).not.toMatch(/npx gateline\b/);

    const next = /run `([^`]+)`/.exec(run.stdout.slice(run.stdout.indexOf('Next:')))?.[1] ?? '';
    expect(next).toBe('node .gateline/core/src/gateline.mjs render');
    expect(sh(next, dir).code).toBe(0);
    const script = (JSON.parse(read(dir, 'package.json')) as { scripts: { gateline: string } }).scripts.gateline;
    expect(script).toBe('node .gateline/core/src/gateline.mjs');
    expect(sh(`${script} validate`, dir).code).toBe(0);
    // doctor lives in the installer package: pinned to the version installed, never a bare `npx gateline`.
    expect(run.stdout).toContain('npx -p create-gateline@0.1.0 gateline doctor');

    // The rendered header points to the overlay and the vendored core's command, not the core's role spec.
    const agent = read(dir, '.claude/agents/reviewer.md');
    expect(agent).toContain('Edit .gateline/overlays/reviewer.md (or _all.md), then run: node .gateline/core/src/gateline.mjs render');
    expect(read(dir, '.codex/agents/implementer.toml').split('\n')[0]).toContain('node .gateline/core/src/gateline.mjs render');

    // validate's fix for a stale file, and render --check's, are the same command.
    writeFileSync(join(dir, '.gateline/overlays/_all.md'), 'Run make check.\n');
    const validate = sh('node .gateline/core/src/gateline.mjs validate', dir);
    expect(validate.code).toBe(1);
    expect(validate.stderr).toContain('run node .gateline/core/src/gateline.mjs render');
    const check = sh('node .gateline/core/src/gateline.mjs render --check', dir);
    expect(check.stderr).toContain('Fix: node .gateline/core/src/gateline.mjs render');
  });

  it("an older installer's `node …/main.ts` package script is refreshed to the plain-JavaScript entry, other scripts kept", async () => {
    const pkg = '{\n  "name": "app",\n  "scripts": { "test": "vitest", "gateline": "node .gateline/core/src/main.ts" }\n}\n';
    const dir = gitRepo({ 'package.json': pkg });
    expect((await install(dir, ['--yes'])).code).toBe(0);
    expect(read(dir, 'package.json')).toBe(pkg.replace('main.ts', 'gateline.mjs'));
  });

  it.runIf(OLD_NODE)('on an old Node every advertised command says "needs Node 24", without a stack', async () => {
    const dir = gitRepo({ 'package.json': '{ "name": "app" }\n' });
    const run = await install(dir, ['--yes', '--package-script', '--hook', 'git']);
    expect(run.code, run.stderr).toBe(0);
    const old = { ...CLEAN_ENV, PATH: `/usr/bin:/bin` };
    const script = (JSON.parse(read(dir, 'package.json')) as { scripts: { gateline: string } }).scripts.gateline;
    for (const command of ['node .gateline/core/src/gateline.mjs render', `${script} validate`, '.git/hooks/pre-commit']) {
      const ran = sh(command, dir, old);
      expect(ran.code, command).toBe(1);
      expect(ran.stderr, command).toMatch(/needs Node 24 or later/);
      expect(ran.stderr, command).not.toMatch(/\n\s+at |ERR_UNKNOWN_FILE_EXTENSION/);
    }
  });
});

describe('overlay stubs (issue 13 item 7)', () => {
  it("the stub's instructions for the human are not sent to the models once policy is written below it", async () => {
    const dir = gitRepo();
    expect((await install(dir, ['--yes', '--hook', 'none'])).code).toBe(0);
    const stub = read(dir, '.gateline/overlays/_all.md');
    expect(stub).toContain('After editing, run');
    writeFileSync(join(dir, '.gateline/overlays/_all.md'), `${stub}\nAlways run \`make check\` first.\n`);
    expect(sh('node .gateline/core/src/gateline.mjs render', dir).code).toBe(0);
    for (const path of ['.claude/agents/reviewer.md', '.codex/agents/implementer.toml']) {
      const agent = read(dir, path);
      expect(agent, path).toContain('<!-- overlay: .gateline/overlays/_all.md -->\nAlways run `make check` first.');
      expect(agent, path).not.toMatch(/After editing|Do not delete|gateline overlay for EVERY agent/);
    }
  });
});

describe("YAML hook configs keep the user's lines byte for byte (issue 13 item 6)", () => {
  const PRE_COMMIT = [
    '# checks run by pre-commit',
    'repos:',
    '  - repo: https://github.com/pre-commit/mirrors-prettier',
    '    rev: v3.1.0',
    '    hooks:',
    '      - id: prettier',
    '        types_or: [markdown, yaml, json]',
    "        args: ['--prose-wrap=always']",
    '  # more hooks go here',
    'default_stages: [ pre-commit ]',
    '',
  ].join('\n');

  it('pre-commit: the local hook is appended to repos; every other line stays as written, re-runs change nothing', async () => {
    const dir = gitRepo({ '.pre-commit-config.yaml': PRE_COMMIT });
    expect((await install(dir, ['--yes'])).code).toBe(0);
    const text = read(dir, '.pre-commit-config.yaml');
    const ours = [
      '  - repo: local',
      '    hooks:',
      '      - id: gateline-validate',
      '        name: gateline validate',
      '        entry: node .gateline/core/src/gateline.mjs validate',
      '        language: system',
      '        pass_filenames: false',
      '        always_run: true',
    ];
    const lines = PRE_COMMIT.split('\n');
    expect(text).toContain([...lines.slice(0, 8), ...ours].join('\n'));
    expect(text.replace(`${ours.join('\n')}\n`, '')).toBe(PRE_COMMIT);
    const again = await install(dir, ['--yes']);
    expect(again.code).toBe(0);
    expect(read(dir, '.pre-commit-config.yaml')).toBe(text);
  });

  it('pre-commit: an outdated gateline hook is refreshed where it is, the lines around it kept', async () => {
    const old = `${PRE_COMMIT}  - repo: local\n    hooks:\n      - id: gateline-validate\n        entry: node old/path validate   # mine\n        language: system\n      - id: other\n        entry: [make, lint]\n        language: system\n`;
    const dir = gitRepo({ '.pre-commit-config.yaml': old.replace('default_stages: [ pre-commit ]\n', '') });
    expect((await install(dir, ['--yes'])).code).toBe(0);
    const text = read(dir, '.pre-commit-config.yaml');
    expect(text).toContain('        types_or: [markdown, yaml, json]\n');
    expect(text).toContain(
      '      - id: gateline-validate\n        name: gateline validate\n        entry: node .gateline/core/src/gateline.mjs validate\n',
    );
    expect(text).toContain('      - id: other\n        entry: [make, lint]\n        language: system\n');
    expect(text).not.toContain('old/path');
  });

  it('lefthook: the command is added under pre-commit.commands; flow mappings and other lines stay as written', async () => {
    const lefthook =
      'pre-commit:\n  parallel: true\n  commands:\n    lint:\n      tags: [frontend, style]\n      glob: "*.{js,ts}"\n      run: npx eslint {staged_files}\npre-push:\n  commands: { test: { run: npm test } }\n';
    const dir = gitRepo({ 'lefthook.yml': lefthook });
    expect((await install(dir, ['--yes'])).code).toBe(0);
    const text = read(dir, 'lefthook.yml');
    expect(text).toBe(
      lefthook.replace('pre-push:', '    gateline-validate:\n      run: node .gateline/core/src/gateline.mjs validate\npre-push:'),
    );
    expect((await install(dir, ['--yes'])).code).toBe(0);
    expect(read(dir, 'lefthook.yml')).toBe(text);
  });
});
