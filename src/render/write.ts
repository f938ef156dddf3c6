import { chmodSync, mkdirSync, renameSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import type { FileState } from './state.ts';

/**
 * Brings the disk in line with the compared plan: writes missing and stale files (each through a
 * temp file and a rename, so no reader ever sees half a file) and removes orphans.
 * Fresh files are not touched, so their mtimes stay. Each folder is made once, not per file, and
 * a written file's content is let go at once.
 */
export function applyStates(root: string, states: FileState[]): { written: string[]; removed: string[] } {
  const written: string[] = [];
  const removed: string[] = [];
  const folders = new Set<string>();
  for (const state of states) {
    const abs = join(root, state.path);
    if (state.status === 'orphan') {
      unlinkSync(abs);
      removed.push(state.path);
    } else if (state.status !== 'fresh' && state.next !== undefined) {
      const folder = dirname(abs);
      if (!folders.has(folder)) mkdirSync(folder, { recursive: true });
      folders.add(folder);
      writeAtomic(abs, state.next);
      delete state.next;
      written.push(state.path);
    }
  }
  return { written, removed };
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
