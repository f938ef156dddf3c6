import { accessSync, constants, statSync } from 'node:fs';
import { delimiter, isAbsolute, join, resolve } from 'node:path';
import { renderAll } from '../render/render.ts';
import { FrameworkError, type Problem } from '../shared/problem.ts';
import type { Adapter } from './adapter.ts';
import type { Binding } from './dispatch.ts';
import { prepareLanes } from './lanes.ts';
import type { RunRecord } from './record.ts';
import type { Workspace } from './workspace.ts';

// Whether each lane would run, decided once for `--plan` and for the run alike, so the plan can
// never approve what the run refuses. A lane is refused when its agent files are not fresh or
// cannot be rendered (a floor), its runner is not on PATH, or preparing it is refused (a runner
// that takes no agent file without --accept-unnarrowed, a permission bypass, no headless block):
// that last part is the run's own lane preparation, run on its own for each lane.

export interface LaneVerdict extends Binding {
  run: 'ok' | 'refused';
  problems: Problem[];
}

export interface Preflight {
  ok: boolean;
  lanes: LaneVerdict[];
  /** Every lane's problems, in pipeline order, each once. */
  problems: Problem[];
  /** What the run says at its start (a lane run unnarrowed with consent). */
  notes: string[];
}

export function preflight(ws: Workspace, options: { accepted: string[]; env: NodeJS.ProcessEnv }): Preflight {
  const fresh = new Map(ws.adapters.map((a) => [a.name, freshness(ws, a)]));
  const notes: string[] = [];
  const lanes = ws.dispatch.bindings.map((binding): LaneVerdict => {
    const adapter = ws.adapters.find((a) => a.name === binding.adapter) as Adapter;
    const problems = [...(fresh.get(adapter.name)?.(binding.role) ?? [])];
    const command = adapter.headless?.command;
    if (command && !onPath(command, ws.ctx.root, options.env)) {
      const install = adapter.manifest.runner ? `install ${adapter.manifest.runner.package}` : 'install it';
      problems.push({
        file: adapter.manifest.file,
        message: `${binding.role}: the runner '${command}' (adapter ${adapter.name}) was not found on PATH: ${install}, or put it on PATH`,
      });
    }
    // The agent file is read while the lane is prepared: a missing one is already a problem above.
    if (problems.length === 0) problems.push(...prepared(ws, binding, options.accepted, notes));
    return { ...binding, run: problems.length ? 'refused' : 'ok', problems };
  });
  const problems: Problem[] = [];
  const seen = new Set<string>();
  // Each once; the render hint after the files it is about.
  const hint = (p: Problem) => p.file === 'gateline up' && p.message.startsWith(STALE);
  const all = lanes.flatMap((l) => l.problems);
  for (const p of [...all.filter((p) => !hint(p)), ...all.filter(hint)]) {
    const key = JSON.stringify([p.file, p.line, p.message]);
    if (!seen.has(key)) problems.push(p);
    seen.add(key);
  }
  return { ok: problems.length === 0, lanes, problems, notes };
}

/** The run's own lane preparation for one lane, with nothing kept: its refusals, as problems. */
function prepared(ws: Workspace, binding: Binding, accepted: string[], notes: string[]): Problem[] {
  const scratch: RunRecord = { id: 'plan', dir: '', display: '(plan)', write: () => {} };
  try {
    const lanes = prepareLanes({ ...ws, dispatch: { ...ws.dispatch, bindings: [binding] } }, scratch, accepted);
    lanes.cleanup();
    notes.push(...lanes.notes);
    return [];
  } catch (error) {
    if (error instanceof FrameworkError) return error.problems;
    throw error;
  }
}

const STALE = 'the agent files are not fresh: run gateline render first';

/** The command that renders, as the user types it here. */
function renderHint(ws: Workspace): Problem {
  const fix = ws.ctx.mode === 'host' ? `node ${ws.ctx.coreDisplay}/src/gateline.mjs render` : 'node src/gateline.mjs render';
  return { file: 'gateline up', message: `${STALE} (${fix})` };
}

/**
 * The adapter's agent files must be rendered and fresh: a run on stale files runs an old policy,
 * and one that cannot render (a floor) runs none. Returns each role's problems: those naming the
 * role or its file, else every problem of the adapter (nothing of it can be checked then).
 */
function freshness(ws: Workspace, adapter: Adapter): (role: string) => Problem[] {
  const { states, problems } = renderAll({ ...ws.ctx, selected: [adapter.name] }, { check: true });
  const stale = states.filter((s) => s.status === 'missing' || s.status === 'stale');
  const found: Problem[] = [...problems, ...stale.map((s) => ({ file: s.path, message: `is ${s.status}` }))];
  return (role) => {
    const file = `${adapter.manifest.outputDir}/${adapter.manifest.filename.replaceAll('{role}', role)}`;
    const mine = found.filter((p) => p.file === file || p.message.includes(`role '${role}'`));
    const ours = mine.length ? mine : problems.length ? problems : [];
    return ours.length ? [...ours, renderHint(ws)] : [];
  };
}

/** True when `command` would start: a path (relative to the run's folder) or a name on PATH, executable. */
function onPath(command: string, cwd: string, env: NodeJS.ProcessEnv): boolean {
  const candidates = command.includes('/')
    ? [isAbsolute(command) ? command : resolve(cwd, command)]
    : (env.PATH ?? '')
        .split(delimiter)
        .filter(Boolean)
        .map((dir) => join(resolve(cwd, dir), command));
  return candidates.some((file) => {
    try {
      accessSync(file, constants.X_OK);
      return statSync(file).isFile();
    } catch {
      return false;
    }
  });
}
