import { styleText } from 'node:util';
import { shortDiff } from '../render/diff.ts';
import type { FileState } from '../render/state.ts';
import { formatProblem, type Problem } from './problem.ts';

// Prose output of the core commands. Colour follows NO_COLOR / FORCE_COLOR and whether the
// stream is a terminal (styleText checks the stream it is given).

type Stream = NodeJS.WritableStream & { isTTY?: boolean };
type Format = Parameters<typeof styleText>[0];

export function paint(format: Format, text: string, stream: Stream): string {
  return styleText(format, text, { stream });
}

export function problemLines(problems: Problem[], stream: Stream): string[] {
  return problems.map((p) => {
    const [where, ...rest] = formatProblem(p).split(': ');
    return `${paint('red', `${where}:`, stream)} ${rest.join(': ')}`;
  });
}

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
    for (const line of shortDiff(state.current ?? '', state.next ?? '')) {
      const color = line.startsWith('-') ? 'red' : line.startsWith('+') ? 'green' : 'dim';
      out.push(`    ${paint(color, line, stream)}`);
    }
  }
  return out;
}
