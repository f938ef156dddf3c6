import { existsSync, mkdirSync, mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, sep } from 'node:path';
import { type Context, locate } from '../render/context.ts';
import { listAdapters, loadManifest } from '../render/manifest.ts';
import type { FileState } from '../render/state.ts';
import { LOCK_FILE } from '../shared/lock.ts';
import { FrameworkError, type Problem } from '../shared/problem.ts';
import { type Git, openGit } from './git.ts';
import { gitAddCommand } from './git-add.ts';
import { validate } from './validate.ts';

// `validate --staged`, what the pre-commit hook runs: the commit holds the git index, not the work
// tree. When gateline's files are the same in both (the usual commit), validating the work tree is
// validating the commit. When they differ, the index's copy of them is checked out into a temp
// folder and validated there; if that fails, the fix is the `git add` that stages the work tree's.

export interface StagedResult {
  problems: Problem[];
  states: FileState[];
  /** gateline's files whose work-tree copy differs from the staged one (not checked, not committed), relative to the working directory. */
  unstaged: string[];
  /** When the staged content fails and staging (after a render) would fix it. */
  fix?: StagedFix;
}

export interface StagedFix {
  /** `render` must run first: the work tree is stale too. */
  render: boolean;
  /** False when the work tree has problems a render does not fix: those come first. */
  workTreeOk: boolean;
  /** The files to stage, relative to the working directory, and the command that does it. */
  paths: string[];
  command: string;
  /** The commit uses git's temporary index (commit -a, commit <paths>): staging alone may not reach it. */
  temporaryIndex: boolean;
}

export function validateStaged(ctx: Context, cwd: string): StagedResult {
  const git = openGit(ctx.root, cwd, relative(cwd, ctx.root) || '.');
  const fromTop = (path: string) => relative(git.top, join(ctx.root, path)).split(sep).join('/');
  const work = validate(ctx);
  const watched = watchedPaths(ctx);
  const outputs = new Set(work.states.map((s) => fromTop(s.path)));
  const inputs = watched.inputs.map(fromTop);
  const under = (path: string, specs: string[]) => specs.some((s) => path === s || path.startsWith(`${s}/`));
  // Untracked or ignored files in an agent folder matter only when gateline writes them; anywhere
  // else gateline reads, every difference matters.
  const differing = status(git, [...inputs, ...watched.outputs.map(fromTop)]).filter(
    (c) => c.tracked || under(c.path, inputs) || outputs.has(c.path) || work.states.length === 0,
  );
  const freshnessOnly = work.problems.length === work.states.filter((s) => s.status !== 'fresh').length;
  const stale = freshnessOnly ? work.states.filter((s) => s.status !== 'fresh').map((s) => fromTop(s.path)) : [];
  const shown = (paths: string[]) => [...new Set(paths)].sort().map((p) => relative(cwd, join(git.top, p)).split(sep).join('/'));
  const fixFor = (paths: string[], force: boolean): StagedFix | undefined => {
    if (!paths.length) return undefined;
    const command = gitAddCommand(shown(paths), { force });
    return { render: stale.length > 0, workTreeOk: freshnessOnly, paths: shown(paths), command, temporaryIndex: git.temporaryIndex };
  };

  if (!differing.length) {
    // The work tree is what is committed; a stale render is fixed by rendering and staging it.
    const fix = fixFor(stale, false);
    return { ...work, unstaged: [], ...(fix ? { fix } : {}) };
  }
  const unstaged = shown(differing.map((c) => c.path));
  const staged = validateIndex(git, ctx, watched.outputs.map(fromTop));
  if (!staged.problems.length) return { ...staged, unstaged };
  const fix = fixFor(
    [...differing.map((c) => c.path), ...stale],
    differing.some((c) => c.ignored),
  );
  return { ...staged, unstaged, ...(fix ? { fix } : {}) };
}

