import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { runDoctor } from '../src/probe/doctor-cli.ts';
import { CLEAN_ENV, git, gitRepo, install, REPO, read, writeFiles } from './helpers.ts';

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
      '        entry: node .gateline/core/src/gateline.mjs validate --staged',
      '        language: system',
      '        pass_filenames: false',
      '        always_run: true',
    ];
    const lines = PRE_COMMIT.split('\n');
    expect(text).toContain([...lines.slice(0, 8), ...ours].join('\n'));
    // Besides the hook, only the top-level exclude that keeps the framework's hooks off gateline's files.
    expect(text.replace(`${ours.join('\n')}\n`, '').replace(/^exclude: .*\n/m, '')).toBe(PRE_COMMIT);
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
      '      - id: gateline-validate\n        name: gateline validate\n        entry: node .gateline/core/src/gateline.mjs validate --staged\n',
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
      lefthook.replace('pre-push:', '    gateline-validate:\n      run: node .gateline/core/src/gateline.mjs validate --staged\npre-push:'),
    );
    expect((await install(dir, ['--yes'])).code).toBe(0);
    expect(read(dir, 'lefthook.yml')).toBe(text);
  });
});

describe("the repository's formatters leave gateline's files alone (issue 13 item 2)", () => {
  const BIN = join(REPO, 'node_modules', '.bin');
  const PYTHON_PRE_COMMIT =
    'repos:\n  - repo: https://github.com/pre-commit/mirrors-prettier\n    rev: v3.1.0\n    hooks:\n      - id: prettier\n        types_or: [markdown, yaml, json]\n';
  const changed = (dir: string) =>
    git(dir, 'status', '--porcelain')
      .split('\n')
      .filter((l) => /^.M/.test(l));

  it('a Python project whose pre-commit runs prettier: ignore entries, an exclude, linguist-generated; real prettier then changes nothing', async () => {
    const dir = gitRepo({ '.pre-commit-config.yaml': PYTHON_PRE_COMMIT, 'app.py': 'x = 1\n' });
    const run = await install(dir, ['--yes']);
    expect(run.code, run.stderr).toBe(0);
    expect(read(dir, '.prettierignore')).toMatch(/^\/\.gateline\/$/m);
    expect(read(dir, '.prettierignore')).toMatch(/^\/\.claude\/agents\/reviewer\.md$/m);
    expect(read(dir, '.gitattributes')).toMatch(/^\/\.claude\/agents\/reviewer\.md linguist-generated$/m);
    const config = read(dir, '.pre-commit-config.yaml');
    expect(config.startsWith(PYTHON_PRE_COMMIT)).toBe(true); // the user's lines, byte for byte
    const exclude = new RegExp((parse(config) as { exclude: string }).exclude);
    for (const path of [
      '.gateline/core/src/cli.ts',
      '.gateline/framework-lock.json',
      '.claude/agents/reviewer.md',
      '.github/workflows/gateline-render-check.yml',
    ])
      expect(exclude.test(path), path).toBe(true);
    for (const path of ['app.py', 'docs/x.md', '.claude/agents/mine.md']) expect(exclude.test(path), path).toBe(false);

    git(dir, 'add', '-A');
    // As a user runs it, and as pre-commit and lint-staged run it: with the staged files named.
    const staged = git(dir, 'diff', '--cached', '--name-only').split('\n');
    for (const args of [
      ['--write', '.'],
      ['--write', '--ignore-unknown', ...staged],
    ]) {
      const prettier = spawnSync(join(BIN, 'prettier'), args, { cwd: dir, encoding: 'utf8' });
      expect(prettier.status, prettier.stderr).toBe(0);
    }
    expect(changed(dir)).toEqual([]);
    expect(sh('node .gateline/core/src/gateline.mjs validate', dir).code).toBe(0);
    // A re-run refreshes its blocks without duplicating them.
    expect((await install(dir, ['--yes'])).stdout).toMatch(/up to date: nothing to change/);
  });

  it('without the ignore entries prettier rewrites the agents, and validate says they look reformatted by a tool', async () => {
    const dir = gitRepo({ '.pre-commit-config.yaml': PYTHON_PRE_COMMIT });
    expect((await install(dir, ['--yes'])).code).toBe(0);
    const agents = ['.claude/agents/reviewer.md', '.github/agents/planner.agent.md'];
    const prettier = spawnSync(join(BIN, 'prettier'), ['--write', '--ignore-path=', ...agents], { cwd: dir, encoding: 'utf8' });
    expect(prettier.status, prettier.stderr).toBe(0);
    const validate = sh('node .gateline/core/src/gateline.mjs validate', dir);
    expect(validate.code).toBe(1);
    for (const path of agents) expect(validate.stderr).toContain(`${path}: this looks reformatted by a tool`);
    expect(validate.stderr).not.toContain('is stale');
  });

  it('Biome: excludes added to biome.json keep real biome off the core and the agents (it would break their frontmatter)', async () => {
    const dir = gitRepo({
      'package.json': '{ "name": "lib", "private": true }\n',
      'biome.json': '{}\n',
      'index.ts': 'export const a = {b:1}\n',
    });
    expect((await install(dir, ['--yes'])).code).toBe(0);
    git(dir, 'add', '-A');
    const biome = spawnSync(join(BIN, 'biome'), ['format', '--write', '.'], { cwd: dir, encoding: 'utf8' });
    expect(biome.status, biome.stderr).toBe(0);
    expect(JSON.parse(read(dir, 'biome.json')).files.includes).toEqual(
      expect.arrayContaining(['**', '!.gateline/**', '!.claude/agents/reviewer.md']),
    );
    // The host's own files are formatted (biome.json too, in Biome's layout); gateline's are not.
    expect(changed(dir).map((l) => l.slice(3))).toEqual(['biome.json', 'index.ts', 'package.json']);
    expect(sh('node .gateline/core/src/gateline.mjs validate', dir).code).toBe(0);
  });

  it("markdownlint gets an ignore file; ESLint's flat config, which has none, gets a note with the line to add", async () => {
    const dir = gitRepo({ '.markdownlint.json': '{}\n', 'eslint.config.js': 'export default [];\n' });
    const run = await install(dir, ['--yes']);
    expect(run.code).toBe(0);
    expect(read(dir, '.markdownlintignore')).toMatch(/^\/\.gateline\/$/m);
    expect(run.stdout).toContain("add { ignores: ['.gateline/'] } to your eslint.config");
    expect(existsSync(join(dir, '.prettierignore'))).toBe(false); // no prettier here: nothing written for it
  });
});

