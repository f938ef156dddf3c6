import { type Dirent, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROLE_NAME } from '../shared/capabilities.ts';
import type { Problem } from '../shared/problem.ts';
import { shortDiff } from './diff.ts';
import { isRendered, renderedRole } from './header.ts';
import type { Manifest } from './manifest.ts';
import type { PlannedFile } from './plan.ts';
import { looksReformatted } from './reformatted.ts';
import { rules } from './rules.ts';
import type { FolderSpool } from './write.ts';

export type Status = 'fresh' | 'missing' | 'stale' | 'orphan';

export interface FileState {
  path: string;
  status: Status;
  /** What should be there, kept only to be written (render, missing or stale). */
  next?: string;
  /** A short diff of the disk against the plan, kept only for the report (check, not fresh). */
  diff?: string[];
  /** Stale, but only in layout (white space, quotes, bullets): a formatter rewrote it. */
  reformatted?: true;
  /** Missing, in a folder that did not exist: written already into its temp folder (write.ts folderSpool). */
  spooled?: true;
  adapter: string;
  role?: string;
}

/**
 * Compares a plan with the disk, one planned file at a time (`compare`), then finds the orphans
 * (`finish`): each planned file is fresh, missing or stale; a file in an adapter's output folder
 * that matches its pattern and carries the RENDERED header but is not planned is an orphan. A
 * planned path held by a file without the header is a problem: it was written by hand and
 * gateline never overwrites it. Each output folder is listed once. A state keeps the content to
 * write (`keep: 'next'`) or a short diff to report (`keep: 'diff'`), and a fresh one neither, so
 * a check holds one file's content at a time.
 */
export function diskComparer(root: string, keep: 'next' | 'diff', spool?: FolderSpool) {
  // Files come in any order, each with its place in the plan; states and problems are reported in
  // the plan's order.
  const states: FileState[] = [];
  const found = new Map<number, Problem[]>();
  let problems: Problem[] = [];
  const listings = new Map<string, Map<string, Dirent>>();
  // Output folders that do not exist: their files go to the spool, when there is one.
  const absent = new Set<string>();
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
        if (code === 'ENOENT') absent.add(dir);
        else
          problems.push({
            file: dir,
            message: `cannot be used as the output folder (${code}): a file is in the way of the folder, move it`,
          });
      }
      listings.set(dir, entries);
    }
    return entries;
  };
  const kept = (current: string, next: string) => (keep === 'next' ? { next } : { diff: shortDiff(current, next) });

  function compare(file: PlannedFile, place: number): void {
    problems = [];
    // Filled up to `place` first: an array written far past its end turns slow (sparse).
    while (states.length <= place) states.push(undefined as unknown as FileState);
    compareOne(file, place);
    if (problems.length) found.set(place, problems);
  }

  function compareOne(file: PlannedFile, place: number): void {
    const entries = listing(file.dir);
    const name = file.path.slice(file.dir.length + 1);
    const entry = entries.get(name);
    // A planned name leaves the listing: what is left at the end is the orphan candidates.
    entries.delete(name);
    const { path, adapter, role } = file;
    if (!entry) {
      if (spool && absent.has(file.dir)) {
        spool.write(file.dir, name, file.content);
        states[place] = { path, status: 'missing', adapter, role, spooled: true };
      } else states[place] = { path, status: 'missing', adapter, role, ...kept('', file.content) };
      return;
    }
    const notRegular = rules.regularFilesOnly(file.path, entry);
    if (notRegular.length) {
      problems.push(...notRegular);
      return;
    }
    // A planned path is checked plain and relative ('/'-separated, no '.' or '..'): no join needed.
    const current = readFileSync(`${root}/${file.path}`, 'utf8');
    if (current === file.content) {
      states[place] = { path, status: 'fresh', adapter, role };
      return;
    }
    const handWritten = rules.handWrittenStays(file.path, isRendered(current));
    problems.push(...handWritten);
    if (handWritten.length) return;
    const reformatted = looksReformatted(current, file.content) ? { reformatted: true as const } : {};
    states[place] = { path, status: 'stale', adapter, role, ...reformatted, ...kept(current, file.content) };
  }

  function finish(manifests: Manifest[]): { states: FileState[]; problems: Problem[] } {
    problems = [];
    const ordered = states.filter(Boolean);
    const seen = new Set<string>();
    // Unselected adapters' folders are scanned too: their files are orphans once deselected.
    for (const manifest of manifests) {
      const pattern = filenamePattern(manifest.filename);
      const entries = [...listing(manifest.outputDir).values()].sort((a, b) => (a.name < b.name ? -1 : 1));
      for (const entry of entries) {
        const path = `${manifest.outputDir}/${entry.name}`;
        if (seen.has(path) || !entry.isFile() || !pattern.test(entry.name)) continue;
        seen.add(path);
        const current = readFileSync(join(root, path), 'utf8');
        // Only a file rendered for this very name is an orphan: a rendered file copied to a new name
        // (security-reviewer.md from reviewer.md) keeps its header but is somebody's new work.
        if (renderedRole(current) === pattern.exec(entry.name)?.[1])
          ordered.push({ path, status: 'orphan', adapter: manifest.adapter, ...(keep === 'diff' ? kept(current, '') : {}) });
      }
    }
    const earlier = [...found.keys()].sort((a, b) => a - b).flatMap((place) => found.get(place) ?? []);
    return { states: ordered, problems: [...earlier, ...problems] };
  }

  return { compare, finish };
}

/** `{role}.agent.md` -> /^[a-z][a-z0-9-]*\.agent\.md$/ */
function filenamePattern(filename: string): RegExp {
  const [head = '', ...rest] = filename.split('{role}').map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
  const role = ROLE_NAME.source.slice(1, -1);
  return new RegExp(`^${head}(${role})${rest.join(role)}$`);
}
