// Benchmark of the core against its floor and (with --peers) its peers. Prints, for each row,
// CPU (user + sys of the child), wall time and peak memory as median [min-max], and each target
// of docs/speed.md as a ratio measured in this run. Asserts the floor's output byte-identical to
// gateline's; asserts nothing about time, because machines are noisy.
//   node bench/render.ts [--peers] [--max N] [--dir DIR]   RUNS=15 by default (fewer at large N)
// --dir puts the generated checkouts in DIR instead of the OS temp folder: the cold render is
// mostly the kernel creating files, which costs 10x more on some disks than on others (docs/speed.md).
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statfsSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { assertFloorMatches, ENTRY, generated as generatedIn, REPO, shapes } from './checkout.ts';
import { type Measured, measureTogether, type Stat } from './measure.ts';

const { values: args } = parseArgs({ options: { peers: { type: 'boolean' }, max: { type: 'string' }, dir: { type: 'string' } } });
const RUNS = Number(process.env.RUNS ?? 15);
const MAX = Number(args.max ?? 10000);
const SIZES = [10, 100, 1000, 10000].filter((n) => n <= MAX);
const runsAt = (n: number) => (n >= 10000 ? Math.min(RUNS, 5) : n >= 1000 ? Math.min(RUNS, 9) : RUNS);
const node = process.execPath;
const entry = ENTRY;
const work = mkdtempSync(join(args.dir ?? tmpdir(), 'gateline-bench-'));

const fmt = (s: Stat, unit: string, digits = 1) =>
  `${s.median.toFixed(digits)} [${s.min.toFixed(digits)}-${s.max.toFixed(digits)}] ${unit}`;
function row(name: string, m: Measured): void {
  console.log(`${name.padEnd(52)} cpu ${fmt(m.cpu, 'ms').padEnd(28)} wall ${fmt(m.wall, 'ms').padEnd(28)} rss ${fmt(m.rss, 'MiB')}`);
}
/** a / b: the ratio of the medians, and the widest it could be from the runs' min and max. */
function ratio(a: Stat, b: Stat): string {
  return `${(a.median / b.median).toFixed(2)}x [${(a.min / b.max).toFixed(2)}-${(a.max / b.min).toFixed(2)}]`;
}
/** a - b, its median and the widest range the runs allow. */
const minus = (a: Stat, b: Stat): Stat => ({ median: a.median - b.median, min: a.min - b.max, max: a.max - b.min });
const targets: string[] = [];
function target(name: string, value: string, goal: string): void {
  targets.push(`${name.padEnd(66)} ${value.padEnd(22)} target ${goal}`);
}

const generated = (n: number) => generatedIn(work, n);

/** The file system a folder is on, by statfs magic, for the record of where the disk rows were taken. */
function filesystem(dir: string): string {
  const magic = statfsSync(dir).type;
  const names: Record<number, string> = {
    61267: 'ext2/3/4',
    16914836: 'tmpfs',
    1481003842: 'xfs',
    2435016766: 'btrfs',
    2035054128: 'overlayfs',
  };
  return names[magic] ?? `file system 0x${magic.toString(16)}`;
}

const outputs = (dir: string) => ['.claude', '.gemini', '.opencode'].map((d) => join(dir, d));

console.log(`gateline core benchmark: Node ${process.version}; CPU, wall and peak RSS as median [min-max]`);
console.log(`checkouts in ${work} (${filesystem(work)})\n`);

// 1. What CI and users run, warm: the fast start's cache is filled by the warm-up round.
const emptyTs = join(work, 'empty.ts');
writeFileSync(emptyTs, '');
const [bare, ci, viaMain, hook, bareTs] = measureTogether(
  [
    [node, '-e', ''],
    [node, entry, 'render', '--check'],
    [node, join(REPO, 'src/main.ts'), 'render', '--check'],
    [node, entry, 'validate'],
    [node, emptyTs],
  ].map((argv) => ({ argv, cwd: REPO })),
  RUNS,
) as [Measured, Measured, Measured, Measured, Measured];
row("node -e ''", bare);
row('node src/gateline.mjs render --check (CI, warm)', ci);
row('node src/main.ts render --check (warm)', viaMain);
row('node src/gateline.mjs validate (the hook, warm)', hook);
row('node empty.ts', bareTs);
target("CI's command, warm, CPU vs node -e ''", ratio(ci.cpu, bare.cpu), '<= 2x');
target("  (src/main.ts instead, CPU vs node -e '')", ratio(viaMain.cpu, bare.cpu), '(for comparison)');
target('node src/main.ts render --check, CPU vs node empty.ts', ratio(viaMain.cpu, bareTs.cpu), '<= 1.5x (the contract)');
target("validate (what the hook runs), warm, CPU vs node -e ''", ratio(hook.cpu, bare.cpu), '<= 3x (the contract)');