/** `gateline doctor --json` in `dir`, with no runner on PATH. */
async function doctor(dir: string): Promise<{ ok: boolean; findings: { id: string; ok: boolean; message: string; fix?: string }[] }> {
  let out = '';
  const stream = new Writable({
    write(chunk, _e, done) {
      out += String(chunk);
      done();
    },
  });
  await runDoctor(['--json'], { stdout: stream, stderr: stream, cwd: dir, env: { ...CLEAN_ENV, HOME: dir } });
  return JSON.parse(out);
}

describe('doctor right after an install (issue 13 items 3, 4, 10)', () => {
  it('a default install on a machine without runners: doctor passes, and lists no runner-side step for runners not installed', async () => {
    const dir = gitRepo();
    expect((await install(dir, ['--yes'])).code).toBe(0);
    const report = await doctor(dir);
    expect(report.findings.filter((f) => !f.ok)).toEqual([]);
    expect(report.ok).toBe(true);
    expect(report.findings.map((f) => f.id)).not.toContain('gemini-ack');
    expect(report.findings.map((f) => f.id)).not.toContain('codex-trust');
    expect(report.findings.find((f) => f.id === 'runner:codex')?.message).toMatch(
      /not on PATH on this machine: to use this adapter here, install it: npm install -g/,
    );
  });

  it('husky not wired into git: the installer says how without `husky init`, doctor fails until core.hooksPath points into .husky', async () => {
    const dir = gitRepo({
      'package.json': '{ "name": "lib", "devDependencies": { "husky": "9.1.7" } }\n',
      '.husky/pre-commit': 'npm test\n',
    });
    const run = await install(dir, ['--yes']);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/husky is not wired into git .*"prepare": "husky"/);
    expect(run.stdout).not.toMatch(/&& npx husky init/);
    expect((await doctor(dir)).findings.find((f) => f.id === 'hook')).toMatchObject({
      ok: false,
      message: expect.stringMatching(/husky is not wired/),
    });
    // What `husky` (the prepare script of husky 9) does: its own hook folder, and core.hooksPath to it.
    writeFiles(dir, { '.husky/_/pre-commit': '#!/usr/bin/env sh\n. "$(dirname "$0")/h"\n' });
    git(dir, 'config', 'core.hooksPath', '.husky/_');
    expect((await doctor(dir)).findings.find((f) => f.id === 'hook')).toMatchObject({ ok: true });
    const again = await install(dir, ['--yes']);
    expect(again.stdout).not.toMatch(/husky is not wired/);
    expect(read(dir, '.husky/pre-commit')).toMatch(/^npm test\n/);
  });

  it('the pre-commit framework not installed into git: doctor says so until its git hook is there', async () => {
    const dir = gitRepo({ '.pre-commit-config.yaml': 'repos: []\n' });
    const run = await install(dir, ['--yes']);
    expect(run.stdout).toMatch(/the pre-commit framework is not installed into git.*: run pre-commit install/);
    expect((await doctor(dir)).findings.find((f) => f.id === 'hook')).toMatchObject({ ok: false, fix: 'pre-commit install' });
    writeFiles(dir, { '.git/hooks/pre-commit': '#!/usr/bin/env bash\n# File generated by pre-commit: https://pre-commit.com\n' });
    expect((await doctor(dir)).findings.find((f) => f.id === 'hook')).toMatchObject({ ok: true });
    expect((await install(dir, ['--yes'])).stdout).not.toMatch(/pre-commit install/);
  });
});

