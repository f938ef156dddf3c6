// The `git add` command `validate --staged` prints, written so that pasting it into a shell stages
// exactly the files named, whatever their names hold.

/**
 * `git add -- <paths>`: `--` so a name starting with '-' is not an option; `-f` when a file is
 * ignored (git would refuse it otherwise); `--literal-pathspecs` when a name holds a character git
 * reads as a wildcard or a leading ':' (pathspec magic), so it names that file and no other.
 */
export function gitAddCommand(paths: string[], { force = false } = {}): string {
  const literal = paths.some((p) => /[*?[\\]/.test(p) || p.startsWith(':'));
  return ['git', ...(literal ? ['--literal-pathspecs'] : []), 'add', ...(force ? ['-f'] : []), '--', ...paths.map(shellWord)].join(' ');
}

// Characters that would act on the terminal when printed (C0, DEL, C1, bidirectional overrides).
// biome-ignore lint/suspicious/noControlCharactersInRegex: these are the characters escaped.
const UNPRINTABLE = /[\u0000-\u001f\u007f-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069]/;

/**
 * One shell word: as is when it is plain, else single-quoted (a quote inside becomes '\''); a
 * name with control characters (a newline, an escape sequence) is written $'...' with each one
 * escaped, so printing it cannot move the cursor or split the command (bash, zsh, ksh, POSIX 2024 sh).
 */
export function shellWord(word: string): string {
  if (/^[A-Za-z0-9_./@%+=,-]+$/.test(word)) return word;
  if (!UNPRINTABLE.test(word)) return `'${word.replaceAll("'", "'\\''")}'`;
  let out = '';
  for (const ch of word) {
    const code = ch.codePointAt(0) ?? 0;
    if (ch === '\\' || ch === "'") out += `\\${ch}`;
    else if (ch === '\n') out += '\\n';
    else if (ch === '\t') out += '\\t';
    else if (ch === '\r') out += '\\r';
    else if (code < 0x80 && UNPRINTABLE.test(ch)) out += `\\x${code.toString(16).padStart(2, '0')}`;
    else if (UNPRINTABLE.test(ch)) out += `\\u${code.toString(16).padStart(4, '0')}`;
    else out += ch;
  }
  return `$'${out}'`;
}
