import { styleText } from 'node:util';
import { formatProblem, type Problem } from './problem.ts';

// Prose output of the core commands. Colour follows NO_COLOR / FORCE_COLOR and whether the
// stream is a terminal (styleText checks the stream it is given).

export type Stream = NodeJS.WritableStream & { isTTY?: boolean };
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
