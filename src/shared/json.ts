import type { Problem } from './problem.ts';
import { lineAt } from './text.ts';

/**
 * JSON.parse, with the line of the first syntax error for the message. V8 names a position
 * only for some errors, so the position is found by a small scan of the JSON grammar.
 */
export function parseJson(text: string, file: string, problems: Problem[], hint: string): { value: unknown } | undefined {
  try {
    return { value: JSON.parse(text) };
  } catch (error) {
    const reason = (error as Error).message.replace(/ in JSON at position.*$/s, '').replace(/, ".*" is not valid JSON$/s, '');
    problems.push({ file, line: lineAt(text, errorOffset(text)), message: `not valid JSON (${reason}); ${hint}` });
    return undefined;
  }
}

// biome-ignore lint/suspicious/noControlCharactersInRegex: JSON forbids raw control characters in strings.
const STRING = /"(?:[^"\\\u0000-\u001f]|\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4}))*"/y;
const LITERAL = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?|true|false|null/y;

/** Offset of the first character that breaks the JSON grammar. */
export function errorOffset(text: string): number {
  let i = 0;
  const ws = () => {
    while (i < text.length && ' \t\n\r'.includes(text[i] as string)) i++;
  };
  const token = (re: RegExp) => {
    re.lastIndex = i;
    if (!re.test(text)) throw i;
    i = re.lastIndex;
  };
  const expect = (c: string) => {
    ws();
    if (text[i] !== c) throw i;
    i++;
  };
  const list = (close: string, item: () => void) => {
    ws();
    if (text[i] === close) return void i++;
    for (;;) {
      item();
      ws();
      if (text[i] === ',') i++;
      else return expect(close);
    }
  };
  const value = (): void => {
    ws();
    const c = text[i];
    if (c === '{') {
      i++;
      list('}', () => {
        ws();
        token(STRING);
        expect(':');
        value();
      });
    } else if (c === '[') {
      i++;
      list(']', value);
    } else token(c === '"' ? STRING : LITERAL);
  };
  try {
    value();
    ws();
    return Math.min(i, text.length);
  } catch (at) {
    return at as number;
  }
}
