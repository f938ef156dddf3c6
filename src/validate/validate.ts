import { renderAll } from '../render/render.ts';
import type { FileState } from '../render/state.ts';
import type { Context } from '../shared/context.ts';
import { hashTree, integrityOf } from '../shared/integrity.ts';
import type { Problem } from '../shared/problem.ts';

const FIX_RENDER = 'run gateline render';

/** `gateline validate`: every problem with the host or checkout, collected, none fatal on its own. */
export function validate(ctx: Context): { problems: Problem[]; states: FileState[] } {
  const problems: Problem[] = [];
  if (ctx.lock) problems.push(...checkCore(ctx));
  const result = renderAll(ctx, { check: true });
  problems.push(...result.problems);
  for (const overlay of result.overlays) {
    if (!overlay.present) {
      problems.push({ file: overlay.file, message: 'overlay is missing: create it (a comment-only stub splices nothing and is fine)' });
    } else if (overlay.empty) {
      problems.push({ file: overlay.file, message: 'overlay is empty: write your policy there, or restore the comment-only stub' });
    }
  }
  for (const state of result.states) {
    if (state.status === 'missing') problems.push({ file: state.path, message: `is not rendered yet: ${FIX_RENDER}` });
    if (state.status === 'stale')
      problems.push({ file: state.path, message: `is stale (its role spec, manifest or overlays changed): ${FIX_RENDER}` });
    if (state.status === 'orphan')
      problems.push({ file: state.path, message: `is an orphan (its role is no longer rendered): ${FIX_RENDER} to remove it` });
  }
  return { problems, states: result.states };
}

/** The vendored core must be exactly what the lock pinned; every differing file is named. */
function checkCore(ctx: Context): Problem[] {
  const lock = ctx.lock;
  if (!lock) return [];
  const problems: Problem[] = [];
  const lockFile = `${ctx.prefix}/framework-lock.json`;
  const reinstall = 'restore it with git, or run the installer again to re-vendor the core';
  if (integrityOf(lock.files) !== lock.integrity) {
    problems.push({
      file: lockFile,
      message: "'integrity' does not match the lock's own file list: the lock was edited by hand; run the installer again",
    });
  }
  const actual = hashTree(ctx.coreRoot);
  for (const [path, hash] of Object.entries(lock.files)) {
    const file = `${ctx.coreDisplay}/${path}`;
    if (!Object.hasOwn(actual, path)) problems.push({ file, message: `is missing from the vendored core: ${reinstall}` });
    else if (actual[path] !== hash)
      problems.push({ file, message: `was edited after vendoring (it no longer matches the lock): ${reinstall}` });
  }
  for (const path of Object.keys(actual)) {
    if (!Object.hasOwn(lock.files, path)) {
      problems.push({
        file: `${ctx.coreDisplay}/${path}`,
        message: 'is not part of the vendored core the lock pins: delete it, or run the installer again',
      });
    }
  }
  return problems;
}
