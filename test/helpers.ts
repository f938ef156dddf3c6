import { spawnSync } from 'node:child_process';
import { cpSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { Writable } from 'node:stream';
import { afterAll, onTestFinished } from 'vitest';
import { type CliIo, run } from '../src/init/cli.ts';
import { vendorCore } from '../src/init/vendor.ts';
import { hashTree } from '../src/shared/integrity.ts';
import { buildLock, stringifyLock } from '../src/shared/lock.ts';

export const REPO = join(import.meta.dirname, '..');
export const MAIN = join(REPO, 'src', 'main.ts');

/** A temp folder with the given files, removed when the test ends. */
export function testdir(files: Record<string, string> = {}): string {
  const dir = mkdtempSync(join(tmpdir(), 'gateline-test-'));
  const cleanup = () => rmSync(dir, { recursive: true, force: true });
  try {
    onTestFinished(cleanup);
  } catch {
    afterAll(cleanup); // called while a describe block is collected
  }
  writeFiles(dir, files);
  return dir;
}

export function writeFiles(dir: string, files: Record<string, string>): void {
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), content);
  }
}

/** A framework checkout: this repo's roles/ and adapters/ (or given ones) in a temp git repo. */
export function checkout(files: Record<string, string> = {}, { shipped = true } = {}): string {
  const dir = testdir();
  mkdirSync(join(dir, '.git'));
  if (shipped) {
    for (const sub of ['roles', 'adapters']) copyTree(join(REPO, sub), join(dir, sub));
  } else {
    mkdirSync(join(dir, 'roles'));
    mkdirSync(join(dir, 'adapters'));
  }
  writeFiles(dir, files);
  return dir;
}

/** The smallest valid role spec (role 'r': read only) and a one-adapter manifest rendering it to out/. */
export const FIXTURE_ROLE = '---\ndispatch: Test role.\ncapabilities: [read]\ncapability_profile: deep\n---\nBody.\n';
export const FIXTURE_MANIFEST = {
  adapter: 'test',
  output_dir: 'out',
  filename: '{role}.md',
  tools_style: 'csv',
  roles: ['r'],
  tool_map: { read: ['Read'] },
  model_map: { deep: 'm' },
};

/** A framework checkout holding only the fixture role and manifest, plus `files`. */
export function fixtureCheckout(files: Record<string, string> = {}): string {
  return checkout(
    { 'roles/r.md': FIXTURE_ROLE, 'adapters/test/manifest.json': JSON.stringify(FIXTURE_MANIFEST, null, 2), ...files },
    { shipped: false },
  );
}

/** A host repository: the core vendored under .gateline/core, a lock, and the given overlays/files. */
export function host(
  files: Record<string, string> = {},
  { adapters = ['claude-code', 'codex', 'copilot', 'gemini-cli', 'opencode'], prefix = '.gateline' } = {},
): string {
  const dir = testdir();
  mkdirSync(join(dir, '.git'));
  const core = join(dir, prefix, 'core');
  vendorCore(REPO, core);
  writeFiles(dir, files);
  const lock = buildLock(hashTree(core), {
    version: '0.1.0',
    source: { type: 'embedded', package: 'create-gateline@0.1.0' },
    core: 'core',
    adapters,
  });
  writeFileSync(join(dir, prefix, 'framework-lock.json'), stringifyLock(lock));
  return dir;
}

export function copyTree(from: string, to: string): void {
  mkdirSync(to, { recursive: true });
  for (const entry of readdirSync(from, { withFileTypes: true })) {
    if (entry.isDirectory()) copyTree(join(from, entry.name), join(to, entry.name));
    else writeFileSync(join(to, entry.name), readFileSync(join(from, entry.name)));
  }
}

export interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs the core as a user does: `node src/main.ts ...` in a child process, with Node 24. */
export function gateline(args: string[], cwd: string, env: Record<string, string> = {}): Run {
  const result = spawnSync(process.execPath, [MAIN, ...args], { cwd, encoding: 'utf8', env: { ...process.env, NO_COLOR: '1', ...env } });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

/**
 * Every file, folder and link under `dir` (files with bytes and mtime, links with their target):
 * equal snapshots mean nothing was touched, not even an empty folder left behind.
 */
export function snapshot(dir: string, skip: string[] = []): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (rel: string) => {
    for (const entry of readdirSync(join(dir, rel), { withFileTypes: true })) {
      const path = rel ? `${rel}/${entry.name}` : entry.name;
      if (skip.includes(path)) out[path] = 'skipped';
      else if (entry.isSymbolicLink()) out[path] = `link ${readlinkSync(join(dir, path))}`;
      else if (entry.isDirectory()) {
        out[path] = 'dir';
        walk(path);
      } else out[path] = `${lstatSync(join(dir, path)).mtimeMs} ${readFileSync(join(dir, path), 'base64')}`;
    }
  };
  walk('');
  return out;
}

export function read(dir: string, path: string): string {
  return readFileSync(join(dir, path), 'utf8');
}

/** A temp folder that is a fresh git repository (with an identity, so commits work). */
export function gitRepo(files: Record<string, string> = {}): string {
  const dir = testdir(files);
  git(dir, 'init', '-q', '-b', 'main');
  git(dir, 'config', 'user.email', 'test@example.invalid');
  git(dir, 'config', 'user.name', 'gateline test');
  git(dir, 'config', 'commit.gpgsign', 'false');
  return dir;
}

export function git(cwd: string, ...args: string[]): string {
  const run = spawnSync('git', args, { cwd, encoding: 'utf8' });
  if (run.status !== 0) throw new Error(`git ${args.join(' ')} failed: ${run.stderr}`);
  return run.stdout.trim();
}

/** An environment whose PATH has Node 24, git and the basic tools, but no runner CLI a developer may have installed. */
export const CLEAN_ENV = { ...process.env, PATH: `${dirname(process.execPath)}:/usr/bin:/bin` };

/** The installer's CLI in-process, without a TTY: what `npm create gateline -- ...` does in CI. */
export async function install(dir: string, args: string[] = [], extra: Partial<CliIo> = {}): Promise<Run> {
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
    interactive: false,
    env: CLEAN_ENV,
    ...extra,
  });
  return { code, stdout, stderr };
}

/** A copy of this package as another version would ship it (optionally edited), to install from. */
export function packageAt(version: string, edit?: (root: string) => void): string {
  const root = testdir();
  for (const entry of ['src', 'roles', 'adapters', 'registry', 'templates'])
    cpSync(join(REPO, entry), join(root, entry), { recursive: true });
  const pkg = JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8'));
  writeFileSync(join(root, 'package.json'), JSON.stringify({ ...pkg, version }));
  edit?.(root);
  return root;
}
