import type { Agent } from './emit.ts';
import { header } from './header.ts';
import { splices } from './overlay.ts';

// Codex agents are TOML and have no tool list: a role's capabilities narrow onto the sandbox and
// web search settings. What Codex cannot withhold (commands, reads, an inherited sandbox) is the
// manifest's `floor`, checked before anything is emitted.

export function emitToml(agent: Agent): string {
  const { role, manifest } = agent;
  const caps: string[] = role.capabilities;
  const lines = [
    `# ${header(role, agent.host)}`,
    `name = ${tomlValue(role.name)}`,
    `description = ${tomlValue(role.dispatch)}`,
    `model = ${tomlValue(agent.model)}`,
    `sandbox_mode = ${tomlValue(caps.includes('edit') || caps.includes('write') ? 'workspace-write' : 'read-only')}`,
    `web_search = ${tomlValue(caps.includes('web') ? 'live' : 'disabled')}`,
  ];
  for (const [key, value] of Object.entries(manifest.extraFrontmatter)) lines.push(`${key} = ${tomlValue(value)}`);
  lines.push(`developer_instructions = ${tomlMultiline([role.body, ...splices(agent.overlays)].join('\n\n'))}`);
  lines.push('');
  return lines.join('\n');
}

// The one way a value is written into TOML: in a basic string, every character TOML forbids raw
// (controls, DEL) or that some reader takes for a line break (NEL, LS, PS) or strips (BOM) is
// escaped; numbers and booleans as written (the loader allows only plain decimals). A lone
// surrogate cannot be written at all: the rules refuse it first, so reaching it here is a bug.
// biome-ignore lint/suspicious/noControlCharactersInRegex: these are the characters to escape.
const ESCAPED = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\ufeff"\\]/g;
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** The text with ESCAPED characters escaped, except line feeds and tabs when `multiline`. */
function escaped(text: string, multiline = false): string {
  if (LONE_SURROGATE.test(text)) throw new Error(`a lone surrogate reached the TOML emitter: ${JSON.stringify(text)}`);
  return text.replace(ESCAPED, (c) => {
    if (multiline && (c === '\n' || c === '\t')) return c;
    return c === '"' || c === '\\' ? `\\${c}` : `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`;
  });
}

/** A TOML value that Codex reads back as exactly `value`. */
export function tomlValue(value: string | number | boolean): string {
  return typeof value === 'string' ? `"${escaped(value)}"` : String(value);
}

// Characters a literal string cannot hold raw (a lone CR included), and its own delimiter.
// biome-ignore lint/suspicious/noControlCharactersInRegex: these are what a literal string cannot hold.
const NOT_LITERAL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u2028\u2029\ufeff]|'''/;

/** A literal multi-line string when the text allows one (it reads as written), else a basic one. */
export function tomlMultiline(text: string): string {
  if (!NOT_LITERAL.test(text)) return `'''\n${text}\n'''`;
  return `"""\n${escaped(text, true)}\n"""`;
}
