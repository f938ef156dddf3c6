import { existsSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { LOCK_FILE, type Lock, readLock } from '../shared/lock.ts';
import { FrameworkError, type Problem } from '../shared/problem.ts';
import { rules } from './rules.ts';

export const DEFAULT_PREFIX = '.gateline';

/** Where a command works: a host repository (found through its lock) or a framework checkout. */
export interface Context {
  mode: 'host' | 'framework';
  /** Absolute repository root: rendered files go here. */
  root: string;
  /** Absolute root of the core whose roles/ and adapters/ are rendered. */
  coreRoot: string;
  /** The core root relative to `root` ('' in a framework checkout), for messages. */
  coreDisplay: string;
  /** Host only: the prefix folder, relative to root. */
  prefix?: string;
  lock?: Lock;
  /** Adapters to render; undefined means every adapter in the core. */
  selected?: string[];
}

/**
 * Walks up from `start`, no further than the enclosing git repository's root, to the first
 * `<prefix>/framework-lock.json`. Without one, the nearest ancestor holding `roles/` and
 * `adapters/` is a framework checkout. Throws FrameworkError when neither is found.
 */
export function locate(start: string, prefix = DEFAULT_PREFIX): Context {
  const problems: Problem[] = [];
  problems.push(...rules.prefixIsPlain(prefix));
  if (problems.length) throw new FrameworkError(problems);
  const from = resolve(start);
  if (!existsSync(from) || !statSync(from).isDirectory()) {
    throw new FrameworkError([{ file: start, message: 'is not a directory: pass an existing folder to --root' }]);
  }
  const host = walkUp(from, (dir) => existsSync(join(dir, prefix, LOCK_FILE)));
  if (host) return hostContext(host, prefix);
  const checkout = walkUp(from, (dir) => isDir(join(dir, 'roles')) && isDir(join(dir, 'adapters')));
  if (checkout) return { mode: 'framework', root: checkout, coreRoot: checkout, coreDisplay: '' };
  throw new FrameworkError([
    {
      file: relative(process.cwd(), from) || '.',
      message:
        `no ${prefix}/${LOCK_FILE} here or above (up to the git root), and this is not a gateline checkout. ` +
        'Adopt gateline with: npm create gateline@latest, or pass --root / --prefix',
    },
  ]);
}

function hostContext(root: string, prefix: string): Context {
  const problems: Problem[] = [];
  const lockDisplay = `${prefix}/${LOCK_FILE}`;
  const lock = readLock(join(root, prefix, LOCK_FILE), lockDisplay, problems);
  if (!lock) throw new FrameworkError(problems);
  const coreDisplay = `${prefix}/${lock.core}`;
  problems.push(...rules.coreInRepo(root, lockDisplay, lock.core, coreDisplay));
  const coreRoot = join(root, prefix, lock.core);
  if (!problems.length && !isDir(coreRoot)) {
    problems.push({ file: lockDisplay, message: `the vendored core '${coreDisplay}' is missing: run the installer again to restore it` });
  }
  if (problems.length) throw new FrameworkError(problems);
  return { mode: 'host', root, coreRoot, coreDisplay, prefix, lock, selected: lock.adapters };
}

function walkUp(from: string, found: (dir: string) => boolean): string | undefined {
  for (let dir = from; ; dir = dirname(dir)) {
    if (found(dir)) return dir;
    // The git root is the ceiling: never pick up a lock from an enclosing, unrelated tree.
    if (existsSync(join(dir, '.git')) || dirname(dir) === dir) return undefined;
  }
}

function isDir(path: string): boolean {
  return existsSync(path) && statSync(path).isDirectory();
}
