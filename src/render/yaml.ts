// The one way a string is written into YAML frontmatter (keys and values alike): plain when it
// cannot read as anything else in any YAML version a runner uses, else a double-quoted scalar
// with every character a parser could take for a line break, a BOM or a non-printable escaped.
// What no quoting can make safe (a lone surrogate; `---`, which ends Claude Code's frontmatter
// wherever it appears) is refused before rendering (rules/manifest.ts), so reaching it here is a bug.

// A letter first (no number, sign, indicator or document marker), then only characters that
// are plain in block context; no ': ', ' #', quotes or backslashes.
const PLAIN = /^[A-Za-z][A-Za-z0-9 _.,;()/'+-]*$/;
// YAML 1.1 booleans and nulls (Y, on, off...) are still read as such by some parsers.
const KEYWORD = /^(true|false|null|yes|no|on|off|y|n)$/i;
// C0, DEL, C1 (NEL), the line and paragraph separators, BOM and the two noncharacters.
// biome-ignore lint/suspicious/noControlCharactersInRegex: these are the characters to escape.
const ESCAPED = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\ufeff\ufffe\uffff"\\]/g;
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** A YAML scalar that every runner's parser reads back as exactly `value` (numbers and booleans as such). */
export function yamlScalar(value: string | number | boolean, { quote = false } = {}): string {
  if (typeof value !== 'string') return String(value);
  const unsafe = () => new Error(`unsafe frontmatter value reached the emitter: ${JSON.stringify(value)}`);
  if (value.includes('---')) throw unsafe();
  // A plain scalar is ASCII, so it holds no surrogate: the scan for a lone one is for the rest.
  if (!quote && PLAIN.test(value) && !value.endsWith(' ') && !KEYWORD.test(value)) return value;
  if (LONE_SURROGATE.test(value)) throw unsafe();
  return `"${value.replace(ESCAPED, (c) => (c === '"' || c === '\\' ? `\\${c}` : `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`))}"`;
}
