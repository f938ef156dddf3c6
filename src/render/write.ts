import { chmodSync, existsSync, mkdirSync, readdirSync, renameSync, rmdirSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import type { FileState } from './state.ts';

/**
 * Brings the disk in line with the compared plan: writes missing and stale files and removes
 * orphans, so that no reader ever sees half a file. A file in an existing folder goes through a
 * temp file and a rename; an output folder that does not exist yet is filled under a temp name
 * beside it and renamed into place once whole (a first render: one rename, not one per file, and
 * the folder appears with every file at once). Fresh files are not touched, so their mtimes stay.
 * A written file's content is let go at once.
 */
export function applyStates(root: string, states: FileState[]): { written: string[]; removed: string[] } {
  const written: string[] = [];
  const removed: string[] = [];
  // Each folder written to -> where its files go now: itself, or the temp folder that becomes it.
  const folders = new Map<string, string>();
  try {
    for (const state of states) {
      const abs = join(root, state.path);
      if (state.status === 'orphan') {
        unlinkSync(abs);
        removed.push(state.path);
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
  } catch (error) {
    for (const [folder, into] of folders) if (into !== folder) rmSync(into, { recursive: true, force: true });
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
  const temp = join(dirname(folder), `.${basename(folder)}.${globalThis.crypto.randomUUID()}.tmp`);
  mkdirSync(temp);
  return temp;
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