// 2. N roles x 3 adapters: gateline against the floor; cold render against the check.
const checks = new Map<number, Measured>();
const floors = new Map<number, Measured>();
const colds = new Map<number, Measured>();
for (const n of SIZES) {
  const dir = generated(n);
  const runs = runsAt(n);
  const floorFile = shapes(dir);
  assertFloorMatches(dir, floorFile, n);
  const [floor, check] = measureTogether(
    [
      { argv: [node, join(REPO, 'bench/floor.mjs'), dir, floorFile], cwd: dir },
      { argv: [node, entry, 'render', '--check'], cwd: dir },
    ],
    runs,
  ) as [Measured, Measured];
  row(`floor check, ${n} x 3`, floor);
  row(`gateline render --check, ${n} x 3`, check);
  checks.set(n, check);
  floors.set(n, floor);
  target(`render --check ${n} x 3, CPU vs the floor`, ratio(check.cpu, floor.cpu), n === 1000 ? '<= 1.5x' : '(1.5x at 1000)');
  const [check10, floor10] = [checks.get(10), floors.get(10)];
  if (n >= 1000 && check10 && floor10)
    target(
      `  (per file: the CPU ${n} x 3 adds over 10 x 3, vs the floor's)`,
      ratio(minus(check.cpu, check10.cpu), minus(floor.cpu, floor10.cpu)),
      '(for comparison)',
    );
  if (n >= 1000) {
    // The floor writes last in each round: its bytes are checked below.
    const [cold, floorWrite] = measureTogether(
      [
        { argv: [node, entry, 'render'], cwd: dir, reset: outputs(dir) },
        { argv: [node, join(REPO, 'bench/floor.mjs'), dir, floorFile, '--write'], cwd: dir, reset: outputs(dir) },
      ],
      Math.min(runs, 3),
    ) as [Measured, Measured];
    row(`gateline render (cold, outputs removed), ${n} x 3`, cold);
    row(`floor write (cold, outputs removed), ${n} x 3`, floorWrite);
    colds.set(n, cold);
    // The floor wrote the files last: gateline must find every one of them up to date.
    if (spawnSync(node, [entry, 'render', '--check'], { cwd: dir }).status !== 0)
      throw new Error(`the floor's write does not build gateline's bytes at N=${n}`);
    target(
      `cold render ${n} x 3, CPU vs render --check at the same N`,
      ratio(cold.cpu, check.cpu),
      n === 10000 ? '<= 3x' : '(3x at 10000)',
    );
    target(`  (cold render ${n} x 3, CPU vs the floor's write)`, ratio(cold.cpu, floorWrite.cpu), '(for comparison)');
    target(`  (the floor's write ${n} x 3, CPU vs the floor's check)`, ratio(floorWrite.cpu, floor.cpu), '(the disk: for comparison)');
  }
  if (n === 10000) {
    target('peak memory of render --check, 10000 x 3 (MiB)', fmt(check.rss, ''), '<= 150');
    target('  (peak memory of the floor, 10000 x 3, MiB)', fmt(floor.rss, ''), '(for comparison)');
    target('  (peak memory of cold render, 10000 x 3, MiB)', fmt(colds.get(n)?.rss as Stat, ''), '(for comparison)');
  }
  rmSync(dir, { recursive: true, force: true });
}
const [c1, c2] = [checks.get(1000), checks.get(10000)];
if (c1 && c2) target('render --check growth, 10000 vs 1000 (CPU)', ratio(c2.cpu, c1.cpu), '(10x N)');
const [r1, r2] = [colds.get(1000), colds.get(10000)];
if (r1 && r2) target('cold render growth, 10000 vs 1000 (CPU)', ratio(r2.cpu, r1.cpu), '(10x N)');

// 3. --peers: the same roles as subagents of rulesync and ruler, 3 outputs each, same run.
if (args.peers) peers();

console.log(`\nTargets (ratio of medians [widest from min and max]):\n${targets.join('\n')}`);
rmSync(work, { recursive: true, force: true });

