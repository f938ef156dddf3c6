import type { Problem } from '../shared/problem.ts';
import { PIPELINE } from './dispatch.ts';
import { addMeters, type Meter } from './meter.ts';
import type { Outcome } from './pipeline.ts';
import type { RunRecord } from './record.ts';
import type { StepResult } from './step.ts';
import { formatTable } from './table.ts';

// The end-of-run cost table: one row per role (summing its rounds), then the total. "runner-reported"
// is the runner's own figure; "estimated" is tokens x the registry's ILLUSTRATIVE prices.

export interface RoleCost extends Meter {
  role: string;
  adapter: string;
  model: string;
  runs: number;
}

/** How a run ended: the pipeline's outcome, or a failure that stopped it. */
export type Ending = Outcome | { code: 1 | 130; reason: string; status: string; problems: Problem[] };

/**
 * The run's summary.json, and what --json prints. `ok` and `problems` have the shape every failed
 * `gateline up --json` prints, so a script reads a failed run like any other failure.
 */
export function runSummary(record: RunRecord, steps: StepResult[], ending: Ending) {
  const roles = roleCosts(steps);
  const ok = ending.code === 0;
  const problems = 'problems' in ending ? ending.problems : [{ file: `${record.display}/summary.json`, message: ending.reason }];
  return {
    ok,
    id: record.id,
    status: 'status' in ending ? ending.status : ok ? 'pass' : 'fail',
    verdict: 'verdict' in ending ? ending.verdict : undefined,
    reason: ending.reason,
    exitCode: ending.code,
    ...(ok ? {} : { problems }),
    steps: steps.map((s) => ({ label: s.label, ...s.binding, resumed: s.resumed, session: s.parsed.session, ...s.meter })),
    roles,
    total: addMeters(roles),
  };
}

export function roleCosts(steps: StepResult[]): RoleCost[] {
  return PIPELINE.flatMap((role) => {
    const mine = steps.filter((s) => s.binding.role === role);
    const first = mine[0];
    if (!first) return [];
    return [
      { role, adapter: first.binding.adapter, model: first.binding.model, runs: mine.length, ...addMeters(mine.map((s) => s.meter)) },
    ];
  });
}

export function costTable(rows: RoleCost[]): string {
  const total = addMeters(rows);
  const line = (m: Meter) => [count(m.tokensIn), count(m.tokensOut), usd(m.costUsd, m.basis), m.basis];
  return formatTable(
    ['role', 'adapter', 'model', 'runs', 'tokens in', 'tokens out', 'cost', 'basis'],
    [
      ...rows.map((r) => [r.role, r.adapter, r.model, String(r.runs), ...line(r)]),
      ['total', '', '', String(rows.reduce((n, r) => n + r.runs, 0)), ...line(total)],
    ],
  );
}

const count = (n: number | undefined) => (n === undefined ? '-' : String(n));
// An unknown part makes the sum a lower bound, so it says so.
const usd = (n: number | undefined, basis: Meter['basis']) =>
  n === undefined ? '-' : `${basis === 'unknown' ? '>= ' : ''}$${n.toFixed(4)}`;
