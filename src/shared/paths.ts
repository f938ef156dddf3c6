import { type Dirent, lstatSync, readdirSync, realpathSync } from 'node:fs';
import { isAbsolute, join, relative, sep } from 'node:path';

// Paths from manifests, the lock and flags never leave the repository (docs/narrowing.md).

/** Checks the shape of a repository-relative path; calls `bad` with a message for each flaw. */
export function checkRelativePath(path: string, bad: (message: string) => void): void {
  if (isAbsolute(path) || /^[A-Za-z]:/.test(path) || path.startsWith('\\')) {
    bad(`must be relative to the repository root, not absolute ('${path}')`);
    return;
  }
  const parts = path.replace(/\/+$/, '').split('/');
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is refused.
  if (/[\u0000-\u001f\u007f]/.test(path)) bad(`must not contain control characters (${JSON.stringify(path)})`);
  else if (path.includes('\\')) bad(`must use '/' as separator ('${path}')`);
  else if (parts.includes('..')) bad(`must stay inside the repository: '..' is not allowed ('${path}')`);
  else if (parts.some((p) => p === '' || p === '.')) bad(`must be a plain relative path without empty or '.' parts ('${path}')`);
  else if (parts.some((p) => p.toLowerCase() === '.git')) bad(`must not point into .git ('${path}')`);
}

/**
 * The prefix also ends up in shell hooks, YAML workflows and package.json scripts, unquoted, so it
 * keeps to characters that need no quoting anywhere.
 */
export function checkPrefix(prefix: string, bad: (message: string) => void): void {
  if (!/^[A-Za-z0-9._][A-Za-z0-9._/-]*$/.test(prefix)) {
    bad(`must be a folder name of letters, digits, '.', '_', '-' and '/' (not starting with '-'), got ${JSON.stringify(prefix)}`);
    return;
  }
  checkRelativePath(prefix, bad);
}

/**
 * Returns a reason when `rel` (already shape-checked) would leave `root` through a symlink,
 * or when the final path is itself a symlink; undefined when it is safe to write there.
 */
export function escapesThroughSymlink(root: string, rel: string): string | undefined {
  const realRoot = realpathSync(root);
  let current = root;
  const parts = rel.split('/');
  for (const [i, part] of parts.entries()) {
    current = join(current, part);
    let stat: ReturnType<typeof lstatSync>;
    try {
      stat = lstatSync(current);
    } catch {
      return undefined; // does not exist yet: nothing below it can be a link
    }
    if (!stat.isSymbolicLink()) continue;
    if (i === parts.length - 1) return `'${rel}' is a symbolic link; gateline writes only regular files`;
    let target: string;
    try {
      target = realpathSync(current);
    } catch {
      return `'${parts.slice(0, i + 1).join('/')}' is a broken symbolic link`;
    }
    const inside = relative(realRoot, target);
    const link = parts.slice(0, i + 1).join('/');
    if (inside === '..' || inside.startsWith(`..${sep}`) || isAbsolute(inside)) {
      return `'${link}' is a symbolic link that leaves the repository`;
    }
    if (inside.split(sep)[0] === '.git') return `'${link}' is a symbolic link into .git`;
  }
  return undefined;
}

/**
 * What one run saw of each input folder, by its path relative to the root: whether it leaves the
 * repository, and its entries (none when it cannot be listed). One map per run, never kept
 * longer: a folder may become a link later.
 */
export type Folders = Map<string, { outside: boolean; entries?: Map<string, Dirent> }>;

/**
 * True when `rel` exists and resolves, through any link, to a place outside `root`. With `folders`,
 * each folder is resolved and listed once for every file in it, so a file that is not a link costs
 * no system call of its own (and no path is normalized: this runs once per role).
 */
export function resolvesOutside(root: string, rel: string, folders?: Folders): boolean {
  const at = folders && place(rel);
  if (!folders || !at) return leaves(root, join(root, rel));
  const folder = seen(root, at.dir, folders);
  const entry = folder.entries?.get(at.name);
  if (folder.entries && !entry) return false; // absent: the reader reports it
  if (entry?.isFile()) return folder.outside;
  // A link, another kind of entry, or a folder that cannot be listed (no permission, a file where
  // a folder should be): the realpath, which treats each case as the reader will.
  return leaves(root, join(root, rel));
}

/**
 * Whether this run's listing shows `rel` as a regular file (or absent) in a folder inside the
 * repository: it may then be read without a look of its own, opened so that a link or FIFO put
 * there since is refused, not followed or waited on (readInput's `listed`).
 */
export function listedInside(rel: string, folders: Folders): boolean {
  const at = place(rel);
  const folder = at && folders.get(at.dir);
  if (!at || !folder?.entries || folder.outside) return false;
  const entry = folder.entries.get(at.name);
  return !entry || entry.isFile();
}

/**
 * A '/'-separated relative path as its folder and name, when the name is a plain one (not '',
 * '.' or '..', no '\\'): the file is then that entry of that folder. Undefined otherwise, and the
 * path takes the long way.
 */
function place(rel: string): { dir: string; name: string } | undefined {
  const cut = rel.lastIndexOf('/');
  const name = rel.slice(cut + 1);
  if (name === '' || name === '.' || name === '..' || name.includes('\\')) return undefined;
  return { dir: cut < 0 ? '' : rel.slice(0, cut), name };
}

/** The folder `dir` (relative to root) as this run saw it, resolved and listed on the first look. */
function seen(root: string, dir: string, folders: Folders) {
  let folder = folders.get(dir);
  if (!folder) {
    const abs = join(root, dir);
    let entries: Map<string, Dirent> | undefined;
    try {
      entries = new Map(readdirSync(abs, { withFileTypes: true }).map((entry) => [entry.name, entry]));
    } catch {}
    folder = { outside: leaves(root, abs), entries };
    folders.set(dir, folder);
  }
  return folder;
}

/** True when `abs` exists and its real path is outside the real `root`. */
function leaves(root: string, abs: string): boolean {
  let real: string;
  try {
    // The native realpath is one system call; the JavaScript one lstats every folder on the way.
    real = realpathSync.native(abs);
  } catch {
    return false; // absent or a broken link: the reader reports it
  }
  const inside = relative(realpathSync.native(root), real);
  return inside === '..' || inside.startsWith(`..${sep}`) || isAbsolute(inside);
}
