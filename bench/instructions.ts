// `render --check` against the floor in instructions: what valgrind's cachegrind counts in user
// space, every thread included. CPU time on a shared VM moves 15% from run to run, so a change of
// 2% is invisible in it; the instruction count of the same run moves about 1-2% (V8 seeds its
// hashes at random). It leaves out the kernel (reading files, page faults), so it is a guide for
// finding and weighing hot spots, not a target: the targets are CPU (render.ts).
//   node bench/instructions.ts [--n 1000] [--runs 3]   needs valgrind (apt-get install valgrind)
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { assertFloorMatches, ENTRY, generated, REPO, shapes } from './checkout.ts';

const { values: args } = parseArgs({ options: { n: { type: 'string' }, runs: { type: 'string' } } });
const n = Number(args.n ?? 1000);
const runs = Number(args.runs ?? 3);
/** Instructions of one run of `argv` in `cwd`, in millions. */
function instructions(argv: string[], cwd: string): number {
  const run = spawnSync('valgrind', ['--tool=cachegrind', '--cache-sim=no', '--cachegrind-out-file=/dev/null', ...argv], {
    cwd,
    encoding: 'utf8',
  });
  const refs = /I\s+refs:\s+([\d,]+)/.exec(run.stderr)?.[1];
  if (run.status !== 0 || !refs) throw new Error(`${argv.join(' ')} failed under valgrind:\n${run.stderr.slice(-2000)}`);
  return Number(refs.replaceAll(',', '')) / 1e6;
}
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;

if (spawnSync('valgrind', ['--version']).status !== 0) {
  console.error('bench/instructions.ts needs valgrind on PATH (Debian: apt-get install valgrind)');
  process.exitCode = 1;
} else {
  const work = mkdtempSync(join(tmpdir(), 'gateline-bench-'));
  try {
    const dir = generated(work, n);
    const floorFile = shapes(dir);
    assertFloorMatches(dir, floorFile, n);
    // A first run fills the fast start's cache, as a warm CI run finds it.
    spawnSync(process.execPath, [ENTRY, 'render', '--check'], { cwd: dir });
    const gateline: number[] = [];
    const floor: number[] = [];
    for (let i = 0; i < runs; i++) {
      gateline.push(instructions([process.execPath, ENTRY, 'render', '--check'], dir));
      floor.push(instructions([process.execPath, join(REPO, 'bench/floor.mjs'), dir, floorFile], dir));
    }
    const show = (xs: number[]) => `${median(xs).toFixed(1)}M [${Math.min(...xs).toFixed(1)}-${Math.max(...xs).toFixed(1)}]`;
    console.log(`Node ${process.version}, ${n} roles x 3 adapters, ${runs} runs each, instructions (user space, all threads):`);
    console.log(`  gateline render --check  ${show(gateline)}`);
    console.log(`  the floor's check        ${show(floor)}`);
    console.log(`  ratio of the medians     ${(median(gateline) / median(floor)).toFixed(2)}x`);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}
