import { spawnSync } from 'node:child_process';
import { readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { git, gitRepo, REPO, read, testdir } from './helpers.ts';

// The published package as a user meets it: `npm pack`, then `npm exec` of the tarball (what
// `npm create gateline` does) in a fresh repository, offline: dependencies come from npm's cache.

const PATH = `${join(process.execPath, '..')}:${process.env.PATH}`;
const env = {
  ...process.env,
  PATH,
  npm_config_yes: 'true',
  npm_config_offline: 'true',
  npm_config_update_notifier: 'false',
  NO_COLOR: '1',
};

function sh(command: string, args: string[], cwd: string) {
  return spawnSync(command, args, { cwd, env, encoding: 'utf8', timeout: 180_000 });
}

// Each test spawns npm several times: on a loaded machine that alone can pass the 30 s default.
describe('the packed package, run as a user runs it', { timeout: 180_000 }, () => {
  let tarball = '';
  let integrity = '';
  let files: string[] = [];

  beforeAll(() => {
    const out = testdir();
    const pack = sh('npm', ['pack', '--json', '--pack-destination', out], REPO);
    expect(pack.status, pack.stderr).toBe(0);
    const [info] = JSON.parse(pack.stdout.slice(pack.stdout.indexOf('['))) as {
      filename: string;
      integrity: string;
      files: { path: string }[];
    }[];
    tarball = join(out, info?.filename ?? '');
    integrity = info?.integrity ?? '';
    files = (info?.files ?? []).map((f) => f.path);
    // The offline runs below resolve the package's dependencies from npm's cache. `npm ci` caches
    // tarballs but not the registry metadata npm exec resolves ranges with, so a fresh machine
    // (CI) would fail for want of a cache, not of gateline: fetch both for every runtime package.
    const lock = JSON.parse(read(REPO, 'package-lock.json')) as { packages: Record<string, { version?: string; dev?: boolean }> };
    const specs = Object.entries(lock.packages)
      .filter(([path, p]) => path.startsWith('node_modules/') && !p.dev && p.version)
      .map(([path, p]) => `${path.slice(path.lastIndexOf('node_modules/') + 'node_modules/'.length)}@${p.version}`);
    const warm = spawnSync('npm', ['cache', 'add', ...specs], { cwd: out, env: { ...env, npm_config_offline: 'false' }, encoding: 'utf8' });
    expect(warm.status, warm.stderr).toBe(0);
  }, 180_000);

  it('ships the compiled bins, the core sources and templates, and no tests or fixtures', () => {
    expect(files).toContain('dist/bin/create-gateline.js');
    expect(files).toContain('dist/bin/gateline.js');
    expect(files).toContain('src/main.ts');
    expect(files).toContain('src/gateline.mjs');
    expect(files).toContain('roles/reviewer.md');
    expect(files).toContain('templates/gateline-render-check.yml');
    expect(files.filter((f) => /(^|\/)test\/|\.test\.|golden|fixture/.test(f))).toEqual([]);
    expect(
      files.filter((f) => f.startsWith('src/') && f.endsWith('.ts') && !/^src\/(main|cli)\.ts$|^src\/(render|validate|shared)\//.test(f)),
    ).toEqual([]);
  });

  it('installs offline into a fresh repository; render --check, validate and the hook work there', () => {
    const dir = gitRepo({ 'README.md': '# demo\n' });
    const run = sh('npm', ['exec', '--package', tarball, '--', 'create-gateline', '--yes'], dir);
    expect(run.status, `${run.stdout}\n${run.stderr}`).toBe(0);
    expect(run.stdout).toMatch(/Installed gateline 0\.1\.0 in this repository/);
    expect(readdirSync(join(dir, '.claude/agents')).sort()).toEqual(['implementer.md', 'planner.md', 'reviewer.md', 'verifier.md']);

    const check = sh(process.execPath, ['.gateline/core/src/main.ts', 'render', '--check'], dir);
    expect(check.status, check.stderr).toBe(0);
    const validate = sh(process.execPath, ['.gateline/core/src/main.ts', 'validate'], dir);
    expect(validate.status, validate.stderr).toBe(0);
    const bin = sh('npm', ['exec', '--package', tarball, '--', 'gateline', 'render', '--check'], dir);
    expect(bin.status, bin.stderr).toBe(0);
    expect(bin.stdout).toMatch(/15 files up to date/);
    // The lock records the tarball npm installed the installer from, and check-upstream finds the
    // vendored core to be exactly that package's.
    expect(JSON.parse(read(dir, '.gateline/framework-lock.json')).source.tarballIntegrity).toBe(integrity);
    const upstream = sh('npm', ['exec', '--package', tarball, '--', 'gateline', 'check-upstream', '--tarball', tarball], dir);
    expect(upstream.status, upstream.stderr).toBe(0);
    expect(upstream.stdout).toMatch(/^\.gateline\/core matches create-gateline@0\.1\.0 in .*: \d+ files\.\n$/);

    git(dir, 'add', '-A');
    const stub = read(dir, '.gateline/overlays/_all.md');
    writeFileSync(join(dir, '.gateline/overlays/_all.md'), '');
    git(dir, 'add', '-A');
    const refused = sh('git', ['commit', '-qm', 'adopt gateline'], dir);
    expect(refused.status).not.toBe(0);
    expect(refused.stderr).toMatch(/overlays\/_all\.md: overlay is empty/);
    writeFileSync(join(dir, '.gateline/overlays/_all.md'), stub);
    git(dir, 'add', '-A');
    const ok = sh('git', ['commit', '-qm', 'adopt gateline'], dir);
    expect(ok.status, ok.stderr).toBe(0);
  });

  it('the gateline bin: help, version and usage errors work anywhere; doctor and up run from the package', () => {
    const dir = gitRepo();
    const bin = (...args: string[]) => sh('npm', ['exec', '--package', tarball, '--', 'gateline', ...args], dir);
    const help = bin('--help');
    expect(help.status).toBe(0);
    expect(help.stdout).toMatch(/doctor +check this host/);
    expect(bin('--version').stdout.trim()).toBe('0.1.0');
    expect(bin('bogus').status).toBe(2);
    expect(sh('npm', ['exec', '--package', tarball, '--', 'create-gateline', '--yes', '--hook', 'none'], dir).status).toBe(0);
    // doctor and up load the installer's npm dependencies: this proves they ship as dependencies.
    const doctor = bin('doctor', '--json');
    expect(doctor.stderr).not.toMatch(/ERR_MODULE_NOT_FOUND|\n\s+at /);
    expect(JSON.parse(doctor.stdout).findings.map((f: { id: string }) => f.id)).toContain('validate');
    // The plan is the run: a runner missing from PATH is a refused lane; stand-ins make them present.
    const runners = testdir();
    for (const name of ['claude', 'opencode']) writeFileSync(join(runners, name), '#!/bin/sh\nexit 0\n', { mode: 0o755 });
    const args = ['exec', '--package', tarball, '--', 'gateline', 'up', '--plan', '--adapter', 'claude-code', '--adapter', 'opencode'];
    const plan = spawnSync('npm', args, { cwd: dir, env: { ...env, PATH: `${runners}:${PATH}` }, encoding: 'utf8', timeout: 180_000 });
    expect(plan.status, plan.stderr).toBe(0);
    expect(plan.stdout).toMatch(/reviewer +opencode .* ok$/m);
  });

  it('the gateline bin with a broken vendored core says what to do, without a stack', () => {
    const dir = gitRepo();
    expect(sh('npm', ['exec', '--package', tarball, '--', 'create-gateline', '--yes', '--hook', 'none'], dir).status).toBe(0);
    rmSync(join(dir, '.gateline/core/src/render/plan.ts'));
    const run = sh('npm', ['exec', '--package', tarball, '--', 'gateline', 'render', '--check'], dir);
    expect(run.status).toBe(1);
    expect(run.stderr).toMatch(/\.gateline\/core\/src\/cli\.ts: the vendored core cannot be loaded .*run the installer again/);
    expect(run.stderr).not.toMatch(/\n\s+at /);
  });

  it('the gateline bin outside a host says how to adopt gateline', () => {
    const dir = gitRepo();
    const run = sh('npm', ['exec', '--package', tarball, '--', 'gateline', 'validate'], dir);
    expect(run.status).toBe(1);
    expect(run.stderr).toMatch(/npm create gateline@latest/);
    expect(run.stderr).not.toMatch(/\n\s+at /);
  });
});
