import { existsSync, lstatSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROLE_NAME } from '../shared/capabilities.ts';
import type { Problem } from '../shared/problem.ts';
import { isRendered } from './emit.ts';
import type { Plan } from './plan.ts';

export type Status = 'fresh' | 'missing' | 'stale' | 'orphan';

export interface FileState {
  path: string;
  status: Status;
  /** What is on disk now (stale or orphan). */
  current?: string;
  /** What should be there (missing or stale). */
  next?: string;
  adapter: string;
  role?: string;
}

/**
 * Compares a plan with the disk: each planned file is fresh, missing or stale; a file in an
 * adapter's output folder that matches its pattern and carries the RENDERED header but is not
 * planned is an orphan. A planned path held by a file without the header is a problem: it was
 * written by hand and gateline never overwrites it.
 */
export function compareWithDisk(root: string, plan: Plan): { states: FileState[]; problems: Problem[] } {
  const problems: Problem[] = [];
  const states: FileState[] = [];
  const planned = new Set(plan.files.map((f) => f.path));
  for (const file of plan.files) {
    const abs = join(root, file.path);
    const base = { path: file.path, adapter: file.adapter, role: file.role, next: file.content };
    if (!existsSync(abs)) {
      states.push({ ...base, status: 'missing' });
      continue;
    }
    if (!lstatSync(abs).isFile()) {
      problems.push({ file: file.path, message: 'is in the way and is not a regular file: move it, then run gateline render' });
      continue;
    }
    const current = readFileSync(abs, 'utf8');
    if (current === file.content) states.push({ ...base, status: 'fresh' });
    else if (isRendered(current)) states.push({ ...base, status: 'stale', current });
    else {
      problems.push({
        file: file.path,
        message:
          'was written by hand (no RENDERED header), and gateline never overwrites it: move it away or delete it, then run gateline render',
      });
    }
  }
  const seen = new Set<string>();
  for (const manifest of plan.manifests) {
    const dir = join(root, manifest.outputDir);
    if (!existsSync(dir) || !lstatSync(dir).isDirectory()) continue;
    const pattern = filenamePattern(manifest.filename);
    for (const name of readdirSync(dir).sort()) {
      const path = `${manifest.outputDir}/${name}`;
      if (planned.has(path) || seen.has(path) || !pattern.test(name)) continue;
      if (!lstatSync(join(dir, name)).isFile()) continue;
      seen.add(path);
      const current = readFileSync(join(dir, name), 'utf8');
      if (isRendered(current)) states.push({ path, status: 'orphan', current, adapter: manifest.adapter });
    }
  }
  return { states, problems };
}

/** `{role}.agent.md` -> /^[a-z][a-z0-9-]*\.agent\.md$/ */
function filenamePattern(filename: string): RegExp {
  const escaped = filename.split('{role}').map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
  return new RegExp(`^${escaped.join(ROLE_NAME.source.slice(1, -1))}$`);
}
