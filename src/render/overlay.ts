import { existsSync } from 'node:fs';
import type { Problem } from '../shared/problem.ts';
import { lineAt, readInput } from '../shared/text.ts';

export interface Overlay {
  /** Display path, relative to the repository root. */
  file: string;
  present: boolean;
  /** Zero bytes or only white space: `validate` reports it. */
  empty: boolean;
  /** What gets spliced: '' when the file is absent, empty, or holds only HTML comments. */
  splice: string;
}

export function readOverlay(path: string, file: string, problems: Problem[]): Overlay {
  if (!existsSync(path)) return { file, present: false, empty: true, splice: '' };
  const read = readInput(path, file, problems);
  if (read === undefined) return { file, present: true, empty: false, splice: '' };
  const text = read.trim();
  const open = text.replace(/<!--[\s\S]*?-->/g, (c) => ' '.repeat(c.length)).indexOf('<!--');
  if (open >= 0) {
    problems.push({ file, line: lineAt(text, open), message: "HTML comment is not closed: add '-->'" });
    return { file, present: true, empty: false, splice: '' };
  }
  const commentOnly = text.replace(/<!--[\s\S]*?-->/g, '').trim() === '';
  return { file, present: true, empty: text === '', splice: commentOnly ? '' : text };
}

/** What the overlays add to an agent: each spliced one after a line that names its file. */
export function splices(overlays: Overlay[]): string[] {
  return overlays.filter((o) => o.splice).map((o) => `<!-- overlay: ${o.file} -->\n${o.splice}`);
}
