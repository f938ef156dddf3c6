import type { Context } from '../shared/context.ts';
import type { Problem } from '../shared/problem.ts';
import { planRender } from './plan.ts';
import { compareWithDisk, type FileState } from './state.ts';
import { applyStates } from './write.ts';

export interface RenderResult {
  ok: boolean;
  states: FileState[];
  problems: Problem[];
  written: string[];
  removed: string[];
}

/**
 * `gateline render [--check]`. Everything is planned and checked first; with any problem
 * nothing is written. `check` compares only and never writes.
 */
export function renderAll(ctx: Context, { check = false } = {}): RenderResult {
  const plan = planRender(ctx);
  const compared = plan.problems.length ? { states: [], problems: [] } : compareWithDisk(ctx.root, plan);
  const problems = [...plan.problems, ...compared.problems];
  const result = { ok: problems.length === 0, states: compared.states, problems, written: [] as string[], removed: [] as string[] };
  if (!result.ok) return { ...result, states: [] };
  if (check) return { ...result, ok: compared.states.every((s) => s.status === 'fresh') };
  return { ...result, ...applyStates(ctx.root, compared.states) };
}
