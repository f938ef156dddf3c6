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
  for (const tool of tools) {
    const leaked = Object.entries(manifest.toolMap)
      .filter(([cap, mapped]) => mapped.includes(tool) && !(role.capabilities as string[]).includes(cap))
      .map(([cap]) => cap);
    if (leaked.length === 0) continue;
    const from = role.capabilities.filter((cap) => manifest.toolMap[cap]?.includes(tool));
    problems.push({
      file: manifest.file,
      message:
        `role '${role.name}' would leak capability '${leaked.join("', '")}': tool '${tool}' is mapped from ` +
        `'${from.join("', '")}' (which the role has) and from '${leaked.join("', '")}' (which it lacks). ` +
        `Grant the role '${leaked.join("', '")}' in ${role.file}, or drop '${role.name}' from this adapter's roles`,
    });
  }
  return tools;
}
