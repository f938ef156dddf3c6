import { existsSync } from 'node:fs';
import type { Problem } from '../shared/problem.ts';
import { lineAt, readInput } from '../shared/text.ts';
import { parseFrontmatter } from './frontmatter.ts';

export interface Overlay {
  /** Display path, relative to the repository root. */
  file: string;
  present: boolean;
  /** Zero bytes or only white space: `validate` reports it. */
  empty: boolean;
  /** What gets spliced: the text without its HTML comments; '' when absent, empty, or only comments. */
  splice: string;
  /** The commands the host narrows its role's shell to (a `commands:` frontmatter line), with its line. */
  commands?: { list: string[]; line: number };
}

export function readOverlay(path: string, file: string, problems: Problem[]): Overlay {
  if (!existsSync(path)) return { file, present: false, empty: true, splice: '' };
  const read = readInput(path, file, problems);
  if (read === undefined) return { file, present: true, empty: false, splice: '' };
  // An optional frontmatter holds host settings that may only narrow the role (commands:).
  let commands: Overlay['commands'];
  let content = read;
  if (hasFrontmatter(read)) {
    const fm = parseFrontmatter(read, file, problems);
    if (!fm) return { file, present: true, empty: false, splice: '' };
    for (const [key, { value, line }] of fm.fields) {
      if (key !== 'commands')
        problems.push({ file, line, message: `unknown key '${key}' (an overlay's frontmatter may set only commands)` });
      else if (!Array.isArray(value)) problems.push({ file, line, message: "'commands' must be a list of command prefixes" });
      else commands = { list: value, line };
    }
    content = fm.body;
  }
  const text = content.trim();
  const open = text.replace(/<!--[\s\S]*?-->/g, (c) => ' '.repeat(c.length)).indexOf('<!--');
  if (open >= 0) {
    problems.push({ file, line: lineAt(text, open), message: "HTML comment is not closed: add '-->'" });
    return { file, present: true, empty: false, splice: '' };
  }
  // HTML comments are notes for whoever edits the file (the installer's stub is one): never sent to a model.
  const policy = text.replace(/[ \t]*<!--[\s\S]*?-->[ \t]*(\r?\n)?/g, '').trim();
  return { file, present: true, empty: text === '' && !commands, splice: policy, ...(commands ? { commands } : {}) };
}

/** What the overlays add to an agent: each spliced one after a line that names its file. */
export function splices(overlays: Overlay[]): string[] {
  if (overlays.length === 0) return []; // a framework checkout: once per rendered file
  return overlays.filter((o) => o.splice).map((o) => `<!-- overlay: ${o.file} -->\n${o.splice}`);
}

/**
 * A leading `---` opens a frontmatter only when a closing `---` follows and every line between is
 * `key: value`: an overlay that starts with a Markdown rule stays plain policy text.
 */
function hasFrontmatter(text: string): boolean {
  const lines = text.split('\n');
  if (lines[0] !== '---') return false;
  const close = lines.indexOf('---', 1);
  return close > 1 && lines.slice(1, close).every((l) => l.trim() === '' || /^[A-Za-z_][A-Za-z0-9_-]*:(\s|$)/.test(l));
}

/** The role as the host narrows it: its overlay's commands, when it sets any, replace the role's (overlay-commands-narrow checks they are a subset). */
export function narrowedRole<R extends { commands?: string[] }>(role: R, overlay: Overlay | undefined): R {
  return overlay?.commands ? { ...role, commands: overlay.commands.list } : role;
}
