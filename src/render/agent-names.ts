// The names a hand-written agent file claims, read the way a runner's YAML or TOML parser reads
// them, for the runner's-view rules. The readers are small and strict: a `name` they cannot read
// as a YAML or TOML parser would (a block scalar, an alias, a flow mapping, a quoted name over
// several lines, a frontmatter longer than gateline reads) is reported as unreadable, and the
// rule refuses it, rather than guessing.

export interface Claim {
  name: string;
  line: number;
}

export interface Claims {
  names: Claim[];
  unreadable?: { line: number; why: string };
}

/** Every line break some YAML or TOML parser honours; splitting on more only adds lines to read. */
const BREAK = /\r\n|\r|\n|\u0085|\u2028|\u2029/;

/** The frontmatter's lines with their 1-based numbers; undefined when the file has none. */
export function frontmatterLines(
  text: string,
  whole: boolean,
): { lines: { text: string; no: number }[] } | { unreadable: Claims['unreadable'] } | undefined {
  const all = text.replace(/^\uFEFF/, '').split(BREAK);
  let start = 0;
  while (start < all.length && (all[start] ?? '').trim() === '') start++;
  if (!/^---(\s.*)?$/.test(all[start] ?? '')) return undefined;
  const end = all.findIndex((line, i) => i > start && /^---\s*$/.test(line));
  if (end < 0)
    return whole ? undefined : { unreadable: { line: start + 1, why: 'its frontmatter does not end within the first MiB gateline reads' } };
  return { lines: all.slice(start + 1, end).map((line, i) => ({ text: line, no: start + 2 + i })) };
}

/** The `name` values of a YAML frontmatter: top-level keys, and the keys of top-level list items (Gemini CLI's remote agents). */
export function frontmatterNames(text: string, whole: boolean): Claims {
  const fm = frontmatterLines(text, whole);
  if (!fm) return { names: [] };
  if ('unreadable' in fm) return { names: [], unreadable: fm.unreadable };
  const names: Claim[] = [];
  let itemIndent = -1;
  let nameOpen = false; // the last key was `name` with a plain or empty value: an indented line would continue it
  for (const { text: line, no } of fm.lines) {
    if (/^\s*(#.*)?$/.test(line)) continue;
    const indent = (/^[ \t]*/.exec(line)?.[0] ?? '').length;
    let content = line.slice(indent);
    if (indent === 0 && /^-(\s|$)/.test(content)) {
      const after = content.slice(1);
      itemIndent = 1 + (/^\s*/.exec(after)?.[0] ?? '').length;
      content = after.trimStart();
      if (content === '') continue;
    } else if (indent === 0) itemIndent = -1;
    else if (indent !== itemIndent) {
      if (nameOpen) return { names, unreadable: { line: no, why: 'its name continues on a second line' } };
      continue;
    }
    const key = yamlKey(content);
    nameOpen = false;
    if (!key) {
      if (/name/i.test(decodeEscapes(content)))
        return {
          names,
          unreadable: { line: no, why: 'this line is not a plain `key: value` (a flow mapping, complex key, anchor or tag)' },
        };
      continue;
    }
    if (key.key === '<<') return { names, unreadable: { line: no, why: 'a merge key (<<) may bring in a name from elsewhere' } };
    if (key.key !== 'name') continue;
    const value = yamlScalar(key.rest);
    if ('why' in value) return { names, unreadable: { line: no, why: value.why } };
    if (value.open) nameOpen = true;
    if (value.value !== '') names.push({ name: value.value, line: no });
  }
  return { names };
}

/** `key: rest` with a plain, single- or double-quoted key; undefined for anything else. */
function yamlKey(content: string): { key: string; rest: string } | undefined {
  const m = /^(?:"((?:[^"\\]|\\.)*)"|'((?:[^']|'')*)'|([^\s#:?{}[\]&*!|>%@`'",][^:]*?))[ \t]*:(?:[ \t]+|$)(.*)$/.exec(content);
  if (!m) return undefined;
  const key = m[1] !== undefined ? decodeEscapes(m[1]) : m[2] !== undefined ? m[2].replaceAll("''", "'") : (m[3] ?? '');
  return { key, rest: m[4] ?? '' };
}

