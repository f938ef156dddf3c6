import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO } from './helpers.ts';

// The layers of src/, as the folder tree shows them:
//   core (render, validate, shared, start, cli.ts, main.ts, gateline.mjs)  what a host vendors;
//        imports only itself, and its shared/ imports only shared/
//   host    what the installer, probe and doctor know about a host repository
//   probe   inspects a host (probe, doctor); uses host
//   init    the installer; uses host and probe
//   up      runs roles headless; uses the core
//   bin     the entry points; may use anything
// These tests read every relative import under src/ and hold each layer to that.

const SRC = join(REPO, 'src');

/** The layer of a file under src/: its folder, or 'core' for the core's folders and files. */
function layerOf(file: string): string {
  const path = relative(SRC, file).split('\\').join('/');
  if (/^(render|validate|shared|start)\/|^(main|cli)\.ts$|^gateline\.mjs$/.test(path)) return 'core';
  return path.includes('/') ? (path.split('/')[0] as string) : path;
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return /\.(ts|mjs)$/.test(entry.name) && !entry.name.endsWith('.test.ts') ? [path] : [];
  });
}

/** Relative import specifiers of a file: static, re-exports, side-effect and dynamic imports. */
function importsOf(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  return [
    ...text.matchAll(/^\s*(?:import|export)\b[^'"]*?\bfrom\s*['"]([^'"]+)['"]/gm),
    ...text.matchAll(/\bimport\(\s*['"]([^'"]+)['"]\s*\)/g),
    ...text.matchAll(/^\s*import\s+['"]([^'"]+)['"]/gm),
  ]
    .map((m) => m[1] as string)
    .filter((spec) => spec.startsWith('.'));
}

interface Edge {
  from: string;
  to: string;
  /** The importing and the imported file, relative to src/. */
  file: string;
  target: string;
  /** `file imports 'spec'`, for the failure message. */
  where: string;
}

function importEdges(): Edge[] {
  return sourceFiles(SRC).flatMap((file) =>
    importsOf(file).map((spec) => ({
      from: layerOf(file),
      to: layerOf(join(dirname(file), spec)),
      file: relative(SRC, file).split('\\').join('/'),
      target: relative(SRC, join(dirname(file), spec))
        .split('\\')
        .join('/'),
      where: `${relative(REPO, file)} imports '${spec}'`,
    })),
  );
}

/** Layers that import each other through a chain of other layers, as `a -> b -> a`. */
function layerCycles(edges: { from: string; to: string }[]): string[] {
  const next = new Map<string, Set<string>>();
  for (const { from, to } of edges) if (from !== to) next.set(from, (next.get(from) ?? new Set()).add(to));
  const cycles: string[] = [];
  const walk = (path: string[]) => {
    for (const to of next.get(path[path.length - 1] as string) ?? []) {
      if (to === path[0]) cycles.push([...path, to].join(' -> '));
      else if (!path.includes(to) && to > (path[0] as string)) walk([...path, to]);
    }
  };
  for (const start of [...next.keys()].sort()) walk([start]);
  return cycles;
}

describe('the layers of src/', () => {
  const edges = importEdges();
  const from = (layer: string) => edges.filter((e) => e.from === layer && e.to !== layer);

  it('are read from the imports (the scan works)', () => {
    const pairs = new Set(edges.map((e) => `${e.from} -> ${e.to}`));
    for (const pair of ['init -> host', 'init -> probe', 'probe -> host', 'bin -> init', 'up -> core', 'core -> core'])
      expect(pairs, pair).toContain(pair);
    expect(layerOf(join(SRC, 'shared/report.ts'))).toBe('core');
    expect(layerOf(join(SRC, 'host/hooks.ts'))).toBe('host');
    expect(layerOf(join(SRC, 'start/cache.mjs'))).toBe('core');
    expect(layerOf(join(SRC, 'gateline.mjs'))).toBe('core');
  });

  it('the core imports only the core', () => {
    expect(from('core').map((e) => e.where)).toEqual([]);
  });

  it('shared/ in the core imports only shared/ (render and validate build on it, not it on them)', () => {
    const shared = edges.filter((e) => e.file.startsWith('shared/'));
    expect(shared.length).toBeGreaterThan(0);
    expect(shared.filter((e) => !e.target.startsWith('shared/')).map((e) => e.where)).toEqual([]);
  });

  it('host imports neither init, probe nor up', () => {
    expect(
      from('host')
        .filter((e) => ['init', 'probe', 'up', 'bin'].includes(e.to))
        .map((e) => e.where),
    ).toEqual([]);
  });

  it('probe does not import init (nor up)', () => {
    expect(
      from('probe')
        .filter((e) => ['init', 'up', 'bin'].includes(e.to))
        .map((e) => e.where),
    ).toEqual([]);
  });

  it('nothing but the entry points imports init', () => {
    expect(edges.filter((e) => e.to === 'init' && !['init', 'bin'].includes(e.from)).map((e) => e.where)).toEqual([]);
  });

  it('no two folders import each other, directly or through others', () => {
    expect(layerCycles(edges)).toEqual([]);
  });

  it('a cycle is found when there is one (the check can fail)', () => {
    expect(layerCycles([...edges, { from: 'core', to: 'host' }, { from: 'host', to: 'core' }])).toContain('core -> host -> core');
    expect(
      layerCycles([
        { from: 'a', to: 'b' },
        { from: 'b', to: 'c' },
        { from: 'c', to: 'a' },
      ]),
    ).toEqual(['a -> b -> c -> a']);
  });
});
