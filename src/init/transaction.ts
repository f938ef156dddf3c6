import { existsSync, lstatSync, mkdirSync, readFileSync, rmdirSync, rmSync, utimesSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { writeAtomic } from '../render/write.ts';

// Every change the installer makes goes through one journal, so a failure or a Ctrl-C at any
// point puts the repository back exactly as it was: files restored byte for byte, new files
// and the folders created for them removed. Every write is atomic (a temp file with an
// unpredictable name, created exclusively, then a rename): a kill mid-write leaves the old file.

interface Entry {
  path: string;
  before: Buffer | undefined;
  mode: number | undefined;
  /** Modification time, restored too: tools that compare mtimes see nothing happened. */
  mtime: number | undefined;
}

export class Transaction {
  readonly root: string;
  readonly signal: AbortSignal | undefined;
  private readonly journal: Entry[] = [];
  private readonly createdDirs: string[] = [];

  constructor(root: string, signal?: AbortSignal) {
    this.root = root;
    this.signal = signal;
  }

  /** Remembers a file's current state (once), so that a later change to it can be undone. */
  remember(path: string): void {
    if (this.journal.some((e) => e.path === path)) return;
    const abs = join(this.root, path);
    const stat = existsSync(abs) ? lstatSync(abs) : undefined;
    // A link's own mode (0o777) is not the file's: a file replacing it gets the default.
    const mode = stat && !stat.isSymbolicLink() ? stat.mode & 0o7777 : undefined;
    this.journal.push({ path, before: stat ? readFileSync(abs) : undefined, mode, mtime: stat?.mtimeMs });
  }

  write(path: string, content: string | Buffer, mode?: number): void {
    this.signal?.throwIfAborted();
    this.remember(path);
    const abs = join(this.root, path);
    this.mkdirs(dirname(abs));
    // The rename replaces the old file (a link included: never written through), so a rewritten
    // file keeps its mode explicitly unless the plan sets one.
    writeAtomic(abs, content, mode ?? this.journal.find((e) => e.path === path)?.mode);
  }

  remove(path: string): void {
    this.signal?.throwIfAborted();
    this.remember(path);
    rmSync(join(this.root, path), { force: true });
  }

  /**
   * Puts every remembered file back and removes the folders this transaction created. Keeps
   * going past a file it cannot restore, and returns those, so the caller can name them.
   */
  rollback(): string[] {
    const failed: string[] = [];
    for (const entry of [...this.journal].reverse()) {
      const abs = join(this.root, entry.path);
      try {
        if (entry.before === undefined) {
          if (existsSync(abs)) rmSync(abs, { force: true });
        } else {
          mkdirSync(dirname(abs), { recursive: true });
          writeAtomic(abs, entry.before, entry.mode);
          if (entry.mtime !== undefined) utimesSync(abs, entry.mtime / 1000, entry.mtime / 1000);
        }
      } catch (error) {
        // ENOTDIR on a path that did not exist before: a parent is a file, so nothing was made there.
        const nothingMade = entry.before === undefined && (error as NodeJS.ErrnoException).code === 'ENOTDIR';
        if (!nothingMade) failed.push(entry.path);
      }
    }
    for (const dir of [...this.createdDirs].reverse()) {
      try {
        rmdirSync(dir);
      } catch {
        // not empty: something else lives there now
      }
    }
    return failed;
  }

  /** Paths changed so far, in order. */
  get paths(): string[] {
    return this.journal.map((e) => e.path);
  }

  /** Creates a folder (and its parents) as part of the transaction: rollback removes what it made. */
  ensureDir(path: string): void {
    this.mkdirs(join(this.root, path));
  }

  private mkdirs(dir: string): void {
    if (existsSync(dir)) return;
    this.mkdirs(dirname(dir));
    mkdirSync(dir);
    this.createdDirs.push(dir);
  }
}
