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
    `name = ${tomlString(role.name)}`,
    `description = ${tomlString(role.dispatch)}`,
    `model = ${tomlString(agent.model)}`,
    `sandbox_mode = ${tomlString(caps.includes('edit') || caps.includes('write') ? 'workspace-write' : 'read-only')}`,
    `web_search = ${tomlString(caps.includes('web') ? 'live' : 'disabled')}`,
  ];
  for (const [key, value] of Object.entries(manifest.extraFrontmatter)) {
    lines.push(`${key} = ${typeof value === 'string' ? tomlString(value) : String(value)}`);
  }
  lines.push(`developer_instructions = ${tomlMultiline([role.body, ...splices(agent.overlays)].join('\n\n'))}`);
  return `${lines.join('\n')}\n`;
}

/** A TOML basic string: every escape JSON writes is also a TOML escape. */
function tomlString(value: string): string {
  return JSON.stringify(value);
}

// biome-ignore lint/suspicious/noControlCharactersInRegex: TOML strings cannot hold raw control characters.
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f]/;

/** A literal multi-line string when the text allows one (it reads as written), else a basic one. */
export function tomlMultiline(text: string): string {
  if (!text.includes("'''") && !CONTROL.test(text)) return `'''\n${text}\n'''`;
  // biome-ignore lint/suspicious/noControlCharactersInRegex: these are the characters to escape.
  const escaped = text.replace(/[\\"\u0000-\u0008\u000b-\u001f\u007f]/g, (c) =>
    c === '\\' ? '\\\\' : c === '"' ? '\\"' : `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
  return `"""\n${escaped}\n"""`;
}
