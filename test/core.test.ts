import { readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { gateline, REPO } from './helpers.ts';

// The core runs from source with nothing installed, on Node 24. These tests keep it that way.

/** Every module the core entry points reach, following relative imports. */
function coreModules(): string[] {
  const seen = new Set<string>();
  const visit = (file: string) => {
    if (seen.has(file)) return;
    seen.add(file);
    for (const spec of importsOf(file)) if (spec.startsWith('.')) visit(join(dirname(file), spec));
  };
  visit(join(REPO, 'src/main.ts'));
  visit(join(REPO, 'src/gateline.mjs')); // and its fast start, src/start/*.mjs
  visit(join(REPO, 'src/cli.ts'));
  visit(join(REPO, 'src/validate/validate.ts'));
  visit(join(REPO, 'src/render/render.ts'));
  return [...seen];
}

function importsOf(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  const specs = [
    ...text.matchAll(/^\s*(?:import|export)\b[^'"]*?\bfrom\s*['"]([^'"]+)['"]/gm),
    ...text.matchAll(/\bimport\(\s*['"]([^'"]+)['"]\s*\)/g),
  ];
  const bare = [...text.matchAll(/^\s*import\s+['"]([^'"]+)['"]/gm)];
  return [...specs, ...bare].map((m) => m[1] as string);
}

describe('the core', () => {
  const modules = coreModules();

  it('reaches the modules it should (the scan works)', () => {
    const names = modules.map((m) => relative(REPO, m));
    expect(names).toContain('src/render/plan.ts');
    expect(names).toContain('src/cli.ts');
    expect(names).toContain('src/shared/integrity.ts');
    expect(names.length).toBeGreaterThan(10);
  });

  it('imports only node: builtins and its own .ts modules', () => {
    for (const file of modules) {
      for (const spec of importsOf(file)) {
        const where = `${relative(REPO, file)} imports '${spec}'`;
        if (spec.startsWith('.')) expect(spec, where).toMatch(/\.(ts|mjs)$/);
        else expect(spec, where).toMatch(/^node:/);
      }
    }
  });

  it('stays inside src/render, src/validate, src/shared, src/start and src/main.ts, src/cli.ts, src/gateline.mjs', () => {
    const names = modules.map((m) => relative(REPO, m));
    expect(names).toEqual(expect.arrayContaining(['src/gateline.mjs', 'src/start/cache.mjs', 'src/start/link.mjs']));
    for (const name of names) expect(name).toMatch(/^src\/(render\/|validate\/|shared\/|start\/|(main|cli)\.ts$|gateline\.mjs$)/);
  });

  it('runs as `node src/main.ts` in this repository (its own agents are fresh)', () => {
    const run = gateline(['render', '--check'], REPO);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/15 files up to date/);
  });

  it('--version prints the package version', () => {
    const pkg = JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8')) as { version: string };
    expect(gateline(['--version'], REPO).stdout.trim()).toBe(pkg.version);
  });
});

describe('the test run', () => {
  it('is on Node 24 or later (the pinned devDependency, not the machine Node)', () => {
    expect(Number(process.versions.node.split('.')[0])).toBeGreaterThanOrEqual(24);
  });
});
