import {
  chmodSync,
  existsSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  renameSync,
  rmdirSync,
  rmSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import { basename, dirname, join } from 'node:path';
import type { FileState } from './state.ts';

/**
 * Brings the disk in line with the compared plan: writes missing and stale files and removes
 * orphans, so that no reader ever sees half a file. A file in an existing folder goes through a
 * temp file and a rename; an output folder that does not exist yet is filled under a temp name
 * beside it and renamed into place once whole (a first render: one rename, not one per file, and
 * the folder appears with every file at once). Those files were written while the plan was
 * compared (`spool`); here their folders are renamed into place. Fresh files are not touched, so
 * their mtimes stay. A written file's content is let go at once.
 */
export function applyStates(root: string, states: FileState[], spool?: FolderSpool): { written: string[]; removed: string[] } {
  const written: string[] = [];
  const removed: string[] = [];
  // Each folder written to -> where its files go now: itself, or the temp folder that becomes it.
  const folders = new Map<string, string>();
  try {
    spool?.check();
    for (const state of states) {
      const abs = join(root, state.path);
      if (state.status === 'orphan') {
        unlinkSync(abs);
        removed.push(state.path);
      } else if (state.spooled) {
        written.push(state.path);
      } else if (state.status !== 'fresh' && state.next !== undefined) {
        const folder = dirname(abs);
        let into = folders.get(folder);
        if (into === undefined) {
          into = existsSync(folder) ? folder : newFolder(folder);
          folders.set(folder, into);
        }
        // In a temp folder of our own, made exclusively, nobody reads a file being written.
        if (into === folder) writeAtomic(abs, state.next);
        else writeFileSync(join(into, basename(abs)), state.next, { flag: 'wx' });
        delete state.next;
        written.push(state.path);
      }
    }
    for (const [folder, into] of folders) if (into !== folder) putInPlace(into, folder);
    spool?.commit();
  } catch (error) {
    for (const [folder, into] of folders) if (into !== folder) rmSync(into, { recursive: true, force: true });
    spool?.abort();
    throw error;
  }
  return { written, removed };
}

/**
 * Renames the temp folder `into` to `folder`. Should `folder` exist by now (another output folder
 * inside it was made meanwhile, so its parents were), each file is renamed into it instead.
 */
function putInPlace(into: string, folder: string): void {
  try {
    renameSync(into, folder);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== 'ENOTEMPTY' && code !== 'EEXIST') throw error;
    for (const name of readdirSync(into)) renameSync(join(into, name), join(folder, name));
    rmdirSync(into);
  }
}

/** A fresh, exclusively made temp folder beside `folder` (its parents made first), to become it. */
function newFolder(folder: string): string {
  mkdirSync(dirname(folder), { recursive: true });
  return tempFolder(folder);
}

/**
 * A fresh temp folder beside `folder`. Temp folders of `folder` left by a render killed an hour
 * ago or more (a first render fills one while it plans) are removed first: a render still running
 * is never that old.
 */
function tempFolder(folder: string): string {
  const parent = dirname(folder);
  const prefix = `.${basename(folder)}.`;
  const uuid = globalThis.crypto.randomUUID();
  for (const name of readdirSync(parent)) {
    // `.<folder>.<uuid>.tmp`: only names this function makes.
    if (!name.startsWith(prefix) || !name.endsWith('.tmp') || !UUID.test(name.slice(prefix.length, -4))) continue;
    const stat = lstatSync(join(parent, name), { throwIfNoEntry: false });
    if (stat?.isDirectory() && Date.now() - stat.mtimeMs > HOUR) rmSync(join(parent, name), { recursive: true, force: true });
  }
  const temp = join(parent, `${prefix}${uuid}.tmp`);
  mkdirSync(temp);
  return temp;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const HOUR = 3600 * 1000;

export type FolderSpool = ReturnType<typeof folderSpool>;

// Created, never written through; one options object for every file.
const EXCLUSIVE = { flag: 'wx' } as const;

/**
 * The files of output folders that do not exist yet, written as they are planned, each into a
 * temp folder beside its folder (made exclusively, under a name nobody reads): a first render
 * then holds no file's content until everything is planned (at 10000 roles x 3 that was 150 MiB
 * more, and as much copying by the garbage collector). `commit` renames each folder into place
 * once everything is planned and checked; `abort` removes them and the parent folders made for
 * them, so a run with a problem still leaves the tree as it was.
 */
export function folderSpool(root: string) {
  // Output folder (relative) -> its temp folder; the parents made for them, each bottom-most first.
  const temps = new Map<string, string>();
  const made: string[][] = [];
  // The first error writing (a name too long, a full disk): reported only if the plan has no
  // problem, which would have been found before any write, as it was when writing came last.
  let failure: { error: unknown } | undefined;
  return {
    write(dir: string, name: string, content: string): void {
      if (failure) return;
      try {
        let temp = temps.get(dir);
        if (temp === undefined) {
          const folder = join(root, dir);
          const first = mkdirSync(dirname(folder), { recursive: true });
          if (first) made.push(chain(first, dirname(folder)));
          temp = tempFolder(folder);
          temps.set(dir, temp);
        }
        // One write per planned file: the folder is ours and plain, the name a plain file name.
        writeFileSync(`${temp}/${name}`, content, EXCLUSIVE);
      } catch (error) {
        failure = { error };
      }
    },
    /** Throws what went wrong writing, if anything did: before anything else is written. */
    check(): void {
      if (failure) throw failure.error;
    },
    commit(): void {
      for (const [dir, temp] of temps) putInPlace(temp, join(root, dir));
      temps.clear();
    },
    abort(): void {
      for (const temp of temps.values()) rmSync(temp, { recursive: true, force: true });
      temps.clear();
      // Only folders left empty, the last made first (it may be inside an earlier one): whatever
      // someone else put in them meanwhile stays.
      for (const folders of made.reverse())
        for (const folder of folders) {
          try {
            rmdirSync(folder);
          } catch {
            break;
          }
        }
      made.length = 0;
    },
  };
}

/** `last` and each folder above it up to `first`, bottom-most first (the folders mkdir -p made). */
function chain(first: string, last: string): string[] {
  const out: string[] = [];
  for (let at = last; at.length >= first.length; at = dirname(at)) {
    out.push(at);
    if (at === first || dirname(at) === at) break;
  }
  return out;
}

/**
 * Writes `abs` into an existing folder through a temp file and a rename: a reader, or a process
 * killed half-way, sees the old file or the new one, never a cut one. `mode` is set before the
 * rename.
 */
export function writeAtomic(abs: string, content: string | Uint8Array, mode?: number): void {
  // An unpredictable name, created exclusively: a link planted at a guessable temp name is never
  // written through (the 'wx' open fails instead).
  const tmp = join(dirname(abs), `.${basename(abs)}.${globalThis.crypto.randomUUID()}.tmp`);
  try {
    // With a mode: created private, then set exactly (the umask would narrow a create mode).
    writeFileSync(tmp, content, { flag: 'wx', mode: mode === undefined ? 0o666 : 0o600 });
    if (mode !== undefined) chmodSync(tmp, mode);
    renameSync(tmp, abs);
  } catch (error) {
    rmSync(tmp, { force: true });
    throw error;
  }
}