/** A one-line YAML scalar: plain (open: may continue below), single- or double-quoted. */
function yamlScalar(rest: string): { value: string; open?: boolean } | { why: string } {
  const s = rest.trim();
  if (s === '' || s.startsWith('#')) return { value: '', open: true };
  if (s.startsWith('"') || s.startsWith("'")) {
    const m = s.startsWith('"') ? /^"((?:[^"\\]|\\.)*)"(.*)$/.exec(s) : /^'((?:[^']|'')*)'(?!')(.*)$/.exec(s);
    if (!m) return { why: 'its quoted name does not end on its line' };
    if (!/^\s*(#.*)?$/.test(m[2] ?? '')) return { why: 'text follows its quoted name' };
    return { value: s.startsWith('"') ? decodeEscapes(m[1] ?? '') : (m[1] ?? '').replaceAll("''", "'") };
  }
  if (/^[|>&*!{[%@`]/.test(s)) return { why: 'its name is a YAML block, anchor, alias, tag or collection' };
  return { value: s.replace(/[ \t]#.*$/, '').trim(), open: true };
}

const SIMPLE: Record<string, string> = {
  0: '\0',
  a: '\x07',
  b: '\b',
  t: '\t',
  n: '\n',
  v: '\v',
  f: '\f',
  r: '\r',
  e: '\x1b',
  N: '\x85',
  _: '\xa0',
  L: '\u2028',
  P: '\u2029',
};

/** YAML double-quoted and TOML basic-string escapes. */
function decodeEscapes(s: string): string {
  return s.replace(/\\(x[0-9A-Fa-f]{2}|u[0-9A-Fa-f]{4}|U[0-9A-Fa-f]{8}|.)/g, (all, e: string) => {
    if (/^[xuU]./.test(e)) {
      const code = Number.parseInt(e.slice(1), 16);
      return code <= 0x10ffff ? String.fromCodePoint(code) : all;
    }
    return SIMPLE[e] ?? e;
  });
}

/** The top-level `name` values of a TOML file (before its first table). */
export function tomlNames(text: string, whole: boolean): Claims {
  const names: Claim[] = [];
  const lines = text.replace(/^\uFEFF/, '').split(BREAK);
  let open: string | undefined; // the delimiter of a multi-line string being skipped
  let depth = 0; // open brackets of a multi-line array
  for (const [i, raw] of lines.entries()) {
    const no = i + 1;
    let line = raw;
    if (open) {
      const close = closing(line, open);
      if (close < 0) continue;
      line = line.slice(close + 3);
      open = undefined;
      continue;
    }
    if (depth > 0) {
      depth += brackets(line);
      continue;
    }
    line = line.trim();
    if (line === '' || line.startsWith('#')) continue;
    if (line.startsWith('[')) return { names }; // a table: what follows is not top-level
    const m = /^(?:"((?:[^"\\]|\\.)*)"|'([^']*)'|([A-Za-z0-9_-]+))\s*(=|\.)\s*(.*)$/.exec(line);
    if (!m) {
      if (/name/i.test(decodeEscapes(line))) return { names, unreadable: { line: no, why: 'this line is not a plain `key = value`' } };
      continue;
    }
    const key = m[1] !== undefined ? decodeEscapes(m[1]) : (m[2] ?? m[3] ?? '');
    const isName = key === 'name' && m[4] === '=';
    let value = m[5] ?? '';
    if (m[4] === '.') value = value.replace(/^[^=]*=\s*/, ''); // a dotted key: skip to its value
    for (const delim of ['"""', "'''"]) {
      if (!value.startsWith(delim)) continue;
      if (isName) return { names, unreadable: { line: no, why: 'its name is a multi-line string' } };
      if (closing(value.slice(3), delim) < 0) open = delim;
      value = '';
    }
    if (value.startsWith('[')) depth = brackets(value);
    if (!isName) continue;
    const str = /^"((?:[^"\\]|\\.)*)"\s*(#.*)?$/.exec(value) ?? /^'([^']*)'\s*(#.*)?$/.exec(value);
    if (str) names.push({ name: value.startsWith('"') ? decodeEscapes(str[1] ?? '') : (str[1] ?? ''), line: no });
    else if (/^["']/.test(value)) return { names, unreadable: { line: no, why: 'its name is not a string on one line' } };
  }
  // Top-level keys may follow a long string: a file cut short may hide one.
  if (!whole) return { names, unreadable: { line: lines.length, why: 'it is longer than the MiB gateline reads' } };
  return { names };
}

/** Where a multi-line string's delimiter closes on `line` (an escaped quote does not close a basic string); -1 when it does not. */
function closing(line: string, delim: string): number {
  for (let i = line.indexOf(delim); i >= 0; i = line.indexOf(delim, i + 1)) {
    if (delim === "'''") return i;
    let backslashes = 0;
    for (let j = i - 1; j >= 0 && line[j] === '\\'; j--) backslashes++;
    if (backslashes % 2 === 0) return i;
  }
  return -1;
}

/** Open minus closed brackets outside strings on a line of a TOML array. */
function brackets(line: string): number {
  const bare = line.replace(/"(?:[^"\\]|\\.)*"|'[^']*'/g, '').replace(/#.*$/, '');
  return (bare.match(/\[/g)?.length ?? 0) - (bare.match(/]/g)?.length ?? 0);
}
