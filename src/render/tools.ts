import type { Problem } from '../shared/problem.ts';
import type { Manifest } from './manifest.ts';
import type { Role } from './role.ts';

/**
 * The runner tools a role receives: only those mapped from its own capabilities, in the
 * role's order, deduplicated. A tool that another capability (one the role lacks) also maps
 * to would leak that capability, so it is refused rather than emitted.
 */
export function toolsForRole(role: Role, manifest: Manifest, problems: Problem[]): string[] {
  const tools: string[] = [];
  for (const cap of role.capabilities) {
    for (const tool of manifest.toolMap[cap] ?? []) if (!tools.includes(tool)) tools.push(tool);
  }
  const sources = toolSources(manifest);
  for (const tool of tools) {
    const from = sources.get(baseName(tool)) ?? [];
    const leaked = from.filter((cap) => !(role.capabilities as string[]).includes(cap));
    if (leaked.length === 0) continue;
    const held = from.filter((cap) => !leaked.includes(cap));
    const lacking = leaked.join("', '");
    problems.push({
      file: manifest.file,
      message:
        `role '${role.name}' would leak capability '${lacking}': tool '${tool}' is mapped from '${held.join("', '")}' ` +
        `(which the role has) and from '${lacking}' (which it lacks). ` +
        `Grant the role '${lacking}' in ${role.file}, or drop '${role.name}' from this adapter's roles`,
    });
  }
  return tools;
}

const cache = new WeakMap<Manifest, Map<string, string[]>>();

/** `Bash(git diff:*)` -> `Bash`: a rule narrows a tool, but it is still that tool. */
function baseName(tool: string): string {
  const paren = tool.indexOf('(');
  return paren < 0 ? tool : tool.slice(0, paren);
}

/** tool (by base name) -> the capabilities that map to it, computed once per manifest. */
function toolSources(manifest: Manifest): Map<string, string[]> {
  let sources = cache.get(manifest);
  if (!sources) {
    sources = new Map();
    for (const [cap, tools] of Object.entries(manifest.toolMap)) {
      for (const tool of tools) {
        const base = baseName(tool);
        if (!sources.get(base)?.includes(cap)) sources.set(base, [...(sources.get(base) ?? []), cap]);
      }
    }
    cache.set(manifest, sources);
  }
  return sources;
}
