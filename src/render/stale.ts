import { paint, type Stream } from '../shared/report.ts';
import type { FileState } from './state.ts';

const WHAT: Record<Exclude<FileState['status'], 'fresh'>, string> = {
  missing: 'missing (not rendered yet)',
  stale: 'stale (differs from what its role spec, manifest and overlays render)',
  orphan: 'orphan (rendered earlier, no longer planned; render removes it)',
};

/** The report of `render --check` for files that are not fresh, with a short diff of each. */
export function staleLines(states: FileState[], stream: Stream): string[] {
  const out: string[] = [];
  for (const state of states) {
    if (state.status === 'fresh') continue;
    out.push(`${paint('red', `${state.path}:`, stream)} ${WHAT[state.status]}`);
    for (const line of state.diff ?? []) {
      const color = line.startsWith('-') ? 'red' : line.startsWith('+') ? 'green' : 'dim';
      out.push(`    ${paint(color, line, stream)}`);
    }
  }
  return out;
}
