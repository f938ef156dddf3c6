import { spawnSync } from 'node:child_process';
import { chmodSync, cpSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { CLEAN_ENV, checkout, gateline, host, REPO, testdir } from './helpers.ts';

// The commands gateline advertises, spawned as a user or CI runs them, and the streaming check.

const sh = (command: string, cwd: string, env: Record<string, string> = {}) =>
  spawnSync('sh', ['-c', command], { cwd, encoding: 'utf8', env: { ...CLEAN_ENV, NO_COLOR: '1', ...env } });

describe('the plain-JavaScript entry', () => {
  it("this repository's CI runs src/gateline.mjs, and each run: line passes here", () => {
    const wf = parse(readFileSync(join(REPO, '.github/workflows/render-check.yml'), 'utf8'));
    const runs = (wf.jobs['render-check'].steps as { run?: string }[]).flatMap((s) => s.run ?? []);
    expect(runs).toEqual(['node src/gateline.mjs render --check', 'node src/gateline.mjs validate']);
    for (const run of runs) {
      const ci = sh(run, REPO);
      expect(ci.status, `${run}\n${ci.stderr}`).toBe(0);
    }
  });

  it('npm run gateline runs src/gateline.mjs', () => {
    const pkg = JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
    expect(pkg.scripts.gateline).toBe('node src/gateline.mjs');
    const run = sh('npm run --silent gateline -- render --check', REPO);
    expect(run.status, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/gateline render --check: \d+ files up to date/);
  });

  it.each([
    [
      'a deleted module',
      (core: string) => rmSync(join(core, 'src/render/v8-flags.ts')),
      /Cannot find module '[^']*src\/render\/v8-flags\.ts'/,
    ],
    [
      'its start-up writer deleted',
      (core: string) => rmSync(join(core, 'src/start/stdio.mjs')),
      /Cannot find module '[^']*src\/start\/stdio\.mjs'/,
    ],
    [
      'a module edited into a syntax error',
      (core: string) => writeFileSync(join(core, 'src/render/v8-flags.ts'), 'export const = ;\n'),
      /\(\.gateline\/core\/src\/render\/v8-flags\.ts:1: Unexpected token/,
    ],
  ])('a vendored core with %s: exit 1, what and how to restore it, no stack trace', (_name, damage, why) => {
    const dir = host({}, { adapters: ['claude-code'] });
    damage(join(dir, '.gateline/core'));
    for (const command of ['gateline.mjs render --check', 'gateline.mjs validate', 'main.ts render --check']) {
      const run = sh(`node .gateline/core/src/${command}`, dir, { XDG_CACHE_HOME: testdir() });
      expect(run.status, run.stderr).toBe(1);
      expect(run.stderr).toMatch(/^gateline: the core in \.gateline\/core cannot be loaded \(/);
      expect(run.stderr).toMatch(why);
      expect(run.stderr).toContain('npm create gateline@latest');
      expect(run.stderr).not.toMatch(/\n\s+at /);
    }
  });

  it("without its fast start, turns the compile cache on before any .ts loads, in the user's private folder; src/main.ts keeps working but is itself stripped first", () => {
    // No NODE_COMPILE_CACHE (that would turn the cache on at startup): the entry's own call does.
    // --verbose turns the fast start (test/fast-start.test.ts) away, so the .ts modules load.
    const cache = testdir();
    const temp = testdir();
    const debug = (entry: string, home = cache) =>
      sh(`node ${entry} render --check --verbose`, REPO, { TMPDIR: temp, XDG_CACHE_HOME: home, NODE_DEBUG_NATIVE: 'COMPILE_CACHE' });
    const seen = (stderr: string, file: string) => stderr.includes(`for StrippedTypeScript ${pathToFileURL(join(REPO, file)).href}`);
    const mjs = debug('src/gateline.mjs');
    expect(mjs.status).toBe(0);
    for (const file of ['src/cli.ts', 'src/render/plan.ts', 'src/render/state.ts']) expect(seen(mjs.stderr, file), file).toBe(true);
    const main = debug('src/main.ts');
    expect(main.status).toBe(0);
    expect(seen(main.stderr, 'src/cli.ts')).toBe(true);
    expect(seen(main.stderr, 'src/main.ts')).toBe(false);
    // Kept in the private cache folder, never in the temp folder other users share.
    expect(readdirSync(join(cache, 'gateline/node')).length).toBeGreaterThan(0);
    expect(readdirSync(temp)).toEqual([]);
    // A cache home others may write: no compile cache at all, rather than a shared one.
    const shared = testdir();
    chmodSync(shared, 0o777);
    const open = debug('src/gateline.mjs', shared);
    expect(open.status).toBe(0);
    expect(seen(open.stderr, 'src/cli.ts')).toBe(false);
    expect(readdirSync(shared)).toEqual([]);
    expect(readdirSync(temp)).toEqual([]);
  });
});

/** A checkout with `n` roles rendered by three Markdown adapters (as bench/checkout.ts builds). */
function manyRoles(n: number): string {
  const roles = Array.from({ length: n }, (_, i) => `role-${i}`);
  const files: Record<string, string> = {};
  const body = readFileSync(join(REPO, 'roles/implementer.md'), 'utf8');
  for (const role of roles) files[`roles/${role}.md`] = body;
  const dir = checkout(files, { shipped: false });
  for (const adapter of ['claude-code', 'gemini-cli', 'opencode']) {
    cpSync(join(REPO, 'adapters', adapter), join(dir, 'adapters', adapter), { recursive: true });
    const path = join(dir, 'adapters', adapter, 'manifest.json');
    writeFileSync(path, JSON.stringify({ ...JSON.parse(readFileSync(path, 'utf8')), roles }, null, 2));
  }
  return dir;
}

describe('planning and comparing stream', () => {
  it('render --check of 2000 roles x 3 adapters fits a 20 MB heap: no file content outlives its comparison', () => {
    const dir = manyRoles(2000);
    expect(gateline(['render'], dir).code).toBe(0);
    // Holding every planned file (about 13 KB per role here) and every role spec needed more than
    // 48 MB; streaming needs a few. Node aborts when the heap limit is reached.
    const run = spawnSync(process.execPath, ['--max-old-space-size=20', join(REPO, 'src/gateline.mjs'), 'render', '--check'], {
      cwd: dir,
      encoding: 'utf8',
      env: { ...CLEAN_ENV, NO_COLOR: '1' },
    });
    expect(run.stderr).toBe('');
    expect(run.stdout).toBe('gateline render --check: 6000 files up to date\n');
  }, 120_000);

  it("a large run leaves V8's flags as it found them: the next run uses the code cache the fast start took", () => {
    // From 1000 planned files on, planning turns two V8 heuristics off (src/render/v8-flags.ts). V8
    // stamps a code cache with its flags: left off, every next run refused the cache and wrote it again.
    const dir = manyRoles(400);
    const cache = testdir();
    chmodSync(cache, 0o700);
    const run = (args: string[]) =>
      spawnSync(process.execPath, [join(REPO, 'src/gateline.mjs'), ...args], { cwd: dir, env: { ...CLEAN_ENV, XDG_CACHE_HOME: cache } });
    expect(run(['render']).status).toBe(0);
    const folder = join(cache, 'gateline/start');
    const code = () => {
      const name = readdirSync(folder).find((f) => f.endsWith('.render.v8')) as string;
      const { ino, mtimeMs } = statSync(join(folder, name));
      return { name, ino, mtimeMs };
    };
    const taken = code();
    for (let i = 0; i < 2; i++) expect(run(['render', '--check']).status).toBe(0);
    expect(code()).toEqual(taken);
  }, 60_000);

  it('reports files and problems in adapter order, whatever order the roles are planned in', () => {
    const role = (body: string) => `---\ndispatch: ${body}\ncapabilities: [read]\ncapability_profile: deep\n---\n${body}\n`;
    const manifest = (adapter: string, roles: string[]) =>
      JSON.stringify({ ...JSON.parse(readFileSync(join(REPO, 'adapters', adapter, 'manifest.json'), 'utf8')), roles });
    const dir = checkout(
      {
        'roles/a.md': role('A.'),
        'roles/b.md': role('B.'),
        'roles/c.md': role('C.'),
        'adapters/claude-code/manifest.json': manifest('claude-code', ['c', 'a']),
        'adapters/opencode/manifest.json': manifest('opencode', ['a', 'b', 'c']),
      },
      { shipped: false },
    );
    mkdirSync(join(dir, 'adapters/gemini-cli'));
    const wrote = gateline(['render'], dir);
    expect(wrote.stdout).toBe(
      [
        'wrote .claude/agents/c.md',
        'wrote .claude/agents/a.md',
        'wrote .opencode/agents/a.md',
        'wrote .opencode/agents/b.md',
        'wrote .opencode/agents/c.md',
        'gateline render: 5 written, 0 removed, 0 up to date',
        '',
      ].join('\n'),
    );
    // A problem in every file (no model for the profile): each is reported where an
    // adapter-by-adapter walk meets it, though role c is planned for both adapters first.
    for (const name of ['a', 'b', 'c']) writeFileSync(join(dir, `roles/${name}.md`), role(`${name}.`).replace('deep', 'nope'));
    const refused = gateline(['render', '--check', '--json'], dir);
    const problems = (JSON.parse(refused.stdout) as { problems: { file: string; message: string }[] }).problems;
    expect(problems.map((p) => `${p.file} ${/role '(\w)'/.exec(p.message)?.[1]}`)).toEqual([
      'adapters/claude-code/manifest.json c',
      'adapters/claude-code/manifest.json a',
      'adapters/opencode/manifest.json a',
      'adapters/opencode/manifest.json b',
      'adapters/opencode/manifest.json c',
    ]);
  });
});
