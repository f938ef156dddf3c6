// The hook managers the commit tests drive for real: husky (a devDependency), lefthook (from npm,
// into a cache folder outside the repository, with its install script off: that script would run
// `lefthook install` on this repository) and the pre-commit framework (a system package: .ci/run
// installs it with apt). `node test/hook-tools.ts` installs lefthook once.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const LEFTHOOK_VERSION = '2.2.1';
// Not under XDG_CACHE_HOME: the unit suite points that at a temp folder (vitest.config.ts).
const CACHE = process.env.GATELINE_TOOLS_CACHE ?? join(homedir(), '.cache', 'gateline-tools');
const LEFTHOOK_PREFIX = join(CACHE, `lefthook@${LEFTHOOK_VERSION}`);
export const LEFTHOOK = join(LEFTHOOK_PREFIX, 'node_modules', '.bin', 'lefthook');
export const HUSKY_PACKAGE = dirname(fileURLToPath(import.meta.resolve('husky')));

export function installLefthook(): void {
  if (existsSync(LEFTHOOK)) return;
  mkdirSync(LEFTHOOK_PREFIX, { recursive: true });
  const run = spawnSync(
    'npm',
    ['install', '--prefix', LEFTHOOK_PREFIX, '--ignore-scripts', '--no-save', '--no-audit', '--no-fund', `lefthook@${LEFTHOOK_VERSION}`],
    { stdio: ['ignore', 'inherit', 'inherit'], env: { ...process.env, PATH: `${dirname(process.execPath)}:${process.env.PATH}` } },
  );
  if (run.status !== 0 || !existsSync(LEFTHOOK)) throw new Error(`installing lefthook@${LEFTHOOK_VERSION} failed`);
}

/** The pre-commit framework's command on PATH, if installed. */
export function preCommitBin(): string | undefined {
  const found = spawnSync('sh', ['-c', 'command -v pre-commit'], { encoding: 'utf8' });
  return found.status === 0 ? found.stdout.trim() : undefined;
}

/**
 * Why a tool is missing, for ctx.skip; under CI (which .ci/run sets, after installing both) a
 * missing tool throws instead, so the suite fails rather than skipping the test.
 */
export function missing(tool: string, how: string): string {
  const reason = `${tool} is not installed (${how})`;
  if (process.env.CI) throw new Error(`${reason}: CI must run these tests`);
  return reason;
}

if (import.meta.main) installLefthook();
