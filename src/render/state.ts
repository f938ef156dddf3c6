import { type Dirent, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROLE_NAME } from '../shared/capabilities.ts';
import type { Problem } from '../shared/problem.ts';
import { isRendered, renderedRole } from './header.ts';
import type { Plan } from './plan.ts';
import { rules } from './rules.ts';

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
 * written by hand and gateline never overwrites it. Each output folder is listed once.
 */
export function compareWithDisk(root: string, plan: Plan): { states: FileState[]; problems: Problem[] } {
  const problems: Problem[] = [];
  const states: FileState[] = [];
  const listings = new Map<string, Map<string, Dirent>>();
  const listing = (dir: string) => {
    let entries = listings.get(dir);
    if (!entries) {
      entries = new Map();
      try {
        for (const entry of readdirSync(join(root, dir), { withFileTypes: true })) entries.set(entry.name, entry);
      } catch (error) {
        // No such folder yet: every file in it is missing. Anything else (a file where the
        // folder should be) would fail half-way through writing, so it is a problem now.
        const code = (error as NodeJS.ErrnoException).code;
        if (code !== 'ENOENT')
          problems.push({
            file: dir,
            message: `cannot be used as the output folder (${code}): a file is in the way of the folder, move it`,
          });
      }
      listings.set(dir, entries);
    }
    return entries;
  };

  const planned = new Set<string>();
  for (const file of plan.files) {
    planned.add(file.path);
    const slash = file.path.lastIndexOf('/');
    const entry = listing(file.path.slice(0, slash)).get(file.path.slice(slash + 1));
    const base = { path: file.path, adapter: file.adapter, role: file.role, next: file.content };
    if (!entry) {
      states.push({ ...base, status: 'missing' });
      continue;
    }
    const notRegular = rules.regularFilesOnly(file.path, entry);
    problems.push(...notRegular);
    if (notRegular.length) continue;
    const current = readFileSync(join(root, file.path), 'utf8');
    if (current === file.content) {
      states.push({ ...base, status: 'fresh' });
      continue;
    }
    const handWritten = rules.handWrittenStays(file.path, isRendered(current));
    problems.push(...handWritten);
    if (!handWritten.length) states.push({ ...base, status: 'stale', current });
  }

  const seen = new Set<string>();
  // Unselected adapters' folders are scanned too: their files are orphans once deselected.
  for (const manifest of plan.manifests) {
    const pattern = filenamePattern(manifest.filename);
    const entries = [...listing(manifest.outputDir).values()].sort((a, b) => (a.name < b.name ? -1 : 1));
    for (const entry of entries) {
      const path = `${manifest.outputDir}/${entry.name}`;
      if (planned.has(path) || seen.has(path) || !entry.isFile() || !pattern.test(entry.name)) continue;
      seen.add(path);
      const current = readFileSync(join(root, path), 'utf8');
      // Only a file rendered for this very name is an orphan: a rendered file copied to a new name
      // (security-reviewer.md from reviewer.md) keeps its header but is somebody's new work.
      if (renderedRole(current) === pattern.exec(entry.name)?.[1])
        states.push({ path, status: 'orphan', current, adapter: manifest.adapter });
    }
  }
  return { states, problems };
}

/** `{role}.agent.md` -> /^[a-z][a-z0-9-]*\.agent\.md$/ */
function filenamePattern(filename: string): RegExp {
  const [head = '', ...rest] = filename.split('{role}').map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
  const role = ROLE_NAME.source.slice(1, -1);
  return new RegExp(`^${head}(${role})${rest.join(role)}$`);
}