function peers(): void {
  const cache = join(process.env.XDG_CACHE_HOME ?? join(homedir(), '.cache'), 'gateline-bench');
  const PEERS = { rulesync: '17.0.0', '@intellectronica/ruler': '0.3.44' };
  const installed = (name: string) => {
    const pkg = join(cache, 'node_modules', name, 'package.json');
    return existsSync(pkg) && JSON.parse(readFileSync(pkg, 'utf8')).version === PEERS[name as keyof typeof PEERS];
  };
  if (!Object.keys(PEERS).every(installed)) {
    mkdirSync(cache, { recursive: true });
    if (!existsSync(join(cache, 'package.json'))) writeFileSync(join(cache, 'package.json'), '{"private":true}\n');
    const specs = Object.entries(PEERS).map(([name, version]) => `${name}@${version}`);
    console.log(`\ninstalling ${specs.join(', ')} into ${cache}`);
    const npm = spawnSync('npm', ['install', '--no-audit', '--no-fund', '--save-exact', ...specs], {
      cwd: cache,
      encoding: 'utf8',
      env: { ...process.env, PATH: `${join(node, '..')}:${process.env.PATH}` },
    });
    if (npm.status !== 0) throw new Error(`npm install of the peers failed:\n${npm.stderr}`);
  }
  const rulesync = join(cache, 'node_modules/rulesync/dist/cli/index.js');
  const ruler = join(cache, 'node_modules/@intellectronica/ruler/dist/cli/index.js');
  console.log('\npeers: rulesync 17.0.0 `generate --check` (claudecode, copilot, opencode: it has no Gemini CLI target),');
  console.log('ruler 0.3.44 `apply --dry-run --subagents` (claude, copilot, codex: its agents with subagents)\n');
  const spec = readFileSync(join(REPO, 'roles/implementer.md'), 'utf8');
  const body = spec.slice(spec.indexOf('\n---\n', 3) + 5);
  const dispatch = /^dispatch: (.*)$/m.exec(spec)?.[1] ?? '';
  for (const n of [10, 100, 1000]) {
    const runs = Math.min(RUNS, n >= 1000 ? 5 : 7);
    const dir = generated(n);
    const rs = join(work, `rulesync-${n}`);
    mkdirSync(join(rs, '.rulesync/subagents'), { recursive: true });
    mkdirSync(join(rs, '.git'));
    writeFileSync(
      join(rs, 'rulesync.jsonc'),
      JSON.stringify({
        targets: ['claudecode', 'copilot', 'opencode'],
        features: ['subagents'],
        outputRoots: ['.'],
        delete: false,
        silent: true,
      }),
    );
    for (let i = 0; i < n; i++)
      writeFileSync(
        join(rs, `.rulesync/subagents/role-${i}.md`),
        `---\nname: role-${i}\ntargets: ["*"]\ndescription: ${dispatch}\n---\n${body}`,
      );
    const gen = spawnSync(node, [rulesync, 'generate'], { cwd: rs, encoding: 'utf8' });
    if (gen.status !== 0) throw new Error(`rulesync generate failed:\n${gen.stdout}${gen.stderr}`);

    const ru = join(work, `ruler-${n}`);
    mkdirSync(join(ru, '.ruler/agents'), { recursive: true });
    mkdirSync(join(ru, '.git'));
    writeFileSync(join(ru, '.ruler/AGENTS.md'), '# Project rules\n');
    for (let i = 0; i < n; i++)
      writeFileSync(join(ru, `.ruler/agents/role-${i}.md`), `---\nname: role-${i}\ndescription: ${dispatch}\n---\n${body}`);
    const flags = ['--agents', 'claude,copilot,codex', '--subagents', '--no-mcp', '--no-gitignore', '--no-backup', '--local-only'];
    const [check, rsCheck, ruDry] = measureTogether(
      [
        { argv: [node, entry, 'render', '--check'], cwd: dir },
        { argv: [node, rulesync, 'generate', '--check'], cwd: rs },
        { argv: [node, ruler, 'apply', '--dry-run', ...flags], cwd: ru },
      ],
      runs,
    ) as [Measured, Measured, Measured];
    row(`gateline render --check, ${n} x 3`, check);
    row(`rulesync generate --check, ${n} x 3`, rsCheck);
    row(`ruler apply --dry-run, ${n} x 3`, ruDry);

    target(
      `rulesync generate --check ${n} x 3, CPU vs gateline's check`,
      ratio(rsCheck.cpu, check.cpu),
      n === 1000 ? '>= 12x' : '(12x at 1000)',
    );
    target(`ruler apply --dry-run ${n} x 3, CPU vs gateline's check`, ratio(ruDry.cpu, check.cpu), n === 1000 ? '>= 2x' : '(2x at 1000)');
    for (const d of [dir, rs, ru]) rmSync(d, { recursive: true, force: true });
  }
}