/** What validate reads, relative to the root: its inputs, and the folders runners load agents from. */
function watchedPaths(ctx: Context): { inputs: string[]; outputs: string[] } {
  const problems: Problem[] = [];
  const adapters = join(ctx.coreRoot, 'adapters');
  const manifests = listAdapters(adapters).flatMap((name) => loadManifest(adapters, 'adapters', name, problems) ?? []);
  const outputs = manifests.flatMap((m) => [m.outputDir, ...(m.runner?.agents.dirs ?? []).map((d) => d.dir)]);
  if (ctx.mode === 'framework') return { inputs: ['roles', 'adapters'], outputs };
  const overlays = ['_all', ...manifests.flatMap((m) => m.roles)].map((role) => `${ctx.prefix}/overlays/${role}.md`);
  return { inputs: [`${ctx.prefix}/${LOCK_FILE}`, ctx.coreDisplay, ...overlays], outputs };
}

interface Change {
  path: string;
  /** Tracked: modified, deleted or a type change in the work tree, or not yet merged. */
  tracked: boolean;
  ignored: boolean;
}

/** gateline's files whose work-tree copy is not the index's: changed, deleted, untracked, ignored. */
function status(git: Git, specs: string[]): Change[] {
  const args = ['status', '--porcelain=v1', '-z', '--untracked-files=all', '--ignored=traditional', '--no-renames', '--'];
  return git
    .list([...args, ...specs])
    .map((entry) => ({ code: entry.slice(0, 2), path: entry.slice(3) }))
    .filter(({ code }) => code[1] !== ' ') // staged only: the index and the work tree agree
    .map(({ code, path }) => ({ path, tracked: code !== '??' && code !== '!!', ignored: code === '!!' }));
}

/** Checks out gateline's part of the index into a temp folder and validates it there. */
function validateIndex(git: Git, ctx: Context, outputs: string[]): { problems: Problem[]; states: FileState[] } {
  const temp = realpathSync(mkdtempSync(join(tmpdir(), 'gateline-staged-')));
  const untemp = (p: Problem): Problem => ({ ...p, file: p.file.replaceAll(`${temp}/`, ''), message: p.message.replaceAll(temp, '.') });
  try {
    mkdirSync(join(temp, '.git')); // the ceiling of locate's walk up: nothing above the copy is read
    const root = join(temp, relative(git.top, ctx.root));
    const fromTop = (path: string) => relative(git.top, join(ctx.root, path)).split(sep).join('/');
    const inputs = ctx.mode === 'host' ? [`${ctx.prefix}/${LOCK_FILE}`, ctx.coreDisplay, `${ctx.prefix}/overlays`] : ['roles', 'adapters'];
    checkout(git, temp, inputs.map(fromTop));
    mkdirSync(root, { recursive: true });
    if (ctx.mode === 'host' && !existsSync(join(root, `${ctx.prefix}/${LOCK_FILE}`))) {
      const message = 'is not in the commit (deleted or never staged): stage it, or run the installer again';
      return { problems: [{ file: `${ctx.prefix}/${LOCK_FILE}`, message }], states: [] };
    }
    let view: Context;
    try {
      view = locate(root, ctx.prefix);
    } catch (error) {
      if (error instanceof FrameworkError) return { problems: error.problems.map(untemp), states: [] };
      throw error;
    }
    checkout(git, temp, [...outputs, ...watchedPaths(view).outputs.map(fromTop)]);
    const result = validate(view);
    return { problems: result.problems.map(untemp), states: result.states };
  } finally {
    rmSync(temp, { recursive: true, force: true });
  }
}

/** Writes the index's copy of every file under `specs` into `temp` (git applies its filters, as a clone would). */
function checkout(git: Git, temp: string, specs: string[]): void {
  const names = git.raw(['ls-files', '-z', '--', ...specs]);
  if (names.length) git.raw(['checkout-index', '-z', '--stdin', '-f', `--prefix=${temp}/`], names);
}
