import type { Problem } from '../shared/problem.ts';

// A deliberately small reader: `key: value` and `key: [a, b]` lines between `---` fences.
// Anything else is an error with its line, never a guess (docs/adapters.md, role specs).

export type FrontmatterValue = string | string[];

export interface Frontmatter {
  fields: Map<string, { value: FrontmatterValue; line: number }>;
  body: string;
}

const KEY_LINE = /^([A-Za-z_][A-Za-z0-9_-]*):(?:\s+(.*))?$/;

export function parseFrontmatter(text: string, file: string, problems: Problem[]): Frontmatter | undefined {
  const lines = frontmatterLines(text);
  if (lines.head[0]?.trimEnd() !== '---') {
    problems.push({ file, line: 1, message: "missing frontmatter: the file must start with a '---' line" });
    return undefined;
  }
  if (lines.body === undefined) {
    problems.push({ file, line: 1, message: "frontmatter is not closed: add a '---' line after the last key" });
    return undefined;
  }
  const fields: Frontmatter['fields'] = new Map();
  const before = problems.length;
  for (let i = 1; i < lines.head.length - 1; i++) {
    const raw = (lines.head[i] ?? '').trimEnd();
    const line = i + 1;
    if (raw.trim() === '' || raw.startsWith('#')) continue;
    const match = KEY_LINE.exec(raw);
    if (!match) {
      problems.push({ file, line, message: `cannot parse '${raw.trim()}': only 'key: value' and 'key: [a, b]' lines are allowed` });
      continue;
    }
    const key = match[1] as string;
    if (fields.has(key)) {
      problems.push({ file, line, message: `'${key}' is set twice` });
      continue;
    }
    const value = parseValue((match[2] ?? '').trim(), key, file, line, problems);
    if (value !== undefined) fields.set(key, { value, line });
  }
  if (problems.length > before) return undefined;
  return { fields, body: lines.body };
}

/**
 * The lines up to and including the closing fence, and the text after it; the body is cut out
 * whole, not split into lines and joined again. No body when the first line is not a fence or
 * no line closes it.
 */
function frontmatterLines(text: string): { head: string[]; body?: string } {
  const head: string[] = [];
  for (let start = 0; start <= text.length; ) {
    const end = text.indexOf('\n', start);
    const line = end < 0 ? text.slice(start) : text.slice(start, end);
    head.push(line);
    const fence = line.trimEnd() === '---';
    if (head.length === 1 && !fence) return { head };
    if (head.length > 1 && fence) return { head, body: end < 0 ? '' : text.slice(end + 1) };
    if (end < 0) break;
    start = end + 1;
  }
  return { head };
}

function parseValue(text: string, key: string, file: string, line: number, problems: Problem[]): FrontmatterValue | undefined {
  if (text === '') {
    problems.push({ file, line, message: `'${key}' has no value` });
    return undefined;
  }
  if (text.startsWith('[')) {
    if (!text.endsWith(']')) {
      problems.push({ file, line, message: `'${key}': a list must close with ']' on the same line` });
      return undefined;
    }
    const inner = text.slice(1, -1).trim();
    if (inner === '') return [];
    const items = inner.split(',').map((item) => unquote(item.trim()));
    if (items.some((item) => item === undefined || item === '')) {
      problems.push({ file, line, message: `'${key}': a list item is empty or badly quoted` });
      return undefined;
    }
    return items as string[];
  }
  const value = unquote(text);
  if (value === undefined) problems.push({ file, line, message: `'${key}': the quoted value is not closed or not valid` });
  return value;
}

function unquote(text: string): string | undefined {
  if (text.startsWith('"')) {
    if (text.length < 2 || !text.endsWith('"')) return undefined;
    try {
      return JSON.parse(text) as string;
    } catch {
      return undefined;
    }
  }
  if (text.startsWith("'")) {
    if (text.length < 2 || !text.endsWith("'")) return undefined;
    return text.slice(1, -1).replaceAll("''", "'");
  }
  return text;
}
