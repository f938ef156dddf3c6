import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { type BigIntStats, lstatSync, readdirSync, readlinkSync } from 'node:fs';
import { isAbsolute, join, relative } from 'node:path';

// The tree check: a role without `edit` and `write` must leave the tree as it found it, whatever
// its shell did. What counts, in a git repository:
// - every file git sees: tracked (a deleted one too) and untracked but not ignored, and what is
//   staged;
// - ignored or not, every file under `always` (the runners' agent folders) and git's own control
//   files (hooks, config, HEAD, refs, info): a shell writing there widens a later run or the next
//   commit without touching a tracked file.
// Other ignored files do not count: a verifier's `npm run build` or `pytest` writes its output
// and caches there by design. Outside a git repository every file counts. Each file is compared
// by its metadata (size, mode, inode, modification and change times; a link by its target): any
// write changes the change time, which no tool can set back.

export type Tree = Map<string, string>;

/** Git's control files, as `git rev-parse --git-path` names them (a linked worktree's are elsewhere). */
const GIT_PATHS = ['hooks', 'config', 'HEAD', 'refs', 'packed-refs', 'info'];

/** The tree's state; `skip` (the run records) and anything under it never count. */
export function treeState(root: string, options: { skip: string[]; always: string[] }): Tree {
  const state: Tree = new Map();
  const skipped = (rel: string) => options.skip.some((s) => rel === s || rel.startsWith(`${s}/`));
  const add = (rel: string) => {
    if (!skipped(rel)) state.set(rel, signature(join(root, rel)));
  };
  const walk = (rel: string, ignoreGit: boolean) => {
    if (skipped(rel)) return;
    const sig = signature(isAbsolute(rel) ? rel : join(root, rel));
    state.set(rel, sig);
    if (!sig.startsWith('dir')) return;
    for (const name of readdirSync(isAbsolute(rel) ? rel : join(root, rel))) {
      if (ignoreGit && rel === '' && name === '.git') continue;
      walk(rel ? `${rel}/${name}` : name, ignoreGit);
    }
  };
  const listed = git(root, ['ls-files', '-z', '--cached', '--others', '--exclude-standard']);
  if (listed === undefined) {
    walk('', true);
    for (const name of GIT_PATHS) walk(`.git/${name}`, false);
  } else {
    for (const rel of listed.split('\0').filter(Boolean)) add(rel);
    // What is staged (`git add`), by content: `git status` refreshes the index file itself.
    const staged = git(root, ['ls-files', '-z', '--stage']) ?? '';
    state.set('(the git index)', createHash('sha256').update(staged).digest('hex'));
    const control = git(root, ['rev-parse', ...GIT_PATHS.flatMap((p) => ['--git-path', p])]) ?? '';
    for (const path of control.split('\n').filter(Boolean)) walk(shown(root, path), false);
  }
  for (const rel of options.always) walk(rel, false);
  return state;
}

/** What changed between two states: `path (changed|added|removed)`, sorted. */
export function treeChanges(before: Tree, after: Tree): string[] {
  const paths = [...new Set([...before.keys(), ...after.keys()])].sort();
  return paths.flatMap((path) => {
    const [a, b] = [before.get(path), after.get(path)];
    if (a === b) return [];
    if (a === undefined || a === 'absent') return [`${path} (added)`];
    if (b === undefined || b === 'absent') return [`${path} (removed)`];
    return [`${path} (changed)`];
  });
}

function signature(path: string): string {
  let stat: BigIntStats;
  try {
    stat = lstatSync(path, { bigint: true });
  } catch {
    return 'absent';
  }
  if (stat.isDirectory()) return 'dir';
  const meta = `${stat.mode}:${stat.size}:${stat.ino}:${stat.mtimeNs}:${stat.ctimeNs}`;
  return stat.isSymbolicLink() ? `link:${readlinkSync(path)}:${meta}` : `file:${meta}`;
}

/** A path git printed (relative to `root`, or absolute), as the check names it. */
function shown(root: string, path: string): string {
  if (!isAbsolute(path)) return path;
  const rel = relative(root, path);
  return rel.startsWith('..') || isAbsolute(rel) ? path : rel;
}

function git(root: string, args: string[]): string | undefined {
  try {
    return execFileSync('git', args, { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'], maxBuffer: 256 * 1024 * 1024 });
  } catch {
    return undefined;
  }
}
