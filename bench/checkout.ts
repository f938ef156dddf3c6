// The checkouts the benchmarks measure: n roles (the implementer's spec) rendered by the three
// Markdown adapters, and what the floor (floor.mjs) glues on per adapter.
import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export const REPO = join(import.meta.dirname, '..');
export const ENTRY = join(REPO, 'src/gateline.mjs');
export const ADAPTERS = ['claude-code', 'gemini-cli', 'opencode'];

/** A framework checkout with n roles in `work`/n<n>, rendered by the three adapters. */
export function generated(work: string, n: number): string {
  const dir = join(work, `n${n}`);
  mkdirSync(join(dir, 'roles'), { recursive: true });
  mkdirSync(join(dir, '.git'));
  const spec = readFileSync(join(REPO, 'roles/implementer.md'), 'utf8');
  const roles = Array.from({ length: n }, (_, i) => `role-${i}`);
  for (const role of roles) writeFileSync(join(dir, 'roles', `${role}.md`), spec);
  for (const adapter of ADAPTERS) {
    cpSync(join(REPO, 'adapters', adapter), join(dir, 'adapters', adapter), { recursive: true });
    const path = join(dir, 'adapters', adapter, 'manifest.json');
    writeFileSync(path, JSON.stringify({ ...JSON.parse(readFileSync(path, 'utf8')), roles }, null, 2));
  }
  const render = spawnSync(process.execPath, [ENTRY, 'render'], { cwd: dir, encoding: 'utf8' });
  if (render.status !== 0) throw new Error(`gateline render failed at N=${n}:\n${render.stderr}`);
  return dir;
}

/** What the floor glues on per adapter, cut from gateline's own output for role-0; its file. */
export function shapes(dir: string): string {
  const out = ADAPTERS.map((adapter) => {
    const manifest = JSON.parse(readFileSync(join(dir, 'adapters', adapter, 'manifest.json'), 'utf8'));
    const text = readFileSync(join(dir, manifest.output_dir, manifest.filename.replaceAll('{role}', 'role-0')), 'utf8');
    const start = text.indexOf('\n', text.indexOf('\ndescription: ') + 1) + 1;
    const close = text.indexOf('---\n<!-- ', start);
    const header = text.slice(close + 4, text.indexOf('\n', close + 4)).replaceAll('role-0', '{role}');
    return { dir: manifest.output_dir, filename: manifest.filename, middle: text.slice(start, close), header };
  });
  const file = join(dir, '..', `shapes-${dir.split('/').at(-1)}.json`);
  writeFileSync(file, JSON.stringify(out));
  return file;
}

/** The floor's check of `dir`, required to find every one of gateline's 3 x n files up to date. */
export function assertFloorMatches(dir: string, floorFile: string, n: number): void {
  const run = spawnSync(process.execPath, [join(REPO, 'bench/floor.mjs'), dir, floorFile], { encoding: 'utf8' });
  if (run.stdout !== `${3 * n} files up to date, 0 differ\n`)
    throw new Error(`the floor does not build gateline's bytes at N=${n}: ${run.stdout}${run.stderr}`);
}