describe('smaller points (issue 13 item 11)', () => {
  it('the summary marks what this run fixes, problems and progress differently, and folds the core in the list of files', async () => {
    const dir = gitRepo({ 'package.json': '{ "name": "lib", "version": "1.0.0" }\n' });
    const run = await install(dir, ['--yes', '--gitignore']);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^~ \.gitignore lacks .* \(fixing it: --gitignore\)$/m);
    expect(run.stdout).toMatch(/^! a Node project without a gateline script/m);
    expect(run.stdout).toMatch(/^> vendoring gateline/m);
    expect(run.stdout).not.toMatch(/^- /m);
    expect(run.stdout).toMatch(/^ {2}\.gateline\/core\/ \(\d+ file\(s\) of the vendored core\)$/m);
    expect(run.stdout).not.toContain('  .gateline/core/src/cli.ts');
    // npm would publish .gateline/ and the agents: said, since a new .npmignore would stop npm reading .gitignore.
    expect(run.stdout).toMatch(/package\.json has no "files" list, so npm pack would publish \.gateline\//);
    expect(existsSync(join(dir, '.npmignore'))).toBe(false);
  });

  it('the workflow runs on pushes to every branch, not only main', async () => {
    const dir = gitRepo();
    expect((await install(dir, ['--yes'])).code).toBe(0);
    const on = (parse(read(dir, '.github/workflows/gateline-render-check.yml')) as { on: Record<string, unknown> }).on;
    expect(on).toEqual({ push: null, pull_request: null });
  });

  it('an emptied overlay: validate names it, with one line for the renders it made stale instead of one per file', async () => {
    const dir = gitRepo();
    expect((await install(dir, ['--yes', '--hook', 'none'])).code).toBe(0);
    writeFileSync(join(dir, '.gateline/overlays/_all.md'), 'Run make check.\n');
    expect(sh('node .gateline/core/src/gateline.mjs render', dir).code).toBe(0);
    writeFileSync(join(dir, '.gateline/overlays/_all.md'), '');
    const validate = sh('node .gateline/core/src/gateline.mjs validate', dir);
    expect(validate.code).toBe(1);
    expect(validate.stderr).toMatch(/\.gateline\/overlays\/_all\.md: .*empty/);
    expect(validate.stderr).toMatch(/and 15 rendered file\(s\) differ from it: restore the overlay/);
    expect(validate.stderr).not.toContain('is stale');
    // render refuses it too, writing nothing: the policy is not rendered away.
    const before = readFileSync(join(dir, '.claude/agents/reviewer.md'), 'utf8');
    const render = sh('node .gateline/core/src/gateline.mjs render', dir);
    expect(render.code).toBe(1);
    expect(render.stderr).toMatch(/\.gateline\/overlays\/_all\.md: overlay is empty/);
    expect(render.stderr).toMatch(/nothing was written/);
    expect(readFileSync(join(dir, '.claude/agents/reviewer.md'), 'utf8')).toBe(before);
  });
});
