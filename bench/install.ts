// Benchmark of the installer: the packed create-gateline installed once (npm's
// download is not timed), then run with --yes into fresh repositories; and validate as the
// installed git hook runs it. Prints medians beside `node -e ''` (wall time, then CPU and peak
// memory of the hook); asserts nothing.
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Measured, measureTogether, type Stat } from './measure.ts';

const REPO = join(import.meta.dirname, '..');
const RUNS = Number(process.env.RUNS ?? 9);
const work = mkdtempSync(join(tmpdir(), 'gateline-bench-install-'));
const env = {
  ...process.env,
  PATH: `${join(process.execPath, '..')}:${process.env.PATH}`,
  npm_config_yes: 'true',
  npm_config_offline: 'true',
};

function must(command: string, args: string[], cwd: string): string {
  const run = spawnSync(command, args, { cwd, env, encoding: 'utf8' });
  if (run.status !== 0) throw new Error(`${command} ${args.join(' ')} failed:\n${run.stdout}\n${run.stderr}`);
  return run.stdout;
}

function time(command: string, args: string[], cwd: string): number {
  const start = process.hrtime.bigint();
  must(command, args, cwd);
  return Number(process.hrtime.bigint() - start) / 1e6;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] as number;
}

const pack = JSON.parse(must('npm', ['pack', '--json', '--pack-destination', work], REPO)) as { filename: string }[];
const prefix = join(work, 'installed');
mkdirSync(prefix);
writeFileSync(join(prefix, 'package.json'), '{"private":true}\n');
must('npm', ['install', '--no-audit', '--no-fund', join(work, pack[0]?.filename ?? '')], prefix);
const bin = join(prefix, 'node_modules/create-gateline/dist/bin/create-gateline.js');

const bare: number[] = [];
const installs: number[] = [];
const hooks: number[] = [];
for (let i = 0; i <= RUNS; i++) {
  const repo = join(work, `repo-${i}`);
  mkdirSync(repo);
  must('git', ['init', '-q'], repo);
  const b = time(process.execPath, ['-e', ''], repo);
  const t = time(process.execPath, [bin, '--yes'], repo);
  // The hook judges what is staged: stage the adoption, as the commit that follows it does.
  must('git', ['add', '-A'], repo);
  time('sh', ['.git/hooks/pre-commit'], repo); // the first hook run fills the compile cache
  const h = time('sh', ['.git/hooks/pre-commit'], repo);
  if (i === 0) continue; // warm-up
  bare.push(b);
  installs.push(t);
  hooks.push(h);
}

// The hook once more as the kernel accounts for it (CPU and peak memory of the child), in the
// last repository, beside node -e ''.
const last = join(work, `repo-${RUNS}`);
const [hook, node] = measureTogether(
  [
    { argv: ['/bin/sh', '.git/hooks/pre-commit'], cwd: last, env },
    { argv: [process.execPath, '-e', ''], cwd: last, env },
  ],
  RUNS,
) as [Measured, Measured];
const fmt = (s: Stat, unit: string) => `${s.median.toFixed(1)} [${s.min.toFixed(1)}-${s.max.toFixed(1)}] ${unit}`;

const base = median(bare);
console.log(`create-gateline benchmark: Node ${process.version}, median of ${RUNS} runs (ms)\n`);
console.log(`${"node -e ''".padEnd(52)} ${base.toFixed(1).padStart(8)}`);
console.log(`${'create-gateline --yes into a fresh repository'.padEnd(52)} ${median(installs).toFixed(1).padStart(8)}  target < 1000 ms`);
console.log(
  `${'validate as the git hook runs it'.padEnd(52)} ${median(hooks).toFixed(1).padStart(8)}  ${(median(hooks) / base).toFixed(2)}x node -e '' (target <= 3x)`,
);
console.log(`\nCPU (user + sys) and peak memory, median [min-max]:`);
console.log(`${"node -e ''".padEnd(52)} cpu ${fmt(node.cpu, 'ms')}  rss ${fmt(node.rss, 'MiB')}`);
console.log(
  `${'the git hook (node .gateline/core/src/gateline.mjs validate)'.padEnd(52)} cpu ${fmt(hook.cpu, 'ms')}  rss ${fmt(hook.rss, 'MiB')}`,
);
console.log(`hook CPU vs node -e '': ${(hook.cpu.median / node.cpu.median).toFixed(2)}x (target <= 3x)`);
rmSync(work, { recursive: true, force: true });
