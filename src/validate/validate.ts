import type { Context } from '../render/context.ts';
import { renderAll } from '../render/render.ts';
import { rules } from '../render/rules.ts';
import { discoveryFolders, runnerView } from '../render/runner-view.ts';
import type { FileState } from '../render/state.ts';
import { hashTree, integrityOf } from '../shared/integrity.ts';
import type { Problem } from '../shared/problem.ts';

/** `gateline validate`: every problem with the host or checkout, collected, none fatal on its own. */
export function validate(ctx: Context): { problems: Problem[]; states: FileState[] } {
  // In a host the command is the vendored core's own entry: there is no `gateline` on PATH.
  const FIX_RENDER = `run ${ctx.mode === 'host' ? `node ${ctx.coreDisplay}/src/gateline.mjs render` : 'gateline render'}`;
  const problems: Problem[] = [];
  if (ctx.lock) problems.push(...checkCore(ctx));
  const result = renderAll(ctx, { check: true });
  problems.push(...result.problems);
  const misplaced = rules.overlaysInPlace(result.overlays);
  problems.push(...misplaced);
  // An emptied or deleted overlay makes every render it fed stale: one line says so, the overlay is the fix.
  const stale = result.states.filter((s) => s.status === 'stale' && !s.reformatted);
  if (misplaced.length && stale.length)
    problems.push({
      file: misplaced[0]?.file ?? '',
      message: `and ${stale.length} rendered file(s) differ from it: restore the overlay (or write your policy into it), then ${FIX_RENDER}`,
    });
  problems.push(...runnersView(ctx, result));
  for (const state of result.states) {
    if (misplaced.length && stale.includes(state)) continue;
    if (state.status === 'missing') problems.push({ file: state.path, message: `is not rendered yet: ${FIX_RENDER}` });
    if (state.status === 'stale' && state.reformatted)
      problems.push({
        file: state.path,
        message: `this looks reformatted by a tool: keep your formatters and linters off it (create-gateline writes their ignore entries), then ${FIX_RENDER}`,
      });
    else if (state.status === 'stale')
      problems.push({ file: state.path, message: `is stale (its role spec, manifest or overlays changed): ${FIX_RENDER}` });
    if (state.status === 'orphan')
      problems.push({ file: state.path, message: `is an orphan (its role is no longer rendered): ${FIX_RENDER} to remove it` });
  }
  return { problems, states: result.states };
}

/** What each selected runner discovers as an agent, beside what gateline renders; and where the core sits. */
function runnersView(ctx: Context, result: ReturnType<typeof renderAll>): Problem[] {
  const selected = result.manifests.filter((m) => !ctx.selected || ctx.selected.includes(m.adapter));
  const orphans = new Set(result.states.filter((s) => s.status === 'orphan').map((s) => s.path));
  const problems = runnerView(ctx.root, selected, orphans);
  if (ctx.prefix)
    problems.unshift(...rules.prefixOutsideDiscovery(ctx.prefix, discoveryFolders(result.manifests), `${ctx.prefix}/framework-lock.json`));
  return problems;
}

/** The vendored core must be exactly what the lock pinned; every differing file is named. */
function checkCore(ctx: Context): Problem[] {
  if (!ctx.lock) return [];
  const at = { lockFile: `${ctx.prefix}/framework-lock.json`, coreDisplay: ctx.coreDisplay };
  return rules.coreMatchesLock(ctx.lock, integrityOf(ctx.lock.files), hashTree(ctx.coreRoot), at);
}
