// Benchmarks for the core. Prints medians and ratios; asserts nothing, because
// these machines are noisy. Run with `npm run bench` (Node 24).
import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const REPO = join(import.meta.dirname, '..');
const RUNS = Number(process.env.RUNS ?? 15);
const work = mkdtempSync(join(tmpdir(), 'gateline-bench-'));
const node = process.execPath;

function median(command: string[], { cwd = REPO, env = {}, runs = RUNS } = {}): number {
  const times: number[] = [];
  for (let i = 0; i < runs + 1; i++) {
    const start = process.hrtime.bigint();
    const run = spawnSync(node, command, { cwd, env: { ...process.env, ...env }, stdio: 'ignore' });
    const ms = Number(process.hrtime.bigint() - start) / 1e6;
    if (run.status !== 0) throw new Error(`${command.join(' ')} exited ${run.status} in ${cwd}`);
    if (i > 0) times.push(ms); // the first run warms the disk cache
  }
  times.sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)] as number;
}

/** A framework checkout with n roles, rendered by the three shipped adapters. */
function generated(n: number): string {
  const dir = join(work, `n${n}`);
  mkdirSync(join(dir, 'roles'), { recursive: true });
  mkdirSync(join(dir, '.git'));
  // The three Markdown adapters of the speed target in docs/contract.md (N roles x 3 adapters).
  for (const adapter of ['claude-code', 'gemini-cli', 'opencode']) {
    cpSync(join(REPO, 'adapters', adapter), join(dir, 'adapters', adapter), { recursive: true });
  }
  const body = readFileSync(join(REPO, 'roles/reviewer.md'), 'utf8');
  const roles = Array.from({ length: n }, (_, i) => `role-${i}`);
  for (const role of roles) writeFileSync(join(dir, 'roles', `${role}.md`), body);
  for (const adapter of ['claude-code', 'gemini-cli', 'opencode']) {
    const path = join(dir, 'adapters', adapter, 'manifest.json');
    writeFileSync(path, JSON.stringify({ ...JSON.parse(readFileSync(path, 'utf8')), roles }, null, 2));
  }
  spawnSync(node, [join(REPO, 'src/main.ts'), 'render'], { cwd: dir, stdio: 'ignore' });
  return dir;
}

const main = join(REPO, 'src/main.ts');
writeFileSync(join(work, 'empty.ts'), 'export {};\n');
const cache = join(work, 'compile-cache');
const rows: [string, number, string][] = [];
const bare = median(['-e', '']);
const emptyTs = median([join(work, 'empty.ts')]);
rows.push(["node -e ''", bare, 'baseline']);
rows.push(['node empty.ts', emptyTs, `${(emptyTs / bare).toFixed(2)}x node -e ''`]);

// src/main.ts enables Node's compile cache itself, so a plain run is warm after the first one;
// the cold row turns the cache off to show what the type stripping costs.
const cold = median([main, 'render', '--check'], { env: { NODE_DISABLE_COMPILE_CACHE: '1' } });
rows.push(['render --check, shipped (plain, cache off)', cold, `${(cold / emptyTs).toFixed(2)}x empty.ts`]);
const check = median([main, 'render', '--check']);
rows.push(['render --check, shipped (plain node src/main.ts)', check, `${(check / emptyTs).toFixed(2)}x empty.ts (target <= 1.5x)`]);
median([main, 'render', '--check'], { env: { NODE_COMPILE_CACHE: cache }, runs: 1 });
const cached = median([main, 'render', '--check'], { env: { NODE_COMPILE_CACHE: cache } });
rows.push(['render --check, shipped (NODE_COMPILE_CACHE set)', cached, `${(cached / bare).toFixed(2)}x node -e '' (target <= 2x)`]);
const validate = median([main, 'validate'], { env: { NODE_COMPILE_CACHE: cache } });
rows.push(['validate, shipped (as the hook runs it)', validate, `${(validate / bare).toFixed(2)}x node -e '' (target <= 3x)`]);

for (const n of [10, 100, 1000]) {
  const dir = generated(n);
  const runs = n === 1000 ? 7 : RUNS;
  const c = median([main, 'render', '--check'], { cwd: dir, runs });
  rows.push([`render --check, ${n} roles x 3 adapters (plain)`, c, n === 1000 ? 'target < 150 ms' : '']);
  const cc = median([main, 'render', '--check'], { cwd: dir, runs, env: { NODE_COMPILE_CACHE: cache } });
  rows.push([`render --check, ${n} roles x 3 adapters (NODE_COMPILE_CACHE)`, cc, n === 1000 ? 'target < 150 ms' : '']);
  const v = median([main, 'validate'], { cwd: dir, runs, env: { NODE_COMPILE_CACHE: cache } });
  rows.push([`validate, ${n} roles x 3 adapters (NODE_COMPILE_CACHE)`, v, '']);
}

console.log(`gateline core benchmark: Node ${process.version}, median of ${RUNS} runs (ms)\n`);
for (const [name, ms, note] of rows) console.log(`${name.padEnd(58)} ${ms.toFixed(1).padStart(8)}  ${note}`);
rmSync(work, { recursive: true, force: true });
